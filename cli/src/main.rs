//! `openapi-codegen`: the OpenAPI → Rust generator as an installed tool.
//! See the crate's library for the commands, and the README's "Using the
//! generator on another API".

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use openapi_codegen_cli::args::{
    ApiDiffArgs, CodegenArgs, ConfigArgs, ContractArgs, GenerateArgs, MockArgs,
};
use openapi_codegen_cli::{Failure, Project, Result, api_diff, codegen, fail, generate, mock};

/// The tool's name, quoted in messages and in the generated files' headers.
const TOOL: &str = "openapi-codegen";

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  generated files out of date (codegen --check), a breaking change
     without the version bump semver asks for (api-diff), or an answer
     that breaks the document (contract)
  2  usage error, or an error in the settings or the document";

/// Turns OpenAPI 3.0, 3.1 and 3.2 (and Swagger 2.0) documents into Rust
/// crates: models, a reqwest client and axum server stubs
#[derive(Debug, Parser)]
#[command(name = TOOL, version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate crates for one document into a folder that becomes a
    /// workspace of its own
    #[command(after_help = EXIT_CODES)]
    Generate(GenerateArgs),
    /// Regenerate the crates of every [[api]] of the project's codegen.toml
    /// (paths relative to the nearest folder at or above it with a
    /// Cargo.toml), or check them with --check
    #[command(after_help = EXIT_CODES)]
    Codegen {
        #[command(flatten)]
        args: CodegenArgs,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// List every change of each document of codegen.toml since a git
    /// revision, compatible or breaking, and check that the crates' version
    /// follows semver
    #[command(after_help = EXIT_CODES)]
    ApiDiff {
        #[command(flatten)]
        args: ApiDiffArgs,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Serve a document as a mock: requests checked as the generated
    /// server stubs check them, answers from its examples or made up from
    /// its schemas (Prism's Prefer headers: code=, example=, dynamic=true)
    #[command(after_help = EXIT_CODES)]
    Mock(MockArgs),
    /// Send each operation's example request to a live API and check its
    /// answer against the document: status, media type, body, headers
    #[command(after_help = EXIT_CODES)]
    Contract(ContractArgs),
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { code, message }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let project = |config: &ConfigArgs| {
        let here = std::env::current_dir().map_err(|e| fail(format!("current folder: {e}")))?;
        Project::find(&here, config.config.as_deref(), TOOL)
    };
    match cli.command {
        Command::Generate(args) => generate::run(&args, &format!("{TOOL} generate")),
        Command::Codegen { args, config } => codegen::run(&project(&config)?, args.check),
        Command::ApiDiff { args, config } => api_diff::run(&project(&config)?, &args),
        Command::Mock(args) => mock::mock(&args),
        Command::Contract(args) => mock::contract(&args),
    }
}
