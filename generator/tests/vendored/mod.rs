//! The public documents vendored in `codegen-tests/specs/external/`, shared
//! by the tests that run the generator over them.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the generator is a workspace member")
        .to_path_buf()
}

/// The vendored documents, relative to the workspace root, in name order.
pub fn documents() -> Vec<PathBuf> {
    let dir = Path::new("codegen-tests/specs/external");
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("codegen-tests/specs/external exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
        .map(|p| dir.join(p.file_name().expect("a file")))
        .collect();
    out.sort();
    assert!(
        out.len() >= 11,
        "the vendored documents are missing: {out:?}"
    );
    out
}
