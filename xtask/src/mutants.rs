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
//!
//! Each package runs in two passes, because the tests that catch most
//! mutants are the cheap ones: first its quick tests ([`quick_judges`])
//! judge every mutant, then every test target judges again only those the
//! quick tests missed. A mutant is missed only when every test passes, so the
//! verdict is the one of judging every mutant by every target, for the cost
//! of linking the end-to-end suite for the few survivors only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::test::{cargo_command, run_command};
use crate::{Result, fail};

/// The cargo-mutants version this task installs and runs.
pub const VERSION: &str = "27.1.0";

/// What a scope mutates: packages and file globs (relative to the
/// workspace), and the packages whose tests judge again what the mutated
/// package's quick tests missed (none: the mutated package's own).
struct Scope {
    packages: Vec<&'static str>,
    files: Vec<&'static str>,
    test_packages: Vec<&'static str>,
    /// The judges of the second pass: [`ALL_JUDGES`], or the test targets
    /// of `test_packages` that judge behaviour.
    recheck_judges: &'static [&'static str],
}

fn scope(name: &str) -> Result<Scope> {
    let domain = ["service/src/domain/**"];
    let service = [
        "service/src/auth.rs",
        "service/src/rate_limit.rs",
        "service/src/rate_limit/**",
    ];
    let lower = ["generator/src/lower/**"];
    // The runtime's own unit tests judge first; what they miss, the
    // generated crates' tests (codegen-tests), which drive the runtime as
    // its users do, judge again. Not `evolution` and `server_spec_change`:
    // they check that code written against the generated crates still
    // builds after the document changes, each with a cargo build of its
    // own (minutes a mutant), and judge no behaviour of the runtime.
    let runtime = ["runtime/src/**"];
    const RUNTIME_USERS: &[&str] = &[
        "--cargo-test-arg=--test=client",
        "--cargo-test-arg=--test=server_stubs",
        "--cargo-test-arg=--test=validation",
        "--cargo-test-arg=--test=dynamic_query",
        "--cargo-test-arg=--test=spec_examples",
        "--cargo-test-arg=--test=mock_agrees",
    ];
    let scope = match name {
        "default" => Scope {
            packages: vec!["logistics-service", "openapi-codegen"],
            files: [&domain[..], &service, &lower].concat(),
            test_packages: vec![],
            recheck_judges: &[ALL_JUDGES],
        },
        "domain" => Scope {
            packages: vec!["logistics-service"],
            files: domain.to_vec(),
            test_packages: vec![],
            recheck_judges: &[ALL_JUDGES],
        },
        "generator" => Scope {
            packages: vec!["openapi-codegen"],
            files: vec!["generator/src/**"],
            test_packages: vec![],
            recheck_judges: &[ALL_JUDGES],
        },
        "runtime" => Scope {
            packages: vec!["openapi-runtime"],
            files: runtime.to_vec(),
            test_packages: vec!["codegen-tests"],
            recheck_judges: RUNTIME_USERS,
        },
        // Not the runtime: its mutants need other packages' tests.
        "all" => Scope {
            packages: vec!["logistics-service", "openapi-codegen"],
            files: vec!["service/src/**", "generator/src/**"],
            test_packages: vec![],
            recheck_judges: &[ALL_JUDGES],
        },
        other => {
            return Err(fail(format!(
                "unknown scope `{other}`: use default, domain, generator, runtime or all"
            )));
        }
    };
    Ok(scope)
}

/// The folder of each package a scope mutates, relative to the workspace:
/// a `--file` glob mutates the package whose folder it is in.
fn folder(package: &str) -> &'static str {
    match package {
        "logistics-service" => "service/",
        "openapi-codegen" => "generator/",
        _ => "runtime/",
    }
}

/// The tests that judge a package's mutants first: those that catch most
/// mutants in seconds, without linking the slow suites. None where the
/// package has no such tests.
fn quick_judges(package: &str) -> Option<&'static [&'static str]> {
    match package {
        // The binary and the end-to-end suite are not linked per mutant.
        "logistics-service" => Some(&["--cargo-arg=--lib"]),
        // The runtime's own unit tests are in its library, many behind its
        // `server` and `client` features: all of them are built.
        "openapi-runtime" => Some(&["--cargo-arg=--lib", "--cargo-arg=--all-features"]),
        // `lower/` is judged mostly by the golden files and the errors,
        // `diff/` by the classifier's tests on small documents,
        // `parse/bundle.rs` by the documents split into files.
        "openapi-codegen" => Some(&[
            "--cargo-arg=--lib",
            "--cargo-arg=--test=golden",
            "--cargo-arg=--test=errors",
            "--cargo-arg=--test=diff",
            "--cargo-arg=--test=multi_file",
        ]),
        _ => None,
    }
}

/// Every test target: the judges of a mutant the quick ones missed. Not
/// the doctests: they are slow (each is a binary of its own) and assert
/// nothing the unit and end-to-end tests do not.
const ALL_JUDGES: &str = "--cargo-test-arg=--all-targets";

/// Runs `cargo xtask mutants ARGS` from the workspace `root`.
pub fn run(root: &Path, args: &[&str]) -> Result<()> {
    let (own, passed) = match args.iter().position(|a| *a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut scope_name = "default";
    let mut files = Vec::new();
    let mut quick_only = false;
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
            "--unit" => quick_only = true,
            other => return Err(fail(format!("unknown argument to mutants: {other}"))),
        }
    }
    let scope = scope(scope_name)?;
    let files = if files.is_empty() { scope.files } else { files };

    let binary = install(root)?;
    let started = Instant::now();
    let mut total = Summary::default();
    let mut logs = Vec::new();
    for package in &scope.packages {
        let own_files: Vec<&str> = files
            .iter()
            .copied()
            .filter(|f| f.starts_with(folder(package)))
            .collect();
        if own_files.is_empty() {
            continue;
        }
        let run = Run {
            binary: &binary,
            root,
            package,
            files: &own_files,
            test_packages: &[],
        };
        let output = root.join("target/mutants").join(package);
        let Some(quick) = quick_judges(package) else {
            total.absorb(run.pass(&output, &[ALL_JUDGES], passed)?);
            logs.push(output);
            continue;
        };
        let first = run.pass(&output, quick, passed)?;
        logs.push(output);
        if quick_only || first.count("missed") == 0 {
            total.absorb(first);
            continue;
        }
        // What the quick judges missed, judged again by every test target:
        // only those mutants, named exactly, whatever the first pass chose.
        let mut again = scope.recheck_judges.to_vec();
        again.extend(without_filters(passed));
        let exact: Vec<String> = first.outcomes["missed"]
            .iter()
            .map(|name| format!("--re=^{}$", regex_escape(name)))
            .collect();
        again.extend(exact.iter().map(String::as_str));
        let output = root
            .join("target/mutants")
            .join(format!("{package}-recheck"));
        println!(
            "==> {} mutants the quick tests missed, judged again by every test target",
            first.count("missed")
        );
        let recheck = Run {
            test_packages: &scope.test_packages,
            ..run
        }
        .pass(&output, &[], &again)?;
        logs.push(output);
        total.absorb(first.rechecked(recheck));
    }
    if logs.is_empty() {
        return Err(fail(format!(
            "no file of {} matches the --file globs {}",
            scope.packages.join(", "),
            files.join(", ")
        )));
    }
    println!("\n{}", total.report(started.elapsed().as_secs_f64(), &logs));
    if total.count("missed") > 0 {
        return Err(fail(format!(
            "{} mutants were missed: add a test that fails for each, or exclude it \
             with its reason in .cargo/mutants.toml",
            total.count("missed")
        )));
    }
    Ok(())
}

/// One package's mutants, run by cargo-mutants.
struct Run<'a> {
    binary: &'a Path,
    root: &'a Path,
    package: &'a str,
    files: &'a [&'a str],
    test_packages: &'a [&'static str],
}

impl Run<'_> {
    /// Runs cargo-mutants once, writing to `output/mutants.out`, with the
    /// `judges` and then the arguments `passed` on; its outcomes.
    fn pass(&self, output: &Path, judges: &[&str], passed: &[&str]) -> Result<Summary> {
        // cargo-mutants makes `mutants.out` but not the folders above it.
        std::fs::create_dir_all(output).map_err(|e| fail(format!("{}: {e}", output.display())))?;
        let mut command = Command::new(self.binary);
        command.current_dir(self.root).env("CI", "true");
        // One job builds in a target directory kept between runs, so that a
        // run starts warm. Parallel jobs each build in their own copy of the
        // tree and must not share it: one job's mutant would overwrite the
        // test binary another is about to run, and its verdict would be the
        // other mutant's.
        if jobs(passed, std::env::var("CARGO_MUTANTS_JOBS").ok()) <= 1 {
            command.env("CARGO_TARGET_DIR", self.root.join("target/mutants-target"));
        }
        command
            .args(["mutants", "--no-shuffle", "--output"])
            .arg(output)
            .args(["--package", self.package]);
        for file in self.files {
            command.args(["--file", file]);
        }
        for package in self.test_packages {
            command.args(["--test-package", package]);
        }
        command.args(judges).args(passed);
        println!(
            "==> cargo-mutants {VERSION} on {} ({}), judged by {}",
            self.package,
            self.files.join(", "),
            judges
                .iter()
                .chain(passed.iter().filter(|a| a.starts_with("--cargo")))
                .map(|a| a.split_once('=').map_or(*a, |(_, v)| v))
                .collect::<Vec<_>>()
                .join(" ")
        );
        // cargo-mutants exits non-zero when a mutant is missed or times out;
        // the summary says which, so its status only matters when it wrote
        // no results at all.
        let started = std::time::SystemTime::now();
        let status = command
            .status()
            .map_err(|e| fail(format!("could not run {}: {e}", self.binary.display())))?;
        let results = output.join("mutants.out");
        // A run that stops before testing (a bad `--in-diff`) leaves the
        // last run's outcomes in place: those are not this run's.
        let written = std::fs::metadata(results.join("outcomes.json"))
            .and_then(|meta| meta.modified())
            .is_ok_and(|modified| modified >= started);
        if !written {
            return Err(fail(format!(
                "cargo-mutants exited with {status} and wrote no outcomes (its message is above)"
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
        if !status.success() && summary.count("missed") + summary.count("timeout") == 0 {
            return Err(fail(format!("cargo-mutants exited with {status}")));
        }
        Ok(summary)
    }
}

/// How many jobs cargo-mutants runs at once: `-j N`, `--jobs N` (or
/// `=N`) among the arguments passed on, else `from_env`
/// (`CARGO_MUTANTS_JOBS`), else 1.
fn jobs(passed: &[&str], from_env: Option<String>) -> usize {
    let mut jobs = from_env;
    let mut rest = passed.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "-j" | "--jobs" => jobs = rest.next().map(|n| n.to_string()),
            a => {
                if let Some(n) = a.strip_prefix("--jobs=").or_else(|| a.strip_prefix("-j")) {
                    jobs = Some(n.to_string());
                }
            }
        }
    }
    jobs.and_then(|n| n.parse().ok()).unwrap_or(1)
}

/// The arguments for cargo-mutants less those that choose mutants (`--re`,
/// `-F`, `--iterate`, `--shard`): the re-check names its mutants itself;
/// filters are alternatives to each other, so the user's would widen it, and
/// a shard of the named mutants would leave some unjudged.
fn without_filters<'a>(passed: &[&'a str]) -> Vec<&'a str> {
    let mut kept = Vec::new();
    let mut rest = passed.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--re" | "-F" | "--shard" => {
                rest.next();
            }
            "--iterate" => {}
            a if a.starts_with("--re=") || a.starts_with("-F") || a.starts_with("--shard=") => {}
            a => kept.push(a),
        }
    }
    kept
}

/// `text` as a regular expression that matches only itself: the
/// characters the `regex` crate gives a meaning escaped, as its `escape`
/// does.
fn regex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
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
#[derive(Default)]
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

    fn names(&self, outcome: &str) -> &[String] {
        self.outcomes.get(outcome).map_or(&[], Vec::as_slice)
    }

    fn count(&self, outcome: &str) -> usize {
        self.names(outcome).len()
    }

    /// Adds another run's outcomes (another package's) to these.
    fn absorb(&mut self, other: Summary) {
        for (outcome, names) in other.outcomes {
            self.outcomes.entry(outcome).or_default().extend(names);
        }
    }

    /// These outcomes, where a mutant the `recheck` judged again has the
    /// outcome it gave there instead.
    fn rechecked(mut self, recheck: Summary) -> Summary {
        let judged_again: Vec<&String> = recheck.outcomes.values().flatten().collect();
        for names in self.outcomes.values_mut() {
            names.retain(|name| !judged_again.contains(&name));
        }
        self.absorb(recheck);
        self
    }

    fn report(&self, elapsed: f64, logs: &[PathBuf]) -> String {
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
                for line in self.names(outcome) {
                    text.push_str(&format!("  {line}\n"));
                }
            }
        }
        text.push_str("\nlogs and diffs:");
        for log in logs {
            text.push_str(&format!(" {}", log.join("mutants.out").display()));
        }
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
        let report = summary.report(90.0, std::slice::from_ref(&dir));
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
    fn parallel_jobs_are_read_in_each_spelling() {
        assert_eq!(jobs(&[], None), 1);
        assert_eq!(jobs(&["--iterate"], None), 1);
        assert_eq!(jobs(&["-j", "2"], None), 2);
        assert_eq!(jobs(&["-j3"], None), 3);
        assert_eq!(jobs(&["--jobs", "4", "--iterate"], None), 4);
        assert_eq!(jobs(&["--jobs=5"], None), 5);
        // The environment's count unless an argument says otherwise.
        assert_eq!(jobs(&[], Some("2".to_owned())), 2);
        assert_eq!(jobs(&["-j", "1"], Some("2".to_owned())), 1);
    }

    fn summary(outcomes: &[(&'static str, &[&str])]) -> Summary {
        Summary {
            outcomes: outcomes
                .iter()
                .map(|(o, names)| (*o, names.iter().map(|n| n.to_string()).collect()))
                .collect(),
        }
    }

    #[test]
    fn a_rechecked_mutant_takes_the_outcome_of_the_recheck() {
        let first = summary(&[
            ("caught", &["a.rs:1:1: delete ! in f"]),
            (
                "missed",
                &["a.rs:2:1: replace g with ()", "a.rs:3:1: replace h with ()"],
            ),
            (
                "unviable",
                &["a.rs:4:1: replace k -> T with Default::default()"],
            ),
        ]);
        // The end-to-end suite catches one of the two the unit tests missed.
        let recheck = summary(&[
            ("caught", &["a.rs:2:1: replace g with ()"]),
            ("missed", &["a.rs:3:1: replace h with ()"]),
        ]);
        let mut total = first.rechecked(recheck);
        assert_eq!(OUTCOMES.map(|o| total.count(o)), [2, 1, 1, 0]);
        assert_eq!(total.names("missed"), ["a.rs:3:1: replace h with ()"]);
        total.absorb(summary(&[(
            "timeout",
            &["b.rs:1:1: replace < with <= in m"],
        )]));
        assert_eq!(OUTCOMES.map(|o| total.count(o)), [2, 1, 1, 1]);
    }

    #[test]
    fn the_recheck_names_each_mutant_exactly_and_drops_the_users_filters() {
        let name =
            "service/src/auth.rs:12:5: replace <impl Cache<K, V>>::get -> Option<V> with None";
        assert_eq!(
            regex_escape(name),
            "service/src/auth\\.rs:12:5: replace <impl Cache<K, V>>::get \\-> Option<V> with None"
        );
        assert_eq!(
            regex_escape("a.b(c)|d*+?[e]{f}^$#&~\\"),
            "a\\.b\\(c\\)\\|d\\*\\+\\?\\[e\\]\\{f\\}\\^\\$\\#\\&\\~\\\\"
        );
        assert_eq!(
            without_filters(&[
                "--re",
                "f",
                "-Fg",
                "--iterate",
                "--re=h",
                "--shard",
                "1/4",
                "--jobs",
                "1",
                "--shard=2/4",
                "-E",
                "x"
            ]),
            ["--jobs", "1", "-E", "x"]
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
