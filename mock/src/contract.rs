//! Contract tests from a document: each operation whose required inputs
//! all have examples is sent its example request, and the answer is
//! checked against the document — a declared status, a declared media
//! type, a body valid against its schema (read as the document says, not
//! as leniently as a generated client reads it), the required headers
//! present. One line per operation, as a test runner reports.

use std::fmt;
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};
use openapi_codegen::ir::{
    BodyKind, Framing, MediaKind, Operation, ParamLocation, Response as Declared, Status, Ty,
};
use openapi_codegen::parse::Document;
use openapi_runtime::server::negotiation;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::check::{Checker, Patterns, Reading};
use crate::examples;

/// What the encoding of a path segment or query value keeps as it is:
/// RFC 3986's unreserved characters.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// How one operation fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Its answer kept to the document (the status it had).
    Passed(u16),
    /// Its answer broke the document: each way it did.
    Failed(Vec<String>),
    /// Not sent: why (a required input without an example).
    Skipped(String),
}

/// One line of the report.
#[derive(Debug, Clone)]
pub struct Line {
    /// The operation's id, method and path template.
    pub operation: String,
    /// How it fared.
    pub outcome: Outcome,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Passed(status) => write!(f, "ok    {} → {status}", self.operation),
            Outcome::Skipped(why) => write!(f, "skip  {}: {why}", self.operation),
            Outcome::Failed(problems) => {
                write!(f, "FAIL  {}", self.operation)?;
                for problem in problems {
                    write!(f, "\n        {problem}")?;
                }
                Ok(())
            }
        }
    }
}

/// The document, its API and where to send the requests.
pub struct Contract {
    doc: Document,
    api: openapi_codegen::ir::Api,
    base_url: String,
    headers: HeaderMap,
    patterns: Patterns,
}

impl Contract {
    /// Reads the document at `path` (`file` names it in errors), to be
    /// checked against the API at `base_url`, every request carrying
    /// `headers` (a credential).
    pub fn load(
        path: &std::path::Path,
        file: &str,
        base_url: &str,
        headers: HeaderMap,
    ) -> openapi_codegen::Result<Contract> {
        let doc = Document::load(path, file)?;
        let api = openapi_codegen::lower::lower(&doc)?;
        Ok(Contract {
            doc,
            api,
            base_url: base_url.trim_end_matches('/').to_owned(),
            headers,
            patterns: Patterns::default(),
        })
    }

    /// Sends each operation's example request in document order and
    /// checks its answer.
    pub async fn run(&self) -> Vec<Line> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        let mut lines = Vec::new();
        for op in &self.api.operations {
            let operation = format!("{} {} {}", op.id, op.method.as_str(), op.path);
            let outcome = match self.request(op) {
                Ok(request) => self.send(&client, op, request).await,
                Err(why) => Outcome::Skipped(why),
            };
            lines.push(Line { operation, outcome });
        }
        lines
    }

    /// The example request of `op`: its URL with the examples of its path
    /// and query parameters, its example headers and body.
    fn request(&self, op: &Operation) -> Result<Example, String> {
        let mut path = op.path.clone();
        let mut query: Vec<String> = op
            .fixed_query
            .iter()
            .map(|pair| match &pair.value {
                Some(value) => format!("{}={}", encode(&pair.name), encode(value)),
                None => encode(&pair.name),
            })
            .collect();
        let mut headers = self.headers.clone();
        // The required parameters: an optional one's example may ask for
        // what the caller cannot have (another tenant's data).
        for param in op.params.iter().filter(|p| p.required) {
            let example = param
                .docs
                .example
                .clone()
                .or_else(|| self.type_example(&param.shape.ty));
            let Some(example) = example else {
                if param.required {
                    return Err(format!(
                        "the required parameter `{}` has no example",
                        param.wire
                    ));
                }
                continue;
            };
            let text = param_text(&example);
            match param.location {
                ParamLocation::Path => {
                    path = path.replace(&format!("{{{}}}", param.wire), &encode(&text))
                }
                ParamLocation::Query => {
                    query.push(format!("{}={}", encode(&param.wire), encode(&text)))
                }
                ParamLocation::Header => {
                    if let (Ok(name), Ok(value)) = (
                        HeaderName::from_bytes(param.wire.as_bytes()),
                        HeaderValue::from_str(&text),
                    ) {
                        headers.insert(name, value);
                    }
                }
                ParamLocation::QueryString => {
                    let text = if param.json {
                        example.to_string()
                    } else {
                        text
                    };
                    query = vec![encode(&text)];
                }
                ParamLocation::Cookie => {
                    let cookie = format!("{}={}", param.wire, encode(&text));
                    if let Ok(value) = HeaderValue::from_str(&cookie) {
                        headers.append(http::header::COOKIE, value);
                    }
                }
            }
        }
        let body = match &op.body {
            Some(body) => {
                // The first media type with an example, sent as it.
                let node = self.doc.node(&op.origin).and_then(|n| n.get("requestBody"));
                let found = body.media_types.iter().find_map(|media| {
                    let node = examples::media(&self.doc, node?, media)?;
                    let (_, value) = examples::of_media(&self.doc, node).into_iter().next()?;
                    Some((media.clone(), value))
                });
                match found {
                    Some((media, value)) => Some((media, body_bytes(&body.kind, &value)?)),
                    None if body.required => {
                        return Err("the required body has no example".to_owned());
                    }
                    None => None,
                }
            }
            None => None,
        };
        let mut url = format!("{}{path}", self.base_url);
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query.join("&"));
        }
        Ok(Example { url, headers, body })
    }

    /// The example a named type's schema gives, through newtypes and aliases.
    fn type_example(&self, ty: &Ty) -> Option<Value> {
        let Ty::Named(name) = ty else { return None };
        let def = self.api.type_named(name)?;
        def.docs.example.clone().or_else(|| match &def.kind {
            openapi_codegen::ir::TypeKind::Newtype(shape)
            | openapi_codegen::ir::TypeKind::Alias(shape) => self.type_example(&shape.ty),
            _ => None,
        })
    }

    async fn send(&self, client: &reqwest::Client, op: &Operation, example: Example) -> Outcome {
        let method = match reqwest::Method::from_bytes(op.method.as_str().as_bytes()) {
            Ok(method) => method,
            Err(error) => return Outcome::Skipped(format!("the method cannot be sent: {error}")),
        };
        let mut request = client
            .request(method, &example.url)
            .headers(example.headers);
        if let Some((media, bytes)) = example.body {
            request = request
                .header(http::header::CONTENT_TYPE, media)
                .body(bytes);
        }
        let answer = match request.send().await {
            Ok(answer) => answer,
            Err(error) => return Outcome::Failed(vec![format!("no answer: {error}")]),
        };
        let status = answer.status().as_u16();
        let headers = answer.headers().clone();
        let bytes = match answer.bytes().await {
            Ok(bytes) => bytes,
            Err(error) => {
                return Outcome::Failed(vec![format!(
                    "the answer's body could not be read: {error}"
                )]);
            }
        };
        let problems = self.judge(op, status, &headers, &bytes);
        if problems.is_empty() {
            Outcome::Passed(status)
        } else {
            Outcome::Failed(problems)
        }
    }

    /// Every way an answer breaks the document.
    pub fn judge(
        &self,
        op: &Operation,
        status: u16,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Vec<String> {
        let declared = op
            .responses
            .iter()
            .find(|r| r.status == Status::Code(status))
            .or_else(|| {
                op.responses
                    .iter()
                    .find(|r| r.status == Status::Range(status / 100))
            })
            .or_else(|| op.responses.iter().find(|r| r.status == Status::Default));
        let Some(declared) = declared else {
            let listed: Vec<String> = op.responses.iter().map(|r| r.status.to_string()).collect();
            return vec![format!(
                "status {status} is not declared (the document declares {})",
                listed.join(", ")
            )];
        };
        let mut problems = Vec::new();
        for header in declared.headers.iter().filter(|h| h.required) {
            if !headers.contains_key(header.wire.as_str()) {
                problems.push(format!("the required header `{}` is missing", header.wire));
            }
        }
        let content_type = headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        if declared.media_types.is_empty() {
            if !body.is_empty() {
                problems.push(format!(
                    "a body of {} bytes where the document declares none",
                    body.len()
                ));
            }
            return problems;
        }
        let Some(content_type) = content_type else {
            if !body.is_empty() || !declared.media_types.is_empty() && status != 204 {
                problems.push("no Content-Type, where the document declares a body".to_owned());
            }
            return problems;
        };
        let declared_types: Vec<&str> = declared.media_types.iter().map(String::as_str).collect();
        if !declared_types
            .iter()
            .any(|d| negotiation::matches(d, content_type))
        {
            problems.push(format!(
                "Content-Type {content_type} is not declared (the document declares {})",
                declared_types.join(", ")
            ));
            return problems;
        }
        problems.extend(self.body_problems(declared, content_type, body));
        problems
    }

    fn body_problems(&self, declared: &Declared, content_type: &str, body: &[u8]) -> Vec<String> {
        let checker = Checker::new(&self.api, Reading::Document, &self.patterns);
        let (shape, value) = match &declared.body {
            Some(BodyKind::Json(shape))
                if matches!(MediaKind::of(content_type), MediaKind::Json) =>
            {
                match serde_json::from_slice::<Value>(body) {
                    Ok(value) => (shape, value),
                    Err(error) => return vec![format!("the body is not JSON: {error}")],
                }
            }
            Some(BodyKind::Sequence(sequence)) => {
                let framing = match sequence.framing {
                    Framing::Lines => openapi_runtime::sequence::Framing::Lines,
                    Framing::RecordSeparator => openapi_runtime::sequence::Framing::RecordSeparator,
                };
                match openapi_runtime::sequence::to_json_array(body, framing) {
                    Ok(array) => (
                        &sequence.shape,
                        serde_json::from_slice(&array).unwrap_or(Value::Null),
                    ),
                    Err((index, message)) => {
                        return vec![format!("item {index} is not JSON: {message}")];
                    }
                }
            }
            _ => return Vec::new(),
        };
        checker
            .check(shape, &value, "body")
            .into_problems()
            .into_iter()
            .map(|p| format!("{}: {} ({})", p.property, p.message, p.error_code))
            .collect()
    }

    /// The operation of `id`, for tests that judge answers directly.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.api.operations.iter().find(|op| op.id == id)
    }
}

/// A request made of a document's examples.
struct Example {
    url: String,
    headers: HeaderMap,
    body: Option<(String, Vec<u8>)>,
}

/// A body's bytes in its kind's encoding.
fn body_bytes(kind: &BodyKind, value: &Value) -> Result<Vec<u8>, String> {
    match (kind, value) {
        (BodyKind::Text | BodyKind::Binary, Value::String(text)) => Ok(text.clone().into_bytes()),
        (BodyKind::Form(_), Value::Object(fields)) => Ok(fields
            .iter()
            .map(|(name, value)| format!("{}={}", encode(name), encode(&param_text(value))))
            .collect::<Vec<_>>()
            .join("&")
            .into_bytes()),
        (BodyKind::Sequence(_), Value::Array(items)) => Ok(items
            .iter()
            .map(|item| format!("{item}\n"))
            .collect::<String>()
            .into_bytes()),
        (BodyKind::Multipart(_), _) => Err("a multipart body is not made from examples".to_owned()),
        _ => serde_json::to_vec(value).map_err(|e| e.to_string()),
    }
}

/// A parameter's example as text: a string as it is, a list joined by
/// commas (the `form` and `simple` styles), anything else as JSON.
fn param_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(param_text).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

fn encode(text: &str) -> String {
    utf8_percent_encode(text, VALUE).to_string()
}
