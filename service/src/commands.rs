//! The operator commands of the warehouse side: what the interface does not
//! show (decisions D11, D12, D14, D18). Each opens the database, does one
//! thing in one transaction, and says what it did. A command acts only on
//! tenants of the environment it is run for (decision D37).

use std::path::Path;

use logistics_models::SalesOrderState;
use uuid::Uuid;

use crate::domain::receiving_orders::{self, ReceivingOrderState};
use crate::domain::returns::{self, ReturnStep};
use crate::domain::tenancy::Environment;
use crate::domain::tenants::NewTenant;
use crate::domain::{DomainError, TenantRepository, sales_orders, tenants};
use crate::import;
use crate::storage::Store;

/// An operator command's failure, said to the operator.
pub type Result<T = (), E = String> = std::result::Result<T, E>;

async fn open(database: &str) -> Result<Store> {
    Store::open(database, 2).await.map_err(|e| e.to_string())
}

fn domain_error(error: DomainError) -> String {
    match error {
        DomainError::Invalid(problems) => problems
            .iter()
            .map(|p| format!("{}: {} ({})", p.property, p.message, p.error_code))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// `tenant create NAME [--emulation]`: a tenant of `environment` (decision
/// D35); prints `{"tenantId": …, "token": …}`.
pub async fn create_tenant(
    database: &str,
    environment: Environment,
    name: &str,
    emulation: bool,
) -> Result {
    let store = open(database).await?;
    let tenant = tenants::create(&store, name, environment, emulation)
        .await
        .map_err(domain_error)?;
    print_token(&tenant);
    store.close().await;
    Ok(())
}

/// Prints `{"tenantId": …, "token": …}`: the one time the token is shown.
fn print_token(tenant: &NewTenant) {
    println!(
        "{}",
        serde_json::json!({"tenantId": tenant.tenant_id, "token": tenant.token})
    );
}

/// `token create --tenant ID [--emulation]`: another token for a tenant of
/// `environment`; prints `{"tenantId": …, "token": …}`.
pub async fn create_token(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    emulation: bool,
) -> Result {
    let token = on_tenant(database, environment, tenant, async |store| {
        tenants::add_token(store, tenant, environment, emulation).await
    })
    .await?;
    print_token(&token);
    Ok(())
}

/// Reads an import file with `read`, naming every problem with the item and field.
fn read_file<T>(file: &Path, read: import::Reader<T>) -> Result<Vec<T>> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    read(&bytes, crate::domain::now()).map_err(|problems| {
        let count = problems.0.len();
        let mut lines = vec![format!(
            "{} is not valid: {count} problem{}; nothing was imported",
            file.display(),
            if count == 1 { "" } else { "s" }
        )];
        lines.extend(problems.0.iter().map(|p| format!("  {p}")));
        lines.join("\n")
    })
}

/// `import sales-orders FILE --tenant ID`.
pub async fn import_sales_orders(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    file: &Path,
) -> Result {
    let orders = read_file(file, import::sales_orders)?;
    let count = on_tenant(database, environment, tenant, async |store| {
        sales_orders::import(store, tenant, &orders).await
    })
    .await?;
    println!("imported {count} sales orders into tenant {tenant}");
    Ok(())
}

/// `import returns FILE --tenant ID`.
pub async fn import_returns(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    file: &Path,
) -> Result {
    let returns = read_file(file, import::returns)?;
    let count = on_tenant(database, environment, tenant, async |store| {
        returns::import(store, tenant, &returns).await
    })
    .await?;
    println!("imported {count} returns into tenant {tenant}");
    Ok(())
}

/// `sales-order advance REF STATE --tenant ID`.
pub async fn advance_sales_order(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    reference: &str,
    state: &str,
) -> Result {
    let state: SalesOrderState = state.parse().map_err(|e| format!("{e}"))?;
    let order = on_tenant(database, environment, tenant, async |store| {
        sales_orders::advance(store, tenant, reference, state).await
    })
    .await?;
    println!("sales order {reference} is now {}", order.state);
    Ok(())
}

/// `return advance REF arrived|completed --tenant ID`.
pub async fn advance_return(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    reference: &str,
    step: ReturnStep,
) -> Result {
    on_tenant(database, environment, tenant, async |store| {
        returns::advance(store, tenant, reference, step).await
    })
    .await?;
    let what = match step {
        ReturnStep::Arrived => "arrived at the warehouse",
        ReturnStep::Completed => "completed",
    };
    println!("return {reference} {what}");
    Ok(())
}

/// `return tag REF TAG --tenant ID`.
pub async fn tag_return(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    reference: &str,
    tag: &str,
) -> Result {
    on_tenant(database, environment, tenant, async |store| {
        returns::tag(store, tenant, reference, tag).await
    })
    .await?;
    println!("return {reference} is tagged {tag:?}");
    Ok(())
}

/// `receiving-order advance REF STATE --tenant ID`.
pub async fn advance_receiving_order(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    reference: &str,
    state: &str,
) -> Result {
    let state = ReceivingOrderState::parse(state).ok_or_else(|| {
        let known: Vec<&str> = ReceivingOrderState::ALL
            .iter()
            .map(|s| s.as_str())
            .collect();
        format!(
            "`{state}` is not a receiving order state; use one of {}",
            known.join(", ")
        )
    })?;
    on_tenant(database, environment, tenant, async |store| {
        receiving_orders::advance(store, tenant, reference, state).await
    })
    .await?;
    println!("receiving order {reference} is now {}", state.as_str());
    Ok(())
}

/// Runs `command` on the database opened for `tenant` of `environment` (see
/// [`open_for`]), and closes the database whatever the outcome.
async fn on_tenant<T>(
    database: &str,
    environment: Environment,
    tenant: Uuid,
    command: impl AsyncFnOnce(&Store) -> std::result::Result<T, DomainError>,
) -> Result<T> {
    let store = open_for(database, environment, tenant).await?;
    let outcome = command(&store).await.map_err(domain_error);
    store.close().await;
    outcome
}

/// The database opened for a command on `tenant`, which must be a tenant of
/// `environment`: a command run for one environment never changes another's
/// data, also when both share the database (decision D37).
async fn open_for(database: &str, environment: Environment, tenant: Uuid) -> Result<Store> {
    let store = open(database).await?;
    match tenant_of(&store, environment, tenant).await {
        Ok(()) => Ok(store),
        Err(refusal) => {
            store.close().await;
            Err(refusal)
        }
    }
}

async fn tenant_of(store: &Store, environment: Environment, tenant: Uuid) -> Result {
    if !store.tenant_exists(tenant).await.map_err(domain_error)? {
        return Err(format!(
            "tenant {tenant} does not exist; create one with `tenant create NAME`"
        ));
    }
    match store
        .tenant_environment(tenant)
        .await
        .map_err(domain_error)?
    {
        Some(its) if its == environment => Ok(()),
        Some(its) => Err(format!(
            "tenant {tenant} belongs to the {its} environment, and this command was run for \
             {environment} (--environment, LOGISTICS_ENVIRONMENT); nothing was changed. \
             To act on it, run the command with `--environment {its}`."
        )),
        None => Err(format!(
            "tenant {tenant} is in no environment (a demo left by an interrupted first start, \
             or a tenant whose environment could not be told: decisions D35, D36); nothing \
             was changed. No command acts on it until its environment is set."
        )),
    }
}

/// Serves a mock of this API on `listen` until the process ends: the
/// document's examples (or data made up from its schemas, the same for the
/// same `seed`), requests checked as the server checks them, errors in the
/// API's own envelope; nothing is stored and no database is opened.
pub async fn mock(listen: std::net::SocketAddr, seed: u64) -> Result {
    let mock =
        openapi_codegen_mock::Mock::parse(crate::ops::OPENAPI_YAML, "spec/openapi.yaml", seed)
            .map_err(|e| format!("the embedded document does not read: {e}"))?;
    let router = mock.router_with_errors::<logistics_server_stubs::ErrorBodyFormat>();
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    eprintln!("serving a mock of the Logistics Fulfilment API (seed {seed}) on http://{listen}");
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("serving on {listen}: {e}"))
}
