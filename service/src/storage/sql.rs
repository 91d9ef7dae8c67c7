//! The repository over sqlx, written once and instantiated for SQLite and
//! PostgreSQL. The SQL is shared (numbered `$n` placeholders work on both);
//! what differs — how a writing transaction begins, and row locks — is a
//! parameter of the instantiation.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use logistics_models::{
    Address, Customer, CustomerInput, CustomerSummary, ReceivingOrder, SalesOrder, SalesOrderState,
    TaggedReturn, TransferDetail, UpsertFailure,
};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Pool, Postgres, QueryBuilder, Row, Sqlite};
use uuid::Uuid;

use super::migrate::{Dialect, migrator};
use super::returns_query::{Bind, SqlQuery};
use super::{NewTenant, Repository, Result};
use crate::domain::receiving_orders::{self, Decision, ExistingOrder, ReceivingOrderState};
use crate::domain::returns::{self, ReturnProgress, ReturnStep};
use crate::domain::tenancy::{Environment, NewToken, TokenRecord};
use crate::domain::{self, DomainError, micros_to_time, time_to_micros};

/// How many times a write that lost a race (a unique key taken by a
/// concurrent request, a deadlock) is retried before the error is reported.
const WRITE_ATTEMPTS: usize = 5;

/// Rows per multi-row `INSERT`, well within both databases' parameter limits.
const ROWS_PER_INSERT: usize = 1000;

/// The repository over one database.
#[derive(Debug)]
pub struct SqlStore<DB: sqlx::Database> {
    pool: Pool<DB>,
}

impl<DB: sqlx::Database> Clone for SqlStore<DB> {
    fn clone(&self) -> Self {
        SqlStore {
            pool: self.pool.clone(),
        }
    }
}

/// The repository over whichever database the service was configured with.
#[derive(Debug, Clone)]
pub enum Store {
    /// SQLite, a file.
    Sqlite(SqlStore<Sqlite>),
    /// PostgreSQL, a server.
    Postgres(SqlStore<Postgres>),
}

/// Why the database could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The URL or the connection failed.
    #[error("cannot open the database {url}: {source}")]
    Connect {
        /// The database, with any password removed.
        url: String,
        /// What sqlx said.
        source: sqlx::Error,
    },
    /// The schema could not be brought up to date.
    #[error("cannot apply the migrations to {url}: {source}")]
    Migrate {
        /// The database, with any password removed.
        url: String,
        /// What sqlx said.
        source: sqlx::migrate::MigrateError,
    },
    /// The folder of a SQLite file could not be created.
    #[error("cannot create the folder {path}: {source}")]
    Folder {
        /// The folder.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
}

impl Store {
    /// The pool size when none is given: 16 for PostgreSQL; for SQLite two
    /// per CPU, between 2 and 16. sqlx runs each SQLite connection on a thread
    /// of its own, and SQLite has one writer at a time: past a few connections
    /// they add memory (a page cache each) and hand-offs, not throughput
    /// (`cargo xtask bench`, docs/performance.md).
    pub fn default_max_connections(url: &str) -> u32 {
        if is_postgres(url) {
            16
        } else {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            (2 * cpus).clamp(2, 16) as u32
        }
    }

    /// Opens the database at `url` — `postgres://…` or a SQLite file
    /// (`sqlite://path` or a plain path) — and applies the migrations.
    pub async fn open(url: &str, max_connections: u32) -> std::result::Result<Store, OpenError> {
        let shown = redact(url);
        if is_postgres(url) {
            let options = PgConnectOptions::from_str(url).map_err(|source| OpenError::Connect {
                url: shown.clone(),
                source,
            })?;
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await
                .map_err(|source| OpenError::Connect {
                    url: shown.clone(),
                    source,
                })?;
            migrator(Dialect::Postgres)
                .run(&pool)
                .await
                .map_err(|source| OpenError::Migrate { url: shown, source })?;
            return Ok(Store::Postgres(SqlStore { pool }));
        }
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        if let Some(parent) = std::path::Path::new(path)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|source| OpenError::Folder {
                path: parent.display().to_string(),
                source,
            })?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // A commit is on disk before it is acknowledged.
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true)
            // LIKE is case-sensitive, as on PostgreSQL.
            .pragma("case_sensitive_like", "ON");
        let pool = SqlitePoolOptions::new()
            .max_connections(max_connections)
            .connect_with(options)
            .await
            .map_err(|source| OpenError::Connect {
                url: shown.clone(),
                source,
            })?;
        migrator(Dialect::Sqlite)
            .run(&pool)
            .await
            .map_err(|source| OpenError::Migrate { url: shown, source })?;
        Ok(Store::Sqlite(SqlStore { pool }))
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        match self {
            Store::Sqlite(store) => store.pool.close().await,
            Store::Postgres(store) => store.pool.close().await,
        }
    }

    /// The connection pool, for metrics: connections open, idle, and the most.
    pub fn pool_status(&self) -> (u32, u32, u32) {
        fn of<DB: sqlx::Database>(pool: &Pool<DB>) -> (u32, u32, u32) {
            let idle = u32::try_from(pool.num_idle()).unwrap_or(u32::MAX);
            (pool.size(), idle, pool.options().get_max_connections())
        }
        match self {
            Store::Sqlite(store) => of(&store.pool),
            Store::Postgres(store) => of(&store.pool),
        }
    }

    /// Which database this is, for logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "SQLite",
            Store::Postgres(_) => "PostgreSQL",
        }
    }
}

/// The URL with any password replaced, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// Whether `url` names a PostgreSQL database (anything else is a SQLite file).
fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Whether an error is a lost race worth retrying.
fn is_retryable(error: &DomainError) -> bool {
    let DomainError::Storage(sqlx::Error::Database(db)) = error else {
        return false;
    };
    // unique_violation (a concurrent insert won), deadlock_detected,
    // serialization_failure.
    db.is_unique_violation() || matches!(db.code().as_deref(), Some("40P01" | "40001"))
}

fn unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

fn not_found(property: &'static str, what: String) -> DomainError {
    DomainError::NotFound {
        property,
        message: what,
    }
}

fn transfer_json(detail: &TransferDetail) -> String {
    let stored = serde_json::json!({
        "cargoTransfer": detail.cargo_transfer,
        "pickupTransfer": detail.pickup_transfer,
        "carriageTransfer": detail.carriage_transfer,
    });
    stored.to_string()
}

fn order_transfer_json(order: &ReceivingOrder) -> String {
    let stored = serde_json::json!({
        "cargoTransfer": order.cargo_transfer,
        "pickupTransfer": order.pickup_transfer,
        "carriageTransfer": order.carriage_transfer,
    });
    stored.to_string()
}

/// The lines of one order as they will be stored.
struct OrderLines<'a> {
    order_id: Uuid,
    item: &'a ReceivingOrder,
}

/// One row of the returns table, as the listing reads it.
const RETURN_COLUMNS: &str = "return_reference_number, sales_order_channel, sales_order_reference_number, notes, \
     tracking_id, cargo_carrier, created_at, updated_at, arrived_to_warehouse_at, completed_at, tag";

/// Runs `body` (with `tx` bound to the transaction) in a writing transaction
/// begun with `begin`; commits on success, rolls back on error, and runs it
/// again when it lost a race.
macro_rules! with_retries {
    ($pool:expr, $begin:literal, |$tx:ident| $body:expr) => {{
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut transaction = $pool.begin_with($begin).await?;
            let outcome: Result<_> = async {
                let $tx = &mut transaction;
                $body
            }
            .await;
            match outcome {
                Ok(value) => {
                    transaction.commit().await?;
                    break Ok(value);
                }
                Err(error) => {
                    transaction.rollback().await?;
                    if attempt >= WRITE_ATTEMPTS || !is_retryable(&error) {
                        break Err(error);
                    }
                    tracing::debug!(attempt, %error, "retrying a write that lost a race");
                }
            }
        }
    }};
}

macro_rules! sql_store {
    ($db:ty, begin_write = $begin:literal, lock_rows = $lock:literal) => {
        impl SqlStore<$db> {
            async fn next_customer_no(tx: &mut sqlx::Transaction<'static, $db>, tenant: Uuid) -> Result<i32> {
                let row = sqlx::query(
                    "UPDATE tenants SET last_customer_no = last_customer_no + 1 WHERE id = $1 RETURNING last_customer_no",
                )
                .bind(tenant)
                .fetch_optional(&mut **tx)
                .await?;
                let row = row.ok_or_else(|| not_found("X-Tenant-Id", format!("tenant {tenant} does not exist")))?;
                Ok(row.try_get(0)?)
            }

            /// Locks the tenant's row, whose customer counter every customer
            /// create takes first: an import that may create customers takes it
            /// before anything else, so that it and concurrent creates lock in one
            /// order (no deadlock) and it sees every customer committed before it
            /// (no duplicate email when it looks a customer up by email).
            async fn lock_customer_counter(tx: &mut sqlx::Transaction<'static, $db>, tenant: Uuid) -> Result<()> {
                sqlx::query(concat!("SELECT last_customer_no FROM tenants WHERE id = $1", $lock))
                    .bind(tenant)
                    .fetch_optional(&mut **tx)
                    .await?
                    .ok_or_else(|| not_found("X-Tenant-Id", format!("tenant {tenant} does not exist")))?;
                Ok(())
            }

            async fn customer_no_by_email(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                email_key: &str,
            ) -> Result<Option<(Uuid, i32, i64)>> {
                let row = sqlx::query("SELECT id, customer_no, created_at FROM customers WHERE tenant_id = $1 AND email_key = $2")
                    .bind(tenant)
                    .bind(email_key)
                    .fetch_optional(&mut **tx)
                    .await?;
                Ok(match row {
                    Some(row) => Some((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)),
                    None => None,
                })
            }

            async fn insert_customer(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                input: &CustomerInput,
                now: i64,
            ) -> Result<Customer> {
                let email_key = domain::customers::email_key(&input.email);
                // Taking the number first locks the tenant's counter: creates of
                // one tenant run one after the other, so numbers have no gaps.
                let customer_no = Self::next_customer_no(tx, tenant).await?;
                if let Some((_, existing, _)) = Self::customer_no_by_email(tx, tenant, &email_key).await? {
                    return Err(DomainError::Conflict {
                        property: "email",
                        code: "ResourceAlreadyExists",
                        message: format!("A customer with this email already exists (customerNo {existing})."),
                    });
                }
                let id = Uuid::new_v4();
                sqlx::query(
                    "INSERT INTO customers (id, tenant_id, customer_no, email, email_key, first_name, last_name, phone, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(id)
                .bind(tenant)
                .bind(customer_no)
                .bind(&input.email)
                .bind(&email_key)
                .bind(&input.first_name)
                .bind(&input.last_name)
                .bind(&input.phone)
                .bind(now)
                .execute(&mut **tx)
                .await?;
                Ok(Customer {
                    id,
                    customer_no,
                    email: input.email.clone(),
                    first_name: input.first_name.clone(),
                    last_name: input.last_name.clone(),
                    phone: input.phone.clone(),
                    created_at: micros_to_time(now),
                    addresses: Vec::new(),
                })
            }

            /// Adds `address` to the customer unless an identical one is there;
            /// returns it as stored (with its id and number).
            async fn add_address(
                tx: &mut sqlx::Transaction<'static, $db>,
                customer: Uuid,
                address: &Address,
            ) -> Result<Address> {
                let rows = sqlx::query(&format!("SELECT {ADDRESS_COLUMNS} FROM addresses WHERE customer_id = $1 ORDER BY address_no"))
                    .bind(customer)
                    .fetch_all(&mut **tx)
                    .await?;
                for row in &rows {
                    let stored = address_from_row(row, 0)?.expect("address rows have ids");
                    if same_place(&stored, address) {
                        return Ok(stored);
                    }
                }
                let row = sqlx::query(
                    "UPDATE customers SET last_address_no = last_address_no + 1 WHERE id = $1 RETURNING last_address_no",
                )
                .bind(customer)
                .fetch_one(&mut **tx)
                .await?;
                let address_no: i32 = row.try_get(0)?;
                let id = Uuid::new_v4();
                sqlx::query(
                    "INSERT INTO addresses (id, customer_id, address_no, first_name, last_name, company, address_one, \
                     address_two, district, city, postal_code, country, phone, tax_office, tax_number) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
                )
                .bind(id)
                .bind(customer)
                .bind(address_no)
                .bind(&address.address_first_name)
                .bind(&address.address_last_name)
                .bind(&address.company)
                .bind(&address.address_one)
                .bind(&address.address_two)
                .bind(&address.district)
                .bind(&address.city)
                .bind(&address.postal_code)
                .bind(&address.country)
                .bind(&address.address_phone)
                .bind(&address.tax_office)
                .bind(&address.tax_number)
                .execute(&mut **tx)
                .await?;
                Ok(Address { id, address_no, ..address.clone() })
            }

            async fn existing_orders(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                references: &[&str],
            ) -> Result<HashMap<String, (Uuid, ExistingOrder)>> {
                let mut found = HashMap::with_capacity(references.len());
                for chunk in references.chunks(ROWS_PER_INSERT) {
                    let mut query = QueryBuilder::<$db>::new(
                        "SELECT id, reference_number, state, integration_id FROM receiving_orders WHERE tenant_id = ",
                    );
                    query.push_bind(tenant).push(" AND reference_number IN (");
                    let mut list = query.separated(", ");
                    for reference in chunk {
                        list.push_bind(*reference);
                    }
                    // Locked in one order, so concurrent batches cannot deadlock.
                    query.push(") ORDER BY reference_number").push($lock);
                    for row in query.build().fetch_all(&mut **tx).await? {
                        let state: String = row.try_get(2)?;
                        let existing = ExistingOrder {
                            state: ReceivingOrderState::parse(&state).unwrap_or(ReceivingOrderState::Cancelled),
                            integration_id: row.try_get(3)?,
                        };
                        found.insert(row.try_get(1)?, (row.try_get(0)?, existing));
                    }
                }
                Ok(found)
            }

            async fn upsert_in(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                batch: &[ReceivingOrder],
            ) -> Result<Vec<UpsertFailure>> {
                let now = time_to_micros(domain::now());
                let mut references: Vec<&str> = batch.iter().filter_map(|o| o.reference_number.as_deref()).collect();
                references.sort_unstable();
                references.dedup();
                let mut known = Self::existing_orders(tx, tenant, &references).await?;
                let mut failures = Vec::new();
                let mut created: Vec<(Uuid, String, &ReceivingOrder)> = Vec::new();
                let mut replaced: Vec<Uuid> = Vec::new();
                // The final lines of every order this batch touches, by order id.
                let mut lines: Vec<OrderLines<'_>> = Vec::new();
                for item in batch {
                    let reference = item.reference_number.clone().unwrap_or_else(receiving_orders::new_reference_number);
                    match receiving_orders::decide(item, known.get(&reference).map(|(_, existing)| existing)) {
                        Decision::Create => {
                            let id = Uuid::new_v4();
                            known.insert(
                                reference.clone(),
                                (id, ExistingOrder { state: ReceivingOrderState::Created, integration_id: item.integration_id }),
                            );
                            created.push((id, reference, item));
                            lines.push(OrderLines { order_id: id, item });
                        }
                        Decision::Update => {
                            let id = known[&reference].0;
                            if !created.iter().any(|(c, _, _)| *c == id) && !replaced.contains(&id) {
                                replaced.push(id);
                            }
                            lines.retain(|l| l.order_id != id);
                            lines.push(OrderLines { order_id: id, item });
                        }
                        Decision::Refuse(message) => {
                            failures.push(UpsertFailure { reference_number: reference, message: message.to_owned() });
                        }
                    }
                }
                for chunk in created.chunks(ROWS_PER_INSERT) {
                    let mut query = QueryBuilder::<$db>::new(
                        "INSERT INTO receiving_orders (id, tenant_id, reference_number, integration_id, receive_type, \
                         transfer_type, transfer_detail, state, created_at, updated_at) ",
                    );
                    query.push_values(chunk, |mut row, (id, reference, item)| {
                        row.push_bind(*id)
                            .push_bind(tenant)
                            .push_bind(reference.as_str())
                            .push_bind(item.integration_id)
                            .push_bind(item.receive_type.as_str())
                            .push_bind(item.transfer_type.as_str())
                            .push_bind(order_transfer_json(item))
                            .push_bind(ReceivingOrderState::Created.as_str())
                            .push_bind(now)
                            .push_bind(now);
                    });
                    query.build().execute(&mut **tx).await?;
                }
                for chunk in replaced.chunks(ROWS_PER_INSERT) {
                    for table in ["receiving_order_lines", "receiving_order_lots"] {
                        let mut query = QueryBuilder::<$db>::new(format!("DELETE FROM {table} WHERE order_id IN ("));
                        let mut list = query.separated(", ");
                        for id in chunk {
                            list.push_bind(*id);
                        }
                        query.push(")");
                        query.build().execute(&mut **tx).await?;
                    }
                    let mut query = QueryBuilder::<$db>::new("UPDATE receiving_orders SET updated_at = ");
                    query.push_bind(now).push(" WHERE id IN (");
                    let mut list = query.separated(", ");
                    for id in chunk {
                        list.push_bind(*id);
                    }
                    query.push(")");
                    query.build().execute(&mut **tx).await?;
                }
                let line_rows: Vec<(Uuid, i32, &logistics_models::ReceivingOrderLineItem)> = lines
                    .iter()
                    .flat_map(|l| l.item.line_items.iter().enumerate().map(move |(i, line)| (l.order_id, i as i32, line)))
                    .collect();
                for chunk in line_rows.chunks(ROWS_PER_INSERT) {
                    let mut query = QueryBuilder::<$db>::new(
                        "INSERT INTO receiving_order_lines (order_id, position, item_no, sku, expected_quantity, lot_number, \
                         has_limit_check, tolerance, external_line_item_id) ",
                    );
                    query.push_values(chunk, |mut row, (order, position, line)| {
                        row.push_bind(*order)
                            .push_bind(*position)
                            .push_bind(line.item_no)
                            .push_bind(line.sku.as_str())
                            .push_bind(line.expected_quantity)
                            .push_bind(line.lot_number.as_deref())
                            .push_bind(line.has_limit_check)
                            .push_bind(line.tolerance)
                            .push_bind(line.external_line_item_id.as_deref());
                    });
                    query.build().execute(&mut **tx).await?;
                }
                let lot_rows: Vec<(Uuid, i32, &logistics_models::ReceivingOrderLotLine)> = lines
                    .iter()
                    .flat_map(|l| {
                        l.item.line_item_lot_numbers.iter().flatten().enumerate().map(move |(i, lot)| (l.order_id, i as i32, lot))
                    })
                    .collect();
                for chunk in lot_rows.chunks(ROWS_PER_INSERT) {
                    let mut query = QueryBuilder::<$db>::new(
                        "INSERT INTO receiving_order_lots (order_id, position, sku, lot_number, expected_quantity) ",
                    );
                    query.push_values(chunk, |mut row, (order, position, lot)| {
                        row.push_bind(*order)
                            .push_bind(*position)
                            .push_bind(lot.sku.as_deref())
                            .push_bind(lot.lot_number.as_deref())
                            .push_bind(lot.expected_quantity);
                    });
                    query.build().execute(&mut **tx).await?;
                }
                Ok(failures)
            }

            async fn order_for_update(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                reference: &str,
            ) -> Result<(Uuid, ExistingOrder)> {
                let row = sqlx::query(concat!(
                    "SELECT id, state, integration_id FROM receiving_orders WHERE tenant_id = $1 AND reference_number = $2",
                    $lock
                ))
                .bind(tenant)
                .bind(reference)
                .fetch_optional(&mut **tx)
                .await?
                .ok_or_else(|| not_found("referenceNumber", format!("No receiving order has the reference number {reference}.")))?;
                let state: String = row.try_get(1)?;
                Ok((
                    row.try_get(0)?,
                    ExistingOrder {
                        state: ReceivingOrderState::parse(&state).unwrap_or(ReceivingOrderState::Cancelled),
                        integration_id: row.try_get(2)?,
                    },
                ))
            }

            async fn sales_order_document(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                reference: &str,
            ) -> Result<SalesOrder> {
                let row = sqlx::query(concat!(
                    "SELECT document FROM sales_orders WHERE tenant_id = $1 AND reference_number = $2",
                    $lock
                ))
                .bind(tenant)
                .bind(reference)
                .fetch_optional(&mut **tx)
                .await?
                .ok_or_else(|| not_found("referenceNumber", format!("No sales order has the reference number {reference}.")))?;
                let document: String = row.try_get(0)?;
                Ok(serde_json::from_str(&document).map_err(|e| sqlx::Error::Decode(Box::new(e)))?)
            }

            async fn import_sales_orders_in(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                orders: &[SalesOrder],
            ) -> Result<usize> {
                let now = time_to_micros(domain::now());
                Self::lock_customer_counter(tx, tenant).await?;
                for (i, order) in orders.iter().enumerate() {
                    let email_key = domain::customers::email_key(&order.customer.email);
                    let (customer_id, customer_no, created_at) =
                        match Self::customer_no_by_email(tx, tenant, &email_key).await? {
                            Some(found) => found,
                            None => {
                                let input = CustomerInput {
                                    email: order.customer.email.clone(),
                                    first_name: order.customer.first_name.clone(),
                                    last_name: order.customer.last_name.clone(),
                                    phone: order.customer.phone.clone(),
                                };
                                let customer = Self::insert_customer(tx, tenant, &input, now).await?;
                                (customer.id, customer.customer_no, now)
                            }
                        };
                    let mut stored = order.clone();
                    stored.customer = CustomerSummary {
                        id: customer_id,
                        customer_no,
                        created_at: micros_to_time(created_at),
                        ..order.customer.clone()
                    };
                    if let Some(address) = &order.shipping_address {
                        stored.shipping_address = Some(Self::add_address(tx, customer_id, address).await?);
                    }
                    if let Some(address) = &order.billing_address {
                        stored.billing_address = Some(Self::add_address(tx, customer_id, address).await?);
                    }
                    let document = serde_json::to_string(&stored).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                    let inserted = sqlx::query(
                        "INSERT INTO sales_orders (id, tenant_id, reference_number, customer_id, state, document, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    )
                    .bind(stored.id)
                    .bind(tenant)
                    .bind(&stored.reference_number)
                    .bind(customer_id)
                    .bind(stored.state.as_str())
                    .bind(&document)
                    .bind(time_to_micros(stored.created_at))
                    .bind(time_to_micros(stored.updated_at))
                    .execute(&mut **tx)
                    .await;
                    match inserted {
                        Err(error) if unique_violation(&error) => {
                            return Err(DomainError::invalid(
                                format!("[{i}].referenceNumber"),
                                format!("a sales order with reference number {} (or id {}) already exists", stored.reference_number, stored.id),
                                "ResourceAlreadyExists",
                            ));
                        }
                        other => {
                            other?;
                        }
                    }
                }
                Ok(orders.len())
            }

            async fn import_returns_in(
                tx: &mut sqlx::Transaction<'static, $db>,
                tenant: Uuid,
                items: &[TaggedReturn],
            ) -> Result<usize> {
                for (i, item) in items.iter().enumerate() {
                    let inserted = sqlx::query(
                        "INSERT INTO returns (id, tenant_id, return_reference_number, sales_order_channel, \
                         sales_order_reference_number, notes, tracking_id, cargo_carrier, created_at, updated_at, \
                         arrived_to_warehouse_at, completed_at, tag) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                    )
                    .bind(Uuid::new_v4())
                    .bind(tenant)
                    .bind(&item.return_reference_number)
                    .bind(&item.sales_order_channel)
                    .bind(&item.sales_order_reference_number)
                    .bind(&item.notes)
                    .bind(&item.tracking_id)
                    .bind(&item.cargo_carrier)
                    .bind(time_to_micros(item.created_at))
                    .bind(time_to_micros(item.updated_at))
                    .bind(item.arrived_to_warehouse_at.map(time_to_micros))
                    .bind(item.completed_at.map(time_to_micros))
                    .bind(&item.tag)
                    .execute(&mut **tx)
                    .await;
                    match inserted {
                        Err(error) if unique_violation(&error) => {
                            return Err(DomainError::invalid(
                                format!("[{i}].returnReferenceNumber"),
                                format!("a return with reference number {} already exists", item.return_reference_number),
                                "ResourceAlreadyExists",
                            ));
                        }
                        other => {
                            other?;
                        }
                    }
                }
                Ok(items.len())
            }
        }

        impl Repository for SqlStore<$db> {
            async fn create_tenant(&self, name: &str, environment: Environment, emulation: bool) -> Result<NewTenant> {
                let token = NewToken::generate(environment)
                    .map_err(|e| DomainError::Internal(format!("the system's random source failed: {e}")))?;
                let tenant_id = Uuid::new_v4();
                let now = time_to_micros(domain::now());
                let mut tx = self.pool.begin_with($begin).await?;
                sqlx::query("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(tenant_id)
                    .bind(name)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "INSERT INTO tokens (key_id, tenant_id, environment, secret_hash, emulation, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(&token.key_id)
                .bind(tenant_id)
                .bind(environment.as_str())
                .bind(&token.secret_hash[..])
                .bind(emulation)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(NewTenant { tenant_id, token: token.token })
            }

            async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
                let row = sqlx::query("SELECT tenant_id, environment, secret_hash, emulation FROM tokens WHERE key_id = $1")
                    .bind(key_id)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let environment: String = row.try_get(1)?;
                let Some(environment) = Environment::parse(&environment) else { return Ok(None) };
                Ok(Some(TokenRecord {
                    tenant_id: row.try_get(0)?,
                    environment,
                    secret_hash: row.try_get(2)?,
                    emulation: row.try_get(3)?,
                }))
            }

            async fn tenant_exists(&self, tenant: Uuid) -> Result<bool> {
                let row = sqlx::query("SELECT 1 FROM tenants WHERE id = $1").bind(tenant).fetch_optional(&self.pool).await?;
                Ok(row.is_some())
            }

            async fn has_tenants(&self) -> Result<bool> {
                let row = sqlx::query("SELECT 1 FROM tenants LIMIT 1").fetch_optional(&self.pool).await?;
                Ok(row.is_some())
            }

            async fn upsert_receiving_orders(&self, tenant: Uuid, batch: &[ReceivingOrder]) -> Result<Vec<UpsertFailure>> {
                with_retries!(self.pool, $begin, |tx| Self::upsert_in(tx, tenant, batch).await)
            }

            async fn update_transfer_detail(&self, tenant: Uuid, reference: &str, detail: &TransferDetail) -> Result<TransferDetail> {
                with_retries!(self.pool, $begin, |tx| {
                    {
                        let (id, existing) = Self::order_for_update(tx, tenant, reference).await?;
                        if let Some((code, message)) = receiving_orders::transfer_detail_conflict(detail, &existing) {
                            return Err(DomainError::Conflict { property: "referenceNumber", code, message });
                        }
                        sqlx::query(
                            "UPDATE receiving_orders SET transfer_type = $1, transfer_detail = $2, updated_at = $3 WHERE id = $4",
                        )
                        .bind(detail.transfer_type.as_str())
                        .bind(transfer_json(detail))
                        .bind(time_to_micros(domain::now()))
                        .bind(id)
                        .execute(&mut **tx)
                        .await?;
                        Ok(TransferDetail { integration_id: existing.integration_id, ..detail.clone() })
                    }
                })
            }

            async fn advance_receiving_order(&self, tenant: Uuid, reference: &str, state: ReceivingOrderState) -> Result<()> {
                with_retries!(self.pool, $begin, |tx| {
                    {
                        let (id, existing) = Self::order_for_update(tx, tenant, reference).await?;
                        if !existing.state.can_become(state) {
                            return Err(DomainError::Conflict {
                                property: "state",
                                code: "InvalidOperation",
                                message: format!(
                                    "receiving order {reference} is {} and cannot become {}",
                                    existing.state.as_str(),
                                    state.as_str()
                                ),
                            });
                        }
                        sqlx::query("UPDATE receiving_orders SET state = $1, updated_at = $2 WHERE id = $3")
                            .bind(state.as_str())
                            .bind(time_to_micros(domain::now()))
                            .bind(id)
                            .execute(&mut **tx)
                            .await?;
                        Ok(())
                    }
                })
            }

            async fn create_customer(&self, tenant: Uuid, input: &CustomerInput) -> Result<Customer> {
                let now = time_to_micros(domain::now());
                with_retries!(self.pool, $begin, |tx| Self::insert_customer(tx, tenant, input, now).await)
            }

            async fn get_customer(&self, tenant: Uuid, customer_no: i32) -> Result<Option<Customer>> {
                let rows = sqlx::query(&format!(
                    "SELECT c.id, c.customer_no, c.email, c.first_name, c.last_name, c.phone, c.created_at, {ADDRESS_COLUMNS_A} \
                     FROM customers c LEFT JOIN addresses a ON a.customer_id = c.id \
                     WHERE c.tenant_id = $1 AND c.customer_no = $2 ORDER BY a.address_no"
                ))
                .bind(tenant)
                .bind(customer_no)
                .fetch_all(&self.pool)
                .await?;
                let Some(first) = rows.first() else { return Ok(None) };
                let created_at: i64 = first.try_get(6)?;
                let mut customer = Customer {
                    id: first.try_get(0)?,
                    customer_no: first.try_get(1)?,
                    email: first.try_get(2)?,
                    first_name: first.try_get(3)?,
                    last_name: first.try_get(4)?,
                    phone: first.try_get(5)?,
                    created_at: micros_to_time(created_at),
                    addresses: Vec::with_capacity(rows.len()),
                };
                for row in &rows {
                    if let Some(address) = address_from_row(row, 7)? {
                        customer.addresses.push(address);
                    }
                }
                Ok(Some(customer))
            }

            async fn get_sales_order(&self, tenant: Uuid, reference: &str) -> Result<Option<SalesOrder>> {
                let row = sqlx::query("SELECT document FROM sales_orders WHERE tenant_id = $1 AND reference_number = $2")
                    .bind(tenant)
                    .bind(reference)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let document: &str = row.try_get(0)?;
                Ok(Some(serde_json::from_str(document).map_err(|e| sqlx::Error::Decode(Box::new(e)))?))
            }

            async fn import_sales_orders(&self, tenant: Uuid, orders: &[SalesOrder]) -> Result<usize> {
                with_retries!(self.pool, $begin, |tx| Self::import_sales_orders_in(tx, tenant, orders).await)
            }

            async fn advance_sales_order(&self, tenant: Uuid, reference: &str, state: SalesOrderState) -> Result<SalesOrder> {
                with_retries!(self.pool, $begin, |tx| {
                    {
                        let mut order = Self::sales_order_document(tx, tenant, reference).await?;
                        domain::sales_orders::advance(&mut order, state, domain::now())?;
                        let document = serde_json::to_string(&order).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                        sqlx::query(
                            "UPDATE sales_orders SET state = $1, document = $2, updated_at = $3 WHERE tenant_id = $4 AND reference_number = $5",
                        )
                        .bind(order.state.as_str())
                        .bind(document)
                        .bind(time_to_micros(order.updated_at))
                        .bind(tenant)
                        .bind(reference)
                        .execute(&mut **tx)
                        .await?;
                        Ok(order)
                    }
                })
            }

            async fn list_returns(&self, tenant: Uuid, query: &SqlQuery) -> Result<(Vec<TaggedReturn>, i64)> {
                let condition = &query.condition;
                let count_sql = format!("SELECT COUNT(*) FROM returns WHERE tenant_id = $1 AND {condition}");
                let page_sql = format!(
                    "SELECT {RETURN_COLUMNS} FROM returns WHERE tenant_id = $1 AND {condition} ORDER BY {} LIMIT ${} OFFSET ${}",
                    query.order,
                    query.binds.len() + 2,
                    query.binds.len() + 3
                );
                let mut count = sqlx::query(&count_sql).bind(tenant);
                let mut page = sqlx::query(&page_sql).bind(tenant);
                for bind in &query.binds {
                    match bind {
                        Bind::Text(text) => {
                            count = count.bind(text.as_str());
                            page = page.bind(text.as_str());
                        }
                        Bind::Int(n) => {
                            count = count.bind(*n);
                            page = page.bind(*n);
                        }
                    }
                }
                let page = page.bind(query.limit).bind(query.offset);
                let total: i64 = count.fetch_one(&self.pool).await?.try_get(0)?;
                let rows = if total > query.offset { page.fetch_all(&self.pool).await? } else { Vec::new() };
                let items = rows.iter().map(return_from_row).collect::<std::result::Result<Vec<_>, sqlx::Error>>()?;
                Ok((items, total))
            }

            async fn import_returns(&self, tenant: Uuid, items: &[TaggedReturn]) -> Result<usize> {
                with_retries!(self.pool, $begin, |tx| Self::import_returns_in(tx, tenant, items).await)
            }

            async fn advance_return(&self, tenant: Uuid, reference: &str, step: ReturnStep) -> Result<()> {
                with_retries!(self.pool, $begin, |tx| {
                    {
                        let row = sqlx::query(concat!(
                            "SELECT arrived_to_warehouse_at, completed_at FROM returns WHERE tenant_id = $1 AND return_reference_number = $2",
                            $lock
                        ))
                        .bind(tenant)
                        .bind(reference)
                        .fetch_optional(&mut **tx)
                        .await?
                        .ok_or_else(|| not_found("returnReferenceNumber", format!("No return has the reference number {reference}.")))?;
                        let arrived: Option<i64> = row.try_get(0)?;
                        let completed: Option<i64> = row.try_get(1)?;
                        returns::check_step(reference, ReturnProgress { arrived: arrived.is_some(), completed: completed.is_some() }, step)?;
                        let column = match step {
                            ReturnStep::Arrived => "arrived_to_warehouse_at",
                            ReturnStep::Completed => "completed_at",
                        };
                        let now = time_to_micros(domain::now());
                        sqlx::query(&format!(
                            "UPDATE returns SET {column} = $1, updated_at = $1 WHERE tenant_id = $2 AND return_reference_number = $3"
                        ))
                        .bind(now)
                        .bind(tenant)
                        .bind(reference)
                        .execute(&mut **tx)
                        .await?;
                        Ok(())
                    }
                })
            }

            async fn tag_return(&self, tenant: Uuid, reference: &str, tag: &str) -> Result<()> {
                returns::check_tag(tag)?;
                let updated = sqlx::query(
                    "UPDATE returns SET tag = $1, updated_at = $2 WHERE tenant_id = $3 AND return_reference_number = $4",
                )
                .bind(tag)
                .bind(time_to_micros(domain::now()))
                .bind(tenant)
                .bind(reference)
                .execute(&self.pool)
                .await?;
                if updated.rows_affected() == 0 {
                    return Err(not_found("returnReferenceNumber", format!("No return has the reference number {reference}.")));
                }
                Ok(())
            }
        }
    };
}

sql_store!(Sqlite, begin_write = "BEGIN IMMEDIATE", lock_rows = "");
sql_store!(Postgres, begin_write = "BEGIN", lock_rows = " FOR UPDATE");

/// The columns of an address, in the order [`address_from_row`] reads them.
const ADDRESS_COLUMNS: &str = "id, address_no, first_name, last_name, company, address_one, address_two, district, \
     city, postal_code, country, phone, tax_office, tax_number";

/// [`ADDRESS_COLUMNS`] of the table aliased `a`.
const ADDRESS_COLUMNS_A: &str = "a.id, a.address_no, a.first_name, a.last_name, a.company, a.address_one, \
     a.address_two, a.district, a.city, a.postal_code, a.country, a.phone, a.tax_office, a.tax_number";

/// The address in the columns of `row` from `at` on; `None` when its id is null
/// (a customer without addresses, through a left join).
fn address_from_row<R: Row>(row: &R, at: usize) -> std::result::Result<Option<Address>, sqlx::Error>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> Option<Uuid>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i32: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let Some(id) = row.try_get::<Option<Uuid>, _>(at)? else {
        return Ok(None);
    };
    Ok(Some(Address {
        id,
        address_no: row.try_get(at + 1)?,
        address_first_name: row.try_get(at + 2)?,
        address_last_name: row.try_get(at + 3)?,
        company: row.try_get(at + 4)?,
        address_one: row.try_get(at + 5)?,
        address_two: row.try_get(at + 6)?,
        district: row.try_get(at + 7)?,
        city: row.try_get(at + 8)?,
        postal_code: row.try_get(at + 9)?,
        country: row.try_get(at + 10)?,
        address_phone: row.try_get(at + 11)?,
        tax_office: row.try_get(at + 12)?,
        tax_number: row.try_get(at + 13)?,
    }))
}

/// Whether two addresses are the same place (ids and numbers aside).
fn same_place(a: &Address, b: &Address) -> bool {
    a.address_first_name == b.address_first_name
        && a.address_last_name == b.address_last_name
        && a.company == b.company
        && a.address_one == b.address_one
        && a.address_two == b.address_two
        && a.district == b.district
        && a.city == b.city
        && a.postal_code == b.postal_code
        && a.country == b.country
        && a.address_phone == b.address_phone
        && a.tax_office == b.tax_office
        && a.tax_number == b.tax_number
}

fn return_from_row<R: Row>(row: &R) -> std::result::Result<TaggedReturn, sqlx::Error>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(TaggedReturn {
        return_reference_number: row.try_get(0)?,
        sales_order_channel: row.try_get(1)?,
        sales_order_reference_number: row.try_get(2)?,
        notes: row.try_get(3)?,
        tracking_id: row.try_get(4)?,
        cargo_carrier: row.try_get(5)?,
        created_at: micros_to_time(row.try_get(6)?),
        updated_at: micros_to_time(row.try_get(7)?),
        arrived_to_warehouse_at: row.try_get::<Option<i64>, _>(8)?.map(micros_to_time),
        completed_at: row.try_get::<Option<i64>, _>(9)?.map(micros_to_time),
        tag: row.try_get(10)?,
    })
}

/// Calls the same method on whichever database the store holds.
macro_rules! delegate {
    ($self:ident, $method:ident($($arg:expr),*)) => {
        match $self {
            Store::Sqlite(store) => store.$method($($arg),*).await,
            Store::Postgres(store) => store.$method($($arg),*).await,
        }
    };
}

impl Repository for Store {
    async fn create_tenant(
        &self,
        name: &str,
        environment: Environment,
        emulation: bool,
    ) -> Result<NewTenant> {
        delegate!(self, create_tenant(name, environment, emulation))
    }

    async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
        delegate!(self, find_token(key_id))
    }

    async fn tenant_exists(&self, tenant: Uuid) -> Result<bool> {
        delegate!(self, tenant_exists(tenant))
    }

    async fn has_tenants(&self) -> Result<bool> {
        delegate!(self, has_tenants())
    }

    async fn upsert_receiving_orders(
        &self,
        tenant: Uuid,
        batch: &[ReceivingOrder],
    ) -> Result<Vec<UpsertFailure>> {
        delegate!(self, upsert_receiving_orders(tenant, batch))
    }

    async fn update_transfer_detail(
        &self,
        tenant: Uuid,
        reference: &str,
        detail: &TransferDetail,
    ) -> Result<TransferDetail> {
        delegate!(self, update_transfer_detail(tenant, reference, detail))
    }

    async fn advance_receiving_order(
        &self,
        tenant: Uuid,
        reference: &str,
        state: ReceivingOrderState,
    ) -> Result<()> {
        delegate!(self, advance_receiving_order(tenant, reference, state))
    }

    async fn create_customer(&self, tenant: Uuid, input: &CustomerInput) -> Result<Customer> {
        delegate!(self, create_customer(tenant, input))
    }

    async fn get_customer(&self, tenant: Uuid, customer_no: i32) -> Result<Option<Customer>> {
        delegate!(self, get_customer(tenant, customer_no))
    }

    async fn get_sales_order(&self, tenant: Uuid, reference: &str) -> Result<Option<SalesOrder>> {
        delegate!(self, get_sales_order(tenant, reference))
    }

    async fn import_sales_orders(&self, tenant: Uuid, orders: &[SalesOrder]) -> Result<usize> {
        delegate!(self, import_sales_orders(tenant, orders))
    }

    async fn advance_sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
        state: SalesOrderState,
    ) -> Result<SalesOrder> {
        delegate!(self, advance_sales_order(tenant, reference, state))
    }

    async fn list_returns(
        &self,
        tenant: Uuid,
        query: &SqlQuery,
    ) -> Result<(Vec<TaggedReturn>, i64)> {
        delegate!(self, list_returns(tenant, query))
    }

    async fn import_returns(&self, tenant: Uuid, items: &[TaggedReturn]) -> Result<usize> {
        delegate!(self, import_returns(tenant, items))
    }

    async fn advance_return(&self, tenant: Uuid, reference: &str, step: ReturnStep) -> Result<()> {
        delegate!(self, advance_return(tenant, reference, step))
    }

    async fn tag_return(&self, tenant: Uuid, reference: &str, tag: &str) -> Result<()> {
        delegate!(self, tag_return(tenant, reference, tag))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(
            super::redact("postgres://app:s3cret@db:5432/x"),
            "postgres://app:***@db:5432/x"
        );
        assert_eq!(super::redact("postgres://app@db/x"), "postgres://app@db/x");
        assert_eq!(super::redact("./data/staging.db"), "./data/staging.db");
    }
}
