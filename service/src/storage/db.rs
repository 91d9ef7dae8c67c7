//! The two databases behind one small interface, so that every store is
//! written once, in plain Rust, for both.
//!
//! The SQL is shared: numbered `$n` placeholders work on SQLite and
//! PostgreSQL alike, and statements of many values take theirs from
//! [`Placeholders`]. What differs is the [`Dialect`]: how a writing
//! transaction begins, how rows are locked, and how a long statement's
//! placeholders are written. Values are bound through
//! [`Arg`] and read back through [`Row::get`], whose bounds name both
//! databases once, here.

use std::borrow::Cow;

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Database, Decode, Encode, Postgres, Sqlite, Transaction, Type};
use uuid::Uuid;

use crate::domain::DomainError;

/// How many times a write that lost a race (a unique key taken by a
/// concurrent request, a deadlock) is run before its error is reported.
const WRITE_ATTEMPTS: usize = 5;

/// What differs between the databases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite: one writer at a time, so a writing transaction takes the
    /// write lock when it begins and rows need no locks of their own.
    Sqlite,
    /// PostgreSQL: rows a transaction will change are locked as it reads them.
    Postgres,
}

impl Dialect {
    /// The statement that begins a transaction that will write.
    pub fn begin_write(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        }
    }

    /// What follows a `SELECT` whose rows the transaction will change.
    pub fn lock_rows(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE",
        }
    }
}

/// A pool of connections to one database.
#[derive(Debug, Clone)]
pub enum Pool {
    /// A SQLite file.
    Sqlite(sqlx::SqlitePool),
    /// A PostgreSQL server.
    Postgres(sqlx::PgPool),
}

/// An open transaction.
pub enum Tx {
    /// On SQLite.
    Sqlite(Transaction<'static, Sqlite>),
    /// On PostgreSQL.
    Postgres(Transaction<'static, Postgres>),
}

/// A row read from either database.
pub enum Row {
    /// From SQLite.
    Sqlite(SqliteRow),
    /// From PostgreSQL.
    Postgres(PgRow),
}

/// A value bound to a `$n` placeholder.
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    /// A UUID, or null.
    Uuid(Option<Uuid>),
    /// Text, or null.
    Text(Option<Cow<'a, str>>),
    /// A 32-bit integer, or null.
    Int(Option<i32>),
    /// A 64-bit integer (also timestamps, as microseconds), or null.
    BigInt(Option<i64>),
    /// A boolean.
    Bool(bool),
    /// Bytes.
    Bytes(&'a [u8]),
}

macro_rules! arg_from {
    ($($t:ty => |$v:ident| $e:expr;)*) => {
        $(impl<'a> From<$t> for Arg<'a> {
            fn from($v: $t) -> Self {
                $e
            }
        })*
    };
}

arg_from! {
    Uuid => |v| Arg::Uuid(Some(v));
    Option<Uuid> => |v| Arg::Uuid(v);
    &'a str => |v| Arg::Text(Some(Cow::Borrowed(v)));
    &'a String => |v| Arg::Text(Some(Cow::Borrowed(v)));
    String => |v| Arg::Text(Some(Cow::Owned(v)));
    Option<&'a str> => |v| Arg::Text(v.map(Cow::Borrowed));
    &'a Option<String> => |v| Arg::Text(v.as_deref().map(Cow::Borrowed));
    i32 => |v| Arg::Int(Some(v));
    Option<i32> => |v| Arg::Int(v);
    i64 => |v| Arg::BigInt(Some(v));
    Option<i64> => |v| Arg::BigInt(v);
    bool => |v| Arg::Bool(v);
    &'a [u8] => |v| Arg::Bytes(v);
}

/// A statement and its values.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    sql: Cow<'a, str>,
    args: Vec<Arg<'a>>,
}

/// A statement; bind its values in placeholder order with [`Query::bind`].
pub fn query<'a>(sql: impl Into<Cow<'a, str>>) -> Query<'a> {
    Query {
        sql: sql.into(),
        args: Vec::new(),
    }
}

impl<'a> Query<'a> {
    /// The statement's text.
    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// The values bound, in placeholder order.
    pub fn args(&self) -> &[Arg<'a>] {
        &self.args
    }

    /// Binds the next placeholder.
    pub fn bind(mut self, value: impl Into<Arg<'a>>) -> Self {
        self.args.push(value.into());
        self
    }

    /// The query for `DB`, values bound.
    fn on<DB: Database>(&self) -> sqlx::query::Query<'_, DB, DB::Arguments<'_>>
    where
        for<'q> Option<Uuid>: Encode<'q, DB> + Type<DB>,
        for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
        for<'q> Option<i32>: Encode<'q, DB> + Type<DB>,
        for<'q> Option<i64>: Encode<'q, DB> + Type<DB>,
        for<'q> bool: Encode<'q, DB> + Type<DB>,
        for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    {
        // Each value added in place: `sqlx::Query::bind` moves the whole
        // query in and out at each value, which a statement of 10,000
        // values (a bulk upsert's) paid in copies.
        let mut query = sqlx::query(&self.sql);
        for arg in &self.args {
            let added = match arg {
                Arg::Uuid(v) => add(&mut query, &self.sql, *v),
                Arg::Text(v) => add(&mut query, &self.sql, v.as_deref()),
                Arg::Int(v) => add(&mut query, &self.sql, *v),
                Arg::BigInt(v) => add(&mut query, &self.sql, *v),
                Arg::Bool(v) => add(&mut query, &self.sql, *v),
                Arg::Bytes(v) => add(&mut query, &self.sql, *v),
            };
            if !added {
                break;
            }
        }
        query
    }
}

/// Adds `value` to `query`; `false` when it cannot be encoded, and then
/// `query` is one that fails with sqlx's message when it runs, as `bind`
/// makes it.
fn add<'q, DB, T>(
    query: &mut sqlx::query::Query<'q, DB, DB::Arguments<'q>>,
    sql: &'q str,
    value: T,
) -> bool
where
    DB: Database,
    T: 'q + Encode<'q, DB> + Type<DB> + Copy,
{
    if query.try_bind(value).is_ok() {
        return true;
    }
    let failed = std::mem::replace(query, sqlx::query(sql));
    *query = failed.bind(value);
    false
}

impl Row {
    /// The value of column `index`.
    pub fn get<T>(&self, index: usize) -> Result<T, sqlx::Error>
    where
        T: for<'r> Decode<'r, Sqlite>
            + Type<Sqlite>
            + for<'r> Decode<'r, Postgres>
            + Type<Postgres>,
    {
        use sqlx::Row as _;
        match self {
            Row::Sqlite(row) => row.try_get(index),
            Row::Postgres(row) => row.try_get(index),
        }
    }
}

impl Pool {
    /// This database's dialect.
    pub fn dialect(&self) -> Dialect {
        match self {
            Pool::Sqlite(_) => Dialect::Sqlite,
            Pool::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        match self {
            Pool::Sqlite(pool) => pool.close().await,
            Pool::Postgres(pool) => pool.close().await,
        }
    }

    /// Runs a statement outside a transaction; returns the rows it changed.
    pub async fn execute(&self, query: Query<'_>) -> Result<u64, sqlx::Error> {
        Ok(match self {
            Pool::Sqlite(pool) => query.on::<Sqlite>().execute(pool).await?.rows_affected(),
            Pool::Postgres(pool) => query.on::<Postgres>().execute(pool).await?.rows_affected(),
        })
    }

    /// Every row of a query.
    pub async fn fetch_all(&self, query: Query<'_>) -> Result<Vec<Row>, sqlx::Error> {
        self.again_on_lost_connection(|| self.fetch_all_once(&query))
            .await
    }

    /// The first row of a query, if any.
    pub async fn fetch_optional(&self, query: Query<'_>) -> Result<Option<Row>, sqlx::Error> {
        self.again_on_lost_connection(|| self.fetch_optional_once(&query))
            .await
    }

    /// Runs a read, or the `BEGIN` of a write, again on another connection
    /// while it loses the one it was lent. The pool does not ping a
    /// connection before lending it (a round trip before every statement,
    /// D65), so after the server ended its connections (a restart, a
    /// failover, an operator) each idle one fails once; they are at most
    /// the pool's size. Neither has an effect to repeat; a write that fails
    /// later runs again under `in_write!`'s own count.
    async fn again_on_lost_connection<T, F>(
        &self,
        attempt: impl Fn() -> F,
    ) -> Result<T, sqlx::Error>
    where
        F: std::future::Future<Output = Result<T, sqlx::Error>>,
    {
        let mut lost = 0;
        loop {
            match attempt().await {
                Err(error) if is_lost_connection(&error) && lost < self.max_connections() => {
                    tracing::debug!(%error, "running again on another connection");
                    lost += 1;
                }
                outcome => return outcome,
            }
        }
    }

    fn max_connections(&self) -> u32 {
        match self {
            Pool::Sqlite(pool) => pool.options().get_max_connections(),
            Pool::Postgres(pool) => pool.options().get_max_connections(),
        }
    }

    async fn fetch_all_once(&self, query: &Query<'_>) -> Result<Vec<Row>, sqlx::Error> {
        Ok(match self {
            Pool::Sqlite(pool) => rows(query.on::<Sqlite>().fetch_all(pool).await?, Row::Sqlite),
            Pool::Postgres(pool) => {
                rows(query.on::<Postgres>().fetch_all(pool).await?, Row::Postgres)
            }
        })
    }

    async fn fetch_optional_once(&self, query: &Query<'_>) -> Result<Option<Row>, sqlx::Error> {
        Ok(match self {
            Pool::Sqlite(pool) => query
                .on::<Sqlite>()
                .fetch_optional(pool)
                .await?
                .map(Row::Sqlite),
            Pool::Postgres(pool) => query
                .on::<Postgres>()
                .fetch_optional(pool)
                .await?
                .map(Row::Postgres),
        })
    }

    /// Begins a transaction that will write.
    pub async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        let begin = self.dialect().begin_write();
        self.again_on_lost_connection(|| async move {
            Ok(match self {
                Pool::Sqlite(pool) => Tx::Sqlite(pool.begin_with(begin).await?),
                Pool::Postgres(pool) => Tx::Postgres(pool.begin_with(begin).await?),
            })
        })
        .await
    }
}

/// Runs `$body` (an expression using `$tx`, the `&mut Tx`) in a writing
/// transaction of `$pool`: commits when it succeeds, rolls back when it
/// fails, and runs it again on a fresh transaction when it failed before its
/// commit was sent for a reason that a new attempt can clear (see
/// [`Attempts`]). Evaluates to `Result<T, DomainError>`.
macro_rules! in_write {
    ($pool:expr, |$tx:ident| $body:expr) => {{
        let mut attempts = $crate::storage::db::Attempts::default();
        loop {
            let mut transaction = match $pool.begin_write().await {
                Ok(transaction) => transaction,
                Err(error) => match attempts.not_begun(error) {
                    Some(done) => break done,
                    None => continue,
                },
            };
            let outcome: ::std::result::Result<_, $crate::storage::db::StoreError> = async {
                let $tx = &mut transaction;
                $body
            }
            .await;
            if let Some(done) = attempts.settle(transaction, outcome).await {
                break done;
            }
        }
    }};
}
pub(crate) use in_write;

/// The attempts of one write (see [`in_write!`]).
///
/// A write runs again, at most [`WRITE_ATTEMPTS`] times in all, when it
/// failed before its commit was sent and a new attempt can succeed: it lost
/// a race (a unique key, a deadlock, a serialization failure), its
/// connection was lost (the server ended it, the network dropped), or
/// SQLite was busy. Nothing of it was applied: the transaction never
/// committed. A commit that fails is not run again: the database may have
/// applied it before the answer was lost, and the error says so.
#[derive(Debug, Default)]
pub struct Attempts {
    made: usize,
}

impl Attempts {
    /// A transaction that could not begin: `None` to try again.
    pub fn not_begun<T>(&mut self, error: sqlx::Error) -> Option<Result<T, DomainError>> {
        self.retry_or_end(StoreError::Database(error))
    }

    /// Ends an attempt: commits or rolls back `tx`; `None` when the write
    /// failed before its commit and should run again.
    pub async fn settle<T>(
        &mut self,
        tx: Tx,
        outcome: Result<T, StoreError>,
    ) -> Option<Result<T, DomainError>> {
        match outcome {
            Ok(value) => Some(tx.commit().await.map(|()| value).map_err(commit_failed)),
            Err(error) => {
                // On a lost connection the rollback fails too; the step's
                // error says what happened, and the database rolls back a
                // transaction whose connection ends.
                if let Err(rollback) = tx.rollback().await {
                    tracing::debug!(%rollback, "rolling back a failed write");
                }
                self.retry_or_end(error)
            }
        }
    }

    fn retry_or_end<T>(&mut self, error: StoreError) -> Option<Result<T, DomainError>> {
        self.made += 1;
        if self.made < WRITE_ATTEMPTS && error.is_retryable() {
            tracing::debug!(attempt = self.made, %error, "running again a write that was not applied");
            return None;
        }
        Some(Err(match error {
            StoreError::Database(error) => DomainError::Unavailable(format!(
                "{error}; the write was not applied{}",
                if self.made > 1 {
                    format!(" in {} attempts", self.made)
                } else {
                    String::new()
                }
            )),
            StoreError::Domain(error) => error,
            error @ StoreError::Inline(_) => error.into(),
        }))
    }
}

/// A commit that failed: it may have been applied.
fn commit_failed(error: sqlx::Error) -> DomainError {
    DomainError::MaybeApplied(format!("the commit failed: {error}"))
}

fn rows<R>(rows: Vec<R>, wrap: fn(R) -> Row) -> Vec<Row> {
    rows.into_iter().map(wrap).collect()
}

impl Tx {
    /// This transaction's dialect.
    pub fn dialect(&self) -> Dialect {
        match self {
            Tx::Sqlite(_) => Dialect::Sqlite,
            Tx::Postgres(_) => Dialect::Postgres,
        }
    }

    /// What follows a `SELECT` whose rows this transaction will change.
    pub fn lock_rows(&self) -> &'static str {
        self.dialect().lock_rows()
    }

    /// The placeholders of a statement to run in this transaction.
    pub fn placeholders(&self) -> Placeholders {
        Placeholders::new(self.dialect())
    }

    /// Runs a statement; returns the rows it changed.
    pub async fn execute(&mut self, query: Query<'_>) -> Result<u64, sqlx::Error> {
        Ok(match self {
            Tx::Sqlite(tx) => query
                .on::<Sqlite>()
                .execute(&mut **tx)
                .await?
                .rows_affected(),
            Tx::Postgres(tx) => query
                .on::<Postgres>()
                .execute(&mut **tx)
                .await?
                .rows_affected(),
        })
    }

    /// Every row of a query.
    pub async fn fetch_all(&mut self, query: Query<'_>) -> Result<Vec<Row>, sqlx::Error> {
        Ok(match self {
            Tx::Sqlite(tx) => rows(
                query.on::<Sqlite>().fetch_all(&mut **tx).await?,
                Row::Sqlite,
            ),
            Tx::Postgres(tx) => rows(
                query.on::<Postgres>().fetch_all(&mut **tx).await?,
                Row::Postgres,
            ),
        })
    }

    /// The first row of a query, if any.
    pub async fn fetch_optional(&mut self, query: Query<'_>) -> Result<Option<Row>, sqlx::Error> {
        Ok(match self {
            Tx::Sqlite(tx) => query
                .on::<Sqlite>()
                .fetch_optional(&mut **tx)
                .await?
                .map(Row::Sqlite),
            Tx::Postgres(tx) => query
                .on::<Postgres>()
                .fetch_optional(&mut **tx)
                .await?
                .map(Row::Postgres),
        })
    }

    /// The first row of a query, which must exist.
    pub async fn fetch_one(&mut self, query: Query<'_>) -> Result<Row, sqlx::Error> {
        self.fetch_optional(query)
            .await?
            .ok_or(sqlx::Error::RowNotFound)
    }

    async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            Tx::Sqlite(tx) => tx.commit().await,
            Tx::Postgres(tx) => tx.commit().await,
        }
    }

    async fn rollback(self) -> Result<(), sqlx::Error> {
        match self {
            Tx::Sqlite(tx) => tx.rollback().await,
            Tx::Postgres(tx) => tx.rollback().await,
        }
    }
}

/// Why a step of a write failed: the database, or a decision of the domain
/// taken inside the transaction.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database failed.
    #[error("{0}")]
    Database(#[from] sqlx::Error),
    /// The domain refused.
    #[error("{0}")]
    Domain(#[from] DomainError),
    /// A read on the calling thread failed (`inline.rs`).
    #[error("SQLite: {0}")]
    Inline(#[from] super::inline::InlineError),
}

impl StoreError {
    /// Whether the step failed in a way a new attempt can clear: a lost
    /// race, a lost connection, or a SQLite database busy past its timeout.
    fn is_retryable(&self) -> bool {
        match self {
            StoreError::Database(error) => is_lost_race(error) || is_lost_connection(error),
            StoreError::Domain(_) | StoreError::Inline(_) => false,
        }
    }
}

/// A unique key taken by a concurrent insert, a deadlock, a serialization
/// failure; SQLite's busy and locked (`SQLITE_BUSY`, `SQLITE_LOCKED` and
/// their extended codes, after `busy_timeout`).
fn is_lost_race(error: &sqlx::Error) -> bool {
    let sqlx::Error::Database(db) = error else {
        return false;
    };
    if db.is_unique_violation() {
        return true;
    }
    let code = db.code();
    let code = code.as_deref().unwrap_or_default();
    matches!(code, "40P01" | "40001")
        || (db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some()
            && code
                .parse::<i32>()
                .is_ok_and(|code| matches!(code & 0xff, 5 | 6)))
}

/// The connection is gone: an I/O error, the server ending it (PostgreSQL's
/// class 08 and 57P01–57P03), or sqlx's SQLite worker stopping.
pub(super) fn is_lost_connection(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

impl From<StoreError> for DomainError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Database(error) => unavailable(error),
            StoreError::Domain(error) => error,
            StoreError::Inline(error) => DomainError::Unavailable(format!("SQLite: {error}")),
        }
    }
}

impl From<sqlx::Error> for DomainError {
    fn from(error: sqlx::Error) -> Self {
        unavailable(error)
    }
}

/// A database failure as the domain sees it: the store is unavailable.
fn unavailable(error: sqlx::Error) -> DomainError {
    DomainError::Unavailable(error.to_string())
}

/// Whether `error` is a unique key violation.
pub fn unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// Writes a statement's placeholders in the order its values are bound.
///
/// PostgreSQL is given `$1, $2, …`; SQLite plain `?`. SQLite resolves a
/// numbered placeholder (`$n`, `?n`) by searching those it has already seen,
/// so preparing a 1,000-row INSERT of 10,000 numbered values took seconds,
/// where plain ones take milliseconds. sqlx numbers plain `?` apart from
/// numbered ones, so a statement takes all of its placeholders from one
/// `Placeholders`, never some from here and some written by hand.
#[derive(Debug)]
pub struct Placeholders {
    dialect: Dialect,
    written: usize,
}

impl Placeholders {
    /// The placeholders of a new statement on `dialect`.
    pub fn new(dialect: Dialect) -> Placeholders {
        Placeholders {
            dialect,
            written: 0,
        }
    }

    /// The next placeholder.
    pub fn next(&mut self) -> String {
        let mut text = String::new();
        self.write_next(&mut text);
        text
    }

    /// The next `count`, comma-separated: `$3, $4, $5`.
    pub fn list(&mut self, count: usize) -> String {
        let mut text = String::with_capacity(count * 4);
        self.write_list(&mut text, count);
        text
    }

    /// A `VALUES` list of `rows` rows of `columns` values each:
    /// `($1, $2), ($3, $4)`.
    pub fn rows(&mut self, rows: usize, columns: usize) -> String {
        // Written into one string: a statement of 1,000 rows has 10,000
        // placeholders, and a string each cost a tenth of the bulk upsert.
        let mut text = String::with_capacity(rows * (columns * 4 + 4));
        for row in 0..rows {
            if row > 0 {
                text.push_str(", ");
            }
            text.push('(');
            self.write_list(&mut text, columns);
            text.push(')');
        }
        text
    }

    fn write_list(&mut self, text: &mut String, count: usize) {
        for n in 0..count {
            if n > 0 {
                text.push_str(", ");
            }
            self.write_next(text);
        }
    }

    fn write_next(&mut self, text: &mut String) {
        self.written += 1;
        match self.dialect {
            Dialect::Sqlite => text.push('?'),
            Dialect::Postgres => {
                text.push('$');
                text.push_str(&self.written.to_string());
            }
        }
    }
}

/// A time as stored: microseconds since the Unix epoch.
pub fn micros(time: chrono::DateTime<chrono::Utc>) -> i64 {
    time.timestamp_micros()
}

/// A stored time.
pub fn time(micros: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_micros(micros).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{Dialect, Placeholders};

    #[test]
    fn postgres_placeholders_are_numbered_across_a_statement() {
        let mut placeholders = Placeholders::new(Dialect::Postgres);
        assert_eq!(placeholders.next(), "$1");
        assert_eq!(placeholders.rows(2, 2), "($2, $3), ($4, $5)");
        assert_eq!(placeholders.list(2), "$6, $7");
    }

    #[test]
    fn sqlite_placeholders_are_plain() {
        let mut placeholders = Placeholders::new(Dialect::Sqlite);
        assert_eq!(placeholders.next(), "?");
        assert_eq!(placeholders.rows(2, 2), "(?, ?), (?, ?)");
        assert_eq!(placeholders.list(2), "?, ?");
    }
}
