//! The per-token rate limit (decisions D22 and D33): a sliding window of one minute.
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
use crate::storage::is_postgres;

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
mod refusal_tests;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod tests;
