//! `ErrorBodyFormat`: how the server stubs write every error they answer.
//!
//! Without an `error-schema` in the codegen settings, errors are RFC 9457
//! problem details (`application/problem+json`, the runtime's
//! `ProblemDetails`). With one, they take that schema's shape, which the IR
//! reads as a table ([`ErrorTable`]: which property holds which part of an
//! error), and the crate states that table as the runtime's `Field`s, so a
//! reader sees what goes where. Every error schema is such a table, this
//! workspace's envelope included: the runtime has no API's format of its
//! own but problem details (D54).

use proc_macro2::TokenStream;
use quote::quote;

use super::context::Server;
use crate::error::Result;
use crate::ir::{ErrorPart, ErrorTable, ProblemPart};

/// The format the settings and the document give the crate's errors.
enum Format {
    /// No `error-schema`: the runtime's `ProblemDetails`.
    ProblemDetails,
    /// An `error-schema`: its properties as a table.
    Table(ErrorTable),
}

fn format(server: &Server<'_>) -> Result<Format> {
    Ok(match &server.cx.target.error_schema {
        None => Format::ProblemDetails,
        Some(schema) => Format::Table(server.cx.api.error_table(schema)?),
    })
}

/// Where the error bodies carry the request id, for the docs of
/// `RequestContext::request_id`: `` `requestId` ``, `` `error.traceId` ``,
/// or none when the error schema has no place for it.
pub(super) fn request_id_place(server: &Server<'_>) -> Result<Option<String>> {
    Ok(match format(server)? {
        Format::ProblemDetails => Some("`instance` (as `urn:request-id:<id>`)".to_owned()),
        Format::Table(table) => first_request_id(&table.fields),
    })
}

/// The first property of a table, in the schema's order and nested ones
/// included, that holds the request id.
fn first_request_id(fields: &[(String, ErrorPart)]) -> Option<String> {
    fields.iter().find_map(|(name, part)| match part {
        ErrorPart::RequestId => Some(format!("`{name}`")),
        ErrorPart::Instance => Some(format!("`{name}` (as `urn:request-id:<id>`)")),
        ErrorPart::Object(inner) => {
            first_request_id(inner).map(|place| format!("`{name}.{}", &place[1..]))
        }
        _ => None,
    })
}

/// How the crate's README shows the error body: what follows "is rendered
/// by `ApiError::render_as` in `ErrorBodyFormat`".
pub(super) fn readme_text(server: &Server<'_>) -> Result<String> {
    Ok(match format(server)? {
        Format::ProblemDetails => "\
, RFC 9457 problem details\n(the document names no error schema), every \
problem of a 400 listed in\n`errors` and the request id in `instance`:

```json
{\"type\": \"about:blank\", \"title\": \"Bad Request\", \"status\": 400,
 \"detail\": \"The request has 2 validation errors.\",
 \"instance\": \"urn:request-id:01J8ZQ6W3K2N5V7X9Y1B3D5F7H\",
 \"errors\": [{\"property\": \"[0].receiveType\", \"detail\": \"must be one of: …\", \"code\": \"InvalidEnumValue\"}]}
```

with `Content-Type: application/problem+json`."
            .to_owned(),
        Format::Table(ErrorTable {
            schema,
            fields,
            media_type,
        }) => format!(
            ", the shape of the\ndocument's `{schema}` (`ErrorBodyFormat::ERROR_FIELDS` says which \
             property\nholds which part of the error):\n\n```json\n{}\n```\n\nwith \
             `Content-Type: {media_type}`.",
            example(&fields)
        ),
    })
}

/// The `ErrorBodyFormat` item of the crate root.
pub(super) fn tokens(server: &Server<'_>) -> Result<TokenStream> {
    let (schema, fields, media_type) = match format(server)? {
        Format::ProblemDetails => {
            return Ok(quote! {
                /// How this API's error responses are written: every error the router answers, its
                /// own included, is rendered with [`ApiError::render_as`] in this format. The
                /// document names no error schema: RFC 9457 problem details
                /// (`application/problem+json`), every problem of a 400 listed in `errors`.
                pub type ErrorBodyFormat = openapi_runtime::server::error::ProblemDetails;
            });
        }
        Format::Table(ErrorTable {
            schema,
            fields,
            media_type,
        }) => (schema, fields, media_type),
    };
    let table = super::super::error_table::fields_tokens(&fields);
    let doc = format!(
        " How this API's error responses are written: every error the router answers, its own \
         included, is rendered with [`ApiError::render_as`] in the shape of the document's \
         `{schema}`, as [`ERROR_FIELDS`](Self::ERROR_FIELDS) says, as `{media_type}`."
    );
    Ok(quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct ErrorBodyFormat;

        impl ErrorBodyFormat {
            /// Each property of the error schema and the part of the error it holds.
            // As the generator lays it out: rustfmt would nest it otherwise.
            #[rustfmt::skip]
            pub const ERROR_FIELDS: &'static [openapi_runtime::error_fields::Field] = &#table;
        }

        impl openapi_runtime::server::error::ErrorFormat for ErrorBodyFormat {
            const CONTENT_TYPE: &'static str = #media_type;

            fn write_body(error: &ApiError, request_id: &RequestId, body: &mut Vec<u8>) {
                use openapi_runtime::server::error::write_fields;
                write_fields(Self::ERROR_FIELDS, error, request_id, body);
            }
        }
    })
}

/// An example body of a table, for the README: a 400 with one problem.
/// Each top-level property, and a list of problems, starts a line.
fn example(fields: &[(String, ErrorPart)]) -> String {
    fn string(text: &str) -> String {
        serde_json::Value::from(text).to_string()
    }
    /// An object whose `{` is at column `column`.
    fn object(fields: &[(String, ErrorPart)], column: usize, top: bool) -> String {
        let mut out = String::from("{");
        for (index, (name, part)) in fields.iter().enumerate() {
            if index > 0 {
                out.push(',');
                if top || matches!(part, ErrorPart::Problems(_)) {
                    out.push('\n');
                    out.push_str(&" ".repeat(column + 1));
                } else {
                    out.push(' ');
                }
            }
            out.push_str(&string(name));
            out.push_str(": ");
            // The column the value starts at: lines after the first are
            // indented in full.
            let at = match out.rsplit_once('\n') {
                Some((_, line)) => line.chars().count(),
                None => column + out.chars().count(),
            };
            out.push_str(&value(part, at));
        }
        out.push('}');
        out
    }
    fn value(part: &ErrorPart, column: usize) -> String {
        match part {
            ErrorPart::Status => "400".to_owned(),
            ErrorPart::Title => string("Bad Request"),
            ErrorPart::Message => string("The request has 1 validation error."),
            ErrorPart::Code => string("InvalidEnumValue"),
            ErrorPart::RequestId => string("01J8ZQ6W3K2N5V7X9Y1B3D5F7H"),
            ErrorPart::Instance => string("urn:request-id:01J8ZQ6W3K2N5V7X9Y1B3D5F7H"),
            ErrorPart::Timestamp => string("2026-03-14T10:02:11Z"),
            ErrorPart::Text(text) => string(text),
            ErrorPart::Problems(fields) => {
                let problem: Vec<String> = fields
                    .iter()
                    .map(|(name, part)| {
                        let value = match part {
                            ProblemPart::Property => "[0].receiveType",
                            ProblemPart::Message => "must be one of: …",
                            ProblemPart::ErrorCode => "InvalidEnumValue",
                        };
                        format!("{}: {}", string(name), string(value))
                    })
                    .collect();
                format!("[{{{}}}]", problem.join(", "))
            }
            ErrorPart::Object(fields) => object(fields, column, false),
        }
    }
    object(fields, 0, true)
}

#[cfg(test)]
mod tests {
    use super::{ErrorPart, ProblemPart, example, first_request_id};

    fn field(name: &str, part: ErrorPart) -> (String, ErrorPart) {
        (name.to_owned(), part)
    }

    #[test]
    fn the_docs_name_the_first_property_that_holds_the_request_id() {
        let nested = field(
            "error",
            ErrorPart::Object(vec![
                field("code", ErrorPart::Code),
                field("traceId", ErrorPart::RequestId),
            ]),
        );
        let instance = field("instance", ErrorPart::Instance);
        assert_eq!(
            first_request_id(&[nested.clone(), instance.clone()]).as_deref(),
            Some("`error.traceId`")
        );
        assert_eq!(
            first_request_id(&[field("status", ErrorPart::Status), instance, nested]).as_deref(),
            Some("`instance` (as `urn:request-id:<id>`)")
        );
        assert_eq!(
            first_request_id(&[field("status", ErrorPart::Status)]),
            None
        );
    }

    #[test]
    fn a_list_of_problems_in_the_first_nested_object_lines_up_under_its_object() {
        let problems = ErrorPart::Problems(vec![
            ("field".to_owned(), ProblemPart::Property),
            ("message".to_owned(), ProblemPart::Message),
        ]);
        let table = [
            field(
                "error",
                ErrorPart::Object(vec![
                    field("code", ErrorPart::Code),
                    field("errors", problems),
                ]),
            ),
            field("requestId", ErrorPart::RequestId),
        ];
        assert_eq!(
            example(&table),
            "{\"error\": {\"code\": \"InvalidEnumValue\",\n           \
             \"errors\": [{\"field\": \"[0].receiveType\", \"message\": \"must be one of: …\"}]},\n \
             \"requestId\": \"01J8ZQ6W3K2N5V7X9Y1B3D5F7H\"}"
        );
    }
}
