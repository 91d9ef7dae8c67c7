//! Accepting connections: the connection limit, the back-off when file
//! descriptors run out, and the drain on shutdown (decision D28).

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::ConnectionSettings;
use super::connection::serve_connection;

/// Serves `app` on `listener` until `shutdown` completes, then drains: see
/// [`crate::http_server`]. `connection_limit` is the resolved limit.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    settings: ConnectionSettings,
    connection_limit: usize,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    serve_from(listener, app, settings, connection_limit, shutdown).await
}

/// Where connections come from: the listener, or in tests one whose accept
/// fails as it does when the process is out of file descriptors.
trait Incoming {
    fn accept(&mut self) -> impl Future<Output = io::Result<TcpStream>>;
}

impl Incoming for TcpListener {
    async fn accept(&mut self) -> io::Result<TcpStream> {
        TcpListener::accept(self)
            .await
            .map(|(stream, _peer)| stream)
    }
}

async fn serve_from(
    mut listener: impl Incoming,
    app: Router,
    settings: ConnectionSettings,
    connection_limit: usize,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let settings = Arc::new(settings);
    let permits = Arc::new(Semaphore::new(connection_limit));
    let (draining, drain) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut warned_limit: Option<Instant> = None;
    let mut warned_descriptors: Option<Instant> = None;
    let mut backoff = Duration::from_millis(10);
    tokio::pin!(shutdown);
    loop {
        while connections.try_join_next().is_some() {}
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if warn_due(&mut warned_limit) {
                    tracing::warn!(
                        limit = connection_limit,
                        "connection limit reached: new connections wait to be accepted \
                         (--connection-limit, LOGISTICS_CONNECTION_LIMIT)"
                    );
                }
                tokio::select! {
                    () = &mut shutdown => break,
                    permit = permits.clone().acquire_owned() => match permit {
                        Ok(permit) => permit,
                        Err(_) => break,
                    },
                }
            }
        };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(stream) => {
                    backoff = Duration::from_millis(10);
                    stream
                }
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => {
                    // Out of file descriptors (or memory): nothing can be
                    // accepted until something closes; wait, and say so.
                    if warn_due(&mut warned_descriptors) {
                        tracing::warn!(
                            %error,
                            open = connection_limit.saturating_sub(permits.available_permits() + 1),
                            "cannot accept connections: running out of file descriptors? \
                             (raise `ulimit -n`, or lower --connection-limit)"
                        );
                    }
                    drop(permit);
                    tokio::select! {
                        () = &mut shutdown => break,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        connections.spawn(serve_connection(
            stream,
            app.clone(),
            Arc::clone(&settings),
            permit,
            drain.clone(),
        ));
    }
    drop(listener);
    let open = connections.len();
    let _ = draining.send(true);
    if open > 0 {
        tracing::info!(
            open,
            deadline_seconds = settings.drain_timeout.as_secs_f64(),
            "draining: idle connections closed, requests in flight finish"
        );
    }
    let drained = tokio::time::timeout(settings.drain_timeout, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            open = connections.len(),
            "drain deadline reached: closing the connections still open"
        );
        connections.shutdown().await;
    }
    Ok(())
}

/// Whether a warning rate-limited to one per 10 s is due now.
fn warn_due(last: &mut Option<Instant>) -> bool {
    let now = Instant::now();
    if last.is_some_and(|at| now.duration_since(at) < Duration::from_secs(10)) {
        return false;
    }
    *last = Some(now);
    true
}

/// Errors of one incoming connection (not of the listener).
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// Linux's "Too many open files", what `accept` says when the process
    /// has no file descriptor left.
    const EMFILE: i32 = 24;

    /// A listener whose accept fails with EMFILE while `exhausted` is set,
    /// counting the attempts. After `MOST_FAILURES` failures it stops
    /// failing, so that a loop retrying at once (which never yields) cannot
    /// hang the test: it fails the assertion on the count instead.
    struct OutOfDescriptors {
        listener: TcpListener,
        exhausted: Arc<AtomicBool>,
        attempts: Arc<AtomicUsize>,
    }

    const MOST_FAILURES: usize = 1_000;

    impl Incoming for OutOfDescriptors {
        async fn accept(&mut self) -> io::Result<TcpStream> {
            let attempt = self.attempts.fetch_add(1, Ordering::SeqCst);
            if self.exhausted.load(Ordering::SeqCst) && attempt < MOST_FAILURES {
                return Err(io::Error::from_raw_os_error(EMFILE));
            }
            TcpListener::accept(&self.listener)
                .await
                .map(|(stream, _peer)| stream)
        }
    }

    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Out of file descriptors, the loop neither spins on `accept` (which
    /// fails at once, again and again, taking a core and starving the
    /// connections that are open) nor gives up: it waits longer each time,
    /// warns once, and serves again when descriptors are free.
    #[tokio::test]
    async fn out_of_file_descriptors_accepting_backs_off_warns_once_and_recovers() {
        let log = Log::default();
        let writer = log.clone();
        let _subscriber = tracing::subscriber::set_default(
            tracing_subscriber::fmt()
                .with_ansi(false)
                .with_writer(move || writer.clone())
                .finish(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let exhausted = Arc::new(AtomicBool::new(true));
        let attempts = Arc::new(AtomicUsize::new(0));
        let incoming = OutOfDescriptors {
            listener,
            exhausted: Arc::clone(&exhausted),
            attempts: Arc::clone(&attempts),
        };
        let app = Router::new().route("/", axum::routing::get(|| async { "served" }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve_from(
            incoming,
            app,
            ConnectionSettings::default(),
            16,
            async {
                let _ = stopped.await;
            },
        ));

        tokio::time::sleep(Duration::from_millis(300)).await;
        // Waits of 10, 20, 40, 80, 160 ms: about 5 attempts in 300 ms (fewer
        // on a loaded machine), where a loop without back-off makes them all.
        let tried = attempts.load(Ordering::SeqCst);
        assert!(
            (2..=8).contains(&tried),
            "{tried} accept attempts in 300 ms out of file descriptors"
        );
        let logged = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            logged.matches("cannot accept connections").count(),
            1,
            "one warning for all the failures: {logged}"
        );
        assert!(logged.contains("Too many open files"), "{logged}");

        // Descriptors free again: a waiting client is served (within the
        // next wait, at most a second).
        exhausted.store(false, Ordering::SeqCst);
        let answer = tokio::time::timeout(Duration::from_secs(5), async {
            let mut client = TcpStream::connect(address).await.unwrap();
            client
                .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .await
                .unwrap();
            let mut answer = String::new();
            client.read_to_string(&mut answer).await.unwrap();
            answer
        })
        .await
        .expect("no answer within 5 s once descriptors were free");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("served"), "{answer}");

        stop.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), server)
            .await
            .expect("the loop did not stop")
            .unwrap()
            .unwrap();
    }
}
