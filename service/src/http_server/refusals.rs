//! The answers that replace hyper's: hyper answers a request it cannot read
//! (400, 414, 431) itself, with an empty body, before any of our code runs;
//! the stream recognises that answer and writes the API's error body in its
//! place (decision D29).

use bytes::Bytes;
use futures_util::FutureExt as _;
use http::StatusCode;
use logistics_server_stubs::{ApiError, ErrorBodyFormat, RequestId};

/// The error body, as a whole response, that replaces hyper's answer `buf`
/// when it is one of its refusals: its status, the new request id, the bytes.
pub(super) fn replacement(buf: &[u8]) -> Option<(StatusCode, RequestId, Bytes)> {
    let status = hyper_refusal(buf)?;
    let (code, message) = match status {
        StatusCode::URI_TOO_LONG => (
            "UriTooLong",
            "The request's URI is too long: at most 65,534 bytes.",
        ),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => (
            "HeadersTooLarge",
            "The request's headers are too large, or more than 100.",
        ),
        _ => (
            "MalformedRequest",
            "The request is not valid HTTP/1.1: its request line or a header cannot be read.",
        ),
    };
    let request_id = RequestId::generate();
    let bytes = encode(ApiError::new(status, code, message), &request_id);
    Some((status, request_id, bytes))
}

/// The status of `buf` when it is hyper's answer to a request it could not
/// parse: a whole response head of status 400, 414 or 431 with
/// `content-length: 0` and no `content-type` (every answer of the API has a
/// `content-type`).
fn hyper_refusal(buf: &[u8]) -> Option<StatusCode> {
    let status = match buf.get(..13)? {
        b"HTTP/1.1 400 " => StatusCode::BAD_REQUEST,
        b"HTTP/1.1 414 " => StatusCode::URI_TOO_LONG,
        b"HTTP/1.1 431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    if !buf.ends_with(b"\r\n\r\n") || buf.len() > 512 {
        return None;
    }
    let head = std::str::from_utf8(buf).ok()?.to_ascii_lowercase();
    (head.contains("\r\ncontent-length: 0\r\n") && !head.contains("\r\ncontent-type:"))
        .then_some(status)
}

/// An error as a whole HTTP/1.1 response that closes the connection.
pub(super) fn encode(error: ApiError, request_id: &RequestId) -> Bytes {
    let response = error.render_as::<ErrorBodyFormat>(request_id, None);
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .now_or_never()
        .and_then(Result::ok)
        .unwrap_or_default();
    let mut out = Vec::with_capacity(256 + body.len());
    out.extend_from_slice(
        format!(
            "HTTP/1.1 {} {}\r\n",
            parts.status.as_u16(),
            parts.status.canonical_reason().unwrap_or("")
        )
        .as_bytes(),
    );
    for (name, value) in &parts.headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&body);
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hyper_refusals_are_replaced() {
        let hyper = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 12:00:00 GMT\r\n\r\n";
        assert_eq!(hyper_refusal(hyper), Some(StatusCode::BAD_REQUEST));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(hyper_refusal(ours), None);
        let with_body =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n{}";
        assert_eq!(hyper_refusal(with_body), None);
    }
}
