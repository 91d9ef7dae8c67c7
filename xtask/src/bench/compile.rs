//! `cargo xtask bench --only compile`: this generator beside progenitor on
//! the same documents, in one run: generation time, the debug rebuild of
//! the generated crates alone (dependencies built) and lines of generated
//! code.
//!
//! Ours three ways, with the runtime vendored as `cargo xtask generate`
//! does by default: the one crate of `--client-only` (the client with the
//! models as its module: what a client user builds, as progenitor's crate
//! is), as it comes (TLS on) and with `--no-default-features` (no TLS, as
//! progenitor's crate comes: D47), and the models and client crates of the
//! default three-crate layout (what a user who also wants the server stubs
//! builds for the client); progenitor's is its one crate.
//!
//! Three rebuilds:
//! - the first crate's `src/lib.rs` touched and `cargo build` run as cargo
//!   does by default (incremental): nothing changed but the file's date;
//! - the same with `CARGO_INCREMENTAL=0` (the crates compiled from
//!   nothing, as on CI);
//! - after a regeneration: every build regenerated from the document with
//!   an optional property added to a schema (every other run, from the
//!   document as it is), each generator writing what it writes, then
//!   `cargo build` as it comes, incremental. This is what a user pays at a
//!   regeneration that changes the document.
//!
//! The two generators alternate run by run, so both see the same load;
//! medians are reported. Installing progenitor and building dependencies
//! run under `nice`; the measured commands at normal priority.
//!
//! Times on a shared machine move with its load. With `--callgrind`, each
//! build also does one touched rebuild and one after a regeneration under
//! valgrind's callgrind, every process traced: the instructions it counts
//! are the same whatever the load, cargo's and rustc's reported apart.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use openapi_codegen::RuntimeSource;
use openapi_codegen::config::Target;

use crate::test::{cargo_bin, run_command};
use crate::{Result, fail};

/// The progenitor this is measured against (`cargo-progenitor`).
const PROGENITOR_VERSION: &str = "0.15.1";
/// Timed runs of each measurement, per generator.
const RUNS: usize = 5;
/// The document issue 19 names.
const FIRST: &str = "codegen-tests/specs/external/buildomat.json";
/// Where the other candidates are: every vendored document.
const FOLDERS: [&str; 2] = [
    "codegen-tests/specs/external",
    "codegen-tests/specs/external-3.1",
];

/// The builds measured, in the report's column order.
const BUILDS: usize = 4;
/// Ours with `--client-only`: one crate.
const ONE: usize = 0;
/// The same crate built with `--no-default-features`: without TLS.
const ONE_NO_TLS: usize = 1;
/// Ours, the models and client crates of the three-crate layout.
const CRATES: usize = 2;
/// Progenitor's crate.
const THEIRS: usize = 3;

/// What was measured for one document: generation (ours `--client-only`,
/// progenitor), then a column per build.
struct Row {
    document: String,
    bytes: u64,
    generate: [Duration; 2],
    incremental: [Timing; BUILDS],
    scratch: [Timing; BUILDS],
    /// The rebuild after a regeneration from a changed document.
    regenerated: [Timing; BUILDS],
    /// With `--callgrind`: the instructions of an incremental rebuild.
    instructions: Option<[Instructions; BUILDS]>,
    /// With `--callgrind`: the instructions of a rebuild after a regeneration.
    regenerated_instructions: Option<[Instructions; BUILDS]>,
    lines: [Lines; BUILDS],
}

/// Instructions callgrind counted in one build's processes: the compiler's
/// and the rest's (cargo's).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Instructions {
    cargo: u64,
    rustc: u64,
}

/// Median wall and CPU (user + system, cargo and rustc) time of a build.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

/// Lines of the generated Rust files: all that are not blank, and of those
/// the ones that are not comments (documentation included).
#[derive(Clone, Copy)]
struct Lines {
    non_blank: usize,
    code: usize,
}

/// Runs the compile bench from the workspace `root`, with cargo's `target`
/// folder, with instruction counts if `callgrind`; prints the report and
/// writes it to `target/bench/compile.md`.
pub fn run(root: &Path, target: &Path, callgrind: bool) -> Result<()> {
    if callgrind {
        // Before the minutes of timed runs, not after them.
        check_valgrind()?;
    }
    let before = load_average();
    let started = Instant::now();
    let progenitor = install_progenitor(target)?;
    let work = target.join("bench").join("compile");
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| fail(format!("{}: {e}", work.display())))?;
    }
    let first = root.join(FIRST);
    let taken = taken_by_both(root, &progenitor, &work, 2)?;
    let largest = taken[0].clone();
    // A second document when the largest is the first one: the next largest.
    let mut documents = vec![first.clone()];
    documents.extend(taken.into_iter().filter(|d| *d != first).take(1));
    let mut rows = Vec::new();
    for document in &documents {
        eprintln!("compile bench: {}", relative(root, document));
        rows.push(measure(
            root,
            target,
            &progenitor,
            &work,
            document,
            callgrind,
        )?);
    }
    let after = load_average();
    let report = render(
        &rows,
        callgrind,
        &relative(root, &largest),
        &before,
        &after,
        started.elapsed(),
    );
    print!("{report}");
    let out = target.join("bench").join("compile.md");
    std::fs::write(&out, &report).map_err(|e| fail(format!("{}: {e}", out.display())))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// `cargo install`s the pinned progenitor under `target/bench-tools` (a
/// no-op once it is there); the path of its binary.
fn install_progenitor(target: &Path) -> Result<PathBuf> {
    let tools = target.join("bench-tools");
    let mut command = niced(&cargo_bin());
    command.args([
        "install",
        "--locked",
        "--quiet",
        "--version",
        PROGENITOR_VERSION,
        "--root",
    ]);
    command.arg(&tools).arg("cargo-progenitor");
    run_command(command)?;
    Ok(tools.join("bin").join("cargo-progenitor"))
}

/// The `count` largest vendored documents that both generators take,
/// largest first.
fn taken_by_both(
    root: &Path,
    progenitor: &Path,
    work: &Path,
    count: usize,
) -> Result<Vec<PathBuf>> {
    let mut candidates = Vec::new();
    for folder in FOLDERS {
        let dir = root.join(folder);
        let entries =
            std::fs::read_dir(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let spec = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "yaml" | "yml")
            );
            if spec && let Ok(meta) = entry.metadata() {
                candidates.push((meta.len(), path));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let probe = work.join("probe");
    let mut taken = Vec::new();
    for (_, path) in candidates {
        let both = progenitor_generate(progenitor, &path, &probe.join("progenitor"), "probe", true)
            .is_ok()
            && openapi_codegen::generate_standalone_with(
                &Target::standalone(path.clone(), "probe"),
                crate::generate::COMMAND,
                &RuntimeSource::Path("runtime".to_owned()),
            )
            .is_ok();
        let _ = std::fs::remove_dir_all(&probe);
        if both {
            taken.push(path);
            if taken.len() == count {
                break;
            }
        }
    }
    if taken.is_empty() {
        return Err(fail("no vendored document is taken by both generators"));
    }
    Ok(taken)
}

fn measure(
    root: &Path,
    target: &Path,
    progenitor: &Path,
    work: &Path,
    original: &Path,
    callgrind: bool,
) -> Result<Row> {
    let stem = crate::generate::default_name(original)?;
    let name = format!("bench-{stem}");
    let client = format!("{name}-client");
    let ours = work.join(&stem).join("ours");
    let crates = work.join(&stem).join("ours-crates");
    let theirs = work.join(&stem).join("progenitor");
    // What `cargo xtask generate` does by default: the runtime copied into
    // the output as a member of its workspace.
    let runtime = RuntimeSource::Vendored(RuntimeSource::VENDORED_DIR.to_owned());
    // Both generators read the document from one path, which holds the
    // document as it is or with a property added: the generated files
    // quote the path, and a regeneration must change only what the
    // property changes.
    let document = work.join(&stem).join(
        original
            .file_name()
            .ok_or_else(|| fail(format!("{}: no file name", original.display())))?,
    );
    let states = Document::read(original)?;
    states.write(&document, false)?;

    let one_crate = Target::client_only(document.clone(), &name);
    let standalone = Target::standalone(document.clone(), &name);
    let mut generate = [Vec::new(), Vec::new()];
    for _ in 0..RUNS {
        // Empty folders, so that both generators write every file: ours
        // would write only what changed.
        for dir in [&ours, &theirs] {
            if dir.exists() {
                std::fs::remove_dir_all(dir)
                    .map_err(|e| fail(format!("{}: {e}", dir.display())))?;
            }
        }
        let started = Instant::now();
        crate::generate::generate(root, &one_crate, &ours, &runtime)?;
        generate[0].push(started.elapsed());
        let started = Instant::now();
        progenitor_generate(
            progenitor,
            &document,
            &theirs,
            &format!("{stem}-progenitor"),
            false,
        )?;
        generate[1].push(started.elapsed());
    }
    // A workspace of its own, as it would be anywhere but under this one.
    let manifest = theirs.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| fail(format!("{}: {e}", manifest.display())))?;
    std::fs::write(&manifest, format!("{text}\n[workspace]\n"))
        .map_err(|e| fail(format!("{}: {e}", manifest.display())))?;

    crate::generate::generate(root, &standalone, &crates, &runtime)?;

    // Our outputs build with the versions this workspace has built.
    for dir in [&ours, &crates] {
        std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))
            .map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    }
    let build = |dir: &Path, touch: &str, package: Option<&str>| Build {
        dir: dir.to_path_buf(),
        touch: dir.join(touch),
        package: package.map(str::to_owned),
        target: target.to_path_buf(),
        no_default_features: false,
    };
    let builds: [Build; BUILDS] = [
        build(&ours, "client/src/lib.rs", Some(&client)),
        Build {
            no_default_features: true,
            ..build(&ours, "client/src/lib.rs", Some(&client))
        },
        build(&crates, "models/src/lib.rs", Some(&client)),
        build(&theirs, "src/lib.rs", None),
    ];
    for build in &builds {
        for incremental in [true, false] {
            build.prepare(incremental)?;
        }
    }
    let mut incremental: [Vec<Timing>; BUILDS] = Default::default();
    let mut scratch: [Vec<Timing>; BUILDS] = Default::default();
    for _ in 0..RUNS {
        for (i, build) in builds.iter().enumerate() {
            incremental[i].push(build.timed(true)?);
        }
        for (i, build) in builds.iter().enumerate() {
            scratch[i].push(build.timed(false)?);
        }
    }

    // A regeneration from the document with a property added, or back from
    // it: the crates as they are then rebuilt, incremental as cargo's
    // default is, nothing touched.
    let regenerate = |changed: bool| -> Result<()> {
        states.write(&document, changed)?;
        let (_, written) = crate::generate::generate(root, &one_crate, &ours, &runtime)?;
        crate::generate::generate(root, &standalone, &crates, &runtime)?;
        if written == 0 {
            return Err(fail(format!(
                "{}: the property added on line {} changed none of our generated files",
                relative(root, original),
                states.added_on_line
            )));
        }
        let fresh = work.join(&stem).join("progenitor-regenerated");
        progenitor_generate(progenitor, &document, &fresh, "regenerated", true)?;
        let lib = std::fs::read_to_string(fresh.join("src/lib.rs"))
            .map_err(|e| fail(format!("{}: {e}", fresh.display())))?;
        std::fs::remove_dir_all(&fresh).map_err(|e| fail(format!("{}: {e}", fresh.display())))?;
        crate::codegen::write_if_changed(&theirs.join("src/lib.rs"), &lib)?;
        Ok(())
    };
    for build in &builds {
        // The timed runs from scratch left the incremental state behind.
        build.prepare(true)?;
    }
    let mut regenerated: [Vec<Timing>; BUILDS] = Default::default();
    let mut changed = false;
    for _ in 0..RUNS {
        changed = !changed;
        regenerate(changed)?;
        for (i, build) in builds.iter().enumerate() {
            regenerated[i].push(build.timed_as_is()?);
        }
    }

    let folder = |build: &Build, kind: &str| {
        let mut name = build.dir.file_name().unwrap_or_default().to_owned();
        if build.no_default_features {
            // Its own folder: the files of a folder are summed.
            name.push("-no-tls");
        }
        work.join(&stem).join(kind).join(name)
    };
    let (instructions, regenerated_instructions) = if callgrind {
        let mut touched = [Instructions::default(); BUILDS];
        for (count, build) in touched.iter_mut().zip(&builds) {
            *count = build.instructions(&folder(build, "callgrind"), true)?;
        }
        changed = !changed;
        regenerate(changed)?;
        let mut after = [Instructions::default(); BUILDS];
        for (count, build) in after.iter_mut().zip(&builds) {
            *count = build.instructions(&folder(build, "callgrind-regenerated"), false)?;
        }
        (Some(touched), Some(after))
    } else {
        (None, None)
    };
    if changed {
        regenerate(false)?;
    }
    let bytes = std::fs::metadata(original).map(|m| m.len()).unwrap_or(0);
    // The crate built without TLS is the same code.
    let one = lines(&[ours.join("client/src")])?;
    Ok(Row {
        document: relative(root, original),
        bytes,
        generate: [median(&generate[0]), median(&generate[1])],
        incremental: incremental.each_ref().map(|t| timing(t)),
        scratch: scratch.each_ref().map(|t| timing(t)),
        regenerated: regenerated.each_ref().map(|t| timing(t)),
        instructions,
        regenerated_instructions,
        lines: [
            one,
            one,
            lines(&[crates.join("models/src"), crates.join("client/src")])?,
            lines(&[theirs.join("src")])?,
        ],
    })
}

/// A document as it is, and with an optional property added to one of its
/// schemas: what a change to a document most often is, and one that
/// should not break anyone's build.
struct Document {
    original: String,
    changed: String,
    /// Where the property went, for messages: its line in `changed`.
    added_on_line: usize,
}

/// The property [`Document`] adds.
const ADDED: &str = "added_by_the_bench";

impl Document {
    /// Reads `path` and adds the property to the first object schema of
    /// its text that declares properties, as the text's first property: a
    /// `"properties": {` of JSON, or a block `properties:` of YAML.
    fn read(path: &Path) -> Result<Self> {
        let original =
            std::fs::read_to_string(path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
        let changed = add_property(&original).ok_or_else(|| {
            fail(format!(
                "{}: no schema with properties to add one to",
                path.display()
            ))
        })?;
        let at = changed.find(ADDED).unwrap_or(0);
        Ok(Document {
            added_on_line: changed[..at].lines().count(),
            original,
            changed,
        })
    }

    /// Writes the document, changed or not, to `path` (unless it holds it).
    fn write(&self, path: &Path, changed: bool) -> Result<()> {
        let text = if changed {
            &self.changed
        } else {
            &self.original
        };
        crate::codegen::write_if_changed(path, text).map(drop)
    }
}

/// `text` with an optional string property added to the first non-empty
/// `properties` of an object schema; `None` when there is none.
fn add_property(text: &str) -> Option<String> {
    if text.trim_start().starts_with('{') {
        let mut from = 0;
        while let Some(found) = text[from..].find("\"properties\"") {
            let key_end = from + found + "\"properties\"".len();
            let rest = &text[key_end..];
            let inner = rest.trim_start().strip_prefix(':').map(str::trim_start);
            // A key (not `"properties"` as a value) whose object is not empty.
            if let Some(inner) = inner
                && inner.starts_with('{')
                && !inner[1..].trim_start().starts_with('}')
            {
                let at = key_end + (rest.len() - inner.len()) + 1;
                return Some(format!(
                    "{}\"{ADDED}\": {{\"type\": \"string\"}}, {}",
                    &text[..at],
                    &text[at..]
                ));
            }
            from = key_end;
        }
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if line.trim_end().trim_start() != "properties:" {
            continue;
        }
        let Some(next) = lines[i + 1..].iter().find(|l| !l.trim().is_empty()) else {
            continue;
        };
        let inner = next.len() - next.trim_start().len();
        if inner > indent && !next.trim_start().starts_with('-') {
            let mut out = lines[..=i].join("\n");
            out.push_str(&format!(
                "\n{}{ADDED}: {{type: string}}\n",
                " ".repeat(inner)
            ));
            out.push_str(&lines[i + 1..].join("\n"));
            out.push('\n');
            return Some(out);
        }
    }
    None
}

/// One generated crate (or crate pair) to rebuild.
struct Build {
    dir: PathBuf,
    touch: PathBuf,
    package: Option<String>,
    target: PathBuf,
    /// Built with `--no-default-features` (ours: without TLS).
    no_default_features: bool,
}

impl Build {
    fn command(&self, incremental: bool) -> Command {
        let mut command = Command::new(cargo_bin());
        self.configure(&mut command, incremental);
        command
    }

    fn configure(&self, command: &mut Command, incremental: bool) {
        command
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_INCREMENTAL", if incremental { "1" } else { "0" })
            .args(["build", "--quiet"]);
        if let Some(package) = &self.package {
            command.args(["-p", package]);
        }
        if self.no_default_features {
            command.arg("--no-default-features");
        }
    }

    /// Builds the dependencies (and the crates once), niced and untimed.
    fn prepare(&self, incremental: bool) -> Result<()> {
        let mut command = niced(&cargo_bin());
        self.configure(&mut command, incremental);
        run_command(command)
    }

    /// Touches the crate and rebuilds it at normal priority.
    fn timed(&self, incremental: bool) -> Result<Timing> {
        touch(&self.touch)?;
        timed(self.command(incremental))
    }

    /// Rebuilds the crates as they are (after a regeneration), incremental,
    /// at normal priority.
    fn timed_as_is(&self) -> Result<Timing> {
        timed(self.command(true))
    }

    /// Rebuilds the crates incrementally under callgrind, which writes a
    /// file per process into `out`; their instructions summed. With
    /// `touched`, the crate is brought up to date untraced and touched
    /// first; without, it is rebuilt as it is (after a regeneration).
    fn instructions(&self, out: &Path, touched: bool) -> Result<Instructions> {
        if touched {
            // The last timed run may have been from scratch, and switching
            // back to incremental rebuilds the crates: done untraced, so that
            // the traced run rebuilds the touched crate and what depends on
            // it, as timed.
            self.prepare(true)?;
            touch(&self.touch)?;
        }
        std::fs::create_dir_all(out).map_err(|e| fail(format!("{}: {e}", out.display())))?;
        // Niced: the count does not depend on the priority, and callgrind's
        // run, some 50 times slower, need not slow the machine's other work.
        let mut command = niced("valgrind");
        command
            .args(["--tool=callgrind", "--trace-children=yes", "-q"])
            .arg(format!(
                "--callgrind-out-file={}",
                out.join("callgrind.%p").display()
            ))
            .arg(cargo_bin());
        self.configure(&mut command, true);
        run_command(command)?;
        callgrind_sums(out)
    }
}

/// Runs `command`, timing it: wall time and the CPU time of the processes.
fn timed(command: Command) -> Result<Timing> {
    let cpu = children_cpu();
    let started = Instant::now();
    run_command(command)?;
    Ok(Timing {
        wall: started.elapsed(),
        cpu: children_cpu().saturating_sub(cpu),
    })
}

/// Fails, saying how to install it, if valgrind cannot be run.
fn check_valgrind() -> Result<()> {
    let found = Command::new("valgrind")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if found {
        Ok(())
    } else {
        Err(fail(
            "--callgrind runs the builds under valgrind, which was not found: install it (`apt-get install valgrind`)",
        ))
    }
}

/// The sums of the callgrind output files in `dir`, one per process: the
/// files of a `rustc` are the compiler's, the others cargo's. (A rustup
/// proxy execs its tool in its own process, so it has no file of its own.)
fn callgrind_sums(dir: &Path) -> Result<Instructions> {
    let entries = std::fs::read_dir(dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    let mut sums = Instructions::default();
    let mut files = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let text =
            std::fs::read_to_string(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
        // A file without them is not a complete callgrind output: counting
        // it as nothing would understate the build.
        let (program, count) = callgrind_file(&text).ok_or_else(|| {
            fail(format!(
                "{}: no `cmd:` line, or no `summary:` or `totals:` count",
                path.display()
            ))
        })?;
        if program == "rustc" {
            sums.rustc += count;
        } else {
            sums.cargo += count;
        }
        files += 1;
    }
    if files == 0 {
        return Err(fail(format!("{}: callgrind wrote no file", dir.display())));
    }
    Ok(sums)
}

/// The file name of the program on a callgrind output file's `cmd:` line,
/// and the first event count (the instructions, `Ir`, by default) of its
/// `summary:` line, or of its `totals:` line when it has no summary.
fn callgrind_file(text: &str) -> Option<(&str, u64)> {
    let field = |key: &str| text.lines().find_map(|line| line.strip_prefix(key));
    let program = field("cmd:")?.split_whitespace().next()?;
    let program = program.rsplit('/').next()?;
    let count = field("summary:")
        .or_else(|| field("totals:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some((program, count))
}

/// Generates `document` with progenitor into `out` as the crate `name`.
fn progenitor_generate(
    progenitor: &Path,
    document: &Path,
    out: &Path,
    name: &str,
    quiet: bool,
) -> Result<()> {
    let mut command = Command::new(progenitor);
    command
        .arg("progenitor")
        .arg("--input")
        .arg(document)
        .arg("--output")
        .arg(out)
        .args(["--name", name, "--version", "0.1.0"]);
    if quiet {
        command
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
    } else {
        command.stdout(std::process::Stdio::null());
    }
    run_command(command)
}

fn niced(program: &str) -> Command {
    let mut command = Command::new("nice");
    command.args(["-n", "10", program]);
    command
}

/// Sets the file's modification time to now (what `touch` does), so that
/// cargo rebuilds its crate.
fn touch(path: &Path) -> Result<()> {
    let file = std::fs::File::options()
        .append(true)
        .open(path)
        .map_err(|e| fail(format!("{}: {e}", path.display())))?;
    file.set_modified(std::time::SystemTime::now())
        .map_err(|e| fail(format!("{}: {e}", path.display())))
}

/// CPU time (user + system) of this process's waited-for children, from
/// `/proc/self/stat` (in clock ticks of 10 ms); zero where there is none.
fn children_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // cutime and cstime are fields 16 and 17 of the line (13 and 14 here).
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

/// The lines of the Rust files under `dirs`, subfolders included.
fn lines(dirs: &[PathBuf]) -> Result<Lines> {
    let mut counted = Lines {
        non_blank: 0,
        code: 0,
    };
    let mut pending = dirs.to_vec();
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| fail(format!("{}: {e}", path.display())))?;
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                counted.non_blank += 1;
                if !line.starts_with("//") {
                    counted.code += 1;
                }
            }
        }
    }
    Ok(counted)
}

fn median(values: &[Duration]) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

fn timing(values: &[Timing]) -> Timing {
    Timing {
        wall: median(&values.iter().map(|t| t.wall).collect::<Vec<_>>()),
        cpu: median(&values.iter().map(|t| t.cpu).collect::<Vec<_>>()),
    }
}

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

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

fn seconds(duration: Duration) -> String {
    format!("{:.2} s", duration.as_secs_f64())
}

fn ratio(ours: Duration, theirs: Duration) -> String {
    if theirs.is_zero() {
        return "–".to_owned();
    }
    format!("{:.2}", ours.as_secs_f64() / theirs.as_secs_f64())
}

/// Instructions in millions.
fn millions(count: u64) -> String {
    format!("{:.0} M", count as f64 / 1e6)
}

fn count_ratio(ours: u64, theirs: u64) -> String {
    if theirs == 0 {
        return "–".to_owned();
    }
    format!("{:.2}", ours as f64 / theirs as f64)
}

fn render(
    rows: &[Row],
    callgrind: bool,
    largest: &str,
    before: &str,
    after: &str,
    wall: Duration,
) -> String {
    let mut out = String::new();
    out.push_str("## Compile time: this generator beside progenitor\n\n");
    let option = if callgrind { " --callgrind" } else { "" };
    out.push_str(&format!(
        "- run: `cargo xtask bench --only compile{option}`, {:.0} s in all; progenitor {PROGENITOR_VERSION} (`cargo-progenitor`, release build)\n",
        wall.as_secs_f64()
    ));
    out.push_str(&format!(
        "- load average (1, 5, 15 min) before: {before}; after: {after}\n"
    ));
    out.push_str(&format!(
        "- the largest vendored document both generators take: `{largest}`\n"
    ));
    out.push_str(&format!(
        "- medians of {RUNS} runs, the builds alternating; ours as `cargo xtask generate --client-only` makes it (one crate: the client, the models its module), that crate again with `--no-default-features` (no TLS, as progenitor's crate comes: D47), and as the default three-crate layout makes it (the models and client crates a client user of that layout builds), progenitor's its one crate; ours with the runtime vendored, as `cargo xtask generate` does by default; a rebuild touches the first crate's `src/lib.rs` (ours: the client's, or the models') and runs `cargo build` (debug, dependencies built); a rebuild after a regeneration regenerates every build from the document with an optional string property `{ADDED}` added to its first schema with properties (or, every other run, from the document as it is), each generator writing what it writes, and runs `cargo build` with nothing touched; CPU is user + system time of cargo and rustc\n"
    ));
    if callgrind {
        out.push_str("- instructions: after the timed runs, one incremental rebuild of each build (touched as timed), then one after a regeneration, under `valgrind --tool=callgrind --trace-children=yes`, in millions (M): the sums of callgrind's `summary:` count (`Ir`) over the processes, rustc's apart from cargo's; unlike the times, they do not depend on the load\n");
    }
    out.push_str("- generation: ours (`--client-only`) in process in the unoptimised xtask (what `cargo xtask generate` runs), progenitor as its release binary, files written in both\n\n");
    out.push_str("| document | measure | ours: one crate | ours: one crate, no TLS | ours: models + client crates | progenitor | one crate / progenitor | no TLS / progenitor | two crates / progenitor |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for row in rows {
        let doc = format!("`{}` ({} kB)", row.document, row.bytes / 1000);
        let mut line = |measure: &str, cells: [String; 7]| {
            out.push_str(&format!("| {doc} | {measure} | {} |\n", cells.join(" | ")));
        };
        line(
            "generation",
            [
                seconds(row.generate[0]),
                "–".to_owned(),
                "–".to_owned(),
                seconds(row.generate[1]),
                ratio(row.generate[0], row.generate[1]),
                "–".to_owned(),
                "–".to_owned(),
            ],
        );
        for (label, timings) in [
            (
                "rebuild, incremental (cargo's default): wall",
                &row.incremental,
            ),
            (
                "rebuild, from scratch (`CARGO_INCREMENTAL=0`): wall",
                &row.scratch,
            ),
            (
                "rebuild after a regeneration, a property added (incremental): wall",
                &row.regenerated,
            ),
        ] {
            let cells = |of: fn(&Timing) -> Duration| {
                let [one, no_tls, crates, theirs] = timings.each_ref().map(of);
                [
                    seconds(one),
                    seconds(no_tls),
                    seconds(crates),
                    seconds(theirs),
                    ratio(one, theirs),
                    ratio(no_tls, theirs),
                    ratio(crates, theirs),
                ]
            };
            line(label, cells(|t| t.wall));
            line(&label.replace(": wall", ": CPU"), cells(|t| t.cpu));
        }
        let counted = [
            ("rebuild, incremental", row.instructions),
            (
                "rebuild after a regeneration, a property added",
                row.regenerated_instructions,
            ),
        ];
        for (rebuild, instructions) in counted {
            let Some(instructions) = instructions else {
                continue;
            };
            let parts = [
                ("cargo", instructions.map(|i| i.cargo)),
                ("rustc", instructions.map(|i| i.rustc)),
                ("total", instructions.map(|i| i.cargo + i.rustc)),
            ];
            for (part, [one, no_tls, crates, theirs]) in parts {
                line(
                    &format!("{rebuild}: instructions, {part}"),
                    [
                        millions(one),
                        millions(no_tls),
                        millions(crates),
                        millions(theirs),
                        count_ratio(one, theirs),
                        count_ratio(no_tls, theirs),
                        count_ratio(crates, theirs),
                    ],
                );
            }
        }
        let lines = row.lines;
        let theirs = lines[THEIRS];
        let share = |ours: Lines| {
            format!(
                "{:.2} / {:.2}",
                ours.non_blank as f64 / theirs.non_blank.max(1) as f64,
                ours.code as f64 / theirs.code.max(1) as f64
            )
        };
        let count = |l: Lines| format!("{} / {}", l.non_blank, l.code);
        line(
            "lines of Rust (non-blank / not comments)",
            [
                count(lines[ONE]),
                count(lines[ONE_NO_TLS]),
                count(lines[CRATES]),
                count(theirs),
                share(lines[ONE]),
                share(lines[ONE_NO_TLS]),
                share(lines[CRATES]),
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_is_added_to_the_first_schema_with_properties() {
        // JSON: not where `properties` is a value or its object is empty.
        let json = r#"{"required": ["properties"], "a": {"properties": {}}, "b": {"properties" : {"x": {}}}}"#;
        assert_eq!(
            add_property(json).as_deref(),
            Some(
                r#"{"required": ["properties"], "a": {"properties": {}}, "b": {"properties" : {"added_by_the_bench": {"type": "string"}, "x": {}}}}"#
            )
        );
        // YAML: a block, indented as the properties under it.
        let yaml = "a:\n  properties: {}\nb:\n  properties:\n\n      x: {type: integer}\n";
        assert_eq!(
            add_property(yaml).as_deref(),
            Some(
                "a:\n  properties: {}\nb:\n  properties:\n      added_by_the_bench: {type: string}\n\n      x: {type: integer}\n"
            )
        );
        assert_eq!(add_property(r#"{"type": "object"}"#), None);
        assert_eq!(add_property("type: object\nproperties:\n"), None);
    }

    #[test]
    fn callgrind_files_are_summed_rustc_apart_from_cargo() {
        let dir = std::env::temp_dir().join(format!("xtask-callgrind-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
        // Headers as callgrind 3.19 writes them, cut short.
        write(
            "callgrind.100",
            "version: 1\ncreator: callgrind-3.19.0\npid: 100\ncmd:  /toolchain/bin/cargo build --quiet -p c\nevents: Ir\nsummary: 396037712\n\nfn=(1) main\n5 12\ntotals: 396037713\n",
        );
        write(
            "callgrind.101",
            "pid: 101\ncmd:  /toolchain/bin/rustc --crate-name c client/src/lib.rs\nevents: Ir\nsummary: 675155374\ntotals: 675155375\n",
        );
        // A file without `summary:` counts its `totals:`; and a rustc that
        // is not the first word is not the compiler.
        write(
            "callgrind.102",
            "cmd: /usr/bin/sh -c rustc -vV\nevents: Ir\ntotals: 1000 7\n",
        );
        let sums = callgrind_sums(&dir);
        // A file callgrind had not finished writing fails the sum.
        write("callgrind.103", "cmd: /toolchain/bin/rustc -vV\n");
        let unfinished = callgrind_sums(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            sums.ok(),
            Some(Instructions {
                cargo: 396_037_712 + 1000,
                rustc: 675_155_374,
            })
        );
        let Err(error) = unfinished else {
            panic!("a file without a count was summed");
        };
        assert!(error.0.contains("callgrind.103"), "{}", error.0);
    }
}
