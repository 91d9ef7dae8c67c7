//! Accepting connections: the connection limit, the back-off when file
//! descriptors run out, and the drain on shutdown (decision D28).

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
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
                Ok((stream, _peer)) => {
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
