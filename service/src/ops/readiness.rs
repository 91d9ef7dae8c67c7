//! `/readyz`: does the database answer a query within a short deadline?
//!
//! The probe has a connection of its own (opened when first asked for, and
//! again after it fails), so a pool busy with requests does not make the
//! instance look dead, and a database that went away is noticed at once.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{PgPool, SqlitePool};

/// How long the database has to answer the probe's query.
pub const DEADLINE: Duration = Duration::from_secs(2);

/// The readiness probe of one database.
pub struct Readiness {
    pool: Probe,
}

enum Probe {
    Postgres(PgPool),
    Sqlite(SqlitePool),
}

impl Readiness {
    /// A probe of the database at `url` (as the service opens it); it does not
    /// connect until asked.
    pub fn new(url: &str) -> Result<Readiness, String> {
        let pool = if crate::storage::is_postgres(url) {
            let options = PgConnectOptions::from_str(url).map_err(|e| e.to_string())?;
            Probe::Postgres(
                PgPoolOptions::new()
                    .max_connections(1)
                    .min_connections(0)
                    .acquire_timeout(DEADLINE)
                    .connect_lazy_with(options),
            )
        } else {
            let path = url
                .strip_prefix("sqlite://")
                .or_else(|| url.strip_prefix("sqlite:"))
                .unwrap_or(url);
            let options = SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(false)
                .read_only(true);
            Probe::Sqlite(
                SqlitePoolOptions::new()
                    .max_connections(1)
                    .min_connections(0)
                    .acquire_timeout(DEADLINE)
                    .connect_lazy_with(options),
            )
        };
        Ok(Readiness { pool })
    }

    /// `Ok` when the database answered `SELECT 1` within [`DEADLINE`]; why
    /// not otherwise.
    pub async fn check(&self) -> Result<(), String> {
        let query = async {
            match &self.pool {
                Probe::Postgres(pool) => sqlx::query("SELECT 1").execute(pool).await.map(drop),
                Probe::Sqlite(pool) => sqlx::query("SELECT 1").execute(pool).await.map(drop),
            }
        };
        match tokio::time::timeout(DEADLINE, query).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(format!("the database does not answer ({error})")),
            Err(_) => Err(format!(
                "the database did not answer within {} ms",
                DEADLINE.as_millis()
            )),
        }
    }

    /// Closes the probe's connection.
    pub async fn close(&self) {
        match &self.pool {
            Probe::Postgres(pool) => pool.close().await,
            Probe::Sqlite(pool) => pool.close().await,
        }
    }
}
