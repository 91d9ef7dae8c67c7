//! `generate --spec PATH --out DIR [--name NAME] [--runtime
//! vendor|path:PATH|git:URL] [--client-only]`: the generator on any
//! document, into a folder that becomes a small workspace of its own.
//!
//! By default the folder holds three crates: `<name>-models`,
//! `<name>-client` and `<name>-server`. With `--client-only` it holds one,
//! `<name>-client`, with the models as its `models` module: what a client
//! alone needs, and one crate to rebuild at each regeneration, not two.
//!
//! The generated crates depend on `openapi-runtime`. By default (`vendor`)
//! the runtime built into the binary ([`crate::runtime`]) is written into
//! `DIR/openapi-runtime/` as a member, so that the folder builds with
//! nothing outside it; `path:PATH` and `git:URL` name the crate instead.

use std::path::{Path, PathBuf};
use std::time::Instant;

use openapi_codegen::RuntimeSource;
use openapi_codegen::config::Target;

use crate::args::GenerateArgs;
use crate::{Result, fail};

/// Runs the command; `command` (`openapi-codegen generate`) is quoted in
/// the generated files' headers.
pub fn run(args: &GenerateArgs, command: &str) -> Result<()> {
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&args.spec)?,
    };
    let spec = args.spec.clone();
    let target = if args.client_only {
        Target::client_only(spec, &name)
    } else {
        Target::standalone(spec, &name)
    };
    target.check("--name")?;
    let (files, changed) = generate(&target, &args.out, &args.runtime, command)?;
    let crates = if args.client_only {
        "the client crate, the models its module"
    } else {
        "models, client and server crates"
    };
    println!(
        "generated {files} files for `{name}` into {} ({crates}), {changed} of them new or changed; run `cargo check` there",
        args.out.display()
    );
    Ok(())
}

/// Generates the crates of `target` (a [`Target::standalone`] or
/// [`Target::client_only`]) into `out`, the runtime from `runtime` (the
/// copy built into the binary when vendored), `command` quoted in the
/// files' headers; returns how many files it generated,
/// and how many of them it wrote because they were new or changed.
///
/// Only the files that change are written, so that cargo sees the others as
/// unchanged: a regeneration that changes one schema rebuilds what depends
/// on it, one that changes nothing rebuilds nothing (the vendored runtime
/// included).
pub fn generate(
    target: &Target,
    out: &Path,
    runtime: &RuntimeSource,
    command: &str,
) -> Result<(usize, usize)> {
    let started = Instant::now();
    let mut generated = openapi_codegen::generate_standalone_with(target, command, runtime)?;
    if let RuntimeSource::Vendored(dir) = runtime {
        generated
            .files
            .extend(crate::runtime::vendored(Path::new(dir)));
    }
    let elapsed = started.elapsed();
    for note in &generated.notes {
        eprintln!("note: {note}");
    }
    let mut changed = 0;
    for (path, contents) in generated.files.iter() {
        if crate::write_if_changed(&out.join(path), contents)? {
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
        crate::walk(&out.join(krate).join("src"), &mut found)?;
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
