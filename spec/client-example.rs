// Creates a customer, reads it back, upserts receiving orders and pages
// through returns. Set LOGISTICS_BASE_URL (such as
// https://staging.api.fulfilment.example) and LOGISTICS_TOKEN (lfs_stg_…).
use logistics_client::futures_util::TryStreamExt;
use logistics_client::models::dynamic_query::{Direction, Op};
use logistics_client::models::{self, ReturnsQuery, ReturnsQueryProperty};
use logistics_client::reqwest::StatusCode;
use logistics_client::{Client, Error};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::builder()
        .base_url(std::env::var("LOGISTICS_BASE_URL")?)
        .token(std::env::var("LOGISTICS_TOKEN")?)
        .build()?;

    // Create a customer, then read it back by the number the API gave it. An
    // email the tenant already has is refused with 409 and the customer's
    // number in the message: report it and go on.
    let input = models::CustomerInput {
        email: "ayse.kaya@example.com".to_owned(),
        first_name: "Ayşe".to_owned(),
        last_name: "Kaya".to_owned(),
        phone: "+905321234567".to_owned(),
    };
    match client.create_customer(&input).await {
        Ok(created) => {
            let customer = client.get_customer(created.customer_no).await?;
            println!(
                "customer {} ({}) has {} address(es)",
                customer.customer_no,
                customer.email,
                customer.addresses.len()
            );
        }
        Err(Error::Api(refused)) if refused.status() == StatusCode::CONFLICT => {
            println!("{refused}");
        }
        Err(other) => return Err(other.into()),
    }

    // Announce incoming stock; orders that exist already are updated.
    let batch = models::ReceivingOrderBatch(vec![models::ReceivingOrder {
        integration_id: None,
        reference_number: Some("RO-2026-000184".to_owned()),
        receive_type: models::ReceiveType::Standard,
        line_items: vec![models::ReceivingOrderLineItem {
            item_no: Some(1),
            sku: "TSHIRT-BLK-M".to_owned(),
            expected_quantity: 120,
            lot_number: None,
            has_limit_check: true,
            tolerance: 2,
            external_line_item_id: None,
        }],
        line_item_lot_numbers: None,
        transfer_type: models::ReceivingOrderTransferType::CargoTransfer,
        cargo_transfer: None,
        pickup_transfer: None,
        carriage_transfer: None,
    }]);
    match client.bulk_upsert_receiving_orders(&batch).await {
        Ok(result) => {
            for failure in result.update_failures.unwrap_or_default() {
                println!("{} was not updated: {}", failure.reference_number, failure.message);
            }
        }
        // A validation failure lists every problem, with the request id.
        Err(Error::Api(refused)) => {
            eprintln!("{refused}");
            for problem in refused.problems() {
                eprintln!("  {problem}");
            }
        }
        Err(other) => return Err(other.into()),
    }

    // Page through the Shopify returns, newest first, 50 per request.
    let query = ReturnsQuery::new()
        .filter(ReturnsQueryProperty::SalesOrderChannel, Op::Equals, "Shopify")
        .sort(ReturnsQueryProperty::CreatedAt, Direction::Descending)
        .count(50);
    let mut returns = std::pin::pin!(client.list_returns_stream(query));
    while let Some(item) = returns.try_next().await? {
        println!("{} {}", item.return_reference_number, item.created_at);
    }
    Ok(())
}
