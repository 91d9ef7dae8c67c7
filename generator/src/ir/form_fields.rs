//! How the text of each field of a value spread over pairs or parts
//! becomes JSON: a form body's fields, a multipart body's text parts, an
//! object query parameter's properties (`deepObject`, exploded `form`).
//! The server stubs write these tables as the runtime's `FormField`s; the
//! mock builds the same from them, so both read such values alike.

use super::{
    Api, Multipart, Primitive, Shape, Ty, TypeKind, definition, files_of, is_object, struct_of,
    unwrapped,
};

/// How a field's text becomes JSON (the runtime's `FormKind`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormKind {
    /// Text (strings, enums, formats).
    Text,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// JSON text (an object, an array of objects, a union).
    Json,
    /// An object whose properties are given below the field's name in
    /// brackets (`filter[near][lat]=1.5`), each read by these fields.
    Object(Vec<FormField>),
}

impl FormKind {
    /// The name of the runtime's variant (`Text`, `Json`, …).
    pub fn variant(&self) -> &'static str {
        match self {
            FormKind::Text => "Text",
            FormKind::Integer => "Integer",
            FormKind::Number => "Number",
            FormKind::Boolean => "Boolean",
            FormKind::Json => "Json",
            FormKind::Object(_) => "Object",
        }
    }
}

/// A field of a form (the runtime's `FormField`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormField {
    /// Its name on the wire; `*` for every name the others do not list
    /// (a map's values).
    pub name: String,
    /// How its text becomes JSON.
    pub kind: FormKind,
    /// Whether it is a list (repeated pairs or parts).
    pub list: bool,
}

/// How many objects deep, the parameter's own counted, properties are read
/// in brackets: 4 reads `filter[a][b][c][d]=…`. Deeper objects, and an
/// object of a type already above it (a type that contains itself), are
/// read as JSON text, so that the fields written stay few.
const MAX_NESTING: usize = 4;

impl Api {
    /// How each field of a form body of `shape` is read, or `None` when
    /// the shape is not an object (a struct, a map: `*`, or a union of
    /// structs).
    pub fn form_fields(&self, shape: &Shape) -> Option<Vec<FormField>> {
        self.fields_of(shape, &|name, shape| self.field(name, shape))
    }

    /// How each property of an object query parameter of `shape` is read:
    /// a property that is itself an object is an `Object` of its own
    /// fields (`filter[near][lat]=…`).
    pub fn object_param_fields(&self, shape: &Shape) -> Option<Vec<FormField>> {
        self.nested_fields(shape, &[shape])
    }

    /// How each text part of a multipart body is read: its fields but the
    /// files, which are set aside before their text would be typed.
    pub fn part_fields(&self, body: &Multipart) -> Vec<FormField> {
        struct_of(&self.types, &body.shape)
            .map(|object| {
                object
                    .fields
                    .iter()
                    .filter(|f| files_of(&self.types, &f.shape).is_none())
                    .map(|f| self.field(&f.wire, &f.shape))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn nested_fields(&self, shape: &Shape, above: &[&Shape]) -> Option<Vec<FormField>> {
        self.fields_of(shape, &|name, shape| {
            let nested = self
                .object_alternative(shape)
                .filter(|object| above.len() < MAX_NESTING && !above.contains(object))
                .and_then(|object| {
                    let above = [above, &[object]].concat();
                    self.nested_fields(object, &above)
                });
            match nested {
                Some(fields) => FormField {
                    name: name.to_owned(),
                    kind: FormKind::Object(fields),
                    list: false,
                },
                None => self.field(name, shape),
            }
        })
    }

    /// The object a value of `shape` is, or may be: a struct or a map, or
    /// the one alternative of a union that is one (Stripe's `created`: a
    /// range object or a timestamp).
    fn object_alternative<'s>(&'s self, shape: &'s Shape) -> Option<&'s Shape> {
        if is_object(&self.types, shape) {
            return Some(shape);
        }
        let Some(TypeKind::Union(union)) = definition(&self.types, shape) else {
            return None;
        };
        let mut objects = union
            .variants
            .iter()
            .filter(|v| is_object(&self.types, &v.shape));
        match (objects.next(), objects.next()) {
            (Some(only), None) => Some(&only.shape),
            _ => None,
        }
    }

    /// Each field of an object of `shape`, made by `field`; `None` when the
    /// shape is not an object.
    fn fields_of(
        &self,
        shape: &Shape,
        field: &dyn Fn(&str, &Shape) -> FormField,
    ) -> Option<Vec<FormField>> {
        let named = match &unwrapped(&self.types, shape).ty {
            Ty::Map(value) => return Some(vec![field("*", value)]),
            Ty::Named(name) => self.type_named(name)?,
            _ => return None,
        };
        match &named.kind {
            TypeKind::Struct(object) => Some(
                object
                    .fields
                    .iter()
                    .map(|f| field(&f.wire, &f.shape))
                    .collect(),
            ),
            // A union of objects (OAuth's token request, one struct per
            // `grant_type`): the fields of every alternative, the first
            // alternative's reading a name they share; serde then picks
            // the alternative.
            TypeKind::Union(union) => {
                let mut fields: Vec<FormField> = Vec::new();
                for variant in &union.variants {
                    for f in &struct_of(&self.types, &variant.shape)?.fields {
                        if !fields.iter().any(|known| known.name == f.wire) {
                            fields.push(field(&f.wire, &f.shape));
                        }
                    }
                }
                Some(fields)
            }
            _ => None,
        }
    }

    /// The field `name` of `shape`: an array of values that are text is a
    /// list (repeated pairs or parts), any other array one JSON value.
    fn field(&self, name: &str, shape: &Shape) -> FormField {
        let (kind, list) = match &shape.ty {
            Ty::Array(item) if self.kind_of(item) != FormKind::Json => (self.kind_of(item), true),
            _ => (self.kind_of(shape), false),
        };
        FormField {
            name: name.to_owned(),
            kind,
            list,
        }
    }

    /// How the text of a value of `shape` becomes JSON.
    fn kind_of(&self, shape: &Shape) -> FormKind {
        match &unwrapped(&self.types, shape).ty {
            Ty::Primitive(p) if p.is_integer() => FormKind::Integer,
            Ty::Primitive(p) if p.is_number() => FormKind::Number,
            Ty::Primitive(Primitive::Bool) => FormKind::Boolean,
            Ty::Primitive(_) => FormKind::Text,
            Ty::Named(name) => match self.type_named(name).map(|d| &d.kind) {
                Some(TypeKind::Struct(_) | TypeKind::Union(_)) => FormKind::Json,
                _ => FormKind::Text,
            },
            Ty::Array(_) | Ty::Map(_) | Ty::Any => FormKind::Json,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FormField, FormKind};

    /// Each field of `fields` as `name[below]: Kind`, in order, its name
    /// under `prefix`.
    fn paths(fields: &[FormField], prefix: &str, out: &mut Vec<String>) {
        for field in fields {
            let name = match prefix {
                "" => field.name.clone(),
                _ => format!("{prefix}[{}]", field.name),
            };
            match &field.kind {
                FormKind::Object(below) => paths(below, &name, out),
                kind => out.push(format!(
                    "{name}: {}{}",
                    kind.variant(),
                    if field.list { " list" } else { "" }
                )),
            }
        }
    }

    /// The fields of the object query parameter `filter` of a document
    /// whose `components.schemas` are `schemas`, `Filter` the parameter's.
    fn filter_fields(schemas: &str) -> Vec<String> {
        let api = crate::testing::api(&format!(
            "paths:
  /search:
    get:
      parameters:
        - {{name: filter, in: query, style: deepObject, explode: true, schema: {{$ref: '#/components/schemas/Filter'}}}}
      responses:
        '204': {{description: ok}}
components:
  schemas:
{schemas}"
        ));
        let param = &api.operations[0].params[0];
        let mut out = Vec::new();
        paths(
            &api.object_param_fields(&param.shape).unwrap(),
            "",
            &mut out,
        );
        out
    }

    /// Properties are read in brackets four objects deep, the parameter's
    /// own counted; a deeper object, and an object of a type above it, is
    /// one JSON value. A union with one object among its alternatives
    /// (Stripe's `created`: a timestamp or a range) is read as that object.
    #[test]
    fn object_parameters_nest_four_objects_deep_and_never_into_themselves() {
        let schemas = "    Filter:
      type: object
      properties:
        near: {$ref: '#/components/schemas/Near'}
        parent: {$ref: '#/components/schemas/Filter'}
        created: {$ref: '#/components/schemas/Created'}
        shape: {$ref: '#/components/schemas/Shape'}
    Created:
      oneOf:
        - {type: integer}
        - {$ref: '#/components/schemas/Range'}
    Range:
      type: object
      properties:
        gte: {type: integer}
    Shape:
      oneOf:
        - {$ref: '#/components/schemas/Range'}
        - {$ref: '#/components/schemas/Point'}
    Near:
      type: object
      properties:
        inner: {$ref: '#/components/schemas/Inner'}
        limit: {type: integer}
    Inner:
      type: object
      properties:
        core: {$ref: '#/components/schemas/Core'}
    Core:
      type: object
      properties:
        point: {$ref: '#/components/schemas/Point'}
        tags: {type: array, items: {type: string}}
    Point:
      type: object
      properties:
        lat: {type: number}
";
        assert_eq!(
            filter_fields(schemas),
            [
                "near[inner][core][point]: Json",
                "near[inner][core][tags]: Text list",
                "near[limit]: Integer",
                "parent: Json",
                "created[gte]: Integer",
                "shape: Json",
            ]
        );
    }

    /// The fields of the form body of a document whose `components.schemas`
    /// are `schemas`, the body's schema `Form`; `None` when it is not read
    /// as pairs.
    fn form_body_fields(schemas: &str) -> Option<Vec<String>> {
        let api = crate::testing::api(&format!(
            "paths:
  /forms:
    post:
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {{$ref: '#/components/schemas/Form'}}
      responses:
        '204': {{description: ok}}
components:
  schemas:
{schemas}"
        ));
        let body = api.operations[0].body.as_ref().unwrap();
        let crate::ir::BodyKind::Form(shape) = &body.kind else {
            return None;
        };
        let mut out = Vec::new();
        paths(&api.form_fields(shape).unwrap(), "", &mut out);
        Some(out)
    }

    /// Each field's text becomes the JSON of its type, through aliases and
    /// newtypes; an array of text values is repeated pairs, any other
    /// array or object one JSON text.
    #[test]
    fn a_form_fields_text_becomes_the_json_of_its_type() {
        let schemas = "    Form:
      type: object
      properties:
        count: {type: integer}
        ratio: {type: number, format: float}
        done: {type: boolean}
        name: {type: string}
        when: {type: string, format: date-time}
        size: {$ref: '#/components/schemas/Size'}
        positive: {$ref: '#/components/schemas/Positive'}
        again: {$ref: '#/components/schemas/Again'}
        tags: {type: array, items: {type: string}}
        sizes: {type: array, items: {$ref: '#/components/schemas/Size'}}
        points: {type: array, items: {$ref: '#/components/schemas/Point'}}
        point: {$ref: '#/components/schemas/Point'}
        either: {$ref: '#/components/schemas/Either'}
        labels: {type: object, additionalProperties: {type: string}}
        free: {}
    Size: {type: string, enum: [s, m, l]}
    Positive: {type: number, minimum: 0}
    Again: {$ref: '#/components/schemas/Positive'}
    Point:
      type: object
      properties:
        lat: {type: number}
    Either:
      oneOf:
        - {type: integer}
        - {$ref: '#/components/schemas/Point'}
";
        assert_eq!(
            form_body_fields(schemas).unwrap(),
            [
                "count: Integer",
                "ratio: Number",
                "done: Boolean",
                "name: Text",
                "when: Text",
                "size: Text",
                "positive: Number",
                "again: Number",
                "tags: Text list",
                "sizes: Text list",
                "points: Json",
                "point: Json",
                "either: Json",
                "labels: Json",
                "free: Json",
            ]
        );
    }

    /// A form body is an object however it is named: a map under another
    /// name is its values (`*`), a union of structs under another name
    /// the fields of each.
    #[test]
    fn a_form_body_named_through_aliases_is_read_as_what_it_names() {
        let map = "    Form: {$ref: '#/components/schemas/Labels'}
    Labels: {type: object, additionalProperties: {type: integer}}
";
        assert_eq!(form_body_fields(map).unwrap(), ["*: Integer"]);
        let union = "    Form: {$ref: '#/components/schemas/Grant'}
    Grant:
      oneOf:
        - {$ref: '#/components/schemas/Password'}
        - {$ref: '#/components/schemas/Refresh'}
    Password:
      type: object
      properties:
        grant_type: {type: string}
        password: {type: string}
    Refresh:
      type: object
      properties:
        grant_type: {type: string}
        refresh_token: {type: string}
";
        assert_eq!(
            form_body_fields(union).unwrap(),
            ["grant_type: Text", "password: Text", "refresh_token: Text"]
        );
    }
}
