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

#[cfg(test)]
mod tests {
    use axum::body::to_bytes;
    use http::HeaderMap;

    use super::*;
    use crate::server::error_shape::ProblemDetails;

    /// A response's status, `Content-Type` and body.
    async fn parts(response: Response) -> (u16, Option<String>, String) {
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned());
        let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        (
            status,
            content_type,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    fn typed(status: u16, content_type: &str, body: &str) -> (u16, Option<String>, String) {
        (status, Some(content_type.to_owned()), body.to_owned())
    }

    #[tokio::test]
    async fn each_body_kind_is_written_with_its_status_and_media_type() {
        let created = StatusCode::CREATED;
        let json = json(created, &serde_json::json!({"id": 7}), "application/json");
        assert_eq!(
            parts(json.unwrap()).await,
            typed(201, "application/json", r#"{"id":7}"#)
        );
        let value = crate::server::Encoded::new(&[1, 2]).unwrap();
        let encoded = encoded(StatusCode::OK, value, "application/json");
        assert_eq!(
            parts(encoded).await,
            typed(200, "application/json", "[1,2]")
        );
        let lines: crate::server::Items<u8> = [1, 2].into_iter().collect();
        let items = items(
            StatusCode::OK,
            lines,
            "application/jsonl",
            crate::sequence::Framing::Lines,
        );
        assert_eq!(
            parts(items).await,
            typed(200, "application/jsonl", "1\n2\n")
        );
        let text = text(StatusCode::OK, "hi".to_owned(), "text/plain");
        assert_eq!(parts(text).await, typed(200, "text/plain", "hi"));
        let raw = bytes(
            StatusCode::OK,
            Bytes::from_static(b"\x01"),
            "application/octet-stream",
        );
        assert_eq!(
            parts(raw).await,
            typed(200, "application/octet-stream", "\u{1}")
        );
        let form_type = "application/x-www-form-urlencoded";
        let body = serde_json::json!({"a b": "x&y", "ids": [1, 2], "none": null});
        let form = form(StatusCode::OK, &body, form_type).unwrap();
        assert_eq!(
            parts(form).await,
            typed(200, form_type, "a%20b=x%26y&ids=1&ids=2")
        );
        assert!(
            super::form(StatusCode::OK, &3, form_type).is_err(),
            "not an object"
        );
        assert_eq!(
            parts(empty(StatusCode::NO_CONTENT)).await,
            (204, None, String::new())
        );
        assert_eq!(status(201), StatusCode::CREATED);
        assert_eq!(status(1_000), StatusCode::INTERNAL_SERVER_ERROR);
    }

    fn request_id() -> RequestId {
        RequestId::parse("req-1").unwrap()
    }

    #[tokio::test]
    async fn an_outcome_is_the_answer_with_its_id_the_error_or_a_500_for_a_panic() {
        let answered =
            finish::<ProblemDetails>(Ok(Ok(empty(StatusCode::ACCEPTED))), request_id(), "op");
        assert_eq!(answered.status(), StatusCode::ACCEPTED);
        assert_eq!(answered.headers()[&X_REQUEST_ID], "req-1");
        let refused = ApiError::not_found("NotFound", "No order 7.");
        let refused = finish::<ProblemDetails>(Ok(Err(refused)), request_id(), "op");
        let (status, content_type, body) = parts(refused).await;
        assert_eq!(
            (status, content_type.as_deref()),
            (404, Some("application/problem+json"))
        );
        assert!(body.contains("No order 7."), "{body}");
        let panicked = finish::<ProblemDetails>(Err(Box::new("boom")), request_id(), "op");
        let (status, _, body) = parts(panicked).await;
        assert_eq!(status, 500);
        assert!(
            body.contains("An internal error occurred.") && !body.contains("boom"),
            "{body}"
        );
    }

    #[tokio::test]
    async fn an_unknown_route_or_method_is_refused_in_the_error_format() {
        let request = |method: &str| {
            let mut request = Request::new(Body::empty());
            *request.method_mut() = method.parse().unwrap();
            *request.uri_mut() = "/nowhere".parse().unwrap();
            let mut headers = HeaderMap::new();
            headers.insert(&X_REQUEST_ID, HeaderValue::from_static("req-2"));
            *request.headers_mut() = headers;
            request
        };
        let (status, content_type, body) =
            parts(route_not_found::<ProblemDetails>(request("GET")).await).await;
        assert_eq!(
            (status, content_type.as_deref()),
            (404, Some("application/problem+json"))
        );
        assert!(
            body.contains("/nowhere") && body.contains("req-2"),
            "{body}"
        );
        let refused = method_not_allowed::<ProblemDetails>(&request("PUT"), "GET, POST");
        let (status, _, body) = parts(refused).await;
        assert_eq!(status, 405);
        assert!(body.contains("PUT"), "{body}");
    }
}
