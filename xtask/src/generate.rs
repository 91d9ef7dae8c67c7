//! `cargo xtask generate --spec PATH --out DIR [--name NAME] [--runtime
//! vendor|path:PATH|git:URL] [--client-only]`: the generator on any
//! document, into a folder that becomes a small workspace of its own.
//!
//! By default the folder holds three crates: `<name>-models`,
//! `<name>-client` and `<name>-server`. With `--client-only` it holds one,
//! `<name>-client`, with the models as its `models` module: what a client
//! alone needs, and one crate to rebuild at each regeneration, not two.
//!
//! The generated crates depend on `openapi-runtime`. By default (`vendor`)
//! this workspace's `runtime/` crate is copied into `DIR/openapi-runtime/`
//! as a member, so that the folder builds with nothing outside it;
//! `path:PATH` and `git:URL` name the crate instead.

use std::path::{Path, PathBuf};
use std::time::Instant;

use openapi_codegen::RuntimeSource;
use openapi_codegen::config::Target;

use crate::{Result, fail};

/// The command quoted in the generated files' headers.
pub const COMMAND: &str = "cargo xtask generate";

/// Parses the task's arguments and runs it; `root` is this workspace's root.
pub fn run(root: &Path, args: &[&str]) -> Result<()> {
    let mut spec = None;
    let mut out = None;
    let mut name = None;
    let mut runtime = RuntimeSource::Vendored(RuntimeSource::VENDORED_DIR.to_owned());
    let mut client_only = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = || {
            rest.next()
                .map(|v| (*v).to_owned())
                .ok_or_else(|| fail(format!("{arg} needs a value")))
        };
        match *arg {
            "--spec" => spec = Some(PathBuf::from(value()?)),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--name" => name = Some(value()?),
            "--runtime" => runtime = runtime_source(&value()?)?,
            "--client-only" => client_only = true,
            other => return Err(fail(format!("unknown argument `{other}`"))),
        }
    }
    let spec = spec.ok_or_else(|| fail("--spec PATH is required"))?;
    let out = out.ok_or_else(|| fail("--out DIR is required"))?;
    let name = match name {
        Some(name) => name,
        None => default_name(&spec)?,
    };
    let target = if client_only {
        Target::client_only(spec, &name)
    } else {
        Target::standalone(spec, &name)
    };
    target.check("--name")?;
    let (files, changed) = generate(root, &target, &out, &runtime)?;
    let crates = if client_only {
        "the client crate, the models its module"
    } else {
        "models, client and server crates"
    };
    println!(
        "generated {files} files for `{name}` into {} ({crates}), {changed} of them new or changed; run `cargo check` there",
        out.display()
    );
    Ok(())
}

/// `vendor`, `path:PATH` or `git:URL`.
fn runtime_source(text: &str) -> Result<RuntimeSource> {
    match text.split_once(':') {
        _ if text == "vendor" => Ok(RuntimeSource::Vendored(
            RuntimeSource::VENDORED_DIR.to_owned(),
        )),
        Some(("path", path)) if !path.is_empty() => Ok(RuntimeSource::Path(path.to_owned())),
        Some(("git", url)) if !url.is_empty() => Ok(RuntimeSource::Git(url.to_owned())),
        _ => Err(fail(format!(
            "--runtime takes vendor, path:PATH or git:URL, not `{text}`"
        ))),
    }
}

/// Generates the crates of `target` (a [`Target::standalone`] or
/// [`Target::client_only`]) into `out`, the runtime from `runtime` (copied
/// from `root/runtime` when vendored); returns how many files it generated,
/// and how many of them it wrote because they were new or changed.
///
/// Only the files that change are written, so that cargo sees the others as
/// unchanged: a regeneration that changes one schema rebuilds what depends
/// on it, one that changes nothing rebuilds nothing (the vendored runtime
/// included).
pub fn generate(
    root: &Path,
    target: &Target,
    out: &Path,
    runtime: &RuntimeSource,
) -> Result<(usize, usize)> {
    let started = Instant::now();
    let mut generated = openapi_codegen::generate_standalone_with(target, COMMAND, runtime)?;
    if let RuntimeSource::Vendored(dir) = runtime {
        let vendored = openapi_codegen::vendor_runtime(&root.join("runtime"), Path::new(dir))?;
        generated.files.extend(vendored);
    }
    let elapsed = started.elapsed();
    for note in &generated.notes {
        eprintln!("note: {note}");
    }
    let mut changed = 0;
    for (path, contents) in generated.files.iter() {
        if crate::codegen::write_if_changed(&out.join(path), contents)? {
            changed += 1;
        }
    }
    for stale in stale_files(out, &generated.files)? {
        std::fs::remove_file(&stale).map_err(|e| fail(format!("{}: {e}", stale.display())))?;
        println!(
            "removed {}: the generator no longer writes it",
            stale.display()
        );
    }
    eprintln!("generation took {} ms", elapsed.as_millis());
    Ok((generated.files.len(), changed))
}

/// The files under `out` that an earlier generation wrote and this one did
/// not: every file in the `src` folder of a crate this generation writes a
/// `Cargo.toml` for (the generated crates and the vendored runtime) that is
/// not in `files`. A module whose tag left the document goes, and so does a
/// file the runtime no longer has. What a user put beside `src` (tests,
/// examples, a `target` folder) is not the generator's, and stays.
fn stale_files(out: &Path, files: &openapi_codegen::emit::Files) -> Result<Vec<PathBuf>> {
    let written: std::collections::BTreeSet<&Path> = files.iter().map(|(p, _)| p).collect();
    let mut stale = Vec::new();
    for manifest in &written {
        let Some(krate) = manifest.parent() else {
            continue;
        };
        if manifest.file_name().is_none_or(|n| n != "Cargo.toml") || krate.as_os_str().is_empty() {
            continue;
        }
        let mut found = Vec::new();
        crate::codegen::walk(&out.join(krate).join("src"), &mut found)?;
        stale.extend(found.into_iter().filter(|file| {
            file.strip_prefix(out)
                .is_ok_and(|relative| !written.contains(relative))
        }));
    }
    stale.sort();
    Ok(stale)
}

/// The file name without extension, as a package-name prefix:
/// `petstore-expanded`; `api-` before one that starts with a digit, which
/// Cargo refuses (`1forge.com.json`: `api-1forge-com`).
pub fn default_name(spec: &Path) -> Result<String> {
    let stem = spec.file_stem().and_then(|s| s.to_str()).ok_or_else(|| {
        fail(format!(
            "cannot make a crate name from {}; pass --name",
            spec.display()
        ))
    })?;
    // Words of letters and digits, one `-` between them: a doubled
    // separator makes a crate name rustc warns is not snake case.
    let name = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-");
    if name.is_empty() {
        return Err(fail(format!(
            "cannot make a crate name from {}; pass --name",
            spec.display()
        )));
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(format!("api-{name}"));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::time::{Duration, SystemTime};

    use openapi_codegen::RuntimeSource;
    use openapi_codegen::config::Target;

    use super::{default_name, generate};

    const DOCUMENT: &str = r##"
openapi: 3.0.3
info: {title: Regenerated, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: the pets
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Pet"}}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
"##;

    fn modified(path: &Path) -> SystemTime {
        std::fs::metadata(path).unwrap().modified().unwrap()
    }

    #[test]
    fn a_regeneration_writes_only_what_changed_and_removes_what_is_gone() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-regenerate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.join("out");
        let spec = dir.join("regenerated.yaml");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&spec, DOCUMENT).unwrap();
        let target = Target::client_only(spec.clone(), "regenerated");
        let runtime = RuntimeSource::Vendored(RuntimeSource::VENDORED_DIR.to_owned());
        generate(root, &target, &out, &runtime).unwrap();

        // Every file dated in the past: what is written again is dated now.
        let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let mut files = Vec::new();
        crate::codegen::walk(&out, &mut files).unwrap();
        for file in &files {
            let handle = std::fs::File::options().append(true).open(file).unwrap();
            handle.set_modified(past).unwrap();
        }
        let models = out.join("client/src/models/common.rs");
        let operations = out.join("client/src/operations.rs");
        let runtime_lib = out.join("openapi-runtime/src/lib.rs");
        assert!(files.contains(&models) && files.contains(&runtime_lib));

        // The same document: nothing is written, so cargo rebuilds nothing.
        let (generated, changed) = generate(root, &target, &out, &runtime).unwrap();
        assert_eq!((generated, changed), (files.len(), 0));
        let rewritten: Vec<&PathBuf> = files.iter().filter(|f| modified(f) != past).collect();
        assert!(rewritten.is_empty(), "written again: {rewritten:?}");

        // A property added: the models are written, the rest is not; files
        // the generator no longer writes go, files of the user's stay.
        std::fs::write(
            &spec,
            DOCUMENT.replace(
                "name: {type: string}",
                "name: {type: string}\n        tag: {type: string}",
            ),
        )
        .unwrap();
        let stale = [
            out.join("openapi-runtime/src/gone.rs"),
            out.join("client/src/models/pets.rs"),
        ];
        let kept = [
            out.join("notes.md"),
            out.join("client/target/debug/build.log"),
            out.join("client/tests/calls.rs"),
        ];
        for file in stale.iter().chain(&kept) {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "").unwrap();
        }
        assert_eq!(generate(root, &target, &out, &runtime).unwrap().1, 1);
        assert_ne!(modified(&models), past);
        assert!(
            std::fs::read_to_string(&models)
                .unwrap()
                .contains("pub tag: Option<String>")
        );
        assert_eq!(modified(&operations), past);
        assert_eq!(modified(&runtime_lib), past);
        for file in &stale {
            assert!(!file.exists(), "{} was left", file.display());
        }
        for file in &kept {
            assert!(file.exists(), "{} was removed", file.display());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_name_is_the_file_name_as_cargo_takes_it() {
        let name = |file: &str| default_name(Path::new(file)).ok();
        assert_eq!(
            name("specs/Petstore Expanded.yaml").as_deref(),
            Some("petstore-expanded")
        );
        assert_eq!(name("1forge.com.json").as_deref(), Some("api-1forge-com"));
        assert_eq!(
            name("vtex.local/Recurrence-(v1-.json").as_deref(),
            Some("recurrence-v1")
        );
        assert_eq!(name("_.json"), None);
    }
}
