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
    /// `X-Tenant-Id` names no tenant of this environment: 403.
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
        // A token works only where both it and its tenant belong (D35).
        if !record.serves(self.environment)
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
                // Cached: tenants known to be of this environment, the only
                // one whose tokens get here.
                if self.tenants.get(&principal.tenant_id).is_none() {
                    let environment = self
                        .store
                        .tenant_environment(principal.tenant_id)
                        .await
                        .map_err(|e| Refusal::Unavailable(e.to_string()))?;
                    tenancy::may_emulate(record, environment)
                        .map_err(|_| Refusal::UnknownTenant)?;
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
        self.get_at(key, Instant::now())
    }

    fn insert(&self, key: K, value: V) {
        self.insert_at(key, value, Instant::now());
    }

    /// The entry for `key` if it is younger than the TTL at `now`.
    fn get_at<Q>(&self, key: &Q, now: Instant) -> Option<V>
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
            .filter(|(_, at)| now.saturating_duration_since(*at) < CACHE_TTL)
            .map(|(value, _)| value.clone())
    }

    /// Stores `value` as of `now`; when the cache is full, the expired
    /// entries go first, and everything if none has expired.
    fn insert_at(&self, key: K, value: V, now: Instant) {
        let mut entries = self
            .entries
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if entries.len() >= CACHE_CAPACITY {
            entries.retain(|_, (_, at)| now.saturating_duration_since(*at) < CACHE_TTL);
            if entries.len() >= CACHE_CAPACITY {
                entries.clear();
            }
        }
        entries.insert(key, (value, now));
    }
}

/// The token and tenant caches' rules: an entry is used for its TTL and not
/// after, and the cache never holds more than its capacity.
#[cfg(test)]
mod cache_tests {
    use super::*;

    fn len(cache: &Cache<usize, ()>) -> usize {
        cache.entries.read().unwrap().len()
    }

    #[test]
    fn an_entry_is_used_until_its_ttl_and_not_after() {
        let cache = Cache::default();
        let start = Instant::now();
        cache.insert_at(1, "record", start);
        assert_eq!(cache.get_at(&1, start), Some("record"));
        let almost = start + CACHE_TTL - Duration::from_millis(1);
        assert_eq!(cache.get_at(&1, almost), Some("record"));
        assert_eq!(cache.get_at(&1, start + CACHE_TTL), None, "expired");
        assert_eq!(cache.get_at(&2, start), None, "never stored");
    }

    #[test]
    fn a_full_cache_drops_expired_entries_first_and_everything_if_none_expired() {
        let cache = Cache::default();
        let start = Instant::now();
        let later = start + CACHE_TTL;
        cache.insert_at(0, (), start);
        for key in 1..CACHE_CAPACITY {
            cache.insert_at(key, (), later);
        }
        assert_eq!(len(&cache), CACHE_CAPACITY, "not full yet: nothing dropped");
        // Full: only the one expired entry goes.
        cache.insert_at(CACHE_CAPACITY, (), later);
        assert_eq!(len(&cache), CACHE_CAPACITY);
        assert_eq!(cache.get_at(&0, later), None);
        assert_eq!(cache.get_at(&1, later), Some(()));
        // Full again, nothing expired: everything goes but the new entry.
        cache.insert_at(CACHE_CAPACITY + 1, (), later);
        assert_eq!(len(&cache), 1);
        assert_eq!(cache.get_at(&(CACHE_CAPACITY + 1), later), Some(()));
    }
}

/// Who a request is, as a client meets it: a token works in its own
/// environment with its own secret; it acts on its own tenant, or with the
/// emulation right on another tenant of its environment, and on nothing else.
#[cfg(test)]
mod authenticator_tests {
    use super::*;
    use crate::domain::memory::MemoryRepository;
    use crate::domain::tenancy::NewToken;
    use crate::domain::tenants::{self, NewTenant};

    async fn tenant(
        repository: &MemoryRepository,
        environment: Environment,
        emulation: bool,
    ) -> NewTenant {
        tenants::create(repository, "T", environment, emulation)
            .await
            .unwrap()
    }

    /// `token` with its last character changed: the same key id, another secret.
    fn other_secret(token: &str) -> String {
        let (head, last) = token.split_at(token.len() - 1);
        format!("{head}{}", if last == "A" { "B" } else { "A" })
    }

    #[tokio::test]
    async fn a_token_works_with_its_own_secret_in_its_own_environment() {
        let repository = MemoryRepository::default();
        let staging = tenant(&repository, Environment::Staging, false).await;
        let production = tenant(&repository, Environment::Production, false).await;
        let auth = Authenticator::new(repository, Environment::Staging);

        let own = Principal {
            tenant_id: staging.tenant_id,
            token_tenant_id: staging.tenant_id,
        };
        let bearer = format!("Bearer {}", staging.token);
        assert_eq!(auth.authenticate(&bearer, None).await, Ok(own));
        // Asked again, from the cache: the same answers.
        assert_eq!(auth.authenticate(&staging.token, None).await, Ok(own));
        assert_eq!(
            auth.authenticate(&other_secret(&staging.token), None).await,
            Err(Refusal::InvalidCredential),
            "a wrong secret under a known key id"
        );
        assert_eq!(
            auth.authenticate(&production.token, None).await,
            Err(Refusal::WrongEnvironment {
                token: Environment::Production,
                service: Environment::Staging
            })
        );
        let unknown = NewToken::generate(Environment::Staging).unwrap();
        assert_eq!(
            auth.authenticate(&unknown.token, None).await,
            Err(Refusal::InvalidCredential)
        );
        assert_eq!(
            auth.authenticate("Basic dXNlcjpwYXNz", None).await,
            Err(Refusal::InvalidCredential)
        );
    }

    #[tokio::test]
    async fn only_an_emulating_token_acts_on_another_tenant_of_its_environment() {
        let repository = MemoryRepository::default();
        let emulating = tenant(&repository, Environment::Staging, true).await;
        let plain = tenant(&repository, Environment::Staging, false).await;
        let production = tenant(&repository, Environment::Production, false).await;
        let unbound = tenants::create_unbound(&repository, "U").await.unwrap();
        let auth = Authenticator::new(repository, Environment::Staging);

        let other = plain.tenant_id.to_string();
        assert_eq!(
            auth.authenticate(&emulating.token, Some(&other)).await,
            Ok(Principal {
                tenant_id: plain.tenant_id,
                token_tenant_id: emulating.tenant_id,
            })
        );
        // Known now (cached): still the same answer.
        assert_eq!(
            auth.authenticate(&emulating.token, Some(&other))
                .await
                .map(|p| p.tenant_id),
            Ok(plain.tenant_id)
        );
        let own = emulating.tenant_id.to_string();
        assert_eq!(
            auth.authenticate(&plain.token, Some(&own)).await,
            Err(Refusal::NoEmulationRight)
        );
        // A tenant of the other environment, one in none, and none at all
        // are refused alike: one environment learns nothing of the other.
        for tenant in [production.tenant_id, unbound, Uuid::from_u128(7)] {
            assert_eq!(
                auth.authenticate(&emulating.token, Some(&tenant.to_string()))
                    .await,
                Err(Refusal::UnknownTenant),
                "{tenant}"
            );
        }
        assert_eq!(
            auth.authenticate(&emulating.token, Some("not-a-uuid"))
                .await,
            Err(Refusal::UnknownTenant)
        );
    }
}
