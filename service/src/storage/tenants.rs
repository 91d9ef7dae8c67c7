//! Tenants and their tokens.

use uuid::Uuid;

use super::Store;
use super::db::{in_write, micros, query};
use crate::domain::repository::{Result, TenantRecord, TenantRepository};
use crate::domain::tenancy::{Environment, TokenRecord};

impl TenantRepository for Store {
    async fn insert_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        in_write!(self.pool, |tx| {
            let created_at = micros(tenant.created_at);
            tx.execute(
                query("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(tenant.id)
                    .bind(&tenant.name)
                    .bind(created_at),
            )
            .await?;
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
                        .bind(created_at),
                    )
                    .await?;
            Ok(())
        })
    }

    async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
        let row = self
            .pool
            .fetch_optional(
                query("SELECT tenant_id, environment, secret_hash, emulation FROM tokens WHERE key_id = $1")
                    .bind(key_id),
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let environment: String = row.get(1)?;
        let Some(environment) = Environment::parse(&environment) else {
            return Ok(None);
        };
        Ok(Some(TokenRecord {
            tenant_id: row.get(0)?,
            environment,
            secret_hash: row.get(2)?,
            emulation: row.get(3)?,
        }))
    }

    async fn tenant_exists(&self, tenant: Uuid) -> Result<bool> {
        let row = self
            .pool
            .fetch_optional(query("SELECT 1 FROM tenants WHERE id = $1").bind(tenant))
            .await?;
        Ok(row.is_some())
    }

    async fn has_tenants(&self) -> Result<bool> {
        let row = self
            .pool
            .fetch_optional(query("SELECT 1 FROM tenants LIMIT 1"))
            .await?;
        Ok(row.is_some())
    }
}
