//! `logistics-bench count CASE --iterations N [--root DIR] [--postgres URL]`:
//! one case of the instruction-count gate (`cargo xtask bench --check`).
//!
//! The case runs in this process, so that everything it costs is counted by
//! the valgrind tool the gate runs it under: the service's layers, the
//! router, the domain and, on SQLite, the database's own work. On
//! PostgreSQL only the service's side is counted: the server is another
//! process.
//!
//! The process sets the case up, runs one iteration to warm it (prepared
//! statements, pools, allocator), then `N` more, and exits. The gate runs it
//! with two values of `N` and divides the difference in instructions by the
//! difference in iterations, so that the setup and the warm-up cancel out.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use http::{Request, StatusCode};
use logistics_service::domain::tenancy::Environment;
use logistics_service::domain::{customers, sales_orders, tenants};
use logistics_service::ops::Metrics;
use logistics_service::ops::metrics::PoolStatus;
use logistics_service::server::{self, Settings};
use logistics_service::storage::Store;
use tower::ServiceExt as _;

use crate::data;
use crate::service::{Backend, on_scratch_database};

/// The cases, by the name the gate and its baseline give them.
pub const CASES: [&str; 8] = [
    "bulk-upsert-sqlite",
    "bulk-upsert-postgres",
    "get-sales-order",
    "create-customer",
    "operations-layers",
    "no-layers",
    "codegen-openapi",
    "codegen-buildomat",
];

/// The command line of `count`, after the word itself.
struct Args {
    case: String,
    iterations: usize,
    root: PathBuf,
    postgres: String,
}

fn parse(mut given: impl Iterator<Item = String>) -> Result<Args, String> {
    let case = given
        .next()
        .ok_or_else(|| format!("count needs a case: one of {}", CASES.join(", ")))?;
    if !CASES.contains(&case.as_str()) {
        return Err(format!(
            "count {case}: expected one of {}",
            CASES.join(", ")
        ));
    }
    let mut args = Args {
        case,
        iterations: 1,
        root: PathBuf::from("."),
        postgres: crate::DEFAULT_POSTGRES.to_owned(),
    };
    while let Some(arg) = given.next() {
        let mut value = || given.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--iterations" => {
                args.iterations = value()?
                    .parse()
                    .map_err(|_| "--iterations: not a number".to_owned())?
            }
            "--root" => args.root = PathBuf::from(value()?),
            "--postgres" => args.postgres = value()?,
            other => return Err(format!("count: unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Runs one case: its setup, a warm-up iteration and `--iterations` more.
pub fn run(given: impl Iterator<Item = String>) -> Result<(), String> {
    let args = parse(given)?;
    match args.case.as_str() {
        "codegen-openapi" => repeat(args.iterations + 1, || codegen_workspace(&args.root)),
        "codegen-buildomat" => repeat(args.iterations + 1, || codegen_buildomat(&args.root)),
        case => {
            // The subscriber `logistics-service serve` installs, since what a
            // span costs depends on it.
            logistics_service::ops::trace::init_logging(false);
            if case == "operations-layers" || case == "no-layers" {
                return tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?
                    .block_on(layers_case(case == "operations-layers", args.iterations));
            }
            let backend = if case == "bulk-upsert-postgres" {
                Backend::Postgres
            } else {
                Backend::Sqlite
            };
            on_scratch_database(backend, &args.postgres, |runtime, url| {
                runtime.block_on(service_case(case, url, args.iterations))
            })
        }
    }
}

fn repeat(times: usize, mut once: impl FnMut() -> Result<(), String>) -> Result<(), String> {
    (0..times).try_for_each(|_| once())
}

/// Generates every crate of `spec/codegen.toml`, in memory.
fn codegen_workspace(root: &Path) -> Result<(), String> {
    let config =
        openapi_codegen::config::Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml")
            .map_err(|e| e.to_string())?;
    for target in &config.api {
        openapi_codegen::generate(root, target, "cargo xtask bench --check")
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Generates the crates of the largest vendored OpenAPI 3.0 document, in memory.
fn codegen_buildomat(root: &Path) -> Result<(), String> {
    let spec = root.join("codegen-tests/specs/external/buildomat.json");
    openapi_codegen::generate_standalone(&spec, "buildomat", "cargo xtask bench --check")
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A case that calls the service's HTTP application in this process.
async fn service_case(case: &str, url: &str, iterations: usize) -> Result<(), String> {
    let store = Store::open(url, 2).await.map_err(|e| e.to_string())?;
    let tenant = tenants::create(&store, "Count", Environment::Staging, false)
        .await
        .map_err(|e| e.to_string())?;
    let token: Arc<str> = Arc::from(tenant.token.as_str());
    let settings = Settings {
        database: url.to_owned(),
        rate_limit: 0,
        ..Settings::default()
    };
    let app = server::app(store.clone(), &settings)?;
    let result = match case {
        "bulk-upsert-sqlite" | "bulk-upsert-postgres" => {
            // One body built in the setup; each iteration writes its own run
            // number into the reference numbers (at most 30 characters), so
            // that its orders are new and building them is not counted.
            let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
            let template = data::receiving_order_batch(&format!("{tag}-{RUN}"), 1000, 10);
            let template = String::from_utf8(template).map_err(|e| e.to_string())?;
            for run in 0..=iterations {
                let body = template.replace(RUN, &format!("{run:04}"));
                let path = "/openapi/v1/ReceivingOrders/BulkUpsert";
                call(&app.router, "POST", path, &token, Some(body.into_bytes())).await?;
            }
            Ok(())
        }
        "get-sales-order" => {
            seed_sales_orders(&store, tenant.tenant_id).await?;
            for n in 0..=iterations {
                let path = format!(
                    "/openapi/v1/SalesOrders/{}",
                    data::sales_order_reference(1 + n % SALES_ORDERS)
                );
                call(&app.router, "GET", &path, &token, None).await?;
            }
            Ok(())
        }
        "create-customer" => {
            let run = uuid::Uuid::new_v4().simple().to_string();
            for n in 0..=iterations {
                let body = data::customer_body(&run, n as u64);
                call(
                    &app.router,
                    "POST",
                    "/openapi/v1/Customers",
                    &token,
                    Some(body),
                )
                .await?;
            }
            Ok(())
        }
        other => Err(format!("count {other}: not a service case")),
    };
    app.close().await;
    store.close().await;
    result
}

/// GET sales order's path, answered by a handler that does nothing, with
/// the operations layers around it or without: the difference is what the
/// layers cost a request. Nothing here waits for another thread, so the
/// count is the same run after run.
async fn layers_case(layered: bool, iterations: usize) -> Result<(), String> {
    let api = Router::new().route(
        "/openapi/v1/SalesOrders/{referenceNumber}",
        axum::routing::get(|| async { r#"{"referenceNumber":"SO-000001"}"# }),
    );
    let router = if layered {
        let metrics = Metrics::new(
            || PoolStatus {
                size: 1,
                idle: 1,
                max: 4,
            },
            "SQLite",
            "memory",
        );
        let timeout = Settings::default().request_timeout;
        server::with_operations_layers(api, Router::new(), &metrics, timeout)
    } else {
        api
    };
    for n in 0..=iterations {
        let path = format!(
            "/openapi/v1/SalesOrders/{}",
            data::sales_order_reference(1 + n % SALES_ORDERS)
        );
        call(&router, "GET", &path, "unused", None).await?;
    }
    Ok(())
}

/// Where a bulk upsert's template has the run's number.
const RUN: &str = "@RUN";

/// Sales orders in the tenant the GET cases read from.
const SALES_ORDERS: usize = 100;

async fn seed_sales_orders(store: &Store, tenant: uuid::Uuid) -> Result<(), String> {
    for n in 1..=10 {
        customers::create(store, tenant, &data::customer(n))
            .await
            .map_err(|e| e.to_string())?;
    }
    let orders: Vec<_> = (1..=SALES_ORDERS)
        .map(|n| data::sales_order(n, 1 + n % 10))
        .collect();
    sales_orders::import(store, tenant, &orders)
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Sends one request through `router` and reads its whole answer, which
/// must be a success.
async fn call(
    router: &Router,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Vec<u8>>,
) -> Result<(), String> {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {token}"));
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let request = request
        .body(body.map_or_else(Body::empty, Body::from))
        .map_err(|e| e.to_string())?;
    let response = router
        .clone()
        .oneshot(request)
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .map_err(|e| format!("{method} {path}: {e}"))?;
    if status == StatusCode::OK || status == StatusCode::CREATED {
        Ok(())
    } else {
        let answer = String::from_utf8_lossy(&bytes);
        let shown: String = answer.chars().take(500).collect();
        Err(format!("{method} {path}: {status}: {shown}"))
    }
}
