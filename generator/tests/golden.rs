//! Golden tests: for each fixture document under `tests/fixtures/`, the files
//! the generator writes are committed under `tests/golden/<fixture>/` and
//! reviewed like code. A change in output fails here with a diff.
//!
//! To accept new output after reviewing it: `BLESS=1 cargo test -p openapi-codegen --test golden`.
//!
//! The output also has to build: `cargo xtask external-specs` (a step of
//! `cargo xtask test`) generates every fixture into a scratch workspace and
//! runs clippy on it with warnings as errors.
//!
//! Which fixture covers which construct:
//! - `all_of`: `allOf` merged into one struct; a `$ref` made nullable by
//!   another member;
//! - `one_of`: unions tagged by a discriminator, by a distinguishing required
//!   property, and untagged;
//! - `inheritance`: a base schema with a discriminator and its `allOf`
//!   subtypes (named by `mapping`, `x-ms-discriminator-value` and their
//!   schema names; a subtype of a subtype; a base held by a subtype);
//! - `objects`: nullable, required and optional fields, defaults, inline objects
//!   (one written twice: the second an alias of the first);
//! - `maps`: typed and free-form `additionalProperties`, free-form objects and
//!   values; a property whose name the map's field would have;
//! - `enums`: string enums whose values are not identifiers, nullable enums;
//! - `formats`: integer formats (int8…int64, uint8…uint64), float and double, byte;
//! - `arrays`: arrays of arrays, nullable items; `recursive`: boxed recursion;
//! - `operations`: path-level parameters and overrides, query arrays, header and
//!   cookie parameters, an optional binary (`application/octet-stream`) body,
//!   several success responses, `default`, response headers, no operationId,
//!   `text/plain` bodies, security that may be left out (`{}`), a body's
//!   `x-rules`, a parameter's `example` (which the docs leave out);
//! - `parameters`: names colliding with each other, with keywords, with the
//!   generated code's own names and with operators' methods (`sub`); form
//!   (exploded or not) and pipe-delimited arrays; header lists; a required
//!   cookie;
//! - `lenient`: what real documents do: `enum: [null]`, `responses: {}`, a
//!   required property not declared, a union-typed query parameter, a form
//!   response body, a callback (generated) and links (one note);
//! - `names`, `constraints`, `dynamic_query`: naming, validation (a constraint
//!   on a schema without `type` too), `x-dynamic-query`;
//! - `scalar_enums`: enums of integers, numbers and booleans (nullable too),
//!   as parameters and in bodies;
//! - `forms`: `multipart/form-data` bodies (a file, files, text, enum,
//!   list and JSON parts, `encoding` media types, a media type named
//!   `form-data`), an `application/x-www-form-urlencoded` body, `deepObject`
//!   query parameters (a struct and a map) and an exploded `form` object;
//! - `openapi_3_1`: each OpenAPI 3.1 construct the generator reads (`type`
//!   arrays and `"null"`, `const`, `examples`, numeric exclusive bounds,
//!   boolean schemas, `$ref` beside other keywords, `prefixItems`,
//!   `contentMediaType`/`contentEncoding`, `pathItems`, `webhooks`,
//!   `jsonSchemaDialect`, `info.summary`, `license.identifier`);
//!   `openapi_3_1_webhooks`: a 3.1 document without `paths`;
//! - `webhooks_callbacks`: two webhooks (one a `$ref` to a path item, one
//!   with a header parameter and a 3.1 type list), an operation with two
//!   callbacks whose URLs use the body and a query parameter, and one whose
//!   URL (`$response…`) is noted: the receivers, senders and URL functions;
//! - `lenient_documents`: a document without `info`, a security
//!   alternative naming an undeclared scheme, a 3.1 type list and a tuple
//!   `items` in a document that says 3.0 (each read past, noted);
//!   `no_paths`: a 3.0 document without `paths`;
//! - `swagger_2`: a Swagger 2.0 document (body and formData parameters, a
//!   file, consumes and produces, definitions with a discriminator,
//!   securityDefinitions of each type, collectionFormat, shared parameters
//!   and responses, host, basePath and schemes, an unread extension);
//! - `openapi_3_2`: what OpenAPI 3.2 adds (the `query` method, a custom
//!   method of `additionalOperations`, `querystring`s in a form, in JSON,
//!   as text, and in XML, which is left out with a note,
//!   `components.mediaTypes`, `itemSchema`
//!   beside JSON Lines, `x-ndjson`, a JSON text sequence and server-sent
//!   events, `style: cookie`, `$self`, tags' `parent` and `kind`);
//! - `problem_details`: no error schema, so the server stubs answer errors as
//!   RFC 9457 problem details;
//! - `binary_answers`: bodies whose schema is only `format: binary` or
//!   nothing, under `image/*`, `image/png`, `application/pdf`, `text/csv`
//!   and `*/*`: bytes, in requests and answers;
//! - `inline_bodies`: an inline request body with a `pattern`, which the
//!   server stubs check themselves (their crate depends on `regex-lite`);
//! - `path_templates`: fixed text after a path parameter, several parameters
//!   in one segment, two templates that come to one route;
//! - `error_schema`: with its settings (`error_schema.codegen.toml`, as
//!   any fixture may have), errors in the document's own shape: an
//!   envelope with the code and message in a nested object (named through
//!   an alias), the problems under another name, the request id and time;
//! - `common_headers`: header components every operation takes (the
//!   client's settings and the server's context, one of them an enum), a
//!   header component one operation takes and an inline header (each its
//!   operation's input), a query component every operation takes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openapi_codegen::config::{Config, Target};
use openapi_codegen::parse::Document;

/// Whether `path` is a file every fixture gets the same (but for its header):
/// the client's `client.rs`, snapshotted once, for the `operations` fixture.
fn is_the_same_for_every_fixture(stem: &str, path: &Path) -> bool {
    stem != "operations" && path == Path::new("client/src/client.rs")
}

/// The codegen settings of a fixture that has them: the one `[[api]]`
/// entry of `<fixture>.codegen.toml` beside it.
fn settings(fixture: &Path) -> Option<Target> {
    let path = fixture.with_extension("codegen.toml");
    path.is_file().then(|| {
        let config =
            Config::load(&path, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        let [target] = <[Target; 1]>::try_from(config.api).expect("one [[api]] entry");
        target
    })
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/fixtures exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
        .collect();
    out.sort();
    out
}

/// What the generator writes for one fixture, by path relative to its golden folder.
fn generate(fixture: &Path) -> BTreeMap<PathBuf, String> {
    let stem = fixture
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .replace('_', "-");
    let label = format!(
        "tests/fixtures/{}",
        fixture.file_name().unwrap().to_string_lossy()
    );
    let doc = Document::load(fixture, &label).unwrap_or_else(|e| panic!("{e}"));
    let mut target = Target::standalone(PathBuf::from(&label), &stem);
    if let Some(settings) = settings(fixture) {
        target.take_settings(&settings);
    }
    let generated = openapi_codegen::generate_from(&doc, &target, "cargo xtask generate")
        .unwrap_or_else(|e| panic!("{e}"));
    generated
        .files
        .iter()
        .filter(|(path, _)| !is_the_same_for_every_fixture(&stem, path))
        .map(|(path, contents)| (path.to_path_buf(), contents.to_owned()))
        .collect()
}

fn committed(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let contents = std::fs::read_to_string(&path).unwrap();
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), contents);
            }
        }
    }
    out
}

#[test]
fn generated_files_match_the_committed_golden_output() {
    let bless = std::env::var_os("BLESS").is_some();
    let golden_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut failures = Vec::new();
    for fixture in fixtures() {
        let name = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = golden_root.join(&name);
        let generated = generate(&fixture);
        if bless {
            let _ = std::fs::remove_dir_all(&dir);
            for (path, contents) in &generated {
                let full = dir.join(path);
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(full, contents).unwrap();
            }
            continue;
        }
        let committed = committed(&dir);
        for (path, contents) in &generated {
            match committed.get(path) {
                Some(expected) if expected == contents => {}
                Some(expected) => failures.push(format!(
                    "{name}/{}: differs\n{}",
                    path.display(),
                    similar::TextDiff::from_lines(expected, contents)
                        .unified_diff()
                        .context_radius(2)
                )),
                None => failures.push(format!(
                    "{name}/{}: generated but not committed",
                    path.display()
                )),
            }
        }
        for path in committed.keys().filter(|p| !generated.contains_key(*p)) {
            failures.push(format!(
                "{name}/{}: committed but no longer generated",
                path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the new output is right, run `BLESS=1 cargo test -p openapi-codegen --test golden` and commit it.",
        failures.join("\n")
    );
}

#[test]
fn generation_is_deterministic() {
    for fixture in fixtures() {
        assert_eq!(
            generate(&fixture),
            generate(&fixture),
            "{}",
            fixture.display()
        );
    }
}

/// Links are not generated, nor a callback's URL function whose expression
/// the request does not resolve: the generator says so in one note per
/// document each, naming where, and still generates. Webhooks and
/// callbacks are generated.
#[test]
fn what_is_not_generated_is_one_note_per_document() {
    // The other notes (what was read leniently) are not about this.
    let generate = |text: &str| {
        let doc = Document::parse(text, "notes.yaml", false).unwrap_or_else(|e| panic!("{e}"));
        let target = Target::standalone(PathBuf::from("notes.yaml"), "notes");
        openapi_codegen::generate_from(&doc, &target, "test").unwrap_or_else(|e| panic!("{e}"))
    };
    let notes = |text: &str| -> Vec<String> {
        generate(text)
            .notes
            .into_iter()
            .filter(|n| n.contains("not generated"))
            .collect()
    };
    let lenient = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lenient.yaml"),
    )
    .unwrap();
    assert_eq!(
        notes(&lenient),
        [
            "notes.yaml: not generated, by design: response links (1 response(s), the \
             first at notes.yaml#/paths/~1subscribe/post/responses/201/links); the operations \
             that declare them are generated"
        ]
    );
    let webhooks = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n\
                    webhooks:\n  ping:\n    post:\n      responses:\n        '200': {description: ok}\n";
    assert!(notes(webhooks).is_empty());
    let generated = generate(webhooks);
    let files: Vec<&Path> = generated.files.iter().map(|(path, _)| path).collect();
    assert!(
        files.contains(&Path::new("server/src/webhooks/routes.rs")),
        "{files:?}"
    );
    assert!(
        files.contains(&Path::new("client/src/webhooks.rs")),
        "{files:?}"
    );
    let plain = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n";
    assert!(notes(plain).is_empty());
    // A callback given by reference (PeerTube's) is read; its URL, the
    // request's own (`$url`), is not resolved.
    let by_reference = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /search:\n    get:\n\
                        \x20     callbacks:\n        onIndex: {$ref: '#/components/callbacks/Index'}\n\
                        \x20     responses:\n        '200': {description: ok}\n\
                        components:\n  callbacks:\n    Index:\n      '{$url}':\n        post:\n\
                        \x20         responses:\n            '200': {description: ok}\n";
    assert_eq!(
        notes(by_reference),
        [
            "notes.yaml: hooks not generated: the URL function of callback `onIndex` (its \
             expression `{$url}` names a value the request does not hold) at \
             notes.yaml#/paths/~1search/get/callbacks/onIndex/{$url}; the rest is generated"
        ]
    );
}

/// readOnly and writeOnly relax `required` only; the generator says so once,
/// with where they first appear, and does not mistake example data or a property
/// named `example` for what they are.
#[test]
fn read_only_and_write_only_are_a_note_not_a_silent_skip() {
    let doc = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n\
               components:\n  schemas:\n    Pet:\n      type: object\n\
               \x20     example: {id: 1, readOnly: true}\n\
               \x20     properties:\n\
               \x20       example: {type: string, writeOnly: true}\n\
               \x20       id: {type: integer, readOnly: true}\n";
    let doc = Document::parse(doc, "rw.yaml", false).unwrap_or_else(|e| panic!("{e}"));
    let target = Target::standalone(PathBuf::from("rw.yaml"), "rw");
    let notes = openapi_codegen::generate_from(&doc, &target, "test")
        .unwrap_or_else(|e| panic!("{e}"))
        .notes;
    assert_eq!(
        notes,
        [
            "rw.yaml: readOnly/writeOnly are applied to `required` only (2 schema(s), the \
             first at rw.yaml#/components/schemas/Pet/properties/example): a required \
             readOnly property is optional in the types requests carry, a required writeOnly \
             one in the types answers carry; otherwise those properties are generated like \
             any other, in requests and responses alike"
        ]
    );
}

/// What published documents get wrong is read with one note per document,
/// naming each kind, how many and where the first is, in the user's file
/// (for a 3.1 document too).
/// The notes generating the fixture `fixture` gives.
fn fixture_notes(fixture: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let doc = Document::load(&path, fixture).unwrap_or_else(|e| panic!("{e}"));
    let target = Target::standalone(PathBuf::from(fixture), "notes");
    openapi_codegen::generate_from(&doc, &target, "test")
        .unwrap_or_else(|e| panic!("{e}"))
        .notes
}

#[test]
fn what_is_read_leniently_is_one_note_per_document() {
    let notes = fixture_notes("openapi_3_0_constructs.yaml");
    let lenient: Vec<&String> = notes
        .iter()
        .filter(|n| n.contains("read leniently"))
        .collect();
    assert_eq!(lenient.len(), 1, "{notes:?}");
    let f = "openapi_3_0_constructs.yaml#/";
    for part in [
        format!(
            "arrays without `items` (1, the first at {f}components/schemas/Settings/properties/anything): their items are any JSON value"
        ),
        format!(
            "examples of another type than their schema (1, the first at {f}components/schemas/Settings/properties/count/example)"
        ),
        format!(
            "patterns the generated validators cannot compile (1, the first at {f}components/schemas/Settings/properties/lookahead/pattern): not checked"
        ),
        format!(
            "media type names that are not `type/subtype` (1, the first at {f}paths/~1uploads/post/requestBody/content/form-data)"
        ),
        format!(
            "media types whose body differs from the first media type's in the same `content` (1, the first at {f}paths/~1records/post/requestBody/content/application~1stream+json)"
        ),
        format!(
            "`required` names that `properties` does not declare (1, the first at {f}components/schemas/Settings/required)"
        ),
        format!(
            "`enum`s of objects or arrays (1, the first at {f}components/schemas/Settings/properties/exposedPorts/additionalProperties/enum): their schema's type, the value not checked against the list"
        ),
    ] {
        assert!(lenient[0].contains(&part), "{part}\nnot in\n{}", lenient[0]);
    }
}

/// What documents users bring leave out, or write in another draft's
/// forms, is read past with a note naming each kind and where it is in the
/// user's file (D58): no `info`, no `paths` in 3.0, a security alternative
/// naming an undeclared scheme, a type list and a tuple `items` in 3.0.
#[test]
fn what_documents_leave_out_is_read_past_with_a_note() {
    let lenient_note = |fixture: &str| {
        let notes: Vec<String> = fixture_notes(fixture)
            .into_iter()
            .filter(|n| n.contains("read leniently"))
            .collect();
        assert_eq!(notes.len(), 1, "{notes:?}");
        notes.into_iter().next().unwrap()
    };
    let note = lenient_note("lenient_documents.yaml");
    let f = "lenient_documents.yaml#/";
    for part in [
        format!(
            "documents without `info` (1, the first at {f}info): read as an `info` titled after the file, without a version"
        ),
        format!(
            "security requirement alternatives naming a scheme that `components.securitySchemes` does not declare (1, the first at {f}security/0/oauth): left out (no request could meet them); the requirement's other alternatives remain"
        ),
        format!(
            "OpenAPI 3.1 forms in a document that says 3.0 (`type: [string, \"null\"]`, a numeric `exclusiveMinimum`, …) (1, the first at {f}components/schemas/Place/properties/name/type): the document read as 3.1 (`[string, \"null\"]` a nullable string)"
        ),
        format!(
            "`items` given as a list of schemas (the tuple form of JSON Schema drafts before 2020-12) (1, the first at {f}components/schemas/Point/items): read as 3.1's `prefixItems`"
        ),
        format!(
            "operations whose path has a `{{name}}` they declare no path parameter for (1, the first at {f}paths/~1places~1{{placeId}}/get): each such name is a required text path parameter"
        ),
        format!(
            "path parameters the path does not have (1, the first at {f}paths/~1places~1{{placeId}}/get/parameters/0): left out (no request could carry them)"
        ),
    ] {
        assert!(note.contains(&part), "{part}\nnot in\n{note}");
    }
    assert_eq!(
        lenient_note("no_paths.yaml"),
        "no_paths.yaml: read leniently: 3.0 documents without `paths` (1, the first at \
         no_paths.yaml#/paths): read as `paths: {}`: no operations"
    );
}

/// An OpenAPI 3.2 document is read as 3.1 is; what of it has no Rust form
/// yet (a `querystring` in XML; JSON and text ones are generated) is noted
/// where it is in the 3.2 file.
#[test]
fn an_openapi_3_2_document_notes_what_it_leaves_out() {
    let notes = fixture_notes("openapi_3_2.yaml");
    assert_eq!(
        notes,
        [
            "openapi_3_2.yaml: read leniently: `in: querystring` parameters in a media type \
             other than a form, JSON or text (OpenAPI 3.2) (1, the first at \
             openapi_3_2.yaml#/paths/~1pets~1legacy/get/parameters/0): left out: the \
             operations are generated without them, and their servers ignore the query string"
        ]
    );
}

/// A Swagger 2.0 document is converted on reading; what of it the
/// generator does not read (vendor extensions) is noted where it is in
/// the 2.0 file, and nothing else is (its forms are 2.0's own, not slips).
#[test]
fn a_swagger_2_document_notes_only_its_unread_extensions() {
    let notes = fixture_notes("swagger_2.yaml");
    assert_eq!(
        notes,
        [
            "swagger_2.yaml: read leniently: vendor extensions (`x-…`) of a Swagger 2.0 \
             document that the generator does not read (2, the first at \
             swagger_2.yaml#/info/x-audience): ignored"
        ]
    );
}
