//! A document without an `error-schema` in its codegen settings: the
//! generated server answers its errors as RFC 9457 problem details
//! (`application/problem+json`), a 400 listing every problem in `errors`
//! and a 404, and the generated client reads them.

use std::net::SocketAddr;

use fixture_problem_details_client::models::Item;
use fixture_problem_details_client::models::serde_json::{self, Value, json};
use fixture_problem_details_client::{Client, GetItemParams};
use fixture_problem_details_server::{
    ApiError, GetItemRequest, GetItemResponse, InventoryApi, RequestContext, router,
};

/// Knows one item, `known`.
struct Shelf;

impl InventoryApi for Shelf {
    async fn get_item(
        &self,
        _: RequestContext,
        request: GetItemRequest,
    ) -> Result<GetItemResponse, ApiError> {
        if request.sku == "known" {
            return Ok(GetItemResponse::Ok {
                body: Item::new("known"),
            });
        }
        Err(ApiError::not_found(
            "ItemNotFound",
            format!("No item has the SKU {}.", request.sku),
        ))
    }
}

async fn serve() -> (SocketAddr, Client) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(Shelf)).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (addr, client)
}

/// Sends a GET with `X-Request-Id: <request_id>`; the answer's status,
/// `Content-Type` and JSON body.
async fn get(addr: SocketAddr, path_and_query: &str, request_id: &str) -> (u16, String, Value) {
    let answer = fixture_problem_details_client::reqwest::Client::new()
        .get(format!("http://{addr}{path_and_query}"))
        .header("x-request-id", request_id)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let content_type = answer.headers()["content-type"].to_str().unwrap().to_owned();
    assert_eq!(answer.headers()["x-request-id"], request_id);
    let body = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    (status, content_type, body)
}

#[tokio::test]
async fn a_bad_request_is_a_problem_details_400_listing_every_problem() {
    let (addr, _) = serve().await;
    let (status, content_type, body) = get(addr, "/items/much-too-long?limit=0", "req-400").await;
    assert_eq!(status, 400);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(
        body,
        json!({
            "type": "about:blank",
            "title": "Bad Request",
            "status": 400,
            "detail": "The request has 2 validation errors.",
            "instance": "urn:request-id:req-400",
            "errors": [
                {"property": "sku", "detail": "must be at most 8 characters long", "code": "OutOfRange"},
                {"property": "limit", "detail": "must be at least 1", "code": "OutOfRange"},
            ],
        }),
        "{body}"
    );
}

#[tokio::test]
async fn a_missing_item_and_a_missing_route_are_problem_details_404s() {
    let (addr, _) = serve().await;
    let (status, content_type, body) = get(addr, "/items/gone", "req-404").await;
    assert_eq!(status, 404);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(
        body,
        json!({
            "type": "about:blank",
            "title": "Not Found",
            "status": 404,
            "detail": "No item has the SKU gone.",
            "instance": "urn:request-id:req-404",
            // The error code, about the request as a whole.
            "errors": [{"property": "", "detail": "No item has the SKU gone.", "code": "ItemNotFound"}],
        }),
        "{body}"
    );

    // The router's own 404, for a path no operation has.
    let (status, content_type, body) = get(addr, "/shelves", "req-route").await;
    assert_eq!(status, 404);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(body["title"], "Not Found");
    assert_eq!(body["detail"], "No operation has the path /shelves.");
    assert_eq!(body["instance"], "urn:request-id:req-route");
}

#[tokio::test]
async fn the_client_reads_the_problem_details() {
    let (_, client) = serve().await;
    assert_eq!(
        client.get_item("known", GetItemParams::default()).await.unwrap(),
        Item::new("known")
    );

    let error = client
        .get_item("much-too-long", GetItemParams::default().limit(0))
        .await
        .unwrap_err();
    let api = error.api_error().unwrap_or_else(|| panic!("{error:?}"));
    assert_eq!(api.status().as_u16(), 400);
    assert_eq!(api.message(), Some("The request has 2 validation errors."));
    let problems: Vec<_> = api
        .problems()
        .iter()
        .map(|p| (p.property.as_str(), p.code.as_deref()))
        .collect();
    assert_eq!(
        problems,
        [("sku", Some("OutOfRange")), ("limit", Some("OutOfRange"))]
    );

    let error = client
        .get_item("gone", GetItemParams::default())
        .await
        .unwrap_err();
    let api = error.api_error().unwrap_or_else(|| panic!("{error:?}"));
    assert_eq!(api.status().as_u16(), 404);
    assert_eq!(api.message(), Some("No item has the SKU gone."));
    assert_eq!(api.body()["instance"], format!("urn:request-id:{}", api.request_id().unwrap()));
}
