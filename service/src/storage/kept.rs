//! PostgreSQL reads of one value by key, on connections of their own that
//! go back without a round trip.
//!
//! sqlx 0.8's pool sends every connection given back a `Sync` and waits for
//! the answer before lending it again (it has no setting to skip it): a
//! second round trip for each statement, so a GET by key woke a PostgreSQL
//! backend twice (D65). Here a connection goes back to the reader only when
//! its read came to an end, the answer read to the last message, so there
//! is nothing to check: a read abandoned half-way (its request dropped)
//! drops its connection, which closes it.
//!
//! Nothing is cached: each read is a statement against the database, and
//! sees every commit made before it, by this instance or any other.
//!
//! The reader's connections are part of the instance's budget, not added to
//! it: [`split`] takes them from the pool's size. When they are all busy, a
//! read goes to the pool.

use std::sync::Mutex;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection as _, Row as _};

use super::db::Query;

/// Connections to one PostgreSQL database for reads by key, opened when
/// first needed and kept for the next read.
#[derive(Debug)]
pub struct KeptReader {
    options: PgConnectOptions,
    connections: Mutex<Connections>,
    /// The most connections open at once.
    most: usize,
}

#[derive(Debug, Default)]
struct Connections {
    idle: Vec<PgConnection>,
    /// Open connections, lent or idle, and places taken for one being opened.
    open: usize,
    /// Closed with the store: nothing more is lent or kept.
    closed: bool,
}

/// How a budget of `max_connections` is shared: the reader's part, then the
/// pool's. Half goes to the reader (8 of the default 16; with a quarter,
/// the reads that found every kept connection lent and went to the pool
/// cost a GET a fifth more, `cargo xtask bench`); a budget of 1 is all the
/// pool's, which also reads.
pub fn split(max_connections: u32) -> (usize, u32) {
    let reader = max_connections / 2;
    (reader as usize, max_connections - reader)
}

impl KeptReader {
    /// A reader of the database at `options`, with at most `most`
    /// connections open.
    pub fn new(options: PgConnectOptions, most: usize) -> KeptReader {
        KeptReader {
            options,
            connections: Mutex::new(Connections::default()),
            most,
        }
    }

    /// The first column of the first row of `query` as the bytes of its
    /// text; `None` when there is no row. `Err(None)` when every connection
    /// is lent: the caller asks the pool.
    pub async fn text(&self, query: &Query<'_>) -> Result<Option<Vec<u8>>, Option<sqlx::Error>> {
        // From here until the connection is given back, dropping the read
        // (or failing it) drops the connection, which closes it, and
        // `place` gives its place up.
        let (place, idle) = self.lend().ok_or(None)?;
        let mut connection = match idle {
            Some(connection) => connection,
            None => self.options.connect().await?,
        };
        let row = query.on_postgres().fetch_optional(&mut connection).await?;
        let text = row.map(|row| row.try_get::<String, _>(0)).transpose()?;
        place.give_back(connection);
        Ok(text.map(String::into_bytes))
    }

    /// Closes the idle connections, and each lent one when its read ends;
    /// reads from now on go to the pool (closed too, with the store).
    pub async fn close(&self) {
        let idle = {
            let mut connections = self.lock();
            connections.closed = true;
            connections.open = connections.open.saturating_sub(connections.idle.len());
            std::mem::take(&mut connections.idle)
        };
        for connection in idle {
            // Says goodbye to the server; a connection already lost has
            // nothing to say.
            let _ = connection.close().await;
        }
    }

    /// Connections open, idle, and the most: the pool's figures' part.
    pub fn status(&self) -> (u32, u32, u32) {
        let connections = self.lock();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (
            count(connections.open),
            count(connections.idle.len()),
            count(self.most),
        )
    }

    /// A place for a read, with an idle connection if there is one (else
    /// one is to be opened); `None` when every place is taken.
    fn lend(&self) -> Option<(Place<'_>, Option<PgConnection>)> {
        let mut connections = self.lock();
        if connections.closed {
            return None;
        }
        let idle = connections.idle.pop();
        if idle.is_none() {
            if connections.open >= self.most {
                return None;
            }
            connections.open += 1;
        }
        Some((Place { reader: self }, idle))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connections> {
        self.connections.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A lent connection's place among the reader's: given up when it is
/// dropped, unless its connection was kept.
struct Place<'a> {
    reader: &'a KeptReader,
}

impl Place<'_> {
    /// Keeps `connection` for the next read, its place still taken; once
    /// the reader is closed, closes it and gives the place up.
    fn give_back(self, connection: PgConnection) {
        let mut connections = self.reader.lock();
        if connections.closed {
            drop(connections);
            return; // `self` and `connection` dropped: closed, given up.
        }
        connections.idle.push(connection);
        drop(connections);
        std::mem::forget(self);
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        let mut connections = self.reader.lock();
        connections.open = connections.open.saturating_sub(1);
    }
}

/// Against the PostgreSQL server of `LFS_TEST_POSTGRES_URL` (or the
/// project's usual local one); under `CI=true` an unreachable server fails
/// them, elsewhere they say so and pass.
#[cfg(test)]
mod tests {
    use std::str::FromStr as _;
    use std::time::Duration;

    use sqlx::postgres::PgConnectOptions;

    use super::KeptReader;
    use crate::storage::db::query;

    async fn reader(most: usize) -> Option<KeptReader> {
        let url = std::env::var("LFS_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
        let options = PgConnectOptions::from_str(&url).unwrap();
        let reader = KeptReader::new(options, most);
        match reader.text(&query("SELECT 'up'")).await {
            Ok(_) => Some(reader),
            Err(error) if std::env::var("CI").is_ok_and(|v| v == "true") => {
                panic!("PostgreSQL at {url} is unreachable: {error:?}")
            }
            Err(error) => {
                eprintln!("skipped: PostgreSQL at {url} is unreachable: {error:?}");
                None
            }
        }
    }

    #[test]
    fn the_budget_is_halved_and_a_budget_of_one_is_the_pools() {
        assert_eq!(super::split(16), (8, 8), "the default");
        assert_eq!(super::split(3), (1, 2), "the pool takes the odd one");
        assert_eq!(super::split(1), (0, 1), "no reader: the pool reads");
        assert_eq!(super::split(0), (0, 0));
    }

    #[tokio::test]
    async fn a_connection_is_kept_for_the_next_read_and_no_more_are_opened_than_asked() {
        let Some(reader) = reader(1).await else {
            return;
        };
        assert_eq!(
            reader.status(),
            (1, 1, 1),
            "the first read's connection is kept"
        );
        let pid = |r: Result<Option<Vec<u8>>, _>| r.unwrap().unwrap();
        let first = pid(reader.text(&query("SELECT pg_backend_pid()::text")).await);
        let second = pid(reader.text(&query("SELECT pg_backend_pid()::text")).await);
        assert_eq!(first, second, "the same connection answers again");
        // The one connection lent: the next read is the pool's.
        let Some((place, Some(lent))) = reader.lend() else {
            panic!("the kept connection was not lent")
        };
        assert!(matches!(reader.text(&query("SELECT 'x'")).await, Err(None)));
        place.give_back(lent);
        assert_eq!(reader.status(), (1, 1, 1));
    }

    #[tokio::test]
    async fn a_read_given_up_half_way_closes_its_connection_and_frees_its_place() {
        let Some(reader) = reader(1).await else {
            return;
        };
        let sleep = query("SELECT pg_sleep(3)::text");
        let slow = reader.text(&sleep);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), slow)
                .await
                .is_err()
        );
        assert_eq!(reader.status(), (0, 0, 1), "the connection is not kept");
        // The next read opens another, which is not waiting for the sleep.
        let answer =
            tokio::time::timeout(Duration::from_secs(5), reader.text(&query("SELECT 'x'")))
                .await
                .expect("the next read waited for the abandoned one");
        assert_eq!(answer.unwrap(), Some(b"x".to_vec()));
    }

    #[tokio::test]
    async fn a_read_given_up_while_its_connection_opens_frees_its_place() {
        // A server that takes the connection and never answers it.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = silent.local_addr().unwrap().port();
        let reader = KeptReader::new(PgConnectOptions::new().host("127.0.0.1").port(port), 1);
        let read = query("SELECT 'x'");
        let opening = reader.text(&read);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), opening)
                .await
                .is_err()
        );
        assert_eq!(reader.status(), (0, 0, 1), "the place is free again");
        drop(silent);
    }

    #[tokio::test]
    async fn once_closed_it_keeps_nothing_and_lends_nothing() {
        let Some(reader) = reader(2).await else {
            return;
        };
        let Some((place, Some(lent))) = reader.lend() else {
            panic!("the kept connection was not lent")
        };
        reader.text(&query("SELECT 'x'")).await.unwrap();
        assert_eq!(reader.status(), (2, 1, 2));
        reader.close().await;
        assert_eq!(reader.status(), (1, 0, 2), "the idle one is closed");
        place.give_back(lent);
        assert_eq!(
            reader.status(),
            (0, 0, 2),
            "the lent one too, when given back"
        );
        assert!(matches!(reader.text(&query("SELECT 'x'")).await, Err(None)));
    }

    #[tokio::test]
    async fn a_failed_read_closes_its_connection() {
        let Some(reader) = reader(1).await else {
            return;
        };
        assert!(matches!(
            reader.text(&query("SELECT 1/0")).await,
            Err(Some(sqlx::Error::Database(_)))
        ));
        assert_eq!(reader.status(), (0, 0, 1));
    }

    #[tokio::test]
    async fn a_read_sees_what_was_committed_after_its_connection_was_kept() {
        let Some(reader) = reader(1).await else {
            return;
        };
        let table = format!("lfs_kept_{}", uuid::Uuid::new_v4().simple());
        let writer = sqlx::PgPool::connect_with(reader.options.clone())
            .await
            .unwrap();
        let run = |sql: String| {
            let writer = writer.clone();
            async move { sqlx::query(&sql).execute(&writer).await.unwrap() }
        };
        run(format!("CREATE TABLE {table} (v TEXT)")).await;
        run(format!("INSERT INTO {table} VALUES ('before')")).await;
        let read = format!("SELECT v FROM {table}");
        let read = query(read.as_str());
        assert_eq!(reader.text(&read).await.unwrap(), Some(b"before".to_vec()));
        run(format!("UPDATE {table} SET v = 'after'")).await;
        assert_eq!(reader.text(&read).await.unwrap(), Some(b"after".to_vec()));
        run(format!("DROP TABLE {table}")).await;
        writer.close().await;
    }
}
