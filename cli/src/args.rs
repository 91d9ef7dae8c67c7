//! The commands' options, shared by the `openapi-codegen` binary and
//! `cargo xtask`, so that both take and explain them alike.

use std::path::PathBuf;

use clap::Args;
use openapi_codegen::RuntimeSource;

/// `codegen`'s options.
#[derive(Debug, Clone, Args)]
pub struct CodegenArgs {
    /// Write nothing; fail (exit code 1) when a generated file differs from
    /// what the generator writes, or is there and should not be
    #[arg(long)]
    pub check: bool,
}

/// `api-diff`'s options.
#[derive(Debug, Clone, Args)]
pub struct ApiDiffArgs {
    /// The git revision to compare the documents with
    #[arg(long, value_name = "GIT-REV", default_value = "HEAD")]
    pub base: String,
    /// Also print a draft changelog section for each document
    #[arg(long)]
    pub changelog: bool,
}

/// `generate`'s options.
#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// The OpenAPI 3.0, 3.1 or 3.2 document, or Swagger 2.0 (YAML or JSON;
    /// the root file of a document in several files)
    #[arg(long, value_name = "PATH")]
    pub spec: PathBuf,
    /// The folder to write into; it becomes a workspace of its own
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The crate names' prefix (NAME-models, NAME-client, NAME-server);
    /// default: the document's file name
    #[arg(long)]
    pub name: Option<String>,
    /// Where the crates get openapi-runtime: `vendor`, a copy of the
    /// runtime built into this binary (the generator's own version) in
    /// DIR/openapi-runtime; `path:PATH`, the crate at PATH; `git:URL`, the
    /// crate in that git repository
    #[arg(long, value_name = "SOURCE", default_value = "vendor", value_parser = runtime_source)]
    pub runtime: RuntimeSource,
    /// One crate, the client, with the models as its `models` module
    #[arg(long)]
    pub client_only: bool,
}

/// `vendor`, `path:PATH` or `git:URL`.
pub fn runtime_source(text: &str) -> Result<RuntimeSource, String> {
    match text.split_once(':') {
        _ if text == "vendor" => Ok(RuntimeSource::Vendored(
            RuntimeSource::VENDORED_DIR.to_owned(),
        )),
        Some(("path", path)) if !path.is_empty() => Ok(RuntimeSource::Path(path.to_owned())),
        Some(("git", url)) if !url.is_empty() => Ok(RuntimeSource::Git(url.to_owned())),
        _ => Err(format!("takes vendor, path:PATH or git:URL, not `{text}`")),
    }
}

/// The settings file of `codegen` and `api-diff`.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// The settings file; default: codegen.toml or spec/codegen.toml in the
    /// current folder or the nearest one above it
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

/// `mock`'s options.
#[derive(Debug, Clone, Args)]
pub struct MockArgs {
    /// The OpenAPI 3.0, 3.1 or 3.2 document, or Swagger 2.0, to serve
    #[arg(long, value_name = "PATH")]
    pub spec: PathBuf,
    /// The address to listen on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:4010")]
    pub listen: String,
    /// The seed of the data made up for answers the document has no
    /// example of: the same seed, the same answers
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
}

/// `contract`'s options.
#[derive(Debug, Clone, Args)]
pub struct ContractArgs {
    /// The OpenAPI 3.0, 3.1 or 3.2 document, or Swagger 2.0, to hold the
    /// API to
    #[arg(long, value_name = "PATH")]
    pub spec: PathBuf,
    /// The API's base URL, which the document's paths follow
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// A header every request carries, such as a credential
    /// ('Authorization: Bearer …'); repeatable
    #[arg(long, value_name = "NAME: VALUE")]
    pub header: Vec<String>,
}
