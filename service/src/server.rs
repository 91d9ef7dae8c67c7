//! Serving: the database opened, the generated router around the service,
//! the policy layers around the router, and a graceful shutdown.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::Request;
use logistics_server_stubs::RequestId;
use tokio::net::TcpListener;

use crate::api::Service;
use crate::domain::tenancy::Environment;
use crate::http_server::{self, ConnectionSettings};
use crate::ops::layer::OperationsLayer;
use crate::ops::metrics::PoolStatus;
use crate::ops::{self, Metrics, Ops, Readiness};
use crate::rate_limit::{RateLimit, RateLimitLayer, StoreChoice};
use crate::seed;
use crate::storage::Store;

/// The request deadline when none is set (decision D22): a request still
/// running after it is abandoned and answered 503 `Timeout`, before the
/// generated client's own 30-second time-out.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(25);

/// How an instance serves.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The database URL or SQLite file.
    pub database: String,
    /// The environment served.
    pub environment: Environment,
    /// Where to listen.
    pub listen: SocketAddr,
    /// Requests per minute per token; 0: no limit.
    pub rate_limit: u32,
    /// Where the rate limit keeps its windows; `None`: the default for the
    /// database (shared in PostgreSQL, in memory on SQLite).
    pub rate_limit_store: Option<StoreChoice>,
    /// What every key of a shared rate-limit store starts with.
    pub rate_limit_prefix: String,
    /// The largest request body, in bytes.
    pub body_limit: usize,
    /// Database connections: the pool, and on PostgreSQL the reader of
    /// `storage/batched.rs` (half).
    pub max_connections: u32,
    /// Serve `/metrics` on this address instead of the API's.
    pub metrics_listen: Option<SocketAddr>,
    /// The longest a request may take; zero: no deadline.
    pub request_timeout: Duration,
    /// Client connections: time limits, limit, drain deadline.
    pub connections: ConnectionSettings,
}

impl Settings {
    /// The limit on client connections: as set, or from the file-descriptor
    /// limit.
    fn connection_limit(&self) -> usize {
        self.connections.connection_limit.map_or_else(
            || http_server::default_connection_limit(self.max_connections),
            |n| n as usize,
        )
    }
}

impl Default for Settings {
    /// The binary's defaults, on `./data/staging.db`.
    fn default() -> Self {
        Settings {
            database: "./data/staging.db".to_owned(),
            environment: Environment::Staging,
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 8080)),
            rate_limit: 250,
            rate_limit_store: None,
            rate_limit_prefix: "lfs:rate:".to_owned(),
            body_limit: logistics_server_stubs::settings::DEFAULT_BODY_LIMIT,
            max_connections: 8,
            metrics_listen: None,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            connections: ConnectionSettings::default(),
        }
    }
}

impl Settings {
    /// The rate-limit store these settings choose.
    pub fn rate_limit_store(&self) -> StoreChoice {
        self.rate_limit_store
            .clone()
            .unwrap_or_else(|| StoreChoice::default_for(&self.database))
    }
}

/// The HTTP application over a store, and what it holds open.
pub struct App {
    /// The API and the operations endpoints.
    pub router: Router,
    /// `/metrics` alone, when it is served on its own address.
    pub metrics: Option<Router>,
    limit: Option<RateLimit>,
    readiness: Arc<Readiness>,
}

impl App {
    /// Closes the rate-limit store's and the readiness probe's connections.
    pub async fn close(&self) {
        if let Some(limit) = &self.limit {
            limit.close().await;
        }
        self.readiness.close().await;
    }
}

/// The whole HTTP application over `store`. Call it within a Tokio runtime.
///
/// Layers, outermost first: the operations layer (the request id settled,
/// the request's log context; for the API only, the metrics and the request
/// deadline), then for the API the rate limit and the generated router. The
/// operations endpoints sit beside the API, outside its rate limit, metrics
/// and deadline.
pub fn app(store: Store, settings: &Settings) -> Result<App, String> {
    let store_choice = settings.rate_limit_store();
    let pool_store = store.clone();
    let metrics = Metrics::new(
        move || {
            let (size, idle, max) = pool_store.pool_status();
            PoolStatus { size, idle, max }
        },
        store.kind(),
        store_choice.name(),
    );
    let readiness = Arc::new(Readiness::new(&settings.database)?);
    let stubs = logistics_server_stubs::Settings::new().with_body_limit(settings.body_limit);
    let api = logistics_server_stubs::router_with(Service::new(store, settings.environment), stubs);
    let limit = if settings.rate_limit > 0 {
        let prefix = format!("{}{}:", settings.rate_limit_prefix, settings.environment);
        Some(RateLimit::with_store(
            settings.rate_limit,
            &store_choice,
            &settings.database,
            prefix,
        )?)
    } else {
        None
    };
    let api = match &limit {
        Some(limit) => api.layer(RateLimitLayer::new(limit.clone())),
        None => api,
    };
    let ops = Ops {
        metrics,
        readiness: readiness.clone(),
    };
    let separate_metrics = settings.metrics_listen.is_some();
    let router = with_operations_layers(
        api,
        ops::router(ops.clone(), !separate_metrics),
        &ops.metrics,
        settings.request_timeout,
    );
    Ok(App {
        router,
        metrics: separate_metrics.then(|| ops::metrics_router(ops)),
        limit,
        readiness,
    })
}

/// The operations layer ([`ops::layer`]) around `api` and, beside it,
/// `ops`: around both the request id settled and the request's log context; around
/// `api` also the metrics and the request deadline (`request_timeout`; zero:
/// none).
///
/// `app` puts it around the generated router; the instruction-count gate
/// (`cargo xtask bench --check`) around a handler that does nothing, to count
/// the layer alone.
pub fn with_operations_layers(
    api: Router,
    ops: Router,
    metrics: &Metrics,
    request_timeout: Duration,
) -> Router {
    let deadline = (!request_timeout.is_zero()).then_some(request_timeout);
    api.layer(OperationsLayer::api(metrics, deadline))
        .merge(ops.layer(OperationsLayer::operations_endpoints()))
}

/// A running instance.
pub struct Running {
    /// Where it listens.
    pub address: SocketAddr,
    /// Where `/metrics` is served, when not on `address`.
    pub metrics_address: Option<SocketAddr>,
    /// The store it uses.
    pub store: Store,
    app: Arc<App>,
    shutdown: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops accepting, lets in-flight requests finish, and waits.
    pub async fn stop(self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
        let result = self
            .task
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        self.app.close().await;
        self.store.close().await;
        result
    }
}

async fn bind(address: SocketAddr) -> Result<(TcpListener, SocketAddr), String> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    Ok((listener, bound))
}

/// Serves `app` on `listener` (and its metrics on `metrics`) with the
/// connection settings of `settings` until `stop` turns true, then drains.
async fn serve(
    app: &App,
    settings: &Settings,
    listener: TcpListener,
    metrics: Option<TcpListener>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<()> {
    let stopped = |mut stop: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stop.wait_for(|stopped| *stopped).await;
    };
    let metrics_task = match (metrics, app.metrics.clone()) {
        (Some(listener), Some(router)) => Some(tokio::spawn(http_server::serve(
            listener,
            router,
            settings.connections.clone(),
            METRICS_CONNECTIONS,
            stopped(stop.clone()),
        ))),
        _ => None,
    };
    let served = http_server::serve(
        listener,
        app.router.clone(),
        settings.connections.clone(),
        settings.connection_limit(),
        stopped(stop),
    )
    .await;
    if let Some(task) = metrics_task {
        task.await.map_err(std::io::Error::other)??;
    }
    served
}

/// Connections at once on the `--metrics-listen` address (scrapers).
const METRICS_CONNECTIONS: usize = 64;

/// Opens the database and starts serving in the background.
pub async fn start(settings: &Settings) -> Result<Running, String> {
    let store = Store::open(&settings.database, settings.max_connections)
        .await
        .map_err(|e| e.to_string())?;
    let (listener, address) = bind(settings.listen).await?;
    let (metrics_listener, metrics_address) = match settings.metrics_listen {
        Some(at) => {
            let (listener, bound) = bind(at).await?;
            (Some(listener), Some(bound))
        }
        None => (None, None),
    };
    let app = Arc::new(app(store.clone(), settings)?);
    let (shutdown, stop) = tokio::sync::watch::channel(false);
    let serving = app.clone();
    let connections = settings.clone();
    let task = tokio::spawn(async move {
        serve(&serving, &connections, listener, metrics_listener, stop).await
    });
    Ok(Running {
        address,
        metrics_address,
        store,
        app,
        shutdown,
        task,
    })
}

/// Serves until SIGINT or SIGTERM, then finishes in-flight requests.
pub async fn run(settings: Settings) -> Result<(), String> {
    let store = Store::open(&settings.database, settings.max_connections)
        .await
        .map_err(|e| e.to_string())?;
    // Every check that can refuse the settings runs before the demo is
    // written: a start that fails on its configuration or its address leaves
    // no unpublished demo behind.
    let app = app(store.clone(), &settings)?;
    let (listener, address) = bind(settings.listen).await?;
    let metrics_listener = match settings.metrics_listen {
        Some(at) => Some(bind(at).await?.0),
        None => None,
    };
    // First starts on one database take turns until the demo is bound (D36).
    let first_start = store
        .first_start_lock()
        .await
        .map_err(|e| format!("cannot create the demo data: {e}"))?;
    let demo = seed::first_start(&store, settings.environment)
        .await
        .map_err(|e| format!("cannot create the demo data: {e}"))?;
    tracing::info!(
        %address,
        environment = %settings.environment,
        database = store.kind(),
        rate_limit = settings.rate_limit,
        rate_limit_store = settings.rate_limit_store().name(),
        connection_limit = settings.connection_limit(),
        metrics = %settings.metrics_listen.map_or_else(|| format!("http://{address}/metrics"), |at| format!("http://{at}/metrics")),
        "serving the Logistics Fulfilment Service (API reference at /docs)"
    );
    if let Some(demo) = demo {
        demo.publish(&store, |demo| print_demo(demo, address))
            .await
            .map_err(|e| {
                format!(
                    "cannot put the demo tenant into {}: {e}. A token printed above does \
                     not work; the next start makes the demo again and prints another.",
                    settings.environment
                )
            })?;
    }
    first_start.release().await;
    let (shutdown, stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        let _ = shutdown.send(true);
    });
    let served = serve(&app, &settings, listener, metrics_listener, stop).await;
    tracing::info!("stopped");
    app.close().await;
    store.close().await;
    served.map_err(|e| e.to_string())
}

/// Prints the demo tenant and its token on stdout (flushed: it is shown
/// before the tenant is bound, decision D36).
fn print_demo(
    demo: &crate::domain::tenants::NewTenant,
    address: SocketAddr,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let host = if address.ip().is_unspecified() {
        SocketAddr::from((Ipv4Addr::LOCALHOST, address.port()))
    } else {
        address
    };
    let token = &demo.token;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "\nThe database was empty: created a demo tenant with sample data.\n\
         \n  tenant id: {}\n  token:     {token}   (shown this once)\n\
         \nTry:\n  curl -H 'Authorization: Bearer {token}' http://{host}/openapi/v1/SalesOrders/{}\n  \
         curl -H 'Authorization: Bearer {token}' 'http://{host}/openapi/v1/Returns/GetReturnsWithTag?dqb=o%3Dne%26p%3Dtag%26v%3Dnull'\n",
        demo.tenant_id,
        seed::DEMO_SALES_ORDER,
    )?;
    out.flush()
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down: finishing in-flight requests");
}

/// The request id of a request, as the generated router would take it.
pub fn request_id_of(request: &Request<Body>) -> RequestId {
    RequestId::from_headers(request.headers())
}
