//! Stage two: a parsed document → the [`Api`] IR.
//!
//! - [`schemas`]: schemas → named types and shapes, in a type table;
//! - [`operations`]: paths and operations → operations, their inputs and answers;
//! - [`declared`]: servers, security schemes and common headers;
//! - [`marks`]: what is marked on the types once all are known (boxes, checks, usage);
//! - [`shared_shapes`]: inline copies of one shape made aliases of the first;
//! - [`inheritance`]: base schemas with a discriminator, extended through `allOf`;
//! - [`lenient`]: what is read past, and the note that says so;
//! - [`unapplied`]: keywords the crates do not enforce, and the note that says so;
//! - [`value_names`]: names and meanings extensions give enum values.

mod declared;
pub(crate) mod inheritance;
mod lenient;
mod marks;
mod operations;
mod schemas;
mod shared_shapes;
mod unapplied;
pub(crate) mod value_names;

pub use marks::open_enums;

use crate::error::Result;
use crate::ir::{Api, Operation};
use crate::parse::Document;

/// Lowers a parsed document into the IR. Errors, notes and the types'
/// origins point into the user's document (for a 3.1 document, not into
/// its rewritten tree).
pub fn lower(doc: &Document) -> Result<Api> {
    let mut api = lower_rewritten(doc).map_err(|error| doc.user_error(error))?;
    for def in &mut api.types {
        def.origin = doc.user_pointer(&def.origin);
    }
    Ok(api)
}

fn lower_rewritten(doc: &Document) -> Result<Api> {
    let mut table = schemas::TypeTable::new(doc);
    table.lower_components()?;
    let mut skipped = operations::NotGenerated::default();
    let operations = operations::lower_operations(doc, &mut table, &mut skipped)?;
    let hooks = operations::lower_hooks(doc, &mut table, &operations);
    // Paths that differ in parameter names only are one path (OpenAPI says
    // they MUST NOT both exist); the same method on both is served by the
    // first (Reverb's `/conversations/{id}/offer` beside
    // `/conversations/{conversation_id}/offer`).
    let repeats = crate::ir::repeats_a_route(&operations);
    for (op, _) in operations
        .iter()
        .zip(repeats)
        .filter(|(_, repeats)| *repeats)
    {
        table
            .lenient
            .record(lenient::Leniency::RepeatedPath, &op.origin);
    }
    for (habit, at) in &doc.habits {
        table.lenient.record((*habit).into(), at);
    }
    let lenient = std::mem::take(&mut table.lenient);
    let mut types = table.into_defs();
    marks::mark_boxes(&mut types);
    marks::mark_checks(&mut types);
    // The hooks' types are marked as the operations' are: their receivers
    // read requests, their senders answers.
    let marked: std::borrow::Cow<'_, [Operation]> =
        if hooks.webhooks.is_empty() && hooks.callbacks.is_empty() {
            std::borrow::Cow::Borrowed(&operations)
        } else {
            let all = operations.iter().chain(&hooks.webhooks);
            let all = all.chain(hooks.callbacks.iter().flat_map(|c| &c.operations));
            std::borrow::Cow::Owned(all.cloned().collect())
        };
    marks::mark_usage(&mut types, &marked);
    marks::relax_one_way_required(&mut types);
    shared_shapes::alias_copies(&mut types, &marked);
    let common_headers = declared::common_headers(&operations);
    drop(marked);
    let notes = not_generated_note(doc, &skipped)
        .into_iter()
        .chain(left_out_note(doc, &hooks.left_out))
        .chain(unapplied::read_write_only_note(doc))
        .chain(lenient.note(doc))
        .collect();
    let mut api = Api {
        source: doc.file.clone(),
        title: doc.api.info.title.clone(),
        version: doc.api.info.version.clone(),
        description: doc.api.info.description.clone(),
        servers: declared::servers(doc),
        types,
        operations,
        security_schemes: declared::security_schemes(doc)?,
        common_headers,
        webhooks: hooks.webhooks,
        callbacks: hooks.callbacks,
        notes,
    };
    marks::mark_from_param(&mut api);
    Ok(api)
}

/// The one note saying which response links of `doc` are not generated,
/// with where the first is.
fn not_generated_note(doc: &Document, skipped: &operations::NotGenerated) -> Option<String> {
    let first = skipped.links.first()?;
    Some(format!(
        "{}: not generated, by design: response links ({} response(s), the first at {}{first}); \
         the operations that declare them are generated",
        doc.file,
        skipped.links.len(),
        doc.file
    ))
}

/// The one note naming the webhooks and callbacks (or callbacks' URL
/// functions) of `doc` that are not generated, each with where it is.
fn left_out_note(doc: &Document, left_out: &[String]) -> Option<String> {
    (!left_out.is_empty()).then(|| {
        format!(
            "{}: hooks not generated: {}; the rest is generated",
            doc.file,
            left_out.join("; ")
        )
    })
}
