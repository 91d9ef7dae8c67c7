//! Schemas → named types and shapes.
//!
//! Every schema that needs a Rust type of its own (objects, string enums,
//! unions, and named constrained primitives) becomes a [`TypeDef`], keyed by the
//! pointer of the schema, so that a schema reached twice (through `$ref`s or
//! `allOf`) becomes one type. Everything else becomes a [`Shape`] in place.
//!
//! - [`table`]: the type table, and the kind of type each schema is;
//! - [`objects`]: an object's fields and its unknown properties;
//! - [`all_of`]: `allOf` as an annotated reference, a folded scalar, or a merged struct;
//! - [`distribute`]: an `allOf` with a `oneOf`/`anyOf` among its members;
//! - [`unions`]: `oneOf`/`anyOf` and subtypes as an enum, and their tagging;
//! - [`enums`]: enums of strings, numbers and booleans, and their values' texts;
//! - [`view`]: one reading of a schema, whichever way `openapiv3` holds it.
//!
//! [`TypeDef`]: crate::ir::TypeDef
//! [`Shape`]: crate::ir::Shape

mod all_of;
mod distribute;
mod enums;
mod objects;
mod table;
#[cfg(test)]
mod testing;
mod unions;
mod view;

pub(crate) use table::{SchemaRef, TypeTable};
