//! `cargo xtask api-diff [--base GIT-REV] [--changelog]`: `openapi-codegen
//! api-diff` on this workspace's `spec/codegen.toml` (the code is
//! `openapi_codegen_cli::api_diff`).

use std::path::Path;

use openapi_codegen_cli::args::ApiDiffArgs;

use crate::Result;

/// Runs the task from the workspace `root`.
pub fn run(root: &Path, args: &ApiDiffArgs) -> Result<()> {
    Ok(openapi_codegen_cli::api_diff::run(
        &crate::codegen::project(root),
        args,
    )?)
}
