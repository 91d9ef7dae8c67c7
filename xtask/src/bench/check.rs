//! `cargo xtask bench --check [--update-baseline]`: the speed regression
//! gate. It counts the instructions of every case that carries a target and
//! compares each with `bench/baseline.toml`.
//!
//! Instructions, not seconds: valgrind counts them the same on a quiet
//! machine and on a loaded one, so a regression shows however busy CI is.
//! Each case is run twice by `logistics-bench count` under valgrind's
//! cachegrind (no cache simulation: only the count), with two iteration
//! counts; the difference divided by the difference in iterations is the
//! cost of one iteration, setup and warm-up cancelled out.
//!
//! What a run does apart from its iterations still moves its total by a few
//! million instructions (threads that spin while another holds a lock, work
//! on a timer, both depending on how long the run takes). The iteration
//! counts are chosen so that this stays within 1–2 % of each case's figure.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::{Result, fail};

/// A case more than this much over its baseline fails the gate.
pub const TOLERANCE: f64 = 1.15;

/// Where the baseline lives, under the workspace root.
pub const BASELINE: &str = "bench/baseline.toml";

/// One case of `logistics-bench count`, and the iterations of its two runs.
struct Case {
    name: &'static str,
    what: &'static str,
    runs: (u64, u64),
}

const CASES: [Case; 8] = [
    Case {
        name: "bulk-upsert-sqlite",
        what: "BulkUpsert of 1,000 new receiving orders × 10 lines, SQLite in process",
        runs: (1, 3),
    },
    Case {
        name: "bulk-upsert-postgres",
        what: "the same on PostgreSQL (the service's side only)",
        runs: (1, 3),
    },
    Case {
        name: "get-sales-order",
        what: "GET a sales order through the service's app, SQLite",
        // The setup's count moves by about 5 million instructions from run
        // to run (its random ids): 20,000 GETs make that 0.6 % of the
        // difference, where 2,000 made it 6 %.
        runs: (200, 20_200),
    },
    Case {
        name: "create-customer",
        what: "createCustomer through the service's app, SQLite",
        // As the GET's: the setup's few millions under 1 % of the difference.
        runs: (50, 3_050),
    },
    Case {
        name: "operations-layers",
        what: "GET through the operations layers to a handler that does nothing",
        runs: (1_000, 21_000),
    },
    Case {
        name: "no-layers",
        what: "the same handler without the layers",
        runs: (1_000, 21_000),
    },
    Case {
        name: "codegen-openapi",
        what: "codegen of spec/codegen.toml's documents (spec/openapi.yaml, spec/import.yaml)",
        runs: (1, 3),
    },
    Case {
        name: "codegen-buildomat",
        what: "codegen of codegen-tests/specs/external/buildomat.json",
        runs: (1, 3),
    },
];

/// The derived case: what the operations layers add to a request.
const LAYERS: &str = "layers";

/// Counts every case, compares with the baseline (or, with `update`,
/// writes the counts as the new baseline), and writes the table to
/// `target/bench/check.md`.
pub fn run(root: &Path, target: &Path, update: bool) -> Result<()> {
    let bench = target.join("release").join("logistics-bench");
    let logs = target.join("bench").join("check");
    std::fs::create_dir_all(&logs).map_err(|e| fail(format!("{}: {e}", logs.display())))?;
    let mut counts = BTreeMap::new();
    for case in &CASES {
        eprintln!("counting {} …", case.name);
        let count = per_iteration(root, &bench, &logs, case)?;
        counts.insert(case.name.to_owned(), count);
    }
    let layers = counts["operations-layers"].saturating_sub(counts["no-layers"]);
    counts.insert(LAYERS.to_owned(), layers);

    let baseline_path = root.join(BASELINE);
    if update {
        std::fs::write(&baseline_path, render_baseline(&counts))
            .map_err(|e| fail(format!("{}: {e}", baseline_path.display())))?;
        println!("wrote {BASELINE}; commit it on its own, saying why the counts moved");
        return Ok(());
    }
    let text = std::fs::read_to_string(&baseline_path).map_err(|e| {
        fail(format!(
            "{}: {e} (`cargo xtask bench --check --update-baseline` writes it)",
            baseline_path.display()
        ))
    })?;
    let baseline = parse_baseline(&text)?;
    let verdicts = compare(&counts, &baseline);
    let table = render_table(&verdicts);
    print!("{table}");
    let report = target.join("bench").join("check.md");
    std::fs::write(&report, &table).map_err(|e| fail(format!("{}: {e}", report.display())))?;
    let failures: Vec<String> = verdicts.iter().filter_map(Verdict::failure).collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(fail(format!(
            "{} case(s) over their baseline by more than {:.0} %:\n  {}",
            failures.len(),
            (TOLERANCE - 1.0) * 100.0,
            failures.join("\n  ")
        )))
    }
}

/// The instructions of one iteration of `case`.
fn per_iteration(root: &Path, bench: &Path, logs: &Path, case: &Case) -> Result<u64> {
    let (few, many) = case.runs;
    let low = total_instructions(root, bench, logs, case.name, few)?;
    let high = total_instructions(root, bench, logs, case.name, many)?;
    if high <= low {
        return Err(fail(format!(
            "{}: {many} iterations counted {high} instructions, {few} counted {low}: \
             the case does no work per iteration",
            case.name
        )));
    }
    Ok((high - low) / (many - few))
}

/// The instructions of a whole `logistics-bench count` run.
fn total_instructions(
    root: &Path,
    bench: &Path,
    logs: &Path,
    case: &str,
    iterations: u64,
) -> Result<u64> {
    let log = logs.join(format!("{case}-{iterations}.valgrind"));
    let output = Command::new("valgrind")
        .arg("--tool=cachegrind")
        .arg("--cache-sim=no")
        .arg("--cachegrind-out-file=/dev/null")
        .arg(format!("--log-file={}", log.display()))
        .arg(bench)
        .args(["count", case, "--iterations", &iterations.to_string()])
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .output()
        .map_err(|e| {
            fail(format!(
                "cannot run valgrind ({e}); install it (Debian: apt-get install valgrind)"
            ))
        })?;
    if !output.status.success() {
        return Err(fail(format!(
            "{case} ({iterations} iterations) failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    let text =
        std::fs::read_to_string(&log).map_err(|e| fail(format!("{}: {e}", log.display())))?;
    instruction_total(&text).ok_or_else(|| fail(format!("{}: no `I refs:` line", log.display())))
}

/// The `I refs:` total of a cachegrind log.
fn instruction_total(log: &str) -> Option<u64> {
    log.lines().find_map(|line| {
        let (label, count) = line.split_once("refs:")?;
        if !label.trim_end().ends_with(" I") {
            return None;
        }
        count.trim().replace(',', "").parse().ok()
    })
}

/// A case's count beside its baseline.
struct Verdict {
    case: String,
    count: u64,
    baseline: Option<u64>,
}

impl Verdict {
    fn ratio(&self) -> Option<f64> {
        self.baseline
            .filter(|&b| b > 0)
            .map(|b| self.count as f64 / b as f64)
    }

    /// Why this case fails the gate, if it does.
    fn failure(&self) -> Option<String> {
        match (self.baseline, self.ratio()) {
            (None, _) => Some(format!(
                "{}: {} instructions, and no baseline in {BASELINE}",
                self.case,
                thousands(self.count)
            )),
            (Some(baseline), Some(ratio)) if ratio > TOLERANCE => Some(format!(
                "{}: {} instructions per iteration against a baseline of {}: {ratio:.2}×",
                self.case,
                thousands(self.count),
                thousands(baseline)
            )),
            _ => None,
        }
    }
}

fn compare(counts: &BTreeMap<String, u64>, baseline: &BTreeMap<String, u64>) -> Vec<Verdict> {
    counts
        .iter()
        .map(|(case, &count)| Verdict {
            case: case.clone(),
            count,
            baseline: baseline.get(case).copied(),
        })
        .collect()
}

/// The baseline file: a comment, then `case = instructions` per line.
fn render_baseline(counts: &BTreeMap<String, u64>) -> String {
    let mut text = String::from(
        "# Instructions per iteration of each case of `cargo xtask bench --check`\n\
         # (xtask/src/bench/check.rs says what each case is). The gate fails a case\n\
         # more than 15 % over its line. Written by `--update-baseline`; a change\n\
         # to it is a commit of its own that says why the counts moved.\n",
    );
    for (case, count) in counts {
        let _ = writeln!(text, "{case} = {count}");
    }
    text
}

fn parse_baseline(text: &str) -> Result<BTreeMap<String, u64>> {
    let mut baseline = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = line
            .split_once('=')
            .and_then(|(case, count)| Some((case.trim(), count.trim().parse::<u64>().ok()?)));
        let Some((case, count)) = parsed else {
            return Err(fail(format!(
                "{BASELINE}:{}: expected `case = instructions`, found `{line}`",
                number + 1
            )));
        };
        baseline.insert(case.to_owned(), count);
    }
    Ok(baseline)
}

fn render_table(verdicts: &[Verdict]) -> String {
    let mut text = String::from(
        "| case | what | instructions per iteration | baseline | ratio |\n|---|---|---:|---:|---:|\n",
    );
    for verdict in verdicts {
        let what = CASES.iter().find(|case| case.name == verdict.case).map_or(
            "what the operations layers cost a request (operations-layers less no-layers; target ≤ 8,000)",
            |case| case.what,
        );
        let _ = writeln!(
            text,
            "| {} | {what} | {} | {} | {} |",
            verdict.case,
            thousands(verdict.count),
            verdict
                .baseline
                .map_or_else(|| "none".to_owned(), thousands),
            verdict
                .ratio()
                .map_or_else(|| "–".to_owned(), |r| format!("{r:.3}×")),
        );
    }
    text
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_read_from_a_cachegrind_log() {
        let log = "==123== Cachegrind, a cache and branch-prediction profiler\n\
                   ==123== \n==123== I   refs:      1,234,567,890\n";
        assert_eq!(instruction_total(log), Some(1_234_567_890));
        assert_eq!(instruction_total("==1== no summary"), None);
    }

    #[test]
    fn a_case_over_its_baseline_by_more_than_the_tolerance_fails_with_both_counts() {
        let counts = BTreeMap::from([
            ("slower".to_owned(), 1_160),
            ("within".to_owned(), 1_150),
            ("faster".to_owned(), 10),
            ("new".to_owned(), 5),
        ]);
        let baseline = BTreeMap::from([
            ("slower".to_owned(), 1_000),
            ("within".to_owned(), 1_000),
            ("faster".to_owned(), 1_000),
        ]);
        let failures: Vec<String> = compare(&counts, &baseline)
            .iter()
            .filter_map(Verdict::failure)
            .collect();
        assert_eq!(
            failures,
            [
                "new: 5 instructions, and no baseline in bench/baseline.toml",
                "slower: 1,160 instructions per iteration against a baseline of 1,000: 1.16×",
            ]
        );
    }

    #[test]
    fn the_baseline_reads_back_what_it_wrote() {
        let counts = BTreeMap::from([("a".to_owned(), 12), ("b-c".to_owned(), 3_456_789)]);
        assert_eq!(parse_baseline(&render_baseline(&counts)).unwrap(), counts);
        let broken = parse_baseline("a = twelve").unwrap_err();
        assert!(broken.0.contains("bench/baseline.toml:1"), "{}", broken.0);
    }
}
