//! Tenants, their environments and their tokens.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Store;
use super::db::{Tx, in_write, micros, query};
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
