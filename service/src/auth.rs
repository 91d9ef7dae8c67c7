//! Who is calling: tokens checked against the store (briefly cached), and the
//! tenant a request may act on (decisions D15–D17).

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::domain::TenantRepository;
use crate::domain::tenancy::{
    self, Acting, CredentialError, Environment, Principal, TenantRefusal, TokenRecord,
};

/// How long a checked token or a known tenant is trusted without asking the
/// database again. Tokens are never revoked through this service; the cache
/// only saves a query per request.
const CACHE_TTL: Duration = Duration::from_secs(60);

/// The most entries each cache holds before it is emptied.
const CACHE_CAPACITY: usize = 10_000;

/// Why a request is refused before it reaches an operation.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No usable token, or an unknown one: 401.
    InvalidCredential,
    /// A token of the other environment: 401, saying so.
    WrongEnvironment {
        /// The token's environment.
        token: Environment,
        /// This service's environment.
        service: Environment,
    },
    /// The token may not act on the tenant named in `X-Tenant-Id`: 403.
    NoEmulationRight,
    /// `X-Tenant-Id` names no tenant: 403.
    UnknownTenant,
    /// The store could not be asked: 500.
    Unavailable(String),
    /// The token used up its requests for the window: 429.
    TooManyRequests(crate::rate_limit::TooManyRequests),
}

/// Checks credentials for one environment.
pub struct Authenticator<R> {
    store: R,
    environment: Environment,
    tokens: Cache<String, TokenRecord>,
    tenants: Cache<Uuid, ()>,
}

impl<R: TenantRepository> Authenticator<R> {
    /// An authenticator for the tokens of `environment` in `store`.
    pub fn new(store: R, environment: Environment) -> Self {
        Authenticator {
            store,
            environment,
            tokens: Cache::default(),
            tenants: Cache::default(),
        }
    }

    /// The principal of a request with this `Authorization` value and
    /// `X-Tenant-Id` value.
    pub async fn authenticate(
        &self,
        authorization: &str,
        tenant: Option<&str>,
    ) -> Result<Principal, Refusal> {
        let presented =
            tenancy::parse_credential(authorization, self.environment).map_err(|e| match e {
                CredentialError::Malformed => Refusal::InvalidCredential,
                CredentialError::WrongEnvironment { token, service } => {
                    Refusal::WrongEnvironment { token, service }
                }
            })?;
        let record = match self.tokens.get(presented.key_id) {
            Some(record) => record,
            None => {
                let record = self
                    .store
                    .find_token(presented.key_id)
                    .await
                    .map_err(|e| Refusal::Unavailable(e.to_string()))?
                    .ok_or(Refusal::InvalidCredential)?;
                self.tokens
                    .insert(presented.key_id.to_owned(), record.clone());
                record
            }
        };
        if record.environment != self.environment
            || !tenancy::matches(presented.token, &record.secret_hash)
        {
            return Err(Refusal::InvalidCredential);
        }
        // The token authenticated: only now does it count against the rate limit.
        crate::rate_limit::admit(presented.key_id)
            .await
            .map_err(Refusal::TooManyRequests)?;
        let principal = self.acting(&record, tenant).await?;
        crate::ops::trace::record_tenant(principal.tenant_id);
        Ok(principal)
    }

    /// The principal `record`'s token acts as, given `X-Tenant-Id`.
    async fn acting(
        &self,
        record: &TokenRecord,
        tenant: Option<&str>,
    ) -> Result<Principal, Refusal> {
        match tenancy::acting_tenant(record, tenant) {
            Ok(Acting::Own(principal)) => Ok(principal),
            Ok(Acting::Other(principal)) => {
                if self.tenants.get(&principal.tenant_id).is_none() {
                    let exists = self
                        .store
                        .tenant_exists(principal.tenant_id)
                        .await
                        .map_err(|e| Refusal::Unavailable(e.to_string()))?;
                    if !exists {
                        return Err(Refusal::UnknownTenant);
                    }
                    self.tenants.insert(principal.tenant_id, ());
                }
                Ok(principal)
            }
            Err(TenantRefusal::NoEmulationRight) => Err(Refusal::NoEmulationRight),
            Err(TenantRefusal::UnknownTenant) => Err(Refusal::UnknownTenant),
        }
    }
}

/// A small time-limited cache.
struct Cache<K, V> {
    entries: RwLock<HashMap<K, (V, Instant)>>,
}

impl<K, V> Default for Cache<K, V> {
    fn default() -> Self {
        Cache {
            entries: RwLock::new(HashMap::new()),
        }
    }
}

impl<K: std::hash::Hash + Eq, V: Clone> Cache<K, V> {
    fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        let entries = self
            .entries
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        entries
            .get(key)
            .filter(|(_, at)| at.elapsed() < CACHE_TTL)
            .map(|(value, _)| value.clone())
    }

    fn insert(&self, key: K, value: V) {
        let mut entries = self
            .entries
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if entries.len() >= CACHE_CAPACITY {
            entries.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
            if entries.len() >= CACHE_CAPACITY {
                entries.clear();
            }
        }
        entries.insert(key, (value, Instant::now()));
    }
}
