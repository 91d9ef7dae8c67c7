//! Creating a tenant and its first token.

use super::DomainError;
use super::repository::{Result, TenantRecord, TenantRepository};
use super::tenancy::{Environment, NewToken};

/// A new tenant and its first token (shown once).
#[derive(Debug, Clone)]
pub struct NewTenant {
    /// The tenant's id.
    pub tenant_id: uuid::Uuid,
    /// Its token.
    pub token: String,
}

/// Creates a tenant with a token for `environment`; `emulation` lets the
/// token act on behalf of other tenants (decisions D17).
pub async fn create(
    repository: &impl TenantRepository,
    name: &str,
    environment: Environment,
    emulation: bool,
) -> Result<NewTenant> {
    let token = NewToken::generate(environment)
        .map_err(|e| DomainError::Internal(format!("the system's random source failed: {e}")))?;
    let record = TenantRecord {
        id: uuid::Uuid::new_v4(),
        name: name.to_owned(),
        created_at: super::now(),
        key_id: token.key_id,
        secret_hash: token.secret_hash,
        environment,
        emulation,
    };
    repository.insert_tenant(&record).await?;
    Ok(NewTenant {
        tenant_id: record.id,
        token: token.token,
    })
}
