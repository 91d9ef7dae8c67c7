//! How a log line is written: [`RequestLines`], the line with its request's
//! context, and [`PlainFields`], the fields of events as text.

use std::fmt::{self, Write as _};

use serde::Serializer as _;
use serde::ser::SerializeMap as _;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_serde::fields::AsMap as _;
use tracing_subscriber::field::{MakeVisitor, VisitFmt, VisitOutput};
use tracing_subscriber::fmt::format::{DefaultVisitor, Format, Full, Writer};
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use super::trace::RequestContext;

/// Writes each log line as tracing-subscriber's own formats do, with the
/// context of the request being polled in the place of a span named
/// `request`: in text, `request{request_id=… operation=… tenant=…
/// status=…}: ` before the target; in JSON, the `span` object (the fields
/// and `"name":"request"`) and the `spans` list of that one object.
///
/// In text, the line's other spans, if any, follow the request's as
/// tracing writes them; a JSON line has the request's only (the service
/// makes no other span).
pub struct RequestLines {
    json: bool,
    /// `false` in tests, whose lines are compared whole.
    with_time: bool,
    /// Writes what follows the level and the context in text: the line's
    /// other spans, its target and its fields.
    tail: Format<Full, ()>,
}

impl RequestLines {
    /// One JSON object a line with `json`, else text.
    pub fn new(json: bool) -> RequestLines {
        RequestLines {
            json,
            with_time: true,
            tail: Format::default()
                .without_time()
                .with_level(false)
                .with_ansi(false),
        }
    }

    #[cfg(test)]
    fn without_time(self) -> RequestLines {
        RequestLines {
            with_time: false,
            ..self
        }
    }

    fn timestamp(&self) -> Option<String> {
        if !self.with_time {
            return None;
        }
        let mut time = String::new();
        // As tracing's formats write a clock that fails.
        if SystemTime.format_time(&mut Writer::new(&mut time)).is_err() {
            time = "<unknown time>".to_owned();
        }
        Some(time)
    }

    fn text<S, N>(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
        context: Option<&RequestContext>,
    ) -> fmt::Result
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
        N: for<'a> FormatFields<'a> + 'static,
    {
        if let Some(time) = self.timestamp() {
            write!(writer, "{time} ")?;
        }
        // Five wide, as tracing writes a level.
        write!(writer, "{:>5} ", event.metadata().level().as_str())?;
        if let Some(context) = context {
            // As `PlainFields` writes fields recorded as `Display`.
            write!(
                writer,
                "request{{request_id={} operation={}",
                context.request_id,
                context.operation.unwrap_or("-")
            )?;
            if let Some(tenant) = context.tenant {
                write!(writer, " tenant={tenant}")?;
            }
            if let Some(status) = context.status {
                write!(writer, " status={status}")?;
            }
            writer.write_str("}: ")?;
        }
        self.tail.format_event(ctx, writer, event)
    }

    fn json(
        &self,
        mut writer: Writer<'_>,
        event: &Event<'_>,
        context: Option<&RequestContext>,
    ) -> fmt::Result {
        let meta = event.metadata();
        let mut line = Vec::with_capacity(256);
        let mut serializer = serde_json::Serializer::new(&mut line);
        let written = (|| {
            let mut map = serializer.serialize_map(None)?;
            if let Some(time) = self.timestamp() {
                map.serialize_entry("timestamp", &time)?;
            }
            map.serialize_entry("level", meta.level().as_str())?;
            map.serialize_entry("fields", &event.field_map())?;
            map.serialize_entry("target", meta.target())?;
            if let Some(context) = context {
                map.serialize_entry("span", &JsonSpan(context))?;
                map.serialize_entry("spans", &[JsonSpan(context)])?;
            }
            map.end()
        })();
        written.map_err(|_| fmt::Error)?;
        // serde_json writes UTF-8 only.
        writer.write_str(std::str::from_utf8(&line).map_err(|_| fmt::Error)?)?;
        writeln!(writer)
    }
}

impl<S, N> FormatEvent<S, N> for RequestLines
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        RequestContext::with_current(|context| {
            let context = context.map(|context| &*context);
            if self.json {
                self.json(writer, event, context)
            } else {
                self.text(ctx, writer, event, context)
            }
        })
    }
}

/// A request's context as tracing's JSON format writes a span: its fields
/// in the order of their names (a `serde_json` map's), then its name.
struct JsonSpan<'a>(&'a RequestContext);

impl serde::Serialize for JsonSpan<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let context = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("operation", context.operation.unwrap_or("-"))?;
        map.serialize_entry("request_id", context.request_id.as_str())?;
        if let Some(status) = context.status {
            map.serialize_entry("status", &status)?;
        }
        if let Some(tenant) = context.tenant {
            let mut text = uuid::Uuid::encode_buffer();
            map.serialize_entry("tenant", tenant.hyphenated().encode_lower(&mut text))?;
        }
        map.serialize_entry("name", "request")?;
        map.end()
    }
}

/// The fields of spans and events as text without colours: the same text as
/// tracing-subscriber's `DefaultFields` writes then, for less.
///
/// `DefaultFields` styles every field's name and `=` even when colours are
/// off, and styling a string is a pass through the formatting machinery of
/// its own; and it writes each piece of each field to the line's string
/// apart, which grows it again and again. Here a field is its name, `=` and
/// its value's `Debug`, kept on the stack and passed on in one piece with
/// the others; a message and an error, which `DefaultFields` escapes or
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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use logistics_server_stubs::RequestId;
    use tracing::Dispatch;
    use tracing_subscriber::fmt::MakeWriter;

    use super::*;
    use crate::ops::trace::{record_answer, record_tenant};

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

    impl Kept {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    const ID: &str = "01JABCDEFGHJKMNPQRSTVWXYZ0";
    const TENANT: &str = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b";

    fn builder(
        kept: &Kept,
    ) -> tracing_subscriber::fmt::SubscriberBuilder<
        tracing_subscriber::fmt::format::DefaultFields,
        Format<Full, ()>,
        tracing::level_filters::LevelFilter,
        Kept,
    > {
        tracing_subscriber::fmt()
            .with_ansi(false)
            .without_time()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(kept.clone())
    }

    /// Lines of every kind of field, inside a request and outside.
    fn log_lines() {
        tracing::info!(text = "quoted \"here\"", shown = %"as is", number = 42_u64, "a message");
        tracing::info!(
            negative = -1_i64,
            yes = true,
            ratio = 0.5,
            r#type = "raw",
            "more"
        );
        let error = std::io::Error::other("the cause");
        tracing::warn!(
            error = &error as &(dyn std::error::Error + 'static),
            "failed"
        );
    }

    /// The lines as tracing itself writes them within a span `request`.
    fn with_a_span(json: bool) -> String {
        let kept = Kept::default();
        let log = || {
            tracing::info!("before the request");
            let span = tracing::info_span!(
                "request",
                request_id = %ID,
                operation = %"getSalesOrder",
                tenant = tracing::field::Empty,
                status = tracing::field::Empty,
            );
            let entered = span.enter();
            log_lines();
            span.record("tenant", tracing::field::display(TENANT));
            log_lines();
            span.record("status", 503_u16);
            // Where `record_answer` logs it.
            tracing::warn!(
                target: "logistics_service::ops::trace",
                status = 503_u16,
                micros = 1500_u64,
                "request failed"
            );
            drop(entered);
            tracing::info!("after the request");
        };
        let dispatch = if json {
            Dispatch::new(builder(&kept).json().finish())
        } else {
            Dispatch::new(builder(&kept).fmt_fields(PlainFields).finish())
        };
        tracing::dispatcher::with_default(&dispatch, log);
        kept.text()
    }

    /// The same lines written by [`RequestLines`] within a request's context.
    fn with_a_context(json: bool) -> String {
        let kept = Kept::default();
        let log = || {
            tracing::info!("before the request");
            let mut headers = http::HeaderMap::new();
            headers.insert("x-request-id", ID.parse().unwrap());
            let mut context = Some(RequestContext::new(
                RequestId::from_headers(&headers),
                Some("getSalesOrder"),
            ));
            let entered = RequestContext::enter(&mut context);
            log_lines();
            record_tenant(TENANT.parse().unwrap());
            log_lines();
            record_answer(503, Duration::from_micros(1500));
            drop(entered);
            tracing::info!("after the request");
        };
        let lines = RequestLines::new(json).without_time();
        let subscriber = builder(&kept)
            .fmt_fields(PlainFields)
            .event_format(lines)
            .finish();
        tracing::subscriber::with_default(subscriber, log);
        kept.text()
    }

    #[test]
    fn request_lines_are_written_as_tracing_writes_the_span_they_replace() {
        for json in [false, true] {
            let expected = with_a_span(json);
            assert!(expected.contains(TENANT), "{expected}");
            assert!(expected.contains("503"), "{expected}");
            assert_eq!(expected.lines().count(), 9, "{expected}");
            assert_eq!(with_a_context(json), expected);
        }
    }

    /// Spans and events of every kind of field, as text.
    fn logged(plain: bool) -> String {
        let kept = Kept::default();
        let log = || {
            let span =
                tracing::info_span!("request", request_id = %ID, tenant = tracing::field::Empty);
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
            tracing::debug!(nested = ?Some("debugged"), "last");
            let long = "x".repeat(300);
            tracing::info!(short = 1, long = %long, after = "the long one");
            tracing::info!(short = 2, long = ?long);
        };
        if plain {
            tracing::subscriber::with_default(builder(&kept).fmt_fields(PlainFields).finish(), log);
        } else {
            tracing::subscriber::with_default(builder(&kept).finish(), log);
        }
        kept.text()
    }

    #[test]
    fn plain_fields_write_what_the_default_fields_write_without_colours() {
        let default = logged(false);
        assert!(
            default.contains("request_id=01JABCDEFGHJKMNPQRSTVWXYZ0"),
            "{default}"
        );
        assert!(default.contains("tenant=a-tenant"), "{default}");
        assert_eq!(logged(true), default);
    }
}
