//! The generated server stubs, driven as the service drives them: a test
//! implementation of the trait behind `router`, requests sent with
//! `tower::ServiceExt::oneshot`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode, header};
use http_body_util::BodyExt as _;
use logistics_server_stubs::models::validation::Problem;
use logistics_server_stubs::models::{self, serde_json};
use logistics_server_stubs::{
    ApiError, BulkUpsertReceivingOrdersRequest, BulkUpsertReceivingOrdersResponse,
    CreateCustomerRequest, CreateCustomerResponse, Credentials, FulfilmentApi, GetCustomerRequest,
    GetCustomerResponse, GetSalesOrderRequest, GetSalesOrderResponse, ListReturnsRequest,
    ListReturnsResponse, ListReturnsWithTagRequest, ListReturnsWithTagResponse, RequestContext,
    Settings, UpdateReceivingOrderTransferDetailRequest,
    UpdateReceivingOrderTransferDetailResponse, router, router_with,
};
use serde_json::{Value, json};
use tower::ServiceExt as _;

const TOKEN: &str = "Bearer lfs_stg_good";

// ---- the test implementation ---------------------------------------------------------

/// What the implementation saw, for the tests to look at.
#[derive(Default)]
struct Seen {
    authenticate_calls: AtomicUsize,
    rule_checks: AtomicUsize,
    calls: Mutex<Vec<String>>,
}

impl Seen {
    fn record(&self, call: String) {
        self.calls.lock().unwrap().push(call);
    }

    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

struct TestApi {
    seen: Arc<Seen>,
}

/// The tenant a token acts for.
#[derive(Debug, Clone, PartialEq)]
struct Tenant(String);

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid test value")
}

fn customer(customer_no: i32, email: &str) -> models::Customer {
    from_json(json!({
        "id": "8d3b8f4e-2f7a-4c59-9a0e-0b6f2d7c1e55",
        "customerNo": customer_no,
        "email": email,
        "firstName": "Elif",
        "lastName": "Yılmaz",
        "phone": "+905321234567",
        "createdAt": "2026-03-14T10:02:11Z",
        "addresses": []
    }))
}

impl FulfilmentApi for TestApi {
    type Principal = Tenant;

    async fn authenticate(&self, credentials: Credentials<'_>) -> Result<Tenant, ApiError> {
        self.seen.authenticate_calls.fetch_add(1, Ordering::SeqCst);
        // Logging the credentials does not leak the token.
        assert!(!format!("{credentials:?}").contains("lfs_"));
        let token = credentials.value();
        let token = token.strip_prefix("Bearer ").unwrap_or(token);
        if token != "lfs_stg_good" {
            return Err(
                ApiError::unauthorized("InvalidCredential", "The token is not known.")
                    .at("Authorization"),
            );
        }
        match credentials.headers.get("x-tenant-id") {
            Some(tenant) if tenant == "tenant-2" => Err(ApiError::forbidden(
                "Forbidden",
                "This token may not act on behalf of another tenant.",
            )
            .at("X-Tenant-Id")),
            _ => Ok(Tenant("tenant-1".to_owned())),
        }
    }

    async fn bulk_upsert_receiving_orders(
        &self,
        context: RequestContext<Tenant>,
        request: BulkUpsertReceivingOrdersRequest,
    ) -> Result<BulkUpsertReceivingOrdersResponse, ApiError> {
        self.seen.record(format!(
            "bulk_upsert {} orders for {}",
            request.body.0.len(),
            context.principal.0
        ));
        Ok(BulkUpsertReceivingOrdersResponse::Ok {
            body: from_json(json!({"updateFailures": []})),
        })
    }

    /// One rule of the spec's `x-rules`, as an implementation would write it.
    fn check_bulk_upsert_receiving_orders_body(
        &self,
        body: &models::ReceivingOrderBatch,
    ) -> Vec<Problem> {
        self.seen.rule_checks.fetch_add(1, Ordering::SeqCst);
        let mut problems = Vec::new();
        for (i, order) in body.iter().enumerate() {
            for (j, line) in order.line_items.iter().enumerate() {
                if order.line_items[..j]
                    .iter()
                    .any(|earlier| earlier.sku == line.sku)
                {
                    problems.push(Problem {
                        property: format!("[{i}].lineItems[{j}]"),
                        message: format!("sku `{}` appears more than once", line.sku),
                        error_code: "DuplicateLineItem".to_owned(),
                    });
                }
            }
        }
        problems
    }

    fn check_update_receiving_order_transfer_detail_body(
        &self,
        _: &models::TransferDetail,
    ) -> Vec<Problem> {
        self.seen.rule_checks.fetch_add(1, Ordering::SeqCst);
        Vec::new()
    }

    async fn update_receiving_order_transfer_detail(
        &self,
        context: RequestContext<Tenant>,
        request: UpdateReceivingOrderTransferDetailRequest,
    ) -> Result<UpdateReceivingOrderTransferDetailResponse, ApiError> {
        self.seen.record(format!(
            "update_transfer_detail {} {:?} for {}",
            request.reference_number, request.body.transfer_type, context.principal.0
        ));
        Ok(UpdateReceivingOrderTransferDetailResponse::Ok { body: request.body })
    }

    async fn create_customer(
        &self,
        context: RequestContext<Tenant>,
        request: CreateCustomerRequest,
    ) -> Result<CreateCustomerResponse, ApiError> {
        self.seen.record(format!(
            "create_customer {} for {} tenant header {:?} operation {}",
            request.body.email, context.principal.0, context.x_tenant_id, context.operation_id
        ));
        Ok(CreateCustomerResponse::Created {
            body: customer(42, &request.body.email),
            location: "/openapi/v1/Customers/42".to_owned(),
        })
    }

    async fn get_customer(
        &self,
        context: RequestContext<Tenant>,
        request: GetCustomerRequest,
    ) -> Result<GetCustomerResponse, ApiError> {
        self.seen.record(format!(
            "get_customer {} request id {}",
            request.customer_no, context.request_id
        ));
        // Nor does logging the context: credential headers are marked sensitive.
        assert!(!format!("{context:?}").contains("lfs_"));
        match request.customer_no {
            7 => panic!("boom: the database password is hunter2"),
            404 => Err(
                ApiError::not_found("ResourceNotFound", "No customer has the number 404.")
                    .at("customerNo"),
            ),
            n => Ok(GetCustomerResponse::Ok {
                body: customer(n, "elif.yilmaz@example.com"),
            }),
        }
    }

    async fn get_sales_order(
        &self,
        _context: RequestContext<Tenant>,
        request: GetSalesOrderRequest,
    ) -> Result<GetSalesOrderResponse, ApiError> {
        self.seen
            .record(format!("get_sales_order {}", request.reference_number));
        match request.reference_number.as_str() {
            "SO-500" => Err(ApiError::internal(std::io::Error::other(
                "connection refused by db.internal:5432",
            ))),
            reference => Ok(GetSalesOrderResponse::Ok {
                body: from_json(json!({
                    "id": "5b1f3c2d-7e4a-4b8f-9c6d-2a1e0f9d8c7b",
                    "referenceNumber": reference,
                    "state": "Shipped",
                    "approvedShipments": true,
                    "approved": true,
                    "createdAt": "2026-03-10T08:15:00Z",
                    "updatedAt": "2026-03-11T16:40:12Z",
                    "customer": {
                        "id": "8d3b8f4e-2f7a-4c59-9a0e-0b6f2d7c1e55",
                        "customerNo": 42,
                        "email": "elif.yilmaz@example.com",
                        "firstName": "Elif",
                        "lastName": "Yılmaz",
                        "phone": "+905321234567",
                        "createdAt": "2026-03-10T08:15:00Z"
                    },
                    "lineItems": [],
                    "packages": []
                })),
            }),
        }
    }

    async fn list_returns(
        &self,
        _context: RequestContext<Tenant>,
        request: ListReturnsRequest,
    ) -> Result<ListReturnsResponse, ApiError> {
        let query = request.dqb.map(|query| query.to_query_string());
        self.seen.record(format!("list_returns {query:?}"));
        Ok(ListReturnsResponse::Ok {
            body: from_json(json!({"count": 100, "offset": 0, "dataSetCount": 0, "items": []})),
        })
    }

    async fn list_returns_with_tag(
        &self,
        _context: RequestContext<Tenant>,
        request: ListReturnsWithTagRequest,
    ) -> Result<ListReturnsWithTagResponse, ApiError> {
        let query = request.dqb.map(|query| query.to_query_string());
        self.seen.record(format!("list_returns_with_tag {query:?}"));
        Ok(ListReturnsWithTagResponse::Ok {
            body: from_json(json!({
                "count": 1,
                "offset": 0,
                "dataSetCount": 1,
                "items": [{
                    "returnReferenceNumber": "RET-1",
                    "createdAt": "2026-03-18T09:00:00Z",
                    "updatedAt": "2026-03-18T09:00:00Z",
                    "tag": null
                }]
            })),
        })
    }
}

// ---- helpers -------------------------------------------------------------------------

fn app() -> (Router, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    (
        router(TestApi {
            seen: Arc::clone(&seen),
        }),
        seen,
    )
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| panic!("no {name} header"))
            .to_str()
            .unwrap()
    }

    /// Asserts that this is an error response in the document's format with
    /// `status`, and returns its `errors`.
    fn error(&self, status: StatusCode) -> Vec<Value> {
        assert_eq!(
            self.status,
            status,
            "body: {}",
            String::from_utf8_lossy(&self.body)
        );
        assert_eq!(self.header("content-type"), "application/json");
        let body = self.json();
        let object = body.as_object().expect("an object");
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["error", "requestId", "timestamp"]);
        assert_eq!(body["error"]["code"], json!(status.as_u16()));
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert_eq!(body["requestId"], json!(self.header("x-request-id")));
        assert_timestamp(body["timestamp"].as_str().expect("a timestamp"));
        let errors = body["error"]["errors"].as_array().expect("errors").clone();
        for error in &errors {
            let mut keys: Vec<&str> = error
                .as_object()
                .expect("an object")
                .keys()
                .map(String::as_str)
                .collect();
            keys.sort_unstable();
            assert_eq!(keys, ["errorCode", "message", "property"]);
        }
        errors
    }

    /// Asserts an error response whose one problem has `code` about `property`.
    fn error_code(&self, status: StatusCode, property: &str, code: &str) {
        let errors = self.error(status);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0]["property"], json!(property), "{errors:?}");
        assert_eq!(errors[0]["errorCode"], json!(code), "{errors:?}");
    }
}

/// `2026-03-14T10:02:11Z`: RFC 3339 in UTC with `Z`.
fn assert_timestamp(text: &str) {
    let bytes = text.as_bytes();
    let shape_ok = bytes.len() == 20
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            10 => *b == b'T',
            13 | 16 => *b == b':',
            19 => *b == b'Z',
            _ => b.is_ascii_digit(),
        });
    assert!(shape_ok, "not an RFC 3339 UTC timestamp: {text}");
    assert!(text > "2020-01-01T00:00:00Z", "{text}");
}

async fn send(app: &Router, request: Request<Body>) -> Answer {
    let response = app.clone().oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.expect("a body").to_bytes(),
    }
}

fn get(path: &str) -> http::request::Builder {
    Request::builder()
        .method(Method::GET)
        .uri(path)
        .header(header::AUTHORIZATION, TOKEN)
}

fn json_request(method: Method, path: &str, body: &Value) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, TOKEN)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

async fn bulk_upsert(app: &Router, body: &Value) -> Answer {
    send(
        app,
        json_request(Method::POST, "/openapi/v1/ReceivingOrders/BulkUpsert", body),
    )
    .await
}

fn customer_input() -> Value {
    json!({
        "email": "elif.yilmaz@example.com",
        "firstName": "Elif",
        "lastName": "Yılmaz",
        "phone": "+905321234567"
    })
}

fn receiving_order() -> Value {
    json!({
        "referenceNumber": "RO-2026-000184",
        "receiveType": "Standard",
        "lineItems": [{"sku": "TSHIRT-BLK-M", "expectedQuantity": 120, "hasLimitCheck": true, "tolerance": 2}],
        "transferType": "CargoTransfer"
    })
}

// ---- the operations' success paths ----------------------------------------------------

#[tokio::test]
async fn creates_a_customer() {
    let (app, seen) = app();
    let mut request = json_request(Method::POST, "/openapi/v1/Customers", &customer_input());
    request
        .headers_mut()
        .insert("x-tenant-id", "tenant-1".parse().unwrap());
    let answer = send(&app, request).await;
    assert_eq!(answer.status, StatusCode::CREATED);
    assert_eq!(answer.header("content-type"), "application/json");
    assert_eq!(answer.header("location"), "/openapi/v1/Customers/42");
    assert_eq!(answer.json()["customerNo"], json!(42));
    assert_eq!(answer.json()["email"], json!("elif.yilmaz@example.com"));
    assert!(!answer.header("x-request-id").is_empty());
    assert_eq!(
        seen.calls(),
        [
            "create_customer elif.yilmaz@example.com for tenant-1 tenant header Some(\"tenant-1\") operation createCustomer"
        ]
    );
}

#[tokio::test]
async fn reads_a_customer() {
    let (app, seen) = app();
    let answer = send(
        &app,
        get("/openapi/v1/Customers/42")
            .header("x-request-id", "req-42")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["customerNo"], json!(42));
    assert_eq!(seen.calls(), ["get_customer 42 request id req-42"]);
}

#[tokio::test]
async fn bulk_upserts_receiving_orders() {
    let (app, seen) = app();
    let body = json!([receiving_order(), receiving_order()]);
    let answer = bulk_upsert(&app, &body).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json(), json!({"updateFailures": []}));
    assert_eq!(seen.calls(), ["bulk_upsert 2 orders for tenant-1"]);
}

#[tokio::test]
async fn updates_a_transfer_detail() {
    let (app, seen) = app();
    let body = json!({
        "transferType": "CarriageTransfer",
        "carriageTransfer": {"shipmentDate": "2026-03-15T07:00:00Z", "carriageCompanyName": "Marmara Nakliyat", "waybillNumber": "WB-55120"}
    });
    let answer = send(
        &app,
        json_request(
            Method::PUT,
            "/openapi/v1/ReceivingOrders/RO%2F7/transferDetail",
            &body,
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["transferType"], json!("CarriageTransfer"));
    assert_eq!(
        answer.json()["carriageTransfer"]["waybillNumber"],
        json!("WB-55120")
    );
    // The path parameter arrives percent-decoded.
    assert_eq!(
        seen.calls(),
        ["update_transfer_detail RO/7 CarriageTransfer for tenant-1"]
    );
}

#[tokio::test]
async fn reads_a_sales_order() {
    let (app, seen) = app();
    let answer = send(
        &app,
        get("/openapi/v1/SalesOrders/SO-2026-004512")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["referenceNumber"], json!("SO-2026-004512"));
    assert_eq!(answer.json()["state"], json!("Shipped"));
    assert_eq!(seen.calls(), ["get_sales_order SO-2026-004512"]);
}

#[tokio::test]
async fn lists_returns_with_the_dynamic_query_parsed() {
    let (app, seen) = app();
    let answer = send(
        &app,
        get("/openapi/v1/Returns?dqb=o%3Deq%26p%3DcargoCarrier%26v%3DYurti%C3%A7i+Kargo%26count%3D5&other=1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["count"], json!(100));
    // The implementation got the typed query (written back as a client would).
    assert_eq!(
        seen.calls(),
        ["list_returns Some(\"o=Equals&p=cargoCarrier&v=Yurti%C3%A7i%20Kargo&count=5\")"]
    );
}

#[tokio::test]
async fn a_dynamic_query_that_does_not_parse_is_400_before_the_implementation() {
    let (app, seen) = app();
    for (dqb, names) in [
        ("o%3Deq%26p%3Dcolour%26v%3Dred", "`colour`"),
        ("o%3Dgt%26p%3DcreatedAt%26v%3Dyesterday", "`yesterday`"),
        ("o%3Deq%26p%3Dtag%26v%3Dx", "`tag`"),
        ("count%3Dten", "count"),
    ] {
        let answer = send(
            &app,
            get(&format!("/openapi/v1/Returns?dqb={dqb}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        answer.error_code(StatusCode::BAD_REQUEST, "dqb", "InvalidDynamicQuery");
        let message = answer.error(StatusCode::BAD_REQUEST)[0]["message"].clone();
        assert!(
            message.as_str().unwrap().contains(names),
            "{dqb}: {message}"
        );
    }
    // Listed with the request's other problems; a text its schema refuses
    // (over 4096 characters) is that one problem, not parsed as well.
    let request = get(&format!(
        "/openapi/v1/Returns?dqb=o%3Deq%26p%3Dcolour%26v%3D{}",
        "x".repeat(4100)
    ))
    .header("x-tenant-id", "t".repeat(65))
    .body(Body::empty())
    .unwrap();
    let errors = send(&app, request).await.error(StatusCode::BAD_REQUEST);
    let codes: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e["property"].as_str().unwrap(),
                e["errorCode"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [("X-Tenant-Id", "OutOfRange"), ("dqb", "OutOfRange")]
    );
    let request = get("/openapi/v1/Returns/GetReturnsWithTag?dqb=s%3Dtag%2Csideways")
        .header("x-tenant-id", "t".repeat(65))
        .body(Body::empty())
        .unwrap();
    let errors = send(&app, request).await.error(StatusCode::BAD_REQUEST);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[1]["property"], json!("dqb"));
    assert_eq!(errors[1]["errorCode"], json!("InvalidDynamicQuery"));
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn lists_returns_with_tags() {
    let (app, seen) = app();
    let answer = send(
        &app,
        get("/openapi/v1/Returns/GetReturnsWithTag")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["items"][0]["tag"], Value::Null);
    assert_eq!(seen.calls(), ["list_returns_with_tag None"]);
}

// ---- validation --------------------------------------------------------------------------

#[tokio::test]
async fn bulk_upsert_lists_every_problem_of_the_body() {
    let (app, seen) = app();
    let body = json!([{"receiveType": "Nope", "lineItems": [], "transferType": "CargoTransfer", "extra": 1}]);
    let answer = bulk_upsert(&app, &body).await;
    let errors = answer.error(StatusCode::BAD_REQUEST);
    assert_eq!(
        errors,
        [
            json!({"property": "[0].extra", "message": "is not a known property", "errorCode": "UnknownProperty"}),
            json!({"property": "[0].receiveType", "message": "must be one of: Standard, Deducted, Return", "errorCode": "InvalidEnumValue"}),
            json!({"property": "[0].lineItems", "message": "must not be empty", "errorCode": "OutOfRange"}),
        ]
    );
    assert_eq!(
        answer.json()["error"]["message"],
        json!("The request has 3 validation errors.")
    );
    assert!(seen.calls().is_empty());
    // A body that does not decode cannot be checked against the rules.
    assert_eq!(seen.rule_checks.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_unknown_value_of_an_enum_the_api_sends_is_refused_in_a_request() {
    // `ReceivingOrderTransferType` travels in answers too, so it decodes a
    // value it does not know (clients keep it); a request carrying one is
    // still a 400 and never reaches the implementation.
    let (app, seen) = app();
    let body = json!({"transferType": "Teleport"});
    let answer = send(
        &app,
        json_request(
            Method::PUT,
            "/openapi/v1/ReceivingOrders/RO-1/transferDetail",
            &body,
        ),
    )
    .await;
    let errors = answer.error(StatusCode::BAD_REQUEST);
    assert_eq!(
        errors,
        [
            json!({"property": "transferType", "message": "must be one of: CargoTransfer, PickupTransfer, CarriageTransfer", "errorCode": "InvalidEnumValue"})
        ]
    );
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn the_body_rules_are_listed_with_the_schema_problems() {
    let (app, seen) = app();
    let line = |sku: &str| json!({"sku": sku, "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0});
    let body = json!([
        {"receiveType": "Standard", "transferType": "CargoTransfer", "lineItems": [line("")]},
        {"receiveType": "Standard", "transferType": "CargoTransfer", "lineItems": [line("A"), line("A")]},
    ]);
    let answer = bulk_upsert(&app, &body).await;
    let errors = answer.error(StatusCode::BAD_REQUEST);
    let found: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e["property"].as_str().unwrap(),
                e["errorCode"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("[0].lineItems[0].sku", "EmptyLineItemSku"),
            ("[1].lineItems[1]", "DuplicateLineItem"),
        ]
    );
    assert_eq!(seen.rule_checks.load(Ordering::SeqCst), 1);
    assert!(seen.calls().is_empty(), "the operation is not called");
}

#[tokio::test]
async fn caps_the_problems_at_100_and_says_how_many_more() {
    let (app, _) = app();
    let item = json!({"receiveType": "Nope", "lineItems": [], "transferType": "CargoTransfer"});
    let body = Value::Array(vec![item; 60]);
    let answer = bulk_upsert(&app, &body).await;
    assert_eq!(answer.error(StatusCode::BAD_REQUEST).len(), 100);
    assert_eq!(
        answer.json()["error"]["message"],
        json!("The request has 120 validation errors; the first 100 are listed, 20 more were not.")
    );
}

#[tokio::test]
async fn malformed_json_is_invalid_json() {
    let (app, seen) = app();
    let request = Request::builder()
        .method(Method::POST)
        .uri("/openapi/v1/Customers")
        .header(header::AUTHORIZATION, TOKEN)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{\"email\": "))
        .unwrap();
    send(&app, request)
        .await
        .error_code(StatusCode::BAD_REQUEST, "body", "InvalidJson");
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn a_customer_number_must_be_an_integer() {
    let (app, seen) = app();
    let answer = send(
        &app,
        get("/openapi/v1/Customers/abc")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    answer.error_code(StatusCode::BAD_REQUEST, "customerNo", "InvalidType");
    assert_eq!(
        answer.error(StatusCode::BAD_REQUEST)[0]["message"],
        json!("must be an integer")
    );
    // minimum: 1
    send(
        &app,
        get("/openapi/v1/Customers/0").body(Body::empty()).unwrap(),
    )
    .await
    .error_code(StatusCode::BAD_REQUEST, "customerNo", "OutOfRange");
    // int32
    send(
        &app,
        get("/openapi/v1/Customers/99999999999")
            .body(Body::empty())
            .unwrap(),
    )
    .await
    .error_code(StatusCode::BAD_REQUEST, "customerNo", "OutOfRange");
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn parameter_constraints_are_checked_together() {
    let (app, seen) = app();
    let long_reference = "R".repeat(31);
    let request = Request::builder()
        .method(Method::PUT)
        .uri(format!(
            "/openapi/v1/ReceivingOrders/{long_reference}/transferDetail"
        ))
        .header(header::AUTHORIZATION, TOKEN)
        .header("x-tenant-id", "t".repeat(65))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{}"))
        .unwrap();
    let answer = send(&app, request).await;
    let errors = answer.error(StatusCode::BAD_REQUEST);
    assert_eq!(
        errors,
        [
            json!({"property": "X-Tenant-Id", "message": "must be at most 64 characters long", "errorCode": "OutOfRange"}),
            json!({"property": "referenceNumber", "message": "must be 1 to 30 characters long", "errorCode": "OutOfRange"}),
        ]
    );
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn a_missing_required_body_is_required() {
    let (app, _) = app();
    // No body and no Content-Type: 400 Required (415 would be documented too).
    let request = Request::builder()
        .method(Method::POST)
        .uri("/openapi/v1/Customers")
        .header(header::AUTHORIZATION, TOKEN)
        .body(Body::empty())
        .unwrap();
    send(&app, request)
        .await
        .error_code(StatusCode::BAD_REQUEST, "body", "Required");
    // A Content-Type and no bytes: the same.
    let request = Request::builder()
        .method(Method::POST)
        .uri("/openapi/v1/Customers")
        .header(header::AUTHORIZATION, TOKEN)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::empty())
        .unwrap();
    send(&app, request)
        .await
        .error_code(StatusCode::BAD_REQUEST, "body", "Required");
}

// ---- authentication ----------------------------------------------------------------------

#[tokio::test]
async fn a_missing_credential_is_401_without_calling_the_hook() {
    let (app, seen) = app();
    let request = Request::builder()
        .uri("/openapi/v1/Customers/42")
        .body(Body::empty())
        .unwrap();
    let answer = send(&app, request).await;
    answer.error_code(
        StatusCode::UNAUTHORIZED,
        "Authorization",
        "InvalidCredential",
    );
    assert_eq!(
        answer.json()["error"]["message"],
        json!("The Authorization header is missing.")
    );
    // An empty header is no credential either.
    let request = Request::builder()
        .uri("/openapi/v1/Customers/42")
        .header(header::AUTHORIZATION, "")
        .body(Body::empty())
        .unwrap();
    send(&app, request).await.error_code(
        StatusCode::UNAUTHORIZED,
        "Authorization",
        "InvalidCredential",
    );
    assert_eq!(seen.authenticate_calls.load(Ordering::SeqCst), 0);
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn a_rejected_credential_is_the_hooks_answer() {
    let (app, seen) = app();
    let request = Request::builder()
        .uri("/openapi/v1/Customers/42")
        .header(header::AUTHORIZATION, "Bearer lfs_prd_unknown")
        .body(Body::empty())
        .unwrap();
    let answer = send(&app, request).await;
    answer.error_code(
        StatusCode::UNAUTHORIZED,
        "Authorization",
        "InvalidCredential",
    );
    assert_eq!(
        answer.json()["error"]["message"],
        json!("The token is not known.")
    );
    assert_eq!(seen.authenticate_calls.load(Ordering::SeqCst), 1);
    assert!(seen.calls().is_empty());
}

#[tokio::test]
async fn the_hook_sees_the_raw_header_and_other_headers_before_the_body() {
    let (app, seen) = app();
    // A bare token is passed through as sent.
    let request = Request::builder()
        .uri("/openapi/v1/Customers/42")
        .header(header::AUTHORIZATION, "lfs_stg_good")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, request).await.status, StatusCode::OK);
    // Tenant rules apply before the body is read: this body is not even JSON.
    let request = Request::builder()
        .method(Method::POST)
        .uri("/openapi/v1/Customers")
        .header(header::AUTHORIZATION, TOKEN)
        .header("x-tenant-id", "tenant-2")
        .header(header::CONTENT_TYPE, "text/xml")
        .body(Body::from("<customer/>"))
        .unwrap();
    send(&app, request)
        .await
        .error_code(StatusCode::FORBIDDEN, "X-Tenant-Id", "Forbidden");
    assert_eq!(seen.authenticate_calls.load(Ordering::SeqCst), 2);
}

// ---- media types -------------------------------------------------------------------------

#[tokio::test]
async fn a_wrong_content_type_is_415() {
    let (app, seen) = app();
    let with_type = |content_type: Option<&str>| {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri("/openapi/v1/Customers")
            .header(header::AUTHORIZATION, TOKEN);
        if let Some(content_type) = content_type {
            builder = builder.header(header::CONTENT_TYPE, content_type);
        }
        builder
            .body(Body::from(customer_input().to_string()))
            .unwrap()
    };
    let answer = send(&app, with_type(Some("text/xml"))).await;
    answer.error_code(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "Content-Type",
        "InvalidContentType",
    );
    assert_eq!(
        answer.json()["error"]["message"],
        json!(
            "Content-Type text/xml is not accepted; send application/json or application/json-patch+json."
        )
    );
    // A body without a Content-Type.
    send(&app, with_type(None)).await.error_code(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "Content-Type",
        "InvalidContentType",
    );
    // text/json is accepted by the bulk upsert only.
    send(&app, with_type(Some("text/json"))).await.error_code(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "Content-Type",
        "InvalidContentType",
    );
    assert!(seen.calls().is_empty());
    // Parameters such as charset are ignored, case too.
    let answer = send(
        &app,
        with_type(Some("Application/JSON-Patch+JSON; charset=utf-8")),
    )
    .await;
    assert_eq!(answer.status, StatusCode::CREATED);
}

#[tokio::test]
async fn the_bulk_upsert_accepts_any_json_suffix() {
    let (app, seen) = app();
    for content_type in [
        "application/json-patch+json",
        "application/json",
        "text/json",
        "application/vnd.fulfilment.v1+json",
    ] {
        let request = Request::builder()
            .method(Method::POST)
            .uri("/openapi/v1/ReceivingOrders/BulkUpsert")
            .header(header::AUTHORIZATION, TOKEN)
            .header(header::CONTENT_TYPE, content_type)
            .body(Body::from(json!([receiving_order()]).to_string()))
            .unwrap();
        assert_eq!(
            send(&app, request).await.status,
            StatusCode::OK,
            "{content_type}"
        );
    }
    let request = Request::builder()
        .method(Method::POST)
        .uri("/openapi/v1/ReceivingOrders/BulkUpsert")
        .header(header::AUTHORIZATION, TOKEN)
        .header(header::CONTENT_TYPE, "application/xml")
        .body(Body::from("[]"))
        .unwrap();
    assert_eq!(
        send(&app, request).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(seen.calls().len(), 4);
}

#[tokio::test]
async fn negotiates_the_response_media_type() {
    let (app, seen) = app();
    let cases = [
        (None, "application/json"),
        (Some("*/*"), "application/json"),
        (Some("application/json"), "application/json"),
        (Some("text/plain"), "text/plain"),
        (Some("text/json"), "text/json"),
        (Some("text/*"), "text/plain"),
        (Some("text/plain;q=0.5, text/json"), "text/json"),
        (Some("text/plain, application/json;q=0.9"), "text/plain"),
        (Some("application/xml, */*;q=0.1"), "application/json"),
        (
            Some("text/html,application/xhtml+xml,*/*;q=0.8"),
            "application/json",
        ),
        (Some("text/plain;q=0, */*"), "application/json"),
    ];
    for (accept, expected) in cases {
        let mut builder = get("/openapi/v1/Customers/42");
        if let Some(accept) = accept {
            builder = builder.header(header::ACCEPT, accept);
        }
        let answer = send(&app, builder.body(Body::empty()).unwrap()).await;
        assert_eq!(answer.status, StatusCode::OK, "{accept:?}");
        assert_eq!(answer.header("content-type"), expected, "{accept:?}");
        // The body is JSON whatever the media type says.
        assert_eq!(answer.json()["customerNo"], json!(42), "{accept:?}");
    }
    assert_eq!(seen.calls().len(), cases.len());
}

#[tokio::test]
async fn an_unacceptable_accept_is_406_before_the_implementation_is_called() {
    let (app, seen) = app();
    for accept in [
        "application/xml",
        "text/plain;q=0, text/json;q=0, application/json;q=0",
    ] {
        let answer = send(
            &app,
            get("/openapi/v1/Customers/42")
                .header(header::ACCEPT, accept)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        answer.error_code(StatusCode::NOT_ACCEPTABLE, "Accept", "NotAcceptable");
        assert_eq!(
            answer.json()["error"]["message"],
            json!("This operation answers with application/json, text/plain or text/json.")
        );
    }
    assert!(seen.calls().is_empty());
}

// ---- routing -------------------------------------------------------------------------------

#[tokio::test]
async fn an_unknown_path_is_404() {
    let (app, _) = app();
    for path in ["/openapi/v1/Nothing", "/", "/openapi/v1/Customers/42/extra"] {
        let answer = send(&app, get(path).body(Body::empty()).unwrap()).await;
        answer.error_code(StatusCode::NOT_FOUND, "path", "RouteNotFound");
    }
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow() {
    let (app, seen) = app();
    let cases = [
        (Method::DELETE, "/openapi/v1/Customers", "POST"),
        (Method::GET, "/openapi/v1/Customers", "POST"),
        (Method::OPTIONS, "/openapi/v1/Customers", "POST"),
        (Method::POST, "/openapi/v1/Customers/42", "GET, HEAD"),
        (
            Method::from_bytes(b"QUERY").unwrap(),
            "/openapi/v1/Returns",
            "GET, HEAD",
        ),
        (
            Method::PATCH,
            "/openapi/v1/ReceivingOrders/RO-1/transferDetail",
            "PUT",
        ),
    ];
    for (method, path, allow) in cases {
        let request = Request::builder()
            .method(method.clone())
            .uri(path)
            .header(header::AUTHORIZATION, TOKEN)
            .body(Body::empty())
            .unwrap();
        let answer = send(&app, request).await;
        answer.error_code(StatusCode::METHOD_NOT_ALLOWED, "method", "MethodNotAllowed");
        assert_eq!(answer.header("allow"), allow, "{method} {path}");
    }
    assert!(seen.calls().is_empty());
    // HEAD is answered where GET is.
    let request = Request::builder()
        .method(Method::HEAD)
        .uri("/openapi/v1/Customers/42")
        .header(header::AUTHORIZATION, TOKEN)
        .body(Body::empty())
        .unwrap();
    let answer = send(&app, request).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.is_empty());
}

// ---- limits, failures, request ids -----------------------------------------------------

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let seen = Arc::new(Seen::default());
    let app = router_with(
        TestApi {
            seen: Arc::clone(&seen),
        },
        Settings::default().with_body_limit(64),
    );
    // Declared by Content-Length.
    let answer = send(
        &app,
        json_request(Method::POST, "/openapi/v1/Customers", &customer_input()),
    )
    .await;
    answer.error_code(StatusCode::PAYLOAD_TOO_LARGE, "body", "PayloadTooLarge");
    assert_eq!(
        answer.json()["error"]["message"],
        json!("The request body is larger than 64 bytes.")
    );
    // Found while reading a streamed body.
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from(vec![b' '; 40])),
        Ok(Bytes::from(vec![b' '; 40])),
    ];
    let request = Request::builder()
        .method(Method::POST)
        .uri("/openapi/v1/Customers")
        .header(header::AUTHORIZATION, TOKEN)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from_stream(futures_util::stream::iter(chunks)))
        .unwrap();
    send(&app, request)
        .await
        .error_code(StatusCode::PAYLOAD_TOO_LARGE, "body", "PayloadTooLarge");
    assert!(seen.calls().is_empty());
    // The default is 16 MiB.
    assert_eq!(Settings::default().body_limit, 16 * 1024 * 1024);
}

#[tokio::test]
async fn a_panic_is_500_without_internals() {
    let (app, _) = app();
    let answer = send(
        &app,
        get("/openapi/v1/Customers/7").body(Body::empty()).unwrap(),
    )
    .await;
    answer.error_code(StatusCode::INTERNAL_SERVER_ERROR, "", "InternalError");
    assert_eq!(
        answer.json()["error"]["message"],
        json!("An internal error occurred.")
    );
    assert!(!String::from_utf8_lossy(&answer.body).contains("hunter2"));
    // The router keeps serving.
    let answer = send(
        &app,
        get("/openapi/v1/Customers/8").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn errors_of_the_implementation_are_rendered_without_their_cause() {
    let (app, _) = app();
    let answer = send(
        &app,
        get("/openapi/v1/Customers/404")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    answer.error_code(StatusCode::NOT_FOUND, "customerNo", "ResourceNotFound");
    assert_eq!(
        answer.json()["error"]["message"],
        json!("No customer has the number 404.")
    );
    let answer = send(
        &app,
        get("/openapi/v1/SalesOrders/SO-500")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    answer.error_code(StatusCode::INTERNAL_SERVER_ERROR, "", "InternalError");
    assert!(!String::from_utf8_lossy(&answer.body).contains("db.internal"));
}

/// The envelope byte for byte: the generated `ErrorBodyFormat`'s table
/// writes the properties in the schema's order, without spaces, `code` as
/// the status, one problem for an error with a code, the time to the second.
#[tokio::test]
async fn an_error_body_is_the_envelope_byte_for_byte() {
    let (app, _) = app();
    let answer = send(
        &app,
        Request::builder()
            .uri("/nowhere")
            .header("x-request-id", "client-id-\"9\"")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.header("content-type"), "application/json");
    let body = String::from_utf8(answer.body.to_vec()).unwrap();
    let (head, time) = body.split_once(r#","timestamp":""#).expect(&body);
    assert_eq!(
        head,
        r#"{"error":{"code":404,"message":"No operation has the path /nowhere.","errors":[{"property":"path","message":"No operation has the path /nowhere.","errorCode":"RouteNotFound"}]},"requestId":"client-id-\"9\"""#
    );
    assert_timestamp(time.strip_suffix(r#""}"#).expect(&body));
}

#[tokio::test]
async fn request_ids_are_kept_when_sane_and_generated_otherwise() {
    let (app, seen) = app();
    // Given: echoed on success and in error bodies.
    let answer = send(
        &app,
        get("/openapi/v1/Customers/42")
            .header("x-request-id", "client-id-1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("x-request-id"), "client-id-1");
    let answer = send(
        &app,
        get("/openapi/v1/Customers/abc")
            .header("x-request-id", "client-id-2")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    answer.error(StatusCode::BAD_REQUEST);
    assert_eq!(answer.header("x-request-id"), "client-id-2");
    assert_eq!(answer.json()["requestId"], json!("client-id-2"));
    let answer = send(
        &app,
        Request::builder()
            .uri("/nowhere")
            .header("x-request-id", "client-id-3")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.json()["requestId"], json!("client-id-3"));
    assert_eq!(answer.header("x-request-id"), "client-id-3");

    // Generated: when absent, too long, or not visible ASCII.
    for given in [None, Some("x".repeat(129)), Some("has space".to_owned())] {
        let mut builder = get("/openapi/v1/Customers/42");
        if let Some(given) = &given {
            builder = builder.header("x-request-id", given.as_str());
        }
        let answer = send(&app, builder.body(Body::empty()).unwrap()).await;
        let id = answer.header("x-request-id");
        assert_eq!(id.len(), 26, "a ULID: {id}");
        assert!(
            id.bytes()
                .all(|b| b"0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(&b)),
            "{id}"
        );
    }
    // 128 visible characters are kept.
    let long = "y".repeat(128);
    let answer = send(
        &app,
        get("/openapi/v1/Customers/42")
            .header("x-request-id", long.as_str())
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.header("x-request-id"), long);
    // The implementation sees the same id.
    assert!(
        seen.calls()
            .contains(&"get_customer 42 request id client-id-1".to_owned())
    );
    // Two generated ids differ.
    let a = send(&app, get("/nowhere").body(Body::empty()).unwrap()).await;
    let b = send(&app, get("/nowhere").body(Body::empty()).unwrap()).await;
    assert_ne!(a.header("x-request-id"), b.header("x-request-id"));
}

#[test]
fn api_errors_have_constructors_for_the_common_cases() {
    use logistics_server_stubs::models::validation::Problem;
    let cases = [
        (
            ApiError::bad_request([Problem {
                property: "email".to_owned(),
                message: "must be an email address".to_owned(),
                error_code: "CustomerEmailWrongFormat".to_owned(),
            }]),
            400,
            "CustomerEmailWrongFormat",
        ),
        (
            ApiError::unauthorized("InvalidCredential", "no"),
            401,
            "InvalidCredential",
        ),
        (ApiError::forbidden("Forbidden", "no"), 403, "Forbidden"),
        (
            ApiError::not_found("ResourceNotFound", "no"),
            404,
            "ResourceNotFound",
        ),
        (
            ApiError::conflict("ResourceAlreadyExists", "no"),
            409,
            "ResourceAlreadyExists",
        ),
        (ApiError::internal("disk on fire"), 500, "InternalError"),
        (
            ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "TooManyRequests",
                "slow down",
            ),
            429,
            "TooManyRequests",
        ),
    ];
    for (error, status, code) in cases {
        assert_eq!(error.status().as_u16(), status);
        assert_eq!(error.error_code(), Some(code));
    }
    let error = ApiError::internal("disk on fire");
    assert_eq!(error.message(), "An internal error occurred.");
    assert_eq!(
        error.cause().map(ToString::to_string).as_deref(),
        Some("disk on fire")
    );
}
