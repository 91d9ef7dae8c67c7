//! What every log line of a request carries: its request id, its
//! operationId, the tenant it acts for (once the token is checked) and its
//! status (for the line that logs the answer).
//!
//! They are a [`RequestContext`], not a tracing span: the operations layer
//! (`super::layer`) makes one when the request id is settled and enters it
//! whenever it polls the request, and [`RequestLines`](super::log_lines)
//! writes it into each line logged meanwhile, as a span's fields were
//! written (`request{request_id=… operation=…}:` in text, the `span` object
//! in JSON). A span cost a request about 4 µs of a GET's 25 when nothing
//! was logged: the registry's slot, its fields formatted into a string at
//! its start and again when the tenant was recorded, and its entering and
//! leaving at every poll (D66).

use std::cell::Cell;
use std::time::Duration;

use logistics_server_stubs::RequestId;
use tracing::Level;

use super::log_lines::RequestLines;

/// What the log lines of one request carry (see the module's documentation).
#[derive(Debug, Clone)]
pub struct RequestContext {
    pub(super) request_id: RequestId,
    /// `None`: a path of no operation.
    pub(super) operation: Option<&'static str>,
    pub(super) tenant: Option<uuid::Uuid>,
    pub(super) status: Option<u16>,
}

thread_local! {
    /// The context of the request this thread is polling, if any. A `Cell`,
    /// not a `RefCell`: it is only ever taken and put back, so no log line
    /// written at an odd moment can find it borrowed and panic.
    static CURRENT: Cell<Option<RequestContext>> = const { Cell::new(None) };
}

impl RequestContext {
    /// The context of a request whose id is `request_id` (settled: sane)
    /// and whose operation is `operation` (`None`: a path of no operation).
    pub fn new(request_id: RequestId, operation: Option<&'static str>) -> RequestContext {
        RequestContext {
            request_id,
            operation,
            tenant: None,
            status: None,
        }
    }

    /// Makes the context in `slot` the thread's current one until the
    /// guard is dropped, when it goes back to `slot` with what was recorded
    /// on it meanwhile and the context current before is current again.
    pub fn enter(slot: &mut Option<RequestContext>) -> Entered<'_> {
        let outer = CURRENT.replace(slot.take());
        Entered { slot, outer }
    }

    /// Calls `f` with the thread's current context, if any.
    pub(super) fn with_current<T>(f: impl FnOnce(Option<&mut RequestContext>) -> T) -> T {
        let mut current = CURRENT.take();
        let out = f(current.as_mut());
        CURRENT.set(current);
        out
    }
}

/// A context entered (see [`RequestContext::enter`]).
pub struct Entered<'a> {
    slot: &'a mut Option<RequestContext>,
    outer: Option<RequestContext>,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        *self.slot = CURRENT.replace(self.outer.take());
    }
}

/// Records the tenant the current request acts for.
pub fn record_tenant(tenant: uuid::Uuid) {
    RequestContext::with_current(|context| {
        if let Some(context) = context {
            context.tenant = Some(tenant);
        }
    });
}

/// Logs the answer of the current request: server errors at WARN, the rest
/// at DEBUG, with the status and the time taken, the status recorded on the
/// request's context first so that the line's `span` has it too.
pub fn record_answer(status: u16, latency: Duration) {
    let micros = latency.as_micros() as u64;
    let record = || {
        RequestContext::with_current(|context| {
            if let Some(context) = context {
                context.status = Some(status);
            }
        });
    };
    if status >= 500 {
        if tracing::enabled!(Level::WARN) {
            record();
            tracing::warn!(status, micros, "request failed");
        }
    } else if tracing::enabled!(Level::DEBUG) {
        record();
        tracing::debug!(status, micros, "request");
    }
}

/// Logs to standard error, as `RUST_LOG` says (`info` by default): one
/// JSON object a line with `json`, else text, each line with its request's
/// context ([`RequestLines`]).
pub fn init_logging(json: bool) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .fmt_fields(super::log_lines::PlainFields)
        .event_format(RequestLines::new(json))
        .init();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(id: &str) -> Option<RequestContext> {
        let mut headers = http::HeaderMap::new();
        headers.insert("x-request-id", id.parse().unwrap());
        Some(RequestContext::new(
            RequestId::from_headers(&headers),
            Some("getSalesOrder"),
        ))
    }

    fn current_id() -> Option<String> {
        RequestContext::with_current(|context| {
            context.map(|context| context.request_id.as_str().to_owned())
        })
    }

    #[test]
    fn a_context_is_current_while_entered_and_keeps_what_was_recorded() {
        let mut outer = context("outer-1");
        let mut inner = context("inner-1");
        assert_eq!(current_id(), None);
        {
            let _outer = RequestContext::enter(&mut outer);
            assert_eq!(current_id().as_deref(), Some("outer-1"));
            {
                let _inner = RequestContext::enter(&mut inner);
                assert_eq!(current_id().as_deref(), Some("inner-1"));
                record_tenant(uuid::Uuid::nil());
            }
            assert_eq!(current_id().as_deref(), Some("outer-1"));
        }
        assert_eq!(current_id(), None);
        assert_eq!(inner.unwrap().tenant, Some(uuid::Uuid::nil()));
        assert_eq!(outer.unwrap().tenant, None);
    }

    #[test]
    fn recording_without_a_request_does_nothing() {
        record_tenant(uuid::Uuid::nil());
        record_answer(503, Duration::from_millis(1));
        assert_eq!(current_id(), None);
    }
}
