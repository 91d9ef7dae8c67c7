//! `cargo xtask test`: everything a change must pass, in the order that fails
//! fastest. It is the README's test command, and CI runs it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::{Result, fail};

/// Runs every check from the workspace `root`.
pub fn run(root: &Path) -> Result<()> {
    let started = Instant::now();
    step("formatting", || cargo(root, &["fmt", "--all", "--check"]))?;
    step("generated crates are up to date", || {
        crate::codegen::run(root, true)
    })?;
    step("clippy", || {
        cargo(
            root,
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--locked",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    // The workspace's server stubs turn the models crates' `validate-json`
    // on; the client builds them without it, which is checked here (D49).
    step(
        "clippy: the models crates as the client builds them",
        || {
            cargo(
                root,
                &[
                    "clippy",
                    "--locked",
                    "-p",
                    "logistics-models",
                    "-p",
                    "logistics-import-models",
                    "--no-default-features",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
            )
        },
    )?;
    step("tests", || {
        cargo(root, &["test", "--workspace", "--locked"])
    })?;
    // The workspace's client turns the runtime's `rustls` on; a client
    // built without it is tested here (D47).
    step("the runtime's client without TLS", || {
        cargo(
            root,
            &[
                "test",
                "--locked",
                "-p",
                "openapi-runtime",
                "--no-default-features",
                "--features",
                "models,client",
                "--lib",
            ],
        )
    })?;
    step("rustdoc of the generated crates and the runtime", || {
        let mut command = cargo_command();
        command
            .current_dir(root)
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(["doc", "--no-deps", "--locked"])
            .args(
                generated_packages(root)?
                    .iter()
                    .flat_map(|p| ["-p", p.as_str()]),
            );
        run_command(command)?;
        // The runtime as `generate --client-only` vendors it: without the
        // `server` feature, which the three crates turn on.
        let mut command = cargo_command();
        command
            .current_dir(root)
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(["doc", "--no-deps", "--locked", "-p", "openapi-runtime"])
            .args(["--no-default-features", "--features", "models,client"]);
        run_command(command)?;
        // And with every feature: the server's items are public too.
        let mut command = cargo_command();
        command
            .current_dir(root)
            .env("RUSTDOCFLAGS", "-D warnings")
            .args([
                "doc",
                "--no-deps",
                "--locked",
                "-p",
                "openapi-runtime",
                "--all-features",
            ]);
        run_command(command)
    })?;
    println!(
        "\nall checks passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn step(name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
    println!("\n==> {name}");
    let started = Instant::now();
    f().map_err(|e| fail(format!("{name} failed: {}", e.0)))?;
    println!("==> {name}: ok ({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

fn generated_packages(root: &Path) -> Result<Vec<String>> {
    let config = openapi_codegen::config::Config::load(
        &root.join("spec/codegen.toml"),
        "spec/codegen.toml",
    )?;
    Ok(config
        .api
        .iter()
        .flat_map(|t| [Some(&t.models), t.client.as_ref(), t.server.as_ref()])
        .flatten()
        .map(|c| c.package.clone())
        .collect())
}

/// The cargo that runs this task.
pub fn cargo_bin() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// What `cargo run` sets in the environment of the program it runs (this
/// task, through the `cargo xtask` alias) about that program's package.
/// A cargo started from here inherits them, and cargo compares a build
/// script's `rerun-if-env-changed` variables with its own environment, not
/// with what it sets for the script: ring 0.17.14's build script declares
/// `CARGO_PKG_NAME`, `CARGO_PKG_VERSION_*`, `CARGO_MANIFEST_DIR`,
/// `CARGO_MANIFEST_LINKS` and `OUT_DIR`, so with them inherited ring's build
/// script counts as changed and ring, rustls, sqlx and everything over them
/// are rebuilt — and rebuilt again by the next release build from a shell.
/// (briansmith/ring#2454, fixed in ring after 0.17.14; cargo: rust-lang/cargo#16134.)
const SET_BY_CARGO_RUN: [&str; 5] = [
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_PRIMARY_PACKAGE",
    "OUT_DIR",
];

/// A command that runs the cargo that runs this task, with the environment a
/// shell would give it: what `cargo run` set for this task is removed, so
/// that a build from here and a build from a shell (CI's next step, a user's
/// next command) share what they built instead of rebuilding it.
pub fn cargo_command() -> Command {
    let mut command = Command::new(cargo_bin());
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_BIN_")
            || name.starts_with("CARGO_CRATE_")
            || SET_BY_CARGO_RUN.contains(&name.as_ref())
        {
            command.env_remove(name.as_ref());
        }
    }
    command
}

/// Runs `cargo ARGS` in `root`.
pub fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    let mut command = cargo_command();
    command.current_dir(root).args(args);
    run_command(command)
}

pub fn run_command(mut command: Command) -> Result<()> {
    let status = command
        .status()
        .map_err(|e| fail(format!("could not run {command:?}: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(fail(format!("{command:?} exited with {status}")))
    }
}
