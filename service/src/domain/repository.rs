//! The seam between the business rules and what stores their data: one trait
//! per area, in the domain's types and errors. `storage::Store` implements
//! them over SQLite and PostgreSQL, `domain::memory::MemoryRepository` in
//! memory for the domain's own tests.
//!
//! Where a write depends on what is stored (a state machine, a batch rule, the
//! next customer number), the method takes the domain's decision as a
//! function: the store reads what the decision needs inside its writing
//! transaction (locked), calls the function, and applies its answer in the
//! same transaction, or stores nothing when it refuses. So the rules live in
//! the domain and the guarantees (no lost update, no duplicate, no gap) stay
//! with the transaction.

use std::collections::HashMap;
use std::future::Future;

use chrono::{DateTime, Utc};
use logistics_models::dynamic_query::DynamicQuery;
use logistics_models::{
    Address, Customer, ReceivingOrder, SalesOrder, TaggedReturn, TransferDetail, UpsertFailure,
};
use uuid::Uuid;

use super::DomainError;
use super::receiving_orders::{BatchPlan, ExistingOrder, ReceivingOrderState};
use super::returns::{ReturnProgress, ReturnProperty, ReturnStep};
use super::tenancy::{Environment, TokenRecord};

/// The result of a repository call.
pub type Result<T, E = DomainError> = std::result::Result<T, E>;

/// Everything the service reads and writes.
pub trait Repository:
    TenantRepository
    + CustomerRepository
    + ReceivingOrderRepository
    + SalesOrderRepository
    + ReturnRepository
{
}

impl<R> Repository for R where
    R: TenantRepository
        + CustomerRepository
        + ReceivingOrderRepository
        + SalesOrderRepository
        + ReturnRepository
{
}

/// A tenant and its first token, as stored.
#[derive(Debug, Clone)]
pub struct TenantRecord {
    /// The tenant's id.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// The public lookup key of its token.
    pub key_id: String,
    /// SHA-256 of the token.
    pub secret_hash: [u8; 32],
    /// The environment of the tenant and of its token (decision D35).
    pub environment: Environment,
    /// Whether the token may act on behalf of other tenants.
    pub emulation: bool,
}

/// Tenants and their tokens.
pub trait TenantRepository: Send + Sync {
    /// Stores a new tenant, in `tenant.environment`, with its token.
    fn insert_tenant(&self, tenant: &TenantRecord) -> impl Future<Output = Result<()>> + Send;

    /// Stores a new tenant in no environment and without a token: no request
    /// reaches it until [`bind_tenant`](Self::bind_tenant) (decision D36).
    /// In the same transaction, removes every earlier tenant of that name in
    /// no environment and without a token, with all its data: what an
    /// interrupted start left of its demo, which nothing reaches.
    fn insert_unbound_tenant(
        &self,
        tenant: Uuid,
        name: &str,
        created_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Puts the stored tenant `tenant.id`, which must be in no environment,
    /// into `tenant.environment` and stores `tenant`'s token, in one
    /// transaction (its stored name and creation time stay). A tenant that
    /// is missing or already in an environment is refused and nothing changes.
    fn bind_tenant(&self, tenant: &TenantRecord) -> impl Future<Output = Result<()>> + Send;

    /// Stores another token for the stored tenant `tenant.id`, which must be
    /// in `tenant.environment` (`tenant`'s name and creation time are not
    /// used). A tenant that is missing, of another environment or in none is
    /// refused and nothing changes.
    fn add_token(&self, tenant: &TenantRecord) -> impl Future<Output = Result<()>> + Send;

    /// The token whose public key id is `key_id`, with its tenant's environment.
    fn find_token(&self, key_id: &str) -> impl Future<Output = Result<Option<TokenRecord>>> + Send;

    /// Whether the tenant exists (in an environment or not).
    fn tenant_exists(&self, tenant: Uuid) -> impl Future<Output = Result<bool>> + Send;

    /// The environment the tenant belongs to; `None` when there is no such
    /// tenant or it is in no environment.
    fn tenant_environment(
        &self,
        tenant: Uuid,
    ) -> impl Future<Output = Result<Option<Environment>>> + Send;

    /// Whether any tenant is in an environment (a database without one gets
    /// the staging demo).
    fn has_tenants(&self) -> impl Future<Output = Result<bool>> + Send;
}

/// A customer to create, as the domain prepared it.
#[derive(Debug, Clone)]
pub struct NewCustomer {
    /// The email as given.
    pub email: String,
    /// The key under which the email is unique within the tenant.
    pub email_key: String,
    /// First name.
    pub first_name: String,
    /// Last name.
    pub last_name: String,
    /// Phone.
    pub phone: String,
    /// When it is created.
    pub created_at: DateTime<Utc>,
}

/// What the customer-number decision is given: the tenant's last number and
/// the number of the customer already stored under the same email key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numbering {
    /// The tenant's last customer number (0 before the first customer).
    pub last: i32,
    /// The customer with the same email key, if there is one.
    pub same_email: Option<i32>,
}

/// The customers' rules a store applies inside its transactions.
pub struct CustomerRules {
    /// The key under which a customer's email is unique within a tenant.
    pub email_key: fn(&str) -> String,
    /// The number of a new customer, or the refusal to create it.
    pub number: fn(Numbering) -> Result<i32>,
    /// The number of a customer's new address after its last one.
    pub address_number: fn(i32) -> i32,
    /// Whether two addresses are the same place (ids and numbers aside).
    pub same_place: fn(&Address, &Address) -> bool,
}

/// Customers and their addresses.
pub trait CustomerRepository: Send + Sync {
    /// Creates a customer in one writing transaction that takes the tenant's
    /// customer counter first (so creates of a tenant serialise, and numbers
    /// have no gaps) and asks `rules.number` for its number.
    fn insert_customer(
        &self,
        tenant: Uuid,
        customer: &NewCustomer,
        rules: &CustomerRules,
    ) -> impl Future<Output = Result<Customer>> + Send;

    /// A customer with its addresses.
    fn customer(
        &self,
        tenant: Uuid,
        customer_no: i32,
    ) -> impl Future<Output = Result<Option<Customer>>> + Send;
}

/// The batch decision: the plan of a batch given the stored orders it names,
/// by reference number.
pub type PlanBatch<'a> = dyn Fn(&HashMap<String, ExistingOrder>) -> BatchPlan + Send + Sync + 'a;

/// A decision on one stored receiving order.
pub type OrderDecision<'a, T> = dyn Fn(&ExistingOrder) -> Result<T> + Send + Sync + 'a;

/// Receiving orders.
pub trait ReceivingOrderRepository: Send + Sync {
    /// Applies a batch in one writing transaction: locks the stored orders
    /// that `batch` names, asks `plan` what to do, and applies the plan at
    /// `now`. Returns the plan's failures.
    fn apply_batch(
        &self,
        tenant: Uuid,
        batch: &[ReceivingOrder],
        plan: &PlanBatch<'_>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<UpsertFailure>>> + Send;

    /// Locks the order, asks `decide` for the transfer detail to store, and
    /// stores it at `now`; returns it.
    fn update_transfer_detail(
        &self,
        tenant: Uuid,
        reference: &str,
        decide: &OrderDecision<'_, TransferDetail>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<TransferDetail>> + Send;

    /// Locks the order, asks `decide` for its next state, and stores it at `now`.
    fn update_receiving_order_state(
        &self,
        tenant: Uuid,
        reference: &str,
        decide: &OrderDecision<'_, ReceivingOrderState>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// A change to one stored sales order: the order as it should be stored.
pub type SalesOrderChange<'a> = dyn Fn(SalesOrder) -> Result<SalesOrder> + Send + Sync + 'a;

/// Sales orders.
pub trait SalesOrderRepository: Send + Sync {
    /// A sales order.
    fn sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
    ) -> impl Future<Output = Result<Option<SalesOrder>>> + Send;

    /// A sales order as its answer's JSON text, in bytes: what [`Self::sales_order`]
    /// reads, before it is parsed. A store that keeps each order whole
    /// returns the text as stored, so that a read neither parses nor writes
    /// it again (D65); by default the order is written out.
    fn sales_order_json(
        &self,
        tenant: Uuid,
        reference: &str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>>> + Send {
        async move {
            self.sales_order(tenant, reference)
                .await?
                .map(|order| serde_json::to_vec(&order))
                .transpose()
                .map_err(|e| {
                    DomainError::Unavailable(format!("a sales order cannot be written: {e}"))
                })
        }
    }

    /// Imports orders all or nothing, in one writing transaction that takes
    /// the tenant's customer counter first: each order's customer is found by
    /// email key or created (numbered by `rules`), its addresses added to the
    /// customer unless the same place is there, and the order stored with
    /// the customer's and addresses' ids and numbers. A reference number
    /// taken is refused naming the item.
    fn import_sales_orders(
        &self,
        tenant: Uuid,
        orders: &[SalesOrder],
        rules: &CustomerRules,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<usize>> + Send;

    /// Locks the order, asks `change` for its new version, and stores it.
    fn update_sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
        change: &SalesOrderChange<'_>,
    ) -> impl Future<Output = Result<SalesOrder>> + Send;
}

/// A decision on one stored return's progress.
pub type StepCheck<'a> = dyn Fn(ReturnProgress) -> Result<()> + Send + Sync + 'a;

/// Returns.
pub trait ReturnRepository: Send + Sync {
    /// One page of returns matching `query`, and the number matching before paging.
    fn list_returns<P: ReturnProperty>(
        &self,
        tenant: Uuid,
        query: &DynamicQuery<P>,
    ) -> impl Future<Output = Result<(Vec<TaggedReturn>, i64)>> + Send;

    /// Stores returns all or nothing; a reference number taken is refused
    /// naming the item.
    fn insert_returns(
        &self,
        tenant: Uuid,
        returns: &[TaggedReturn],
    ) -> impl Future<Output = Result<usize>> + Send;

    /// Locks the return, asks `check` whether it may take `step`, and records
    /// the step at `now`.
    fn record_return_step(
        &self,
        tenant: Uuid,
        reference: &str,
        step: ReturnStep,
        check: &StepCheck<'_>,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Sets a return's tag at `now`; `false` when no return has the reference.
    fn set_return_tag(
        &self,
        tenant: Uuid,
        reference: &str,
        tag: &str,
        now: DateTime<Utc>,
    ) -> impl Future<Output = Result<bool>> + Send;
}
