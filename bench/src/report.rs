//! The Markdown report.

use std::fmt::Write as _;
use std::time::Duration;

use crate::codegen::Timing;
use crate::layer::Comparison;
use crate::load::{Load, Stats};
use crate::operations_layers::{self, LayerRuns, Turn};
use crate::service::{Backend, Results, median};

/// Everything measured in one run.
pub struct Report {
    /// How the run was started, as the report names it.
    command: String,
    connections: usize,
    /// Codegen timings.
    pub codegen: Option<Vec<Timing>>,
    /// The layer comparison's load and rounds.
    pub layer_load: Option<(Load, usize)>,
    /// The layer comparison.
    pub layer: Option<Vec<Comparison>>,
    /// The service cases' load.
    pub service_load: Option<Load>,
    /// The service's pool size, when set.
    pub max_connections: Option<u32>,
    /// The service, per backend.
    pub service: Vec<Results>,
    /// How the operations layers comparison ran.
    pub layers_options: Option<operations_layers::Options>,
    /// The operations layers comparison, per backend.
    pub operations_layers: Vec<(Backend, Vec<LayerRuns>)>,
    /// What could not run.
    pub skipped: Vec<String>,
    /// How long the whole run took.
    pub wall: Duration,
    /// `/proc/loadavg` when the run started.
    load_before: String,
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn median_f64(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**missed**" }
}

impl Report {
    /// An empty report.
    pub fn new(command: &str, connections: usize) -> Self {
        Report {
            command: command.to_owned(),
            connections,
            codegen: None,
            layer_load: None,
            layer: None,
            service_load: None,
            max_connections: None,
            service: Vec::new(),
            layers_options: None,
            operations_layers: Vec::new(),
            skipped: Vec::new(),
            wall: Duration::ZERO,
            load_before: load_average(),
        }
    }

    /// The report as Markdown.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "# Benchmark report\n")?;
        writeln!(
            out,
            "- run: `{}`, {} s of measuring and seeding",
            self.command,
            self.wall.as_secs()
        )?;
        writeln!(out, "- machine: {}", machine())?;
        writeln!(
            out,
            "- load average (1, 5, 15 min) before the run: {}; after: {} (anything above the run's own load is another workload sharing the cores)",
            self.load_before,
            load_average()
        )?;
        writeln!(
            out,
            "- load: {} keep-alive HTTP/1.1 connections over loopback from one driver thread; driver and server share the machine\n",
            self.connections
        )?;

        if let Some(codegen) = &self.codegen {
            writeln!(
                out,
                "## Codegen (in process, release build, files written to a temp dir)\n"
            )?;
            writeln!(out, "| document | files | median | min | max | runs |")?;
            writeln!(out, "|---|---:|---:|---:|---:|---:|")?;
            for timing in codegen {
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} |",
                    timing.name,
                    timing.files,
                    ms(timing.median()),
                    ms(timing.runs[0]),
                    ms(timing.runs[timing.runs.len() - 1]),
                    timing.runs.len()
                )?;
            }
            writeln!(out)?;
        }

        if let (Some(layer), Some((load, rounds))) = (&self.layer, &self.layer_load) {
            writeln!(
                out,
                "## The generated layer against hand-written axum (in-memory data, {rounds} alternating round(s) of {} s each)\n",
                load.duration.as_secs_f64()
            )?;
            writeln!(
                out,
                "| request | router | req/s | throughput ratio (generated / this; target ≥ 0.95) | p50 | p99 |"
            )?;
            writeln!(out, "|---|---|---:|---:|---:|---:|")?;
            for comparison in layer {
                let throughput =
                    |runs: &[Stats]| median_f64(runs.iter().map(Stats::throughput).collect());
                let pct = |runs: &[Stats], p: f64| {
                    median_f64(runs.iter().map(|s| s.percentile_ms(p)).collect())
                };
                let generated = throughput(&comparison.generated);
                for (router, runs) in [
                    (
                        "generated (`logistics-server-stubs`)",
                        &comparison.generated,
                    ),
                    ("hand-written axum", &comparison.baseline),
                    (
                        "hand-written axum + `X-Request-Id`",
                        &comparison.baseline_ids,
                    ),
                ] {
                    let this = throughput(runs);
                    let ratio = if std::ptr::eq(runs, &comparison.generated) {
                        String::new()
                    } else {
                        let ratio = generated / this.max(1e-9);
                        format!("{ratio:.3} ({})", verdict(ratio >= 0.95))
                    };
                    writeln!(
                        out,
                        "| {} | {router} | {this:.0} | {ratio} | {:.2} ms | {:.2} ms |",
                        comparison.name,
                        pct(runs, 50.0),
                        pct(runs, 99.0),
                    )?;
                }
            }
            writeln!(out)?;
        }

        if let Some(load) = &self.service_load {
            if !self.service.is_empty() {
                self.write_service(out, load)?;
            }
            for skipped in &self.skipped {
                writeln!(out, "{skipped}\n")?;
            }
            self.write_layers(out)?;

            if !self.service.is_empty() {
                writeln!(out, "## How cost grows\n")?;
                writeln!(
                    out,
                    "Bulk upsert of new orders × 10 lines, one request at a time (median):\n"
                )?;
                let sizes: Vec<usize> = self.service[0].batch_growth.keys().copied().collect();
                write!(out, "| backend |")?;
                for size in &sizes {
                    write!(out, " {size} orders |")?;
                }
                writeln!(out, " per order, smallest → largest batch |")?;
                writeln!(out, "|---|{}---:|", "---:|".repeat(sizes.len()))?;
                for results in &self.service {
                    write!(out, "| {} |", results.backend.name())?;
                    let mut per_order = Vec::new();
                    for size in &sizes {
                        let m = results
                            .batch_growth
                            .get(size)
                            .map(|r| median(r))
                            .unwrap_or_default();
                        per_order.push(m.as_secs_f64() * 1000.0 / *size as f64);
                        write!(out, " {} |", ms(m))?;
                    }
                    writeln!(
                        out,
                        " {} |",
                        per_order
                            .iter()
                            .map(|v| format!("{v:.3} ms"))
                            .collect::<Vec<_>>()
                            .join(" → ")
                    )?;
                }
                writeln!(
                    out,
                    "\nlistReturns filtered on `salesOrderReferenceNumber` (indexed; 100 matches, a page of 100), one connection, by returns in the tenant (p50 / p99):\n"
                )?;
                let sizes: Vec<usize> = self.service[0].list_growth.keys().copied().collect();
                write!(out, "| backend |")?;
                for size in &sizes {
                    write!(out, " {size} returns |")?;
                }
                writeln!(out)?;
                writeln!(out, "|---|{}", "---:|".repeat(sizes.len()))?;
                for results in &self.service {
                    write!(out, "| {} |", results.backend.name())?;
                    for size in &sizes {
                        match results.list_growth.get(size) {
                            Some(stats) => write!(
                                out,
                                " {:.2} / {:.2} ms |",
                                stats.percentile_ms(50.0),
                                stats.percentile_ms(99.0)
                            )?,
                            None => write!(out, " |")?,
                        }
                    }
                    writeln!(out)?;
                }
                writeln!(out)?;
                for results in &self.service {
                    writeln!(
                        out,
                        "Seeding {} (library, not timed above): {:.1} s.",
                        results.backend.name(),
                        results.seed_seconds
                    )?;
                }
                writeln!(out)?;
            }
        }
        Ok(())
    }
}

impl Report {
    /// The service's cases, per backend.
    fn write_service(&self, out: &mut String, load: &Load) -> std::fmt::Result {
        writeln!(
            out,
            "## The service end to end (release binary as a child process, {} s per case{})\n",
            load.duration.as_secs_f64(),
            match self.max_connections {
                Some(n) => format!(", `--max-connections {n}`"),
                None => ", default pool".to_owned(),
            }
        )?;
        writeln!(
            out,
            "| backend | case | req/s | p50 | p99 | errors | target |"
        )?;
        writeln!(out, "|---|---|---:|---:|---:|---:|---|")?;
        for results in &self.service {
            let backend = results.backend.name();
            for (name, stats) in &results.cases {
                let target = if name == "GET sales order" && results.backend == Backend::Sqlite {
                    format!(
                        "≥ 15,000 req/s: {}",
                        verdict(stats.throughput() >= 15_000.0)
                    )
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "| {backend} | {name} | {:.0} | {:.2} ms | {:.2} ms | {} | {target} |",
                    stats.throughput(),
                    stats.percentile_ms(50.0),
                    stats.percentile_ms(99.0),
                    stats.errors
                )?;
            }
            let bulk = median(&results.bulk);
            let limit = match results.backend {
                Backend::Sqlite => 250.0,
                Backend::Postgres => 500.0,
            };
            writeln!(
                out,
                "| {backend} | bulk upsert 1,000 orders × 10 lines, one at a time ({} runs) | {:.1} orders/s | {} (median) | {} (max) | 0 | < {limit:.0} ms: {} |",
                results.bulk.len(),
                1000.0 / bulk.as_secs_f64().max(1e-9),
                ms(bulk),
                ms(results.bulk.last().copied().unwrap_or_default()),
                verdict(bulk.as_secs_f64() * 1000.0 < limit)
            )?;
            let rss = results.peak_rss_kib as f64 / 1024.0;
            writeln!(
                out,
                "| {backend} | server peak RSS (VmHWM) over the whole run | | {rss:.1} MiB | | | < 100 MiB: {} |",
                verdict(rss < 100.0)
            )?;
        }
        writeln!(out)
    }

    /// GET sales order with the operations layers on and off, per backend:
    /// the server's CPU time (or, under callgrind, instructions) per request
    /// and the throughput, with the layers' cost from the bench server's pair.
    fn write_layers(&self, out: &mut String) -> std::fmt::Result {
        let Some(options) = &self.layers_options else {
            return Ok(());
        };
        if self.operations_layers.is_empty() {
            return Ok(());
        }
        let callgrind = options.callgrind.is_some();
        let loads: Vec<f64> = self
            .operations_layers
            .iter()
            .flat_map(|(_, runs)| runs.iter().flat_map(|r| &r.turns))
            .map(|turn| turn.load_average)
            .collect();
        let (low, high) = loads
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &l| {
                (lo.min(l), hi.max(l))
            });
        writeln!(
            out,
            "## GET sales order with the operations layers on and off\n\n{} rotating round(s); in each, every server is sent {} requests by {} connections{}; default pool, all four servers on the same seeded database; 1-minute load average at the turns: {low:.2} to {high:.2}.\n",
            options.rounds,
            options.requests,
            options.connections,
            if callgrind {
                ", under valgrind's callgrind, its instructions counted over them (user space only: the kernel's work is not in the count)"
            } else {
                ", its CPU time (user + system, all threads, `/proc/<pid>/stat`) read before and after"
            },
        )?;
        let unit = if callgrind {
            "instructions per request"
        } else {
            "server CPU per request"
        };
        writeln!(
            out,
            "| backend | server | layers | {unit} (median) | each round | ratio to layers off | driver CPU per request (median) | PostgreSQL CPU per request (median) | req/s (median) | each round | p50 | p99 | errors |"
        )?;
        writeln!(
            out,
            "|---|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"
        )?;
        let metric = |turn: &Turn| {
            if callgrind {
                turn.instructions_per_request().unwrap_or(f64::NAN)
            } else {
                turn.cpu_micros_per_request()
            }
        };
        let shown = |value: f64| {
            if callgrind {
                format!("{value:.0}")
            } else {
                format!("{value:.1} µs")
            }
        };
        for (backend, runs) in &self.operations_layers {
            let median_of = |variant: &LayerRuns, f: &dyn Fn(&Turn) -> f64| {
                median_f64(variant.turns.iter().map(f).collect())
            };
            let off = runs
                .iter()
                .find(|r| r.bench_server && !r.layers)
                .map_or(f64::NAN, |r| median_of(r, &metric));
            for variant in runs {
                let this = median_of(variant, &metric);
                let each = |f: &dyn Fn(&Turn) -> String| {
                    variant.turns.iter().map(f).collect::<Vec<_>>().join(" / ")
                };
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {:.3} | {:.1} µs | {:.1} µs | {:.0} | {} | {:.2} ms | {:.2} ms | {} |",
                    backend.name(),
                    variant.server,
                    match (variant.limit, variant.layers) {
                        (true, _) => "—",
                        (false, true) => "on",
                        (false, false) => "off",
                    },
                    shown(this),
                    each(&|t| shown(metric(t))),
                    this / off,
                    median_of(variant, &|t| t.driver_micros_per_request()),
                    median_of(variant, &|t| t.database_micros_per_request()),
                    median_of(variant, &|t| t.stats.throughput()),
                    each(&|t| format!("{:.0}", t.stats.throughput())),
                    median_of(variant, &|t| t.stats.percentile_ms(50.0)),
                    median_of(variant, &|t| t.stats.percentile_ms(99.0)),
                    variant.turns.iter().map(|t| t.stats.errors).sum::<u64>(),
                )?;
            }
        }
        writeln!(out)?;
        for (backend, runs) in &self.operations_layers {
            let pair = |layers: bool| runs.iter().find(|r| r.bench_server && r.layers == layers);
            let (Some(on), Some(off)) = (pair(true), pair(false)) else {
                continue;
            };
            let cost = LayersCost::of(on, off, &metric);
            writeln!(
                out,
                "{}: the operations layers cost **{}** {} (median of the rounds' differences, bench server on − off; {} to {} over the rounds), **{:.1} %** of the request with them on; server throughput with them on / off: {:.3} (wall clock, moved by the machine's other load).\n",
                backend.name(),
                shown(cost.difference),
                if callgrind {
                    "instructions per request"
                } else {
                    "of server CPU per request"
                },
                shown(cost.lowest),
                shown(cost.highest),
                cost.share * 100.0,
                cost.throughput_ratio,
            )?;
        }
        for (backend, runs) in &self.operations_layers {
            let binary = runs.iter().find(|r| !r.bench_server && !r.limit);
            let limit = runs.iter().find(|r| r.limit);
            let (Some(binary), Some(limit)) = (binary, limit) else {
                continue;
            };
            let mut ratios: Vec<f64> = binary
                .turns
                .iter()
                .zip(&limit.turns)
                .map(|(service, limit)| service.stats.throughput() / limit.stats.throughput())
                .collect();
            let each = ratios
                .iter()
                .map(|r| format!("{r:.3}"))
                .collect::<Vec<_>>()
                .join(" / ");
            ratios.sort_by(f64::total_cmp);
            writeln!(
                out,
                "{}: the service against the machine's limit: **{:.3}×** the throughput of hand-written axum serving the same answers from memory (median of the rounds' ratios, `logistics-service serve` over hand-written axum, the two turns of a round back to back; each round: {each}).\n",
                backend.name(),
                median_f64(ratios),
            )?;
        }
        Ok(())
    }
}

/// What the layers cost, from the bench server's on and off turns paired by
/// round (each round's two turns ran back to back, so drift of the machine
/// between rounds cancels out of their difference).
struct LayersCost {
    /// The median of the rounds' differences (on − off).
    difference: f64,
    /// The smallest and largest difference.
    lowest: f64,
    highest: f64,
    /// The median difference over the median with the layers on.
    share: f64,
    /// The median throughput with the layers on over the median with them off.
    throughput_ratio: f64,
}

impl LayersCost {
    fn of(on: &LayerRuns, off: &LayerRuns, metric: &dyn Fn(&Turn) -> f64) -> LayersCost {
        let mut differences: Vec<f64> = on
            .turns
            .iter()
            .zip(&off.turns)
            .map(|(on, off)| metric(on) - metric(off))
            .collect();
        differences.sort_by(f64::total_cmp);
        let median_metric = |runs: &LayerRuns| median_f64(runs.turns.iter().map(metric).collect());
        let throughput = |runs: &LayerRuns| {
            median_f64(runs.turns.iter().map(|t| t.stats.throughput()).collect())
        };
        let difference = median_f64(differences.clone());
        LayersCost {
            difference,
            lowest: differences.first().copied().unwrap_or(f64::NAN),
            highest: differences.last().copied().unwrap_or(f64::NAN),
            share: difference / median_metric(on),
            throughput_ratio: throughput(on) / throughput(off),
        }
    }
}

/// The 1-, 5- and 15-minute load averages.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The machine, as `/proc` tells it.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("MemTotal:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<f64>()
                        .ok()
                })
        })
        .map_or_else(String::new, |kib| {
            format!(", {:.0} GiB", kib / 1024.0 / 1024.0)
        });
    format!("{cpus} CPUs ({model}){memory}, {}", std::env::consts::OS)
}
