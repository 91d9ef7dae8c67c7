//! The per-token rate limit (decisions D22): a sliding window of one minute,
//! kept in memory as a tower layer around the generated router. Each instance
//! counts its own requests; behind a load balancer of N instances, set the
//! limit to the platform's limit divided by N.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use logistics_server_stubs::ApiError;
use tower::{Layer, Service};

use crate::domain::tenancy::presented_token;

/// The window the limit counts requests in.
const WINDOW: Duration = Duration::from_secs(60);

/// The shared state of the limit: per token, the times of its requests in
/// the last window. Tokens are kept as keyed hashes, never in the clear.
#[derive(Clone)]
pub struct RateLimit {
    per_minute: usize,
    hasher: RandomState,
    windows: Arc<Mutex<HashMap<u64, VecDeque<Instant>>>>,
}

/// The decision on one request.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed; this many calls are left in the window.
    Allowed {
        /// Requests left.
        remaining: usize,
    },
    /// Refused; retry after this many seconds.
    Refused {
        /// Seconds until a request would be allowed.
        retry_after: u64,
    },
}

impl RateLimit {
    /// A limit of `per_minute` requests per token.
    pub fn new(per_minute: u32) -> Self {
        RateLimit {
            per_minute: per_minute as usize,
            hasher: RandomState::new(),
            windows: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Counts a request of `token` at `now`.
    pub fn check(&self, token: &str, now: Instant) -> Verdict {
        let key = self.hasher.hash_one(token);
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if windows.len() > 10_000 {
            // Forget tokens that have been quiet for a whole window.
            windows.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|t| now.duration_since(*t) < WINDOW)
            });
        }
        let times = windows.entry(key).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= WINDOW)
        {
            times.pop_front();
        }
        if times.len() >= self.per_minute {
            let oldest = *times.front().expect("a full window is not empty");
            let wait = WINDOW.saturating_sub(now.duration_since(oldest));
            return Verdict::Refused {
                retry_after: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            };
        }
        times.push_back(now);
        Verdict::Allowed {
            remaining: self.per_minute - times.len(),
        }
    }

    /// How many requests a token may make per minute.
    pub fn per_minute(&self) -> usize {
        self.per_minute
    }
}

/// The tower layer that applies a [`RateLimit`].
#[derive(Clone)]
pub struct RateLimitLayer {
    limit: RateLimit,
}

impl RateLimitLayer {
    /// A layer that applies `limit`.
    pub fn new(limit: RateLimit) -> Self {
        RateLimitLayer { limit }
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimited<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RateLimited {
            inner,
            limit: self.limit.clone(),
        }
    }
}

/// A service behind a rate limit.
#[derive(Clone)]
pub struct RateLimited<S> {
    inner: S,
    limit: RateLimit,
}

impl<S> Service<Request<Body>> for RateLimited<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = futures_util::future::BoxFuture<'static, Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        // Counted by the token presented, not by the header's spelling: `Bearer X`,
        // `bearer  X` and a bare `X` share one window. Requests without a usable
        // credential are not counted: they are refused anyway.
        let verdict = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(presented_token)
            .map(|token| self.limit.check(token, Instant::now()));
        match verdict {
            Some(Verdict::Refused { retry_after }) => {
                let response = too_many_requests(&request, retry_after, self.limit.per_minute());
                Box::pin(async move { Ok(response) })
            }
            Some(Verdict::Allowed { remaining }) => {
                let future = self.inner.call(request);
                Box::pin(async move {
                    let mut response = future.await?;
                    response
                        .headers_mut()
                        .insert("x-remaining-calls", HeaderValue::from(remaining));
                    Ok(response)
                })
            }
            None => Box::pin(self.inner.call(request)),
        }
    }
}

fn too_many_requests(
    request: &Request<Body>,
    retry_after: u64,
    per_minute: usize,
) -> Response<Body> {
    let request_id = crate::server::request_id_of(request);
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "TooManyRequests",
        format!("Rate limit of {per_minute} requests per minute reached; retry in {retry_after} seconds."),
    )
    .with_header(http::header::RETRY_AFTER, HeaderValue::from(retry_after))
    .with_header(HeaderName::from_static("x-retry-after"), HeaderValue::from(retry_after))
    .with_header(HeaderName::from_static("x-remaining-calls"), HeaderValue::from(0))
    .render(&request_id, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_spelling_of_a_token_shares_one_window() {
        let inner = tower::service_fn(|_request: Request<Body>| async {
            Ok::<_, std::convert::Infallible>(Response::new(Body::empty()))
        });
        let mut service = RateLimitLayer::new(RateLimit::new(3)).layer(inner);
        let mut statuses = Vec::new();
        for header in [
            "Bearer lfs_stg_abc",
            "bearer  lfs_stg_abc",
            "lfs_stg_abc",
            "BEARER lfs_stg_abc ",
        ] {
            let request = Request::builder()
                .header(http::header::AUTHORIZATION, header)
                .body(Body::empty())
                .unwrap();
            statuses.push(service.call(request).await.unwrap().status());
        }
        assert_eq!(
            statuses,
            [
                StatusCode::OK,
                StatusCode::OK,
                StatusCode::OK,
                StatusCode::TOO_MANY_REQUESTS
            ]
        );
    }

    #[test]
    fn the_window_slides() {
        let limit = RateLimit::new(3);
        let start = Instant::now();
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        assert_eq!(limit.check("a", at(0)), Verdict::Allowed { remaining: 2 });
        assert_eq!(limit.check("a", at(10)), Verdict::Allowed { remaining: 1 });
        assert_eq!(limit.check("a", at(20)), Verdict::Allowed { remaining: 0 });
        assert_eq!(
            limit.check("a", at(30)),
            Verdict::Refused { retry_after: 30 }
        );
        assert_eq!(
            limit.check("b", at(30)),
            Verdict::Allowed { remaining: 2 },
            "tokens are counted apart"
        );
        // The first request leaves the window at 60 s.
        assert_eq!(limit.check("a", at(60)), Verdict::Allowed { remaining: 0 });
        assert_eq!(
            limit.check("a", at(61)),
            Verdict::Refused { retry_after: 9 }
        );
    }
}
