//! What the emitters of clients and servers both need to know about values
//! spread over several pairs or parts: object query parameters and
//! `multipart/form-data` bodies.

use super::{Api, Field, Multipart, Primitive, Shape, StructDef, Ty, TypeDef, TypeKind};

/// How deep the named types a helper follows may nest (aliases of aliases).
const MAX_DEPTH: usize = 16;

/// Whether `shape` is an object: a struct or a map, or an alias or newtype
/// of one.
pub fn is_object(types: &[TypeDef], shape: &Shape) -> bool {
    let mut shape = shape;
    for _ in 0..MAX_DEPTH {
        match &shape.ty {
            Ty::Map(_) => return true,
            Ty::Named(name) => match named(types, name).map(|d| &d.kind) {
                Some(TypeKind::Struct(_)) => return true,
                Some(TypeKind::Alias(inner) | TypeKind::Newtype(inner)) => shape = inner,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}

/// Whether `shape` is an object, or a union whose alternatives are all
/// structs (OAuth's token request): what a form body's pairs can carry.
pub fn is_form_object(types: &[TypeDef], shape: &Shape) -> bool {
    if is_object(types, shape) {
        return true;
    }
    let Ty::Named(name) = &shape.ty else {
        return false;
    };
    match named(types, name).map(|d| &d.kind) {
        Some(TypeKind::Union(union)) => union
            .variants
            .iter()
            .all(|v| struct_of(types, &v.shape).is_some()),
        _ => false,
    }
}

/// Whether a value of `shape` is written as one piece of text: a primitive,
/// an enum, any value, or a newtype or alias of one.
fn is_text_value(types: &[TypeDef], shape: &Shape, depth: usize) -> bool {
    match &shape.ty {
        Ty::Primitive(_) | Ty::Any => true,
        Ty::Named(name) if depth < MAX_DEPTH => match named(types, name).map(|d| &d.kind) {
            Some(TypeKind::Enum(_)) => true,
            Some(TypeKind::Newtype(inner) | TypeKind::Alias(inner)) => {
                is_text_value(types, inner, depth + 1)
            }
            _ => false,
        },
        _ => false,
    }
}

fn named<'t>(types: &'t [TypeDef], name: &str) -> Option<&'t TypeDef> {
    types.iter().find(|t| t.name == name)
}

/// The struct `shape` names, through aliases.
pub fn struct_of<'t>(types: &'t [TypeDef], shape: &Shape) -> Option<&'t StructDef> {
    let mut shape = shape;
    for _ in 0..MAX_DEPTH {
        let Ty::Named(name) = &shape.ty else {
            return None;
        };
        match &named(types, name)?.kind {
            TypeKind::Struct(def) => return Some(def),
            TypeKind::Alias(inner) | TypeKind::Newtype(inner) => shape = inner,
            _ => return None,
        }
    }
    None
}

/// How many files a part of a multipart body carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// One (`format: binary`).
    One,
    /// Any number (an array of binaries, or a union of a binary and an
    /// array of them): each its own part with the same name.
    Many,
}

/// Whether a property of `shape` is a file part, and how many.
pub fn files_of(types: &[TypeDef], shape: &Shape) -> Option<Files> {
    fn binary(types: &[TypeDef], shape: &Shape, depth: usize) -> Option<Files> {
        match &shape.ty {
            Ty::Primitive(Primitive::Binary) => Some(Files::One),
            Ty::Array(item) => {
                (binary(types, item, depth + 1)? == Files::One).then_some(Files::Many)
            }
            Ty::Named(name) if depth < MAX_DEPTH => match &named(types, name)?.kind {
                TypeKind::Alias(inner) | TypeKind::Newtype(inner) => {
                    binary(types, inner, depth + 1)
                }
                TypeKind::Union(union) => {
                    let each: Option<Vec<Files>> = union
                        .variants
                        .iter()
                        .map(|v| binary(types, &v.shape, depth + 1))
                        .collect();
                    each.map(|_| Files::Many)
                }
                _ => None,
            },
            _ => None,
        }
    }
    binary(types, shape, 0)
}

/// One part of a multipart body: a property of its object.
#[derive(Debug, Clone, Copy)]
pub struct FormPart<'a> {
    /// The property.
    pub field: &'a Field,
    /// Whether it is files, and how many.
    pub files: Option<Files>,
    /// Whether its value is text (a scalar, an enum, or an array of them:
    /// a part per item); other values that are not files are JSON parts.
    pub text: bool,
    /// The media type the `encoding` object gives it.
    pub content_type: Option<&'a str>,
}

impl Api {
    /// The parts of a multipart body, `None` when its schema is not an
    /// object with properties (`lower` refuses such bodies).
    pub fn form_parts<'a>(&'a self, body: &'a Multipart) -> Option<Vec<FormPart<'a>>> {
        form_parts(&self.types, body)
    }
}

/// The parts of a multipart body over `types`.
pub fn form_parts<'a>(types: &'a [TypeDef], body: &'a Multipart) -> Option<Vec<FormPart<'a>>> {
    let object = struct_of(types, &body.shape)?;
    Some(
        object
            .fields
            .iter()
            .map(|field| FormPart {
                field,
                files: files_of(types, &field.shape),
                text: match &field.shape.ty {
                    Ty::Array(item) => is_text_value(types, item, 0),
                    _ => is_text_value(types, &field.shape, 0),
                },
                content_type: body
                    .content_types
                    .iter()
                    .find(|c| c.part == field.wire)
                    .map(|c| c.content_type.as_str()),
            })
            .collect(),
    )
}
