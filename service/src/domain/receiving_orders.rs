//! Receiving orders: the rules a batch must follow beyond its schema, the
//! decision between create, update and refusal, and the order's states.

use std::collections::{HashMap, HashSet};

use logistics_models::validation::Problem;
use logistics_models::{ReceivingOrder, ReceivingOrderTransferType, TransferDetail, UpsertFailure};
use uuid::Uuid;

use super::DomainError;
use super::error::problem;
use super::repository::{ReceivingOrderRepository, Result};

/// Where a receiving order is in its life (decisions D11). Not part of the
/// interface's read models; the warehouse side advances it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceivingOrderState {
    /// Announced; may still be updated.
    Created,
    /// The stock has arrived.
    ArrivedToWarehouse,
    /// The stock has been received.
    Completed,
    /// Called off.
    Cancelled,
}

impl ReceivingOrderState {
    /// Every state.
    pub const ALL: [ReceivingOrderState; 4] = [
        ReceivingOrderState::Created,
        ReceivingOrderState::ArrivedToWarehouse,
        ReceivingOrderState::Completed,
        ReceivingOrderState::Cancelled,
    ];

    /// The state's name, as stored and as operators write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReceivingOrderState::Created => "Created",
            ReceivingOrderState::ArrivedToWarehouse => "ArrivedToWarehouse",
            ReceivingOrderState::Completed => "Completed",
            ReceivingOrderState::Cancelled => "Cancelled",
        }
    }

    /// The state called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether an order may go from this state to `next`: Created →
    /// ArrivedToWarehouse → Completed; Cancelled before Completed.
    pub fn can_become(self, next: ReceivingOrderState) -> bool {
        use ReceivingOrderState::*;
        matches!(
            (self, next),
            (Created, ArrivedToWarehouse)
                | (ArrivedToWarehouse, Completed)
                | (Created | ArrivedToWarehouse, Cancelled)
        )
    }
}

/// The rules of a bulk upsert that need more than one field (decisions D10):
/// the same `sku` and `lotNumber` twice in one order, a lot line whose `sku`
/// is not among the order's line items, and a transfer object present for
/// another transfer type. Every problem is listed, with its path.
pub fn check_batch(batch: &[ReceivingOrder]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, order) in batch.iter().enumerate() {
        let mut seen: HashSet<(&str, Option<&str>)> =
            HashSet::with_capacity(order.line_items.len());
        for (j, line) in order.line_items.iter().enumerate() {
            if !seen.insert((line.sku.as_str(), line.lot_number.as_deref())) {
                problems.push(problem(
                    format!("[{i}].lineItems[{j}]"),
                    match &line.lot_number {
                        Some(lot) => {
                            format!("sku `{}` with lot `{lot}` appears more than once", line.sku)
                        }
                        None => format!("sku `{}` without a lot appears more than once", line.sku),
                    },
                    "DuplicateLineItem",
                ));
            }
        }
        for (k, lot) in order.line_item_lot_numbers.iter().flatten().enumerate() {
            if let Some(sku) = &lot.sku {
                if !order.line_items.iter().any(|line| &line.sku == sku) {
                    problems.push(problem(
                        format!("[{i}].lineItemLotNumbers[{k}].sku"),
                        format!("sku `{sku}` is not among the order's line items"),
                        "LineItemNotFound",
                    ));
                }
            }
        }
        let present = Transfers {
            cargo: order.cargo_transfer.is_some(),
            pickup: order.pickup_transfer.is_some(),
            carriage: order.carriage_transfer.is_some(),
        };
        problems.extend(mismatched_transfers(
            &order.transfer_type,
            present,
            &format!("[{i}]."),
        ));
    }
    problems
}

/// The rules of a transfer detail (decisions D9): the object matching
/// `transferType` is required, and no object of another type may be present.
pub fn check_transfer_detail(detail: &TransferDetail) -> Vec<Problem> {
    let present = Transfers {
        cargo: detail.cargo_transfer.is_some(),
        pickup: detail.pickup_transfer.is_some(),
        carriage: detail.carriage_transfer.is_some(),
    };
    let mut problems = Vec::new();
    // A type the document does not list is refused by the enum's own check.
    if !detail.transfer_type.is_known() {
        return problems;
    }
    let required = transfer_property(&detail.transfer_type);
    if !present.has(&detail.transfer_type) {
        problems.push(problem(
            required,
            format!("is required when transferType is {}", detail.transfer_type),
            "Required",
        ));
    }
    problems.extend(mismatched_transfers(&detail.transfer_type, present, ""));
    problems
}

/// Which transfer objects a request carries.
#[derive(Clone, Copy)]
struct Transfers {
    cargo: bool,
    pickup: bool,
    carriage: bool,
}

impl Transfers {
    fn has(self, kind: &ReceivingOrderTransferType) -> bool {
        match kind {
            ReceivingOrderTransferType::CargoTransfer => self.cargo,
            ReceivingOrderTransferType::PickupTransfer => self.pickup,
            ReceivingOrderTransferType::CarriageTransfer => self.carriage,
            // Refused by the enum's own check before this matters.
            _ => false,
        }
    }
}

fn transfer_property(kind: &ReceivingOrderTransferType) -> &'static str {
    match kind {
        ReceivingOrderTransferType::CargoTransfer => "cargoTransfer",
        ReceivingOrderTransferType::PickupTransfer => "pickupTransfer",
        ReceivingOrderTransferType::CarriageTransfer => "carriageTransfer",
        // Refused by the enum's own check before this matters.
        _ => "transferType",
    }
}

fn mismatched_transfers(
    kind: &ReceivingOrderTransferType,
    present: Transfers,
    prefix: &str,
) -> Vec<Problem> {
    if !kind.is_known() {
        return Vec::new();
    }
    ReceivingOrderTransferType::ALL
        .into_iter()
        .filter(|other| other != kind && present.has(other))
        .map(|other| {
            problem(
                format!("{prefix}{}", transfer_property(&other)),
                format!("is for {other}, but transferType is {kind}"),
                "ReceivingOrderTransferTypeTransferDetailsMismatch",
            )
        })
        .collect()
}

/// What is known of an existing order when an item of a batch names it.
#[derive(Debug, Clone)]
pub struct ExistingOrder {
    /// Its state.
    pub state: ReceivingOrderState,
    /// The integration that owns it.
    pub integration_id: Option<Uuid>,
}

/// What to do with one item of a batch.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Create a new order.
    Create,
    /// Replace the existing order's line items and lot lines.
    Update,
    /// Leave the order alone; report this message in `updateFailures`.
    Refuse(&'static str),
}

/// Decides what an item does to the order it names (decisions D10).
pub fn decide(item: &ReceivingOrder, existing: Option<&ExistingOrder>) -> Decision {
    let Some(existing) = existing else {
        return Decision::Create;
    };
    if existing.state != ReceivingOrderState::Created {
        return Decision::Refuse("InvalidOperation");
    }
    match (item.integration_id, existing.integration_id) {
        (Some(theirs), Some(ours)) if theirs != ours => {
            Decision::Refuse("UpdateFromDifferentIntegration")
        }
        (Some(_), None) => Decision::Refuse("UpdateFromDifferentIntegration"),
        _ => Decision::Update,
    }
}

/// Checks that a transfer detail may change the order (decisions D9).
pub fn transfer_detail_conflict(
    detail: &TransferDetail,
    existing: &ExistingOrder,
) -> Option<(&'static str, String)> {
    if existing.state != ReceivingOrderState::Created {
        return Some((
            "InvalidOperation",
            format!(
                "the receiving order is {}; only a Created order can change its transfer detail",
                existing.state.as_str()
            ),
        ));
    }
    match (detail.integration_id, existing.integration_id) {
        (Some(theirs), ours) if Some(theirs) != ours => Some((
            "UpdateFromDifferentIntegration",
            "the receiving order belongs to another integration".to_owned(),
        )),
        _ => None,
    }
}

/// What a batch does to the orders it names, decided against those stored.
#[derive(Debug, Default, PartialEq)]
pub struct BatchPlan {
    /// Every order the batch creates or updates, in the order first named.
    pub orders: Vec<PlannedOrder>,
    /// The items refused, for `updateFailures`.
    pub failures: Vec<UpsertFailure>,
}

/// One order a batch writes.
#[derive(Debug, PartialEq, Eq)]
pub struct PlannedOrder {
    /// Its reference number (made for an item sent without one).
    pub reference: String,
    /// The item that creates it, whose types and transfer it keeps; `None`
    /// when the order is stored already.
    pub create: Option<usize>,
    /// The item whose line items and lot lines it ends with: the last item
    /// of the batch that names it and is not refused.
    pub lines: usize,
}

/// Plans a batch item by item, in array order (decisions D10): an item may
/// create an order, update one created earlier in the same batch or stored
/// (replacing its lines), or be refused.
pub fn plan_batch(batch: &[ReceivingOrder], stored: &HashMap<String, ExistingOrder>) -> BatchPlan {
    let mut known = stored.clone();
    let mut plan = BatchPlan::default();
    let mut planned: HashMap<String, usize> = HashMap::new();
    for (i, item) in batch.iter().enumerate() {
        let reference = item
            .reference_number
            .clone()
            .unwrap_or_else(new_reference_number);
        match decide(item, known.get(&reference)) {
            Decision::Create => {
                known.insert(
                    reference.clone(),
                    ExistingOrder {
                        state: ReceivingOrderState::Created,
                        integration_id: item.integration_id,
                    },
                );
                planned.insert(reference.clone(), plan.orders.len());
                plan.orders.push(PlannedOrder {
                    reference,
                    create: Some(i),
                    lines: i,
                });
            }
            Decision::Update => match planned.get(&reference) {
                Some(&at) => plan.orders[at].lines = i,
                None => {
                    planned.insert(reference.clone(), plan.orders.len());
                    plan.orders.push(PlannedOrder {
                        reference,
                        create: None,
                        lines: i,
                    });
                }
            },
            Decision::Refuse(message) => plan.failures.push(UpsertFailure::new(reference, message)),
        }
    }
    plan
}

/// `bulkUpsertReceivingOrders`: applies a batch that passed [`check_batch`],
/// all in one transaction; returns the items refused.
pub async fn upsert(
    repository: &impl ReceivingOrderRepository,
    tenant: Uuid,
    batch: &[ReceivingOrder],
) -> Result<Vec<UpsertFailure>> {
    let plan = |stored: &HashMap<String, ExistingOrder>| plan_batch(batch, stored);
    repository
        .apply_batch(tenant, batch, &plan, super::now())
        .await
}

/// `updateReceivingOrderTransferDetail`: replaces a Created order's transfer
/// detail (decisions D9); returns it as stored.
pub async fn update_transfer_detail(
    repository: &impl ReceivingOrderRepository,
    tenant: Uuid,
    reference: &str,
    detail: &TransferDetail,
) -> Result<TransferDetail> {
    let decide = |existing: &ExistingOrder| match transfer_detail_conflict(detail, existing) {
        Some((code, message)) => Err(DomainError::Conflict {
            property: "referenceNumber",
            code,
            message,
        }),
        None => {
            let mut stored = detail.clone();
            stored.integration_id = existing.integration_id;
            Ok(stored)
        }
    };
    repository
        .update_transfer_detail(tenant, reference, &decide, super::now())
        .await
}

/// Moves a receiving order to `state` (the warehouse side, decisions D11).
pub async fn advance(
    repository: &impl ReceivingOrderRepository,
    tenant: Uuid,
    reference: &str,
    state: ReceivingOrderState,
) -> Result<()> {
    let decide = |existing: &ExistingOrder| {
        if existing.state.can_become(state) {
            Ok(state)
        } else {
            Err(DomainError::Conflict {
                property: "state",
                code: "InvalidOperation",
                message: format!(
                    "receiving order {reference} is {} and cannot become {}",
                    existing.state.as_str(),
                    state.as_str()
                ),
            })
        }
    };
    repository
        .update_receiving_order_state(tenant, reference, &decide, super::now())
        .await
}

/// No receiving order of the tenant has `reference`.
pub fn not_found(reference: &str) -> DomainError {
    DomainError::NotFound {
        property: "referenceNumber",
        message: format!("No receiving order has the reference number {reference}."),
    }
}

/// A reference number for an order sent without one: `RO-` and 12 hexadecimal digits.
pub fn new_reference_number() -> String {
    let id = Uuid::new_v4();
    format!("RO-{}", &id.simple().to_string()[..12].to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn batch(value: serde_json::Value) -> Vec<ReceivingOrder> {
        serde_json::from_value(value).unwrap()
    }

    fn line(sku: &str, lot: Option<&str>) -> serde_json::Value {
        let mut line =
            json!({"sku": sku, "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0});
        if let Some(lot) = lot {
            line["lotNumber"] = json!(lot);
        }
        line
    }

    #[test]
    fn lists_every_rule_broken_across_the_batch() {
        let orders = batch(json!([
            {"receiveType": "Standard", "transferType": "CargoTransfer",
             "lineItems": [line("A", Some("L1")), line("A", Some("L2")), line("A", Some("L1"))],
             "lineItemLotNumbers": [{"sku": "B", "expectedQuantity": 1}, {"expectedQuantity": 2}],
             "pickupTransfer": {"pickupDate": "2026-03-14T09:30:00Z"}},
            {"receiveType": "Standard", "transferType": "PickupTransfer",
             "lineItems": [line("A", None), line("A", None)]}
        ]));
        let found: Vec<(String, String)> = check_batch(&orders)
            .into_iter()
            .map(|p| (p.property, p.error_code))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "[0].lineItems[2]".to_owned(),
                    "DuplicateLineItem".to_owned()
                ),
                (
                    "[0].lineItemLotNumbers[0].sku".to_owned(),
                    "LineItemNotFound".to_owned()
                ),
                (
                    "[0].pickupTransfer".to_owned(),
                    "ReceivingOrderTransferTypeTransferDetailsMismatch".to_owned()
                ),
                (
                    "[1].lineItems[1]".to_owned(),
                    "DuplicateLineItem".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn the_matching_transfer_object_may_be_absent_in_a_batch_but_not_in_a_transfer_detail() {
        let orders = batch(
            json!([{"receiveType": "Return", "transferType": "CargoTransfer", "lineItems": [line("A", None)]}]),
        );
        assert!(check_batch(&orders).is_empty());
        let detail: TransferDetail =
            serde_json::from_value(json!({"transferType": "CargoTransfer"})).unwrap();
        let found: Vec<String> = check_transfer_detail(&detail)
            .into_iter()
            .map(|p| p.property)
            .collect();
        assert_eq!(found, ["cargoTransfer"]);
    }

    #[test]
    fn only_created_orders_of_the_same_integration_are_updated() {
        let item = |integration: Option<u128>| -> ReceivingOrder {
            let mut order = batch(json!([{"receiveType": "Standard", "transferType": "CargoTransfer", "lineItems": [line("A", None)]}])).remove(0);
            order.integration_id = integration.map(uuid::Uuid::from_u128);
            order
        };
        let existing = |state, integration: Option<u128>| ExistingOrder {
            state,
            integration_id: integration.map(uuid::Uuid::from_u128),
        };
        assert_eq!(decide(&item(None), None), Decision::Create);
        assert_eq!(
            decide(
                &item(None),
                Some(&existing(ReceivingOrderState::Created, Some(1)))
            ),
            Decision::Update
        );
        assert_eq!(
            decide(
                &item(Some(1)),
                Some(&existing(ReceivingOrderState::Created, Some(1)))
            ),
            Decision::Update
        );
        assert_eq!(
            decide(
                &item(Some(2)),
                Some(&existing(ReceivingOrderState::Created, Some(1)))
            ),
            Decision::Refuse("UpdateFromDifferentIntegration")
        );
        assert_eq!(
            decide(
                &item(Some(1)),
                Some(&existing(ReceivingOrderState::Completed, Some(1)))
            ),
            Decision::Refuse("InvalidOperation")
        );
    }

    #[test]
    fn states_move_forward_only() {
        use ReceivingOrderState::*;
        assert!(Created.can_become(ArrivedToWarehouse));
        assert!(ArrivedToWarehouse.can_become(Completed));
        assert!(Created.can_become(Cancelled));
        assert!(!Completed.can_become(Cancelled));
        assert!(!Completed.can_become(Created));
        assert!(!Created.can_become(Completed));
        assert!(new_reference_number().starts_with("RO-") && new_reference_number().len() == 15);
    }
}

/// Who may update an order: the integration that created it, and nobody
/// else, including an integration updating an order created without one.
#[cfg(test)]
mod integration_ownership_tests {
    use super::*;

    fn item(integration_id: Option<uuid::Uuid>) -> ReceivingOrder {
        let mut order: ReceivingOrder = serde_json::from_value(serde_json::json!({
            "receiveType": "Standard",
            "transferType": "CargoTransfer",
            "lineItems": [{"sku": "A", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]
        }))
        .unwrap();
        order.integration_id = integration_id;
        order
    }

    fn created(integration_id: Option<uuid::Uuid>) -> ExistingOrder {
        ExistingOrder {
            state: ReceivingOrderState::Created,
            integration_id,
        }
    }

    #[test]
    fn an_integration_may_not_update_an_order_created_without_one() {
        let integration = Some(uuid::Uuid::from_u128(7));
        assert_eq!(
            decide(&item(integration), Some(&created(None))),
            Decision::Refuse("UpdateFromDifferentIntegration")
        );
        assert_eq!(
            decide(&item(None), Some(&created(None))),
            Decision::Update,
            "an order created without an integration is updated without one"
        );
    }

    #[test]
    fn only_the_owning_integration_changes_a_transfer_detail() {
        let detail = |integration_id: Option<uuid::Uuid>| {
            let mut detail: TransferDetail = serde_json::from_value(serde_json::json!({
                "transferType": "PickupTransfer",
                "pickupTransfer": {"pickupDate": "2026-03-14T09:30:00Z"}
            }))
            .unwrap();
            detail.integration_id = integration_id;
            detail
        };
        let refused = |detail: &TransferDetail, order: &ExistingOrder| {
            transfer_detail_conflict(detail, order).map(|(code, _)| code)
        };
        let (ours, theirs) = (uuid::Uuid::from_u128(7), uuid::Uuid::from_u128(8));
        assert_eq!(refused(&detail(Some(ours)), &created(Some(ours))), None);
        assert_eq!(
            refused(&detail(None), &created(Some(ours))),
            None,
            "a detail sent without an integration id"
        );
        assert_eq!(refused(&detail(None), &created(None)), None);
        for order in [created(Some(ours)), created(None)] {
            assert_eq!(
                refused(&detail(Some(theirs)), &order),
                Some("UpdateFromDifferentIntegration"),
                "{order:?}"
            );
        }
    }
}

/// A state's name is what the database stores and what an operator types to
/// advance an order: each state has the name decisions D11 gives it, and
/// reads back as itself.
#[cfg(test)]
mod state_name_tests {
    use super::ReceivingOrderState;

    #[test]
    fn each_state_has_its_name_and_reads_back_from_it() {
        let names = ReceivingOrderState::ALL.map(ReceivingOrderState::as_str);
        assert_eq!(
            names,
            ["Created", "ArrivedToWarehouse", "Completed", "Cancelled"]
        );
        for state in ReceivingOrderState::ALL {
            assert_eq!(
                ReceivingOrderState::parse(state.as_str()),
                Some(state),
                "{state:?}"
            );
        }
        assert_eq!(
            ReceivingOrderState::parse("Shipped"),
            None,
            "a sales order's state"
        );
        assert_eq!(ReceivingOrderState::parse(""), None);
    }
}

/// Which transfer object goes with which `transferType` (decisions D9 and
/// D10): an order or a transfer detail may carry its own type's object, and
/// an object of another type is refused, named by its property.
#[cfg(test)]
mod transfer_object_tests {
    use serde_json::{Value, json};

    use super::*;

    /// Each transfer type and the property of its object.
    const KINDS: [(&str, &str); 3] = [
        ("CargoTransfer", "cargoTransfer"),
        ("PickupTransfer", "pickupTransfer"),
        ("CarriageTransfer", "carriageTransfer"),
    ];

    const MISMATCH: &str = "ReceivingOrderTransferTypeTransferDetailsMismatch";

    /// A valid object for `property`.
    fn object(property: &str) -> Value {
        match property {
            "pickupTransfer" => json!({"pickupDate": "2026-03-14T09:30:00Z"}),
            _ => json!({"shipmentDate": "2026-03-14T09:30:00Z"}),
        }
    }

    /// For each type, a request of that type carrying its own object, and
    /// the property of every other type's object.
    fn each_kind(base: Value) -> impl Iterator<Item = (Value, Vec<&'static str>)> {
        KINDS.into_iter().map(move |(kind, own)| {
            let mut request = base.clone();
            request["transferType"] = json!(kind);
            request[own] = object(own);
            let others = KINDS
                .into_iter()
                .map(|(_, property)| property)
                .filter(|property| *property != own)
                .collect();
            (request, others)
        })
    }

    fn found(problems: Vec<Problem>) -> Vec<(String, String)> {
        problems
            .into_iter()
            .map(|p| (p.property, p.error_code))
            .collect()
    }

    #[test]
    fn a_transfer_detail_carries_its_own_object_and_no_other() {
        let detail_problems = |request: &Value| {
            let detail: TransferDetail = serde_json::from_value(request.clone()).unwrap();
            found(check_transfer_detail(&detail))
        };
        for (detail, others) in each_kind(json!({})) {
            assert_eq!(detail_problems(&detail), [], "{detail}");
            for other in others {
                let mut mixed = detail.clone();
                mixed[other] = object(other);
                assert_eq!(
                    detail_problems(&mixed),
                    [(other.to_owned(), MISMATCH.to_owned())],
                    "{mixed}"
                );
            }
        }
    }

    #[test]
    fn an_order_of_a_batch_carries_its_own_object_and_no_other() {
        let order = json!({
            "receiveType": "Standard",
            "lineItems": [{"sku": "A", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]
        });
        let batch_problems = |request: &Value| {
            let batch: Vec<ReceivingOrder> = serde_json::from_value(json!([request])).unwrap();
            found(check_batch(&batch))
        };
        for (order, others) in each_kind(order) {
            assert_eq!(batch_problems(&order), [], "{order}");
            for other in others {
                let mut mixed = order.clone();
                mixed[other] = object(other);
                assert_eq!(
                    batch_problems(&mixed),
                    [(format!("[0].{other}"), MISMATCH.to_owned())],
                    "{mixed}"
                );
            }
        }
    }
}
