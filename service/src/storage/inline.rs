//! SQLite reads of one value by key, answered on the calling thread.
//!
//! sqlx runs each SQLite connection on a thread of its own: every query is a
//! message to that thread and a wake-up back. On this project's 2-core
//! machines those hand-offs cost more than the lookup itself: a GET sales
//! order took 148 µs of server CPU with its query, 63 µs without it
//! (docs/performance.md, D65). A lookup by primary key is a few microseconds
//! of SQLite's own work, short enough to run on the async worker without
//! holding up its other tasks, so the hottest reads come here instead.
//!
//! Nothing is cached: each read runs against the file, in WAL mode beside
//! the writer, and sees every commit made before it, by this process or any
//! other. A read that finds the database busy (possible only while another
//! connection recovers or checkpoints it) reports [`InlineError::Busy`], and the caller
//! asks through sqlx instead, which waits for it on its own thread.

use std::path::PathBuf;
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags, ToSql};

use super::db::Arg;

/// Why an inline read did not answer.
#[derive(Debug, thiserror::Error)]
pub enum InlineError {
    /// The database is locked: ask it through sqlx, which waits.
    #[error("the SQLite database is busy")]
    Busy,
    /// SQLite failed.
    #[error("{0}")]
    Sqlite(rusqlite::Error),
}

/// The page cache of each connection: 16 MiB, where SQLite's default is 2.
/// With 2 MiB the bench's 1,000 sales orders (about 2 MB of documents) did
/// not fit, and a GET read a page or two from the file on most requests:
/// 37.8 → 33.4 µs of server CPU a GET in one GET rotation (D65). It is
/// filled as pages are read, so a small database never takes it all.
const PAGE_CACHE_KIB: i64 = 16 * 1024;

/// Read-only connections to one SQLite file, opened when first needed and
/// kept for the next read.
#[derive(Debug)]
pub struct InlineReader {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// The most connections kept between reads.
    keep: usize,
}

impl InlineReader {
    /// A reader of the SQLite file at `path`, keeping up to `keep`
    /// connections (one per thread that reads at once is enough).
    pub fn new(path: impl Into<PathBuf>, keep: usize) -> InlineReader {
        InlineReader {
            path: path.into(),
            idle: Mutex::new(Vec::new()),
            keep,
        }
    }

    /// The first column of the first row of `sql` with `args` bound, as
    /// the bytes of its text (not checked as UTF-8: the caller parses it or
    /// sends it on); `None` when there is no row.
    pub fn text(&self, sql: &str, args: &[Arg<'_>]) -> Result<Option<Vec<u8>>, InlineError> {
        let connection = self.take()?;
        let answer = read_text(&connection, sql, args);
        self.give_back(connection);
        answer.map_err(|error| match error.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                InlineError::Busy
            }
            _ => InlineError::Sqlite(error),
        })
    }

    fn take(&self) -> Result<Connection, InlineError> {
        let kept = self.idle.lock().map(|mut idle| idle.pop()).unwrap_or(None);
        match kept {
            Some(connection) => Ok(connection),
            None => self.open().map_err(InlineError::Sqlite),
        }
    }

    fn give_back(&self, connection: Connection) {
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < self.keep {
                idle.push(connection);
            }
        }
    }

    /// A connection that can only read and never waits for a lock: the
    /// migrations ran on sqlx's pool, which made the file and set WAL mode.
    fn open(&self) -> rusqlite::Result<Connection> {
        let connection = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.pragma_update(None, "query_only", true)?;
        connection.busy_timeout(std::time::Duration::ZERO)?;
        // Negative: in KiB, not pages.
        connection.pragma_update(None, "cache_size", -PAGE_CACHE_KIB)?;
        Ok(connection)
    }
}

fn read_text(
    connection: &Connection,
    sql: &str,
    args: &[Arg<'_>],
) -> rusqlite::Result<Option<Vec<u8>>> {
    let mut statement = connection.prepare_cached(sql)?;
    for (index, arg) in args.iter().enumerate() {
        statement.raw_bind_parameter(index + 1, Bound(arg))?;
    }
    let mut rows = statement.raw_query();
    rows.next()?
        .map(|row| Ok(row.get_ref(0)?.as_bytes()?.to_vec()))
        .transpose()
}

/// An [`Arg`] stored as sqlx stores it in SQLite: a UUID as its 16 bytes, a
/// boolean as 0 or 1.
struct Bound<'a, 'b>(&'a Arg<'b>);

impl ToSql for Bound<'_, '_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        Ok(match self.0 {
            Arg::Uuid(Some(id)) => ToSqlOutput::Borrowed(ValueRef::Blob(id.as_bytes())),
            Arg::Text(Some(text)) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            Arg::Int(Some(n)) => ToSqlOutput::Owned(Value::Integer(i64::from(*n))),
            Arg::BigInt(Some(n)) => ToSqlOutput::Owned(Value::Integer(*n)),
            Arg::Bool(b) => ToSqlOutput::Owned(Value::Integer(i64::from(*b))),
            Arg::Bytes(bytes) => ToSqlOutput::Borrowed(ValueRef::Blob(bytes)),
            Arg::Uuid(None) | Arg::Text(None) | Arg::Int(None) | Arg::BigInt(None) => {
                ToSqlOutput::Owned(Value::Null)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::domain::tenancy::Environment;
    use crate::domain::{SalesOrderRepository, sales_orders, tenants};
    use crate::seed::sample_sales_order;
    use crate::storage::Store;

    fn scratch_file(name: &str) -> std::path::PathBuf {
        let folder = std::env::temp_dir().join(format!("lfs-inline-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&folder).unwrap();
        folder.join(name)
    }

    #[test]
    fn connections_are_kept_for_the_next_read_up_to_the_number_asked() {
        let file = scratch_file("kept.db");
        rusqlite::Connection::open(&file)
            .unwrap()
            .execute_batch("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('x');")
            .unwrap();
        let reader = super::InlineReader::new(&file, 2);
        let kept = || reader.idle.lock().unwrap().len();
        reader.text("SELECT v FROM t", &[]).unwrap();
        assert_eq!(kept(), 1, "the read's connection is kept");
        reader.text("SELECT v FROM t", &[]).unwrap();
        assert_eq!(kept(), 1, "and used again, not a second one opened");
        // Three reads at once (as three threads would): two are kept.
        let held: Vec<_> = (0..3).map(|_| reader.take().unwrap()).collect();
        held.into_iter().for_each(|c| reader.give_back(c));
        assert_eq!(kept(), 2);
        let _ = std::fs::remove_dir_all(file.parent().unwrap());
    }

    #[test]
    fn a_connection_caches_the_pages_asked_for() {
        let file = scratch_file("cache.db");
        rusqlite::Connection::open(&file).unwrap();
        let reader = super::InlineReader::new(&file, 1);
        let connection = reader.take().unwrap();
        let cache: i64 = connection
            .pragma_query_value(None, "cache_size", |row| row.get(0))
            .unwrap();
        assert_eq!(cache, -super::PAGE_CACHE_KIB);
        let _ = std::fs::remove_dir_all(file.parent().unwrap());
    }

    #[tokio::test]
    async fn a_read_sees_what_another_instance_committed_before_it() {
        let file = scratch_file("shared.db");
        let url = file.display().to_string();
        let writer = Store::open(&url, 2).await.unwrap();
        let reader = Store::open(&url, 2).await.unwrap();
        let tenant = tenants::create(&writer, "Inline", Environment::Staging, false)
            .await
            .unwrap()
            .tenant_id;

        // Read first, so that a reader that kept answers would keep this one.
        assert!(
            reader
                .sales_order(tenant, "SO-DEMO-0001")
                .await
                .unwrap()
                .is_none()
        );
        sales_orders::import(&writer, tenant, &[sample_sales_order(1)])
            .await
            .unwrap();
        let written = writer.sales_order(tenant, "SO-DEMO-0001").await.unwrap();
        let read = reader.sales_order(tenant, "SO-DEMO-0001").await.unwrap();
        assert!(read.is_some());
        assert_eq!(
            read, written,
            "the other instance reads the order as written"
        );
        assert!(
            reader
                .sales_order(uuid::Uuid::new_v4(), "SO-DEMO-0001")
                .await
                .unwrap()
                .is_none(),
            "the tenant is part of the key"
        );
        let _ = std::fs::remove_dir_all(file.parent().unwrap());
    }

    #[test]
    fn a_read_does_not_wait_for_a_lock_it_says_busy() {
        let file = scratch_file("locked.db");
        let setup = rusqlite::Connection::open(&file).unwrap();
        setup
            .execute_batch(
                "CREATE TABLE t (k BLOB PRIMARY KEY, n INTEGER, v TEXT); \
                 INSERT INTO t VALUES (x'00112233445566778899aabbccddeeff', 7, 'seven');",
            )
            .unwrap();
        let reader = super::InlineReader::new(&file, 1);
        let key = uuid::Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff);
        let read = || {
            reader.text(
                "SELECT v FROM t WHERE k = $1 AND n = $2",
                &[super::Arg::Uuid(Some(key)), super::Arg::Int(Some(7))],
            )
        };
        assert_eq!(
            read().unwrap().as_deref(),
            Some(&b"seven"[..]),
            "a UUID binds as sqlx stores it"
        );

        // A writer holds the file (this one is not in WAL mode, so its
        // exclusive lock shuts readers out, as a recovery would).
        setup
            .execute_batch("BEGIN EXCLUSIVE; UPDATE t SET v = 'eight';")
            .unwrap();
        let started = std::time::Instant::now();
        assert!(matches!(read(), Err(super::InlineError::Busy)));
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "it did not wait"
        );
        setup.execute_batch("COMMIT").unwrap();
        assert_eq!(
            read().unwrap().as_deref(),
            Some(&b"eight"[..]),
            "and reads again once free"
        );
        let _ = std::fs::remove_dir_all(file.parent().unwrap());
    }
}
