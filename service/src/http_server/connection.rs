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
    /// Milliseconds from `epoch` to the watchdog's next look: never later
    /// than the deadline of the phase (see [`Shared::enter`]).
    next_look: AtomicU64,
    epoch: Instant,
    /// The header and idle timeouts, in milliseconds.
    header_limit: u64,
    idle_limit: u64,
    in_flight: AtomicUsize,
    /// Requests started on the connection.
    requests: AtomicU64,
    /// Wakes the watchdog when a phase ends before its next look.
    changed: Notify,
    /// The request id of an error body put in place of hyper's.
    pub(super) replaced: Mutex<Option<(StatusCode, RequestId)>>,
}

impl Shared {
    fn new(settings: &ConnectionSettings) -> Self {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Shared {
            phase: AtomicU8::new(Phase::Head as u8),
            since: AtomicU64::new(0),
            next_look: AtomicU64::new(u64::MAX),
            epoch: Instant::now(),
            header_limit: millis(settings.header_timeout),
            idle_limit: millis(settings.idle_timeout),
            in_flight: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
            changed: Notify::new(),
            replaced: Mutex::new(None),
        }
    }

    pub(super) fn phase(&self) -> Phase {
        match self.phase.load(Ordering::SeqCst) {
            0 => Phase::Head,
            1 => Phase::Busy,
            _ => Phase::Idle,
        }
    }

    /// Enters `phase`. The watchdog is woken only when the phase's deadline
    /// comes before its next look: a request's three phases would otherwise
    /// wake it three times, each time to set a timer that the next phase
    /// cancels (half of a GET's futex calls, D65).
    pub(super) fn enter(&self, phase: Phase) {
        let now = self.now();
        self.since.store(now, Ordering::SeqCst);
        self.phase.store(phase as u8, Ordering::SeqCst);
        let deadline = self.limit(phase).map(|limit| now.saturating_add(limit));
        if deadline.is_some_and(|d| d < self.next_look.load(Ordering::SeqCst)) {
            self.changed.notify_one();
        }
    }

    /// Milliseconds from `epoch` to now.
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn limit(&self, phase: Phase) -> Option<u64> {
        match phase {
            Phase::Head => Some(self.header_limit),
            Phase::Idle => Some(self.idle_limit),
            Phase::Busy => None,
        }
    }

    /// Whether the current phase's deadline has passed.
    fn timed_out(&self) -> bool {
        let since = self.since.load(Ordering::SeqCst);
        self.limit(self.phase())
            .is_some_and(|limit| since.saturating_add(limit) <= self.now())
    }

    /// When the watchdog should look next, in milliseconds from `epoch`: the
    /// phase's deadline; while a request is served, which has none, after
    /// the shorter timeout, so that no phase entered after it ends sooner
    /// and has to wake the watchdog.
    fn look_at(&self) -> u64 {
        let since = self.since.load(Ordering::SeqCst);
        match self.limit(self.phase()) {
            Some(limit) => since.saturating_add(limit),
            None => self
                .now()
                .saturating_add(self.header_limit.min(self.idle_limit)),
        }
    }

    /// Sets the next look, as of the current phase, and returns it when.
    fn arm(&self) -> Instant {
        let look = self.look_at();
        self.next_look.store(look, Ordering::SeqCst);
        // A phase entered meanwhile read the old look (and so may not have
        // woken the watchdog) or is seen here.
        let look = look.min(self.look_at());
        self.next_look.store(look, Ordering::SeqCst);
        self.epoch + Duration::from_millis(look)
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
    let shared = Arc::new(Shared::new(&settings));
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
        let timer = tokio::time::sleep_until(shared.arm());
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
            // The look: the phase may have changed since the timer was set.
            () = timer => {
                match shared.phase() {
                    Phase::Head if shared.timed_out() => {
                        let parts = connection.into_parts();
                        request_timeout_on(parts.io.into_inner(), &settings).await;
                        return;
                    }
                    Phase::Idle if shared.timed_out() => return,
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::time::Instant;

    use super::{ConnectionSettings, Phase, Shared};

    /// The watchdog sleeps until the phase's deadline, or while a request
    /// is served for the shorter timeout: never sooner (it would spin), never
    /// later than a deadline (it would miss it).
    #[tokio::test]
    async fn the_watchdog_sleeps_until_the_deadline_it_watches() {
        let settings = ConnectionSettings {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            ..ConnectionSettings::default()
        };
        let shared = Shared::new(&settings);
        let near = |at: Instant, from_now: Duration| {
            let expected = Instant::now() + from_now;
            let gap = if at > expected {
                at - expected
            } else {
                expected - at
            };
            assert!(
                gap < Duration::from_millis(500),
                "{at:?} against {expected:?}"
            );
        };
        near(shared.arm(), Duration::from_secs(10));
        shared.request_started();
        near(shared.arm(), Duration::from_secs(10));
        shared.response_finished();
        near(shared.arm(), Duration::from_secs(60));
        assert_eq!(shared.phase(), Phase::Idle);
        assert!(!shared.timed_out());
    }

    #[test]
    fn a_timeout_is_said_in_whole_seconds_or_else_in_milliseconds() {
        assert_eq!(super::seconds(Duration::from_secs(10)), "10 s");
        assert_eq!(super::seconds(Duration::from_millis(300)), "300 ms");
        assert_eq!(super::seconds(Duration::from_millis(1500)), "1500 ms");
    }
}
