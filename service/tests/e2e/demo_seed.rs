//! The staging demo of a first start appears whole or not at all: a start
//! interrupted at any point leaves nothing that a token or emulation reaches,
//! and the next start makes the whole demo and gives its token (decision
//! D36; issue 18, defect 5).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use logistics_client::ListReturnsParams;
use logistics_client::models::SalesOrderState;
use logistics_client::reqwest::Method;
use logistics_models::dynamic_query::DynamicQuery;
use logistics_models::{
    Customer, ReceivingOrder, SalesOrder, TaggedReturn, TransferDetail, UpsertFailure,
};
use logistics_service::domain::receiving_orders::ReceivingOrderState;
use logistics_service::domain::repository::{
    CustomerRules, NewCustomer, OrderDecision, PlanBatch, Result, SalesOrderChange, StepCheck,
    TenantRecord,
};
use logistics_service::domain::returns::{ReturnProperty, ReturnStep};
use logistics_service::domain::tenancy::{Environment, TokenRecord};
use logistics_service::domain::{
    CustomerRepository, DomainError, ReceivingOrderRepository, ReturnRepository,
    SalesOrderRepository, TenantRepository,
};
use logistics_service::seed;
use logistics_service::storage::Store;

use crate::harness::*;

/// The store, until a number of calls has been made; then every call fails,
/// as if the process had died there (each call is one transaction of its
/// own, so what a crash leaves is what the calls before it committed).
struct Crashing<'a> {
    store: &'a Store,
    calls_left: AtomicUsize,
    /// The bindings attempted and the tokens shown, in order.
    events: Mutex<Vec<&'static str>>,
}

impl<'a> Crashing<'a> {
    fn after(store: &'a Store, calls: usize) -> Self {
        Crashing {
            store,
            calls_left: AtomicUsize::new(calls),
            events: Mutex::new(Vec::new()),
        }
    }

    fn note(&self, event: &'static str) {
        self.events.lock().unwrap().push(event);
    }

    fn call(&self) -> Result<()> {
        self.calls_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .map(drop)
            .map_err(|_| DomainError::Unavailable("the process crashed here".to_owned()))
    }

    fn crashed(&self) -> bool {
        self.calls_left.load(Ordering::SeqCst) == 0
    }
}

impl TenantRepository for Crashing<'_> {
    async fn insert_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        self.call()?;
        self.store.insert_tenant(tenant).await
    }
    async fn insert_unbound_tenant(
        &self,
        tenant: uuid::Uuid,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<()> {
        self.call()?;
        self.store.insert_unbound_tenant(tenant, name, at).await
    }
    async fn bind_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        self.note("bind");
        self.call()?;
        self.store.bind_tenant(tenant).await
    }
    async fn add_token(&self, tenant: &TenantRecord) -> Result<()> {
        self.call()?;
        self.store.add_token(tenant).await
    }
    async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
        self.call()?;
        self.store.find_token(key_id).await
    }
    async fn tenant_exists(&self, tenant: uuid::Uuid) -> Result<bool> {
        self.call()?;
        self.store.tenant_exists(tenant).await
    }
    async fn tenant_environment(&self, tenant: uuid::Uuid) -> Result<Option<Environment>> {
        self.call()?;
        self.store.tenant_environment(tenant).await
    }
    async fn has_tenants(&self) -> Result<bool> {
        self.call()?;
        self.store.has_tenants().await
    }
}

impl CustomerRepository for Crashing<'_> {
    async fn insert_customer(
        &self,
        tenant: uuid::Uuid,
        customer: &NewCustomer,
        rules: &CustomerRules,
    ) -> Result<Customer> {
        self.call()?;
        self.store.insert_customer(tenant, customer, rules).await
    }
    async fn customer(&self, tenant: uuid::Uuid, customer_no: i32) -> Result<Option<Customer>> {
        self.call()?;
        self.store.customer(tenant, customer_no).await
    }
}

impl ReceivingOrderRepository for Crashing<'_> {
    async fn apply_batch(
        &self,
        tenant: uuid::Uuid,
        batch: &[ReceivingOrder],
        plan: &PlanBatch<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<UpsertFailure>> {
        self.call()?;
        self.store.apply_batch(tenant, batch, plan, now).await
    }
    async fn update_transfer_detail(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        decide: &OrderDecision<'_, TransferDetail>,
        now: DateTime<Utc>,
    ) -> Result<TransferDetail> {
        self.call()?;
        self.store
            .update_transfer_detail(tenant, reference, decide, now)
            .await
    }
    async fn update_receiving_order_state(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        decide: &OrderDecision<'_, ReceivingOrderState>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.call()?;
        self.store
            .update_receiving_order_state(tenant, reference, decide, now)
            .await
    }
}

impl SalesOrderRepository for Crashing<'_> {
    async fn sales_order(&self, tenant: uuid::Uuid, reference: &str) -> Result<Option<SalesOrder>> {
        self.call()?;
        self.store.sales_order(tenant, reference).await
    }
    async fn import_sales_orders(
        &self,
        tenant: uuid::Uuid,
        orders: &[SalesOrder],
        rules: &CustomerRules,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        self.call()?;
        self.store
            .import_sales_orders(tenant, orders, rules, now)
            .await
    }
    async fn update_sales_order(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        change: &SalesOrderChange<'_>,
    ) -> Result<SalesOrder> {
        self.call()?;
        self.store
            .update_sales_order(tenant, reference, change)
            .await
    }
}

impl ReturnRepository for Crashing<'_> {
    async fn list_returns<P: ReturnProperty>(
        &self,
        tenant: uuid::Uuid,
        query: &DynamicQuery<P>,
    ) -> Result<(Vec<TaggedReturn>, i64)> {
        self.call()?;
        self.store.list_returns(tenant, query).await
    }
    async fn insert_returns(&self, tenant: uuid::Uuid, returns: &[TaggedReturn]) -> Result<usize> {
        self.call()?;
        self.store.insert_returns(tenant, returns).await
    }
    async fn record_return_step(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        step: ReturnStep,
        check: &StepCheck<'_>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.call()?;
        self.store
            .record_return_step(tenant, reference, step, check, now)
            .await
    }
    async fn set_return_tag(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        tag: &str,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        self.call()?;
        self.store.set_return_tag(tenant, reference, tag, now).await
    }
}

/// More calls than the demo makes: the loop below ends well before.
const MOST_CALLS: usize = 200;

on_both_backends! {
    async fn a_start_interrupted_anywhere_is_followed_by_a_whole_demo(service) {
        // A first start that dies after 0, 1, 2, … of its store calls, until
        // one gets through: every point where the seed can stop.
        let mut interrupted = 0;
        let mut shown_before_a_crash = Vec::new();
        let demo = loop {
            assert!(interrupted < MOST_CALLS, "the demo never finished");
            let crashing = Crashing::after(service.store(), interrupted);
            let shown = Mutex::new(None::<String>);
            let started = async {
                let demo = seed::first_start(&crashing, Environment::Staging)
                    .await?
                    .expect("a database without tenants gets the demo");
                demo.publish(&crashing, |demo| {
                    crashing.note("shown");
                    *shown.lock().unwrap() = Some(demo.token.clone());
                    Ok(())
                })
                .await
            }
            .await;
            let shown = shown.into_inner().unwrap();
            match started {
                Ok(demo) => {
                    // The token was shown before the tenant was bound: no
                    // interruption can leave a reachable demo whose token
                    // nobody saw.
                    assert_eq!(*crashing.events.lock().unwrap(), ["shown", "bind"]);
                    assert_eq!(shown.as_deref(), Some(demo.token.as_str()));
                    break demo;
                }
                Err(error) => assert!(crashing.crashed(), "only the crash stops the demo: {error}"),
            }
            // What the crash left is reachable by nothing: no tenant is in
            // an environment, so the next start makes the demo again.
            assert!(
                !service.store().has_tenants().await.unwrap(),
                "a start that died after {interrupted} calls left a tenant in an environment"
            );
            shown_before_a_crash.extend(shown);
            interrupted += 1;
        };
        // A start that died at the binding had shown a token, which opens
        // nothing: the token of the start that followed does.
        assert_eq!(shown_before_a_crash.len(), 1, "one start died at the binding");
        for token in &shown_before_a_crash {
            let refusal = refused(service.client(token).get_sales_order(seed::DEMO_SALES_ORDER).await);
            assert_eq!(refusal.status().as_u16(), 401);
        }
        assert!(interrupted > 10, "the demo was interrupted at every call ({interrupted})");
        assert_eq!(
            service.store().tenant_environment(demo.tenant_id).await.unwrap(),
            Some(Environment::Staging)
        );

        // The demo is whole, and its token works: what the printed curls ask.
        let client = service.client(&demo.token);
        let order = client.get_sales_order(seed::DEMO_SALES_ORDER).await.unwrap();
        assert_eq!(order.state, SalesOrderState::Shipped);
        assert_eq!(client.get_sales_order("SO-DEMO-0007").await.unwrap().state, SalesOrderState::Cancelled);
        let response = service
            .raw(Method::GET, "/openapi/v1/Returns/GetReturnsWithTag?dqb=o%3Dne%26p%3Dtag%26v%3Dnull")
            .bearer_auth(&demo.token)
            .send()
            .await
            .unwrap();
        let (status, body) = json_of(response).await;
        assert_eq!((status, &body["dataSetCount"]), (200, &serde_json::json!(3)), "{body}");
        assert_eq!(client.list_returns(ListReturnsParams::default()).await.unwrap().data_set_count, 6);
        assert_eq!(client.get_customer(1).await.unwrap().email, "elif.yilmaz@example.com");
        for (table, rows) in [("customers", 3), ("receiving_orders", 3), ("sales_orders", 7), ("returns", 6)] {
            assert_eq!(service.count_rows(table, demo.tenant_id).await, rows, "{table}");
        }
        // What each interrupted start wrote went with the start after it,
        // in the transaction that began the new demo: the demo is the only
        // tenant.
        let others = "SELECT COUNT(*) FROM tenants WHERE id <> $1";
        assert_eq!(service.count_where(others, demo.tenant_id).await, 0);

        // And the demo is made once: the next start has nothing to do.
        assert!(seed::first_start(service.store(), Environment::Staging).await.unwrap().is_none());
        assert!(seed::first_start(service.store(), Environment::Production).await.unwrap().is_none());
    }
}

/// The service binary serving staging on a database, its output collected:
/// the printed demo (stdout) and where it listens (its JSON log on stderr).
struct Started {
    child: std::process::Child,
    stdout: std::sync::Arc<std::sync::Mutex<String>>,
    /// Reads stdout until the process closes it.
    reading: Option<std::thread::JoinHandle<()>>,
    address: std::sync::mpsc::Receiver<String>,
}

impl Started {
    fn serve(database: &str) -> Started {
        use std::io::{BufRead as _, BufReader};
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_logistics-service"))
            .args([
                "--environment",
                "staging",
                "--log-format",
                "json",
                "--database",
                database,
            ])
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env_remove("DATABASE_URL")
            .env_remove("LOGISTICS_ENVIRONMENT")
            .env("RUST_LOG", "info")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the service binary starts");
        let stdout = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let printed = std::sync::Arc::clone(&stdout);
        let out = child.stdout.take().expect("stdout");
        let reading = std::thread::spawn(move || {
            for line in BufReader::new(out)
                .lines()
                .map_while(std::result::Result::ok)
            {
                let mut printed = printed.lock().unwrap();
                printed.push_str(&line);
                printed.push('\n');
            }
        });
        let (found, address) = std::sync::mpsc::channel();
        let err = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(err)
                .lines()
                .map_while(std::result::Result::ok)
            {
                if let Ok(entry) = serde_json::from_str::<serde_json::Value>(&line) {
                    if let Some(at) = entry["fields"]["address"].as_str() {
                        let _ = found.send(at.to_owned());
                    }
                }
            }
        });
        Started {
            child,
            stdout,
            reading: Some(reading),
            address,
        }
    }

    /// SIGKILL; returns once the process is gone and all it printed is read.
    fn kill(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("the killed process ends");
        if let Some(reading) = self.reading.take() {
            reading.join().expect("stdout is read to its end");
        }
    }

    /// The demo token the process printed, if it printed one.
    fn printed_token(&self) -> Option<String> {
        let printed = self.stdout.lock().unwrap();
        printed
            .lines()
            .find_map(|line| line.trim().strip_prefix("token:"))
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned)
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many rows `table` has in `database`; 0 while it cannot be read (the
/// file or the table is not made yet).
async fn rows(backend: Backend, database: &TestDatabase, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    match backend {
        Backend::Sqlite => {
            let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&database.url);
            match <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options).await {
                Ok(mut c) => sqlx::query_scalar(&sql)
                    .fetch_one(&mut c)
                    .await
                    .unwrap_or(0),
                Err(_) => 0,
            }
        }
        Backend::Postgres => {
            match <sqlx::PgConnection as sqlx::Connection>::connect(&database.url).await {
                Ok(mut c) => sqlx::query_scalar(&sql)
                    .fetch_one(&mut c)
                    .await
                    .unwrap_or(0),
                Err(_) => 0,
            }
        }
    }
}

/// The reproduction: the first start is killed (SIGKILL) while it
/// makes the demo — as soon as its tenant is stored, as soon as its sales
/// orders are, and as soon as its token is (the tenant bound) — and the
/// service is started again. The token printed last opens the whole demo.
async fn a_killed_first_start_is_followed_by_a_whole_demo(backend: Backend) {
    for kill_when_stored in ["tenants", "sales_orders", "tokens"] {
        let Some(database) = TestDatabase::create(backend).await else {
            return;
        };
        let mut first = Started::serve(&database.url);
        let watching = std::time::Instant::now();
        while rows(backend, &database, kill_when_stored).await == 0 {
            assert!(
                watching.elapsed() < std::time::Duration::from_secs(60),
                "the first start stored no {kill_when_stored} within 60 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        tokio::task::block_in_place(|| first.kill());
        if kill_when_stored == "tokens" {
            // Killed at once after the binding: the token was printed
            // before it (a start killed between the two lost it for good).
            assert!(
                first.printed_token().is_some(),
                "killed once its token was stored, the first start had printed it"
            );
        }
        let second = Started::serve(&database.url);
        let address = tokio::task::block_in_place(|| {
            second
                .address
                .recv_timeout(std::time::Duration::from_secs(60))
        })
        .expect("the second start serves");
        // The second start prints a demo when the first did not bind one,
        // right after the line that says where it serves. A token the first
        // printed before it was killed opens nothing then.
        let mut token = None;
        for _ in 0..100 {
            token = second.printed_token();
            if token.is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let token = token.or_else(|| first.printed_token()).unwrap_or_else(|| {
            panic!("killed once {kill_when_stored} were stored: no start printed a token")
        });
        let http = logistics_client::reqwest::Client::new();
        for (path, count) in [
            ("/openapi/v1/SalesOrders/SO-DEMO-0005", None),
            ("/openapi/v1/Returns", Some(6)),
            (
                "/openapi/v1/Returns/GetReturnsWithTag?dqb=o%3Dne%26p%3Dtag%26v%3Dnull",
                Some(3),
            ),
        ] {
            let response = http
                .get(format!("http://{address}{path}"))
                .bearer_auth(&token)
                .timeout(std::time::Duration::from_secs(30))
                .send()
                .await
                .expect("an answer");
            let (status, body) = json_of(response).await;
            assert_eq!(
                status, 200,
                "killed once {kill_when_stored} were stored: {path}: {body}"
            );
            if let Some(count) = count {
                assert_eq!(
                    body["dataSetCount"], count,
                    "killed once {kill_when_stored} were stored: {path}"
                );
            }
        }
        // The killed start's demo, in no environment, went when the second
        // made its own: one tenant is left, the one the token opens.
        assert_eq!(
            rows(backend, &database, "tenants").await,
            1,
            "killed once {kill_when_stored} were stored: tenants left behind"
        );
        drop(second);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_killed_first_start_is_followed_by_a_whole_demo() {
    a_killed_first_start_is_followed_by_a_whole_demo(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_killed_first_start_is_followed_by_a_whole_demo() {
    a_killed_first_start_is_followed_by_a_whole_demo(Backend::Postgres).await;
}

/// Two instances started at once on one empty PostgreSQL database take
/// turns at the first start: one makes the demo and prints its token, the
/// other finds it bound and makes none (neither removes the other's demo
/// as an interrupted one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_first_starts_at_once_make_one_demo() {
    let Some(database) = TestDatabase::create(Backend::Postgres).await else {
        return;
    };
    let starts = [Started::serve(&database.url), Started::serve(&database.url)];
    for start in &starts {
        // Each logs where it serves once its first start is over: the one
        // that waited, only after the other's demo was bound.
        tokio::task::block_in_place(|| {
            start
                .address
                .recv_timeout(std::time::Duration::from_secs(60))
        })
        .expect("both instances serve");
    }
    // The token is on stdout, read by a thread of its own.
    let mut printed = Vec::new();
    for _ in 0..100 {
        printed = starts.iter().filter_map(Started::printed_token).collect();
        if !printed.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(printed.len(), 1, "one instance printed a demo: {printed:?}");
    for table in ["tenants", "tokens", "sales_orders"] {
        let one_demo = if table == "sales_orders" { 7 } else { 1 };
        assert_eq!(
            rows(Backend::Postgres, &database, table).await,
            one_demo,
            "{table}"
        );
    }
}

/// Runs the service binary on `database` with `serve_args` until it exits,
/// and returns its exit status and what it wrote on stderr.
fn start_that_fails(database: &str, serve_args: &[&str]) -> (std::process::ExitStatus, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_logistics-service"))
        .args(["--environment", "staging", "--database", database, "serve"])
        .args(serve_args)
        .env_remove("DATABASE_URL")
        .env_remove("LOGISTICS_ENVIRONMENT")
        .env_remove("LOGISTICS_RATE_LIMIT_STORE")
        .output()
        .expect("the service binary runs");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A first start refused on its settings (a rate-limit store the database
/// cannot be, an address in use) writes no demo: each such start used to
/// leave one more unpublished demo tenant behind.
async fn a_refused_start_writes_no_demo(backend: Backend) {
    let Some(database) = TestDatabase::create(backend).await else {
        return;
    };
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let taken = taken.local_addr().unwrap().to_string();
    let mut refusals = vec![vec!["--listen", taken.as_str()]];
    if backend == Backend::Sqlite {
        refusals.push(vec![
            "--listen",
            "127.0.0.1:0",
            "--rate-limit-store",
            "database",
        ]);
    }
    for serve_args in refusals {
        let (status, stderr) =
            tokio::task::block_in_place(|| start_that_fails(&database.url, &serve_args));
        assert!(!status.success(), "{serve_args:?} is refused: {stderr}");
        for table in ["tenants", "customers", "sales_orders", "returns"] {
            assert_eq!(
                rows(backend, &database, table).await,
                0,
                "{serve_args:?} was refused after writing {table}: {stderr}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_refused_start_writes_no_demo() {
    a_refused_start_writes_no_demo(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_refused_start_writes_no_demo() {
    a_refused_start_writes_no_demo(Backend::Postgres).await;
}
