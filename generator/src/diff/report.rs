//! What a comparison finds: each [`Change`] with its two [`Verdict`]s and
//! their reasons, the [`Crates`] it is judged for, and the [`Report`] of all
//! of them.

use std::fmt::Write as _;

use crate::parse::Pointer;

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
