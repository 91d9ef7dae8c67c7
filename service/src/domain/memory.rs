//! An in-memory repository: every trait of the [`repository`](super::repository)
//! seam over maps behind one lock, so that the domain's operations can be
//! tested without a database. One lock held for a whole call stands for the
//! stores' writing transactions: a call sees and changes state atomically,
//! and a refused call changes nothing.
//!
//! Listings page in the default order only; a query with filters or sorting
//! is refused (the SQL translation has tests of its own, and the e2e suite
//! runs every query on both databases).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use logistics_models::dynamic_query::DynamicQuery;
use logistics_models::{
    Address, Customer, ReceivingOrder, SalesOrder, TaggedReturn, TransferDetail, UpsertFailure,
};
use uuid::Uuid;

use super::DomainError;
use super::receiving_orders::{ExistingOrder, ReceivingOrderState};
use super::repository::{
    CustomerRepository, CustomerRules, NewCustomer, Numbering, OrderDecision, PlanBatch,
    ReceivingOrderRepository, Result, ReturnRepository, SalesOrderChange, SalesOrderRepository,
    StepCheck, TenantRecord, TenantRepository,
};
use super::returns::{ReturnProgress, ReturnProperty, ReturnStep};
use super::tenancy::{Environment, TokenRecord};

/// The in-memory repository.
#[derive(Debug, Default)]
pub struct MemoryRepository {
    state: Mutex<State>,
}

/// A stored receiving order: its state, integration, transfer and lines.
#[derive(Debug, Clone)]
pub struct StoredReceivingOrder {
    /// What the batch rules see.
    pub existing: ExistingOrder,
    /// The order as last written (its lines are the last item's).
    pub order: ReceivingOrder,
    /// Its transfer detail, when one was set after creation.
    pub transfer: Option<TransferDetail>,
}

#[derive(Debug, Default, Clone)]
struct State {
    tenants: HashMap<Uuid, i32>,
    /// The names of the tenants made in no environment.
    unbound_names: HashMap<Uuid, String>,
    /// The environment of each tenant that is in one.
    environments: HashMap<Uuid, Environment>,
    tokens: HashMap<String, TokenRecord>,
    customers: HashMap<Uuid, Vec<(String, Customer)>>,
    receiving_orders: HashMap<(Uuid, String), StoredReceivingOrder>,
    sales_orders: HashMap<(Uuid, String), SalesOrder>,
    returns: HashMap<Uuid, Vec<TaggedReturn>>,
}

impl State {
    /// Removes the tenants named `name` in no environment and without a
    /// token, with their data, as the stores do (D36).
    fn remove_abandoned(&mut self, name: &str) {
        let abandoned: Vec<Uuid> = self
            .unbound_names
            .iter()
            .filter(|(id, named)| {
                *named == name
                    && !self.environments.contains_key(id)
                    && !self.tokens.values().any(|token| token.tenant_id == **id)
            })
            .map(|(id, _)| *id)
            .collect();
        for id in abandoned {
            self.tenants.remove(&id);
            self.unbound_names.remove(&id);
            self.customers.remove(&id);
            self.returns.remove(&id);
            self.receiving_orders.retain(|(tenant, _), _| *tenant != id);
            self.sales_orders.retain(|(tenant, _), _| *tenant != id);
        }
    }

    /// Puts a stored tenant into its environment with its token.
    fn bind(&mut self, tenant: &TenantRecord) {
        self.environments.insert(tenant.id, tenant.environment);
        self.tokens.insert(
            tenant.key_id.clone(),
            TokenRecord {
                tenant_id: tenant.id,
                environment: tenant.environment,
                secret_hash: tenant.secret_hash.to_vec(),
                emulation: tenant.emulation,
                tenant_environment: Some(tenant.environment),
            },
        );
    }
}

impl MemoryRepository {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A stored receiving order, for tests.
    pub fn receiving_order(&self, tenant: Uuid, reference: &str) -> Option<StoredReceivingOrder> {
        self.state()
            .receiving_orders
            .get(&(tenant, reference.to_owned()))
            .cloned()
    }

    /// Runs `change` on a copy of the state, keeping it only when it succeeds.
    fn transaction<T>(&self, change: impl FnOnce(&mut State) -> Result<T>) -> Result<T> {
        let mut state = self.state();
        let mut copy = state.clone();
        let value = change(&mut copy)?;
        *state = copy;
        Ok(value)
    }
}

impl State {
    fn insert_customer(
        &mut self,
        tenant: Uuid,
        customer: &NewCustomer,
        rules: &CustomerRules,
    ) -> Result<Customer> {
        let last = *self
            .tenants
            .get(&tenant)
            .ok_or(DomainError::UnknownTenant(tenant))?;
        let customers = self.customers.entry(tenant).or_default();
        let same_email = customers
            .iter()
            .find(|(key, _)| *key == customer.email_key)
            .map(|(_, c)| c.customer_no);
        let customer_no = (rules.number)(Numbering { last, same_email })?;
        self.tenants.insert(tenant, customer_no);
        let stored = Customer::new(
            Uuid::new_v4(),
            customer_no,
            customer.email.clone(),
            customer.first_name.clone(),
            customer.last_name.clone(),
            customer.phone.clone(),
            customer.created_at,
            Vec::new(),
        );
        customers.push((customer.email_key.clone(), stored.clone()));
        Ok(stored)
    }

    fn add_address(
        &mut self,
        tenant: Uuid,
        customer_no: i32,
        address: &Address,
        rules: &CustomerRules,
    ) -> Address {
        let customers = self.customers.entry(tenant).or_default();
        let Some((_, customer)) = customers
            .iter_mut()
            .find(|(_, c)| c.customer_no == customer_no)
        else {
            return address.clone();
        };
        if let Some(same) = customer
            .addresses
            .iter()
            .find(|a| (rules.same_place)(a, address))
        {
            return same.clone();
        }
        let last = customer
            .addresses
            .iter()
            .map(|a| a.address_no)
            .max()
            .unwrap_or(0);
        let mut stored = address.clone();
        stored.id = Uuid::new_v4();
        stored.address_no = (rules.address_number)(last);
        customer.addresses.push(stored.clone());
        stored
    }

    fn receiving_order(
        &mut self,
        tenant: Uuid,
        reference: &str,
    ) -> Result<&mut StoredReceivingOrder> {
        self.receiving_orders
            .get_mut(&(tenant, reference.to_owned()))
            .ok_or_else(|| super::receiving_orders::not_found(reference))
    }
}

impl TenantRepository for MemoryRepository {
    async fn insert_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        let mut state = self.state();
        state.tenants.insert(tenant.id, 0);
        state.bind(tenant);
        Ok(())
    }

    async fn insert_unbound_tenant(
        &self,
        tenant: Uuid,
        name: &str,
        _created_at: DateTime<Utc>,
    ) -> Result<()> {
        let mut state = self.state();
        state.remove_abandoned(name);
        state.tenants.insert(tenant, 0);
        state.unbound_names.insert(tenant, name.to_owned());
        Ok(())
    }

    async fn bind_tenant(&self, tenant: &TenantRecord) -> Result<()> {
        let mut state = self.state();
        if !state.tenants.contains_key(&tenant.id) || state.environments.contains_key(&tenant.id) {
            return Err(DomainError::Internal(format!(
                "tenant {} is not a tenant in no environment",
                tenant.id
            )));
        }
        state.bind(tenant);
        Ok(())
    }

    async fn add_token(&self, tenant: &TenantRecord) -> Result<()> {
        let mut state = self.state();
        if state.environments.get(&tenant.id) != Some(&tenant.environment) {
            return Err(DomainError::Internal(format!(
                "tenant {} is not a tenant of {}",
                tenant.id, tenant.environment
            )));
        }
        state.bind(tenant);
        Ok(())
    }

    async fn find_token(&self, key_id: &str) -> Result<Option<TokenRecord>> {
        let state = self.state();
        Ok(state.tokens.get(key_id).map(|token| TokenRecord {
            tenant_environment: state.environments.get(&token.tenant_id).copied(),
            ..token.clone()
        }))
    }

    async fn tenant_exists(&self, tenant: Uuid) -> Result<bool> {
        Ok(self.state().tenants.contains_key(&tenant))
    }

    async fn tenant_environment(&self, tenant: Uuid) -> Result<Option<Environment>> {
        Ok(self.state().environments.get(&tenant).copied())
    }

    async fn has_tenants(&self) -> Result<bool> {
        Ok(!self.state().environments.is_empty())
    }
}

impl CustomerRepository for MemoryRepository {
    async fn insert_customer(
        &self,
        tenant: Uuid,
        customer: &NewCustomer,
        rules: &CustomerRules,
    ) -> Result<Customer> {
        self.transaction(|state| state.insert_customer(tenant, customer, rules))
    }

    async fn customer(&self, tenant: Uuid, customer_no: i32) -> Result<Option<Customer>> {
        let state = self.state();
        let customers = state
            .customers
            .get(&tenant)
            .map(Vec::as_slice)
            .unwrap_or_default();
        Ok(customers
            .iter()
            .find(|(_, c)| c.customer_no == customer_no)
            .map(|(_, c)| c.clone()))
    }
}

impl ReceivingOrderRepository for MemoryRepository {
    async fn apply_batch(
        &self,
        tenant: Uuid,
        batch: &[ReceivingOrder],
        plan: &PlanBatch<'_>,
        _now: DateTime<Utc>,
    ) -> Result<Vec<UpsertFailure>> {
        self.transaction(|state| {
            let stored: HashMap<String, ExistingOrder> = batch
                .iter()
                .filter_map(|item| item.reference_number.as_ref())
                .filter_map(|reference| {
                    let order = state.receiving_orders.get(&(tenant, reference.clone()))?;
                    Some((reference.clone(), order.existing.clone()))
                })
                .collect();
            let plan = plan(&stored);
            for order in &plan.orders {
                let lines = &batch[order.lines];
                let key = (tenant, order.reference.clone());
                match order.create {
                    Some(item) => {
                        let header = &batch[item];
                        let mut created = header.clone();
                        created.reference_number = Some(order.reference.clone());
                        created.line_items = lines.line_items.clone();
                        created.line_item_lot_numbers = lines.line_item_lot_numbers.clone();
                        let existing = ExistingOrder {
                            state: ReceivingOrderState::Created,
                            integration_id: header.integration_id,
                        };
                        state.receiving_orders.insert(
                            key,
                            StoredReceivingOrder {
                                existing,
                                order: created,
                                transfer: None,
                            },
                        );
                    }
                    None => {
                        let stored = state.receiving_order(tenant, &order.reference)?;
                        stored.order.line_items = lines.line_items.clone();
                        stored.order.line_item_lot_numbers = lines.line_item_lot_numbers.clone();
                    }
                }
            }
            Ok(plan.failures)
        })
    }

    async fn update_transfer_detail(
        &self,
        tenant: Uuid,
        reference: &str,
        decide: &OrderDecision<'_, TransferDetail>,
        _now: DateTime<Utc>,
    ) -> Result<TransferDetail> {
        self.transaction(|state| {
            let stored = state.receiving_order(tenant, reference)?;
            let detail = decide(&stored.existing)?;
            stored.transfer = Some(detail.clone());
            Ok(detail)
        })
    }

    async fn update_receiving_order_state(
        &self,
        tenant: Uuid,
        reference: &str,
        decide: &OrderDecision<'_, ReceivingOrderState>,
        _now: DateTime<Utc>,
    ) -> Result<()> {
        self.transaction(|state| {
            let stored = state.receiving_order(tenant, reference)?;
            stored.existing.state = decide(&stored.existing)?;
            Ok(())
        })
    }
}

impl SalesOrderRepository for MemoryRepository {
    async fn sales_order(&self, tenant: Uuid, reference: &str) -> Result<Option<SalesOrder>> {
        Ok(self
            .state()
            .sales_orders
            .get(&(tenant, reference.to_owned()))
            .cloned())
    }

    async fn import_sales_orders(
        &self,
        tenant: Uuid,
        orders: &[SalesOrder],
        rules: &CustomerRules,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        self.transaction(|state| {
            for (i, order) in orders.iter().enumerate() {
                let email_key = (rules.email_key)(&order.customer.email);
                let found = state
                    .customers
                    .get(&tenant)
                    .and_then(|all| all.iter().find(|(key, _)| *key == email_key))
                    .map(|(_, c)| c.clone());
                let customer = match found {
                    Some(customer) => customer,
                    None => {
                        let new = NewCustomer {
                            email: order.customer.email.clone(),
                            email_key,
                            first_name: order.customer.first_name.clone(),
                            last_name: order.customer.last_name.clone(),
                            phone: order.customer.phone.clone(),
                            created_at: now,
                        };
                        state.insert_customer(tenant, &new, rules)?
                    }
                };
                let mut stored = order.clone();
                stored.customer = order.customer.clone();
                stored.customer.id = customer.id;
                stored.customer.customer_no = customer.customer_no;
                stored.customer.created_at = customer.created_at;
                if let Some(address) = &order.shipping_address {
                    stored.shipping_address =
                        Some(state.add_address(tenant, customer.customer_no, address, rules));
                }
                if let Some(address) = &order.billing_address {
                    stored.billing_address =
                        Some(state.add_address(tenant, customer.customer_no, address, rules));
                }
                let key = (tenant, order.reference_number.clone());
                if state.sales_orders.contains_key(&key) {
                    return Err(DomainError::invalid(
                        format!("[{i}].referenceNumber"),
                        format!(
                            "a sales order with reference number {} already exists",
                            order.reference_number
                        ),
                        "ResourceAlreadyExists",
                    ));
                }
                state.sales_orders.insert(key, stored);
            }
            Ok(orders.len())
        })
    }

    async fn update_sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
        change: &SalesOrderChange<'_>,
    ) -> Result<SalesOrder> {
        self.transaction(|state| {
            let stored = state
                .sales_orders
                .get_mut(&(tenant, reference.to_owned()))
                .ok_or_else(|| super::sales_orders::not_found(reference))?;
            *stored = change(stored.clone())?;
            Ok(stored.clone())
        })
    }
}

impl ReturnRepository for MemoryRepository {
    async fn list_returns<P: ReturnProperty>(
        &self,
        tenant: Uuid,
        query: &DynamicQuery<P>,
    ) -> Result<(Vec<TaggedReturn>, i64)> {
        if !query.filters().is_empty() || !query.sorting().is_empty() {
            return Err(DomainError::Internal(
                "the in-memory repository lists in the default order only".to_owned(),
            ));
        }
        let state = self.state();
        let mut all: Vec<&TaggedReturn> =
            state.returns.get(&tenant).into_iter().flatten().collect();
        all.sort_by(|a, b| {
            (a.created_at, &a.return_reference_number)
                .cmp(&(b.created_at, &b.return_reference_number))
        });
        let page = all
            .iter()
            .skip(query.effective_offset() as usize)
            .take(query.effective_count() as usize)
            .map(|r| (*r).clone())
            .collect();
        Ok((page, all.len() as i64))
    }

    async fn insert_returns(&self, tenant: Uuid, returns: &[TaggedReturn]) -> Result<usize> {
        self.transaction(|state| {
            let stored = state.returns.entry(tenant).or_default();
            for (i, item) in returns.iter().enumerate() {
                if stored
                    .iter()
                    .any(|r| r.return_reference_number == item.return_reference_number)
                {
                    return Err(DomainError::invalid(
                        format!("[{i}].returnReferenceNumber"),
                        format!(
                            "a return with reference number {} already exists",
                            item.return_reference_number
                        ),
                        "ResourceAlreadyExists",
                    ));
                }
                stored.push(item.clone());
            }
            Ok(returns.len())
        })
    }

    async fn record_return_step(
        &self,
        tenant: Uuid,
        reference: &str,
        step: ReturnStep,
        check: &StepCheck<'_>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.transaction(|state| {
            let stored = state
                .returns
                .get_mut(&tenant)
                .and_then(|all| {
                    all.iter_mut()
                        .find(|r| r.return_reference_number == reference)
                })
                .ok_or_else(|| super::returns::not_found(reference))?;
            check(ReturnProgress {
                arrived: stored.arrived_to_warehouse_at.is_some(),
                completed: stored.completed_at.is_some(),
            })?;
            match step {
                ReturnStep::Arrived => stored.arrived_to_warehouse_at = Some(now),
                ReturnStep::Completed => stored.completed_at = Some(now),
            }
            stored.updated_at = now;
            Ok(())
        })
    }

    async fn set_return_tag(
        &self,
        tenant: Uuid,
        reference: &str,
        tag: &str,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let mut state = self.state();
        let found = state.returns.get_mut(&tenant).and_then(|all| {
            all.iter_mut()
                .find(|r| r.return_reference_number == reference)
        });
        Ok(match found {
            Some(stored) => {
                stored.tag = Some(tag.to_owned());
                stored.updated_at = now;
                true
            }
            None => false,
        })
    }
}
