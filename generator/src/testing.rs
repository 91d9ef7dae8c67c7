//! What the unit tests of lowering and emitting share: a small document
//! lowered, or the error it gives, and the context emitters read.

use crate::config::Target;
use crate::emit::Context;
use crate::ir::Api;
use crate::parse::Document;

/// The document whose YAML after `openapi` and `info` is `rest`, lowered;
/// the error, as the user reads it, when it is refused.
pub(crate) fn lowered(rest: &str) -> Result<Api, String> {
    lowered_as("3.0.3", rest)
}

/// [`lowered`] for a document of the OpenAPI version `openapi` (`3.2.0`).
pub(crate) fn lowered_as(openapi: &str, rest: &str) -> Result<Api, String> {
    let text = format!("openapi: {openapi}\ninfo: {{title: t, version: '1'}}\n{rest}");
    let doc = Document::parse(&text, "t.yaml", false).map_err(|e| e.to_string())?;
    crate::lower::lower(&doc).map_err(|e| e.to_string())
}

/// [`lowered`], which must accept the document.
pub(crate) fn api(rest: &str) -> Api {
    lowered(rest).unwrap_or_else(|error| panic!("{error}"))
}

/// [`lowered`]'s error, which there must be.
pub(crate) fn error(rest: &str) -> String {
    match lowered(rest) {
        Ok(_) => panic!("the document was accepted"),
        Err(error) => error,
    }
}

/// What the emitters read: `api` generated for `target`.
pub(crate) fn context<'a>(api: &'a Api, target: &'a Target) -> Context<'a> {
    Context {
        api,
        target,
        command: "",
        client_example: None,
    }
}
