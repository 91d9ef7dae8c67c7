//! One span per request, carrying the request id, the operationId, the
//! tenant (recorded once the token is checked) and the status (recorded for
//! the line that logs the answer), so that every log line of a request has
//! them — as fields of the `span` object in JSON logs. The operations layer (`super::layer`) opens it, once the request id
//! is settled, and closes it with the answer.

use std::fmt::{self, Write as _};
use std::time::Duration;

use tracing::field::{Field, Visit};
use tracing::{Level, Span};
use tracing_subscriber::field::{MakeVisitor, VisitFmt, VisitOutput};
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};

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

/// Logs the answer of a request: server errors at WARN, the rest at DEBUG,
/// with the status and the time taken, the status recorded on the
/// request's `span` first so that the line's span has it too.
pub fn record_answer(span: &Span, status: u16, latency: Duration) {
    // The status shows only in these lines, the last of the span: when the
    // level of the line is off it is not recorded at all, which spares most
    // requests a second formatting of the span's fields.
    let micros = latency.as_micros() as u64;
    if status >= 500 {
        if tracing::enabled!(Level::WARN) {
            span.record("status", status);
            tracing::warn!(status, micros, "request failed");
        }
    } else if tracing::enabled!(Level::DEBUG) {
        span.record("status", status);
        tracing::debug!(status, micros, "request");
    }
}

/// Logs to standard error, as `RUST_LOG` says (`info` by default): one
/// JSON object a line with `json`, else text, coloured only on a terminal
/// (escape codes in a log file are noise, and cost a third of a request's
/// span) and then written by [`PlainFields`].
pub fn init_logging(json: bool) {
    use std::io::IsTerminal as _;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else if std::io::stderr().is_terminal() {
        builder.with_ansi(true).init();
    } else {
        builder.with_ansi(false).fmt_fields(PlainFields).init();
    }
}

/// The fields of spans and events as text without colours: the same text as
/// tracing-subscriber's `DefaultFields` writes then, for less.
///
/// `DefaultFields` styles every field's name and `=` even when colours are
/// off, and styling a string is a pass through the formatting machinery of
/// its own; and it writes each piece of each field to the span's string,
/// which grows three times for a request's span. Here a field is its name,
/// `=` and its value's `Debug`, kept on the stack and passed on in one piece
/// with the others; a message and an error, which `DefaultFields` escapes or
/// expands, are left to it.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainFields;

impl<'a> MakeVisitor<Writer<'a>> for PlainFields {
    type Visitor = PlainVisitor<'a>;

    fn make_visitor(&self, writer: Writer<'a>) -> PlainVisitor<'a> {
        PlainVisitor {
            writer,
            pending: Pending::default(),
            is_empty: true,
            result: Ok(()),
        }
    }
}

/// Writes the fields of one span or event (see [`PlainFields`]).
pub struct PlainVisitor<'a> {
    writer: Writer<'a>,
    /// Fields written but not yet passed on to `writer`.
    pending: Pending,
    is_empty: bool,
    result: fmt::Result,
}

impl PlainVisitor<'_> {
    /// Passes on the fields kept.
    fn flush(&mut self) {
        if self.result.is_ok() && self.pending.len > 0 {
            self.result = self.writer.write_str(self.pending.as_str());
        }
        self.pending.len = 0;
    }

    /// Leaves the field to `DefaultFields`' own visitor.
    fn by_default(&mut self, record: impl FnOnce(&mut DefaultVisitor<'_>)) {
        self.flush();
        let mut default = DefaultVisitor::new(self.writer.by_ref(), self.is_empty);
        record(&mut default);
        self.result = default.finish();
        self.is_empty = false;
    }
}

impl Visit for PlainVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.by_default(|default| default.record_str(field, value));
        } else {
            // Quoted, as `DefaultFields` writes a string field.
            self.record_debug(field, &value);
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.by_default(|default| default.record_error(field, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.result.is_err() {
            return;
        }
        let name = field.name();
        if name == "message" {
            return self.by_default(|default| default.record_debug(field, value));
        }
        let name = name.strip_prefix("r#").unwrap_or(name);
        let separator = if self.is_empty { "" } else { " " };
        self.is_empty = false;
        let kept = self.pending.len;
        if write!(self.pending, "{separator}{name}={value:?}").is_err() {
            // Too long to keep: what was kept goes first, then this field.
            self.pending.len = kept;
            self.flush();
            self.result = write!(self.writer, "{separator}{name}={value:?}");
        }
    }
}

impl VisitOutput<fmt::Result> for PlainVisitor<'_> {
    fn finish(mut self) -> fmt::Result {
        self.flush();
        self.result
    }
}

impl VisitFmt for PlainVisitor<'_> {
    fn writer(&mut self) -> &mut dyn fmt::Write {
        self.flush();
        &mut self.writer
    }
}

/// Text kept on the stack; a write that does not fit fails.
struct Pending {
    bytes: [u8; 256],
    len: usize,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            bytes: [0; 256],
            len: 0,
        }
    }
}

impl Pending {
    fn as_str(&self) -> &str {
        // Only whole `str`s are written, and a failed field is cut off
        // where it began: always UTF-8.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for Pending {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let end = self.len + text.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        room.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Records the tenant a request acts for on its span.
pub fn record_tenant(tenant: uuid::Uuid) {
    // Encoded here, once, rather than through `Display`'s formatter.
    let mut text = uuid::Uuid::encode_buffer();
    let text: &str = tenant.hyphenated().encode_lower(&mut text);
    Span::current().record("tenant", tracing::field::display(text));
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::MakeWriter;

    use super::*;

    /// What a subscriber writes, kept.
    #[derive(Clone, Default)]
    struct Kept(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Kept {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Kept {
        type Writer = Kept;

        fn make_writer(&'a self) -> Kept {
            self.clone()
        }
    }

    /// Spans and events of every kind of field, as text.
    fn logged(plain: bool) -> String {
        let kept = Kept::default();
        let builder = tracing_subscriber::fmt()
            .with_ansi(false)
            .without_time()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(kept.clone());
        let log = || {
            let span = request_span("01JABCDEFGHJKMNPQRSTVWXYZ0", Some("getSalesOrder"));
            let _entered = span.enter();
            span.record("tenant", tracing::field::display("a-tenant"));
            let error = std::io::Error::other("the cause");
            tracing::info!(
                text = "quoted \"here\"",
                shown = %"as is",
                number = 42_u64,
                negative = -1_i64,
                yes = true,
                ratio = 0.5,
                r#type = "raw",
                error = &error as &(dyn std::error::Error + 'static),
                "a message with \u{1b}[31m an escape"
            );
            tracing::info!(message = "the message as a field", after = 1);
            record_answer(&span, 503, Duration::from_micros(1500));
            tracing::debug!(nested = ?Some("debugged"), "last");
            let long = "x".repeat(300);
            tracing::info!(short = 1, long = %long, after = "the long one");
            tracing::info!(short = 2, long = ?long);
        };
        if plain {
            tracing::subscriber::with_default(builder.fmt_fields(PlainFields).finish(), log);
        } else {
            tracing::subscriber::with_default(builder.finish(), log);
        }
        String::from_utf8(kept.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn plain_fields_write_what_the_default_fields_write_without_colours() {
        let default = logged(false);
        assert!(
            default.contains("request_id=01JABCDEFGHJKMNPQRSTVWXYZ0"),
            "{default}"
        );
        assert!(default.contains("status=503"), "{default}");
        assert_eq!(logged(true), default);
    }
}
