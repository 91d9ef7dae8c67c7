//! Many writers at once: overlapping bulk upserts, customer creates through
//! the API and sales order imports from the warehouse side, for two tenants.
//! No duplicates, no lost or mixed line items, customer numbers without gaps.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use logistics_client::models::ReceivingOrderLineItem;
use logistics_client::reqwest::StatusCode;
use logistics_service::domain::sales_orders;
use logistics_service::seed::sample_sales_order;

use crate::harness::*;

/// Writers of each kind; every loop below is bounded by these.
const UPSERT_WRITERS: usize = 12;
const ORDERS_PER_BATCH: usize = 10;
const REFERENCE_POOL: usize = 20;
const CUSTOMER_CREATES: usize = 24;
const DISTINCT_EMAILS: usize = 16;
const IMPORTS: usize = 4;

fn lines_of(writer: usize, k: usize) -> Vec<ReceivingOrderLineItem> {
    vec![
        line(&format!("W{writer}-K{k}-A"), writer as i32 + 1),
        line(&format!("W{writer}-K{k}-B"), k as i32 + 1),
    ]
}

on_both_backends! {
    async fn concurrent_writers_lose_nothing_and_duplicate_nothing(service) {
        let tenants = [service.tenant("A").await, service.tenant("B").await];
        let mut sent: HashMap<(usize, String), Vec<Vec<ReceivingOrderLineItem>>> = HashMap::new();
        let mut upserts = Vec::new();
        for (t, tenant) in tenants.iter().enumerate() {
            for writer in 0..UPSERT_WRITERS {
                let orders: Vec<_> = (0..ORDERS_PER_BATCH)
                    .map(|k| {
                        let reference = format!("RO-C-{:02}", (writer * 7 + k * 3) % REFERENCE_POOL);
                        sent.entry((t, reference.clone())).or_default().push(lines_of(writer, k));
                        order(Some(&reference), lines_of(writer, k))
                    })
                    .collect();
                let client = tenant.client.clone();
                upserts.push(tokio::spawn(async move { client.bulk_upsert_receiving_orders(&batch(orders)).await }));
            }
        }
        let mut creates = Vec::new();
        for tenant in &tenants {
            for i in 0..CUSTOMER_CREATES {
                let email = format!("c{}@example.com", i % DISTINCT_EMAILS);
                let email = if i >= DISTINCT_EMAILS { email.to_uppercase() } else { email };
                let client = tenant.client.clone();
                creates.push(tokio::spawn(async move { client.create_customer(&customer(&email)).await }));
            }
        }
        // Imports whose customers are new, and one that is also created through the API.
        let mut imports = Vec::new();
        for (t, tenant) in tenants.iter().enumerate() {
            for j in 0..IMPORTS {
                let orders: Vec<_> = (0..3).map(|k| {
                    let mut order = sample_sales_order(1);
                    order.id = uuid::Uuid::new_v4();
                    order.reference_number = format!("SO-T{t}-I{j}-{k}");
                    order.customer.email = if k == 0 { "c0@example.com".to_owned() } else { format!("import-{j}-{k}@example.com") };
                    order
                }).collect();
                let store = service.store().clone();
                let id = tenant.id;
                imports.push(tokio::spawn(async move { sales_orders::import(&store, id, &orders).await }));
            }
        }

        let all = async {
            let mut results = Vec::new();
            for task in upserts { results.push(task.await.unwrap()); }
            let mut created = Vec::new();
            for task in creates { created.push(task.await.unwrap()); }
            let mut imported = Vec::new();
            for task in imports { imported.push(task.await.unwrap()); }
            (results, created, imported)
        };
        let (results, created, imported) = tokio::time::timeout(Duration::from_secs(60), all).await.expect("the writers finish within a minute");

        for result in results {
            let result = result.expect("every bulk upsert succeeds");
            assert_eq!(result.update_failures, Some(vec![]));
        }
        for outcome in imported {
            assert_eq!(outcome.expect("every import succeeds"), 3);
        }
        let mut refused_creates = 0;
        for outcome in created {
            match outcome {
                Ok(_) => {}
                Err(error) => {
                    let error = refused(Err::<(), _>(error));
                    assert_eq!(error.status(), StatusCode::CONFLICT, "{error}");
                    refused_creates += 1;
                }
            }
        }
        assert!(refused_creates >= 2 * (CUSTOMER_CREATES - DISTINCT_EMAILS), "every duplicate email was refused");

        for (t, tenant) in tenants.iter().enumerate() {
            // Orders: one per reference number, each with exactly the lines of
            // one of the items sent for it.
            let references: BTreeSet<&String> = sent.keys().filter(|(owner, _)| *owner == t).map(|(_, r)| r).collect();
            assert_eq!(service.count_rows("receiving_orders", tenant.id).await, references.len() as i64);
            for reference in references {
                let stored = service.stored_lines(tenant.id, reference).await.expect("the order exists");
                let candidates: Vec<Vec<(String, i32, Option<String>)>> = sent[&(t, reference.clone())]
                    .iter()
                    .map(|lines| lines.iter().map(|l| (l.sku.clone(), l.expected_quantity, l.lot_number.clone())).collect())
                    .collect();
                assert!(candidates.contains(&stored), "{reference} has the lines of one item, whole: {stored:?}");
            }

            // Customers: numbered 1..=N without gaps, one per email.
            let n = service.count_rows("customers", tenant.id).await as i32;
            let mut emails = BTreeMap::new();
            for customer_no in 1..=n {
                let customer = tenant.client.get_customer(customer_no).await.expect("no gap in the numbers");
                assert!(emails.insert(customer.email.to_lowercase(), customer_no).is_none(), "one customer per email: {}", customer.email);
            }
            assert_eq!(refused(tenant.client.get_customer(n + 1).await).status(), StatusCode::NOT_FOUND);
            let expected: BTreeSet<String> = (0..DISTINCT_EMAILS)
                .map(|i| format!("c{i}@example.com"))
                .chain((0..IMPORTS).flat_map(|j| (1..3).map(move |k| format!("import-{j}-{k}@example.com"))))
                .collect();
            assert_eq!(emails.keys().cloned().collect::<BTreeSet<_>>(), expected);
            assert_eq!(service.count_rows("sales_orders", tenant.id).await, (IMPORTS * 3) as i64);
        }

        // Every line and lot has its order (PostgreSQL does not check the
        // key, D68; SQLite does).
        for table in ["receiving_order_lines", "receiving_order_lots"] {
            let orphans = format!(
                "SELECT COUNT(*) FROM {table} WHERE order_id NOT IN (SELECT id FROM receiving_orders) \
                 AND $1 IS NOT NULL"
            );
            assert_eq!(service.count_where(&orphans, tenants[0].id).await, 0, "{table}");
        }
    }
}
