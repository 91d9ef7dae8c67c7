//! The domain's operations against the in-memory repository: the business
//! rules as a caller meets them, without a database (the e2e suite runs the
//! same operations on SQLite and PostgreSQL).

use logistics_models::{
    CustomerInput, ReceivingOrder, SalesOrderState, TaggedReturn, TransferDetail,
};
use serde_json::json;
use uuid::Uuid;

use super::memory::MemoryRepository;
use super::receiving_orders::ReceivingOrderState;
use super::returns::ReturnStep;
use super::tenancy::Environment;
use super::{DomainError, customers, receiving_orders, returns, sales_orders, tenants};
use crate::domain::repository::{CustomerRepository, SalesOrderRepository};
use crate::seed::sample_sales_order;

async fn tenant(repository: &MemoryRepository) -> Uuid {
    tenants::create(repository, "T", Environment::Staging, false)
        .await
        .unwrap()
        .tenant_id
}

fn input(email: &str) -> CustomerInput {
    CustomerInput::new(email, "Ayşe", "Kaya", "+905321234567")
}

fn order(reference: &str, integration: Option<u128>, skus: &[&str]) -> ReceivingOrder {
    let lines: Vec<_> = skus
        .iter()
        .map(|sku| json!({"sku": sku, "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}))
        .collect();
    let mut order: ReceivingOrder = serde_json::from_value(json!({
        "referenceNumber": reference, "receiveType": "Standard",
        "transferType": "CargoTransfer", "lineItems": lines
    }))
    .unwrap();
    order.integration_id = integration.map(Uuid::from_u128);
    order
}

fn skus(repository: &MemoryRepository, tenant: Uuid, reference: &str) -> Vec<String> {
    let stored = repository
        .receiving_order(tenant, reference)
        .expect("stored");
    stored.order.line_items.into_iter().map(|l| l.sku).collect()
}

#[tokio::test]
async fn customers_are_numbered_without_gaps_and_a_taken_email_changes_nothing() {
    let repository = MemoryRepository::default();
    let (a, b) = (tenant(&repository).await, tenant(&repository).await);
    let first = customers::create(&repository, a, &input("x@example.com"))
        .await
        .unwrap();
    let refused = customers::create(&repository, a, &input(" X@Example.COM")).await;
    assert!(matches!(
        refused,
        Err(DomainError::Conflict {
            property: "email",
            ..
        })
    ));
    let second = customers::create(&repository, a, &input("y@example.com"))
        .await
        .unwrap();
    let other = customers::create(&repository, b, &input("x@example.com"))
        .await
        .unwrap();
    assert_eq!(
        (first.customer_no, second.customer_no, other.customer_no),
        (1, 2, 1)
    );
    let read = repository
        .customer(a, 2)
        .await
        .unwrap()
        .expect("customer 2");
    assert_eq!(read.email, "y@example.com");
    let unknown = customers::create(&repository, Uuid::nil(), &input("z@example.com")).await;
    assert!(matches!(unknown, Err(DomainError::UnknownTenant(_))));
}

#[tokio::test]
async fn a_batch_creates_updates_in_created_and_refuses_the_rest() {
    let repository = MemoryRepository::default();
    let t = tenant(&repository).await;
    let batch = [
        order("RO-1", Some(1), &["A"]),
        order("RO-2", None, &["B"]),
        order("RO-1", Some(1), &["C", "D"]),
    ];
    let failures = receiving_orders::upsert(&repository, t, &batch)
        .await
        .unwrap();
    assert!(failures.is_empty());
    assert_eq!(
        skus(&repository, t, "RO-1"),
        ["C", "D"],
        "the last item naming an order gives its lines"
    );

    receiving_orders::advance(
        &repository,
        t,
        "RO-2",
        ReceivingOrderState::ArrivedToWarehouse,
    )
    .await
    .unwrap();
    let batch = [
        order("RO-1", Some(2), &["E"]),
        order("RO-2", None, &["F"]),
        order("RO-1", None, &["G"]),
    ];
    let failures = receiving_orders::upsert(&repository, t, &batch)
        .await
        .unwrap();
    let refused: Vec<(&str, &str)> = failures
        .iter()
        .map(|f| (f.reference_number.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        refused,
        [
            ("RO-1", "UpdateFromDifferentIntegration"),
            ("RO-2", "InvalidOperation")
        ]
    );
    assert_eq!(skus(&repository, t, "RO-1"), ["G"]);
    assert_eq!(skus(&repository, t, "RO-2"), ["B"]);
    let backwards =
        receiving_orders::advance(&repository, t, "RO-2", ReceivingOrderState::Created).await;
    assert!(matches!(
        backwards,
        Err(DomainError::Conflict {
            code: "InvalidOperation",
            ..
        })
    ));
}

#[tokio::test]
async fn transfer_details_change_created_orders_of_the_same_integration_only() {
    let repository = MemoryRepository::default();
    let t = tenant(&repository).await;
    receiving_orders::upsert(&repository, t, &[order("RO-1", Some(1), &["A"])])
        .await
        .unwrap();
    let detail: TransferDetail = serde_json::from_value(json!({
        "transferType": "PickupTransfer", "pickupTransfer": {"pickupDate": "2026-03-14T09:30:00Z"}
    }))
    .unwrap();
    let stored = receiving_orders::update_transfer_detail(&repository, t, "RO-1", &detail)
        .await
        .unwrap();
    assert_eq!(
        stored.integration_id,
        Some(Uuid::from_u128(1)),
        "the order's integration is kept"
    );
    let theirs = detail.clone().with_integration_id(Uuid::from_u128(2));
    let refused = receiving_orders::update_transfer_detail(&repository, t, "RO-1", &theirs).await;
    assert!(matches!(
        refused,
        Err(DomainError::Conflict {
            code: "UpdateFromDifferentIntegration",
            ..
        })
    ));
    let missing = receiving_orders::update_transfer_detail(&repository, t, "RO-9", &detail).await;
    assert!(matches!(
        missing,
        Err(DomainError::NotFound {
            property: "referenceNumber",
            ..
        })
    ));
}

#[tokio::test]
async fn an_import_matches_customers_by_email_and_writes_nothing_when_an_order_is_refused() {
    let repository = MemoryRepository::default();
    let t = tenant(&repository).await;
    customers::create(&repository, t, &input("deniz.kaya@example.com"))
        .await
        .unwrap();
    // Orders 1 and 3 share a customer and its addresses; order 2 is the customer made above.
    let orders: Vec<_> = (1..=3).map(sample_sales_order).collect();
    assert_eq!(
        sales_orders::import(&repository, t, &orders).await.unwrap(),
        3
    );
    let first = repository
        .sales_order(t, "SO-DEMO-0001")
        .await
        .unwrap()
        .unwrap();
    let third = repository
        .sales_order(t, "SO-DEMO-0003")
        .await
        .unwrap()
        .unwrap();
    let second = repository
        .sales_order(t, "SO-DEMO-0002")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (second.customer.customer_no, first.customer.customer_no),
        (1, 2)
    );
    assert_eq!(third.customer.id, first.customer.id);
    assert_eq!(
        third.shipping_address, first.shipping_address,
        "the same place is one address"
    );
    let customer = repository.customer(t, 2).await.unwrap().unwrap();
    let numbers: Vec<i32> = customer.addresses.iter().map(|a| a.address_no).collect();
    assert_eq!(numbers, [1, 2]);

    let again = [sample_sales_order(4), sample_sales_order(1)];
    let refused = sales_orders::import(&repository, t, &again).await;
    match refused {
        Err(DomainError::Invalid(problems)) => {
            assert_eq!(problems[0].property, "[1].referenceNumber")
        }
        other => panic!("expected the item to be named, got {other:?}"),
    }
    assert!(
        repository
            .sales_order(t, "SO-DEMO-0004")
            .await
            .unwrap()
            .is_none(),
        "all or nothing"
    );
}

#[tokio::test]
async fn sales_orders_advance_one_step_at_a_time_with_their_timestamps() {
    let repository = MemoryRepository::default();
    let t = tenant(&repository).await;
    sales_orders::import(&repository, t, &[sample_sales_order(1)])
        .await
        .unwrap();
    let picked = sales_orders::advance(&repository, t, "SO-DEMO-0001", SalesOrderState::Picked)
        .await
        .unwrap();
    assert!(picked.picked_at.is_some());
    let skipped =
        sales_orders::advance(&repository, t, "SO-DEMO-0001", SalesOrderState::Shipped).await;
    assert!(matches!(
        skipped,
        Err(DomainError::Conflict {
            property: "state",
            ..
        })
    ));
    let stored = repository
        .sales_order(t, "SO-DEMO-0001")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.state, SalesOrderState::Picked);
}

#[tokio::test]
async fn returns_arrive_before_they_complete_and_tags_are_checked() {
    let repository = MemoryRepository::default();
    let t = tenant(&repository).await;
    let item: TaggedReturn = serde_json::from_value(json!({
        "returnReferenceNumber": "RET-1", "createdAt": "2026-03-10T08:15:00Z",
        "updatedAt": "2026-03-10T08:15:00Z"
    }))
    .unwrap();
    returns::import(&repository, t, std::slice::from_ref(&item))
        .await
        .unwrap();
    let early = returns::advance(&repository, t, "RET-1", ReturnStep::Completed).await;
    assert!(matches!(early, Err(DomainError::Conflict { .. })));
    returns::advance(&repository, t, "RET-1", ReturnStep::Arrived)
        .await
        .unwrap();
    returns::advance(&repository, t, "RET-1", ReturnStep::Completed)
        .await
        .unwrap();
    assert!(
        returns::tag(&repository, t, "RET-1", &"x".repeat(257))
            .await
            .is_err()
    );
    returns::tag(&repository, t, "RET-1", "inspected")
        .await
        .unwrap();
    let missing = returns::tag(&repository, t, "RET-2", "inspected").await;
    assert!(matches!(missing, Err(DomainError::NotFound { .. })));
    let (page, total) = returns::list(&repository, t, &logistics_models::TaggedReturnsQuery::new())
        .await
        .unwrap();
    assert_eq!(total, 1);
    assert_eq!(page[0].tag.as_deref(), Some("inspected"));
    assert!(page[0].completed_at.is_some());
}

#[tokio::test]
async fn another_token_is_given_only_to_a_tenant_of_its_environment() {
    use super::TenantRepository as _;
    use super::tenancy::{matches, parse_credential};
    let repository = MemoryRepository::default();
    let staging = tenant(&repository).await;

    let added = tenants::add_token(&repository, staging, Environment::Staging, false)
        .await
        .unwrap();
    assert_eq!(added.tenant_id, staging);
    let presented = parse_credential(&added.token, Environment::Staging).unwrap();
    let stored = repository
        .find_token(presented.key_id)
        .await
        .unwrap()
        .expect("the token is stored");
    assert_eq!(stored.tenant_id, staging);
    assert!(stored.serves(Environment::Staging) && !stored.emulation);
    assert!(matches(&added.token, &stored.secret_hash));

    // Of another environment, in none, or unknown: refused.
    let unbound = tenants::create_unbound(&repository, "Half").await.unwrap();
    for (tenant, environment) in [
        (staging, Environment::Production),
        (unbound, Environment::Staging),
        (Uuid::new_v4(), Environment::Staging),
    ] {
        let refused = tenants::add_token(&repository, tenant, environment, false).await;
        assert!(
            matches!(refused, Err(DomainError::Internal(_))),
            "{environment}: {refused:?}"
        );
    }
}
