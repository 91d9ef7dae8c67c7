//! The client generated from `clinic.json` against the FastAPI app that
//! wrote the document (`.ci/interop/run` serves it at `CLINIC_URL`): each
//! call goes over the wire to a server this generator did not make, and
//! what the app answers shows what reached it.

use clinic_client::models::*;
use clinic_client::*;

fn client() -> Client {
    let base = std::env::var("CLINIC_URL").expect("CLINIC_URL: run by .ci/interop/run");
    Client::builder()
        .base_url(base)
        .token("t0k")
        .basic_auth("ann", "pw")
        .build()
        .unwrap()
}

fn created() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-11-27T10:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc)
}

/// Form bodies, a tagged union in an answer, a union query parameter, a
/// body with a `Literal` list.
#[tokio::test]
async fn forms_unions_and_literals() {
    let c = client();
    assert_eq!(c.health_health_get().await.unwrap()["status"], "ok");
    let form = BodyTokenTokenPost::new("ann", "p w&x=1").with_scope("read write");
    let token = c.token_token_post(&form).await.unwrap();
    assert_eq!(token["access_token"], "ann:p w&x=1");
    assert_eq!(token["scope"], "read write");
    match c.animal_animals_name_get("Tom").await.unwrap() {
        AnimalAnimalsNameGetResponse::Cat(cat) => {
            assert_eq!((cat.name.as_str(), cat.lives), ("Tom", Some(3)))
        }
        other => panic!("not a cat: {other:?}"),
    }
    // `x=5` either way: Pydantic reads it back as text, its smart union's
    // choice for a query string.
    for (x, sent) in [
        (LegacyLegacyGetX::Integer(5), "5"),
        (LegacyLegacyGetX::String("a b".into()), "a b"),
    ] {
        assert_eq!(c.legacy_legacy_get(x).await.unwrap()["x"], sent);
    }
    let subscription = Subscription::new(
        "https://hook.example.com/x",
        vec![
            SubscriptionEventsItem::VisitCreated,
            SubscriptionEventsItem::VisitClosed,
        ],
    );
    let answer = c.subscribe_subscriptions_post(&subscription).await.unwrap();
    assert_eq!(answer["events"], "visit.created,visit.closed");
}

/// A body with an alias, a UUID path, a header, a cookie, an embedded
/// body, the bearer token, basic authentication; the app's 404, 409 and
/// 422 bodies read as the API's errors.
#[tokio::test]
async fn owners_and_errors() {
    let c = client();
    let id = uuid::Uuid::new_v4();
    let owner = OwnerInput::new(id, "ann@example.com", "Ann Lee", created())
        .with_phones(vec!["+33 1".to_owned()])
        .with_tags(vec!["vip".to_owned()])
        .with_address(Address::new("1 rue", "Lyon", "69001"))
        .with_birthday(chrono::NaiveDate::from_ymd_opt(1990, 1, 2).unwrap());
    let params = CreateOwnerOwnersPostParams::default().x_request_id("r1");
    let back = c.create_owner_owners_post(&owner, params).await.unwrap();
    assert_eq!(
        (back.full_name.as_str(), back.created),
        ("Ann Lee", created())
    );
    let params = CreateOwnerOwnersPostParams::default().x_request_id("r2");
    let Err(Error::Api(again)) = c.create_owner_owners_post(&owner, params).await else {
        panic!("a second create is not a 409");
    };
    assert_eq!(
        (again.status().as_u16(), again.message()),
        (409, Some("exists r2"))
    );

    let params = GetOwnerOwnersOwnerIdGetParams::default().session("s1");
    let got = c.get_owner_owners_owner_id_get(id, params).await.unwrap();
    assert_eq!(got.address.unwrap().city, "Lyon");
    let params = GetOwnerOwnersOwnerIdGetParams::default().session("s2");
    let Err(Error::Api(missing)) = c
        .get_owner_owners_owner_id_get(uuid::Uuid::nil(), params)
        .await
    else {
        panic!("an unknown owner is not a 404");
    };
    assert_eq!(
        (missing.status().as_u16(), missing.message()),
        (404, Some("no owner; session=s2"))
    );

    let params = ListOwnersOwnersGetParams::default()
        .limit(5)
        .species(vec![Species::Dog, Species::Cat])
        .search("Ann")
        .cursor("c:");
    let page = c.list_owners_owners_get(params).await.unwrap();
    assert_eq!((page.total, page.next.as_deref()), (1, Some("c:dog,cat")));
    // FastAPI's 422: each problem named by its place.
    let Err(Error::Api(invalid)) = c
        .list_owners_owners_get(ListOwnersOwnersGetParams::default().limit(0))
        .await
    else {
        panic!("limit 0 is not refused");
    };
    assert_eq!(invalid.status().as_u16(), 422);
    assert_eq!(invalid.problems()[0].property, "limit");
    assert_eq!(
        invalid.problems()[0].code.as_deref(),
        Some("greater_than_equal")
    );

    let body = BodySetAddressOwnersOwnerIdAddressPut::new(Address::new("2 rue", "Paris", "75001"))
        .with_notify(true);
    let address = c
        .set_address_owners_owner_id_address_put(id, &body)
        .await
        .unwrap();
    assert_eq!(address.country.as_deref(), Some("NOTIFIED"));
    c.delete_owner_owners_owner_id_delete(id).await.unwrap();
    let params = GetOwnerOwnersOwnerIdGetParams::default();
    assert!(
        c.get_owner_owners_owner_id_get(id, params).await.is_err(),
        "basic authentication did not reach the app"
    );
}

/// A Pydantic tagged union whose tags have defaults, 3.1 nullable
/// `anyOf`s, a tuple, durations and times as text, a union of a string and
/// a list, a query array, a JSON object body, a multipart upload with a
/// list of files, a form with a repeated field, a text answer.
#[tokio::test]
async fn visits() {
    let c = client();
    let visit = VisitInput::new(7, VisitInputAnimal::Dog(Dog::new("Rex")))
        .with_reasons(vec!["limp".to_owned(), "cough".to_owned()])
        .with_weight(VisitInputWeight::Number(12.5))
        .with_coords(vec![45.7, 4.8])
        .with_level(Level::V2)
        .with_duration("PT1H30M")
        .with_at("10:30:00")
        .with_ip("10.0.0.1")
        .with_notes(VisitInputNotes::Array(vec!["a".into(), "b".into()]))
        .with_scan("raw text".to_owned());
    let made = c.create_visit_visits_post(&visit).await.unwrap();
    assert_eq!(made.reason_count, 2);
    assert_eq!(
        made.weight.as_deref(),
        Some("12.5"),
        "Pydantic writes a decimal as text"
    );
    assert!(matches!(made.animal, VisitOutputAnimal::Dog(_)), "{made:?}");
    assert_eq!(made.coords, Some(vec![45.7, 4.8]));
    match c.get_visit_visits_visit_id_get(7).await.unwrap() {
        GetVisitVisitsVisitIdGetResponse::VisitOutput(v) => assert_eq!(v.id, 7),
        other => panic!("not the visit: {other:?}"),
    }
    match c.get_visit_visits_visit_id_get(8).await.unwrap() {
        GetVisitVisitsVisitIdGetResponse::Problem(p) => assert_eq!(p.detail, "no visit 8"),
        other => panic!("not a problem: {other:?}"),
    }
    let params = ListVisitsVisitsGetParams::default()
        .level(Level::V2)
        .ids(vec![7, 9])
        .since(created());
    let page = c.list_visits_visits_get(params).await.unwrap();
    assert_eq!(
        (page.total, page.next.as_deref()),
        (1, Some("2026-11-27T10:00:00+00:00"))
    );

    let mut changes = serde_json::Map::new();
    changes.insert("reasons".into(), serde_json::json!(["limp", "fever"]));
    let patched = c
        .patch_visit_visits_visit_id_patch(7, &changes)
        .await
        .unwrap();
    assert_eq!(
        patched.reasons,
        Some(vec!["limp".to_owned(), "fever".to_owned()])
    );

    let scan = File::new(&b"12345"[..])
        .with_filename("s.png")
        .with_content_type("image/png");
    let pages = vec![
        File::new(&b"1"[..]).with_filename("p1"),
        File::new(&b"2"[..]).with_filename("p2"),
    ];
    let form = UploadScanVisitsVisitIdScanPostForm::new(scan)
        .with_pages(pages)
        .with_comment("hello");
    let counts = c
        .upload_scan_visits_visit_id_scan_post(7, &form)
        .await
        .unwrap();
    assert_eq!(
        (
            counts["scan"],
            counts["pages"],
            counts["comment"],
            counts["png"]
        ),
        (5, 2, 5, 1)
    );

    let words = vec!["limp".to_owned(), "fever".to_owned()];
    let search = BodySearchVisitsVisitsSearchPost::new(Species::Dog).with_words(words);
    assert_eq!(
        c.search_visits_visits_search_post(&search)
            .await
            .unwrap()
            .len(),
        1
    );
    let search = BodySearchVisitsVisitsSearchPost::new(Species::Cat);
    assert!(
        c.search_visits_visits_search_post(&search)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        c.report_visits_visit_id_report_get(7).await.unwrap(),
        "report for 7"
    );
}
