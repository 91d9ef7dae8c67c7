//! The generator in a `build.rs`, for crates that do not commit generated
//! code: the client of a document, or in full mode its models, client and
//! server stubs, written into `OUT_DIR` as one file that the crate
//! includes at its root.
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
//! build-dependency. A document with UUIDs, dates or `pattern`s needs
//! `uuid`, `chrono` or `regex-lite` too, with the runtime's `uuid`,
//! `chrono` or `regex` feature.
//!
//! **Full mode** ([`Builder::full`]) adds the server stubs, as the
//! `server` module beside `models`, in `NAME_full.rs`:
//!
//! ```no_run
//! // build.rs, in its `fn main()`:
//! openapi_codegen::build::Builder::new("openapi.yaml").full().generate_or_exit();
//! ```
//!
//! ```ignore
//! // src/lib.rs: the client at the crate's root, `models`, and `server`
//! // (the trait, `server::router`, `server::ApiError`, …)
//! include!(concat!(env!("OUT_DIR"), "/openapi_full.rs"));
//! ```
//!
//! The client and the server stubs both name the models `crate::models`;
//! the server stubs name their own items `crate::server::…`. The crate
//! also depends on what the server-stubs crate does: the runtime's
//! `server` feature, `axum` (no features: serving takes its `tokio` and
//! `http1`) and `http`. The models' checks of raw JSON, which the server
//! stubs run and a models crate of its own puts behind its
//! `validate-json` feature, are compiled without one: the crate declares
//! no feature.
//!
//! `include!` cannot follow `mod x;` to files beside `OUT_DIR`'s, so the
//! generated modules are written inline (`pub mod models { … }`); the
//! crate-level docs are left out, and the crate-level lint settings are
//! put on each item instead.

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
    full: bool,
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
            full: false,
        }
    }

    /// The generated file is `NAME_client.rs`, or `NAME_full.rs` in full
    /// mode (default `openapi`). The client is a crate root (its code names
    /// `crate::`), so a crate holds one; the name tells the files of
    /// several build scripts apart.
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_owned();
        self
    }

    /// Full mode: the server stubs too, as the `server` module beside
    /// `models`, in `NAME_full.rs` (see the [module docs](self)).
    pub fn full(mut self) -> Self {
        self.full = true;
        self
    }

    /// Writes into `dir` instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates the client (and in full mode the server stubs): one
    /// file, `NAME_client.rs` (`NAME_full.rs`), in `OUT_DIR`
    /// (written only when its contents change), and prints the
    /// `cargo:rerun-if-changed` lines of every file of the document and
    /// a `cargo:warning` per note.
    #[allow(
        clippy::expect_used,
        reason = "a client-only or one-crate target has a client"
    )]
    pub fn generate(&self) -> Result<Output> {
        let spec_label = self.spec.to_string_lossy().replace('\\', "/");
        println!("cargo:rerun-if-changed={}", self.spec.display());
        let doc = crate::parse::Document::load(&self.spec, &spec_label)?;
        let mut sources = vec![self.spec.clone()];
        sources.extend(doc.sources.files().iter().cloned());
        for file in &sources[1..] {
            println!("cargo:rerun-if-changed={}", file.display());
        }
        let target = if self.full {
            Target::one_crate(self.spec.clone(), &self.name)
        } else {
            Target::client_only(self.spec.clone(), &self.name)
        };
        target.check("Builder::name")?;
        let generated = crate::generate_from(&doc, &target, COMMAND)?;
        for note in &generated.notes {
            println!("cargo:warning={}", note.replace('\n', " "));
        }
        let client = target.client.as_ref().expect("both layouts have a client");
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
        let file = out_dir.join(if self.full {
            format!("{}_full.rs", self.name.replace('-', "_"))
        } else {
            format!("{}.rs", client.lib_name())
        });
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
    use std::collections::{BTreeMap, BTreeSet};

    use super::{Builder, Files, Path, single_file};

    /// The name and contents of the file `builder` writes for `fixture`,
    /// in a folder of its own.
    fn generated(
        fixture: &str,
        builder: impl Fn(Builder) -> Builder,
        dir: &str,
    ) -> (String, String) {
        let dir = std::env::temp_dir().join(format!(
            "openapi-codegen-build-{dir}-{}",
            std::process::id()
        ));
        let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture);
        let output = builder(Builder::new(&spec))
            .out_dir(&dir)
            .generate()
            .unwrap();
        assert_eq!(output.file.parent(), Some(dir.as_path()));
        let name = output
            .file
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let code = std::fs::read_to_string(&output.file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (name, code)
    }

    /// The names a module defines, its inline modules, and whether it
    /// imports with a glob (then a name not found may come from it).
    #[derive(Default)]
    struct Module {
        names: BTreeSet<String>,
        children: BTreeMap<String, Module>,
        glob: bool,
    }

    impl Module {
        fn of(items: &[syn::Item]) -> Self {
            let mut module = Module::default();
            for item in items {
                let name = match item {
                    syn::Item::Mod(m) => {
                        let child = Module::of(m.content.as_ref().map_or(&[][..], |c| &c.1));
                        module.children.insert(m.ident.to_string(), child);
                        continue;
                    }
                    syn::Item::Use(u) => {
                        module.add_use(&u.tree);
                        continue;
                    }
                    syn::Item::Const(i) => &i.ident,
                    syn::Item::Enum(i) => &i.ident,
                    syn::Item::Fn(i) => &i.sig.ident,
                    syn::Item::Static(i) => &i.ident,
                    syn::Item::Struct(i) => &i.ident,
                    syn::Item::Trait(i) => &i.ident,
                    syn::Item::Type(i) => &i.ident,
                    _ => continue,
                };
                module.names.insert(name.to_string());
            }
            module
        }

        fn add_use(&mut self, tree: &syn::UseTree) {
            match tree {
                syn::UseTree::Path(p) => self.add_use(&p.tree),
                syn::UseTree::Name(n) => {
                    self.names.insert(n.ident.to_string());
                }
                syn::UseTree::Rename(r) => {
                    self.names.insert(r.rename.to_string());
                }
                syn::UseTree::Glob(_) => self.glob = true,
                syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.add_use(t)),
            }
        }

        /// Whether `segments` (after `crate::`) name something: each an
        /// inline module in turn, then an item of the last module reached.
        fn resolves(&self, segments: &[&str]) -> bool {
            let Some((first, rest)) = segments.split_first() else {
                return true;
            };
            match self.children.get(*first) {
                Some(child) => child.resolves(rest),
                None => self.names.contains(*first) || self.glob,
            }
        }
    }

    /// Every `crate::` path of `code` (its documentation links too) that
    /// names nothing: the paths of a crate root inlined as a module and
    /// not rewritten.
    fn unresolved_crate_paths(code: &str) -> Vec<String> {
        let root = Module::of(&syn::parse_file(code).unwrap().items);
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let mut unresolved = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            if code[..at].ends_with(ident) {
                continue;
            }
            let rest = &code[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !ident(c) && c != ':')
                .unwrap_or(rest.len());
            let mut segments: Vec<&str> = rest[..end].split("::").collect();
            let mut groups = vec![Vec::new()];
            if segments.last() == Some(&"") {
                // `use crate::a::{b, c}`: each name of the group.
                segments.pop();
                let group = &rest[end + 1..];
                let group = &group[..group.find('}').unwrap()];
                groups = group
                    .split(',')
                    .map(|name| name.trim().split([':', ' ']).next().unwrap())
                    .filter(|name| !name.is_empty() && *name != "self")
                    .map(|name| vec![name])
                    .collect();
            }
            for group in groups {
                let path = [segments.clone(), group].concat();
                if !root.resolves(&path) {
                    unresolved.push(format!("crate::{}", path.join("::")));
                }
            }
        }
        unresolved
    }

    #[test]
    fn the_client_is_one_file_with_its_modules_inline() {
        let (name, code) = generated("operations.yaml", |b| b.name("ops"), "client");
        assert_eq!(name, "ops_client.rs");
        assert!(code.contains("pub mod models {"), "{code}");
        assert!(!code.contains("mod client;") && !code.contains("include_str!"));
        assert!(!code.contains("pub mod server"));
        assert_eq!(unresolved_crate_paths(&code), Vec::<String>::new());
    }

    /// Full mode: the client at the root, `models` and `server` beside it,
    /// every `crate::` path naming an item of the one crate, and no
    /// feature gate for the user's crate to declare.
    #[test]
    fn full_mode_writes_the_server_stubs_as_a_module_beside_the_models() {
        let (name, code) = generated("operations.yaml", |b| b.name("ops").full(), "full");
        assert_eq!(name, "ops_full.rs");
        for module in [
            "pub mod models {",
            "pub mod server {",
            "pub mod operations {",
        ] {
            assert!(code.contains(module), "no `{module}`");
        }
        assert!(code.contains("pub struct Client"));
        assert!(code.contains("crate::server::ErrorBodyFormat"));
        assert!(code.contains("use crate::models;"));
        assert!(code.contains("ValidateJson for"), "no raw-JSON checks");
        assert!(!code.contains("feature ="), "a feature gate is left");
        // Every fixture: security, multipart bodies, dynamic queries,
        // shared routes, formats, unions, …
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut checked = 0;
        for entry in std::fs::read_dir(fixtures).unwrap() {
            let fixture = entry.unwrap().file_name().into_string().unwrap();
            if !fixture.ends_with(".yaml") {
                continue;
            }
            let (_, code) = generated(&fixture, Builder::full, "full");
            assert_eq!(
                unresolved_crate_paths(&code),
                Vec::<String>::new(),
                "{fixture}"
            );
            assert!(!code.contains("feature = \"validate-json\""), "{fixture}");
            checked += 1;
        }
        assert!(checked > 20, "{checked} fixtures");
    }

    /// The check above finds a server path left naming the crate root.
    #[test]
    fn an_unrewritten_server_path_is_found() {
        let code = "pub mod server { pub struct ErrorBodyFormat; pub mod routes { \
                    use crate::server::ErrorBodyFormat; use crate::ErrorBodyFormat; \
                    use crate::server::{routes, ErrorBodyFormat as E, nothing}; } }";
        assert_eq!(
            unresolved_crate_paths(code),
            ["crate::ErrorBodyFormat", "crate::server::nothing"]
        );
    }

    /// The crate's inner attributes (not its docs) go on each item of the
    /// one file, whatever the item, and its `mod x;` come inline.
    #[test]
    fn a_single_file_puts_the_crates_attributes_on_every_item() {
        let mut files = Files::default();
        files.insert(
            "src/lib.rs",
            "//! The crate.\n#![allow(dead_code)]\nconst A: u8 = 1;\nenum B { X }\nfn c() {}\n\
             impl B {}\nmod d;\nstatic E: u8 = 2;\nstruct F;\ntrait G {}\ntype H = u8;\n\
             use std::fmt;\nmacro_rules! i { () => {} }\n"
                .to_owned(),
        );
        files.insert("src/d.rs", "pub struct Inner;\n".to_owned());
        let code = single_file(&files, Path::new("src")).unwrap();
        // Ten items of the kinds that take attributes; not the macro.
        assert_eq!(code.matches("#[allow(dead_code)]").count(), 10, "{code}");
        assert!(!code.contains("#!["), "{code}");
        assert!(!code.contains("The crate."), "{code}");
        assert!(code.contains("mod d {"), "{code}");
        assert!(code.contains("pub struct Inner;"), "{code}");
    }
}
