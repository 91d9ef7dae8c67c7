//! The mock (`openapi-codegen mock`) refuses what the generated server
//! stubs refuse: the same requests, each broken in one way or several,
//! sent to this API's generated router and to the mock of
//! `spec/openapi.yaml` with the stubs' `ErrorBodyFormat`, give the same
//! status and the same problems (property and error code). The mock
//! interprets the IR instead of running generated code (D64); this is
//! the check that both read the document alike.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::Path;

use axum::Router;
use axum::body::Body;
use http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt as _;
use logistics_server_stubs::models::validation::Problem;
use logistics_server_stubs::models::{self, serde_json};
use logistics_server_stubs::{
    ApiError, BulkUpsertReceivingOrdersRequest, BulkUpsertReceivingOrdersResponse,
    CreateCustomerRequest, CreateCustomerResponse, Credentials, ErrorBodyFormat, FulfilmentApi,
    GetCustomerRequest, GetCustomerResponse, GetSalesOrderRequest, GetSalesOrderResponse,
    ListReturnsRequest, ListReturnsResponse, ListReturnsWithTagRequest, ListReturnsWithTagResponse,
    RequestContext, UpdateReceivingOrderTransferDetailRequest,
    UpdateReceivingOrderTransferDetailResponse, router,
};
use openapi_codegen_mock::Mock;
use serde_json::{Value, json};
use tower::ServiceExt as _;

const TOKEN: &str = "Bearer lfs_stg_good";

/// An implementation no request of this test reaches: each is refused
/// before it.
struct Unreached;

fn unreached() -> ApiError {
    ApiError::internal("a refused request reached the implementation")
}

impl FulfilmentApi for Unreached {
    type Principal = ();

    async fn authenticate(&self, _: Credentials<'_>) -> Result<(), ApiError> {
        Ok(())
    }

    async fn bulk_upsert_receiving_orders(
        &self,
        _: RequestContext<()>,
        _: BulkUpsertReceivingOrdersRequest,
    ) -> Result<BulkUpsertReceivingOrdersResponse, ApiError> {
        Err(unreached())
    }

    fn check_bulk_upsert_receiving_orders_body(
        &self,
        _: &models::ReceivingOrderBatch,
    ) -> Vec<Problem> {
        Vec::new()
    }

    fn check_update_receiving_order_transfer_detail_body(
        &self,
        _: &models::TransferDetail,
    ) -> Vec<Problem> {
        Vec::new()
    }

    async fn update_receiving_order_transfer_detail(
        &self,
        _: RequestContext<()>,
        _: UpdateReceivingOrderTransferDetailRequest,
    ) -> Result<UpdateReceivingOrderTransferDetailResponse, ApiError> {
        Err(unreached())
    }

    async fn create_customer(
        &self,
        _: RequestContext<()>,
        _: CreateCustomerRequest,
    ) -> Result<CreateCustomerResponse, ApiError> {
        Err(unreached())
    }

    async fn get_customer(
        &self,
        _: RequestContext<()>,
        _: GetCustomerRequest,
    ) -> Result<GetCustomerResponse, ApiError> {
        Err(unreached())
    }

    async fn get_sales_order(
        &self,
        _: RequestContext<()>,
        _: GetSalesOrderRequest,
    ) -> Result<GetSalesOrderResponse, ApiError> {
        Err(unreached())
    }

    async fn list_returns(
        &self,
        _: RequestContext<()>,
        _: ListReturnsRequest,
    ) -> Result<ListReturnsResponse, ApiError> {
        Err(unreached())
    }

    async fn list_returns_with_tag(
        &self,
        _: RequestContext<()>,
        _: ListReturnsWithTagRequest,
    ) -> Result<ListReturnsWithTagResponse, ApiError> {
        Err(unreached())
    }
}

/// The status, `Allow`, and the problems of an answer, sorted.
async fn outcome(
    app: &Router,
    request: Request<Body>,
) -> (StatusCode, Option<String>, Vec<(String, String)>) {
    let response = app.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let allow = response
        .headers()
        .get(header::ALLOW)
        .map(|v| v.to_str().unwrap().to_owned());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut problems: Vec<(String, String)> = body["error"]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["property"].as_str().unwrap_or("").to_owned(),
                e["errorCode"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    problems.sort();
    (status, allow, problems)
}

fn request(method: Method, path: &str) -> http::request::Builder {
    Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, TOKEN)
}

fn json_body(method: Method, path: &str, body: Value) -> Request<Body> {
    request(method, path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// Requests the stubs refuse, each with what is wrong with it.
fn refused() -> Vec<(&'static str, Request<Body>)> {
    let line = json!({"sku": "A", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0});
    vec![
        (
            "a path parameter that is not an integer",
            request(Method::GET, "/openapi/v1/Customers/abc")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "below its minimum",
            request(Method::GET, "/openapi/v1/Customers/0")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "beyond int32",
            request(Method::GET, "/openapi/v1/Customers/99999999999")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "a path parameter and a header too long",
            request(
                Method::PUT,
                &format!(
                    "/openapi/v1/ReceivingOrders/{}/transferDetail",
                    "R".repeat(31)
                ),
            )
            .header("x-tenant-id", "t".repeat(65))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(r#"{"transferType": "CargoTransfer"}"#))
            .unwrap(),
        ),
        (
            "no body",
            request(Method::POST, "/openapi/v1/Customers")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "a batch with an unknown property, an enum value and an empty list",
            json_body(
                Method::POST,
                "/openapi/v1/ReceivingOrders/BulkUpsert",
                json!([{"receiveType": "Nope", "lineItems": [], "transferType": "CargoTransfer", "extra": 1}]),
            ),
        ),
        (
            "a line without its required fields and a wrong type",
            json_body(
                Method::POST,
                "/openapi/v1/ReceivingOrders/BulkUpsert",
                json!([{"referenceNumber": 7, "receiveType": "Standard", "transferType": "CargoTransfer", "lineItems": [{"sku": "A"}, line]}]),
            ),
        ),
        (
            "an enum value the API sends but a request may not",
            json_body(
                Method::PUT,
                "/openapi/v1/ReceivingOrders/RO-1/transferDetail",
                json!({"transferType": "Teleport"}),
            ),
        ),
        (
            "a customer with a null, a bad e-mail and a long name",
            json_body(
                Method::POST,
                "/openapi/v1/Customers",
                json!({"email": "nope", "firstName": "E".repeat(101), "lastName": null, "phone": "+905321234567"}),
            ),
        ),
        (
            "not JSON",
            json_body(Method::POST, "/openapi/v1/Customers", json!("{")).map(|_| Body::from("{")),
        ),
        (
            "another media type",
            request(Method::POST, "/openapi/v1/Customers")
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Body::from("hello"))
                .unwrap(),
        ),
        (
            "no credential",
            Request::builder()
                .method(Method::GET)
                .uri("/openapi/v1/Customers/12")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "no such path",
            request(Method::GET, "/openapi/v1/Nothing")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "no such method",
            request(Method::DELETE, "/openapi/v1/Customers")
                .body(Body::empty())
                .unwrap(),
        ),
        (
            "a dynamic query naming a property the listing does not have",
            request(
                Method::GET,
                "/openapi/v1/Returns?dqb=o%3Deq%26p%3Dcolour%26v%3Dred",
            )
            .body(Body::empty())
            .unwrap(),
        ),
        (
            "a dynamic query whose value does not fit its property",
            request(
                Method::GET,
                "/openapi/v1/Returns?dqb=o%3Dgt%26p%3DcreatedAt%26v%3Dyesterday",
            )
            .body(Body::empty())
            .unwrap(),
        ),
        (
            "an Accept the operation cannot answer",
            request(Method::GET, "/openapi/v1/Customers/12")
                .header(header::ACCEPT, "text/html")
                .body(Body::empty())
                .unwrap(),
        ),
    ]
}

#[tokio::test]
async fn the_mock_refuses_what_the_generated_stubs_refuse() {
    let stubs = router(Unreached);
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml");
    let mock = Mock::load(&spec, "spec/openapi.yaml", 0)
        .unwrap()
        .router_with_errors::<ErrorBodyFormat>();
    let (to_stubs, to_mock) = (refused(), refused());
    for ((what, a), (_, b)) in to_stubs.into_iter().zip(to_mock) {
        let expected = outcome(&stubs, a).await;
        assert_ne!(
            expected.0,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{what}: the stubs let it through"
        );
        assert!(expected.0.is_client_error(), "{what}: {expected:?}");
        assert_eq!(outcome(&mock, b).await, expected, "{what}");
    }
}
