//! The intermediate representation: what the generator knows about an API,
//! independent of `openapiv3` and of any target crate.
//!
//! `lower` builds it from a parsed document; each emitter reads it. All names in
//! it are already Rust identifiers, chosen once, so that every emitter agrees.

mod error_table;
mod form_fields;
mod forms;
mod hooks;
mod operations;
mod types;

pub use error_table::*;
pub use form_fields::*;
pub use forms::*;
pub use hooks::*;
pub use operations::*;
pub use types::*;

use crate::parse::Pointer;

/// An API, lowered.
#[derive(Debug, Clone)]
pub struct Api {
    /// The document it came from, as named in messages and file headers.
    pub source: String,
    /// `info.title`.
    pub title: String,
    /// `info.version`.
    pub version: String,
    /// `info.description`.
    pub description: Option<String>,
    /// The servers, in document order.
    pub servers: Vec<Server>,
    /// Every named type, in a stable order (by name).
    pub types: Vec<TypeDef>,
    /// Every operation, in document order (path, then method).
    pub operations: Vec<Operation>,
    /// The security schemes that operations refer to.
    pub security_schemes: Vec<SecurityScheme>,
    /// Header parameters that every operation takes (for instance a tenant
    /// header declared once in `components.parameters`): emitters may lift them
    /// into a shared request context instead of repeating them per operation.
    pub common_headers: Vec<Parameter>,
    /// The webhooks (OpenAPI 3.1), in document order: operations the API's
    /// provider sends. Each one's `path` is the route its receiver mounts
    /// it at, `/<webhook name>`.
    pub webhooks: Vec<Operation>,
    /// The operations' callbacks, in document order.
    pub callbacks: Vec<Callback>,
    /// What the document has that is deliberately not generated (links, a
    /// callback expression not resolved) and what was read past.
    pub notes: Vec<String>,
}

impl Api {
    /// The named type called `name`.
    pub fn type_named(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }

    /// Whether `param` is one of the [`common_headers`](Api::common_headers).
    /// Each is a `components.parameters` entry, which says the name and the
    /// place: the entry alone tells them apart.
    pub fn is_common_header(&self, param: &Parameter) -> bool {
        param.component.is_some()
            && self
                .common_headers
                .iter()
                .any(|common| common.component == param.component)
    }
}

/// A server URL with its variables.
#[derive(Debug, Clone)]
pub struct Server {
    /// The URL template, e.g. `{base_url}/v1`.
    pub url: String,
    /// What the server is.
    pub description: Option<String>,
    /// An identifier for it (UpperCamelCase), from its description or position.
    pub name: String,
    /// The URL's variables, in document order.
    pub variables: Vec<ServerVariable>,
}

/// A variable of a server URL.
#[derive(Debug, Clone)]
pub struct ServerVariable {
    /// Its name in the URL template.
    pub name: String,
    /// Its default value.
    pub default: String,
    /// What it is.
    pub description: Option<String>,
    /// The values allowed, when the document restricts them.
    pub allowed: Vec<String>,
}

/// Documentation carried from the document to the generated code.
#[derive(Debug, Clone, Default)]
pub struct Docs {
    /// `title`, or an operation's `summary`.
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// An example value, when the document gives one.
    pub example: Option<serde_json::Value>,
    /// Whether the element is deprecated.
    pub deprecated: bool,
}

/// Where something came from: the pointer into the document.
pub type Origin = Pointer;
