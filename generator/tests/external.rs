//! The generator on the public documents vendored in
//! `codegen-tests/specs/external/` (OpenAPI 3.0), `external-3.1/`,
//! `external-2.0/` (Swagger) and `external-3.2/`, in process: every document yields
//! its three crates or, when its folder's `refused.txt` lists it, exactly
//! the error given there; links give exactly one note per document that
//! has them, webhooks and callbacks their modules, and generation is
//! deterministic.
//!
//! That the crates also build without warnings is `cargo xtask
//! external-specs`'s job (it needs cargo); this test is the fast half.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

mod vendored;

use std::path::Path;

use openapi_codegen::config::Target;
use openapi_codegen::emit::Files;
use serde_yaml::Value;
use vendored::{generating, refused, root};

fn generate(spec: &Path) -> openapi_codegen::Generated {
    let name = spec
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .replace('.', "-");
    let target = Target::standalone(spec.to_path_buf(), &name);
    openapi_codegen::generate(&root(), &target, "cargo xtask external-specs")
        .unwrap_or_else(|e| panic!("{}: {e}", spec.display()))
}

/// Which of callbacks, response links and webhooks the document declares,
/// read from the raw tree (not through the generator).
fn not_generated_kinds(spec: &Path) -> Vec<&'static str> {
    let text = std::fs::read_to_string(root().join(spec)).expect("readable");
    // JSON through serde_json: serde_yaml refuses integers beyond i64 that
    // JSON documents write (OpenAI's `minimum: -9223372036854776000`).
    let doc: Value = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(json) => serde_yaml::to_value(json).expect("JSON is YAML"),
        Err(_) => serde_yaml::from_str(&text).expect("YAML or JSON"),
    };
    let non_empty =
        |v: Option<&Value>| v.and_then(Value::as_mapping).is_some_and(|m| !m.is_empty());
    // A `$ref` to a response is followed one step, as the documents use them.
    let follow = |v: &Value| -> Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some(r) => r
                .trim_start_matches("#/")
                .split('/')
                .try_fold(&doc, |node, token| node.get(token.replace("~1", "/")))
                .cloned()
                .unwrap_or(Value::Null),
            None => v.clone(),
        }
    };
    let mut callbacks = false;
    let mut links = false;
    for item in doc
        .get("paths")
        .and_then(Value::as_mapping)
        .into_iter()
        .flat_map(|m| m.values())
    {
        for method in [
            "get", "put", "post", "delete", "options", "head", "patch", "trace",
        ] {
            let Some(op) = item.get(method) else { continue };
            callbacks |= non_empty(op.get("callbacks"));
            for response in op
                .get("responses")
                .and_then(Value::as_mapping)
                .into_iter()
                .flat_map(|m| m.values())
            {
                links |= non_empty(follow(response).get("links"));
            }
        }
    }
    let mut kinds = Vec::new();
    if callbacks {
        kinds.push("callbacks");
    }
    if links {
        kinds.push("response links");
    }
    if non_empty(doc.get("webhooks")) {
        kinds.push("webhooks");
    }
    kinds
}

#[test]
fn every_document_yields_its_three_crates() {
    for spec in generating() {
        let generated = generate(&spec);
        for krate in ["models", "client", "server"] {
            for file in ["Cargo.toml", "README.md", "src/lib.rs"] {
                let path = Path::new(krate).join(file);
                assert!(
                    generated.files.get(&path).is_some_and(|c| !c.is_empty()),
                    "{}: no {}",
                    spec.display(),
                    path.display()
                );
            }
        }
    }
}

#[test]
fn each_refused_document_gives_the_error_refused_txt_states() {
    // Every vendored document may generate: then there is nothing to check.
    for (spec, expected) in refused() {
        let name = spec.file_stem().expect("a file name").to_string_lossy();
        let target = Target::standalone(spec.clone(), &name.replace('.', "-"));
        match openapi_codegen::generate(&root(), &target, "test") {
            Ok(_) => panic!(
                "{}: generates now: remove it from refused.txt and the README's Limits",
                spec.display()
            ),
            Err(error) => assert_eq!(error.to_string(), expected),
        }
    }
}

#[test]
fn links_are_one_note_and_hooks_are_generated_in_documents_that_have_them() {
    let mut noted = 0;
    let mut hooked = 0;
    for spec in generating() {
        let generated = generate(&spec);
        // Other notes (what was read leniently, readOnly) are not about this.
        let notes: Vec<&String> = generated
            .notes
            .iter()
            .filter(|n| n.contains(": not generated, by design: "))
            .collect();
        let kinds = not_generated_kinds(&spec);
        // Webhooks and callbacks are generated: a receiver in the server
        // stubs, a sender in the client.
        for kind in ["webhooks", "callbacks"] {
            let files = [
                format!("server/src/{kind}.rs"),
                format!("client/src/{kind}.rs"),
            ];
            for file in files {
                assert_eq!(
                    generated.files.get(&file).is_some(),
                    kinds.contains(&kind),
                    "{}: {file}",
                    spec.display()
                );
            }
            hooked += usize::from(kinds.contains(&kind));
        }
        if !kinds.contains(&"response links") {
            assert!(
                notes.is_empty(),
                "{}: unexpected notes {notes:?}",
                spec.display()
            );
            continue;
        }
        noted += 1;
        assert_eq!(notes.len(), 1, "{}: {notes:?}", spec.display());
        let note = &notes[0];
        assert!(
            note.starts_with(&format!(
                "{}: not generated, by design: response links (",
                spec.display()
            )),
            "{note}"
        );
    }
    // link-example.yaml; callback-example.yaml and the 3.1 documents with webhooks.
    assert!(noted >= 1, "only {noted} documents with notes");
    assert!(hooked >= 2, "only {hooked} documents with hooks");
}

#[test]
fn generation_is_deterministic() {
    for spec in generating() {
        let first: Files = generate(&spec).files;
        let second: Files = generate(&spec).files;
        assert!(!first.is_empty());
        for ((a_path, a), (b_path, b)) in first.iter().zip(second.iter()) {
            assert_eq!(a_path, b_path, "{}", spec.display());
            assert!(
                a == b,
                "{}: {} differs between runs",
                spec.display(),
                a_path.display()
            );
        }
        assert_eq!(first, second, "{}", spec.display());
    }
}
