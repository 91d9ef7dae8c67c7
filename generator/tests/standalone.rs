//! A standalone output (`cargo xtask generate --out DIR`, the runtime
//! vendored) builds on its own: no dependency on a path outside `DIR`, and
//! `cargo check --offline` succeeds there with this workspace's `Cargo.lock`
//! copied in (so that nothing new is resolved). The same for the one crate
//! of `--client-only`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use openapi_codegen::RuntimeSource;
use openapi_codegen::config::Target;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `path = "…"` of the manifests under `dir`, with the manifest.
fn path_dependencies(files: &openapi_codegen::emit::Files) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (file, contents) in files.iter() {
        if file.file_name().is_none_or(|name| name != "Cargo.toml") {
            continue;
        }
        let manifest: toml::Table = contents.parse().unwrap_or_else(|e| panic!("{e}"));
        let mut pending: Vec<&toml::Value> = manifest.values().collect();
        while let Some(value) = pending.pop() {
            match value {
                toml::Value::Table(table) => {
                    if let Some(toml::Value::String(path)) = table.get("path") {
                        out.push((file.to_path_buf(), path.clone()));
                    }
                    pending.extend(table.values());
                }
                toml::Value::Array(items) => pending.extend(items),
                _ => {}
            }
        }
    }
    out
}

#[test]
fn a_vendored_output_builds_with_nothing_outside_it() {
    let root = root();
    let spec = root.join("generator/tests/fixtures/operations.yaml");
    let mut generated =
        openapi_codegen::generate_standalone(&spec, "standalone", "the test").unwrap();
    let vendored = openapi_codegen::vendor_runtime(
        &root.join("runtime"),
        Path::new(RuntimeSource::VENDORED_DIR),
    )
    .unwrap();
    assert!(vendored.get("openapi-runtime/src/lib.rs").is_some());
    generated.files.extend(vendored);

    // Every path dependency stays inside the folder.
    let paths = path_dependencies(&generated.files);
    assert!(
        paths
            .iter()
            .any(|(_, path)| path == RuntimeSource::VENDORED_DIR),
        "the workspace names the vendored runtime: {paths:?}"
    );
    for (manifest, path) in &paths {
        let resolved = manifest.parent().unwrap().join(path);
        assert!(
            !Path::new(path).is_absolute()
                && resolved
                    .components()
                    .all(|c| !matches!(c, std::path::Component::ParentDir)),
            "{} depends on {path}, outside the output",
            manifest.display()
        );
    }

    // And it builds there, offline.
    builds_offline(&generated.files, "standalone");
}

/// With `--client-only`: one crate, whose `models` module holds what the
/// models crate would (types of several modules naming each other, the
/// typed `dqb` queries), and which builds with no warning.
#[test]
fn a_client_only_output_is_one_crate_that_builds() {
    let root = root();
    let spec = root.join("spec/openapi.yaml");
    let target = Target::client_only(spec, "alone");
    let runtime = RuntimeSource::Path(root.join("runtime").to_string_lossy().into_owned());
    let generated =
        openapi_codegen::generate_standalone_with(&target, "the test", &runtime).unwrap();
    let manifests: Vec<&Path> = generated
        .files
        .iter()
        .map(|(path, _)| path)
        .filter(|path| path.ends_with("Cargo.toml"))
        .collect();
    assert_eq!(
        manifests,
        [Path::new("Cargo.toml"), Path::new("client/Cargo.toml")]
    );
    assert!(generated.files.get("client/src/models.rs").is_some());
    assert!(
        generated
            .files
            .get("client/src/models/queries.rs")
            .is_some()
    );
    builds_offline(&generated.files, "client-only");
}

/// Writes `files` into a scratch folder named `name` and runs `cargo check
/// --offline` there with this workspace's `Cargo.lock`, warnings denied.
fn builds_offline(files: &openapi_codegen::emit::Files, name: &str) {
    let root = root();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, contents) in files.iter() {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, contents).unwrap();
    }
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .current_dir(&dir)
        .args(["check", "--offline", "--workspace", "--quiet"])
        // A target directory of its own, kept between runs.
        .env("CARGO_TARGET_DIR", root.join("target/standalone-target"))
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo check in {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
