//! The one error type of the API, and the one renderer of every error response.
//!
//! Every failure — an unknown path, a wrong method, a missing or rejected
//! credential, an unacceptable `Accept`, a body too large, a wrong
//! `Content-Type`, malformed JSON, a bad parameter, a schema violation, an
//! error of the implementation, a panic — is an [`ApiError`], rendered by
//! [`ApiError::render_as`] in the API's [`ErrorFormat`] with the request's
//! `X-Request-Id`. The runtime's only format of its own is [`ProblemDetails`]
//! (RFC 9457); an API whose document names an error schema gets its format
//! from the generator, as a table of [`Field`]s written with
//! [`write_fields`] (the server-stubs crate's `ErrorBodyFormat`).
//! An error's internal cause is logged with `tracing`, never sent.

use std::borrow::Cow;
use std::fmt;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, StatusCode};

pub use crate::error_fields::{Field, Part, ProblemPart};
pub use crate::server::error_shape::{ProblemDetails, write_fields};

use crate::models::validation::{Problem, Report};
use crate::server::request_id::{RequestId, X_REQUEST_ID};

/// The internal cause of an error: logged, never sent to the client.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// An error answered in the document's error format.
///
/// Make one with a constructor for the common cases ([`bad_request`],
/// [`validation`], [`unauthorized`], [`forbidden`], [`not_found`],
/// [`conflict`], [`internal`]) or with [`new`] for any status, then refine it
/// with [`at`], [`with_problem`], [`with_header`] and [`with_cause`].
///
/// The error code appears in the body's `errors` as one entry about the
/// property named with [`at`] (an empty property means the request as a
/// whole), unless problems are listed explicitly.
///
/// [`bad_request`]: ApiError::bad_request
/// [`validation`]: ApiError::validation
/// [`unauthorized`]: ApiError::unauthorized
/// [`forbidden`]: ApiError::forbidden
/// [`not_found`]: ApiError::not_found
/// [`conflict`]: ApiError::conflict
/// [`internal`]: ApiError::internal
/// [`new`]: ApiError::new
/// [`at`]: ApiError::at
/// [`with_problem`]: ApiError::with_problem
/// [`with_header`]: ApiError::with_header
/// [`with_cause`]: ApiError::with_cause
pub struct ApiError(Box<Inner>);

struct Inner {
    status: StatusCode,
    message: Cow<'static, str>,
    code: Option<Cow<'static, str>>,
    property: Cow<'static, str>,
    problems: Vec<Problem>,
    headers: HeaderMap,
    cause: Option<Cause>,
}

impl ApiError {
    /// An error with any status, an error code (such as `ResourceNotFound`)
    /// and a message a person can act on.
    pub fn new(
        status: StatusCode,
        error_code: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        ApiError(Box::new(Inner {
            status,
            message: message.into(),
            code: Some(error_code.into()),
            property: Cow::Borrowed(""),
            problems: Vec::new(),
            headers: HeaderMap::new(),
            cause: None,
        }))
    }

    /// 400: the request is invalid; `problems` lists every offending field
    /// (at most [`MAX_PROBLEMS`](crate::models::validation::MAX_PROBLEMS) are
    /// kept, the message says how many more there were).
    pub fn bad_request(problems: impl IntoIterator<Item = Problem>) -> Self {
        let mut report = Report::new();
        for problem in problems {
            report.add(problem);
        }
        Self::validation(report)
    }

    /// 400 with every problem of a validation report.
    pub fn validation(report: Report) -> Self {
        let message = report.summary("request");
        ApiError(Box::new(Inner {
            status: StatusCode::BAD_REQUEST,
            message: Cow::Owned(message),
            code: None,
            property: Cow::Borrowed(""),
            problems: report.into_problems(),
            headers: HeaderMap::new(),
            cause: None,
        }))
    }

    /// 401: the credential is missing, unknown or not valid here.
    pub fn unauthorized(
        error_code: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, error_code, message)
    }

    /// 403: the caller may not do this.
    pub fn forbidden(
        error_code: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(StatusCode::FORBIDDEN, error_code, message)
    }

    /// 404: no such resource.
    pub fn not_found(
        error_code: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(StatusCode::NOT_FOUND, error_code, message)
    }

    /// 409: the request conflicts with the resource's current state.
    pub fn conflict(
        error_code: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(StatusCode::CONFLICT, error_code, message)
    }

    /// 500 `InternalError`: the service failed. `cause` is logged with the
    /// request id and never sent; the client sees a generic message.
    pub fn internal(cause: impl Into<Cause>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "An internal error occurred.",
        )
        .with_cause(cause)
    }

    /// Names the property, parameter or header the error is about (for
    /// example `Authorization` or `referenceNumber`).
    pub fn at(mut self, property: impl Into<Cow<'static, str>>) -> Self {
        self.0.property = property.into();
        self
    }

    /// Adds a problem with one field. Once problems are listed, they are the
    /// body's `errors`.
    pub fn with_problem(
        mut self,
        property: impl Into<String>,
        message: impl Into<String>,
        error_code: impl Into<String>,
    ) -> Self {
        self.0.problems.push(Problem {
            property: property.into(),
            message: message.into(),
            error_code: error_code.into(),
        });
        self
    }

    /// Adds a header to the response (for example `Retry-After`).
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.0.headers.append(name, value);
        self
    }

    /// Attaches the internal cause: logged with the request id, never sent.
    pub fn with_cause(mut self, cause: impl Into<Cause>) -> Self {
        self.0.cause = Some(cause.into());
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.0.status
    }

    /// The summary of the error, which the body carries (problem details'
    /// `detail`).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The error code: the one given to the constructor, or that of the first
    /// problem listed.
    pub fn error_code(&self) -> Option<&str> {
        self.0
            .code
            .as_deref()
            .or_else(|| self.0.problems.first().map(|p| p.error_code.as_str()))
    }

    /// The problems listed explicitly.
    pub fn problems(&self) -> &[Problem] {
        &self.0.problems
    }

    /// The internal cause, if any.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.0.cause.as_deref()
    }

    // ---- the errors the stubs answer themselves -----------------------------------

    /// 404 `RouteNotFound`: no operation has this path.
    pub fn route_not_found(path: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "RouteNotFound",
            format!("No operation has the path {path}."),
        )
        .at("path")
    }

    /// 405 `MethodNotAllowed`, with `Allow` listing the methods of the path.
    pub fn method_not_allowed(method: &str, allow: &'static str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            format!("{method} is not allowed on this path; allowed: {allow}."),
        )
        .at("method")
        .with_header(http::header::ALLOW, HeaderValue::from_static(allow))
    }

    /// 401 `InvalidCredential`: the request carries no credential; `name`
    /// says where it belongs (for example the `Authorization` header).
    pub fn missing_credential(name: &'static str, message: &'static str) -> Self {
        Self::unauthorized("InvalidCredential", message).at(name)
    }

    /// 406 `NotAcceptable`: `Accept` rules out every media type the operation
    /// answers with.
    pub fn not_acceptable(offered: &[&str]) -> Self {
        Self::new(
            StatusCode::NOT_ACCEPTABLE,
            "NotAcceptable",
            format!("This operation answers with {}.", either_list(offered)),
        )
        .at("Accept")
    }

    /// 413 `PayloadTooLarge`: the body is larger than `limit` bytes.
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PayloadTooLarge",
            format!("The request body is larger than {limit} bytes."),
        )
        .at("body")
    }

    /// 415 `InvalidContentType`: the body's `Content-Type` (if any) is not
    /// one the operation accepts.
    pub fn unsupported_media_type(given: Option<&str>, accepted: &[&str]) -> Self {
        let message = match given {
            Some(given) => format!(
                "Content-Type {given} is not accepted; send {}.",
                either_list(accepted)
            ),
            None => format!(
                "The request has a body but no Content-Type; send {}.",
                either_list(accepted)
            ),
        };
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "InvalidContentType",
            message,
        )
        .at("Content-Type")
    }

    /// 400 `Required`: the operation needs a body and the request has none.
    pub fn body_required() -> Self {
        Self::bad_request([Problem {
            property: "body".to_owned(),
            message: "is required".to_owned(),
            error_code: "Required".to_owned(),
        }])
    }

    /// 400: the body could not be read (the connection failed, or its bytes
    /// are not what its media type says).
    pub fn unreadable_body(message: impl Into<String>, error_code: &str) -> Self {
        Self::bad_request([Problem {
            property: "body".to_owned(),
            message: message.into(),
            error_code: error_code.to_owned(),
        }])
    }

    // ---- rendering -----------------------------------------------------------------

    /// The problems the body lists: those added explicitly, or else one
    /// about the property named with [`at`](Self::at) with the error code and
    /// message (none for an error without a code).
    pub fn listed_problems(&self) -> Cow<'_, [Problem]> {
        match (&self.0.code, self.0.problems.is_empty()) {
            (Some(code), true) => Cow::Owned(vec![Problem {
                property: self.0.property.clone().into_owned(),
                message: self.0.message.clone().into_owned(),
                error_code: code.clone().into_owned(),
            }]),
            _ => Cow::Borrowed(&self.0.problems),
        }
    }

    /// The error response in the format `F`: its body and `Content-Type`,
    /// `X-Request-Id` and the error's own headers. Server errors, and errors
    /// with a cause, are logged with the request id and `operation_id`.
    ///
    /// `F` is the API's format: the server-stubs crate's `ErrorBodyFormat`.
    /// There is deliberately no `render` without a format: an error rendered
    /// outside the router (a tower layer's, a refusal of the HTTP server's)
    /// names the API's format, so that it cannot fall back to another body
    /// unseen, and changing the document's error schema reaches it.
    pub fn render_as<F: ErrorFormat>(
        self,
        request_id: &RequestId,
        operation_id: Option<&'static str>,
    ) -> Response {
        self.render_with(request_id, operation_id, F::CONTENT_TYPE, F::write_body)
    }

    fn render_with(
        self,
        request_id: &RequestId,
        operation_id: Option<&'static str>,
        content_type: &'static str,
        write_body: fn(&ApiError, &RequestId, &mut Vec<u8>),
    ) -> Response {
        log(&self.0, request_id, operation_id);
        let mut body = Vec::with_capacity(256);
        write_body(&self, request_id, &mut body);
        let inner = *self.0;
        let mut response = Response::new(Body::from(body));
        *response.status_mut() = inner.status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        headers.insert(&X_REQUEST_ID, request_id.to_header_value());
        headers.extend(inner.headers);
        response
    }
}

/// How an [`ApiError`] is written as a response body: the error format of
/// an API's document. A server-stubs crate names its API's format as
/// `ErrorBodyFormat`, and every error its router answers is written in it.
pub trait ErrorFormat {
    /// The `Content-Type` of the body.
    const CONTENT_TYPE: &'static str;

    /// Writes the body of `error`, answered to the request `request_id`.
    fn write_body(error: &ApiError, request_id: &RequestId, body: &mut Vec<u8>);
}

fn log(inner: &Inner, request_id: &RequestId, operation_id: Option<&'static str>) {
    let operation = operation_id.unwrap_or("-");
    let status = inner.status.as_u16();
    match &inner.cause {
        Some(cause) if inner.status.is_server_error() => tracing::error!(
            request_id = request_id.as_str(),
            operation,
            status,
            cause = %cause,
            "{}",
            inner.message
        ),
        None if inner.status.is_server_error() => tracing::error!(
            request_id = request_id.as_str(),
            operation,
            status,
            "{}",
            inner.message
        ),
        Some(cause) => tracing::debug!(
            request_id = request_id.as_str(),
            operation,
            status,
            cause = %cause,
            "{}",
            inner.message
        ),
        None => {}
    }
}

/// "a", "a or b", "a, b or c".
fn either_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl From<Report> for ApiError {
    fn from(report: Report) -> Self {
        ApiError::validation(report)
    }
}

impl fmt::Debug for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiError")
            .field("status", &self.0.status)
            .field("code", &self.0.code)
            .field("message", &self.0.message)
            .field("property", &self.0.property)
            .field("problems", &self.0.problems)
            .field("cause", &self.0.cause)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0.status.as_u16(), self.0.message)?;
        if let Some(code) = &self.0.code {
            write!(f, " ({code})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .cause
            .as_deref()
            .map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}

/// Rendered as the runtime's default, RFC 9457 [`ProblemDetails`], with a
/// new request id: for code that knows no API. An API's own code renders
/// with [`ApiError::render_as`] in the server-stubs crate's
/// `ErrorBodyFormat`, with [`RequestId::from_headers`] of the request, which
/// keeps the API's format and a sane incoming id.
impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.render_as::<ProblemDetails>(&RequestId::generate(), None)
    }
}

/// The current time as RFC 3339 in UTC, to the second (`2026-03-14T10:02:11Z`).
pub(crate) struct Timestamp(u64);

impl Timestamp {
    pub(crate) fn now() -> Self {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Timestamp(seconds)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0 / 86_400;
        let seconds = self.0 % 86_400;
        // Howard Hinnant's civil_from_days, for days since 1970-01-01.
        let z = days as i64 + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = z.rem_euclid(146_097);
        let year_of_era =
            (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let mp = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            seconds / 3_600,
            seconds % 3_600 / 60,
            seconds % 60
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events logged while `work` runs: each one's level, and whether
    /// it carries a `cause`.
    fn logged(work: impl FnOnce()) -> Vec<(tracing::Level, bool)> {
        use std::sync::{Arc, Mutex};
        use tracing::field::{Field, Visit};
        use tracing::span::{Attributes, Id, Record};
        use tracing::{Event, Metadata, Subscriber};

        #[derive(Default)]
        struct Events(Arc<Mutex<Vec<(tracing::Level, bool)>>>);

        struct HasCause(bool);

        impl Visit for HasCause {
            fn record_debug(&mut self, field: &Field, _: &dyn fmt::Debug) {
                self.0 |= field.name() == "cause";
            }
        }

        impl Subscriber for Events {
            fn enabled(&self, _: &Metadata<'_>) -> bool {
                true
            }
            fn new_span(&self, _: &Attributes<'_>) -> Id {
                Id::from_u64(1)
            }
            fn record(&self, _: &Id, _: &Record<'_>) {}
            fn record_follows_from(&self, _: &Id, _: &Id) {}
            fn event(&self, event: &Event<'_>) {
                let mut cause = HasCause(false);
                event.record(&mut cause);
                let level = *event.metadata().level();
                self.0.lock().unwrap().push((level, cause.0));
            }
            fn enter(&self, _: &Id) {}
            fn exit(&self, _: &Id) {}
        }

        let events = Events::default();
        let seen = Arc::clone(&events.0);
        tracing::subscriber::with_default(events, work);
        seen.lock().unwrap().clone()
    }

    #[test]
    fn a_server_error_is_logged_as_an_error_and_a_refusal_only_with_its_cause() {
        use tracing::Level;
        let id = RequestId::parse("req-1").unwrap();
        let render = |error: ApiError| {
            logged(|| {
                drop(error.render_as::<crate::server::error_shape::ProblemDetails>(&id, Some("op")))
            })
        };
        let cause = || std::io::Error::other("disk full");
        assert_eq!(render(ApiError::internal(cause())), [(Level::ERROR, true)]);
        let failed = ApiError::new(StatusCode::BAD_GATEWAY, "Upstream", "The carrier failed.");
        assert_eq!(render(failed), [(Level::ERROR, false)]);
        let refused = || ApiError::not_found("NotFound", "No order 7.");
        assert_eq!(
            render(refused().with_cause(cause())),
            [(Level::DEBUG, true)]
        );
        assert_eq!(render(refused()), []);
    }

    #[test]
    fn a_timestamp_is_the_utc_date_and_time_to_the_second() {
        for (seconds, expected) in [
            (0, "1970-01-01T00:00:00Z"),
            (86_399, "1970-01-01T23:59:59Z"),
            (68_169_600, "1972-02-29T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_000_000_000, "2001-09-09T01:46:40Z"),
            (1_677_628_799, "2023-02-28T23:59:59Z"),
            (1_677_628_800, "2023-03-01T00:00:00Z"),
            (1_704_067_199, "2023-12-31T23:59:59Z"),
            (1_704_067_200, "2024-01-01T00:00:00Z"),
            (1_709_251_199, "2024-02-29T23:59:59Z"),
            (1_795_990_712, "2026-11-29T22:18:32Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ] {
            assert_eq!(Timestamp(seconds).to_string(), expected, "{seconds}");
        }
    }

    #[test]
    fn the_media_types_accepted_or_offered_are_listed_as_a_sentence() {
        let given = |accepted: &[&str]| {
            ApiError::unsupported_media_type(Some("text/csv"), accepted)
                .message()
                .to_owned()
        };
        assert_eq!(
            given(&["application/json"]),
            "Content-Type text/csv is not accepted; send application/json."
        );
        assert_eq!(
            given(&["application/json", "application/xml", "text/plain"]),
            "Content-Type text/csv is not accepted; send application/json, application/xml or text/plain."
        );
        let offered = ApiError::not_acceptable(&["a/b", "c/d"]);
        assert_eq!(offered.message(), "This operation answers with a/b or c/d.");
    }

    #[test]
    fn an_internal_error_keeps_its_cause_for_the_log_and_shows_its_status() {
        let cause = std::io::Error::other("disk full");
        let error = ApiError::internal(cause);
        assert_eq!(
            error.cause().map(ToString::to_string).as_deref(),
            Some("disk full")
        );
        let source = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("disk full"));
        assert_eq!(
            error.to_string(),
            "500 An internal error occurred. (InternalError)"
        );
        let shown = format!("{error:?}");
        assert!(shown.starts_with("ApiError { status: 500,"), "{shown}");
        assert!(shown.contains("disk full"), "{shown}");
        let plain = ApiError::not_found("NotFound", "No order 7.");
        assert!(plain.cause().is_none());
        assert!(std::error::Error::source(&plain).is_none());
    }
}
