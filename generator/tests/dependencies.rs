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

/// Every crate a generated crate's code calls (`regex_lite::…`,
/// `chrono::…`) is among its dependencies: checked on each golden crate and
/// on this workspace's generated crates, for every crate a generated crate
/// may depend on.
#[test]
fn every_crate_the_generated_code_calls_is_a_dependency() {
    let template: toml::Table =
        toml::from_str(include_str!("../templates/dependencies.toml")).unwrap();
    let callable: Vec<String> = template.keys().map(|name| name.replace('-', "_")).collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut crates = Vec::new();
    for fixture in std::fs::read_dir(root.join("generator/tests/golden")).unwrap() {
        for krate in std::fs::read_dir(fixture.unwrap().path()).unwrap() {
            crates.push(krate.unwrap().path());
        }
    }
    for generated in std::fs::read_dir(&root).unwrap() {
        let path = generated.unwrap().path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("generated-"))
        {
            crates.push(path);
        }
    }
    assert!(crates.len() > 20, "the golden crates are missing");
    let mut failures = Vec::new();
    for krate in crates {
        let Ok(manifest) = std::fs::read_to_string(krate.join("Cargo.toml")) else {
            continue;
        };
        let manifest: toml::Table = toml::from_str(&manifest).unwrap();
        let depends_on = |name: &str| {
            manifest.get("dependencies").is_some_and(|deps| {
                deps.as_table()
                    .unwrap()
                    .keys()
                    .any(|dep| dep.replace('-', "_") == name)
            })
        };
        let mut stack = vec![krate.join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let code = std::fs::read_to_string(&path).unwrap();
                for name in &callable {
                    if calls(&code, name) && !depends_on(name) {
                        failures.push(format!(
                            "{} calls `{name}`, not a dependency of its crate",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether `code`, comments aside, has a path that starts with the crate
/// `name` (`name::`, not `other::name::` or `other_name::`).
fn calls(code: &str, name: &str) -> bool {
    let path = format!("{name}::");
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .any(|line| {
            line.match_indices(&path).any(|(at, _)| {
                !line[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            })
        })
}
