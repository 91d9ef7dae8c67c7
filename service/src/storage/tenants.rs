//! Tenants, their environments and their tokens.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Store;
use super::db::{Pool, Tx, in_write, micros, query};
use crate::domain::DomainError;
use crate::domain::repository::{Result, TenantRecord, TenantRepository};
use crate::domain::tenancy::{Environment, TokenRecord};

/// Stores `tenant`'s token.
async fn insert_token(tx: &mut Tx, tenant: &TenantRecord) -> Result<(), sqlx::Error> {
    tx.execute(
        query(
            "INSERT INTO tokens (key_id, tenant_id, environment, secret_hash, emulation, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&tenant.key_id)
        .bind(tenant.id)
        .bind(tenant.environment.as_str())
        .bind(&tenant.secret_hash[..])
        .bind(tenant.emulation)
        .bind(micros(tenant.created_at)),
    )
    .await?;
    Ok(())
}

/// Every row of a tenant, children before their parents (the foreign
/// keys). A table of tenant data added to the schema is added here: the
/// removal fails on its foreign key otherwise, and the demo-seed test with it.
const TENANT_ROWS: [&str; 9] = [
    "DELETE FROM addresses WHERE customer_id IN (SELECT id FROM customers WHERE tenant_id = $1)",
    "DELETE FROM receiving_order_lines \
     WHERE order_id IN (SELECT id FROM receiving_orders WHERE tenant_id = $1)",
    "DELETE FROM receiving_order_lots \
     WHERE order_id IN (SELECT id FROM receiving_orders WHERE tenant_id = $1)",
    "DELETE FROM receiving_orders WHERE tenant_id = $1",
    "DELETE FROM sales_orders WHERE tenant_id = $1",
    "DELETE FROM returns WHERE tenant_id = $1",
    "DELETE FROM customers WHERE tenant_id = $1",
    "DELETE FROM tokens WHERE tenant_id = $1",
    "DELETE FROM tenants WHERE id = $1",
];

/// Removes the tenants named `name` in no environment and without a token,
/// with their data: an interrupted start's demo (D36). Only a first start
/// makes such a tenant, and first starts on one database take turns
/// (`Store::first_start_lock`), so none of these is still being made.
async fn remove_abandoned(tx: &mut Tx, name: &str) -> Result<(), sqlx::Error> {
    let abandoned = tx
        .fetch_all(
            query(
                "SELECT id FROM tenants t WHERE t.name = $1 AND t.environment IS NULL \
                 AND NOT EXISTS (SELECT 1 FROM tokens k WHERE k.tenant_id = t.id)",
            )
            .bind(name),
        )
        .await?;
    for row in abandoned {
        let tenant: Uuid = row.get(0)?;
        for delete in TENANT_ROWS {
            tx.execute(query(delete).bind(tenant)).await?;
        }
        tracing::info!(%tenant, "removed the demo tenant of an interrupted start");
    }
    Ok(())
}

/// An environment as stored; anything else stands for none (decision D35).
fn stored_environment(stored: Option<String>) -> Option<Environment> {
    stored.as_deref().and_then(Environment::parse)
}

impl TenantRepository for Store {
    async fn insert_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        in_write!(self.pool, |tx| {
            tx.execute(
                query(
                    "INSERT INTO tenants (id, name, created_at, environment) VALUES ($1, $2, $3, $4)",
                )
                .bind(tenant.id)
                .bind(&tenant.name)
                .bind(micros(tenant.created_at))
                .bind(tenant.environment.as_str()),
            )
            .await?;
            insert_token(tx, tenant).await?;
            Ok(())
        })
    }

    async fn insert_unbound_tenant(
        &self,
        tenant: Uuid,
        name: &str,
        created_at: DateTime<Utc>,
    ) -> Result<()> {
        in_write!(self.pool, |tx| {
            remove_abandoned(tx, name).await?;
            tx.execute(
                query("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(tenant)
                    .bind(name)
                    .bind(micros(created_at)),
            )
            .await?;
            Ok(())
        })
    }

    async fn bind_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        in_write!(self.pool, |tx| {
            let bound = tx
                .execute(
                    query(
                        "UPDATE tenants SET environment = $2 WHERE id = $1 AND environment IS NULL",
                    )
                    .bind(tenant.id)
                    .bind(tenant.environment.as_str()),
                )
                .await?;
            if bound != 1 {
                return Err(DomainError::Internal(format!(
                    "tenant {} is not a tenant in no environment",
                    tenant.id
                ))
                .into());
            }
            insert_token(tx, tenant).await?;
            Ok(())
        })
    }

    async fn add_token(&self, tenant: &TenantRecord) -> Result<()> {
        in_write!(self.pool, |tx| {
            // A tenant's environment never changes once set (D35, D36): read
            // without a lock.
            let row = tx
                .fetch_optional(
                    query("SELECT environment FROM tenants WHERE id = $1").bind(tenant.id),
                )
                .await?;
            let stored = match row {
                Some(row) => stored_environment(row.get(0)?),
                None => None,
            };
            if stored != Some(tenant.environment) {
                return Err(DomainError::Internal(format!(
                    "tenant {} is not a tenant of {}",
                    tenant.id, tenant.environment
                ))
                .into());
            }
            insert_token(tx, tenant).await?;
            Ok(())
        })
    }

    async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
        let row = self
            .pool
            .fetch_optional(
                query(
                    "SELECT k.tenant_id, k.environment, k.secret_hash, k.emulation, t.environment \
                     FROM tokens k JOIN tenants t ON t.id = k.tenant_id WHERE k.key_id = $1",
                )
                .bind(key_id),
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let Some(environment) = stored_environment(row.get(1)?) else {
            return Ok(None);
        };
        Ok(Some(TokenRecord {
            tenant_id: row.get(0)?,
            environment,
            secret_hash: row.get(2)?,
            emulation: row.get(3)?,
            tenant_environment: stored_environment(row.get(4)?),
        }))
    }

    async fn tenant_exists(&self, tenant: Uuid) -> Result<bool> {
        let row = self
            .pool
            .fetch_optional(query("SELECT 1 FROM tenants WHERE id = $1").bind(tenant))
            .await?;
        Ok(row.is_some())
    }

    async fn tenant_environment(&self, tenant: Uuid) -> Result<Option<Environment>> {
        let row = self
            .pool
            .fetch_optional(query("SELECT environment FROM tenants WHERE id = $1").bind(tenant))
            .await?;
        match row {
            Some(row) => Ok(stored_environment(row.get(0)?)),
            None => Ok(None),
        }
    }

    async fn has_tenants(&self) -> Result<bool> {
        let row = self
            .pool
            .fetch_optional(query(
                "SELECT 1 FROM tenants WHERE environment IS NOT NULL LIMIT 1",
            ))
            .await?;
        Ok(row.is_some())
    }
}

/// The advisory lock first starts on one PostgreSQL database take in turn.
const FIRST_START_LOCK: i64 = 0x6c66_735f_6669_7273; // "lfs_firs"

/// Held by a first start from its check for tenants to its demo's binding,
/// so that first starts on one database take turns: the second finds the
/// first's demo bound and makes none, and never removes a demo still being
/// made as an interrupted one (D36). On PostgreSQL a session's advisory
/// lock on a connection of its own, which the server releases when the
/// process dies; SQLite serves one instance, and needs none.
#[derive(Debug)]
pub struct FirstStartLock(Option<sqlx::PgConnection>);

impl FirstStartLock {
    /// Lets the next first start go on.
    pub async fn release(self) {
        if let Some(mut connection) = self.0 {
            let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(FIRST_START_LOCK)
                .execute(&mut connection)
                .await;
            // Closing the connection releases the lock too.
            if unlocked.is_err() {
                tracing::warn!("the first start's lock is released by closing its connection");
            }
            let _ = sqlx::Connection::close(connection).await;
        }
    }
}

impl Store {
    /// Waits for the first starts before this one on the same database.
    pub async fn first_start_lock(&self) -> Result<FirstStartLock, sqlx::Error> {
        let Pool::Postgres(pool) = &self.pool else {
            return Ok(FirstStartLock(None));
        };
        let mut connection = pool.acquire().await?.detach();
        sqlx::query("SELECT pg_advisory_lock($1)")
            .bind(FIRST_START_LOCK)
            .execute(&mut connection)
            .await?;
        Ok(FirstStartLock(Some(connection)))
    }
}
