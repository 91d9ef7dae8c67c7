//! When a failed attempt is tried again, and after how long.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};

/// How calls are retried: with exponential backoff and jitter, on connection
/// failures and on 429, 502, 503 and 504 answers.
///
/// Only idempotent methods (GET, PUT, DELETE, HEAD, OPTIONS, TRACE, QUERY) are
/// retried unless [`retry_non_idempotent`](Self::retry_non_idempotent) is
/// set: a POST that reached the API may have had its effect even when its
/// answer was an error.
///
/// A `Retry-After` (seconds or an HTTP date) or `x-retry-after` (seconds)
/// header is honoured instead of the backoff. No wait is longer than
/// [`max_delay`](Self::max_delay): when the API asks for a longer one, the
/// answer is returned at once (see [`ApiError::retry_after`](super::ApiError::retry_after))
/// so that the caller decides. A call therefore takes at most `max_attempts`
/// times the client's time-out plus `max_attempts - 1` times `max_delay`.
///
/// ```
/// use openapi_runtime::client::RetryPolicy;
/// # use std::time::Duration;
/// let patient = RetryPolicy {
///     max_attempts: 5,
///     base_delay: Duration::from_millis(500),
///     ..RetryPolicy::default()
/// };
/// assert!(RetryPolicy::none().max_attempts == 1);
/// # let _ = patient;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1: no retries). Default 3.
    pub max_attempts: u32,
    /// The wait before the first retry; each retry doubles it, and a random
    /// part (up to half of it) spreads clients apart. Default 200 ms.
    pub base_delay: Duration,
    /// The longest wait between two attempts. Default 30 s.
    pub max_delay: Duration,
    /// Whether POST and PATCH are retried too. Default `false`.
    pub retry_non_idempotent: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(30),
            retry_non_idempotent: false,
        }
    }
}

impl RetryPolicy {
    /// No retries: every call is attempted once.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Whether calls with `method` may be retried at all.
    pub(crate) fn covers(&self, method: &Method) -> bool {
        // QUERY is safe and idempotent (its draft RFC, and OpenAPI 3.2).
        let idempotent = matches!(
            *method,
            Method::GET
                | Method::PUT
                | Method::DELETE
                | Method::HEAD
                | Method::OPTIONS
                | Method::TRACE
        ) || method.as_str() == "QUERY";
        self.max_attempts > 1 && (idempotent || self.retry_non_idempotent)
    }

    /// The wait before retry number `retry` (1 for the first): half of the
    /// exponential delay, plus a random part of up to the other half.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let factor = 1u32
            .checked_shl(retry.saturating_sub(1))
            .unwrap_or(u32::MAX);
        let exponential = self
            .base_delay
            .checked_mul(factor)
            .unwrap_or(self.max_delay)
            .min(self.max_delay);
        let half = exponential / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(fastrand::u64(0..=nanos))
    }

    /// The wait before retry number `retry` after an answer with `headers`:
    /// what the API asked for, or the backoff. `None` when the API asked for
    /// more than `max_delay`.
    pub(crate) fn delay_after(&self, retry: u32, headers: &HeaderMap) -> Option<Duration> {
        match retry_after(headers) {
            Some(asked) if asked > self.max_delay => None,
            Some(asked) => Some(asked),
            None => Some(self.backoff(retry)),
        }
    }
}

/// Whether an answer with `status` is worth another attempt.
pub(crate) fn retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

/// How long the answer asks the client to wait: `Retry-After` (seconds or
/// an HTTP date), else `x-retry-after` (seconds).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    if let Some(value) = text("retry-after") {
        if let Some(wait) = seconds(value) {
            return Some(wait);
        }
        if let Ok(at) = httpdate::parse_http_date(value) {
            return Some(
                at.duration_since(SystemTime::now())
                    .unwrap_or(Duration::ZERO),
            );
        }
    }
    text("x-retry-after").and_then(seconds)
}

/// Whole (or decimal) seconds.
fn seconds(value: &str) -> Option<Duration> {
    if let Ok(whole) = value.parse::<u64>() {
        return Some(Duration::from_secs(whole));
    }
    // `try_from_secs_f64` refuses what is negative, not a number or too long.
    value
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_str(value).expect("a header value"));
        }
        headers
    }

    #[test]
    fn only_idempotent_methods_are_retried_unless_asked() {
        let policy = RetryPolicy::default();
        for method in [Method::GET, Method::PUT, Method::DELETE, Method::HEAD] {
            assert!(policy.covers(&method), "{method}");
        }
        assert!(!policy.covers(&Method::POST));
        assert!(!policy.covers(&Method::PATCH));
        let eager = RetryPolicy {
            retry_non_idempotent: true,
            ..RetryPolicy::default()
        };
        assert!(eager.covers(&Method::POST));
        assert!(!RetryPolicy::none().covers(&Method::GET));
    }

    #[test]
    fn overload_and_gateway_statuses_are_retryable() {
        for status in [429, 502, 503, 504] {
            assert!(
                retryable_status(StatusCode::from_u16(status).unwrap()),
                "{status}"
            );
        }
        for status in [400, 401, 404, 409, 500, 501] {
            assert!(
                !retryable_status(StatusCode::from_u16(status).unwrap()),
                "{status}"
            );
        }
    }

    #[test]
    fn the_backoff_doubles_with_jitter_and_never_exceeds_max_delay() {
        let policy = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            ..RetryPolicy::default()
        };
        for _ in 0..50 {
            let first = policy.backoff(1);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let second = policy.backoff(2);
            assert!(second >= Duration::from_millis(100) && second <= Duration::from_millis(200));
            let capped = policy.backoff(3);
            assert!(capped >= Duration::from_millis(175) && capped <= Duration::from_millis(350));
            assert!(policy.backoff(u32::MAX) <= policy.max_delay);
        }
    }

    #[test]
    fn retry_after_is_seconds_a_date_or_the_fallback_header() {
        assert_eq!(
            retry_after(&headers(&[("retry-after", " 7 ")])),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")])),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(&headers(&[(
                "retry-after",
                "Wed, 21 Oct 2015 07:28:00 GMT"
            )])),
            Some(Duration::ZERO),
            "a date in the past is no wait"
        );
        let soon = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
        let wait = retry_after(&headers(&[("retry-after", &soon)])).expect("a date");
        assert!(wait > Duration::from_secs(100) && wait <= Duration::from_secs(120));
        assert_eq!(
            retry_after(&headers(&[("retry-after", "soon"), ("x-retry-after", "3")])),
            Some(Duration::from_secs(3))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn a_wait_longer_than_max_delay_is_not_waited() {
        let policy = RetryPolicy {
            max_delay: Duration::from_secs(10),
            ..RetryPolicy::default()
        };
        assert_eq!(
            policy.delay_after(1, &headers(&[("retry-after", "10")])),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            policy.delay_after(1, &headers(&[("retry-after", "11")])),
            None
        );
        let backoff = policy
            .delay_after(1, &HeaderMap::new())
            .expect("the backoff");
        assert!(backoff <= policy.base_delay);
    }
}
