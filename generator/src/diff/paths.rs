//! Operations, by method and path: their parameters, request bodies (with
//! their `x-rules`), responses and response headers.

use heck::ToSnakeCase;

use super::differ::Differ;
use super::nodes::{entries, flag, resolve, scalar_text, without_text};
use super::report::{breaks, ok};
use super::schema::{self, Site};
use super::signatures::{self, Input, Inputs};
use super::usage::{Usage, operations_of};
use crate::ir::template_shape;
use crate::parse::{Document, Pointer, QUERYSTRING};

/// One operation of a document.
struct Operation<'a> {
    /// The path with its parameters' names dropped (`/a/{}`): a renamed
    /// path parameter is the same operation.
    key: (String, String),
    path: String,
    method: String,
    node: &'a serde_yaml::Value,
    item: &'a serde_yaml::Value,
    item_at: Pointer,
    at: Pointer,
}

impl Operation<'_> {
    /// How messages name it: "`createCustomer`", or "`POST /a`" without an id.
    fn label(&self) -> String {
        match self.id() {
            Some(id) => format!("`{id}`"),
            None => format!("`{} {}`", self.method.to_uppercase(), self.path),
        }
    }

    fn id(&self) -> Option<&str> {
        self.node
            .get("operationId")
            .and_then(serde_yaml::Value::as_str)
    }

    /// The server trait's method checking the body's `x-rules`.
    fn rules_method(&self) -> String {
        let name = self
            .id()
            .map_or_else(|| format!("{} {}", self.method, self.path), str::to_owned);
        format!("`check_{}_body`", name.to_snake_case())
    }
}

fn operations(doc: &Document) -> Vec<Operation<'_>> {
    let paths = Pointer::root().push("paths");
    let mut out = Vec::new();
    for (path, item) in entries(doc.raw.get("paths")) {
        let item_at = paths.push(&path);
        let item = resolve(doc, item);
        for (method, under, node) in operations_of(item) {
            out.push(Operation {
                key: (template_shape(&path), method.clone()),
                path: path.clone(),
                method,
                node,
                item,
                at: under.iter().fold(item_at.clone(), |at, key| at.push(key)),
                item_at: item_at.clone(),
            });
        }
    }
    out
}

/// Every operation: removed, changed, added.
pub(crate) fn compare(d: &mut Differ<'_>) {
    let (old, new) = (operations(d.old), operations(d.new));
    let labelled = |doc: &Document, ops: &[Operation<'_>]| -> Vec<(String, Inputs)> {
        ops.iter().map(|op| (op.label(), inputs(doc, op))).collect()
    };
    let (old_inputs, new_inputs) = (labelled(d.old, &old), labelled(d.new, &new));
    signatures::compare_common_headers(d, &old_inputs, &new_inputs);
    let common = signatures::common_headers(&old_inputs);
    let new_common = signatures::common_headers(&new_inputs);
    for (a, (_, a_inputs)) in old.iter().zip(&old_inputs) {
        match new.iter().find(|b| b.key == a.key) {
            Some(b) => {
                let signature = Signature {
                    client: d.crates.client,
                    had_params: a_inputs.has_params_struct(&common),
                    common: &new_common,
                };
                operation(d, a, b, &signature);
            }
            None => d.push(
                &a.at,
                format!(
                    "operation {} ({} {}) removed",
                    a.label(),
                    a.method.to_uppercase(),
                    a.path
                ),
                breaks("clients that call it get 404 or 405"),
                breaks("its client method and server trait method are gone"),
            ),
        }
    }
    for b in &new {
        if old.iter().any(|a| a.key == b.key) {
            continue;
        }
        d.push(
            &b.at,
            format!("operation {} ({} {}) added", b.label(), b.method.to_uppercase(), b.path),
            ok("old clients do not call it"),
            if d.crates.server {
                breaks("the server trait gains a required method for it (the client gains a method, which breaks nothing)")
            } else {
                ok("the client gains a method")
            },
        );
    }
}

/// What the old client method looked like, and the new document's common
/// headers: whether an optional input added to an operation is a new field
/// of its `Params` struct or the struct's (and its argument's) first.
struct Signature<'a> {
    /// The client crate is generated.
    client: bool,
    /// The old operation's method had a `params` argument.
    had_params: bool,
    /// The new document's common headers, by component name.
    common: &'a [String],
}

impl Signature<'_> {
    /// The Rust verdict for a new optional input that is a `Params` field.
    fn optional_input_added(&self, what: &str) -> super::report::Judgement {
        if !self.client {
            ok(format!(
                "the server's request struct gains a field ({what})"
            ))
        } else if self.had_params {
            ok(format!(
                "a new field and setter of the operation's `Params` struct ({what}), which has `Default` and is `#[non_exhaustive]`"
            ))
        } else {
            breaks(format!(
                "the operation had no optional input: the client method gains a `params` argument ({what})"
            ))
        }
    }
}

fn operation(d: &mut Differ<'_>, a: &Operation<'_>, b: &Operation<'_>, signature: &Signature<'_>) {
    if a.id() != b.id() {
        d.push(
            &b.at.push("operationId"),
            format!("the operationId of {} {} changed to {}", a.method.to_uppercase(), b.path, b.label()),
            ok("the method and path are the same"),
            breaks("the client method, the server trait method and the operation's types are named after it"),
        );
    }
    let security = |doc: &Document, op: &Operation<'_>| {
        op.node
            .get("security")
            .or_else(|| doc.raw.get("security"))
            .cloned()
    };
    if security(d.old, a) != security(d.new, b) {
        d.push(
            &b.at.push("security"),
            format!("the security requirements of {} changed", b.label()),
            breaks("clients may need other credentials"),
            if d.crates.server {
                breaks("the principal the server method receives may change")
            } else {
                ok("credentials are settings of the client builder")
            },
        );
    }
    parameters(d, a, b, signature);
    body(d, a, b, signature);
    responses(d, a, b);
}

/// A parameter of an operation, resolved.
struct Param<'a> {
    /// Its location and name (lowercase for a header).
    key: (String, String),
    node: &'a serde_yaml::Value,
    /// Where it is listed.
    at: Pointer,
    /// The `components.parameters` entry it refers to.
    component: Option<String>,
}

/// An operation's parameters (the path item's, overridden by the
/// operation's), resolved, with where each is written.
fn parameter_list<'a>(doc: &'a Document, op: &Operation<'a>) -> Vec<Param<'a>> {
    let mut out: Vec<Param<'a>> = Vec::new();
    let lists = [
        (op.item.get("parameters"), op.item_at.push("parameters")),
        (op.node.get("parameters"), op.at.push("parameters")),
    ];
    for (list, at) in lists {
        for (index, parameter) in list
            .and_then(serde_yaml::Value::as_sequence)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let (parameter, component) = signatures::resolve_parameter(doc, parameter);
            let text = |k: &str| parameter.get(k).and_then(scalar_text).unwrap_or_default();
            // A 3.2 querystring that keeps its `content` (JSON, text; a
            // form one is the pairs `parse` made it) is the whole query,
            // a place of its own.
            let whole_query =
                parameter.get(QUERYSTRING).is_some() && parameter.get("content").is_some();
            let location = if whole_query {
                "querystring".to_owned()
            } else {
                text("in")
            };
            let mut name = text("name");
            if location == "header" {
                name = name.to_ascii_lowercase();
            }
            let key = (location, name);
            out.retain(|p| p.key != key);
            out.push(Param {
                key,
                node: parameter,
                at: at.index(index),
                component,
            });
        }
    }
    out
}

/// A parameter's (at `at`) schema and where it is: its `schema`, or that
/// of its one media type (`content`).
fn parameter_schema<'a>(
    parameter: &'a serde_yaml::Value,
    at: &Pointer,
) -> Option<(&'a serde_yaml::Value, Pointer)> {
    if let Some(schema) = parameter.get("schema") {
        return Some((schema, at.push("schema")));
    }
    let (media_type, media) = parameter
        .get("content")
        .and_then(serde_yaml::Value::as_mapping)?
        .iter()
        .next()?;
    let media_type = media_type.as_str()?;
    let schema = media.get("schema")?;
    Some((schema, at.push("content").push(media_type).push("schema")))
}

/// What decides the shape of an operation's client method beyond each input.
fn inputs(doc: &Document, op: &Operation<'_>) -> Inputs {
    let params = parameter_list(doc, op)
        .into_iter()
        .map(|p| Input {
            name: p.node.get("name").and_then(scalar_text).unwrap_or_default(),
            location: p.key.0,
            required: flag(p.node, "required"),
            component: p.component,
        })
        .collect();
    let optional_body = op
        .node
        .get("requestBody")
        .is_some_and(|body| !flag(resolve(doc, body), "required"));
    Inputs {
        params,
        optional_body,
    }
}

fn parameters(d: &mut Differ<'_>, a: &Operation<'_>, b: &Operation<'_>, signature: &Signature<'_>) {
    let (old, new) = (parameter_list(d.old, a), parameter_list(d.new, b));
    let name_of = |p: &serde_yaml::Value| p.get("name").and_then(scalar_text).unwrap_or_default();
    for old_parameter in &old {
        let (key, old_at) = (&old_parameter.key, &old_parameter.at);
        let old_parameter = old_parameter.node;
        let label = format!(
            "{} parameter `{}` of {}",
            key.0,
            name_of(old_parameter),
            b.label()
        );
        let Some(new_parameter) = new.iter().find(|p| p.key == *key) else {
            d.push(
                old_at,
                format!("{label} removed"),
                breaks("the server no longer reads what clients send in it"),
                breaks("its argument or `Params` field is gone"),
            );
            continue;
        };
        let new_at = &new_parameter.at;
        let new_parameter = new_parameter.node;
        let (was, is) = (
            flag(old_parameter, "required"),
            flag(new_parameter, "required"),
        );
        if was && !is {
            d.push(
                new_at,
                format!("{label} is now optional"),
                ok("clients may leave it out"),
                breaks("it moves from an argument of the client method into its `Params` struct"),
            );
        } else if is && !was {
            d.push(
                new_at,
                format!("{label} is now required"),
                breaks("requests that leave it out are refused"),
                breaks("it moves from the `Params` struct into an argument of the client method"),
            );
        }
        let style = |p: &serde_yaml::Value| (p.get("style").cloned(), p.get("explode").cloned());
        if style(old_parameter) != style(new_parameter) {
            d.push(
                new_at,
                format!("the style of {label} changed"),
                breaks("its values are written differently"),
                ok("its Rust type is unchanged"),
            );
        }
        if let (Some((x, x_at)), Some((y, y_at))) = (
            parameter_schema(old_parameter, old_at),
            parameter_schema(new_parameter, new_at),
        ) {
            let site = Site {
                old: x_at,
                new: y_at,
                label: label.clone(),
                usage: Usage::REQUEST,
                required: is,
            };
            schema::compare(d, x, y, &site);
        }
    }
    for parameter in &new {
        if old.iter().any(|p| p.key == parameter.key) {
            continue;
        }
        let label = format!(
            "{} parameter `{}` of {}",
            parameter.key.0,
            name_of(parameter.node),
            b.label()
        );
        if flag(parameter.node, "required") {
            d.push(
                &parameter.at,
                format!("required {label} added"),
                breaks("old clients do not send it"),
                breaks("the client method gains an argument"),
            );
        } else {
            let input = Input {
                location: parameter.key.0.clone(),
                name: name_of(parameter.node),
                required: false,
                component: parameter.component.clone(),
            };
            d.push(
                &parameter.at,
                format!("optional {label} added"),
                ok("old clients leave it out"),
                if input.is_params_field(signature.common) {
                    signature.optional_input_added(&format!("`{}`", input.name))
                } else {
                    ok("the client method's inputs are unchanged")
                },
            );
        }
    }
}

fn body(d: &mut Differ<'_>, a: &Operation<'_>, b: &Operation<'_>, signature: &Signature<'_>) {
    let at = b.at.push("requestBody");
    let label = format!("the request body of {}", b.label());
    let (old, new) = (
        a.node.get("requestBody").map(|n| resolve(d.old, n)),
        b.node.get("requestBody").map(|n| resolve(d.new, n)),
    );
    let (old, new) = match (old, new) {
        (None, None) => return,
        (Some(_), None) => {
            d.push(
                &a.at.push("requestBody"),
                format!("{label} removed"),
                breaks("clients that send one are refused, or it is ignored"),
                breaks("the client method loses its body argument"),
            );
            return;
        }
        (None, Some(new)) => {
            d.push(
                &at,
                format!(
                    "{} {label} added",
                    if flag(new, "required") {
                        "required"
                    } else {
                        "optional"
                    }
                ),
                if flag(new, "required") {
                    breaks("old clients send none")
                } else {
                    ok("old clients send none, which the server accepts")
                },
                if flag(new, "required") {
                    breaks("the client method gains a body argument")
                } else {
                    signature.optional_input_added("`body`")
                },
            );
            return;
        }
        (Some(old), Some(new)) => (old, new),
    };
    let (was, is) = (flag(old, "required"), flag(new, "required"));
    if was != is {
        d.push(
            &at.push("required"),
            format!(
                "{label} is now {}",
                if is { "required" } else { "optional" }
            ),
            if is {
                breaks("requests without one are refused")
            } else {
                ok("clients may leave it out")
            },
            breaks("the client method's body argument changes type"),
        );
    }
    content(
        d,
        old,
        new,
        &a.at.push("requestBody"),
        &at,
        &label,
        Usage::REQUEST,
    );
    rules(d, old, new, &at, b);
}

/// The media types of a body and their schemas.
fn content(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    old_at: &Pointer,
    new_at: &Pointer,
    label: &str,
    usage: Usage,
) {
    let (a, b) = (entries(old.get("content")), entries(new.get("content")));
    let request = usage.request;
    if a.is_empty() != b.is_empty() && !request {
        let (what, wire, rust) = if a.is_empty() {
            (
                format!("{label} now has a body"),
                ok("clients may ignore it"),
                breaks("the client method returns a body instead of `()`"),
            )
        } else {
            (
                format!("{label} no longer has a body"),
                breaks("clients that read it get none"),
                breaks("the client method returns `()`"),
            )
        };
        d.push(new_at, what, wire, rust);
        return;
    }
    for (media, _) in &a {
        if !b.iter().any(|(m, _)| m == media) {
            d.push(
                &old_at.push("content").push(media),
                format!("media type `{media}` removed from {label}"),
                if request {
                    breaks("requests sent as it are refused with 415")
                } else {
                    breaks("clients that ask for it are refused with 406")
                },
                ok("the Rust types do not name media types"),
            );
        }
    }
    for (media, _) in &b {
        if !a.iter().any(|(m, _)| m == media) {
            d.push(
                &new_at.push("content").push(media),
                format!("media type `{media}` added to {label}"),
                ok(if request {
                    "the server accepts one more media type"
                } else {
                    "clients that do not ask for it do not get it"
                }),
                ok("the Rust types do not name media types"),
            );
        }
    }
    // Each pair of schemas once: the media types of a body usually share one.
    let mut compared: Vec<(serde_yaml::Value, serde_yaml::Value)> = Vec::new();
    for (media, old_media) in &a {
        let Some((_, new_media)) = b.iter().find(|(m, _)| m == media) else {
            continue;
        };
        let (Some(x), Some(y)) = (old_media.get("schema"), new_media.get("schema")) else {
            continue;
        };
        let pair = (without_text(x), without_text(y));
        if compared.contains(&pair) {
            continue;
        }
        compared.push(pair);
        let site = Site {
            old: old_at.push("content").push(media).push("schema"),
            new: new_at.push("content").push(media).push("schema"),
            label: label.to_owned(),
            usage,
            required: true,
        };
        schema::compare(d, x, y, &site);
    }
}

/// The body's `x-rules`: checks across fields the server applies, each a
/// code; the server trait has a method for them when there are any.
fn rules(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    at: &Pointer,
    op: &Operation<'_>,
) {
    let codes = |body: &serde_yaml::Value| -> Vec<String> {
        body.get("x-rules")
            .and_then(serde_yaml::Value::as_sequence)
            .into_iter()
            .flatten()
            .filter_map(|rule| rule.get("code").and_then(scalar_text))
            .collect()
    };
    let (a, b) = (codes(old), codes(new));
    let method = op.rules_method();
    let server = d.crates.server;
    for (index, code) in b.iter().enumerate() {
        if a.contains(code) {
            continue;
        }
        d.push(
            &at.push("x-rules").index(index),
            format!("body rule `{code}` added to {}", op.label()),
            breaks("requests that break it are refused with 400"),
            if server && a.is_empty() {
                breaks(format!(
                    "the server trait gains {method}, a required method"
                ))
            } else if server {
                ok(format!(
                    "the server checks it in {method}, which exists already"
                ))
            } else {
                ok("the client and models are unchanged")
            },
        );
    }
    for (index, code) in a.iter().enumerate() {
        if b.contains(code) {
            continue;
        }
        d.push(
            &op.at.push("requestBody").push("x-rules").index(index),
            format!("body rule `{code}` removed from {}", op.label()),
            ok("requests it refused may now be accepted"),
            if server && b.is_empty() {
                breaks(format!(
                    "the server trait loses {method}: implementations of it no longer compile"
                ))
            } else {
                ok("the Rust API is unchanged")
            },
        );
    }
}

fn responses(d: &mut Differ<'_>, a: &Operation<'_>, b: &Operation<'_>) {
    let (old, new) = (
        entries(a.node.get("responses")),
        entries(b.node.get("responses")),
    );
    let success = |status: &str| status.starts_with('2');
    for (status, old_response) in &old {
        let old_at = a.at.push("responses").push(status);
        let label = format!("the {status} response of {}", b.label());
        let Some((_, new_response)) = new.iter().find(|(s, _)| s == status) else {
            d.push(
                &old_at,
                format!("{label} removed"),
                ok("the server no longer answers with it"),
                if success(status) {
                    breaks(
                        "the client's result type or the server's response variant for it is gone",
                    )
                } else {
                    ok("errors are not part of the success types")
                },
            );
            continue;
        };
        let new_at = b.at.push("responses").push(status);
        let (x, y) = (resolve(d.old, old_response), resolve(d.new, new_response));
        content(d, x, y, &old_at, &new_at, &label, Usage::RESPONSE);
        headers(d, x, y, &old_at, &new_at, &label);
    }
    for (status, _) in &new {
        if old.iter().any(|(s, _)| s == status) {
            continue;
        }
        let label = format!("the {status} response of {}", b.label());
        let at = b.at.push("responses").push(status);
        if success(status) {
            d.push(
                &at,
                format!("{label} added"),
                breaks("clients written for the documented statuses may not expect it"),
                if d.crates.client {
                    breaks("the client method's result type changes to take it")
                } else {
                    ok("the server's response enum gains a variant, which breaks nothing that builds one")
                },
            );
        } else {
            d.push(
                &at,
                format!("{label} added"),
                ok("clients handle error statuses already"),
                ok("errors are not part of the success types"),
            );
        }
    }
}

fn headers(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    old_at: &Pointer,
    new_at: &Pointer,
    label: &str,
) {
    let (a, b) = (
        by_lowercase(entries(old.get("headers"))),
        by_lowercase(entries(new.get("headers"))),
    );
    for (key, name, old_header) in &a {
        let Some((_, new_name, new_header)) = b.iter().find(|(k, _, _)| k == key) else {
            d.push(
                &old_at.push("headers").push(name),
                format!("header `{name}` removed from {label}"),
                breaks("clients that read it no longer get it"),
                breaks("its accessor, and its field in the server's response variant, are gone"),
            );
            continue;
        };
        let (x, y) = (resolve(d.old, old_header), resolve(d.new, new_header));
        if let (Some(x), Some(y)) = (x.get("schema"), y.get("schema")) {
            let site = Site {
                old: old_at.push("headers").push(name).push("schema"),
                new: new_at.push("headers").push(new_name).push("schema"),
                label: format!("header `{new_name}` of {label}"),
                usage: Usage::RESPONSE,
                required: flag(resolve(d.new, new_header), "required"),
            };
            schema::compare(d, x, y, &site);
        }
    }
    for (key, name, _) in &b {
        if a.iter().any(|(k, _, _)| k == key) {
            continue;
        }
        d.push(
            &new_at.push("headers").push(name),
            format!("header `{name}` added to {label}"),
            ok("clients ignore headers they do not read"),
            if d.crates.server {
                breaks("the server's response variant gains a field for it (the client's `Response<T>` gains an accessor, which breaks nothing)")
            } else {
                ok("the client's `Response<T>` gains an accessor")
            },
        );
    }
}

/// Header names are case-insensitive: each entry with its lowercase name first.
fn by_lowercase(
    list: Vec<(String, &serde_yaml::Value)>,
) -> Vec<(String, String, &serde_yaml::Value)> {
    list.into_iter()
        .map(|(name, header)| (name.to_ascii_lowercase(), name, header))
        .collect()
}
