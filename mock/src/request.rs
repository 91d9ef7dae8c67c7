//! A request checked as the generated server stubs check it, in their
//! order: the credential (401), the parameters (400 listing every
//! problem), then the body's media type (415), size (413) and value (400).

use std::borrow::Cow;

use axum::body::Body;
use http::HeaderMap;
use openapi_codegen::ir::{
    Api, BodyKind, DynamicQuery, Framing, ParamLocation, ParamStyle, Parameter, Primitive,
    QueryValueKind, SecuritySchemeKind, Shape, Ty, TypeKind,
};
use openapi_runtime::models::dynamic_query::{self, Listed, ValueKind};
use openapi_runtime::models::validation::{Path, Problem, Report};
use openapi_runtime::server::error::ApiError;
use openapi_runtime::server::{body, multipart, object_params, params, settings};
use serde_json::Value;

use crate::{Mock, Prepared};

/// 401 unless the request carries a credential of one of the operation's
/// requirement sets (its value is the API's to judge; a mock takes any).
pub fn credentials(
    api: &Api,
    prepared: &Prepared,
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<(), ApiError> {
    let op = &api.operations[prepared.index];
    if !op.is_authenticated() {
        return Ok(());
    }
    let present = |name: &str| {
        let Some(scheme) = api.security_schemes.iter().find(|s| s.name == name) else {
            return false;
        };
        match &scheme.kind {
            SecuritySchemeKind::ApiKey { location, name } => match location {
                ParamLocation::Header => headers.contains_key(name.as_str()),
                ParamLocation::Query => params::query_credential(query, name).is_some(),
                ParamLocation::Cookie => params::cookie_credential(headers, name).is_some(),
                ParamLocation::Path | ParamLocation::QueryString => false,
            },
            SecuritySchemeKind::Http { scheme } => params::authorization(headers, scheme).is_some(),
            SecuritySchemeKind::OAuth2 => params::authorization(headers, "bearer").is_some(),
        }
    };
    let met = op
        .security
        .iter()
        .any(|requirement| requirement.schemes.iter().all(|s| present(s)));
    if met {
        Ok(())
    } else {
        Err(ApiError::missing_credential(
            "Authorization",
            "This operation needs a credential: send one of the security schemes the document names.",
        ))
    }
}

/// Every parameter: 400 listing each one missing or not of its shape.
pub fn parameters(
    mock: &Mock,
    prepared: &Prepared,
    path_values: &[(String, String)],
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<(), ApiError> {
    let op = &mock.api.operations[prepared.index];
    let checker = mock.checker();
    let mut report = Report::new();
    let params = op.params.iter().zip(&prepared.param_names);
    for ((param, name), object) in params.zip(&prepared.object_fields) {
        // An object parameter is read by the stubs' own reader, its
        // properties typed by the table they have as code.
        if let Some(fields) = object {
            let (spread, under) = match param.style {
                ParamStyle::DeepObject => (object_params::Spread::Deep, true),
                _ => (
                    object_params::Spread::Form {
                        others: prepared.query_names,
                    },
                    false,
                ),
            };
            let value: Option<Value> =
                object_params::object(query, name, spread, fields, param.required, &mut report);
            if let Some(value) = value {
                let found = if under {
                    checker.check_under(&param.shape, &value, name)
                } else {
                    checker.check(&param.shape, &value, name)
                };
                found
                    .into_problems()
                    .into_iter()
                    .for_each(|p| report.add(p));
            }
            continue;
        }
        let raw: Vec<Cow<'_, str>> = match param.location {
            ParamLocation::Path => path_values
                .iter()
                .filter(|(n, _)| *n == param.wire)
                .map(|(_, v)| Cow::Borrowed(v.as_str()))
                .collect(),
            ParamLocation::Query => params::query_pairs(query)
                .filter(|(key, _)| *key == param.wire)
                .map(|(_, value)| value)
                .collect(),
            ParamLocation::Header => headers
                .get_all(param.wire.as_str())
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(Cow::Borrowed)
                .collect(),
            ParamLocation::Cookie => params::cookie_value(headers, &param.wire)
                .into_iter()
                .collect(),
            ParamLocation::QueryString => {
                if let Err(problems) = querystring(mock, param, name, query) {
                    problems.into_iter().for_each(|p| report.add(p));
                }
                continue;
            }
        };
        // A parameter in JSON (`content`) is handed over as its text by the
        // stubs, unchecked, as other values that are not scalars are.
        if param.json && !raw.is_empty() {
            continue;
        }
        if raw.is_empty() {
            if param.required {
                report.push(&Path::new(name), "is required", "Required");
            }
            continue;
        }
        let value = match text_value(mock, param, &raw) {
            Ok(value) => value,
            Err(message) => {
                report.push(&Path::new(name), message, "InvalidFormat");
                continue;
            }
        };
        for problem in checker.check(&param.shape, &value, name).into_problems() {
            report.add(problem);
        }
        // A typed query (`x-dynamic-query`) is read once its text passed its
        // schema, and one problem names what is wrong, as the stubs'
        // `params::dynamic_query` does.
        if let (Some(query), Some(text)) = (&param.dynamic_query, raw.first()) {
            let refused = report.problems().iter().any(|p| p.property == *name);
            if !refused {
                if let Err(error) = dynamic_query::check(text, &listed(query)) {
                    report.push(
                        &Path::new(name),
                        error.message(),
                        params::INVALID_DYNAMIC_QUERY,
                    );
                }
            }
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(report))
    }
}

/// The properties of a typed query, as the runtime's reader takes them.
fn listed(query: &DynamicQuery) -> Listed {
    let kind = |kind: QueryValueKind| match kind {
        QueryValueKind::String => ValueKind::String,
        QueryValueKind::DateTime => ValueKind::DateTime,
        QueryValueKind::Integer => ValueKind::Integer,
        QueryValueKind::Number => ValueKind::Number,
        QueryValueKind::Boolean => ValueKind::Boolean,
        QueryValueKind::Uuid => ValueKind::Uuid,
    };
    Listed(
        query
            .properties
            .iter()
            .map(|p| (p.wire.clone(), kind(p.kind)))
            .collect(),
    )
}

/// An OpenAPI 3.2 querystring: the whole query string, percent-decoded
/// as a URI is, is the value's JSON text or the text itself; its problems
/// are under its name, as the stubs' `params::query_string_json` puts them.
fn querystring(
    mock: &Mock,
    param: &Parameter,
    name: &'static str,
    query: Option<&str>,
) -> Result<(), Vec<Problem>> {
    let mut report = Report::new();
    let Some(text) = params::query_string(query) else {
        if param.required {
            report.push(&Path::new(name), "is required", "Required");
        }
        return if report.is_empty() {
            Ok(())
        } else {
            Err(report.into_problems())
        };
    };
    let value = if param.json {
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => value,
            Err(error) => {
                let message = format!("is not valid JSON: {error}");
                report.push(&Path::new(name), message, "InvalidJson");
                return Err(report.into_problems());
            }
        }
    } else {
        Value::String(text.into_owned())
    };
    let report = mock.checker().check_under(&param.shape, &value, name);
    if report.is_empty() {
        Ok(())
    } else {
        Err(report.into_problems())
    }
}

/// The JSON value of a parameter given as text: its items split as its
/// style says, each scalar typed as its shape expects.
fn text_value(mock: &Mock, param: &Parameter, raw: &[Cow<'_, str>]) -> Result<Value, String> {
    let first = raw.first().map_or("", |v| v.as_ref());
    if param.location == ParamLocation::Path
        && matches!(param.style, ParamStyle::Label | ParamStyle::Matrix)
    {
        return styled(mock, param, first);
    }
    let shape = mock.underlying(&param.shape);
    let Ty::Array(item) = &shape.ty else {
        return Ok(scalar(mock, &param.shape, first));
    };
    let items: Vec<&str> = if param.explode && matches!(param.style, ParamStyle::Form) {
        raw.iter().map(AsRef::as_ref).collect()
    } else if first.is_empty() {
        Vec::new()
    } else {
        let delimiter = match param.style {
            ParamStyle::SpaceDelimited => ' ',
            ParamStyle::PipeDelimited => '|',
            _ => ',',
        };
        first.split(delimiter).collect()
    };
    Ok(Value::Array(
        items
            .into_iter()
            .map(|text| scalar(mock, item, text))
            .collect(),
    ))
}

/// A `label` (`.a`, `.a,b`, exploded `.a.b`) or `matrix` (`;id=a`,
/// `;id=a,b`, exploded `;id=a;id=b`) path parameter's value, its lead
/// taken off as the stubs' `params::path_styled` takes it, with its
/// message when the lead is missing.
fn styled(mock: &Mock, param: &Parameter, raw: &str) -> Result<Value, String> {
    let name = param.wire.as_str();
    let label = param.style == ParamStyle::Label;
    let refused = || {
        let lead = if label {
            ".".to_owned()
        } else {
            format!(";{name}=")
        };
        format!("does not start with `{lead}`, as its style asks")
    };
    let matrix_value = |pair: &'_ str| -> Option<String> {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (key == name).then(|| value.to_owned())
    };
    let value_of = |raw: &str| -> Option<String> {
        if label {
            raw.strip_prefix('.').map(str::to_owned)
        } else {
            matrix_value(raw.strip_prefix(';')?)
        }
    };
    let Ty::Array(item) = &mock.underlying(&param.shape).ty else {
        let text = value_of(raw).ok_or_else(refused)?;
        return Ok(scalar(mock, &param.shape, &text));
    };
    if raw.is_empty() {
        return Ok(Value::Array(Vec::new()));
    }
    let items: Option<Vec<String>> = match (label, param.explode) {
        (_, false) => value_of(raw).map(|v| v.split(',').map(str::to_owned).collect()),
        (true, true) => raw
            .strip_prefix('.')
            .map(|v| v.split('.').map(str::to_owned).collect()),
        (false, true) => raw
            .strip_prefix(';')
            .and_then(|rest| rest.split(';').map(matrix_value).collect()),
    };
    let items = items.ok_or_else(refused)?;
    Ok(Value::Array(
        items.iter().map(|text| scalar(mock, item, text)).collect(),
    ))
}

/// A scalar's text as the JSON value its shape expects: a number, a
/// boolean, or the text itself (which the check then refuses if it is not
/// what the shape wants).
fn scalar(mock: &Mock, shape: &Shape, text: &str) -> Value {
    let shape = mock.underlying(shape);
    let numeric = match &shape.ty {
        Ty::Primitive(p) if p.is_number() => true,
        Ty::Primitive(Primitive::Bool) => return text.parse().map_or_else(|_| Value::String(text.to_owned()), Value::Bool),
        Ty::Named(name) => mock.api.type_named(name).is_some_and(|def| {
            matches!(&def.kind, TypeKind::Enum(e) if e.repr != openapi_codegen::ir::EnumRepr::String)
        }),
        _ => false,
    };
    if numeric {
        if let Ok(number) = serde_json::from_str::<serde_json::Number>(text) {
            return Value::Number(number);
        }
        if let Ok(flag) = text.parse::<bool>() {
            return Value::Bool(flag);
        }
    }
    Value::String(text.to_owned())
}

/// The body: read within the size limit, then checked as its kind says.
pub async fn body(
    mock: &Mock,
    prepared: &Prepared,
    headers: &HeaderMap,
    request: Body,
) -> Result<(), ApiError> {
    let op = &mock.api.operations[prepared.index];
    let Some(declared) = &op.body else {
        return Ok(());
    };
    let bytes = body::read(request, headers, prepared.accepted, mock.body_limit).await?;
    let Some(bytes) = bytes else {
        return if declared.required {
            Err(ApiError::body_required())
        } else {
            Ok(())
        };
    };
    let checker = mock.checker();
    let (shape, value) = match &declared.kind {
        BodyKind::Json(shape) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) => (shape, value),
            Err(error) => {
                return Err(ApiError::unreadable_body(
                    format!("is not valid JSON: {error}"),
                    "InvalidJson",
                ));
            }
        },
        BodyKind::Sequence(sequence) => {
            let framing = match sequence.framing {
                Framing::Lines => openapi_runtime::sequence::Framing::Lines,
                Framing::RecordSeparator => openapi_runtime::sequence::Framing::RecordSeparator,
            };
            let array = openapi_runtime::sequence::to_json_array(&bytes, framing).map_err(
                |(index, message)| {
                    ApiError::unreadable_body(
                        format!("item {index} is not JSON: {message}"),
                        "InvalidFormat",
                    )
                },
            )?;
            let value = serde_json::from_slice(&array).unwrap_or(Value::Null);
            (&sequence.shape, value)
        }
        // Forms and multipart bodies by the stubs' own readers, typed by
        // the tables they have as code; a multipart body whose schema lists
        // no parts is taken as it came, as the stubs take it.
        BodyKind::Form(shape) => match prepared.form_fields {
            Some(fields) => (shape, body::form::<Value>(&bytes, fields)?),
            None => return Ok(()),
        },
        BodyKind::Multipart(multipart) => match prepared.form_fields {
            Some(fields) => {
                // The parts' problems and the schema's in one 400.
                multipart::decode_value(
                    bytes,
                    headers,
                    fields,
                    prepared.file_parts,
                    settings::DEFAULT_PART_LIMIT,
                    |value, report| {
                        checker.shape(&multipart.shape, value, &mut Path::new("body"), report);
                    },
                )?;
                return Ok(());
            }
            None => return multipart::parts(bytes, headers).map(drop),
        },
        BodyKind::Text => return body::text(bytes).map(drop),
        BodyKind::Binary => return Ok(()),
    };
    let report = checker.check(shape, &value, "body");
    if report.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(report))
    }
}
