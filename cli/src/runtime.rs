//! The runtime crate (`openapi-runtime`) built into the binary: the source
//! of `generate --runtime vendor`, so that the crates an installed
//! generator writes get the runtime of its own version.

use std::path::Path;

use openapi_codegen::emit::Files;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/runtime_files.rs"));
}

/// The runtime's version: the generator's, as they are built together.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The runtime crate's files (its `Cargo.toml` and `src/`) under `into`.
pub fn vendored(into: &Path) -> Files {
    let mut files = Files::default();
    for (path, contents) in embedded::FILES {
        files.insert(into.join(path), (*contents).to_owned());
    }
    files
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn the_embedded_runtime_is_the_workspace_runtime() {
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        let on_disk = openapi_codegen::vendor_runtime(&runtime, Path::new("v")).unwrap();
        let embedded = super::vendored(Path::new("v"));
        assert_eq!(
            on_disk.iter().collect::<Vec<_>>(),
            embedded.iter().collect::<Vec<_>>()
        );
    }
}
