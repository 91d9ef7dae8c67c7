//! Codegen: the generator library in this process, from reading the document
//! to writing every file into a scratch folder, timed run by run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use openapi_codegen::config::Config;
use openapi_codegen::emit::Files;

/// One document's timings.
pub struct Timing {
    /// What was generated.
    pub name: String,
    /// How many files one run writes.
    pub files: usize,
    /// Every run, sorted.
    pub runs: Vec<Duration>,
}

impl Timing {
    /// The median run.
    pub fn median(&self) -> Duration {
        self.runs[self.runs.len() / 2]
    }
}

/// Times `runs` generations of the workspace's crates (`spec/codegen.toml`)
/// and of `codegen-tests/specs/external/buildomat.json`, under `root`.
pub fn run(root: &Path, runs: usize) -> Result<Vec<Timing>, String> {
    let scratch = std::env::temp_dir().join(format!("lfs-bench-codegen-{}", std::process::id()));
    let result = (|| {
        let workspace = time(
            runs,
            "this workspace (every [[api]] of spec/codegen.toml)",
            || {
                let config = Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml")
                    .map_err(|e| e.to_string())?;
                let mut written = 0;
                for target in &config.api {
                    let generated = openapi_codegen::generate(root, target, "cargo xtask bench")
                        .map_err(|e| e.to_string())?;
                    written += write(&scratch.join("workspace"), &generated.files)?;
                }
                Ok(written)
            },
        )?;
        let spec = root.join("codegen-tests/specs/external/buildomat.json");
        let size = std::fs::metadata(&spec).map(|m| m.len()).unwrap_or(0);
        let buildomat = time(
            runs,
            &format!(
                "codegen-tests/specs/external/buildomat.json ({} kB, the largest vendored OpenAPI 3.0 document)",
                size / 1000
            ),
            || {
                let generated =
                    openapi_codegen::generate_standalone(&spec, "buildomat", "cargo xtask bench")
                        .map_err(|e| e.to_string())?;
                write(&scratch.join("buildomat"), &generated.files)
            },
        )?;
        Ok(vec![workspace, buildomat])
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn time(
    runs: usize,
    name: &str,
    mut once: impl FnMut() -> Result<usize, String>,
) -> Result<Timing, String> {
    let mut timings = Vec::with_capacity(runs);
    // One warm-up run (caches, allocator), not counted.
    let mut files = once()?;
    for _ in 0..runs {
        let started = Instant::now();
        files = once()?;
        timings.push(started.elapsed());
    }
    timings.sort();
    Ok(Timing {
        name: name.to_owned(),
        files,
        runs: timings,
    })
}

/// Writes `files` under `folder`; returns how many.
fn write(folder: &Path, files: &Files) -> Result<usize, String> {
    let mut count = 0;
    for (path, contents) in files.iter() {
        let target: PathBuf = folder.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&target, contents).map_err(|e| format!("{}: {e}", target.display()))?;
        count += 1;
    }
    Ok(count)
}
