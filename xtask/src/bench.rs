//! `cargo xtask bench [--quick] [--only codegen|layer|service|rate-limit|compile]`: builds the
//! service and the benchmark driver (`bench/`, `logistics-bench`) in release
//! and runs it; the report is printed and written to `target/bench/report.md`.
//!
//! `--only compile` is measured here instead ([`compile`]): it times cargo
//! builds of generated crates against progenitor's, which needs no release
//! build of the service.

mod compile;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::test::{cargo, run_command};
use crate::{Result, fail};

/// Runs the benchmarks from the workspace `root` with `args` (`--quick`,
/// `--only PART`, and any other option of `logistics-bench`, passed on).
pub fn run(root: &Path, args: &[&str]) -> Result<()> {
    let only = args
        .windows(2)
        .find(|pair| pair[0] == "--only")
        .map(|pair| pair[1]);
    match only {
        Some("compile") if args.len() == 2 => return compile::run(root, &target_dir(root)),
        Some("compile") => return Err(fail("--only compile takes no other option")),
        Some(only) if !["codegen", "layer", "service", "rate-limit"].contains(&only) => {
            return Err(fail(format!(
                "--only {only}: expected codegen, layer, service, rate-limit or compile"
            )));
        }
        _ => {}
    }
    cargo(
        root,
        &[
            "build",
            "--release",
            "--locked",
            "-p",
            "logistics-bench",
            "-p",
            "logistics-service",
        ],
    )?;
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
        .args(args);
    run_command(command)
}

/// Cargo's target folder: `CARGO_TARGET_DIR`, or `target/` under `root`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}
