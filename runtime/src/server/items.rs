//! [`Items`]: an answer's sequence of JSON items (`application/jsonl`,
//! `application/x-ndjson`, `application/json-seq`), written as they come.

use std::fmt;
use std::pin::Pin;

use axum::body::{Body, Bytes};
use futures_util::{Stream, StreamExt as _};
use serde::Serialize;

use crate::sequence::Framing;

/// The items of a sequential answer, as the implementation produces them:
/// each is written, framed, as soon as the stream yields it, so a long
/// answer (a log, an export, a model's tokens) reaches the client as it
/// goes. An item that cannot be serialised ends the answer there, cut
/// short, so that the client sees an incomplete body rather than a wrong one.
pub struct Items<T> {
    stream: Pin<Box<dyn Stream<Item = T> + Send>>,
}

impl<T> Items<T> {
    /// The items `stream` yields.
    pub fn new(stream: impl Stream<Item = T> + Send + 'static) -> Self {
        Items {
            stream: Box::pin(stream),
        }
    }
}

/// Items already at hand: `Items::from_iter(pets)` or `pets.into_iter().collect()`.
impl<T: Send + 'static> FromIterator<T> for Items<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let items: Vec<T> = items.into_iter().collect();
        Items::new(futures_util::stream::iter(items))
    }
}

impl<T: Serialize + Send + 'static> Items<T> {
    /// The response body: each item framed as `framing` says.
    pub fn into_body(self, framing: Framing) -> Body {
        Body::from_stream(self.stream.map(move |item| {
            let mut out = Vec::with_capacity(128);
            framing
                .write(&item, &mut out)
                .map(|()| Bytes::from(out))
                .map_err(std::io::Error::other)
        }))
    }
}

impl<T> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Items").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;

    #[tokio::test]
    async fn each_item_is_written_framed() {
        let items = Items::from_iter(vec![serde_json::json!({"n": 1}), serde_json::json!(2)]);
        let body = items.into_body(Framing::Lines).collect().await.unwrap();
        assert_eq!(&body.to_bytes()[..], b"{\"n\":1}\n2\n");
        assert_eq!(format!("{:?}", Items::from_iter([1])), "Items { .. }");
    }
}
