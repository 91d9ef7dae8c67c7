//! Which way each named schema travels: in requests (the client sends it),
//! in responses (the server sends it), or both. A change's wire verdict
//! depends on it.

use std::collections::BTreeMap;

use super::nodes::{entries, resolve, schema_ref};
use super::report::{Judgement, breaks, ok};
use crate::parse::{Document, OTHER_METHODS};

/// The operations' keys of a path item.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The operations of a path item, each with its method as the document
/// writes it (`get`) and where it is under the item: the fixed methods,
/// then OpenAPI 3.2's others (`QUERY`, `COPY`), which the parser keeps
/// under [`OTHER_METHODS`].
pub(crate) fn operations_of(
    item: &serde_yaml::Value,
) -> Vec<(String, Vec<String>, &serde_yaml::Value)> {
    let mut out: Vec<(String, Vec<String>, &serde_yaml::Value)> = METHODS
        .iter()
        .filter_map(|method| {
            let node = item.get(*method)?;
            Some(((*method).to_owned(), vec![(*method).to_owned()], node))
        })
        .collect();
    for (method, node) in entries(item.get(OTHER_METHODS)) {
        let at = vec![OTHER_METHODS.to_owned(), method.clone()];
        out.push((method, at, node));
    }
    out
}

/// The directions a schema travels in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub request: bool,
    pub response: bool,
}

impl Usage {
    pub const REQUEST: Usage = Usage {
        request: true,
        response: false,
    };
    pub const RESPONSE: Usage = Usage {
        request: false,
        response: true,
    };

    fn contains(self, other: Usage) -> bool {
        (self.request || !other.request) && (self.response || !other.response)
    }

    fn add(&mut self, other: Usage) {
        self.request |= other.request;
        self.response |= other.response;
    }

    /// The wire verdict when the values a schema allows grow (a constraint
    /// relaxed, an enum value added, `nullable` set): the server accepts
    /// more, and clients may receive what they were not written for.
    pub fn widened(self) -> Judgement {
        if self.response {
            breaks("clients may receive values the old document did not allow")
        } else if self.request {
            ok("the server accepts everything it accepted before")
        } else {
            ok("no request or response uses it")
        }
    }

    /// The wire verdict when the values a schema allows shrink: requests
    /// that were valid may be refused; responses stay within what clients
    /// expected.
    pub fn narrowed(self) -> Judgement {
        if self.request {
            breaks("requests that were valid may now be refused")
        } else if self.response {
            ok("responses stay within what clients expected")
        } else {
            ok("no request or response uses it")
        }
    }

    /// The wire verdict when the allowed values change both ways.
    pub fn changed(self) -> Judgement {
        if self.request || self.response {
            breaks("values valid before may not be valid now, and the reverse")
        } else {
            ok("no request or response uses it")
        }
    }
}

/// The usage of every named schema, in either version of the document.
pub(crate) struct Usages(BTreeMap<String, Usage>);

impl Usages {
    /// The union of the usages in `old` and `new`: a change is judged for
    /// every way the schema travelled before or travels now.
    pub fn of(old: &Document, new: &Document) -> Usages {
        let mut map = BTreeMap::new();
        mark_document(old, &mut map);
        mark_document(new, &mut map);
        Usages(map)
    }

    /// The usage of the schema `name` (none when no operation uses it).
    pub fn get(&self, name: &str) -> Usage {
        self.0.get(name).copied().unwrap_or_default()
    }
}

fn mark_document(doc: &Document, map: &mut BTreeMap<String, Usage>) {
    for (_, item) in entries(doc.raw.get("paths")) {
        mark_item(doc, resolve(doc, item), Usage::REQUEST, map);
    }
    // A webhook's or callback's request is sent by the API and read by its
    // users' receivers, as a response is; their answers travel the other
    // way, as requests do.
    for (_, item) in entries(doc.raw.get("webhooks")) {
        mark_item(doc, resolve(doc, item), Usage::RESPONSE, map);
    }
}

/// The operations of a path item whose requests travel as `request` says
/// (and their answers the other way), with their callbacks.
fn mark_item(
    doc: &Document,
    item: &serde_yaml::Value,
    request: Usage,
    map: &mut BTreeMap<String, Usage>,
) {
    let answer = Usage {
        request: request.response,
        response: request.request,
    };
    mark_parameters(doc, item.get("parameters"), request, map);
    for (_, _, op) in operations_of(item) {
        mark_parameters(doc, op.get("parameters"), request, map);
        if let Some(body) = op.get("requestBody") {
            mark_content(doc, resolve(doc, body), request, map);
        }
        for (_, response) in entries(op.get("responses")) {
            let response = resolve(doc, response);
            mark_content(doc, response, answer, map);
            for (_, header) in entries(response.get("headers")) {
                if let Some(schema) = resolve(doc, header).get("schema") {
                    mark(doc, schema, answer, map);
                }
            }
        }
        if request == Usage::REQUEST {
            for (_, callback) in entries(op.get("callbacks")) {
                for (_, item) in entries(Some(resolve(doc, callback))) {
                    mark_item(doc, resolve(doc, item), answer, map);
                }
            }
        }
    }
}

fn mark_parameters(
    doc: &Document,
    parameters: Option<&serde_yaml::Value>,
    usage: Usage,
    map: &mut BTreeMap<String, Usage>,
) {
    for parameter in parameters
        .and_then(serde_yaml::Value::as_sequence)
        .into_iter()
        .flatten()
    {
        let parameter = resolve(doc, parameter);
        if let Some(schema) = parameter.get("schema") {
            mark(doc, schema, usage, map);
        }
        mark_content(doc, parameter, usage, map);
    }
}

fn mark_content(
    doc: &Document,
    node: &serde_yaml::Value,
    usage: Usage,
    map: &mut BTreeMap<String, Usage>,
) {
    for (_, media) in entries(node.get("content")) {
        if let Some(schema) = media.get("schema") {
            mark(doc, schema, usage, map);
        }
    }
}

fn mark(
    doc: &Document,
    schema: &serde_yaml::Value,
    usage: Usage,
    map: &mut BTreeMap<String, Usage>,
) {
    if let Some(name) = schema_ref(schema) {
        let seen = map.entry(name).or_default();
        if seen.contains(usage) {
            return;
        }
        seen.add(usage);
        mark(doc, resolve(doc, schema), usage, map);
        return;
    }
    for child in children(schema) {
        mark(doc, child, usage, map);
    }
}

/// The subschemas of a schema node.
pub(crate) fn children(schema: &serde_yaml::Value) -> Vec<&serde_yaml::Value> {
    let mut out: Vec<&serde_yaml::Value> = entries(schema.get("properties"))
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    for key in ["items", "not"] {
        out.extend(schema.get(key));
    }
    if let Some(additional) = schema.get("additionalProperties") {
        if additional.is_mapping() {
            out.push(additional);
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        out.extend(
            schema
                .get(key)
                .and_then(serde_yaml::Value::as_sequence)
                .into_iter()
                .flatten(),
        );
    }
    out
}
