//! Request bodies: the `Content-Type` checked against the operation's media
//! types, the bytes read up to the body limit, then decoded by kind (JSON
//! with the models' validation, text, bytes, or a URL-encoded form).

use axum::body::{Body, Bytes, HttpBody as _};
use futures_util::StreamExt as _;
use http::HeaderMap;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use serde::de::DeserializeOwned;

use crate::models::validation::{self, Problem, Validate, ValidateJson};
use crate::sequence::Framing;
use crate::server::error::ApiError;
use crate::server::negotiation;
use crate::server::params;
use crate::server::request_items::RequestItems;
use serde_json::{Map, Number, Value};

/// Reads the body of a request with these headers: `None` when there is
/// none (no bytes). 415 when it has a `Content-Type` other than `accepted`,
/// or bytes and no `Content-Type`; 413 when it is larger than `limit` bytes.
pub async fn read(
    body: Body,
    headers: &HeaderMap,
    accepted: &[&str],
    limit: usize,
) -> Result<Option<Bytes>, ApiError> {
    let Some(typed) = check_headers(&body, headers, accepted, limit)? else {
        return Ok(None);
    };
    let bytes = match Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<LengthLimitError>() => {
            return Err(ApiError::payload_too_large(limit));
        }
        Err(error) => return Err(unreadable().with_cause(error)),
    };
    if bytes.is_empty() {
        Ok(None)
    } else if !typed {
        Err(ApiError::unsupported_media_type(None, accepted))
    } else {
        Ok(Some(bytes))
    }
}

/// The items of a sequential body (`application/jsonl`,
/// `application/json-seq`), to be read as they arrive ([`RequestItems`]):
/// `None` when there is none (no bytes). The headers are checked as
/// [`read`] checks them, and the first bytes awaited, so that a body
/// without any is no body; the `limit` bounds the whole body, which the
/// items' stream counts as it goes.
pub async fn items<T>(
    body: Body,
    headers: &HeaderMap,
    accepted: &[&str],
    limit: usize,
    framing: Framing,
) -> Result<Option<RequestItems<T>>, ApiError> {
    let Some(typed) = check_headers(&body, headers, accepted, limit)? else {
        return Ok(None);
    };
    let mut stream = body.into_data_stream();
    let first = loop {
        match stream.next().await {
            Some(Ok(chunk)) if chunk.is_empty() => {}
            Some(Ok(chunk)) => break chunk,
            Some(Err(error)) => return Err(unreadable().with_cause(error)),
            None => return Ok(None),
        }
    };
    if !typed {
        return Err(ApiError::unsupported_media_type(None, accepted));
    }
    Ok(Some(RequestItems::from_body(first, stream, framing, limit)))
}

/// What a body's headers allow, before it is read: 413 when its declared
/// length is over `limit`; 415 when its `Content-Type` is not one of
/// `accepted`, or it has bytes and no `Content-Type`. `None`: there is no
/// body; `Some(typed)`: read it, and refuse its bytes with 415 unless it
/// has a `Content-Type` (`typed`).
fn check_headers(
    body: &Body,
    headers: &HeaderMap,
    accepted: &[&str],
    limit: usize,
) -> Result<Option<bool>, ApiError> {
    let declared_length = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared_length.is_some_and(|length| length > limit as u64) {
        return Err(ApiError::payload_too_large(limit));
    }
    match headers.get(CONTENT_TYPE) {
        Some(value) => {
            let text = value.to_str().unwrap_or("(not ASCII)");
            if !negotiation::accepts(accepted, text) {
                return Err(ApiError::unsupported_media_type(Some(text), accepted));
            }
            Ok(Some(true))
        }
        None if body.size_hint().exact() == Some(0) => Ok(None),
        None if body.size_hint().lower() > 0 => {
            Err(ApiError::unsupported_media_type(None, accepted))
        }
        None => Ok(Some(false)),
    }
}

/// A body whose bytes could not be read (the connection failed).
fn unreadable() -> ApiError {
    ApiError::unreadable_body("could not be read", "InvalidBody")
}

/// Decodes and validates a JSON body: 400 listing every problem (at most
/// 100), `InvalidJson` when it is not JSON at all.
pub fn json<T>(bytes: &[u8]) -> Result<T, ApiError>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    validation::from_json_slice::<T>(bytes, "body").map_err(ApiError::validation)
}

/// Decodes and validates a JSON body with checks its type does not make:
/// rules that the schemas cannot state (`x-rules`), or the constraints of a
/// body whose type is not named (an inline array's `maxItems`). `rules`
/// checks every body that decodes, so that one 400 lists its problems with
/// the type's own.
pub fn json_with_rules<T>(
    bytes: &[u8],
    rules: impl FnOnce(&T) -> Vec<Problem>,
) -> Result<T, ApiError>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    validation::from_json_slice_with::<T>(bytes, "body", rules).map_err(ApiError::validation)
}

/// Decodes and validates a whole sequential JSON body (`application/jsonl`,
/// `application/json-seq`) into `T`, the list of its items: an item that
/// is not JSON is 400 `InvalidFormat` naming its place, and the items'
/// problems are reported as a JSON array's would be (`body/2/name`).
/// Generated stubs read a sequence as it arrives instead ([`items`]).
pub fn sequence<T>(bytes: &[u8], framing: Framing) -> Result<T, ApiError>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    let array = crate::sequence::to_json_array(bytes, framing).map_err(|(index, message)| {
        ApiError::unreadable_body(
            format!("item {index} is not JSON: {message}"),
            "InvalidFormat",
        )
    })?;
    json(&array)
}

/// A text body: 400 `InvalidFormat` when it is not UTF-8.
pub fn text(bytes: Bytes) -> Result<String, ApiError> {
    String::from_utf8(Vec::from(bytes))
        .map_err(|_| ApiError::unreadable_body("is not valid UTF-8 text", "InvalidFormat"))
}

/// How a field of a form body is typed, so that its text becomes the JSON
/// value the schema expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    /// Text (strings, enums, formats).
    Text,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A structured value (an object, an array of objects, a union)
    /// written as JSON text.
    Json,
    /// An object whose properties are given below the field's name in
    /// brackets (`filter[near][lat]=1.5`: the field `near` of the object
    /// parameter `filter`), each typed by these fields; text given for the
    /// field itself is read as `Json` is (the scalar alternative of a
    /// union, as Stripe's `created=5` beside `created[gt]=5`).
    Object(&'static [FormField]),
}

/// A field of a form body (or a property of an object parameter, or a
/// part of a multipart body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormField {
    /// Its name; `*` stands for every name the others do not list (a map's
    /// values).
    pub name: &'static str,
    /// The type of its values.
    pub kind: FormKind,
    /// Whether it is a list (given as repeated `name=value` pairs).
    pub list: bool,
}

/// Decodes and validates an `application/x-www-form-urlencoded` body of a
/// flat object: each field's text is typed by `fields`, other fields are
/// text, the first of repeated non-list fields wins; then the object is
/// validated like a JSON body.
pub fn form<T>(bytes: &[u8], fields: &[FormField]) -> Result<T, ApiError>
where
    T: DeserializeOwned + ValidateJson,
{
    let text = String::from_utf8_lossy(bytes);
    let mut object = Map::new();
    for (name, raw) in params::query_pairs(Some(&text)) {
        insert_typed(&mut object, fields, name.into_owned(), raw.into_owned());
    }
    let value = Value::Object(object);
    let report = validation::check_json::<T>(&value, "body");
    if !report.is_empty() {
        return Err(ApiError::validation(report));
    }
    serde_json::from_value::<T>(value).map_err(|error| {
        ApiError::unreadable_body(format!("does not match the schema: {error}"), "InvalidType")
    })
}

/// Adds the field `name` with the text `raw` to `object`, typed by
/// `fields` (other fields are text): an item of a list, or the field's
/// value when it has none yet (the first of repeated fields wins).
pub(crate) fn insert_typed(
    object: &mut Map<String, Value>,
    fields: &[FormField],
    name: String,
    raw: String,
) {
    insert_below(object, fields, name, &[], raw);
}

/// Adds the text `raw` of the field `name`, or, with keys `below` it
/// (`near`, `lat` of `filter[near][lat]`), of a property of that field's
/// object, typed by `fields`. Keys below a field that is not an
/// [`FormKind::Object`], or below one already given as a value, are left
/// out, as unknown pairs are.
pub(crate) fn insert_below(
    object: &mut Map<String, Value>,
    fields: &[FormField],
    name: String,
    below: &[&str],
    raw: String,
) {
    let field = fields
        .iter()
        .find(|f| f.name == name)
        .or_else(|| fields.iter().find(|f| f.name == "*"));
    if let [key, rest @ ..] = below {
        let Some(FormField {
            kind: FormKind::Object(properties),
            list: false,
            ..
        }) = field
        else {
            return;
        };
        let entry = object
            .entry(name)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(nested) = entry {
            insert_below(nested, properties, (*key).to_owned(), rest, raw);
        }
        return;
    }
    let value = match field {
        Some(field) => typed(field.kind, raw),
        None => Value::String(raw),
    };
    match field {
        Some(field) if field.list => {
            let entry = object
                .entry(name)
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = entry {
                items.push(value);
            }
        }
        _ => {
            object.entry(name).or_insert(value);
        }
    }
}

/// The JSON value a form field's text stands for; text that is not of the
/// field's type stays text, for validation to report.
fn typed(kind: FormKind, raw: String) -> Value {
    match kind {
        FormKind::Integer => {
            if let Ok(n) = raw.parse::<i64>() {
                return Value::Number(n.into());
            }
            if let Ok(n) = raw.parse::<u64>() {
                return Value::Number(n.into());
            }
        }
        FormKind::Number => {
            if let Some(n) = raw.parse::<f64>().ok().and_then(Number::from_f64) {
                return Value::Number(n);
            }
        }
        FormKind::Boolean => match raw.as_str() {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ => {}
        },
        FormKind::Json | FormKind::Object(_) => {
            if let Ok(value) = serde_json::from_str(&raw) {
                return value;
            }
        }
        FormKind::Text => {}
    }
    Value::String(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &[&str] = &["application/json"];

    fn typed(content_type: Option<&str>, length: Option<usize>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(content_type) = content_type {
            headers.insert(CONTENT_TYPE, content_type.parse().unwrap());
        }
        if let Some(length) = length {
            headers.insert(CONTENT_LENGTH, length.into());
        }
        headers
    }

    /// A body that comes as `chunks`, its size unknown until it ends.
    fn streamed(chunks: &[&'static str]) -> Body {
        let chunks: Vec<Result<Bytes, std::io::Error>> = chunks
            .iter()
            .map(|c| Ok(Bytes::from_static(c.as_bytes())))
            .collect();
        Body::from_stream(futures_util::stream::iter(chunks))
    }

    /// The status and error code of a refusal, or the bytes read.
    async fn read_as(
        body: Body,
        headers: HeaderMap,
        limit: usize,
    ) -> Result<Option<Bytes>, (u16, String)> {
        read(body, &headers, JSON, limit).await.map_err(|e| {
            (
                e.status().as_u16(),
                e.error_code().unwrap_or_default().to_owned(),
            )
        })
    }

    fn refused(status: u16, code: &str) -> Result<Option<Bytes>, (u16, String)> {
        Err((status, code.to_owned()))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_up_to_its_limit() {
        let json = || typed(Some("application/json"), None);
        let read = read_as(Body::from("{}"), json(), 2).await;
        assert_eq!(read, Ok(Some(Bytes::from_static(b"{}"))));
        let read = read_as(
            streamed(&["{", "}"]),
            typed(Some("application/json"), Some(2)),
            2,
        )
        .await;
        assert_eq!(
            read,
            Ok(Some(Bytes::from_static(b"{}"))),
            "a declared length of the limit"
        );
        let too_long = typed(Some("application/json"), Some(3));
        assert_eq!(
            read_as(Body::from("{}"), too_long, 2).await,
            refused(413, "PayloadTooLarge")
        );
        assert_eq!(
            read_as(streamed(&["{", " ", "}"]), json(), 2).await,
            refused(413, "PayloadTooLarge")
        );
        let failing = Body::from_stream(futures_util::stream::iter([
            Ok(Bytes::from_static(b"{")),
            Err(std::io::Error::other("connection reset")),
        ]));
        let read = read_as(failing, json(), 100).await;
        assert_eq!(
            read.map_err(|(status, _)| status),
            Err(400),
            "unreadable, not too large"
        );
    }

    #[tokio::test]
    async fn a_body_without_bytes_is_no_body_and_bytes_need_a_content_type() {
        assert_eq!(read_as(Body::empty(), HeaderMap::new(), 10).await, Ok(None));
        assert_eq!(
            read_as(streamed(&[""]), HeaderMap::new(), 10).await,
            Ok(None)
        );
        let untyped = refused(415, "InvalidContentType");
        assert_eq!(
            read_as(Body::from("{}"), HeaderMap::new(), 10).await,
            untyped
        );
        assert_eq!(
            read_as(streamed(&["{}"]), HeaderMap::new(), 10).await,
            untyped
        );
        let text = typed(Some("text/plain"), None);
        assert_eq!(read_as(Body::from("{}"), text, 10).await, untyped);
    }

    #[test]
    fn a_text_body_must_be_utf8() {
        assert_eq!(
            text(Bytes::from_static("héllo".as_bytes())).unwrap(),
            "héllo"
        );
        let error = text(Bytes::from_static(b"\xff")).unwrap_err();
        assert_eq!(error.problems()[0].error_code, "InvalidFormat");
    }

    #[test]
    fn a_forms_fields_are_typed_and_a_list_keeps_every_value() {
        const FIELDS: &[FormField] = &[
            FormField {
                name: "ids",
                kind: FormKind::Integer,
                list: true,
            },
            FormField {
                name: "on",
                kind: FormKind::Boolean,
                list: false,
            },
            FormField {
                name: "off",
                kind: FormKind::Boolean,
                list: false,
            },
            FormField {
                name: "n",
                kind: FormKind::Number,
                list: false,
            },
        ];
        let body = b"ids=1&ids=2&on=true&off=false&n=1.5&x=y&x=z&on=false";
        let value: Value = form(body, FIELDS).unwrap();
        let expected =
            serde_json::json!({"ids": [1, 2], "on": true, "off": false, "n": 1.5, "x": "y"});
        assert_eq!(value, expected);
        let untyped: Value = form(b"on=yes", FIELDS).unwrap();
        assert_eq!(
            untyped,
            serde_json::json!({"on": "yes"}),
            "left for validation to report"
        );
    }
}
