//! Walking every page of a paged listing: offset after offset, until the
//! listing's total is reached, a page comes back empty, or the API stops
//! moving forward.

use std::future::Future;

use futures_util::stream::{self, Stream};

/// One page, as the walk needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The page's items.
    pub items: Vec<T>,
    /// The offset the API used.
    pub offset: i64,
    /// How many items the whole listing has.
    pub total: i64,
}

/// Every item of every page, in order; `fetch` gets the page at an offset.
/// The first error ends the stream after it is yielded.
///
/// The walk ends when a page is empty, when the page's offset plus its
/// items reach the total, or when the next offset would not be past the one
/// just asked for (an API that ignores the offset): it never loops forever.
pub fn walk<T, E, F, Fut>(
    first_offset: u32,
    fetch: F,
) -> impl Stream<Item = Result<T, E>> + Send + 'static
where
    T: Send + 'static,
    E: Send + 'static,
    F: FnMut(u32) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Page<T>, E>> + Send + 'static,
{
    struct State<T, F> {
        fetch: F,
        next: Option<u32>,
        items: std::vec::IntoIter<T>,
    }
    let state = State {
        fetch,
        next: Some(first_offset),
        items: Vec::new().into_iter(),
    };
    stream::unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.items.next() {
                return Some((Ok(item), state));
            }
            let offset = state.next.take()?;
            match (state.fetch)(offset).await {
                Err(error) => return Some((Err(error), state)),
                Ok(page) => {
                    let served = i64::try_from(page.items.len()).unwrap_or(i64::MAX);
                    let end = page.offset.max(0).saturating_add(served);
                    if served > 0 && end < page.total && end > i64::from(offset) {
                        state.next = u32::try_from(end).ok();
                    }
                    state.items = page.items.into_iter();
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use std::sync::{Arc, Mutex};

    /// Walks a listing of `total` numbers served `page` at a time by `serve`
    /// (offset asked → the page); returns the items and the offsets asked for.
    async fn walk_with(
        first: u32,
        serve: impl Fn(u32) -> Result<Page<u32>, String> + Send + Sync + 'static,
    ) -> (Vec<Result<u32, String>>, Vec<u32>) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&asked);
        let serve = Arc::new(serve);
        let items = walk(first, move |offset| {
            log.lock().unwrap().push(offset);
            let serve = Arc::clone(&serve);
            async move { serve(offset) }
        })
        .collect::<Vec<_>>()
        .await;
        let asked = asked.lock().unwrap().clone();
        (items, asked)
    }

    fn listing(total: u32, page: u32) -> impl Fn(u32) -> Result<Page<u32>, String> {
        move |offset| {
            Ok(Page {
                items: (offset..total.min(offset + page)).collect(),
                offset: offset.into(),
                total: total.into(),
            })
        }
    }

    fn ok(range: std::ops::Range<u32>) -> Vec<Result<u32, String>> {
        range.map(Ok).collect()
    }

    #[tokio::test]
    async fn every_item_of_every_page_in_order_and_no_more_requests_than_pages() {
        let (items, asked) = walk_with(0, listing(7, 3)).await;
        assert_eq!(items, ok(0..7));
        assert_eq!(asked, [0, 3, 6]);
        let (items, asked) = walk_with(4, listing(7, 3)).await;
        assert_eq!(items, ok(4..7));
        assert_eq!(asked, [4]);
        let (items, asked) = walk_with(0, listing(0, 3)).await;
        assert!(items.is_empty());
        assert_eq!(asked, [0]);
    }

    #[tokio::test]
    async fn an_empty_page_ends_the_walk_before_the_total() {
        let (items, asked) = walk_with(0, |offset| {
            Ok(Page {
                items: if offset == 0 { vec![1, 2] } else { Vec::new() },
                offset: offset.into(),
                total: 100,
            })
        })
        .await;
        assert_eq!(items, [Ok(1), Ok(2)]);
        assert_eq!(asked, [0, 2]);

        // Even one that says it starts further on.
        let (items, asked) = walk_with(0, |offset| {
            Ok(Page {
                items: Vec::new(),
                offset: i64::from(offset) + 5,
                total: 100,
            })
        })
        .await;
        assert!(items.is_empty());
        assert_eq!(asked, [0]);
    }

    #[tokio::test]
    async fn an_api_that_ignores_the_offset_is_asked_once_more_not_forever() {
        let (items, asked) = walk_with(0, |_| {
            Ok(Page {
                items: vec![1, 2],
                offset: 0,
                total: 100,
            })
        })
        .await;
        assert_eq!(items, [Ok(1), Ok(2), Ok(1), Ok(2)]);
        assert_eq!(asked, [0, 2]);
    }

    #[tokio::test]
    async fn the_first_error_is_yielded_and_ends_the_walk() {
        let (items, asked) = walk_with(0, |offset| match offset {
            0 => listing(10, 4)(0),
            _ => Err(format!("failed at {offset}")),
        })
        .await;
        let mut expected = ok(0..4);
        expected.push(Err("failed at 4".to_owned()));
        assert_eq!(items, expected);
        assert_eq!(asked, [0, 4]);
    }
}
