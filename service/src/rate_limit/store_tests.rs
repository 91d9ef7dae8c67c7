//! A store that cannot work is refused when the service starts, naming the
//! option; one that stops answering is logged, but not on every request.

use std::io::Write;

use super::*;

// A Tokio test: the database store's pool starts a task of its own.
#[tokio::test]
async fn a_store_that_cannot_work_is_refused_naming_the_option() {
    let on_sqlite = RateLimit::with_store(2, &StoreChoice::Database, "./data/x.db", String::new());
    let Err(error) = on_sqlite else {
        panic!("the database store was accepted on SQLite");
    };
    assert!(
        error.starts_with("--rate-limit-store database needs a PostgreSQL database"),
        "{error}"
    );
    // The database store connects when first used: a PostgreSQL URL is enough.
    for url in ["postgres://127.0.0.1:1/db", "postgresql://127.0.0.1:1/db"] {
        assert!(
            RateLimit::with_store(2, &StoreChoice::Database, url, String::new()).is_ok(),
            "{url}"
        );
    }
    let bad_redis = StoreChoice::Redis("redis://127.0.0.1:port".to_owned());
    let Err(error) = RateLimit::with_store(2, &bad_redis, "./data/x.db", String::new()) else {
        panic!("a Redis URL without a port number was accepted");
    };
    assert!(error.starts_with("--rate-limit-store redis: "), "{error}");
}

/// The lines logged by a subscriber while `f` runs.
fn logged(f: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);
    impl Write for Capture {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    let bytes = capture.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_failing_store_is_logged_at_most_every_ten_seconds() {
    let limit = RateLimit::new(2);
    let warnings = |log: &str| log.matches("rate-limit store did not answer").count();
    let log = logged(|| {
        for _ in 0..5 {
            limit.store_failed("connection refused");
        }
    });
    assert_eq!(warnings(&log), 1, "{log}");
    // Ten seconds after the last warning, the next failure warns again.
    *limit.inner.warned.lock().unwrap() = Instant::now().checked_sub(Duration::from_secs(10));
    let log = logged(|| {
        for _ in 0..5 {
            limit.store_failed("connection refused");
        }
    });
    assert_eq!(warnings(&log), 1, "{log}");
}
