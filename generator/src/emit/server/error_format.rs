//! `ErrorBodyFormat`: how the server stubs write every error they answer.
//!
//! Without an `error-schema` in the codegen settings, errors are RFC 9457
//! problem details (`application/problem+json`, the runtime's
//! `ProblemDetails`). With one, they take that schema's shape: each of its
//! properties is matched by name to a part of the error (its status,
//! message, error code, problems, the request id, the time, …), and the
//! crate states the result as a table of the runtime's `Field`s, so a
//! reader sees what goes where. Every error schema is such a table, this
//! workspace's envelope included: the runtime has no API's format of its
//! own but problem details (D54). A required property that matches nothing
//! is an error naming it: the body would not be valid otherwise.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::Server;
use crate::error::{Error, Result};
use crate::ir::{Field, Primitive, Shape, Ty, TypeDef, TypeKind};

/// A part of an error a property can hold (the runtime's `Part`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Status,
    Title,
    Message,
    Code,
    RequestId,
    Instance,
    Timestamp,
    Text(&'static str),
    Problems(Vec<(String, ProblemPart)>),
    Object(Vec<(String, Part)>),
}

/// A part of one problem (the runtime's `ProblemPart`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProblemPart {
    Property,
    Message,
    ErrorCode,
}

/// The format the settings and the document give the crate's errors.
enum Format {
    /// No `error-schema`: the runtime's `ProblemDetails`.
    ProblemDetails,
    /// An `error-schema`: its properties as a table.
    Table {
        schema: String,
        fields: Vec<(String, Part)>,
        media_type: String,
    },
}

fn format(server: &Server<'_>) -> Result<Format> {
    let Some(schema) = &server.cx.target.error_schema else {
        return Ok(Format::ProblemDetails);
    };
    let def = error_type(server, schema)?;
    let TypeKind::Struct(s) = &def.kind else {
        return Err(Error::unsupported(
            server.source(),
            &def.origin,
            "the error schema must be an object with properties",
        ));
    };
    let fields = object_fields(server, def, &s.fields, &[def.name.as_str()])?;
    Ok(Format::Table {
        schema: schema.clone(),
        fields,
        media_type: media_type(server, def),
    })
}

/// Where the error bodies carry the request id, for the docs of
/// `RequestContext::request_id`: `` `requestId` ``, `` `error.traceId` ``,
/// or none when the error schema has no place for it.
pub(super) fn request_id_place(server: &Server<'_>) -> Result<Option<String>> {
    Ok(match format(server)? {
        Format::ProblemDetails => Some("`instance` (as `urn:request-id:<id>`)".to_owned()),
        Format::Table { fields, .. } => first_request_id(&fields),
    })
}

/// The first property of a table, in the schema's order and nested ones
/// included, that holds the request id.
fn first_request_id(fields: &[(String, Part)]) -> Option<String> {
    fields.iter().find_map(|(name, part)| match part {
        Part::RequestId => Some(format!("`{name}`")),
        Part::Instance => Some(format!("`{name}` (as `urn:request-id:<id>`)")),
        Part::Object(inner) => {
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
        Format::Table {
            schema,
            fields,
            media_type,
        } => format!(
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
        Format::Table {
            schema,
            fields,
            media_type,
        } => (schema, fields, media_type),
    };
    let table = fields_tokens(&fields);
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
            pub const ERROR_FIELDS: &'static [openapi_runtime::server::error::Field] = &#table;
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

/// The type of `components.schemas.<schema>`.
fn error_type<'a>(server: &Server<'a>, schema: &str) -> Result<&'a TypeDef> {
    let api = server.cx.api;
    api.types
        .iter()
        .find(|t| t.schema_name.as_deref() == Some(schema))
        .ok_or_else(|| {
            Error::invalid(
                &api.source,
                &crate::parse::Pointer::root().push("components").push("schemas"),
                format!("the codegen settings name `{schema}` as the error schema, but the document has no such schema"),
            )
        })
}

/// The media type the document gives error responses of `def`: a JSON one
/// (`application/problem+json`, say) when it gives one, else `application/json`.
fn media_type(server: &Server<'_>, def: &TypeDef) -> String {
    server
        .cx
        .api
        .operations
        .iter()
        .flat_map(|op| &op.responses)
        .filter(|r| {
            matches!(&r.body, Some(crate::ir::BodyKind::Json(shape))
                if matches!(&shape.ty, Ty::Named(name) if *name == def.name))
        })
        .flat_map(|r| &r.media_types)
        .find(|m| {
            let m = m.to_ascii_lowercase();
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
        .cloned()
        .unwrap_or_else(|| "application/json".to_owned())
}

/// `requestId` → `requestid`: names compared without case or separators.
fn simple(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The struct of a named type, following aliases.
fn struct_of<'a>(server: &Server<'a>, shape: &Shape) -> Option<(&'a TypeDef, &'a [Field])> {
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let def = server.cx.api.type_named(name)?;
    match &def.kind {
        TypeKind::Struct(s) => Some((def, &s.fields)),
        TypeKind::Alias(inner) | TypeKind::Newtype(inner) => {
            struct_of(server, inner).map(|(_, fields)| (def, fields))
        }
        _ => None,
    }
}

/// The fields of an error object: every property that matches a part, in
/// the schema's order. `within` names the objects being read, outermost
/// first, `def` last.
fn object_fields(
    server: &Server<'_>,
    def: &TypeDef,
    fields: &[Field],
    within: &[&str],
) -> Result<Vec<(String, Part)>> {
    let mut out = Vec::new();
    for field in fields {
        match part(server, field, within)? {
            Some(part) => out.push((field.wire.clone(), part)),
            None if field.required => {
                return Err(Error::unsupported(
                    server.source(),
                    &def.origin.push("properties").push(&field.wire),
                    format!(
                        "the error schema's required property `{}` matches no part of an error; \
                         the server stubs fill properties named like status/code (an integer), \
                         code/errorCode, message/detail, title, type, instance, requestId/traceId, \
                         timestamp, an object of those, or errors/problems/details (an array of \
                         objects with property/field, message/detail and code/errorCode)",
                        field.wire
                    ),
                ));
            }
            None => {}
        }
    }
    Ok(out)
}

/// What a property of an error object holds, by its name and type.
fn part(server: &Server<'_>, field: &Field, within: &[&str]) -> Result<Option<Part>> {
    let name = simple(&field.wire);
    let integer = matches!(
        &field.shape.ty,
        Ty::Primitive(
            Primitive::I16
                | Primitive::I32
                | Primitive::I64
                | Primitive::U16
                | Primitive::U32
                | Primitive::U64
        )
    );
    let string = matches!(
        &field.shape.ty,
        Ty::Primitive(Primitive::String | Primitive::DateTime)
    );
    if integer {
        return Ok(matches!(
            name.as_str(),
            "status" | "code" | "statuscode" | "httpstatus" | "httpcode"
        )
        .then_some(Part::Status));
    }
    if string {
        return Ok(match name.as_str() {
            "message" | "detail" | "description" | "errormessage" | "msg" => Some(Part::Message),
            "title" | "status" | "reason" => Some(Part::Title),
            "code" | "errorcode" | "error" => Some(Part::Code),
            "type" => Some(Part::Text("about:blank")),
            "instance" => Some(Part::Instance),
            "requestid" | "traceid" | "correlationid" => Some(Part::RequestId),
            "timestamp" | "time" | "datetime" | "occurredat" => Some(Part::Timestamp),
            _ => None,
        });
    }
    if let Ty::Array(item) = &field.shape.ty {
        let listed = matches!(
            name.as_str(),
            "errors" | "problems" | "details" | "violations" | "invalidparams" | "issues"
        );
        return match struct_of(server, item) {
            Some((def, fields)) if listed => problem_fields(server, def, fields).map(Some),
            _ => Ok(None),
        };
    }
    match struct_of(server, &field.shape) {
        // A nested object (the envelope's `error`). One that holds itself
        // (a `cause` of the same type) is left out: the error has one of
        // each part, which a copy in its own cause would only repeat.
        Some((def, fields)) if !within.contains(&def.name.as_str()) => {
            let within = [within, &[def.name.as_str()]].concat();
            let fields = object_fields(server, def, fields, &within)?;
            Ok((!fields.is_empty()).then_some(Part::Object(fields)))
        }
        _ => Ok(None),
    }
}

/// The fields of one problem in an error's list.
fn problem_fields(server: &Server<'_>, def: &TypeDef, fields: &[Field]) -> Result<Part> {
    let mut out = Vec::new();
    for field in fields {
        let string = matches!(&field.shape.ty, Ty::Primitive(Primitive::String));
        let part = match simple(&field.wire).as_str() {
            _ if !string => None,
            "property" | "field" | "name" | "path" | "pointer" | "parameter" | "param"
            | "location" => Some(ProblemPart::Property),
            "message" | "detail" | "description" | "reason" | "msg" => Some(ProblemPart::Message),
            "errorcode" | "code" | "type" | "rule" => Some(ProblemPart::ErrorCode),
            _ => None,
        };
        match part {
            Some(part) => out.push((field.wire.clone(), part)),
            None if field.required => {
                return Err(Error::unsupported(
                    server.source(),
                    &def.origin.push("properties").push(&field.wire),
                    format!(
                        "the error schema's problems have a required property `{}` that matches \
                         no part of a problem (property/field, message/detail, code/errorCode, \
                         all strings)",
                        field.wire
                    ),
                ));
            }
            None => {}
        }
    }
    Ok(Part::Problems(out))
}

/// An example body of a table, for the README: a 400 with one problem.
/// Each top-level property, and a list of problems, starts a line.
fn example(fields: &[(String, Part)]) -> String {
    fn string(text: &str) -> String {
        serde_json::Value::from(text).to_string()
    }
    /// An object whose `{` is at column `column`.
    fn object(fields: &[(String, Part)], column: usize, top: bool) -> String {
        let mut out = String::from("{");
        for (index, (name, part)) in fields.iter().enumerate() {
            if index > 0 {
                out.push(',');
                if top || matches!(part, Part::Problems(_)) {
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
    fn value(part: &Part, column: usize) -> String {
        match part {
            Part::Status => "400".to_owned(),
            Part::Title => string("Bad Request"),
            Part::Message => string("The request has 1 validation error."),
            Part::Code => string("InvalidEnumValue"),
            Part::RequestId => string("01J8ZQ6W3K2N5V7X9Y1B3D5F7H"),
            Part::Instance => string("urn:request-id:01J8ZQ6W3K2N5V7X9Y1B3D5F7H"),
            Part::Timestamp => string("2026-03-14T10:02:11Z"),
            Part::Text(text) => string(text),
            Part::Problems(fields) => {
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
            Part::Object(fields) => object(fields, column, false),
        }
    }
    object(fields, 0, true)
}

/// The table as the runtime's `&[Field]` expression.
fn fields_tokens(fields: &[(String, Part)]) -> TokenStream {
    let entries = fields.iter().map(|(name, part)| {
        let part = part_tokens(part);
        quote!((#name, #part))
    });
    quote!([#(#entries),*])
}

fn part_tokens(part: &Part) -> TokenStream {
    let runtime = quote!(openapi_runtime::server::error);
    match part {
        Part::Status => quote!(#runtime::Part::Status),
        Part::Title => quote!(#runtime::Part::Title),
        Part::Message => quote!(#runtime::Part::Message),
        Part::Code => quote!(#runtime::Part::Code),
        Part::RequestId => quote!(#runtime::Part::RequestId),
        Part::Instance => quote!(#runtime::Part::Instance),
        Part::Timestamp => quote!(#runtime::Part::Timestamp),
        Part::Text(text) => quote!(#runtime::Part::Text(#text)),
        Part::Problems(fields) => {
            let entries = fields.iter().map(|(name, part)| {
                let part = match part {
                    ProblemPart::Property => quote!(Property),
                    ProblemPart::Message => quote!(Message),
                    ProblemPart::ErrorCode => quote!(ErrorCode),
                };
                quote!((#name, #runtime::ProblemPart::#part))
            });
            quote!(#runtime::Part::Problems(&[#(#entries),*]))
        }
        Part::Object(fields) => {
            let table = fields_tokens(fields);
            quote!(#runtime::Part::Object(&#table))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Format, Part, ProblemPart, Server, example, first_request_id, format};
    use crate::config::Target;
    use crate::emit::Context;
    use crate::ir::{Api, TypeKind};

    /// The table the settings' `error-schema: Failure` makes of a document
    /// with these `components.schemas`, or the error, as the user reads it.
    fn table(schemas: &str) -> Result<Vec<(String, Part)>, String> {
        let api = with_schemas(schemas);
        let mut target = Target::standalone("t.yaml".into(), "t");
        target.error_schema = Some("Failure".to_owned());
        let cx = Context {
            api: &api,
            target: &target,
            command: "",
            client_example: None,
        };
        let types = super::super::rust_types();
        let server = Server::new(&cx, &types).map_err(|e| e.to_string())?;
        match format(&server).map_err(|e| e.to_string())? {
            Format::Table { fields, .. } => Ok(fields),
            Format::ProblemDetails => Err("no table".to_owned()),
        }
    }

    /// A document with no paths and these `components.schemas`, lowered.
    fn with_schemas(schemas: &str) -> Api {
        crate::testing::api(&format!("paths: {{}}\ncomponents:\n  schemas:\n{schemas}"))
    }

    fn field(name: &str, part: Part) -> (String, Part) {
        (name.to_owned(), part)
    }

    #[test]
    fn the_docs_name_the_first_property_that_holds_the_request_id() {
        let nested = field(
            "error",
            Part::Object(vec![
                field("code", Part::Code),
                field("traceId", Part::RequestId),
            ]),
        );
        let instance = field("instance", Part::Instance);
        assert_eq!(
            first_request_id(&[nested.clone(), instance.clone()]).as_deref(),
            Some("`error.traceId`")
        );
        assert_eq!(
            first_request_id(&[field("status", Part::Status), instance, nested]).as_deref(),
            Some("`instance` (as `urn:request-id:<id>`)")
        );
        assert_eq!(first_request_id(&[field("status", Part::Status)]), None);
    }

    #[test]
    fn a_list_of_problems_in_the_first_nested_object_lines_up_under_its_object() {
        let problems = Part::Problems(vec![
            ("field".to_owned(), ProblemPart::Property),
            ("message".to_owned(), ProblemPart::Message),
        ]);
        let table = [
            field(
                "error",
                Part::Object(vec![field("code", Part::Code), field("errors", problems)]),
            ),
            field("requestId", Part::RequestId),
        ];
        assert_eq!(
            example(&table),
            "{\"error\": {\"code\": \"InvalidEnumValue\",\n           \
             \"errors\": [{\"field\": \"[0].receiveType\", \"message\": \"must be one of: …\"}]},\n \
             \"requestId\": \"01J8ZQ6W3K2N5V7X9Y1B3D5F7H\"}"
        );
    }

    #[test]
    fn a_nested_object_that_copies_an_earlier_one_is_read_through_its_alias() {
        // `Failure.error` is written out as `Device.fault` is: lowering
        // makes it an alias of `DeviceFault`, the first copy.
        let schemas = "
    Device:
      type: object
      properties:
        fault: {type: object, properties: {code: {type: string}, message: {type: string}}}
    Failure:
      type: object
      properties:
        error: {type: object, properties: {code: {type: string}, message: {type: string}}}
";
        let api = with_schemas(schemas);
        let error = api.type_named("FailureError").map(|def| &def.kind);
        assert!(matches!(error, Some(TypeKind::Alias(_))), "{error:?}");
        assert_eq!(
            table(schemas),
            Ok(vec![field(
                "error",
                Part::Object(vec![
                    field("code", Part::Code),
                    field("message", Part::Message)
                ])
            )])
        );
    }

    #[test]
    fn an_object_that_holds_itself_is_left_out_where_it_recurs() {
        let schemas = "
    Failure:
      type: object
      properties:
        status: {type: integer}
        cause: {$ref: '#/components/schemas/Failure'}
        error: {$ref: '#/components/schemas/Detail'}
    Detail:
      type: object
      properties:
        message: {type: string}
        previous: {$ref: '#/components/schemas/Failure'}
";
        assert_eq!(
            table(schemas),
            Ok(vec![
                field("status", Part::Status),
                field("error", Part::Object(vec![field("message", Part::Message)])),
            ])
        );
    }

    #[test]
    fn a_problem_takes_only_strings() {
        let schemas = "
    Failure:
      type: object
      properties:
        errors:
          type: array
          items:
            type: object
            properties:
              field: {type: string}
              code: {type: integer}
";
        assert_eq!(
            table(schemas),
            Ok(vec![field(
                "errors",
                Part::Problems(vec![("field".to_owned(), ProblemPart::Property)])
            )])
        );
    }

    #[test]
    fn a_required_property_that_matches_no_part_is_an_error_naming_it() {
        let top = table(
            "
    Failure:
      type: object
      required: [hint]
      properties:
        message: {type: string}
        hint: {type: string}
",
        )
        .unwrap_err();
        assert!(
            top.contains("#/components/schemas/Failure/properties/hint"),
            "{top}"
        );
        assert!(
            top.contains("required property `hint` matches no part of an error"),
            "{top}"
        );
        let problem = table(
            "
    Failure:
      type: object
      properties:
        errors:
          type: array
          items:
            type: object
            required: [severity]
            properties:
              field: {type: string}
              severity: {type: integer}
",
        )
        .unwrap_err();
        assert!(problem.contains("/properties/severity"), "{problem}");
        assert!(
            problem.contains("problems have a required property `severity`"),
            "{problem}"
        );
    }
}
