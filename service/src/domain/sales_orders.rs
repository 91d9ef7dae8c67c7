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

/// What a reader of an order sees after each move: its state, when it
/// reached each step, and when it last changed.
#[cfg(test)]
mod move_tests {
    use chrono::{DateTime, TimeZone, Utc};

    use super::*;
    use crate::seed::sample_sales_order;

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 10, 8, minute, 0).unwrap()
    }

    /// The order's step timestamps: picked, packed, shipped, delivered, cancelled.
    fn stamps(order: &SalesOrder) -> [Option<DateTime<Utc>>; 5] {
        [
            order.picked_at,
            order.packed_at,
            order.shipped_at,
            order.delivered_at,
            order.cancelled_at,
        ]
    }

    #[test]
    fn each_step_records_when_it_was_reached() {
        let mut order = sample_sales_order(1);
        assert_eq!(stamps(&order), [None; 5]);
        use SalesOrderState::*;
        let steps = [
            (Picked, [Some(at(1)), None, None, None, None]),
            (Packed, [Some(at(1)), Some(at(2)), None, None, None]),
            // Ready to be shipped has no timestamp of its own.
            (
                ReadyToBeShipped,
                [Some(at(1)), Some(at(2)), None, None, None],
            ),
            (Shipped, [Some(at(1)), Some(at(2)), Some(at(4)), None, None]),
            (
                Delivered,
                [Some(at(1)), Some(at(2)), Some(at(4)), Some(at(5)), None],
            ),
        ];
        for (minute, (state, expected)) in (1..).zip(steps) {
            move_to(&mut order, state.clone(), at(minute)).unwrap();
            assert_eq!(order.state, state);
            assert_eq!(stamps(&order), expected, "after {state}");
            assert_eq!(order.updated_at, at(minute), "after {state}");
        }
    }

    #[test]
    fn a_cancelled_order_records_when_and_a_refused_move_changes_nothing() {
        let mut order = sample_sales_order(1);
        move_to(&mut order, SalesOrderState::Picked, at(1)).unwrap();
        move_to(&mut order, SalesOrderState::Cancelled, at(2)).unwrap();
        assert_eq!(order.state, SalesOrderState::Cancelled);
        assert_eq!(stamps(&order), [Some(at(1)), None, None, None, Some(at(2))]);
        assert_eq!(order.updated_at, at(2));

        let before = order.clone();
        let refused = move_to(&mut order, SalesOrderState::Packed, at(3));
        assert!(
            matches!(
                refused,
                Err(DomainError::Conflict {
                    property: "state",
                    code: "InvalidOperation",
                    ..
                })
            ),
            "{refused:?}"
        );
        assert_eq!(order, before, "a refused move leaves the order as it was");
    }
}
