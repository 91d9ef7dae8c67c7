//! `logistics-bench`: the benchmarks behind `cargo xtask bench`.
//!
//! ```text
//! logistics-bench [--quick] [--only codegen|layer|service|service-layers|rate-limit|rate-limit-memory]
//!                 [--backend sqlite|postgres] [--root DIR] [--service-bin PATH] [--out FILE]
//!                 [--postgres URL] [--connections N] [--max-connections N]
//!                 [--layer-rounds N] [--layer-requests N] [--callgrind] [--command TEXT]
//! logistics-bench serve --layers on|off --database URL --listen ADDR
//! logistics-bench count CASE --iterations N [--root DIR] [--postgres URL]
//! ```
//!
//! The second form is the server the service part starts for its layers
//! comparison (`serve.rs`), not a benchmark; the third, one case of the
//! instruction-count gate, run under valgrind by `cargo xtask bench --check`
//! (`count.rs`).
//!
//! `--only service-layers` is that comparison alone (`operations_layers.rs`),
//! on a database seeded with only the tenant it reads; `--callgrind` (with
//! it only) runs its servers under valgrind's callgrind and counts
//! instructions per request. `--command` is how the report names the run
//! (`cargo xtask bench` passes its own command line).
//!
//! Every figure is measured here, on loopback, with loops bounded in count
//! and time; nothing is asserted. The report is a Markdown document printed
//! and written to `--out` (`target/bench/report.md` under `cargo xtask bench`).

mod codegen;
mod count;
mod data;
mod layer;
mod load;
mod operations_layers;
mod rate_limit;
mod report;
mod serve;
mod service;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use load::Load;
use service::Backend;

/// What `--only` can choose; `rate-limit-memory` is the in-memory store's
/// part of `rate-limit` alone (to run under `valgrind`), `service-layers`
/// the operations layers comparison of `service` alone.
const PARTS: [&str; 6] = [
    "codegen",
    "layer",
    "service",
    "service-layers",
    "rate-limit",
    "rate-limit-memory",
];

const USAGE: &str = "\
usage: logistics-bench [--quick] [--only codegen|layer|service|service-layers|rate-limit|rate-limit-memory]
                       [--backend sqlite|postgres] [--root DIR] [--service-bin PATH] [--out FILE]
                       [--postgres URL] [--connections N] [--max-connections N]
                       [--layer-rounds N] [--layer-requests N] [--callgrind] [--command TEXT]
";

/// The PostgreSQL server the service cases use, unless `--postgres` names another.
const DEFAULT_POSTGRES: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The command line.
struct Args {
    quick: bool,
    only: Option<String>,
    backend: Option<Backend>,
    root: PathBuf,
    service_bin: PathBuf,
    out: Option<PathBuf>,
    postgres: String,
    connections: usize,
    max_connections: Option<u32>,
    layer_rounds: Option<usize>,
    layer_requests: Option<u64>,
    callgrind: bool,
    command: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        quick: false,
        only: None,
        backend: None,
        root: PathBuf::from("."),
        service_bin: PathBuf::from("target/release/logistics-service"),
        out: None,
        postgres: DEFAULT_POSTGRES.to_owned(),
        connections: 32,
        max_connections: None,
        layer_rounds: None,
        layer_requests: None,
        callgrind: false,
        command: std::iter::once("logistics-bench".to_owned())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = |name: &str| given.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--quick" => args.quick = true,
            "--only" => {
                let only = value("--only")?;
                if !PARTS.contains(&only.as_str()) {
                    return Err(format!(
                        "--only {only}: expected one of {}",
                        PARTS.join(", ")
                    ));
                }
                args.only = Some(only);
            }
            "--backend" => {
                args.backend = Some(match value("--backend")?.as_str() {
                    "sqlite" => Backend::Sqlite,
                    "postgres" => Backend::Postgres,
                    other => return Err(format!("--backend {other}: expected sqlite or postgres")),
                })
            }
            "--root" => args.root = PathBuf::from(value("--root")?),
            "--service-bin" => args.service_bin = PathBuf::from(value("--service-bin")?),
            "--out" => args.out = Some(PathBuf::from(value("--out")?)),
            "--postgres" => args.postgres = value("--postgres")?,
            "--connections" => {
                args.connections = value("--connections")?
                    .parse()
                    .map_err(|_| "--connections: not a number".to_owned())?
            }
            "--max-connections" => {
                args.max_connections = Some(
                    value("--max-connections")?
                        .parse()
                        .map_err(|_| "--max-connections: not a number".to_owned())?,
                )
            }
            "--layer-rounds" => {
                args.layer_rounds = Some(
                    value("--layer-rounds")?
                        .parse()
                        .map_err(|_| "--layer-rounds: not a number".to_owned())?,
                )
            }
            "--layer-requests" => {
                args.layer_requests = Some(
                    value("--layer-requests")?
                        .parse()
                        .map_err(|_| "--layer-requests: not a number".to_owned())?,
                )
            }
            "--callgrind" => args.callgrind = true,
            "--command" => args.command = value("--command")?,
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if args.callgrind && args.only.as_deref() != Some("service-layers") {
        return Err(
            "--callgrind goes with --only service-layers (or, in `cargo xtask bench`, --only compile)"
                .to_owned(),
        );
    }
    Ok(args)
}

fn main() -> ExitCode {
    let mut given = std::env::args().skip(1).peekable();
    let outcome = match given.peek().map(String::as_str) {
        Some("serve") => serve::run(given.skip(1)),
        Some("count") => count::run(given.skip(1)),
        _ => run(),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let started = Instant::now();
    let wants = |part: &str| args.only.as_deref().is_none_or(|only| only == part);
    let mut report = report::Report::new(&args.command, args.connections);

    if wants("codegen") {
        eprintln!("codegen …");
        let runs = if args.quick { 5 } else { 9 };
        report.codegen = Some(codegen::run(&args.root, runs)?);
    }
    if wants("layer") {
        eprintln!("generated layer against hand-written axum …");
        let (duration, rounds) = if args.quick {
            (Duration::from_secs(1), 1)
        } else {
            (Duration::from_secs(3), 3)
        };
        let load = Load {
            connections: args.connections,
            duration,
            max_requests: 2_000_000,
        };
        report.layer_load = Some((load, rounds));
        report.layer = Some(layer::run(load, rounds)?);
    }
    let layers_only = args.only.as_deref() == Some("service-layers");
    if wants("service") || layers_only {
        let backends: Vec<Backend> = match args.backend {
            Some(backend) => vec![backend],
            None => vec![Backend::Sqlite, Backend::Postgres],
        };
        let log_dir = args
            .out
            .as_ref()
            .and_then(|out| out.parent())
            .map_or_else(std::env::temp_dir, PathBuf::from);
        // On a fresh clone nothing has made target/bench/ yet.
        std::fs::create_dir_all(&log_dir).map_err(|e| format!("{}: {e}", log_dir.display()))?;
        let log = log_dir.join("service.log");
        let options = service::Options {
            binary: args.service_bin.clone(),
            postgres: args.postgres.clone(),
            load: Load {
                connections: args.connections,
                duration: if args.quick {
                    Duration::from_millis(1500)
                } else {
                    Duration::from_secs(5)
                },
                max_requests: 2_000_000,
            },
            bulk_runs: if args.quick { 2 } else { 7 },
            return_sizes: if args.quick {
                vec![1_000, 10_000]
            } else {
                vec![1_000, 10_000, 100_000]
            },
            batch_sizes: if args.quick {
                vec![(10, 3), (100, 3), (1000, 2)]
            } else {
                vec![(10, 15), (100, 9), (1000, 5)]
            },
            max_connections: args.max_connections,
            log,
            layers: layers_options(&args, &log_dir),
        };
        report.service_load = Some(options.load);
        report.max_connections = args.max_connections;
        report.layers_options = Some(options.layers.clone());
        for backend in backends {
            eprintln!(
                "{} on {} …",
                if layers_only {
                    "operations layers"
                } else {
                    "service"
                },
                backend.name()
            );
            let outcome = if layers_only {
                service::run_layers(backend, &options).map(|layers| (None, layers))
            } else {
                service::run(backend, &options).map(|(results, layers)| (Some(results), layers))
            };
            match outcome {
                Ok((results, layers)) => {
                    report.service.extend(results);
                    report.operations_layers.push((backend, layers));
                }
                Err(error) if backend == Backend::Postgres && args.backend.is_none() => {
                    eprintln!("warning: PostgreSQL skipped: {error}");
                    report.skipped.push(format!("PostgreSQL skipped: {error}"));
                }
                Err(error) => return Err(error),
            }
        }
    }

    let memory_only = args.only.as_deref() == Some("rate-limit-memory");
    let rate_limit = if wants("rate-limit") || memory_only {
        eprintln!("rate limit …");
        let redis = std::env::var("LFS_TEST_REDIS_URL")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
        Some(rate_limit::run(
            &args.postgres,
            &redis,
            args.quick,
            !memory_only,
        )?)
    } else {
        None
    };

    report.wall = started.elapsed();
    let mut text = report.render();
    if let Some(rate_limit) = rate_limit {
        text.push_str(&rate_limit.render());
    }
    print!("{text}");
    if let Some(out) = &args.out {
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(out, &text).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// The operations layers comparison's rounds and requests: by default 5
/// rounds of 10,000 requests per server (2 of 2,000 with `--quick`); under
/// callgrind, which runs a server some 50 times slower, 3 of 1,000.
fn layers_options(args: &Args, log_dir: &std::path::Path) -> operations_layers::Options {
    let (rounds, requests) = match (args.callgrind, args.quick) {
        (true, _) => (3, 1_000),
        (false, true) => (2, 2_000),
        (false, false) => (5, 10_000),
    };
    operations_layers::Options {
        rounds: args.layer_rounds.unwrap_or(rounds),
        requests: args.layer_requests.unwrap_or(requests),
        connections: args.connections,
        time_cap: Duration::from_secs(if args.callgrind { 600 } else { 60 }),
        callgrind: args.callgrind.then(|| log_dir.join("callgrind")),
    }
}
