//! Turns an OpenAPI document (Swagger 2.0, OpenAPI 3.0, 3.1 or 3.2) into Rust crates.
//!
//! Three stages, each its own module tree:
//! 1. [`parse`]: the document with `openapiv3` (YAML or JSON), and its local
//!    `$ref`s followed on demand, with cycle detection;
//! 2. [`lower`]: the document into the [`ir`], which owes nothing to
//!    `openapiv3`: named types and shapes, operations, security, servers;
//! 3. [`emit`]: one emitter per target crate, Rust built with `quote`, checked
//!    with `syn`, formatted with `prettyplease`; `askama` for other files.
//!
//! [`names`] is shared by the last two: lowering chooses every name the IR
//! holds, and emitters choose the few more the generated code needs (locals,
//! builder methods) by the same rules.
//!
//! Every problem with a document is an [`Error`] naming the document and the
//! JSON pointer of the node; the generator does not panic on bad input.
//!
//! ```no_run
//! use std::path::Path;
//! use openapi_codegen::{config::Config, generate};
//!
//! let config = Config::load(Path::new("spec/codegen.toml"), "spec/codegen.toml")?;
//! for target in &config.api {
//!     let generated = generate(Path::new("."), target, "cargo xtask codegen")?;
//!     for (path, contents) in generated.files.iter() {
//!         std::fs::write(path, contents).expect("writable");
//!     }
//! }
//! # Ok::<(), openapi_codegen::Error>(())
//! ```

pub mod build;
pub mod config;
pub mod diff;
pub mod emit;
mod error;
pub mod ir;
pub mod lower;
pub mod names;
pub mod parse;
mod pointer;
#[cfg(test)]
mod testing;

use std::path::Path;

pub use emit::RuntimeSource;
pub use error::{Error, Result};

/// The generator's version; the runtime the generated crates need is of
/// the same version (they are built from one workspace).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

use config::Target;
use emit::{Context, Files};

/// What one generation produced.
#[derive(Debug)]
pub struct Generated {
    /// The files, by path relative to the workspace root.
    pub files: Files,
    /// What the document has that is deliberately not generated (links, a
    /// callback URL expression not resolved): a note each, naming where the
    /// first of each is. Not an error: the callers print it.
    pub notes: Vec<String>,
}

/// Generates the crates of `target`, whose paths are relative to `root`.
/// `command` is quoted in the generated files' headers as the way to
/// regenerate them.
pub fn generate(root: &Path, target: &Target, command: &str) -> Result<Generated> {
    let label = target.spec.to_string_lossy().replace('\\', "/");
    let doc = parse::Document::load(&root.join(&target.spec), &label)?;
    let example = match &target.client_example {
        Some(path) => {
            let path = root.join(path);
            Some(std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })?)
        }
        None => None,
    };
    generate_with(&doc, target, command, example.as_deref())
}

/// Generates the crates of a document alone into a folder of their own: the
/// crates of [`Target::standalone`] plus a `Cargo.toml` that makes the folder a
/// workspace with concrete dependency versions, so that `cargo check` works in it.
///
/// The crates depend on `openapi-runtime` as vendored into the folder
/// ([`RuntimeSource::VENDORED_DIR`]); the caller copies the runtime crate
/// there (see [`generate_standalone_with`] for other sources).
pub fn generate_standalone(spec: &Path, name: &str, command: &str) -> Result<Generated> {
    let runtime = RuntimeSource::Vendored(RuntimeSource::VENDORED_DIR.to_owned());
    let target = Target::standalone(spec.to_path_buf(), name);
    generate_standalone_with(&target, command, &runtime)
}

/// The files of the runtime crate at `runtime_dir` (its `Cargo.toml` and
/// `src/`), under `into`: what [`RuntimeSource::Vendored`] expects a
/// standalone workspace to hold, so that it builds with nothing outside it.
pub fn vendor_runtime(runtime_dir: &Path, into: &Path) -> Result<emit::Files> {
    fn read(path: &Path) -> Result<String> {
        std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }
    let mut files = emit::Files::default();
    files.insert(
        into.join("Cargo.toml"),
        read(&runtime_dir.join("Cargo.toml"))?,
    );
    let mut pending = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = pending.pop() {
        let full = runtime_dir.join(&dir);
        let entries = std::fs::read_dir(&full)
            .and_then(|entries| entries.collect::<std::io::Result<Vec<_>>>())
            .map_err(|source| Error::Io { path: full, source })?;
        for entry in entries {
            let relative = dir.join(entry.file_name());
            if entry.path().is_dir() {
                pending.push(relative);
            } else {
                files.insert(into.join(&relative), read(&entry.path())?);
            }
        }
    }
    Ok(files)
}

/// Like [`generate_standalone`], for `target` (its document path as given,
/// its crates those of [`Target::standalone`] or [`Target::client_only`])
/// with the runtime from `runtime`.
pub fn generate_standalone_with(
    target: &Target,
    command: &str,
    runtime: &RuntimeSource,
) -> Result<Generated> {
    let spec = &target.spec;
    let label = spec.to_string_lossy().replace('\\', "/");
    let doc = parse::Document::load(spec, &label)?;
    let api = lower_for(&doc, target)?;
    let cx = Context {
        api: &api,
        target,
        command,
        client_example: None,
    };
    let mut files = emit_all(&cx)?;
    files.insert("Cargo.toml", emit::WorkspaceToml::render(&cx, runtime)?);
    Ok(Generated {
        files,
        notes: api.notes,
    })
}

/// Generates the crates of `target` from an already parsed document. The
/// target's `client_example` is not read: the client's README gets the
/// generic example.
pub fn generate_from(doc: &parse::Document, target: &Target, command: &str) -> Result<Generated> {
    generate_with(doc, target, command, None)
}

fn generate_with(
    doc: &parse::Document,
    target: &Target,
    command: &str,
    client_example: Option<&str>,
) -> Result<Generated> {
    let api = lower_for(doc, target)?;
    let files = emit_all(&Context {
        api: &api,
        target,
        command,
        client_example,
    })?;
    Ok(Generated {
        files,
        notes: api.notes,
    })
}

/// The document lowered, with the target's settings that shape the IR
/// applied (`open-enums`).
fn lower_for(doc: &parse::Document, target: &Target) -> Result<ir::Api> {
    let mut api = lower::lower(doc)?;
    if target.open_enums {
        lower::open_enums(&mut api);
    }
    Ok(api)
}

/// Every crate the target asks for.
fn emit_all(cx: &Context<'_>) -> Result<Files> {
    let target = cx.target;
    if target.models_in_client
        && (target.client.is_none() || (target.server.is_some() && !target.server_in_client))
    {
        return Err(Error::Config {
            file: cx.api.source.clone(),
            message: "the models can be the client crate's module only when the client is \
                      generated alone or with the server stubs as its module too: server \
                      stubs of their own need the models as a crate of their own"
                .to_owned(),
        });
    }
    if target.server_in_client && !target.models_in_client {
        return Err(Error::Config {
            file: cx.api.source.clone(),
            message: "the server stubs can be the client crate's module only when the models \
                      are too"
                .to_owned(),
        });
    }
    let mut files = emit::emit_models(cx)?;
    if cx.target.client.is_some() {
        files.extend(emit::emit_client(cx)?);
    }
    if cx.target.server.is_some() {
        files.extend(emit::emit_server(cx)?);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::{Error, Target, generate_from, parse, vendor_runtime};

    /// The runtime's manifest and every file under its `src/`, nested
    /// folders too, under the folder given; a folder that is not there is
    /// an error naming it.
    #[test]
    fn vendoring_copies_the_runtimes_manifest_and_sources() {
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        let files = vendor_runtime(&runtime, Path::new("vendor/runtime")).unwrap();
        let mut expected = vec![PathBuf::from("vendor/runtime/Cargo.toml")];
        let mut pending = vec![PathBuf::from("src")];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(runtime.join(&dir)).unwrap() {
                let relative = dir.join(entry.unwrap().file_name());
                if runtime.join(&relative).is_dir() {
                    pending.push(relative);
                } else {
                    expected.push(Path::new("vendor/runtime").join(relative));
                }
            }
        }
        expected.sort();
        let written: Vec<PathBuf> = files.iter().map(|(p, _)| p.to_path_buf()).collect();
        assert_eq!(written, expected);
        assert!(
            written
                .iter()
                .any(|p| p.starts_with("vendor/runtime/src/server"))
        );
        for (path, text) in files.iter() {
            let source = runtime.join(path.strip_prefix("vendor/runtime").unwrap());
            assert_eq!(
                text,
                std::fs::read_to_string(source).unwrap(),
                "{}",
                path.display()
            );
        }

        let missing = vendor_runtime(&runtime.join("no-such-folder"), Path::new("v"));
        let Err(Error::Io { path, .. }) = missing else {
            panic!("{missing:?}");
        };
        assert!(
            path.ends_with("no-such-folder/Cargo.toml"),
            "{}",
            path.display()
        );
    }

    /// The models can be the client's module only where there is a client.
    #[test]
    fn models_in_a_client_that_is_not_generated_is_refused() {
        let text = "openapi: 3.0.3\ninfo: {title: A, version: '1'}\npaths: {}\n";
        let doc = parse::Document::parse(text, "a.yaml", false).unwrap();
        let target = Target {
            client: None,
            ..Target::client_only("a.yaml".into(), "a")
        };
        let refused = generate_from(&doc, &target, "test");
        assert!(matches!(refused, Err(Error::Config { .. })), "{refused:?}");
        assert!(generate_from(&doc, &Target::client_only("a.yaml".into(), "a"), "test").is_ok());
    }
}
