//! The seven operations and their decided rules (D2, D4, D7–D12, D19).

use logistics_client::models::{
    self, CargoTransfer, PickupTransfer, ReceivingOrderLotLine, ReceivingOrderTransferType,
    SalesOrderState, TransferDetail,
};
use logistics_client::reqwest::{Method, StatusCode};
use logistics_service::domain::receiving_orders::ReceivingOrderState;
use logistics_service::domain::{receiving_orders, sales_orders};
use logistics_service::seed::sample_sales_order;
use serde_json::json;

use crate::harness::*;

fn when() -> chrono::DateTime<chrono::Utc> {
    "2026-03-14T09:30:00Z".parse().unwrap()
}

on_both_backends! {
    async fn customers_are_numbered_per_tenant_and_read_back(service) {
        let a = service.tenant("A").await;
        let b = service.tenant("B").await;
        for (i, email) in ["one@example.com", "two@example.com", "three@example.com"].iter().enumerate() {
            let created = a.client.create_customer(&customer(email)).await.unwrap();
            assert_eq!(created.customer_no, i as i32 + 1, "1, 2, 3… in creation order (D7)");
            assert_eq!(created.email, *email);
            assert!(created.addresses.is_empty());
        }
        // Numbers are per tenant.
        assert_eq!(b.client.create_customer(&customer("one@example.com")).await.unwrap().customer_no, 1);

        // 201 with Location, over plain HTTP to see the status and the header.
        let response = service
            .raw(Method::POST, "/openapi/v1/Customers")
            .bearer_auth(&a.token)
            .json_body(&customer("four@example.com"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        assert_eq!(response.headers()["location"], "/openapi/v1/Customers/4");

        let read = a.client.get_customer(2).await.unwrap();
        assert_eq!((read.customer_no, read.email.as_str()), (2, "two@example.com"));
        assert_eq!((read.first_name.as_str(), read.last_name.as_str(), read.phone.as_str()), ("Ayşe", "Kaya", "+905321234567"));

        let missing = refused(a.client.get_customer(99).await);
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert_eq!(problems(&missing), [("customerNo".to_owned(), "ResourceNotFound".to_owned())]);
        let zero = refused(a.client.get_customer(0).await);
        assert_eq!(zero.status(), StatusCode::BAD_REQUEST);
        assert_eq!(problems(&zero), [("customerNo".to_owned(), "OutOfRange".to_owned())]);
        let (status, body) = json_of(service.raw(Method::GET, "/openapi/v1/Customers/abc").bearer_auth(&a.token).send().await.unwrap()).await;
        assert_eq!(status, 400);
        assert_eq!(codes_of(&body), [("customerNo".to_owned(), "InvalidType".to_owned())]);
        for path in ["/openapi/v1/Customers/99999999999", "/openapi/v1/Customers/1.5", "/openapi/v1/Customers/-1"] {
            let (status, body) = json_of(service.raw(Method::GET, path).bearer_auth(&a.token).send().await.unwrap()).await;
            assert_eq!(status, 400, "{path}: {body}");
            assert_eq!(codes_of(&body).len(), 1, "{path}: {body}");
        }
    }

    async fn a_duplicate_email_is_409_whatever_its_case_and_leaves_no_gap(service) {
        let a = service.tenant("A").await;
        a.client.create_customer(&customer("Ayse.Kaya@Example.com")).await.unwrap();
        let duplicate = refused(a.client.create_customer(&customer("ayse.kaya@EXAMPLE.COM")).await);
        assert_eq!(duplicate.status(), StatusCode::CONFLICT);
        assert_eq!(problems(&duplicate), [("email".to_owned(), "ResourceAlreadyExists".to_owned())]);
        let message = format!("{:?} {:?}", duplicate.message(), duplicate.problems());
        assert!(message.contains("customerNo 1"), "the message names the customer: {message}");
        let next = a.client.create_customer(&customer("other@example.com")).await.unwrap();
        assert_eq!(next.customer_no, 2, "the refused create used no number");
    }

    async fn customer_input_rules_list_every_problem(service) {
        let a = service.tenant("A").await;
        let input = models::CustomerInput::new("not an address", "", "", "");
        let error = refused(a.client.create_customer(&input).await);
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        let mut codes: Vec<String> = problems(&error).into_iter().map(|(_, code)| code).collect();
        codes.sort();
        assert_eq!(codes, ["CustomerEmailWrongFormat", "EmptyCustomerFirstName", "EmptyCustomerLastName", "EmptyCustomerPhone"]);

        // A missing field is Required; unknown properties are ignored (D4).
        let (status, body) = json_of(
            service.raw(Method::POST, "/openapi/v1/Customers").bearer_auth(&a.token)
                .json_body(&json!({"email": "x@example.com", "firstName": "X", "lastName": "Y"}))
                .send().await.unwrap(),
        ).await;
        assert_eq!(status, 400);
        assert_eq!(codes_of(&body), [("phone".to_owned(), "Required".to_owned())]);
        let response = service.raw(Method::POST, "/openapi/v1/Customers").bearer_auth(&a.token)
            .json_body(&json!({"email": "x@example.com", "firstName": "X", "lastName": "Y", "phone": "1", "nickname": "x"}))
            .send().await.unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        // Nothing refused was stored: this is customer 1.
        assert_eq!(a.client.get_customer(1).await.unwrap().email, "x@example.com");
    }

    async fn bulk_upsert_creates_then_replaces_line_items_in_place(service) {
        let a = service.tenant("A").await;
        let mut first = order(Some("RO-1"), vec![line("SKU-A", 10), line("SKU-B", 5)]);
        first.cargo_transfer = Some(CargoTransfer::new(when()).with_cargo_company_name("Aras Kargo"));
        first.line_items[0].lot_number = Some("LOT-1".to_owned());
        first.line_item_lot_numbers = Some(vec![ReceivingOrderLotLine::new(10).with_sku("SKU-A").with_lot_number("LOT-1")]);
        let result = a.client.bulk_upsert_receiving_orders(&batch(vec![first, order(None, vec![line("SKU-N", 1)])])).await.unwrap();
        assert_eq!(result.update_failures, Some(vec![]));
        assert_eq!(
            service.stored_lines(a.id, "RO-1").await.unwrap(),
            [("SKU-A".to_owned(), 10, Some("LOT-1".to_owned())), ("SKU-B".to_owned(), 5, None)]
        );
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 2, "an order without a reference number is created");

        // The same reference again: its lines are replaced and nothing else
        // (not its type, transfer or integration), and no second order.
        let before = service.stored_order(a.id, "RO-1").await;
        let mut update = order(Some("RO-1"), vec![line("SKU-C", 7)]);
        update.receive_type = models::ReceiveType::Return;
        update.transfer_type = ReceivingOrderTransferType::PickupTransfer;
        update.pickup_transfer = Some(PickupTransfer::new(when()).with_pickup_address("Elsewhere"));
        let result = a.client.bulk_upsert_receiving_orders(&batch(vec![update])).await.unwrap();
        assert_eq!(result.update_failures, Some(vec![]));
        assert_eq!(service.stored_lines(a.id, "RO-1").await.unwrap(), [("SKU-C".to_owned(), 7, None)]);
        assert_eq!(service.stored_order(a.id, "RO-1").await, before);
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 2);

        // Twice in one batch: the second item updates the order the first created.
        let twice = batch(vec![order(Some("RO-2"), vec![line("SKU-X", 1)]), order(Some("RO-2"), vec![line("SKU-Y", 2), line("SKU-Z", 3)])]);
        a.client.bulk_upsert_receiving_orders(&twice).await.unwrap();
        assert_eq!(
            service.stored_lines(a.id, "RO-2").await.unwrap(),
            [("SKU-Y".to_owned(), 2, None), ("SKU-Z".to_owned(), 3, None)]
        );
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 3);

        // A server-assigned reference number: RO- and 12 hexadecimal digits (D10).
        let transfer = TransferDetail::new(ReceivingOrderTransferType::PickupTransfer)
            .with_pickup_transfer(PickupTransfer::new(when()).with_pickup_address("Depo 4"));
        assert!(a.client.update_receiving_order_transfer_detail("RO-2", &transfer).await.is_ok());
    }

    async fn update_failures_name_orders_not_in_created_or_of_another_integration(service) {
        let a = service.tenant("A").await;
        let mine = uuid::Uuid::new_v4();
        let theirs = uuid::Uuid::new_v4();
        let mut one = order(Some("RO-INT"), vec![line("SKU-1", 1)]);
        one.integration_id = Some(mine);
        a.client.bulk_upsert_receiving_orders(&batch(vec![one.clone(), order(Some("RO-ARRIVED"), vec![line("SKU-2", 2)])])).await.unwrap();
        receiving_orders::advance(service.store(), a.id, "RO-ARRIVED", ReceivingOrderState::ArrivedToWarehouse).await.unwrap();

        let mut other_integration = order(Some("RO-INT"), vec![line("SKU-OTHER", 9)]);
        other_integration.integration_id = Some(theirs);
        let result = a.client.bulk_upsert_receiving_orders(&batch(vec![
            other_integration,
            order(Some("RO-ARRIVED"), vec![line("SKU-LATE", 3)]),
            order(Some("RO-NEW"), vec![line("SKU-3", 3)]),
        ])).await.unwrap();
        let failures: Vec<(String, String)> = result.update_failures.unwrap().into_iter().map(|f| (f.reference_number, f.message)).collect();
        assert_eq!(failures, [
            ("RO-INT".to_owned(), "UpdateFromDifferentIntegration".to_owned()),
            ("RO-ARRIVED".to_owned(), "InvalidOperation".to_owned()),
        ]);
        // The refused orders are untouched; the rest of the batch landed.
        assert_eq!(service.stored_lines(a.id, "RO-INT").await.unwrap(), [("SKU-1".to_owned(), 1, None)]);
        assert_eq!(service.stored_lines(a.id, "RO-ARRIVED").await.unwrap(), [("SKU-2".to_owned(), 2, None)]);
        assert!(service.stored_lines(a.id, "RO-NEW").await.is_some());

        // The same integration, or none, may update.
        let mut same = order(Some("RO-INT"), vec![line("SKU-SAME", 4)]);
        same.integration_id = Some(mine);
        assert_eq!(a.client.bulk_upsert_receiving_orders(&batch(vec![same])).await.unwrap().update_failures, Some(vec![]));
        assert_eq!(service.stored_lines(a.id, "RO-INT").await.unwrap(), [("SKU-SAME".to_owned(), 4, None)]);
        let anonymous = order(Some("RO-INT"), vec![line("SKU-ANY", 5)]);
        assert_eq!(a.client.bulk_upsert_receiving_orders(&batch(vec![anonymous])).await.unwrap().update_failures, Some(vec![]));
        assert_eq!(service.stored_lines(a.id, "RO-INT").await.unwrap(), [("SKU-ANY".to_owned(), 5, None)]);
    }

    async fn bulk_upsert_validation_lists_every_problem_and_writes_nothing(service) {
        let a = service.tenant("A").await;
        let long = "R".repeat(31);
        let empty = order(Some(&long), vec![]);
        let mut bad = order(Some("RO-BAD"), vec![line("", 0), line("SKU-D", 1), line("SKU-D", 2)]);
        bad.line_items[1].tolerance = -1;
        bad.line_item_lot_numbers = Some(vec![ReceivingOrderLotLine::new(1).with_sku("SKU-NOT-THERE").with_lot_number("L")]);
        bad.pickup_transfer = Some(PickupTransfer::new(when()));
        let valid = order(Some("RO-VALID"), vec![line("SKU-V", 1)]);
        let error = refused(a.client.bulk_upsert_receiving_orders(&batch(vec![empty, bad, valid])).await);
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        let found = problems(&error);
        for expected in [
            ("[0].referenceNumber", "ReferenceNumberTooLong"),
            ("[0].lineItems", "OutOfRange"),
            ("[1].lineItems[0].sku", "EmptyLineItemSku"),
            ("[1].lineItems[0].expectedQuantity", "LineItemQuantityError"),
            ("[1].lineItems[1].tolerance", "OutOfRange"),
            ("[1].lineItems[2]", "DuplicateLineItem"),
            ("[1].lineItemLotNumbers[0].sku", "LineItemNotFound"),
            ("[1].pickupTransfer", "ReceivingOrderTransferTypeTransferDetailsMismatch"),
        ] {
            assert!(
                found.iter().any(|(property, code)| property.starts_with(expected.0) && code == expected.1),
                "{expected:?} is among the problems: {found:?}"
            );
        }
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 0, "nothing is written (D10)");

        // Lot lines too have expectedQuantity ≥ 1 (D3).
        let mut lot = order(Some("RO-LOT"), vec![line("SKU-L", 1)]);
        lot.line_item_lot_numbers = Some(vec![ReceivingOrderLotLine::new(0).with_sku("SKU-L")]);
        let error = refused(a.client.bulk_upsert_receiving_orders(&batch(vec![lot])).await);
        assert_eq!(problems(&error), [("[0].lineItemLotNumbers[0].expectedQuantity".to_owned(), "LineItemQuantityError".to_owned())]);

        // At most 100 problems are listed; the message says how many more (D19).
        let many = batch((0..150).map(|i| order(Some(&format!("RO-{i}")), vec![line("", 1)])).collect());
        let error = refused(a.client.bulk_upsert_receiving_orders(&many).await);
        assert_eq!(error.problems().len(), 100);
        assert!(error.message().unwrap_or_default().contains("50 more"), "{:?}", error.message());

        // Bodies that are not orders: their schema problems alone.
        for (body, code) in [
            (json!([{"referenceNumber": "X", "receiveType": "Standard", "transferType": "CargoTransfer",
                     "lineItems": [{"sku": "S", "expectedQuantity": "ten", "hasLimitCheck": false, "tolerance": 0}]}]), "InvalidType"),
            (json!([{"referenceNumber": "X", "receiveType": "Standard", "transferType": "CargoTransfer", "colour": "red",
                     "lineItems": [{"sku": "S", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]}]), "UnknownProperty"),
            (json!([{"referenceNumber": "X", "receiveType": "Sometimes", "transferType": "CargoTransfer",
                     "lineItems": [{"sku": "S", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]}]), "InvalidEnumValue"),
        ] {
            let (status, answer) = json_of(service.raw(Method::POST, "/openapi/v1/ReceivingOrders/BulkUpsert")
                .bearer_auth(&a.token).json_body(&body).send().await.unwrap()).await;
            assert_eq!(status, 400, "{answer}");
            assert!(codes_of(&answer).iter().any(|(_, c)| c == code), "{code} in {answer}");
        }
        let (status, answer) = json_of(service.raw(Method::POST, "/openapi/v1/ReceivingOrders/BulkUpsert")
            .bearer_auth(&a.token).header("content-type", "application/json").body("[{").send().await.unwrap()).await;
        assert_eq!(status, 400);
        assert!(codes_of(&answer).iter().any(|(_, c)| c == "InvalidJson"), "{answer}");
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 0);
    }

    async fn transfer_details_are_replaced_in_created_orders_only(service) {
        let a = service.tenant("A").await;
        let integration = uuid::Uuid::new_v4();
        let mut created = order(Some("RO-T"), vec![line("SKU-1", 1)]);
        created.integration_id = Some(integration);
        a.client.bulk_upsert_receiving_orders(&batch(vec![created])).await.unwrap();

        let cargo = TransferDetail::new(ReceivingOrderTransferType::CargoTransfer)
            .with_integration_id(integration)
            .with_cargo_transfer(CargoTransfer::new(when()).with_cargo_company_name("Aras Kargo").with_tracking_number("7012"));
        let stored = a.client.update_receiving_order_transfer_detail("RO-T", &cargo).await.unwrap();
        assert_eq!(stored, cargo);
        // Without an integration id the order's is kept, and the detail is replaced as a whole.
        let pickup = TransferDetail::new(ReceivingOrderTransferType::PickupTransfer)
            .with_pickup_transfer(PickupTransfer::new(when()).with_pickup_address("Tuzla"));
        let stored = a.client.update_receiving_order_transfer_detail("RO-T", &pickup).await.unwrap();
        assert_eq!(stored.integration_id, Some(integration));
        assert_eq!(stored.transfer_type, ReceivingOrderTransferType::PickupTransfer);
        assert_eq!(stored.pickup_transfer, pickup.pickup_transfer);
        assert_eq!(stored.cargo_transfer, None);

        // The type's object is required; another type's object is refused (D2, D9).
        let mut mismatch = pickup.clone();
        mismatch.cargo_transfer = cargo.cargo_transfer.clone();
        let error = refused(a.client.update_receiving_order_transfer_detail("RO-T", &mismatch).await);
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(problems(&error).iter().any(|(_, c)| c == "ReceivingOrderTransferTypeTransferDetailsMismatch"), "{error}");
        let mut missing = pickup.clone();
        missing.pickup_transfer = None;
        let error = refused(a.client.update_receiving_order_transfer_detail("RO-T", &missing).await);
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(problems(&error).iter().any(|(_, c)| c == "Required"), "{error}");

        let error = refused(a.client.update_receiving_order_transfer_detail("RO-NONE", &pickup).await);
        assert_eq!(error.status(), StatusCode::NOT_FOUND);
        assert_eq!(problems(&error)[0].1, "ResourceNotFound");
        let other = pickup.clone().with_integration_id(uuid::Uuid::new_v4());
        let error = refused(a.client.update_receiving_order_transfer_detail("RO-T", &other).await);
        assert_eq!(error.status(), StatusCode::CONFLICT);
        assert_eq!(problems(&error)[0].1, "UpdateFromDifferentIntegration");

        receiving_orders::advance(service.store(), a.id, "RO-T", ReceivingOrderState::ArrivedToWarehouse).await.unwrap();
        let error = refused(a.client.update_receiving_order_transfer_detail("RO-T", &pickup).await);
        assert_eq!(error.status(), StatusCode::CONFLICT);
        assert_eq!(problems(&error)[0].1, "InvalidOperation");
    }

    async fn sales_orders_from_the_warehouse_read_with_their_state_and_customer(service) {
        let a = service.tenant("A").await;
        // A customer made through the API is matched by email, whatever its case.
        let known = a.client.create_customer(&customer("ELIF.YILMAZ@example.com")).await.unwrap();
        let orders = vec![sample_sales_order(1), sample_sales_order(2), sample_sales_order(3)];
        assert_eq!(sales_orders::import(service.store(), a.id, &orders).await.unwrap(), 3);
        sales_orders::advance(service.store(), a.id, "SO-DEMO-0001", SalesOrderState::Picked).await.unwrap();
        sales_orders::advance(service.store(), a.id, "SO-DEMO-0001", SalesOrderState::Packed).await.unwrap();
        // The state machine holds: no going back.
        assert!(sales_orders::advance(service.store(), a.id, "SO-DEMO-0001", SalesOrderState::Created).await.is_err());
        sales_orders::advance(service.store(), a.id, "SO-DEMO-0002", SalesOrderState::Cancelled).await.unwrap();

        let read = a.client.get_sales_order("SO-DEMO-0001").await.unwrap();
        assert_eq!(read.state, SalesOrderState::Packed);
        assert!(read.picked_at.is_some() && read.packed_at.is_some() && read.shipped_at.is_none());
        assert_eq!(read.customer.customer_no, known.customer_no);
        assert_eq!(read.line_items.len(), 1);
        assert!(read.shipping_address.is_some() && read.billing_address.is_some());
        assert!(read.payment.is_some() && read.cargo.is_some() && read.vas.is_some() && read.shipping_info.is_some());
        let cancelled = a.client.get_sales_order("SO-DEMO-0002").await.unwrap();
        assert_eq!(cancelled.state, SalesOrderState::Cancelled);
        assert!(cancelled.cancelled_at.is_some());
        // The second order's customer was new: the next number.
        assert_eq!(cancelled.customer.customer_no, known.customer_no + 1);

        // The sales orders' addresses are the customer's, in the order added, once each (D8).
        let with_addresses = a.client.get_customer(known.customer_no).await.unwrap();
        assert_eq!(with_addresses.addresses.len(), 2, "{:?}", with_addresses.addresses);
        assert_eq!(with_addresses.addresses.iter().map(|a| a.address_no).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(Some(&with_addresses.addresses[0]), read.shipping_address.as_ref());

        let error = refused(a.client.get_sales_order("SO-NOPE").await);
        assert_eq!(error.status(), StatusCode::NOT_FOUND);
        assert_eq!(problems(&error)[0].1, "ResourceNotFound");
        // Importing an existing reference again fails as a whole.
        let again = vec![sample_sales_order(4), sample_sales_order(1)];
        assert!(sales_orders::import(service.store(), a.id, &again).await.is_err());
        assert!(refused(a.client.get_sales_order("SO-DEMO-0004").await).status() == StatusCode::NOT_FOUND);
    }
}
