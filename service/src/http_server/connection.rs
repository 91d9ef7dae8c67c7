//! One connection: its phases (waiting for a head, busy, idle), shared with
//! its stream and its requests, and the watchdog that holds it to the header
//! and idle timeouts and closes it on drain (decision D28).

use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use http::{Request, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use logistics_server_stubs::{ApiError, RequestId};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit, watch};
use tokio::time::Instant;

use super::ConnectionSettings;
use super::io::Io;
use super::refusals::encode;
use super::request::handle;

/// Where a connection is between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Waiting for a request's line and headers (the header timeout runs).
    Head = 0,
    /// A request is being served (the body timeout runs in its body).
    Busy = 1,
    /// Kept alive after a response, waiting for the next request (the idle
    /// timeout runs).
    Idle = 2,
}

/// What a connection's task, its IO and its requests share.
pub(super) struct Shared {
    phase: AtomicU8,
    /// Milliseconds from `epoch` to the phase's start.
    since: AtomicU64,
    epoch: Instant,
    in_flight: AtomicUsize,
    /// Requests started on the connection.
    requests: AtomicU64,
    changed: Notify,
    /// The request id of an error body put in place of hyper's.
    pub(super) replaced: Mutex<Option<(StatusCode, RequestId)>>,
}

impl Shared {
    fn new() -> Self {
        Shared {
            phase: AtomicU8::new(Phase::Head as u8),
            since: AtomicU64::new(0),
            epoch: Instant::now(),
            in_flight: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
            changed: Notify::new(),
            replaced: Mutex::new(None),
        }
    }

    pub(super) fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Head,
            1 => Phase::Busy,
            _ => Phase::Idle,
        }
    }

    pub(super) fn enter(&self, phase: Phase) {
        let millis = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.since.store(millis, Ordering::Release);
        self.phase.store(phase as u8, Ordering::Release);
        self.changed.notify_one();
    }

    /// When the current phase times out, if it does.
    fn deadline(&self, settings: &ConnectionSettings) -> Option<Instant> {
        let limit = match self.phase() {
            Phase::Head => settings.header_timeout,
            Phase::Idle => settings.idle_timeout,
            Phase::Busy => return None,
        };
        let since = Duration::from_millis(self.since.load(Ordering::Acquire));
        Some(self.epoch + since + limit)
    }

    pub(super) fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.requests.fetch_add(1, Ordering::AcqRel);
        self.enter(Phase::Busy);
    }

    pub(super) fn response_finished(&self) {
        if self.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.enter(Phase::Idle);
        }
    }
}

/// Serves one connection until it ends, times out or is drained.
pub(super) async fn serve_connection(
    stream: TcpStream,
    app: Router,
    settings: Arc<ConnectionSettings>,
    _permit: OwnedSemaphorePermit,
    mut drain: watch::Receiver<bool>,
) {
    let shared = Arc::new(Shared::new());
    let io = Io::new(stream, Arc::clone(&shared), settings.write_timeout);
    let service = {
        let shared = Arc::clone(&shared);
        let settings = Arc::clone(&settings);
        hyper::service::service_fn(move |request: Request<Incoming>| {
            handle(
                request,
                app.clone(),
                Arc::clone(&shared),
                settings.body_timeout,
            )
        })
    };
    let mut connection = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), service);
    let mut draining = false;
    loop {
        let deadline = shared.deadline(&settings);
        let timer = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = &mut connection => {
                if let Err(error) = result {
                    let replaced = shared.replaced.lock().map(|mut r| r.take()).unwrap_or(None);
                    match replaced {
                        Some((status, request_id)) => tracing::debug!(
                            request_id = request_id.as_str(),
                            status = status.as_u16(),
                            %error,
                            "refused a request hyper could not read"
                        ),
                        None => tracing::debug!(%error, "connection ended with an error"),
                    }
                }
                return;
            }
            () = timer => {
                match shared.phase() {
                    Phase::Head if shared.deadline(&settings).is_some_and(|d| d <= Instant::now()) => {
                        let parts = connection.into_parts();
                        request_timeout_on(parts.io.into_inner(), &settings).await;
                        return;
                    }
                    Phase::Idle if shared.deadline(&settings).is_some_and(|d| d <= Instant::now()) => return,
                    _ => {}
                }
            }
            () = shared.changed.notified() => {}
            changed = drain.changed(), if !draining => {
                draining = changed.is_err() || *drain.borrow();
                if draining {
                    if shared.phase() == Phase::Head && shared.requests.load(Ordering::Acquire) == 0 {
                        // No request has come yet: nothing is lost by closing.
                        return;
                    }
                    // Hyper finishes the request in flight, if any, then
                    // closes (at once when idle).
                    Pin::new(&mut connection).graceful_shutdown();
                }
            }
        }
    }
}

/// 408 on a connection whose request's head did not arrive in time, then
/// closes it.
async fn request_timeout_on(io: Io, settings: &ConnectionSettings) {
    let request_id = RequestId::generate();
    let error = ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "RequestTimeout",
        format!(
            "The request's line and headers did not arrive within {}.",
            seconds(settings.header_timeout)
        ),
    );
    tracing::debug!(
        request_id = request_id.as_str(),
        "closed a connection whose request did not arrive in time"
    );
    let bytes = encode(error, &request_id);
    let mut stream = io.into_stream();
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(&bytes).await?;
        stream.shutdown().await
    })
    .await;
}

/// A duration as the error messages say it: `10 s`, `300 ms`.
pub(super) fn seconds(duration: Duration) -> String {
    let s = duration.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s} s")
    } else {
        format!("{} ms", duration.as_millis())
    }
}
