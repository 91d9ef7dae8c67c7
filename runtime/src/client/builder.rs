//! Setting a client up: the [`Settings`] a generated `ClientBuilder`
//! collects, and the environments' URL templates ([`fill_template`]).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::error_fields::Field;

use super::error::{Error, Failure};
use super::retry::RetryPolicy;
use super::transport::{Credentials, Secret, Shared, Transport};

/// The time-out of one attempt unless the builder sets another.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What a client's builder collects, apart from the environment: server
/// variables, credentials, common headers, time-out, `User-Agent`, retries
/// and the HTTP client. A generated `ClientBuilder` holds one beside its
/// API's `Environment` and turns it into a [`Transport`] with [`build`](Self::build).
///
/// `Debug` shows the settings, never a credential.
#[derive(Clone)]
pub struct Settings {
    variables: Vec<(String, String)>,
    credentials: Credentials,
    common_headers: Vec<(&'static str, String)>,
    timeout: Duration,
    user_agent: Option<String>,
    retry: RetryPolicy,
    http: Option<reqwest::Client>,
    error_fields: &'static [Field],
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            variables: Vec::new(),
            credentials: Credentials::default(),
            common_headers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            user_agent: None,
            retry: RetryPolicy::default(),
            http: None,
            error_fields: &[],
        }
    }
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("variables", &self.variables)
            .field("credentials", &self.credentials)
            .field("common_headers", &self.common_headers)
            .field("timeout", &self.timeout)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .field("http", &self.http.is_some())
            .field("error_fields", &self.error_fields)
            .finish()
    }
}

impl Settings {
    /// Where the API's error bodies carry each part of an error (its error
    /// schema's table): [`ApiError`](super::ApiError)'s message, problems and
    /// request id are read from there first, then by their common names.
    pub fn error_fields(&mut self, fields: &'static [Field]) {
        self.error_fields = fields;
    }

    /// Sets a variable of the environment's URL template instead of its
    /// default.
    pub fn server_variable(&mut self, name: String, value: String) {
        self.variables.retain(|(n, _)| *n != name);
        self.variables.push((name, value));
    }

    /// The server variables set, in the order they were set.
    pub fn variables(&self) -> &[(String, String)] {
        &self.variables
    }

    /// How long one attempt may take, from sending the request to reading
    /// the whole answer (default 30 s).
    pub fn timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The `User-Agent` header (default `<package>/<version>` of the
    /// generated crate, given to [`build`](Self::build)).
    pub fn user_agent(&mut self, user_agent: String) {
        self.user_agent = Some(user_agent);
    }

    /// How failed attempts are retried (default [`RetryPolicy::default`]).
    pub fn retry_policy(&mut self, policy: RetryPolicy) {
        self.retry = policy;
    }

    /// Sends requests with `client` instead of a new one. The time-out still
    /// applies to every attempt; the `User-Agent` only when set explicitly.
    pub fn http_client(&mut self, client: reqwest::Client) {
        self.http = Some(client);
    }

    /// The token the API's token schemes (API keys, bearer tokens) take.
    pub fn token(&mut self, token: String) {
        self.credentials.token = Some(Secret(token));
    }

    /// The user name and password of HTTP basic authentication.
    pub fn basic_auth(&mut self, user: String, password: String) {
        self.credentials.basic = Some((user, Secret(password)));
    }

    /// Sends `value` in the header `name` with every request (replacing an
    /// earlier value).
    pub fn header(&mut self, name: &'static str, value: String) {
        set_header(&mut self.common_headers, name, value);
    }

    /// The transport to `base_url`, sending `default_user_agent` unless a
    /// `User-Agent` or an HTTP client of one's own was given.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the base URL is not an `http` or `https`
    /// URL, or a credential or header value cannot be sent in a header;
    /// [`Error::Transport`] when the HTTP client cannot be created.
    pub fn build(self, base_url: &str, default_user_agent: &str) -> Result<Transport, Failure> {
        let base_url = base_url.trim_end_matches('/').to_owned();
        match reqwest::Url::parse(&base_url) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {}
            _ => {
                return Err(Failure::invalid(format!(
                    "the base URL `{base_url}` is not an http or https URL; choose an environment or give Environment::Custom a URL such as https://api.example.com"
                )));
            }
        }
        let user_agent = match (&self.user_agent, &self.http) {
            (Some(agent), _) => Some(agent.as_str()),
            (None, None) => Some(default_user_agent),
            (None, Some(_)) => None,
        };
        let user_agent = user_agent
            .map(|agent| {
                HeaderValue::from_str(agent).map_err(|_| {
                    Failure::invalid(format!("`{agent}` cannot be sent as a User-Agent"))
                })
            })
            .transpose()?;
        if let Some(token) = &self.credentials.token {
            if HeaderValue::from_str(token.expose()).is_err() {
                return Err(Failure::invalid(
                    "the token cannot be sent in a header (it has line breaks or other control characters)",
                ));
            }
        }
        for (name, value) in &self.common_headers {
            if HeaderValue::from_str(value).is_err() {
                return Err(Failure::invalid(format!(
                    "the header `{name}` cannot carry `{value}` (line breaks and other control characters cannot be sent)"
                )));
            }
        }
        let http = match self.http {
            Some(client) => client,
            None => reqwest::Client::builder()
                .build()
                .map_err(|e| Failure(Error::Transport(e)))?,
        };
        Ok(Transport(Arc::new(Shared {
            http,
            base_url,
            timeout: self.timeout,
            user_agent,
            retry: self.retry,
            credentials: self.credentials,
            common_headers: self.common_headers,
            error_fields: self.error_fields,
        })))
    }
}

fn set_header(headers: &mut Vec<(&'static str, String)>, name: &'static str, value: String) {
    headers.retain(|(n, _)| *n != name);
    headers.push((name, value));
}

impl Transport {
    /// A transport like this one (sharing its connections) that sends
    /// `value` in the header `name` with every request.
    pub fn with_header(&self, name: &'static str, value: String) -> Transport {
        let mut shared = Shared::clone(&self.0);
        set_header(&mut shared.common_headers, name, value);
        Transport(Arc::new(shared))
    }
}

/// A variable of a server's URL template.
#[derive(Debug, Clone, Copy)]
pub struct ServerVariable {
    /// Its name in the template, without braces.
    pub name: &'static str,
    /// Its value unless one is set.
    pub default: &'static str,
    /// The values it may take; empty for any.
    pub allowed: &'static [&'static str],
}

/// `template` with each `{variable}` replaced by its value in `overrides`
/// or its default; `environment` names the environment in errors.
///
/// # Errors
///
/// [`Error::InvalidInput`] when `overrides` names a variable the template
/// does not have, or gives one a value it does not allow.
pub fn fill_template(
    environment: &str,
    template: &str,
    variables: &[ServerVariable],
    overrides: &[(String, String)],
) -> Result<String, Failure> {
    for (name, _) in overrides {
        if !variables.iter().any(|v| v.name == name) {
            let known: Vec<&str> = variables.iter().map(|v| v.name).collect();
            return Err(Failure::invalid(if known.is_empty() {
                format!(
                    "the {environment} environment has no server variable `{name}` (it has none)"
                )
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
            return Err(Failure::invalid(format!(
                "the server variable `{}` cannot be `{value}`; it is one of {}",
                variable.name,
                variable.allowed.join(", ")
            )));
        }
        url = url.replace(&format!("{{{}}}", variable.name), value);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGION: ServerVariable = ServerVariable {
        name: "region",
        default: "eu",
        allowed: &["eu", "us"],
    };
    const STAGE: ServerVariable = ServerVariable {
        name: "stage",
        default: "live",
        allowed: &[],
    };
    const TEMPLATE: &str = "https://{stage}.{region}.example.com/{stage}";

    fn fill(overrides: &[(&str, &str)]) -> Result<String, String> {
        let overrides: Vec<(String, String)> = overrides
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        fill_template("production", TEMPLATE, &[REGION, STAGE], &overrides)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_variable_set_again_keeps_its_last_value_and_its_first_place() {
        let mut settings = Settings::default();
        settings.server_variable("region".to_owned(), "us".to_owned());
        settings.server_variable("stage".to_owned(), "beta".to_owned());
        settings.server_variable("region".to_owned(), "eu".to_owned());
        let set: Vec<(&str, &str)> = settings
            .variables()
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(set, [("stage", "beta"), ("region", "eu")]);
    }

    #[test]
    fn every_variable_of_the_template_is_its_value_or_its_default() {
        assert_eq!(fill(&[]).as_deref(), Ok("https://live.eu.example.com/live"));
        assert_eq!(
            fill(&[("region", "us"), ("stage", "beta")]).as_deref(),
            Ok("https://beta.us.example.com/beta")
        );
        // A variable with no list of values takes any.
        assert_eq!(
            fill(&[("stage", "x-1")]).as_deref(),
            Ok("https://x-1.eu.example.com/x-1")
        );
    }

    #[test]
    fn an_unknown_variable_or_a_value_not_allowed_is_refused_with_the_choices() {
        assert_eq!(
            fill(&[("zone", "a")]),
            Err(
                "the production environment has no server variable `zone`; it has region, stage"
                    .to_owned()
            )
        );
        assert_eq!(
            fill(&[("region", "mars")]),
            Err("the server variable `region` cannot be `mars`; it is one of eu, us".to_owned())
        );
        let none = fill_template(
            "local",
            "http://localhost",
            &[],
            &[("a".to_owned(), "b".to_owned())],
        );
        assert_eq!(
            none.map_err(|e| e.to_string()),
            Err("the local environment has no server variable `a` (it has none)".to_owned())
        );
    }
}
