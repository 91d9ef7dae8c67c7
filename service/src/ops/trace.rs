//! One span per request, carrying the request id, the operationId, the
//! tenant (recorded once the token is checked) and the status, so that every
//! log line of a request has them — as fields of the `span` object in JSON
//! logs. The operations layer (`super::layer`) opens it, once the request id
//! is settled, and closes it with the answer.

use std::time::Duration;

use tracing::Span;

/// The span of a request whose id is `request_id` (settled: sane) and
/// whose operation is `operation` (`None`: a path of no operation).
pub fn request_span(request_id: &str, operation: Option<&str>) -> Span {
    // Displayed, not debugged: the fields need no quotes or escapes, and a
    // span is made for every request.
    tracing::info_span!(
        "request",
        request_id = %request_id,
        operation = %operation.unwrap_or("-"),
        tenant = tracing::field::Empty,
        status = tracing::field::Empty,
    )
}

/// Records the status on the request's `span`; logs server errors at WARN
/// and the rest at DEBUG, with the time taken.
pub fn record_answer(span: &Span, status: u16, latency: Duration) {
    span.record("status", status);
    let micros = latency.as_micros() as u64;
    if status >= 500 {
        tracing::warn!(status, micros, "request failed");
    } else {
        tracing::debug!(status, micros, "request");
    }
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
