//! The generator in a `build.rs`, for crates that do not commit generated
//! code: the client of a document, written into `OUT_DIR` as one file that
//! the crate includes at its root.
//!
//! ```no_run
//! // build.rs, in its `fn main()`:
//! openapi_codegen::build::Builder::new("openapi.yaml").generate_or_exit();
//! ```
//!
//! ```ignore
//! // src/lib.rs: the client, its models as `models`, at the crate's root
//! include!(concat!(env!("OUT_DIR"), "/openapi_client.rs"));
//! ```
//!
//! The crate depends on what the generated client uses (the README's
//! "Generating from build.rs" lists the lines): `openapi-runtime` with its
//! `models` and `client` features, `serde`, `serde_json`, `reqwest`,
//! `bytes` and `futures-util`; and on `openapi-codegen` as a
//! build-dependency. `include!` cannot follow `mod x;` to files beside
//! `OUT_DIR`'s, so the generated modules are written inline
//! (`pub mod models { … }`); the crate-level docs are left out, and the
//! crate-level lint settings are put on each item instead.

use std::path::{Path, PathBuf};

use crate::config::Target;
use crate::emit::Files;
use crate::error::{Error, Result};

/// The command quoted in the generated file's header.
const COMMAND: &str = "openapi_codegen::build::Builder";

/// The client of one document, generated into `OUT_DIR`.
#[derive(Debug, Clone)]
pub struct Builder {
    spec: PathBuf,
    name: String,
    out_dir: Option<PathBuf>,
}

/// What [`Builder::generate`] wrote.
#[derive(Debug)]
pub struct Output {
    /// The file to `include!` at the crate's root.
    pub file: PathBuf,
    /// Every file of the document (the root first), watched with
    /// `cargo:rerun-if-changed`.
    pub sources: Vec<PathBuf>,
    /// What the generator notes about the document (see
    /// [`Generated::notes`](crate::Generated::notes)), printed as
    /// `cargo:warning=` lines.
    pub notes: Vec<String>,
}

impl Builder {
    /// The document at `spec`, relative to the crate's folder (where cargo
    /// runs `build.rs`); the root file of a document in several files.
    pub fn new(spec: impl Into<PathBuf>) -> Self {
        Builder {
            spec: spec.into(),
            name: "openapi".to_owned(),
            out_dir: None,
        }
    }

    /// The generated file is `NAME_client.rs` (default `openapi`). The
    /// client is a crate root (its code names `crate::`), so a crate holds
    /// one; the name tells the files of several build scripts apart.
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_owned();
        self
    }

    /// Writes into `dir` instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates the client: one file, `NAME_client.rs`, in `OUT_DIR`
    /// (written only when its contents change), and prints the
    /// `cargo:rerun-if-changed` lines of every file of the document and
    /// a `cargo:warning` per note.
    #[allow(clippy::expect_used, reason = "a client-only target has a client")]
    pub fn generate(&self) -> Result<Output> {
        let spec_label = self.spec.to_string_lossy().replace('\\', "/");
        println!("cargo:rerun-if-changed={}", self.spec.display());
        let doc = crate::parse::Document::load(&self.spec, &spec_label)?;
        let mut sources = vec![self.spec.clone()];
        sources.extend(doc.sources.files().iter().cloned());
        for file in &sources[1..] {
            println!("cargo:rerun-if-changed={}", file.display());
        }
        let target = Target::client_only(self.spec.clone(), &self.name);
        target.check("Builder::name")?;
        let generated = crate::generate_from(&doc, &target, COMMAND)?;
        for note in &generated.notes {
            println!("cargo:warning={}", note.replace('\n', " "));
        }
        let client = target.client.as_ref().expect("a client-only target");
        let code = single_file(&generated.files, &client.path.join("src"))?;
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| {
                Error::Config {
                    file: COMMAND.to_owned(),
                    message:
                        "OUT_DIR is not set: call the builder from a build script, or set out_dir"
                            .to_owned(),
                }
            })?),
        };
        let file = out_dir.join(format!("{}.rs", client.lib_name()));
        write_if_changed(&file, &code)?;
        Ok(Output {
            file,
            sources,
            notes: generated.notes,
        })
    }

    /// [`Builder::generate`], and on an error, prints it (the document's
    /// file and the JSON pointer of the node) and ends the build script
    /// with exit code 1, so that `cargo build` shows it.
    pub fn generate_or_exit(&self) -> Output {
        match self.generate() {
            Ok(output) => output,
            Err(error) => {
                eprintln!("error: {error}");
                std::process::exit(1);
            }
        }
    }
}

fn write_if_changed(path: &Path, contents: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(());
    }
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(path, contents).map_err(io)
}

/// The crate whose `lib.rs` is in `src` as one file: every `mod x;` written
/// inline, the crate's own docs left out, its other inner attributes put
/// on each item.
#[allow(
    clippy::expect_used,
    reason = "attributes syn printed parse back as attributes"
)]
fn single_file(files: &Files, src: &Path) -> Result<String> {
    let mut file = parse(files, &src.join("lib.rs"))?;
    inline(&mut file.items, files, src)?;
    // The crate's inner attributes as outer ones, in tokens (syn's
    // attributes are not `Clone` here), for every item.
    let mut crate_attrs = proc_macro2::TokenStream::new();
    for mut attr in std::mem::take(&mut file.attrs) {
        if !attr.path().is_ident("doc") {
            attr.style = syn::AttrStyle::Outer;
            quote::ToTokens::to_tokens(&attr, &mut crate_attrs);
        }
    }
    for item in &mut file.items {
        if let Some(attrs) = attrs_mut(item) {
            let outer =
                syn::parse::Parser::parse2(syn::Attribute::parse_outer, crate_attrs.clone())
                    .expect("attributes print as attributes");
            attrs.splice(0..0, outer);
        }
    }
    Ok(format!(
        "// Generated by `{COMMAND}` in the build script; do not edit.\n\n{}",
        prettyplease::unparse(&file)
    ))
}

fn parse(files: &Files, path: &Path) -> Result<syn::File> {
    let text = files.get(path).ok_or_else(|| Error::Config {
        file: COMMAND.to_owned(),
        message: format!("the generator wrote no {}", path.display()),
    })?;
    syn::parse_file(text).map_err(|e| Error::Config {
        file: COMMAND.to_owned(),
        message: format!("{}: {e}", path.display()),
    })
}

/// Writes each `mod x;` of `items` (a module whose children are in `dir`)
/// inline, from `dir/x.rs` or `dir/x/mod.rs`.
fn inline(items: &mut [syn::Item], files: &Files, dir: &Path) -> Result<()> {
    for item in items {
        let syn::Item::Mod(module) = item else {
            continue;
        };
        if module.content.is_some() {
            continue;
        }
        let name = module.ident.to_string();
        let flat = dir.join(format!("{name}.rs"));
        let path = if files.get(&flat).is_some() {
            flat
        } else {
            dir.join(&name).join("mod.rs")
        };
        let mut child = parse(files, &path)?;
        inline(&mut child.items, files, &dir.join(&name))?;
        module.attrs.extend(child.attrs);
        module.content = Some((syn::token::Brace::default(), child.items));
        module.semi = None;
    }
    Ok(())
}

fn attrs_mut(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Item;
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::Builder;

    #[test]
    fn the_client_is_one_file_with_its_modules_inline() {
        let dir =
            std::env::temp_dir().join(format!("openapi-codegen-build-{}", std::process::id()));
        let spec =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/operations.yaml");
        let output = Builder::new(&spec)
            .name("ops")
            .out_dir(&dir)
            .generate()
            .unwrap();
        assert_eq!(output.file, dir.join("ops_client.rs"));
        let code = std::fs::read_to_string(&output.file).unwrap();
        assert!(code.contains("pub mod models {"), "{code}");
        assert!(!code.contains("mod client;") && !code.contains("include_str!"));
        assert!(syn::parse_file(&code).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
