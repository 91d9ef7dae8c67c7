//! The operator's import command with a shop's export: only what a shop has,
//! the rest assigned by the service; a bad file named item by item and
//! nothing written.

use logistics_client::models::SalesOrderState;
use logistics_client::reqwest::StatusCode;
use logistics_service::commands;
use logistics_service::domain::tenancy::Environment;

use crate::harness::*;

/// A file in the system's temp folder, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn with(contents: &serde_json::Value) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("lfs_import_{}.json", uuid::Uuid::new_v4().simple()));
        std::fs::write(&path, serde_json::to_vec(contents).unwrap()).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The example `orders.json` of the README's import section.
fn readme_orders() -> serde_json::Value {
    let readme = include_str!("../../../README.md");
    let section = &readme[readme
        .find("A minimal\n`orders.json`")
        .expect("the README shows an orders.json")..];
    let start = section.find("```json\n").expect("a JSON block") + "```json\n".len();
    let end = start + section[start..].find("```").expect("the block ends");
    serde_json::from_str(&section[start..end]).expect("the README's example is JSON")
}

on_both_backends! {
    async fn the_readmes_example_file_imports(service) {
        let a = service.tenant("A").await;
        let file = TempFile::with(&readme_orders());
        commands::import_sales_orders(service.database_url(), Environment::Staging, a.id, &file.0).await.expect("the README's file imports");
        let order = a.client.get_sales_order("SHOP-1001").await.unwrap();
        assert_eq!((order.customer.customer_no, order.line_items.len()), (1, 1));
    }

    async fn a_shop_export_imports_with_only_what_a_shop_has(service) {
        let a = service.tenant("A").await;
        let known = a.client.create_customer(&customer("elif.yilmaz@example.com")).await.unwrap();
        let file = TempFile::with(&serde_json::json!([
            {"referenceNumber": "SHOP-1", "salesChannel": "Shopify", "orderCreatedAt": "2026-03-10T08:14:31Z",
             "customer": {"email": "Elif.Yilmaz@example.com", "firstName": "Elif", "lastName": "Yılmaz", "phone": "+905321234567"},
             "shippingAddress": {"addressOne": "Bağdat Cd. No:120", "city": "Istanbul", "country": "TR"},
             "billingAddress": {"addressOne": "Bağdat Cd. No:120", "city": "Istanbul", "country": "TR"},
             "lineItems": [{"sku": "TSHIRT-BLK-M", "quantity": 2}],
             "payment": {"totalPaymentAmount": 499.8}},
            {"referenceNumber": "SHOP-2",
             "customer": {"email": "new@example.com", "firstName": "Can", "lastName": "Demir", "phone": "+905339876543"},
             "lineItems": [{"sku": "MUG-WHITE", "quantity": 1, "productName": "Mug", "salePrice": 99.5}]}
        ]));
        commands::import_sales_orders(service.database_url(), Environment::Staging, a.id, &file.0).await.expect("the shop's file imports");

        let first = a.client.get_sales_order("SHOP-1").await.unwrap();
        assert_eq!(first.state, SalesOrderState::Created);
        assert_eq!(first.customer.customer_no, known.customer_no, "the customer is matched by email");
        assert_eq!(first.order_created_at, Some("2026-03-10T08:14:31Z".parse().unwrap()), "orderCreatedAt is taken");
        assert!(first.created_at > first.order_created_at.unwrap(), "createdAt is the import's");
        let shipping = first.shipping_address.clone().expect("an address");
        assert_eq!((shipping.address_no, first.billing_address.as_ref().map(|b| b.address_no)), (1, Some(1)), "one place, one address");
        assert_eq!(first.line_items[0].amount_in_order, Some(2));
        assert_eq!(first.payment.and_then(|p| p.total_payment_amount), Some(499.8));
        let second = a.client.get_sales_order("SHOP-2").await.unwrap();
        assert_eq!(second.customer.customer_no, known.customer_no + 1, "a new customer gets the next number");
        assert_ne!(second.id, first.id);
        let customer = a.client.get_customer(known.customer_no).await.unwrap();
        assert_eq!(customer.addresses, vec![shipping]);

        // A bad item: every problem named with its index and field, nothing written.
        let bad = TempFile::with(&serde_json::json!([
            {"referenceNumber": "SHOP-3", "customer": {"email": "x@example.com", "firstName": "X", "lastName": "Y", "phone": "1"},
             "lineItems": [{"sku": "A", "quantity": 1}]},
            {"referenceNumber": "SHOP-4", "customer": {"email": "not an email", "firstName": "X", "lastName": "Y", "phone": "1"},
             "lineItems": [{"sku": "A", "quantity": 0}]}
        ]));
        let error = commands::import_sales_orders(service.database_url(), Environment::Staging, a.id, &bad.0).await.expect_err("a bad file");
        assert!(error.contains("[1].customer.email") && error.contains("[1].lineItems[0].quantity"), "{error}");
        assert_eq!(refused(a.client.get_sales_order("SHOP-3").await).status(), StatusCode::NOT_FOUND);

        // A return with only its reference and createdAt; the read model's shape still imports.
        let returns = TempFile::with(&serde_json::json!([
            {"returnReferenceNumber": "RET-1", "createdAt": "2026-03-18T09:00:00Z", "trackingId": "YK-1"},
            {"returnReferenceNumber": "RET-2", "salesOrderChannel": null, "createdAt": "2026-03-18T11:45:00Z",
             "updatedAt": "2026-03-20T10:00:00Z", "arrivedToWarehouseAt": "2026-03-19T14:30:00Z", "tag": null}
        ]));
        commands::import_returns(service.database_url(), Environment::Staging, a.id, &returns.0).await.expect("the returns import");
        let listed = a.client.list_returns_with_tag(Default::default()).await.unwrap();
        let times: Vec<_> = listed.items.iter().map(|r| (r.return_reference_number.as_str(), r.created_at, r.updated_at)).collect();
        assert_eq!(times, [
            ("RET-1", "2026-03-18T09:00:00Z".parse().unwrap(), "2026-03-18T09:00:00Z".parse().unwrap()),
            ("RET-2", "2026-03-18T11:45:00Z".parse().unwrap(), "2026-03-20T10:00:00Z".parse().unwrap()),
        ]);
    }
}
