//! Faults of the database under a write (issue 44): a write whose
//! connection the server ends before the commit is run again on a fresh
//! connection, and the client never hears of it; and under a read: a read
//! on a connection the server ended while it was idle runs again on another.

use logistics_service::domain::sales_orders;
use logistics_service::seed::sample_sales_order;
use sqlx::{Connection, Row};

use crate::harness::*;

/// Ends the connection of the first statement that inserts receiving order
/// lines, from inside it: PostgreSQL's own `pg_terminate_backend`, as an
/// operator or a failover would. A sequence counts the inserts, since it
/// keeps its count when the transaction that used it is rolled back.
const END_THE_FIRST_WRITER: &str = "
    CREATE SEQUENCE lines_inserted;
    CREATE FUNCTION end_the_first_writer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF nextval('lines_inserted') = 1 THEN
            PERFORM pg_terminate_backend(pg_backend_pid());
            PERFORM pg_sleep(5);
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER end_the_first_writer AFTER INSERT ON receiving_order_lines
        FOR EACH STATEMENT EXECUTE FUNCTION end_the_first_writer();
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_connection_ends_before_its_commit_runs_again() {
    run(Backend::Postgres, |service| {
        Box::pin(async move {
            let mut admin = sqlx::PgConnection::connect(service.database_url())
                .await
                .expect("the test database opens");
            sqlx::raw_sql(END_THE_FIRST_WRITER)
                .execute(&mut admin)
                .await
                .expect("the trigger is made");
            let tenant = service.tenant("Faults").await;
            let orders = (1..=3)
                .map(|n| {
                    order(
                        Some(&format!("RO-FAULT-{n}")),
                        vec![line("SKU-A", n), line("SKU-B", 10 * n)],
                    )
                })
                .collect();

            let answer = tenant
                .client
                .bulk_upsert_receiving_orders(&batch(orders))
                .await
                .expect("the write is answered 200 although its first connection ended");

            assert!(
                answer.update_failures.as_ref().is_none_or(Vec::is_empty),
                "no order failed: {answer:?}"
            );
            let inserts: i64 = sqlx::query("SELECT last_value FROM lines_inserted")
                .fetch_one(&mut admin)
                .await
                .expect("the sequence")
                .get(0);
            assert_eq!(
                inserts, 2,
                "the first attempt was ended, the second committed"
            );
            assert_eq!(service.count_rows("receiving_orders", tenant.id).await, 3);
            for n in 1..=3 {
                assert_eq!(
                    service
                        .stored_lines(tenant.id, &format!("RO-FAULT-{n}"))
                        .await,
                    Some(vec![
                        ("SKU-A".to_owned(), n, None),
                        ("SKU-B".to_owned(), 10 * n, None),
                    ]),
                    "RO-FAULT-{n} is stored once, whole"
                );
            }
        })
    })
    .await;
}

/// Ends the connection at the commit of the first write that inserted
/// receiving order lines: a deferred constraint trigger runs as the commit
/// is processed.
const END_THE_FIRST_COMMIT: &str = "
    CREATE SEQUENCE commits_tried;
    CREATE FUNCTION end_the_first_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF nextval('commits_tried') = 1 THEN
            PERFORM pg_terminate_backend(pg_backend_pid());
            PERFORM pg_sleep(5);
        END IF;
        RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER end_the_first_commit AFTER INSERT ON receiving_orders
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION end_the_first_commit();
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_commit_fails_is_not_run_again_and_says_it_may_have_been_applied() {
    run(Backend::Postgres, |service| {
        Box::pin(async move {
            let mut admin = sqlx::PgConnection::connect(service.database_url())
                .await
                .expect("the test database opens");
            sqlx::raw_sql(END_THE_FIRST_COMMIT)
                .execute(&mut admin)
                .await
                .expect("the trigger is made");
            let tenant = service.tenant("Faults").await;
            let orders = vec![order(Some("RO-COMMIT-1"), vec![line("SKU-A", 1)])];

            let refusal = refused(
                tenant
                    .client
                    .bulk_upsert_receiving_orders(&batch(orders))
                    .await,
            );

            assert_eq!(refusal.status().as_u16(), 500);
            let message = refusal.message().unwrap_or_default();
            assert!(message.contains("may have been applied"), "{message}");
            let commits: i64 = sqlx::query("SELECT last_value FROM commits_tried")
                .fetch_one(&mut admin)
                .await
                .expect("the sequence")
                .get(0);
            assert_eq!(commits, 1, "a failed commit is not tried again");
        })
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_writes_after_the_server_ended_every_idle_connection_are_answered() {
    run(Backend::Postgres, |service| {
        Box::pin(async move {
            let tenant = service.tenant("Faults").await;
            // First: its customer takes a number.
            let order = sample_sales_order(1);
            sales_orders::import(service.store(), tenant.id, std::slice::from_ref(&order))
                .await
                .expect("the sales order is imported");
            let created = tenant
                .client
                .create_customer(&customer("idle@example.com"))
                .await
                .expect("the customer is created");
            // Several reads at once, so that the pool and the reader of
            // sales orders (`storage/kept.rs`) hold several idle connections
            // when they are ended.
            let reads = (0..6).map(|_| tenant.client.get_customer(created.customer_no));
            for read in futures_util::future::join_all(reads).await {
                read.expect("the customer is read");
            }
            let reads = (0..6).map(|_| tenant.client.get_sales_order(&order.reference_number));
            for read in futures_util::future::join_all(reads).await {
                read.expect("the sales order is read");
            }
            let mut admin = sqlx::PgConnection::connect(service.database_url())
                .await
                .expect("the test database opens");
            let ended = end_other_connections(&mut admin).await;
            assert!(ended >= 1, "the pool held idle connections: {ended}");

            for _ in 0..3 {
                let read = tenant
                    .client
                    .get_customer(created.customer_no)
                    .await
                    .expect("a read on an ended connection is run again on a new one");
                assert_eq!(read.email, "idle@example.com");
                let read = tenant
                    .client
                    .get_sales_order(&order.reference_number)
                    .await
                    .expect("a read by key on an ended connection is run again on a new one");
                assert_eq!(read.reference_number, order.reference_number);
            }

            // And a write, whose BEGIN finds the connections ended.
            let reads = (0..6).map(|_| tenant.client.get_customer(created.customer_no));
            futures_util::future::join_all(reads).await;
            assert!(end_other_connections(&mut admin).await >= 1);
            let second = tenant
                .client
                .create_customer(&customer("idle2@example.com"))
                .await
                .expect("a write begun on an ended connection begins on a new one");
            assert_eq!(second.customer_no, created.customer_no + 1);
        })
    })
    .await;
}

/// Ends every connection to the test database but `admin`'s; how many.
async fn end_other_connections(admin: &mut sqlx::PgConnection) -> i64 {
    sqlx::query(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()) AS ended",
    )
    .fetch_one(admin)
    .await
    .expect("the connections are ended")
    .get(0)
}
