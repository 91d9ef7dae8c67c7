//! Webhooks and callbacks: operations whose requests the API's side sends
//! rather than receives. Each is an [`Operation`] like the API's own, so
//! that the emitters' per-operation code serves them too; what differs is
//! where it is sent ([`Callback::url`]) and where it is received (the
//! operation's `path`, a route chosen by the generator: the document gives
//! a webhook no path, and a callback a URL known only at run time).

use super::{Api, Operation, Origin};

/// A callback of one of the API's operations, for one of its URL
/// expressions (a callback object maps each expression to a path item).
#[derive(Debug, Clone)]
pub struct Callback {
    /// Its name in the operation's `callbacks`.
    pub name: String,
    /// The index in [`Api::operations`] of the operation that declares it.
    pub owner: usize,
    /// The URL expression as the document writes it
    /// (`{$request.body#/callbackUrl}/events`).
    pub expression: String,
    /// The expression read into parts; `None` when it uses a form the
    /// generator does not resolve (a `$response` value, `$url`): then no
    /// URL function is generated, and a note says so.
    pub url: Option<Vec<UrlPart>>,
    /// The name of the function that builds the URL (snake_case).
    pub url_fn: String,
    /// The path item's operations. Each one's `path` is the route the
    /// generated receiver mounts it at: the fixed path the expression ends
    /// with (`/events`), else `/<callback name>`.
    pub operations: Vec<Operation>,
    /// Where the expression is in the document.
    pub origin: Origin,
}

/// A part of a callback's URL expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlPart {
    /// Text as written.
    Literal(String),
    /// `$request.body#/pointer`: the value at a JSON pointer of the
    /// request's body (the whole body for an empty pointer).
    Body(String),
    /// `$request.query.name` or `$request.path.name`: the value of one of
    /// the operation's parameters, by its Rust field name.
    Param(String),
    /// `$request.header.Name`: a header of the request, by its name
    /// (lower-case).
    Header(String),
}

impl Api {
    /// The API with `operations` in place of its own, and neither hooks nor
    /// common headers: what an emitter's per-operation code reads to make
    /// the code of webhooks or callbacks.
    pub fn with_operations(&self, operations: Vec<Operation>) -> Api {
        Api {
            source: self.source.clone(),
            title: self.title.clone(),
            version: self.version.clone(),
            description: self.description.clone(),
            servers: self.servers.clone(),
            types: self.types.clone(),
            operations,
            security_schemes: self.security_schemes.clone(),
            common_headers: Vec::new(),
            webhooks: Vec::new(),
            callbacks: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Every callback's operations, in order.
    pub fn callback_operations(&self) -> Vec<Operation> {
        self.callbacks
            .iter()
            .flat_map(|callback| callback.operations.iter().cloned())
            .collect()
    }

    /// The webhooks' and the callbacks' operations.
    pub fn hook_operations(&self) -> impl Iterator<Item = &Operation> {
        self.webhooks
            .iter()
            .chain(self.callbacks.iter().flat_map(|c| &c.operations))
    }
}
