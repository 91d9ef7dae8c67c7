//! Responses: one per status, each named after its status's HTTP reason, with
//! its body and headers.

use indexmap::IndexMap;
use openapiv3::{ParameterSchemaOrContent, ReferenceOr, StatusCode};

use crate::error::Result;
use crate::ir::{BodyKind, Docs, Response, ResponseHeader, Shape, Status, Ty};
use crate::lower::schemas::SchemaRef;
use crate::names::{Namespace, field_name, type_name};
use crate::parse::Pointer;

use super::bodies::is_event_stream;
use super::operation::OperationLowering;
use super::params::ContentSchema;

impl<'d> OperationLowering<'_, 'd> {
    pub(super) fn responses(
        &mut self,
        op: &openapiv3::Operation,
        prefix: &str,
    ) -> Result<Vec<Response>> {
        let at = self.at.push("responses");
        let mut entries: Vec<(Status, &ReferenceOr<openapiv3::Response>, Pointer)> = op
            .responses
            .responses
            .iter()
            .map(|(code, response)| {
                let status = match code {
                    StatusCode::Code(n) => Status::Code(*n),
                    StatusCode::Range(n) => Status::Range(*n),
                };
                (status, response, at.push(&code.to_string()))
            })
            .collect();
        if let Some(default) = &op.responses.default {
            entries.push((Status::Default, default, at.push("default")));
        }
        if entries.is_empty() {
            return Ok(vec![undocumented()]);
        }
        let successes = entries.iter().filter(|(s, _, _)| s.is_success()).count();
        let mut names = Namespace::default();
        let mut responses = Vec::with_capacity(entries.len());
        for (status, response, response_at) in entries {
            let resolved = self.doc.resolve(response, &response_at)?;
            let response_at = resolved.pointer.clone();
            let response = resolved.value;
            if !response.links.is_empty() {
                self.skipped.links.push(response_at.push("links"));
            }
            let name = names.claim(status_name(status));
            let hint = if status.is_success() && successes == 1 {
                format!("{prefix}Response")
            } else {
                format!("{prefix}{name}Response")
            };
            // Only a result streams: an error answer is read whole.
            let events = if status.is_success() {
                self.events(&response.content, &response_at.push("content"), &hint)?
            } else {
                None
            };
            // A stream beside other media types is read by its own method:
            // the body is the others'.
            let content: IndexMap<String, openapiv3::MediaType> = response
                .content
                .iter()
                .filter(|(media_type, _)| {
                    response.content.len() == 1 || !is_event_stream(media_type)
                })
                .map(|(media_type, media)| (media_type.clone(), media.clone()))
                .collect();
            let (body, media_types) = if content.is_empty() {
                (None, Vec::new())
            } else {
                let (kind, media_types) =
                    self.body_kind(&content, &response_at.push("content"), &hint, false)?;
                (Some(kind), media_types)
            };
            let headers = self.response_headers(&response, &response_at, prefix)?;
            responses.push(Response {
                status,
                name,
                docs: Docs {
                    description: Some(response.description.clone()),
                    example: self.media_example(&response.content, &response_at.push("content"))?,
                    ..Docs::default()
                },
                headers,
                media_types,
                body,
                events,
                component: response_at.component_name("responses"),
            });
        }
        Ok(responses)
    }

    /// The headers a response declares, but `Content-Type` (its media type
    /// says it), each with a field name of its own.
    fn response_headers(
        &mut self,
        response: &openapiv3::Response,
        response_at: &Pointer,
        prefix: &str,
    ) -> Result<Vec<ResponseHeader>> {
        let mut header_names = Namespace::with_reserved(&["body"]);
        let mut headers = Vec::new();
        for (wire, header) in &response.headers {
            if wire.eq_ignore_ascii_case("content-type") {
                continue; // OpenAPI says this header is ignored: the media type says it.
            }
            let header_at = response_at.push("headers").push(wire);
            let header = self.doc.resolve(header, &header_at)?;
            let mut description = header.value.description.clone();
            // A header whose `content` is JSON is its JSON text, as a
            // parameter's is; another media type's schema is read as
            // `schema` would be.
            let schema = match &header.value.format {
                ParameterSchemaOrContent::Schema(schema) => {
                    Some((schema, header.pointer.push("schema")))
                }
                ParameterSchemaOrContent::Content(content) => {
                    match self.content_schema(content, &header.pointer.push("content"))? {
                        ContentSchema {
                            schema,
                            json: false,
                        } => schema,
                        ContentSchema { json: true, .. } => {
                            let note = "Its JSON text, as the document's `content` says.";
                            description = Some(match description {
                                Some(text) => format!("{text}\n\n{note}"),
                                None => note.to_owned(),
                            });
                            None
                        }
                    }
                }
            };
            let shape = match schema {
                Some((schema, at)) => self.types.shape(
                    SchemaRef::from(schema),
                    &at,
                    &format!("{prefix}{}", type_name(wire)),
                )?,
                None => Shape::of(Ty::Primitive(crate::ir::Primitive::String)),
            };
            headers.push(ResponseHeader {
                wire: wire.clone(),
                field: header_names.claim(field_name(wire)),
                required: header.value.required,
                shape,
                docs: Docs {
                    description,
                    ..Docs::default()
                },
            });
        }
        Ok(headers)
    }
}

/// `201` → `Created`: the variant names HTTP gives statuses.
pub(super) fn status_name(status: Status) -> String {
    let code = match status {
        Status::Code(code) => code,
        Status::Range(range) => return format!("Status{range}xx"),
        Status::Default => return "Default".to_owned(),
    };
    match http_reason(code) {
        // A variant may be called `Ok`: it is never in scope unqualified.
        Some("Ok") => "Ok".to_owned(),
        Some(reason) => type_name(reason),
        None => format!("Status{code}"),
    }
}

pub(super) fn http_reason(code: u16) -> Option<&'static str> {
    Some(match code {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "Non Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        207 => "Multi Status",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Payload Too Large",
        414 => "Uri Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        422 => "Unprocessable Entity",
        423 => "Locked",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

/// `responses: {}` documents nothing: any status, any media type (`*/*`, so
/// no `Accept` is narrowed), its body as bytes.
fn undocumented() -> Response {
    Response {
        status: Status::Default,
        name: status_name(Status::Default),
        docs: Docs {
            description: Some("Not documented (`responses: {}`): the body as bytes.".to_owned()),
            ..Docs::default()
        },
        headers: Vec::new(),
        media_types: vec!["*/*".to_owned()],
        body: Some(BodyKind::Binary),
        events: None,
        component: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::api;

    /// How each response's body is read: text whose schema is structured
    /// is that structure as JSON; a multipart answer is bytes (the client
    /// does not take parts apart), with or without a schema; media types
    /// that encode the body the same are all offered, one that encodes it
    /// otherwise is left out.
    #[test]
    fn reads_each_answer_by_its_media_types() {
        let api = api(concat!(
            "paths:\n  /a:\n    get:\n      responses:\n",
            "        '200': {description: ok, content: {text/plain: {schema: {type: array, items: {type: string}}}}}\n",
            "        '201': {description: ok, content: {multipart/form-data: {schema: {type: object, properties: {a: {type: string}}}}}}\n",
            "        '202': {description: ok, content: {multipart/mixed: {}}}\n",
            "        '203':\n          description: ok\n          content:\n",
            "            application/json: {schema: {type: integer}}\n",
            "            application/octet-stream: {schema: {type: string, format: binary}}\n",
            "            application/problem+json: {schema: {type: integer}}\n",
        ));
        let read: Vec<(Option<&BodyKind>, Vec<&str>)> = api.operations[0]
            .responses
            .iter()
            .map(|r| {
                (
                    r.body.as_ref(),
                    r.media_types.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        let strings = Shape::of(Ty::Array(Box::new(Shape::of(Ty::Primitive(
            crate::ir::Primitive::String,
        )))));
        let integer = Shape::of(Ty::Primitive(crate::ir::Primitive::I64));
        assert_eq!(
            read,
            [
                (Some(&BodyKind::Json(strings)), vec!["text/plain"]),
                (Some(&BodyKind::Binary), vec!["multipart/form-data"]),
                (Some(&BodyKind::Binary), vec!["multipart/mixed"]),
                (
                    Some(&BodyKind::Json(integer)),
                    vec!["application/json", "application/problem+json"]
                ),
            ]
        );
    }

    #[test]
    fn names_statuses() {
        assert_eq!(status_name(Status::Code(200)), "Ok");
        assert_eq!(status_name(Status::Code(201)), "Created");
        assert_eq!(status_name(Status::Code(299)), "Status299");
        assert_eq!(status_name(Status::Range(4)), "Status4xx");
        assert_eq!(status_name(Status::Default), "Default");
    }

    /// A response's variant is named by its status's reason phrase: a user
    /// matches `Response::TooManyRequests`, and a status without a reason
    /// here would become `Status429`, another name in their code.
    #[test]
    fn names_each_status_by_its_http_reason() {
        let expected = [
            (100, "Continue"),
            (101, "SwitchingProtocols"),
            (200, "Ok"),
            (201, "Created"),
            (202, "Accepted"),
            (203, "NonAuthoritativeInformation"),
            (204, "NoContent"),
            (205, "ResetContent"),
            (206, "PartialContent"),
            (207, "MultiStatus"),
            (300, "MultipleChoices"),
            (301, "MovedPermanently"),
            (302, "Found"),
            (303, "SeeOther"),
            (304, "NotModified"),
            (307, "TemporaryRedirect"),
            (308, "PermanentRedirect"),
            (400, "BadRequest"),
            (401, "Unauthorized"),
            (402, "PaymentRequired"),
            (403, "Forbidden"),
            (404, "NotFound"),
            (405, "MethodNotAllowed"),
            (406, "NotAcceptable"),
            (408, "RequestTimeout"),
            (409, "Conflict"),
            (410, "Gone"),
            (411, "LengthRequired"),
            (412, "PreconditionFailed"),
            (413, "PayloadTooLarge"),
            (414, "UriTooLong"),
            (415, "UnsupportedMediaType"),
            (416, "RangeNotSatisfiable"),
            (422, "UnprocessableEntity"),
            (423, "Locked"),
            (428, "PreconditionRequired"),
            (429, "TooManyRequests"),
            (500, "InternalServerError"),
            (501, "NotImplemented"),
            (502, "BadGateway"),
            (503, "ServiceUnavailable"),
            (504, "GatewayTimeout"),
        ];
        let named: Vec<(u16, String)> = expected
            .iter()
            .map(|&(code, _)| (code, status_name(Status::Code(code))))
            .collect();
        let expected: Vec<(u16, String)> = expected
            .iter()
            .map(|&(code, name)| (code, name.to_owned()))
            .collect();
        assert_eq!(named, expected);
        // Codes HTTP gives no reason here keep their number.
        assert_eq!(status_name(Status::Code(418)), "Status418");
    }
}
