//! Sales orders: the read model stored as a document beside its keys.

use chrono::{DateTime, Utc};
use logistics_models::SalesOrder;
use uuid::Uuid;

use super::Store;
use super::batched::KeyRead;
use super::customers;
use super::db::{StoreError, Tx, in_write, micros, query, time, unique_violation};
use crate::domain::DomainError;
use crate::domain::repository::{
    CustomerRules, NewCustomer, Result, SalesOrderChange, SalesOrderRepository,
};

/// A sales order's stored document by its reference number.
static DOCUMENT: KeyRead = KeyRead {
    one: "SELECT document FROM sales_orders WHERE tenant_id = $1 AND reference_number = $2",
    // One index lookup a key, whatever the planner guesses of the arrays.
    many: "SELECT k.position, (SELECT s.document FROM sales_orders s \
           WHERE s.tenant_id = k.tenant_id AND s.reference_number = k.reference_number) \
           FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS k(tenant_id, reference_number, position)",
};

impl SalesOrderRepository for Store {
    async fn sales_order(&self, tenant: Uuid, reference: &str) -> Result<Option<SalesOrder>> {
        match self.sales_order_json(tenant, reference).await? {
            Some(document) => Ok(Some(from_document(&document)?)),
            None => Ok(None),
        }
    }

    /// The stored document: `to_document`'s writing of the order, the
    /// same text the stubs would write.
    async fn sales_order_json(&self, tenant: Uuid, reference: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.fetch_text(&DOCUMENT, tenant, reference).await?)
    }

    async fn import_sales_orders(
        &self,
        tenant: Uuid,
        orders: &[SalesOrder],
        rules: &CustomerRules,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        in_write!(self.pool, |tx| import(tx, tenant, orders, rules, now).await)
    }

    async fn update_sales_order(
        &self,
        tenant: Uuid,
        reference: &str,
        change: &SalesOrderChange<'_>,
    ) -> Result<SalesOrder> {
        in_write!(self.pool, |tx| {
            let sql = format!(
                "SELECT document FROM sales_orders WHERE tenant_id = $1 AND reference_number = $2{}",
                tx.lock_rows()
            );
            let row = tx
                .fetch_optional(query(sql).bind(tenant).bind(reference))
                .await?;
            let row = row.ok_or_else(|| crate::domain::sales_orders::not_found(reference))?;
            let order = change(from_document(row.get::<String>(0)?.as_bytes())?)?;
            tx.execute(
                query(
                    "UPDATE sales_orders SET state = $1, document = $2, updated_at = $3 \
                     WHERE tenant_id = $4 AND reference_number = $5",
                )
                .bind(order.state.as_str())
                .bind(to_document(&order)?)
                .bind(micros(order.updated_at))
                .bind(tenant)
                .bind(reference),
            )
            .await?;
            Ok(order)
        })
    }
}

/// Imports `orders` inside `tx` (see [`SalesOrderRepository::import_sales_orders`]).
async fn import(
    tx: &mut Tx,
    tenant: Uuid,
    orders: &[SalesOrder],
    rules: &CustomerRules,
    now: DateTime<Utc>,
) -> Result<usize, StoreError> {
    // The counter first, before any customer is looked up by email: see
    // `customers::lock_counter`.
    customers::lock_counter(tx, tenant).await?;
    for (i, order) in orders.iter().enumerate() {
        let email_key = (rules.email_key)(&order.customer.email);
        let (customer_id, customer_no, created_at) =
            match customers::by_email(tx, tenant, &email_key).await? {
                Some((id, no, created_at)) => (id, no, time(created_at)),
                None => {
                    let customer = NewCustomer {
                        email: order.customer.email.clone(),
                        email_key,
                        first_name: order.customer.first_name.clone(),
                        last_name: order.customer.last_name.clone(),
                        phone: order.customer.phone.clone(),
                        created_at: now,
                    };
                    let created = customers::insert(tx, tenant, &customer, rules).await?;
                    (created.id, created.customer_no, created.created_at)
                }
            };
        let mut stored = order.clone();
        stored.customer = order.customer.clone();
        stored.customer.id = customer_id;
        stored.customer.customer_no = customer_no;
        stored.customer.created_at = created_at;
        if let Some(address) = &order.shipping_address {
            stored.shipping_address =
                Some(customers::add_address(tx, customer_id, address, rules).await?);
        }
        if let Some(address) = &order.billing_address {
            stored.billing_address =
                Some(customers::add_address(tx, customer_id, address, rules).await?);
        }
        let inserted = tx
            .execute(
                query(
                    "INSERT INTO sales_orders (id, tenant_id, reference_number, customer_id, state, document, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(stored.id)
                .bind(tenant)
                .bind(&stored.reference_number)
                .bind(customer_id)
                .bind(stored.state.as_str())
                .bind(to_document(&stored)?)
                .bind(micros(stored.created_at))
                .bind(micros(stored.updated_at)),
            )
            .await;
        match inserted {
            Err(error) if unique_violation(&error) => {
                return Err(DomainError::invalid(
                    format!("[{i}].referenceNumber"),
                    format!(
                        "a sales order with reference number {} (or id {}) already exists",
                        stored.reference_number, stored.id
                    ),
                    "ResourceAlreadyExists",
                )
                .into());
            }
            other => {
                other?;
            }
        }
    }
    Ok(orders.len())
}

fn from_document(document: &[u8]) -> Result<SalesOrder, sqlx::Error> {
    serde_json::from_slice(document).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

fn to_document(order: &SalesOrder) -> Result<String, sqlx::Error> {
    serde_json::to_string(order).map_err(|e| sqlx::Error::Encode(Box::new(e)))
}
