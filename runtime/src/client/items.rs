//! The items of a sequential JSON answer (`application/jsonl`,
//! `application/x-ndjson`, `application/json-seq`), read as they come.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use futures_util::stream::{self, BoxStream};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use super::error::{Error, Failure};
use super::events::next_chunk;
use super::resume::Streamed;
use crate::sequence::{Framing, Splitter};

/// The items of a sequential answer, as a [`Stream`]: each is an item
/// decoded as soon as its framing says it is whole, or the error that
/// stopped the stream (the connection lost, no bytes for the client's
/// time-out). An item that does not decode is an error in its place, and
/// the stream goes on.
pub struct Items<T, B = serde_json::Value> {
    inner: BoxStream<'static, Result<T, Error<B>>>,
    status: StatusCode,
    headers: HeaderMap,
}

impl<T, B> Items<T, B> {
    /// The status of the answer.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The headers of the answer.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }
}

impl<T, B> std::fmt::Debug for Items<T, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Items")
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl<T, B> Stream for Items<T, B> {
    type Item = Result<T, Error<B>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// What the stream of items reads from: the answer's body, chunk by chunk.
struct Source {
    response: reqwest::Response,
    status: StatusCode,
    headers: HeaderMap,
    items: Splitter,
    idle: Duration,
    /// Whether the URL holds a credential, which errors must not show.
    url_has_secret: bool,
    finished: bool,
}

impl Source {
    /// The next item of the stream, and the source for the one after it
    /// (`None` once an error ended it).
    async fn next<T: DeserializeOwned, B>(mut self) -> Option<(Result<T, Error<B>>, Option<Self>)> {
        loop {
            if let Some(raw) = self.items.next_item() {
                let decoded = serde_json::from_slice::<T>(&raw).map_err(|error| {
                    Failure::decode(self.status, &self.headers, &raw, error).into_error()
                });
                return Some((decoded, Some(self)));
            }
            if self.finished {
                return None;
            }
            match next_chunk(&mut self.response, self.idle, self.url_has_secret).await {
                Ok(Some(chunk)) => self.items.push(&chunk),
                Ok(None) => {
                    self.finished = true;
                    self.items.finish();
                }
                Err(error) => return Some((Err(error), None)),
            }
        }
    }
}

impl<T, B> Items<T, B>
where
    T: DeserializeOwned + Send + 'static,
    B: Send + 'static,
{
    /// The items of `streamed`, each chunk awaited at most its `idle`.
    pub(super) fn new(streamed: Streamed, framing: Framing) -> Self {
        let Streamed {
            response,
            idle,
            resend,
        } = streamed;
        let url_has_secret = resend.url_has_secret;
        let status = response.status();
        let headers = response.headers().clone();
        let source = Source {
            response,
            status,
            headers: headers.clone(),
            items: Splitter::new(framing),
            idle,
            url_has_secret,
            finished: false,
        };
        let inner = stream::unfold(Some(source), |source| async move { source?.next().await });
        Items {
            inner: Box::pin(inner),
            status,
            headers,
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt as _;
    use reqwest::Method;

    use super::*;
    use crate::client::loopback::{chunked, serve};
    use crate::client::{Call, RetryPolicy, Settings};

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Line {
        n: u32,
    }

    async fn items(answer: String) -> Items<Line> {
        let (url, _) = serve(vec![answer]).await;
        let mut settings = Settings::default();
        settings.retry_policy(RetryPolicy::none());
        let transport = settings.build(&url, "test/0").unwrap();
        let call = Call::new("listLines", Method::GET, "/lines", &[]);
        transport.send_items(call, Framing::Lines).await.unwrap()
    }

    #[tokio::test]
    async fn items_come_decoded_as_their_lines_do_and_a_bad_one_is_an_error_in_its_place() {
        let chunks = ["{\"n\":1}\n{\"n\"", ":2}\nnot json\n", "{\"n\":3}"];
        // 203, not 200: a status of its own, not a default.
        let answer = chunked("application/jsonl", &chunks, true).replacen("200 OK", "203 Copy", 1);
        let items = items(answer).await;
        assert_eq!(items.status(), StatusCode::NON_AUTHORITATIVE_INFORMATION);
        assert_eq!(items.headers()["content-type"], "application/jsonl");
        assert_eq!(format!("{items:?}"), "Items { status: 203, .. }");
        let read: Vec<_> = items.collect().await;
        assert!(
            matches!(
                read[..],
                [
                    Ok(Line { n: 1 }),
                    Ok(Line { n: 2 }),
                    Err(Error::Decode { .. }),
                    // The last line is whole at the body's end.
                    Ok(Line { n: 3 }),
                ]
            ),
            "{read:?}"
        );
    }

    #[tokio::test]
    async fn a_cut_answer_ends_its_items_with_the_transport_error() {
        let items = items(chunked(
            "application/jsonl",
            &["{\"n\":1}\n{\"n\":2"],
            false,
        ))
        .await;
        let read: Vec<_> = items.collect().await;
        assert!(
            matches!(read[..], [Ok(Line { n: 1 }), Err(Error::Transport(_))]),
            "{read:?}"
        );
    }
}
