//! Keywords the generator reads past: the document still generates, and one
//! note says what the crates do not enforce, so nothing is skipped silently.

use serde_yaml::Value;

use crate::parse::{Document, Pointer};

/// Subtrees that hold data, not schemas: a `readOnly: true` inside an example
/// is part of the example.
const DATA_KEYS: [&str; 4] = ["example", "examples", "default", "enum"];

/// The note for `readOnly` and `writeOnly` in `doc`, if it uses them: they
/// relax `required` (`relax_one_way_required`), but the generated types
/// carry such properties in requests and responses alike.
pub(super) fn read_write_only_note(doc: &Document) -> Option<String> {
    let mut found = Vec::new();
    walk(&doc.raw, &Pointer::root(), false, &mut found);
    let first = doc.user_pointer(found.first()?);
    Some(format!(
        "{}: readOnly/writeOnly are applied to `required` only ({} schema(s), the first at {}{first}): \
         a required readOnly property is optional in the types requests carry, a required \
         writeOnly one in the types answers carry; otherwise those properties are generated \
         like any other, in requests and responses alike",
        doc.file,
        found.len(),
        doc.file
    ))
}

/// `names_properties`: the keys of this mapping are property names (so a
/// property called `example` is still a schema).
fn walk(value: &Value, at: &Pointer, names_properties: bool, found: &mut Vec<Pointer>) {
    match value {
        Value::Mapping(map) => {
            let flagged = ["readOnly", "writeOnly"]
                .iter()
                .any(|key| map.get(*key) == Some(&Value::Bool(true)));
            if flagged {
                found.push(at.clone());
            }
            for (key, child) in map {
                let Some(key) = key.as_str() else { continue };
                if names_properties || !DATA_KEYS.contains(&key) {
                    let child_names_properties = !names_properties && key == "properties";
                    walk(child, &at.push(key), child_names_properties, found);
                }
            }
        }
        Value::Sequence(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &at.push(&i.to_string()), false, found);
            }
        }
        _ => {}
    }
}

/// The readOnly/writeOnly note counts every schema that uses them, those in
/// a list of schemas (`allOf`, `oneOf`, `anyOf`) too.
#[cfg(test)]
mod note_tests {
    use super::*;

    #[test]
    fn read_only_in_a_list_of_schemas_is_counted() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n\
                    components:\n  schemas:\n    Pet:\n      allOf:\n\
                    \x20       - {type: object, properties: {id: {type: integer, readOnly: true}}}\n\
                    \x20       - {type: object, properties: {secret: {type: string, writeOnly: true}}}\n";
        let doc = Document::parse(text, "rw.yaml", false).unwrap();
        let note = read_write_only_note(&doc).expect("no note for readOnly inside allOf");
        assert!(
            note.contains(
                "(2 schema(s), the first at rw.yaml#/components/schemas/Pet/allOf/0/properties/id)"
            ),
            "{note}"
        );
    }
}
