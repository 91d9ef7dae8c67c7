//! `cargo xtask mutants`: mutation testing with cargo-mutants. Each mutant is
//! a small change to the code (an operator swapped, a match arm deleted, a
//! function's body replaced by a default value); a mutant that every test
//! passes shows a rule no test pins down. Too slow for every commit, so not
//! part of `cargo xtask test`; docs/testing.md says when to run it.
//!
//! cargo-mutants is installed at [`VERSION`] into `target/tools/`, runs with
//! `CI=true` (so the end-to-end tests use PostgreSQL for real, never skip it)
//! and builds in `target/mutants-target/`, apart from the normal builds.
//! Exclusions, each with its reason, are in `.cargo/mutants.toml`, which
//! cargo-mutants reads itself.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::test::{cargo_bin, run_command};
use crate::{Result, fail};

/// The cargo-mutants version this task installs and runs.
pub const VERSION: &str = "27.1.0";

/// The runtime modules that the generator copies into the generated crates:
/// mutated in the copies, which is where their tests run.
const RUNTIME_FILES: &[&str] = &[
    "generated-models/src/validation.rs",
    "generated-models/src/dynamic_query.rs",
    "generated-server-stubs/src/body.rs",
    "generated-server-stubs/src/error.rs",
    "generated-server-stubs/src/negotiation.rs",
    "generated-server-stubs/src/params.rs",
    "generated-server-stubs/src/request_id.rs",
    "generated-server-stubs/src/respond.rs",
    "generated-server-stubs/src/settings.rs",
    "generated-client/src/client.rs",
    "generated-client/src/error.rs",
    "generated-client/src/paging.rs",
    "generated-client/src/retry.rs",
    "generated-client/src/transport.rs",
];

/// What a scope mutates: packages and file globs (relative to the workspace).
struct Scope {
    packages: Vec<&'static str>,
    files: Vec<&'static str>,
}

fn scope(name: &str) -> Result<Scope> {
    let domain = ["service/src/domain/**"];
    let service = [
        "service/src/auth.rs",
        "service/src/rate_limit.rs",
        "service/src/rate_limit/**",
    ];
    let lower = ["generator/src/lower/**"];
    let (packages, files): (Vec<&str>, Vec<&str>) = match name {
        "default" => (
            vec!["logistics-service", "openapi-codegen"],
            [&domain[..], &service, &lower].concat(),
        ),
        "domain" => (vec!["logistics-service"], domain.to_vec()),
        "generator" => (vec!["openapi-codegen"], vec!["generator/src/**"]),
        "runtime" => (
            vec![
                "logistics-models",
                "logistics-server-stubs",
                "logistics-client",
            ],
            RUNTIME_FILES.to_vec(),
        ),
        "all" => (
            vec![
                "logistics-service",
                "openapi-codegen",
                "logistics-models",
                "logistics-server-stubs",
                "logistics-client",
            ],
            [&["service/src/**", "generator/src/**"][..], RUNTIME_FILES].concat(),
        ),
        other => {
            return Err(fail(format!(
                "unknown scope `{other}`: use default, domain, generator, runtime or all"
            )));
        }
    };
    Ok(Scope { packages, files })
}

/// Runs `cargo xtask mutants ARGS` from the workspace `root`.
pub fn run(root: &Path, args: &[&str]) -> Result<()> {
    let (own, passed) = match args.iter().position(|a| *a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut scope_name = "default";
    let mut files = Vec::new();
    let mut rest = own.iter();
    while let Some(arg) = rest.next() {
        let mut value = || {
            rest.next()
                .copied()
                .ok_or_else(|| fail(format!("{arg} needs a value")))
        };
        match *arg {
            "--scope" => scope_name = value()?,
            "--file" => files.push(value()?),
            other => return Err(fail(format!("unknown argument to mutants: {other}"))),
        }
    }
    let scope = scope(scope_name)?;
    let files = if files.is_empty() { scope.files } else { files };

    let binary = install(root)?;
    let output = root.join("target/mutants");
    let mut command = Command::new(&binary);
    command
        .current_dir(root)
        .env("CI", "true")
        .env("CARGO_TARGET_DIR", root.join("target/mutants-target"))
        .args(["mutants", "--no-shuffle", "--output"])
        .arg(&output);
    for package in &scope.packages {
        command.args(["--package", package]);
    }
    for file in &files {
        command.args(["--file", file]);
    }
    command.args(passed);
    println!(
        "==> cargo-mutants {VERSION} on {} ({})",
        scope.packages.join(", "),
        files.join(", ")
    );
    let started = Instant::now();
    // cargo-mutants exits non-zero when a mutant is missed or times out;
    // the summary below says which, so its status only matters when it
    // wrote no results at all.
    let status = command
        .status()
        .map_err(|e| fail(format!("could not run {}: {e}", binary.display())))?;
    let elapsed = started.elapsed().as_secs_f64();
    let results = output.join("mutants.out");
    if !results.join("outcomes.json").exists() {
        return Err(fail(format!(
            "cargo-mutants exited with {status} and wrote no outcomes"
        )));
    }
    let summary = Summary::read(&results);
    println!("\n{}", summary.report(elapsed, &results));
    if summary.count("missed") > 0 {
        return Err(fail(format!(
            "{} mutants were missed: add a test that fails for each, or exclude it \
             with its reason in .cargo/mutants.toml",
            summary.count("missed")
        )));
    }
    if !status.success() && summary.count("timeout") == 0 {
        return Err(fail(format!("cargo-mutants exited with {status}")));
    }
    Ok(())
}

/// The pinned cargo-mutants, installed into `target/tools/` unless it is
/// there already.
fn install(root: &Path) -> Result<std::path::PathBuf> {
    let tools = root.join("target/tools");
    let binary = tools.join("bin/cargo-mutants");
    let installed = Command::new(&binary)
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout).trim() == format!("cargo-mutants {VERSION}")
        });
    if !installed {
        println!(
            "==> installing cargo-mutants {VERSION} into {}",
            tools.display()
        );
        let mut command = Command::new(cargo_bin());
        command
            .args([
                "install",
                "--locked",
                "--force",
                "--version",
                VERSION,
                "--root",
            ])
            .arg(&tools)
            .arg("cargo-mutants");
        run_command(command)?;
    }
    Ok(binary)
}

/// The outcomes of a run, from cargo-mutants' text files: one mutant a line,
/// one file per outcome.
struct Summary {
    outcomes: BTreeMap<&'static str, Vec<String>>,
}

/// The outcomes, in the order they are reported.
const OUTCOMES: [&str; 4] = ["caught", "missed", "unviable", "timeout"];

impl Summary {
    fn read(results: &Path) -> Summary {
        let mut outcomes = BTreeMap::new();
        for outcome in OUTCOMES {
            let path = results.join(format!("{outcome}.txt"));
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            outcomes.insert(
                outcome,
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
        Summary { outcomes }
    }

    fn count(&self, outcome: &str) -> usize {
        self.outcomes.get(outcome).map_or(0, Vec::len)
    }

    fn report(&self, elapsed: f64, results: &Path) -> String {
        let total: usize = OUTCOMES.iter().map(|o| self.count(o)).sum();
        let mut text = format!(
            "{total} mutants in {:.0} min: {} caught, {} missed, {} unviable, {} timeouts\n",
            elapsed / 60.0,
            self.count("caught"),
            self.count("missed"),
            self.count("unviable"),
            self.count("timeout"),
        );
        for (outcome, heading) in [("missed", "missed"), ("timeout", "timed out")] {
            if self.count(outcome) > 0 {
                text.push_str(&format!("\n{heading}:\n"));
                for line in &self.outcomes[outcome] {
                    text.push_str(&format!("  {line}\n"));
                }
            }
        }
        text.push_str(&format!("\nlogs and diffs: {}", results.display()));
        text
    }
}
