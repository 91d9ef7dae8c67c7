//! What shapes a client method's signature besides each input on its own:
//! whether the operation has a `Params` struct (its optional inputs), and
//! which headers are common (a builder setting, not an input of any
//! method). The rules are the lowering's and the client emitter's
//! (`lower::common_headers`, `emit::client::operations::plan`), read from
//! the document's tree so that a document the generator refuses can still
//! be compared.

use super::differ::Differ;
use super::report::{breaks, ok};
use crate::parse::{Document, Pointer};

/// A parameter of an operation as the signature rules see it.
pub(super) struct Input {
    /// `in`: `path`, `query`, `header` or `cookie`.
    pub location: String,
    /// `name`, as written.
    pub name: String,
    pub required: bool,
    /// The `components.parameters` entry it is, after following `$ref`s.
    pub component: Option<String>,
}

impl Input {
    /// Whether the client takes it as a field of the operation's `Params`
    /// struct when the operation has one, given the document's common
    /// headers: optional, not in the path, and not a header the client
    /// sends for every call or ignores (`Accept`, `Content-Type`,
    /// `Authorization`, which the media types and security say).
    pub fn is_params_field(&self, common: &[String]) -> bool {
        !self.required
            && self.location != "path"
            && !(self.location == "header"
                && (["accept", "content-type", "authorization"]
                    .iter()
                    .any(|n| self.name.eq_ignore_ascii_case(n))
                    || self.component.as_ref().is_some_and(|c| common.contains(c))))
    }
}

/// Follows `$ref`s (at most 32) and names the `components.parameters`
/// entry the last one reached.
pub(super) fn resolve_parameter<'a>(
    doc: &'a Document,
    mut node: &'a serde_yaml::Value,
) -> (&'a serde_yaml::Value, Option<String>) {
    let mut component = None;
    for _ in 0..32 {
        let Some((pointer, target)) = node
            .get("$ref")
            .and_then(serde_yaml::Value::as_str)
            .and_then(Pointer::parse_local)
            .and_then(|pointer| doc.node(&pointer).map(|target| (pointer, target)))
        else {
            break;
        };
        component = pointer.component_name("parameters");
        node = target;
    }
    (node, component)
}

/// One operation's inputs: its parameters and whether its body is optional.
pub(super) struct Inputs {
    pub params: Vec<Input>,
    pub optional_body: bool,
}

impl Inputs {
    /// Whether the client method has a `params` argument.
    pub fn has_params_struct(&self, common: &[String]) -> bool {
        self.optional_body || self.params.iter().any(|p| p.is_params_field(common))
    }

    /// Whether the operation takes the header parameter `component`.
    fn takes(&self, component: &str) -> bool {
        self.params
            .iter()
            .any(|p| p.location == "header" && p.component.as_deref() == Some(component))
    }
}

/// The header parameters the client sends with every call: those of the
/// first operation declared in `components.parameters` that every
/// operation takes, by component name. `operations` are every operation
/// of a document, by label, in document order.
pub(super) fn common_headers(operations: &[(String, Inputs)]) -> Vec<String> {
    let Some((_, first)) = operations.first() else {
        return Vec::new();
    };
    first
        .params
        .iter()
        .filter(|p| p.location == "header")
        .filter_map(|p| p.component.clone())
        .filter(|c| operations.iter().all(|(_, op)| op.takes(c)))
        .collect()
}

/// A header that stopped being, or became, common to every operation:
/// it moves between the client builder (and the server's request context)
/// and each method's inputs, which changes every method's signature.
pub(super) fn compare_common_headers(
    d: &mut Differ<'_>,
    old: &[(String, Inputs)],
    new: &[(String, Inputs)],
) {
    if !d.crates.client && !d.crates.server {
        return;
    }
    let (was, is) = (common_headers(old), common_headers(new));
    let at = |c: &str| {
        Pointer::root()
            .push("components")
            .push("parameters")
            .push(c)
    };
    for component in was.iter().filter(|c| !is.contains(c)) {
        let lacking: Vec<&str> = new
            .iter()
            .filter(|(_, op)| !op.takes(component))
            .map(|(label, _)| label.as_str())
            .collect();
        let what = if lacking.is_empty() {
            format!("the header parameter `{component}` is no longer common to every operation")
        } else {
            format!(
                "the header parameter `{component}` is no longer common to every operation: \
                 {} do(es) not take it (add it there to keep it a setting of the client)",
                lacking.join(", ")
            )
        };
        d.push(
            &at(component),
            what,
            ok("each operation reads the headers it declares"),
            breaks(
                "the client builder's setter for it is gone and every operation that takes it gains it \
                 as an input (an argument or a `Params` field); the server's request context loses its field",
            ),
        );
    }
    for component in is.iter().filter(|c| !was.contains(c)) {
        let taken_before = old.iter().any(|(_, op)| op.takes(component));
        d.push(
            &at(component),
            format!("the header parameter `{component}` is now common to every operation"),
            ok("each operation reads the headers it declares"),
            if taken_before {
                breaks(
                    "the operations that took it as an input (an argument or a `Params` field) no longer do: \
                     it becomes a setting of the client builder and a field of the server's request context",
                )
            } else {
                ok("the client builder gains a setter for it and the server's request context a field")
            },
        );
    }
}
