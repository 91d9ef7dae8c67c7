//! Tenant A can never read or change tenant B's data, whatever it sends.

use logistics_client::models::dynamic_query::Op;
use logistics_client::models::{
    PickupTransfer, ReceivingOrderTransferType, ReturnsQuery, ReturnsQueryProperty,
    TaggedReturnsQuery, TransferDetail,
};
use logistics_client::reqwest::{Method, StatusCode};
use logistics_client::{ListReturnsParams, ListReturnsWithTagParams};
use logistics_service::domain::{returns, sales_orders};
use logistics_service::seed::sample_sales_order;

use crate::harness::*;
use crate::returns_query::sample_returns;

on_both_backends! {
    async fn tenant_a_never_reads_or_changes_tenant_b_data(service) {
        let a = service.tenant("A").await;
        let b = service.tenant("B").await;
        b.client.create_customer(&customer("b@example.com")).await.unwrap();
        b.client.bulk_upsert_receiving_orders(&batch(vec![
            order(Some("RO-SHARED"), vec![line("B-SKU", 1)]),
            order(Some("RO-B-ONLY"), vec![line("B-SKU", 2)]),
        ])).await.unwrap();
        sales_orders::import(service.store(), b.id, &[sample_sales_order(1)]).await.unwrap();
        returns::import(service.store(), b.id, &sample_returns()).await.unwrap();

        // Reads: nothing of B's is visible.
        assert_eq!(refused(a.client.get_customer(1).await).status(), StatusCode::NOT_FOUND);
        assert_eq!(refused(a.client.get_customer(2).await).status(), StatusCode::NOT_FOUND);
        assert_eq!(refused(a.client.get_sales_order("SO-DEMO-0001").await).status(), StatusCode::NOT_FOUND);
        let listed = a.client.list_returns(ListReturnsParams::default()).await.unwrap();
        assert_eq!((listed.items.len(), listed.data_set_count), (0, 0));
        let query = ReturnsQuery::new().filter(ReturnsQueryProperty::ReturnReferenceNumber, Op::StartsWith, "RET");
        let listed = a.client.list_returns(ListReturnsParams::default().dqb(query)).await.unwrap();
        assert_eq!(listed.data_set_count, 0);
        let tagged = a.client.list_returns_with_tag(ListReturnsWithTagParams::default().dqb(TaggedReturnsQuery::new())).await.unwrap();
        assert_eq!(tagged.data_set_count, 0);

        // Writes: B's reference numbers and emails are A's own namespace.
        let pickup = TransferDetail::new(ReceivingOrderTransferType::PickupTransfer)
            .with_pickup_transfer(PickupTransfer::new("2026-03-14T09:30:00Z".parse().unwrap()));
        assert_eq!(refused(a.client.update_receiving_order_transfer_detail("RO-B-ONLY", &pickup).await).status(), StatusCode::NOT_FOUND);
        let result = a.client.bulk_upsert_receiving_orders(&batch(vec![order(Some("RO-SHARED"), vec![line("A-SKU", 9)])])).await.unwrap();
        assert_eq!(result.update_failures, Some(vec![]));
        assert_eq!(a.client.create_customer(&customer("B@example.com")).await.unwrap().customer_no, 1, "emails are unique per tenant only");

        // Naming B's tenant does not help a token without the emulation right.
        let as_b = a.client.with_tenant_id(b.id.to_string());
        assert_eq!(refused(as_b.get_customer(1).await).status(), StatusCode::FORBIDDEN);
        assert_eq!(refused(as_b.get_sales_order("SO-DEMO-0001").await).status(), StatusCode::FORBIDDEN);
        assert_eq!(refused(as_b.list_returns(ListReturnsParams::default()).await).status(), StatusCode::FORBIDDEN);
        assert_eq!(refused(as_b.bulk_upsert_receiving_orders(&batch(vec![order(Some("RO-B-ONLY"), vec![line("A-SKU", 1)])])).await).status(), StatusCode::FORBIDDEN);
        assert_eq!(refused(as_b.update_receiving_order_transfer_detail("RO-B-ONLY", &pickup).await).status(), StatusCode::FORBIDDEN);
        assert_eq!(refused(as_b.create_customer(&customer("c@example.com")).await).status(), StatusCode::FORBIDDEN);
        // Nor does sending both tenants' ids, or B's id in a second header.
        let response = service.raw(Method::GET, "/openapi/v1/Customers/1").bearer_auth(&a.token)
            .header("x-tenant-id", format!("{}, {}", a.id, b.id)).send().await.unwrap();
        assert_ne!(response.status(), StatusCode::OK);
        let response = service.raw(Method::GET, "/openapi/v1/SalesOrders/SO-DEMO-0001").bearer_auth(&a.token)
            .header("x-tenant-id", a.id.to_string()).header("x-tenant-id", b.id.to_string()).send().await.unwrap();
        assert_ne!(response.status(), StatusCode::OK);

        // B's data is as B left it.
        let mine = b.client.get_customer(1).await.unwrap();
        assert_eq!(mine.email, "b@example.com");
        assert_eq!(service.stored_lines(b.id, "RO-SHARED").await.unwrap(), [("B-SKU".to_owned(), 1, None)]);
        assert_eq!(service.stored_lines(b.id, "RO-B-ONLY").await.unwrap(), [("B-SKU".to_owned(), 2, None)]);
        assert_eq!(service.stored_lines(a.id, "RO-SHARED").await.unwrap(), [("A-SKU".to_owned(), 9, None)]);
        assert_eq!(service.count_rows("customers", b.id).await, 2, "B's own customer and its sales order's");
        assert_eq!(b.client.list_returns(ListReturnsParams::default()).await.unwrap().data_set_count, 7);
        assert_eq!(b.client.get_sales_order("SO-DEMO-0001").await.unwrap().reference_number, "SO-DEMO-0001");
    }
}
