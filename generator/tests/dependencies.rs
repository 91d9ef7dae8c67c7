//! The versions `cargo xtask generate` writes into a standalone workspace are
//! the versions this workspace builds with.

#[test]
fn standalone_dependency_versions_match_the_workspace() {
    let root: toml::Table = toml::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml")).unwrap(),
    )
    .unwrap();
    let ours = &root["workspace"]["dependencies"];
    let template: toml::Table =
        toml::from_str(include_str!("../templates/dependencies.toml")).unwrap();
    assert!(!template.is_empty());
    for (name, spec) in &template {
        assert_eq!(
            Some(spec),
            ours.get(name),
            "`{name}` differs from the root Cargo.toml's [workspace.dependencies]"
        );
    }
}

#[test]
fn every_dependency_of_the_generated_crates_has_a_standalone_version() {
    let template: toml::Table =
        toml::from_str(include_str!("../templates/dependencies.toml")).unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    // The runtime too: `cargo xtask generate` vendors it into the workspace.
    for krate in [
        "generated-models",
        "generated-client",
        "generated-server-stubs",
        "runtime",
    ] {
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(format!("{root}/{krate}/Cargo.toml")).unwrap())
                .unwrap();
        for name in manifest["dependencies"].as_table().unwrap().keys() {
            // The generated crates, and the runtime, whose source the
            // standalone workspace names (vendored, a path or git).
            if name.starts_with("logistics-") || name == "openapi-runtime" {
                continue;
            }
            assert!(
                template.contains_key(name),
                "{krate} depends on `{name}`, missing from templates/dependencies.toml"
            );
        }
    }
}
