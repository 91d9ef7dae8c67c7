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

use crate::test::{cargo_command, run_command};
use crate::{Result, fail};

/// The cargo-mutants version this task installs and runs.
pub const VERSION: &str = "27.1.0";

/// What a scope mutates: packages and file globs (relative to the
/// workspace), and the packages whose tests judge each mutant (none: the
/// mutated package's own).
struct Scope {
    packages: Vec<&'static str>,
    files: Vec<&'static str>,
    test_packages: Vec<&'static str>,
}

fn scope(name: &str) -> Result<Scope> {
    let domain = ["service/src/domain/**"];
    let service = [
        "service/src/auth.rs",
        "service/src/rate_limit.rs",
        "service/src/rate_limit/**",
    ];
    let lower = ["generator/src/lower/**"];
    // The runtime crate has no tests of its own: the generated crates'
    // tests (codegen-tests) drive it as its users do.
    let runtime = ["runtime/src/**"];
    let scope = match name {
        "default" => Scope {
            packages: vec!["logistics-service", "openapi-codegen"],
            files: [&domain[..], &service, &lower].concat(),
            test_packages: vec![],
        },
        "domain" => Scope {
            packages: vec!["logistics-service"],
            files: domain.to_vec(),
            test_packages: vec![],
        },
        "generator" => Scope {
            packages: vec!["openapi-codegen"],
            files: vec!["generator/src/**"],
            test_packages: vec![],
        },
        "runtime" => Scope {
            packages: vec!["openapi-runtime"],
            files: runtime.to_vec(),
            test_packages: vec!["codegen-tests"],
        },
        // Not the runtime: its mutants need other packages' tests.
        "all" => Scope {
            packages: vec!["logistics-service", "openapi-codegen"],
            files: vec!["service/src/**", "generator/src/**"],
            test_packages: vec![],
        },
        other => {
            return Err(fail(format!(
                "unknown scope `{other}`: use default, domain, generator, runtime or all"
            )));
        }
    };
    Ok(scope)
}

/// Runs `cargo xtask mutants ARGS` from the workspace `root`.
pub fn run(root: &Path, args: &[&str]) -> Result<()> {
    let (own, passed) = match args.iter().position(|a| *a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut scope_name = "default";
    let mut files = Vec::new();
    let mut unit = false;
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
            "--unit" => unit = true,
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
    for package in &scope.test_packages {
        command.args(["--test-package", package]);
    }
    command.arg(tests_argument(unit));
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
    if !status.success() && OUTCOMES.iter().all(|o| summary.count(o) == 0) {
        return Err(fail(format!(
            "cargo-mutants exited with {status} before testing a mutant: the unmutated \
             tree did not build or its tests failed (see {})",
            results.join("log/baseline.log").display()
        )));
    }
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

/// Which tests judge each mutant. Every target's by default, but not the
/// doctests: they are slow (each is a binary of its own) and assert nothing
/// the unit and end-to-end tests do not. With `--unit`, only the unit tests
/// are built and run (`--lib`, for the build too): two to three times faster
/// on the service, whose end-to-end suite and binary then need not be linked
/// for each mutant, but a mutant only another suite catches is then
/// reported missed, so re-check what it misses without `--unit`.
fn tests_argument(unit: bool) -> &'static str {
    if unit {
        "--cargo-arg=--lib"
    } else {
        "--cargo-test-arg=--all-targets"
    }
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
        let mut command = cargo_command();
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
            "{total} mutants in {} min {} s: {} caught, {} missed, {} unviable, {} timeouts\n",
            elapsed as u64 / 60,
            elapsed as u64 % 60,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_each_outcome_and_lists_the_missed_and_timed_out() {
        let dir = std::env::temp_dir().join(format!("xtask-mutants-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
        write(
            "caught.txt",
            "a.rs:1:1: replace < with > in f\na.rs:2:1: delete ! in g\n",
        );
        write("missed.txt", "a.rs:3:1: replace f -> bool with true\n");
        write("timeout.txt", "a.rs:4:1: replace < with <= in h\n");
        // No unviable.txt: an outcome without its file counts none.
        let summary = Summary::read(&dir);
        let report = summary.report(90.0, &dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            OUTCOMES.map(|o| summary.count(o)),
            [2, 1, 0, 1],
            "caught, missed, unviable, timeout"
        );
        assert!(
            report
                .starts_with("4 mutants in 1 min 30 s: 2 caught, 1 missed, 0 unviable, 1 timeouts"),
            "{report}"
        );
        assert!(
            report.contains("missed:\n  a.rs:3:1: replace f -> bool with true\n"),
            "{report}"
        );
        assert!(
            report.contains("timed out:\n  a.rs:4:1: replace < with <= in h\n"),
            "{report}"
        );
    }

    #[test]
    fn an_unknown_scope_is_refused_and_names_the_scopes() {
        let Err(error) = scope("everything") else {
            panic!("an unknown scope was accepted");
        };
        assert!(
            error
                .0
                .contains("default, domain, generator, runtime or all"),
            "{}",
            error.0
        );
        let Ok(default) = scope("default") else {
            panic!("the default scope was refused");
        };
        assert!(default.files.contains(&"generator/src/lower/**"));
    }
}
