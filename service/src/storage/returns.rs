//! Returns: listings, imports, progress and tags.

use chrono::{DateTime, Utc};
use logistics_models::TaggedReturn;
use logistics_models::dynamic_query::DynamicQuery;
use uuid::Uuid;

use super::Store;
use super::db::{Row, StoreError, Tx, in_write, micros, query, time, unique_violation};
use super::returns_query::{self, Bind};
use crate::domain::DomainError;
use crate::domain::repository::{Result, ReturnRepository, StepCheck};
use crate::domain::returns::{ReturnProgress, ReturnProperty, ReturnStep, not_found};

/// One row of the returns table, as [`return_from_row`] reads it.
const RETURN_COLUMNS: &str = "return_reference_number, sales_order_channel, sales_order_reference_number, notes, \
     tracking_id, cargo_carrier, created_at, updated_at, arrived_to_warehouse_at, completed_at, tag";

impl ReturnRepository for Store {
    async fn list_returns<P: ReturnProperty>(
        &self,
        tenant: Uuid,
        query: &DynamicQuery<P>,
    ) -> Result<(Vec<TaggedReturn>, i64)> {
        let plan = returns_query::plan(query);
        let condition = &plan.condition;
        let count_sql =
            format!("SELECT COUNT(*) FROM returns WHERE tenant_id = $1 AND {condition}");
        let page_sql = format!(
            "SELECT {RETURN_COLUMNS} FROM returns WHERE tenant_id = $1 AND {condition} ORDER BY {} \
             LIMIT ${} OFFSET ${}",
            plan.order,
            plan.binds.len() + 2,
            plan.binds.len() + 3
        );
        let bound = |sql: String| {
            plan.binds
                .iter()
                .fold(super::db::query(sql).bind(tenant), |q, bind| match bind {
                    Bind::Text(text) => q.bind(text.as_str()),
                    Bind::Int(n) => q.bind(*n),
                })
        };
        let total: i64 = match self.pool.fetch_optional(bound(count_sql)).await? {
            Some(row) => row.get(0)?,
            None => 0,
        };
        if total <= plan.offset {
            return Ok((Vec::new(), total));
        }
        let rows = self
            .pool
            .fetch_all(bound(page_sql).bind(plan.limit).bind(plan.offset))
            .await?;
        let items = rows
            .iter()
            .map(return_from_row)
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        Ok((items, total))
    }

    async fn insert_returns(&self, tenant: Uuid, returns: &[TaggedReturn]) -> Result<usize> {
        in_write!(self.pool, |tx| insert(tx, tenant, returns).await)
    }

    async fn record_return_step(
        &self,
        tenant: Uuid,
        reference: &str,
        step: ReturnStep,
        check: &StepCheck<'_>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        in_write!(self.pool, |tx| {
            let sql = format!(
                "SELECT arrived_to_warehouse_at, completed_at FROM returns \
                 WHERE tenant_id = $1 AND return_reference_number = $2{}",
                tx.lock_rows()
            );
            let row = tx
                .fetch_optional(query(sql).bind(tenant).bind(reference))
                .await?;
            let row = row.ok_or_else(|| not_found(reference))?;
            check(ReturnProgress {
                arrived: row.get::<Option<i64>>(0)?.is_some(),
                completed: row.get::<Option<i64>>(1)?.is_some(),
            })?;
            let column = match step {
                ReturnStep::Arrived => "arrived_to_warehouse_at",
                ReturnStep::Completed => "completed_at",
            };
            let sql = format!(
                "UPDATE returns SET {column} = $1, updated_at = $1 WHERE tenant_id = $2 AND return_reference_number = $3"
            );
            tx.execute(query(sql).bind(micros(now)).bind(tenant).bind(reference))
                .await?;
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
        let updated = self
            .pool
            .execute(
                query("UPDATE returns SET tag = $1, updated_at = $2 WHERE tenant_id = $3 AND return_reference_number = $4")
                    .bind(tag)
                    .bind(micros(now))
                    .bind(tenant)
                    .bind(reference),
            )
            .await?;
        Ok(updated > 0)
    }
}

/// Inserts `returns` inside `tx`; a reference number taken is refused naming the item.
async fn insert(tx: &mut Tx, tenant: Uuid, returns: &[TaggedReturn]) -> Result<usize, StoreError> {
    for (i, item) in returns.iter().enumerate() {
        let inserted = tx
            .execute(
                query(
                    "INSERT INTO returns (id, tenant_id, return_reference_number, sales_order_channel, \
                     sales_order_reference_number, notes, tracking_id, cargo_carrier, created_at, updated_at, \
                     arrived_to_warehouse_at, completed_at, tag) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                )
                .bind(Uuid::now_v7())
                .bind(tenant)
                .bind(&item.return_reference_number)
                .bind(&item.sales_order_channel)
                .bind(&item.sales_order_reference_number)
                .bind(&item.notes)
                .bind(&item.tracking_id)
                .bind(&item.cargo_carrier)
                .bind(micros(item.created_at))
                .bind(micros(item.updated_at))
                .bind(item.arrived_to_warehouse_at.map(micros))
                .bind(item.completed_at.map(micros))
                .bind(&item.tag),
            )
            .await;
        match inserted {
            Err(error) if unique_violation(&error) => {
                return Err(DomainError::invalid(
                    format!("[{i}].returnReferenceNumber"),
                    format!(
                        "a return with reference number {} already exists",
                        item.return_reference_number
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
    Ok(returns.len())
}

fn return_from_row(row: &Row) -> Result<TaggedReturn, sqlx::Error> {
    let mut item = TaggedReturn::new(row.get::<String>(0)?, time(row.get(6)?), time(row.get(7)?));
    item.sales_order_channel = row.get(1)?;
    item.sales_order_reference_number = row.get(2)?;
    item.notes = row.get(3)?;
    item.tracking_id = row.get(4)?;
    item.cargo_carrier = row.get(5)?;
    item.arrived_to_warehouse_at = row.get::<Option<i64>>(8)?.map(time);
    item.completed_at = row.get::<Option<i64>>(9)?.map(time);
    item.tag = row.get(10)?;
    Ok(item)
}
