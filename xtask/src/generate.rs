//! `cargo xtask generate --spec PATH --out DIR [--name NAME] [--runtime
//! vendor|path:PATH|git:URL] [--client-only]`: `openapi-codegen generate`
//! (the code is `openapi_codegen_cli::generate`), quoting `cargo xtask
//! generate` in the generated files' headers.

use std::path::Path;

use openapi_codegen::RuntimeSource;
use openapi_codegen::config::Target;
use openapi_codegen_cli::args::GenerateArgs;

use crate::Result;

/// The command quoted in the generated files' headers.
pub const COMMAND: &str = "cargo xtask generate";

/// Runs the task.
pub fn run(args: &GenerateArgs) -> Result<()> {
    Ok(openapi_codegen_cli::generate::run(args, COMMAND)?)
}

/// Generates the crates of `target` into `out` with the runtime from
/// `runtime` (when vendored, the copy of `runtime/` built into xtask, as
/// into `openapi-codegen`); returns how many files it generated, and how
/// many of them it wrote because they were new or changed. `_root` is the
/// workspace's root, which the runtime no longer needs to be read from.
pub fn generate(
    _root: &Path,
    target: &Target,
    out: &Path,
    runtime: &RuntimeSource,
) -> Result<(usize, usize)> {
    Ok(openapi_codegen_cli::generate::generate(
        target, out, runtime, COMMAND,
    )?)
}

/// The file name without extension, as a package-name prefix
/// (`openapi_codegen_cli::generate::default_name`).
pub fn default_name(spec: &Path) -> Result<String> {
    Ok(openapi_codegen_cli::generate::default_name(spec)?)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::time::{Duration, SystemTime};

    use openapi_codegen::RuntimeSource;
    use openapi_codegen::config::Target;

    use super::{default_name, generate};

    const DOCUMENT: &str = r##"
openapi: 3.0.3
info: {title: Regenerated, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: the pets
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Pet"}}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
"##;

    fn modified(path: &Path) -> SystemTime {
        std::fs::metadata(path).unwrap().modified().unwrap()
    }

    #[test]
    fn a_regeneration_writes_only_what_changed_and_removes_what_is_gone() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-regenerate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.join("out");
        let spec = dir.join("regenerated.yaml");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&spec, DOCUMENT).unwrap();
        let target = Target::client_only(spec.clone(), "regenerated");
        let runtime = RuntimeSource::Vendored(RuntimeSource::VENDORED_DIR.to_owned());
        generate(root, &target, &out, &runtime).unwrap();

        // Every file dated in the past: what is written again is dated now.
        let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let mut files = Vec::new();
        crate::codegen::walk(&out, &mut files).unwrap();
        for file in &files {
            let handle = std::fs::File::options().append(true).open(file).unwrap();
            handle.set_modified(past).unwrap();
        }
        let models = out.join("client/src/models/common.rs");
        let operations = out.join("client/src/operations.rs");
        let runtime_lib = out.join("openapi-runtime/src/lib.rs");
        assert!(files.contains(&models) && files.contains(&runtime_lib));

        // The same document: nothing is written, so cargo rebuilds nothing.
        let (generated, changed) = generate(root, &target, &out, &runtime).unwrap();
        assert_eq!((generated, changed), (files.len(), 0));
        let rewritten: Vec<&PathBuf> = files.iter().filter(|f| modified(f) != past).collect();
        assert!(rewritten.is_empty(), "written again: {rewritten:?}");

        // A property added: the models are written, the rest is not; files
        // the generator no longer writes go, files of the user's stay.
        std::fs::write(
            &spec,
            DOCUMENT.replace(
                "name: {type: string}",
                "name: {type: string}\n        tag: {type: string}",
            ),
        )
        .unwrap();
        let stale = [
            out.join("openapi-runtime/src/gone.rs"),
            out.join("client/src/models/pets.rs"),
        ];
        let kept = [
            out.join("notes.md"),
            out.join("client/target/debug/build.log"),
            out.join("client/tests/calls.rs"),
        ];
        for file in stale.iter().chain(&kept) {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "").unwrap();
        }
        assert_eq!(generate(root, &target, &out, &runtime).unwrap().1, 1);
        assert_ne!(modified(&models), past);
        assert!(
            std::fs::read_to_string(&models)
                .unwrap()
                .contains("pub tag: Option<String>")
        );
        assert_eq!(modified(&operations), past);
        assert_eq!(modified(&runtime_lib), past);
        for file in &stale {
            assert!(!file.exists(), "{} was left", file.display());
        }
        for file in &kept {
            assert!(file.exists(), "{} was removed", file.display());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_name_is_the_file_name_as_cargo_takes_it() {
        let name = |file: &str| default_name(Path::new(file)).ok();
        assert_eq!(
            name("specs/Petstore Expanded.yaml").as_deref(),
            Some("petstore-expanded")
        );
        assert_eq!(name("1forge.com.json").as_deref(), Some("api-1forge-com"));
        assert_eq!(
            name("vtex.local/Recurrence-(v1-.json").as_deref(),
            Some("recurrence-v1")
        );
        assert_eq!(name("_.json"), None);
    }
}
