//! The database store: windows in PostgreSQL's `rate_limit_windows` table
//! (migration 0003), counted by its `rate_limit_hit` function in one round
//! trip, so that every instance on the database shares them.
//!
//! The store has a small pool of its own, apart from the service's, so that
//! the repository's code and connections are left alone.

use std::str::FromStr;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use super::{StoreError, Verdict, WINDOW};

/// Connections of the store's pool.
const CONNECTIONS: u32 = 8;

/// Windows in a PostgreSQL database.
pub struct DatabaseStore {
    pool: PgPool,
}

impl DatabaseStore {
    /// The store in the database at `url` (a `postgres://` URL); connects
    /// when first used.
    pub fn new(url: &str, deadline: Duration) -> Result<DatabaseStore, String> {
        // A check need not wait for a durable commit (the table is unlogged
        // too, migration 0005): a window lost in a crash only restarts.
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| e.to_string())?
            .options([("synchronous_commit", "off")]);
        let pool = PgPoolOptions::new()
            .max_connections(CONNECTIONS)
            .min_connections(0)
            .acquire_timeout(deadline)
            .connect_lazy_with(options);
        Ok(DatabaseStore { pool })
    }

    /// Counts a request of `key` against `per_minute`.
    pub async fn hit(&self, key: &str, per_minute: u32) -> Result<Verdict, StoreError> {
        let (allowed, remaining, retry_after_ms): (bool, i32, i64) = sqlx::query_as(
            "SELECT allowed, remaining, retry_after_ms FROM rate_limit_hit($1, $2, $3)",
        )
        .bind(key)
        .bind(i32::try_from(per_minute).unwrap_or(i32::MAX))
        .bind(WINDOW.as_millis() as i32)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| StoreError(e.to_string()))?;
        Ok(if allowed {
            Verdict::Allowed {
                remaining: remaining.max(0) as u64,
            }
        } else {
            Verdict::Refused {
                retry_after: super::whole_seconds(retry_after_ms),
            }
        })
    }

    /// Closes the store's connections.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
