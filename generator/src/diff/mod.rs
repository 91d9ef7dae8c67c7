//! What changed between two versions of a document, and what each change
//! breaks.
//!
//! [`compare`] walks two parsed documents and lists every change of
//! operations, parameters, request bodies, responses, response headers,
//! schemas (properties, `required`, types and formats, `nullable`,
//! constraints) and enums. Each [`Change`] carries the JSON pointer of the
//! node and two verdicts:
//!
//! - **wire**: for a client of the HTTP API written against the old
//!   document (any client, not only ours). Whether a change breaks depends
//!   on the direction the schema travels: accepting more in a request is
//!   compatible, sending more in a response is not, and the reverse.
//! - **rust**: for Rust code using the generated crates (calling the
//!   client, building and reading the models, implementing the server
//!   trait), under the policy of ARCHITECTURE.md, "How the generated API
//!   evolves": structs are `#[non_exhaustive]` and built with `new` (the
//!   required fields) and `with_*` setters, parameter structs have
//!   `Default`, enums are `#[non_exhaustive]` and those the API sends keep
//!   unknown values.
//!
//! Referenced schemas are compared by name: a property that was `$ref: A`
//! and still is has not changed here, and `A`'s own changes are listed once,
//! under `#/components/schemas/A`, for every use. A rename is a removal and
//! an addition (the uses show up as a changed type). Descriptions,
//! examples, titles and extensions other than `x-rules` and the enum value
//! names of `x-enum-varnames`, `x-enumNames` and `x-ms-enum` are not compared.
//!
//! [`Version`] checks that the generated crates' version was bumped as
//! semver asks for the breaking changes found.

mod paths;
mod schema;
mod signatures;
mod usage;
mod version;

use std::fmt::Write as _;

pub use version::Version;

use crate::parse::{Document, Pointer};

/// Whether a change keeps what worked working.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Everything written against the old document keeps working.
    Compatible,
    /// Something written against the old document may stop working (or,
    /// for Rust, compiling).
    Breaking,
}

impl Verdict {
    /// `compatible` or `breaking`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Compatible => "compatible",
            Verdict::Breaking => "breaking",
        }
    }
}

/// One verdict and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// Compatible or breaking.
    pub verdict: Verdict,
    /// Why, in a few words, for the reader of the summary.
    pub reason: String,
}

/// A compatible judgement.
pub(crate) fn ok(reason: impl Into<String>) -> Judgement {
    Judgement {
        verdict: Verdict::Compatible,
        reason: reason.into(),
    }
}

/// A breaking judgement.
pub(crate) fn breaks(reason: impl Into<String>) -> Judgement {
    Judgement {
        verdict: Verdict::Breaking,
        reason: reason.into(),
    }
}

/// One change between the documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Where: the node in the new document, or in the old one when the node
    /// was removed.
    pub pointer: Pointer,
    /// What changed, e.g. "optional property `loyaltyTier` added to `CustomerInput`".
    pub what: String,
    /// For clients of the HTTP API.
    pub wire: Judgement,
    /// For Rust code using the generated crates.
    pub rust: Judgement,
}

impl Change {
    /// Whether the change breaks for either audience.
    pub fn is_breaking(&self) -> bool {
        self.wire.verdict == Verdict::Breaking || self.rust.verdict == Verdict::Breaking
    }
}

/// Which crates are generated from the document: changes that only affect
/// one crate (a new trait method of the server stubs) break only when it is.
/// The models crate always is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crates {
    /// The client crate is generated.
    pub client: bool,
    /// The server-stubs crate is generated.
    pub server: bool,
}

impl Crates {
    /// Models, client and server stubs.
    pub const ALL: Crates = Crates {
        client: true,
        server: true,
    };

    /// The crates a `codegen.toml` target asks for.
    pub fn of(target: &crate::config::Target) -> Self {
        Crates {
            client: target.client.is_some(),
            server: target.server.is_some(),
        }
    }
}

/// Every change between two versions of a document.
#[derive(Debug, Clone)]
pub struct Report {
    /// The document, as messages name it.
    pub file: String,
    /// The changes, in document order: operations by path, then schemas.
    pub changes: Vec<Change>,
    /// The documents differ in what is not compared (descriptions,
    /// examples, …) even where no change is listed.
    pub other_differences: bool,
}

impl Report {
    /// How many changes break on the wire and for Rust.
    pub fn breaking_counts(&self) -> (usize, usize) {
        let count = |f: fn(&Change) -> Verdict| {
            self.changes
                .iter()
                .filter(|c| f(c) == Verdict::Breaking)
                .count()
        };
        (count(|c| c.wire.verdict), count(|c| c.rust.verdict))
    }

    /// Whether any change breaks for either audience.
    pub fn is_breaking(&self) -> bool {
        self.changes.iter().any(Change::is_breaking)
    }

    /// The summary `cargo xtask api-diff` prints: a line with the counts,
    /// then each change with its verdicts, pointer and reasons. `base`
    /// names the old version (e.g. `HEAD`).
    pub fn render(&self, base: &str) -> String {
        let mut out = String::new();
        let (wire, rust) = self.breaking_counts();
        if self.changes.is_empty() {
            let _ = writeln!(
                out,
                "{}: no change of the interface since {base}{}",
                self.file,
                if self.other_differences {
                    " (descriptions, examples or other text changed)"
                } else {
                    ""
                }
            );
            return out;
        }
        let _ = writeln!(
            out,
            "{}: {} change(s) since {base}: {wire} breaking on the wire, {rust} breaking for Rust code",
            self.file,
            self.changes.len(),
        );
        let _ = writeln!(out, "  {:<12}{:<12}change", "wire", "rust");
        for change in &self.changes {
            let _ = writeln!(
                out,
                "  {:<12}{:<12}{}",
                change.wire.verdict.as_str(),
                change.rust.verdict.as_str(),
                change.pointer
            );
            let indent = " ".repeat(26);
            let _ = writeln!(out, "{indent}{}", change.what);
            let _ = writeln!(out, "{indent}wire: {}", change.wire.reason);
            let _ = writeln!(out, "{indent}rust: {}", change.rust.reason);
        }
        out
    }

    /// A changelog section for `version`: the changes grouped by what they
    /// break, in Markdown, for `spec/CHANGELOG.md`.
    pub fn changelog(&self, version: &str) -> String {
        let mut out = format!("## {version}\n\n");
        if self.changes.is_empty() {
            out.push_str("No change of the interface.\n");
            return out;
        }
        type Filter = fn(&Change) -> bool;
        let groups: [(&str, Filter); 3] = [
            ("Breaking for Rust code", |c| {
                c.rust.verdict == Verdict::Breaking
            }),
            ("Breaking on the wire only", |c| {
                c.rust.verdict == Verdict::Compatible && c.wire.verdict == Verdict::Breaking
            }),
            ("Compatible", |c| !c.is_breaking()),
        ];
        for (title, belongs) in groups {
            let changes: Vec<&Change> = self.changes.iter().filter(|c| belongs(c)).collect();
            if changes.is_empty() {
                continue;
            }
            let _ = writeln!(out, "### {title}\n");
            for change in changes {
                let _ = writeln!(out, "- {} (`{}`)", change.what, change.pointer);
            }
            out.push('\n');
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        out
    }
}

/// Compares the `old` and `new` versions of a document, for the `crates`
/// generated from it.
pub fn compare(old: &Document, new: &Document, crates: Crates) -> Report {
    let mut differ = Differ {
        old,
        new,
        crates,
        usage: usage::Usages::of(old, new),
        changes: Vec::new(),
    };
    paths::compare(&mut differ);
    schema::compare_components(&mut differ);
    Report {
        file: new.file.clone(),
        other_differences: differ.changes.is_empty() && old.raw != new.raw,
        changes: differ.changes,
    }
}

/// The state of one comparison.
pub(crate) struct Differ<'a> {
    pub old: &'a Document,
    pub new: &'a Document,
    pub crates: Crates,
    pub usage: usage::Usages,
    pub changes: Vec<Change>,
}

impl Differ<'_> {
    /// Records a change at `pointer`, or, when neither document has that
    /// node (a keyword absent on both sides, as a defaulted `required`
    /// is), at its nearest ancestor the new document has.
    pub fn push(&mut self, pointer: &Pointer, what: String, wire: Judgement, rust: Judgement) {
        let mut pointer = pointer.clone();
        if self.new.node(&pointer).is_none() && self.old.node(&pointer).is_none() {
            let tokens: Vec<String> = pointer.tokens().collect();
            pointer = (0..tokens.len())
                .rev()
                .map(|n| tokens[..n].iter().fold(Pointer::root(), |p, t| p.push(t)))
                .find(|p| self.new.node(p).is_some())
                .unwrap_or_else(Pointer::root);
        }
        self.changes.push(Change {
            pointer,
            what,
            wire,
            rust,
        });
    }
}

/// What a document node holds, with `$ref`s followed (at most 32 deep; an
/// unresolvable reference is the node itself).
pub(crate) fn resolve<'a>(
    doc: &'a Document,
    mut node: &'a serde_yaml::Value,
) -> &'a serde_yaml::Value {
    for _ in 0..32 {
        let Some(target) = node
            .get("$ref")
            .and_then(serde_yaml::Value::as_str)
            .and_then(Pointer::parse_local)
            .and_then(|pointer| doc.node(&pointer))
        else {
            break;
        };
        node = target;
    }
    node
}

/// The name of the schema a `$ref` names (`#/components/schemas/<name>`).
pub(crate) fn schema_ref(node: &serde_yaml::Value) -> Option<String> {
    node.get("$ref")
        .and_then(serde_yaml::Value::as_str)
        .and_then(Pointer::parse_local)
        .and_then(|pointer| pointer.component_name("schemas"))
}

/// The entries of a mapping node by string key, in document order.
pub(crate) fn entries(node: Option<&serde_yaml::Value>) -> Vec<(String, &serde_yaml::Value)> {
    node.and_then(serde_yaml::Value::as_mapping)
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| Some((scalar_text(k)?, v)))
                .collect()
        })
        .unwrap_or_default()
}

/// A scalar as text (`200` and `"200"` alike); `None` for collections.
pub(crate) fn scalar_text(node: &serde_yaml::Value) -> Option<String> {
    match node {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        serde_yaml::Value::Null => Some("null".to_owned()),
        _ => None,
    }
}

/// The node's `key` as a boolean, `false` when absent.
pub(crate) fn flag(node: &serde_yaml::Value, key: &str) -> bool {
    node.get(key)
        .and_then(serde_yaml::Value::as_bool)
        .unwrap_or(false)
}

/// The node without what the comparison ignores (descriptions, examples,
/// titles, extensions), to tell whether two shapes are the same.
pub(crate) fn without_text(node: &serde_yaml::Value) -> serde_yaml::Value {
    match node {
        serde_yaml::Value::Mapping(map) => serde_yaml::Value::Mapping(
            map.iter()
                .filter(|(k, _)| {
                    k.as_str().is_none_or(|k| {
                        !matches!(
                            k,
                            "description"
                                | "summary"
                                | "example"
                                | "examples"
                                | "title"
                                | "externalDocs"
                        ) && !k.starts_with("x-")
                    })
                })
                .map(|(k, v)| (k.clone(), without_text(v)))
                .collect(),
        ),
        serde_yaml::Value::Sequence(items) => {
            serde_yaml::Value::Sequence(items.iter().map(without_text).collect())
        }
        other => other.clone(),
    }
}
