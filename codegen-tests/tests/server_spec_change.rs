//! When the document gains an operation, an implementation of the server
//! trait that lacks it no longer compiles, and the compiler names the
//! missing method.
//!
//! The test generates the crates from a copy of `spec/openapi.yaml` with one
//! more operation, checks the new trait method has no default body, then
//! runs `cargo check` (offline, in its own target directory under
//! `target/tmp`, so that only the first run builds the dependencies) on an
//! implementation written for the document as it is: it must fail naming the
//! new method, and pass once the method is added.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use openapi_codegen::config::Config;
use openapi_codegen::ir::{Api, BodyKind, Operation, Shape, Ty};
use openapi_codegen::parse::Document;

const NEW_OPERATION: &str = "
  /openapi/v1/Ping:
    get:
      operationId: ping
      summary: Says the service is up
      responses:
        '204':
          description: The service is up.
";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen-tests is in the workspace")
        .to_owned()
}

/// The spec with [`NEW_OPERATION`] as its first path.
fn changed_spec(root: &Path) -> String {
    let spec = std::fs::read_to_string(root.join("spec/openapi.yaml")).expect("the spec");
    let (before, after) = spec.split_once("\npaths:\n").expect("a paths section");
    format!("{before}\npaths:{NEW_OPERATION}{after}")
}

/// An implementation of every operation of `api` (with `todo!()` bodies).
fn implementation(api: &Api, trait_name: &str, extra: Option<&Operation>) -> String {
    let mut methods = String::new();
    for op in api.operations.iter().chain(extra) {
        methods.push_str(&method(op));
    }
    format!(
        "#![allow(unused)]\n\
         use logistics_server_stubs::*;\n\n\
         pub struct Service;\n\n\
         impl {trait_name} for Service {{\n\
         \x20   type Principal = ();\n\n\
         \x20   async fn authenticate(&self, _: Credentials<'_>) -> Result<(), ApiError> {{\n\
         \x20       Ok(())\n\
         \x20   }}\n\
         {methods}}}\n"
    )
}

fn method(op: &Operation) -> String {
    // `Principal` is `()`: `Option` of it where authentication is optional.
    let optional = !op.security.is_empty() && !op.is_authenticated();
    let principal = if optional { "Option<()>" } else { "()" };
    let mut method = format!(
        "\n    async fn {name}(&self, _: RequestContext<{principal}>, _: {prefix}Request) -> Result<{prefix}Response, ApiError> {{\n        todo!()\n    }}\n",
        name = op.fn_name,
        prefix = op.type_prefix,
    );
    // A body with `x-rules` comes with a method that checks them.
    if let Some(body) = op.body.as_ref().filter(|body| !body.rules.is_empty()) {
        let BodyKind::Json(Shape {
            ty: Ty::Named(body_type),
            ..
        }) = &body.kind
        else {
            panic!("the spec's bodies with rules are named JSON types");
        };
        method.push_str(&format!(
            "\n    fn check_{name}_body(&self, _: &models::{body_type}) -> Vec<models::validation::Problem> {{\n        Vec::new()\n    }}\n",
            name = op.fn_name,
        ));
    }
    method
}

#[test]
fn a_new_operation_is_a_trait_method_without_default() {
    let root = workspace_root();
    let config = Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml").unwrap();
    let mut target = config.api[0].clone();
    target.client = None;
    target.models.path = PathBuf::from("models");
    let server = target.server.as_mut().expect("the spec has a server crate");
    server.path = PathBuf::from("server");
    let server_package = server.package.clone();
    let models_package = target.models.package.clone();
    let trait_name = target.trait_name.clone().expect("a trait name");

    let original = Document::load(&root.join("spec/openapi.yaml"), "spec/openapi.yaml").unwrap();
    let original_api = openapi_codegen::lower::lower(&original).unwrap();
    let changed = Document::parse(&changed_spec(&root), "spec/openapi.yaml", false).unwrap();
    let changed_api = openapi_codegen::lower::lower(&changed).unwrap();
    let ping = changed_api
        .operations
        .iter()
        .find(|op| op.id == "ping")
        .expect("the new operation")
        .clone();
    let generated = openapi_codegen::generate_from(&changed, &target, "the test").unwrap();

    // The trait declares the method, without a body.
    let api_rs = generated.files.get("server/src/api.rs").expect("api.rs");
    let declaration = api_rs
        .split("fn ping(")
        .nth(1)
        .expect("the trait has a method for the new operation");
    let end = declaration.find([';', '{']).expect("the declaration ends");
    assert_eq!(
        &declaration[end..=end],
        ";",
        "the trait method has no default body"
    );
    assert!(api_rs.contains("pub struct PingRequest"));

    // A real compile: an implementation of the spec as it is fails.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("server-spec-change");
    write_workspace(
        &root,
        &dir,
        &generated.files,
        &[("models", &models_package), ("server", &server_package)],
    );
    let lib = dir.join("check/src/lib.rs");
    write_if_changed(&lib, &implementation(&original_api, &trait_name, None));
    let output = cargo_check(&dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "it compiled:\n{stderr}");
    assert!(
        stderr.contains("E0046") && stderr.contains("missing: `ping`"),
        "the error does not name the missing method:\n{stderr}"
    );

    // With the new method, it compiles.
    std::fs::write(
        &lib,
        implementation(&original_api, &trait_name, Some(&ping)),
    )
    .unwrap();
    let output = cargo_check(&dir);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A workspace of the generated crates and a `check` crate, with the real
/// workspace's dependency versions (its `Cargo.lock` too).
fn write_workspace(
    root: &Path,
    dir: &Path,
    files: &openapi_codegen::emit::Files,
    crates: &[(&str, &str)],
) {
    for (path, contents) in files.iter() {
        write_if_changed(&dir.join(path), contents);
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut manifest: toml::Table = manifest.parse().unwrap();
    let workspace = manifest["workspace"].as_table_mut().unwrap();
    workspace.insert(
        "members".to_owned(),
        toml::Value::Array(
            ["models", "server", "check"]
                .map(|m| toml::Value::String(m.to_owned()))
                .to_vec(),
        ),
    );
    let dependencies = workspace["dependencies"].as_table_mut().unwrap();
    let path_dependency = |path: &str| {
        let mut table = toml::Table::new();
        table.insert("path".to_owned(), toml::Value::String(path.to_owned()));
        toml::Value::Table(table)
    };
    dependencies.retain(|_, value| value.get("path").is_none());
    for (path, package) in crates {
        dependencies.insert((*package).to_owned(), path_dependency(path));
    }
    // The runtime the generated crates depend on, where it is.
    dependencies.insert(
        "openapi-runtime".to_owned(),
        path_dependency(&root.join("runtime").to_string_lossy()),
    );
    let server_package = crates
        .last()
        .map(|(_, package)| *package)
        .unwrap_or_default();
    write_if_changed(&dir.join("Cargo.toml"), &manifest.to_string());
    write_if_changed(
        &dir.join("Cargo.lock"),
        &std::fs::read_to_string(root.join("Cargo.lock")).unwrap(),
    );
    write_if_changed(
        &dir.join("check/Cargo.toml"),
        &format!(
            "[package]\nname = \"trait-check\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\n{server_package}.workspace = true\n"
        ),
    );
}

fn write_if_changed(path: &Path, contents: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if std::fs::read_to_string(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents).unwrap();
    }
}

fn cargo_check(dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--package", "trait-check"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs")
}
