//! The generated client against a real HTTP server on 127.0.0.1: a small
//! axum server, written here, that records every request and answers as
//! each test scripts it. Delays are a few milliseconds; the tests that wait
//! for a `Retry-After` wait one second.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::response::Response;
use logistics_client::futures_util::{StreamExt, TryStreamExt};
use logistics_client::models::dynamic_query::{Direction, Op};
use logistics_client::models::{
    self, ReturnsQuery, ReturnsQueryProperty as P, TaggedReturnsQuery,
    TaggedReturnsQueryProperty as T,
};
use logistics_client::{
    Client, Environment, Error, ListReturnsParams, ListReturnsWithTagParams, RetryPolicy,
};
use serde_json::{Value, json};

const TOKEN: &str = "lfs_stg_c2VjcmV0LXRva2VuLXRoYXQtbXVzdC1uZXZlci1sZWFr";

// ---------------------------------------------------------------------------
// The mock server.

/// A request as the server received it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: Option<String>,
    headers: HeaderMap,
    body: bytes::Bytes,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    /// The query parameters, decoded once (as a server does).
    fn query_pairs(&self) -> Vec<(String, String)> {
        let url = format!("http://x/?{}", self.query.as_deref().unwrap_or(""));
        logistics_client::reqwest::Url::parse(&url)
            .unwrap()
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }
}

/// What the server answers.
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    delay: Duration,
}

impl Reply {
    fn json(status: u16, body: Value) -> Self {
        Reply {
            status,
            headers: vec![("content-type", "application/json".to_owned())],
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    fn raw(status: u16, content_type: &str, body: &str) -> Self {
        Reply {
            status,
            headers: vec![("content-type", content_type.to_owned())],
            body: body.to_owned(),
            delay: Duration::ZERO,
        }
    }

    fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// Answers the `n`th request (from 1).
type Script = dyn Fn(&Seen, usize) -> Reply + Send + Sync;

/// The server's state: the requests so far, and the script.
type Shared = (Arc<Mutex<Vec<Seen>>>, Arc<Script>);

#[derive(Clone)]
struct Mock {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Mock {
    async fn start(script: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static) -> Mock {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let app = axum::Router::new()
            .fallback(handle)
            .with_state((seen.clone(), script));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Mock { url, seen }
    }

    fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn only_request(&self) -> Seen {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "requests: {requests:#?}");
        requests.into_iter().next().unwrap()
    }

    /// A client of this server with fast retries.
    fn client(&self) -> Client {
        self.builder().build().unwrap()
    }

    fn builder(&self) -> logistics_client::ClientBuilder {
        Client::builder()
            .base_url(&self.url)
            .token(TOKEN)
            .tenant_id("tenant-7")
            .retry_policy(fast_retries())
    }
}

async fn handle(State((seen, script)): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let request = Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts.headers,
        body,
    };
    let n = {
        let mut seen = seen.lock().unwrap();
        seen.push(request.clone());
        seen.len()
    };
    let reply = script(&request, n);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = Response::builder().status(reply.status);
    for (name, value) in reply.headers {
        response = response.header(name, value);
    }
    response.body(Body::from(reply.body)).unwrap()
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_secs(3),
        ..RetryPolicy::default()
    }
}

// ---------------------------------------------------------------------------
// Bodies.

fn customer(no: i32) -> Value {
    json!({
        "id": "8d3b8f4e-2f7a-4c59-9a0e-0b6f2d7c1e55",
        "customerNo": no,
        "email": "elif.yilmaz@example.com",
        "firstName": "Elif",
        "lastName": "Yılmaz",
        "phone": "+905321234567",
        "createdAt": "2026-03-14T10:02:11Z",
        "addresses": []
    })
}

fn customer_input() -> models::CustomerInput {
    models::CustomerInput::new("elif.yilmaz@example.com", "Elif", "Yılmaz", "+905321234567")
}

fn sales_order(reference: &str) -> Value {
    json!({
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
    })
}

fn a_return(n: usize, tag: Option<&str>) -> Value {
    json!({
        "returnReferenceNumber": format!("RET-{n:04}"),
        "createdAt": "2026-03-18T09:00:00Z",
        "updatedAt": "2026-03-19T14:30:00Z",
        "salesOrderChannel": "Shopify",
        "tag": tag,
    })
}

fn error_body(code: u16, message: &str, problems: Value, request_id: &str) -> Value {
    json!({
        "error": {"code": code, "message": message, "errors": problems},
        "requestId": request_id,
        "timestamp": "2026-03-14T10:02:11Z"
    })
}

fn receiving_order(reference: &str) -> models::ReceivingOrder {
    let line = models::ReceivingOrderLineItem::new("TSHIRT-BLK-M", 120, true, 2)
        .with_item_no(1)
        .with_lot_number("LOT-0425");
    models::ReceivingOrder::new(
        models::ReceiveType::Standard,
        vec![line],
        models::ReceivingOrderTransferType::CargoTransfer,
    )
    .with_reference_number(reference)
}

// ---------------------------------------------------------------------------
// Every operation: the request as sent, the answer as decoded.

#[tokio::test]
async fn create_customer_posts_the_body_with_the_token_and_the_tenant() {
    let mock = Mock::start(|_, _| {
        Reply::json(201, customer(42)).header("location", "/openapi/v1/Customers/42")
    })
    .await;
    let created = mock
        .client()
        .create_customer(&customer_input())
        .await
        .unwrap();
    assert_eq!(created.customer_no, 42);
    assert_eq!(created.first_name, "Elif");

    let request = mock.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/openapi/v1/Customers");
    assert_eq!(request.query, None);
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(request.header("x-tenant-id"), Some("tenant-7"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("accept"), Some("application/json"));
    // The client crate's own version (spec/codegen.toml), not this crate's.
    let version = include_str!("../../generated-client/Cargo.toml")
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("the client's version");
    assert_eq!(
        request.header("user-agent"),
        Some(format!("logistics-client/{version}").as_str())
    );
    assert_eq!(
        request.json(),
        json!({
            "email": "elif.yilmaz@example.com",
            "firstName": "Elif",
            "lastName": "Yılmaz",
            "phone": "+905321234567"
        })
    );
}

#[tokio::test]
async fn get_customer_puts_the_number_in_the_path() {
    let mock = Mock::start(|seen, _| {
        let no = seen.path.rsplit('/').next().unwrap().parse().unwrap();
        Reply::json(200, customer(no))
    })
    .await;
    let customer = mock.client().get_customer(7).await.unwrap();
    assert_eq!(customer.customer_no, 7);
    let request = mock.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("GET", "/openapi/v1/Customers/7")
    );
    assert!(request.body.is_empty());
}

#[tokio::test]
async fn get_sales_order_keeps_the_reference_in_one_path_segment() {
    let mock = Mock::start(|_, _| Reply::json(200, sales_order("SO/2026 45%"))).await;
    let order = mock.client().get_sales_order("SO/2026 45%").await.unwrap();
    assert_eq!(order.reference_number, "SO/2026 45%");
    assert_eq!(order.state, models::SalesOrderState::Shipped);
    let request = mock.only_request();
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/openapi/v1/SalesOrders/SO%2F2026%2045%25");
}

#[tokio::test]
async fn an_unknown_sales_order_state_is_kept_and_written_back() {
    let mut order = sales_order("SO-1");
    order["state"] = json!("OnHold");
    let mock = Mock::start(move |_, _| Reply::json(200, order.clone())).await;
    let order = mock.client().get_sales_order("SO-1").await.unwrap();
    assert_eq!(order.reference_number, "SO-1");
    assert_eq!(
        order.state,
        models::SalesOrderState::Unknown("OnHold".to_owned())
    );
    assert!(!order.state.is_known());
    assert_eq!(order.state.as_str(), "OnHold");
    assert_eq!(serde_json::to_value(&order).unwrap()["state"], "OnHold");
    // Sent back to the API, the value is refused as the API refuses it.
    let mut report = models::validation::Report::new();
    models::validation::Validate::validate(
        &order.state,
        &mut models::validation::Path::new("state"),
        &mut report,
    );
    assert!(!report.is_empty());
}

#[tokio::test]
async fn with_response_gives_the_status_and_the_declared_headers() {
    let mock = Mock::start(|_, _| {
        Reply::json(201, customer(42)).header("location", "/openapi/v1/Customers/42")
    })
    .await;
    let created = mock
        .client()
        .create_customer_with_response(&customer_input())
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    assert_eq!(
        created.declared().location.as_deref(),
        Some("/openapi/v1/Customers/42")
    );
    assert_eq!(created.headers()["content-type"], "application/json");
    assert_eq!(created.into_inner().customer_no, 42);
}

#[tokio::test]
async fn update_transfer_detail_puts_the_detail_and_decodes_the_stored_one() {
    let stored = json!({
        "transferType": "CarriageTransfer",
        "carriageTransfer": {
            "shipmentDate": "2026-03-15T07:00:00Z",
            "carriageCompanyName": "Marmara Nakliyat",
            "waybillNumber": "WB-55120"
        }
    });
    let answer = stored.clone();
    let mock = Mock::start(move |_, _| Reply::json(200, answer.clone())).await;
    let detail: models::TransferDetail = serde_json::from_value(stored.clone()).unwrap();
    let result = mock
        .client()
        .update_receiving_order_transfer_detail("RO-2026-000184", &detail)
        .await
        .unwrap();
    assert_eq!(result, detail);
    let request = mock.only_request();
    assert_eq!(request.method, "PUT");
    assert_eq!(
        request.path,
        "/openapi/v1/ReceivingOrders/RO-2026-000184/transferDetail"
    );
    assert_eq!(request.json(), stored);
}

#[tokio::test]
async fn bulk_upsert_sends_the_batch_and_decodes_the_update_failures() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            200,
            json!({"updateFailures": [{"referenceNumber": "RO-1", "message": "InvalidOperation"}]}),
        )
    })
    .await;
    let batch = models::ReceivingOrderBatch(vec![receiving_order("RO-1"), receiving_order("RO-2")]);
    let result = mock
        .client()
        .bulk_upsert_receiving_orders(&batch)
        .await
        .unwrap();
    let failures = result.update_failures.unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        (
            failures[0].reference_number.as_str(),
            failures[0].message.as_str()
        ),
        ("RO-1", "InvalidOperation")
    );
    let request = mock.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/openapi/v1/ReceivingOrders/BulkUpsert")
    );
    let sent = request.json();
    assert_eq!(sent.as_array().unwrap().len(), 2);
    assert_eq!(sent[0]["referenceNumber"], "RO-1");
    assert_eq!(sent[0]["lineItems"][0]["sku"], "TSHIRT-BLK-M");
    assert_eq!(sent[0]["transferType"], "CargoTransfer");
    assert!(
        sent[0].get("integrationId").is_none(),
        "absent optional fields are left out"
    );
}

#[tokio::test]
async fn list_returns_sends_the_typed_query_as_one_dqb_parameter() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            200,
            json!({"count": 2, "offset": 4, "dataSetCount": 9, "items": [a_return(5, None), a_return(6, None)]}),
        )
    })
    .await;
    let query = ReturnsQuery::new()
        .filter(P::CargoCarrier, Op::Equals, "Yurtiçi Kargo")
        .or()
        .filter(P::CargoCarrier, Op::Equals, "Aras & Co")
        .sort(P::CreatedAt, Direction::Descending)
        .offset(4)
        .count(2);
    let page = mock
        .client()
        .list_returns(ListReturnsParams::default().dqb(query.clone()))
        .await
        .unwrap();
    assert_eq!((page.count, page.offset, page.data_set_count), (2, 4, 9));
    assert_eq!(page.items[1].return_reference_number, "RET-0006");

    let request = mock.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("GET", "/openapi/v1/Returns")
    );
    let pairs = request.query_pairs();
    assert_eq!(pairs.len(), 1, "one parameter: {pairs:?}");
    assert_eq!(pairs[0].0, "dqb");
    assert_eq!(pairs[0].1, query.to_query_string());
    assert_eq!(ReturnsQuery::parse(&pairs[0].1).unwrap(), query);
}

#[tokio::test]
async fn list_returns_with_tag_decodes_tags_and_sends_no_dqb_without_a_query() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            200,
            json!({"count": 100, "offset": 0, "dataSetCount": 2,
                   "items": [a_return(1, Some("refund-approved")), a_return(2, None)]}),
        )
    })
    .await;
    let client = mock.client();
    let page = client
        .list_returns_with_tag(ListReturnsWithTagParams::default())
        .await
        .unwrap();
    assert_eq!(page.items[0].tag.as_deref(), Some("refund-approved"));
    assert_eq!(page.items[1].tag, None);
    assert_eq!(mock.only_request().query, None);

    let tagged =
        TaggedReturnsQuery::new().filter(T::Tag, Op::NotEqual, models::dynamic_query::Value::Null);
    client
        .list_returns_with_tag(ListReturnsWithTagParams::default().dqb(tagged))
        .await
        .unwrap();
    let request = mock.requests().pop().unwrap();
    assert_eq!(request.path, "/openapi/v1/Returns/GetReturnsWithTag");
    assert_eq!(
        request.query_pairs(),
        [("dqb".to_owned(), "o=NotEqual&p=tag&v=null".to_owned())]
    );
}

// ---------------------------------------------------------------------------
// Errors.

#[tokio::test]
async fn an_api_error_has_the_problems_and_the_request_id() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            400,
            error_body(
                400,
                "The request has 2 validation errors.",
                json!([
                    {"property": "[0].lineItems[0].sku", "message": "must not be empty", "errorCode": "EmptyLineItemSku"},
                    {"property": "[1].receiveType", "message": "must be one of: Standard, Deducted, Return", "errorCode": "InvalidEnumValue"}
                ]),
                "01J8ZQ6W3K2N5V7X9Y1B3D5F7H",
            ),
        )
        .header("x-request-id", "01J8ZQ6W3K2N5V7X9Y1B3D5F7H")
    })
    .await;
    let batch = models::ReceivingOrderBatch(vec![receiving_order("RO-1")]);
    let error = mock
        .client()
        .bulk_upsert_receiving_orders(&batch)
        .await
        .unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(400));
    assert_eq!(error.request_id(), Some("01J8ZQ6W3K2N5V7X9Y1B3D5F7H"));
    let Error::Api(api) = &error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!(api.message(), Some("The request has 2 validation errors."));
    assert_eq!(api.problems().len(), 2);
    assert_eq!(api.problems()[0].property, "[0].lineItems[0].sku");
    assert_eq!(api.problems()[0].code.as_deref(), Some("EmptyLineItemSku"));
    // The typed body, as the models crate has it.
    assert_eq!(api.body().error.code, 400);
    assert_eq!(
        api.body().error.errors.as_ref().unwrap()[1].error_code,
        "InvalidEnumValue"
    );
    let shown = error.to_string();
    for part in [
        "400 Bad Request",
        "The request has 2 validation errors.",
        "[0].lineItems[0].sku: must not be empty (EmptyLineItemSku)",
        "[1].receiveType",
        "01J8ZQ6W3K2N5V7X9Y1B3D5F7H",
    ] {
        assert!(shown.contains(part), "{shown:?} lacks {part:?}");
    }
}

#[tokio::test]
async fn an_error_status_without_the_error_body_is_an_unexpected_status() {
    let mock = Mock::start(|_, _| {
        Reply::raw(502, "text/html", "<html><body>Bad gateway</body></html>")
            .header("x-request-id", "req-from-the-proxy")
    })
    .await;
    let client = mock
        .builder()
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let error = client.get_customer(1).await.unwrap_err();
    let Error::UnexpectedStatus {
        status,
        body,
        request_id,
    } = &error
    else {
        panic!("expected an unexpected status, got {error:?}");
    };
    assert_eq!(status.as_u16(), 502);
    assert_eq!(&body[..], b"<html><body>Bad gateway</body></html>");
    assert_eq!(request_id.as_deref(), Some("req-from-the-proxy"));
    let shown = error.to_string();
    assert!(shown.contains("502 Bad Gateway"), "{shown}");
    assert!(shown.contains("req-from-the-proxy"), "{shown}");
    assert!(shown.contains("Bad gateway</body>"), "{shown}");
}

#[tokio::test]
async fn an_undocumented_success_status_is_unexpected() {
    let mock = Mock::start(|_, _| Reply::json(202, customer(1))).await;
    let error = mock.client().get_customer(1).await.unwrap_err();
    assert!(
        matches!(&error, Error::UnexpectedStatus { status, .. } if status.as_u16() == 202),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_undecodable_body_is_a_decode_error_with_the_status_and_a_snippet() {
    let mock = Mock::start(|_, _| {
        Reply::json(200, json!({"customerNo": "forty-two"})).header("x-request-id", "req-9")
    })
    .await;
    let error = mock.client().get_customer(42).await.unwrap_err();
    let Error::Decode {
        status,
        message,
        snippet,
        request_id,
    } = &error
    else {
        panic!("expected a decode error, got {error:?}");
    };
    assert_eq!(status.as_u16(), 200);
    assert!(
        message.contains("customerNo") || message.contains("invalid type"),
        "{message}"
    );
    assert_eq!(snippet, r#"{"customerNo":"forty-two"}"#);
    assert_eq!(request_id.as_deref(), Some("req-9"));
    assert!(error.to_string().contains("200 OK"), "{error}");
}

#[tokio::test]
async fn a_slow_answer_is_a_timeout() {
    let mock =
        Mock::start(|_, _| Reply::json(200, customer(1)).after(Duration::from_secs(5))).await;
    let client = mock
        .builder()
        .timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let started = Instant::now();
    let error = client.get_customer(1).await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    assert!(matches!(&error, Error::Timeout { after, .. } if *after == Duration::from_millis(100)));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "time-outs are not retried"
    );
    assert!(error.to_string().contains("100 ms"), "{error}");
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn a_closed_port_is_a_transport_failure_after_the_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let logs = Logs::default();
    let _guard = logs.install();
    let client = Client::builder()
        .base_url(url)
        .token(TOKEN)
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let error = client.get_customer(1).await.unwrap_err();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert_eq!(error.status(), None);
    let shown = error.to_string();
    assert!(shown.starts_with("the API could not be reached"), "{shown}");
    assert!(
        shown.to_ascii_lowercase().contains("refused"),
        "the cause is said: {shown}"
    );
    assert_eq!(
        logs.text().matches("the request failed; retrying").count(),
        2,
        "3 attempts: {}",
        logs.text()
    );
}

#[tokio::test]
async fn invalid_settings_are_refused_when_the_client_is_built() {
    let error = Client::builder().base_url("not a url").build().unwrap_err();
    assert!(matches!(error, Error::InvalidInput(_)), "{error:?}");
    let error = Client::builder()
        .base_url("http://127.0.0.1:1")
        .tenant_id("a\nb")
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("X-Tenant-Id"), "{error}");
    let error = Client::builder()
        .base_url("http://127.0.0.1:1")
        .token("s3cr3t\nvalue")
        .build()
        .unwrap_err();
    assert!(matches!(error, Error::InvalidInput(_)), "{error:?}");
    assert!(
        !error.to_string().contains("s3cr3t"),
        "the token is not quoted: {error}"
    );
}

// ---------------------------------------------------------------------------
// The {data, status} wrapper.

#[tokio::test]
async fn a_wrapped_body_decodes_like_the_bare_one() {
    let mock = Mock::start(|seen, _| match seen.path.as_str() {
        "/openapi/v1/Customers/1" => Reply::json(200, customer(1)),
        "/openapi/v1/Customers/2" => Reply::json(200, json!({"data": customer(2), "status": 200})),
        "/openapi/v1/Customers/3" => {
            Reply::json(200, json!({"data": {"customerNo": 3}, "status": "ok"}))
        }
        _ => Reply::json(404, json!({})),
    })
    .await;
    let client = mock.client();
    assert_eq!(client.get_customer(1).await.unwrap().customer_no, 1);
    assert_eq!(client.get_customer(2).await.unwrap().customer_no, 2);
    // A wrapper whose data is not a customer reports what is wrong with the data.
    let error = client.get_customer(3).await.unwrap_err();
    assert!(
        matches!(&error, Error::Decode { message, .. } if message.contains("missing field")),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_wrapped_body_of_a_type_with_only_optional_fields_is_unwrapped() {
    // `BulkUpsertResult` has no required property, so a wrapper would decode
    // as an empty result: the client looks for the `data` key first.
    let failures =
        json!({"updateFailures": [{"referenceNumber": "RO-9", "message": "InvalidOperation"}]});
    let answers = [
        json!({"data": failures, "status": 200}),
        failures.clone(),
        json!({}),
        json!({"updateFailures": null}),
    ];
    let mock = Mock::start(move |_, n| Reply::json(200, answers[n - 1].clone())).await;
    let client = mock.client();
    let batch = models::ReceivingOrderBatch(vec![receiving_order("RO-9")]);
    for expected in [1, 1, 0, 0] {
        let result = client.bulk_upsert_receiving_orders(&batch).await.unwrap();
        assert_eq!(result.update_failures.unwrap_or_default().len(), expected);
    }
}

// ---------------------------------------------------------------------------
// Retries.

#[tokio::test]
async fn idempotent_requests_are_retried_on_502_503_and_504() {
    let mock = Mock::start(|_, n| match n {
        1 => Reply::raw(503, "text/plain", "busy"),
        2 => Reply::raw(502, "text/plain", "bad gateway"),
        3 => Reply::raw(504, "text/plain", "gateway time-out"),
        _ => Reply::json(200, customer(5)),
    })
    .await;
    let client = mock
        .builder()
        .retry_policy(RetryPolicy {
            max_attempts: 4,
            ..fast_retries()
        })
        .build()
        .unwrap();
    assert_eq!(client.get_customer(5).await.unwrap().customer_no, 5);
    assert_eq!(mock.requests().len(), 4);
}

#[tokio::test]
async fn attempts_are_bounded_and_the_last_answer_is_returned() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            503,
            error_body(503, "Down for maintenance.", json!([]), "req-503"),
        )
    })
    .await;
    let error = mock.client().get_customer(5).await.unwrap_err();
    assert_eq!(
        mock.requests().len(),
        3,
        "the default policy makes 3 attempts"
    );
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(error.request_id(), Some("req-503"));
}

#[tokio::test]
async fn other_error_statuses_are_not_retried() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            500,
            error_body(500, "The service failed.", json!([]), "req-500"),
        )
    })
    .await;
    let error = mock.client().get_customer(5).await.unwrap_err();
    assert_eq!(mock.requests().len(), 1);
    assert!(matches!(error, Error::Api(_)), "{error:?}");
}

async fn rate_limited_once(header: &'static str, value: String) -> (Duration, usize) {
    let mock = Mock::start(move |_, n| {
        if n == 1 {
            Reply::json(
                429,
                error_body(429, "Too many requests.", json!([]), "req-429"),
            )
            .header(header, value.clone())
        } else {
            Reply::json(200, customer(1))
        }
    })
    .await;
    let started = Instant::now();
    mock.client().get_customer(1).await.unwrap();
    (started.elapsed(), mock.requests().len())
}

#[tokio::test]
async fn retry_after_in_seconds_is_honoured() {
    let (waited, attempts) = rate_limited_once("retry-after", "1".to_owned()).await;
    assert_eq!(attempts, 2);
    assert!(waited >= Duration::from_millis(950), "waited {waited:?}");
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
}

#[tokio::test]
async fn x_retry_after_is_honoured() {
    let (waited, attempts) = rate_limited_once("x-retry-after", "1".to_owned()).await;
    assert_eq!(attempts, 2);
    assert!(waited >= Duration::from_millis(950), "waited {waited:?}");
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
}

#[tokio::test]
async fn retry_after_as_an_http_date_is_honoured() {
    let at = std::time::SystemTime::now() + Duration::from_secs(2);
    let (waited, attempts) = rate_limited_once("retry-after", httpdate_text(at)).await;
    assert_eq!(attempts, 2);
    // An HTTP date has whole seconds: between one and two seconds from now.
    assert!(waited >= Duration::from_millis(900), "waited {waited:?}");
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
}

fn httpdate_text(at: std::time::SystemTime) -> String {
    let secs = at.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let days = secs / 86_400;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    // 1970-01-01 was a Thursday.
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][(month - 1) as usize];
    format!("{weekday}, {day:02} {month} {year} {h:02}:{m:02}:{s:02} GMT")
}

#[tokio::test]
async fn a_wait_longer_than_max_delay_is_not_made() {
    let mock = Mock::start(|_, _| {
        Reply::json(
            429,
            error_body(429, "Too many requests.", json!([]), "req-429"),
        )
        .header("retry-after", "120")
        .header("x-retry-after", "120")
    })
    .await;
    let started = Instant::now();
    let error = mock.client().get_customer(1).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(mock.requests().len(), 1);
    let api = error.api_error().expect("the 429 answer");
    assert_eq!(api.status().as_u16(), 429);
    assert_eq!(api.retry_after(), Some(Duration::from_secs(120)));
    assert!(error.to_string().contains("retry after 120 s"), "{error}");
}

#[tokio::test]
async fn post_is_not_retried_unless_the_policy_says_so() {
    let script = |_: &Seen, n: usize| {
        if n == 1 {
            Reply::raw(503, "text/plain", "busy")
        } else {
            Reply::json(201, customer(1))
        }
    };
    let mock = Mock::start(script).await;
    let error = mock
        .client()
        .create_customer(&customer_input())
        .await
        .unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(mock.requests().len(), 1, "a POST is tried once by default");

    let mock = Mock::start(script).await;
    let client = mock
        .builder()
        .retry_policy(RetryPolicy {
            retry_non_idempotent: true,
            ..fast_retries()
        })
        .build()
        .unwrap();
    assert_eq!(
        client
            .create_customer(&customer_input())
            .await
            .unwrap()
            .customer_no,
        1
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, requests[1].body, "the body is sent again");
}

// ---------------------------------------------------------------------------
// Paging.

/// A listing of `total` returns that honours offset and count (default 100).
fn listing(total: usize) -> impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static {
    move |seen, _| {
        let query = seen
            .query_pairs()
            .into_iter()
            .find(|(k, _)| k == "dqb")
            .map(|(_, v)| ReturnsQuery::parse(&v).unwrap())
            .unwrap_or_default();
        let offset = query.effective_offset() as usize;
        let count = query.effective_count() as usize;
        let items: Vec<Value> = (offset..total.min(offset + count))
            .map(|n| a_return(n, None))
            .collect();
        Reply::json(
            200,
            json!({"count": count, "offset": offset, "dataSetCount": total, "items": items}),
        )
    }
}

fn offsets(mock: &Mock) -> Vec<u32> {
    mock.requests()
        .iter()
        .map(|seen| {
            let (_, dqb) = seen
                .query_pairs()
                .into_iter()
                .find(|(k, _)| k == "dqb")
                .unwrap();
            ReturnsQuery::parse(&dqb).unwrap().effective_offset()
        })
        .collect()
}

#[tokio::test]
async fn the_stream_walks_every_page_with_offset_and_data_set_count() {
    let mock = Mock::start(listing(7)).await;
    let query = ReturnsQuery::new()
        .filter(P::SalesOrderChannel, Op::Equals, "Shopify")
        .count(3);
    let returns: Vec<models::Return> = mock
        .client()
        .list_returns_stream(query)
        .try_collect()
        .await
        .unwrap();
    let references: Vec<&str> = returns
        .iter()
        .map(|r| r.return_reference_number.as_str())
        .collect();
    assert_eq!(
        references,
        [
            "RET-0000", "RET-0001", "RET-0002", "RET-0003", "RET-0004", "RET-0005", "RET-0006"
        ]
    );
    assert_eq!(
        offsets(&mock),
        [0, 3, 6],
        "three pages, no request past the end"
    );
    // Every page keeps the filters.
    for seen in mock.requests() {
        let (_, dqb) = seen
            .query_pairs()
            .into_iter()
            .find(|(k, _)| k == "dqb")
            .unwrap();
        assert!(
            dqb.starts_with("o=Equals&p=salesOrderChannel&v=Shopify"),
            "{dqb}"
        );
    }
}

#[tokio::test]
async fn the_stream_starts_at_the_query_offset_and_is_lazy() {
    let mock = Mock::start(listing(10)).await;
    let stream = mock
        .client()
        .list_returns_stream(ReturnsQuery::new().offset(4).count(4));
    assert!(
        mock.requests().is_empty(),
        "nothing is fetched before the stream is read"
    );
    let first_two: Vec<_> = stream.take(2).try_collect::<Vec<_>>().await.unwrap();
    assert_eq!(first_two[0].return_reference_number, "RET-0004");
    assert_eq!(offsets(&mock), [4], "only the pages read are fetched");
}

#[tokio::test]
async fn the_stream_ends_on_an_empty_page() {
    // The total says 50, but the pages run out after 5 items.
    let mock = Mock::start(|seen, _| {
        let dqb = seen.query_pairs().pop().unwrap().1;
        let offset = ReturnsQuery::parse(&dqb).unwrap().effective_offset() as usize;
        let items: Vec<Value> = (offset..5.min(offset + 5))
            .map(|n| a_return(n, None))
            .collect();
        Reply::json(
            200,
            json!({"count": 5, "offset": offset, "dataSetCount": 50, "items": items}),
        )
    })
    .await;
    let all: Vec<_> = mock
        .client()
        .list_returns_stream(ReturnsQuery::new().count(5))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(offsets(&mock), [0, 5]);
}

#[tokio::test]
async fn the_stream_ends_when_the_api_ignores_the_offset() {
    // Always the first page, with a total that is never reached.
    let mock = Mock::start(|_, _| {
        Reply::json(
            200,
            json!({"count": 2, "offset": 0, "dataSetCount": 1000, "items": [a_return(0, None), a_return(1, None)]}),
        )
    })
    .await;
    let all: Vec<_> = tokio::time::timeout(
        Duration::from_secs(5),
        mock.client()
            .list_returns_stream(ReturnsQuery::new().count(2))
            .try_collect::<Vec<_>>(),
    )
    .await
    .expect("the walk ends")
    .unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(offsets(&mock), [0, 2]);
}

#[tokio::test]
async fn the_stream_yields_an_error_and_ends() {
    let mock = Mock::start(|seen, n| {
        if n == 2 {
            Reply::json(
                400,
                error_body(400, "The query is invalid.", json!([]), "req-q"),
            )
        } else {
            listing(10)(seen, n)
        }
    })
    .await;
    let results: Vec<Result<models::Return, Error>> = mock
        .client()
        .list_returns_stream(ReturnsQuery::new().count(3))
        .collect()
        .await;
    assert_eq!(results.len(), 4, "3 items, then the error");
    assert!(results[..3].iter().all(Result::is_ok));
    assert_eq!(results[3].as_ref().unwrap_err().request_id(), Some("req-q"));
    assert_eq!(mock.requests().len(), 2);
}

// ---------------------------------------------------------------------------
// Setting up: environments, headers, the HTTP client.

#[test]
fn environments_are_the_documents_servers_with_their_variables() {
    assert_eq!(Environment::default(), Environment::Production);
    assert_eq!(
        Environment::Production.url(),
        "https://api.fulfilment.example"
    );
    assert_eq!(
        Environment::Staging.url(),
        "https://staging.api.fulfilment.example"
    );
    let client = Client::builder()
        .environment(Environment::Staging)
        .server_variable("base_url", "https://tenant-7.staging.example/")
        .build()
        .unwrap();
    assert_eq!(client.base_url(), "https://tenant-7.staging.example");
    let error = Client::builder()
        .server_variable("region", "eu")
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("no server variable `region`"),
        "{error}"
    );
}

#[tokio::test]
async fn with_tenant_id_changes_the_header_for_one_client() {
    let mock = Mock::start(|_, _| Reply::json(200, customer(1))).await;
    let client = mock.client();
    let emulating = client.with_tenant_id("tenant-8");
    emulating.get_customer(1).await.unwrap();
    client.get_customer(1).await.unwrap();
    let without = Client::builder().base_url(&mock.url).build().unwrap();
    without.get_customer(1).await.unwrap();
    let tenants: Vec<Option<String>> = mock
        .requests()
        .iter()
        .map(|r| r.header("x-tenant-id").map(str::to_owned))
        .collect();
    assert_eq!(
        tenants,
        [
            Some("tenant-8".to_owned()),
            Some("tenant-7".to_owned()),
            None
        ]
    );
    assert_eq!(
        mock.requests()[2].header("authorization"),
        None,
        "no token, no header"
    );
}

#[tokio::test]
async fn a_token_that_names_its_scheme_is_sent_as_it_is() {
    let mock = Mock::start(|_, _| Reply::json(200, customer(1))).await;
    let client = mock.builder().token("Bearer lfs_stg_abc").build().unwrap();
    client.get_customer(1).await.unwrap();
    assert_eq!(
        mock.only_request().header("authorization"),
        Some("Bearer lfs_stg_abc")
    );
}

#[tokio::test]
async fn a_ready_made_http_client_keeps_its_user_agent_unless_one_is_set() {
    let mock = Mock::start(|_, _| Reply::json(200, customer(1))).await;
    let http = logistics_client::reqwest::Client::builder()
        .user_agent("integrator/2.0")
        .build()
        .unwrap();
    let client = mock.builder().http_client(http.clone()).build().unwrap();
    client.get_customer(1).await.unwrap();
    let explicit = mock
        .builder()
        .http_client(http)
        .user_agent("integrator-sync/3.1")
        .build()
        .unwrap();
    explicit.get_customer(1).await.unwrap();
    let agents: Vec<String> = mock
        .requests()
        .iter()
        .map(|r| r.header("user-agent").unwrap().to_owned())
        .collect();
    assert_eq!(agents, ["integrator/2.0", "integrator-sync/3.1"]);
}

// ---------------------------------------------------------------------------
// The token stays secret.

#[test]
fn the_token_is_redacted_in_debug_output() {
    let builder = Client::builder()
        .base_url("http://127.0.0.1:1")
        .token(TOKEN)
        .tenant_id("tenant-7");
    let shown = format!("{builder:?}");
    assert!(!shown.contains(TOKEN), "{shown}");
    assert!(shown.contains("redacted"), "{shown}");
    let client = builder.build().unwrap();
    for shown in [format!("{client:?}"), format!("{client:#?}")] {
        assert!(!shown.contains(TOKEN), "{shown}");
        assert!(!shown.contains("c2VjcmV0"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
        assert!(shown.contains("tenant-7"), "settings are shown: {shown}");
    }
}

/// Everything the `tracing` subscriber writes, as text.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    fn install(&self) -> tracing::subscriber::DefaultGuard {
        let subscriber = tracing_subscriber::fmt()
            .with_writer(self.clone())
            .with_max_level(tracing::Level::TRACE)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_default(subscriber)
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Logs {
    type Writer = Logs;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[tokio::test]
async fn spans_name_the_request_and_never_the_token() {
    let mock = Mock::start(|_, n| {
        if n == 1 {
            Reply::raw(503, "text/plain", "busy")
        } else {
            Reply::json(200, customer(42))
        }
    })
    .await;
    let logs = Logs::default();
    let _guard = logs.install();
    let client = mock.client();
    client.get_customer(42).await.unwrap();
    let _ = client.create_customer(&customer_input()).await;
    tracing::info!(?client, "the client, as an integrator might log it");
    let text = logs.text();
    for part in [
        "operation=\"getCustomer\"",
        "method=GET",
        "path=\"/openapi/v1/Customers/{customerNo}\"",
        "attempt=2",
        "status=200",
        "latency_ms=",
        "the API answered 503 Service Unavailable; retrying",
        "operation=\"createCustomer\"",
    ] {
        assert!(text.contains(part), "the logs lack {part:?}:\n{text}");
    }
    assert!(
        !text.contains(TOKEN),
        "the token leaked into the logs:\n{text}"
    );
    assert!(
        !text.contains("c2VjcmV0"),
        "part of the token leaked:\n{text}"
    );
}
