//! `logistics-bench serve --layers on|off --database URL --listen ADDR`:
//! the service served by the bench's own binary, so that the operations
//! layers can be measured on and off in one run; and
//! `logistics-bench serve --bytes-of TENANT --database URL --listen ADDR`:
//! the machine's limit for the same GET, hand-written axum serving the
//! tenant's sales orders as bytes held in memory.
//!
//! Both ways run the same code but for the one switch: the database opened
//! with the binary's default pool, the binary's log subscriber (human,
//! `info`, stderr), a multi-thread runtime, and the service's own accept loop
//! (`http_server::serve`) with its default connection settings. `on` serves
//! `server::app` as `logistics-service serve --rate-limit 0` does (the
//! request id settled, the request's span, the metrics, the request
//! deadline, the operations endpoints beside the API); `off` serves the
//! generated router over the same service, with none of them.
//!
//! The hand-written server reads each of the bench's sales orders once
//! through the service's repository and keeps its answer, serialised as the
//! service serialises it; a GET is a map lookup and a clone of the bytes, no
//! credential checked, no database asked. It runs on the same runtime and
//! the same number of threads as the others, behind `axum::serve`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use logistics_service::api::Service;
use logistics_service::domain::SalesOrderRepository;
use logistics_service::domain::tenancy::Environment;
use logistics_service::http_server::{self, ConnectionSettings};
use logistics_service::server::{self, Settings};
use logistics_service::storage::Store;
use uuid::Uuid;

use crate::data;

/// What `serve` serves.
#[derive(Clone, Copy)]
enum Mode {
    /// The service, with the operations layers on or off.
    Service { layers: bool },
    /// Hand-written axum serving the sales orders of this tenant from memory.
    BytesOf(Uuid),
}

/// The command line of `serve`, after the word itself.
struct Args {
    mode: Mode,
    database: String,
    listen: SocketAddr,
}

fn parse(mut given: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut mode, mut database, mut listen) = (None, None, None);
    while let Some(arg) = given.next() {
        let mut value = || given.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--layers" => {
                mode = Some(match value()?.as_str() {
                    "on" => Mode::Service { layers: true },
                    "off" => Mode::Service { layers: false },
                    other => return Err(format!("--layers {other}: expected on or off")),
                })
            }
            "--bytes-of" => {
                mode = Some(Mode::BytesOf(
                    value()?
                        .parse()
                        .map_err(|_| "--bytes-of: not a tenant id".to_owned())?,
                ))
            }
            "--database" => database = Some(value()?),
            "--listen" => {
                listen = Some(
                    value()?
                        .parse()
                        .map_err(|_| "--listen: not an address".to_owned())?,
                )
            }
            other => return Err(format!("serve: unknown argument {other}")),
        }
    }
    Ok(Args {
        mode: mode.ok_or("serve needs --layers on|off or --bytes-of TENANT")?,
        database: database.ok_or("serve needs --database")?,
        listen: listen.ok_or("serve needs --listen")?,
    })
}

/// Serves until killed.
pub fn run(given: impl Iterator<Item = String>) -> Result<(), String> {
    let args = parse(given)?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?
        .block_on(serve(args))
}

async fn serve(args: Args) -> Result<(), String> {
    let layers = match args.mode {
        Mode::Service { layers } => layers,
        Mode::BytesOf(tenant) => return serve_bytes(&args, tenant).await,
    };
    let max_connections = Store::default_max_connections(&args.database);
    let store = Store::open(&args.database, max_connections)
        .await
        .map_err(|e| e.to_string())?;
    let settings = Settings {
        database: args.database.clone(),
        listen: args.listen,
        rate_limit: 0,
        max_connections,
        ..Settings::default()
    };
    let router = if layers {
        server::app(store.clone(), &settings)?.router
    } else {
        logistics_server_stubs::router_with(
            Service::new(store.clone(), Environment::Staging),
            logistics_server_stubs::Settings::new().with_body_limit(settings.body_limit),
        )
    };
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    tracing::info!(layers, address = %args.listen, "serving for the bench");
    http_server::serve(
        listener,
        router,
        ConnectionSettings::default(),
        http_server::default_connection_limit(max_connections),
        std::future::pending(),
    )
    .await
    .map_err(|e| e.to_string())
}

/// Hand-written axum answering `GET /openapi/v1/SalesOrders/{reference}`
/// with `tenant`'s order, serialised once at the start.
async fn serve_bytes(args: &Args, tenant: Uuid) -> Result<(), String> {
    let store = Store::open(&args.database, 1)
        .await
        .map_err(|e| e.to_string())?;
    let mut answers = HashMap::new();
    for n in 1..=crate::service::SALES_ORDERS {
        let reference = data::sales_order_reference(n);
        let order = store
            .sales_order(tenant, &reference)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("tenant {tenant} has no sales order {reference}"))?;
        let bytes = serde_json::to_vec(&order).map_err(|e| e.to_string())?;
        answers.insert(reference, Bytes::from(bytes));
    }
    store.close().await;
    let router = axum::Router::new()
        .route(
            "/openapi/v1/SalesOrders/{reference}",
            axum::routing::get(answer),
        )
        .with_state(Arc::new(answers));
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    tracing::info!(address = %args.listen, "serving stored bytes for the bench");
    axum::serve(listener, router)
        .await
        .map_err(|e| e.to_string())
}

async fn answer(
    State(answers): State<Arc<HashMap<String, Bytes>>>,
    Path(reference): Path<String>,
) -> Response {
    match answers.get(&reference) {
        Some(bytes) => {
            ([(header::CONTENT_TYPE, "application/json")], bytes.clone()).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
