//! What an operator and an integrator need around the API: the API
//! reference page (`/docs`), the document itself (`/openapi.yaml`,
//! `/openapi.json`), liveness and readiness probes (`/healthz`, `/readyz`)
//! and metrics in the Prometheus format (`/metrics`).
//!
//! None of these paths needs a token or counts against the rate limit: the
//! router here is merged beside the API's, outside the layers that apply to
//! `/openapi/v1`. A wrong method on them is answered like one on the API: 405
//! with the JSON error body.

pub mod docs;
pub mod healthcheck;
pub mod layer;
pub mod log_lines;
pub mod metrics;
pub mod readiness;
pub mod trace;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, StatusCode};
use logistics_server_stubs::{ApiError, ErrorBodyFormat, RequestId};

pub use self::metrics::Metrics;
pub use self::readiness::Readiness;

/// The document, byte for byte as in the repository.
pub const OPENAPI_YAML: &str = include_str!("../../../spec/openapi.yaml");

/// The document as JSON, converted from the YAML when the service is built.
pub const OPENAPI_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/openapi.json"));

mod table {
    include!(concat!(env!("OUT_DIR"), "/operations.rs"));
}
pub use table::OPERATIONS;

/// What the operations endpoints answer from.
#[derive(Clone)]
pub struct Ops {
    /// The metrics, rendered at `/metrics`.
    pub metrics: Metrics,
    /// The database probe of `/readyz`.
    pub readiness: Arc<Readiness>,
}

/// The operations endpoints. With `serve_metrics` false, `/metrics` is left
/// out (it is served on its own address, see [`metrics_router`]).
pub fn router(ops: Ops, serve_metrics: bool) -> Router {
    let router = Router::new()
        .route("/docs", only_get(get(docs::page)))
        .route("/docs/", only_get(get(docs::page)))
        .route("/docs/swagger-ui.css", only_get(get(docs::css)))
        .route("/docs/swagger-ui-bundle.js", only_get(get(docs::script)))
        .route("/openapi.yaml", only_get(get(openapi_yaml)))
        .route("/openapi.json", only_get(get(openapi_json)))
        .route("/healthz", only_get(get(healthz)))
        .route("/readyz", only_get(get(readyz)));
    let router = if serve_metrics {
        router.route("/metrics", only_get(get(render_metrics)))
    } else {
        router
    };
    router.with_state(ops)
}

/// `/metrics` alone, for `--metrics-listen`; every other path is 404 with
/// the JSON error body.
pub fn metrics_router(ops: Ops) -> Router {
    Router::new()
        .route("/metrics", only_get(get(render_metrics)))
        .fallback(|request: Request| async move {
            let request_id = RequestId::from_headers(request.headers());
            ApiError::route_not_found(request.uri().path())
                .render_as::<ErrorBodyFormat>(&request_id, None)
        })
        .with_state(ops)
}

/// `route` answering every method but GET (and HEAD) with 405 and the JSON
/// error body.
fn only_get(route: MethodRouter<Ops>) -> MethodRouter<Ops> {
    route.fallback(|request: Request| async move {
        let request_id = RequestId::from_headers(request.headers());
        ApiError::method_not_allowed(request.method().as_str(), "GET, HEAD")
            .render_as::<ErrorBodyFormat>(&request_id, None)
    })
}

fn text(content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

async fn openapi_yaml() -> Response {
    text("application/yaml", OPENAPI_YAML)
}

async fn openapi_json() -> Response {
    text("application/json", OPENAPI_JSON)
}

/// The process answers: always 200 while it serves.
async fn healthz() -> Response {
    let mut response = text("application/json", r#"{"status":"ok"}"#);
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The database answers a query within the probe's deadline: 200; otherwise
/// 503 `NotReady` with the JSON error body.
async fn readyz(State(ops): State<Ops>, request: Request) -> Response {
    match ops.readiness.check().await {
        Ok(()) => healthz().await,
        Err(reason) => {
            let request_id = RequestId::from_headers(request.headers());
            let mut response = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "NotReady",
                format!("Not ready: {reason}."),
            )
            .at("database")
            .render_as::<ErrorBodyFormat>(&request_id, None);
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
    }
}

async fn render_metrics(State(ops): State<Ops>) -> impl IntoResponse {
    text(
        "text/plain; version=0.0.4; charset=utf-8",
        ops.metrics.render(),
    )
}

/// The operation a request calls, found once per request by the operations
/// layer ([`layer`]) for the log context, the metrics and the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation(Option<usize>);

impl Operation {
    /// Matches the request's method and path against the document's.
    pub fn find<B>(request: &http::Request<B>) -> Operation {
        Operation(operation_index(request.method(), request.uri().path()))
    }

    /// Its `operationId`; `None` for a path of no operation.
    pub fn id(self) -> Option<&'static str> {
        self.0.map(|index| OPERATIONS[index].2)
    }

    /// Its place in [`OPERATIONS`]; `None` for a path of no operation.
    pub fn index(self) -> Option<usize> {
        self.0
    }
}

/// The `operationId` of the operation `method` and `path` call, if any
/// (`HEAD` calls the `GET` operation).
pub fn operation_of(method: &http::Method, path: &str) -> Option<&'static str> {
    operation_index(method, path).map(|index| OPERATIONS[index].2)
}

fn operation_index(method: &http::Method, path: &str) -> Option<usize> {
    let method = if method == http::Method::HEAD {
        "GET"
    } else {
        method.as_str()
    };
    OPERATIONS
        .iter()
        .zip(LITERAL_STARTS)
        .position(|((m, template, _), literal)| {
            *m == method && matches_template(template, literal, path)
        })
}

/// The length of each template's literal start: what comes before its
/// first `{`, found once, when the service is compiled.
const LITERAL_STARTS: [usize; OPERATIONS.len()] = literal_starts();

const fn literal_starts() -> [usize; OPERATIONS.len()] {
    let mut starts = [0; OPERATIONS.len()];
    let mut index = 0;
    while index < OPERATIONS.len() {
        let template = OPERATIONS[index].1.as_bytes();
        let mut end = 0;
        while end < template.len() && template[end] != b'{' {
            end += 1;
        }
        starts[index] = end;
        index += 1;
    }
    starts
}

/// Whether `path` fills `template` (`/a/{b}/c`), whose first `literal`
/// bytes come before any `{`: literal segments equal, each `{name}` one
/// non-empty segment.
fn matches_template(template: &str, literal: usize, path: &str) -> bool {
    // The literal start tells most templates apart in one comparison; only
    // what follows it is walked segment by segment.
    let (literal, template) = template.split_at(literal);
    let Some(path) = path.strip_prefix(literal) else {
        return false;
    };
    if template.is_empty() {
        return path.is_empty();
    }
    let mut given = path.split('/');
    for expected in template.split('/') {
        match given.next() {
            Some(segment) if expected.starts_with('{') && expected.ends_with('}') => {
                if segment.is_empty() {
                    return false;
                }
            }
            Some(segment) if segment == expected => {}
            _ => return false,
        }
    }
    given.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::Method;

    #[test]
    fn every_operation_of_the_document_is_found_by_its_path() {
        assert_eq!(OPERATIONS.len(), 7, "{OPERATIONS:?}");
        for (method, template, id) in OPERATIONS {
            let path = template.replace('{', "x").replace('}', "");
            let method: Method = method.parse().unwrap();
            assert_eq!(operation_of(&method, &path), Some(*id), "{path}");
        }
    }

    #[test]
    fn paths_match_whole_segments() {
        assert_eq!(
            operation_of(&Method::GET, "/openapi/v1/SalesOrders/SO-1"),
            Some("getSalesOrder")
        );
        assert_eq!(
            operation_of(&Method::HEAD, "/openapi/v1/SalesOrders/SO-1"),
            Some("getSalesOrder")
        );
        assert_eq!(operation_of(&Method::GET, "/openapi/v1/SalesOrders/"), None);
        assert_eq!(
            operation_of(&Method::GET, "/openapi/v1/SalesOrders/a/b"),
            None
        );
        assert_eq!(
            operation_of(&Method::POST, "/openapi/v1/SalesOrders/a"),
            None
        );
        assert_eq!(
            operation_of(&Method::GET, "/openapi/v1/Returns/GetReturnsWithTag"),
            Some("listReturnsWithTag")
        );
        assert_eq!(
            operation_of(&Method::GET, "/openapi/v1/Returns/GetReturnsWithTagX"),
            None
        );
        assert_eq!(
            operation_of(
                &Method::PUT,
                "/openapi/v1/ReceivingOrders/RO-1/transferDetail"
            ),
            Some("updateReceivingOrderTransferDetail")
        );
        assert_eq!(
            operation_of(&Method::PUT, "/openapi/v1/ReceivingOrders//transferDetail"),
            None
        );
    }

    #[test]
    fn the_json_document_is_the_yaml_document() {
        let json: serde_json::Value = serde_json::from_str(OPENAPI_JSON).unwrap();
        assert_eq!(json["info"]["version"], "v1");
        assert!(OPENAPI_YAML.starts_with("openapi:"));
    }
}
