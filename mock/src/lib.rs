//! A mock server of an OpenAPI document, for integrators to test against
//! offline, and the contract checker that holds an API to its document.
//!
//! [`Mock`] reads a document as the generator does (every version it
//! reads, into the same IR) and serves it at once, with nothing compiled:
//! it interprets the IR. A request is checked as the generated server
//! stubs check it — the same order of refusals (401, 400 for parameters,
//! 415, 413, 400 for the body), the same validation runtime with its
//! messages and error codes, the runtime's RFC 9457 problem details — and
//! answered from the document's examples, or with data made up from the
//! response's schema, the same for the same seed. Prism's `Prefer`
//! headers choose the answer ([`prefer`]). Why an interpreter and not the
//! generated stubs built per document: docs/decisions.md, D64.
//!
//! - [`check`]: a JSON value against a shape of the IR;
//! - `sample` and `pattern`: values made up from shapes and patterns;
//! - `examples`: the document's examples;
//! - `routes`, `request`, `answer`: one request, found, checked and
//!   answered;
//! - [`contract`]: the example requests of a document sent to a live API,
//!   its answers checked against the document.

mod answer;
pub mod check;
pub mod contract;
mod examples;
mod pattern;
pub mod prefer;
mod request;
mod routes;
mod sample;

use std::path::Path as FilePath;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use openapi_codegen::ir::{self, Api, BodyKind, Operation, ParamLocation, Shape, Ty, TypeKind};
use openapi_codegen::parse::Document;
use openapi_runtime::server::body::{FormField, FormKind};
use openapi_runtime::server::error::{ApiError, ErrorFormat, ProblemDetails};
use openapi_runtime::server::multipart::FilePart;
use openapi_runtime::server::request_id::RequestId;
use openapi_runtime::server::settings;
use tokio::net::TcpListener;

use check::{Checker, Patterns, Reading};
use routes::Routes;

/// A document, read and ready to serve.
pub struct Mock {
    doc: Document,
    api: Api,
    routes: Routes,
    prepared: Vec<Prepared>,
    patterns: Patterns,
    seed: u64,
    body_limit: usize,
}

/// What the runtime's helpers need of an operation as `'static` text,
/// made once when the mock is read.
struct Prepared {
    /// The operation's index in `Api::operations`.
    index: usize,
    operation_id: &'static str,
    /// The media types its request body may have.
    accepted: &'static [&'static str],
    /// The media types of each of its responses.
    offered: Vec<&'static [&'static str]>,
    /// Its parameters' names, in order.
    param_names: Vec<&'static str>,
    /// Each parameter's fields, for an object query parameter.
    object_fields: Vec<Option<&'static [FormField]>>,
    /// Its query parameters' names: what an exploded `form` map leaves alone.
    query_names: &'static [&'static str],
    /// Its form body's fields, or its multipart body's text parts.
    form_fields: Option<&'static [FormField]>,
    /// Its multipart body's file parts.
    file_parts: &'static [FilePart],
}

impl Mock {
    /// Reads the document at `path` (`file` names it in errors); `seed`
    /// fixes the data made up for answers without an example.
    pub fn load(path: &FilePath, file: &str, seed: u64) -> openapi_codegen::Result<Mock> {
        let doc = Document::load(path, file)?;
        let api = openapi_codegen::lower::lower(&doc)?;
        Ok(Mock::new(doc, api, seed))
    }

    /// Reads a document given as text (`file` names it in errors): a
    /// service that embeds its document serves a mock of it.
    pub fn parse(text: &str, file: &str, seed: u64) -> openapi_codegen::Result<Mock> {
        let is_json = text.trim_start().starts_with('{');
        let doc = Document::parse(text, file, is_json)?;
        let api = openapi_codegen::lower::lower(&doc)?;
        Ok(Mock::new(doc, api, seed))
    }

    fn new(doc: Document, api: Api, seed: u64) -> Mock {
        let prepared = api
            .operations
            .iter()
            .enumerate()
            .map(|(index, op)| Prepared {
                index,
                operation_id: leak(&op.id),
                accepted: leak_list(op.body.iter().flat_map(|b| &b.media_types)),
                offered: op
                    .responses
                    .iter()
                    .map(|r| leak_list(&r.media_types))
                    .collect(),
                param_names: op.params.iter().map(|p| leak(&p.wire)).collect(),
                object_fields: op
                    .params
                    .iter()
                    .map(|p| {
                        let fields = p.object.then(|| api.object_param_fields(&p.shape))??;
                        Some(runtime_fields(&fields))
                    })
                    .collect(),
                query_names: leak_list(
                    op.params
                        .iter()
                        .filter(|p| p.location == ParamLocation::Query)
                        .map(|p| &p.wire),
                ),
                form_fields: match op.body.as_ref().map(|b| &b.kind) {
                    Some(BodyKind::Form(shape)) => {
                        api.form_fields(shape).map(|f| runtime_fields(&f))
                    }
                    Some(BodyKind::Multipart(multipart)) if api.form_parts(multipart).is_some() => {
                        Some(runtime_fields(&api.part_fields(multipart)))
                    }
                    _ => None,
                },
                file_parts: match op.body.as_ref().map(|b| &b.kind) {
                    Some(BodyKind::Multipart(multipart)) => file_parts(&api, multipart),
                    _ => &[],
                },
            })
            .collect();
        Mock {
            routes: Routes::new(&api.operations),
            doc,
            api,
            prepared,
            patterns: Patterns::default(),
            seed,
            body_limit: settings::DEFAULT_BODY_LIMIT,
        }
    }

    /// The document's API, as the generator reads it.
    pub fn api(&self) -> &Api {
        &self.api
    }

    /// The router that serves the document, its errors in RFC 9457
    /// problem details (the runtime's own format).
    pub fn router(self) -> Router {
        self.router_with_errors::<ProblemDetails>()
    }

    /// The router that serves the document, its errors in the format `F`:
    /// a server-stubs crate's `ErrorBodyFormat`, so that a mock of an API
    /// whose document names an `error-schema` refuses as its server does.
    pub fn router_with_errors<F: ErrorFormat + 'static>(self) -> Router {
        Router::new()
            .fallback(handle::<F>)
            .with_state(Arc::new(self))
    }

    /// Serves the document on `listener` until the process ends.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        axum::serve(listener, self.router()).await
    }

    fn checker(&self) -> Checker<'_> {
        Checker::new(&self.api, Reading::Stubs, &self.patterns)
    }

    /// The shape a named newtype or alias stands for, or `shape` itself.
    fn underlying<'s>(&'s self, shape: &'s Shape) -> &'s Shape {
        let mut shape = shape;
        for _ in 0..16 {
            let Ty::Named(name) = &shape.ty else { break };
            match self.api.type_named(name).map(|d| &d.kind) {
                Some(TypeKind::Newtype(inner) | TypeKind::Alias(inner)) => shape = inner,
                _ => break,
            }
        }
        shape
    }

    /// The seed of the data made up for one operation's answer: the same
    /// request gets the same answer, whatever came before it.
    fn seed_for(&self, op: &Operation, status: http::StatusCode) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in op.id.bytes().chain(status.as_u16().to_be_bytes()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        hash ^ self.seed
    }
}

async fn handle<F: ErrorFormat>(State(mock): State<Arc<Mock>>, request: Request) -> Response {
    let request_id = RequestId::from_headers(request.headers());
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let routes = mock.routes.find(&path);
    let Some((first, _)) = routes.first() else {
        return ApiError::route_not_found(&path).render_as::<F>(&request_id, None);
    };
    let found = routes.iter().find_map(|(route, values)| {
        let prepared = route
            .operations
            .iter()
            .map(|index| &mock.prepared[*index])
            .find(|p| mock.api.operations[p.index].method.as_str() == parts.method.as_str())?;
        Some((prepared, values))
    });
    let Some((prepared, path_values)) = found else {
        return ApiError::method_not_allowed(parts.method.as_str(), first.allow)
            .render_as::<F>(&request_id, None);
    };
    let outcome = respond(&mock, prepared, path_values, &parts, body).await;
    let mut response = match outcome {
        Ok(response) => response,
        Err(error) => {
            return error.render_as::<F>(&request_id, Some(prepared.operation_id));
        }
    };
    response.headers_mut().insert(
        openapi_runtime::server::request_id::X_REQUEST_ID.clone(),
        request_id.to_header_value(),
    );
    response
}

async fn respond(
    mock: &Mock,
    prepared: &Prepared,
    path_values: &[(String, String)],
    parts: &http::request::Parts,
    body: Body,
) -> Result<Response, ApiError> {
    let query = parts.uri.query();
    request::credentials(&mock.api, prepared, &parts.headers, query)?;
    request::parameters(mock, prepared, path_values, &parts.headers, query)?;
    request::body(mock, prepared, &parts.headers, body).await?;
    answer::answer(mock, prepared, &parts.headers)
}

/// Text that lives as long as the process: the runtime's error and
/// negotiation helpers take `'static` names, as generated code has them.
/// Made once per operation when a mock is read.
fn leak(text: &str) -> &'static str {
    Box::leak(text.to_owned().into_boxed_str())
}

fn leak_list<'a>(texts: impl IntoIterator<Item = &'a String>) -> &'static [&'static str] {
    let list: Vec<&'static str> = texts.into_iter().map(|t| leak(t)).collect();
    Box::leak(list.into_boxed_slice())
}

/// The IR's table of a form's fields as the runtime's, which the stubs
/// write as code: the mock reads forms with the stubs' own reader.
fn runtime_fields(fields: &[ir::FormField]) -> &'static [FormField] {
    let table: Vec<FormField> = fields
        .iter()
        .map(|field| FormField {
            name: leak(&field.name),
            kind: match &field.kind {
                ir::FormKind::Text => FormKind::Text,
                ir::FormKind::Integer => FormKind::Integer,
                ir::FormKind::Number => FormKind::Number,
                ir::FormKind::Boolean => FormKind::Boolean,
                ir::FormKind::Json => FormKind::Json,
                ir::FormKind::Object(inner) => FormKind::Object(runtime_fields(inner)),
            },
            list: field.list,
        })
        .collect();
    Box::leak(table.into_boxed_slice())
}

/// A multipart body's file parts, as the runtime takes them.
fn file_parts(api: &Api, body: &ir::Multipart) -> &'static [FilePart] {
    let parts: Vec<FilePart> = api
        .form_parts(body)
        .into_iter()
        .flatten()
        .filter_map(|part| {
            Some(FilePart {
                name: leak(&part.field.wire),
                many: part.files? == ir::Files::Many,
            })
        })
        .collect();
    Box::leak(parts.into_boxed_slice())
}
