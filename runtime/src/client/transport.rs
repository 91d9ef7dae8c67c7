//! One call on the wire: the request an operation's method puts together
//! ([`Call`]), sent with the client's credentials, common headers, time-out
//! and retries inside a tracing span ([`Transport::send`]), and the answer
//! read back ([`Answer`]).
//!
//! Secrets are kept in [`Secret`], whose `Debug` says nothing; the headers
//! that carry them are marked sensitive, and spans and events name the path
//! template, never the URL or a header.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tracing::Instrument;

use crate::error_fields::Field;
use crate::sequence::Framing;
use crate::template::{PathStyle, fixed_text};

use super::error::{Error, Failure};
use super::events::{EventData, Events};
use super::items::Items;
use super::response::Response;
use super::resume::{Resend, Streamed};
use super::retry::{self, RetryPolicy};

/// A token or password: usable, but never shown by `Debug`.
#[derive(Clone)]
pub(crate) struct Secret(pub(crate) String);

impl Secret {
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How one security scheme of the document carries its credential.
#[derive(Debug, Clone, Copy)]
pub enum Scheme {
    /// The token in a header, after `prefix` and a space when there is one
    /// (`Authorization: Bearer <token>`), unless the token already names its
    /// own scheme (`Bearer …`, `Token …`).
    Header {
        /// The header.
        name: &'static str,
        /// The scheme before the token, such as `Bearer`.
        prefix: Option<&'static str>,
    },
    /// The token as a query parameter.
    Query {
        /// The parameter.
        name: &'static str,
    },
    /// The token as a cookie.
    Cookie {
        /// The cookie.
        name: &'static str,
    },
    /// A user name and password: `Authorization: Basic …`.
    Basic,
}

/// The credentials a client was given.
#[derive(Debug, Clone, Default)]
pub(crate) struct Credentials {
    pub(crate) token: Option<Secret>,
    pub(crate) basic: Option<(String, Secret)>,
}

impl Credentials {
    fn has(&self, scheme: &Scheme) -> bool {
        match scheme {
            Scheme::Basic => self.basic.is_some(),
            _ => self.token.is_some(),
        }
    }
}

/// How the items of an array parameter are joined.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    /// `a,b` (`form` and `simple`).
    Comma,
    /// `a%20b` (`spaceDelimited`).
    Space,
    /// `a|b` (`pipeDelimited`).
    Pipe,
}

impl Style {
    fn delimiter(self) -> &'static str {
        match self {
            Style::Comma => ",",
            Style::Space => "%20",
            Style::Pipe => "|",
        }
    }
}

/// One request, as an operation's method puts it together. Problems with
/// the arguments (a header value with a line break) are kept and reported
/// when the call is sent.
pub struct Call {
    operation: &'static str,
    method: Method,
    template: &'static str,
    path: String,
    query: String,
    headers: HeaderMap,
    cookies: Vec<String>,
    body: Option<Bytes>,
    security: &'static [&'static [Scheme]],
    problem: Option<Failure>,
}

impl Call {
    /// A call of `operation` (its `operationId`), `method` on the path
    /// `template`, authenticated by any one of the `security` alternatives.
    pub fn new(
        operation: &'static str,
        method: Method,
        template: &'static str,
        security: &'static [&'static [Scheme]],
    ) -> Self {
        Call {
            operation,
            method,
            template,
            path: template.to_owned(),
            query: String::new(),
            headers: HeaderMap::new(),
            cookies: Vec::new(),
            body: None,
            security,
            problem: None,
        }
    }

    /// A call with a method that `reqwest` has no constant for (OpenAPI
    /// 3.2's `QUERY`, or one of `additionalOperations` such as `COPY`),
    /// by the name it is sent with; a name that is not an HTTP token is
    /// reported when the call is sent.
    pub fn with_method_named(
        operation: &'static str,
        method: &'static str,
        template: &'static str,
        security: &'static [&'static [Scheme]],
    ) -> Self {
        match Method::from_bytes(method.as_bytes()) {
            Ok(known) => Call::new(operation, known, template, security),
            Err(_) => {
                let mut call = Call::new(operation, Method::GET, template, security);
                call.fail(format!("`{method}` is not an HTTP method"));
                call
            }
        }
    }

    /// Fills `{name}` in the path; arrays are comma-separated (`simple`).
    ///
    /// Where the parameter shares its segment with others
    /// (`{name}-{version}.zip`), the characters of the fixed text between
    /// them are percent-encoded in the value too, so that a server
    /// splitting the segment there finds each value whole (`my-tool` is
    /// sent as `my%2Dtool`).
    pub fn path_param<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        let marker = format!("{{{name}}}");
        let separators = separators_beside(self.template, &marker);
        let text = match items(value) {
            Some(items) => items
                .iter()
                .map(|item| encode_also(item, &separators))
                .collect::<Vec<_>>()
                .join(","),
            None => String::new(),
        };
        self.path = self.path.replace(&marker, &text);
    }

    /// Fills `{name}` in the path in `label` or `matrix` style (see
    /// [`PathStyle`]). An empty list is no text at all, as RFC 6570 writes
    /// an undefined value.
    pub fn path_param_styled<T: Serialize + ?Sized>(
        &mut self,
        name: &str,
        value: &T,
        style: PathStyle,
        explode: bool,
    ) {
        let marker = format!("{{{name}}}");
        let mut separators = separators_beside(self.template, &marker);
        if style == PathStyle::Label {
            // `.` is unreserved, but the server splits a label at it.
            separators.push(b'.');
        }
        let items: Vec<String> = items(value)
            .unwrap_or_default()
            .iter()
            .map(|item| encode_also(item, &separators))
            .collect();
        let lead = |value: &str| match style {
            PathStyle::Label => format!(".{value}"),
            PathStyle::Matrix if value.is_empty() => format!(";{}", encode(name)),
            PathStyle::Matrix => format!(";{}={value}", encode(name)),
        };
        let text = match items.as_slice() {
            [] => String::new(),
            items if explode => items.iter().map(|item| lead(item)).collect(),
            items => lead(&items.join(",")),
        };
        self.path = self.path.replace(&marker, &text);
    }

    /// Adds a query parameter; nothing when `value` is `None`. Arrays are
    /// repeated (`explode`) or joined by `style`.
    pub fn query<T: Serialize + ?Sized>(
        &mut self,
        name: &str,
        value: &T,
        style: Style,
        explode: bool,
    ) {
        let Some(items) = items(value) else {
            return;
        };
        if explode && items.len() != 1 {
            for item in &items {
                self.query_pair(name, &encode(item));
            }
        } else {
            self.query_pair(name, &join(&items, style.delimiter()));
        }
    }

    /// Adds a query parameter whose value is given as text; nothing when
    /// the text is empty.
    pub fn query_text(&mut self, name: &str, value: &str) {
        if !value.is_empty() {
            self.query_pair(name, &encode(value));
        }
    }

    /// Sets the whole query string to `value` (OpenAPI 3.2's
    /// `in: querystring`): its text (a [`JsonText`] for JSON) with every
    /// byte but RFC 3986's unreserved characters percent-encoded, as the
    /// specification's own example writes `{"numbers":[1,2]}` as
    /// `%7B%22numbers%22%3A%5B1%2C2%5D%7D`. Encoding `&`, `=`, `+`, `;`,
    /// `#` and `%` too keeps the value whole through servers and proxies
    /// that read a query as form pairs or normalise it; a space is `%20`,
    /// never `+`. Nothing when `value` is `None` or its text is empty.
    pub fn query_string<T: Serialize + ?Sized>(&mut self, value: &T) {
        let Some(items) = items(value) else {
            return;
        };
        self.query = join(&items, ",");
    }

    /// The span a call is sent in: named `request`, with the operation,
    /// method and path template, and the attempt, status and latency to come.
    fn span(&self) -> tracing::Span {
        tracing::info_span!(
            "request",
            operation = self.operation,
            method = %self.method,
            path = self.template,
            attempt = tracing::field::Empty,
            status = tracing::field::Empty,
            latency_ms = tracing::field::Empty,
        )
    }

    pub(super) fn query_pair(&mut self, name: &str, encoded_value: &str) {
        if !self.query.is_empty() {
            self.query.push('&');
        }
        self.query.push_str(&encode(name));
        self.query.push('=');
        self.query.push_str(encoded_value);
    }

    /// Adds a header; nothing when `value` is `None`. Arrays are
    /// comma-separated.
    pub fn header<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) {
        let Some(items) = items(value) else {
            return;
        };
        let text = items.join(",");
        match (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&text),
        ) {
            (Ok(name), Ok(value)) => {
                self.headers.insert(name, value);
            }
            _ => self.fail(format!(
                "the header `{name}` cannot carry the value given (line breaks and other control characters cannot be sent)"
            )),
        }
    }

    /// Adds a cookie; nothing when `value` is `None`.
    pub fn cookie<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        if let Some(items) = items(value) {
            self.cookies.push(format!("{name}={}", join(&items, ",")));
        }
    }

    /// Says which media types the answer may have.
    pub fn accept(&mut self, media_types: &'static str) {
        match HeaderValue::from_str(media_types) {
            Ok(value) => {
                self.headers.insert(header::ACCEPT, value);
            }
            Err(_) => self.fail(format!("`{media_types}` cannot be sent as `Accept`")),
        }
    }

    /// Sends `body` as JSON.
    pub fn json_body<T: Serialize + ?Sized>(&mut self, content_type: &'static str, body: &T) {
        match serde_json::to_vec(body) {
            Ok(bytes) => self.body(content_type, bytes.into()),
            Err(error) => self.fail(format!(
                "the request body cannot be written as JSON: {error}"
            )),
        }
    }

    /// Sends `items` as a sequential JSON body (`application/jsonl`,
    /// `application/json-seq`): each item framed as `framing` says.
    pub fn sequence_body<'a, T: Serialize + 'a>(
        &mut self,
        content_type: &'static str,
        items: impl IntoIterator<Item = &'a T>,
        framing: Framing,
    ) {
        let mut bytes = Vec::with_capacity(1024);
        for item in items {
            if let Err(error) = framing.write(item, &mut bytes) {
                return self.fail(format!(
                    "an item of the request body cannot be written as JSON: {error}"
                ));
            }
        }
        self.body(content_type, bytes.into());
    }

    /// Sends `body` as `application/x-www-form-urlencoded`: the object's
    /// properties as pairs, arrays repeated.
    pub fn form_body<T: Serialize + ?Sized>(&mut self, content_type: &'static str, body: &T) {
        let object = match serde_json::to_value(body) {
            Ok(Value::Object(object)) => object,
            _ => {
                return self
                    .fail("the request body must be an object to be sent as a form".to_owned());
            }
        };
        let mut form = String::new();
        for (name, value) in &object {
            for item in items(value).unwrap_or_default() {
                if !form.is_empty() {
                    form.push('&');
                }
                form.push_str(&encode(name));
                form.push('=');
                form.push_str(&encode(&item));
            }
        }
        self.body(content_type, form.into());
    }

    /// Sends `body` as it is.
    pub fn body(&mut self, content_type: &'static str, body: Bytes) {
        self.body_with_content_type(content_type, body);
    }

    pub(super) fn body_with_content_type(&mut self, content_type: &str, body: Bytes) {
        match HeaderValue::from_str(content_type) {
            Ok(value) => {
                self.headers.insert(header::CONTENT_TYPE, value);
            }
            Err(_) => self.fail(format!("`{content_type}` cannot be sent as `Content-Type`")),
        }
        self.body = Some(body);
    }

    pub(super) fn fail(&mut self, message: String) {
        if self.problem.is_none() {
            self.problem = Some(Failure::invalid(format!("{}: {message}", self.operation)));
        }
    }
}

/// The text of each item of a parameter value (one for a scalar); `None`
/// for `null` (an absent optional parameter). Values are written as their
/// JSON forms are: enums by their wire names, date-times in RFC 3339.
pub(super) fn items<T: Serialize + ?Sized>(value: &T) -> Option<Vec<String>> {
    // Parameters are scalars, enums or arrays of them, which always serialise.
    let value = serde_json::to_value(value).unwrap_or(Value::Null);
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match value {
        Value::Null => None,
        Value::Array(items) => Some(items.iter().map(text).collect()),
        other => Some(vec![text(&other)]),
    }
}

/// A parameter whose document says it is JSON (`content: {application/json:
/// …}`): the value's JSON text as one piece of text, or nothing when the
/// value is `null` (an absent optional parameter).
pub struct JsonText<'a, T: ?Sized>(pub &'a T);

impl<T: Serialize + ?Sized> Serialize for JsonText<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Written from the value itself, not through a `Value`, whose map
        // would sort an object's properties: they keep their struct's order.
        let text = serde_json::to_string(self.0).map_err(serde::ser::Error::custom)?;
        if text == "null" {
            serializer.serialize_none()
        } else {
            serializer.serialize_str(&text)
        }
    }
}

/// A parameter value as one piece of text (arrays comma-separated).
pub fn param_text<T: Serialize + ?Sized>(value: &T) -> String {
    items(value).unwrap_or_default().join(",")
}

/// Percent-encoded items joined by an unencoded delimiter.
fn join(items: &[String], delimiter: &str) -> String {
    items
        .iter()
        .map(|item| encode(item))
        .collect::<Vec<_>>()
        .join(delimiter)
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub(super) fn encode(text: &str) -> String {
    encode_also(text, &[])
}

/// Percent-encodes everything but RFC 3986's unreserved characters, and
/// the bytes of `also` (unreserved ones a server must not take as a
/// separator).
fn encode_also(text: &str, also: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        let unreserved = byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~');
        if unreserved && !also.contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The bytes of the fixed text between the parameters of the segment of
/// `template` that holds `marker` (`-` for `{name}-{version}.zip`); none
/// when the parameter has its segment to itself.
fn separators_beside(template: &str, marker: &str) -> Vec<u8> {
    let Some(segment) = template.split('/').find(|s| s.contains(marker)) else {
        return Vec::new();
    };
    match fixed_text(segment).as_slice() {
        [_, between @ .., _] => between.concat().into_bytes(),
        _ => Vec::new(),
    }
}

/// What every call of a client shares: the HTTP client, base URL, time-out,
/// `User-Agent`, retry policy, credentials and common headers. Cheap to
/// clone: clones share the connection pool and the settings. `Debug` shows
/// the settings, never a credential.
#[derive(Clone)]
pub struct Transport(pub(crate) Arc<Shared>);

#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) http: reqwest::Client,
    pub(crate) base_url: String,
    pub(crate) timeout: Duration,
    pub(crate) user_agent: Option<HeaderValue>,
    pub(crate) retry: RetryPolicy,
    pub(crate) credentials: Credentials,
    pub(crate) common_headers: Vec<(&'static str, String)>,
    /// Where error bodies carry the parts of an error (`Settings::error_fields`).
    pub(crate) error_fields: &'static [Field],
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let this = &self.0;
        f.debug_struct("Client")
            .field("base_url", &this.base_url)
            .field("timeout", &this.timeout)
            .field("user_agent", &this.user_agent)
            .field("retry", &this.retry)
            .field("credentials", &this.credentials)
            .field("common_headers", &this.common_headers)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// The base URL requests go to, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.0.base_url
    }

    /// Sends `call`, retrying as the policy says, in a span named `request`
    /// with the operation, method, path template, attempt, status and latency.
    ///
    /// # Errors
    ///
    /// The problem kept by `call`, or a failure to send it or read the answer.
    pub async fn send(&self, call: Call) -> Result<Answer, Failure> {
        let span = call.span();
        let work = async {
            let (request, url_has_secret) = self.0.request(call)?;
            let retries = self.0.retry.covers(request.method());
            let opened = self
                .0
                .open(&request, url_has_secret, &span, false, retries)
                .await?;
            self.0.read(opened, &span).await
        };
        work.instrument(span.clone()).await
    }

    /// Sends `call`, which asks for `text/event-stream`, as [`send`](Self::send)
    /// does, and answers with its events as they come: a 2xx answer's body
    /// is not read in full but parsed event by event, each `data` read as
    /// `data` says ([`Events`]). Another answer is read in full and is the
    /// error it is. The client's time-out bounds the wait for the answer
    /// and for each chunk of the stream, not the whole stream, which may
    /// last longer.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send), and the answer as an error when its status
    /// is not a success.
    pub async fn send_events<T, B>(
        &self,
        call: Call,
        data: EventData,
    ) -> Result<Events<T, B>, Error<B>>
    where
        T: DeserializeOwned + Send + 'static,
        B: DeserializeOwned + Send + 'static,
    {
        self.send_streaming(call, |streamed| Events::new(streamed, data, false))
            .await
    }

    /// Sends `call`, which asks for `text/event-stream`, as
    /// [`send_events`](Self::send_events) does, and resumes the stream when
    /// its connection is lost, as the WHATWG `EventSource` does: for an
    /// operation that declares a `Last-Event-ID` header.
    ///
    /// The stream is lost when its connection fails, sends nothing for the
    /// client's time-out, or ends before an event whose data is `[DONE]`.
    /// Then the client waits the last `retry:` the stream gave (else the
    /// retry policy's backoff; never more than its `max_delay`) and sends
    /// the same request again, with `Last-Event-ID: <the last id seen>`
    /// when the stream gave one. The events of the new answer follow in the
    /// same stream. A 204 ends the stream; another answer that is not a
    /// success ends it with the error it is. At most
    /// [`max_attempts`](RetryPolicy::max_attempts) connections in a row
    /// may end before an event arrives (the lost one included), so a
    /// server that is gone ends the stream with the last error; with
    /// [`RetryPolicy::none`], a lost stream is not resumed.
    ///
    /// # Errors
    ///
    /// As [`send_events`](Self::send_events).
    pub async fn send_resumable_events<T, B>(
        &self,
        call: Call,
        data: EventData,
    ) -> Result<Events<T, B>, Error<B>>
    where
        T: DeserializeOwned + Send + 'static,
        B: DeserializeOwned + Send + 'static,
    {
        self.send_streaming(call, |streamed| Events::new(streamed, data, true))
            .await
    }

    /// Sends `call` and answers with the items of its sequential answer
    /// (JSON Lines, JSON text sequences) as they come; the time-out and
    /// the errors are those of [`send_events`](Self::send_events).
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send), and the answer as an error when its status
    /// is not a success.
    pub async fn send_items<T, B>(
        &self,
        call: Call,
        framing: Framing,
    ) -> Result<Items<T, B>, Error<B>>
    where
        T: DeserializeOwned + Send + 'static,
        B: DeserializeOwned + Send + 'static,
    {
        self.send_streaming(call, |streamed| Items::new(streamed, framing))
            .await
    }

    /// Sends `call` and, on a success, hands its answer, still to be read,
    /// to `read`, with what reading it as a stream needs ([`Streamed`]);
    /// an error answer is read whole.
    async fn send_streaming<S, B: DeserializeOwned>(
        &self,
        call: Call,
        read: impl FnOnce(Streamed) -> S,
    ) -> Result<S, Error<B>> {
        let span = call.span();
        let work = async {
            let (request, url_has_secret) = self.0.request(call)?;
            let retries = self.0.retry.covers(request.method());
            let opened = self
                .0
                .open(&request, url_has_secret, &span, true, retries)
                .await?;
            if opened.response.status().is_success() {
                span.record("status", opened.response.status().as_u16());
                span.record("latency_ms", millis(opened.started.elapsed()));
                return Ok(read(Streamed {
                    response: opened.response,
                    idle: self.0.timeout,
                    resend: Resend {
                        transport: self.clone(),
                        request,
                        url_has_secret,
                        span: span.clone(),
                    },
                }));
            }
            let answer = self.0.read(opened, &span).await?;
            Err(answer.into_error())
        };
        work.instrument(span.clone()).await
    }
}

/// An answer whose body is still to be read.
pub(super) struct Opened {
    pub(super) response: reqwest::Response,
    started: Instant,
    attempt: u32,
    url_has_secret: bool,
}

impl Shared {
    /// Sends `request`, retrying as the policy says when `retries`, up to
    /// the answer's headers. `streaming`: the request has no time-out of
    /// its own (its body may come for longer); the time-out bounds the
    /// wait for the headers instead.
    pub(super) async fn open(
        &self,
        request: &reqwest::Request,
        url_has_secret: bool,
        span: &tracing::Span,
        streaming: bool,
        retries: bool,
    ) -> Result<Opened, Failure> {
        let started = Instant::now();
        let mut attempt = 1;
        loop {
            span.record("attempt", attempt);
            let Some(mut this) = request.try_clone() else {
                return Err(Failure::invalid("the request's body cannot be sent twice"));
            };
            let last = !retries || attempt >= self.retry.max_attempts;
            let sent = if streaming {
                *this.timeout_mut() = None;
                match tokio::time::timeout(self.timeout, self.http.execute(this)).await {
                    Ok(sent) => sent,
                    Err(_) => {
                        return Err(Failure(Error::Stalled {
                            after: self.timeout,
                        }));
                    }
                }
            } else {
                self.http.execute(this).await
            };
            match sent {
                Ok(response) => {
                    let status = response.status();
                    if !last && retry::retryable_status(status) {
                        if let Some(wait) = self.retry.delay_after(attempt, response.headers()) {
                            tracing::info!(
                                attempt,
                                status = status.as_u16(),
                                wait_ms = millis(wait),
                                "the API answered {status}; retrying"
                            );
                            drop(response);
                            tokio::time::sleep(wait).await;
                            attempt += 1;
                            continue;
                        }
                    }
                    return Ok(Opened {
                        response,
                        started,
                        attempt,
                        url_has_secret,
                    });
                }
                Err(error) => {
                    let error = if url_has_secret {
                        error.without_url()
                    } else {
                        error
                    };
                    let transient =
                        !error.is_timeout() && (error.is_connect() || error.is_request());
                    if !last && transient {
                        let wait = self.retry.backoff(attempt);
                        tracing::info!(
                            attempt,
                            wait_ms = millis(wait),
                            error = %error,
                            "the request failed; retrying"
                        );
                        tokio::time::sleep(wait).await;
                        attempt += 1;
                        continue;
                    }
                    let latency = millis(started.elapsed());
                    span.record("latency_ms", latency);
                    tracing::debug!(latency_ms = latency, attempt, error = %error, "failed");
                    return Err(self.failure(error, false));
                }
            }
        }
    }

    /// Reads the body of an opened answer in full.
    pub(super) async fn read(
        &self,
        opened: Opened,
        span: &tracing::Span,
    ) -> Result<Answer, Failure> {
        let Opened {
            mut response,
            started,
            attempt,
            url_has_secret,
        } = opened;
        let status = response.status();
        let headers = std::mem::take(response.headers_mut());
        let body = response
            .bytes()
            .await
            .map_err(|e| self.failure(e, url_has_secret))?;
        let latency = millis(started.elapsed());
        span.record("status", status.as_u16());
        span.record("latency_ms", latency);
        tracing::debug!(
            status = status.as_u16(),
            latency_ms = latency,
            attempt,
            "answered"
        );
        Ok(Answer {
            status,
            headers,
            body,
            error_fields: self.error_fields,
        })
    }

    fn failure(&self, error: reqwest::Error, url_has_secret: bool) -> Failure {
        let error = if url_has_secret {
            error.without_url()
        } else {
            error
        };
        Failure(if error.is_timeout() {
            Error::Timeout {
                after: self.timeout,
                source: error,
            }
        } else {
            Error::Transport(error)
        })
    }

    /// The request of `call`, and whether its URL carries a secret (and so
    /// must not appear in errors).
    fn request(&self, mut call: Call) -> Result<(reqwest::Request, bool), Failure> {
        if let Some(problem) = call.problem.take() {
            return Err(problem);
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &self.common_headers {
            let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) else {
                return Err(Failure::invalid(format!(
                    "the header `{name}` cannot carry the value given (line breaks and other control characters cannot be sent)"
                )));
            };
            headers.insert(name, value);
        }
        if let Some(agent) = &self.user_agent {
            headers.insert(header::USER_AGENT, agent.clone());
        }
        headers.extend(call.headers.drain());

        let mut url_has_secret = false;
        let mut basic = None;
        let mut secret_cookie = false;
        let chosen = call
            .security
            .iter()
            .filter(|alternative| !alternative.is_empty())
            .find(|alternative| alternative.iter().all(|s| self.credentials.has(s)));
        for scheme in chosen.copied().unwrap_or_default() {
            let token = match (*scheme, &self.credentials.token) {
                (Scheme::Basic, _) => {
                    basic = self.credentials.basic.as_ref();
                    continue;
                }
                (_, Some(token)) => token.expose(),
                (_, None) => continue,
            };
            match *scheme {
                Scheme::Header { name, prefix } => {
                    let text = match prefix {
                        Some(prefix) if !token.contains(' ') => format!("{prefix} {token}"),
                        _ => token.to_owned(),
                    };
                    let (Ok(name), Ok(mut value)) = (
                        HeaderName::from_bytes(name.as_bytes()),
                        HeaderValue::from_str(&text),
                    ) else {
                        return Err(Failure::invalid(
                            "the token cannot be sent in a header (it has line breaks or other control characters)",
                        ));
                    };
                    value.set_sensitive(true);
                    headers.insert(name, value);
                }
                Scheme::Query { name } => {
                    call.query_text(name, token);
                    url_has_secret = true;
                }
                Scheme::Cookie { name } => {
                    call.cookies.push(format!("{name}={}", encode(token)));
                    secret_cookie = true;
                }
                Scheme::Basic => {}
            }
        }
        if !call.cookies.is_empty() {
            let Ok(mut value) = HeaderValue::from_str(&call.cookies.join("; ")) else {
                return Err(Failure::invalid("a cookie cannot carry the value given"));
            };
            value.set_sensitive(secret_cookie);
            headers.insert(header::COOKIE, value);
        }

        let mut url = format!("{}{}", self.base_url, call.path);
        let shown = url.clone();
        if !call.query.is_empty() {
            url.push('?');
            url.push_str(&call.query);
        }
        let url = reqwest::Url::parse(&url)
            .map_err(|e| Failure::invalid(format!("`{shown}` is not a URL: {e}")))?;
        let mut builder = self
            .http
            .request(call.method, url)
            .timeout(self.timeout)
            .headers(headers);
        if let Some((user, password)) = basic {
            builder = builder.basic_auth(user, Some(password.expose()));
        }
        if let Some(body) = call.body {
            builder = builder.body(body);
        }
        let request = builder
            .build()
            .map_err(|e| Failure::invalid(format!("the request cannot be built: {e}")))?;
        Ok((request, url_has_secret))
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How a success body may come: bare, or also wrapped as
/// `{"data": …, "status": …}`.
#[derive(Debug, Clone, Copy)]
pub enum Envelope {
    /// Only the bare value.
    Bare,
    /// The bare value; when that fails and the body is an object with a
    /// `data` key, the wrapper. A wrapper never decodes as the bare type
    /// (the type has a required property the wrapper lacks), so the happy
    /// path parses once.
    Fallback,
    /// The wrapper when the body's object has a `data` key, else the bare
    /// value: for types a wrapper would decode as (all their properties
    /// optional), found by a scan of the top-level keys that decodes nothing.
    Probe,
}

/// An answer, read in full.
pub struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
    error_fields: &'static [Field],
}

impl Answer {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// The body, decoded from JSON.
    pub fn json<T: DeserializeOwned>(&self, envelope: Envelope) -> Result<T, Failure> {
        let bare = || serde_json::from_slice::<T>(&self.body);
        let result = match envelope {
            Envelope::Bare => bare(),
            Envelope::Fallback => match bare() {
                Ok(value) => Ok(value),
                Err(_) if has_data_key(&self.body) => self.wrapped::<T>(),
                Err(error) => Err(error),
            },
            Envelope::Probe if has_data_key(&self.body) => self.wrapped::<T>(),
            Envelope::Probe => bare(),
        };
        result.map_err(|e| Failure::decode(self.status, &self.headers, &self.body, e))
    }

    fn wrapped<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        #[derive(serde::Deserialize)]
        struct Wrapped<T> {
            data: T,
        }
        serde_json::from_slice::<Wrapped<T>>(&self.body).map(|w| w.data)
    }

    /// The items of a sequential JSON body (`application/jsonl`,
    /// `application/json-seq`), decoded as `T`, the list of them.
    pub fn sequence<T: DeserializeOwned>(&self, framing: Framing) -> Result<T, Failure> {
        let failure =
            |message: String| Failure::decode(self.status, &self.headers, &self.body, message);
        let array = crate::sequence::to_json_array(&self.body, framing)
            .map_err(|(index, message)| failure(format!("item {index}: {message}")))?;
        serde_json::from_slice(&array).map_err(|e| failure(e.to_string()))
    }

    /// The body as text.
    pub fn text(&self) -> Result<String, Failure> {
        match String::from_utf8(self.body.to_vec()) {
            Ok(text) => Ok(text),
            Err(e) => Err(Failure::decode(self.status, &self.headers, &self.body, e)),
        }
    }

    /// The body as it came (a reference-counted handle, not a copy).
    pub fn bytes(&self) -> Bytes {
        self.body.clone()
    }

    /// The success answer: `body` (decoded from this answer) with the
    /// status, the headers, and the headers the document declares as
    /// `read` makes them.
    pub fn into_response<T, H>(self, body: T, read: fn(&HeaderMap) -> H) -> Response<T, H> {
        let declared = read(&self.headers);
        Response::new(self.status.as_u16(), self.headers, declared, body)
    }

    /// The error this answer is: the API's error with its body decoded as
    /// `B`, or an unexpected status.
    pub fn into_error<B: DeserializeOwned>(self) -> Error<B> {
        Error::from_answer(self.status, &self.headers, self.body, self.error_fields)
    }
}

/// Whether `body` is a JSON object with a top-level `data` key. Values are
/// skipped, not decoded.
fn has_data_key(body: &[u8]) -> bool {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    struct IsData(bool);

    impl<'de> serde::Deserialize<'de> for IsData {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Key;
            impl Visitor<'_> for Key {
                type Value = IsData;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a key")
                }
                fn visit_str<E>(self, key: &str) -> Result<IsData, E> {
                    Ok(IsData(key == "data"))
                }
            }
            deserializer.deserialize_str(Key)
        }
    }

    struct TopLevel;

    impl<'de> Visitor<'de> for TopLevel {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut found = false;
            while let Some(IsData(is_data)) = map.next_key()? {
                found |= is_data;
                map.next_value::<IgnoredAny>()?;
            }
            Ok(found)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(false)
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
    }

    let mut deserializer = serde_json::Deserializer::from_slice(body);
    deserializer.deserialize_any(TopLevel).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Settings;

    fn call() -> Call {
        Call::new("listOrders", Method::GET, "/orders/{id}/lines", &[])
    }

    fn answer(body: &'static str) -> Answer {
        Answer {
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            body: Bytes::from_static(body.as_bytes()),
            error_fields: &[],
        }
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Order {
        id: u32,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Optional {
        data: Option<u32>,
        note: Option<String>,
    }

    #[test]
    fn path_parameters_are_encoded_and_arrays_joined() {
        let mut call = call();
        call.path_param("id", &["A/1", "b c"]);
        assert_eq!(call.path, "/orders/A%2F1,b%20c/lines");
    }

    #[test]
    fn label_and_matrix_path_parameters_lead_with_their_style() {
        let styled = |value: &dyn erased::Value, style, explode| {
            let mut call = call();
            value.fill(&mut call, style, explode);
            call.path
                .trim_start_matches("/orders/")
                .trim_end_matches("/lines")
                .to_owned()
        };
        let (label, matrix) = (PathStyle::Label, PathStyle::Matrix);
        assert_eq!(styled(&"a.b", label, false), ".a%2Eb");
        assert_eq!(styled(&["x", "y z"], label, false), ".x,y%20z");
        assert_eq!(styled(&["x", "y"], label, true), ".x.y");
        assert_eq!(styled(&"", label, false), ".");
        assert_eq!(styled(&5, matrix, false), ";id=5");
        assert_eq!(styled(&["x", "y"], matrix, false), ";id=x,y");
        assert_eq!(styled(&["x", "y"], matrix, true), ";id=x;id=y");
        assert_eq!(styled(&"", matrix, false), ";id");
        // An empty list is undefined in RFC 6570: no text, not even the lead.
        assert_eq!(styled(&Vec::<u8>::new(), matrix, true), "");
    }

    /// Values of several types behind one reference, for the table above.
    mod erased {
        use super::*;

        pub trait Value {
            fn fill(&self, call: &mut Call, style: PathStyle, explode: bool);
        }

        impl<T: Serialize + ?Sized> Value for T {
            fn fill(&self, call: &mut Call, style: PathStyle, explode: bool) {
                call.path_param_styled("id", self, style, explode);
            }
        }
    }

    #[test]
    fn a_json_parameter_is_one_json_text() {
        let mut call = call();
        let ids = ["a", "b,c"];
        call.query("ids", &JsonText(&ids[..]), Style::Comma, true);
        call.query("none", &JsonText(&None::<u32>), Style::Comma, false);
        call.path_param("id", &JsonText(&serde_json::json!({"k": 1})));
        assert_eq!(call.query, "ids=%5B%22a%22%2C%22b%2Cc%22%5D");
        assert_eq!(call.path, "/orders/%7B%22k%22%3A1%7D/lines");
    }

    #[test]
    fn an_object_query_parameter_spreads_nested_objects_in_brackets() {
        let value = serde_json::json!({"a": "x", "when": {"gt": 1, "lt": 5}, "tags": ["p", "q"]});
        let mut deep = call();
        deep.query_object("filter", &value, true);
        assert_eq!(
            deep.query,
            "filter%5Ba%5D=x&filter%5Btags%5D=p&filter%5Btags%5D=q\
             &filter%5Bwhen%5D%5Bgt%5D=1&filter%5Bwhen%5D%5Blt%5D=5"
        );
        let mut form = call();
        form.query_object("filter", &value, false);
        assert_eq!(
            form.query,
            "a=x&tags=p&tags=q&when%5Bgt%5D=1&when%5Blt%5D=5"
        );
        let mut absent = call();
        absent.query_object("filter", &None::<Value>, true);
        assert_eq!(
            (absent.query.as_str(), absent.problem.is_none()),
            ("", true)
        );
        absent.query_object("filter", &3, true);
        assert!(absent.problem.is_some(), "a scalar is not an object");
    }

    /// `multipart/related` and the like keep the parts and their names;
    /// only the media type, which the server checks, is the document's.
    #[test]
    fn a_multipart_body_is_sent_under_the_documents_media_type() {
        for (media_type, sent) in [
            (None, "multipart/form-data; boundary="),
            (Some("multipart/related"), "multipart/related; boundary="),
        ] {
            let mut form = crate::client::form::Multipart::new();
            form.text("name", &"a", None);
            let mut call = call();
            match media_type {
                Some(media_type) => call.multipart_body_as(media_type, form),
                None => call.multipart_body(form),
            }
            let content_type = call.headers[header::CONTENT_TYPE].to_str().unwrap();
            let boundary = content_type.strip_prefix(sent).expect(content_type);
            let body = call.body.expect("a body");
            assert!(body.starts_with(format!("--{boundary}\r\n").as_bytes()));
            assert!(body.ends_with(format!("--{boundary}--\r\n").as_bytes()));
        }
    }

    #[test]
    fn a_parameter_sharing_its_segment_has_the_separators_encoded() {
        let mut call = Call::new("getPackage", Method::GET, "/p/{name}-{version}.zip", &[]);
        call.path_param("name", "my-tool.x");
        call.path_param("version", "1-2");
        // `.` is fixed text after the last parameter, not between two.
        assert_eq!(call.path, "/p/my%2Dtool.x-1%2D2.zip");
        let mut call = Call::new("compare", Method::GET, "/c/{base}...{head}", &[]);
        call.path_param("base", "v1.0");
        call.path_param("head", "main");
        assert_eq!(call.path, "/c/v1%2E0...main");
        let mut call = Call::new("getFile", Method::GET, "/f/{name}.json", &[]);
        call.path_param("name", "a.b-c");
        assert_eq!(call.path, "/f/a.b-c.json");
    }

    /// The specification's own example, byte for byte; text is written
    /// as it is, encoded the same way, and nothing is sent for `None`.
    #[test]
    fn a_querystring_is_the_whole_query_percent_encoded() {
        let mut call = Call::new("op", Method::GET, "/foo", &[]);
        let value = serde_json::json!({"numbers": [1, 2], "flag": null});
        call.query_string(&JsonText(&value));
        assert_eq!(
            call.query,
            "%7B%22flag%22%3Anull%2C%22numbers%22%3A%5B1%2C2%5D%7D"
        );
        call.query_string("$.a.b[1:1] & c+d");
        assert_eq!(call.query, "%24.a.b%5B1%3A1%5D%20%26%20c%2Bd");
        let mut absent = Call::new("op", Method::GET, "/foo", &[]);
        absent.query_string(&JsonText(&None::<Vec<u32>>));
        absent.query_string(&None::<String>);
        assert_eq!(absent.query, "");
    }

    #[test]
    fn query_parameters_follow_their_style_and_skip_absent_values() {
        let mut call = call();
        call.query("tag", &["a b", "c&d"], Style::Comma, false);
        call.query("tag", &["x", "y"], Style::Pipe, false);
        call.query("tag", &["x", "y"], Style::Space, false);
        call.query("id", &[1, 2], Style::Comma, true);
        call.query("since", &Option::<String>::None, Style::Comma, true);
        call.query("flag", &true, Style::Comma, true);
        call.query_text("dqb", "o=eq&p=name");
        call.query_text("empty", "");
        assert_eq!(
            call.query,
            "tag=a%20b,c%26d&tag=x|y&tag=x%20y&id=1&id=2&flag=true&dqb=o%3Deq%26p%3Dname"
        );
        assert_eq!(param_text(&["a", "b"]), "a,b");
        assert_eq!(param_text(&Option::<u8>::None), "");
    }

    #[test]
    fn a_header_that_cannot_be_sent_fails_the_call_naming_it() {
        let mut call = call();
        call.header("x-count", &3);
        call.header("x-ids", &[1, 2]);
        call.header("x-none", &Option::<u8>::None);
        assert_eq!(call.headers.get("x-count").unwrap(), "3");
        assert_eq!(call.headers.get("x-ids").unwrap(), "1,2");
        assert!(!call.headers.contains_key("x-none"));
        assert!(call.problem.is_none());
        call.header("x-note", &"two\nlines");
        call.header("x-other", &"also\rbad");
        let problem = call.problem.expect("kept for the send").to_string();
        assert_eq!(
            problem,
            "listOrders: the header `x-note` cannot carry the value given (line breaks and other control characters cannot be sent)"
        );
    }

    #[test]
    fn a_form_body_is_the_objects_pairs_with_arrays_repeated() {
        let mut call = call();
        call.form_body(
            "application/x-www-form-urlencoded",
            &serde_json::json!({"ids": [1, 2], "name": "a b", "none": null}),
        );
        assert_eq!(call.body.as_deref(), Some(&b"ids=1&ids=2&name=a%20b"[..]));
        assert_eq!(
            call.headers.get(header::CONTENT_TYPE).unwrap(),
            "application/x-www-form-urlencoded"
        );
        let mut scalar = self::call();
        scalar.form_body("application/x-www-form-urlencoded", &3);
        assert!(scalar.problem.is_some());
    }

    #[test]
    fn a_bare_body_parses_once_and_a_wrapped_one_only_on_fallback() {
        assert_eq!(
            answer(r#"{"id":7}"#).json::<Order>(Envelope::Bare).unwrap(),
            Order { id: 7 }
        );
        let wrapped = answer(r#"{"data":{"id":7},"status":"ok"}"#);
        assert_eq!(
            wrapped.json::<Order>(Envelope::Fallback).unwrap(),
            Order { id: 7 }
        );
        assert!(wrapped.json::<Order>(Envelope::Bare).is_err());
        let error = answer(r#"{"other":1}"#)
            .json::<Order>(Envelope::Fallback)
            .map_err(Error::<Value>::from)
            .expect_err("not an order");
        assert!(
            matches!(
                &error,
                Error::Decode {
                    status: StatusCode::OK,
                    message,
                    ..
                } if message.starts_with("missing field `id`")
            ),
            "the bare value's error, not the wrapper's: {error:?}"
        );
        assert_eq!(answer("{}").status(), 200);
    }

    #[test]
    fn a_type_a_wrapper_would_decode_as_is_probed_by_its_keys() {
        let wrapped = answer(r#"{"status":"ok","data":{"data":3,"note":"n"}}"#);
        assert_eq!(
            wrapped.json::<Optional>(Envelope::Probe).unwrap(),
            Optional {
                data: Some(3),
                note: Some("n".to_owned())
            }
        );
        let bare = answer(r#"{"note":"n","nested":{"data":1}}"#);
        assert_eq!(
            bare.json::<Optional>(Envelope::Probe).unwrap(),
            Optional {
                data: None,
                note: Some("n".to_owned())
            }
        );
        assert!(has_data_key(br#"{"a":[1,{"data":2}],"data":null}"#));
        assert!(!has_data_key(br#"[{"data":1}]"#));
        assert!(!has_data_key(b"[]"));
        assert!(!has_data_key(b"not json"));
        for scalar in ["true", "-1", "1", "1.5", r#""data""#, "null"] {
            assert!(!has_data_key(scalar.as_bytes()), "{scalar}");
        }
    }

    #[test]
    fn text_must_be_utf8_and_bytes_are_as_they_came() {
        assert_eq!(answer("plain").text().unwrap(), "plain");
        let broken = Answer {
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            body: Bytes::from_static(b"\xff"),
            error_fields: &[],
        };
        assert!(broken.text().is_err());
        assert_eq!(&broken.bytes()[..], b"\xff");
    }

    #[test]
    fn secrets_are_redacted_in_debug() {
        let secret = Secret("lfs_token".to_owned());
        assert_eq!(format!("{secret:?}"), "<redacted>");
        let credentials = Credentials {
            token: Some(secret.clone()),
            basic: Some(("user".to_owned(), secret)),
        };
        assert!(!format!("{credentials:?}").contains("lfs_token"));
    }

    /// What a client's settings put in every request it sends, read off the
    /// request before it leaves.
    fn request_of(settings: Settings, call: Call) -> reqwest::Request {
        let transport = settings.build("http://127.0.0.1:9/api/", "test/0").unwrap();
        transport.0.request(call).unwrap().0
    }

    fn header_text<'r>(request: &'r reqwest::Request, name: &str) -> Option<&'r str> {
        request.headers().get(name).map(|v| v.to_str().unwrap())
    }

    #[test]
    fn the_settings_are_in_every_request() {
        let mut settings = Settings::default();
        settings.timeout(Duration::from_secs(7));
        settings.user_agent("integrator/1.2".to_owned());
        settings.header("x-tenant", "t-1".to_owned());
        settings.header("x-channel", "web".to_owned());
        settings.header("x-tenant", "t-2".to_owned());
        let request = request_of(settings, call());
        assert_eq!(
            request.url().path(),
            "/api/orders/%7Bid%7D/lines",
            "the base URL, then the path"
        );
        assert_eq!(request.timeout(), Some(&Duration::from_secs(7)));
        assert_eq!(header_text(&request, "user-agent"), Some("integrator/1.2"));
        // A header set again replaces its value; the others stay.
        assert_eq!(header_text(&request, "x-tenant"), Some("t-2"));
        assert_eq!(header_text(&request, "x-channel"), Some("web"));
        assert_eq!(request.headers().get_all("x-tenant").iter().count(), 1);

        let request = request_of(Settings::default(), call());
        assert_eq!(request.timeout(), Some(&Duration::from_secs(30)));
        assert_eq!(header_text(&request, "user-agent"), Some("test/0"));
        // A client of one's own sends its own User-Agent, not the default.
        let mut own = Settings::default();
        own.http_client(reqwest::Client::new());
        assert_eq!(header_text(&request_of(own, call()), "user-agent"), None);
    }

    #[test]
    fn the_credential_goes_where_the_first_alternative_it_fits_says() {
        const BEARER: Scheme = Scheme::Header {
            name: "authorization",
            prefix: Some("Bearer"),
        };
        const SECURITY: &[&[Scheme]] = &[&[Scheme::Basic], &[BEARER]];
        let secured = || Call::new("getOrder", Method::GET, "/orders", SECURITY);
        let mut token = Settings::default();
        token.token("lfs_1".to_owned());
        let request = request_of(token, secured());
        assert_eq!(header_text(&request, "authorization"), Some("Bearer lfs_1"));

        let mut basic = Settings::default();
        basic.basic_auth("ops".to_owned(), "pw".to_owned());
        basic.token("lfs_1".to_owned());
        let request = request_of(basic, secured());
        // base64("ops:pw")
        assert_eq!(
            header_text(&request, "authorization"),
            Some("Basic b3BzOnB3")
        );

        // No credential: the request goes without one, for the API to refuse.
        let request = request_of(Settings::default(), secured());
        assert_eq!(header_text(&request, "authorization"), None);

        // An empty alternative (security optional) is not chosen while a
        // credential fits another; a token naming its scheme is sent as is.
        const OPTIONAL: &[&[Scheme]] = &[&[], &[BEARER]];
        let mut own_scheme = Settings::default();
        own_scheme.token("Token lfs_2".to_owned());
        let request = request_of(own_scheme, Call::new("a", Method::GET, "/a", OPTIONAL));
        assert_eq!(header_text(&request, "authorization"), Some("Token lfs_2"));

        const IN_QUERY: &[&[Scheme]] = &[&[Scheme::Query { name: "key" }]];
        const IN_COOKIE: &[&[Scheme]] = &[&[Scheme::Cookie { name: "sid" }]];
        let mut token = Settings::default();
        token.token("k 1".to_owned());
        let transport = token.build("http://127.0.0.1:9", "test/0").unwrap();
        let (request, url_has_secret) = transport
            .0
            .request(Call::new("a", Method::GET, "/a", IN_QUERY))
            .unwrap();
        assert_eq!(request.url().query(), Some("key=k%201"));
        assert!(url_has_secret);
        let mut call = Call::new("b", Method::GET, "/b", IN_COOKIE);
        call.cookie("lang", &"en");
        let (request, url_has_secret) = transport.0.request(call).unwrap();
        assert_eq!(header_text(&request, "cookie"), Some("lang=en; sid=k%201"));
        assert!(!url_has_secret);
    }

    #[test]
    fn a_calls_accept_cookies_and_json_body_are_sent() {
        let mut call = Call::new("createOrder", Method::POST, "/orders", &[]);
        call.accept("application/json, application/problem+json");
        call.cookie("a", &["x", "y"]);
        call.cookie("none", &None::<u8>);
        call.json_body("application/json", &serde_json::json!({"id": 1}));
        let request = request_of(Settings::default(), call);
        assert_eq!(
            header_text(&request, "accept"),
            Some("application/json, application/problem+json")
        );
        assert_eq!(header_text(&request, "cookie"), Some("a=x,y"));
        assert_eq!(
            header_text(&request, "content-type"),
            Some("application/json")
        );
        let body = request.body().and_then(reqwest::Body::as_bytes);
        assert_eq!(body, Some(&br#"{"id":1}"#[..]));
    }

    #[test]
    fn only_an_http_or_https_base_url_is_accepted() {
        for url in ["ftp://example.com", "example.com", "file:///tmp"] {
            let error = Settings::default().build(url, "test/0").err();
            let message = error.map(|e| e.to_string()).unwrap_or_default();
            assert!(
                message.contains("is not an http or https URL"),
                "{url}: {message}"
            );
        }
        let transport = Settings::default().build("https://example.com/v1/", "test/0");
        let transport = transport.unwrap();
        assert_eq!(transport.base_url(), "https://example.com/v1");
        let shown = format!("{transport:?}");
        assert!(
            shown.starts_with("Client { base_url: \"https://example.com/v1\""),
            "{shown}"
        );
    }

    #[test]
    fn a_sequence_body_is_its_items_framed() {
        let mut call = call();
        let items = [serde_json::json!({"n": 1}), serde_json::json!(2)];
        call.sequence_body("application/json-seq", &items, Framing::RecordSeparator);
        let request = request_of(Settings::default(), call);
        let body = request.body().and_then(reqwest::Body::as_bytes);
        assert_eq!(body, Some(&b"\x1e{\"n\":1}\n\x1e2\n"[..]));
        assert_eq!(
            header_text(&request, "content-type"),
            Some("application/json-seq")
        );
    }

    #[test]
    fn settings_show_everything_but_the_credentials() {
        let mut settings = Settings::default();
        settings.server_variable("region".to_owned(), "eu".to_owned());
        settings.token("lfs_secret".to_owned());
        settings.retry_policy(RetryPolicy::none());
        let shown = format!("{settings:?}");
        assert!(shown.starts_with("Settings {"), "{shown}");
        assert!(shown.contains(r#"("region", "eu")"#), "{shown}");
        assert!(shown.contains("max_attempts: 1"), "{shown}");
        assert!(!shown.contains("lfs_secret"), "{shown}");
    }

    /// A transport to `url` retrying up to `max_attempts` with waits of a
    /// few milliseconds, each attempt timed out after `timeout`.
    fn retrying(url: &str, max_attempts: u32, timeout: Duration) -> Transport {
        let mut settings = Settings::default();
        settings.timeout(timeout);
        settings.retry_policy(RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
            retry_non_idempotent: false,
        });
        settings.build(url, "test/0").unwrap()
    }

    /// What sending `method` to `answers` gave: the status or the error,
    /// and how many requests the server took. Bounded (the attempts take
    /// milliseconds), so that a retry loop that never ends fails the test
    /// soon.
    async fn sent(
        method: Method,
        answers: Vec<String>,
        max_attempts: u32,
    ) -> (Result<u16, Error>, usize) {
        let (url, heads) = crate::client::loopback::serve(answers).await;
        let transport = retrying(&url, max_attempts, Duration::from_secs(5));
        let call = Call::new("op", method, "/op", &[]);
        let result = tokio::time::timeout(Duration::from_secs(5), transport.send(call))
            .await
            .expect("the attempts are bounded");
        let taken = heads.lock().unwrap().len();
        (
            result.map(|answer| answer.status()).map_err(Error::from),
            taken,
        )
    }

    #[tokio::test]
    async fn an_idempotent_call_is_retried_after_a_busy_answer_or_a_lost_connection() {
        use crate::client::loopback::status;
        let (result, taken) = sent(
            Method::GET,
            vec![status(503), String::new(), status(200)],
            3,
        )
        .await;
        assert_eq!((result.unwrap(), taken), (200, 3));
    }

    #[tokio::test]
    async fn retries_stop_at_max_attempts_with_the_last_answer_or_error() {
        use crate::client::loopback::status;
        let busy = || vec![status(503), status(503), status(503)];
        let (result, taken) = sent(Method::GET, busy(), 2).await;
        assert_eq!((result.unwrap(), taken), (503, 2));
        let lost = vec![String::new(), String::new(), String::new()];
        let (result, taken) = sent(Method::GET, lost, 2).await;
        assert!(matches!(result, Err(Error::Transport(_))), "{result:?}");
        assert_eq!(taken, 2);
    }

    /// The settings' error table reaches the error an answer becomes.
    #[tokio::test]
    async fn an_error_answer_is_read_by_the_settings_error_table() {
        use crate::error_fields::{Field, Part};
        const FIELDS: &[Field] = &[("failure", Part::Object(&[("description", Part::Message)]))];
        let body = r#"{"failure":{"description":"No widget 8."}}"#;
        let answer = format!(
            "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let (url, _) = crate::client::loopback::serve(vec![answer]).await;
        let mut settings = Settings::default();
        settings.error_fields(FIELDS);
        let transport = settings.build(&url, "test/0").unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(5), transport.send(call()))
            .await
            .expect("one answer")
            .unwrap();
        let error = answer.into_error::<Value>();
        let api = error.api_error().expect("the API's error");
        assert_eq!(api.message(), Some("No widget 8."));
    }

    #[tokio::test]
    async fn a_post_is_not_retried_unless_the_policy_says_so() {
        use crate::client::loopback::status;
        let (result, taken) = sent(Method::POST, vec![status(503), status(200)], 3).await;
        assert_eq!((result.unwrap(), taken), (503, 1));
    }

    /// A request that timed out may still be running on the server: not
    /// sent again.
    #[tokio::test]
    async fn a_timed_out_request_is_not_retried() {
        use std::sync::atomic::Ordering;
        let (url, taken) = crate::client::loopback::silent().await;
        let transport = retrying(&url, 3, Duration::from_millis(200));
        let result = transport.send(call()).await;
        let result = result
            .map(|answer| answer.status())
            .map_err(Error::<Value>::from);
        assert!(matches!(result, Err(Error::Timeout { .. })), "{result:?}");
        assert_eq!(taken.load(Ordering::SeqCst), 1);
    }

    /// Built without the `rustls` feature (`cargo xtask test` runs the
    /// runtime's tests so), a request to an `https` server fails before it
    /// leaves the machine, and the error says how to get TLS.
    #[cfg(not(feature = "rustls"))]
    #[tokio::test]
    async fn without_tls_an_https_request_says_how_to_get_it() {
        let transport = crate::client::Settings::default()
            .build("https://127.0.0.1:9", "test/0")
            .expect("an https base URL is accepted");
        let Err(failure) = transport.send(call()).await else {
            panic!("an https request was sent without TLS");
        };
        let error = failure.into_error::<serde_json::Value>();
        assert!(matches!(error, Error::Transport(_)), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("built without TLS: turn its `rustls` feature on"),
            "{message}"
        );
    }
}
