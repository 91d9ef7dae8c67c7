//! `cargo xtask bench [--quick] [--only codegen|layer|service|service-layers|rate-limit|compile] [--callgrind]`
//! and `cargo xtask bench --check [--update-baseline]`:
//! builds the service and the benchmark driver (`bench/`, `logistics-bench`)
//! in release and runs it; the report is printed and written to
//! `target/bench/report.md`.
//!
//! The release build is the same as `cargo build --release -p
//! logistics-bench -p logistics-service` typed in a shell, so that one
//! does not undo the other (see [`release_build`]).
//!
//! `--only compile` is measured here instead ([`compile`]): it times cargo
//! builds of generated crates against progenitor's, which needs no release
//! build of the service; its one option is `--callgrind` (instructions of a
//! rebuild besides its time).
//!
//! `--check` is the regression gate ([`check`]): instruction counts of the
//! cases with a target against `bench/baseline.toml`.

mod check;
mod compile;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::test::{cargo_command, run_command};
use crate::{Result, fail};

/// Runs the benchmarks from the workspace `root` with `args` (`--quick`,
/// `--only PART`, and any other option of `logistics-bench`, passed on).
pub fn run(root: &Path, args: &[&str]) -> Result<()> {
    if args.first() == Some(&"--check") {
        let update = match &args[1..] {
            [] => false,
            ["--update-baseline"] => true,
            _ => {
                return Err(fail("--check takes no other option than --update-baseline"));
            }
        };
        run_command(release_build(root))?;
        return check::run(root, &target_dir(root), update);
    }
    let only = args
        .windows(2)
        .find(|pair| pair[0] == "--only")
        .map(|pair| pair[1]);
    match only {
        Some("compile") => {
            // `--only compile` is two of the arguments; `--callgrind` is the
            // only other one it takes, before or after them.
            let callgrind = match args.len() {
                2 => false,
                3 if args.contains(&"--callgrind") => true,
                _ => {
                    return Err(fail(
                        "--only compile takes no other option than --callgrind",
                    ));
                }
            };
            return compile::run(root, &target_dir(root), callgrind);
        }
        Some(only)
            if ![
                "codegen",
                "layer",
                "service",
                "service-layers",
                "rate-limit",
                "rate-limit-memory",
            ]
            .contains(&only) =>
        {
            return Err(fail(format!(
                "--only {only}: expected codegen, layer, service, service-layers, rate-limit, rate-limit-memory or compile"
            )));
        }
        _ => {}
    }
    run_command(release_build(root))?;
    let target = target_dir(root);
    let release = target.join("release");
    let report = target.join("bench").join("report.md");
    let mut command = Command::new(release.join("logistics-bench"));
    command
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .arg("--service-bin")
        .arg(release.join("logistics-service"))
        .arg("--out")
        .arg(&report)
        .arg("--command")
        .arg(
            std::iter::once("cargo xtask bench")
                .chain(args.iter().copied())
                .collect::<Vec<_>>()
                .join(" "),
        )
        .args(args);
    run_command(command)
}

/// `cargo build --release --locked -p logistics-bench -p logistics-service`
/// with the environment a shell would give it (less what `cargo run` added).
fn release_build(root: &Path) -> Command {
    let mut command = cargo_command();
    command.current_dir(root).args([
        "build",
        "--release",
        "--locked",
        "-p",
        "logistics-bench",
        "-p",
        "logistics-service",
    ]);
    command
}

/// Cargo's target folder: `CARGO_TARGET_DIR`, or `target/` under `root`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_build_drops_what_cargo_run_set_and_keeps_the_rest() {
        // `cargo test` sets these for the test binary as `cargo run` does for
        // the task.
        assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let command = release_build(Path::new("."));
        let removed: Vec<String> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        for name in [
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_MANIFEST_DIR",
        ] {
            assert!(removed.iter().any(|r| r == name), "{name} is inherited");
        }
        // Settings a user gives cargo stay.
        assert!(
            removed
                .iter()
                .all(|name| !["CARGO_HOME", "CARGO_TARGET_DIR"].contains(&name.as_str())),
            "{removed:?}"
        );
        assert_eq!(command.get_envs().count(), removed.len());
    }
}
