//! The schema migrations, embedded in the binary by `sqlx::migrate!` and
//! applied at start: `service/migrations/<database>/NNNN_description.sql`.
//! The two databases share version numbers where a change applies to both;
//! a migration of one alone (PostgreSQL's rate-limit table, 0003) has no
//! counterpart in the other.

use sqlx::migrate::Migrator;

use super::db::Dialect;

static SQLITE: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES: Migrator = sqlx::migrate!("./migrations/postgres");

/// The migrator for `dialect`.
pub fn migrator(dialect: Dialect) -> &'static Migrator {
    match dialect {
        Dialect::Sqlite => &SQLITE,
        Dialect::Postgres => &POSTGRES,
    }
}
