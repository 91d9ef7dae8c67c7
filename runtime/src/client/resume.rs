//! Resuming a server-sent event stream whose connection was lost, as the
//! WHATWG `EventSource` does: the same request again after the stream's
//! `retry:` time, with `Last-Event-ID`, a bounded number of times in a row
//! ([`Transport::send_resumable_events`](super::Transport::send_resumable_events)).

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use super::error::{Error, Failure};
use super::transport::{Opened, Transport};

/// A success answer whose body is read as a stream, with what the stream
/// needs: the time-out of each chunk, and the request, for a stream that
/// sends it again.
pub(super) struct Streamed {
    pub(super) response: reqwest::Response,
    /// The client's time-out, which bounds the wait for each chunk.
    pub(super) idle: Duration,
    pub(super) resend: Resend,
}

/// A request as it was sent, to send it again: kept whole (credentials,
/// common headers, body), so that a resumed stream needs nothing from the
/// generated method that built it.
pub(super) struct Resend {
    pub(super) transport: Transport,
    pub(super) request: reqwest::Request,
    /// Whether the URL holds a credential, which errors must not show.
    pub(super) url_has_secret: bool,
    /// The call's span, which the new attempts are logged in.
    pub(super) span: tracing::Span,
}

impl Resend {
    /// Sends the request again, once, up to the answer's headers:
    /// `Last-Event-ID` is `last_event_id`, none when that is empty, and
    /// the request's own (the caller's) when it is `None`.
    async fn send(&self, last_event_id: Option<&str>) -> Result<Opened, Failure> {
        let Some(mut request) = self.request.try_clone() else {
            return Err(Failure::invalid(
                "the request's body cannot be sent twice, so the event stream cannot be resumed",
            ));
        };
        let name = HeaderName::from_static("last-event-id");
        match last_event_id {
            None => {}
            Some("") => {
                request.headers_mut().remove(&name);
            }
            Some(id) => {
                let Ok(value) = HeaderValue::from_str(id) else {
                    return Err(Failure::invalid(format!(
                        "the event stream's last id `{}` cannot be sent as `Last-Event-ID` (it has control characters), so the stream cannot be resumed",
                        id.escape_debug()
                    )));
                };
                request.headers_mut().insert(name, value);
            }
        }
        // One attempt: `Resumer` counts and spaces the attempts itself.
        self.transport
            .0
            .open(&request, self.url_has_secret, &self.span, true, false)
            .instrument(self.span.clone())
            .await
    }
}

/// What a resumed stream goes on with.
pub(super) enum Resumed<B> {
    /// A new answer, whose events follow.
    Open(reqwest::Response),
    /// The server said the stream is over (204), or the policy allows no
    /// reconnection and the stream ended without an error.
    End,
    /// The error the stream ends with.
    Fail(Error<B>),
}

/// Reconnects a lost event stream, at most `max_attempts` connections in a
/// row without an event.
pub(super) struct Resumer {
    resend: Resend,
    /// The connections opened since the last event, the current one included.
    without_event: u32,
}

impl Resumer {
    pub(super) fn new(resend: Resend) -> Self {
        Resumer {
            resend,
            without_event: 1,
        }
    }

    /// An event arrived: the connection it came on counts as a good one.
    pub(super) fn event_arrived(&mut self) {
        self.without_event = 1;
    }

    /// The connection was lost (with `lost`, the error that ended it, or
    /// none when its body ended): waits `retry` (the stream's reconnection
    /// time) or the policy's backoff, and sends the request again with
    /// `last_event_id`, until an answer comes or the attempts run out.
    pub(super) async fn reconnect<B: DeserializeOwned>(
        &mut self,
        last_event_id: Option<&str>,
        retry: Option<Duration>,
        lost: Option<Error<B>>,
    ) -> Resumed<B> {
        let policy = &self.resend.transport.0.retry;
        let mut error = lost;
        while self.without_event < policy.max_attempts {
            let wait = retry
                .unwrap_or_else(|| policy.backoff(self.without_event))
                .min(policy.max_delay);
            self.resend.span.in_scope(|| {
                tracing::info!(
                    attempt = self.without_event + 1,
                    wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                    "the event stream was lost; reconnecting"
                );
            });
            tokio::time::sleep(wait).await;
            self.without_event += 1;
            match self.resend.send(last_event_id).await {
                Ok(opened) if opened.response.status() == StatusCode::NO_CONTENT => {
                    return Resumed::End;
                }
                Ok(opened) if opened.response.status().is_success() => {
                    return Resumed::Open(opened.response);
                }
                Ok(opened) => {
                    let refusal = match self
                        .resend
                        .transport
                        .0
                        .read(opened, &self.resend.span)
                        .await
                    {
                        Ok(answer) => answer.into_error(),
                        Err(failure) => failure.into_error(),
                    };
                    return Resumed::Fail(refusal);
                }
                // Nothing to wait for: the request itself cannot be sent.
                Err(failure) if matches!(failure.0, Error::InvalidInput(_)) => {
                    return Resumed::Fail(failure.into_error());
                }
                Err(failure) => error = Some(failure.into_error()),
            }
        }
        match error {
            Some(error) => Resumed::Fail(error),
            None if self.without_event > 1 => Resumed::Fail(Error::Disconnected {
                connections: self.without_event,
            }),
            None => Resumed::End,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use futures_util::StreamExt as _;
    use reqwest::Method;

    use crate::client::loopback::{self, serve};
    use crate::client::{Call, Error, Event, EventData, Events, RetryPolicy, Settings, Transport};

    /// A stream of `chunks`, ended cleanly.
    fn ended(chunks: &[&str]) -> String {
        loopback::chunked("text/event-stream", chunks, true)
    }

    /// A stream of `chunks`, then cut.
    fn cut(chunks: &[&str]) -> String {
        loopback::chunked("text/event-stream", chunks, false)
    }

    /// The `Last-Event-ID` of each request the server took.
    fn sent_ids(heads: &Mutex<Vec<String>>) -> Vec<Option<String>> {
        let heads = heads.lock().unwrap();
        heads
            .iter()
            .map(|head| {
                head.lines()
                    .find_map(|line| line.strip_prefix("last-event-id: "))
                    .map(str::to_owned)
            })
            .collect()
    }

    fn transport(url: &str, max_attempts: u32) -> Transport {
        let mut settings = Settings::default();
        settings.timeout(Duration::from_secs(10));
        settings.retry_policy(RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(50),
            retry_non_idempotent: false,
        });
        settings.build(url, "test/0").unwrap()
    }

    fn call() -> Call {
        Call::new("watch", Method::GET, "/events", &[])
    }

    /// The events of `url`'s stream, resumed with at most `max_attempts`
    /// connections in a row without an event.
    async fn resumed(url: &str, max_attempts: u32) -> Events<String> {
        transport(url, max_attempts)
            .send_resumable_events(call(), EventData::Text)
            .await
            .unwrap()
    }

    /// Everything the stream yields: each event's id and data, or the error.
    async fn read_all(
        events: impl futures_util::Stream<Item = Result<Event<String>, Error>>,
    ) -> Vec<Result<(Option<String>, String), Error>> {
        events
            .map(|item| item.map(|event| (event.id, event.data)))
            .collect()
            .await
    }

    fn event(id: &str, data: &str) -> (Option<String>, String) {
        (Some(id.to_owned()), data.to_owned())
    }

    #[tokio::test]
    async fn a_cut_stream_is_resumed_from_the_last_id_it_gave() {
        let (url, heads) = serve(vec![
            // The third event is cut off in the middle: its id does not count.
            cut(&[
                "retry: 5\nid: 1\ndata: a\n\n",
                "id: 2\ndata: b\n\nid: 3\ndata: c",
            ]),
            ended(&["id: 3\ndata: c\n\n", "data: [DONE]\n\n"]),
        ])
        .await;
        let mut call = call();
        call.header("Last-Event-ID", &"0");
        let events = transport(&url, 3)
            .send_resumable_events::<String, serde_json::Value>(call, EventData::Text)
            .await
            .unwrap();
        let read: Vec<_> = read_all(events)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(read, [event("1", "a"), event("2", "b"), event("3", "c")]);
        // The caller's id first, then the last one the stream gave.
        let id = |id: &str| Some(id.to_owned());
        assert_eq!(sent_ids(&heads), [id("0"), id("2")]);
    }

    #[tokio::test]
    async fn a_stream_that_ends_before_done_is_resumed_until_the_server_says_no_more() {
        let (url, heads) = serve(vec![
            ended(&["retry: 1\nid: 7\ndata: x\n\n"]),
            // An `id:` alone says how far the stream got.
            ended(&["id: 8\n\n"]),
            loopback::status(204),
        ])
        .await;
        let read: Vec<_> = read_all(resumed(&url, 3).await)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(read, [event("7", "x")], "204 ends the stream");
        let id = |id: &str| Some(id.to_owned());
        assert_eq!(sent_ids(&heads), [None, id("7"), id("8")]);

        // An answer that is not a success ends the stream with its error.
        let (url, _) = serve(vec![
            ended(&["retry: 1\ndata: x\n\n"]),
            loopback::status(500),
        ])
        .await;
        let events = resumed(&url, 3).await;
        let read = read_all(events).await;
        assert_eq!(read.len(), 2, "{read:?}");
        assert!(
            matches!(&read[1], Err(Error::UnexpectedStatus { status, .. }) if status.as_u16() == 500),
            "{read:?}"
        );
    }

    #[tokio::test]
    async fn a_stream_is_not_resumed_unless_asked_or_when_the_policy_allows_no_retry() {
        let once = || cut(&["id: 1\ndata: a\n\n"]);
        let (url, heads) = serve(vec![once(), once()]).await;
        let events = transport(&url, 3)
            .send_events::<String, serde_json::Value>(call(), EventData::Text)
            .await
            .unwrap();
        let read = read_all(events).await;
        assert!(
            matches!(read[..], [Ok(_), Err(Error::Transport(_))]),
            "{read:?}"
        );

        let events = resumed(&url, 1).await;
        let read = read_all(events).await;
        assert!(
            matches!(read[..], [Ok(_), Err(Error::Transport(_))]),
            "{read:?}"
        );
        assert_eq!(heads.lock().unwrap().len(), 2, "one connection each");
    }

    /// Each connection that brings an event counts as a good one: the
    /// attempts without an event start again after it.
    #[tokio::test]
    async fn a_stream_cut_after_each_event_is_resumed_every_time() {
        let (url, heads) = serve(vec![
            cut(&["retry: 1\nid: 1\ndata: a\n\n"]),
            cut(&["id: 2\ndata: b\n\n"]),
            cut(&["id: 3\ndata: c\n\n"]),
            loopback::status(204),
        ])
        .await;
        let read: Vec<_> = read_all(resumed(&url, 2).await).await;
        let read: Vec<_> = read.into_iter().map(Result::unwrap).collect();
        assert_eq!(read, [event("1", "a"), event("2", "b"), event("3", "c")]);
        assert_eq!(heads.lock().unwrap().len(), 4);
    }

    /// A connection closed before its answer is lost like a cut stream: the
    /// next attempt goes on.
    #[tokio::test]
    async fn a_reconnection_closed_before_its_answer_is_tried_again() {
        let (url, _) = serve(vec![
            cut(&["retry: 1\nid: 1\ndata: a\n\n"]),
            String::new(),
            ended(&["id: 2\ndata: b\n\n"]),
            loopback::status(204),
        ])
        .await;
        let read: Vec<_> = read_all(resumed(&url, 3).await).await;
        let read: Vec<_> = read.into_iter().map(Result::unwrap).collect();
        assert_eq!(read, [event("1", "a"), event("2", "b")]);
    }

    /// A last id that cannot be sent in a header ends the stream after the
    /// first wait: no attempt could send it. (Were each of the 2,000
    /// attempts made, their waits of 5 ms would take 10 s.)
    #[tokio::test]
    async fn a_last_id_that_cannot_be_sent_ends_the_stream_without_more_attempts() {
        let (url, _) = serve(vec![cut(&["retry: 5\nid: a\u{1}b\ndata: x\n\n"])]).await;
        let mut settings = Settings::default();
        settings.retry_policy(RetryPolicy {
            max_attempts: 2_000,
            ..RetryPolicy::default()
        });
        let events = settings
            .build(&url, "test/0")
            .unwrap()
            .send_resumable_events::<String, serde_json::Value>(call(), EventData::Text)
            .await
            .unwrap();
        let read = tokio::time::timeout(Duration::from_secs(5), read_all(events))
            .await
            .expect("one attempt, not 2,000");
        assert!(
            matches!(read[..], [Ok(_), Err(Error::InvalidInput(_))]),
            "{read:?}"
        );
    }

    /// With no retries, a stream whose body ends is simply over.
    #[tokio::test]
    async fn without_retries_an_ended_stream_ends_without_an_error() {
        let (url, heads) = serve(vec![ended(&["id: 1\ndata: a\n\n"])]).await;
        let read: Vec<_> = read_all(resumed(&url, 1).await).await;
        assert!(matches!(read[..], [Ok(_)]), "{read:?}");
        assert_eq!(heads.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn reconnecting_stops_after_max_attempts_without_an_event() {
        // A server gone after the first answer: connections are refused.
        let (url, _) = serve(vec![cut(&["id: 1\ndata: a\n\n"])]).await;
        let events = resumed(&url, 3).await;
        let read = tokio::time::timeout(Duration::from_secs(10), read_all(events))
            .await
            .expect("the attempts are bounded");
        assert!(
            matches!(read[..], [Ok(_), Err(Error::Transport(_))]),
            "{read:?}"
        );

        // A server that answers and closes at once, again and again.
        let closing = || ended(&[": nothing\n\n"]);
        let (url, heads) = serve(vec![closing(), closing(), closing(), closing()]).await;
        let events = resumed(&url, 3).await;
        let read = read_all(events).await;
        assert!(
            matches!(read[..], [Err(Error::Disconnected { connections: 3 })]),
            "{read:?}"
        );
        assert_eq!(heads.lock().unwrap().len(), 3);
        let message = read[0].as_ref().unwrap_err().to_string();
        assert!(
            message.contains("raise RetryPolicy::max_attempts"),
            "{message}"
        );
    }
}
