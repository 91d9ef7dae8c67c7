//! Storage: the `domain::repository` traits implemented over SQLite (the
//! default, a file under `./data/`) and PostgreSQL (when the database URL
//! says `postgres://`), written once for both (`db`), one module per area.
//!
//! Stores apply what the domain decided; they decide nothing themselves.
//! Every method is scoped to one tenant; every method that writes more than
//! one row does so in one transaction, begun as a write.

mod batched;
mod customers;
mod db;
mod inline;
mod migrate;
mod receiving_orders;
mod returns;
pub mod returns_query;
mod sales_orders;
mod tenants;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use batched::{BatchedReader, KeyRead};
pub use db::Dialect;
use db::{Pool, StoreError};
use inline::{InlineError, InlineReader};
pub use tenants::FirstStartLock;

/// The repository over the database the service was configured with. It
/// implements every trait of `domain::repository`, one module each.
#[derive(Debug, Clone)]
pub struct Store {
    pool: Pool,
    /// On SQLite, the connections that answer reads by key on the calling
    /// thread (`inline.rs`).
    inline: Option<Arc<InlineReader>>,
    /// On PostgreSQL, the connections that answer reads by key, the reads
    /// that arrive together in one statement (`batched.rs`).
    batched: Option<Arc<BatchedReader>>,
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
        let connect_error = |source| OpenError::Connect {
            url: shown.clone(),
            source,
        };
        if is_postgres(url) {
            let options = PgConnectOptions::from_str(url).map_err(connect_error)?;
            let (reader, max_connections) = batched::split(max_connections);
            let batched =
                (reader > 0).then(|| Arc::new(BatchedReader::start(options.clone(), reader)));
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                // Not pinged before each lending, a round trip a statement:
                // a read that finds its connection ended runs again (D65).
                .test_before_acquire(false)
                .acquire_timeout(Duration::from_secs(10));
            let pool = Pool::Postgres(connect(pool, options, Dialect::Postgres, &shown).await?);
            Ok(Store {
                pool,
                inline: None,
                batched,
            })
        } else {
            let options = sqlite_options(url)?;
            // An in-memory database is one per connection: none to share.
            let file = options.get_filename();
            let inline = (file != std::path::Path::new(":memory:"))
                .then(|| Arc::new(InlineReader::new(file, max_connections as usize)));
            let pool = SqlitePoolOptions::new()
                .max_connections(max_connections)
                .test_before_acquire(false);
            let pool = Pool::Sqlite(connect(pool, options, Dialect::Sqlite, &shown).await?);
            Ok(Store {
                pool,
                inline,
                batched: None,
            })
        }
    }

    /// The text of `key`'s row in `read`'s table, for `tenant`, as bytes.
    /// On SQLite it runs on this thread (`inline.rs`), through the pool
    /// only when the file is busy; on PostgreSQL it goes with the reads
    /// that arrive together in one statement (`batched.rs`), through the
    /// pool when that reader cannot answer it.
    async fn fetch_text(
        &self,
        read: &'static KeyRead,
        tenant: uuid::Uuid,
        key: &str,
    ) -> std::result::Result<Option<Vec<u8>>, StoreError> {
        let query = || db::query(read.one).bind(tenant).bind(key);
        if let Some(inline) = &self.inline {
            let query = query();
            match inline.text(query.sql(), query.args()) {
                Ok(text) => return Ok(text),
                Err(InlineError::Busy) => {}
                Err(error) => return Err(error.into()),
            }
        }
        if let Some(batched) = &self.batched
            && let Some(text) = batched.text(read, tenant, key).await
        {
            return Ok(text);
        }
        match self.pool.fetch_optional(query()).await? {
            Some(row) => Ok(Some(row.get::<String>(0)?.into_bytes())),
            None => Ok(None),
        }
    }

    /// Closes every connection, waiting for the pool's in use and the
    /// PostgreSQL reader's statements on their way.
    pub async fn close(&self) {
        if let Some(batched) = &self.batched {
            batched.close().await;
        }
        self.pool.close().await
    }

    /// The connections to the database, for metrics: open, idle, and the
    /// most (`--max-connections`), the PostgreSQL reader's included.
    pub fn pool_status(&self) -> (u32, u32, u32) {
        fn of<DB: sqlx::Database>(pool: &sqlx::Pool<DB>) -> (u32, u32, u32) {
            let idle = u32::try_from(pool.num_idle()).unwrap_or(u32::MAX);
            (pool.size(), idle, pool.options().get_max_connections())
        }
        let (size, idle, most) = match &self.pool {
            Pool::Sqlite(pool) => of(pool),
            Pool::Postgres(pool) => of(pool),
        };
        let (reader_size, reader_idle, reader_most) =
            self.batched.as_ref().map_or((0, 0, 0), |b| b.status());
        (size + reader_size, idle + reader_idle, most + reader_most)
    }

    /// Which database this is, for logs.
    pub fn kind(&self) -> &'static str {
        match self.pool.dialect() {
            Dialect::Sqlite => "SQLite",
            Dialect::Postgres => "PostgreSQL",
        }
    }
}

/// Connects a pool and applies the migrations of `dialect`: the one way
/// both databases are opened. `shown` is the URL as messages give it.
async fn connect<DB>(
    pool: sqlx::pool::PoolOptions<DB>,
    options: <DB::Connection as sqlx::Connection>::Options,
    dialect: Dialect,
    shown: &str,
) -> std::result::Result<sqlx::Pool<DB>, OpenError>
where
    DB: sqlx::Database,
    DB::Connection: sqlx::migrate::Migrate,
{
    let pool = pool
        .connect_with(options)
        .await
        .map_err(|source| OpenError::Connect {
            url: shown.to_owned(),
            source,
        })?;
    migrate::migrator(dialect)
        .run(&pool)
        .await
        .map_err(|source| OpenError::Migrate {
            url: shown.to_owned(),
            source,
        })?;
    Ok(pool)
}

/// How a SQLite file at `url` (`sqlite://path`, `sqlite:path` or a plain
/// path) is opened; its folder is made when missing.
fn sqlite_options(url: &str) -> std::result::Result<SqliteConnectOptions, OpenError> {
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
    Ok(SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // A commit is on disk before it is acknowledged.
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(Duration::from_secs(10))
        .foreign_keys(true)
        // LIKE is case-sensitive, as on PostgreSQL.
        .pragma("case_sensitive_like", "ON"))
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
/// Storage, the rate-limit store and the readiness probe all ask here, so
/// that they agree on the backend.
pub(crate) fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
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
