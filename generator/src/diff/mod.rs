//! What changed between two versions of a document, and what each change
//! breaks.
//!
//! [`compare`] walks two parsed documents and lists every change of
//! operations, webhooks and callbacks, parameters, request bodies,
//! responses, response headers, schemas (properties, `required`, types and
//! formats, `nullable`, constraints) and enums. Each [`Change`] carries the JSON pointer of the
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
//!
//! - [`report`]: changes, their verdicts, and the report of a comparison;
//! - [`differ`]: the state of one comparison;
//! - [`paths`]: operations, their parameters, bodies, responses and headers;
//! - [`hooks`]: webhooks and callbacks, judged the other way round;
//! - [`signatures`]: what shapes a client method's signature beyond each input;
//! - [`schema`]: schemas and enums;
//! - [`usage`]: which way each schema travels (request, response or both);
//! - [`nodes`]: document nodes read as the comparison needs them;
//! - [`version`]: the crates' version against the breaking changes.

mod differ;
mod hooks;
mod nodes;
mod paths;
mod report;
mod schema;
mod signatures;
mod usage;
mod version;

pub use report::{Change, Crates, Judgement, Report, Verdict};
pub use version::Version;

use crate::parse::Document;
use differ::Differ;

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
    hooks::compare(&mut differ);
    schema::compare_components(&mut differ);
    Report {
        file: new.file.clone(),
        other_differences: differ.changes.is_empty() && old.raw != new.raw,
        changes: differ.changes,
    }
}
