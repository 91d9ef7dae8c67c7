//! What can go wrong with a call, said so that a person can act on it.
//!
//! [`Error`] separates the API's own error answers ([`Error::Api`], with the
//! parsed error body, its per-field problems and the request id) from answers
//! the operation does not describe, bodies that cannot be decoded, time-outs,
//! and failures to reach the API at all.
//!
//! Both are generic over the API's error body `B`: a generated client names
//! its own, `pub type Error = openapi_runtime::client::Error<ErrorBody>`.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error_fields::{Field, Part, ProblemPart};

/// How much of an unreadable body errors quote.
const SNIPPET_CHARS: usize = 200;

/// How many per-field problems `Display` lists before it only counts them.
const LISTED_PROBLEMS: usize = 10;

/// Why a call failed; `B` is the type of the API's error bodies.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error<B = Value> {
    /// The API answered with an error status and its documented error body:
    /// the request was understood and refused (validation, authentication,
    /// conflict, rate limit, …). [`ApiError`] has the status, the parsed body,
    /// the per-field problems and the request id.
    Api(Box<ApiError<B>>),
    /// The API answered with a status this operation does not turn into a
    /// result: an error status whose body is not the API's error body (a
    /// proxy's HTML page, an empty 502), or a success or redirect status the
    /// operation does not document.
    UnexpectedStatus {
        /// The status.
        status: StatusCode,
        /// The body, as it came.
        body: Bytes,
        /// The request id, from the `X-Request-Id` header.
        request_id: Option<String>,
    },
    /// The answer's status was expected, but its body could not be decoded
    /// as the documented type.
    Decode {
        /// The status.
        status: StatusCode,
        /// What the decoder said, with the line and column.
        message: String,
        /// The start of the body.
        snippet: String,
        /// The request id, from the `X-Request-Id` header.
        request_id: Option<String>,
    },
    /// No complete answer arrived within the client's time-out.
    Timeout {
        /// The time-out of each attempt.
        after: Duration,
        /// What the HTTP client said.
        source: reqwest::Error,
    },
    /// An event stream sent nothing for the client's time-out: no answer
    /// to the request, or no bytes between two of its events.
    Stalled {
        /// The client's time-out.
        after: Duration,
    },
    /// A resumed event stream's connections kept ending before an event
    /// arrived (each answered, then closed): the client stopped
    /// reconnecting after as many as the retry policy's `max_attempts`.
    Disconnected {
        /// The connections in a row that gave no event.
        connections: u32,
    },
    /// The request could not be sent or its answer not read: the name did
    /// not resolve, the connection was refused or reset, TLS failed.
    Transport(reqwest::Error),
    /// The client or the request could not be built from what was given:
    /// a base URL that is not a URL, a header value with a line break, a
    /// server variable the environment does not have.
    InvalidInput(String),
}

impl<B> Error<B> {
    /// The answer's status, when there was an answer.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::UnexpectedStatus { status, .. } | Error::Decode { status, .. } => Some(*status),
            Error::Timeout { .. }
            | Error::Stalled { .. }
            | Error::Disconnected { .. }
            | Error::Transport(_)
            | Error::InvalidInput(_) => None,
        }
    }

    /// The id the API gave the request, from the error body or the
    /// `X-Request-Id` header: quote it when you report a problem.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            Error::Api(api) => api.request_id(),
            Error::UnexpectedStatus { request_id, .. } | Error::Decode { request_id, .. } => {
                request_id.as_deref()
            }
            Error::Timeout { .. }
            | Error::Stalled { .. }
            | Error::Disconnected { .. }
            | Error::Transport(_)
            | Error::InvalidInput(_) => None,
        }
    }

    /// The API's error answer, when that is what this is.
    pub fn api_error(&self) -> Option<&ApiError<B>> {
        match self {
            Error::Api(api) => Some(api),
            _ => None,
        }
    }

    /// Whether no answer (or, in an event stream, no next chunk) arrived in time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout { .. } | Error::Stalled { .. })
    }
}

impl<B: DeserializeOwned> Error<B> {
    /// Classifies an answer that is not one of the operation's results: the
    /// API's error when its status is an error and its body decodes as `B`,
    /// else an unexpected status. `fields` says where the body carries the
    /// parts of the error (the API's error schema), if the client knows.
    pub(crate) fn from_answer(
        status: StatusCode,
        headers: &HeaderMap,
        body: Bytes,
        fields: &[Field],
    ) -> Self {
        let header_id = request_id_header(headers);
        if status.is_client_error() || status.is_server_error() {
            if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                let summary = Summary::of(&value, fields);
                if let Ok(parsed) = serde_json::from_value::<B>(value) {
                    return Error::Api(Box::new(ApiError {
                        status,
                        body: parsed,
                        message: summary.message,
                        problems: summary.problems,
                        request_id: summary.request_id.or(header_id),
                        retry_after: super::retry::retry_after(headers),
                    }));
                }
            }
        }
        Error::UnexpectedStatus {
            status,
            body,
            request_id: header_id,
        }
    }
}

/// A failure before the API's answer is classified (the request could not
/// be built or sent, the answer not read or decoded): an [`Error`] that is
/// not [`Error::Api`], whatever the error body. It converts into `Error<B>`
/// for every `B`, so that `?` works in a generated client.
#[derive(Debug)]
pub struct Failure(pub(crate) Error<std::convert::Infallible>);

impl Failure {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Failure(Error::InvalidInput(message.into()))
    }

    pub(crate) fn decode(
        status: StatusCode,
        headers: &HeaderMap,
        body: &[u8],
        message: impl fmt::Display,
    ) -> Self {
        Failure(Error::Decode {
            status,
            message: message.to_string(),
            snippet: snippet(body),
            request_id: request_id_header(headers),
        })
    }

    /// The error, as an [`Error`] with any error body.
    pub fn into_error<B>(self) -> Error<B> {
        match self.0 {
            Error::Api(api) => match api.body {},
            Error::UnexpectedStatus {
                status,
                body,
                request_id,
            } => Error::UnexpectedStatus {
                status,
                body,
                request_id,
            },
            Error::Decode {
                status,
                message,
                snippet,
                request_id,
            } => Error::Decode {
                status,
                message,
                snippet,
                request_id,
            },
            Error::Timeout { after, source } => Error::Timeout { after, source },
            Error::Stalled { after } => Error::Stalled { after },
            Error::Disconnected { connections } => Error::Disconnected { connections },
            Error::Transport(source) => Error::Transport(source),
            Error::InvalidInput(message) => Error::InvalidInput(message),
        }
    }
}

impl<B> From<Failure> for Error<B> {
    fn from(failure: Failure) -> Self {
        failure.into_error()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl<B> fmt::Display for Error<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(api) => api.fmt(f),
            Error::UnexpectedStatus {
                status,
                body,
                request_id,
            } => {
                write!(
                    f,
                    "the API answered {status}, which this operation does not expect"
                )?;
                write_request_id(f, request_id.as_deref())?;
                if body.is_empty() {
                    f.write_str(", with an empty body")
                } else {
                    write!(f, "; the body starts: {}", snippet(body))
                }
            }
            Error::Decode {
                status,
                message,
                snippet,
                request_id,
            } => {
                write!(
                    f,
                    "the API's {status} answer could not be decoded: {message}"
                )?;
                write_request_id(f, request_id.as_deref())?;
                write!(f, "; the body starts: {snippet}")
            }
            Error::Timeout { after, source } => {
                write!(
                    f,
                    "no answer within {} ms (the client's time-out): {}",
                    after.as_millis(),
                    Chain(source)
                )
            }
            Error::Stalled { after } => write!(
                f,
                "the event stream sent nothing for {} ms (the client's time-out)",
                after.as_millis()
            ),
            Error::Disconnected { connections } => write!(
                f,
                "the event stream was closed {connections} times in a row before it sent an event; the client stopped reconnecting (raise RetryPolicy::max_attempts to try longer)"
            ),
            Error::Transport(source) => {
                let chain = Chain(source).to_string();
                write!(f, "the API could not be reached: {chain}")?;
                if lacks_tls(&chain) {
                    f.write_str(NO_TLS)?;
                }
                Ok(())
            }
            Error::InvalidInput(message) => f.write_str(message),
        }
    }
}

impl<B: fmt::Debug> std::error::Error for Error<B> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Timeout { source, .. } | Error::Transport(source) => Some(source),
            _ => None,
        }
    }
}

/// An error answer of the API, with its body decoded as `B`.
#[derive(Debug, Clone)]
pub struct ApiError<B = Value> {
    status: StatusCode,
    body: B,
    message: Option<String>,
    problems: Vec<FieldProblem>,
    request_id: Option<String>,
    retry_after: Option<Duration>,
}

impl<B> ApiError<B> {
    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The parsed error body.
    pub fn body(&self) -> &B {
        &self.body
    }

    /// The parsed error body, owned.
    pub fn into_body(self) -> B {
        self.body
    }

    /// The error's summary, as the API wrote it.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The per-field problems (of a validation failure), in the API's order.
    pub fn problems(&self) -> &[FieldProblem] {
        &self.problems
    }

    /// The id the API gave the request (from the body, else the
    /// `X-Request-Id` header).
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// How long the API asked the client to wait (`Retry-After` or
    /// `x-retry-after`), when it did.
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

impl<B> fmt::Display for ApiError<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the API refused the request with {}", self.status)?;
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        for (i, problem) in self.problems.iter().take(LISTED_PROBLEMS).enumerate() {
            f.write_str(if i == 0 { " — " } else { "; " })?;
            problem.fmt(f)?;
        }
        if self.problems.len() > LISTED_PROBLEMS {
            write!(f, "; and {} more", self.problems.len() - LISTED_PROBLEMS)?;
        }
        if let Some(wait) = self.retry_after {
            write!(f, " (retry after {} s)", wait.as_secs())?;
        }
        write_request_id(f, self.request_id.as_deref())
    }
}

impl<B: fmt::Debug> std::error::Error for ApiError<B> {}

/// One problem with one field of a refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// The field, as a path such as `[3].lineItems[0].sku`, or a parameter
    /// or header name; empty when the API names none.
    pub property: String,
    /// What is wrong.
    pub message: String,
    /// A machine-readable code, when the API gives one.
    pub code: Option<String>,
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.property.is_empty() {
            write!(f, "{}: ", self.property)?;
        }
        f.write_str(&self.message)?;
        if let Some(code) = &self.code {
            write!(f, " ({code})")?;
        }
        Ok(())
    }
}

/// What an error body says: its message, its list of field problems and
/// its request id, where the error schema's table puts them, else by their
/// common spellings.
#[derive(Default)]
struct Summary {
    message: Option<String>,
    problems: Vec<FieldProblem>,
    request_id: Option<String>,
}

impl Summary {
    fn of(value: &Value, fields: &[Field]) -> Self {
        let mut summary = Summary::default();
        summary.read_table(value, fields);
        let common = Summary::by_common_names(value);
        Summary {
            message: summary.message.or(common.message),
            problems: if summary.problems.is_empty() {
                common.problems
            } else {
                summary.problems
            },
            request_id: summary.request_id.or(common.request_id),
        }
    }

    /// The parts the table names, the first of each kind.
    fn read_table(&mut self, value: &Value, fields: &[Field]) {
        for (name, part) in fields {
            let Some(field) = value.get(name) else {
                continue;
            };
            let text = field.as_str();
            match part {
                Part::Message if self.message.is_none() => self.message = text.map(str::to_owned),
                Part::RequestId if self.request_id.is_none() => {
                    self.request_id = text.map(str::to_owned);
                }
                // The generated server stubs write the id as this URI; an
                // `instance` that is another URI names no request.
                Part::Instance if self.request_id.is_none() => {
                    let id = text.and_then(|t| t.strip_prefix("urn:request-id:"));
                    self.request_id = id.map(str::to_owned);
                }
                Part::Problems(parts) if self.problems.is_empty() => {
                    let items = field.as_array().map(Vec::as_slice).unwrap_or_default();
                    self.problems = items
                        .iter()
                        .filter_map(|item| listed_problem(item, parts))
                        .collect();
                }
                Part::Object(inner) => self.read_table(field, inner),
                _ => {}
            }
        }
    }

    fn by_common_names(value: &Value) -> Self {
        let text = |pointers: &[&str]| {
            pointers
                .iter()
                .find_map(|p| value.pointer(p).and_then(Value::as_str))
                .map(str::to_owned)
        };
        // `/detail` last: FastAPI's 422 lists its problems there.
        let problems = [
            "/error/errors",
            "/errors",
            "/error/details",
            "/details",
            "/detail",
        ]
        .iter()
        .find_map(|p| value.pointer(p).and_then(Value::as_array))
        .map(|items| items.iter().filter_map(problem).collect())
        .unwrap_or_default();
        Summary {
            message: text(&[
                "/error/message",
                "/message",
                "/error_description",
                "/detail",
                "/title",
                "/error",
            ]),
            problems,
            request_id: text(&["/requestId", "/request_id", "/error/requestId", "/traceId"]),
        }
    }
}

/// A problem of the table's list: its parts where the table puts them;
/// one the table gives no message is read by the common spellings.
fn listed_problem(item: &Value, parts: &[(&str, ProblemPart)]) -> Option<FieldProblem> {
    let text = |wanted: ProblemPart| {
        parts
            .iter()
            .filter(|(_, part)| *part == wanted)
            .find_map(|(name, _)| item.get(name)?.as_str())
            .map(str::to_owned)
    };
    match text(ProblemPart::Message) {
        Some(message) => Some(FieldProblem {
            property: text(ProblemPart::Property).unwrap_or_default(),
            message,
            code: text(ProblemPart::ErrorCode),
        }),
        None => problem(item),
    }
}

fn problem(item: &Value) -> Option<FieldProblem> {
    if let Some(message) = item.as_str() {
        return Some(FieldProblem {
            property: String::new(),
            message: message.to_owned(),
            code: None,
        });
    }
    let object = item.as_object()?;
    let text = |keys: &[&str]| {
        keys.iter().find_map(|k| match object.get(*k) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
    };
    let property = text(&["property", "field", "name", "path", "pointer"])
        .or_else(|| {
            object
                .get("loc")
                .and_then(Value::as_array)
                .map(|loc| location(loc))
        })
        .unwrap_or_default();
    Some(FieldProblem {
        property,
        message: text(&["message", "detail", "description", "reason", "msg"])?,
        code: text(&["errorCode", "code", "type"]),
    })
}

/// A problem's place as FastAPI gives it, `["body", "lines", 0, "sku"]`, as
/// a path: `lines[0].sku`. Where in the request comes first: a body's
/// path goes without it, a parameter is named alone (`["query", "limit"]`:
/// `limit`), as the generated server stubs name them.
fn location(loc: &[Value]) -> String {
    let rest = match loc {
        [Value::String(place), rest @ ..]
            if !rest.is_empty()
                && matches!(
                    place.as_str(),
                    "body" | "query" | "path" | "header" | "cookie"
                ) =>
        {
            rest
        }
        all => all,
    };
    let mut path = String::new();
    for part in rest {
        match part {
            Value::Number(index) => path.push_str(&format!("[{index}]")),
            Value::String(key) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            _ => {}
        }
    }
    path
}

/// The request id headers APIs commonly send.
fn request_id_header(headers: &HeaderMap) -> Option<String> {
    ["x-request-id", "request-id", "x-correlation-id"]
        .iter()
        .find_map(|name| headers.get(*name)?.to_str().ok())
        .map(str::to_owned)
}

fn write_request_id(f: &mut fmt::Formatter<'_>, request_id: Option<&str>) -> fmt::Result {
    match request_id {
        Some(id) => write!(f, " [request id {id}]"),
        None => Ok(()),
    }
}

/// The start of a body, as text, on one line.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out: String = text
        .chars()
        .take(SNIPPET_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() > SNIPPET_CHARS {
        out.push('…');
    }
    out
}

/// What a client built without its `rustls` feature adds to the error of a
/// request to an `https` server.
const NO_TLS: &str = "; this client was built without TLS: turn its `rustls` feature on (it is on by default), or give `ClientBuilder::http_client` a reqwest client with TLS";

/// Whether a transport error's text is reqwest's refusal of an `https` URL
/// for want of TLS, in a runtime built without rustls. (reqwest built with
/// TLS from elsewhere, `native-tls` say, never gives that refusal.)
fn lacks_tls(chain: &str) -> bool {
    cfg!(not(feature = "rustls")) && chain.contains("scheme is not http")
}

/// An error with its causes, `a: b: c` (reqwest's own message leaves out the
/// cause, such as "connection refused", that a person needs).
struct Chain<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    /// The error body of an API whose document names one.
    #[derive(Debug, serde::Deserialize)]
    struct Envelope {
        error: Detail,
    }

    #[derive(Debug, serde::Deserialize)]
    struct Detail {
        code: String,
    }

    fn with_request_id(id: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-request-id", HeaderValue::from_static(id));
        headers
    }

    #[test]
    fn the_apis_error_body_is_an_api_error_with_its_problems() {
        let body = br#"{"error":{"code":"ValidationFailed","message":"The request has 2 validation errors.",
            "errors":[{"property":"email","message":"must be an email address","errorCode":"InvalidFormat"},
                      {"field":"lines[0].sku","detail":"is required"}]},"requestId":"01J0"}"#;
        let mut headers = with_request_id("from-header");
        headers.insert("retry-after", HeaderValue::from_static("2"));
        let error = Error::<Envelope>::from_answer(
            StatusCode::BAD_REQUEST,
            &headers,
            Bytes::from_static(body),
            &[],
        );
        let api = error.api_error().expect("the API's error");
        assert_eq!(api.body().error.code, "ValidationFailed");
        assert_eq!(api.message(), Some("The request has 2 validation errors."));
        assert_eq!(api.request_id(), Some("01J0"), "the body's id first");
        assert_eq!(api.retry_after(), Some(Duration::from_secs(2)));
        assert_eq!(
            api.problems(),
            [
                FieldProblem {
                    property: "email".to_owned(),
                    message: "must be an email address".to_owned(),
                    code: Some("InvalidFormat".to_owned()),
                },
                FieldProblem {
                    property: "lines[0].sku".to_owned(),
                    message: "is required".to_owned(),
                    code: None,
                },
            ]
        );
        assert_eq!(error.status(), Some(StatusCode::BAD_REQUEST));
        assert_eq!(api.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            error.to_string(),
            "the API refused the request with 400 Bad Request: The request has 2 validation errors. \
             — email: must be an email address (InvalidFormat); lines[0].sku: is required \
             (retry after 2 s) [request id 01J0]"
        );
    }

    #[test]
    fn a_problem_details_body_gives_its_detail_and_errors() {
        let body = br#"{"type":"about:blank","title":"Not Found","detail":"No order 7.","errors":["gone"]}"#;
        let error = Error::<Value>::from_answer(
            StatusCode::NOT_FOUND,
            &HeaderMap::new(),
            Bytes::from_static(body),
            &[],
        );
        let api = error.api_error().expect("any JSON is a Value");
        assert_eq!(api.message(), Some("No order 7."));
        assert_eq!(api.problems()[0].message, "gone");
        assert_eq!(api.request_id(), None);
    }

    /// FastAPI's 422: `detail` is the list of problems, each placed by `loc`.
    #[test]
    fn a_fastapi_validation_error_gives_its_problems_by_place() {
        let body = br#"{"detail":[
            {"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 1","input":"0"},
            {"type":"missing","loc":["body","lines",0,"sku"],"msg":"Field required"},
            {"type":"missing","loc":["body"],"msg":"Field required"}]}"#;
        let error = Error::<Value>::from_answer(
            StatusCode::UNPROCESSABLE_ENTITY,
            &HeaderMap::new(),
            Bytes::from_static(body),
            &[],
        );
        let api = error.api_error().expect("any JSON is a Value");
        let problems: Vec<(&str, &str, Option<&str>)> = api
            .problems()
            .iter()
            .map(|p| (p.property.as_str(), p.message.as_str(), p.code.as_deref()))
            .collect();
        assert_eq!(
            problems,
            [
                (
                    "limit",
                    "Input should be greater than or equal to 1",
                    Some("greater_than_equal")
                ),
                ("lines[0].sku", "Field required", Some("missing")),
                ("body", "Field required", Some("missing")),
            ]
        );
    }

    #[test]
    fn a_body_that_is_not_the_error_body_is_an_unexpected_status() {
        let html = Bytes::from_static(b"<html>\n<h1>502 Bad Gateway</h1></html>");
        let error = Error::<Envelope>::from_answer(
            StatusCode::BAD_GATEWAY,
            &with_request_id("r-1"),
            html.clone(),
            &[],
        );
        let Error::UnexpectedStatus {
            status,
            body,
            request_id,
        } = &error
        else {
            panic!("not an unexpected status: {error:?}");
        };
        assert_eq!(
            (*status, body, request_id.as_deref()),
            (StatusCode::BAD_GATEWAY, &html, Some("r-1"))
        );
        assert_eq!(
            error.to_string(),
            "the API answered 502 Bad Gateway, which this operation does not expect [request id r-1]; \
             the body starts: <html> <h1>502 Bad Gateway</h1></html>"
        );
        let other_json = Error::<Envelope>::from_answer(
            StatusCode::CONFLICT,
            &HeaderMap::new(),
            Bytes::from_static(br#"{"message":"not ours"}"#),
            &[],
        );
        assert!(matches!(other_json, Error::UnexpectedStatus { .. }));
        let success =
            Error::<Value>::from_answer(StatusCode::ACCEPTED, &HeaderMap::new(), Bytes::new(), &[]);
        assert_eq!(
            success.to_string(),
            "the API answered 202 Accepted, which this operation does not expect, with an empty body"
        );
    }

    #[test]
    fn display_lists_ten_problems_and_counts_the_rest() {
        let items: Vec<Value> = (0..12)
            .map(|i| serde_json::json!({"name": format!("f{i}"), "message": "bad"}))
            .collect();
        let body =
            serde_json::to_vec(&serde_json::json!({"message": "Invalid.", "details": items}))
                .unwrap();
        let error = Error::<Value>::from_answer(
            StatusCode::UNPROCESSABLE_ENTITY,
            &HeaderMap::new(),
            body.into(),
            &[],
        );
        let text = error.to_string();
        assert!(text.contains("f9: bad; and 2 more"), "{text}");
        assert!(!text.contains("f10"), "{text}");

        let ten = serde_json::json!({"message": "Invalid.", "details": &items[..10]});
        let error = Error::<Value>::from_answer(
            StatusCode::UNPROCESSABLE_ENTITY,
            &HeaderMap::new(),
            serde_json::to_vec(&ten).unwrap().into(),
            &[],
        );
        let text = error.to_string();
        assert!(text.ends_with("f9: bad"), "ten are all listed: {text}");
    }

    /// The table of the API's error schema says where the message, the
    /// problems and the request id are, whatever their names.
    #[test]
    fn the_error_schemas_table_finds_what_common_names_miss() {
        const FIELDS: &[Field] = &[
            ("httpStatus", Part::Status),
            (
                "failure",
                Part::Object(&[
                    ("description", Part::Message),
                    (
                        "violations",
                        Part::Problems(&[
                            ("pointer", ProblemPart::Property),
                            ("msg", ProblemPart::Message),
                            ("rule", ProblemPart::ErrorCode),
                        ]),
                    ),
                ]),
            ),
            ("instance", Part::Instance),
        ];
        let body = br#"{"httpStatus":400,"message":"not this one",
            "failure":{"description":"The request has 1 validation error.",
              "violations":[{"pointer":"/qty","msg":"must be at least 1","rule":"Minimum"},
                            {"field":"sku","message":"is required"}]},
            "instance":"urn:request-id:01J8"}"#;
        let error = Error::<Value>::from_answer(
            StatusCode::BAD_REQUEST,
            &with_request_id("from-header"),
            Bytes::from_static(body),
            FIELDS,
        );
        let api = error.api_error().expect("any JSON is a Value");
        assert_eq!(api.message(), Some("The request has 1 validation error."));
        assert_eq!(api.request_id(), Some("01J8"));
        assert_eq!(
            api.problems(),
            [
                FieldProblem {
                    property: "/qty".to_owned(),
                    message: "must be at least 1".to_owned(),
                    code: Some("Minimum".to_owned()),
                },
                // Not as the table says: read by the common names.
                FieldProblem {
                    property: "sku".to_owned(),
                    message: "is required".to_owned(),
                    code: None,
                },
            ]
        );

        // What the body lacks is read by the common names; an `instance`
        // that is not a request id's URI names none.
        let other = br#"{"message":"Gone.","instance":"/orders/7"}"#;
        let error = Error::<Value>::from_answer(
            StatusCode::GONE,
            &with_request_id("from-header"),
            Bytes::from_static(other),
            FIELDS,
        );
        let api = error.api_error().expect("any JSON is a Value");
        assert_eq!(api.message(), Some("Gone."));
        assert_eq!(api.request_id(), Some("from-header"));
        assert!(api.problems().is_empty());
    }

    /// A table that places a part twice: the first place, in the table's
    /// order, that the body fills.
    #[test]
    fn the_first_place_of_a_part_wins() {
        const PROBLEM: &[(&str, ProblemPart)] = &[
            ("field", ProblemPart::Property),
            ("message", ProblemPart::Message),
        ];
        const FIELDS: &[Field] = &[
            ("summary", Part::Message),
            ("violations", Part::Problems(PROBLEM)),
            (
                "error",
                Part::Object(&[
                    ("message", Part::Message),
                    ("correlationId", Part::RequestId),
                    ("issues", Part::Problems(PROBLEM)),
                ]),
            ),
            ("traceId", Part::RequestId),
        ];
        let body = br#"{"summary":"first","violations":[{"field":"a","message":"x"}],
            "error":{"message":"second","correlationId":"r1","issues":[{"field":"b","message":"y"}]},
            "traceId":"r2"}"#;
        let error = Error::<Value>::from_answer(
            StatusCode::BAD_REQUEST,
            &HeaderMap::new(),
            Bytes::from_static(body),
            FIELDS,
        );
        let api = error.api_error().expect("any JSON is a Value");
        assert_eq!(api.message(), Some("first"));
        assert_eq!(api.request_id(), Some("r1"));
        let places: Vec<&str> = api.problems().iter().map(|p| p.property.as_str()).collect();
        assert_eq!(places, ["a"]);
    }

    #[test]
    fn a_problems_fields_may_be_numbers() {
        let body = br#"{"errors":[{"field":"qty","message":"too many","code":1001}]}"#;
        let error = Error::<Value>::from_answer(
            StatusCode::BAD_REQUEST,
            &HeaderMap::new(),
            Bytes::from_static(body),
            &[],
        );
        let api = error.api_error().expect("any JSON is a Value");
        assert_eq!(api.problems()[0].code.as_deref(), Some("1001"));
    }

    #[test]
    fn a_timeout_is_a_timeout_and_other_errors_are_not() {
        let stalled = Error::<Value>::Stalled {
            after: Duration::from_millis(5),
        };
        assert!(stalled.is_timeout());
        assert!(!Error::<Value>::Disconnected { connections: 2 }.is_timeout());
    }

    /// A request to a port nobody listens on: reqwest's error, whose cause
    /// (the refused connection) is what a person needs.
    #[tokio::test]
    async fn a_transport_error_shows_its_causes_and_keeps_its_source() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        drop(listener);
        let refused = reqwest::Client::new().get(&url).send().await.unwrap_err();
        let failure = Failure(Error::Transport(refused));
        assert!(std::error::Error::source(&failure).is_some());
        let error: Error<Value> = failure.into();
        assert!(std::error::Error::source(&error).is_some());
        let message = error.to_string();
        assert!(
            message.starts_with(&format!(
                "the API could not be reached: error sending request for url ({url})"
            )),
            "{message}"
        );
        assert!(message.contains("Connection refused"), "{message}");
        assert!(!message.contains("built without TLS"), "{message}");
        assert!(!error.is_timeout());
    }

    #[test]
    fn only_a_client_without_tls_is_told_to_turn_it_on() {
        let refusal = "builder error: invalid URL, scheme is not http";
        assert_eq!(lacks_tls(refusal), cfg!(not(feature = "rustls")));
        assert!(!lacks_tls("connection refused"));
    }

    #[test]
    fn a_failure_becomes_an_error_of_any_body_and_quotes_a_bounded_snippet() {
        let long = "x".repeat(SNIPPET_CHARS + 50);
        let failure = Failure::decode(
            StatusCode::OK,
            &with_request_id("r-2"),
            long.as_bytes(),
            "expected `{`",
        );
        let error: Error<Envelope> = failure.into();
        let Error::Decode {
            snippet,
            request_id,
            ..
        } = &error
        else {
            panic!("not a decode error: {error:?}");
        };
        assert_eq!(snippet.chars().count(), SNIPPET_CHARS + 1);
        assert!(snippet.ends_with('…'));
        let exact = "y".repeat(SNIPPET_CHARS);
        assert_eq!(
            super::snippet(exact.as_bytes()),
            exact,
            "nothing cut, no ellipsis"
        );
        assert_eq!(request_id.as_deref(), Some("r-2"));
        assert_eq!(error.request_id(), Some("r-2"));
        let invalid: Error<Envelope> = Failure::invalid("listOrders: bad header").into();
        assert_eq!(invalid.to_string(), "listOrders: bad header");
        assert_eq!(invalid.status(), None);
        assert!(!invalid.is_timeout());
    }
}
