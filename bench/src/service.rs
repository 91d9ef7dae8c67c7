//! The service end to end: the real `logistics-service` binary as a child
//! process on SQLite or PostgreSQL, seeded through its library, driven over
//! loopback; its peak RSS read from `/proc/<pid>/status` (`VmHWM`).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use logistics_service::domain::tenancy::Environment;
use logistics_service::domain::{customers, returns, sales_orders, tenants};
use logistics_service::storage::Store;
use sqlx::Connection;

use crate::data;
use crate::load::{self, Load, Stats};
use crate::operations_layers::{self, LayerRuns};

/// Which database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file in a scratch folder.
    Sqlite,
    /// A database of its own on the PostgreSQL server at `--postgres`.
    Postgres,
}

impl Backend {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}

/// How the service benchmark runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `logistics-service` binary.
    pub binary: PathBuf,
    /// The admin URL of the PostgreSQL server (a database is created beside it).
    pub postgres: String,
    /// Load for the throughput cases.
    pub load: Load,
    /// Timed runs of the 1,000 × 10 bulk upsert.
    pub bulk_runs: usize,
    /// Tenant sizes for the listReturns growth; the middle one is the tenant of the load cases.
    pub return_sizes: Vec<usize>,
    /// Batch sizes for the bulk-upsert growth, with their runs.
    pub batch_sizes: Vec<(usize, usize)>,
    /// `--max-connections` for the service, when not its default.
    pub max_connections: Option<u32>,
    /// Where the service's output goes.
    pub log: PathBuf,
    /// The operations layers comparison.
    pub layers: operations_layers::Options,
}

/// One backend's results.
pub struct Results {
    /// Which backend.
    pub backend: Backend,
    /// Throughput cases, by name.
    pub cases: Vec<(String, Stats)>,
    /// Bulk upsert 1,000 × 10, each run.
    pub bulk: Vec<Duration>,
    /// Bulk upsert growth: batch size → runs.
    pub batch_growth: BTreeMap<usize, Vec<Duration>>,
    /// listReturns growth: returns in the tenant → sequential stats.
    pub list_growth: BTreeMap<usize, Stats>,
    /// The server's peak resident set, in KiB.
    pub peak_rss_kib: u64,
    /// Seconds spent seeding.
    pub seed_seconds: f64,
}

/// A tenant with its token.
struct Tenant {
    id: uuid::Uuid,
    token: String,
}

const CUSTOMERS: usize = 100;
/// The sales orders of the tenant the GETs read.
pub(crate) const SALES_ORDERS: usize = 1000;

/// Runs every service case on `backend`, then the operations layers
/// comparison on the same database.
pub fn run(backend: Backend, options: &Options) -> Result<(Results, Vec<LayerRuns>), String> {
    on_scratch_database(backend, &options.postgres, |runtime, url| {
        runtime.block_on(run_on(backend, url, options))
    })
}

/// Only the operations layers comparison on `backend`, on a database seeded
/// with the one tenant it reads (`--only service-layers`).
pub fn run_layers(backend: Backend, options: &Options) -> Result<Vec<LayerRuns>, String> {
    on_scratch_database(backend, &options.postgres, |runtime, url| {
        runtime.block_on(async {
            let tenants = seed(url, &[0]).await?;
            let tenant = &tenants[&0];
            let token: Arc<str> = Arc::from(tenant.token.as_str());
            operations_layers::run(
                url,
                &token,
                tenant.id,
                &options.binary,
                &options.log,
                &options.layers,
            )
            .await
        })
    })
}

/// Runs `work` on a fresh database of `backend` (a SQLite file in a scratch
/// folder, or a database of its own on the PostgreSQL server at `admin`),
/// removed afterwards.
pub(crate) fn on_scratch_database<T>(
    backend: Backend,
    admin: &str,
    work: impl FnOnce(&tokio::runtime::Runtime, &str) -> Result<T, String>,
) -> Result<T, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let scratch = std::env::temp_dir().join(format!("lfs-bench-{}", uuid::Uuid::new_v4().simple()));
    let (url, database) = match backend {
        Backend::Sqlite => {
            std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
            (scratch.join("bench.db").display().to_string(), None)
        }
        Backend::Postgres => {
            let name = format!("lfs_bench_{}", uuid::Uuid::new_v4().simple());
            runtime.block_on(postgres_admin(admin, &format!("CREATE DATABASE {name}")))?;
            (database_url(admin, &name), Some(name))
        }
    };
    let result = work(&runtime, &url);
    if let Some(name) = database {
        if let Err(error) = runtime.block_on(postgres_admin(
            admin,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        )) {
            eprintln!("warning: could not drop {name}: {error}");
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// `admin`'s URL with another database name.
fn database_url(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (admin, String::new()),
    };
    let base = match base.rfind('/') {
        Some(slash) if slash > "postgres://".len() => &base[..slash],
        _ => base,
    };
    format!("{base}/{name}{query}")
}

async fn postgres_admin(admin: &str, statement: &str) -> Result<(), String> {
    let mut connection = sqlx::PgConnection::connect(admin)
        .await
        .map_err(|e| format!("PostgreSQL at {admin}: {e}"))?;
    sqlx::raw_sql(statement)
        .execute(&mut connection)
        .await
        .map_err(|e| format!("{statement}: {e}"))?;
    let _ = connection.close().await;
    Ok(())
}

async fn run_on(
    backend: Backend,
    url: &str,
    options: &Options,
) -> Result<(Results, Vec<LayerRuns>), String> {
    let seeding = Instant::now();
    let tenants = seed(url, &options.return_sizes).await?;
    let seed_seconds = seeding.elapsed().as_secs_f64();
    let main_size = options.return_sizes[options.return_sizes.len() / 2];
    let main = &tenants[&main_size];

    let mut server = Server::service(&options.binary, url, options.max_connections, &options.log)?;
    let outcome = drive(backend, server.address, main, main_size, &tenants, options).await;
    let peak_rss_kib = server.peak_rss_kib();
    server.stop();
    let (cases, bulk, batch_growth, list_growth) = outcome?;
    let token: Arc<str> = Arc::from(main.token.as_str());
    let layers = operations_layers::run(
        url,
        &token,
        main.id,
        &options.binary,
        &options.log,
        &options.layers,
    )
    .await?;
    let results = Results {
        backend,
        cases,
        bulk,
        batch_growth,
        list_growth,
        peak_rss_kib,
        seed_seconds,
    };
    Ok((results, layers))
}

type Driven = (
    Vec<(String, Stats)>,
    Vec<Duration>,
    BTreeMap<usize, Vec<Duration>>,
    BTreeMap<usize, Stats>,
);

async fn drive(
    backend: Backend,
    address: SocketAddr,
    main: &Tenant,
    main_size: usize,
    tenants: &BTreeMap<usize, Tenant>,
    options: &Options,
) -> Result<Driven, String> {
    let token: Arc<str> = Arc::from(main.token.as_str());
    let mut cases = Vec::new();
    let groups = (main_size / data::RETURNS_PER_SALES_ORDER).max(1) as u64;
    let run_id = uuid::Uuid::new_v4().simple().to_string();
    let makers: Vec<(String, load::MakeRequest)> = vec![
        ("GET sales order".to_owned(), get_sales_order(token.clone())),
        ("GET customer".to_owned(), {
            let token = token.clone();
            Arc::new(move |n| {
                let number = 1 + spread(n) % CUSTOMERS as u64;
                load::request(
                    "GET",
                    &format!("/openapi/v1/Customers/{number}"),
                    &token,
                    None,
                )
            })
        }),
        (
            format!(
                "listReturns, filter on salesOrderReferenceNumber, page of 100 ({main_size} returns)"
            ),
            {
                let token = token.clone();
                Arc::new(move |n| {
                    let path = list_path((spread(n) % groups) as usize);
                    load::request("GET", &path, &token, None)
                })
            },
        ),
        ("createCustomer".to_owned(), {
            let token = token.clone();
            Arc::new(move |n| {
                let body = data::customer_body(&run_id, n);
                load::request("POST", "/openapi/v1/Customers", &token, Some(&body))
            })
        }),
    ];
    for (name, make) in makers {
        // A short warm-up, not counted.
        let warm = Load {
            duration: Duration::from_millis(300),
            max_requests: 2_000,
            ..options.load
        };
        if !name.starts_with("createCustomer") {
            load::run(address, warm, make.clone()).await;
        }
        let stats = load::run(address, options.load, make).await;
        if stats.ok == 0 {
            return Err(format!(
                "{}: {name}: no successful request ({})",
                backend.name(),
                stats.first_error.unwrap_or_default()
            ));
        }
        eprintln!(
            "  {}: {name}: {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, {} errors",
            backend.name(),
            stats.throughput(),
            stats.percentile_ms(50.0),
            stats.percentile_ms(99.0),
            stats.errors
        );
        cases.push((name, stats));
    }

    let bulk = bulk_upserts(address, &token, "bulk", 1000, options.bulk_runs).await?;
    eprintln!(
        "  {}: bulk upsert 1000 × 10: median {:.1} ms",
        backend.name(),
        median(&bulk).as_secs_f64() * 1000.0
    );
    let mut batch_growth = BTreeMap::new();
    for &(size, runs) in &options.batch_sizes {
        let runs = bulk_upserts(address, &token, &format!("grow{size}"), size, runs).await?;
        batch_growth.insert(size, runs);
    }
    let mut list_growth = BTreeMap::new();
    for (&size, tenant) in tenants {
        let token: Arc<str> = Arc::from(tenant.token.as_str());
        let groups = (size / data::RETURNS_PER_SALES_ORDER).max(1) as u64;
        let make: load::MakeRequest = Arc::new(move |n| {
            load::request(
                "GET",
                &list_path((spread(n) % groups) as usize),
                &token,
                None,
            )
        });
        let sequential = Load {
            connections: 1,
            duration: Duration::from_millis(1500),
            max_requests: 2_000,
        };
        load::run(
            address,
            Load {
                duration: Duration::from_millis(200),
                ..sequential
            },
            make.clone(),
        )
        .await;
        let stats = load::run(address, sequential, make).await;
        if stats.ok == 0 {
            return Err(format!(
                "listReturns with {size} returns: {}",
                stats.first_error.unwrap_or_default()
            ));
        }
        list_growth.insert(size, stats);
    }
    Ok((cases, bulk, batch_growth, list_growth))
}

/// GET sales order, spread over the tenant's 1,000 orders.
pub fn get_sales_order(token: Arc<str>) -> load::MakeRequest {
    Arc::new(move |n| {
        let reference = data::sales_order_reference(1 + (spread(n) % SALES_ORDERS as u64) as usize);
        load::request(
            "GET",
            &format!("/openapi/v1/SalesOrders/{reference}"),
            &token,
            None,
        )
    })
}

/// Spreads request numbers over the keys (a multiplicative hash), so that
/// concurrent connections ask for different rows.
fn spread(n: u64) -> u64 {
    n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16
}

/// listReturns filtered on the sales order of group `group`, a page of 100.
fn list_path(group: usize) -> String {
    let query = format!(
        "o=eq&p=salesOrderReferenceNumber&v={}&count=100",
        data::sales_order_reference(group)
    );
    let encoded = query.replace('=', "%3D").replace('&', "%26");
    format!("/openapi/v1/Returns?dqb={encoded}")
}

/// `runs` timed bulk upserts of `orders` new orders × 10 lines, one at a time.
async fn bulk_upserts(
    address: SocketAddr,
    token: &str,
    prefix: &str,
    orders: usize,
    runs: usize,
) -> Result<Vec<Duration>, String> {
    let mut times = Vec::with_capacity(runs);
    let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
    for run in 0..runs {
        let body = data::receiving_order_batch(&format!("{prefix}-{tag}-{run}"), orders, 10);
        let request = load::request(
            "POST",
            "/openapi/v1/ReceivingOrders/BulkUpsert",
            token,
            Some(&body),
        );
        let (_, elapsed) = load::once(address, &request)
            .await
            .map_err(|e| format!("bulk upsert of {orders}: {e}"))?;
        times.push(elapsed);
    }
    times.sort();
    Ok(times)
}

/// The median of sorted `values`.
pub fn median(values: &[Duration]) -> Duration {
    values.get(values.len() / 2).copied().unwrap_or_default()
}

/// Creates one tenant per size of `return_sizes`, each with that many
/// returns; the middle one also gets the customers and sales orders.
async fn seed(url: &str, return_sizes: &[usize]) -> Result<BTreeMap<usize, Tenant>, String> {
    let store = Store::open(url, 4).await.map_err(|e| e.to_string())?;
    let main_size = return_sizes[return_sizes.len() / 2];
    let mut tenants = BTreeMap::new();
    for &size in return_sizes {
        let tenant = tenants::create(
            &store,
            &format!("Bench {size}"),
            Environment::Staging,
            false,
        )
        .await
        .map_err(|e| e.to_string())?;
        let id = tenant.tenant_id;
        if size == main_size {
            for n in 1..=CUSTOMERS {
                customers::create(&store, id, &data::customer(n))
                    .await
                    .map_err(|e| e.to_string())?;
            }
            let orders: Vec<_> = (1..=SALES_ORDERS)
                .map(|n| data::sales_order(n, 1 + n % CUSTOMERS))
                .collect();
            sales_orders::import(&store, id, &orders)
                .await
                .map_err(|e| e.to_string())?;
        }
        for chunk in data::returns(&format!("t{size}"), size).chunks(10_000) {
            returns::import(&store, id, chunk)
                .await
                .map_err(|e| e.to_string())?;
        }
        tenants.insert(
            size,
            Tenant {
                id,
                token: tenant.token,
            },
        );
    }
    store.close().await;
    Ok(tenants)
}

/// A loopback address nothing listens on yet.
fn free_address() -> Result<SocketAddr, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    Ok(([127, 0, 0, 1], port).into())
}

/// A server under test, running as a child process.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub address: SocketAddr,
}

/// `program`, or `program` run by `wrapper` (`valgrind …`) when there is one.
fn wrapped(wrapper: &[String], program: &Path) -> Command {
    match wrapper.split_first() {
        Some((first, rest)) => {
            let mut command = Command::new(first);
            command.args(rest).arg(program);
            command
        }
        None => Command::new(program),
    }
}

impl Server {
    /// The `logistics-service` binary serving `database` with `--rate-limit 0`.
    fn service(
        binary: &Path,
        database: &str,
        max_connections: Option<u32>,
        log: &Path,
    ) -> Result<Server, String> {
        Server::service_wrapped(&[], binary, database, max_connections, log)
    }

    /// [`Server::service`], run by `wrapper` (empty: none).
    pub fn service_wrapped(
        wrapper: &[String],
        binary: &Path,
        database: &str,
        max_connections: Option<u32>,
        log: &Path,
    ) -> Result<Server, String> {
        let address = free_address()?;
        let mut command = wrapped(wrapper, binary);
        command
            .args(["--database", database, "serve", "--listen"])
            .arg(address.to_string())
            .args(["--rate-limit", "0"])
            .env_remove("DATABASE_URL")
            .env_remove("LOGISTICS_MAX_CONNECTIONS");
        if let Some(n) = max_connections {
            command.args(["--max-connections", &n.to_string()]);
        }
        Server::start(command, address, log)
    }

    /// This bench's own binary serving `database` (`serve.rs`), with the
    /// operations layers on or off, run by `wrapper` (empty: none).
    pub fn bench_wrapped(
        wrapper: &[String],
        layers: bool,
        database: &str,
        log: &Path,
    ) -> Result<Server, String> {
        let mode = ["--layers", if layers { "on" } else { "off" }].map(str::to_owned);
        Server::own_serve(wrapper, &mode, database, log)
    }

    /// This bench's own binary serving `tenant`'s sales orders from memory
    /// with hand-written axum (`serve.rs`), run by `wrapper` (empty: none).
    pub fn bytes_wrapped(
        wrapper: &[String],
        tenant: uuid::Uuid,
        database: &str,
        log: &Path,
    ) -> Result<Server, String> {
        let mode = ["--bytes-of".to_owned(), tenant.to_string()];
        Server::own_serve(wrapper, &mode, database, log)
    }

    /// `logistics-bench serve MODE… --database DATABASE --listen ADDRESS`.
    fn own_serve(
        wrapper: &[String],
        mode: &[String],
        database: &str,
        log: &Path,
    ) -> Result<Server, String> {
        let address = free_address()?;
        let own = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut command = wrapped(wrapper, &own);
        command
            .arg("serve")
            .args(mode)
            .args(["--database", database, "--listen"])
            .arg(address.to_string());
        Server::start(command, address, log)
    }

    /// The child's process id (valgrind's, when run by it: the same process).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts `command`, its output appended to `log`, and waits until it
    /// listens on `address`.
    fn start(mut command: Command, address: SocketAddr, log: &Path) -> Result<Server, String> {
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| format!("{}: {e}", log.display()))?;
        command
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().map_err(|e| e.to_string())?)
            .stderr(log_file);
        let program = command.get_program().to_string_lossy().into_owned();
        let mut child = command.spawn().map_err(|e| format!("{program}: {e}"))?;
        // Under valgrind a server takes tens of seconds to listen.
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            if std::net::TcpStream::connect(address).is_ok() {
                return Ok(Server { child, address });
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "{program} exited ({status}) before listening; see {}",
                    log.display()
                ));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{program} did not listen within 180 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `VmHWM` of the child, in KiB.
    fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
