//! The schema migrations, embedded in the binary and applied at start.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

use super::db::Dialect;

/// One migration: its version, description and SQL per database.
struct Step {
    version: i64,
    description: &'static str,
    sqlite: &'static str,
    postgres: &'static str,
}

const STEPS: &[Step] = &[
    Step {
        version: 1,
        description: "schema",
        sqlite: include_str!("../../migrations/sqlite/0001_schema.sql"),
        postgres: include_str!("../../migrations/postgres/0001_schema.sql"),
    },
    Step {
        version: 2,
        description: "returns filter order",
        sqlite: include_str!("../../migrations/sqlite/0002_returns_filter_order.sql"),
        postgres: include_str!("../../migrations/postgres/0002_returns_filter_order.sql"),
    },
];

/// The migrator for `dialect`.
pub fn migrator(dialect: Dialect) -> Migrator {
    let migrations = STEPS
        .iter()
        .map(|step| {
            let sql = match dialect {
                Dialect::Sqlite => step.sqlite,
                Dialect::Postgres => step.postgres,
            };
            Migration::new(
                step.version,
                Cow::Borrowed(step.description),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                false,
            )
        })
        .collect();
    Migrator {
        migrations: Cow::Owned(migrations),
        ignore_missing: false,
        locking: true,
        no_tx: false,
    }
}
