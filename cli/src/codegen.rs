//! `codegen [--check]`: regenerates every crate named in a project's
//! `codegen.toml`, or checks that the files on disk match (exit code 1
//! when they do not). After writing, it prints what `api-diff` says of the
//! documents against `HEAD`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use openapi_codegen::emit::Files;

use crate::{Failure, Project, Result, fail, walk, write_if_changed};

/// Runs the codegen command for `project`.
pub fn run(project: &Project, check: bool) -> Result<()> {
    let root = project.root.as_path();
    let started = Instant::now();
    let files = generate_all(project)?;
    let elapsed = started.elapsed();
    let stale = stale_files(project, &files)?;
    if check {
        let mut problems = Vec::new();
        for (path, contents) in files.iter() {
            let on_disk = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            if on_disk != contents {
                problems.push(format!(
                    "{} differs from what the generator writes:\n{}",
                    path.display(),
                    diff(&on_disk, contents)
                ));
            }
        }
        for path in &stale {
            problems.push(format!(
                "{} should not be there: the generator does not write it",
                path.display()
            ));
        }
        if !problems.is_empty() {
            for problem in &problems {
                eprintln!("{problem}");
            }
            return Err(Failure::drift(format!(
                "{} generated file(s) are out of date; run `{}` and commit the result",
                problems.len(),
                project.command("codegen")
            )));
        }
        println!(
            "codegen --check: {} generated files are up to date (generated in {} ms)",
            files.len(),
            elapsed.as_millis()
        );
        return Ok(());
    }
    let mut written = 0;
    for (path, contents) in files.iter() {
        if write_if_changed(&root.join(path), contents)? {
            println!("wrote {}", path.display());
            written += 1;
        }
    }
    for path in &stale {
        std::fs::remove_file(root.join(path))
            .map_err(|e| fail(format!("{}: {e}", path.display())))?;
        println!("removed {}", path.display());
    }
    println!(
        "codegen: {} files, {written} written, {} removed; generation took {} ms",
        files.len(),
        stale.len(),
        elapsed.as_millis()
    );
    print_api_diff(project);
    Ok(())
}

/// The `api-diff` summary against `HEAD`; not a failure when there is no
/// git history to compare with (a copy of the workspace), and a warning, not
/// a failure, when the version needs a bump: `api-diff` is the check.
fn print_api_diff(project: &Project) {
    match crate::api_diff::compare(project, "HEAD") {
        Ok(outcome) => {
            print!("{}", outcome.text);
            for problem in &outcome.problems {
                eprintln!("warning: {problem}");
            }
        }
        Err(failure) => {
            eprintln!("note: no comparison with HEAD: {}", failure.message);
        }
    }
}

/// Generates every crate of the project's `codegen.toml`, in memory.
pub fn generate_all(project: &Project) -> Result<Files> {
    let root = project.root.as_path();
    let config = project.load()?;
    let command = project.command("codegen");
    let mut files = Files::default();
    for target in &config.api {
        let generated = openapi_codegen::generate(root, target, &command)?;
        for note in &generated.notes {
            eprintln!("note: {note}");
        }
        files.extend(generated.files);
        if let (Some(changelog), Some(client)) = (&target.changelog, &target.client) {
            let contents = client_changelog(project, changelog, target.version.as_deref())?;
            files.insert(client.path.join("CHANGELOG.md"), contents);
        }
    }
    Ok(files)
}

/// The client crate's `CHANGELOG.md`: the document's changelog with a
/// header saying where it comes from. The changelog must have a section
/// (`## <version>`) for the version of `codegen.toml`.
fn client_changelog(project: &Project, changelog: &Path, version: Option<&str>) -> Result<String> {
    let label = changelog.to_string_lossy().replace('\\', "/");
    let text = std::fs::read_to_string(project.root.join(changelog))
        .map_err(|e| fail(format!("{label}: {e}")))?;
    if let Some(version) = version {
        let has_section = text.lines().any(|line| {
            line.strip_prefix("## ").is_some_and(|heading| {
                heading
                    .split_whitespace()
                    .next()
                    .map(|v| v.trim_matches(['[', ']']))
                    == Some(version)
            })
        });
        if !has_section {
            return Err(fail(format!(
                "{label} has no section `## {version}` for the version in {}; \
                 add one (`{}` prints a draft)",
                project.config,
                project.command("api-diff --changelog")
            )));
        }
    }
    let contents = format!(
        "<!-- This file is generated by `{}` from {label}. Do not edit it by hand: change {label}, then regenerate. -->\n\n{text}",
        project.command("codegen")
    );
    Ok(contents)
}

/// Files in the generated crates' folders that the generator no longer writes.
fn stale_files(project: &Project, files: &Files) -> Result<Vec<PathBuf>> {
    let root = project.root.as_path();
    let config = project.load()?;
    let expected: BTreeSet<&Path> = files.iter().map(|(p, _)| p).collect();
    let mut stale = Vec::new();
    for target in &config.api {
        let crates = [
            Some(&target.models),
            target.client.as_ref(),
            target.server.as_ref(),
        ];
        for krate in crates.into_iter().flatten() {
            let mut found = Vec::new();
            walk(&root.join(&krate.path), &mut found)?;
            for file in found {
                // `walk` went down from `root`: every file is under it.
                let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
                if !expected.contains(relative.as_path()) {
                    stale.push(relative);
                }
            }
        }
    }
    stale.sort();
    Ok(stale)
}

/// A short unified diff, at most 40 lines.
fn diff(old: &str, new: &str) -> String {
    let text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header("committed", "generated")
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > 40 {
        format!(
            "{}\n… ({} more lines)",
            lines[..40].join("\n"),
            lines.len() - 40
        )
    } else {
        text
    }
}
