//! Server-sent events: the `text/event-stream` answers of operations that
//! stream (a chat completion sent token by token), read as they come.
//!
//! The stream is parsed as the WHATWG HTML standard says (`data:` lines
//! joined by line breaks, `event:` and `id:` fields, comments skipped, an
//! event dispatched at a blank line, an unfinished one at the end dropped).
//! An event whose data is `[DONE]` ends the stream, as in the APIs that
//! follow OpenAI's convention. The last id and the `retry:` time are kept
//! for a stream that is resumed when its connection is lost (`resume`).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use futures_util::stream::{self, BoxStream};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use super::error::{Error, Failure};
use super::resume::{Resumed, Resumer, Streamed};

/// One event of a stream: its data decoded, with the event's name and the
/// stream's last id.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Event<T> {
    /// The `event:` field: the event's type, when the API names it.
    pub event: Option<String>,
    /// The last `id:` the stream gave, which a client resuming it sends as
    /// `Last-Event-ID`.
    pub id: Option<String>,
    /// The `data:` lines, decoded.
    pub data: T,
}

/// The events of a `text/event-stream` answer, as a [`Stream`]: each item
/// is an [`Event`] or the error that stopped it (the connection lost, no
/// bytes for the client's time-out, data that does not decode). Decoding
/// errors do not end the stream; the others do.
///
/// A resumed stream ([`Transport::send_resumable_events`](super::Transport::send_resumable_events))
/// reconnects instead when its connection is lost, and ends with an error
/// only when reconnecting fails; its status and headers stay those of the
/// first answer.
pub struct Events<T, B = serde_json::Value> {
    inner: BoxStream<'static, Result<Event<T>, Error<B>>>,
    status: StatusCode,
    headers: HeaderMap,
}

impl<T, B> Events<T, B> {
    /// The status of the answer.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The headers of the answer.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }
}

impl<T, B> std::fmt::Debug for Events<T, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl<T, B> Stream for Events<T, B> {
    type Item = Result<Event<T>, Error<B>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// How an event's data becomes its value.
#[derive(Debug, Clone, Copy)]
pub enum EventData {
    /// JSON, decoded as the media type's schema.
    Json,
    /// The text as it is (a `type: string` schema, or none).
    Text,
}

/// What the stream of events reads from: the answer's body, chunk by chunk.
struct Source {
    response: reqwest::Response,
    /// The answer's status and headers, which a decoding error names.
    status: StatusCode,
    headers: HeaderMap,
    parser: Parser,
    data: EventData,
    idle: Duration,
    /// Whether the URL holds a credential, which errors must not show.
    url_has_secret: bool,
    finished: bool,
    /// How a lost connection is resumed; `None`: it ends the stream.
    resumer: Option<Resumer>,
}

impl Source {
    /// The next item of the stream, and the source for the one after it
    /// (`None` once an error ended it).
    async fn next<T: DeserializeOwned, B: DeserializeOwned>(
        mut self,
    ) -> Option<(Result<Event<T>, Error<B>>, Option<Self>)> {
        loop {
            if let Some(raw) = self.parser.next_event(self.finished) {
                if raw.data == "[DONE]" {
                    return None;
                }
                if let Some(resumer) = &mut self.resumer {
                    resumer.event_arrived();
                }
                let decoded = decode(&raw, self.data, self.status, &self.headers);
                return Some((decoded, Some(self)));
            }
            let lost = if self.finished {
                None
            } else {
                match next_chunk(&mut self.response, self.idle, self.url_has_secret).await {
                    Ok(Some(chunk)) => {
                        self.parser.push(&chunk);
                        continue;
                    }
                    Ok(None) => {
                        // The events still in what came are given first.
                        self.finished = true;
                        continue;
                    }
                    Err(error) => Some(error),
                }
            };
            let Some(resumer) = &mut self.resumer else {
                return lost.map(|error| (Err(error), None));
            };
            let last_event_id = self.parser.last_event_id.as_deref();
            match resumer
                .reconnect(last_event_id, self.parser.retry, lost)
                .await
            {
                Resumed::Open(response) => {
                    self.status = response.status();
                    self.headers = response.headers().clone();
                    self.response = response;
                    self.parser.reconnected();
                    self.finished = false;
                }
                Resumed::End => return None,
                Resumed::Fail(error) => return Some((Err(error), None)),
            }
        }
    }
}

/// The next chunk of a streamed answer's body (`None` at its end), awaited
/// at most `idle`: a lost connection is [`Error::Transport`] (without the
/// URL when it holds a credential), silence [`Error::Stalled`].
pub(super) async fn next_chunk<B>(
    response: &mut reqwest::Response,
    idle: Duration,
    url_has_secret: bool,
) -> Result<Option<Bytes>, Error<B>> {
    match tokio::time::timeout(idle, response.chunk()).await {
        Ok(Ok(chunk)) => Ok(chunk),
        Ok(Err(error)) if url_has_secret => Err(Error::Transport(error.without_url())),
        Ok(Err(error)) => Err(Error::Transport(error)),
        Err(_) => Err(Error::Stalled { after: idle }),
    }
}

impl<T, B> Events<T, B>
where
    T: DeserializeOwned + Send + 'static,
    B: DeserializeOwned + Send + 'static,
{
    /// The events of `streamed`, each chunk awaited at most its `idle`;
    /// `resume`: a lost connection is resumed ([`Resumer`]).
    pub(super) fn new(streamed: Streamed, data: EventData, resume: bool) -> Self {
        let Streamed {
            response,
            idle,
            resend,
        } = streamed;
        let status = response.status();
        let headers = response.headers().clone();
        let source = Source {
            response,
            status,
            headers: headers.clone(),
            parser: Parser::default(),
            data,
            idle,
            url_has_secret: resend.url_has_secret,
            finished: false,
            resumer: resume.then(|| Resumer::new(resend)),
        };
        let inner = stream::unfold(Some(source), |source| async move { source?.next().await });
        Events {
            inner: Box::pin(inner),
            status,
            headers,
        }
    }
}

fn decode<T: DeserializeOwned, B>(
    raw: &RawEvent,
    data: EventData,
    status: StatusCode,
    headers: &HeaderMap,
) -> Result<Event<T>, Error<B>> {
    let value = match data {
        EventData::Json => serde_json::from_str::<T>(&raw.data),
        EventData::Text => T::deserialize(serde_json::Value::String(raw.data.clone())),
    };
    match value {
        Ok(data) => Ok(Event {
            event: raw.event.clone(),
            id: raw.id.clone(),
            data,
        }),
        Err(error) => {
            Err(Failure::decode(status, headers, raw.data.as_bytes(), error).into_error())
        }
    }
}

/// An event as the stream gave it, its data not decoded.
#[derive(Debug, PartialEq)]
struct RawEvent {
    event: Option<String>,
    id: Option<String>,
    data: String,
}

/// The event-stream parser: bytes in, complete events out.
#[derive(Default)]
struct Parser {
    /// Bytes not yet read as lines.
    pending: Vec<u8>,
    /// The `data:` lines of the event being read, each followed by `\n`.
    data: String,
    has_data: bool,
    event: Option<String>,
    /// The id buffer: the last `id:` read, which the standard keeps from
    /// event to event.
    id: Option<String>,
    /// The id at the last blank line (the standard's "last event ID
    /// string"): what a resumed stream sends, never an id of an event that
    /// was cut off.
    last_event_id: Option<String>,
    /// The last `retry:`, the stream's reconnection time.
    retry: Option<Duration>,
}

impl Parser {
    fn push(&mut self, chunk: &Bytes) {
        self.pending.extend_from_slice(chunk);
    }

    /// A new connection's body follows: what was left of the old one, an
    /// event cut off, is dropped; the last event id and the reconnection
    /// time stay.
    fn reconnected(&mut self) {
        self.pending.clear();
        self.data.clear();
        self.has_data = false;
        self.event = None;
        self.id.clone_from(&self.last_event_id);
    }

    /// The next complete event in what was pushed. `finished`: nothing more
    /// will come, so a `\r` at the end is a whole line break.
    fn next_event(&mut self, finished: bool) -> Option<RawEvent> {
        while let Some(line) = self.next_line(finished) {
            if line.is_empty() {
                if let Some(event) = self.dispatch() {
                    return Some(event);
                }
                continue;
            }
            self.field(&line);
        }
        None
    }

    /// The next line without its break (`\n`, `\r\n` or `\r`), lossily
    /// decoded as UTF-8. A line without its break is never complete, even
    /// at the end: it may have been cut (`id: 1` of `id: 12`).
    fn next_line(&mut self, finished: bool) -> Option<String> {
        let at = self.pending.iter().position(|&b| b == b'\n' || b == b'\r');
        let (end, skip) = match at {
            // A `\r` at the end may be the first half of `\r\n`.
            Some(at) if self.pending[at] == b'\r' && at + 1 == self.pending.len() && !finished => {
                return None;
            }
            Some(at) if self.pending[at] == b'\r' && self.pending.get(at + 1) == Some(&b'\n') => {
                (at, 2)
            }
            Some(at) => (at, 1),
            None => return None,
        };
        let line = String::from_utf8_lossy(&self.pending[..end]).into_owned();
        self.pending.drain(..end + skip);
        Some(line)
    }

    fn field(&mut self, line: &str) {
        if line.starts_with(':') {
            return;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match name {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Digits too many for a u64 are as long a wait as can be.
                let millis = value.parse().unwrap_or(u64::MAX);
                self.retry = Some(Duration::from_millis(millis));
            }
            _ => {}
        }
    }

    /// The event read so far, when it has data; the fields start again.
    /// The last event id is set even when it has none (an `id:` alone
    /// marks how far the stream got).
    fn dispatch(&mut self) -> Option<RawEvent> {
        self.last_event_id.clone_from(&self.id);
        let event = self.event.take();
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        Some(RawEvent {
            event,
            id: self.id.clone(),
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&str]) -> Vec<RawEvent> {
        let mut parser = Parser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(&Bytes::copy_from_slice(chunk.as_bytes()));
            while let Some(event) = parser.next_event(false) {
                out.push(event);
            }
        }
        while let Some(event) = parser.next_event(true) {
            out.push(event);
        }
        out
    }

    fn raw(event: Option<&str>, id: Option<&str>, data: &str) -> RawEvent {
        RawEvent {
            event: event.map(str::to_owned),
            id: id.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn events_are_read_across_chunks_and_line_breaks() {
        let got = events(&[
            ": a comment\r\nevent: delta\r\nid: 1\r",
            "\ndata: {\"a\":\n",
            "data: 1}\n\n",
            "data:plain\rretry: 10\r\r",
            "data: last\n",
        ]);
        assert_eq!(
            got,
            [
                raw(Some("delta"), Some("1"), "{\"a\":\n1}"),
                // The id stays; the event name does not.
                raw(None, Some("1"), "plain"),
            ],
            "an event unfinished at the end is dropped"
        );
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        let got = events(&["event: ping\n\nid: 7\n\ndata\n\n"]);
        assert_eq!(got, [raw(None, Some("7"), "")]);
    }

    #[test]
    fn a_line_without_a_colon_is_a_field_with_no_value() {
        let got = events(&["data\ndata: x\n\n"]);
        assert_eq!(got, [raw(None, None, "\nx")]);
    }

    #[test]
    fn the_last_id_and_the_retry_time_are_kept_for_a_reconnection() {
        let mut parser = Parser::default();
        parser.push(&Bytes::from_static(
            b"retry: 250\nretry: soon\nid: 1\ndata: a\n\nid: 2\n\nid: 3\ndata: cut",
        ));
        assert_eq!(parser.next_event(false), Some(raw(None, Some("1"), "a")));
        assert_eq!(parser.next_event(true), None);
        // `id: 2` alone counts; the event cut off after `id: 3` does not.
        assert_eq!(parser.last_event_id.as_deref(), Some("2"));
        assert_eq!(parser.retry, Some(Duration::from_millis(250)));
        parser.reconnected();
        parser.push(&Bytes::from_static(b"data: b\n\n"));
        assert_eq!(parser.next_event(false), Some(raw(None, Some("2"), "b")));
    }

    #[test]
    fn a_line_cut_at_the_end_is_not_read() {
        let mut parser = Parser::default();
        parser.push(&Bytes::from_static(b"id: 1\n\nid: 12"));
        assert_eq!(parser.next_event(true), None);
        assert_eq!(parser.last_event_id.as_deref(), Some("1"));
        assert_eq!(
            parser.id.as_deref(),
            Some("1"),
            "`id: 1` of `id: 12` is not an id"
        );
    }

    #[test]
    fn an_event_ends_at_a_blank_line_of_carriage_returns_before_the_stream_does() {
        let mut parser = Parser::default();
        parser.push(&Bytes::from_static(b"data: a\r\rdata: b"));
        assert_eq!(parser.next_event(false), Some(raw(None, None, "a")));
        assert_eq!(parser.next_event(false), None, "`data: b` may go on");
    }

    #[test]
    fn an_id_holding_nul_is_ignored() {
        let got = events(&["id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"]);
        assert_eq!(got, [raw(None, Some("1"), "a"), raw(None, Some("1"), "b")]);
    }

    #[tokio::test]
    async fn an_event_streams_status_and_headers_are_the_answers() {
        use futures_util::StreamExt as _;

        use crate::client::loopback::{chunked, serve};
        use crate::client::{Call, Settings};

        // 203, not 200: a status of its own, not a default.
        let answer =
            chunked("text/event-stream", &["data: 1\n\n"], true).replacen("200 OK", "203 Copy", 1);
        let (url, _) = serve(vec![answer]).await;
        let transport = Settings::default().build(&url, "test/0").unwrap();
        let call = Call::new("watch", reqwest::Method::GET, "/events", &[]);
        let events = transport
            .send_events::<u8, serde_json::Value>(call, EventData::Json)
            .await
            .unwrap();
        assert_eq!(events.status(), StatusCode::NON_AUTHORITATIVE_INFORMATION);
        assert_eq!(events.headers()["content-type"], "text/event-stream");
        assert_eq!(format!("{events:?}"), "Events { status: 203, .. }");
        let data: Vec<u8> = events.map(|event| event.unwrap().data).collect().await;
        assert_eq!(data, [1]);
    }

    #[test]
    fn data_decodes_as_json_or_as_text() {
        let (ok, headers) = (StatusCode::OK, HeaderMap::new());
        let json = decode::<serde_json::Value, ()>(
            &raw(None, None, "{\"n\":1}"),
            EventData::Json,
            ok,
            &headers,
        );
        assert_eq!(json.unwrap().data, serde_json::json!({"n": 1}));
        let text = decode::<String, ()>(&raw(None, None, "a \"b\""), EventData::Text, ok, &headers);
        assert_eq!(text.unwrap().data, "a \"b\"");
        let broken = decode::<u8, ()>(&raw(None, None, "{"), EventData::Json, ok, &headers);
        assert!(matches!(broken, Err(Error::Decode { .. })), "{broken:?}");
    }
}
