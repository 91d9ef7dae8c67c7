//! Storage: the repository interface the service uses, and its SQL
//! implementation for SQLite (the default, a file under `./data/`) and
//! PostgreSQL (when the database URL says `postgres://`).
//!
//! Every method is scoped to one tenant; every method that writes more than
//! one row does so in one transaction.

mod migrate;
pub mod returns_query;
mod sql;

use std::future::Future;

use logistics_models::{
    Customer, CustomerInput, ReceivingOrder, SalesOrder, SalesOrderState, TaggedReturn,
    TransferDetail, UpsertFailure,
};
use uuid::Uuid;

use crate::domain::DomainError;
use crate::domain::receiving_orders::ReceivingOrderState;
use crate::domain::returns::ReturnStep;
use crate::domain::tenancy::{Environment, TokenRecord};
pub use returns_query::SqlQuery;
pub use sql::{SqlStore, Store};

/// The result of a storage operation.
pub type Result<T> = std::result::Result<T, DomainError>;

/// A new tenant and its first token (shown once).
#[derive(Debug, Clone)]
pub struct NewTenant {
    /// The tenant's id.
    pub tenant_id: Uuid,
    /// Its token.
    pub token: String,
}

/// What the service reads and writes, one tenant at a time.
pub trait Repository: Send + Sync {
    /// Creates a tenant with a token for `environment`.
    fn create_tenant(
        &self,
        name: &str,
        environment: Environment,
        emulation: bool,
    ) -> impl Future<Output = Result<NewTenant>> + Send;

    /// The token whose public key id is `key_id`.
    fn find_token(&self, key_id: &str) -> impl Future<Output = Result<Option<TokenRecord>>> + Send;

    /// Whether the tenant exists.
    fn tenant_exists(&self, tenant: Uuid) -> impl Future<Output = Result<bool>> + Send;

    /// Whether any tenant exists (an empty database gets demo data).
    fn has_tenants(&self) -> impl Future<Output = Result<bool>> + Send;

    /// Applies a validated batch in array order, in one transaction; returns
    /// the orders that could not be updated.
    fn upsert_receiving_orders(
        &self,
        tenant: Uuid,
        batch: &[ReceivingOrder],
    ) -> impl Future<Output = Result<Vec<UpsertFailure>>> + Send;

    /// Replaces an order's transfer detail; returns it as stored.
    fn update_transfer_detail(
        &self,
        tenant: Uuid,
        reference: &str,
        detail: &TransferDetail,
    ) -> impl Future<Output = Result<TransferDetail>> + Send;

    /// Moves a receiving order to `state`.
    fn advance_receiving_order(
        &self,
        tenant: Uuid,
        reference: &str,
        state: ReceivingOrderState,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Creates a customer with the tenant's next customer number.
    fn create_customer(
        &self,
        tenant: Uuid,
        input: &CustomerInput,
    ) -> impl Future<Output = Result<Customer>> + Send;

    /// A customer with its addresses.
    fn get_customer(
        &self,
        tenant: Uuid,
        customer_no: i32,
    ) -> impl Future<Output = Result<Option<Customer>>> + Send;

    /// A sales order.
    fn get_sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
    ) -> impl Future<Output = Result<Option<SalesOrder>>> + Send;

    /// Imports sales orders from the warehouse side, all or nothing; each
    /// order's customer is matched by email or created, and its addresses
    /// are added to the customer.
    fn import_sales_orders(
        &self,
        tenant: Uuid,
        orders: &[SalesOrder],
    ) -> impl Future<Output = Result<usize>> + Send;

    /// Moves a sales order to `state`; returns it as stored.
    fn advance_sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
        state: SalesOrderState,
    ) -> impl Future<Output = Result<SalesOrder>> + Send;

    /// One page of returns and the number matching before paging.
    fn list_returns(
        &self,
        tenant: Uuid,
        query: &SqlQuery,
    ) -> impl Future<Output = Result<(Vec<TaggedReturn>, i64)>> + Send;

    /// Imports returns from the warehouse side, all or nothing.
    fn import_returns(
        &self,
        tenant: Uuid,
        returns: &[TaggedReturn],
    ) -> impl Future<Output = Result<usize>> + Send;

    /// Records a return's arrival or completion.
    fn advance_return(
        &self,
        tenant: Uuid,
        reference: &str,
        step: ReturnStep,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Sets a return's tag.
    fn tag_return(
        &self,
        tenant: Uuid,
        reference: &str,
        tag: &str,
    ) -> impl Future<Output = Result<()>> + Send;
}
