//! The error schema as a table: which property of the schema the codegen
//! settings name (`error-schema`) holds which part of an error (its status,
//! message, error code, problems, the request id, the time, …), matched by
//! name and type. The server stubs write every error by it (their
//! `ErrorBodyFormat`, the runtime's `Field`s); a required property that
//! matches nothing is an error naming it, since a body without it would not
//! be valid.

use super::{Api, Field, Primitive, Shape, Ty, TypeDef, TypeKind, unwrapped};
use crate::error::{Error, Result};

/// An error schema read as a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorTable {
    /// The schema's name in `components.schemas`.
    pub schema: String,
    /// Each property that holds a part of an error, in the schema's order.
    pub fields: Vec<(String, ErrorPart)>,
    /// The media type the document gives error bodies of the schema: a JSON
    /// one (`application/problem+json`, say) when it gives one, else
    /// `application/json`.
    pub media_type: String,
}

/// A part of an error a property can hold (the runtime's `Part`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorPart {
    /// The HTTP status, as a number.
    Status,
    /// The status's reason phrase.
    Title,
    /// The summary of the error.
    Message,
    /// The error code.
    Code,
    /// The request id.
    RequestId,
    /// The request id as `urn:request-id:<id>`.
    Instance,
    /// The time the error was written.
    Timestamp,
    /// A fixed text (`type`: `about:blank`).
    Text(&'static str),
    /// The problems of a 400, an object each with these properties.
    Problems(Vec<(String, ProblemPart)>),
    /// A nested object (an envelope's `error`).
    Object(Vec<(String, ErrorPart)>),
}

/// A part of one problem (the runtime's `ProblemPart`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemPart {
    /// The property, parameter or header the problem is about.
    Property,
    /// What is wrong with it.
    Message,
    /// The problem's error code.
    ErrorCode,
}

impl Api {
    /// The type of `components.schemas.<schema>`, which the codegen
    /// settings name as the error schema.
    pub fn error_schema_type(&self, schema: &str) -> Result<&TypeDef> {
        self.types
            .iter()
            .find(|t| t.schema_name.as_deref() == Some(schema))
            .ok_or_else(|| Error::Config {
                file: "codegen settings".to_owned(),
                message: format!(
                    "`error-schema` names `{schema}`, which is not a schema of {}'s \
                     components.schemas",
                    self.source
                ),
            })
    }

    /// `components.schemas.<schema>` read as a table.
    pub fn error_table(&self, schema: &str) -> Result<ErrorTable> {
        let def = self.error_schema_type(schema)?;
        let TypeKind::Struct(s) = &def.kind else {
            return Err(Error::unsupported(
                &self.source,
                &def.origin,
                "the error schema must be an object with properties",
            ));
        };
        Ok(ErrorTable {
            schema: schema.to_owned(),
            fields: object_fields(self, def, &s.fields, &[def.name.as_str()])?,
            media_type: media_type(self, def),
        })
    }
}

fn media_type(api: &Api, def: &TypeDef) -> String {
    api.operations
        .iter()
        .flat_map(|op| &op.responses)
        .filter(|r| {
            matches!(&r.body, Some(super::BodyKind::Json(shape))
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

/// The struct `shape` names, through aliases and newtypes, with its
/// definition.
fn struct_of<'a>(api: &'a Api, shape: &Shape) -> Option<(&'a TypeDef, &'a [Field])> {
    let Ty::Named(name) = &unwrapped(&api.types, shape).ty else {
        return None;
    };
    let def = api.type_named(name)?;
    match &def.kind {
        TypeKind::Struct(s) => Some((def, &s.fields)),
        _ => None,
    }
}

/// The fields of an error object: every property that matches a part, in
/// the schema's order. `within` names the objects being read, outermost
/// first, `def` last.
fn object_fields(
    api: &Api,
    def: &TypeDef,
    fields: &[Field],
    within: &[&str],
) -> Result<Vec<(String, ErrorPart)>> {
    let mut out = Vec::new();
    for field in fields {
        match part(api, field, within)? {
            Some(part) => out.push((field.wire.clone(), part)),
            None if field.required => {
                return Err(Error::unsupported(
                    &api.source,
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
fn part(api: &Api, field: &Field, within: &[&str]) -> Result<Option<ErrorPart>> {
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
        .then_some(ErrorPart::Status));
    }
    if string {
        return Ok(match name.as_str() {
            "message" | "detail" | "description" | "errormessage" | "msg" => {
                Some(ErrorPart::Message)
            }
            "title" | "status" | "reason" => Some(ErrorPart::Title),
            "code" | "errorcode" | "error" => Some(ErrorPart::Code),
            "type" => Some(ErrorPart::Text("about:blank")),
            "instance" => Some(ErrorPart::Instance),
            "requestid" | "traceid" | "correlationid" => Some(ErrorPart::RequestId),
            "timestamp" | "time" | "datetime" | "occurredat" => Some(ErrorPart::Timestamp),
            _ => None,
        });
    }
    if let Ty::Array(item) = &field.shape.ty {
        let listed = matches!(
            name.as_str(),
            "errors" | "problems" | "details" | "violations" | "invalidparams" | "issues"
        );
        return match struct_of(api, item) {
            Some((def, fields)) if listed => problem_fields(api, def, fields).map(Some),
            _ => Ok(None),
        };
    }
    match struct_of(api, &field.shape) {
        // A nested object (the envelope's `error`). One that holds itself
        // (a `cause` of the same type) is left out: the error has one of
        // each part, which a copy in its own cause would only repeat.
        Some((def, fields)) if !within.contains(&def.name.as_str()) => {
            let within = [within, &[def.name.as_str()]].concat();
            let fields = object_fields(api, def, fields, &within)?;
            Ok((!fields.is_empty()).then_some(ErrorPart::Object(fields)))
        }
        _ => Ok(None),
    }
}

/// The fields of one problem in an error's list.
fn problem_fields(api: &Api, def: &TypeDef, fields: &[Field]) -> Result<ErrorPart> {
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
                    &api.source,
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
    Ok(ErrorPart::Problems(out))
}

#[cfg(test)]
mod tests {
    use super::{ErrorPart, ProblemPart};
    use crate::ir::{Api, TypeKind};

    /// A document with no paths and these `components.schemas`, lowered.
    fn with_schemas(schemas: &str) -> Api {
        crate::testing::api(&format!("paths: {{}}\ncomponents:\n  schemas:\n{schemas}"))
    }

    /// The table of a document with these `components.schemas` whose
    /// error schema is `Failure`, or the error, as the user reads it.
    fn table(schemas: &str) -> Result<Vec<(String, ErrorPart)>, String> {
        let api = with_schemas(schemas);
        let table = api.error_table("Failure").map_err(|e| e.to_string())?;
        Ok(table.fields)
    }

    fn field(name: &str, part: ErrorPart) -> (String, ErrorPart) {
        (name.to_owned(), part)
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
                ErrorPart::Object(vec![
                    field("code", ErrorPart::Code),
                    field("message", ErrorPart::Message)
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
                field("status", ErrorPart::Status),
                field(
                    "error",
                    ErrorPart::Object(vec![field("message", ErrorPart::Message)])
                ),
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
                ErrorPart::Problems(vec![("field".to_owned(), ProblemPart::Property)])
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
