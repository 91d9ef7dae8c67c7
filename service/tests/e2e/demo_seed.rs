//! The staging demo of a first start appears whole or not at all: a start
//! interrupted at any point leaves nothing that a token or emulation reaches,
//! and the next start makes the whole demo and gives its token (decision
//! D36; issue 18, defect 5).

use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use logistics_client::ListReturnsParams;
use logistics_client::models::SalesOrderState;
use logistics_client::reqwest::Method;
use logistics_models::dynamic_query::DynamicQuery;
use logistics_models::{
    Customer, ReceivingOrder, SalesOrder, TaggedReturn, TransferDetail, UpsertFailure,
};
use logistics_service::domain::receiving_orders::ReceivingOrderState;
use logistics_service::domain::repository::{
    CustomerRules, NewCustomer, OrderDecision, PlanBatch, Result, SalesOrderChange, StepCheck,
    TenantRecord,
};
use logistics_service::domain::returns::{ReturnProperty, ReturnStep};
use logistics_service::domain::tenancy::{Environment, TokenRecord};
use logistics_service::domain::{
    CustomerRepository, DomainError, ReceivingOrderRepository, ReturnRepository,
    SalesOrderRepository, TenantRepository,
};
use logistics_service::seed;
use logistics_service::storage::Store;

use crate::harness::*;

/// The store, until a number of calls has been made; then every call fails,
/// as if the process had died there (each call is one transaction of its
/// own, so what a crash leaves is what the calls before it committed).
struct Crashing<'a> {
    store: &'a Store,
    calls_left: AtomicUsize,
}

impl<'a> Crashing<'a> {
    fn after(store: &'a Store, calls: usize) -> Self {
        Crashing {
            store,
            calls_left: AtomicUsize::new(calls),
        }
    }

    fn call(&self) -> Result<()> {
        self.calls_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .map(drop)
            .map_err(|_| DomainError::Unavailable("the process crashed here".to_owned()))
    }

    fn crashed(&self) -> bool {
        self.calls_left.load(Ordering::SeqCst) == 0
    }
}

impl TenantRepository for Crashing<'_> {
    async fn insert_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        self.call()?;
        self.store.insert_tenant(tenant).await
    }
    async fn insert_unbound_tenant(
        &self,
        tenant: uuid::Uuid,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<()> {
        self.call()?;
        self.store.insert_unbound_tenant(tenant, name, at).await
    }
    async fn bind_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        self.call()?;
        self.store.bind_tenant(tenant).await
    }
    async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
        self.call()?;
        self.store.find_token(key_id).await
    }
    async fn tenant_exists(&self, tenant: uuid::Uuid) -> Result<bool> {
        self.call()?;
        self.store.tenant_exists(tenant).await
    }
    async fn tenant_environment(&self, tenant: uuid::Uuid) -> Result<Option<Environment>> {
        self.call()?;
        self.store.tenant_environment(tenant).await
    }
    async fn has_tenants(&self) -> Result<bool> {
        self.call()?;
        self.store.has_tenants().await
    }
}

impl CustomerRepository for Crashing<'_> {
    async fn insert_customer(
        &self,
        tenant: uuid::Uuid,
        customer: &NewCustomer,
        rules: &CustomerRules,
    ) -> Result<Customer> {
        self.call()?;
        self.store.insert_customer(tenant, customer, rules).await
    }
    async fn customer(&self, tenant: uuid::Uuid, customer_no: i32) -> Result<Option<Customer>> {
        self.call()?;
        self.store.customer(tenant, customer_no).await
    }
}

impl ReceivingOrderRepository for Crashing<'_> {
    async fn apply_batch(
        &self,
        tenant: uuid::Uuid,
        batch: &[ReceivingOrder],
        plan: &PlanBatch<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<UpsertFailure>> {
        self.call()?;
        self.store.apply_batch(tenant, batch, plan, now).await
    }
    async fn update_transfer_detail(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        decide: &OrderDecision<'_, TransferDetail>,
        now: DateTime<Utc>,
    ) -> Result<TransferDetail> {
        self.call()?;
        self.store
            .update_transfer_detail(tenant, reference, decide, now)
            .await
    }
    async fn update_receiving_order_state(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        decide: &OrderDecision<'_, ReceivingOrderState>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.call()?;
        self.store
            .update_receiving_order_state(tenant, reference, decide, now)
            .await
    }
}

impl SalesOrderRepository for Crashing<'_> {
    async fn sales_order(&self, tenant: uuid::Uuid, reference: &str) -> Result<Option<SalesOrder>> {
        self.call()?;
        self.store.sales_order(tenant, reference).await
    }
    async fn import_sales_orders(
        &self,
        tenant: uuid::Uuid,
        orders: &[SalesOrder],
        rules: &CustomerRules,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        self.call()?;
        self.store
            .import_sales_orders(tenant, orders, rules, now)
            .await
    }
    async fn update_sales_order(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        change: &SalesOrderChange<'_>,
    ) -> Result<SalesOrder> {
        self.call()?;
        self.store
            .update_sales_order(tenant, reference, change)
            .await
    }
}

impl ReturnRepository for Crashing<'_> {
    async fn list_returns<P: ReturnProperty>(
        &self,
        tenant: uuid::Uuid,
        query: &DynamicQuery<P>,
    ) -> Result<(Vec<TaggedReturn>, i64)> {
        self.call()?;
        self.store.list_returns(tenant, query).await
    }
    async fn insert_returns(&self, tenant: uuid::Uuid, returns: &[TaggedReturn]) -> Result<usize> {
        self.call()?;
        self.store.insert_returns(tenant, returns).await
    }
    async fn record_return_step(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        step: ReturnStep,
        check: &StepCheck<'_>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.call()?;
        self.store
            .record_return_step(tenant, reference, step, check, now)
            .await
    }
    async fn set_return_tag(
        &self,
        tenant: uuid::Uuid,
        reference: &str,
        tag: &str,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        self.call()?;
        self.store.set_return_tag(tenant, reference, tag, now).await
    }
}

/// More calls than the demo makes: the loop below ends well before.
const MOST_CALLS: usize = 200;

on_both_backends! {
    async fn a_start_interrupted_anywhere_is_followed_by_a_whole_demo(service) {
        // A first start that dies after 0, 1, 2, … of its store calls, until
        // one gets through: every point where the seed can stop.
        let mut interrupted = 0;
        let demo = loop {
            assert!(interrupted < MOST_CALLS, "the demo never finished");
            let crashing = Crashing::after(service.store(), interrupted);
            match seed::first_start(&crashing, Environment::Staging).await {
                Ok(demo) => break demo.expect("a database without tenants gets the demo"),
                Err(error) => assert!(crashing.crashed(), "only the crash stops the demo: {error}"),
            }
            // What the crash left is reachable by nothing: no tenant is in
            // an environment, so the next start makes the demo again.
            assert!(
                !service.store().has_tenants().await.unwrap(),
                "a start that died after {interrupted} calls left a tenant in an environment"
            );
            interrupted += 1;
        };
        assert!(interrupted > 10, "the demo was interrupted at every call ({interrupted})");
        assert_eq!(
            service.store().tenant_environment(demo.tenant_id).await.unwrap(),
            Some(Environment::Staging)
        );

        // The demo is whole, and its token works: what the printed curls ask.
        let client = service.client(&demo.token);
        let order = client.get_sales_order(seed::DEMO_SALES_ORDER).await.unwrap();
        assert_eq!(order.state, SalesOrderState::Shipped);
        assert_eq!(client.get_sales_order("SO-DEMO-0007").await.unwrap().state, SalesOrderState::Cancelled);
        let response = service
            .raw(Method::GET, "/openapi/v1/Returns/GetReturnsWithTag?dqb=o%3Dne%26p%3Dtag%26v%3Dnull")
            .bearer_auth(&demo.token)
            .send()
            .await
            .unwrap();
        let (status, body) = json_of(response).await;
        assert_eq!((status, &body["dataSetCount"]), (200, &serde_json::json!(3)), "{body}");
        assert_eq!(client.list_returns(ListReturnsParams::default()).await.unwrap().data_set_count, 6);
        assert_eq!(client.get_customer(1).await.unwrap().email, "elif.yilmaz@example.com");
        for (table, rows) in [("customers", 3), ("receiving_orders", 3), ("sales_orders", 7), ("returns", 6)] {
            assert_eq!(service.count_rows(table, demo.tenant_id).await, rows, "{table}");
        }

        // And the demo is made once: the next start has nothing to do.
        assert!(seed::first_start(service.store(), Environment::Staging).await.unwrap().is_none());
        assert!(seed::first_start(service.store(), Environment::Production).await.unwrap().is_none());
    }
}
