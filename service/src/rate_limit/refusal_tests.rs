//! What a refused client is told: the interface's 429, which names the limit
//! and says when to retry, in the body and in the headers a client reads.

use logistics_server_stubs::{ErrorBodyFormat, RequestId};

use super::*;

/// Admits a request of `key` as the authentication does, behind `limit`.
async fn admit_behind(limit: &RateLimit, key: &str) -> Result<(), TooManyRequests> {
    let slot = Slot {
        limit: limit.clone(),
        remaining: Arc::new(AtomicU64::new(NONE)),
    };
    CURRENT.scope(slot, admit(key)).await
}

#[tokio::test]
async fn a_refusal_names_the_limit_and_when_to_retry() {
    let limit = RateLimit::new(2);
    assert_eq!(limit.per_minute(), 2);
    for _ in 0..2 {
        assert_eq!(admit_behind(&limit, "k").await, Ok(()));
    }
    let refused = admit_behind(&limit, "k")
        .await
        .expect_err("a third request in the minute was admitted");
    assert_eq!(refused.per_minute, 2);
    assert!(
        (59..=60).contains(&refused.retry_after),
        "{}",
        refused.retry_after
    );
    let retry_after = refused.retry_after.to_string();

    let error = refused.into_api_error();
    assert_eq!(error.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error.error_code(), Some("TooManyRequests"));
    assert_eq!(
        error.message(),
        format!("Rate limit of 2 requests per minute reached; retry in {retry_after} seconds.")
    );
    let response = error.render_as::<ErrorBodyFormat>(&RequestId::generate(), None);
    let headers = response.headers();
    assert_eq!(headers["retry-after"], retry_after.as_str());
    assert_eq!(headers["x-retry-after"], retry_after.as_str());
    assert_eq!(headers["x-remaining-calls"], "0");
}
