//! One span per request (tower-http's `TraceLayer`), carrying the request
//! id, the operationId, the tenant (recorded once the token is checked) and
//! the status, so that every log line of a request has them — as fields of
//! the `span` object in JSON logs.
//!
//! The request id is settled before the span opens: the request's own
//! `X-Request-Id` when it is sane, a new one otherwise, written back to the
//! request so that the router, the error bodies and the span agree.

use std::time::Duration;

use axum::body::Body;
use http::{Request, Response};
use logistics_server_stubs::RequestId;
use logistics_server_stubs::request_id::X_REQUEST_ID;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::trace::{MakeSpan, OnResponse, TraceLayer};
use tracing::Span;

/// Gives the request its id, the one the router will use, and finds its
/// operation once for the layers inside (span, metrics, deadline).
pub async fn settle_request_id(mut request: Request<Body>) -> Request<Body> {
    let id = RequestId::from_headers(request.headers());
    request
        .headers_mut()
        .insert(&X_REQUEST_ID, id.to_header_value());
    let operation = super::Operation::find(&request);
    request.extensions_mut().insert(operation);
    request
}

/// The span of a request.
#[derive(Clone, Copy)]
pub struct RequestSpan;

impl<B> MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, request: &Request<B>) -> Span {
        let request_id = request
            .headers()
            .get(&X_REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-");
        let operation = super::Operation::of(request).id().unwrap_or("-");
        // Displayed, not debugged: the fields need no quotes or escapes (the
        // request id is sane by now), and a span is made for every request.
        tracing::info_span!(
            "request",
            request_id = %request_id,
            operation = %operation,
            tenant = tracing::field::Empty,
            status = tracing::field::Empty,
        )
    }
}

/// Records the status; logs server errors at WARN and the rest at DEBUG.
#[derive(Clone, Copy)]
pub struct LogResponse;

impl<B> OnResponse<B> for LogResponse {
    fn on_response(self, response: &Response<B>, latency: Duration, span: &Span) {
        let status = response.status().as_u16();
        span.record("status", status);
        let micros = latency.as_micros() as u64;
        if status >= 500 {
            tracing::warn!(status, micros, "request failed");
        } else {
            tracing::debug!(status, micros, "request");
        }
    }
}

/// The trace layer: [`RequestSpan`] and [`LogResponse`]; failures are
/// logged by [`LogResponse`] and by the error rendering, not again here.
pub fn layer()
-> TraceLayer<SharedClassifier<ServerErrorsAsFailures>, RequestSpan, (), LogResponse, (), (), ()> {
    TraceLayer::new_for_http()
        .make_span_with(RequestSpan)
        .on_request(())
        .on_response(LogResponse)
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}

/// Logs to standard error, as `RUST_LOG` says (`info` by default): one
/// JSON object a line with `json`, else text, coloured only on a terminal
/// (escape codes in a log file are noise, and cost a third of a request's
/// span).
pub fn init_logging(json: bool) {
    use std::io::IsTerminal as _;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else {
        builder.with_ansi(std::io::stderr().is_terminal()).init();
    }
}

/// Records the tenant a request acts for on its span.
pub fn record_tenant(tenant: uuid::Uuid) {
    // Encoded here, once, rather than through `Display`'s formatter.
    let mut text = uuid::Uuid::encode_buffer();
    let text: &str = tenant.hyphenated().encode_lower(&mut text);
    Span::current().record("tenant", tracing::field::display(text));
}
