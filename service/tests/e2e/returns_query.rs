//! Both return listings and the `dqb` grammar (D13, D14): filters, OR, null,
//! In, sorting, paging, clamping, dataSetCount and its errors.

use logistics_client::futures_util::TryStreamExt;
use logistics_client::models::dynamic_query::{Direction, Op, Value};
use logistics_client::models::{
    ReturnsQuery, ReturnsQueryProperty as P, TaggedReturn, TaggedReturnsQuery,
    TaggedReturnsQueryProperty as T,
};
use logistics_client::reqwest::Method;
use logistics_client::{Client, ListReturnsParams, ListReturnsWithTagParams};
use logistics_service::domain::returns;
use logistics_service::domain::returns::ReturnStep;
use serde_json::json;

use crate::harness::*;

/// Seven returns: RET-1 … RET-7; RET-3 and RET-7 were created at the same
/// moment, so only the reference number orders them.
pub fn sample_returns() -> Vec<TaggedReturn> {
    let rows = [
        ("RET-1", "Shopify", "Aras Kargo", None, 1, Some("refund")),
        (
            "RET-2",
            "Trendyol",
            "Yurtiçi Kargo",
            Some("Wrong size."),
            2,
            Some("damaged"),
        ),
        ("RET-3", "Shopify", "Yurtiçi Kargo", None, 3, None),
        (
            "RET-4",
            "Amazon",
            "Aras Kargo",
            Some("Broken"),
            4,
            Some("refund"),
        ),
        ("RET-5", "Trendyol", "Aras Kargo", None, 5, None),
        ("RET-6", "Shopify", "MNG", Some("Late"), 6, None),
        ("RET-7", "Amazon", "MNG", None, 3, Some("damaged")),
    ];
    rows.iter()
        .map(|(reference, channel, carrier, notes, day, tag)| {
            serde_json::from_value(json!({
                "returnReferenceNumber": reference,
                "salesOrderChannel": channel,
                "salesOrderReferenceNumber": format!("SO-{reference}"),
                "notes": notes,
                "trackingId": format!("TRK-{reference}"),
                "cargoCarrier": carrier,
                "createdAt": format!("2026-03-{day:02}T09:00:00Z"),
                "updatedAt": format!("2026-03-{day:02}T09:00:00Z"),
                "tag": tag,
            }))
            .expect("a return")
        })
        .collect()
}

async fn references(client: &Client, query: ReturnsQuery) -> Vec<String> {
    let page = client
        .list_returns(ListReturnsParams::default().dqb(query))
        .await
        .unwrap();
    page.items
        .into_iter()
        .map(|r| r.return_reference_number)
        .collect()
}

fn at(day: u32) -> chrono::DateTime<chrono::Utc> {
    format!("2026-03-{day:02}T09:00:00Z").parse().unwrap()
}

/// `dqb` percent-encoded as one parameter.
fn encoded(dqb: &str) -> String {
    let mut out = String::new();
    for byte in dqb.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

async fn raw_list(
    service: &TestService,
    token: &str,
    path: &str,
    dqb: &str,
) -> (u16, serde_json::Value) {
    json_of(
        service
            .raw(Method::GET, &format!("{path}?dqb={}", encoded(dqb)))
            .bearer_auth(token)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn refs_of(body: &serde_json::Value) -> Vec<String> {
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["returnReferenceNumber"].as_str().unwrap().to_owned())
        .collect()
}

on_both_backends! {
    async fn filters_combine_left_to_right_with_or_null_and_in(service) {
        let a = service.tenant("A").await;
        returns::import(service.store(), a.id, &sample_returns()).await.unwrap();
        let c = &a.client;
        let q = ReturnsQuery::new;

        // No query: everything, by createdAt then returnReferenceNumber.
        let all = c.list_returns(ListReturnsParams::default()).await.unwrap();
        assert_eq!(all.items.iter().map(|r| r.return_reference_number.as_str()).collect::<Vec<_>>(), ["RET-1", "RET-2", "RET-3", "RET-7", "RET-4", "RET-5", "RET-6"]);
        assert_eq!((all.count, all.offset, all.data_set_count), (100, 0, 7));

        assert_eq!(references(c, q().filter(P::SalesOrderChannel, Op::Equals, "Shopify")).await, ["RET-1", "RET-3", "RET-6"]);
        assert_eq!(references(c, q().filter(P::SalesOrderChannel, Op::Equals, "shopify")).await, Vec::<String>::new(), "values are case-sensitive");
        assert_eq!(references(c, q().filter(P::SalesOrderChannel, Op::NotEqual, "Shopify")).await, ["RET-2", "RET-7", "RET-4", "RET-5"]);
        assert_eq!(references(c, q().filter(P::SalesOrderChannel, Op::In, Value::list(["Amazon", "Trendyol"]))).await, ["RET-2", "RET-7", "RET-4", "RET-5"]);
        assert_eq!(references(c, q().filter(P::Notes, Op::Contains, "o")).await, ["RET-2", "RET-4"]);
        assert_eq!(references(c, q().filter(P::CargoCarrier, Op::StartsWith, "Yurt")).await, ["RET-2", "RET-3"]);
        // LIKE's wildcards are text like any other.
        assert_eq!(references(c, q().filter(P::Notes, Op::Contains, "%")).await, Vec::<String>::new());
        assert_eq!(references(c, q().filter(P::Notes, Op::StartsWith, "_")).await, Vec::<String>::new());
        assert_eq!(references(c, q().filter(P::Notes, Op::EndsWith, ".")).await, ["RET-2"]);
        assert_eq!(references(c, q().filter(P::CargoCarrier, Op::EndsWith, "Kargo")).await, ["RET-1", "RET-2", "RET-3", "RET-4", "RET-5"]);
        assert_eq!(references(c, q().filter(P::CreatedAt, Op::GreaterThan, at(3))).await, ["RET-4", "RET-5", "RET-6"]);
        assert_eq!(references(c, q().filter(P::CreatedAt, Op::GreaterThanOrEqual, at(3))).await, ["RET-3", "RET-7", "RET-4", "RET-5", "RET-6"]);
        assert_eq!(references(c, q().filter(P::CreatedAt, Op::LessThan, at(2))).await, ["RET-1"]);
        assert_eq!(references(c, q().filter(P::CreatedAt, Op::LessThanOrEqual, at(2))).await, ["RET-1", "RET-2"]);
        assert_eq!(references(c, q().filter(P::Notes, Op::Equals, Value::Null)).await, ["RET-1", "RET-3", "RET-7", "RET-5"]);
        assert_eq!(references(c, q().filter(P::Notes, Op::NotEqual, Value::Null)).await, ["RET-2", "RET-4", "RET-6"]);
        // AND by default; `|OrElse` folds left: (Amazon OR Trendyol) AND Aras.
        assert_eq!(references(c, q().filter(P::SalesOrderChannel, Op::Equals, "Shopify").filter(P::CargoCarrier, Op::Equals, "Aras Kargo")).await, ["RET-1"]);
        let folded = q()
            .filter(P::SalesOrderChannel, Op::Equals, "Amazon").or()
            .filter(P::SalesOrderChannel, Op::Equals, "Trendyol")
            .filter(P::CargoCarrier, Op::Equals, "Aras Kargo");
        assert_eq!(references(c, folded).await, ["RET-4", "RET-5"]);

        // The same over plain HTTP, as an integration of the platform writes it:
        // full op names, short codes, a leading `?`, unknown parameters ignored.
        let path = "/openapi/v1/Returns";
        for dqb in [
            "o=Equals|OrElse&p=salesOrderChannel&v=Amazon&o=eq&p=salesOrderChannel&v=Trendyol&o=eq&p=cargoCarrier&v=Aras Kargo",
            "?o=eq|OrElse&p=salesOrderChannel&v=Amazon&o=Equals&p=salesOrderChannel&v=Trendyol&o=eq&p=cargoCarrier&v=Aras Kargo&utm=x",
        ] {
            let (status, body) = raw_list(service, &a.token, path, dqb).await;
            assert_eq!(status, 200, "{dqb}: {body}");
            assert_eq!(refs_of(&body), ["RET-4", "RET-5"], "{dqb}");
            assert_eq!(body["dataSetCount"], 2);
        }
        let (_, body) = raw_list(service, &a.token, path, "o=in&p=returnReferenceNumber&v=RET-6,RET-1,RET-9").await;
        assert_eq!(refs_of(&body), ["RET-1", "RET-6"]);
    }

    async fn sorting_paging_and_clamping(service) {
        let a = service.tenant("A").await;
        returns::import(service.store(), a.id, &sample_returns()).await.unwrap();
        let c = &a.client;
        let q = ReturnsQuery::new;

        // Sort keys in order, then createdAt and returnReferenceNumber ascending.
        assert_eq!(references(c, q().sort(P::CargoCarrier, Direction::Descending)).await, ["RET-2", "RET-3", "RET-7", "RET-6", "RET-1", "RET-4", "RET-5"]);
        assert_eq!(
            references(c, q().sort(P::SalesOrderChannel, Direction::Ascending).sort(P::CreatedAt, Direction::Descending)).await,
            ["RET-4", "RET-7", "RET-6", "RET-3", "RET-1", "RET-5", "RET-2"]
        );
        assert_eq!(references(c, q().sort(P::CreatedAt, Direction::Descending)).await, ["RET-6", "RET-5", "RET-4", "RET-3", "RET-7", "RET-2", "RET-1"]);

        // A page: its count and offset, and the total before paging.
        let page = c.list_returns(ListReturnsParams::default().dqb(q().offset(2).count(2))).await.unwrap();
        assert_eq!((page.count, page.offset, page.data_set_count), (2, 2, 7));
        assert_eq!(page.items.iter().map(|r| r.return_reference_number.as_str()).collect::<Vec<_>>(), ["RET-3", "RET-7"]);
        let filtered = c.list_returns(ListReturnsParams::default().dqb(q().filter(P::SalesOrderChannel, Op::Equals, "Shopify").count(1).offset(1))).await.unwrap();
        assert_eq!((filtered.items.len(), filtered.data_set_count), (1, 3));
        let beyond = c.list_returns(ListReturnsParams::default().dqb(q().offset(50))).await.unwrap();
        assert_eq!((beyond.items.len(), beyond.offset, beyond.data_set_count), (0, 50, 7));

        // The client's stream walks every page once.
        let streamed: Vec<String> = c.list_returns_stream(q().count(3)).map_ok(|r| r.return_reference_number).try_collect().await.unwrap();
        assert_eq!(streamed, ["RET-1", "RET-2", "RET-3", "RET-7", "RET-4", "RET-5", "RET-6"]);

        // Clamping: count to 1–100, offset to ≥ 0; the first occurrence wins.
        let path = "/openapi/v1/Returns";
        for (dqb, count, offset, items) in [
            ("count=500", 100, 0, 7),
            ("count=0", 1, 0, 1),
            ("count=-3&offset=-5", 1, 0, 1),
            ("offset=-5", 100, 0, 7),
            ("count=2&count=5&offset=6&offset=0", 2, 6, 1),
        ] {
            let (status, body) = raw_list(service, &a.token, path, dqb).await;
            assert_eq!(status, 200, "{dqb}: {body}");
            assert_eq!((body["count"].as_i64(), body["offset"].as_i64(), body["items"].as_array().unwrap().len()), (Some(count), Some(offset), items), "{dqb}");
            assert_eq!(body["dataSetCount"], 7);
        }
        // Paging over 100 returns: default pages of 100, the rest on the next.
        let many: Vec<TaggedReturn> = (0..130).map(|i| {
            let mut r = sample_returns().remove(0);
            r.return_reference_number = format!("BULK-{i:03}");
            r
        }).collect();
        returns::import(service.store(), a.id, &many).await.unwrap();
        let first = c.list_returns(ListReturnsParams::default()).await.unwrap();
        assert_eq!((first.items.len(), first.count, first.data_set_count), (100, 100, 137));
        let rest = c.list_returns(ListReturnsParams::default().dqb(q().offset(100))).await.unwrap();
        assert_eq!(rest.items.len(), 37);
    }

    async fn malformed_queries_are_400_invalid_dynamic_query(service) {
        let a = service.tenant("A").await;
        returns::import(service.store(), a.id, &sample_returns()).await.unwrap();
        for (path, dqb) in [
            ("/openapi/v1/Returns", "o=eq&p=colour&v=red"),
            ("/openapi/v1/Returns", "o=like&p=notes&v=x"),
            ("/openapi/v1/Returns", "o=eq&p=notes"),
            ("/openapi/v1/Returns", "p=notes&v=x"),
            ("/openapi/v1/Returns", "o=gt&p=createdAt&v=yesterday"),
            ("/openapi/v1/Returns", "o=gt&p=createdAt&v=null"),
            ("/openapi/v1/Returns", "o=EQUALS&p=notes&v=x"),
            ("/openapi/v1/Returns", "o=eq&p=Notes&v=x"),
            ("/openapi/v1/Returns", "s=colour,desc"),
            ("/openapi/v1/Returns", "s=notes,sideways"),
            ("/openapi/v1/Returns", "count=ten"),
            ("/openapi/v1/Returns", "offset=1.5"),
            ("/openapi/v1/Returns", "o=eq&p=tag&v=refund"),
            ("/openapi/v1/Returns/GetReturnsWithTag", "o=eq&p=colour&v=red"),
            ("/openapi/v1/Returns/GetReturnsWithTag", "count=many"),
        ] {
            let (status, body) = raw_list(service, &a.token, path, dqb).await;
            assert_eq!(status, 400, "{path}?dqb={dqb}: {body}");
            assert_eq!(codes_of(&body), [("dqb".to_owned(), "InvalidDynamicQuery".to_owned())], "{dqb}");
            assert!(!body["error"]["errors"][0]["message"].as_str().unwrap_or_default().is_empty());
        }
    }

    async fn the_tagged_listing_shows_tags_and_warehouse_changes(service) {
        let a = service.tenant("A").await;
        returns::import(service.store(), a.id, &sample_returns()).await.unwrap();
        let c = &a.client;
        let tagged = |query: TaggedReturnsQuery| {
            let c = c.clone();
            async move {
                let page = c.list_returns_with_tag(ListReturnsWithTagParams::default().dqb(query)).await.unwrap();
                page.items.into_iter().map(|r| (r.return_reference_number, r.tag)).collect::<Vec<_>>()
            }
        };
        let all = tagged(TaggedReturnsQuery::new()).await;
        assert_eq!(all.len(), 7, "every return, tagged or not (D14)");
        assert_eq!(all[0], ("RET-1".to_owned(), Some("refund".to_owned())));
        assert_eq!(all[2], ("RET-3".to_owned(), None));
        let refund: Vec<String> = tagged(TaggedReturnsQuery::new().filter(T::Tag, Op::Equals, "refund")).await.into_iter().map(|r| r.0).collect();
        assert_eq!(refund, ["RET-1", "RET-4"]);
        let with_tag: Vec<String> = tagged(TaggedReturnsQuery::new().filter(T::Tag, Op::NotEqual, Value::Null)).await.into_iter().map(|r| r.0).collect();
        assert_eq!(with_tag, ["RET-1", "RET-2", "RET-7", "RET-4"]);
        let without: Vec<String> = tagged(TaggedReturnsQuery::new().filter(T::Tag, Op::Equals, Value::Null).sort(T::Tag, Direction::Ascending)).await.into_iter().map(|r| r.0).collect();
        assert_eq!(without, ["RET-3", "RET-5", "RET-6"]);

        // On the wire: an untagged return has no tag field; the plain listing none at all.
        let (_, body) = raw_list(service, &a.token, "/openapi/v1/Returns/GetReturnsWithTag", "o=eq&p=returnReferenceNumber&v=RET-3").await;
        assert!(body["items"][0].get("tag").is_none(), "{body}");
        let (_, body) = raw_list(service, &a.token, "/openapi/v1/Returns", "o=eq&p=returnReferenceNumber&v=RET-1").await;
        assert!(body["items"][0].get("tag").is_none(), "{body}");

        // The warehouse side: tags, arrival, completion.
        returns::tag(service.store(), a.id, "RET-3", "inspected").await.unwrap();
        returns::advance(service.store(), a.id, "RET-3", ReturnStep::Arrived).await.unwrap();
        assert!(returns::advance(service.store(), a.id, "RET-5", ReturnStep::Completed).await.is_err(), "completed before it arrived");
        returns::advance(service.store(), a.id, "RET-3", ReturnStep::Completed).await.unwrap();
        let page = c.list_returns_with_tag(ListReturnsWithTagParams::default().dqb(TaggedReturnsQuery::new().filter(T::Tag, Op::Equals, "inspected"))).await.unwrap();
        assert_eq!(page.items.len(), 1);
        let three = &page.items[0];
        assert!(three.arrived_to_warehouse_at.is_some() && three.completed_at.is_some());
        assert!(three.updated_at > three.created_at);
        assert!(returns::tag(service.store(), a.id, "RET-3", &"x".repeat(257)).await.is_err(), "tags are at most 256 characters");
        let plain = c.list_returns(ListReturnsParams::default().dqb(ReturnsQuery::new().filter(P::CompletedAt, Op::NotEqual, Value::Null))).await.unwrap();
        assert_eq!(plain.items.iter().map(|r| r.return_reference_number.as_str()).collect::<Vec<_>>(), ["RET-3"]);
    }
}
