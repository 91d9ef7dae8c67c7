//! [`RequestItems`]: a request's sequence of JSON items (`application/jsonl`,
//! `application/x-ndjson`, `application/json-seq`), handed to the
//! implementation as they arrive.

use std::fmt;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::{BodyDataStream, Bytes};
use futures_util::{Stream, StreamExt as _};
use serde::de::DeserializeOwned;
use serde::de::IgnoredAny;

use crate::models::validation::{self, Report, Validate, ValidateJson};
use crate::sequence::{Framing, Splitter};
use crate::server::error::ApiError;

/// The items of a sequential request body, as a [`Stream`]: each is
/// decoded and checked against the item's schema as soon as its line (or
/// record) has arrived, so the implementation may act on the first items
/// of a long upload before the last are sent.
///
/// An item that is not JSON, or does not match the schema, is an error in
/// its place (`?` in the method turns it into the 400 it is, naming the
/// item: `[1].name`, `item 1 is not JSON`), and the items after it still
/// come. The body limit (`Settings::body_limit`) bounds the whole body, as
/// for every other body: past it, the stream ends with a 413 error. A body
/// that cannot be read ends it with a 400.
///
/// [`into_vec`](Self::into_vec) takes every item or refuses the whole
/// request, as a body read whole would be.
pub struct RequestItems<T> {
    source: Source<T>,
    _item: PhantomData<fn() -> T>,
}

/// Where the items come from.
enum Source<T> {
    /// The request's body, read as it arrives.
    Body(Reader),
    /// Items already at hand (a test double's request).
    Ready(std::vec::IntoIter<T>),
}

/// Why an item was refused: its own problems, which a request read whole
/// lists with the other items' ([`RequestItems::into_vec`]), or a refusal
/// of the whole body.
enum Refusal {
    Invalid(Report),
    Body(ApiError),
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Invalid(report) => ApiError::validation(report),
            Refusal::Body(error) => error,
        }
    }
}

impl<T> RequestItems<T> {
    /// The items of `body`, whose first chunk, `first`, was read already;
    /// at most `limit` bytes in all.
    pub(crate) fn from_body(
        first: Bytes,
        body: BodyDataStream,
        framing: Framing,
        limit: usize,
    ) -> Self {
        RequestItems {
            source: Source::Body(Reader {
                first: Some(first),
                body,
                items: Splitter::new(framing),
                limit,
                read: 0,
                index: 0,
                finished: false,
            }),
            _item: PhantomData,
        }
    }
}

impl<T: DeserializeOwned + Validate + ValidateJson> RequestItems<T> {
    /// Every item, in order; or, when one is refused, the error: a body
    /// that is not read to its end (not JSON, too large, unreadable) at
    /// once, and the problems of all the items that do not match the
    /// schema, listed together (at most 100), once the body is read. So a
    /// method that wants all or nothing answers as a body read whole does.
    ///
    /// # Errors
    ///
    /// The 400 (or 413) the request deserves.
    pub async fn into_vec(mut self) -> Result<Vec<T>, ApiError> {
        let mut items = Vec::new();
        let mut problems = Report::new();
        while let Some(item) = self.next_item().await {
            match item {
                Ok(item) => items.push(item),
                Err(Refusal::Invalid(report)) => problems.append(report),
                Err(Refusal::Body(error)) => return Err(error),
            }
        }
        if problems.is_empty() {
            Ok(items)
        } else {
            Err(ApiError::validation(problems))
        }
    }

    async fn next_item(&mut self) -> Option<Result<T, Refusal>> {
        futures_util::future::poll_fn(|cx| self.poll_item(cx)).await
    }

    fn poll_item(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, Refusal>>> {
        match &mut self.source {
            Source::Ready(items) => Poll::Ready(items.next().map(Ok)),
            Source::Body(reader) => match ready!(reader.poll_raw(cx)) {
                Some(Ok(raw)) => Poll::Ready(Some(decode(raw.index, &raw.bytes))),
                Some(Err(error)) => Poll::Ready(Some(Err(Refusal::Body(error)))),
                None => Poll::Ready(None),
            },
        }
    }
}

/// Items already at hand: `RequestItems::from_iter(pets)`, or
/// `pets.into_iter().collect()`, for a request a test builds.
impl<T> FromIterator<T> for RequestItems<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let items: Vec<T> = items.into_iter().collect();
        RequestItems {
            source: Source::Ready(items.into_iter()),
            _item: PhantomData,
        }
    }
}

impl<T: DeserializeOwned + Validate + ValidateJson> Stream for RequestItems<T> {
    type Item = Result<T, ApiError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.poll_item(cx)
            .map(|item| item.map(|item| item.map_err(ApiError::from)))
    }
}

// Nothing of it is pinned in place (the body is boxed, the items are
// moved out), so a method may call `StreamExt::next` on it as it is.
impl<T> Unpin for RequestItems<T> {}

impl<T> fmt::Debug for RequestItems<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestItems").finish_non_exhaustive()
    }
}

/// The item at `index`, decoded and checked: `item 1 is not JSON` as a
/// refusal of the body, as a body read whole had it, or its problems.
fn decode<T: DeserializeOwned + Validate + ValidateJson>(
    index: usize,
    raw: &[u8],
) -> Result<T, Refusal> {
    validation::item_from_json_slice::<T>(raw, "body", index).map_err(|report| {
        // Parsed again only when it failed, to tell text that is not JSON.
        match serde_json::from_slice::<IgnoredAny>(raw) {
            Err(error) => Refusal::Body(ApiError::unreadable_body(
                format!("item {index} is not JSON: {error}"),
                "InvalidFormat",
            )),
            Ok(_) => Refusal::Invalid(report),
        }
    })
}

/// An item's bytes, without their framing, and its place in the body.
struct RawItem {
    index: usize,
    bytes: Vec<u8>,
}

/// A request body read as it arrives, split into items.
struct Reader {
    /// The chunk read before the method was called, to take first.
    first: Option<Bytes>,
    body: BodyDataStream,
    items: Splitter,
    limit: usize,
    /// The bytes read so far.
    read: usize,
    /// The index of the next item.
    index: usize,
    finished: bool,
}

impl Reader {
    /// Adds a chunk of the body: 413 once the body is over the limit, and
    /// the stream ends.
    fn take(&mut self, chunk: &[u8]) -> Result<(), ApiError> {
        self.read = self.read.saturating_add(chunk.len());
        if self.read > self.limit {
            // Nothing more is read: what the splitter holds is never an item.
            self.finished = true;
            return Err(ApiError::payload_too_large(self.limit));
        }
        self.items.push(chunk);
        Ok(())
    }

    /// The next whole item with its index, or the error that ended the body.
    fn poll_raw(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<RawItem, ApiError>>> {
        loop {
            if let Some(item) = self.items.next_item() {
                let index = self.index;
                self.index += 1;
                return Poll::Ready(Some(Ok(RawItem { index, bytes: item })));
            }
            if self.finished {
                return Poll::Ready(None);
            }
            let next = match self.first.take() {
                Some(first) => Some(Ok(first)),
                None => ready!(self.body.poll_next_unpin(cx)),
            };
            match next {
                Some(Ok(chunk)) => {
                    if let Err(error) = self.take(&chunk) {
                        return Poll::Ready(Some(Err(error)));
                    }
                }
                Some(Err(error)) => {
                    self.finished = true;
                    return Poll::Ready(Some(Err(ApiError::unreadable_body(
                        "could not be read",
                        "InvalidBody",
                    )
                    .with_cause(error))));
                }
                None => {
                    self.finished = true;
                    self.items.finish();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use futures_util::{FutureExt as _, stream};
    use http::{HeaderMap, HeaderValue, StatusCode};
    use serde_json::Value;

    use super::*;
    use crate::models::validation::Path;
    use crate::server::body;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Pet {
        id: u32,
        name: String,
    }

    impl Validate for Pet {}

    impl ValidateJson for Pet {
        fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
            if value.get("name").and_then(Value::as_str).is_none() {
                report.push_child(path, "name", "is required", "Required");
            }
        }
    }

    fn jsonl() -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            "content-type",
            HeaderValue::from_static("application/jsonl"),
        );
        headers
    }

    /// The items of a body of these chunks, which stays open after them
    /// unless `ends`.
    async fn items(chunks: &[&'static str], ends: bool, limit: usize) -> RequestItems<Pet> {
        let chunks = stream::iter(chunks.to_vec()).map(Ok::<_, std::io::Error>);
        let body = if ends {
            Body::from_stream(chunks)
        } else {
            Body::from_stream(chunks.chain(stream::pending()))
        };
        body::items(
            body,
            &jsonl(),
            &["application/jsonl"],
            limit,
            Framing::Lines,
        )
        .await
        .unwrap()
        .expect("a body")
    }

    fn pet(id: u32, name: &str) -> Pet {
        Pet {
            id,
            name: name.to_owned(),
        }
    }

    fn properties(error: &ApiError) -> Vec<&str> {
        error
            .problems()
            .iter()
            .map(|p| p.property.as_str())
            .collect()
    }

    #[tokio::test]
    async fn items_come_as_their_lines_arrive() {
        let mut pets = items(
            &["{\"id\":1,\"name\":\"a\"}\n{\"id\"", ":2,\"name\":\"b\"}\n"],
            false,
            1024,
        )
        .await;
        assert_eq!(pets.next().await.unwrap().unwrap(), pet(1, "a"));
        assert_eq!(pets.next().await.unwrap().unwrap(), pet(2, "b"));
        assert!(
            pets.next().now_or_never().is_none(),
            "the body is still open: no item yet, and no end"
        );
        assert_eq!(format!("{pets:?}"), "RequestItems { .. }");
    }

    #[tokio::test]
    async fn a_bad_item_is_an_error_in_its_place_and_into_vec_lists_every_one() {
        let body = ["{\"id\":1,\"name\":\"a\"}\n{\"id\":2}\n{\"id\":3}\n{\"id\":4,\"name\":\"d\"}"];
        let read: Vec<Result<Pet, ApiError>> = items(&body, true, 1024).await.collect().await;
        assert_eq!(read.len(), 4);
        let refused = read[1].as_ref().unwrap_err();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(properties(refused), ["[1].name"]);
        assert_eq!(read[3].as_ref().unwrap(), &pet(4, "d"));

        let refused = items(&body, true, 1024).await.into_vec().await.unwrap_err();
        assert_eq!(properties(&refused), ["[1].name", "[2].name"]);
        let whole = items(
            &["{\"id\":1,\"name\":\"a\"}\n\n", "{\"id\":2,\"name\":\"b\"}"],
            true,
            1024,
        );
        assert_eq!(
            whole.await.into_vec().await.unwrap(),
            [pet(1, "a"), pet(2, "b")]
        );
    }

    #[tokio::test]
    async fn an_item_that_is_not_json_is_named_by_its_place() {
        let body = ["{\"id\":1,\"name\":\"a\"}\nnot json\n{\"id\":3}\n"];
        let refused = items(&body, true, 1024).await.into_vec().await.unwrap_err();
        assert_eq!(refused.error_code(), Some("InvalidFormat"));
        let message = &refused.problems()[0].message;
        assert!(message.starts_with("item 1 is not JSON: "), "{message}");
    }

    /// What the handler has of a body with these headers, at most 99 bytes.
    async fn handed(
        body: Body,
        headers: &HeaderMap,
    ) -> Result<Option<RequestItems<Pet>>, ApiError> {
        body::items(body, headers, &["application/jsonl"], 99, Framing::Lines).await
    }

    #[tokio::test]
    async fn the_body_limit_bounds_the_whole_body_not_each_item() {
        let line = "{\"id\":1,\"name\":\"a\"}\n";
        let read: Vec<Result<Pet, ApiError>> = items(&[line, line, line], true, 2 * line.len())
            .await
            .collect()
            .await;
        assert_eq!(read.len(), 3, "{read:?}");
        assert_eq!(read[1].as_ref().unwrap(), &pet(1, "a"));
        let refused = read[2].as_ref().unwrap_err();
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);

        let mut declared = jsonl();
        declared.insert("content-length", HeaderValue::from_static("100"));
        let refused = handed(Body::from("{}"), &declared).await.unwrap_err();
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn no_bytes_is_no_body_and_bytes_need_a_content_type() {
        let empty = Body::from_stream(stream::iter([Ok::<_, std::io::Error>("")]));
        assert!(handed(empty, &jsonl()).await.unwrap().is_none());
        let untyped = Body::from_stream(stream::iter([Ok::<_, std::io::Error>("1\n")]));
        let refused = handed(untyped, &HeaderMap::new()).await.unwrap_err();
        assert_eq!(refused.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }

    #[tokio::test]
    async fn items_at_hand_are_a_request_a_test_builds() {
        let pets: RequestItems<Pet> = vec![pet(1, "a")].into_iter().collect();
        assert_eq!(pets.into_vec().await.unwrap(), [pet(1, "a")]);
    }
}
