//! `cargo xtask codegen [--check]`: regenerates every crate named in
//! `spec/codegen.toml`, or checks that the committed files match. After
//! writing, it prints what `cargo xtask api-diff` says of the documents
//! against `HEAD`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use openapi_codegen::config::Config;
use openapi_codegen::emit::Files;

use crate::{Result, fail};

/// The command quoted in the generated files' headers.
pub const COMMAND: &str = "cargo xtask codegen";

/// Runs the codegen task from the workspace `root`.
pub fn run(root: &Path, check: bool) -> Result<()> {
    let started = Instant::now();
    let files = generate_all(root)?;
    let elapsed = started.elapsed();
    let stale = stale_files(root, &files)?;
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
            return Err(fail(format!(
                "{} generated file(s) are out of date; run `cargo xtask codegen` and commit the result",
                problems.len()
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
    print_api_diff(root);
    Ok(())
}

/// The `api-diff` summary against `HEAD`; not a failure when there is no
/// git history to compare with (a copy of the workspace), and a warning, not
/// a failure, when the version needs a bump: `api-diff` is the check.
fn print_api_diff(root: &Path) {
    match crate::api_diff::compare(root, "HEAD") {
        Ok(outcome) => {
            print!("{}", outcome.text);
            for problem in &outcome.problems {
                eprintln!("warning: {problem}");
            }
        }
        Err(crate::Failure(message)) => {
            eprintln!("note: no comparison with HEAD: {message}");
        }
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

/// Generates every crate of `spec/codegen.toml`, in memory.
pub fn generate_all(root: &Path) -> Result<Files> {
    let config = Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml")?;
    let mut files = Files::default();
    for target in &config.api {
        let generated = openapi_codegen::generate(root, target, COMMAND)?;
        for note in &generated.notes {
            eprintln!("note: {note}");
        }
        files.extend(generated.files);
        if let (Some(changelog), Some(client)) = (&target.changelog, &target.client) {
            let contents = client_changelog(root, changelog, target.version.as_deref())?;
            files.insert(client.path.join("CHANGELOG.md"), contents);
        }
    }
    Ok(files)
}

/// The client crate's `CHANGELOG.md`: the document's changelog with a
/// header saying where it comes from. The changelog must have a section
/// (`## <version>`) for the version of `codegen.toml`.
fn client_changelog(root: &Path, changelog: &Path, version: Option<&str>) -> Result<String> {
    let label = changelog.to_string_lossy().replace('\\', "/");
    let text =
        std::fs::read_to_string(root.join(changelog)).map_err(|e| fail(format!("{label}: {e}")))?;
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
                "{label} has no section `## {version}` for the version in spec/codegen.toml; \
                 add one (`cargo xtask api-diff --changelog` prints a draft)"
            )));
        }
    }
    let contents = format!(
        "<!-- This file is generated by `{COMMAND}` from {label}. Do not edit it by hand: change {label}, then regenerate. -->\n\n{text}"
    );
    Ok(contents)
}

/// Files in the generated crates' folders that the generator no longer writes.
fn stale_files(root: &Path, files: &Files) -> Result<Vec<PathBuf>> {
    let config = Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml")?;
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
                let relative = file
                    .strip_prefix(root)
                    .expect("walked under root")
                    .to_path_buf();
                if !expected.contains(relative.as_path()) {
                    stale.push(relative);
                }
            }
        }
    }
    stale.sort();
    Ok(stale)
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
