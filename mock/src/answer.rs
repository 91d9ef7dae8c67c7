//! The answer to a request that passed its checks: the status the request
//! prefers or the operation's first success, the media type `Accept`
//! negotiates, and a body and headers from the document's examples or
//! made up from the schemas.

use axum::body::Body;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use openapi_codegen::ir::{BodyKind, Framing, MediaKind, Operation, Response as Declared, Status};
use openapi_runtime::server::error::ApiError;
use openapi_runtime::server::negotiation;
use serde_json::{Map, Value};

use crate::prefer::Prefer;
use crate::sample::Sampler;
use crate::{Mock, Prepared, examples};

/// The answer to a checked request.
pub fn answer(mock: &Mock, prepared: &Prepared, headers: &HeaderMap) -> Result<Response, ApiError> {
    let op = &mock.api.operations[prepared.index];
    let prefer = Prefer::from_headers(headers);
    let (status, index) = choose(op, prefer.code)?;
    let declared = &op.responses[index];
    let offered = prepared.offered[index];
    let mut response = if offered.is_empty() {
        Response::new(Body::empty())
    } else {
        let media = negotiation::negotiate(headers, offered)?;
        let value = body_value(mock, op, declared, media, &prefer, status)?;
        let mut response = Response::new(encode(declared, media, &value));
        let concrete = if media.contains('*') {
            "application/octet-stream"
        } else {
            media
        };
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(concrete)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
        );
        response
    };
    *response.status_mut() = status;
    let mut sampler = Sampler::new(&mock.api, mock.seed_for(op, status));
    for declared_header in declared.headers.iter().filter(|h| h.required) {
        let value = match sampler.value(&declared_header.shape) {
            Value::String(text) => text,
            other => other.to_string(),
        };
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(declared_header.wire.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            response.headers_mut().insert(name, value);
        }
    }
    Ok(response)
}

/// The status to answer with and its declared response: the one `code`
/// names (or the range or `default` that covers it), else the lowest
/// success the document declares, else `default` as 200.
fn choose(op: &Operation, code: Option<u16>) -> Result<(StatusCode, usize), ApiError> {
    let position = |status: Status| op.responses.iter().position(|r| r.status == status);
    if let Some(code) = code {
        let found = position(Status::Code(code))
            .or_else(|| position(Status::Range(code / 100)))
            .or_else(|| position(Status::Default));
        let status = StatusCode::from_u16(code).ok();
        return match (found, status) {
            (Some(index), Some(status)) => Ok((status, index)),
            _ => {
                let declared: Vec<String> =
                    op.responses.iter().map(|r| r.status.to_string()).collect();
                Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "NoSuchResponse",
                    format!(
                        "Prefer asks for {code}, which `{}` does not declare; it declares {}.",
                        op.id,
                        declared.join(", ")
                    ),
                )
                .at("Prefer"))
            }
        };
    }
    let mut successes: Vec<(u16, usize)> = op
        .responses
        .iter()
        .enumerate()
        .filter_map(|(index, r)| match r.status {
            Status::Code(code) if (200..300).contains(&code) => Some((code, index)),
            Status::Range(2) => Some((200, index)),
            _ => None,
        })
        .collect();
    successes.sort();
    let fallback = || {
        op.responses
            .iter()
            .position(|r| r.status.is_success())
            .map(|index| match op.responses[index].status {
                Status::Code(code) => (code, index),
                Status::Range(range) => (range * 100, index),
                Status::Default => (200, index),
            })
            .or_else(|| position(Status::Default).map(|index| (200, index)))
    };
    let (code, index) = successes
        .first()
        .copied()
        .or_else(fallback)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_IMPLEMENTED,
                "NoResponse",
                format!("`{}` declares no response the mock could give.", op.id),
            )
        })?;
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    Ok((status, index))
}

/// The body's value: the example `Prefer` names, else (unless it asks for
/// data made up) the document's first, else data made up from the schema.
fn body_value(
    mock: &Mock,
    op: &Operation,
    declared: &Declared,
    media: &str,
    prefer: &Prefer,
    status: StatusCode,
) -> Result<Value, ApiError> {
    let node = mock.doc.node(&op.origin).and_then(|op| {
        let responses = op.get("responses")?.as_mapping()?;
        responses
            .iter()
            .find(|(key, _)| {
                key.as_str()
                    .is_some_and(|k| k.eq_ignore_ascii_case(&declared.status.to_string()))
            })
            .map(|(_, node)| node)
    });
    let found = node
        .and_then(|node| examples::media(&mock.doc, node, media))
        .map(|media| examples::of_media(&mock.doc, media))
        .unwrap_or_default();
    if let Some(name) = &prefer.example {
        return found
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value)
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "NoSuchExample",
                    format!("Prefer asks for the example `{name}`, which the {media} answer of `{}` does not have.", op.id),
                )
                .at("Prefer")
            });
    }
    if !prefer.dynamic {
        if let Some((_, value)) = found.into_iter().next() {
            return Ok(value);
        }
    }
    let mut sampler = Sampler::new(&mock.api, mock.seed_for(op, status));
    // A response may offer JSON beside an event stream: the negotiated
    // media type says which shape the body has.
    let shape = if is_event_stream(media) {
        declared.events.as_ref()
    } else {
        declared.body.as_ref().and_then(BodyKind::json_shape)
    };
    Ok(match (shape, &declared.body) {
        (Some(shape), _) => sampler.value(shape),
        (None, Some(BodyKind::Text)) => Value::String("text".to_owned()),
        // A JSON media type without a schema: any JSON, not no bytes.
        _ if matches!(MediaKind::of(media), MediaKind::Json) => Value::Object(Map::new()),
        _ => Value::String(String::new()),
    })
}

fn is_event_stream(media: &str) -> bool {
    openapi_codegen::ir::media_essence(media) == openapi_codegen::ir::EVENT_STREAM
}

/// The bytes of a body of `value`, in the way the response's kind says
/// (JSON for a JSON media type whatever the kind).
fn encode(declared: &Declared, media: &str, value: &Value) -> Body {
    if is_event_stream(media) {
        let items = value
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![value.clone()]);
        let text: String = items
            .iter()
            .map(|item| format!("data: {item}\n\n"))
            .collect();
        return Body::from(text);
    }
    match (&declared.body, value) {
        (Some(BodyKind::Sequence(sequence)), Value::Array(items)) => {
            let separator = match sequence.framing {
                Framing::Lines => "",
                Framing::RecordSeparator => "\u{1e}",
            };
            let text: String = items
                .iter()
                .map(|item| format!("{separator}{item}\n"))
                .collect();
            Body::from(text)
        }
        (Some(BodyKind::Text | BodyKind::Binary), Value::String(text))
            if !matches!(MediaKind::of(media), MediaKind::Json) =>
        {
            Body::from(text.clone())
        }
        _ => Body::from(value.to_string()),
    }
}
