//! `cargo xtask external-specs`: the generator on documents it was not
//! written for. Every document vendored in `codegen-tests/specs/external/`
//! (OpenAPI 3.0), `external-3.1/`, `external-2.0/` (Swagger) and
//! `external-3.2/`, and every golden
//! fixture of the generator's tests, becomes models, client and server
//! crates, and (for documents up to 256 kB) the one crate of `generate
//! --client-only` (the client with the models as its module), in one
//! scratch workspace under
//! `target/external-specs/`, which must pass `cargo clippy` (every crate's
//! library, and the other targets of the crates that have any) and `cargo
//! doc` with every warning an error. A document listed in its folder's
//! `refused.txt` must instead stop the generator with exactly the error given there (a construct the
//! README's "Limits" lists), and is reported when it starts to generate.
//!
//! The scratch workspace gets this workspace's `Cargo.lock`, so it builds
//! with the versions we build with and resolves nothing new, and a target
//! directory of its own (`target/external-specs-target/`) that persists
//! between runs, so a rerun only rebuilds what changed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use openapi_codegen::config::Target;
use openapi_codegen::emit::{Files, RuntimeSource, WorkspaceToml};

use crate::codegen::write_if_changed;
use crate::test::{cargo_command, run_command};
use crate::{Result, fail};

/// The command quoted in the generated files' headers.
pub const COMMAND: &str = "cargo xtask external-specs";

/// The folders of vendored documents, relative to the workspace root.
/// Each with the prefix of its documents' crate names: the 2.0 and 3.2
/// folders hold documents named as the 3.0 folder's are (`petstore`).
const EXTERNAL: [(&str, &str); 4] = [
    ("codegen-tests/specs/external", ""),
    ("codegen-tests/specs/external-3.1", ""),
    ("codegen-tests/specs/external-2.0", "v2-"),
    ("codegen-tests/specs/external-3.2", "v3-2-"),
];
/// The golden fixtures: their output must compile too.
const FIXTURES: &str = "generator/tests/fixtures";
/// Tests that drive a fixture's generated models (`<fixture>.rs`), or its
/// generated client against its generated server on loopback
/// (`<fixture>.loopback.rs`, run in the client crate), with `cargo test`
/// after clippy.
const DRIVE: &str = "generator/tests/drive";

/// Generates the scratch workspace and builds it.
pub fn run(root: &Path, only: &[String]) -> Result<()> {
    let scratch = root.join("target/external-specs");
    let started = Instant::now();
    let (files, count, drive, with_other_targets) = generate(root, only)?;
    let crates = files
        .iter()
        .filter(|(path, _)| path.ends_with("Cargo.toml") && path.parent() != Some(Path::new("")))
        .count();
    println!(
        "generated {crates} crates from {count} documents in {} ms",
        started.elapsed().as_millis()
    );
    write(&scratch, &files)?;
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"))
        .map_err(|e| fail(format!("copying Cargo.lock: {e}")))?;
    let cargo = |args: &[&str]| {
        let mut command = cargo_command();
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
    // are errors by RUSTFLAGS), then lints it. Every crate's library; the
    // other targets of the crates that have any. Not `--all-targets` for
    // all: it checks each library a second time as its own test harness,
    // and a generated library has no test of its own, so that doubled the
    // work on the largest documents for nothing.
    let common = ["--workspace", "--keep-going", "--quiet"];
    let lint = ["--", "-D", "warnings"];
    cargo(&[&["clippy", "--lib"], &common[..], &lint].concat())?;
    if !with_other_targets.is_empty() {
        let mut clippy = vec!["clippy", "--all-targets", "--keep-going", "--quiet"];
        for package in &with_other_targets {
            clippy.extend(["-p", package.as_str()]);
        }
        cargo(&[&clippy[..], &lint].concat())?;
    }
    cargo(&[&["doc", "--no-deps"], &common[..]].concat())?;
    // The fixtures' types used as a user uses them; `--only` may have
    // chosen documents with no such tests.
    if drive.is_empty() {
        return Ok(());
    }
    let mut test = vec!["test", "--quiet", "--test", "drive"];
    for package in &drive {
        test.extend(["-p", package.as_str()]);
    }
    cargo(&test)
}

/// The documents to generate, with the prefix of their crate names:
/// the vendored ones by file name (and their folder's prefix), the
/// fixtures as `fixture-<name>`.
fn documents(root: &Path) -> Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    let folders = EXTERNAL.iter().copied().chain([(FIXTURES, "fixture-")]);
    for (dir, prefix) in folders {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| fail(format!("{dir}: {e}")))?;
        let mut found = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| fail(format!("{dir}: {e}")))?.path();
            let Some(file) = path.file_name() else {
                continue;
            };
            if path.extension().is_some_and(|e| e == "yaml" || e == "json") {
                let file = file.to_string_lossy();
                let name = format!("{prefix}{}", crate::generate::default_name(&path)?);
                found.push((Path::new(dir).join(&*file), name));
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// The documents of the vendored folders that the generator refuses, each
/// with the whole error it must give: the lines of each folder's
/// `refused.txt` (`#` starts a comment line).
fn refused(root: &Path) -> Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    for (dir, _) in EXTERNAL {
        let list = root.join(dir).join("refused.txt");
        let Ok(text) = std::fs::read_to_string(&list) else {
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
    Ok(out)
}

/// Every crate of every document, and the workspace manifest, in memory;
/// how many documents generated, the packages that got a `tests/drive.rs`
/// from [`DRIVE`], and the packages with a target besides their library.
fn generate(root: &Path, only: &[String]) -> Result<(Files, usize, Vec<String>, Vec<String>)> {
    let refused = refused(root)?;
    let documents: Vec<(PathBuf, String)> = documents(root)?
        .into_iter()
        .filter(|(_, name)| only.is_empty() || only.iter().any(|o| name.starts_with(o.as_str())))
        .collect();
    if documents.is_empty() {
        return Err(fail(format!(
            "no document's crate name starts with {}: a name is its file's stem in kebab \
             case, after `fixture-` for a golden fixture (`fixture-openapi-3-1`)",
            only.join(" or ")
        )));
    }
    let mut files = Files::default();
    let mut targets = Vec::new();
    let mut generated_count = 0;
    let mut drive = Vec::new();
    for (spec, name) in &documents {
        let mut target = Target::standalone(spec.clone(), name);
        // A golden fixture's settings (`<fixture>.codegen.toml`), as the
        // golden test takes them.
        let settings = root.join(spec).with_extension("codegen.toml");
        if settings.is_file() {
            let label = settings.display().to_string();
            let config = openapi_codegen::config::Config::load(&settings, &label)?;
            let [entry] = config.api.as_slice() else {
                return Err(fail(format!(
                    "{label}: a fixture's settings are one [[api]] entry"
                )));
            };
            target.take_settings(entry);
        }
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
        let expected = refused.iter().find(|(path, _)| path == spec);
        let generated = match (openapi_codegen::generate(root, &target, COMMAND), expected) {
            (Ok(generated), None) => generated,
            (Err(error), None) => return Err(error.into()),
            (Err(error), Some((_, message))) if error.to_string() == *message => {
                println!("refused, as refused.txt expects: {error}");
                continue;
            }
            (Err(error), Some((_, message))) => {
                return Err(fail(format!(
                    "{}: refused with\n  {error}\nbut refused.txt expects\n  {message}",
                    spec.display()
                )));
            }
            (Ok(_), Some(_)) => {
                return Err(fail(format!(
                    "{}: generates now, but refused.txt lists it as refused: remove it from \
                     there (and from the README's Limits)",
                    spec.display()
                )));
            }
        };
        generated_count += 1;
        let stem = spec.file_stem().map(|s| s.to_string_lossy().into_owned());
        let drive_file = stem.map(|stem| root.join(DRIVE).join(format!("{stem}.rs")));
        if let Some(drive_file) = drive_file.filter(|f| spec.starts_with(FIXTURES) && f.is_file()) {
            let text = std::fs::read_to_string(&drive_file)
                .map_err(|e| fail(format!("{}: {e}", drive_file.display())))?;
            files.insert(Path::new(name).join("models/tests/drive.rs"), text);
            drive.push(target.models.package.clone());
        }
        let mut generated = generated;
        let loopback =
            stem_of(spec).map(|stem| root.join(DRIVE).join(format!("{stem}.loopback.rs")));
        if let Some(loopback) = loopback.filter(|f| spec.starts_with(FIXTURES) && f.is_file()) {
            if let (Some(client), Some(server)) = (&target.client, &target.server) {
                let text = std::fs::read_to_string(&loopback)
                    .map_err(|e| fail(format!("{}: {e}", loopback.display())))?;
                files.insert(client.path.join("tests/drive.rs"), text);
                let manifest = client.path.join("Cargo.toml");
                let toml = generated
                    .files
                    .get(&manifest)
                    .map(str::to_owned)
                    .ok_or_else(|| fail(format!("{}: no client manifest", spec.display())))?;
                generated
                    .files
                    .insert(&manifest, loopback_manifest(&toml, &server.package)?);
                drive.push(client.package.clone());
            }
        }
        for note in &generated.notes {
            println!("note: {note}");
        }
        files.extend(generated.files);
        targets.push(target);
        // The same document as `generate --client-only` makes it: the
        // models inlined as the client's module must build and lint too.
        if one_crate_too(spec)? {
            let mut one = Target::client_only(spec.clone(), &format!("{name}-one"));
            if let Some(client) = one.client.as_mut() {
                client.path = Path::new(name).join("one").join(&client.path);
            }
            files.extend(openapi_codegen::generate(root, &one, COMMAND)?.files);
            targets.push(one);
        }
    }
    files.insert(
        "Cargo.toml",
        WorkspaceToml::render_many(
            &targets,
            COMMAND,
            &format!("{} and {FIXTURES}", EXTERNAL.map(|(dir, _)| dir).join(", ")),
            // The scratch workspace is `target/external-specs/`.
            &RuntimeSource::Path("../../runtime".to_owned()),
        )?,
    );
    let with_other_targets = with_other_targets(&files, &targets);
    Ok((files, generated_count, drive, with_other_targets))
}

/// The packages of `targets` whose files hold a target besides the
/// library: a test, an example, a benchmark or a binary.
fn with_other_targets(files: &Files, targets: &[Target]) -> Vec<String> {
    let crates = targets.iter().flat_map(|target| {
        [
            Some(&target.models),
            target.client.as_ref(),
            target.server.as_ref(),
        ]
        .into_iter()
        .flatten()
    });
    let mut packages = Vec::new();
    for krate in crates {
        let other = ["tests", "examples", "benches", "src/bin", "src/main.rs"]
            .map(|dir| krate.path.join(dir));
        let has_other = files
            .iter()
            .any(|(path, _)| other.iter().any(|dir| path.starts_with(dir)));
        if has_other && !packages.contains(&krate.package) {
            packages.push(krate.package.clone());
        }
    }
    packages
}

/// Documents up to this size also get the `--client-only` crate. The few
/// larger ones (OpenAI's, Adyen's Management API, Vercel's, Docker Engine's:
/// 0.47 to 1.9 MB) do not: that crate is the same models and client again,
/// from the same emitters the smaller documents and the fixtures already put
/// through it, and compiling it took about a fifth of CI's time for this
/// step.
const ONE_CRATE_MAX_BYTES: u64 = 256 * 1024;

/// Whether `spec` also becomes the one crate of `generate --client-only`.
fn one_crate_too(spec: &Path) -> Result<bool> {
    let size = std::fs::metadata(spec)
        .map_err(|e| fail(format!("{}: {e}", spec.display())))?
        .len();
    Ok(size <= ONE_CRATE_MAX_BYTES)
}

fn stem_of(spec: &Path) -> Option<String> {
    spec.file_stem().map(|s| s.to_string_lossy().into_owned())
}

/// A client manifest with what a loopback test needs besides: the server
/// crate, axum's server and tokio's sockets.
fn loopback_manifest(toml: &str, server_package: &str) -> Result<String> {
    let tokio = "tokio = { workspace = true, features = [\"macros\", \"rt-multi-thread\"] }";
    if !toml.contains(tokio) {
        return Err(fail(format!(
            "the client manifest no longer has `{tokio}`: update the loopback drive"
        )));
    }
    Ok(toml.replace(
        tokio,
        &format!(
            "tokio = {{ workspace = true, features = [\"macros\", \"rt-multi-thread\", \"net\"] }}\n\
             {server_package}.workspace = true\n\
             axum = {{ workspace = true, features = [\"tokio\", \"http1\"] }}"
        ),
    ))
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
