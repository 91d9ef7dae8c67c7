//! What the operations layers (the request id and span, the metrics, the
//! request deadline) cost per GET sales order, and how far the service is
//! from the machine's limit: four servers on one seeded database — the
//! release binary, this bench's own binary (`serve.rs`) with the layers on
//! and off, and hand-written axum serving the same answers as bytes from
//! memory — each sent the same bounded number of requests, in rotating
//! rounds.
//!
//! The figure it stands on is the server process's CPU time per request
//! (user + system of all its threads, `/proc/<pid>/stat`, read before and
//! after each round's requests). On a machine whose cores other sessions'
//! builds also want, a server's wall-clock throughput is mostly the share of
//! the cores it was given, and moved by 2× between rounds of one run; the CPU
//! time it spends per request is what its throughput is on saturated cores,
//! and other processes move it only through caches and extra switches.
//! Throughput is still measured in the same rounds and reported beside it.
//!
//! With `--callgrind` the servers run under valgrind's callgrind instead,
//! and each round counts the instructions the server executes for its
//! requests (the counters zeroed before the round's requests and dumped
//! after them with `callgrind_control`): that count does not depend on the
//! machine's load at all, but misses the kernel's share (the loopback TCP and
//! the system calls), which the CPU time includes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::load::{self, Load, Stats};
use crate::service::{Server, get_sales_order};

/// How the comparison runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rounds; every server serves once a round, in rotating order.
    pub rounds: usize,
    /// Requests per server and round.
    pub requests: u64,
    /// Concurrent connections of the driver.
    pub connections: usize,
    /// The most a server's turn may take (so a starved run still ends).
    pub time_cap: Duration,
    /// Count instructions under callgrind, its dumps written into this folder.
    pub callgrind: Option<PathBuf>,
}

/// One server's turn in one round.
#[derive(Debug, Clone)]
pub struct Turn {
    /// What the driver saw.
    pub stats: Stats,
    /// The server's CPU time (user + system, all threads) over the turn.
    pub cpu: Duration,
    /// The driver's (this process's) CPU time over the turn.
    pub driver_cpu: Duration,
    /// The CPU time of the machine's PostgreSQL processes over the turn:
    /// the database's share of the cores (next to nothing on SQLite, which
    /// runs in the server).
    pub database_cpu: Duration,
    /// How the server's live threads were scheduled over the turn.
    pub scheduling: Scheduling,
    /// The instructions the server executed over the turn (under callgrind).
    pub instructions: Option<u64>,
    /// The 1-minute load average when the turn started.
    pub load_average: f64,
}

impl Turn {
    /// Requests answered in the turn, whatever their status.
    pub fn requests(&self) -> u64 {
        self.stats.ok + self.stats.errors
    }

    /// Server CPU time per request, in microseconds.
    pub fn cpu_micros_per_request(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.requests().max(1) as f64
    }

    /// The driver's CPU time per request, in microseconds.
    pub fn driver_micros_per_request(&self) -> f64 {
        self.driver_cpu.as_secs_f64() * 1e6 / self.requests().max(1) as f64
    }

    /// PostgreSQL's CPU time per request, in microseconds.
    pub fn database_micros_per_request(&self) -> f64 {
        self.database_cpu.as_secs_f64() * 1e6 / self.requests().max(1) as f64
    }

    /// Instructions per request, when counted.
    pub fn instructions_per_request(&self) -> Option<f64> {
        self.instructions
            .map(|count| count as f64 / self.requests().max(1) as f64)
    }
}

/// One server's turns of the comparison.
pub struct LayerRuns {
    /// Which server.
    pub server: &'static str,
    /// Whether the operations layers are on.
    pub layers: bool,
    /// Whether this is the bench's own server (the pair that differs only in
    /// the layers), not the release binary.
    pub bench_server: bool,
    /// Whether this is hand-written axum serving the answers from memory:
    /// the machine's limit for the GET.
    pub limit: bool,
    /// One turn per round.
    pub turns: Vec<Turn>,
}

/// Drives the comparison against the database at `url`, as `token`'s tenant.
pub async fn run(
    url: &str,
    token: &Arc<str>,
    tenant: uuid::Uuid,
    binary: &Path,
    log: &Path,
    options: &Options,
) -> Result<Vec<LayerRuns>, String> {
    let wrap = |name: &str| callgrind_wrapper(options.callgrind.as_deref(), name);
    let mut servers = vec![
        (
            LayerRuns::new("`logistics-service serve --rate-limit 0`", true, false),
            Server::service_wrapped(&wrap("service")?, binary, url, None, log)?,
        ),
        (
            LayerRuns::new("bench server, `server::app`", true, true),
            Server::bench_wrapped(&wrap("bench-on")?, true, url, log)?,
        ),
        (
            LayerRuns::new("bench server, the generated router alone", false, true),
            Server::bench_wrapped(&wrap("bench-off")?, false, url, log)?,
        ),
        (
            LayerRuns::limit("hand-written axum, the answers' bytes from memory"),
            Server::bytes_wrapped(&wrap("bytes")?, tenant, url, log)?,
        ),
    ];
    let make = get_sales_order(token.clone());
    let load = Load {
        connections: options.connections,
        duration: options.time_cap,
        max_requests: options.requests,
    };
    // A warm-up of each, not counted: the pool filled, the caches warm (and
    // under callgrind, the code translated).
    let warm = Load {
        max_requests: options.requests.min(2_000),
        ..load
    };
    for (_, server) in &servers {
        load::run(server.address, warm, make.clone()).await;
    }
    let count = servers.len();
    for round in 0..options.rounds {
        for turn in 0..count {
            let (runs, server) = &mut servers[(round + turn) % count];
            let turn = measure(server, load, &make, options.callgrind.is_some()).await?;
            if turn.stats.ok == 0 {
                return Err(format!(
                    "GET sales order, {}: no successful request ({})",
                    runs.server,
                    turn.stats.first_error.clone().unwrap_or_default()
                ));
            }
            let per_request = turn.requests().max(1) as f64;
            eprintln!(
                "  round {}: {} (layers {}): {:.1} µs CPU/request (driver {:.1} µs, PostgreSQL {:.1} µs; server waited {:.1} µs for a core, {:.2} voluntary switches){}, {:.0} req/s, p50 {:.2} ms, load {:.2}",
                round + 1,
                runs.server,
                if runs.layers { "on" } else { "off" },
                turn.cpu_micros_per_request(),
                turn.driver_micros_per_request(),
                turn.database_micros_per_request(),
                turn.scheduling.run_delay.as_secs_f64() * 1e6 / per_request,
                turn.scheduling.voluntary_switches as f64 / per_request,
                turn.instructions_per_request()
                    .map_or_else(String::new, |n| format!(", {n:.0} instructions/request")),
                turn.stats.throughput(),
                turn.stats.percentile_ms(50.0),
                turn.load_average,
            );
            runs.turns.push(turn);
        }
    }
    Ok(servers.into_iter().map(|(runs, _)| runs).collect())
}

impl LayerRuns {
    fn new(server: &'static str, layers: bool, bench_server: bool) -> LayerRuns {
        LayerRuns {
            server,
            layers,
            bench_server,
            limit: false,
            turns: Vec::new(),
        }
    }

    fn limit(server: &'static str) -> LayerRuns {
        LayerRuns {
            limit: true,
            ..LayerRuns::new(server, false, false)
        }
    }
}

/// One turn: the server's counters read around a bounded load.
async fn measure(
    server: &Server,
    load: Load,
    make: &load::MakeRequest,
    callgrind: bool,
) -> Result<Turn, String> {
    if callgrind {
        callgrind_control(server.pid(), "--zero")?;
    }
    let load_average = load_average_1min();
    let own = std::process::id();
    let (driver_before, scheduled_before) = (cpu_time(own)?, Scheduling::of(server.pid()));
    let database_before = postgres_cpu_time();
    let before = cpu_time(server.pid())?;
    let stats = load::run(server.address, load, make.clone()).await;
    let cpu = cpu_time(server.pid())?.saturating_sub(before);
    let driver_cpu = cpu_time(own)?.saturating_sub(driver_before);
    let database_cpu = postgres_cpu_time().saturating_sub(database_before);
    let scheduling = Scheduling::of(server.pid()).since(&scheduled_before);
    let instructions = if callgrind {
        Some(callgrind_dump(server.pid())?)
    } else {
        None
    };
    Ok(Turn {
        stats,
        cpu,
        driver_cpu,
        database_cpu,
        scheduling,
        instructions,
        load_average,
    })
}

/// The clock ticks of `/proc/<pid>/stat`: `USER_HZ`, which Linux fixes at
/// 100 for user space on every architecture this runs on (`getconf CLK_TCK`).
const TICKS_PER_SECOND: u64 = 100;

/// The CPU time (user + system) of process `pid` and all its threads, the
/// ones that ended included.
pub fn cpu_time(pid: u32) -> Result<Duration, String> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let ticks = parse_cpu_ticks(&stat).ok_or_else(|| format!("{path}: no utime and stime"))?;
    Ok(Duration::from_nanos(
        ticks * (1_000_000_000 / TICKS_PER_SECOND),
    ))
}

/// `utime + stime` (the 14th and 15th fields) of a `/proc/<pid>/stat` line.
/// The second field, the command name, is in parentheses and may itself hold
/// spaces and parentheses, so the fields are counted from its last `)`.
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// The CPU time of every process named `postgres` (the server and its
/// backends, whoever started them), the ones that ended excluded.
fn postgres_cpu_time() -> Duration {
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    let mut ticks = 0;
    for process in processes.flatten() {
        let path = process.path().join("stat");
        let Ok(stat) = std::fs::read_to_string(&path) else {
            continue;
        };
        if stat.contains("(postgres)") {
            ticks += parse_cpu_ticks(&stat).unwrap_or(0);
        }
    }
    Duration::from_nanos(ticks * (1_000_000_000 / TICKS_PER_SECOND))
}

/// How a process's live threads were scheduled (summed over
/// `/proc/<pid>/task/*`): a diagnostic of where a server's wall time went
/// besides its CPU time. Threads that ended in between are not counted.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scheduling {
    /// Time runnable but waiting for a core (`schedstat`'s second field).
    pub run_delay: Duration,
    /// Times a thread gave up its core to wait (for I/O, a lock, a wake-up).
    pub voluntary_switches: u64,
}

impl Scheduling {
    fn of(pid: u32) -> Scheduling {
        let mut total = Scheduling::default();
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return total;
        };
        for task in tasks.flatten() {
            let path = task.path();
            if let Some(delay) = std::fs::read_to_string(path.join("schedstat"))
                .ok()
                .and_then(|text| text.split_whitespace().nth(1)?.parse::<u64>().ok())
            {
                total.run_delay += Duration::from_nanos(delay);
            }
            if let Some(switches) =
                std::fs::read_to_string(path.join("status"))
                    .ok()
                    .and_then(|text| {
                        text.lines()
                            .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))?
                            .trim()
                            .parse::<u64>()
                            .ok()
                    })
            {
                total.voluntary_switches += switches;
            }
        }
        total
    }

    fn since(&self, before: &Scheduling) -> Scheduling {
        Scheduling {
            run_delay: self.run_delay.saturating_sub(before.run_delay),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(before.voluntary_switches),
        }
    }
}

/// The 1-minute load average.
fn load_average_1min() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The command a server starts under: nothing, or callgrind writing its
/// dumps for `name` into `folder`.
fn callgrind_wrapper(folder: Option<&Path>, name: &str) -> Result<Vec<String>, String> {
    let Some(folder) = folder else {
        return Ok(Vec::new());
    };
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    Ok(vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!(
            "--callgrind-out-file={}",
            folder.join(format!("callgrind.{name}.out")).display()
        ),
    ])
}

/// Runs `callgrind_control ACTION PID`.
fn callgrind_control(pid: u32, action: &str) -> Result<(), String> {
    let output = Command::new("callgrind_control")
        .args([action, &pid.to_string()])
        .output()
        .map_err(|e| format!("callgrind_control: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "callgrind_control {action} {pid}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Dumps process `pid`'s counters and returns the instructions counted
/// since they were last zeroed: the dump's `totals:` line.
fn callgrind_dump(pid: u32) -> Result<u64, String> {
    let started = std::time::SystemTime::now();
    callgrind_control(pid, "--dump")?;
    // callgrind_control returns once the dump is requested; callgrind writes
    // it at its next scheduling point, into a file of its own named after
    // the output file (`…out.N`).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(count) = newest_dump_total(pid, started)? {
            return Ok(count);
        }
        if Instant::now() > deadline {
            return Err(format!("callgrind wrote no dump for {pid} within 60 s"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The `totals:` of the newest complete dump written since `since` by the
/// callgrind of `pid` (found through its command line's output file).
fn newest_dump_total(pid: u32, since: std::time::SystemTime) -> Result<Option<u64>, String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).map_err(|e| e.to_string())?;
    let Some(out_file) = cmdline
        .split(|&b| b == 0)
        .filter_map(|arg| std::str::from_utf8(arg).ok())
        .find_map(|arg| arg.strip_prefix("--callgrind-out-file="))
        .map(PathBuf::from)
    else {
        return Err(format!("process {pid} is not under callgrind"));
    };
    let folder = out_file.parent().unwrap_or(Path::new("."));
    let stem = out_file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(folder).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&stem) {
            continue;
        }
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .map_err(|e| e.to_string())?;
        if modified >= since && newest.as_ref().is_none_or(|(time, _)| modified > *time) {
            newest = Some((modified, entry.path()));
        }
    }
    let Some((_, path)) = newest else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(callgrind_totals(&text))
}

/// The first event count of a callgrind dump's `totals:` line (the
/// instructions, `Ir`, with the default events); `None` while the dump is
/// still being written.
fn callgrind_totals(dump: &str) -> Option<u64> {
    dump.lines()
        .find_map(|line| line.strip_prefix("totals:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_utime_plus_stime_after_the_name() {
        // A command name with a space and a parenthesis, as a thread may have.
        let stat = "4242 (tokio (rt) w) S 1 4242 4242 0 -1 4194560 2716 0 0 0 731 269 0 0 20 0 5 0 1234 0 0";
        assert_eq!(parse_cpu_ticks(stat), Some(731 + 269));
        assert_eq!(parse_cpu_ticks("4242 (x) S 1"), None);
    }

    #[test]
    fn the_cpu_time_grows_while_the_process_computes() {
        let pid = std::process::id();
        let before = cpu_time(pid).unwrap();
        // Spin until the clock moves (a tick is 10 ms), bounded for a
        // crowded machine.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut x = 0u64;
        while cpu_time(pid).unwrap() <= before && Instant::now() < deadline {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        assert!(cpu_time(pid).unwrap() > before);
    }

    #[test]
    fn callgrind_totals_are_the_first_event() {
        let dump = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 5\n\nfn=(1) main\n3 5\ntotals: 123456\n";
        assert_eq!(callgrind_totals(dump), Some(123456));
        assert_eq!(callgrind_totals("version: 1\nevents: Ir\n"), None);
    }
}
