//! The operator commands on one database serving both environments: each
//! (imports, state changes, tags, `token create`) acts only on tenants of the environment it is run for (`--environment`,
//! staging by default as for `serve`), and refuses another's with an error
//! that says which environment the tenant is in, changing nothing
//! (decision D37).

use logistics_client::models::SalesOrderState;
use logistics_service::domain::{SalesOrderRepository, receiving_orders, tenants};

use crate::harness::*;

const BINARY: &str = env!("CARGO_BIN_EXE_logistics-service");

/// The binary run as an operator runs it, on `database` with `args`: whether
/// it succeeded, and what it printed on stdout and stderr.
async fn operator(database: &str, args: &[&str]) -> (bool, String, String) {
    let mut command = std::process::Command::new(BINARY);
    command
        .args(["--database", database])
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("LOGISTICS_ENVIRONMENT");
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("the command's thread")
        .expect("the binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A file in the system's temp folder, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn with(contents: &serde_json::Value) -> TempFile {
        let path = std::env::temp_dir().join(format!(
            "lfs_operator_{}.json",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::write(&path, serde_json::to_vec(contents).unwrap()).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temp path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The state of a tenant's sales order, as stored.
async fn sales_order_state(service: &TestService, tenant: uuid::Uuid) -> SalesOrderState {
    service
        .store()
        .sales_order(tenant, "SHOP-1")
        .await
        .expect("the store answers")
        .expect("the order")
        .state
}

on_both_backends! {
    async fn operator_commands_act_only_on_tenants_of_their_environment(service) {
        let database = service.database_url();
        let orders = TempFile::with(&serde_json::json!([{
            "referenceNumber": "SHOP-1",
            "customer": {"email": "elif.yilmaz@example.com", "firstName": "Elif", "lastName": "Yılmaz", "phone": "+905321234567"},
            "lineItems": [{"sku": "TSHIRT-BLK-M", "quantity": 2}],
            "payment": {"totalPaymentAmount": 499.8}
        }]));
        let returns = TempFile::with(&serde_json::json!([{"returnReferenceNumber": "RET-1"}]));

        // A production tenant, made as the operator makes it, on the
        // database the staging instance serves.
        let (made, printed, stderr) =
            operator(database, &["--environment", "production", "tenant", "create", "Shop"]).await;
        assert!(made, "{stderr}");
        let printed: serde_json::Value = serde_json::from_str(&printed).expect("tenant create prints JSON");
        let production: uuid::Uuid = printed["tenantId"].as_str().expect("a tenant id").parse().unwrap();
        let staging = service.tenant("Shop staging").await;

        // Every tenant command, run for staging (by default, and said) on the
        // production tenant: refused, naming the tenant's environment.
        let id = production.to_string();
        let commands: [&[&str]; 7] = [
            &["import", "sales-orders", orders.path(), "--tenant", &id],
            &["import", "returns", returns.path(), "--tenant", &id],
            &["sales-order", "advance", "SHOP-1", "Picked", "--tenant", &id],
            &["return", "advance", "RET-1", "arrived", "--tenant", &id],
            &["return", "tag", "RET-1", "damaged", "--tenant", &id],
            &["receiving-order", "advance", "RO-1", "ArrivedToWarehouse", "--tenant", &id],
            &["token", "create", "--tenant", &id],
        ];
        for environment in [&[][..], &["--environment", "staging"][..]] {
            for command in commands {
                let args: Vec<&str> = environment.iter().chain(command).copied().collect();
                let (succeeded, _, stderr) = operator(database, &args).await;
                assert!(!succeeded, "{args:?} acted on a production tenant");
                assert!(
                    stderr.contains(&format!("tenant {production} belongs to the production environment"))
                        && stderr.contains("`--environment production`"),
                    "{args:?}: {stderr}"
                );
            }
        }
        assert_eq!(service.count_rows("sales_orders", production).await, 0, "nothing imported");
        assert_eq!(service.count_rows("returns", production).await, 0, "nothing imported");

        // Run for production, the same commands act.
        for command in &commands[..2] {
            let args: Vec<&str> = ["--environment", "production"].iter().chain(*command).copied().collect();
            let (succeeded, _, stderr) = operator(database, &args).await;
            assert!(succeeded, "{args:?}: {stderr}");
        }
        let failures = receiving_orders::upsert(service.store(), production, &[order(Some("RO-1"), vec![line("SKU", 1)])])
            .await
            .expect("a receiving order");
        assert!(failures.is_empty(), "{failures:?}");

        // With the data in place, what would change it is still refused for
        // staging, and changes nothing …
        for command in &commands[2..] {
            let (succeeded, _, stderr) = operator(database, command).await;
            assert!(!succeeded && stderr.contains("belongs to the production environment"), "{command:?}: {stderr}");
        }
        assert_eq!(sales_order_state(service, production).await, SalesOrderState::Created);
        assert_eq!(service.count_rows("sales_orders", production).await, 1);
        let untouched = "SELECT COUNT(*) FROM returns WHERE tenant_id = $1 \
                         AND tag IS NULL AND arrived_to_warehouse_at IS NULL";
        assert_eq!(service.count_where(untouched, production).await, 1);
        let arrived = "SELECT COUNT(*) FROM receiving_orders WHERE tenant_id = $1 AND state = 'ArrivedToWarehouse'";
        assert_eq!(service.count_where(arrived, production).await, 0);
        assert_eq!(service.count_rows("tokens", production).await, 1, "no token added");

        // … and acts for production.
        for command in &commands[2..] {
            let args: Vec<&str> = ["--environment", "production"].iter().chain(*command).copied().collect();
            let (succeeded, _, stderr) = operator(database, &args).await;
            assert!(succeeded, "{args:?}: {stderr}");
        }
        assert_eq!(sales_order_state(service, production).await, SalesOrderState::Picked);
        let changed = "SELECT COUNT(*) FROM returns WHERE tenant_id = $1 \
                       AND tag = 'damaged' AND arrived_to_warehouse_at IS NOT NULL";
        assert_eq!(service.count_where(changed, production).await, 1);
        assert_eq!(service.count_where(arrived, production).await, 1);
        assert_eq!(service.count_rows("tokens", production).await, 2, "a token added");

        // The other way round: run for production, a staging tenant is refused.
        let id = staging.id.to_string();
        let (succeeded, _, stderr) = operator(
            database,
            &["--environment", "production", "import", "sales-orders", orders.path(), "--tenant", &id],
        )
        .await;
        assert!(!succeeded);
        assert!(
            stderr.contains(&format!("tenant {id} belongs to the staging environment"))
                && stderr.contains("`--environment staging`"),
            "{stderr}"
        );
        assert_eq!(service.count_rows("sales_orders", staging.id).await, 0);

        // A tenant in no environment (a demo an interrupted first start
        // left) is refused for both; an unknown one is said to be unknown.
        let unbound = tenants::create_unbound(service.store(), "Half a demo").await.unwrap();
        let id = unbound.to_string();
        for environment in ["staging", "production"] {
            let (succeeded, _, stderr) = operator(
                database,
                &["--environment", environment, "import", "returns", returns.path(), "--tenant", &id],
            )
            .await;
            assert!(!succeeded && stderr.contains("is in no environment"), "{environment}: {stderr}");
        }
        assert_eq!(service.count_rows("returns", unbound).await, 0);
        let id = uuid::Uuid::new_v4().to_string();
        let (succeeded, _, stderr) = operator(database, &["return", "tag", "RET-1", "x", "--tenant", &id]).await;
        assert!(!succeeded && stderr.contains("does not exist"), "{stderr}");

        // The staging tenant itself is served by the staging defaults, and a
        // token the operator adds for it works on the staging instance.
        let id = staging.id.to_string();
        let (succeeded, _, stderr) =
            operator(database, &["import", "sales-orders", orders.path(), "--tenant", &id]).await;
        assert!(succeeded, "{stderr}");
        assert_eq!(sales_order_state(service, staging.id).await, SalesOrderState::Created);
        let (succeeded, printed, stderr) = operator(database, &["token", "create", "--tenant", &id]).await;
        assert!(succeeded, "{stderr}");
        let printed: serde_json::Value = serde_json::from_str(&printed).expect("token create prints JSON");
        assert_eq!(printed["tenantId"], id.as_str());
        let token = printed["token"].as_str().expect("a token");
        let order = service.client(token).get_sales_order("SHOP-1").await.expect("the new token works");
        assert_eq!(order.state, SalesOrderState::Created);
        let order = staging.client.get_sales_order("SHOP-1").await.expect("the first token still works");
        assert_eq!(order.state, SalesOrderState::Created);
    }
}
