//! Responses: bodies serialised straight into the response's buffer, header
//! values, the fallbacks for unknown paths and methods, and [`finish`], which
//! gives every response its `X-Request-Id` and turns errors and panics into
//! error responses.

use std::any::Any;
use std::fmt::Display;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::Response;
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderValue};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;

use serde_json::Value;

use crate::server::error::{ApiError, ErrorFormat};
use crate::server::request_id::{RequestId, X_REQUEST_ID};

/// What a handler's work came to: a response, an error, or a panic's payload.
pub type Outcome = Result<Result<Response, ApiError>, Box<dyn Any + Send>>;

/// The response for `outcome`, with the request's `X-Request-Id`. Errors are
/// rendered in the error format `F`; a panic is logged and answered with 500
/// `InternalError`, without its message.
pub fn finish<F: ErrorFormat>(
    outcome: Outcome,
    request_id: RequestId,
    operation_id: &'static str,
) -> Response {
    match outcome {
        Ok(Ok(mut response)) => {
            response
                .headers_mut()
                .insert(&X_REQUEST_ID, request_id.to_header_value());
            response
        }
        Ok(Err(error)) => error.render_as::<F>(&request_id, Some(operation_id)),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("(no message)");
            tracing::error!(
                request_id = request_id.as_str(),
                operation = operation_id,
                panic = message,
                "the implementation panicked"
            );
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                "An internal error occurred.",
            )
            .render_as::<F>(&request_id, Some(operation_id))
        }
    }
}

/// A status from the document (`500` for one HTTP cannot carry).
pub fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A response without a body.
pub fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// A JSON body, serialised into the response's buffer.
pub fn json<T: Serialize + ?Sized>(
    status: StatusCode,
    value: &T,
    content_type: &'static str,
) -> Result<Response, ApiError> {
    let mut buffer = Vec::with_capacity(128);
    serde_json::to_writer(&mut buffer, value).map_err(ApiError::internal)?;
    Ok(with_body(status, Body::from(buffer), content_type))
}

/// A JSON body encoded before, sent as it is.
pub fn encoded<T>(
    status: StatusCode,
    value: crate::server::Encoded<T>,
    content_type: &'static str,
) -> Response {
    with_body(status, Body::from(value.into_bytes()), content_type)
}

/// A sequential JSON body: each of `items` framed as `framing` says,
/// written as the implementation yields it.
pub fn items<T: Serialize + Send + 'static>(
    status: StatusCode,
    items: crate::server::Items<T>,
    content_type: &'static str,
    framing: crate::sequence::Framing,
) -> Response {
    with_body(status, items.into_body(framing), content_type)
}

/// A text body.
pub fn text(status: StatusCode, value: String, content_type: &'static str) -> Response {
    with_body(status, Body::from(value), content_type)
}

/// A body of bytes.
pub fn bytes(status: StatusCode, value: Bytes, content_type: &'static str) -> Response {
    with_body(status, Body::from(value), content_type)
}

/// Characters that are percent-encoded in a form body.
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// An `application/x-www-form-urlencoded` body of a flat object: lists as
/// repeated pairs, nested objects as JSON text, absent and null values left out.
pub fn form<T: Serialize>(
    status: StatusCode,
    value: &T,
    content_type: &'static str,
) -> Result<Response, ApiError> {
    let Value::Object(object) = serde_json::to_value(value).map_err(ApiError::internal)? else {
        return Err(ApiError::internal("a form body must be an object"));
    };
    let mut out = String::new();
    let mut pair = |name: &str, value: &Value| {
        let text = match value {
            Value::Null => return,
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        if !out.is_empty() {
            out.push('&');
        }
        out.extend(utf8_percent_encode(name, FORM));
        out.push('=');
        out.extend(utf8_percent_encode(&text, FORM));
    };
    for (name, value) in &object {
        match value {
            Value::Array(items) => items.iter().for_each(|item| pair(name, item)),
            other => pair(name, other),
        }
    }
    Ok(with_body(status, Body::from(out), content_type))
}

fn with_body(status: StatusCode, body: Body, content_type: &'static str) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A header value of text; 500 when the text cannot be a header value.
pub fn header_text(name: &'static str, value: String) -> Result<HeaderValue, ApiError> {
    HeaderValue::try_from(value).map_err(|_| invalid_header(name))
}

/// A header value of anything displayable (numbers, booleans, UUIDs, enums).
pub fn header_display<T: Display + ?Sized>(
    name: &'static str,
    value: &T,
) -> Result<HeaderValue, ApiError> {
    header_text(name, value.to_string())
}

/// A header value of a list: its items, comma-separated.
pub fn header_list<T: Display>(name: &'static str, values: &[T]) -> Result<HeaderValue, ApiError> {
    let joined = values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",");
    header_text(name, joined)
}

/// A header value of a structured value, as JSON text.
pub fn header_json<T: Serialize + ?Sized>(
    name: &'static str,
    value: &T,
) -> Result<HeaderValue, ApiError> {
    let text = serde_json::to_string(value).map_err(ApiError::internal)?;
    header_text(name, text)
}

fn invalid_header(name: &'static str) -> ApiError {
    ApiError::internal(format!(
        "the implementation gave the response header {name} a value that HTTP cannot carry"
    ))
}

/// The fallback of the router: 404 `RouteNotFound`, in the error format `F`.
pub async fn route_not_found<F: ErrorFormat>(request: Request) -> Response {
    let request_id = RequestId::from_headers(request.headers());
    ApiError::route_not_found(request.uri().path()).render_as::<F>(&request_id, None)
}

/// The fallback of a path for methods it does not have: 405
/// `MethodNotAllowed`, with `Allow` listing the methods it has, in the error
/// format `F`.
pub fn method_not_allowed<F: ErrorFormat>(request: &Request, allow: &'static str) -> Response {
    let request_id = RequestId::from_headers(request.headers());
    ApiError::method_not_allowed(request.method().as_str(), allow).render_as::<F>(&request_id, None)
}
