//! Stage one: read a document and resolve its references.
//!
//! The document is kept twice: as a YAML value (ordered, so that pointers can be
//! followed anywhere, whatever a `$ref` names) and as `openapiv3`'s typed model.
//! A document split over files is first bundled into one (`bundle.rs`),
//! whose [`Sources`] name the file each brought-in node came from. An
//! OpenAPI 3.2 document is rewritten into 3.1 (`v32.rs`), and a 3.1 one
//! into 3.0 (`v31.rs`); their
//! [`Origins`] turn pointers into the rewritten tree back into the user's.
//!
//! - [`tree`]: the text → a YAML tree, JSON or YAML by the file's name;
//! - [`bundle`]: a document split over files brought into one;
//! - [`v31`]: OpenAPI 3.1 rewritten into 3.0, with the way back for pointers;
//! - [`v32`]: OpenAPI 3.2 rewritten into 3.1, likewise;
//! - [`habits`]: Swagger 2 habits in 3.0 documents, read as meant;
//! - [`refine`]: the deepest problem of a node `openapiv3` refuses;
//! - [`resolve`]: `$ref`s followed, with cycle detection;
//! - [`callbacks`]: callbacks given by reference, read as `openapiv3` can.
//!
//! JSON pointers themselves are [`crate::pointer`]'s.

mod bundle;
mod callbacks;
mod habits;
mod refine;
mod resolve;
mod tree;
mod v20;
mod v31;
mod v32;

use std::path::Path;

use serde::de::DeserializeOwned;

pub use crate::pointer::Pointer;
pub use bundle::Sources;
pub use habits::Habit;
pub use resolve::Resolved;
pub use v31::{OTHER_METHODS, Origins};
pub use v32::{QUERYSTRING, SEQUENCE};

use crate::error::{Error, Result};
use tree::{holds_data, is_json, tree};

/// A parsed OpenAPI 3.0 or 3.1 document.
pub struct Document {
    /// The document's name in messages and generated headers, e.g. `spec/openapi.yaml`.
    pub file: String,
    /// The document as an ordered tree, for following `$ref`s (for a 3.1
    /// document, rewritten into 3.0).
    pub raw: serde_yaml::Value,
    /// The document in `openapiv3`'s model.
    pub api: openapiv3::OpenAPI,
    /// The `openapi` version the user's document states.
    pub version: String,
    /// Where the nodes of `raw` are in the user's document (empty for 3.0).
    pub origins: Origins,
    /// The files other than the root that nodes were brought in from.
    pub sources: Sources,
    /// The 3.1 `mutualTLS` security schemes, by name: not in the 3.0 tree,
    /// as the connection meets them (a client certificate), not the request.
    pub mutual_tls: Vec<String>,
    /// What the parser read past, with where: Swagger 2's forms and missing
    /// fields (`habits.rs`), 3.1's conditional keywords, a 3.0 document read
    /// as 3.1. The lowering names them in its lenient note.
    pub habits: Vec<(Habit, Pointer)>,
}

impl Document {
    /// Reads and parses the document at `path`; `file` is how messages name
    /// it. References to other files are followed, relative to `path`.
    pub fn load(path: &Path, file: &str) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        let mut raw = tree(&text, file, is_json(path))?;
        check_version(&raw, file)?;
        let sources = bundle::bundle(&mut raw, path, file)?;
        Self::read(raw, file, sources)
    }

    /// Parses a document's text; `is_json` picks the JSON parser, YAML
    /// otherwise. With no file to be relative to, a reference to another
    /// file is an error ([`Document::load`] follows them).
    pub fn parse(text: &str, file: &str, is_json: bool) -> Result<Self> {
        Self::read(tree(text, file, is_json)?, file, Sources::default())
    }

    fn read(mut raw: serde_yaml::Value, file: &str, sources: Sources) -> Result<Self> {
        let version = check_version(&raw, file)?;
        let is_31 = v31::is_31(&version) || v32::is_32(&version);
        let mut converted = Vec::new();
        let normalised = if v32::is_32(&version) {
            let origins = v32::rewrite(&mut raw);
            v31::normalise_from(&mut raw, origins)
        } else if is_31 {
            v31::normalise(&mut raw)
        } else if v20::is_20(&raw) {
            let v20::Converted { origins, notes } = v20::convert(&mut raw);
            converted = notes;
            v31::Normalised::from(origins)
        } else {
            v31::Normalised::default()
        };
        callbacks::inline_references(&mut raw);
        let mut habits = converted;
        habits.extend(habits::missing_sections(&mut raw, file));
        habits.extend(habits::read_past(&mut raw));
        habits.extend(conditional(&normalised));
        let (api, normalised) = match deserialize_at(&raw, file, &Pointer::root()) {
            Ok(api) => (api, normalised),
            Err(error) => {
                // serde cannot see through openapiv3's untagged enums; look
                // for the deepest node that does not fit, and name it instead.
                let error = match refine::deepest_problem(&raw, &Pointer::root()) {
                    Some((pointer, message)) => {
                        Error::invalid(file, &pointer, explain_serde_error(&message))
                    }
                    None => error,
                };
                // A 3.0 document written with 3.1's forms (`type: [string,
                // "null"]`, a numeric `exclusiveMinimum`), or with the
                // tuple `items` of earlier drafts, reads as 3.1.
                let form = first_31_form(&raw, &Pointer::root());
                let retried = (!is_31 && (form.is_some() || has_tuple_items(&raw))).then(|| {
                    let mut again = raw.clone();
                    let normalised = v31::normalise(&mut again);
                    callbacks::inline_references(&mut again);
                    deserialize_at(&again, file, &Pointer::root())
                        .map(|api| (api, normalised, again))
                });
                match retried {
                    Some(Ok((api, normalised, again))) => {
                        raw = again;
                        habits.extend(form.map(|at| (Habit::ThreeOneForms, at)));
                        habits.extend(conditional(&normalised));
                        (api, normalised)
                    }
                    _ => return Err(user_error(&normalised.origins, &sources, error)),
                }
            }
        };
        Ok(Document {
            file: file.to_owned(),
            raw,
            api,
            version,
            origins: normalised.origins,
            sources,
            mutual_tls: normalised.mutual_tls,
            habits,
        })
    }

    /// The file and the pointer in it of the node at `pointer` of
    /// [`Document::raw`]: through the 3.1 rewriting, then to the file the
    /// node was brought in from.
    pub fn place(&self, pointer: &Pointer) -> (String, Pointer) {
        locate(&self.origins, &self.sources, self.file.clone(), pointer)
    }

    /// The pointer in the user's document of the node at `pointer` of [`Document::raw`].
    pub fn user_pointer(&self, pointer: &Pointer) -> Pointer {
        self.origins.to_user(pointer)
    }

    /// `error` with its pointer into [`Document::raw`] turned into one into
    /// the user's document. Applied once, where an error leaves a stage.
    pub fn user_error(&self, error: Error) -> Error {
        user_error(&self.origins, &self.sources, error)
    }

    /// What `node` holds, its `$ref`s within the document followed (at most
    /// 32 deep); a reference that names nothing is the node itself.
    pub fn follow_refs<'a>(&'a self, mut node: &'a serde_yaml::Value) -> &'a serde_yaml::Value {
        for _ in 0..32 {
            let Some(target) = node
                .get("$ref")
                .and_then(serde_yaml::Value::as_str)
                .and_then(Pointer::parse_local)
                .and_then(|pointer| self.node(&pointer))
            else {
                break;
            };
            node = target;
        }
        node
    }

    /// The node at `pointer`, if there is one.
    pub fn node(&self, pointer: &Pointer) -> Option<&serde_yaml::Value> {
        let mut node = &self.raw;
        for token in pointer.tokens() {
            node = match node {
                serde_yaml::Value::Mapping(map) => map.get(token.as_str())?,
                serde_yaml::Value::Sequence(seq) => seq.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// An invalid-document error at `pointer`.
    pub fn invalid(&self, pointer: &Pointer, message: impl Into<String>) -> Error {
        Error::invalid(&self.file, pointer, message)
    }

    /// An unsupported-construct error at `pointer`.
    pub fn unsupported(&self, pointer: &Pointer, message: impl Into<String>) -> Error {
        Error::unsupported(&self.file, pointer, message)
    }
}

/// `error` naming the user's file and node: its pointer taken back through
/// the 3.1 rewriting, then to the file the node was brought in from.
fn user_error(origins: &Origins, sources: &Sources, error: Error) -> Error {
    let locate = |file, pointer: &Pointer| locate(origins, sources, file, pointer);
    match error {
        Error::Invalid {
            file,
            pointer,
            message,
        } => {
            let (file, pointer) = locate(file, &pointer);
            Error::Invalid {
                file,
                pointer,
                message,
            }
        }
        Error::Unsupported {
            file,
            pointer,
            message,
        } => {
            let (file, pointer) = locate(file, &pointer);
            Error::Unsupported {
                file,
                pointer,
                message,
            }
        }
        other => other,
    }
}

/// The file and the pointer in it of the node at `pointer` of the rewritten
/// tree of `file`: through the 3.1 rewriting, then to the file the node was
/// brought in from.
fn locate(
    origins: &Origins,
    sources: &Sources,
    file: String,
    pointer: &Pointer,
) -> (String, Pointer) {
    let pointer = origins.to_user(pointer);
    sources.locate(&pointer).unwrap_or((file, pointer))
}

/// The places of 3.1's conditional keywords, which nothing checks, for the
/// lenient note.
fn conditional(normalised: &v31::Normalised) -> impl Iterator<Item = (Habit, Pointer)> + '_ {
    let unchecked = normalised.unchecked.iter().cloned();
    let tuples = normalised.tuples.iter().cloned();
    unchecked
        .map(|at| (Habit::ConditionalKeywords, at))
        .chain(tuples.map(|at| (Habit::TupleItems, at)))
}

/// Where `node` (at `at`) first uses a form of OpenAPI 3.1's JSON Schema
/// that 3.0 has not: a list of types, a numeric `exclusiveMinimum` or
/// `exclusiveMaximum`, `const`, `prefixItems`, `$defs`. Data (`example`,
/// `default`, `enum`, extensions) is not looked into.
fn first_31_form(node: &serde_yaml::Value, at: &Pointer) -> Option<Pointer> {
    match node {
        serde_yaml::Value::Mapping(map) => map.iter().find_map(|(key, value)| {
            let key = key.as_str()?;
            match key {
                "type" if value.is_sequence() => Some(at.push(key)),
                "exclusiveMinimum" | "exclusiveMaximum" if value.is_number() => Some(at.push(key)),
                "const" | "prefixItems" | "$defs" => Some(at.push(key)),
                key if holds_data(key) => None,
                _ => first_31_form(value, &at.push(key)),
            }
        }),
        serde_yaml::Value::Sequence(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| first_31_form(item, &at.index(i))),
        _ => None,
    }
}

/// Whether a schema of `node` gives `items` as a list (the tuple form of
/// JSON Schema's drafts before 2020-12), which neither 3.0 nor 3.1 has.
fn has_tuple_items(node: &serde_yaml::Value) -> bool {
    match node {
        serde_yaml::Value::Mapping(map) => map.iter().any(|(key, value)| match key.as_str() {
            Some("items") if value.is_sequence() => true,
            Some(key) if holds_data(key) => false,
            _ => has_tuple_items(value),
        }),
        serde_yaml::Value::Sequence(items) => items.iter().any(has_tuple_items),
        _ => false,
    }
}

/// The `openapi` version, if it is one the generator reads (3.0.x or 3.1.x).
fn check_version(raw: &serde_yaml::Value, file: &str) -> Result<String> {
    let root = Pointer::root();
    if v20::is_20(raw) {
        return Ok("2.0".to_owned());
    }
    if raw.get("swagger").is_some() {
        return Err(Error::unsupported(
            file,
            &root.push("swagger"),
            "of Swagger, the generator reads version 2.0 only (`swagger: \"2.0\"`)",
        ));
    }
    match raw.get("openapi").and_then(serde_yaml::Value::as_str) {
        Some(v) if v.starts_with("3.0.") || v == "3.0" || v31::is_31(v) || v32::is_32(v) => {
            Ok(v.to_owned())
        }
        Some(v) => Err(Error::unsupported(
            file,
            &root.push("openapi"),
            format!(
                "OpenAPI {v} is not supported; the generator reads OpenAPI 3.0.x, 3.1.x and \
                 3.2.x, and Swagger 2.0"
            ),
        )),
        None => Err(Error::invalid(
            file,
            &root.push("openapi"),
            "the `openapi` field (a version string such as 3.0.3) is missing",
        )),
    }
}

/// Deserialises the node `value`, found at `at`, into `T`; errors name the
/// pointer of the innermost node that did not fit.
pub(crate) fn deserialize_at<T: DeserializeOwned>(
    value: &serde_yaml::Value,
    file: &str,
    at: &Pointer,
) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut pointer = at.clone();
        for segment in e.path().iter() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => pointer = pointer.index(*index),
                serde_path_to_error::Segment::Map { key } => pointer = pointer.push(key),
                serde_path_to_error::Segment::Enum { .. }
                | serde_path_to_error::Segment::Unknown => {}
            }
        }
        let message = e.into_inner().to_string();
        // "missing field `paths`" on the node itself: name where the field belongs.
        if let Some(field) = message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            return Error::invalid(
                file,
                &pointer.push(field),
                format!("the required field `{field}` is missing"),
            );
        }
        Error::invalid(file, &pointer, explain_serde_error(&message))
    })
}

/// serde's messages for `openapiv3`'s untagged enums say little; say what they mean.
fn explain_serde_error(message: &str) -> String {
    if message.starts_with("unknown variant `formData`")
        || message.starts_with("unknown variant `body`")
    {
        format!(
            "{message}: `in: formData` and `in: body` are Swagger 2's; in OpenAPI 3 a body, \
             form fields included, is the operation's `requestBody` (`multipart/form-data` or \
             `application/x-www-form-urlencoded` for a form)"
        )
    } else if message.contains("untagged enum ReferenceOr") {
        "expected an object of the kind this place allows, or a `$ref`; the node matches neither"
            .to_owned()
    } else if message.contains("untagged enum") {
        format!("the node does not have a shape this place allows ({message})")
    } else {
        message.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_pointer_of_a_bad_node() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses: 7\n";
        let err = Document::parse(text, "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("t.yaml#/paths/~1a/get/responses: invalid document"),
            "{err}"
        );
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n        b: {type: array, items: {type: string, minLength: -1}}\n";
        let err = Document::parse(text, "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("t.yaml#/components/schemas/A/properties/b/items: invalid document"),
            "{err}"
        );
        // A broken answer is named by its status, not by an extension
        // beside it.
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        x-note: {anything: 1}\n        '200': {description: ok, content: 7}\n";
        let err = Document::parse(text, "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("t.yaml#/paths/~1a/get/responses/200"),
            "{err}"
        );
    }

    #[test]
    fn takes_unquoted_versions_and_a_byte_order_mark() {
        let text = "\u{feff}openapi: 3.0\ninfo: {title: t, version: 1.0}\npaths: {}\n";
        let doc = Document::parse(text, "t.yaml", false).unwrap();
        assert_eq!(doc.version, "3.0");
        assert_eq!(doc.api.info.version, "1.0");
        let json = "\u{feff}{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"t\", \"version\": 2}, \"paths\": {}}";
        let doc = Document::parse(json, "t.json", true).unwrap();
        assert_eq!(doc.api.info.version, "2");
    }

    #[test]
    fn a_propertys_own_required_flag_moves_to_its_object() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pet:\n      type: object\n      required: [name]\n      properties:\n        id: {type: string, required: true}\n        name: {type: string}\n        tag: {type: string, required: false}\n      example: {id: a, properties: {x: {required: true}}}\n";
        let doc = Document::parse(text, "t.yaml", false).unwrap();
        let pet = &doc.raw["components"]["schemas"]["Pet"];
        assert_eq!(
            pet["required"],
            serde_yaml::from_str::<serde_yaml::Value>("[name, id]").unwrap()
        );
        assert!(pet["properties"]["tag"].get("required").is_none());
        assert_eq!(pet["example"]["properties"]["x"]["required"], true);
        let at = |name: &str| {
            Pointer::root()
                .push("components")
                .push("schemas")
                .push("Pet")
                .push("properties")
                .push(name)
                .push("required")
        };
        let flags: Vec<Pointer> = doc.habits.iter().map(|(_, at)| at.clone()).collect();
        assert_eq!(flags, [at("id"), at("tag")]);
    }

    #[test]
    fn a_30_document_in_31_forms_reads_as_31() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pet:\n      type: object\n      properties:\n        id: {type: [string, 'null']}\n        age: {type: integer, exclusiveMinimum: 0}\n";
        let doc = Document::parse(text, "t.yaml", false).unwrap();
        assert!(doc.habits.iter().any(|(h, _)| *h == Habit::ThreeOneForms));
        assert_eq!(doc.version, "3.0.3");
        let pet = &doc.raw["components"]["schemas"]["Pet"]["properties"];
        assert_eq!(pet["id"]["nullable"], true);
        assert_eq!(pet["age"]["exclusiveMinimum"], true);
        let plain = text.replace("{type: [string, 'null']}", "{type: string}");
        let plain = plain.replace(", exclusiveMinimum: 0", "");
        assert!(
            Document::parse(&plain, "t.yaml", false)
                .unwrap()
                .habits
                .is_empty()
        );
        // Broken either way: the 3.0 reading's error.
        let broken = text.replace("age: {type: integer", "age: {type: integer, minLength: -1");
        let err = Document::parse(&broken, "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("t.yaml#/components/schemas/Pet/properties/"),
            "{err}"
        );
    }

    #[test]
    fn applies_yaml_merge_keys() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Base: &base\n      type: object\n      properties:\n        id: {type: string}\n    Pet:\n      <<: *base\n      required: [id]\n";
        let doc = Document::parse(text, "t.yaml", false).unwrap();
        let pet = &doc.raw["components"]["schemas"]["Pet"];
        assert!(pet.get("<<").is_none(), "{pet:?}");
        assert_eq!(pet["properties"]["id"]["type"], "string");
        assert_eq!(pet["required"][0], "id");
        let err = Document::parse("openapi: 3.0.3\na:\n  <<: 7\n", "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("t.yaml#: invalid document: a YAML merge key"),
            "{err}"
        );
    }

    /// Read as 3.1, a 3.0 document's conditional keywords are named too.
    #[test]
    fn a_30_document_read_as_31_names_its_conditional_keywords() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pet:\n      type: object\n      dependentRequired: {a: [b]}\n      properties:\n        a: {type: [string, 'null']}\n        b: {type: string}\n";
        let doc = Document::parse(text, "t.yaml", false).unwrap();
        let pet = Pointer::root()
            .push("components")
            .push("schemas")
            .push("Pet");
        assert!(
            doc.habits
                .contains(&(Habit::ConditionalKeywords, pet.push("dependentRequired"))),
            "{:?}",
            doc.habits
        );
    }

    /// An operation's own body parameters become its `requestBody`
    /// (`habits.rs`); a shared one, which several operations could name,
    /// is refused with what to write instead.
    #[test]
    fn a_swagger_2_body_parameter_is_named_as_such() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      parameters:\n        - {$ref: '#/components/parameters/F'}\n      responses:\n        '204': {description: ok}\ncomponents:\n  parameters:\n    F: {name: f, in: formData, type: string}\n";
        let err = Document::parse(text, "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("t.yaml#/components/parameters/F"), "{err}");
        assert!(err.contains("is the operation's `requestBody`"), "{err}");
    }

    #[test]
    fn refuses_other_versions() {
        let err = Document::parse("swagger: '1.2'\n", "s.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("s.yaml#/swagger: not supported"), "{err}");
        // Swagger 2.0 is converted (`v20.rs`).
        assert!(Document::parse("swagger: '2.0'\n", "s.yaml", false).is_ok());
        // OpenAPI 3.2 is rewritten into 3.1 (`v32.rs`); 3.3 is not known.
        assert!(Document::parse("openapi: 3.2.0\n", "s.yaml", false).is_ok());
        let err = Document::parse("openapi: 3.3.0\n", "s.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("OpenAPI 3.3.0 is not supported"), "{err}");
    }

    /// The first 3.1 form of a node, in document order, where a schema can
    /// be: not in data (examples, defaults), and `exclusiveMinimum: true`
    /// is 3.0's own form.
    #[test]
    fn finds_the_first_31_form_where_a_schema_can_be() {
        let first = |yaml: &str| {
            let node: serde_yaml::Value = serde_yaml::from_str(yaml).unwrap();
            first_31_form(&node, &Pointer::root()).map(|p| p.to_string())
        };
        let found = |p: &str| Some(p.to_owned());
        assert_eq!(
            first("{properties: {a: {type: integer, exclusiveMinimum: 0}}}"),
            found("#/properties/a/exclusiveMinimum")
        );
        assert_eq!(
            first("{maximum: 9, exclusiveMaximum: 9.5}"),
            found("#/exclusiveMaximum")
        );
        assert_eq!(
            first("{type: integer, minimum: 0, exclusiveMinimum: true}"),
            None
        );
        assert_eq!(
            first("{properties: {a: {const: 1}}}"),
            found("#/properties/a/const")
        );
        assert_eq!(
            first("{prefixItems: [{type: string}]}"),
            found("#/prefixItems")
        );
        assert_eq!(first("{$defs: {a: {type: string}}}"), found("#/$defs"));
        assert_eq!(
            first("{allOf: [{type: string}, {type: [string, 'null']}]}"),
            found("#/allOf/1/type")
        );
        assert_eq!(
            first("{example: {type: [a, b], const: 1}, default: {const: 2}}"),
            None
        );
        assert_eq!(
            first("{type: object, properties: {a: {type: string}}}"),
            None
        );
    }

    /// A 3.0 document is read again as 3.1 only for 3.1's forms: a
    /// boolean schema, which 3.1 has and 3.0 has not, is refused where it is.
    #[test]
    fn a_30_document_with_a_boolean_schema_is_refused_at_it() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Tags: {type: array, items: true}\n";
        let err = Document::parse(text, "t.yaml", false)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("t.yaml#/components/schemas/Tags"), "{err}");
        let as_31 = text.replace("3.0.3", "3.1.0");
        assert!(Document::parse(&as_31, "t.yaml", false).is_ok());
    }

    /// A 3.0 document with the tuple `items` of JSON Schema's earlier drafts
    /// reads as 3.1 does, with a note at each; a list under `example` is data.
    #[test]
    fn a_30_document_with_tuple_items_is_read_with_a_note() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pair: {type: array, items: [{type: string}, {type: integer}]}\n";
        let doc = Document::parse(text, "t.yaml", false).unwrap();
        assert!(
            doc.habits.iter().any(|(h, _)| *h == Habit::TupleItems),
            "{:?}",
            doc.habits
        );
        let data: serde_yaml::Value =
            serde_yaml::from_str("{type: array, example: {items: [1, 2]}}").unwrap();
        assert!(!has_tuple_items(&data));
        let in_a_list: serde_yaml::Value =
            serde_yaml::from_str("{allOf: [{type: string}, {items: [{type: string}]}]}").unwrap();
        assert!(has_tuple_items(&in_a_list));
    }
}
