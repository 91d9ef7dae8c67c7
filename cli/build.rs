//! Embeds the runtime crate (`../runtime`: its `Cargo.toml` and `src/`) in
//! the binary, so that `openapi-codegen generate` vendors the runtime of
//! its own version wherever it is installed. `cargo install --path cli`
//! and `cargo install --git URL openapi-codegen-cli` both build from a
//! checkout that has `runtime/` beside `cli/`.

#![allow(
    clippy::expect_used,
    reason = "a build script reports a failure by panicking: cargo shows the message"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let runtime = manifest_dir.join("../runtime");
    assert!(
        runtime.join("Cargo.toml").is_file(),
        "{} has no Cargo.toml: openapi-codegen-cli builds from a checkout of its repository, with runtime/ beside cli/",
        runtime.display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        runtime.join("Cargo.toml").display()
    );
    println!("cargo:rerun-if-changed={}", runtime.join("src").display());
    let mut files = vec![PathBuf::from("Cargo.toml")];
    walk(&runtime, Path::new("src"), &mut files);
    files.sort();
    let mut out = String::from(
        "/// The runtime crate's files, by path relative to its folder.\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for file in &files {
        let relative = file.to_string_lossy().replace('\\', "/");
        let absolute = runtime.join(file).canonicalize().expect("a runtime file");
        writeln!(
            out,
            "    ({relative:?}, include_str!({:?})),",
            absolute.to_string_lossy()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("runtime_files.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(root.join(dir)).expect("the runtime's src/ is readable");
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let relative = dir.join(entry.file_name());
        if entry.path().is_dir() {
            walk(root, &relative, out);
        } else {
            out.push(relative);
        }
    }
}
