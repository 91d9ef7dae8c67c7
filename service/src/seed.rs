//! Demo data for a first run of the staging environment: a tenant with
//! customers, receiving orders, sales orders in every state and tagged returns,
//! so that a newcomer can make requests that answer something.

use logistics_models::{CustomerInput, ReceivingOrder, SalesOrder, SalesOrderState, TaggedReturn};
use serde_json::json;

use crate::domain::receiving_orders::{self, ReceivingOrderState};
use crate::domain::returns::{self, ReturnStep};
use crate::domain::tenancy::Environment;
use crate::domain::tenants::{self, Binding, NewTenant};
use crate::domain::{DomainError, Repository, customers, sales_orders};

/// The reference number of the demo sales order the printed curl reads.
pub const DEMO_SALES_ORDER: &str = "SO-DEMO-0005";

/// The demo of a first start, made and filled but not yet reachable: its
/// tenant is in no environment and has no token until [`Demo::publish`].
#[derive(Debug)]
pub struct Demo {
    binding: Binding,
}

impl Demo {
    /// Shows the demo's token with `show`, then puts the tenant into its
    /// environment with that token, and returns it. When `show` fails, the
    /// tenant stays unreachable (a token nobody saw would be lost).
    ///
    /// Shown first, so that no interruption can leave a reachable demo whose
    /// token nobody saw: interrupted before the binding, the shown token
    /// opens nothing, and the next start makes the demo again and shows
    /// another (decision D36).
    pub async fn publish(
        self,
        store: &impl Repository,
        show: impl FnOnce(&NewTenant) -> std::io::Result<()>,
    ) -> Result<NewTenant, DomainError> {
        show(self.binding.tenant())
            .map_err(|e| DomainError::Internal(format!("cannot show the demo's token: {e}")))?;
        tenants::bind(store, self.binding).await
    }
}

/// The demo of a first start: on a staging service whose database has no
/// tenant in an environment, makes the demo tenant and its data, to be
/// published with [`Demo::publish`]; `None` otherwise.
///
/// A start interrupted at any point (a crash, a kill, a database error)
/// leaves no tenant in an environment, so the next start makes the demo
/// again, whole, and shows its token (decision D36).
pub async fn first_start(
    store: &impl Repository,
    environment: Environment,
) -> Result<Option<Demo>, DomainError> {
    if environment != Environment::Staging || store.has_tenants().await? {
        return Ok(None);
    }
    demo(store, environment).await.map(Some)
}

/// Makes the demo tenant and its data in no environment (nothing reaches
/// them), and the token it is to get.
pub async fn demo(store: &impl Repository, environment: Environment) -> Result<Demo, DomainError> {
    let id = tenants::create_unbound(store, "Demo Tenant").await?;

    for (email, first, last, phone) in [
        ("elif.yilmaz@example.com", "Elif", "Yılmaz", "+905321234567"),
        ("can.demir@example.com", "Can", "Demir", "+905339876543"),
    ] {
        let input = CustomerInput::new(email, first, last, phone);
        customers::create(store, id, &input).await?;
    }

    let orders: Vec<ReceivingOrder> = serde_json::from_value(json!([
        {"referenceNumber": "RO-DEMO-0001", "receiveType": "Standard", "transferType": "CargoTransfer",
         "integrationId": "3f0c2a8e-5b8e-4d0a-9a57-5a2f1d6c9b01",
         "lineItems": [
             {"itemNo": 1, "sku": "TSHIRT-BLK-M", "expectedQuantity": 120, "lotNumber": "LOT-0425", "hasLimitCheck": true, "tolerance": 2},
             {"itemNo": 2, "sku": "TSHIRT-WHT-L", "expectedQuantity": 80, "hasLimitCheck": false, "tolerance": 0}],
         "lineItemLotNumbers": [{"sku": "TSHIRT-BLK-M", "lotNumber": "LOT-0425", "expectedQuantity": 120}],
         "cargoTransfer": {"shipmentDate": "2026-03-14T09:30:00Z", "cargoCompanyName": "Aras Kargo", "trackingNumber": "7012456633"}},
        {"referenceNumber": "RO-DEMO-0002", "receiveType": "Return", "transferType": "PickupTransfer",
         "lineItems": [{"sku": "SNEAKER-42", "expectedQuantity": 6, "hasLimitCheck": false, "tolerance": 0}],
         "pickupTransfer": {"pickupDate": "2026-03-16T13:00:00Z", "pickupAddress": "Depo 4, Tuzla, Istanbul"}},
        {"referenceNumber": "RO-DEMO-0003", "receiveType": "Deducted", "transferType": "CarriageTransfer",
         "lineItems": [{"sku": "MUG-WHITE", "expectedQuantity": 300, "hasLimitCheck": true, "tolerance": 10}]}
    ]))
    .map_err(|e| DomainError::Internal(format!("the demo receiving orders: {e}")))?;
    receiving_orders::upsert(store, id, &orders).await?;
    receiving_orders::advance(
        store,
        id,
        "RO-DEMO-0002",
        ReceivingOrderState::ArrivedToWarehouse,
    )
    .await?;

    let states = [
        SalesOrderState::Created,
        SalesOrderState::Picked,
        SalesOrderState::Packed,
        SalesOrderState::ReadyToBeShipped,
        SalesOrderState::Shipped,
        SalesOrderState::Delivered,
        SalesOrderState::Cancelled,
    ];
    let sales_orders: Vec<SalesOrder> = (1..=states.len()).map(sample_sales_order).collect();
    sales_orders::import(store, id, &sales_orders).await?;
    for (i, target) in states.iter().enumerate() {
        let reference = format!("SO-DEMO-{:04}", i + 1);
        let path: &[SalesOrderState] = match target {
            SalesOrderState::Cancelled => &[SalesOrderState::Cancelled],
            _ => &states[1..=states.iter().position(|s| s == target).unwrap_or(0).min(5)],
        };
        if *target == SalesOrderState::Created {
            continue;
        }
        for step in path {
            sales_orders::advance(store, id, &reference, step.clone()).await?;
        }
    }

    let returns: Vec<TaggedReturn> = (1..=6)
        .map(|n| {
            serde_json::from_value(json!({
                "returnReferenceNumber": format!("RET-DEMO-{n:04}"),
                "salesOrderChannel": if n % 2 == 0 { "Trendyol" } else { "Shopify" },
                "salesOrderReferenceNumber": format!("SO-DEMO-{:04}", (n % 6) + 1),
                "notes": if n % 3 == 0 { Some("Wrong size.") } else { None },
                "trackingId": format!("YK-99001122{n}"),
                "cargoCarrier": "Yurtiçi Kargo",
                "createdAt": format!("2026-03-{:02}T09:00:00Z", 10 + n),
                "updatedAt": format!("2026-03-{:02}T09:00:00Z", 10 + n),
                "tag": match n { 1 | 4 => Some("refund-approved"), 2 => Some("damaged"), _ => None },
            }))
            .map_err(|e| DomainError::Internal(format!("the demo returns: {e}")))
        })
        .collect::<Result<_, _>>()?;
    returns::import(store, id, &returns).await?;
    for reference in ["RET-DEMO-0001", "RET-DEMO-0002"] {
        returns::advance(store, id, reference, ReturnStep::Arrived).await?;
    }
    returns::advance(store, id, "RET-DEMO-0001", ReturnStep::Completed).await?;
    Ok(Demo {
        binding: tenants::binding(id, environment, false)?,
    })
}

/// The demo's sales order number `n` (`SO-DEMO-000n`, state Created, with a
/// customer, both addresses, one line item, payment, cargo and vas): a
/// complete order for tests to import as it is or changed.
#[allow(
    clippy::expect_used,
    reason = "fixed data, checked by every demo-seed test; the demo's tests and benches call it"
)]
pub fn sample_sales_order(n: usize) -> SalesOrder {
    let (email, first, last) = if n % 2 == 1 {
        ("elif.yilmaz@example.com", "Elif", "Yılmaz")
    } else {
        ("deniz.kaya@example.com", "Deniz", "Kaya")
    };
    serde_json::from_value(json!({
        "id": uuid::Uuid::new_v4(),
        "referenceNumber": format!("SO-DEMO-{n:04}"),
        "salesChannel": "Shopify",
        "state": "Created",
        "approvedShipments": true,
        "approved": true,
        "createdAt": "2026-03-10T08:15:00Z",
        "updatedAt": "2026-03-10T08:15:00Z",
        "orderCreatedAt": "2026-03-10T08:14:31Z",
        "customer": {
            "id": uuid::Uuid::nil(), "customerNo": 0, "createdAt": "2026-03-10T08:15:00Z",
            "email": email, "firstName": first, "lastName": last, "phone": "+905321234567"
        },
        "shippingAddress": {
            "id": uuid::Uuid::nil(), "addressNo": 0, "addressFirstName": first, "addressLastName": last,
            "addressOne": "Bağdat Cd. No:120", "addressTwo": "Daire 5", "district": "Kadıköy", "city": "Istanbul",
            "postalCode": "34728", "country": "TR", "addressPhone": "+905321234567"
        },
        "billingAddress": {
            "id": uuid::Uuid::nil(), "addressNo": 0, "addressFirstName": first, "addressLastName": last,
            "company": format!("{last} Tekstil"), "addressOne": "Barbaros Blv. No:45", "district": "Beşiktaş",
            "city": "Istanbul", "postalCode": "34353", "country": "TR", "taxOffice": "Beşiktaş", "taxNumber": "1234567890"
        },
        "shippingInfo": {"shippingCompany": "Yurtiçi Kargo", "shippingTrackingId": format!("YK-88991234{n}")},
        "lineItems": [{
            "id": uuid::Uuid::new_v4(), "sku": "TSHIRT-BLK-M", "barcodes": ["8690000000017"], "salePrice": 249.9,
            "productName": "Basic T-Shirt Black M", "productCategory": "Apparel", "amountInOrder": 2,
            "missingQuantity": 0, "cancelledAmount": 0, "productSalePrice": 249.9, "productTaxRatio": 20, "productDiscount": 0
        }],
        "integration": {"integrationName": "Shopify"},
        "payment": {"totalPaymentAmount": 499.8},
        "cargo": {"requestedCargoCarrier": "Yurtiçi Kargo", "cargoCode": format!("YK-88991234{n}")},
        "vas": {"packageNote": "Please handle with care.", "gift": {"wrap": n % 3 == 0, "notes": null}},
        "packages": []
    }))
    .expect("the demo sales orders fit the schema")
}
