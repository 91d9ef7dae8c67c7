//! What the emitters of clients and servers both need to know about values
//! spread over several pairs or parts: object query parameters and
//! `multipart/form-data` bodies.

use super::{Api, Field, Multipart, Primitive, Shape, StructDef, Ty, TypeDef, TypeKind};

/// How many aliases and newtypes [`unwrapped`] follows at most. Lowering
/// refuses a chain of `$ref`s that never reaches a definition, so a chain
/// ends well before; the limit only keeps an IR built some other way from
/// looping.
const MAX_DEPTH: usize = 16;

/// What `shape` stands for: itself, or for an alias or newtype the shape
/// it wraps, followed down to a shape that is neither.
pub fn unwrapped<'t>(types: &'t [TypeDef], shape: &'t Shape) -> &'t Shape {
    let mut shape = shape;
    for _ in 0..MAX_DEPTH {
        let Ty::Named(name) = &shape.ty else {
            return shape;
        };
        match named(types, name).map(|d| &d.kind) {
            Some(TypeKind::Alias(inner) | TypeKind::Newtype(inner)) => shape = inner,
            _ => return shape,
        }
    }
    shape
}

/// The definition of the named type `shape` stands for, through aliases
/// and newtypes; `None` for a shape that is not named.
pub(super) fn definition<'t>(types: &'t [TypeDef], shape: &Shape) -> Option<&'t TypeKind> {
    match &unwrapped(types, shape).ty {
        Ty::Named(name) => named(types, name).map(|d| &d.kind),
        _ => None,
    }
}

/// Whether `shape` is an object: a struct or a map, or an alias or newtype
/// of one.
pub fn is_object(types: &[TypeDef], shape: &Shape) -> bool {
    match &unwrapped(types, shape).ty {
        Ty::Map(_) => true,
        Ty::Named(name) => matches!(
            named(types, name).map(|d| &d.kind),
            Some(TypeKind::Struct(_))
        ),
        _ => false,
    }
}

/// Whether `shape` is an object, or a union whose alternatives are all
/// structs (OAuth's token request): what a form body's pairs can carry.
pub fn is_form_object(types: &[TypeDef], shape: &Shape) -> bool {
    match definition(types, shape) {
        Some(TypeKind::Union(union)) => union
            .variants
            .iter()
            .all(|v| struct_of(types, &v.shape).is_some()),
        _ => is_object(types, shape),
    }
}

/// Whether a value of `shape` is written as one piece of text: a primitive,
/// an enum, any value, or a newtype or alias of one.
fn is_text_value(types: &[TypeDef], shape: &Shape) -> bool {
    match &unwrapped(types, shape).ty {
        Ty::Primitive(_) | Ty::Any => true,
        Ty::Named(name) => matches!(named(types, name).map(|d| &d.kind), Some(TypeKind::Enum(_))),
        _ => false,
    }
}

fn named<'t>(types: &'t [TypeDef], name: &str) -> Option<&'t TypeDef> {
    types.iter().find(|t| t.name == name)
}

/// The struct `shape` names, through aliases and newtypes.
pub fn struct_of<'t>(types: &'t [TypeDef], shape: &Shape) -> Option<&'t StructDef> {
    match definition(types, shape)? {
        TypeKind::Struct(def) => Some(def),
        _ => None,
    }
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
    /// `above`: the unions being looked into, so that one that holds
    /// itself (a file or a list of such unions) ends there, as no file.
    fn binary<'t>(types: &'t [TypeDef], shape: &'t Shape, above: &[&'t str]) -> Option<Files> {
        let shape = unwrapped(types, shape);
        match &shape.ty {
            Ty::Primitive(Primitive::Binary) => Some(Files::One),
            Ty::Array(item) => (binary(types, item, above)? == Files::One).then_some(Files::Many),
            Ty::Named(name) if !above.contains(&name.as_str()) => {
                let Some(TypeKind::Union(union)) = named(types, name).map(|d| &d.kind) else {
                    return None;
                };
                let above = [above, &[name.as_str()]].concat();
                let each: Option<Vec<Files>> = union
                    .variants
                    .iter()
                    .map(|v| binary(types, &v.shape, &above))
                    .collect();
                each.map(|_| Files::Many)
            }
            _ => None,
        }
    }
    binary(types, shape, &[])
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
                    Ty::Array(item) => is_text_value(types, item),
                    _ => is_text_value(types, &field.shape),
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

#[cfg(test)]
mod tests {
    use crate::ir::BodyKind;

    /// Each part of the multipart body of a document whose
    /// `components.schemas` are `schemas` (the body's schema `Upload`), as
    /// `name: files text`.
    fn parts(schemas: &str) -> Vec<String> {
        let api = crate::testing::api(&format!(
            "paths:
  /uploads:
    post:
      requestBody:
        content:
          multipart/form-data:
            schema: {{$ref: '#/components/schemas/Upload'}}
      responses:
        '204': {{description: ok}}
components:
  schemas:
{schemas}"
        ));
        let body = api.operations[0].body.as_ref().unwrap();
        let BodyKind::Multipart(multipart) = &body.kind else {
            panic!("{:?}", body.kind);
        };
        api.form_parts(multipart)
            .unwrap()
            .iter()
            .map(|part| {
                let files = part.files.map_or(String::new(), |f| format!(" {f:?}"));
                let text = if part.text { " text" } else { "" };
                format!("{}:{files}{text}", part.field.wire)
            })
            .collect()
    }

    /// A part is a file when its value is binary, through aliases; many
    /// files when it is a list of them, or a union of one and a list; a
    /// union that holds itself is no file (and ends). A part is text when
    /// it is a scalar or an enum, or a list of them, through aliases.
    #[test]
    fn parts_are_files_text_or_json_through_aliases_and_unions() {
        let schemas = "    Upload:
      type: object
      properties:
        photo: {type: string, format: binary}
        scan: {$ref: '#/components/schemas/Scan'}
        pages: {type: array, items: {$ref: '#/components/schemas/Scan'}}
        attachments: {$ref: '#/components/schemas/Attachments'}
        nested: {type: array, items: {type: array, items: {type: string, format: binary}}}
        tree: {$ref: '#/components/schemas/Tree'}
        note: {type: string}
        size: {$ref: '#/components/schemas/Size'}
        sizes: {type: array, items: {$ref: '#/components/schemas/Sized'}}
        count: {$ref: '#/components/schemas/Count'}
        meta: {$ref: '#/components/schemas/Meta'}
    Scan: {$ref: '#/components/schemas/Binary'}
    Binary: {type: string, format: binary}
    Attachments:
      oneOf:
        - {type: string, format: binary}
        - {type: array, items: {type: string, format: binary}}
    Tree:
      oneOf:
        - {type: string, format: binary}
        - {type: array, items: {$ref: '#/components/schemas/Tree'}}
    Size: {type: string, enum: [s, m, l]}
    Sized: {$ref: '#/components/schemas/Size'}
    Count: {type: integer, minimum: 1}
    Meta:
      type: object
      properties:
        by: {type: string}
";
        assert_eq!(
            parts(schemas),
            [
                "photo: One text",
                "scan: One text",
                "pages: Many text",
                "attachments: Many",
                "nested:",
                "tree:",
                "note: text",
                "size: text",
                "sizes: text",
                "count: text",
                "meta:",
            ]
        );
    }
}
