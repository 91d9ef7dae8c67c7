//! A document split over files (`$ref`s to other files, as `redocly split`
//! writes them) generates the same crates as the same document in one
//! file; a reference to a file that is missing, or a broken node inside
//! another file, is named by that file and its pointer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};

use openapi_codegen::config::Target;
use openapi_codegen::parse::Document;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/multi_file")
}

/// The crates of `spec` (relative to `root`), or the error's text.
fn generate(root: &Path, spec: &str) -> Result<openapi_codegen::Generated, String> {
    let target = Target::standalone(PathBuf::from(spec), "pets");
    openapi_codegen::generate(root, &target, "the test").map_err(|e| e.to_string())
}

#[test]
fn a_split_document_generates_the_crates_of_the_bundled_one() {
    let split = generate(&fixtures(), "split/openapi.yaml").unwrap();
    let bundled = generate(&fixtures(), "bundled.yaml").unwrap();
    let files = |generated: &openapi_codegen::Generated, source: &str| {
        generated
            .files
            .iter()
            .map(|(path, text)| (path.to_path_buf(), text.replace(source, "SOURCE")))
            .collect::<Vec<_>>()
    };
    let (split, bundled) = (
        files(&split, "split/openapi.yaml"),
        files(&bundled, "bundled.yaml"),
    );
    let names = |files: &[(PathBuf, String)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&split), names(&bundled));
    for ((path, split), (_, bundled)) in split.iter().zip(&bundled) {
        assert!(
            split == bundled,
            "{} differs:\n{}",
            path.display(),
            similar::TextDiff::from_lines(bundled, split).unified_diff()
        );
    }
    // The self-reference through its file is still one recursive type.
    let models = split
        .iter()
        .find(|(path, _)| path.ends_with("models/src/common.rs"))
        .map(|(_, text)| text.as_str())
        .unwrap_or_default();
    assert!(
        models.contains("pub children: Option<Vec<Tree>>"),
        "{models}"
    );
}

/// Where the scratch folder `name` is.
fn scratch_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "openapi-codegen-multi-file-{}-{name}",
        std::process::id()
    ))
}

/// A scratch folder holding `files` (path, text).
fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = scratch_dir(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The error of generating `openapi.yaml` of the scratch folder `files`.
fn refusal(name: &str, files: &[(&str, &str)]) -> String {
    let dir = scratch(name, files);
    let error = generate(&dir, "openapi.yaml").expect_err("a broken document");
    let _ = std::fs::remove_dir_all(&dir);
    error
}

/// The document `openapi.yaml` of the scratch folder `files`, bundled.
fn bundled(name: &str, files: &[(&str, &str)]) -> Document {
    let dir = scratch(name, files);
    let doc = Document::load(&dir.join("openapi.yaml"), "openapi.yaml");
    let _ = std::fs::remove_dir_all(&dir);
    doc.unwrap_or_else(|e| panic!("{e}"))
}

/// The models' `common.rs` of `openapi.yaml` of the scratch folder `files`.
fn common_models(name: &str, files: &[(&str, &str)]) -> String {
    let dir = scratch(name, files);
    let generated = generate(&dir, "openapi.yaml");
    let _ = std::fs::remove_dir_all(&dir);
    let generated = generated.unwrap_or_else(|e| panic!("{e}"));
    generated
        .files
        .iter()
        .find(|(path, _)| path.ends_with("models/src/common.rs"))
        .map(|(_, text)| text.to_owned())
        .unwrap_or_default()
}

const ROOT: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /pets:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Pet'}\ncomponents:\n  schemas:\n    Pet: {$ref: 'schemas/pet.yaml'}\n";

#[test]
fn a_missing_file_is_named_at_its_reference() {
    let error = refusal("missing", &[("openapi.yaml", ROOT)]);
    assert!(
        error.starts_with("openapi.yaml#/components/schemas/Pet/$ref: invalid document: `schemas/pet.yaml` names the file"),
        "{error}"
    );
    assert!(error.contains("cannot be read"), "{error}");
}

#[test]
fn a_pointer_to_nothing_in_another_file_is_named_where_it_is_written() {
    let error = refusal(
        "nothing",
        &[
            ("openapi.yaml", ROOT),
            (
                "schemas/pet.yaml",
                "type: object\nproperties:\n  owner: {$ref: '../common.yaml#/components/schemas/Owner'}\n",
            ),
            ("common.yaml", "components:\n  schemas: {}\n"),
        ],
    );
    assert_eq!(
        error,
        "schemas/pet.yaml#/properties/owner/$ref: invalid document: \
         `../common.yaml#/components/schemas/Owner` points to nothing: common.yaml has no \
         #/components/schemas/Owner"
    );
}

#[test]
fn a_broken_node_in_another_file_is_named_in_that_file() {
    let error = refusal(
        "broken",
        &[
            ("openapi.yaml", ROOT),
            (
                "schemas/pet.yaml",
                "type: object\nproperties:\n  tags:\n    type: array\n    items: {type: string, minLength: -1}\n",
            ),
        ],
    );
    assert!(
        error.starts_with("schemas/pet.yaml#/properties/tags/items: invalid document"),
        "{error}"
    );
    // Found later, by the lowering, rather than by the parser.
    let error = refusal(
        "contradiction",
        &[
            ("openapi.yaml", ROOT),
            (
                "schemas/pet.yaml",
                "allOf: [{type: string}, {type: integer}]\n",
            ),
        ],
    );
    assert!(error.starts_with("schemas/pet.yaml#"), "{error}");
    let error = refusal(
        "yaml",
        &[
            ("openapi.yaml", ROOT),
            ("schemas/pet.yaml", "type: [object\n"),
        ],
    );
    assert!(
        error.starts_with("schemas/pet.yaml#: invalid document: not valid YAML"),
        "{error}"
    );
}

#[test]
fn remote_references_and_cycles_of_path_items_are_refused() {
    let remote = ROOT.replace("schemas/pet.yaml", "https://example.com/pet.yaml");
    let error = refusal("remote", &[("openapi.yaml", &remote)]);
    assert!(
        error.starts_with("openapi.yaml#/components/schemas/Pet/$ref: not supported by the generator: `https://example.com/pet.yaml` is a remote reference"),
        "{error}"
    );
    let error = refusal(
        "cycle",
        &[
            (
                "openapi.yaml",
                "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {$ref: 'paths/a.yaml'}\n",
            ),
            ("paths/a.yaml", "$ref: b.yaml\n"),
            ("paths/b.yaml", "$ref: a.yaml\n"),
        ],
    );
    assert!(error.contains("leads back to itself"), "{error}");
}

/// Two files of one name in two folders give two types, the second told
/// apart by its folder rather than by a number.
#[test]
fn files_of_one_name_are_told_apart_by_their_folders() {
    let root = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /orders:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'orders/item.yaml'}\n  /products:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'products/item.yaml'}\n";
    let models = common_models(
        "same-name",
        &[
            ("openapi.yaml", root),
            (
                "orders/item.yaml",
                "type: object\nproperties:\n  quantity: {type: integer}\n",
            ),
            (
                "products/item.yaml",
                "type: object\nproperties:\n  sku: {type: string}\n",
            ),
        ],
    );
    assert!(models.contains("pub struct Item {"), "{models}");
    assert!(models.contains("pub struct ProductsItem {"), "{models}");
    assert!(!models.contains("Item2"), "{models}");
}

/// A `file:` URL names a file on this machine, as a path would.
#[test]
fn a_file_url_is_followed_like_a_path() {
    let pet = scratch_dir("file-url").join("schemas/pet.yaml");
    let url = format!("file://{}", pet.display());
    let models = common_models(
        "file-url",
        &[
            ("openapi.yaml", &ROOT.replace("schemas/pet.yaml", &url)),
            (
                "schemas/pet.yaml",
                "type: object\nproperties:\n  name: {type: string}\n",
            ),
        ],
    );
    assert!(models.contains("pub name: Option<String>"), "{models}");
    let gone = ROOT.replace("schemas/pet.yaml", &format!("{url}.gone"));
    let error = refusal("file-url-gone", &[("openapi.yaml", &gone)]);
    assert!(
        error.contains("cannot be read") && error.contains("pet.yaml.gone"),
        "{error}"
    );
}

/// A discriminator's mapping is read like a reference when it names a
/// file; one into a file that is not there (DigitalOcean's published
/// document has some) is a hint left unread, not an error.
#[test]
fn a_mapping_names_a_file_or_is_left_alone() {
    let root = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /shapes:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                oneOf:\n                  - {$ref: 'shapes.yaml#/Square'}\n                  - {$ref: 'shapes.yaml#/Circle'}\n                discriminator:\n                  propertyName: kind\n                  mapping:\n                    square: 'shapes.yaml#/Square'\n                    circle: 'models/gone.yml#/Circle'\n";
    let shapes = "Square:\n  type: object\n  required: [kind]\n  properties:\n    kind: {type: string}\n    side: {type: number}\nCircle:\n  type: object\n  required: [kind]\n  properties:\n    kind: {type: string}\n    radius: {type: number}\n";
    let models = common_models(
        "mapping",
        &[("openapi.yaml", root), ("shapes.yaml", shapes)],
    );
    for name in ["pub struct Square", "pub struct Circle"] {
        assert!(models.contains(name), "{name} in:\n{models}");
    }
}

/// `paths: {$ref: …}` and `schemas: {$ref: …}`: a whole map in a file of
/// its own, which OpenAPI does not allow but bundlers follow; the
/// references inside it are relative to that file.
#[test]
fn a_whole_map_may_be_in_a_file_of_its_own() {
    let root = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  $ref: api/paths.yaml\ncomponents:\n  schemas:\n    $ref: api/schemas.yaml\n";
    let paths = "/pets:\n  get:\n    responses:\n      '200':\n        description: ok\n        content:\n          application/json:\n            schema: {$ref: 'schemas.yaml#/Pet'}\n";
    let schemas = "Pet:\n  type: object\n  properties:\n    owner: {$ref: 'owner.yaml'}\n";
    let owner = "type: object\nproperties:\n  name: {type: string}\n";
    let models = common_models(
        "maps",
        &[
            ("openapi.yaml", root),
            ("api/paths.yaml", paths),
            ("api/schemas.yaml", schemas),
            ("api/owner.yaml", owner),
        ],
    );
    assert_eq!(models.matches("pub struct Pet").count(), 1, "{models}");
    assert!(models.contains("pub owner: Option<Owner>"), "{models}");

    // The bundled document too: the entry the path names by its file is
    // the section's own, not a copy beside it under another name.
    let doc = bundled(
        "maps-bundled",
        &[
            ("openapi.yaml", root),
            ("api/paths.yaml", paths),
            ("api/schemas.yaml", schemas),
            ("api/owner.yaml", owner),
        ],
    );
    let schemas = doc.raw["components"]["schemas"].as_mapping().unwrap();
    let names: Vec<_> = schemas.keys().filter_map(|k| k.as_str()).collect();
    assert_eq!(names, ["Pet", "owner"]);
    let answer = &doc.raw["paths"]["/pets"]["get"]["responses"]["200"]["content"];
    assert_eq!(
        answer["application/json"]["schema"]["$ref"],
        "#/components/schemas/Pet"
    );
}

/// The files a split document was read from besides its root, each once,
/// canonical and sorted: what a build script watches for changes.
#[test]
fn a_split_document_lists_the_files_it_was_read_from() {
    let root = fixtures().join("split");
    let doc = Document::load(&root.join("openapi.yaml"), "split/openapi.yaml").unwrap();
    let mut expected: Vec<PathBuf> = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if !path.ends_with("openapi.yaml") {
                expected.push(std::fs::canonicalize(path).unwrap());
            }
        }
    }
    expected.sort();
    assert!(expected.len() > 1, "{expected:?}");
    assert_eq!(doc.sources.files(), expected.as_slice());
    let one = fixtures().join("bundled.yaml");
    assert!(
        Document::load(&one, "bundled.yaml")
            .unwrap()
            .sources
            .files()
            .is_empty()
    );
}

/// A node of every kind that a `$ref` may name can be in another file: it
/// is brought into its own `components` section, whatever field holds it
/// (an operation's parameters, body, answers and callbacks, an answer's
/// headers and links, a part's headers, a callback's path item, a schema's
/// `additionalProperties`, a security scheme).
#[test]
fn a_node_of_every_kind_may_be_in_another_file() {
    let root = r##"openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /pets:
    post:
      operationId: addPet
      parameters:
        - $ref: 'parts.yaml#/Limit'
      requestBody:
        $ref: 'parts.yaml#/NewPet'
      responses:
        '200':
          $ref: 'parts.yaml#/PetList'
      callbacks:
        onAdded:
          $ref: 'parts.yaml#/OnAdded'
  /photos:
    post:
      operationId: addPhoto
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                file: {type: string, format: binary}
            encoding:
              file:
                headers:
                  X-Part:
                    $ref: 'parts.yaml#/PartHeader'
      responses:
        '204': {description: Added.}
components:
  securitySchemes:
    key:
      $ref: 'parts.yaml#/Key'
"##;
    let parts = r##"Limit: {name: limit, in: query, description: the limit, schema: {type: integer}}
NewPet:
  description: the new pet
  content:
    application/json:
      schema: {$ref: 'schemas.yaml#/Pet'}
PetList:
  description: the pets
  headers:
    X-Rate:
      $ref: '#/Rate'
  links:
    next:
      $ref: '#/Next'
  content:
    application/json:
      schema: {$ref: 'schemas.yaml#/Pet'}
Rate: {description: the rate, schema: {type: integer}}
Next: {description: the next page, operationId: addPet}
OnAdded:
  '{$request.body#/url}':
    post:
      requestBody:
        description: the event
        content:
          application/json:
            schema: {$ref: 'schemas.yaml#/Event'}
      responses:
        '204': {description: Received.}
PartHeader: {description: the part header, schema: {type: string}}
Key: {type: apiKey, in: header, name: X-Key, description: the key}
Solo: {description: a header only the components name, schema: {type: string}}
Alone: {description: a link only the components name, operationId: listPets}
PetsItem:
  get:
    operationId: listPets
    responses:
      '204': {description: Listed.}
"##;
    let schemas = "Pet:\n  description: the pet\n  type: object\n  additionalProperties: {$ref: '#/Extra'}\nExtra: {description: the extra, type: string}\nEvent: {description: the event schema, type: object}\n";
    let doc = bundled(
        "every-kind",
        &[
            ("openapi.yaml", root),
            ("parts.yaml", parts),
            ("schemas.yaml", schemas),
        ],
    );
    let components = &doc.raw["components"];
    let kept = |section: &str, description: &str| {
        components[section]
            .as_mapping()
            .into_iter()
            .flatten()
            .any(|(_, node)| node["description"].as_str() == Some(description))
    };
    for (section, description) in [
        ("parameters", "the limit"),
        ("requestBodies", "the new pet"),
        ("responses", "the pets"),
        ("headers", "the rate"),
        ("links", "the next page"),
        ("headers", "the part header"),
        ("securitySchemes", "the key"),
        ("schemas", "the pet"),
        ("schemas", "the extra"),
        ("schemas", "the event schema"),
    ] {
        assert!(
            kept(section, description),
            "no {section} entry `{description}`: {components:?}"
        );
    }
    let callbacks = components["callbacks"].as_mapping().map_or(0, |m| m.len());
    assert_eq!(callbacks, 1, "{components:?}");
    assert_eq!(external_refs(&doc.raw), Vec::<String>::new());

    // Each section of `components` may name nodes of another file too.
    let sections = r##"openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /pets: {$ref: '#/components/pathItems/Pets'}
components:
  schemas: {Pet: {$ref: 'schemas.yaml#/Pet'}}
  responses: {PetList: {$ref: 'parts.yaml#/PetList'}}
  parameters: {Limit: {$ref: 'parts.yaml#/Limit'}}
  requestBodies: {NewPet: {$ref: 'parts.yaml#/NewPet'}}
  headers: {Rate: {$ref: 'parts.yaml#/Rate'}, Solo: {$ref: 'parts.yaml#/Solo'}}
  links: {Next: {$ref: 'parts.yaml#/Next'}, Alone: {$ref: 'parts.yaml#/Alone'}}
  callbacks: {OnAdded: {$ref: 'parts.yaml#/OnAdded'}}
  pathItems: {Pets: {$ref: 'parts.yaml#/PetsItem'}}
  securitySchemes: {key: {$ref: 'parts.yaml#/Key'}}
"##;
    let doc = bundled(
        "every-section",
        &[
            ("openapi.yaml", sections),
            ("parts.yaml", parts),
            ("schemas.yaml", schemas),
        ],
    );
    assert_eq!(external_refs(&doc.raw), Vec::<String>::new());
}

/// Every `$ref` of `node` that names another file.
fn external_refs(node: &serde_yaml::Value) -> Vec<String> {
    match node {
        serde_yaml::Value::Mapping(map) => map
            .iter()
            .flat_map(|(key, value)| match (key.as_str(), value.as_str()) {
                (Some("$ref"), Some(reference)) if !reference.starts_with('#') => {
                    vec![reference.to_owned()]
                }
                _ => external_refs(value),
            })
            .collect(),
        serde_yaml::Value::Sequence(items) => items.iter().flat_map(external_refs).collect(),
        _ => Vec::new(),
    }
}

/// A discriminator's mapping into another file is rewritten to the schema
/// brought in; a name, a pointer into the root file, or a file that is not
/// there, is left as written.
/// Extensions are the document's own: a `$ref` in one is not followed,
/// under `paths` or in a callback, while a property called `x-…` is a
/// property like any other.
#[test]
fn mappings_are_rewritten_and_extensions_left_alone() {
    let root = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  x-internal: {$ref: 'gone.yaml#/Paths'}\n  /shapes:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/Shape'}\n      responses:\n        '204': {description: ok}\n      callbacks:\n        done:\n          x-note: {$ref: 'gone.yaml#/Note'}\n          '{$request.body#/url}':\n            post:\n              responses:\n                '204': {description: ok}\ncomponents:\n  schemas:\n    Shape:\n      oneOf:\n        - {$ref: 'shapes.yaml#/Square'}\n        - {$ref: '#/components/schemas/Circle'}\n      discriminator:\n        propertyName: kind\n        mapping:\n          square: 'shapes.yaml#/Square'\n          circle: Circle\n          round: '#/components/schemas/%43ircle'\n          gone: 'models/gone.yml#/Gone'\n    Circle:\n      type: object\n      properties:\n        kind: {type: string}\n        x-origin: {$ref: 'shapes.yaml#/Point'}\n        edge: {$ref: 'shapes.yaml#/Edges/1'}\n";
    let shapes = "Square:\n  type: object\n  properties:\n    kind: {type: string}\n    corner: {$ref: '#/Point'}\n  discriminator:\n    propertyName: kind\n    mapping:\n      point: '#/Point'\n      circle: 'openapi.yaml#/components/schemas/Circle'\n      whole: 'whole.yaml'\nPoint:\n  type: object\n  properties:\n    x: {type: number}\nEdges:\n  - {type: string}\n  - {type: integer, description: the second edge}\n";
    let doc = bundled(
        "mappings",
        &[
            ("openapi.yaml", root),
            ("shapes.yaml", shapes),
            ("whole.yaml", "{type: object, description: a whole file}\n"),
        ],
    );
    let mapping = &doc.raw["components"]["schemas"]["Shape"]["discriminator"]["mapping"];
    assert_eq!(mapping["square"], "#/components/schemas/Square");
    assert_eq!(mapping["circle"], "Circle");
    // A pointer into the root file is the root's own: kept as written,
    // escapes and all.
    assert_eq!(mapping["round"], "#/components/schemas/%43ircle");
    assert_eq!(mapping["gone"], "models/gone.yml#/Gone");
    // In another file: a pointer into that file, into the root, or a
    // whole file.
    let square = &doc.raw["components"]["schemas"]["Square"]["discriminator"]["mapping"];
    assert_eq!(square["point"], "#/components/schemas/Point");
    assert_eq!(square["circle"], "#/components/schemas/Circle");
    let whole = square["whole"].as_str().unwrap_or_default();
    let name = whole
        .strip_prefix("#/components/schemas/")
        .unwrap_or_default();
    assert_eq!(
        doc.raw["components"]["schemas"][name]["description"], "a whole file",
        "{whole}"
    );
    assert_eq!(
        external_refs(&doc.raw),
        ["gone.yaml#/Paths", "gone.yaml#/Note"]
    );
    let origin = &doc.raw["components"]["schemas"]["Circle"]["properties"]["x-origin"]["$ref"];
    assert_eq!(origin, "#/components/schemas/Point");
    // A reference may name an item of a list in another file.
    let schemas = doc.raw["components"]["schemas"].as_mapping().unwrap();
    assert!(
        schemas
            .values()
            .any(|schema| schema["description"] == "the second edge"),
        "{schemas:?}"
    );
}

/// Two security schemes of the root may be one node of another file: as
/// in every other section, the node is brought in once, under the first
/// name, and the second name refers to it; the crates generate.
#[test]
fn two_security_schemes_may_be_one_node_of_another_file() {
    let root = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nsecurity: [{key: []}, {spare: []}]\npaths:\n  /pets:\n    get:\n      responses:\n        '204': {description: ok}\ncomponents:\n  securitySchemes:\n    key: {$ref: 'parts.yaml#/Key'}\n    spare: {$ref: 'parts.yaml#/Key'}\n";
    let parts = "Key: {type: apiKey, in: header, name: X-Key, description: the key}\n";
    let files = [("openapi.yaml", root), ("parts.yaml", parts)];
    let doc = bundled("schemes", &files);
    let schemes = &doc.raw["components"]["securitySchemes"];
    assert_eq!(schemes["key"]["name"], "X-Key", "{schemes:?}");
    assert_eq!(
        schemes["spare"]["$ref"], "#/components/securitySchemes/key",
        "{schemes:?}"
    );
    let dir = scratch("schemes-generated", &files);
    let generated = generate(&dir, "openapi.yaml");
    let _ = std::fs::remove_dir_all(&dir);
    generated.unwrap_or_else(|e| panic!("{e}"));
}
