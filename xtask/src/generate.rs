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
    let written = generate(root, &target, &out, &runtime)?;
    let crates = if client_only {
        "the client crate, the models its module"
    } else {
        "models, client and server crates"
    };
    println!(
        "generated {written} files for `{name}` into {} ({crates}; run `cargo check` there)",
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
/// from `root/runtime` when vendored); returns how many files were written.
pub fn generate(
    root: &Path,
    target: &Target,
    out: &Path,
    runtime: &RuntimeSource,
) -> Result<usize> {
    let started = Instant::now();
    let mut generated = openapi_codegen::generate_standalone_with(target, COMMAND, runtime)?;
    if let RuntimeSource::Vendored(dir) = runtime {
        if out.join(dir).exists() {
            // An earlier copy: files the runtime no longer has must go.
            std::fs::remove_dir_all(out.join(dir))
                .map_err(|e| fail(format!("{}: {e}", out.join(dir).display())))?;
        }
        let vendored = openapi_codegen::vendor_runtime(&root.join("runtime"), Path::new(dir))?;
        generated.files.extend(vendored);
    }
    let elapsed = started.elapsed();
    for note in &generated.notes {
        eprintln!("note: {note}");
    }
    for (path, contents) in generated.files.iter() {
        let full = out.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| fail(format!("{}: {e}", parent.display())))?;
        }
        std::fs::write(&full, contents).map_err(|e| fail(format!("{}: {e}", full.display())))?;
    }
    eprintln!("generation took {} ms", elapsed.as_millis());
    Ok(generated.files.len())
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
    use std::path::Path;

    use super::default_name;

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
