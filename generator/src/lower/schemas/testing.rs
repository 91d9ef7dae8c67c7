//! What the unit tests of schema lowering share: a document of
//! `components.schemas` lowered, and the types in it.

use crate::ir::{Api, Field, Shape, Ty, TypeKind};
use crate::testing;

/// The document whose `components.schemas` is `schemas` (YAML, indented
/// by four spaces) lowered.
pub(super) fn api(schemas: &str) -> Api {
    testing::api(&components(schemas))
}

/// The error lowering `schemas` gives.
pub(super) fn error(schemas: &str) -> String {
    testing::error(&components(schemas))
}

fn components(schemas: &str) -> String {
    format!("paths: {{}}\ncomponents:\n  schemas:\n{schemas}")
}

/// The fields of the struct `name` is, or stands for (an inline copy
/// of another is its alias: `lower::shared_shapes`).
pub(super) fn fields<'a>(api: &'a Api, name: &str) -> &'a [Field] {
    match kind(api, name) {
        TypeKind::Struct(def) => &def.fields,
        TypeKind::Alias(Shape {
            ty: Ty::Named(first),
            ..
        }) => fields(api, first),
        other => panic!("{name} is {other:?}"),
    }
}

pub(super) fn kind<'a>(api: &'a Api, name: &str) -> &'a TypeKind {
    &api.type_named(name)
        .unwrap_or_else(|| panic!("no type {name}"))
        .kind
}
