//! The rate limit's cost per request (`--only rate-limit`): the in-memory
//! store with 1 to 100,000 keys (the per-request cost must not grow with
//! them), and one check against the shared stores, PostgreSQL and Redis,
//! beside a bare round trip to the same server. Each is a bounded loop on
//! loopback; nothing is asserted.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use logistics_service::rate_limit::WINDOW;
use logistics_service::rate_limit::database::DatabaseStore;
use logistics_service::rate_limit::memory::MemoryStore;
use logistics_service::rate_limit::redis::RedisStore;
use logistics_service::storage::Store;

/// The figures of one run.
pub struct Results {
    /// (keys, ns per check in each round) for the in-memory store.
    memory: Vec<(usize, Vec<f64>)>,
    /// (store, p50 µs, p99 µs, bare round trip p50 µs, checks/s with 8 tasks).
    shared: Vec<(String, f64, f64, f64, f64)>,
    skipped: Vec<String>,
}

/// Runs the rate-limit benchmarks; `postgres` is the admin URL. Without
/// `shared`, only the in-memory store (`--only rate-limit-memory`, for
/// `valgrind`).
pub fn run(postgres: &str, redis: &str, quick: bool, shared: bool) -> Result<Results, String> {
    let mut results = Results {
        memory: memory(quick),
        shared: Vec::new(),
        skipped: Vec::new(),
    };
    if !shared {
        return Ok(results);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        match database(postgres, quick).await {
            Ok(row) => results.shared.push(row),
            Err(error) => results.skipped.push(format!("PostgreSQL: {error}")),
        }
        match redis_store(redis, quick).await {
            Ok(row) => results.shared.push(row),
            Err(error) => results.skipped.push(format!("Redis: {error}")),
        }
    });
    Ok(results)
}

/// The numbers of windows the in-memory store is measured with.
const KEY_COUNTS: [usize; 4] = [1, 1_000, 10_000, 100_000];

/// Requests each window holds in the steady state: every check drops the
/// oldest request of its key and adds one, as a token calling at a steady
/// rate does.
const DEPTH: u64 = 8;

/// The keys are visited in a scattered order (so that caches do not
/// flatter the large stores) that reaches every key once in `keys` checks:
/// a prime that divides no key count.
const STRIDE: u64 = 2_654_435_761;

/// One in-memory store holding `keys` windows in the steady state, with a
/// clock of its own: each check is `WINDOW / (keys × DEPTH)` after the one
/// before, so every key is checked `DEPTH` times a window whatever the count,
/// and every check does the same work (one window found, one request
/// dropped, one added, a sweep of the shard once a window).
struct SteadyStore {
    keys: u64,
    store: MemoryStore,
    start: Instant,
    step_nanos: u64,
    done: u64,
    /// The key of the current check, formatted in place as the service
    /// formats its own (a string per check, no table of names to miss in).
    key: String,
}

impl SteadyStore {
    fn new(keys: usize) -> SteadyStore {
        let keys = keys as u64;
        let mut steady = SteadyStore {
            keys,
            store: MemoryStore::new(),
            start: Instant::now(),
            step_nanos: WINDOW.as_nanos() as u64 / (keys * DEPTH),
            done: 0,
            key: String::with_capacity(64),
        };
        for _ in 0..keys * (DEPTH + 1) {
            steady.check();
        }
        steady
    }

    #[inline(always)]
    fn check(&mut self) {
        let n = self.done;
        self.done += 1;
        self.key.clear();
        let _ = write!(
            self.key,
            "lfs:rate:staging:key{:08}",
            n.wrapping_mul(STRIDE) % self.keys
        );
        let now = self.start + Duration::from_nanos(n * self.step_nanos);
        std::hint::black_box(self.store.hit(&self.key, 250, now));
    }

    /// `count` checks, timed.
    #[inline(always)]
    fn timed_checks(&mut self, count: u64) -> Duration {
        let started = Instant::now();
        for _ in 0..count {
            self.check();
        }
        started.elapsed()
    }
}

/// The timed checks of each of [`KEY_COUNTS`], a function of its own each
/// (never inlined), so that `valgrind --tool=callgrind
/// --toggle-collect='*timed_checks*'` counts exactly the timed checks, and
/// `callgrind_annotate --inclusive=yes` splits them by the number of windows
/// held (docs/performance.md has the recipe).
const TIMED_CHECKS: [fn(&mut SteadyStore, u64) -> Duration; 4] = [
    timed_checks_with_1_window,
    timed_checks_with_1000_windows,
    timed_checks_with_10000_windows,
    timed_checks_with_100000_windows,
];

macro_rules! timed_checks {
    ($($name:ident: $keys:expr),*) => {$(
        #[inline(never)]
        fn $name(store: &mut SteadyStore, count: u64) -> Duration {
            // The count makes each body differ, so that the compiler does not
            // merge the four into one symbol.
            assert_eq!(store.keys, $keys);
            store.timed_checks(count)
        }
    )*};
}

timed_checks!(
    timed_checks_with_1_window: 1,
    timed_checks_with_1000_windows: 1_000,
    timed_checks_with_10000_windows: 10_000,
    timed_checks_with_100000_windows: 100_000
);

/// ns per check of the in-memory store at each of [`KEY_COUNTS`]: rounds in
/// which every store is measured once, in a rotating order; every round's
/// figure is kept.
pub fn memory(quick: bool) -> Vec<(usize, Vec<f64>)> {
    let (checks, rounds) = if quick { (200_000, 3) } else { (1_000_000, 7) };
    let mut stores: Vec<SteadyStore> = KEY_COUNTS.iter().map(|&k| SteadyStore::new(k)).collect();
    let mut rows: Vec<(usize, Vec<f64>)> = KEY_COUNTS.iter().map(|&k| (k, Vec::new())).collect();
    for round in 0..rounds {
        for turn in 0..stores.len() {
            let index = (round + turn) % stores.len();
            let elapsed = TIMED_CHECKS[index](&mut stores[index], checks);
            let ns = elapsed.as_nanos() as f64 / checks as f64;
            eprintln!(
                "  rate limit, memory, round {}: {} keys: {ns:.0} ns per check",
                round + 1,
                KEY_COUNTS[index]
            );
            rows[index].1.push(ns);
        }
    }
    rows
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p / 100.0).round() as usize;
    sorted[index].as_secs_f64() * 1e6
}

/// Sequential latency of `check` (p50, p99, in µs) and of `bare`, then the
/// checks per second of 8 concurrent tasks.
async fn measure<C, B, CF, BF>(
    name: &str,
    quick: bool,
    check: C,
    bare: B,
) -> Result<(String, f64, f64, f64, f64), String>
where
    C: Fn(usize) -> CF + Clone + Send + Sync + 'static,
    CF: std::future::Future<Output = Result<(), String>> + Send,
    B: Fn() -> BF,
    BF: std::future::Future<Output = Result<(), String>>,
{
    let runs = if quick { 1_000 } else { 4_000 };
    for n in 0..100 {
        check(n).await?;
    }
    let mut times = Vec::with_capacity(runs);
    for n in 0..runs {
        let started = Instant::now();
        check(n).await?;
        times.push(started.elapsed());
    }
    times.sort();
    let mut bare_times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        bare().await?;
        bare_times.push(started.elapsed());
    }
    bare_times.sort();
    let window = if quick {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(3)
    };
    let started = Instant::now();
    let mut tasks = Vec::new();
    for task in 0..8usize {
        let check = check.clone();
        tasks.push(tokio::spawn(async move {
            let mut done = 0usize;
            while started.elapsed() < window && done < 200_000 {
                check(task * 1_000_000 + done).await?;
                done += 1;
            }
            Ok::<_, String>(done)
        }));
    }
    let mut total = 0;
    for task in tasks {
        total += task.await.map_err(|e| e.to_string())??;
    }
    let rate = total as f64 / started.elapsed().as_secs_f64();
    let row = (
        name.to_owned(),
        percentile(&times, 50.0),
        percentile(&times, 99.0),
        percentile(&bare_times, 50.0),
        rate,
    );
    eprintln!(
        "  rate limit, {name}: p50 {:.0} µs, p99 {:.0} µs (bare round trip p50 {:.0} µs), {:.0} checks/s with 8 tasks",
        row.1, row.2, row.3, row.4
    );
    Ok(row)
}

/// Keys the shared stores are asked about: 1,000 tokens in turn, each well
/// under its limit of 250 (the common case: the request is allowed).
fn key(n: usize) -> String {
    format!("bench:{}", n % 1_000)
}

async fn database(admin: &str, quick: bool) -> Result<(String, f64, f64, f64, f64), String> {
    let name = format!("lfs_bench_rl_{}", uuid::Uuid::new_v4().simple());
    let (base, _) = admin.rsplit_once('/').ok_or("a URL with a database")?;
    let url = format!("{base}/{name}");
    let mut admin_connection = <sqlx::PgConnection as sqlx::Connection>::connect(admin)
        .await
        .map_err(|e| e.to_string())?;
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut admin_connection)
        .await
        .map_err(|e| e.to_string())?;
    let outcome = async {
        let store = Store::open(&url, 2).await.map_err(|e| e.to_string())?;
        store.close().await;
        let limiter = std::sync::Arc::new(DatabaseStore::new(&url, Duration::from_secs(5))?);
        let bare = sqlx::PgPool::connect(&url)
            .await
            .map_err(|e| e.to_string())?;
        let row = measure(
            "PostgreSQL (database)",
            quick,
            {
                let limiter = limiter.clone();
                move |n| {
                    let limiter = limiter.clone();
                    async move { limiter.hit(&key(n), 250).await.map(drop).map_err(|e| e.0) }
                }
            },
            || {
                let bare = bare.clone();
                async move {
                    sqlx::query("SELECT 1")
                        .execute(&bare)
                        .await
                        .map(drop)
                        .map_err(|e| e.to_string())
                }
            },
        )
        .await;
        bare.close().await;
        limiter.close().await;
        row
    }
    .await;
    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut admin_connection)
        .await;
    outcome
}

async fn redis_store(url: &str, quick: bool) -> Result<(String, f64, f64, f64, f64), String> {
    let prefix = format!("lfs-bench:{}:", uuid::Uuid::new_v4().simple());
    let limiter = std::sync::Arc::new(RedisStore::new(url, Duration::from_secs(5))?);
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    let bare = client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| e.to_string())?;
    measure(
        "Redis",
        quick,
        move |n| {
            let limiter = limiter.clone();
            let key = format!("{prefix}{}", key(n));
            async move { limiter.hit(&key, 250).await.map(drop).map_err(|e| e.0) }
        },
        || {
            let mut bare = bare.clone();
            async move {
                redis::cmd("PING")
                    .query_async::<String>(&mut bare)
                    .await
                    .map(drop)
                    .map_err(|e| e.to_string())
            }
        },
    )
    .await
}

impl Results {
    /// The report's section.
    pub fn render(&self) -> String {
        let mut text = String::from("\n## Rate limit: cost per request\n\n");
        text.push_str(
            "The in-memory store, one check with this many windows held (one thread; each window \
             in the steady state of 8 requests, one dropped and one added a check; rotating \
             rounds):\n\n",
        );
        text.push_str("| windows held | ns per check, median | min | max | rounds |\n|---:|---:|---:|---:|---:|\n");
        for (keys, rounds) in &self.memory {
            let mut sorted = rounds.clone();
            sorted.sort_by(f64::total_cmp);
            let _ = writeln!(
                text,
                "| {keys} | {:.0} | {:.0} | {:.0} | {} |",
                sorted.get(sorted.len() / 2).copied().unwrap_or_default(),
                sorted.first().copied().unwrap_or_default(),
                sorted.last().copied().unwrap_or_default(),
                sorted.len()
            );
        }
        text.push_str(
            "\nA shared store, one check (1,000 tokens in turn, each under its limit of 250), \
             beside a bare round trip to the same server:\n\n",
        );
        text.push_str("| store | p50 µs | p99 µs | bare round trip p50 µs | checks/s, 8 tasks |\n|---|---:|---:|---:|---:|\n");
        for (name, p50, p99, bare, rate) in &self.shared {
            let _ = writeln!(
                text,
                "| {name} | {p50:.0} | {p99:.0} | {bare:.0} | {rate:.0} |"
            );
        }
        for skipped in &self.skipped {
            let _ = writeln!(text, "\nSkipped: {skipped}");
        }
        text
    }
}
