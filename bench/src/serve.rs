//! `logistics-bench serve --layers on|off --database URL --listen ADDR`:
//! the service served by the bench's own binary, so that the operations
//! layers can be measured on and off in one run.
//!
//! Both ways run the same code but for the one switch: the database opened
//! with the binary's default pool, the binary's log subscriber (human,
//! `info`, stderr), a multi-thread runtime, and the service's own accept loop
//! (`http_server::serve`) with its default connection settings. `on` serves
//! `server::app` as `logistics-service serve --rate-limit 0` does (the
//! request id settled, the request's span, the metrics, the request
//! deadline, the operations endpoints beside the API); `off` serves the
//! generated router over the same service, with none of them.

use std::net::SocketAddr;

use logistics_service::api::Service;
use logistics_service::domain::tenancy::Environment;
use logistics_service::http_server::{self, ConnectionSettings};
use logistics_service::server::{self, Settings};
use logistics_service::storage::Store;

/// The command line of `serve`, after the word itself.
struct Args {
    layers: bool,
    database: String,
    listen: SocketAddr,
}

fn parse(mut given: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut layers, mut database, mut listen) = (None, None, None);
    while let Some(arg) = given.next() {
        let mut value = || given.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--layers" => {
                layers = Some(match value()?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("--layers {other}: expected on or off")),
                })
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
        layers: layers.ok_or("serve needs --layers on|off")?,
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
    let router = if args.layers {
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
    tracing::info!(layers = args.layers, address = %args.listen, "serving for the bench");
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
