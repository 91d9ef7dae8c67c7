//! The error bodies the runtime writes: [`ProblemDetails`] (RFC 9457, its
//! only format of its own, and that of a document that names no error
//! schema) and [`write_fields`], which writes an [`ApiError`] in the shape
//! of any error schema as a table of [`Field`]s (`crate::error_fields`). A generated server-stubs
//! crate states its document's table as its `ErrorBodyFormat`: an API's
//! envelope is generated, never a type of the runtime.

use std::io::Write as _;

use crate::error_fields::{Field, Part, ProblemPart};
use crate::server::error::{ApiError, ErrorFormat, Timestamp};
use crate::server::request_id::RequestId;

/// Writes `error` as a JSON object with `fields`, in their order.
pub fn write_fields(
    fields: &[Field],
    error: &ApiError,
    request_id: &RequestId,
    body: &mut Vec<u8>,
) {
    body.push(b'{');
    for (index, (name, part)) in fields.iter().enumerate() {
        if index > 0 {
            body.push(b',');
        }
        write_string(body, name);
        body.push(b':');
        write_part(*part, error, request_id, body);
    }
    body.push(b'}');
}

fn write_part(part: Part, error: &ApiError, request_id: &RequestId, body: &mut Vec<u8>) {
    let reason = error.status().canonical_reason().unwrap_or("Error");
    match part {
        Part::Status => write_number(body, error.status().as_u16()),
        Part::Title => write_string(body, reason),
        Part::Message => write_string(body, error.message()),
        Part::Code => write_string(body, error.error_code().unwrap_or(reason)),
        Part::RequestId => write_string(body, request_id.as_str()),
        Part::Instance => write_string(body, &format!("urn:request-id:{}", request_id.as_str())),
        Part::Timestamp => write_string(body, &Timestamp::now().to_string()),
        Part::Text(text) => write_string(body, text),
        Part::Problems(fields) => {
            body.push(b'[');
            for (index, problem) in error.listed_problems().iter().enumerate() {
                if index > 0 {
                    body.push(b',');
                }
                body.push(b'{');
                for (position, (name, part)) in fields.iter().enumerate() {
                    if position > 0 {
                        body.push(b',');
                    }
                    write_string(body, name);
                    body.push(b':');
                    write_string(
                        body,
                        match part {
                            ProblemPart::Property => &problem.property,
                            ProblemPart::Message => &problem.message,
                            ProblemPart::ErrorCode => &problem.error_code,
                        },
                    );
                }
                body.push(b'}');
            }
            body.push(b']');
        }
        Part::Object(fields) => write_fields(fields, error, request_id, body),
    }
}

// Writing to a `Vec` does not fail, nor does serialising a string.
fn write_string(body: &mut Vec<u8>, text: &str) {
    let _ = serde_json::to_writer(&mut *body, text);
}

fn write_number(body: &mut Vec<u8>, number: u16) {
    let _ = write!(body, "{number}");
}

/// RFC 9457 problem details, as `application/problem+json`:
///
/// ```json
/// {"type": "about:blank", "title": "Bad Request", "status": 400,
///  "detail": "The request has 1 validation error.",
///  "instance": "urn:request-id:01J8ZQ6W3K2N5V7X9Y1B3D5F7H",
///  "errors": [{"property": "sku", "detail": "is required", "code": "Required"}]}
/// ```
///
/// `type` is `about:blank` (the status says what happened), `title` the
/// status's reason phrase, `detail` [`ApiError::message`], `instance` the
/// request id (the `X-Request-Id` header's) as a URI, and the extension
/// `errors` every problem ([`ApiError::listed_problems`]): the property,
/// parameter or header it is about, what is wrong and its error code.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProblemDetails;

impl ProblemDetails {
    /// The fields, in the order they are written.
    pub const FIELDS: &'static [Field] = &[
        ("type", Part::Text("about:blank")),
        ("title", Part::Title),
        ("status", Part::Status),
        ("detail", Part::Message),
        ("instance", Part::Instance),
        (
            "errors",
            Part::Problems(&[
                ("property", ProblemPart::Property),
                ("detail", ProblemPart::Message),
                ("code", ProblemPart::ErrorCode),
            ]),
        ),
    ];
}

impl ErrorFormat for ProblemDetails {
    const CONTENT_TYPE: &'static str = "application/problem+json";

    fn write_body(error: &ApiError, request_id: &RequestId, body: &mut Vec<u8>) {
        write_fields(Self::FIELDS, error, request_id, body);
    }
}

#[cfg(test)]
mod tests {
    use http::StatusCode;

    use super::*;
    use crate::models::validation::Problem;

    fn id() -> RequestId {
        RequestId::from_headers(&{
            let mut headers = http::HeaderMap::new();
            headers.insert(
                "x-request-id",
                "01J8ZQ6W3K2N5V7X9Y1B3D5F7H".parse().unwrap(),
            );
            headers
        })
    }

    fn written(fields: &[Field], error: &ApiError) -> serde_json::Value {
        let mut body = Vec::new();
        write_fields(fields, error, &id(), &mut body);
        serde_json::from_slice(&body).expect("valid JSON")
    }

    #[test]
    fn problem_details_list_every_problem() {
        let error = ApiError::bad_request([
            Problem {
                property: "sku".to_owned(),
                message: "is required".to_owned(),
                error_code: "Required".to_owned(),
            },
            Problem {
                property: "quantity".to_owned(),
                message: "must be at least 1".to_owned(),
                error_code: "Minimum".to_owned(),
            },
        ]);
        let body = written(ProblemDetails::FIELDS, &error);
        assert_eq!(
            body,
            serde_json::json!({
                "type": "about:blank",
                "title": "Bad Request",
                "status": 400,
                "detail": "The request has 2 validation errors.",
                "instance": "urn:request-id:01J8ZQ6W3K2N5V7X9Y1B3D5F7H",
                "errors": [
                    {"property": "sku", "detail": "is required", "code": "Required"},
                    {"property": "quantity", "detail": "must be at least 1", "code": "Minimum"},
                ],
            })
        );
        let response = error.render_as::<ProblemDetails>(&id(), None);
        assert_eq!(
            response.headers()[http::header::CONTENT_TYPE],
            "application/problem+json"
        );
    }

    #[test]
    fn an_error_without_an_api_is_problem_details() {
        use axum::response::IntoResponse as _;
        let response = ApiError::route_not_found("/nowhere").into_response();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            response.headers()[http::header::CONTENT_TYPE],
            "application/problem+json"
        );
        assert!(response.headers().contains_key("x-request-id"));
    }

    #[test]
    fn a_not_found_is_one_problem_about_the_path() {
        let body = written(
            ProblemDetails::FIELDS,
            &ApiError::route_not_found("/nowhere"),
        );
        assert_eq!(body["status"], 404);
        assert_eq!(body["title"], "Not Found");
        assert_eq!(body["detail"], "No operation has the path /nowhere.");
        assert_eq!(
            body["errors"],
            serde_json::json!([{"property": "path", "detail": "No operation has the path /nowhere.", "code": "RouteNotFound"}])
        );
    }

    #[test]
    fn fields_can_state_the_envelope_and_any_other_shape() {
        const ENVELOPE: &[Field] = &[
            (
                "error",
                Part::Object(&[
                    ("code", Part::Status),
                    ("message", Part::Message),
                    (
                        "errors",
                        Part::Problems(&[
                            ("property", ProblemPart::Property),
                            ("message", ProblemPart::Message),
                            ("errorCode", ProblemPart::ErrorCode),
                        ]),
                    ),
                ]),
            ),
            ("requestId", Part::RequestId),
            ("timestamp", Part::Timestamp),
        ];
        let error = ApiError::new(StatusCode::CONFLICT, "Duplicate", "It \"exists\" ✓.").at("sku");
        let mut body = Vec::new();
        write_fields(ENVELOPE, &error, &id(), &mut body);
        let body = String::from_utf8(body).unwrap();
        // Byte for byte, in the table's order, without spaces; the time is
        // that of rendering, to the second.
        let (head, time) = body.split_once(r#","timestamp":""#).unwrap();
        assert_eq!(
            head,
            r#"{"error":{"code":409,"message":"It \"exists\" ✓.","errors":[{"property":"sku","message":"It \"exists\" ✓.","errorCode":"Duplicate"}]},"requestId":"01J8ZQ6W3K2N5V7X9Y1B3D5F7H""#
        );
        let time = time.strip_suffix(r#""}"#).unwrap();
        assert_eq!(time.len(), 20, "{time}");
        assert!(time.ends_with('Z') && time.as_bytes()[10] == b'T', "{time}");
        let mut none = Vec::new();
        write_fields(
            ENVELOPE,
            &ApiError::validation(crate::models::validation::Report::new()),
            &id(),
            &mut none,
        );
        assert!(
            String::from_utf8(none)
                .unwrap()
                .contains(r#","errors":[]},"#),
            "an error without problems lists none"
        );

        let other: &[Field] = &[("code", Part::Code), ("title", Part::Title)];
        assert_eq!(
            written(other, &error),
            serde_json::json!({"code": "Duplicate", "title": "Conflict"})
        );
    }
}
