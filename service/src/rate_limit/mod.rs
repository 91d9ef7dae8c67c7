//! The per-token rate limit (decision D22): a sliding window of one minute.
//!
//! Only tokens that authenticate are counted: the check runs inside the
//! authentication of a request (see [`admit`]), after the token was found and
//! its secret matched, and is keyed by the token's public key id. A request
//! with a garbage token costs no window and is answered 401, however many
//! are sent.
//!
//! Where the windows are kept is the [`StoreChoice`]: in the instance's
//! memory, in the PostgreSQL database (shared by every instance on it), or
//! in Redis (shared by every instance using it). When a shared store does
//! not answer within its deadline, the request is decided by the instance's
//! own in-memory window, a warning is logged (at most every ten seconds) and
//! `lfs_rate_limit_store_errors_total` counts it: an outage of the store
//! neither stops the API nor lifts the limit (see docs/decisions.md).
//!
//! [`RateLimitLayer`] puts the limit in reach of the authentication (a
//! task-local slot for the request) and writes `x-remaining-calls` on the
//! answer; the refusal itself is an [`ApiError`] the router renders.

pub mod database;
pub mod memory;
pub mod redis;

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use logistics_server_stubs::ApiError;
use tower::{Layer, Service};

use self::database::DatabaseStore;
use self::memory::MemoryStore;
use self::redis::RedisStore;

/// The window the limit counts requests in.
pub const WINDOW: Duration = Duration::from_secs(60);

/// How long a shared store has to answer before the instance's own window
/// decides.
pub const STORE_DEADLINE: Duration = Duration::from_millis(500);

/// The decision on one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed; this many calls are left in the window.
    Allowed {
        /// Requests left.
        remaining: u64,
    },
    /// Refused; retry after this many seconds.
    Refused {
        /// Seconds until a request would be allowed.
        retry_after: u64,
    },
}

/// A shared store that did not answer.
#[derive(Debug)]
pub struct StoreError(pub String);

/// Where the windows are kept (`--rate-limit-store`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// In each instance's memory.
    Memory,
    /// In the service's PostgreSQL database.
    Database,
    /// In a Redis server, `redis://HOST:PORT[/DB]`.
    Redis(String),
}

impl StoreChoice {
    /// The default for a database: shared on PostgreSQL, in memory on SQLite.
    pub fn default_for(database: &str) -> StoreChoice {
        if is_postgres(database) {
            StoreChoice::Database
        } else {
            StoreChoice::Memory
        }
    }

    /// Its name, for logs and metrics (a Redis URL without its password).
    pub fn name(&self) -> &'static str {
        match self {
            StoreChoice::Memory => "memory",
            StoreChoice::Database => "database",
            StoreChoice::Redis(_) => "redis",
        }
    }
}

impl FromStr for StoreChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "memory" => Ok(StoreChoice::Memory),
            "database" => Ok(StoreChoice::Database),
            url if url.starts_with("redis://") => Ok(StoreChoice::Redis(url.to_owned())),
            other => Err(format!(
                "`{other}` is not a rate-limit store: use memory, database or redis://HOST:PORT"
            )),
        }
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Milliseconds to wait, as the whole seconds of `Retry-After` (at least 1).
fn whole_seconds(milliseconds: i64) -> u64 {
    (milliseconds.max(1) as u64).div_ceil(1000)
}

/// The rate limit of an instance: the limit, and its store.
#[derive(Clone)]
pub struct RateLimit {
    inner: Arc<Inner>,
}

struct Inner {
    per_minute: u32,
    prefix: String,
    store: Backend,
    /// The windows when the store is memory, and when a shared store fails.
    local: MemoryStore,
    warned: Mutex<Option<Instant>>,
}

enum Backend {
    Memory,
    Database(DatabaseStore),
    Redis(Box<RedisStore>),
}

impl RateLimit {
    /// A limit of `per_minute` requests per token, kept in memory.
    pub fn new(per_minute: u32) -> Self {
        Self::build(per_minute, String::new(), Backend::Memory)
    }

    /// A limit of `per_minute` requests per token kept in `store`; `database`
    /// is the service's database URL (for [`StoreChoice::Database`]) and
    /// every key starts with `prefix`.
    pub fn with_store(
        per_minute: u32,
        store: &StoreChoice,
        database: &str,
        prefix: String,
    ) -> Result<Self, String> {
        let backend = match store {
            StoreChoice::Memory => Backend::Memory,
            StoreChoice::Database if is_postgres(database) => {
                Backend::Database(DatabaseStore::new(database, STORE_DEADLINE)?)
            }
            StoreChoice::Database => {
                return Err(
                    "--rate-limit-store database needs a PostgreSQL database; on SQLite use memory or redis://"
                        .to_owned(),
                );
            }
            StoreChoice::Redis(url) => Backend::Redis(Box::new(
                RedisStore::new(url, STORE_DEADLINE)
                    .map_err(|e| format!("--rate-limit-store {}: {e}", store.name()))?,
            )),
        };
        Ok(Self::build(per_minute, prefix, backend))
    }

    fn build(per_minute: u32, prefix: String, store: Backend) -> Self {
        RateLimit {
            inner: Arc::new(Inner {
                per_minute,
                prefix,
                store,
                local: MemoryStore::new(),
                warned: Mutex::new(None),
            }),
        }
    }

    /// How many requests a token may make per minute.
    pub fn per_minute(&self) -> u32 {
        self.inner.per_minute
    }

    /// Counts a request of the token whose key id is `key`.
    pub async fn check(&self, key: &str) -> Verdict {
        let inner = &*self.inner;
        let key = format!("{}{key}", inner.prefix);
        let shared = match &inner.store {
            Backend::Memory => return inner.local.hit(&key, inner.per_minute, Instant::now()),
            Backend::Database(store) => {
                tokio::time::timeout(STORE_DEADLINE, store.hit(&key, inner.per_minute)).await
            }
            Backend::Redis(store) => {
                tokio::time::timeout(STORE_DEADLINE, store.hit(&key, inner.per_minute)).await
            }
        };
        let error = match shared {
            Ok(Ok(verdict)) => return verdict,
            Ok(Err(StoreError(error))) => error,
            Err(_) => format!("no answer within {} ms", STORE_DEADLINE.as_millis()),
        };
        self.store_failed(&error);
        inner.local.hit(&key, inner.per_minute, Instant::now())
    }

    fn store_failed(&self, error: &str) {
        let store = match self.inner.store {
            Backend::Memory => "memory",
            Backend::Database(_) => "database",
            Backend::Redis(_) => "redis",
        };
        ::metrics::counter!("lfs_rate_limit_store_errors_total", "store" => store).increment(1);
        let mut warned = self
            .inner
            .warned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if warned.is_none_or(|at| at.elapsed() >= Duration::from_secs(10)) {
            *warned = Some(Instant::now());
            tracing::warn!(
                store,
                error,
                "the rate-limit store did not answer: this instance's own window decides until it does"
            );
        }
    }

    /// Closes the store's connections.
    pub async fn close(&self) {
        if let Backend::Database(store) = &self.inner.store {
            store.close().await;
        }
    }
}

/// A refusal by the rate limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyRequests {
    /// Seconds until a request would be allowed.
    pub retry_after: u64,
    /// The limit.
    pub per_minute: u32,
}

impl TooManyRequests {
    /// The refusal as the interface answers it: 429 `TooManyRequests` with
    /// `Retry-After`, `x-retry-after` and `x-remaining-calls: 0`.
    pub fn into_api_error(self) -> ApiError {
        let TooManyRequests {
            retry_after,
            per_minute,
        } = self;
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "TooManyRequests",
            format!(
                "Rate limit of {per_minute} requests per minute reached; retry in {retry_after} seconds."
            ),
        )
        .with_header(http::header::RETRY_AFTER, HeaderValue::from(retry_after))
        .with_header(
            HeaderName::from_static("x-retry-after"),
            HeaderValue::from(retry_after),
        )
        .with_header(
            HeaderName::from_static("x-remaining-calls"),
            HeaderValue::from(0),
        )
    }
}

/// What the layer shares with the authentication of one request.
struct Slot {
    limit: RateLimit,
    /// The calls left after this request, once it was allowed; `NONE` before.
    remaining: Arc<AtomicU64>,
}

const NONE: u64 = u64::MAX;

tokio::task_local! {
    static CURRENT: Slot;
}

/// Counts a request of the token whose key id is `key`, which has just
/// authenticated, against the limit of the [`RateLimitLayer`] the request
/// passes through (none outside one: allowed).
pub async fn admit(key: &str) -> Result<(), TooManyRequests> {
    let Ok((limit, remaining)) =
        CURRENT.try_with(|slot| (slot.limit.clone(), slot.remaining.clone()))
    else {
        return Ok(());
    };
    match limit.check(key).await {
        Verdict::Allowed { remaining: left } => {
            remaining.store(left, Ordering::Relaxed);
            Ok(())
        }
        Verdict::Refused { retry_after } => {
            ::metrics::counter!("lfs_rate_limit_refusals_total").increment(1);
            Err(TooManyRequests {
                retry_after,
                per_minute: limit.per_minute(),
            })
        }
    }
}

/// The tower layer that applies a [`RateLimit`] to the requests that
/// authenticate behind it.
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
        let remaining = Arc::new(AtomicU64::new(NONE));
        let slot = Slot {
            limit: self.limit.clone(),
            remaining: remaining.clone(),
        };
        let future = CURRENT.scope(slot, self.inner.call(request));
        Box::pin(async move {
            let mut response = future.await?;
            let left = remaining.load(Ordering::Relaxed);
            if left != NONE {
                response
                    .headers_mut()
                    .insert("x-remaining-calls", HeaderValue::from(left));
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A service that admits the key of its `Authorization` header when the
    /// header says it authenticated, as the authentication does.
    fn authenticating() -> impl Service<
        Request<Body>,
        Response = Response<Body>,
        Error = std::convert::Infallible,
        Future = impl Send,
    > + Clone
    + Send
    + 'static {
        tower::service_fn(|request: Request<Body>| async move {
            let header = request.headers()["authorization"]
                .to_str()
                .unwrap()
                .to_owned();
            let response = match header.strip_prefix("good ") {
                Some(key) => match admit(key).await {
                    Ok(()) => Response::new(Body::empty()),
                    Err(refused) => {
                        let mut response = Response::new(Body::empty());
                        *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
                        response
                            .headers_mut()
                            .insert("retry-after", HeaderValue::from(refused.retry_after));
                        response
                    }
                },
                None => {
                    let mut response = Response::new(Body::empty());
                    *response.status_mut() = StatusCode::UNAUTHORIZED;
                    response
                }
            };
            Ok(response)
        })
    }

    async fn send(
        service: &mut impl Service<
            Request<Body>,
            Response = Response<Body>,
            Error = std::convert::Infallible,
        >,
        authorization: &str,
    ) -> Response<Body> {
        let request = Request::builder()
            .header("authorization", authorization)
            .body(Body::empty())
            .unwrap();
        service.call(request).await.unwrap()
    }

    #[tokio::test]
    async fn only_tokens_that_authenticate_are_counted() {
        let limit = RateLimit::new(2);
        let mut service = RateLimitLayer::new(limit.clone()).layer(authenticating());
        for n in 0..100 {
            let response = send(&mut service, &format!("garbage {n}")).await;
            assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
            assert!(!response.headers().contains_key("x-remaining-calls"));
        }
        assert_eq!(limit.inner.local.keys(), 0, "no window for garbage");
        let first = send(&mut service, "good k").await;
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(first.headers()["x-remaining-calls"], "1");
        assert_eq!(
            send(&mut service, "good k").await.headers()["x-remaining-calls"],
            "0"
        );
        let refused = send(&mut service, "good k").await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(limit.inner.local.keys(), 1);
    }

    #[tokio::test]
    async fn an_unreachable_store_leaves_the_instance_its_own_window() {
        // Nothing listens on port 1.
        let store = StoreChoice::Redis("redis://127.0.0.1:1".to_owned());
        let limit = RateLimit::with_store(2, &store, "unused.db", "t:".to_owned()).unwrap();
        let started = Instant::now();
        assert_eq!(limit.check("k").await, Verdict::Allowed { remaining: 1 });
        assert_eq!(limit.check("k").await, Verdict::Allowed { remaining: 0 });
        assert!(matches!(limit.check("k").await, Verdict::Refused { .. }));
        assert!(
            started.elapsed() < STORE_DEADLINE * 3,
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn stores_are_chosen_by_name_or_url() {
        assert_eq!("memory".parse(), Ok(StoreChoice::Memory));
        assert_eq!("database".parse(), Ok(StoreChoice::Database));
        assert_eq!(
            "redis://127.0.0.1:6379".parse(),
            Ok(StoreChoice::Redis("redis://127.0.0.1:6379".to_owned()))
        );
        assert!("mysql://x".parse::<StoreChoice>().is_err());
        assert_eq!(
            StoreChoice::default_for("postgres://h/db"),
            StoreChoice::Database
        );
        assert_eq!(
            StoreChoice::default_for("./data/staging.db"),
            StoreChoice::Memory
        );
        assert_eq!(whole_seconds(1), 1);
        assert_eq!(whole_seconds(1000), 1);
        assert_eq!(whole_seconds(1001), 2);
    }
}

/// What a refused client is told: the interface's 429, which names the limit
/// and says when to retry, in the body and in the headers a client reads.
#[cfg(test)]
mod refusal_tests {
    use logistics_server_stubs::RequestId;

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
        let response = error.render(&RequestId::generate(), None);
        let headers = response.headers();
        assert_eq!(headers["retry-after"], retry_after.as_str());
        assert_eq!(headers["x-retry-after"], retry_after.as_str());
        assert_eq!(headers["x-remaining-calls"], "0");
    }
}

/// A store that cannot work is refused when the service starts, naming the
/// option; one that stops answering is logged, but not on every request.
#[cfg(test)]
mod store_tests {
    use std::io::Write;

    use super::*;

    // A Tokio test: the database store's pool starts a task of its own.
    #[tokio::test]
    async fn a_store_that_cannot_work_is_refused_naming_the_option() {
        let on_sqlite =
            RateLimit::with_store(2, &StoreChoice::Database, "./data/x.db", String::new());
        let Err(error) = on_sqlite else {
            panic!("the database store was accepted on SQLite");
        };
        assert!(
            error.starts_with("--rate-limit-store database needs a PostgreSQL database"),
            "{error}"
        );
        // The database store connects when first used: a PostgreSQL URL is enough.
        for url in ["postgres://127.0.0.1:1/db", "postgresql://127.0.0.1:1/db"] {
            assert!(
                RateLimit::with_store(2, &StoreChoice::Database, url, String::new()).is_ok(),
                "{url}"
            );
        }
        let bad_redis = StoreChoice::Redis("redis://127.0.0.1:port".to_owned());
        let Err(error) = RateLimit::with_store(2, &bad_redis, "./data/x.db", String::new()) else {
            panic!("a Redis URL without a port number was accepted");
        };
        assert!(error.starts_with("--rate-limit-store redis: "), "{error}");
    }

    /// The lines logged by a subscriber while `f` runs.
    fn logged(f: impl FnOnce()) -> String {
        #[derive(Clone, Default)]
        struct Capture(Arc<Mutex<Vec<u8>>>);
        impl Write for Capture {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let capture = Capture::default();
        let writer = capture.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        let bytes = capture.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_failing_store_is_logged_at_most_every_ten_seconds() {
        let limit = RateLimit::new(2);
        let warnings = |log: &str| log.matches("rate-limit store did not answer").count();
        let log = logged(|| {
            for _ in 0..5 {
                limit.store_failed("connection refused");
            }
        });
        assert_eq!(warnings(&log), 1, "{log}");
        // Ten seconds after the last warning, the next failure warns again.
        *limit.inner.warned.lock().unwrap() = Instant::now().checked_sub(Duration::from_secs(10));
        let log = logged(|| {
            for _ in 0..5 {
                limit.store_failed("connection refused");
            }
        });
        assert_eq!(warnings(&log), 1, "{log}");
    }
}
