//! Receiving orders: a batch's plan applied, transfer details and states.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use logistics_models::{
    ReceivingOrder, ReceivingOrderLineItem, ReceivingOrderLotLine, TransferDetail, UpsertFailure,
};
use uuid::Uuid;

use super::Store;
use super::db::{Arg, StoreError, Tx, in_write, micros, query};
use crate::domain::DomainError;
use crate::domain::receiving_orders::{ExistingOrder, ReceivingOrderState};
use crate::domain::repository::{OrderDecision, PlanBatch, ReceivingOrderRepository, Result};

/// Rows per multi-row statement, well within both databases' parameter limits.
const ROWS_PER_STATEMENT: usize = 1000;

impl ReceivingOrderRepository for Store {
    async fn apply_batch(
        &self,
        tenant: Uuid,
        batch: &[ReceivingOrder],
        plan: &PlanBatch<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<UpsertFailure>> {
        in_write!(self.pool, |tx| apply(tx, tenant, batch, plan, micros(now))
            .await)
    }

    async fn update_transfer_detail(
        &self,
        tenant: Uuid,
        reference: &str,
        decide: &OrderDecision<'_, TransferDetail>,
        now: DateTime<Utc>,
    ) -> Result<TransferDetail> {
        in_write!(self.pool, |tx| {
            let (id, existing) = locked(tx, tenant, reference).await?;
            let detail = decide(&existing)?;
            tx.execute(
                query("UPDATE receiving_orders SET transfer_type = $1, transfer_detail = $2, updated_at = $3 WHERE id = $4")
                    .bind(detail.transfer_type.as_str())
                    .bind(transfer_json(&detail.cargo_transfer, &detail.pickup_transfer, &detail.carriage_transfer))
                    .bind(micros(now))
                    .bind(id),
            )
            .await?;
            Ok(detail)
        })
    }

    async fn update_receiving_order_state(
        &self,
        tenant: Uuid,
        reference: &str,
        decide: &OrderDecision<'_, ReceivingOrderState>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        in_write!(self.pool, |tx| {
            let (id, existing) = locked(tx, tenant, reference).await?;
            let state = decide(&existing)?;
            tx.execute(
                query("UPDATE receiving_orders SET state = $1, updated_at = $2 WHERE id = $3")
                    .bind(state.as_str())
                    .bind(micros(now))
                    .bind(id),
            )
            .await?;
            Ok(())
        })
    }
}

/// Locks the orders `batch` names, plans the batch against them, and writes
/// the plan: new orders inserted, stored ones' lines replaced.
async fn apply(
    tx: &mut Tx,
    tenant: Uuid,
    batch: &[ReceivingOrder],
    plan: &PlanBatch<'_>,
    now: i64,
) -> Result<Vec<UpsertFailure>, StoreError> {
    let mut references: Vec<&str> = batch
        .iter()
        .filter_map(|o| o.reference_number.as_deref())
        .collect();
    references.sort_unstable();
    references.dedup();
    let stored = existing(tx, tenant, &references).await?;
    let states: HashMap<String, ExistingOrder> = stored
        .iter()
        .map(|(reference, (_, order))| (reference.clone(), order.clone()))
        .collect();
    let plan = plan(&states);
    let mut created = Vec::new();
    let mut replaced = Vec::new();
    let mut lines = Vec::new();
    for order in &plan.orders {
        let id = match order.create {
            Some(item) => {
                let id = Uuid::now_v7();
                created.push((id, order.reference.as_str(), &batch[item]));
                id
            }
            None => {
                let (id, _) = stored.get(&order.reference).ok_or_else(|| {
                    DomainError::Internal(format!(
                        "the plan updates {}, which is not stored",
                        order.reference
                    ))
                })?;
                replaced.push(*id);
                *id
            }
        };
        lines.push((id, &batch[order.lines]));
    }
    for chunk in created.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO receiving_orders (id, tenant_id, reference_number, integration_id, receive_type, \
             transfer_type, transfer_detail, state, created_at, updated_at) VALUES {}",
            tx.placeholders().rows(chunk.len(), 10)
        );
        let mut insert = query(sql);
        for (id, reference, item) in chunk {
            insert = insert
                .bind(*id)
                .bind(tenant)
                .bind(*reference)
                .bind(item.integration_id)
                .bind(item.receive_type.as_str())
                .bind(item.transfer_type.as_str())
                .bind(transfer_json(
                    &item.cargo_transfer,
                    &item.pickup_transfer,
                    &item.carriage_transfer,
                ))
                .bind(ReceivingOrderState::Created.as_str())
                .bind(now)
                .bind(now);
        }
        tx.execute(insert).await?;
    }
    for chunk in replaced.chunks(ROWS_PER_STATEMENT) {
        let ids: Vec<Arg<'_>> = chunk.iter().map(|id| Arg::from(*id)).collect();
        for table in ["receiving_order_lines", "receiving_order_lots"] {
            let sql = format!(
                "DELETE FROM {table} WHERE order_id IN ({})",
                tx.placeholders().list(ids.len())
            );
            tx.execute(ids.iter().cloned().fold(query(sql), |q, id| q.bind(id)))
                .await?;
        }
        let mut placeholders = tx.placeholders();
        let sql = format!(
            "UPDATE receiving_orders SET updated_at = {} WHERE id IN ({})",
            placeholders.next(),
            placeholders.list(ids.len())
        );
        tx.execute(
            ids.iter()
                .cloned()
                .fold(query(sql).bind(now), |q, id| q.bind(id)),
        )
        .await?;
    }
    let line_rows: Vec<(Uuid, i32, &ReceivingOrderLineItem)> = lines
        .iter()
        .flat_map(|(id, item)| {
            item.line_items
                .iter()
                .enumerate()
                .map(move |(i, line)| (*id, i as i32, line))
        })
        .collect();
    for chunk in line_rows.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO receiving_order_lines (order_id, position, item_no, sku, expected_quantity, lot_number, \
             has_limit_check, tolerance, external_line_item_id) VALUES {}",
            tx.placeholders().rows(chunk.len(), 9)
        );
        let mut insert = query(sql);
        for (order, position, line) in chunk {
            insert = insert
                .bind(*order)
                .bind(*position)
                .bind(line.item_no)
                .bind(line.sku.as_str())
                .bind(line.expected_quantity)
                .bind(line.lot_number.as_deref())
                .bind(line.has_limit_check)
                .bind(line.tolerance)
                .bind(line.external_line_item_id.as_deref());
        }
        tx.execute(insert).await?;
    }
    let lot_rows: Vec<(Uuid, i32, &ReceivingOrderLotLine)> = lines
        .iter()
        .flat_map(|(id, item)| {
            item.line_item_lot_numbers
                .iter()
                .flatten()
                .enumerate()
                .map(move |(i, lot)| (*id, i as i32, lot))
        })
        .collect();
    for chunk in lot_rows.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO receiving_order_lots (order_id, position, sku, lot_number, expected_quantity) VALUES {}",
            tx.placeholders().rows(chunk.len(), 5)
        );
        let mut insert = query(sql);
        for (order, position, lot) in chunk {
            insert = insert
                .bind(*order)
                .bind(*position)
                .bind(lot.sku.as_deref())
                .bind(lot.lot_number.as_deref())
                .bind(lot.expected_quantity);
        }
        tx.execute(insert).await?;
    }
    Ok(plan.failures)
}

/// The stored orders among `references` (sorted), locked in that order so
/// that concurrent batches cannot deadlock; by reference number.
async fn existing(
    tx: &mut Tx,
    tenant: Uuid,
    references: &[&str],
) -> Result<HashMap<String, (Uuid, ExistingOrder)>, StoreError> {
    let mut found = HashMap::with_capacity(references.len());
    for chunk in references.chunks(ROWS_PER_STATEMENT) {
        let mut placeholders = tx.placeholders();
        let sql = format!(
            "SELECT id, reference_number, state, integration_id FROM receiving_orders \
             WHERE tenant_id = {} AND reference_number IN ({}) ORDER BY reference_number{}",
            placeholders.next(),
            placeholders.list(chunk.len()),
            tx.lock_rows()
        );
        let select = chunk
            .iter()
            .fold(query(sql).bind(tenant), |q, r| q.bind(*r));
        for row in tx.fetch_all(select).await? {
            let state: String = row.get(2)?;
            let order = ExistingOrder {
                state: ReceivingOrderState::parse(&state).unwrap_or(ReceivingOrderState::Cancelled),
                integration_id: row.get(3)?,
            };
            found.insert(row.get(1)?, (row.get(0)?, order));
        }
    }
    Ok(found)
}

/// The order with `reference`, locked.
async fn locked(
    tx: &mut Tx,
    tenant: Uuid,
    reference: &str,
) -> Result<(Uuid, ExistingOrder), StoreError> {
    let sql = format!(
        "SELECT id, state, integration_id FROM receiving_orders WHERE tenant_id = $1 AND reference_number = $2{}",
        tx.lock_rows()
    );
    let row = tx
        .fetch_optional(query(sql).bind(tenant).bind(reference))
        .await?;
    let row = row.ok_or_else(|| crate::domain::receiving_orders::not_found(reference))?;
    let state: String = row.get(1)?;
    Ok((
        row.get(0)?,
        ExistingOrder {
            state: ReceivingOrderState::parse(&state).unwrap_or(ReceivingOrderState::Cancelled),
            integration_id: row.get(2)?,
        },
    ))
}

/// The transfer objects as stored: one JSON document.
fn transfer_json<C: serde::Serialize, P: serde::Serialize, R: serde::Serialize>(
    cargo: &C,
    pickup: &P,
    carriage: &R,
) -> String {
    serde_json::json!({
        "cargoTransfer": cargo,
        "pickupTransfer": pickup,
        "carriageTransfer": carriage,
    })
    .to_string()
}
