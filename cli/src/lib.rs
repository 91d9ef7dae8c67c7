//! The commands of `openapi-codegen`, the generator as an installed tool,
//! for the binary and for this workspace's `cargo xtask`, which calls the
//! same code with its own `spec/codegen.toml`.
//!
//! - [`generate`]: one document into a workspace of its own, the runtime
//!   vendored from the copy built into the binary ([`runtime`]);
//! - [`codegen`]: every `[[api]]` of a project's `codegen.toml`, written or
//!   checked (`--check`);
//! - [`api_diff`]: each document of the `codegen.toml` against a git
//!   revision, and whether the crates' version follows semver;
//! - [`mock`]: a document served as a mock, and `contract`, a live API
//!   held to its document.
//!
//! It is a crate of its own, not a binary of `openapi-codegen`, so that a
//! `build.rs` that depends on the generator does not compile clap (D53).
//!
//! Every failure carries the exit code the binary ends with: 1 when the
//! generated files drifted or a change breaks without a version bump
//! ([`Failure::drift`]), 2 for a usage, settings or document error.

pub mod api_diff;
pub mod args;
pub mod codegen;
pub mod generate;
pub mod mock;
pub mod runtime;

use std::path::{Path, PathBuf};

/// Why a command failed, and the exit code that says so.
#[derive(Debug)]
pub struct Failure {
    /// [`Failure::DRIFT`] or [`Failure::ERROR`].
    pub code: u8,
    /// What to tell the user.
    pub message: String,
}

impl Failure {
    /// The exit code of drift or of a breaking change without a version bump.
    pub const DRIFT: u8 = 1;
    /// The exit code of a usage, settings or document error (clap's too).
    pub const ERROR: u8 = 2;

    /// Generated files that differ from the generator's, or a breaking
    /// change without the version bump semver asks for: exit code 1.
    pub fn drift(message: impl Into<String>) -> Self {
        Failure {
            code: Self::DRIFT,
            message: message.into(),
        }
    }
}

/// A failure with `message` and exit code 2.
pub fn fail(message: impl Into<String>) -> Failure {
    Failure {
        code: Failure::ERROR,
        message: message.into(),
    }
}

impl From<openapi_codegen::Error> for Failure {
    fn from(error: openapi_codegen::Error) -> Self {
        fail(error.to_string())
    }
}

/// The commands' result type.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

/// A project that generates crates from a `codegen.toml`.
#[derive(Debug, Clone)]
pub struct Project {
    /// The folder the settings' paths are relative to.
    pub root: PathBuf,
    /// The settings file, relative to `root`, as messages name it
    /// (`spec/codegen.toml`).
    pub config: String,
    /// How the user runs the commands, quoted in messages and in the
    /// generated files' headers: `openapi-codegen` or `cargo xtask`.
    pub tool: String,
}

/// The settings file's names, looked for in each folder from the current
/// one upward, in this order.
pub const CONFIG_NAMES: [&str; 2] = ["codegen.toml", "spec/codegen.toml"];

impl Project {
    /// The project whose settings are `root/config`, run as `tool`.
    pub fn new(root: impl Into<PathBuf>, config: &str, tool: &str) -> Self {
        Project {
            root: root.into(),
            config: config.to_owned(),
            tool: tool.to_owned(),
        }
    }

    /// The project of the settings file `given`, or else of the first
    /// [`CONFIG_NAMES`] found from `start` upward. Its root is the nearest
    /// folder at or above the settings file that holds a `Cargo.toml` (the
    /// file's own folder when none does).
    pub fn find(start: &Path, given: Option<&Path>, tool: &str) -> Result<Self> {
        let config = match given {
            Some(path) => {
                let path = start.join(path);
                if !path.is_file() {
                    return Err(fail(format!("{}: no such file", path.display())));
                }
                path
            }
            None => start
                .ancestors()
                .flat_map(|dir| CONFIG_NAMES.map(|name| dir.join(name)))
                .find(|path| path.is_file())
                .ok_or_else(|| {
                    fail(format!(
                        "no codegen.toml or spec/codegen.toml in {} or a folder above it; \
                         write one (see `{tool} codegen --help`) or pass --config PATH",
                        start.display()
                    ))
                })?,
        };
        let config = config
            .canonicalize()
            .map_err(|e| fail(format!("{}: {e}", config.display())))?;
        // A canonical path to a file always has a folder.
        let folder = config.parent().unwrap_or(&config);
        let root = folder
            .ancestors()
            .find(|dir| dir.join("Cargo.toml").is_file())
            .unwrap_or(folder);
        let label = config
            .strip_prefix(root)
            .unwrap_or(&config)
            .to_string_lossy()
            .replace('\\', "/");
        Ok(Project::new(root, &label, tool))
    }

    /// `tool task`: how the user runs `task`.
    pub fn command(&self, task: &str) -> String {
        format!("{} {task}", self.tool)
    }

    /// The settings.
    pub fn load(&self) -> Result<openapi_codegen::config::Config> {
        Ok(openapi_codegen::config::Config::load(
            &self.root.join(&self.config),
            &self.config,
        )?)
    }
}

/// Writes `contents` to `path` (creating its folder) unless the file already
/// holds them, so that cargo sees unchanged files as unchanged; says whether
/// it wrote.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<bool> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| fail(format!("{}: {e}", parent.display())))?;
    }
    std::fs::write(path, contents).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    Ok(true)
}

/// The files under `dir`, subfolders included, `target` folders aside.
pub fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry.map_err(|e| fail(format!("{}: {e}", dir.display())))?;
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Project;

    #[test]
    fn the_settings_are_found_upward_and_the_root_is_the_nearest_cargo_project() {
        let dir = std::env::temp_dir().join(format!("openapi-codegen-find-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("spec")).unwrap();
        std::fs::create_dir_all(dir.join("crates/deep")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), "").unwrap();
        std::fs::write(dir.join("spec/codegen.toml"), "api = []").unwrap();

        let found = Project::find(&dir.join("crates/deep"), None, "t").unwrap();
        assert_eq!(found.root, dir.canonicalize().unwrap());
        assert_eq!(found.config, "spec/codegen.toml");
        assert_eq!(found.command("codegen"), "t codegen");

        std::fs::write(dir.join("crates/codegen.toml"), "api = []").unwrap();
        let found = Project::find(&dir.join("crates/deep"), None, "t").unwrap();
        assert_eq!(found.config, "crates/codegen.toml");

        let given = Project::find(&dir, Some("spec/codegen.toml".as_ref()), "t").unwrap();
        assert_eq!(given.config, "spec/codegen.toml");
        assert!(Project::find(&dir, Some("nope.toml".as_ref()), "t").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
