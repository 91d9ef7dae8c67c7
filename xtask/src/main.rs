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
//! - `cargo xtask external-specs`: generate crates for every vendored public
//!   document (and every golden fixture) into one scratch workspace and build it.
//! - `cargo xtask test`: every check a change must pass (the README's test command).
//! - `cargo xtask bench [--quick] [--only codegen|layer|service|service-layers|rate-limit|compile]
//!   [--callgrind]`: the benchmarks (`bench/`), a Markdown report in
//!   `target/bench/report.md`; `--callgrind` (with `--only service-layers`
//!   or `compile`) adds instruction counts, which do not depend on the load.
//! - `cargo xtask bench --check [--update-baseline]`: the speed regression
//!   gate, instruction counts against `bench/baseline.toml`.
//! - `cargo xtask mutants [--scope S] [--file GLOB]... [--unit] [-- ARGS]`: mutation
//!   testing with a pinned cargo-mutants (docs/testing.md).

mod api_diff;
mod bench;
mod codegen;
mod external_specs;
mod generate;
mod mutants;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  codegen [--check]   regenerate the generated crates from spec/codegen.toml;
                      with --check, write nothing and fail if they differ
  api-diff [--base GIT-REV] [--changelog]
                      list every change of each document in spec/codegen.toml
                      since GIT-REV (default HEAD), each compatible or breaking
                      on the wire and for Rust code using the generated crates;
                      fail when a change breaks and the crates' version was not
                      bumped as semver asks; --changelog prints a draft section
  generate --spec PATH --out DIR [--name NAME] [--runtime SOURCE] [--client-only]
                      generate models, client and server crates for any
                      OpenAPI 3.0 document into DIR, a workspace of its own;
                      SOURCE of openapi-runtime: vendor (default: copied into
                      DIR/openapi-runtime), path:PATH or git:URL;
                      --client-only: one crate, the client, with the models
                      as its `models` module
  external-specs      generate models, client and server crates for every
                      document in codegen-tests/specs/external/ and
                      external-3.1/ (and every golden fixture) into
                      target/external-specs/ and check them with clippy and
                      rustdoc, warnings as errors
  test                format, codegen drift, clippy, tests, rustdoc and
                      external-specs: every check a change must pass
  bench [--quick] [--only codegen|layer|service|service-layers|rate-limit|compile]
        [--callgrind]
                      build the service and bench/ in release and measure:
                      codegen time, the generated layer against hand-written
                      axum, the service on SQLite and PostgreSQL; prints a
                      Markdown report and writes target/bench/report.md
                      (about 2 minutes after the build; --quick: 30 s)
                      --only compile: no release build; the generated crates
                      beside progenitor's (generation, debug rebuild, lines),
                      written to target/bench/compile.md
                      --callgrind (with --only service-layers or compile):
                      count instructions under valgrind's callgrind, which do
                      not depend on the load: per request of the service, or
                      of one incremental rebuild (cargo and rustc apart)
  bench --check [--update-baseline]
                      the speed regression gate: count the instructions of
                      each case with a target (bulk upsert on SQLite and
                      PostgreSQL, GET sales order, createCustomer, the
                      operations layers, codegen) under valgrind and fail
                      when one is more than 15 % over bench/baseline.toml;
                      --update-baseline writes the counts as the baseline
  mutants [--scope default|domain|generator|runtime|all] [--file GLOB]...
          [--unit] [-- CARGO-MUTANTS-ARGS]
                      mutation testing: installs cargo-mutants (pinned) into
                      target/tools/, runs it with CI=true on the scope (or on
                      the --file globs instead of the scope's files) and
                      prints caught / missed / unviable / timeouts and every
                      missed mutant; fails if one is missed. The quick
                      tests (unit; the generator's golden and errors too)
                      judge every mutant, then every test target judges
                      again what they missed; --unit: the quick pass only.
                      Slow: see docs/testing.md
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = workspace_root();
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(&root, false),
        ["codegen", "--check"] => codegen::run(&root, true),
        ["api-diff", rest @ ..] => api_diff::run(&root, rest),
        ["test"] => test::run(&root),
        ["bench", rest @ ..] => bench::run(&root, rest),
        ["mutants", rest @ ..] => mutants::run(&root, rest),
        ["external-specs"] => external_specs::run(&root),
        ["generate", rest @ ..] => generate::run(&root, rest),
        ["help" | "--help" | "-h"] | [] => {
            print!("{USAGE}");
            Ok(())
        }
        _ => Err(fail(format!(
            "unknown arguments: {}\n\n{USAGE}",
            args.join(" ")
        ))),
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
fn workspace_root() -> PathBuf {
    match std::env::var_os("XTASK_WORKSPACE_ROOT") {
        Some(root) => PathBuf::from(root),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives in the workspace")
            .to_path_buf(),
    }
}
