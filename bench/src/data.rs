//! The data the benchmarks send and store: sales orders, returns and
//! receiving-order batches, built from JSON in the spec's shapes.

use logistics_models::{CustomerInput, SalesOrder, TaggedReturn};
use serde_json::{Value, json};

/// The email of customer `n` (1-based).
pub fn customer_email(n: usize) -> String {
    format!("customer{n:05}@example.com")
}

/// Customer `n`'s input.
pub fn customer(n: usize) -> CustomerInput {
    CustomerInput::new(
        customer_email(n),
        format!("First{n}"),
        format!("Last{n}"),
        "+905321234567",
    )
}

/// The reference number of sales order `n`.
pub fn sales_order_reference(n: usize) -> String {
    format!("SO-{n:06}")
}

/// Sales order `n`, of customer `customer` (1-based), with three line items.
#[allow(
    clippy::expect_used,
    reason = "the bench's own fixed data: a failure is a bug in it, found on the first run"
)]
pub fn sales_order(n: usize, customer: usize) -> SalesOrder {
    let email = customer_email(customer);
    let line = |i: usize| {
        json!({
            "id": uuid::Uuid::new_v4(), "sku": format!("SKU-{i:03}"), "barcodes": [format!("8690000000{i:03}")],
            "salePrice": 249.9, "productName": format!("Product {i}"), "productCategory": "Apparel",
            "amountInOrder": 2, "missingQuantity": 0, "cancelledAmount": 0, "productSalePrice": 249.9,
            "productTaxRatio": 20, "productDiscount": 0
        })
    };
    serde_json::from_value(json!({
        "id": uuid::Uuid::new_v4(),
        "referenceNumber": sales_order_reference(n),
        "salesChannel": "Shopify",
        "state": "Created",
        "approvedShipments": true,
        "approved": true,
        "createdAt": "2026-03-10T08:15:00Z",
        "updatedAt": "2026-03-10T08:15:00Z",
        "orderCreatedAt": "2026-03-10T08:14:31Z",
        "customer": {
            "id": uuid::Uuid::nil(), "customerNo": 0, "createdAt": "2026-03-10T08:15:00Z",
            "email": email, "firstName": format!("First{customer}"), "lastName": format!("Last{customer}"),
            "phone": "+905321234567"
        },
        "shippingAddress": {
            "id": uuid::Uuid::nil(), "addressNo": 0, "addressFirstName": "Elif", "addressLastName": "Yılmaz",
            "addressOne": "Bağdat Cd. No:120", "addressTwo": "Daire 5", "district": "Kadıköy", "city": "Istanbul",
            "postalCode": "34728", "country": "TR", "addressPhone": "+905321234567"
        },
        "billingAddress": {
            "id": uuid::Uuid::nil(), "addressNo": 0, "addressFirstName": "Elif", "addressLastName": "Yılmaz",
            "company": "Yılmaz Tekstil", "addressOne": "Barbaros Blv. No:45", "district": "Beşiktaş",
            "city": "Istanbul", "postalCode": "34353", "country": "TR", "taxOffice": "Beşiktaş", "taxNumber": "1234567890"
        },
        "shippingInfo": {"shippingCompany": "Yurtiçi Kargo", "shippingTrackingId": format!("YK-{n:08}")},
        "lineItems": [line(1), line(2), line(3)],
        "integration": {"integrationName": "Shopify"},
        "payment": {"totalPaymentAmount": 1499.4},
        "cargo": {"requestedCargoCarrier": "Yurtiçi Kargo", "cargoCode": format!("YK-{n:08}")},
        "vas": {"packageNote": "Please handle with care.", "gift": {"wrap": n % 3 == 0, "notes": null}},
        "packages": []
    }))
    .expect("the bench's sales orders fit the schema")
}

/// How many returns share one sales order reference: a filter on it matches a
/// page of exactly this many, whatever the size of the table.
pub const RETURNS_PER_SALES_ORDER: usize = 100;

/// `count` returns, tagged `prefix`, grouped by sales order in hundreds.
#[allow(
    clippy::expect_used,
    reason = "the bench's own fixed data: a failure is a bug in it, found on the first run"
)]
pub fn returns(prefix: &str, count: usize) -> Vec<TaggedReturn> {
    (0..count)
        .map(|n| {
            let day = 1 + n % 28;
            let second = n % 60;
            let minute = (n / 60) % 60;
            let hour = (n / 3600) % 24;
            serde_json::from_value(json!({
                "returnReferenceNumber": format!("RET-{prefix}-{n:07}"),
                "salesOrderChannel": if n % 2 == 0 { "Trendyol" } else { "Shopify" },
                "salesOrderReferenceNumber": sales_order_reference(n / RETURNS_PER_SALES_ORDER),
                "notes": if n % 3 == 0 { Some("Wrong size.") } else { None },
                "trackingId": format!("YK-{prefix}-{n:07}"),
                "cargoCarrier": "Yurtiçi Kargo",
                "createdAt": format!("2026-02-{day:02}T{hour:02}:{minute:02}:{second:02}Z"),
                "updatedAt": format!("2026-02-{day:02}T{hour:02}:{minute:02}:{second:02}Z"),
                "tag": if n % 4 == 0 { Some("damaged") } else { None },
            }))
            .expect("the bench's returns fit the schema")
        })
        .collect()
}

/// A bulk-upsert body of `orders` receiving orders with `lines` line items
/// each, whose reference numbers start with `prefix`.
#[allow(
    clippy::expect_used,
    reason = "the bench's own fixed data: a failure is a bug in it, found on the first run"
)]
pub fn receiving_order_batch(prefix: &str, orders: usize, lines: usize) -> Vec<u8> {
    let items: Vec<Value> = (0..orders)
        .map(|n| {
            let line_items: Vec<Value> = (0..lines)
                .map(|i| {
                    json!({"itemNo": i + 1, "sku": format!("SKU-{i:03}"), "expectedQuantity": 10 + i,
                           "hasLimitCheck": i % 2 == 0, "tolerance": i % 3})
                })
                .collect();
            json!({
                "referenceNumber": format!("RO-{prefix}-{n:05}"),
                "receiveType": "Standard",
                "transferType": "CargoTransfer",
                "integrationId": "3f0c2a8e-5b8e-4d0a-9a57-5a2f1d6c9b01",
                "lineItems": line_items,
                "lineItemLotNumbers": [{"sku": "SKU-000", "lotNumber": "LOT-0425", "expectedQuantity": 10}],
                "cargoTransfer": {"shipmentDate": "2026-03-14T09:30:00Z", "cargoCompanyName": "Aras Kargo",
                                  "trackingNumber": format!("70124{n:05}")}
            })
        })
        .collect();
    serde_json::to_vec(&items).expect("JSON values serialise")
}

/// A createCustomer body for customer `n` (emails differ across `run`s).
#[allow(
    clippy::expect_used,
    reason = "the bench's own fixed data: a failure is a bug in it, found on the first run"
)]
pub fn customer_body(run: &str, n: u64) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "email": format!("new-{run}-{n}@example.com"),
        "firstName": "Deniz",
        "lastName": "Kaya",
        "phone": "+905339876543"
    }))
    .expect("JSON values serialise")
}
