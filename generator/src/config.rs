//! The generator's settings: which documents become which crates
//! (`spec/codegen.toml` in this workspace).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// Every API a workspace generates.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// One entry per document.
    pub api: Vec<Target>,
}

impl Config {
    /// Reads the settings at `path`; `label` is how messages name the file.
    pub fn load(path: &Path, label: &str) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, label)
    }

    /// Parses settings text.
    pub fn parse(text: &str, label: &str) -> Result<Self> {
        let config: Config = toml::from_str(text).map_err(|e| Error::Config {
            file: label.to_owned(),
            message: e.to_string(),
        })?;
        for target in &config.api {
            target.check(label)?;
        }
        Ok(config)
    }
}

/// One document and the crates made from it. Paths are relative to the
/// workspace root.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Target {
    /// The OpenAPI document.
    pub spec: PathBuf,
    /// The models crate (always generated: the others depend on it).
    pub models: CrateTarget,
    /// The client crate, if wanted.
    pub client: Option<CrateTarget>,
    /// The server-stubs crate, if wanted.
    pub server: Option<CrateTarget>,
    /// The name of the server trait; by default made from `info.title`.
    #[serde(default)]
    pub trait_name: Option<String>,
    /// The schema every error response uses (`components.schemas` key): the
    /// client's `ErrorBody`, and the shape the server stubs write every error
    /// in, their own included. Its properties are matched by name to the
    /// parts of an error (status, message, error code, the problems, the
    /// request id, the time; see ARCHITECTURE.md); a required one that
    /// matches none is an error. Without one, the server stubs write RFC
    /// 9457 problem details (`application/problem+json`).
    #[serde(default)]
    pub error_schema: Option<String>,
    /// API-key security schemes (by their `components.securitySchemes`
    /// name) whose key the client sends after `Bearer `, for documents that
    /// say so only in words (an `apiKey` in `Authorization` described as
    /// "sent as `Bearer <token>`"). Other API keys are sent as given;
    /// `type: http, scheme: bearer` needs no entry. The server stubs hand
    /// the header's value to the authentication hook as it came.
    #[serde(default)]
    pub bearer_api_keys: Vec<String>,
    /// Whether the client also accepts success bodies wrapped as
    /// `{"data": ..., "status": ...}`.
    #[serde(default)]
    pub client_accepts_data_envelope: bool,
    /// A Rust program using the client, shown as the example of the client
    /// crate's README (and compiled as its doctest); without one the README
    /// has a generic example. Read by [`generate`](crate::generate), relative
    /// to the workspace root.
    #[serde(default)]
    pub client_example: Option<PathBuf>,
    /// The generated crates' version (`MAJOR.MINOR.PATCH`), written into
    /// their `Cargo.toml`; without one they take the workspace's
    /// (`version.workspace = true`). `cargo xtask api-diff` holds it to
    /// semver against the document's changes.
    #[serde(default)]
    pub version: Option<String>,
    /// The document's changelog (Markdown, one `## <version>` section per
    /// version, newest first), relative to the workspace root. `cargo xtask
    /// codegen` copies it into the client crate as `CHANGELOG.md` and
    /// requires a section for `version`.
    #[serde(default)]
    pub changelog: Option<PathBuf>,
    /// Whether the string enums that answers carry keep a value the
    /// document does not list (in an `Unknown` variant) instead of failing
    /// the whole answer; requests stay strict either way. On by default
    /// (`open-enums = false` turns it off).
    #[serde(default = "yes")]
    pub open_enums: bool,
    /// Operations (by `operationId`) whose JSON answers the server stubs
    /// also take encoded before: each such response variant gets a twin,
    /// `<Variant>Encoded`, whose body is an `openapi_runtime::server::Encoded`
    /// of the same type, sent as it is. For an implementation that stores
    /// its answers whole and would otherwise parse and write them again on
    /// every read. Empty by default.
    #[serde(default)]
    pub encoded_answers: Vec<String>,
    /// Whether the models are the client crate's `models` module instead of
    /// a crate of their own: one crate to build for a client alone (see
    /// [`Target::client_only`]). Not a setting of `codegen.toml`, whose
    /// targets share their models crate with the server stubs.
    #[serde(skip)]
    pub models_in_client: bool,
    /// Whether the server stubs are the client crate's `server` module too,
    /// beside its `models` (see [`Target::one_crate`]); only with
    /// `models_in_client`. Not a setting of `codegen.toml`.
    #[serde(skip)]
    pub server_in_client: bool,
}

fn yes() -> bool {
    true
}

impl Target {
    /// A target for a document alone, as `cargo xtask generate` makes:
    /// `<name>-models`, `<name>-client`, `<name>-server` in `models/`,
    /// `client/`, `server/`.
    pub fn standalone(spec: PathBuf, name: &str) -> Self {
        let krate = |kind: &str| CrateTarget {
            package: format!("{name}-{kind}"),
            path: PathBuf::from(kind),
        };
        Target {
            spec,
            models: krate("models"),
            client: Some(krate("client")),
            server: Some(krate("server")),
            trait_name: None,
            error_schema: None,
            bearer_api_keys: Vec::new(),
            client_accepts_data_envelope: false,
            client_example: None,
            version: None,
            changelog: None,
            open_enums: true,
            encoded_answers: Vec::new(),
            models_in_client: false,
            server_in_client: false,
        }
    }

    /// Takes `other`'s settings of how the crates read the document (the
    /// trait's name, the error schema, `bearer-api-keys`, the data
    /// envelope, open enums, encoded answers), keeping where this target's
    /// crates go and what they are called. The version, changelog and
    /// example, files of a workspace, are not taken.
    pub fn take_settings(&mut self, other: &Target) {
        self.trait_name.clone_from(&other.trait_name);
        self.error_schema.clone_from(&other.error_schema);
        self.bearer_api_keys.clone_from(&other.bearer_api_keys);
        self.client_accepts_data_envelope = other.client_accepts_data_envelope;
        self.open_enums = other.open_enums;
        self.encoded_answers.clone_from(&other.encoded_answers);
    }

    /// A target for a document alone with only a client, as `cargo xtask
    /// generate --client-only` makes: one crate, `<name>-client` in
    /// `client/`, with the models as its `models` module. One crate
    /// rebuilds faster than two (each rustc run pays again for loading the
    /// dependencies, expanding derives and saving its incremental state),
    /// and a client alone needs no models crate to share.
    pub fn client_only(spec: PathBuf, name: &str) -> Self {
        Target {
            server: None,
            models_in_client: true,
            ..Target::standalone(spec, name)
        }
    }

    /// A target for a document alone as one crate, as a `build.rs` in full
    /// mode makes ([`crate::build::Builder::full`]): `<name>-client` in
    /// `client/`, with the models as its `models` module and the server
    /// stubs as its `server` module, both naming the models
    /// `crate::models`. The models' raw-JSON checks, which the server
    /// stubs run, are always compiled: no `validate-json` feature for the
    /// crate to declare.
    pub fn one_crate(spec: PathBuf, name: &str) -> Self {
        Target {
            models_in_client: true,
            server_in_client: true,
            ..Target::standalone(spec, name)
        }
    }

    /// Refuses package names cargo refuses, or whose crate names rustc
    /// warns are not snake case (capitals, doubled separators), and a
    /// `version` that is not one; `label` names the settings in messages.
    pub fn check(&self, label: &str) -> Result<()> {
        let crates = [
            Some(&self.models),
            self.client.as_ref(),
            self.server.as_ref(),
        ];
        for krate in crates.into_iter().flatten() {
            let package = &krate.package;
            let valid = package.starts_with(|c: char| c.is_ascii_lowercase())
                && package.split(['-', '_']).all(|word| !word.is_empty())
                && package
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
            if !valid {
                return Err(Error::Config {
                    file: label.to_owned(),
                    message: format!(
                        "`{package}` is not a valid package name: use lowercase letters, digits \
                         and single `-` between words, starting with a letter (its crate name \
                         must be snake case)"
                    ),
                });
            }
        }
        if let Some(version) = &self.version {
            if crate::diff::Version::parse(version).is_none() {
                return Err(Error::Config {
                    file: label.to_owned(),
                    message: format!(
                        "`version = \"{version}\"` is not a version of the form MAJOR.MINOR.PATCH"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Where one generated crate goes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrateTarget {
    /// The package name, e.g. `logistics-models`.
    pub package: String,
    /// The crate's folder, relative to the workspace root.
    pub path: PathBuf,
}

impl CrateTarget {
    /// The crate's name in Rust code (`logistics_models`).
    pub fn lib_name(&self) -> String {
        self.package.replace('-', "_")
    }
}

#[cfg(test)]
mod tests {
    use super::{Config, Target};

    #[test]
    fn package_names_must_give_snake_case_crate_names() {
        let check = |name: &str| Target::standalone("a.yaml".into(), name).check("--name");
        assert!(check("petstore").is_ok());
        assert!(check("api-1forge-com").is_ok());
        assert!(check("pet_store").is_ok());
        for refused in [
            "recurrence--v1",
            "Petstore",
            "1forge",
            "-pets",
            "pets-",
            "pet store",
            "",
        ] {
            let error = check(refused).expect_err(refused).to_string();
            assert!(error.starts_with("--name: `"), "{error}");
        }
    }

    /// Answers' enums keep unknown values unless `open-enums = false`.
    #[test]
    fn open_enums_are_on_unless_turned_off() {
        let settings = |extra: &str| {
            let text = format!(
                "[[api]]\nspec = \"a.yaml\"\nmodels = {{ package = \"a-models\", path = \"a\" }}\n{extra}"
            );
            Config::parse(&text, "codegen.toml").unwrap().api[0].open_enums
        };
        assert!(settings(""));
        assert!(!settings("open-enums = false\n"));
    }
}
