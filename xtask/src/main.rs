//! The workspace's tasks, in Rust so that they run wherever cargo does.
//!
//! - `cargo xtask codegen [--check]`: regenerate the generated crates, or
//!   check that the committed ones match the spec and the generator.
//! - `cargo xtask api-diff [--base GIT-REV] [--changelog]`: every change of
//!   the documents since a revision, compatible or breaking on the wire and
//!   for Rust code, and whether the crates' version follows semver.
//! - `cargo xtask generate --spec PATH --out DIR [--name NAME] [--runtime
//!   vendor|path:PATH|git:URL] [--client-only]`: the generator on any
//!   document, into a standalone workspace (the runtime crate copied in by
//!   default); `--client-only` makes one crate, the client with its models.
//! - `cargo xtask mock --spec PATH [--listen ADDR] [--seed N]` and `cargo
//!   xtask contract --spec PATH --base-url URL [--header 'NAME: VALUE']`:
//!   a document served as a mock, and a live API held to its document.
//! - `cargo xtask external-specs`: generate crates for every vendored public
//!   document (and every golden fixture) into one scratch workspace and build it.
//! - `cargo xtask test`: every check a change must pass (the README's test
//!   command); CI runs `external-specs` after it, as a step of its own.
//! - `cargo xtask bench [--quick] [--only codegen|layer|service|service-layers|rate-limit|compile]
//!   [--callgrind]`: the benchmarks (`bench/`), a Markdown report in
//!   `target/bench/report.md`; `--callgrind` (with `--only service-layers`
//!   or `compile`) adds instruction counts, which do not depend on the load.
//! - `cargo xtask bench --check [--update-baseline]`: the speed regression
//!   gate, instruction counts against `bench/baseline.toml`.
//! - `cargo xtask mutants [--scope S] [--file GLOB]... [--unit] [-- ARGS]`: mutation
//!   testing with a pinned cargo-mutants (docs/testing.md).
//!
//! `codegen`, `api-diff`, `generate`, `mock` and `contract` are `openapi-codegen`'s commands
//! (`cli/`, `openapi_codegen_cli`) run on this workspace's
//! `spec/codegen.toml`; the arguments are parsed with clap, and every task
//! has `--help`.

mod api_diff;
mod bench;
mod codegen;
mod external_specs;
mod generate;
mod mutants;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use openapi_codegen_cli::args::{ApiDiffArgs, CodegenArgs, ContractArgs, GenerateArgs, MockArgs};

/// A task's failure, said to the user.
#[derive(Debug)]
pub struct Failure(pub String);

/// The tasks' result type.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

/// A failure with `message`.
pub fn fail(message: impl Into<String>) -> Failure {
    Failure(message.into())
}

impl From<openapi_codegen::Error> for Failure {
    fn from(error: openapi_codegen::Error) -> Self {
        Failure(error.to_string())
    }
}

impl From<openapi_codegen_cli::Failure> for Failure {
    fn from(failure: openapi_codegen_cli::Failure) -> Self {
        Failure(failure.message)
    }
}

/// The workspace's tasks
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    arg_required_else_help = true
)]
struct Xtask {
    #[command(subcommand)]
    task: Task,
}

/// `external-specs`'s options.
#[derive(Debug, Args)]
struct ExternalSpecsArgs {
    /// Only the documents whose crate name starts with NAME (repeatable):
    /// `fixture-openapi-3-2` for one fixture and its drive test; CI runs
    /// them all
    #[arg(long, value_name = "NAME")]
    only: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Regenerate the generated crates from spec/codegen.toml; with
    /// --check, write nothing and fail if they differ
    Codegen(CodegenArgs),
    /// List every change of each document in spec/codegen.toml since
    /// GIT-REV (default HEAD), each compatible or breaking on the wire and
    /// for Rust code using the generated crates; fail when a change breaks
    /// and the crates' version was not bumped as semver asks
    ApiDiff(ApiDiffArgs),
    /// Generate models, client and server crates for any OpenAPI 3.0 or 3.1
    /// document into DIR, a workspace of its own (as `openapi-codegen
    /// generate`)
    Generate(GenerateArgs),
    /// Serve a document as a mock (as `openapi-codegen mock`): requests
    /// checked as the generated stubs check them, answers from its
    /// examples or made up from its schemas
    Mock(MockArgs),
    /// Send each operation's example request to a live API and check its
    /// answer against the document (as `openapi-codegen contract`)
    Contract(ContractArgs),
    /// Generate models, client and server crates for every document in
    /// codegen-tests/specs/external/ and external-3.1/ (and every golden
    /// fixture) into target/external-specs/ and check them with clippy and
    /// rustdoc, warnings as errors
    ExternalSpecs(ExternalSpecsArgs),
    /// Format, codegen drift, clippy, tests and rustdoc: every check a
    /// change must pass (CI runs external-specs as a step of its own)
    Test,
    /// Build the service and bench/ in release and measure (codegen time,
    /// the generated layer against hand-written axum, the service on SQLite
    /// and PostgreSQL); prints a Markdown report and writes
    /// target/bench/report.md (about 2 minutes after the build; --quick: 30
    /// s)
    Bench(BenchArgs),
    /// Mutation testing: installs cargo-mutants (pinned) into target/tools/,
    /// runs it with CI=true on the scope (or on the --file globs instead of
    /// the scope's files) and prints caught / missed / unviable / timeouts
    /// and every missed mutant; fails if one is missed (slow: see
    /// docs/testing.md)
    Mutants(MutantsArgs),
}

/// `cargo xtask bench`'s options, passed on to `bench::run` as given.
#[derive(Debug, Args)]
struct BenchArgs {
    /// The speed regression gate: count the instructions of each case with a
    /// target under valgrind and fail when one is more than 15 % over
    /// bench/baseline.toml
    #[arg(long)]
    check: bool,
    /// With --check: write the counts as the baseline
    #[arg(long, requires = "check")]
    update_baseline: bool,
    /// About 30 seconds of measuring, noisier
    #[arg(long, conflicts_with = "check")]
    quick: bool,
    /// One part: codegen, layer, service, service-layers, rate-limit,
    /// rate-limit-memory, or compile (no release build: the generated crates
    /// beside progenitor's, written to target/bench/compile.md)
    #[arg(long, value_name = "PART", conflicts_with = "check")]
    only: Option<String>,
    /// With --only service-layers or compile: count instructions under
    /// valgrind's callgrind, which do not depend on the load
    #[arg(long, conflicts_with = "check")]
    callgrind: bool,
    /// The PostgreSQL server to measure on (default:
    /// postgres://postgres@127.0.0.1:5432/test)
    #[arg(long, value_name = "URL")]
    postgres: Option<String>,
    /// Only this database: sqlite or postgres
    #[arg(long, value_name = "BACKEND")]
    backend: Option<String>,
    /// Passed on to logistics-bench
    #[arg(long, value_name = "N")]
    connections: Option<String>,
    /// Passed on to logistics-bench
    #[arg(long, value_name = "N")]
    max_connections: Option<String>,
    /// Passed on to logistics-bench
    #[arg(long, value_name = "N")]
    layer_rounds: Option<String>,
    /// Passed on to logistics-bench
    #[arg(long, value_name = "N")]
    layer_requests: Option<String>,
}

impl BenchArgs {
    /// The arguments as `bench::run` takes them: `--check` first.
    fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let flags = [
            (self.check, "--check"),
            (self.update_baseline, "--update-baseline"),
            (self.quick, "--quick"),
        ];
        args.extend(flags.iter().filter(|f| f.0).map(|f| f.1.to_owned()));
        if let Some(only) = &self.only {
            args.extend(["--only".to_owned(), only.clone()]);
        }
        if self.callgrind {
            args.push("--callgrind".to_owned());
        }
        let passed = [
            ("--postgres", &self.postgres),
            ("--backend", &self.backend),
            ("--connections", &self.connections),
            ("--max-connections", &self.max_connections),
            ("--layer-rounds", &self.layer_rounds),
            ("--layer-requests", &self.layer_requests),
        ];
        for (name, value) in passed {
            if let Some(value) = value {
                args.extend([name.to_owned(), value.clone()]);
            }
        }
        args
    }
}

/// `cargo xtask mutants`'s options.
#[derive(Debug, Args)]
struct MutantsArgs {
    /// default, domain, generator, runtime or all
    #[arg(long, value_name = "S")]
    scope: Option<String>,
    /// Mutate the files matching GLOB instead of the scope's files
    #[arg(long, value_name = "GLOB")]
    file: Vec<String>,
    /// The quick pass only (unit tests; the generator's golden and errors
    /// too)
    #[arg(long)]
    unit: bool,
    /// Passed on to cargo-mutants
    #[arg(last = true, value_name = "CARGO-MUTANTS-ARGS")]
    rest: Vec<String>,
}

impl MutantsArgs {
    /// The arguments as `mutants::run` takes them.
    fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(scope) = &self.scope {
            args.extend(["--scope".to_owned(), scope.clone()]);
        }
        for file in &self.file {
            args.extend(["--file".to_owned(), file.clone()]);
        }
        if self.unit {
            args.push("--unit".to_owned());
        }
        if !self.rest.is_empty() {
            args.push("--".to_owned());
            args.extend(self.rest.iter().cloned());
        }
        args
    }
}

fn main() -> ExitCode {
    let xtask = Xtask::parse();
    let root = workspace_root();
    let result = match &xtask.task {
        Task::Codegen(args) => codegen::run(&root, args.check),
        Task::ApiDiff(args) => api_diff::run(&root, args),
        Task::Test => test::run(&root),
        Task::Bench(args) => {
            let args = args.to_args();
            bench::run(&root, &args.iter().map(String::as_str).collect::<Vec<_>>())
        }
        Task::Mutants(args) => {
            let args = args.to_args();
            mutants::run(&root, &args.iter().map(String::as_str).collect::<Vec<_>>())
        }
        Task::ExternalSpecs(args) => external_specs::run(&root, &args.only),
        Task::Generate(args) => generate::run(args),
        Task::Mock(args) => openapi_codegen_cli::mock::mock(args).map_err(Into::into),
        Task::Contract(args) => openapi_codegen_cli::mock::contract(args).map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the parent of this crate's folder, unless
/// `XTASK_WORKSPACE_ROOT` names another (the drift test uses a copy).
#[allow(
    clippy::expect_used,
    reason = "xtask lives in the workspace: its manifest folder has a parent"
)]
fn workspace_root() -> PathBuf {
    match std::env::var_os("XTASK_WORKSPACE_ROOT") {
        Some(root) => PathBuf::from(root),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives in the workspace")
            .to_path_buf(),
    }
}
