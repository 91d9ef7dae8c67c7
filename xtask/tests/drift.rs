//! `cargo xtask codegen --check` catches drift, and `cargo xtask codegen`
//! repairs it by rewriting only the files that should change. Runs on a copy
//! of the workspace's spec and generated crates.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name == "target" {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(name));
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

fn xtask(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("XTASK_WORKSPACE_ROOT", root)
        .output()
        .unwrap()
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn an_edited_spec_fails_the_check_and_codegen_rewrites_only_what_changed() {
    let root = TempDir(std::env::temp_dir().join(format!("xtask-drift-{}", std::process::id())));
    let source = workspace();
    copy_dir(&source.join("spec"), &root.0.join("spec"));
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("generated-")
        {
            copy_dir(&path, &root.0.join(path.file_name().unwrap()));
        }
    }

    let check = xtask(&root.0, &["codegen", "--check"]);
    assert!(
        check.status.success(),
        "the copy starts in sync: {}",
        String::from_utf8_lossy(&check.stderr)
    );

    // Add an optional field to Customer.
    let spec_path = root.0.join("spec/openapi.yaml");
    let spec = std::fs::read_to_string(&spec_path).unwrap();
    let anchor = "    Customer:\n      description: A customer with the addresses known for them.\n      type: object\n";
    let at = spec.find(anchor).expect("the Customer schema") + anchor.len();
    let properties =
        spec[at..].find("      properties:\n").unwrap() + at + "      properties:\n".len();
    let edited = format!(
        "{}        nickname:\n          description: What the customer likes to be called.\n          type: string\n{}",
        &spec[..properties],
        &spec[properties..]
    );
    std::fs::write(&spec_path, edited).unwrap();

    let check = xtask(&root.0, &["codegen", "--check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        !check.status.success(),
        "the check must fail after the edit"
    );
    assert!(
        stderr.contains("generated-models/src/customers.rs differs"),
        "{stderr}"
    );
    assert!(
        stderr.contains("+    pub nickname: Option<String>,"),
        "the diff shows the new field: {stderr}"
    );

    let write = xtask(&root.0, &["codegen"]);
    assert!(
        write.status.success(),
        "{}",
        String::from_utf8_lossy(&write.stderr)
    );
    let stdout = String::from_utf8_lossy(&write.stdout);
    let written: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("wrote "))
        .collect();
    assert_eq!(written, ["generated-models/src/customers.rs"], "{stdout}");

    let check = xtask(&root.0, &["codegen", "--check"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
