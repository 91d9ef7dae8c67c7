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
