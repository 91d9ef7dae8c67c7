//! `api-diff [--base GIT-REV] [--changelog]`: what changed in each
//! document of a project's `codegen.toml` since a git revision, what each
//! change breaks (on the wire, for Rust code using the generated crates),
//! and whether the crates' version was bumped as semver asks (exit code 1
//! when it was not).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use openapi_codegen::config::{Config, Target};
use openapi_codegen::diff::{self, Crates, Version};
use openapi_codegen::parse::Document;

use crate::args::ApiDiffArgs;
use crate::{Failure, Project, Result, fail};

/// Runs the command for `project`.
pub fn run(project: &Project, args: &ApiDiffArgs) -> Result<()> {
    let outcome = compare(project, &args.base)?;
    print!("{}", outcome.text);
    if args.changelog {
        for (version, report) in &outcome.reports {
            println!("\nA changelog section for {}:\n", report.file);
            print!("{}", report.changelog(version));
        }
    }
    if outcome.problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::drift(outcome.problems.join("\n")))
    }
}

/// What a comparison found.
pub struct Outcome {
    /// The summary, for printing.
    pub text: String,
    /// Breaking changes without the version bump semver asks for, one
    /// message each.
    pub problems: Vec<String>,
    /// Each document's report, with the version it would be released as.
    pub reports: Vec<(String, diff::Report)>,
}

/// Compares every document of the working tree's `codegen.toml` with the
/// same file at the git revision `base`.
pub fn compare(project: &Project, base: &str) -> Result<Outcome> {
    let root = project.root.as_path();
    let config_label = project.config.as_str();
    let config = project.load()?;
    let base_config = match git_show(root, base, config_label)? {
        Some(text) => Some(Config::parse(&text, &format!("{base}:{config_label}"))?),
        None => None,
    };
    let mut outcome = Outcome {
        text: String::new(),
        problems: Vec::new(),
        reports: Vec::new(),
    };
    for target in &config.api {
        let spec = target.spec.to_string_lossy().replace('\\', "/");
        let Some(old_text) = git_show(root, base, &spec)? else {
            outcome.text.push_str(&format!(
                "{spec}: not in {base}: a new document, nothing to compare\n"
            ));
            continue;
        };
        let old = if refers_to_files(&old_text) {
            document_at(root, base, &spec)?
        } else {
            let is_json = spec.ends_with(".json");
            Document::parse(&old_text, &format!("{base}:{spec}"), is_json)?
        };
        let new = Document::load(&root.join(&target.spec), &spec)?;
        let report = diff::compare(&old, &new, Crates::of(target));
        outcome.text.push_str(&report.render(base));

        let version = version_of(
            target,
            &std::fs::read_to_string(root.join("Cargo.toml")).ok(),
        );
        let base_target = base_config
            .as_ref()
            .and_then(|c| c.api.iter().find(|t| t.spec == target.spec));
        let base_version = match base_target {
            Some(t) => version_of(t, &git_show(root, base, "Cargo.toml")?),
            None => None,
        };
        let shown = version
            .as_ref()
            .map_or_else(|| "unset".to_owned(), Version::to_string);
        if report.is_breaking() {
            match (&base_version, &version) {
                (Some(was), Some(now)) if now.allows_breaking_from(was) => {
                    outcome.text.push_str(&format!(
                        "{spec}: version {was} → {now}: bumped as semver asks for these breaking changes\n"
                    ));
                }
                (Some(was), _) => outcome.problems.push(format!(
                    "{spec} has breaking changes since {base}, but the crates' version is {shown}: \
                     semver asks for at least {} (set `version` in {config_label}, and add its section to the changelog)",
                    was.next_breaking()
                )),
                (None, _) => {
                    outcome.text.push_str(&format!(
                        "{spec}: {base} has no version for these crates: nothing to hold the version {shown} to\n"
                    ));
                }
            }
        } else if let (Some(was), Some(now)) = (&base_version, &version) {
            outcome.text.push_str(&format!(
                "{spec}: version {was} → {now}: no breaking change\n"
            ));
        }
        outcome.reports.push((shown, report));
    }
    Ok(outcome)
}

/// The crates' version: the target's `version`, else the workspace's
/// `[workspace.package] version` from the root manifest's text (which they
/// inherit then).
fn version_of(target: &Target, manifest: &Option<String>) -> Option<Version> {
    if let Some(version) = &target.version {
        return Version::parse(version);
    }
    let manifest: toml::Table = manifest.as_deref()?.parse().ok()?;
    let version = manifest
        .get("workspace")?
        .get("package")?
        .get("version")?
        .as_str()?;
    Version::parse(version)
}

/// Whether a document's text has a `$ref` to another file (one that does
/// not start with `#`): if so, it is read with its files ([`document_at`]).
fn refers_to_files(text: &str) -> bool {
    text.match_indices("$ref").any(|(at, _)| {
        let rest = text[at + "$ref".len()..].trim_start_matches(['"', '\'', ' ', ':', '\t']);
        !rest.starts_with('#')
    })
}

/// The document `spec` as it was at `rev`, in several files: read from a
/// copy of the revision's tree (`git archive`), so that its references lead
/// where they led then.
fn document_at(root: &Path, rev: &str, spec: &str) -> Result<Document> {
    let dir = std::env::temp_dir().join(format!(
        "openapi-codegen-api-diff-base-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    let archive = Command::new("git")
        .current_dir(root)
        .args(["archive", "--format=tar", rev])
        .output()
        .map_err(|e| fail(format!("cannot run git: {e}")))?;
    if !archive.status.success() {
        return Err(fail(format!(
            "git archive {rev} failed{}",
            stderr_line(&archive.stderr)
        )));
    }
    let mut tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&dir)
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run tar: {e}")))?;
    if let Some(mut stdin) = tar.stdin.take() {
        stdin
            .write_all(&archive.stdout)
            .map_err(|e| fail(format!("tar: {e}")))?;
    }
    let unpacked = tar.wait().map_err(|e| fail(format!("tar: {e}")))?.success();
    let document = if unpacked {
        Document::load(&dir.join(spec), &format!("{rev}:{spec}")).map_err(Into::into)
    } else {
        Err(fail(format!(
            "could not unpack {rev} into {}",
            dir.display()
        )))
    };
    let _ = std::fs::remove_dir_all(&dir);
    document
}

/// The file at `path` (relative to the workspace root) in the git revision
/// `rev`; `None` when the revision has no such file.
fn git_show(root: &Path, rev: &str, path: &str) -> Result<Option<String>> {
    let output = Command::new("git")
        .current_dir(root)
        .args([
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
        .output()
        .map_err(|e| fail(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        return Err(fail(format!(
            "`{rev}` is not a commit of the git repository at {}{}",
            root.display(),
            stderr_line(&output.stderr)
        )));
    }
    let output = Command::new("git")
        .current_dir(root)
        .args(["show", &format!("{rev}:./{path}")])
        .output()
        .map_err(|e| fail(format!("cannot run git: {e}")))?;
    if output.status.success() {
        String::from_utf8(output.stdout)
            .map(Some)
            .map_err(|_| fail(format!("{rev}:{path} is not UTF-8")))
    } else {
        Ok(None)
    }
}

fn stderr_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().next() {
        Some(line) if !line.trim().is_empty() => format!(" ({})", line.trim()),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::refers_to_files;

    #[test]
    fn references_to_other_files_are_told_from_local_ones() {
        assert!(!refers_to_files("schema: {$ref: '#/components/schemas/A'}"));
        assert!(!refers_to_files(
            r##"{"schema": {"$ref": "#/components/schemas/A"}}"##
        ));
        assert!(refers_to_files("schema:\n  $ref: schemas/a.yaml\n"));
        assert!(refers_to_files(r#"{"$ref": "common.json#/A"}"#));
    }
}
