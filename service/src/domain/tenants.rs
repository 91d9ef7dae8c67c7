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

/// The record of tenant `id` in `environment` with a new token, and the token.
fn record(
    id: uuid::Uuid,
    name: &str,
    environment: Environment,
    emulation: bool,
) -> Result<(TenantRecord, NewTenant)> {
    let token = NewToken::generate(environment)
        .map_err(|e| DomainError::Internal(format!("the system's random source failed: {e}")))?;
    let record = TenantRecord {
        id,
        name: name.to_owned(),
        created_at: super::now(),
        key_id: token.key_id,
        secret_hash: token.secret_hash,
        environment,
        emulation,
    };
    let tenant = NewTenant {
        tenant_id: id,
        token: token.token,
    };
    Ok((record, tenant))
}

/// Creates a tenant of `environment` with a token for it; `emulation` lets
/// the token act on behalf of other tenants of that environment (decisions
/// D17, D35).
pub async fn create(
    repository: &impl TenantRepository,
    name: &str,
    environment: Environment,
    emulation: bool,
) -> Result<NewTenant> {
    let (record, tenant) = record(uuid::Uuid::new_v4(), name, environment, emulation)?;
    repository.insert_tenant(&record).await?;
    Ok(tenant)
}

/// Gives the stored tenant `tenant`, of `environment`, another token; its
/// earlier tokens keep working. Tokens are stored hashed and shown once, so
/// this is the way to a token when one is lost (the operator's `token
/// create`). `emulation` as for [`create`].
pub async fn add_token(
    repository: &impl TenantRepository,
    tenant: uuid::Uuid,
    environment: Environment,
    emulation: bool,
) -> Result<NewTenant> {
    let (record, tenant) = record(tenant, "", environment, emulation)?;
    repository.add_token(&record).await?;
    Ok(tenant)
}

/// Creates a tenant in no environment, without a token: nothing reaches it
/// until [`bind`] (decision D36). Its data can be written meanwhile.
pub async fn create_unbound(repository: &impl TenantRepository, name: &str) -> Result<uuid::Uuid> {
    let id = uuid::Uuid::new_v4();
    repository
        .insert_unbound_tenant(id, name, super::now())
        .await?;
    Ok(id)
}

/// A tenant made by [`create_unbound`] and the token it is to get: the token
/// exists before it is stored, so that it can be shown before the tenant is
/// reachable (decision D36).
#[derive(Debug)]
pub struct Binding {
    record: TenantRecord,
    tenant: NewTenant,
}

impl Binding {
    /// The tenant and the token it will have once bound.
    pub fn tenant(&self) -> &NewTenant {
        &self.tenant
    }
}

/// The binding of `tenant`, made by [`create_unbound`], into `environment`
/// with a new token; nothing is stored until [`bind`].
pub fn binding(tenant: uuid::Uuid, environment: Environment, emulation: bool) -> Result<Binding> {
    let (record, tenant) = record(tenant, "", environment, emulation)?;
    Ok(Binding { record, tenant })
}

/// Puts the tenant of `binding` into its environment and stores its token,
/// in one step: before it, nothing reaches the tenant; after it, its token
/// does.
pub async fn bind(repository: &impl TenantRepository, binding: Binding) -> Result<NewTenant> {
    repository.bind_tenant(&binding.record).await?;
    Ok(binding.tenant)
}

/// A tenant made in no environment is reached by no token until it is
/// bound; then the token shown before binding reaches it, and only it.
#[cfg(test)]
mod binding_tests {
    use super::*;
    use crate::domain::memory::MemoryRepository;
    use crate::domain::tenancy::parse_credential;

    #[tokio::test]
    async fn the_token_shown_before_binding_reaches_the_unbound_tenant_once_bound() {
        let repository = MemoryRepository::default();
        let id = create_unbound(&repository, "Demo").await.unwrap();
        let other = create_unbound(&repository, "Other").await.unwrap();
        assert_ne!(id, other, "each tenant has an id of its own");
        assert_eq!(repository.tenant_environment(id).await.unwrap(), None);

        let binding = binding(id, Environment::Staging, false).unwrap();
        let shown = binding.tenant().clone();
        assert_eq!(shown.tenant_id, id);
        let key_id = parse_credential(&shown.token, Environment::Staging)
            .unwrap()
            .key_id
            .to_owned();
        assert!(
            repository.find_token(&key_id).await.unwrap().is_none(),
            "nothing is stored before the binding"
        );

        let bound = bind(&repository, binding).await.unwrap();
        assert_eq!((bound.tenant_id, &bound.token), (id, &shown.token));
        assert_eq!(
            repository.tenant_environment(id).await.unwrap(),
            Some(Environment::Staging)
        );
        let token = repository.find_token(&key_id).await.unwrap().unwrap();
        assert_eq!(token.tenant_id, id);
        assert!(token.serves(Environment::Staging));
        assert_eq!(repository.tenant_environment(other).await.unwrap(), None);
    }
}
