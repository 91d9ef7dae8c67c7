//! Turns `spec/openapi.yaml` into what the operations endpoints serve: the
//! document as JSON (`/openapi.json`), and the table of its operations by
//! method and path template (the `operation` label of the metrics). And
//! rebuilds when a migration is added, for `sqlx::migrate!`.

#![allow(
    clippy::expect_used,
    reason = "a build script reports a failure by panicking: cargo shows the message"
)]

use std::fmt::Write as _;
use std::path::PathBuf;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let spec = manifest.join("../spec/openapi.yaml");
    println!("cargo:rerun-if-changed={}", spec.display());
    // `sqlx::migrate!` embeds these folders: a new migration rebuilds.
    println!("cargo:rerun-if-changed=migrations");
    let text = std::fs::read_to_string(&spec)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", spec.display()));
    let document: serde_json::Value = serde_yaml::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not YAML: {e}", spec.display()));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let json = serde_json::to_string(&document).expect("a YAML document is JSON");
    std::fs::write(out.join("openapi.json"), json).expect("OUT_DIR is writable");

    let mut table = String::from(
        "/// Every operation of the document: (method, path template, operationId).\n\
         pub const OPERATIONS: &[(&str, &str, &str)] = &[\n",
    );
    let paths = document["paths"]
        .as_object()
        .unwrap_or_else(|| panic!("{}: /paths is not an object", spec.display()));
    for (path, item) in paths {
        for method in METHODS {
            if let Some(id) = item[method]["operationId"].as_str() {
                writeln!(
                    table,
                    "    ({:?}, {:?}, {:?}),",
                    method.to_ascii_uppercase(),
                    path,
                    id
                )
                .expect("writing to a String");
            }
        }
    }
    table.push_str("];\n");
    std::fs::write(out.join("operations.rs"), table).expect("OUT_DIR is writable");
}
