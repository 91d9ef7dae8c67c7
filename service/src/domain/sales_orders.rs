//! Sales orders: their state machine (decisions D12).

use logistics_models::{SalesOrder, SalesOrderState};
use uuid::Uuid;

use super::DomainError;
use super::repository::{Result, SalesOrderRepository};

/// Whether an order may go from `from` to `to`: Created → Picked → Packed →
/// ReadyToBeShipped → Shipped → Delivered, one step at a time; Cancelled from
/// any state before Shipped.
pub fn can_become(from: &SalesOrderState, to: &SalesOrderState) -> bool {
    use SalesOrderState::*;
    match to {
        Cancelled => matches!(from, Created | Picked | Packed | ReadyToBeShipped),
        Picked => *from == Created,
        Packed => *from == Picked,
        ReadyToBeShipped => *from == Packed,
        Shipped => *from == ReadyToBeShipped,
        Delivered => *from == Shipped,
        // Created is where orders start; no state the document lacks is reachable.
        _ => false,
    }
}

/// Moves `order` to `to` at `now`, setting the transition's timestamp and
/// `updatedAt`.
pub fn move_to(
    order: &mut SalesOrder,
    to: SalesOrderState,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    if !can_become(&order.state, &to) {
        return Err(DomainError::Conflict {
            property: "state",
            code: "InvalidOperation",
            message: format!(
                "sales order {} is {} and cannot become {to}",
                order.reference_number, order.state
            ),
        });
    }
    let stamp = match to {
        SalesOrderState::Picked => Some(&mut order.picked_at),
        SalesOrderState::Packed => Some(&mut order.packed_at),
        SalesOrderState::Shipped => Some(&mut order.shipped_at),
        SalesOrderState::Delivered => Some(&mut order.delivered_at),
        SalesOrderState::Cancelled => Some(&mut order.cancelled_at),
        // ReadyToBeShipped has no timestamp of its own in the read model.
        _ => None,
    };
    if let Some(stamp) = stamp {
        *stamp = Some(now);
    }
    order.state = to;
    order.updated_at = now;
    Ok(())
}

/// No sales order of the tenant has `reference`.
pub fn not_found(reference: &str) -> DomainError {
    DomainError::NotFound {
        property: "referenceNumber",
        message: format!("No sales order has the reference number {reference}."),
    }
}

/// Moves a stored sales order to `state` (the warehouse side, decisions
/// D12); returns it as stored.
pub async fn advance(
    repository: &impl SalesOrderRepository,
    tenant: Uuid,
    reference: &str,
    state: SalesOrderState,
) -> Result<SalesOrder> {
    let now = super::now();
    let change = |mut order: SalesOrder| {
        move_to(&mut order, state.clone(), now)?;
        Ok(order)
    };
    repository
        .update_sales_order(tenant, reference, &change)
        .await
}

/// Imports sales orders in the read model's shape, all or nothing: each
/// order's customer is matched by email or created with the tenant's next
/// number, and its addresses are added to the customer.
pub async fn import(
    repository: &impl SalesOrderRepository,
    tenant: Uuid,
    orders: &[SalesOrder],
) -> Result<usize> {
    repository
        .import_sales_orders(tenant, orders, &super::customers::RULES, super::now())
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use SalesOrderState::*;

    #[test]
    fn orders_move_one_step_at_a_time_and_cancel_before_shipping() {
        let path = [
            Created,
            Picked,
            Packed,
            ReadyToBeShipped,
            Shipped,
            Delivered,
        ];
        for pair in path.windows(2) {
            assert!(
                can_become(&pair[0], &pair[1]),
                "{:?} → {:?}",
                pair[0],
                pair[1]
            );
        }
        assert!(!can_become(&Created, &Packed));
        assert!(!can_become(&Delivered, &Shipped));
        for state in [Created, Picked, Packed, ReadyToBeShipped] {
            assert!(can_become(&state, &Cancelled));
        }
        for state in [Shipped, Delivered, Cancelled] {
            assert!(!can_become(&state, &Cancelled));
        }
    }
}
