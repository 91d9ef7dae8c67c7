//! Serving: the database opened, the generated router around the service,
//! the policy layers around the router, and a graceful shutdown.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use http::Request;
use logistics_server_stubs::RequestId;
use tokio::net::TcpListener;

use crate::api::Service;
use crate::domain::TenantRepository;
use crate::domain::tenancy::Environment;
use crate::http_server::{self, ConnectionSettings};
use crate::rate_limit::{RateLimit, RateLimitLayer};
use crate::seed;
use crate::storage::Store;

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
    /// The largest request body, in bytes.
    pub body_limit: usize,
    /// Database connections in the pool.
    pub max_connections: u32,
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

/// The whole HTTP application over `store`.
pub fn app(store: Store, settings: &Settings) -> Router {
    let stubs = logistics_server_stubs::Settings::new().with_body_limit(settings.body_limit);
    let router =
        logistics_server_stubs::router_with(Service::new(store, settings.environment), stubs);
    let router = if settings.rate_limit > 0 {
        router.layer(RateLimitLayer::new(RateLimit::new(settings.rate_limit)))
    } else {
        router
    };
    router.layer(axum::middleware::from_fn(log_request))
}

/// Logs each request with its id, status and latency.
async fn log_request(
    request: Request<Body>,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let request_id = response
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    let status = response.status().as_u16();
    let micros = started.elapsed().as_micros() as u64;
    if status >= 500 {
        tracing::warn!(%method, %path, status, micros, request_id, "request failed");
    } else {
        tracing::debug!(%method, %path, status, micros, request_id, "request");
    }
    response
}

/// A running instance.
pub struct Running {
    /// Where it listens.
    pub address: SocketAddr,
    /// The store it uses.
    pub store: Store,
    shutdown: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops accepting, lets in-flight requests finish, and waits.
    pub async fn stop(self) -> std::io::Result<()> {
        let _ = self.shutdown.send(());
        let result = self
            .task
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        self.store.close().await;
        result
    }
}

/// Opens the database and starts serving in the background.
pub async fn start(settings: &Settings) -> Result<Running, String> {
    let store = Store::open(&settings.database, settings.max_connections)
        .await
        .map_err(|e| e.to_string())?;
    let listener = TcpListener::bind(settings.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", settings.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = app(store.clone(), settings);
    let (connections, limit) = (settings.connections.clone(), settings.connection_limit());
    let task = tokio::spawn(http_server::serve(
        listener,
        app,
        connections,
        limit,
        async move {
            let _ = stopped.await;
        },
    ));
    Ok(Running {
        address,
        store,
        shutdown,
        task,
    })
}

/// Serves until SIGINT or SIGTERM, then finishes in-flight requests.
pub async fn run(settings: Settings) -> Result<(), String> {
    let store = Store::open(&settings.database, settings.max_connections)
        .await
        .map_err(|e| e.to_string())?;
    let first_staging_run = settings.environment == Environment::Staging
        && !store.has_tenants().await.map_err(|e| e.to_string())?;
    let demo = if first_staging_run {
        Some(
            seed::demo(&store, settings.environment)
                .await
                .map_err(|e| format!("cannot create the demo data: {e}"))?,
        )
    } else {
        None
    };
    let listener = TcpListener::bind(settings.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", settings.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    tracing::info!(
        %address,
        environment = %settings.environment,
        database = store.kind(),
        rate_limit = settings.rate_limit,
        connection_limit = settings.connection_limit(),
        "serving the Logistics Fulfilment Service"
    );
    if let Some(demo) = demo {
        print_demo(&demo, address);
    }
    let app = app(store.clone(), &settings);
    let limit = settings.connection_limit();
    let served = http_server::serve(
        listener,
        app,
        settings.connections,
        limit,
        shutdown_signal(),
    )
    .await;
    tracing::info!("stopped");
    store.close().await;
    served.map_err(|e| e.to_string())
}

fn print_demo(demo: &crate::domain::tenants::NewTenant, address: SocketAddr) {
    let host = if address.ip().is_unspecified() {
        SocketAddr::from((Ipv4Addr::LOCALHOST, address.port()))
    } else {
        address
    };
    let token = &demo.token;
    println!(
        "\nThe database was empty: created a demo tenant with sample data.\n\
         \n  tenant id: {}\n  token:     {token}   (shown this once)\n\
         \nTry:\n  curl -H 'Authorization: Bearer {token}' http://{host}/openapi/v1/SalesOrders/{}\n  \
         curl -H 'Authorization: Bearer {token}' 'http://{host}/openapi/v1/Returns/GetReturnsWithTag?dqb=o%3Dne%26p%3Dtag%26v%3Dnull'\n",
        demo.tenant_id,
        seed::DEMO_SALES_ORDER,
    );
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
