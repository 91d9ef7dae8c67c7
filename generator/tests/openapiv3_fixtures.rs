//! The generator on the real documents that the `openapiv3` crate ships as
//! its test fixtures (Docker's, Slack's, Stripe's, Twilio's and others'
//! APIs, from APIs.guru): found through `cargo metadata` in the registry's
//! copy of the version `Cargo.lock` pins, so nothing is vendored or
//! downloaded. Each document must generate its three crates, or stop the
//! generator with exactly the error `tests/openapiv3_fixtures.txt` gives for
//! it, and then say whether the client alone (`--client-only`) generates.
//!
//! In process, like `external.rs`: that the crates also build is checked by
//! hand (docs/testing.md), since compiling them costs minutes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use openapi_codegen::config::Target;
use openapi_codegen::parse::Document;

/// The `fixtures/` folder of the `openapiv3` package this workspace uses.
fn fixtures() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .current_dir(&root)
        .args(["metadata", "--format-version", "1", "--locked"])
        .output()
        .unwrap_or_else(|e| panic!("cargo metadata: {e}"));
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}"));
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "openapiv3")
        .and_then(|package| package["manifest_path"].as_str())
        .expect("openapiv3 among the packages of cargo metadata");
    Path::new(manifest)
        .parent()
        .expect("a manifest's folder")
        .join("fixtures")
}

/// What happens to `file`: `generates`, or the error; then, when the error
/// suggests it, what `--client-only` does (`; client alone: …`).
fn outcome(path: &Path, file: &str) -> String {
    let label = format!("fixtures/{file}");
    let run = |target: &Target| {
        Document::load(path, &label)
            .and_then(|doc| openapi_codegen::generate_from(&doc, target, "test"))
            .map_or_else(|error| error.to_string(), |_| "generates".to_owned())
    };
    let name = file.split('.').next().unwrap_or(file).replace('_', "-");
    let three = run(&Target::standalone(PathBuf::from(&label), &name));
    // Only a refusal of the server stubs' suggests the client alone.
    if !three.contains("--client-only") {
        return three;
    }
    let one = run(&Target::client_only(PathBuf::from(&label), &name));
    format!("{three}; client alone: {one}")
}

#[test]
fn each_openapiv3_fixture_generates_or_gives_its_listed_error() {
    let dir = fixtures();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            (name.ends_with(".yaml") || name.ends_with(".json")).then_some(name)
        })
        .collect();
    files.sort();
    // Two at a time: Stripe's 2 MB document takes most of the time.
    let actual: Vec<String> = std::thread::scope(|scope| {
        let (even, odd): (Vec<_>, Vec<_>) = files.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let run = |half: Vec<(usize, &String)>| {
            let lines = half
                .into_iter()
                .map(|(i, file)| (i, format!("{file}: {}", outcome(&dir.join(file), file))));
            lines.collect::<Vec<_>>()
        };
        let other = scope.spawn(move || run(odd));
        let mut all = run(even);
        all.extend(other.join().expect("the other half"));
        all.sort();
        all.into_iter().map(|(_, line)| line).collect()
    });
    let listed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openapiv3_fixtures.txt");
    let text = std::fs::read_to_string(&listed).unwrap_or_default();
    let expected: Vec<&str> = text
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    if std::env::var_os("BLESS").is_some() {
        let header: String = text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&listed, format!("{header}{}\n", actual.join("\n"))).expect("writable");
        return;
    }
    assert_eq!(
        actual, expected,
        "\nIf the new outcomes are right, run `BLESS=1 cargo test -p openapi-codegen --test \
         openapiv3_fixtures` and commit tests/openapiv3_fixtures.txt."
    );
}
