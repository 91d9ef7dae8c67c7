//! `cargo xtask codegen [--check]`: `openapi-codegen codegen` on this
//! workspace's `spec/codegen.toml` (the code is `openapi_codegen_cli::codegen`),
//! quoting `cargo xtask codegen` in the generated files' headers.

use std::path::Path;

use crate::Result;

/// This workspace as a project of `openapi-codegen`.
pub fn project(root: &Path) -> openapi_codegen_cli::Project {
    openapi_codegen_cli::Project::new(root, "spec/codegen.toml", "cargo xtask")
}

/// Runs the codegen task from the workspace `root`.
pub fn run(root: &Path, check: bool) -> Result<()> {
    Ok(openapi_codegen_cli::codegen::run(&project(root), check)?)
}

/// Writes `contents` to `path` unless the file already holds them; says
/// whether it wrote.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<bool> {
    Ok(openapi_codegen_cli::write_if_changed(path, contents)?)
}

/// The files under `dir`, subfolders included, `target` folders aside.
#[cfg(test)]
pub fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    Ok(openapi_codegen_cli::walk(dir, out)?)
}
