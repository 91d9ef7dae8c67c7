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
    // number in the message: report it and go on. Bodies are built with
    // `new` (the required properties) and `with_*` (the optional ones).
    let input =
        models::CustomerInput::new("ayse.kaya@example.com", "Ayşe", "Kaya", "+905321234567");
    // `…_with_response` gives the status and headers too; the plain method
    // gives the body.
    match client.create_customer_with_response(&input).await {
        Ok(created) => {
            println!(
                "{} created at {}",
                created.status(),
                created.declared().location.as_deref().unwrap_or("?")
            );
            let customer = client.get_customer(created.body().customer_no).await?;
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
    let line = models::ReceivingOrderLineItem::new("TSHIRT-BLK-M", 120, true, 2).with_item_no(1);
    let batch = models::ReceivingOrderBatch(vec![
        models::ReceivingOrder::new(
            models::ReceiveType::Standard,
            vec![line],
            models::ReceivingOrderTransferType::CargoTransfer,
        )
        .with_reference_number("RO-2026-000184"),
    ]);
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
