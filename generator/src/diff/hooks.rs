//! Webhooks and callbacks: requests the API sends to its users' receivers
//! (D60). They travel the other way from an operation's: the API sends
//! the payload and a receiver reads it, as a client reads a response, and
//! the API reads the receiver's answer. So a payload is judged as a
//! response is and a hook's answer as a request, and the Rust verdicts
//! name the receiver traits of the server stubs and the senders of the
//! client.

use serde_yaml::Value;

use super::differ::Differ;
use super::nodes::{entries, flag, resolve};
use super::report::{Judgement, breaks, ok};
use super::schema::{self, Site};
use super::usage::{Usage, operations_of};
use crate::ir::template_shape;
use crate::parse::{Document, Pointer};

/// One webhook or callback operation of a document.
struct Hook<'a> {
    /// What identifies it across versions: the webhook's name, or the
    /// operation's path and method with the callback's name and URL
    /// expression; then its own method.
    key: Vec<String>,
    /// The path and method of the operation a callback belongs to.
    operation: Option<(String, String)>,
    /// How messages name it: "webhook `newPet` (POST)".
    label: String,
    item: &'a Value,
    item_at: Pointer,
    node: &'a Value,
    at: Pointer,
}

/// Every webhook and callback: removed, changed, added.
pub(crate) fn compare(d: &mut Differ<'_>) {
    let (old, new) = (hooks(d.old), hooks(d.new));
    let old_operations = operation_keys(d.old);
    for a in &old {
        match new.iter().find(|b| b.key == a.key) {
            Some(b) => hook(d, a, b),
            None => d.push(
                &a.at,
                format!("{} removed", a.label),
                ok("the API no longer sends it; its receivers stay valid"),
                if d.crates.server || d.crates.client {
                    breaks("its method of the receiver trait (server stubs) and of the sender (client) is gone")
                } else {
                    ok("the models crate has no receiver or sender")
                },
            ),
        }
    }
    for b in &new {
        if old.iter().any(|a| a.key == b.key) {
            continue;
        }
        let wire = match &b.operation {
            Some(operation) if old_operations.contains(operation) => breaks(
                "the API now calls back the URLs that clients of an existing operation give, which their receivers were not written for",
            ),
            Some(_) => ok("its operation is new: old clients do not call it"),
            None => ok("a webhook reaches only the receivers subscribed to it"),
        };
        let rust = if d.crates.server {
            breaks(
                "the receiver trait of the server stubs gains a required method for it (the client's sender gains a method, which breaks nothing)",
            )
        } else if d.crates.client {
            ok("the client's sender gains a method")
        } else {
            ok("the models crate has no receiver or sender")
        };
        d.push(&b.at, format!("{} added", b.label), wire, rust);
    }
}

fn hooks(doc: &Document) -> Vec<Hook<'_>> {
    let mut out = Vec::new();
    let webhooks = Pointer::root().push("webhooks");
    for (name, item) in entries(doc.raw.get("webhooks")) {
        let item = resolve(doc, item);
        let item_at = webhooks.push(&name);
        for (method, under, node) in operations_of(item) {
            out.push(Hook {
                key: vec!["webhook".to_owned(), name.clone(), method.clone()],
                operation: None,
                label: format!("webhook `{name}` ({})", method.to_uppercase()),
                item,
                item_at: item_at.clone(),
                node,
                at: under.iter().fold(item_at.clone(), |at, key| at.push(key)),
            });
        }
    }
    let paths = Pointer::root().push("paths");
    for (path, item) in entries(doc.raw.get("paths")) {
        let path_at = paths.push(&path);
        for (op_method, op_under, op) in operations_of(resolve(doc, item)) {
            let op_at = op_under
                .iter()
                .fold(path_at.clone(), |at, key| at.push(key));
            let operation = op.get("operationId").and_then(Value::as_str).map_or_else(
                || format!("`{} {path}`", op_method.to_uppercase()),
                |id| format!("`{id}`"),
            );
            for (name, callback) in entries(op.get("callbacks")) {
                for (expression, item) in entries(Some(resolve(doc, callback))) {
                    let item = resolve(doc, item);
                    let item_at = op_at.push("callbacks").push(&name).push(&expression);
                    for (method, under, node) in operations_of(item) {
                        out.push(Hook {
                            key: vec![
                                template_shape(&path),
                                op_method.clone(),
                                name.clone(),
                                expression.clone(),
                                method.clone(),
                            ],
                            operation: Some((template_shape(&path), op_method.clone())),
                            label: format!(
                                "callback `{name}` of {operation} ({} {expression})",
                                method.to_uppercase()
                            ),
                            item,
                            item_at: item_at.clone(),
                            node,
                            at: under.iter().fold(item_at.clone(), |at, key| at.push(key)),
                        });
                    }
                }
            }
        }
    }
    out
}

/// The path (parameter names dropped) and method of every operation.
fn operation_keys(doc: &Document) -> Vec<(String, String)> {
    entries(doc.raw.get("paths"))
        .into_iter()
        .flat_map(|(path, item)| {
            operations_of(resolve(doc, item))
                .into_iter()
                .map(move |(method, _, _)| (template_shape(&path), method))
        })
        .collect()
}

fn hook(d: &mut Differ<'_>, a: &Hook<'_>, b: &Hook<'_>) {
    parameters(d, a, b);
    payload(d, a, b);
    answers(d, a, b);
}

/// The parameters the API sends (a signature header, say), by where they
/// are and their name: the operation's over its path item's.
fn parameters(d: &mut Differ<'_>, a: &Hook<'_>, b: &Hook<'_>) {
    let (old, new) = (parameter_list(d.old, a), parameter_list(d.new, b));
    for (key, name, old_at, old_param) in &old {
        let Some((_, _, new_at, new_param)) = new.iter().find(|(k, ..)| k == key) else {
            d.push(
                old_at,
                format!("parameter `{name}` removed from {}", b.label),
                breaks("receivers that read it no longer get it"),
                breaks("its field of the receiver's request struct, and its input of the sender, are gone"),
            );
            continue;
        };
        if let (Some(x), Some(y)) = (old_param.get("schema"), new_param.get("schema")) {
            let site = Site {
                old: old_at.push("schema"),
                new: new_at.push("schema"),
                label: format!("parameter `{name}` of {}", b.label),
                usage: Usage::RESPONSE,
                required: flag(new_param, "required"),
            };
            schema::compare(d, x, y, &site);
        }
    }
    for (key, name, at, param) in &new {
        if old.iter().any(|(k, ..)| k == key) {
            continue;
        }
        let rust = if flag(param, "required") && d.crates.client {
            breaks("the sender gains a required input for it")
        } else {
            ok("the receiver's request struct gains a field")
        };
        d.push(
            at,
            format!("parameter `{name}` added to {}", b.label),
            ok("receivers ignore what they do not read"),
            rust,
        );
    }
}

/// A parameter of a hook: its key, `(in, name)` with a header's name
/// lowercase, its name as written, where it is, and its node resolved.
type Param<'a> = ((String, String), String, Pointer, &'a Value);

/// A hook's parameters: the operation's over its path item's.
fn parameter_list<'a>(doc: &'a Document, hook: &Hook<'a>) -> Vec<Param<'a>> {
    let mut out: Vec<Param<'a>> = Vec::new();
    let lists = [(hook.item, &hook.item_at), (hook.node, &hook.at)];
    for (owner, owner_at) in lists {
        let list = owner.get("parameters").and_then(Value::as_sequence);
        for (index, param) in list.into_iter().flatten().enumerate() {
            let param = resolve(doc, param);
            let (Some(place), Some(name)) = (
                param.get("in").and_then(Value::as_str),
                param.get("name").and_then(Value::as_str),
            ) else {
                continue;
            };
            let key = if place == "header" {
                name.to_ascii_lowercase()
            } else {
                name.to_owned()
            };
            let key = (place.to_owned(), key);
            out.retain(|(k, ..)| *k != key);
            let at = owner_at.push("parameters").index(index);
            out.push((key, name.to_owned(), at, param));
        }
    }
    out
}

/// The request body the API sends: read by receivers as a response is.
fn payload(d: &mut Differ<'_>, a: &Hook<'_>, b: &Hook<'_>) {
    let label = format!("the payload of {}", b.label);
    let (old_at, new_at) = (a.at.push("requestBody"), b.at.push("requestBody"));
    let (old, new) = (
        a.node.get("requestBody").map(|n| resolve(d.old, n)),
        b.node.get("requestBody").map(|n| resolve(d.new, n)),
    );
    let (old, new) = match (old, new) {
        (None, None) => return,
        (Some(_), None) => {
            d.push(
                &old_at,
                format!("{label} removed"),
                breaks("receivers that read it get none"),
                breaks("the receiver's request loses its body, and the sender its body input"),
            );
            return;
        }
        (None, Some(_)) => {
            d.push(
                &new_at,
                format!("{label} added"),
                ok("receivers ignore a body they do not read"),
                breaks("the receiver's request gains a body, and the sender a body input"),
            );
            return;
        }
        (Some(old), Some(new)) => (old, new),
    };
    let (was, is) = (flag(old, "required"), flag(new, "required"));
    if was != is {
        let wire = if is {
            ok("receivers always get one")
        } else {
            breaks("receivers may get none")
        };
        d.push(
            &new_at.push("required"),
            format!(
                "{label} is now {}",
                if is { "required" } else { "optional" }
            ),
            wire,
            breaks("the body's type in the receiver's request and the sender's input changes"),
        );
    }
    let media = |what: &str, added: bool| -> (String, Judgement) {
        if added {
            (
                format!("media type `{what}` added to {label}"),
                breaks("receivers may be sent a media type they do not accept"),
            )
        } else {
            (
                format!("media type `{what}` removed from {label}"),
                ok("the API sends one media type fewer"),
            )
        }
    };
    schemas(
        d,
        (old, &old_at),
        (new, &new_at),
        &label,
        Usage::RESPONSE,
        media,
    );
}

/// The receivers' answers, by status: read by the API as a request is.
fn answers(d: &mut Differ<'_>, a: &Hook<'_>, b: &Hook<'_>) {
    let (old, new) = (
        entries(a.node.get("responses")),
        entries(b.node.get("responses")),
    );
    let success = |status: &str| status.starts_with('2');
    for (status, old_answer) in &old {
        let old_at = a.at.push("responses").push(status);
        let label = format!("the {status} answer to {}", b.label);
        let Some((_, new_answer)) = new.iter().find(|(s, _)| s == status) else {
            d.push(
                &old_at,
                format!("{label} removed"),
                breaks("receivers that answer with it are no longer understood"),
                if success(status) && (d.crates.server || d.crates.client) {
                    breaks("its variant of the receiver's responses, and of the sender's result, is gone")
                } else {
                    ok("errors are not part of the success types")
                },
            );
            continue;
        };
        let new_at = b.at.push("responses").push(status);
        let (x, y) = (resolve(d.old, old_answer), resolve(d.new, new_answer));
        let media = |what: &str, added: bool| -> (String, Judgement) {
            if added {
                (
                    format!("media type `{what}` added to {label}"),
                    ok("the API accepts one more media type"),
                )
            } else {
                (
                    format!("media type `{what}` removed from {label}"),
                    breaks("receivers that answer in it are no longer understood"),
                )
            }
        };
        schemas(d, (x, &old_at), (y, &new_at), &label, Usage::REQUEST, media);
    }
    for (status, _) in &new {
        if old.iter().any(|(s, _)| s == status) {
            continue;
        }
        let rust = if !success(status) {
            ok("errors are not part of the success types")
        } else if d.crates.client {
            breaks("the sender's result type changes to take it")
        } else {
            ok("the receiver's response enum gains a variant, which breaks nothing that builds one")
        };
        d.push(
            &b.at.push("responses").push(status),
            format!("the {status} answer to {} added", b.label),
            ok("old receivers do not answer with it"),
            rust,
        );
    }
}

/// The media types of a payload or answer, and their schemas; `media`
/// names a media type added (true) or removed and judges it on the wire.
fn schemas(
    d: &mut Differ<'_>,
    (old, old_at): (&Value, &Pointer),
    (new, new_at): (&Value, &Pointer),
    label: &str,
    usage: Usage,
    media: impl Fn(&str, bool) -> (String, Judgement),
) {
    let (a, b) = (entries(old.get("content")), entries(new.get("content")));
    for (name, old_media) in &a {
        let Some((_, new_media)) = b.iter().find(|(m, _)| m == name) else {
            let (what, wire) = media(name, false);
            let rust = ok("the Rust types do not name media types");
            d.push(&old_at.push("content").push(name), what, wire, rust);
            continue;
        };
        if let (Some(x), Some(y)) = (old_media.get("schema"), new_media.get("schema")) {
            let site = Site {
                old: old_at.push("content").push(name).push("schema"),
                new: new_at.push("content").push(name).push("schema"),
                label: label.to_owned(),
                usage,
                required: true,
            };
            schema::compare(d, x, y, &site);
        }
    }
    for (name, _) in &b {
        if !a.iter().any(|(m, _)| m == name) {
            let (what, wire) = media(name, true);
            let rust = ok("the Rust types do not name media types");
            d.push(&new_at.push("content").push(name), what, wire, rust);
        }
    }
}
