//! `cargo xtask external-specs`: the generator on documents it was not
//! written for. Every document vendored in `codegen-tests/specs/external/`,
//! and every golden fixture of the generator's tests, becomes models, client
//! and server crates in one scratch workspace under
//! `target/external-specs/`, which must pass `cargo clippy --all-targets`
//! and `cargo doc` with every warning an error.
//!
//! The scratch workspace gets this workspace's `Cargo.lock`, so it builds
//! with the versions we build with and resolves nothing new, and a target
//! directory of its own (`target/external-specs-target/`) that persists
//! between runs, so a rerun only rebuilds what changed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use openapi_codegen::config::Target;
use openapi_codegen::emit::{Files, RuntimeSource, WorkspaceToml};

use crate::codegen::write_if_changed;
use crate::test::{cargo_bin, run_command};
use crate::{Result, fail};

/// The command quoted in the generated files' headers.
pub const COMMAND: &str = "cargo xtask external-specs";

/// The vendored documents, relative to the workspace root.
const EXTERNAL: &str = "codegen-tests/specs/external";
/// The golden fixtures: their output must compile too.
const FIXTURES: &str = "generator/tests/fixtures";

/// Generates the scratch workspace and builds it.
pub fn run(root: &Path) -> Result<()> {
    let scratch = root.join("target/external-specs");
    let started = Instant::now();
    let (files, count) = generate(root)?;
    println!(
        "generated {} crates from {count} documents in {} ms",
        count * 3,
        started.elapsed().as_millis()
    );
    write(&scratch, &files)?;
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"))
        .map_err(|e| fail(format!("copying Cargo.lock: {e}")))?;
    let cargo = |args: &[&str]| {
        let mut command = Command::new(cargo_bin());
        command
            .current_dir(&scratch)
            .env(
                "CARGO_TARGET_DIR",
                root.join("target/external-specs-target"),
            )
            .env("RUSTFLAGS", "-D warnings")
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(args);
        run_command(command)
    };
    // Clippy checks every target as `cargo check` would (rustc's warnings
    // are errors by RUSTFLAGS), then lints it.
    let common = ["--workspace", "--keep-going", "--quiet"];
    cargo(
        &[
            &["clippy", "--all-targets"],
            &common[..],
            &["--", "-D", "warnings"],
        ]
        .concat(),
    )?;
    cargo(&[&["doc", "--no-deps"], &common[..]].concat())
}

/// The documents to generate, with the prefix of their crate names:
/// the vendored ones by file name, the fixtures as `fixture-<name>`.
fn documents(root: &Path) -> Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    for (dir, prefix) in [(EXTERNAL, ""), (FIXTURES, "fixture-")] {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| fail(format!("{dir}: {e}")))?;
        let mut found = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| fail(format!("{dir}: {e}")))?.path();
            if path.extension().is_some_and(|e| e == "yaml" || e == "json") {
                let file = path.file_name().expect("a file").to_string_lossy();
                let name = format!("{prefix}{}", crate::generate::default_name(&path)?);
                found.push((Path::new(dir).join(&*file), name));
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// Every crate of every document, and the workspace manifest, in memory.
fn generate(root: &Path) -> Result<(Files, usize)> {
    let documents = documents(root)?;
    let mut files = Files::default();
    let mut targets = Vec::new();
    for (spec, name) in &documents {
        let mut target = Target::standalone(spec.clone(), name);
        for krate in [
            Some(&mut target.models),
            target.client.as_mut(),
            target.server.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            krate.path = Path::new(name).join(&krate.path);
        }
        let generated = openapi_codegen::generate(root, &target, COMMAND)?;
        for note in &generated.notes {
            println!("note: {note}");
        }
        files.extend(generated.files);
        targets.push(target);
    }
    files.insert(
        "Cargo.toml",
        WorkspaceToml::render_many(
            &targets,
            COMMAND,
            &format!("{EXTERNAL} and {FIXTURES}"),
            // The scratch workspace is `target/external-specs/`.
            &RuntimeSource::Path("../../runtime".to_owned()),
        )?,
    );
    Ok((files, documents.len()))
}

/// Writes `files` under `dir`, leaving files whose contents did not change
/// untouched (so cargo does not rebuild them) and removing crates of
/// documents that are gone.
fn write(dir: &Path, files: &Files) -> Result<()> {
    let expected: std::collections::BTreeSet<PathBuf> = files
        .iter()
        .filter_map(|(path, _)| path.iter().next().map(PathBuf::from))
        .collect();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !expected.contains(Path::new(&entry.file_name())) {
                std::fs::remove_dir_all(&path)
                    .map_err(|e| fail(format!("{}: {e}", path.display())))?;
            }
        }
    }
    for (path, contents) in files.iter() {
        write_if_changed(&dir.join(path), contents)?;
    }
    Ok(())
}
