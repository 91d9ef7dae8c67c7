//! Constraints checked where the generated server reads a request: a
//! problem is reported once, wherever the constraint sits (an inline array
//! body's `maxItems`, its items' own type, a map's `maxProperties`, a
//! nullable item's `minLength`, a nullable parameter's `minimum`), and a
//! valid request reaches the implementation.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use fixture_constraints_client::models::serde_json::{self, Value, json};
use fixture_constraints_server::{
    ApiError, ConstraintsApi, PlaceOrderRequest, PlaceOrderResponse, PlaceOrdersRequest,
    PlaceOrdersResponse, RequestContext, router,
};

/// Counts the orders it is given.
#[derive(Clone, Default)]
struct Desk {
    orders: Arc<AtomicUsize>,
}

impl ConstraintsApi for Desk {
    async fn place_order(
        &self,
        _: RequestContext,
        _: PlaceOrderRequest,
    ) -> Result<PlaceOrderResponse, ApiError> {
        self.orders.fetch_add(1, Ordering::SeqCst);
        Ok(PlaceOrderResponse::NoContent)
    }

    async fn place_orders(
        &self,
        _: RequestContext,
        request: PlaceOrdersRequest,
    ) -> Result<PlaceOrdersResponse, ApiError> {
        self.orders.fetch_add(request.body.len(), Ordering::SeqCst);
        Ok(PlaceOrdersResponse::NoContent)
    }
}

async fn serve() -> (SocketAddr, Desk) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let desk = Desk::default();
    let served = desk.clone();
    tokio::spawn(async move { axum::serve(listener, router(served)).await });
    (addr, desk)
}

/// POSTs `body` as JSON; the answer's status and JSON body (`null` when
/// it has none).
async fn post(addr: SocketAddr, path_and_query: &str, body: &Value) -> (u16, Value) {
    let answer = fixture_constraints_client::reqwest::Client::new()
        .post(format!("http://{addr}{path_and_query}"))
        .header("content-type", "application/json")
        .body(serde_json::to_vec(body).unwrap())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let bytes = answer.bytes().await.unwrap();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap()
    };
    (status, body)
}

/// The `property` of each problem a 400 lists, in order.
fn properties(answer: &Value) -> Vec<&str> {
    answer["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors in {answer}"))
        .iter()
        .map(|problem| problem["property"].as_str().unwrap())
        .collect()
}

fn order(reference: &str) -> Value {
    json!({"reference": reference, "quantity": 1, "lines": ["one"]})
}

#[tokio::test]
async fn valid_orders_reach_the_implementation() {
    let (addr, desk) = serve().await;
    let mut first = order("AB-1");
    first["labels"] = json!({"colour": "red", "size": "L"});
    first["aliases"] = json!([null, "AB-01"]);
    let (status, answer) = post(addr, "/orders/batches?minimumQuantity=1", &json!([first, order("AB-2")])).await;
    assert_eq!((status, answer), (204, Value::Null));
    assert_eq!(desk.orders.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn each_problem_of_an_inline_array_body_is_listed_once() {
    let (addr, desk) = serve().await;
    // Four orders where three are allowed, and the second one's reference
    // breaks its pattern: the array's bound is checked by the route, the
    // order by its type, in one 400 and neither twice.
    let body = json!([order("AB-1"), order("lower"), order("AB-3"), order("AB-4")]);
    let (status, answer) = post(addr, "/orders/batches", &body).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(properties(&answer), ["[1].reference", "body"], "{answer}");
    assert_eq!(answer["detail"], "The request has 2 validation errors.");
    assert_eq!(desk.orders.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_map_and_nullable_items_are_checked_once_each() {
    let (addr, desk) = serve().await;
    let mut bad = order("AB-1");
    bad["labels"] = json!({"a": "1", "b": "2", "c": "3", "d": "4"});
    // `null` is an allowed alias; the empty one is too short.
    bad["aliases"] = json!([null, "", "AB-01"]);
    let (status, answer) = post(addr, "/orders", &bad).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(properties(&answer), ["labels", "aliases[1]"], "{answer}");
    assert_eq!(desk.orders.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_nullable_parameter_is_bounded_like_any_other() {
    let (addr, desk) = serve().await;
    let (status, answer) = post(addr, "/orders/batches?minimumQuantity=0", &json!([order("AB-1")])).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(properties(&answer), ["minimumQuantity"], "{answer}");
    assert_eq!(desk.orders.load(Ordering::SeqCst), 0);
}
