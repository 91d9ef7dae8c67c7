//! Environments, tenants' tokens, and who may act on which tenant.

use std::fmt;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// One of the two isolated environments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Environment {
    /// The sandbox: no real shipments, no live data.
    Staging,
    /// Live data.
    Production,
}

impl Environment {
    /// The environment's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Staging => "staging",
            Environment::Production => "production",
        }
    }

    /// The prefix of every token of this environment.
    pub fn token_prefix(self) -> &'static str {
        match self {
            Environment::Staging => "lfs_stg_",
            Environment::Production => "lfs_prd_",
        }
    }

    /// The environment whose tokens start like `token`, if any.
    pub fn of_token(token: &str) -> Option<Environment> {
        [Environment::Staging, Environment::Production]
            .into_iter()
            .find(|e| token.starts_with(e.token_prefix()))
    }

    /// The environment called `name`.
    pub fn parse(name: &str) -> Option<Environment> {
        [Environment::Staging, Environment::Production]
            .into_iter()
            .find(|e| e.as_str() == name)
    }
}

impl std::str::FromStr for Environment {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Environment::parse(name)
            .ok_or_else(|| format!("`{name}` is not an environment; use staging or production"))
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Characters of a token's random part: URL-safe, unambiguous to copy.
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/// The random part's length after the prefix (decisions D16): 43 characters
/// of 62, log2(62) × 43 ≈ 256 bits.
pub const TOKEN_BODY_LEN: usize = 43;
/// The public lookup key: the first characters of the random part.
const KEY_ID_LEN: usize = 12;

/// A freshly made token: what the tenant is given once, and what is stored.
pub struct NewToken {
    /// The whole token, shown once.
    pub token: String,
    /// The public part used to find the stored record.
    pub key_id: String,
    /// SHA-256 of the whole token; the token itself is never stored.
    pub secret_hash: [u8; 32],
}

impl NewToken {
    /// A new random token for `environment`.
    pub fn generate(environment: Environment) -> Result<NewToken, getrandom::Error> {
        // Bytes of 248 and above are dropped, so that `% 62` is unbiased and
        // every character carries its full log2(62) bits.
        let limit = 256 - 256 % ALPHABET.len();
        let mut body = String::with_capacity(TOKEN_BODY_LEN);
        let mut random = [0u8; 64];
        while body.len() < TOKEN_BODY_LEN {
            getrandom::fill(&mut random)?;
            body.extend(
                random
                    .iter()
                    .map(|b| usize::from(*b))
                    .filter(|b| *b < limit)
                    .map(|b| ALPHABET[b % ALPHABET.len()] as char)
                    .take(TOKEN_BODY_LEN - body.len()),
            );
        }
        let token = format!("{}{body}", environment.token_prefix());
        let key_id = body[..KEY_ID_LEN].to_owned();
        let secret_hash = hash(&token);
        Ok(NewToken {
            token,
            key_id,
            secret_hash,
        })
    }
}

/// The parts of a presented token.
#[derive(Debug, PartialEq, Eq)]
pub struct PresentedToken<'a> {
    /// The environment its prefix names.
    pub environment: Environment,
    /// Its public lookup key.
    pub key_id: &'a str,
    /// The whole token, to hash and compare.
    pub token: &'a str,
}

/// Why a credential was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum CredentialError {
    /// Nothing usable was sent.
    Malformed,
    /// The token belongs to the other environment.
    WrongEnvironment {
        /// The token's environment.
        token: Environment,
        /// The service's environment.
        service: Environment,
    },
}

/// The token an `Authorization` header value presents: `Bearer <token>` (the
/// scheme in any case, any spacing) or a bare token; `None` for another scheme
/// or nothing. Every spelling of one token gives the same text, so whatever
/// counts or caches by token (the rate limit) sees one token, not its spellings.
pub fn presented_token(header: &str) -> Option<&str> {
    let header = header.trim();
    let token = match header.split_once([' ', '\t']) {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        Some(_) => return None,
        None => header,
    };
    (!token.is_empty()).then_some(token)
}

/// Reads an `Authorization` header value: `Bearer <token>` or a bare token.
pub fn parse_credential(
    header: &str,
    service: Environment,
) -> Result<PresentedToken<'_>, CredentialError> {
    let token = presented_token(header).ok_or(CredentialError::Malformed)?;
    let environment = Environment::of_token(token).ok_or(CredentialError::Malformed)?;
    if environment != service {
        return Err(CredentialError::WrongEnvironment {
            token: environment,
            service,
        });
    }
    let body = &token[environment.token_prefix().len()..];
    // ALPHABET is the ASCII letters and digits.
    if body.len() != TOKEN_BODY_LEN || !body.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(CredentialError::Malformed);
    }
    Ok(PresentedToken {
        environment,
        key_id: &body[..KEY_ID_LEN],
        token,
    })
}

/// SHA-256 of a token.
pub fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Whether `token` hashes to `stored`, compared in constant time.
pub fn matches(token: &str, stored: &[u8]) -> bool {
    hash(token).ct_eq(stored).into()
}

/// A stored token.
#[derive(Debug, Clone)]
pub struct TokenRecord {
    /// The tenant it belongs to.
    pub tenant_id: uuid::Uuid,
    /// The environment it works in.
    pub environment: Environment,
    /// SHA-256 of the whole token.
    pub secret_hash: Vec<u8>,
    /// Whether it may act on behalf of other tenants.
    pub emulation: bool,
    /// The environment its tenant belongs to; `None` for a tenant in no
    /// environment, which no token reaches (decision D35).
    pub tenant_environment: Option<Environment>,
}

impl TokenRecord {
    /// Whether the token works in a service of `service`'s environment: the
    /// token is of that environment and so is its tenant (decision D35). A
    /// token of another environment's tenant, or of a tenant in none, does not.
    pub fn serves(&self, service: Environment) -> bool {
        self.environment == service && self.tenant_environment == Some(service)
    }
}

/// Who a request acts as, once authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Principal {
    /// The tenant whose data the request reads and writes.
    pub tenant_id: uuid::Uuid,
    /// The tenant the token belongs to.
    pub token_tenant_id: uuid::Uuid,
}

/// Why a request may not act on the tenant it names.
#[derive(Debug, PartialEq, Eq)]
pub enum TenantRefusal {
    /// The token has no emulation right.
    NoEmulationRight,
    /// No such tenant.
    UnknownTenant,
}

/// The tenant a request asks to act on.
#[derive(Debug, PartialEq, Eq)]
pub enum Acting {
    /// The token's own tenant.
    Own(Principal),
    /// Another tenant, which the token may emulate if it exists.
    Other(Principal),
}

/// Decides the tenant a request acts on, from the token and `X-Tenant-Id`
/// (decisions D17). An `Other` tenant must still be checked with
/// [`may_emulate`] against the environment it belongs to.
pub fn acting_tenant(
    token: &TokenRecord,
    requested: Option<&str>,
) -> Result<Acting, TenantRefusal> {
    let own = Principal {
        tenant_id: token.tenant_id,
        token_tenant_id: token.tenant_id,
    };
    let requested = match requested.map(str::trim) {
        None | Some("") => return Ok(Acting::Own(own)),
        Some(text) => text,
    };
    let Ok(id) = uuid::Uuid::try_parse(requested) else {
        return Err(TenantRefusal::UnknownTenant);
    };
    if id == token.tenant_id {
        return Ok(Acting::Own(own));
    }
    if !token.emulation {
        return Err(TenantRefusal::NoEmulationRight);
    }
    Ok(Acting::Other(Principal {
        tenant_id: id,
        token_tenant_id: token.tenant_id,
    }))
}

/// Whether `token` may act on a tenant that belongs to `tenant_environment`
/// (`None`: no such tenant, or a tenant in no environment): only on a tenant
/// of the token's own environment (decision D35). A tenant of another
/// environment is refused as if it did not exist, so that one environment
/// learns nothing of the other's tenants.
pub fn may_emulate(
    token: &TokenRecord,
    tenant_environment: Option<Environment>,
) -> Result<(), TenantRefusal> {
    if tenant_environment == Some(token.environment) {
        Ok(())
    } else {
        Err(TenantRefusal::UnknownTenant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_their_environment_and_verify_by_hash() {
        let new = NewToken::generate(Environment::Staging).unwrap();
        assert!(new.token.starts_with("lfs_stg_"));
        assert_eq!(new.token.len(), 8 + 43, "D16: the prefix and 43 characters");
        assert!(
            new.token[8..].bytes().all(|b| b.is_ascii_alphanumeric()),
            "URL-safe: {}",
            new.token
        );
        let header = format!("Bearer {}", new.token);
        let presented = parse_credential(&header, Environment::Staging).unwrap();
        assert_eq!(presented.key_id, new.key_id);
        assert!(matches(presented.token, &new.secret_hash));
        // The token with its last character changed (to one it is not:
        // a token that ends in `x` made `…x` the token itself, 1 run in 62).
        let last = if new.token.ends_with('x') { "y" } else { "x" };
        assert!(!matches(
            &format!("{}{last}", &new.token[..new.token.len() - 1]),
            &new.secret_hash
        ));
        assert_eq!(
            parse_credential(&new.token, Environment::Staging)
                .unwrap()
                .token,
            new.token,
            "bare tokens work"
        );
        assert_eq!(
            parse_credential(&new.token, Environment::Production),
            Err(CredentialError::WrongEnvironment {
                token: Environment::Staging,
                service: Environment::Production
            })
        );
        assert_eq!(
            parse_credential("Basic abc", Environment::Staging),
            Err(CredentialError::Malformed)
        );
        assert_eq!(
            parse_credential("Bearer lfs_stg_short", Environment::Staging),
            Err(CredentialError::Malformed)
        );
        assert_eq!(
            parse_credential(&format!("{header}A"), Environment::Staging),
            Err(CredentialError::Malformed),
            "one character too many"
        );
    }

    #[test]
    fn every_spelling_of_a_token_presents_the_same_token() {
        for header in [
            "Bearer lfs_stg_abc",
            "bearer lfs_stg_abc",
            "BEARER  lfs_stg_abc ",
            "  Bearer\tlfs_stg_abc",
            "lfs_stg_abc",
            " lfs_stg_abc  ",
        ] {
            assert_eq!(presented_token(header), Some("lfs_stg_abc"), "{header:?}");
        }
        assert_eq!(presented_token("Basic abc"), None);
        assert_eq!(presented_token("   "), None);
        assert_eq!(presented_token(""), None);
    }

    #[test]
    fn the_tenant_header_follows_the_emulation_rules() {
        let own = uuid::Uuid::from_u128(1);
        let other = uuid::Uuid::from_u128(2);
        let token = |emulation| TokenRecord {
            tenant_id: own,
            environment: Environment::Staging,
            secret_hash: vec![],
            emulation,
            tenant_environment: Some(Environment::Staging),
        };
        let mine = Principal {
            tenant_id: own,
            token_tenant_id: own,
        };
        assert_eq!(acting_tenant(&token(false), None), Ok(Acting::Own(mine)));
        assert_eq!(
            acting_tenant(&token(false), Some("")),
            Ok(Acting::Own(mine))
        );
        assert_eq!(
            acting_tenant(&token(false), Some(&own.to_string())),
            Ok(Acting::Own(mine))
        );
        assert_eq!(
            acting_tenant(&token(false), Some(&other.to_string())),
            Err(TenantRefusal::NoEmulationRight)
        );
        assert_eq!(
            acting_tenant(&token(true), Some(&other.to_string())),
            Ok(Acting::Other(Principal {
                tenant_id: other,
                token_tenant_id: own
            }))
        );
        assert_eq!(
            acting_tenant(&token(true), Some("not-a-tenant")),
            Err(TenantRefusal::UnknownTenant)
        );
    }

    fn token_of(environment: Environment, tenant: Option<Environment>) -> TokenRecord {
        TokenRecord {
            tenant_id: uuid::Uuid::from_u128(1),
            environment,
            secret_hash: vec![],
            emulation: true,
            tenant_environment: tenant,
        }
    }

    #[test]
    fn a_token_serves_only_where_both_it_and_its_tenant_belong() {
        use Environment::{Production, Staging};
        for service in [Staging, Production] {
            let other = match service {
                Staging => Production,
                Production => Staging,
            };
            assert!(token_of(service, Some(service)).serves(service));
            assert!(!token_of(other, Some(other)).serves(service));
            assert!(
                !token_of(service, Some(other)).serves(service),
                "a token of another environment's tenant"
            );
            assert!(
                !token_of(other, Some(service)).serves(service),
                "the token's own environment counts too"
            );
            assert!(
                !token_of(service, None).serves(service),
                "a tenant in no environment"
            );
        }
    }

    #[test]
    fn emulation_reaches_only_tenants_of_the_tokens_environment() {
        use Environment::{Production, Staging};
        let staging = token_of(Staging, Some(Staging));
        let production = token_of(Production, Some(Production));
        assert_eq!(may_emulate(&staging, Some(Staging)), Ok(()));
        assert_eq!(may_emulate(&production, Some(Production)), Ok(()));
        assert_eq!(
            may_emulate(&staging, Some(Production)),
            Err(TenantRefusal::UnknownTenant)
        );
        assert_eq!(
            may_emulate(&production, Some(Staging)),
            Err(TenantRefusal::UnknownTenant)
        );
        assert_eq!(
            may_emulate(&staging, None),
            Err(TenantRefusal::UnknownTenant),
            "no such tenant, or one in no environment"
        );
    }
}

/// The token generator's output, over many tokens: what makes a token hard to
/// guess (every character of the alphabet, none favoured) and what makes it
/// usable (its environment's prefix, its length, its lookup key and hash).
#[cfg(test)]
mod token_generator_tests {
    use std::collections::HashSet;

    use super::*;

    /// Tokens drawn for the frequency test: 20 000 × 43 = 860 000 characters,
    /// so each of the 62 characters is expected μ ≈ 13 871 times.
    const TOKENS: usize = 20_000;
    /// The allowed relative departure of any character's count from μ.
    ///
    /// A correct generator's count of one character is Binomial(860 000,
    /// 1/62). By the Chernoff bounds, P(X ≥ 1.1μ) ≤ exp(−0.1²μ/2.1) ≈
    /// e^−66 and P(X ≤ 0.9μ) ≤ exp(−0.1²μ/2) ≈ e^−69; over the 62
    /// characters this test fails a correct generator with probability below
    /// 62 × (e^−66 + e^−69) < 10^−26. A broken rejection sampling that favours
    /// some characters by a quarter (5 byte values of 256 instead of 4: a
    /// limit off by one or not applied) gives those about 1.21μ or more, and
    /// fails with a like certainty; one that draws from a few characters
    /// leaves the others at 0.
    const TOLERANCE: f64 = 0.1;

    #[test]
    fn every_character_is_drawn_about_equally_often() {
        let mut counts = [0usize; 256];
        let mut seen = HashSet::with_capacity(TOKENS);
        for _ in 0..TOKENS {
            let new = NewToken::generate(Environment::Production).unwrap();
            for b in new.token["lfs_prd_".len()..].bytes() {
                counts[usize::from(b)] += 1;
            }
            assert!(seen.insert(new.token), "a token was drawn twice");
        }
        let expected = (TOKENS * TOKEN_BODY_LEN) as f64 / ALPHABET.len() as f64;
        for &c in ALPHABET {
            let count = counts[usize::from(c)];
            assert!(count > 0, "`{}` never appears", c as char);
            let departure = (count as f64 - expected).abs() / expected;
            assert!(
                departure <= TOLERANCE,
                "`{}` appears {count} times where about {expected:.0} are expected",
                c as char
            );
        }
        let outside: usize = (0..256)
            .filter(|b| !ALPHABET.contains(&(*b as u8)))
            .map(|b| counts[b])
            .sum();
        assert_eq!(outside, 0, "every character is from the alphabet");
    }

    #[test]
    fn each_environment_gets_its_prefix_length_key_and_hash() {
        for (environment, prefix) in [
            (Environment::Staging, "lfs_stg_"),
            (Environment::Production, "lfs_prd_"),
        ] {
            for _ in 0..100 {
                let new = NewToken::generate(environment).unwrap();
                let body = new
                    .token
                    .strip_prefix(prefix)
                    .unwrap_or_else(|| panic!("{} lacks {prefix}", new.token));
                assert_eq!(body.len(), TOKEN_BODY_LEN, "{}", new.token);
                assert_eq!(new.key_id, body[..KEY_ID_LEN], "{}", new.token);
                assert_eq!(new.secret_hash, hash(&new.token));
                assert_eq!(Environment::of_token(&new.token), Some(environment));
            }
        }
    }
}

/// An environment's name is what an operator gives `--environment`, what the
/// database stores for a tenant and what names the default database file
/// (`./data/<environment>.db`): each environment has its own, which reads
/// back as it; any other name is refused, naming the two there are.
#[cfg(test)]
mod environment_name_tests {
    use super::Environment;

    #[test]
    fn each_environment_has_its_name_and_reads_back_from_it() {
        for (environment, name) in [
            (Environment::Staging, "staging"),
            (Environment::Production, "production"),
        ] {
            assert_eq!(environment.as_str(), name);
            assert_eq!(environment.to_string(), name, "as displayed");
            assert_eq!(Environment::parse(name), Some(environment));
            assert_eq!(name.parse::<Environment>(), Ok(environment));
        }
        assert_eq!(Environment::parse("Staging"), None);
        assert_eq!(
            "live".parse::<Environment>(),
            Err("`live` is not an environment; use staging or production".to_owned())
        );
    }
}
