//! The operations side of the real binary: the docs page and the document,
//! the probes, the metrics, the container health check, and the rate limit
//! shared across instances (PostgreSQL, Redis) or kept by each when its store
//! is unreachable. Each test starts `logistics-service` processes on free
//! loopback ports over a database of its own.
//!
//! PostgreSQL is `LFS_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`), Redis `LFS_TEST_REDIS_URL`
//! (default `redis://127.0.0.1:6379`). Unreachable, they fail the tests under
//! `CI=true` and skip them loudly otherwise.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]
#![allow(missing_docs)]

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use logistics_client::reqwest::{self, StatusCode};
use serde_json::Value;

const BINARY: &str = env!("CARGO_BIN_EXE_logistics-service");

/// A sales order the tests read: imported from the schemathesis examples.
const SALES_ORDER: &str = "SO-2026-004512";

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Fails under CI, says so loudly and skips otherwise.
fn unavailable(what: &str, error: &str) {
    let message = format!("{what} cannot be used: {error}");
    assert!(!under_ci(), "{message}; under CI this test must run");
    eprintln!("\n!!!!! SKIPPED: {message}. This test did NOT run; under CI=true it fails.\n");
}

fn free_address() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("bound")
}

// The e2e suite's test databases, shared rather than written twice.
#[path = "e2e/harness.rs"]
#[allow(dead_code, unused_imports, unused_macros)]
mod harness;

use harness::{Backend, TestDatabase};

/// A database for one test: a SQLite file, or a PostgreSQL database dropped
/// at the end.
struct Database {
    url: String,
    inner: Option<TestDatabase>,
}

impl Database {
    fn of(database: TestDatabase) -> Database {
        Database {
            url: database.url.clone(),
            inner: Some(database),
        }
    }

    async fn sqlite() -> Database {
        Database::of(
            TestDatabase::create(Backend::Sqlite)
                .await
                .expect("SQLite is always there"),
        )
    }

    /// `None` when PostgreSQL is unreachable outside CI (a failure under CI).
    async fn postgres() -> Option<Database> {
        TestDatabase::create(Backend::Postgres)
            .await
            .map(Database::of)
    }

    /// Drops the database now, closing every connection to it.
    fn drop_now(&mut self) {
        drop(self.inner.take());
    }

    /// Runs a command of the binary on this database; its standard output.
    fn command(&self, args: &[&str]) -> String {
        let output = Command::new(BINARY)
            .arg("--database")
            .arg(&self.url)
            .args(args)
            .env_remove("DATABASE_URL")
            .output()
            .expect("the binary runs");
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("UTF-8")
    }

    /// A tenant with the example sales orders; its token.
    fn tenant(&self) -> String {
        let created: Value =
            serde_json::from_str(&self.command(&["tenant", "create", "Ops"])).expect("JSON");
        let orders =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.ci/schemathesis/sales-orders.json");
        let tenant = created["tenantId"].as_str().expect("a tenant id");
        self.command(&[
            "import",
            "sales-orders",
            orders.to_str().expect("a UTF-8 path"),
            "--tenant",
            tenant,
        ]);
        created["token"].as_str().expect("a token").to_owned()
    }
}

/// A running `logistics-service serve`, killed when dropped.
struct Instance {
    child: Child,
    base: String,
    log: PathBuf,
    http: reqwest::Client,
}

impl Instance {
    async fn start(database: &Database, args: &[&str]) -> Instance {
        let address = free_address();
        let log =
            std::env::temp_dir().join(format!("lfs_ops_{}.log", uuid::Uuid::new_v4().simple()));
        let child = Command::new(BINARY)
            .arg("--database")
            .arg(&database.url)
            .args([
                "--log-format",
                "json",
                "serve",
                "--listen",
                &address.to_string(),
            ])
            .args(args)
            .env("RUST_LOG", "info,logistics_service=debug")
            .env_remove("DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("a log file"))
            .spawn()
            .expect("the service starts");
        let instance = Instance {
            child,
            base: format!("http://{address}"),
            log,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .expect("a client"),
        };
        let started = Instant::now();
        loop {
            let answer = instance.http.get(instance.url("/healthz")).send().await;
            if answer.is_ok_and(|response| response.status() == StatusCode::OK) {
                return instance;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the service did not answer within 30 s: {}",
                instance.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .send()
            .await
            .expect("an answer")
    }

    async fn get_sales_order(&self, token: &str) -> reqwest::Response {
        self.http
            .get(self.url(&format!("/openapi/v1/SalesOrders/{SALES_ORDER}")))
            .bearer_auth(token)
            .send()
            .await
            .expect("an answer")
    }

    async fn metrics(&self) -> String {
        let response = self.get("/metrics").await;
        assert_eq!(response.status(), StatusCode::OK);
        response.text().await.expect("a body")
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// The value of the sample `name` (with its labels, as rendered) in a
/// Prometheus text page; 0 when absent.
fn sample(page: &str, name: &str) -> f64 {
    page.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0.0, |value| value.trim().parse().expect("a number"))
}

async fn json_error(response: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert!(response.headers().contains_key("x-request-id"));
    let body: Value =
        serde_json::from_slice(&response.bytes().await.expect("a body")).expect("a JSON body");
    assert_eq!(body["error"]["code"], status.as_u16(), "{body}");
    assert!(body["requestId"].is_string(), "{body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operations_endpoints_need_no_token_and_no_window() {
    let database = Database::sqlite().await;
    let token = database.tenant();
    let instance = Instance::start(&database, &["--rate-limit", "2"]).await;

    // More probes than the limit allows API calls: none is refused.
    for _ in 0..5 {
        let health = instance.get("/healthz").await;
        assert_eq!(health.status(), StatusCode::OK);
        let body: Value = serde_json::from_slice(&health.bytes().await.unwrap()).unwrap();
        assert_eq!(body["status"], "ok");
        assert_eq!(instance.get("/readyz").await.status(), StatusCode::OK);
    }

    let yaml = instance.get("/openapi.yaml").await;
    assert_eq!(yaml.status(), StatusCode::OK);
    assert_eq!(yaml.headers()["content-type"], "application/yaml");
    let file =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.yaml"))
            .unwrap();
    assert_eq!(
        yaml.text().await.unwrap(),
        file,
        "/openapi.yaml is the file"
    );
    let json = instance.get("/openapi.json").await.bytes().await.unwrap();
    let json: Value = serde_json::from_slice(&json).expect("JSON");
    assert_eq!(json["openapi"], "3.0.3");
    let operations = json["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter(|operation| operation["operationId"].is_string())
        .count();
    assert_eq!(operations, file.matches("operationId:").count());

    for path in ["/docs", "/docs/"] {
        let page = instance.get(path).await;
        assert_eq!(page.status(), StatusCode::OK, "{path}");
        assert!(
            page.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        let html = page.text().await.unwrap();
        assert!(
            html.contains("/docs/swagger-ui-bundle.js") && html.contains("/openapi.json"),
            "{html}"
        );
    }
    for asset in ["/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"] {
        let response = instance.get(asset).await;
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
        assert!(
            response.bytes().await.unwrap().len() > 100_000,
            "{asset} is the real asset"
        );
    }

    // A wrong method is 405 with the JSON error body.
    for path in ["/healthz", "/readyz", "/metrics", "/docs", "/openapi.yaml"] {
        let response = instance.http.post(instance.url(path)).send().await.unwrap();
        assert_eq!(response.headers()["allow"], "GET, HEAD", "{path}");
        let body = json_error(response, StatusCode::METHOD_NOT_ALLOWED).await;
        assert_eq!(body["error"]["errors"][0]["errorCode"], "MethodNotAllowed");
    }

    // Counters move with requests.
    let ok = r#"lfs_http_requests_total{operation="getSalesOrder",status="200"}"#;
    let refused = "lfs_rate_limit_refusals_total";
    let before = instance.metrics().await;
    assert!(before.contains("lfs_build_info{"), "{before}");
    assert!(before.contains("lfs_db_pool_max_connections"), "{before}");
    assert!(before.contains("lfs_http_requests_in_flight"), "{before}");
    for _ in 0..2 {
        assert_eq!(
            instance.get_sales_order(&token).await.status(),
            StatusCode::OK
        );
    }
    let third = instance.get_sales_order(&token).await;
    let retry_after = third.headers().get("x-retry-after").cloned();
    json_error(third, StatusCode::TOO_MANY_REQUESTS).await;
    assert!(retry_after.is_some());
    let after = instance.metrics().await;
    assert_eq!(sample(&after, ok) - sample(&before, ok), 2.0, "{after}");
    assert_eq!(
        sample(&after, refused) - sample(&before, refused),
        1.0,
        "{after}"
    );
    assert!(
        after.contains(r#"lfs_http_request_duration_seconds_bucket{operation="getSalesOrder",le="#),
        "{after}"
    );

    // Garbage tokens are never counted: each is 401, however many (defect 7).
    let garbage = "lfs_stg_0123456789abcdef0123456789abcdef0123456789";
    for n in 0..10 {
        let response = instance
            .http
            .get(instance.url("/openapi/v1/Customers/1"))
            .bearer_auth(format!("{garbage}{n}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert!(!response.headers().contains_key("x-remaining-calls"));
    }

    // One span per request, its fields kept in the JSON log lines.
    let log = instance.log();
    let line = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["span"]["operation"] == "getSalesOrder" && line["span"]["status"] == 200)
        .unwrap_or_else(|| panic!("a log line of the request's span: {log}"));
    assert!(
        line["span"]["request_id"]
            .as_str()
            .is_some_and(|id| id.len() > 8),
        "{line}"
    );
    assert!(
        line["span"]["tenant"]
            .as_str()
            .is_some_and(|id| id.len() == 36),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_can_be_served_on_an_address_of_their_own() {
    let database = Database::sqlite().await;
    database.tenant();
    let metrics = free_address();
    let instance = Instance::start(&database, &["--metrics-listen", &metrics.to_string()]).await;
    json_error(instance.get("/metrics").await, StatusCode::NOT_FOUND).await;
    let page = instance
        .http
        .get(format!("http://{metrics}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.text().await.unwrap().contains("lfs_build_info"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_fails_when_the_database_is_gone() {
    let Some(mut database) = Database::postgres().await else {
        return;
    };
    database.tenant();
    let instance = Instance::start(&database, &[]).await;
    assert_eq!(instance.get("/readyz").await.status(), StatusCode::OK);
    database.drop_now();
    let started = Instant::now();
    let response = instance.get("/readyz").await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let body = json_error(response, StatusCode::SERVICE_UNAVAILABLE).await;
    assert_eq!(
        body["error"]["errors"][0]["errorCode"], "NotReady",
        "{body}"
    );
    // The process itself is alive.
    assert_eq!(instance.get("/healthz").await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_healthcheck_command_asks_a_running_instance() {
    let database = Database::sqlite().await;
    database.tenant();
    let instance = Instance::start(&database, &[]).await;
    let address = instance.base.trim_start_matches("http://").to_owned();
    let check = |args: &[&str]| {
        Command::new(BINARY)
            .arg("healthcheck")
            .args(args)
            .env_remove("LOGISTICS_LISTEN")
            .output()
            .expect("the binary runs")
    };
    assert!(check(&["--address", &address]).status.success());
    assert!(check(&["--address", &address, "--ready"]).status.success());
    let port = address.rsplit_once(':').unwrap().1;
    assert!(
        check(&["--address", &format!("0.0.0.0:{port}")])
            .status
            .success(),
        "an unspecified address means the loopback one"
    );
    let closed = check(&["--address", &free_address().to_string()]);
    assert!(!closed.status.success());
    assert!(String::from_utf8_lossy(&closed.stderr).contains("cannot connect"));
}

/// Twelve calls alternating between two instances sharing a store with a
/// limit of ten: ten answered, two refused.
async fn two_instances_share_one_window(database: &Database, store: &[&str]) {
    let token = database.tenant();
    let mut args = vec!["--rate-limit", "10"];
    args.extend_from_slice(store);
    let instances = [
        Instance::start(database, &args).await,
        Instance::start(database, &args).await,
    ];
    let mut statuses = Vec::new();
    for n in 0..12 {
        let response = instances[n % 2].get_sales_order(&token).await;
        let status = response.status();
        if status == StatusCode::TOO_MANY_REQUESTS {
            let retry: u64 = response.headers()["x-retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!((1..=60).contains(&retry), "{retry}");
        }
        statuses.push(status);
    }
    let ok = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    let refused = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!((ok, refused), (10, 2), "{statuses:?}");
    assert_eq!(&statuses[10..], [StatusCode::TOO_MANY_REQUESTS; 2]);
    for instance in &instances {
        assert!(
            !instance.log().contains("rate-limit store did not answer"),
            "{}",
            instance.log()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_on_one_postgresql_share_the_rate_limit() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    // The default store on PostgreSQL is the database.
    two_instances_share_one_window(&database, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_using_one_redis_share_the_rate_limit() {
    let redis =
        std::env::var("LFS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
    let reachable = async {
        let client = redis::Client::open(redis.as_str()).map_err(|e| e.to_string())?;
        let mut connection = tokio::time::timeout(
            Duration::from_secs(5),
            client.get_multiplexed_async_connection(),
        )
        .await
        .map_err(|_| "no answer within 5 s".to_owned())?
        .map_err(|e| e.to_string())?;
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .map_err(|e| e.to_string())
    }
    .await;
    if let Err(error) = reachable {
        unavailable(&format!("Redis at {redis}"), &error);
        return;
    }
    // Two instances on one SQLite file: only Redis can make them share.
    let database = Database::sqlite().await;
    let prefix = format!("lfs-test:{}:", uuid::Uuid::new_v4().simple());
    two_instances_share_one_window(
        &database,
        &["--rate-limit-store", &redis, "--rate-limit-prefix", &prefix],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_store_leaves_each_instance_its_own_limit() {
    let database = Database::sqlite().await;
    let token = database.tenant();
    // Nothing listens on the port.
    let store = format!("redis://{}", free_address());
    let instance = Instance::start(
        &database,
        &["--rate-limit", "3", "--rate-limit-store", &store],
    )
    .await;
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(instance.get_sales_order(&token).await.status());
    }
    assert_eq!(
        statuses,
        [
            StatusCode::OK,
            StatusCode::OK,
            StatusCode::OK,
            StatusCode::TOO_MANY_REQUESTS
        ]
    );
    let page = instance.metrics().await;
    assert!(
        sample(&page, r#"lfs_rate_limit_store_errors_total{store="redis"}"#) >= 4.0,
        "{page}"
    );
    assert!(
        instance.log().contains("rate-limit store did not answer"),
        "{}",
        instance.log()
    );
}

/// Chromium: `LFS_CHROMIUM`, or `chromium` / `chromium-browser` on the PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("LFS_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| [dir.join("chromium"), dir.join("chromium-browser")])
        .find(|candidate| candidate.is_file())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_page_renders_every_operation_in_a_browser() {
    let Some(browser) = chromium() else {
        unavailable(
            "Chromium (LFS_CHROMIUM, or chromium on the PATH)",
            "not found",
        );
        return;
    };
    let database = Database::sqlite().await;
    database.tenant();
    let instance = Instance::start(&database, &[]).await;
    let profile =
        std::env::temp_dir().join(format!("lfs_chromium_{}", uuid::Uuid::new_v4().simple()));
    let url = instance.url("/docs");
    // Headless, the page's scripts run (the document fetched, the operations
    // rendered) within the virtual time budget; then the DOM is printed.
    let dump = tokio::task::spawn_blocking(move || {
        let output = Command::new("timeout")
            .args(["-k", "5", "90"])
            .arg(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--virtual-time-budget=15000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(&url)
            .output()
            .expect("Chromium runs");
        let _ = std::fs::remove_dir_all(&profile);
        output
    })
    .await
    .unwrap();
    let dom = String::from_utf8_lossy(&dump.stdout);
    assert!(
        dump.status.success(),
        "Chromium failed: {}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let spec =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.yaml"))
            .unwrap();
    let operations: Vec<&str> = spec
        .lines()
        .filter_map(|line| line.trim().strip_prefix("operationId:"))
        .map(str::trim)
        .collect();
    assert!(!operations.is_empty());
    for operation in &operations {
        // Swagger UI gives each operation's block the id `operations-<tag>-<operationId>`.
        let block = format!("-{operation}\"");
        assert!(
            dom.match_indices("id=\"operations-")
                .any(|(at, _)| dom[at..]
                    .split_once('>')
                    .is_some_and(|(tag, _)| tag.contains(&block))),
            "{operation} is not rendered on /docs:\n{dom}"
        );
    }
    assert!(
        dom.contains(&instance.base),
        "the servers list names this instance:\n{dom}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_container_files_use_what_the_binary_has() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
    let compose = std::fs::read_to_string(root.join("compose.yaml")).unwrap();

    // The health check the image declares, run as the image would (its
    // LOGISTICS_LISTEN says every address) against a running instance.
    let check: Vec<String> = dockerfile
        .lines()
        .skip_while(|line| !line.starts_with("HEALTHCHECK"))
        .find_map(|line| line.trim().strip_prefix("CMD "))
        .map(|json| serde_json::from_str(json).expect("the exec form"))
        .expect("a HEALTHCHECK with CMD");
    assert_eq!(check[0], "/usr/local/bin/logistics-service");
    assert!(dockerfile.contains("ENV LOGISTICS_LISTEN=0.0.0.0:8080"));
    let database = Database::sqlite().await;
    database.tenant();
    let instance = Instance::start(&database, &[]).await;
    let port = instance.base.rsplit_once(':').unwrap().1.to_owned();
    let healthy = Command::new(BINARY)
        .args(&check[1..])
        .env("LOGISTICS_LISTEN", format!("0.0.0.0:{port}"))
        .output()
        .unwrap();
    assert!(
        healthy.status.success(),
        "{}",
        String::from_utf8_lossy(&healthy.stderr)
    );
    drop(instance);
    let unhealthy = Command::new(BINARY)
        .args(&check[1..])
        .env("LOGISTICS_LISTEN", format!("0.0.0.0:{port}"))
        .output()
        .unwrap();
    assert!(
        !unhealthy.status.success(),
        "a stopped instance is unhealthy"
    );

    // Every setting compose.yaml gives the service is one `serve` reads.
    let help = Command::new(BINARY)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let variables: Vec<&str> = compose
        .lines()
        .filter_map(|line| line.trim().split_once(':').map(|(name, _)| name))
        .filter(|name| name.starts_with("LOGISTICS_") || *name == "DATABASE_URL")
        .collect();
    assert!(variables.len() >= 5, "{variables:?}");
    for variable in variables {
        assert!(
            help.contains(&format!("[env: {variable}")),
            "`serve` does not read {variable}:\n{help}"
        );
    }
    let store = compose
        .lines()
        .find_map(|line| line.trim().strip_prefix("LOGISTICS_RATE_LIMIT_STORE: "))
        .expect("compose.yaml sets the store");
    assert!(
        store
            .parse::<logistics_service::rate_limit::StoreChoice>()
            .is_ok(),
        "{store}"
    );
}
