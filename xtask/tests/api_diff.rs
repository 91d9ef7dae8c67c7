//! `cargo xtask api-diff` on a scratch git repository: breaking changes
//! without a version bump fail naming each change by its JSON pointer; the
//! bump semver asks for makes it pass. A document in several files is
//! compared with all of its files as they were.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SPEC: &str = r##"openapi: 3.0.3
info: {title: Shop, version: '1'}
paths:
  /customers/{id}:
    get:
      operationId: getCustomer
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200':
          description: The customer.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Customer'}
components:
  schemas:
    Customer:
      type: object
      required: [id, email]
      properties:
        id: {type: integer}
        email: {type: string}
        nickname: {type: string}
"##;

fn config(version: &str) -> String {
    format!(
        "[[api]]\nspec = \"spec/shop.yaml\"\nmodels = {{ package = \"shop-models\", path = \"models\" }}\nclient = {{ package = \"shop-client\", path = \"client\" }}\nversion = \"{version}\"\n"
    )
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(root: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(root)
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn write(root: &Path, path: &str, text: &str) {
    std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
    std::fs::write(root.join(path), text).unwrap();
}

fn api_diff(root: &Path, args: &[&str]) -> Output {
    xtask(root, &[&["api-diff"], args].concat())
}

fn xtask(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("XTASK_WORKSPACE_ROOT", root)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap()
}

#[test]
fn breaking_changes_need_the_version_bump_semver_asks_for() {
    let root = TempDir(std::env::temp_dir().join(format!("xtask-api-diff-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&root.0);
    std::fs::create_dir_all(&root.0).unwrap();
    let root = &root.0;
    git(root, &["init", "-q"]);
    write(root, "spec/shop.yaml", SPEC);
    write(root, "spec/codegen.toml", &config("0.3.1"));
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);

    // Unchanged: nothing to report, success.
    let output = api_diff(root, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("spec/shop.yaml: no change of the interface since HEAD"),
        "{stdout}"
    );

    // Remove a property and change a type.
    let edited = SPEC
        .replace("        nickname: {type: string}\n", "")
        .replace(
            "        id: {type: integer}\n",
            "        id: {type: string}\n",
        );
    write(root, "spec/shop.yaml", &edited);
    let output = api_diff(root, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    for (pointer, what) in [
        (
            "#/components/schemas/Customer/properties/nickname",
            "property `Customer.nickname` removed",
        ),
        (
            "#/components/schemas/Customer/properties/id",
            "the type of `Customer.id` changed from integer to string",
        ),
    ] {
        let line = stdout
            .lines()
            .position(|l| l.trim_end().ends_with(pointer))
            .unwrap_or_else(|| panic!("{pointer} in:\n{stdout}"));
        assert!(
            stdout
                .lines()
                .nth(line)
                .unwrap()
                .trim_start()
                .starts_with("breaking    breaking"),
            "{stdout}"
        );
        assert!(
            stdout.lines().nth(line + 1).unwrap().contains(what),
            "{stdout}"
        );
    }
    assert!(
        stderr.contains("semver asks for at least 0.4.0"),
        "{stderr}"
    );

    // codegen writes the crates, then prints the same summary; a missing
    // bump is a warning there, not a failure.
    let output = xtask(root, &["codegen"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(root.join("models/Cargo.toml").exists());
    assert!(
        stdout.contains("#/components/schemas/Customer/properties/nickname"),
        "{stdout}"
    );
    assert!(
        stderr.contains("warning: spec/shop.yaml has breaking changes since HEAD"),
        "{stderr}"
    );

    // A patch bump is not enough; the next minor (below 1.0) is.
    write(root, "spec/codegen.toml", &config("0.3.2"));
    assert_eq!(api_diff(root, &[]).status.code(), Some(1));
    write(root, "spec/codegen.toml", &config("0.4.0"));
    let models = std::fs::read_to_string(root.join("models/Cargo.toml")).unwrap();
    assert!(models.contains("\nversion = \"0.3.1\"\n"), "{models}");
    let output = api_diff(root, &["--base", "HEAD", "--changelog"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("version 0.3.1 → 0.4.0: bumped as semver asks"),
        "{stdout}"
    );
    assert!(
        stdout.contains("## 0.4.0\n\n### Breaking for Rust code\n"),
        "{stdout}"
    );

    // Committed, the same change is history: compared with HEAD there is none,
    // with the commit before it is found again.
    git(root, &["commit", "-q", "-am", "breaking"]);
    assert!(api_diff(root, &[]).status.success());
    let output = api_diff(root, &["--base", "HEAD~1"]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("2 change(s) since HEAD~1"));

    // The client's changelog must have a section for the version.
    write(
        root,
        "spec/CHANGELOG.md",
        "# Changelog\n\n## 0.3.1\n\nThe first.\n",
    );
    let with_changelog = format!("{}changelog = \"spec/CHANGELOG.md\"\n", config("0.4.0"));
    write(root, "spec/codegen.toml", &with_changelog);
    let output = xtask(root, &["codegen"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("spec/CHANGELOG.md has no section `## 0.4.0`"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    write(
        root,
        "spec/CHANGELOG.md",
        "# Changelog\n\n## 0.4.0\n\nThe second.\n\n## 0.3.1\n\nThe first.\n",
    );
    let output = xtask(root, &["codegen"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let copied = std::fs::read_to_string(root.join("client/CHANGELOG.md")).unwrap();
    assert!(
        copied.contains("from spec/CHANGELOG.md")
            && copied.ends_with("## 0.4.0\n\nThe second.\n\n## 0.3.1\n\nThe first.\n"),
        "{copied}"
    );

    let output = api_diff(root, &["--base", "no-such-rev"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("`no-such-rev` is not a commit"));
}

#[test]
fn a_document_in_several_files_is_compared_as_its_files_were() {
    let root =
        TempDir(std::env::temp_dir().join(format!("xtask-api-diff-split-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&root.0);
    std::fs::create_dir_all(&root.0).unwrap();
    let root = &root.0;
    let (head, customer) = SPEC
        .split_once("    Customer:\n")
        .expect("the Customer schema");
    let customer: String = customer
        .lines()
        .map(|line| format!("{}\n", line.strip_prefix("      ").unwrap_or(line)))
        .collect();
    git(root, &["init", "-q"]);
    write(
        root,
        "spec/shop.yaml",
        &format!("{head}    Customer:\n      $ref: schemas/customer.yaml\n"),
    );
    write(root, "spec/schemas/customer.yaml", &customer);
    write(root, "spec/codegen.toml", &config("0.3.1"));
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);
    let output = api_diff(root, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("no change of the interface since HEAD"),
        "{stdout}"
    );

    // A change in the other file alone is found.
    write(
        root,
        "spec/schemas/customer.yaml",
        &customer.replace("  nickname: {type: string}\n", ""),
    );
    let output = api_diff(root, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("#/components/schemas/Customer/properties/nickname"),
        "{stdout}"
    );
}
