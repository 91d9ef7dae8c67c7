//! `/metrics`: the service's metrics in the Prometheus text format, kept by
//! the `metrics` facade and rendered by `metrics-exporter-prometheus`.
//!
//! | metric | kind | labels |
//! | --- | --- | --- |
//! | `lfs_http_requests_total` | counter | `operation` (the operationId, or `none`), `status` |
//! | `lfs_http_request_duration_seconds` | histogram | `operation` |
//! | `lfs_http_requests_in_flight` | gauge | |
//! | `lfs_rate_limit_refusals_total` | counter | |
//! | `lfs_rate_limit_store_errors_total` | counter | `store` |
//! | `lfs_db_pool_connections` | gauge | `state` (`idle`, `in_use`) |
//! | `lfs_db_pool_max_connections` | gauge | |
//! | `lfs_db_pool_exhausted_total` | counter: requests that found every connection of the pool in use, and so may wait for one | |
//! | `lfs_build_info` | gauge, always 1 | `version`, `database`, `rate_limit_store` |

use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use ::metrics::{Counter, Gauge, Histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::OPERATIONS;

/// The pool's state: connections open, idle among them, and the most allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// Connections open.
    pub size: u32,
    /// Open connections not in use.
    pub idle: u32,
    /// The most connections the pool opens.
    pub max: u32,
}

type PoolProbe = Arc<dyn Fn() -> PoolStatus + Send + Sync>;

/// The metrics of this process, and how to render them.
#[derive(Clone)]
pub struct Metrics {
    handle: PrometheusHandle,
    pool: PoolProbe,
}

/// Latency buckets, in seconds: 0.5 ms to 10 s.
const LATENCY_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The process-wide recorder: the `metrics` macros record into one global
/// recorder, installed once (instances started in one process, as the tests
/// do, share it).
#[allow(
    clippy::expect_used,
    reason = "the builder refuses only an empty list of buckets, and LATENCY_BUCKETS is a constant"
)]
fn handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("lfs_http_request_duration_seconds".to_owned()),
                    &LATENCY_BUCKETS,
                )
                .expect("the buckets are not empty")
                .build_recorder();
            let handle = recorder.handle();
            if ::metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("another metrics recorder is installed: /metrics stays empty");
            }
            handle
        })
        .clone()
}

impl Metrics {
    /// The metrics of an instance whose database pool `pool` describes;
    /// records its build information. Call within a Tokio runtime: it starts
    /// the recorder's upkeep.
    pub fn new(
        pool: impl Fn() -> PoolStatus + Send + Sync + 'static,
        database: &'static str,
        rate_limit_store: &str,
    ) -> Metrics {
        let handle = handle();
        static UPKEEP: OnceLock<()> = OnceLock::new();
        UPKEEP.get_or_init(|| {
            // Histogram samples are buffered until upkeep folds them in: do
            // it every few seconds even when nobody scrapes.
            let handle = handle.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(5));
                loop {
                    tick.tick().await;
                    handle.run_upkeep();
                }
            });
        });
        ::metrics::gauge!(
            "lfs_build_info",
            "version" => env!("CARGO_PKG_VERSION"),
            "database" => database,
            "rate_limit_store" => rate_limit_store.to_owned(),
        )
        .set(1.0);
        ::metrics::describe_counter!(
            "lfs_http_requests_total",
            "Requests answered, by operationId and status."
        );
        ::metrics::describe_histogram!(
            "lfs_http_request_duration_seconds",
            ::metrics::Unit::Seconds,
            "Time to answer a request, by operationId."
        );
        ::metrics::describe_gauge!("lfs_http_requests_in_flight", "Requests being answered.");
        ::metrics::describe_counter!(
            "lfs_rate_limit_refusals_total",
            "Requests refused with 429 by the rate limit."
        );
        ::metrics::describe_counter!(
            "lfs_rate_limit_store_errors_total",
            "Rate-limit checks the shared store did not answer (the instance's own window decided)."
        );
        ::metrics::describe_counter!(
            "lfs_db_pool_exhausted_total",
            "Requests that started while every database connection was in use."
        );
        ::metrics::counter!("lfs_rate_limit_refusals_total").absolute(0);
        ::metrics::gauge!("lfs_http_requests_in_flight").increment(0.0);
        ::metrics::counter!("lfs_db_pool_exhausted_total").absolute(0);
        Metrics {
            handle,
            pool: Arc::new(pool),
        }
    }

    /// The metrics in the Prometheus text format, the pool's gauges read now.
    pub fn render(&self) -> String {
        let pool = (self.pool)();
        ::metrics::gauge!("lfs_db_pool_connections", "state" => "idle").set(pool.idle);
        ::metrics::gauge!("lfs_db_pool_connections", "state" => "in_use")
            .set(pool.size.saturating_sub(pool.idle));
        ::metrics::gauge!("lfs_db_pool_max_connections").set(pool.max);
        self.handle.run_upkeep();
        self.handle.render()
    }

    /// What the operations layer counts and times of each API request.
    pub fn requests(&self) -> RequestMetrics {
        RequestMetrics {
            pool: self.pool.clone(),
            handles: Arc::new(RequestHandles::default()),
        }
    }
}

/// Counts and times the requests of the API by their operation (see
/// [`Metrics`]); the operations layer (`super::layer`) calls it.
#[derive(Clone)]
pub struct RequestMetrics {
    pool: PoolProbe,
    handles: Arc<RequestHandles>,
}

impl RequestMetrics {
    /// A request starts: it is in flight until the returned guard is
    /// finished or dropped, and counted if it found the pool exhausted.
    pub fn start(&self) -> InFlight {
        let pool = (self.pool)();
        if pool.size >= pool.max && pool.idle == 0 {
            self.handles
                .exhausted
                .get_or_init(|| ::metrics::counter!("lfs_db_pool_exhausted_total"))
                .increment(1);
        }
        self.handles.in_flight().increment(1.0);
        InFlight(self.handles.clone())
    }
}

/// A request on the in-flight gauge: taken off when its answer is ready
/// ([`InFlight::answered`]) or when it is dropped (a client that went away).
pub struct InFlight(Arc<RequestHandles>);

impl InFlight {
    /// The request of `operation` is answered with `status` after `elapsed`.
    pub fn answered(self, operation: super::Operation, status: u16, elapsed: Duration) {
        let (id, measured) = self.0.operation(operation);
        measured.duration(id).record(elapsed.as_secs_f64());
        measured.answered(id, status).increment(1);
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight().decrement(1.0);
    }
}

/// The request metrics' handles, each looked up in the recorder once.
///
/// The `metrics` macros find their metric by hashing its name and labels at
/// every call, which cost more than the rest of the operations layers
/// together. A handle is made at the first request that needs it, so that
/// `/metrics` lists only what has happened, as before.
struct RequestHandles {
    in_flight: OnceLock<Gauge>,
    exhausted: OnceLock<Counter>,
    /// By the operation's place in [`OPERATIONS`]; the last for no operation.
    operations: Box<[OperationHandles]>,
}

impl Default for RequestHandles {
    fn default() -> Self {
        RequestHandles {
            in_flight: OnceLock::new(),
            exhausted: OnceLock::new(),
            operations: (0..=OPERATIONS.len())
                .map(|_| OperationHandles::default())
                .collect(),
        }
    }
}

/// One operation's duration histogram and its answers by status.
#[derive(Default)]
struct OperationHandles {
    duration: OnceLock<Histogram>,
    answered: RwLock<Vec<(u16, Counter)>>,
}

impl RequestHandles {
    fn in_flight(&self) -> &Gauge {
        self.in_flight
            .get_or_init(|| ::metrics::gauge!("lfs_http_requests_in_flight"))
    }

    fn operation(&self, operation: super::Operation) -> (&'static str, &OperationHandles) {
        match operation.index() {
            Some(index) => (OPERATIONS[index].2, &self.operations[index]),
            None => ("none", &self.operations[OPERATIONS.len()]),
        }
    }
}

impl OperationHandles {
    fn duration(&self, operation: &'static str) -> &Histogram {
        self.duration.get_or_init(
            || ::metrics::histogram!("lfs_http_request_duration_seconds", "operation" => operation),
        )
    }

    fn answered(&self, operation: &'static str, status: u16) -> Counter {
        let known = |answered: &[(u16, Counter)]| {
            answered
                .iter()
                .find(|(s, _)| *s == status)
                .map(|(_, counter)| counter.clone())
        };
        // A poisoned lock only means a panic elsewhere: the list is whole.
        let found = known(&self.answered.read().unwrap_or_else(|e| e.into_inner()));
        found.unwrap_or_else(|| {
            let mut answered = self.answered.write().unwrap_or_else(|e| e.into_inner());
            known(&answered).unwrap_or_else(|| {
                let counter = ::metrics::counter!(
                    "lfs_http_requests_total",
                    "operation" => operation,
                    "status" => status_label(status),
                );
                answered.push((status, counter.clone()));
                counter
            })
        })
    }
}

/// The status as a label, without allocating for the usual ones.
fn status_label(status: u16) -> ::metrics::SharedString {
    match status {
        200 => "200".into(),
        201 => "201".into(),
        204 => "204".into(),
        400 => "400".into(),
        401 => "401".into(),
        403 => "403".into(),
        404 => "404".into(),
        409 => "409".into(),
        429 => "429".into(),
        500 => "500".into(),
        other => other.to_string().into(),
    }
}
