//! The public documents vendored in `codegen-tests/specs/external/` (OpenAPI
//! 3.0), `external-3.1/`, `external-2.0/` (Swagger) and `external-3.2/`,
//! shared by the tests that run the generator over them.

#![allow(dead_code)] // each test uses what it needs

use std::path::{Path, PathBuf};

/// The folders of vendored documents, relative to the workspace root.
pub const FOLDERS: [&str; 4] = [
    "codegen-tests/specs/external",
    "codegen-tests/specs/external-3.1",
    "codegen-tests/specs/external-2.0",
    "codegen-tests/specs/external-3.2",
];

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the generator is a workspace member")
        .to_path_buf()
}

/// The documents of one folder, relative to the workspace root, in name order.
fn in_folder(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
        .map(|p| dir.join(p.file_name().expect("a file")))
        .collect();
    out.sort();
    out
}

/// The vendored OpenAPI 3.0 documents, relative to the workspace root, in
/// name order.
pub fn documents() -> Vec<PathBuf> {
    let out = in_folder(FOLDERS[0]);
    assert!(
        out.len() >= 11,
        "the vendored documents are missing: {out:?}"
    );
    out
}

/// The vendored OpenAPI 3.1 documents that generate (all but the refused
/// ones), in name order.
pub fn documents_3_1() -> Vec<PathBuf> {
    generating_in(FOLDERS[1], 17)
}

/// The documents of `folder` that generate (all but the refused ones), in
/// name order; there must be at least `expected`.
fn generating_in(folder: &str, expected: usize) -> Vec<PathBuf> {
    let refused = refused();
    let out: Vec<PathBuf> = in_folder(folder)
        .into_iter()
        .filter(|d| !refused.iter().any(|(r, _)| r == d))
        .collect();
    assert!(
        out.len() >= expected,
        "the vendored documents of {folder} are missing: {out:?}"
    );
    out
}

/// Every vendored document that generates: 3.0, 3.1, Swagger 2.0 and 3.2.
pub fn generating() -> Vec<PathBuf> {
    documents()
        .into_iter()
        .chain(documents_3_1())
        .chain(generating_in(FOLDERS[2], 7))
        .chain(generating_in(FOLDERS[3], 35))
        .collect()
}

/// The vendored documents the generator refuses, each with the whole error
/// it must give: the lines of each folder's `refused.txt` (`#` starts a
/// comment line).
pub fn refused() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in FOLDERS {
        let Ok(text) = std::fs::read_to_string(root().join(dir).join("refused.txt")) else {
            continue;
        };
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let spec = line.split_once('#').map_or(line, |(file, _)| file);
            out.push((PathBuf::from(spec), line.to_owned()));
        }
    }
    out
}
