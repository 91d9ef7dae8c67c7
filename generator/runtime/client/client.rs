//! The client and its builder, as every API's client has them. What depends
//! on the document (its environments, the credentials its security schemes
//! take, the headers every operation sends) is in `config.rs`; the
//! operations are in `operations.rs`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::Environment;
use crate::error::Error;
use crate::retry::RetryPolicy;
use crate::transport::{Credentials, Transport};

/// The time-out of one attempt unless the builder sets another.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The `User-Agent` unless the builder sets another: `<package>/<version>`.
const DEFAULT_USER_AGENT: &str = concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION"));

/// A client of the API: one async method per operation.
///
/// Cheap to clone: clones share the connection pool and the settings.
/// `Debug` shows the settings, never a credential.
#[derive(Clone)]
pub struct Client {
    pub(crate) transport: Arc<Transport>,
}

impl Client {
    /// A builder to choose the environment, credentials, time-out, retries
    /// and the rest.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// The base URL the client sends requests to, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.transport.base_url
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.fmt(f)
    }
}

/// Builds a [`Client`].
///
/// By default: the first environment the document names, with its server
/// variables at their defaults; no credentials; a time-out of 30 s per
/// attempt; the default [`RetryPolicy`]; a `User-Agent` of
/// `<package>/<version>`; a new HTTP client with rustls.
#[derive(Clone)]
pub struct ClientBuilder {
    environment: Environment,
    variables: Vec<(String, String)>,
    pub(crate) credentials: Credentials,
    pub(crate) common_headers: Vec<(&'static str, String)>,
    timeout: Duration,
    user_agent: Option<String>,
    retry: RetryPolicy,
    http: Option<reqwest::Client>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder::new()
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("environment", &self.environment)
            .field("variables", &self.variables)
            .field("credentials", &self.credentials)
            .field("common_headers", &self.common_headers)
            .field("timeout", &self.timeout)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .field("http", &self.http.is_some())
            .finish()
    }
}

impl ClientBuilder {
    /// A builder with the defaults.
    pub fn new() -> Self {
        ClientBuilder {
            environment: Environment::default(),
            variables: Vec::new(),
            credentials: Credentials::default(),
            common_headers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            user_agent: None,
            retry: RetryPolicy::default(),
            http: None,
        }
    }

    /// Which of the API's environments to talk to, or
    /// [`Environment::Custom`] for any base URL.
    pub fn environment(mut self, environment: Environment) -> Self {
        self.environment = environment;
        self
    }

    /// Talks to `url` (such as `http://127.0.0.1:8080`): the same as
    /// `environment(Environment::Custom(url))`.
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.environment(Environment::Custom(url.into()))
    }

    /// Sets a variable of the environment's URL template instead of its
    /// default (see [`Environment`] for each environment's variables).
    pub fn server_variable(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.variables.retain(|(n, _)| *n != name);
        self.variables.push((name, value.into()));
        self
    }

    /// How long one attempt may take, from sending the request to reading
    /// the whole answer (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The `User-Agent` header (default `<package>/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// How failed attempts are retried (default [`RetryPolicy::default`]).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Sends requests with `client` instead of a new one: to share its
    /// connection pool, proxy or TLS settings. The builder's time-out still
    /// applies to every attempt; its `User-Agent` only when set explicitly.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// The client.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the base URL is not an `http` or `https`
    /// URL, a server variable is unknown or not one of its allowed values,
    /// or a credential or header value cannot be sent in a header;
    /// [`Error::Transport`] when the HTTP client cannot be created.
    pub fn build(self) -> Result<Client, Error> {
        let base_url = self.environment.resolve(&self.variables)?;
        let base_url = base_url.trim_end_matches('/').to_owned();
        match reqwest::Url::parse(&base_url) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {}
            _ => {
                return Err(Error::invalid(format!(
                    "the base URL `{base_url}` is not an http or https URL; choose an environment or give Environment::Custom a URL such as https://api.example.com"
                )));
            }
        }
        let user_agent = match (&self.user_agent, &self.http) {
            (Some(agent), _) => Some(agent.as_str()),
            (None, None) => Some(DEFAULT_USER_AGENT),
            (None, Some(_)) => None,
        };
        let user_agent = user_agent
            .map(|agent| {
                HeaderValue::from_str(agent).map_err(|_| {
                    Error::invalid(format!("`{agent}` cannot be sent as a User-Agent"))
                })
            })
            .transpose()?;
        if let Some(token) = &self.credentials.token {
            if HeaderValue::from_str(token.expose()).is_err() {
                return Err(Error::invalid(
                    "the token cannot be sent in a header (it has line breaks or other control characters)",
                ));
            }
        }
        for (name, value) in &self.common_headers {
            if HeaderValue::from_str(value).is_err() {
                return Err(Error::invalid(format!(
                    "the header `{name}` cannot carry `{value}` (line breaks and other control characters cannot be sent)"
                )));
            }
        }
        let http = match self.http {
            Some(client) => client,
            None => reqwest::Client::builder().build().map_err(Error::Transport)?,
        };
        Ok(Client {
            transport: Arc::new(Transport {
                http,
                base_url,
                timeout: self.timeout,
                user_agent,
                retry: self.retry,
                credentials: self.credentials,
                common_headers: self.common_headers,
            }),
        })
    }
}

/// Sends `value` in the header `name` with every request (replacing an
/// earlier value).
// Only APIs with common headers use it.
#[allow(dead_code)]
pub(crate) fn set_header(headers: &mut Vec<(&'static str, String)>, name: &'static str, value: String) {
    headers.retain(|(n, _)| *n != name);
    headers.push((name, value));
}

/// A client like `client` that sends `value` in the header `name`.
// Only APIs with common headers use it.
#[allow(dead_code)]
pub(crate) fn with_header(client: &Client, name: &'static str, value: String) -> Client {
    let mut transport = Transport::clone(&client.transport);
    set_header(&mut transport.common_headers, name, value);
    Client {
        transport: Arc::new(transport),
    }
}

/// A variable of a server's URL template.
// Only APIs whose servers have variables use it.
#[allow(dead_code)]
pub(crate) struct ServerVariable {
    pub(crate) name: &'static str,
    pub(crate) default: &'static str,
    pub(crate) allowed: &'static [&'static str],
}

/// `template` with each `{variable}` replaced by its value in `overrides`
/// or its default.
pub(crate) fn fill_template(
    environment: &str,
    template: &str,
    variables: &[ServerVariable],
    overrides: &[(String, String)],
) -> Result<String, Error> {
    for (name, _) in overrides {
        if !variables.iter().any(|v| v.name == name) {
            let known: Vec<&str> = variables.iter().map(|v| v.name).collect();
            return Err(Error::invalid(if known.is_empty() {
                format!("the {environment} environment has no server variable `{name}` (it has none)")
            } else {
                format!(
                    "the {environment} environment has no server variable `{name}`; it has {}",
                    known.join(", ")
                )
            }));
        }
    }
    let mut url = template.to_owned();
    for variable in variables {
        let value = overrides
            .iter()
            .find(|(n, _)| n == variable.name)
            .map_or(variable.default, |(_, v)| v.as_str());
        if !variable.allowed.is_empty() && !variable.allowed.contains(&value) {
            return Err(Error::invalid(format!(
                "the server variable `{}` cannot be `{value}`; it is one of {}",
                variable.name,
                variable.allowed.join(", ")
            )));
        }
        url = url.replace(&format!("{{{}}}", variable.name), value);
    }
    Ok(url)
}
