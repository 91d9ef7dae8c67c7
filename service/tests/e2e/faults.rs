//! Faults of the database under a write (issue 44): a write whose
//! connection the server ends before the commit is run again on a fresh
//! connection, and the client never hears of it.

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
