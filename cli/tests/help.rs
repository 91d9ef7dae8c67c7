//! The README quotes `openapi-codegen --help` and each command's `--help`;
//! they must be what the binary prints.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::process::Command;

fn help(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_openapi-codegen"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

/// The text of the README's `console` block that starts `$ COMMAND`.
fn quoted(readme: &str, command: &str) -> Option<String> {
    let start = format!("```console\n$ {command}\n");
    let at = readme.find(&start)? + start.len();
    let end = readme[at..].find("\n```\n")? + at;
    Some(readme[at..end].to_owned())
}

#[test]
fn the_readme_quotes_the_help_of_each_command_as_the_binary_prints_it() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    for args in [&[][..], &["generate"], &["codegen"], &["api-diff"]] {
        let command = ["openapi-codegen"]
            .iter()
            .chain(args)
            .chain(&["--help"])
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let quoted = quoted(&readme, &command)
            .unwrap_or_else(|| panic!("the README has no ```console block for `{command}`"));
        assert_eq!(quoted, help(args).trim_end(), "README's `{command}`");
    }
}

#[test]
fn exit_codes_usage_is_2_and_version_is_the_generators() {
    let binary = env!("CARGO_BIN_EXE_openapi-codegen");
    let usage = Command::new(binary)
        .arg("--no-such-option")
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    let version = Command::new(binary).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8(version.stdout).unwrap(),
        format!("openapi-codegen {}\n", openapi_codegen::VERSION)
    );
}
