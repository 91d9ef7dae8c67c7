//! Stage three: the IR → files. One emitter per target crate; they share the
//! helpers here (Rust formatting, file headers, documentation, type names).
//!
//! - [`models`], [`client`], [`server`]: the emitters, one per crate; each
//!   reads the IR and the shared parts below, never another emitter;
//! - [`checks`]: the constraint checks models and server parameters run;
//! - [`form_struct`]: the struct of a multipart body's parts (client and server);
//! - [`error_table`]: the error schema's table as the runtime's fields
//!   (client and server);
//! - [`rust_types`]: Rust types for IR shapes;
//! - [`docs`]: rustdoc attributes from the document's Markdown;
//! - [`templates`]: the non-Rust files (manifests, READMEs), from templates.

mod checks;
mod client;
pub mod docs;
mod error_table;
mod form_struct;
mod models;
mod rust_types;
mod server;
mod templates;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;

pub use client::emit_client;
pub use models::emit_models;
pub(crate) use rust_types::RustTypes;
pub use server::emit_server;
pub use templates::{RuntimeSource, WorkspaceToml};

use crate::config::{CrateTarget, Target};
use crate::error::{Error, Result};
use crate::ir::Api;

/// Generated files, by path relative to the output root.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Files {
    files: BTreeMap<PathBuf, String>,
}

impl Files {
    /// Adds a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, contents: String) {
        self.files.insert(path.into(), contents);
    }

    /// The files, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&Path, &str)> {
        self.files.iter().map(|(p, c)| (p.as_path(), c.as_str()))
    }

    /// The contents of one file.
    pub fn get(&self, path: impl AsRef<Path>) -> Option<&str> {
        self.files.get(path.as_ref()).map(String::as_str)
    }

    /// Adds every file of `other`.
    pub fn extend(&mut self, other: Files) {
        self.files.extend(other.files);
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// What every emitter needs: the API and where its output goes.
pub struct Context<'a> {
    /// The API.
    pub api: &'a Api,
    /// The crates to write and their settings.
    pub target: &'a Target,
    /// The command that regenerates the files, quoted in their headers.
    pub command: &'a str,
    /// The example program of the client's README, when the target names one.
    pub client_example: Option<&'a str>,
}

impl Context<'_> {
    /// Whether the models are the client crate's `models` module rather
    /// than a crate ([`Target::models_in_client`]).
    pub(crate) fn models_inline(&self) -> bool {
        self.inlining_client().is_some()
    }

    /// The client crate, when the models are its `models` module.
    fn inlining_client(&self) -> Option<&CrateTarget> {
        self.target
            .client
            .as_ref()
            .filter(|_| self.target.models_in_client)
    }

    /// The folder of the models' source files: the models crate's `src/`,
    /// or the client crate's `src/models/`.
    pub(crate) fn models_src(&self) -> PathBuf {
        match self.inlining_client() {
            Some(client) => client.path.join("src/models"),
            None => self.target.models.path.join("src"),
        }
    }

    /// The file that declares the models' modules: the models crate's
    /// `src/lib.rs`, or the client crate's `src/models.rs`.
    pub(crate) fn models_root_file(&self) -> PathBuf {
        match self.inlining_client() {
            Some(client) => client.path.join("src/models.rs"),
            None => self.target.models.path.join("src/lib.rs"),
        }
    }

    /// How the models' own code names their root: `crate`, or
    /// `crate::models` inside the client crate.
    pub(crate) fn models_root(&self) -> TokenStream {
        if self.models_inline() {
            quote::quote!(crate::models)
        } else {
            quote::quote!(crate)
        }
    }

    /// How code outside the models names them: `shop_models`, or
    /// `shop_client::models`.
    pub(crate) fn models_path_text(&self) -> String {
        match self.inlining_client() {
            Some(client) => format!("{}::models", client.lib_name()),
            None => self.target.models.lib_name(),
        }
    }

    /// The client crate, when the server stubs are its `server` module
    /// ([`Target::server_in_client`]).
    fn server_inlining_client(&self) -> Option<&CrateTarget> {
        self.inlining_client()
            .filter(|_| self.target.server.is_some() && self.target.server_in_client)
    }

    /// Whether the server stubs are the client crate's `server` module
    /// rather than a crate.
    pub(crate) fn server_inline(&self) -> bool {
        self.server_inlining_client().is_some()
    }

    /// The folder of the server stubs' modules: the server crate's `src/`,
    /// or the client crate's `src/server/`.
    pub(crate) fn server_src(&self, server: &CrateTarget) -> PathBuf {
        match self.server_inlining_client() {
            Some(client) => client.path.join("src/server"),
            None => server.path.join("src"),
        }
    }

    /// The file that declares the server stubs' modules: the server
    /// crate's `src/lib.rs`, or the client crate's `src/server.rs`.
    pub(crate) fn server_root_file(&self, server: &CrateTarget) -> PathBuf {
        match self.server_inlining_client() {
            Some(client) => client.path.join("src/server.rs"),
            None => server.path.join("src/lib.rs"),
        }
    }

    /// How the server stubs' code names their root (their modules, the
    /// runtime's re-exported ones, `ErrorBodyFormat`): `crate`, or
    /// `crate::server` inside the client crate. The models are
    /// `crate::models` either way (re-exported at the server crate's root).
    pub(crate) fn server_root(&self) -> TokenStream {
        if self.server_inline() {
            quote::quote!(crate::server)
        } else {
            quote::quote!(crate)
        }
    }

    /// [`Context::server_root`] as documentation links write it.
    pub(crate) fn server_root_text(&self) -> &'static str {
        if self.server_inline() {
            "crate::server"
        } else {
            "crate"
        }
    }

    /// Whether the models have `ValidateJson`, the checks of raw JSON that
    /// the server stubs run: not in a client's own `models` module, unless
    /// the server stubs are a module of the same crate.
    pub(crate) fn json_walks(&self) -> bool {
        !self.models_inline() || self.server_inline()
    }

    /// Whether the `ValidateJson` impls are behind the models crate's
    /// `validate-json` feature: in a crate of their own. In one crate with
    /// the server stubs they are always compiled, so that the crate
    /// declares no feature for them.
    pub(crate) fn json_walks_gated(&self) -> bool {
        !self.models_inline()
    }

    /// The header that opens every generated Rust file.
    pub fn rust_header(&self) -> String {
        format!(
            "// This file is generated by `{}` from {}.\n\
             // Do not edit it by hand: change the document or the generator, then regenerate.\n",
            self.command, self.api.source
        )
    }

    /// `tokens` as a formatted Rust file with the header.
    pub fn rust_file(&self, file: &Path, tokens: TokenStream) -> Result<String> {
        let parsed: syn::File = syn::parse2(tokens).map_err(|e| Error::Emit {
            file: file.display().to_string(),
            message: e.to_string(),
        })?;
        Ok(format!(
            "{}\n{}",
            self.rust_header(),
            unparse_spaced(parsed)
        ))
    }
}

/// The names clippy's `disallowed_names` lint refuses for a binding by
/// default. A document may give them to a property or a parameter, which
/// then names a constructor's or a setter's argument, or a local.
const PLACEHOLDER_NAMES: [&str; 3] = ["foo", "baz", "quux"];

/// What opens a file whose code uses a name of [`PLACEHOLDER_NAMES`], so
/// that the generated code stays clippy-clean with the document's names.
const ALLOW_PLACEHOLDERS: &str = "\
// The document's names include a placeholder clippy refuses by default.
#![allow(clippy::disallowed_names)]
";

/// Generic arguments nested this deep (`Option<Vec<Vec<Vec<Vec<T>>>>>`, a
/// document's array of arrays five deep, or four in a client method's
/// `Result<Response<…>, Error>`) pass clippy's `type_complexity` limit
/// once a sibling argument or two are counted.
const DEEP_GENERICS: usize = 5;

/// What opens a file with generic arguments [`DEEP_GENERICS`] deep.
const ALLOW_COMPLEX_TYPES: &str = "\
// The document nests arrays or maps deeper than clippy's type complexity allows.
#![allow(clippy::type_complexity)]
";

/// What a scan of formatted Rust code found outside its comments and
/// string literals.
#[derive(Debug, Default, PartialEq)]
struct Findings {
    /// A name of [`PLACEHOLDER_NAMES`] as a word (a field too, which costs
    /// only an `allow` that was not needed).
    placeholder: bool,
    /// The deepest nesting of generic arguments (`Vec<Vec<T>>`: 2).
    generic_depth: usize,
}

/// Scans formatted Rust `code`. A scan of the text, because walking the
/// token trees again copies them: a quarter of the time the generator
/// takes on GitHub's 13 MB document.
fn scan(code: &str) -> Findings {
    let bytes = code.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || !b.is_ascii();
    let mut found = Findings::default();
    let mut depth = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            // A quote as a character (`'"'`) opens no string.
            b'\'' if bytes.get(i + 1) == Some(&b'"') => i += 3,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |end| i + end);
            }
            // Generic arguments open right after a name (`Vec<`, `::<`);
            // prettyplease spaces a comparison's `<`.
            b'<' if i > 0 && (is_word(bytes[i - 1]) || bytes[i - 1] == b':') => {
                depth += 1;
                found.generic_depth = found.generic_depth.max(depth);
                i += 1;
            }
            // (`depth > 0`: a `<` came before, so there is a byte before.)
            b'>' if depth > 0 && !matches!(bytes[i - 1], b'-' | b'=') => {
                depth -= 1;
                i += 1;
            }
            b if is_word(b) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                let word = &bytes[start..i];
                if PLACEHOLDER_NAMES.iter().any(|name| name.as_bytes() == word) {
                    found.placeholder = true;
                }
            }
            _ => i += 1,
        }
    }
    found
}

/// `prettyplease` output with a blank line between items, as people write
/// them; runs of `use` and `mod` declarations stay together (documented
/// re-exports form a run of their own).
fn unparse_spaced(file: syn::File) -> String {
    let mut out = String::new();
    if !file.attrs.is_empty() {
        out.push_str(&prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: file.attrs,
            items: Vec::new(),
        }));
    }
    let attrs_end = out.len();
    let mut previous: Option<&'static str> = None;
    for item in file.items {
        let kind = match &item {
            syn::Item::Use(u) if u.attrs.is_empty() => "use",
            syn::Item::Use(_) => "documented use",
            syn::Item::Mod(m) if m.content.is_none() => "mod",
            _ => "item",
        };
        let continues_run = kind != "item" && previous == Some(kind);
        if !out.is_empty() && !continues_run {
            out.push('\n');
        }
        previous = Some(kind);
        out.push_str(&prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: vec![item],
        }));
    }
    let found = scan(&out[attrs_end..]);
    let mut allows = String::new();
    if found.placeholder {
        allows.push_str(ALLOW_PLACEHOLDERS);
    }
    if found.generic_depth >= DEEP_GENERICS {
        allows.push_str(ALLOW_COMPLEX_TYPES);
    }
    if !allows.is_empty() {
        if attrs_end > 0 {
            allows.insert(0, '\n');
        }
        out.insert_str(attrs_end, &allows);
    }
    out
}

/// `#[allow(clippy::wrong_self_convention)]` for a method that takes
/// `&self` and whose name, from the document's `operationId`, clippy reads
/// as a conversion (`from_file`, `into_folder`): the name is the
/// document's, not a conversion.
pub(crate) fn conversion_name_allow(name: &str) -> Option<TokenStream> {
    (name.starts_with("from_") || name.starts_with("into_"))
        .then(|| quote::quote!(#[allow(clippy::wrong_self_convention)]))
}

/// Whether a function of `count` arguments (`self` included) makes clippy's
/// `too_many_arguments` speak: more than seven. The document decides how
/// many a constructor or a method takes (one per required property, part or
/// parameter), so the generated code allows it then.
pub(crate) fn too_many_arguments(count: usize) -> bool {
    count > 7
}

/// `#[allow(clippy::should_implement_trait)]` for a builder method named
/// like a binary operator's (`sub`, a token's subject; `add`): taking `self`
/// and a value and returning `Self`, clippy takes it for `std::ops::Sub`.
pub(crate) fn operator_name_allow(name: &str) -> Option<TokenStream> {
    const OPERATORS: &[&str] = &[
        "add", "sub", "mul", "div", "rem", "shl", "shr", "bitand", "bitor", "bitxor",
    ];
    OPERATORS
        .contains(&name)
        .then(|| quote::quote!(#[allow(clippy::should_implement_trait)]))
}

/// Every identifier in `tokens` that is not after `::`: what a module
/// must import (or define) for the tokens to compile.
pub(crate) fn idents(tokens: &TokenStream) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut pending = vec![tokens.clone()];
    while let Some(tokens) = pending.pop() {
        // A name after `::` is another module's (`crate::models::Style`, a
        // schema named like a runtime item): it needs no import.
        let mut colons = 0;
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => {
                    if colons < 2 {
                        out.insert(ident.to_string());
                    }
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' => colons += 1,
                proc_macro2::TokenTree::Punct(_) | proc_macro2::TokenTree::Literal(_) => colons = 0,
                proc_macro2::TokenTree::Group(group) => {
                    pending.push(group.stream());
                    colons = 0;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Files, scan, too_many_arguments};

    /// Clippy's limit: seven arguments pass, eight do not.
    #[test]
    fn more_than_seven_arguments_are_too_many() {
        assert!(!too_many_arguments(0));
        assert!(!too_many_arguments(7));
        assert!(too_many_arguments(8));
    }

    /// A file written twice at one path is one file, the last text.
    #[test]
    fn files_are_counted_by_path() {
        let mut files = Files::default();
        assert!(files.is_empty());
        assert_eq!(files.len(), 0);
        files.insert("a/lib.rs", "first".to_owned());
        files.insert("a/lib.rs", "second".to_owned());
        let mut more = Files::default();
        more.insert("b/lib.rs", String::new());
        files.extend(more);
        assert!(!files.is_empty());
        assert_eq!(files.len(), 2);
        assert_eq!(files.get("a/lib.rs"), Some("second"));
    }

    /// Where each kind of target puts the models and the server stubs,
    /// and whether the models carry the raw-JSON checks the server stubs
    /// run: not in a client alone, even one that asks for the server in
    /// the client but has no server.
    #[test]
    fn each_kind_of_target_lays_out_its_modules() {
        use crate::config::Target;
        let api = crate::testing::api("paths: {}\n");
        let layout = |target: &Target| {
            let cx = crate::testing::context(&api, target);
            (cx.models_inline(), cx.server_inline(), cx.json_walks())
        };
        let spec = std::path::PathBuf::from("t.yaml");
        let standalone = Target::standalone(spec.clone(), "t");
        assert_eq!(layout(&standalone), (false, false, true));
        let client_only = Target::client_only(spec.clone(), "t");
        assert_eq!(layout(&client_only), (true, false, false));
        assert_eq!(layout(&Target::one_crate(spec, "t")), (true, true, true));
        let no_server = Target {
            server_in_client: true,
            ..client_only
        };
        assert_eq!(layout(&no_server), (true, false, false));
    }

    /// Items are apart by a blank line; runs of `use` and of `mod x;`
    /// stay together, and a documented `use` starts a run of its own. A
    /// module with its body is an item like any other.
    #[test]
    fn items_are_spaced_as_people_write_them() {
        let code = "use a::b;\nuse c::d;\n/// Re-exported.\npub use e::f;\nmod g;\nmod h;\nmod i { fn j() {} }\nmod k { fn l() {} }\nfn m() {}\n";
        let file: syn::File = syn::parse_str(code).unwrap();
        assert_eq!(
            super::unparse_spaced(file),
            "use a::b;\nuse c::d;\n\n/// Re-exported.\npub use e::f;\n\nmod g;\nmod h;\n\nmod i {\n    fn j() {}\n}\n\nmod k {\n    fn l() {}\n}\n\nfn m() {}\n"
        );
    }

    /// A file that needs an `allow` opens with it: after its own inner
    /// attributes and a blank line, or, without them, at its first line.
    #[test]
    fn an_allow_opens_the_file_after_its_attributes() {
        let spaced = |code: &str| super::unparse_spaced(syn::parse_str(code).unwrap());
        let bare = spaced("fn f(foo: u8) {}\n");
        assert!(bare.starts_with(super::ALLOW_PLACEHOLDERS), "{bare}");
        let documented = spaced("//! A module.\nfn f(foo: Vec<Vec<Vec<Vec<Vec<u8>>>>>) {}\n");
        let allows = format!(
            "//! A module.\n\n{}{}\nfn f(",
            super::ALLOW_PLACEHOLDERS,
            super::ALLOW_COMPLEX_TYPES
        );
        assert!(documented.starts_with(&allows), "{documented}");
    }

    fn names_a_placeholder(code: &str) -> bool {
        scan(code).placeholder
    }

    /// Only a word of the code counts: not one in a comment or a string
    /// (escaped quotes and all), nor a longer name that contains one.
    #[test]
    fn finds_a_placeholder_name_only_where_it_is_an_identifier() {
        assert!(names_a_placeholder(
            "impl T {\n    fn new(baz: i64) -> Self {\n        Self { baz }\n    }\n}\n"
        ));
        assert!(names_a_placeholder("let quux = 1;"));
        assert!(names_a_placeholder("let q = '\"'; let foo = q;"));
        assert!(names_a_placeholder("let s = \"a \\\" b\"; let foo = s;"));
        assert!(!names_a_placeholder(
            "/// The `foo` property.\nlet food = \"foo\"; // foo\nlet foo_bar = r\"baz\";\n"
        ));
        assert!(!names_a_placeholder("let s = \"a foo b\";"));
        // Only `//` starts a comment, not a division.
        assert!(names_a_placeholder("let x = 6 / foo;"));
        // A raw string with a quote in it reads as a string left open at
        // the end, and the scan ends there.
        assert!(!names_a_placeholder("let s = r#\"a \" b\"#; // foo"));
    }

    /// Generic arguments count where they follow a name, across lines as
    /// prettyplease breaks them; comparisons, arrows and text do not.
    #[test]
    fn measures_how_deep_generic_arguments_nest() {
        let depth = |code: &str| scan(code).generic_depth;
        assert_eq!(depth("pub arr: Option<Vec<Vec<String>>>,"), 3);
        assert_eq!(
            depth(
                "validation::property::<\n    Vec<\n        Vec<u8>,\n    >,\n>(object);\nlet v: Vec<u8>;"
            ),
            3
        );
        assert_eq!(
            depth("fn f(a: Vec<u8>) -> Result<u8, E> { if a < b && c > d {} }"),
            1
        );
        assert_eq!(depth("impl Fn(Vec<u8>) -> Option<u8>"), 1);
        assert_eq!(depth("if a < b { let v: Vec<u8>; }"), 1);
        // Each `>` closes one level: what closes early is not counted again.
        assert_eq!(depth("HashMap<Vec<u8>, Vec<Vec<u8>>>"), 3);
        // Text that starts or ends anywhere is scanned to its end.
        assert_eq!(depth("<T> x"), 0);
        assert!(names_a_placeholder("let foo"));
        assert_eq!(depth("/// Vec<Vec<Vec<T>>>\nlet s = \"<<<\";"), 0);
    }
}
