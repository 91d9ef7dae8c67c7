//! An additive change of the document does not break code written against
//! the crates generated before it.
//!
//! The test copies `spec/openapi.yaml`, adds an optional property to a
//! request body (`CustomerInput.loyaltyTier`), an optional property to an
//! answer (`SalesOrder.giftNote`), a value to an enum the API sends
//! (`SalesOrderState`: `OnHold`) and an operation, generates the models and
//! client crates of the copy into a scratch workspace, and builds a project
//! written against the crates as they are (the client README's example,
//! `spec/client-example.rs`, and code that builds, reads and matches the
//! models) with `cargo build --offline`, in a target directory of its own
//! under `target/tmp` that later runs reuse. It must build unchanged.
//!
//! The other half, that a removed property and a changed type make
//! `cargo xtask api-diff` fail naming them, is `xtask/tests/api_diff.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use openapi_codegen::config::Config;
use openapi_codegen::diff::{self, Crates};
use openapi_codegen::parse::Document;

/// Code that uses the crates as they are generated now: built with the
/// constructors, read field by field, matched with a wildcard arm as
/// `#[non_exhaustive]` asks, and the client called the short way and the
/// long way.
const CONSUMER: &str = r#"
use logistics_client::models::{self, SalesOrderState};
use logistics_client::{Client, Error, ListReturnsParams};

/// A word for each state.
pub fn describe(state: &SalesOrderState) -> String {
    match state {
        SalesOrderState::Created => "new".to_owned(),
        SalesOrderState::Shipped | SalesOrderState::Delivered => "on its way".to_owned(),
        other => other.to_string(),
    }
}

/// Every kind of use of the generated API that must survive an additive change.
pub async fn uses(client: &Client) -> Result<(), Error> {
    let input = models::CustomerInput::new("a@example.com", "Ada", "Lovelace", "+441234567");
    let created = client.create_customer_with_response(&input).await?;
    let _: u16 = created.status();
    let _: Option<&String> = created.declared().location.as_ref();
    let customer = created.into_inner();
    let _ = customer.addresses.len();

    let order = client.get_sales_order("SO-1").await?;
    println!("{} {}", order.reference_number, describe(&order.state));

    let line = models::ReceivingOrderLineItem::new("SKU-1", 3, false, 0).with_lot_number("L1");
    let order = models::ReceivingOrder::new(
        models::ReceiveType::Standard,
        vec![line],
        models::ReceivingOrderTransferType::CargoTransfer,
    )
    .with_reference_number("RO-1");
    let result = client
        .bulk_upsert_receiving_orders(&models::ReceivingOrderBatch(vec![order]))
        .await?;
    let _ = result.update_failures;

    let returns = client.list_returns(ListReturnsParams::default()).await?;
    let _ = returns.items.len();
    Ok(())
}
"#;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen-tests is in the workspace")
        .to_owned()
}

/// `text` with `old` replaced by `new`, which must be there once.
fn edit(text: &str, old: &str, new: &str) -> String {
    assert_eq!(text.matches(old).count(), 1, "`{old}` once in the spec");
    text.replacen(old, new, 1)
}

/// The spec with the four additive changes.
fn grown_spec(root: &Path) -> String {
    let spec = std::fs::read_to_string(root.join("spec/openapi.yaml")).expect("the spec");
    let spec = edit(
        &spec,
        "      required: [email, firstName, lastName, phone]\n      properties:\n",
        "      required: [email, firstName, lastName, phone]\n      properties:\n        loyaltyTier:\n          description: The customer's loyalty tier.\n          type: string\n",
    );
    let spec = edit(
        &spec,
        "      enum: [Cancelled, Created, Picked, Packed, ReadyToBeShipped, Shipped, Delivered]\n",
        "      enum: [Cancelled, Created, Picked, Packed, ReadyToBeShipped, Shipped, Delivered, OnHold]\n",
    );
    let (before, after) = spec
        .split_once("\n    SalesOrder:\n")
        .expect("the SalesOrder schema");
    let (head, properties) = after
        .split_once("      properties:\n")
        .expect("its properties");
    let spec = format!(
        "{before}\n    SalesOrder:\n{head}      properties:\n        giftNote:\n          description: A note for the recipient.\n          type: string\n{properties}"
    );
    edit(
        &spec,
        "\npaths:\n",
        // Like every operation of the document, it takes the tenant header
        // (an operation without it would make the header no longer common
        // to all, which changes every other method: `api-diff` says so).
        "\npaths:\n  /openapi/v1/Ping:\n    get:\n      operationId: ping\n      summary: Says the service is up\n      parameters:\n        - $ref: '#/components/parameters/TenantId'\n      responses:\n        '204':\n          description: The service is up.\n",
    )
}

#[test]
fn code_written_against_the_crates_builds_after_an_additive_change() {
    let root = workspace_root();
    let config = Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml").unwrap();
    let mut target = config.api[0].clone();
    // A new operation is a new required method of the server trait: the
    // server stubs are not part of the promise (see ARCHITECTURE.md).
    target.server = None;
    target.models.path = PathBuf::from("models");
    let client = target.client.as_mut().expect("the spec has a client crate");
    client.path = PathBuf::from("client");
    let client_package = client.package.clone();
    let models_package = target.models.package.clone();

    let grown = Document::parse(&grown_spec(&root), "spec/openapi.yaml", false).unwrap();
    let generated = openapi_codegen::generate_from(&grown, &target, "the test").unwrap();
    let models_rs = generated
        .files
        .get("models/src/sales_orders.rs")
        .expect("sales_orders.rs");
    assert!(models_rs.contains("pub gift_note: Option<String>"));
    assert!(models_rs.contains("OnHold,"));

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("evolution");
    for (path, contents) in generated.files.iter() {
        write_if_changed(&dir.join(path), contents);
    }
    write_manifests(&root, &dir, &models_package, &client_package);
    let example = std::fs::read_to_string(root.join("spec/client-example.rs")).unwrap();
    write_if_changed(&dir.join("consumer/src/main.rs"), &example);
    write_if_changed(&dir.join("consumer/src/lib.rs"), CONSUMER);

    let output = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet", "--package", "consumer"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "code written against the crates as they are no longer builds:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // `api-diff` agrees: nothing of it breaks Rust code.
    let original = Document::load(&root.join("spec/openapi.yaml"), "spec/openapi.yaml").unwrap();
    let report = diff::compare(&original, &grown, Crates::of(&target));
    assert_eq!(
        report.breaking_counts().1,
        0,
        "{}",
        report.render("spec/openapi.yaml")
    );
}

/// The scratch workspace's manifests: the generated crates and the consumer,
/// with the real workspace's dependency versions (its `Cargo.lock` too) and
/// the runtime crate where it is.
fn write_manifests(root: &Path, dir: &Path, models_package: &str, client_package: &str) {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut manifest: toml::Table = manifest.parse().unwrap();
    let workspace = manifest["workspace"].as_table_mut().unwrap();
    workspace.insert(
        "members".to_owned(),
        toml::Value::Array(
            ["models", "client", "consumer"]
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
    dependencies.insert(models_package.to_owned(), path_dependency("models"));
    dependencies.insert(client_package.to_owned(), path_dependency("client"));
    dependencies.insert(
        "openapi-runtime".to_owned(),
        path_dependency(&root.join("runtime").to_string_lossy()),
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest.to_string());
    write_if_changed(
        &dir.join("Cargo.lock"),
        &std::fs::read_to_string(root.join("Cargo.lock")).unwrap(),
    );
    write_if_changed(
        &dir.join("consumer/Cargo.toml"),
        &format!(
            "[package]\nname = \"consumer\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\n{client_package}.workspace = true\n\
             tokio = {{ workspace = true, features = [\"macros\", \"rt-multi-thread\"] }}\n"
        ),
    );
}

fn write_if_changed(path: &Path, contents: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if std::fs::read_to_string(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents).unwrap();
    }
}
