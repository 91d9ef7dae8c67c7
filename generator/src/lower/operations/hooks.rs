//! Webhooks and callbacks lowered into operations, as the API's own are
//! (by [`OperationLowering`]), with a route of their own: the document
//! gives a webhook no path and a callback a URL known only at run time, so
//! their receivers mount a webhook at `/<its name>`, and a callback at the
//! fixed path its expression ends with (`{$request.body#/url}/events`:
//! `/events`), else at `/<its name>` too.
//!
//! Neither takes the document's global `security`: it is the API's, whose
//! server receives it; a hook's receiver is the API's user, and a hook
//! needs credentials only where it declares them itself.

use openapiv3::{PathItem, ReferenceOr};

use super::operation::{OperationLowering, RESERVED_FNS, methods};
use crate::ir::{Callback, Method, Operation, ParamLocation, UrlPart};
use crate::lower::schemas::TypeTable;
use crate::names::{Namespace, field_name};
use crate::parse::{Document, Pointer};

/// What lowering the hooks gives: the webhooks, the callbacks, and one line
/// per hook or expression left out, with its pointer.
#[derive(Default)]
pub(crate) struct Hooks {
    pub webhooks: Vec<Operation>,
    pub callbacks: Vec<Callback>,
    pub left_out: Vec<String>,
}

/// The webhooks of `doc` (its `webhooks` map) and the callbacks of
/// `operations`, lowered. A hook that cannot be lowered is left out and
/// named in [`Hooks::left_out`]: the API's own operations do not depend on it.
pub(crate) fn lower_hooks<'d>(
    doc: &'d Document,
    types: &mut TypeTable<'d>,
    operations: &[Operation],
) -> Hooks {
    let mut hooks = Hooks::default();
    let taken: Vec<&str> = operations
        .iter()
        .map(|op| op.type_prefix.as_str())
        .collect();
    let mut prefixes = Namespace::with_reserved(&taken);
    let mut group = Group {
        doc,
        types,
        fn_names: Namespace::with_reserved(RESERVED_FNS),
        routes: std::collections::HashSet::new(),
        left_out: &mut hooks.left_out,
    };
    let webhooks_at = Pointer::root().push("webhooks");
    if let Some(serde_yaml::Value::Mapping(webhooks)) = doc.raw.get("webhooks") {
        for (name, node) in webhooks {
            let Some(name) = name.as_str() else { continue };
            let at = webhooks_at.push(name);
            hooks
                .webhooks
                .extend(group.path_item(name, None, node, &at, &mut prefixes, None));
        }
    }
    let mut group = Group {
        fn_names: Namespace::with_reserved(RESERVED_FNS),
        routes: std::collections::HashSet::new(),
        ..group
    };
    let mut url_fns = Namespace::default();
    for (owner, op) in operations.iter().enumerate() {
        let Some(serde_yaml::Value::Mapping(callbacks)) =
            doc.node(&op.origin).and_then(|node| node.get("callbacks"))
        else {
            continue;
        };
        for (name, callback) in callbacks {
            let (Some(name), serde_yaml::Value::Mapping(expressions)) = (name.as_str(), callback)
            else {
                continue;
            };
            let callback_at = op.origin.push("callbacks").push(name);
            for (i, (expression, node)) in expressions.iter().enumerate() {
                let Some(expression) = expression.as_str() else {
                    continue;
                };
                let at = callback_at.push(expression);
                let base = if i == 0 {
                    name.to_owned()
                } else {
                    format!("{name} {i}")
                };
                let route = fixed_suffix(expression).map(str::to_owned);
                let ops = group.path_item(&base, route, node, &at, &mut prefixes, Some(&op.id));
                if ops.is_empty() {
                    continue;
                }
                let url = url_parts(expression, op);
                if url.is_none() {
                    group.left_out.push(format!(
                        "the URL function of callback `{name}` (its expression `{expression}` \
                         names a value the request does not hold) at {}{}",
                        doc.file,
                        doc.user_pointer(&at)
                    ));
                }
                hooks.callbacks.push(Callback {
                    name: name.to_owned(),
                    owner,
                    expression: expression.to_owned(),
                    url,
                    url_fn: url_fns.claim(format!("{}_{}_url", op.fn_name, field_name(&base))),
                    operations: ops,
                    origin: at,
                });
            }
        }
    }
    hooks
}

/// The webhooks or the callbacks: their names and routes are claimed among
/// each other, apart from the API's.
struct Group<'a, 'd> {
    doc: &'d Document,
    types: &'a mut TypeTable<'d>,
    fn_names: Namespace,
    routes: std::collections::HashSet<String>,
    left_out: &'a mut Vec<String>,
}

impl<'d> Group<'_, 'd> {
    /// The operations of the path item `node` at `at`, the hook `name`
    /// (for a callback, of the operation `owner`), mounted at `route`
    /// unless another hook has it (at `/<name>` without one).
    fn path_item(
        &mut self,
        name: &str,
        route: Option<String>,
        node: &serde_yaml::Value,
        at: &Pointer,
        prefixes: &mut Namespace,
        owner: Option<&str>,
    ) -> Vec<Operation> {
        let doc = self.doc;
        let kind = if owner.is_some() {
            "callback"
        } else {
            "webhook"
        };
        let item: ReferenceOr<PathItem> = match crate::parse::deserialize_at(node, &doc.file, at) {
            Ok(item) => item,
            Err(error) => {
                self.left_out
                    .push(format!("{kind} `{name}` ({})", doc.user_error(error)));
                return Vec::new();
            }
        };
        let item = match doc.resolve(&item, at) {
            Ok(item) => item,
            Err(error) => {
                self.left_out
                    .push(format!("{kind} `{name}` ({})", doc.user_error(error)));
                return Vec::new();
            }
        };
        let item_at = item.pointer.clone();
        let route = self.route(name, route);
        let ops = match methods(doc, &item.value, &item_at) {
            Ok(ops) => ops,
            Err(error) => {
                self.left_out
                    .push(format!("{kind} `{name}` ({})", doc.user_error(error)));
                return Vec::new();
            }
        };
        let several = ops.len() > 1;
        let mut lowered = Vec::new();
        for (method, op, op_at) in ops {
            let own_security = op.security.is_some();
            let mut named = op.into_owned();
            if named.operation_id.is_none() {
                named.operation_id = Some(hook_id(owner, name, several.then_some(&method)));
            }
            let result = OperationLowering {
                doc,
                types: &mut *self.types,
                at: &op_at,
                skipped: &mut Default::default(),
            }
            .lower(
                &route,
                method,
                &named,
                &item.value,
                &item_at,
                &mut self.fn_names,
                prefixes,
            );
            match result {
                Ok(mut operation) => {
                    // The document's global security is the API's own.
                    if !own_security {
                        operation.security.clear();
                    }
                    lowered.push(operation);
                }
                Err(error) => self
                    .left_out
                    .push(format!("{kind} `{name}` ({})", doc.user_error(error))),
            }
        }
        lowered
    }

    /// The route a receiver mounts the hook `name` at: `fixed` when it is
    /// given and free, else `/<name>`, or `/<name in snake_case>` when the
    /// name has characters a path segment would have to escape; a number
    /// after it when another hook has the route already.
    fn route(&mut self, name: &str, fixed: Option<String>) -> String {
        if let Some(fixed) = fixed.filter(|fixed| !self.routes.contains(fixed)) {
            self.routes.insert(fixed.clone());
            return fixed;
        }
        let mut route = if is_plain_segment(name) {
            format!("/{name}")
        } else {
            format!("/{}", field_name(name))
        };
        let base = route.clone();
        let mut n = 2;
        while !self.routes.insert(route.clone()) {
            route = format!("{base}{n}");
            n += 1;
        }
        route
    }
}

/// Whether `text` is a path segment that needs no escaping.
fn is_plain_segment(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// The fixed path a callback's URL expression ends with, after its last
/// runtime expression (`{$request.body#/url}/events`: `/events`), when it
/// is one of plain segments.
fn fixed_suffix(expression: &str) -> Option<&str> {
    let (_, suffix) = expression.rsplit_once('}')?;
    let segments = suffix.strip_prefix('/')?;
    segments.split('/').all(is_plain_segment).then_some(suffix)
}

/// The id of a hook's operation without an `operationId`: its name, after
/// the operation's for a callback, and the method when it has several.
fn hook_id(owner: Option<&str>, name: &str, method: Option<&Method>) -> String {
    let mut id = match owner {
        Some(owner) => format!("{owner} {name}"),
        None => name.to_owned(),
    };
    if let Some(method) = method {
        id.push(' ');
        id.push_str(&method.as_str().to_ascii_lowercase());
    }
    id
}

/// A callback's URL expression read into parts, resolved against the
/// request of `op`; `None` when it names what the request does not hold.
pub(crate) fn url_parts(expression: &str, op: &Operation) -> Option<Vec<UrlPart>> {
    let mut parts = Vec::new();
    // An expression alone need not be in braces (`$request.body#/url`).
    if expression.starts_with('$') {
        return Some(vec![expression_part(expression, op)?]);
    }
    let mut rest = expression;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(UrlPart::Literal(rest[..open].to_owned()));
        }
        let close = rest[open..].find('}')? + open;
        parts.push(expression_part(&rest[open + 1..close], op)?);
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(UrlPart::Literal(rest.to_owned()));
    }
    Some(parts)
}

fn expression_part(expression: &str, op: &Operation) -> Option<UrlPart> {
    let source = expression.trim().strip_prefix("$request.")?;
    if let Some(pointer) = source.strip_prefix("body") {
        let body = op.body.as_ref()?;
        let pointer = match pointer.strip_prefix('#') {
            Some(pointer) => pointer,
            None if pointer.is_empty() => "",
            None => return None,
        };
        let readable = match &body.kind {
            crate::ir::BodyKind::Json(_) => pointer.is_empty() || pointer.starts_with('/'),
            crate::ir::BodyKind::Text => pointer.is_empty(),
            _ => false,
        };
        return readable.then(|| UrlPart::Body(pointer.to_owned()));
    }
    if let Some(name) = source.strip_prefix("header.") {
        return crate::ir::is_header_name(name).then(|| UrlPart::Header(name.to_ascii_lowercase()));
    }
    let (location, name) = if let Some(name) = source.strip_prefix("query.") {
        (ParamLocation::Query, name)
    } else if let Some(name) = source.strip_prefix("path.") {
        (ParamLocation::Path, name)
    } else {
        return None;
    };
    op.params_in(location)
        .find(|p| p.wire == name && p.dynamic_query.is_none() && !p.object)
        .map(|p| UrlPart::Param(p.field.clone()))
}

#[cfg(test)]
mod tests {
    use crate::ir::UrlPart;
    use crate::testing::api;

    /// Each form of a callback's URL expression, read against its
    /// operation's request; a form the request cannot resolve is noted.
    #[test]
    fn reads_callback_urls_and_mounts_callbacks_at_their_fixed_path() {
        let api = api(
            "paths:\n  /subscribe/{id}:\n    post:\n      operationId: subscribe\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n        - {name: to, in: query, schema: {type: string}}\n      requestBody:\n        content: {application/json: {schema: {type: object, properties: {url: {type: string}}}}}\n      callbacks:\n        onBody:\n          '{$request.body#/url}/events': {post: {responses: {'200': {description: ok}}}}\n        onMixed:\n          'https://example.com/{$request.path.id}?to={$request.query.to}&by={$request.header.X-By}': {post: {responses: {'200': {description: ok}}}}\n        onBare:\n          '$request.body#/url': {put: {responses: {'200': {description: ok}}}}\n        onAnswer:\n          '{$response.body#/url}': {post: {responses: {'200': {description: ok}}}}\n      responses: {'200': {description: ok}}\n",
        );
        let urls: Vec<_> = api.callbacks.iter().map(|c| c.url.clone()).collect();
        assert_eq!(
            urls,
            [
                Some(vec![
                    UrlPart::Body("/url".to_owned()),
                    UrlPart::Literal("/events".to_owned())
                ]),
                Some(vec![
                    UrlPart::Literal("https://example.com/".to_owned()),
                    UrlPart::Param("id".to_owned()),
                    UrlPart::Literal("?to=".to_owned()),
                    UrlPart::Param("to".to_owned()),
                    UrlPart::Literal("&by=".to_owned()),
                    UrlPart::Header("x-by".to_owned()),
                ]),
                Some(vec![UrlPart::Body("/url".to_owned())]),
                None,
            ]
        );
        let routes: Vec<&str> = api
            .callbacks
            .iter()
            .map(|c| c.operations[0].path.as_str())
            .collect();
        assert_eq!(routes, ["/events", "/onMixed", "/onBare", "/onAnswer"]);
        let url_fns: Vec<&str> = api.callbacks.iter().map(|c| c.url_fn.as_str()).collect();
        assert_eq!(url_fns[0], "subscribe_on_body_url");
        assert!(
            api.notes.iter().any(|note| note.contains(
                "the URL function of callback `onAnswer` (its expression `{$response.body#/url}`"
            )),
            "{:?}",
            api.notes
        );
    }

    /// Webhooks are mounted at their names, escaped names in snake_case;
    /// the document's global security is the API's, not theirs.
    #[test]
    fn mounts_webhooks_at_their_names_without_the_global_security() {
        let api = api(
            "paths: {}\nsecurity: [{key: []}]\ncomponents:\n  securitySchemes:\n    key: {type: apiKey, in: header, name: X-Key}\nwebhooks:\n  pet.added:\n    post: {responses: {'200': {description: ok}}}\n  Pet removed:\n    post:\n      security: [{key: []}]\n      responses: {'200': {description: ok}}\n",
        );
        let hooks: Vec<(&str, &str, bool)> = api
            .webhooks
            .iter()
            .map(|op| {
                (
                    op.fn_name.as_str(),
                    op.path.as_str(),
                    op.security.is_empty(),
                )
            })
            .collect();
        assert_eq!(
            hooks,
            [
                ("pet_added", "/pet.added", true),
                ("pet_removed", "/pet_removed", false)
            ]
        );
    }

    /// Webhooks and callbacks are each a set of their own: a callback may
    /// have a webhook's function name and route. Within one set, the
    /// methods of a path item without operationIds are told apart by
    /// their method.
    #[test]
    fn webhooks_and_callbacks_are_named_and_routed_apart() {
        let api = api(concat!(
            "paths:\n",
            "  /subscribe:\n",
            "    post:\n",
            "      operationId: subscribe\n",
            "      requestBody: {content: {application/json: {schema: {type: object, properties: {url: {type: string}}}}}}\n",
            "      callbacks:\n",
            "        placed:\n",
            "          '{$request.body#/url}': {post: {responses: {'200': {description: ok}}}}\n",
            "      responses: {'200': {description: ok}}\n",
            "webhooks:\n",
            "  subscribe placed:\n",
            "    post: {responses: {'200': {description: ok}}}\n",
            "  pet:\n",
            "    post: {responses: {'200': {description: ok}}}\n",
            "    put: {responses: {'200': {description: ok}}}\n",
            "  placed:\n",
            "    post: {responses: {'200': {description: ok}}}\n",
        ));
        let named = |ops: &[crate::ir::Operation]| -> Vec<(String, String)> {
            ops.iter()
                .map(|op| (op.fn_name.clone(), op.path.clone()))
                .collect()
        };
        let callbacks: Vec<crate::ir::Operation> = api
            .callbacks
            .iter()
            .flat_map(|c| c.operations.clone())
            .collect();
        let pairs = |expected: &[(&str, &str)]| -> Vec<(String, String)> {
            expected
                .iter()
                .map(|(name, path)| ((*name).to_owned(), (*path).to_owned()))
                .collect()
        };
        assert_eq!(
            named(&api.webhooks),
            pairs(&[
                ("subscribe_placed", "/subscribe_placed"),
                ("pet_put", "/pet"),
                ("pet_post", "/pet"),
                ("placed", "/placed"),
            ])
        );
        assert_eq!(named(&callbacks), pairs(&[("subscribe_placed", "/placed")]));
    }

    /// Webhooks whose names give one route are mounted at it numbered in
    /// turn: `/a_b`, `/a_b2`, `/a_b3`.
    #[test]
    fn webhooks_of_one_route_are_numbered() {
        let api = api(concat!(
            "paths: {}\n",
            "webhooks:\n",
            "  a_b: {post: {responses: {'200': {description: ok}}}}\n",
            "  a b: {post: {responses: {'200': {description: ok}}}}\n",
            "  A B: {post: {responses: {'200': {description: ok}}}}\n",
        ));
        let routes: Vec<&str> = api.webhooks.iter().map(|op| op.path.as_str()).collect();
        assert_eq!(routes, ["/a_b", "/a_b2", "/a_b3"]);
    }

    /// An expression names a request value the generated client can put in
    /// the URL, or the callback gets no URL function: not a part of the
    /// body but `#`'s pointer, not a parameter the request lacks, nor one
    /// spread over several pairs (an object, a dynamic query).
    #[test]
    fn a_callback_url_names_one_value_of_the_request() {
        let api = api(concat!(
            "paths:\n",
            "  /subscribe:\n",
            "    post:\n",
            "      operationId: subscribe\n",
            "      parameters:\n",
            "        - {name: to, in: query, schema: {type: string}}\n",
            "        - {name: filter, in: query, style: deepObject, schema: {type: object, properties: {a: {type: string}}}}\n",
            "        - {name: dqb, in: query, schema: {type: string}, x-dynamic-query: {properties: {id: {type: string}}}}\n",
            "      requestBody:\n",
            "        content: {application/json: {schema: {type: object, properties: {url: {type: string}}}}}\n",
            "      callbacks:\n",
            "        whole: {'{$request.body}': {post: {responses: {'200': {description: ok}}}}}\n",
            "        glued: {'{$request.bodyurl}': {post: {responses: {'200': {description: ok}}}}}\n",
            "        to: {'{$request.query.to}': {post: {responses: {'200': {description: ok}}}}}\n",
            "        missing: {'{$request.query.from}': {post: {responses: {'200': {description: ok}}}}}\n",
            "        object: {'{$request.query.filter}': {post: {responses: {'200': {description: ok}}}}}\n",
            "        dynamic: {'{$request.query.dqb}': {post: {responses: {'200': {description: ok}}}}}\n",
            "      responses: {'200': {description: ok}}\n",
        ));
        let urls: Vec<(&str, Option<&Vec<UrlPart>>)> = api
            .callbacks
            .iter()
            .map(|c| (c.name.as_str(), c.url.as_ref()))
            .collect();
        assert_eq!(
            urls,
            [
                ("whole", Some(&vec![UrlPart::Body(String::new())])),
                ("glued", None),
                ("to", Some(&vec![UrlPart::Param("to".to_owned())])),
                ("missing", None),
                ("object", None),
                ("dynamic", None),
            ]
        );
    }
}
