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
