//! Broken documents must stop the generator with the documented message,
//! naming the document and the JSON pointer, never with a panic.
//!
//! Each file under `tests/errors/` starts with `# expect: <the whole message>`.

use std::path::{Path, PathBuf};

use openapi_codegen::config::Target;
use openapi_codegen::parse::Document;

fn generate(path: &Path, label: &str) -> Result<(), String> {
    let doc = Document::load(path, label).map_err(|e| e.to_string())?;
    let target = Target::standalone(PathBuf::from(label), "broken");
    openapi_codegen::generate_from(&doc, &target, "test")
        .map(drop)
        .map_err(|e| e.to_string())
}

#[test]
fn each_broken_document_gives_its_documented_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/errors");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "the error cases are missing");
    let mut failures = Vec::new();
    for case in cases {
        let text = std::fs::read_to_string(&case).unwrap();
        let expected = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{} must start with `# expect: `", case.display()));
        let label = format!(
            "tests/errors/{}",
            case.file_name().unwrap().to_string_lossy()
        );
        match generate(&case, &label) {
            Ok(()) => failures.push(format!(
                "{label}: generated, but should have failed with\n  {expected}"
            )),
            Err(actual) if actual == expected => {}
            Err(actual) => failures.push(format!(
                "{label}:\n  expected: {expected}\n  actual:   {actual}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
