//! The HTTP/1.1 serving loop: accepting connections, holding each one to its
//! time limits, and draining on shutdown (decisions D28 and D29).
//!
//! `axum::serve` holds a connection as long as the client keeps it open, and
//! waits for every connection on shutdown. This loop, over hyper's HTTP/1
//! connection, adds:
//!
//! - a **header timeout**: a request's line and headers must arrive within it,
//!   counted from the accept or from the request's first byte; past it the
//!   client gets 408 and the connection is closed;
//! - a **body timeout**: a request's whole body must arrive within it, counted
//!   from the end of its headers; past it, 408 and the connection is closed;
//! - an **idle timeout**: a kept-alive connection waiting for its next request
//!   is closed after it;
//! - a **connection limit**: past it, accepting waits (new connections stay in
//!   the kernel's backlog) and a warning is logged; when the process runs out
//!   of file descriptors, accepting backs off and a warning is logged;
//! - a **drain deadline**: on shutdown, idle connections are closed at once,
//!   busy ones finish their request, and those still open at the deadline are
//!   closed;
//! - the error body for the requests hyper refuses before any of our code
//!   runs (400, 414, 431): hyper's empty answer is replaced, on its way out,
//!   with the API's JSON error body and a request id.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use futures_util::FutureExt as _;
use http::{HeaderValue, Request, Response, StatusCode};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::TokioIo;
use logistics_server_stubs::{ApiError, RequestId};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt as _;

/// The connection settings, each a flag and an environment variable of
/// `serve` (the README lists them with their defaults).
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionSettings {
    /// How long a client may take to send a request's line and headers
    /// (from the accept, or from the request's first byte); then 408 and the
    /// connection is closed. `10s`, `500ms` or a number of seconds.
    #[arg(long, env = "LOGISTICS_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// How long a client may take to send a request's whole body (from the
    /// end of its headers); then 408 and the connection is closed.
    #[arg(long, env = "LOGISTICS_BODY_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// How long a kept-alive connection may wait for its next request.
    #[arg(long, env = "LOGISTICS_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// On SIGTERM or SIGINT: how long requests in flight may take to finish;
    /// connections still open then are closed.
    #[arg(long, env = "LOGISTICS_DRAIN_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub drain_timeout: Duration,

    /// The most client connections open at once; past it, new connections
    /// wait to be accepted [default: the file-descriptor limit less 64 and
    /// the database connections, at most 10000].
    #[arg(long, env = "LOGISTICS_CONNECTION_LIMIT", value_parser = clap::value_parser!(u32).range(1..))]
    pub connection_limit: Option<u32>,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        ConnectionSettings {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            drain_timeout: Duration::from_secs(30),
            connection_limit: None,
        }
    }
}

/// `10s`, `250ms` or `10` (seconds), at least one millisecond.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 0.001)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        (text, 1.0)
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (examples: 10s, 500ms, 10)"))?;
    let seconds = value * unit;
    if !(0.001..=86_400.0 * 365.0).contains(&seconds) {
        return Err(format!(
            "`{text}` is out of range: at least 1ms, at most a year"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Descriptors kept free for what is not a client connection: the database
/// pool (added separately), the listener, logs, files.
const RESERVED_DESCRIPTORS: u64 = 64;

/// The connection limit when none is given: the process's soft limit on open
/// files less [`RESERVED_DESCRIPTORS`] and `database_connections`, between 16
/// and 10,000; 10,000 when the limit cannot be read.
pub fn default_connection_limit(database_connections: u32) -> usize {
    const MAX: u64 = 10_000;
    let limit = open_file_limit().map_or(MAX, |files| {
        files
            .saturating_sub(RESERVED_DESCRIPTORS + u64::from(database_connections))
            .clamp(16, MAX)
    });
    usize::try_from(limit).unwrap_or(16)
}

/// The soft limit on open files, from `/proc/self/limits` (Linux).
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Serves `app` on `listener` until `shutdown` completes, then drains: see
/// the module's documentation. `connection_limit` is the resolved limit.
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

/// Where a connection is between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's line and headers (the header timeout runs).
    Head = 0,
    /// A request is being served (the body timeout runs in its body).
    Busy = 1,
    /// Kept alive after a response, waiting for the next request (the idle
    /// timeout runs).
    Idle = 2,
}

/// What a connection's task, its IO and its requests share.
struct Shared {
    phase: AtomicU8,
    /// Milliseconds from `epoch` to the phase's start.
    since: AtomicU64,
    epoch: Instant,
    in_flight: AtomicUsize,
    /// Requests started on the connection.
    requests: AtomicU64,
    changed: Notify,
    /// The request id of an error body put in place of hyper's.
    replaced: Mutex<Option<(StatusCode, RequestId)>>,
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

    fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Head,
            1 => Phase::Busy,
            _ => Phase::Idle,
        }
    }

    fn enter(&self, phase: Phase) {
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

    fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.requests.fetch_add(1, Ordering::AcqRel);
        self.enter(Phase::Busy);
    }

    fn response_finished(&self) {
        if self.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.enter(Phase::Idle);
        }
    }
}

async fn serve_connection(
    stream: TcpStream,
    app: Router,
    settings: Arc<ConnectionSettings>,
    _permit: OwnedSemaphorePermit,
    mut drain: watch::Receiver<bool>,
) {
    let shared = Arc::new(Shared::new());
    let io = Io {
        stream,
        shared: Arc::clone(&shared),
        replacement: None,
    };
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
async fn request_timeout_on(mut io: Io, settings: &ConnectionSettings) {
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
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        io.stream.write_all(&bytes).await?;
        io.stream.shutdown().await
    })
    .await;
}

fn seconds(duration: Duration) -> String {
    let s = duration.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s} s")
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// One request: served by `app`, its body held to the body timeout.
async fn handle(
    request: Request<Incoming>,
    app: Router,
    shared: Arc<Shared>,
    body_timeout: Duration,
) -> Result<Response<Tracked>, Infallible> {
    shared.request_started();
    let guard = InFlight(Arc::clone(&shared));
    let timed_out = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| {
        if hyper::body::Body::is_end_stream(&body) {
            Body::new(body)
        } else {
            Body::new(TimedBody {
                inner: body,
                deadline: Box::pin(tokio::time::sleep(body_timeout)),
                timed_out: Arc::clone(&timed_out),
            })
        }
    });
    let response = match app.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let response = if timed_out.load(Ordering::Acquire) {
        body_timeout_response(&response, body_timeout)
    } else {
        response
    };
    Ok(response.map(|body| Tracked {
        inner: body,
        _guard: guard,
    }))
}

/// The 408 that replaces the answer to a request whose body came too slowly
/// (the router saw a body that could not be read), with its request id.
fn body_timeout_response(answered: &Response<Body>, body_timeout: Duration) -> Response<Body> {
    let request_id = answered
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .and_then(RequestId::parse)
        .unwrap_or_else(RequestId::generate);
    let mut response = ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "RequestTimeout",
        format!(
            "The request body did not arrive within {}.",
            seconds(body_timeout)
        ),
    )
    .at("body")
    .render(&request_id, None);
    response
        .headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Counts a response as in flight until hyper has written (and dropped) it.
struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.response_finished();
    }
}

/// A response body that keeps its request counted as in flight.
struct Tracked {
    inner: Body,
    _guard: InFlight,
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A request body that fails once its deadline passes.
struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
    timed_out: Arc<AtomicBool>,
}

/// The error of a request body that did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
struct BodyTimeout;

impl hyper::body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        ready!(self.deadline.as_mut().poll(cx));
        self.timed_out.store(true, Ordering::Release);
        Poll::Ready(Some(Err(Box::new(BodyTimeout))))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The client's stream, as hyper reads and writes it: reads mark the start
/// of a request's head; hyper's empty answers to requests it cannot read are
/// replaced with the API's error body.
struct Io {
    stream: TcpStream,
    shared: Arc<Shared>,
    /// The error body being written in place of hyper's answer, and how much
    /// of it is written.
    replacement: Option<(Bytes, usize)>,
}

impl Io {
    /// Writes what is left of the replacement; ready when it is all written.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.replacement {
            if *written >= bytes.len() {
                self.replacement = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Takes hyper's answer `buf` in place of writing it, when it is one of
    /// its empty answers to an unreadable request; writes the error body
    /// instead.
    fn replaces(&mut self, buf: &[u8]) -> bool {
        let Some(status) = hyper_refusal(buf) else {
            return false;
        };
        let (code, message) = match status {
            StatusCode::URI_TOO_LONG => (
                "UriTooLong",
                "The request's URI is too long: at most 65,534 bytes.",
            ),
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => (
                "HeadersTooLarge",
                "The request's headers are too large, or more than 100.",
            ),
            _ => (
                "MalformedRequest",
                "The request is not valid HTTP/1.1: its request line or a header cannot be read.",
            ),
        };
        let request_id = RequestId::generate();
        let bytes = encode(ApiError::new(status, code, message), &request_id);
        if let Ok(mut replaced) = self.shared.replaced.lock() {
            *replaced = Some((status, request_id));
        }
        self.replacement = Some((bytes, 0));
        true
    }
}

/// The status of `buf` when it is hyper's answer to a request it could not
/// parse: a whole response head of status 400, 414 or 431 with
/// `content-length: 0` and no `content-type` (every answer of the API has a
/// `content-type`).
fn hyper_refusal(buf: &[u8]) -> Option<StatusCode> {
    let status = match buf.get(..13)? {
        b"HTTP/1.1 400 " => StatusCode::BAD_REQUEST,
        b"HTTP/1.1 414 " => StatusCode::URI_TOO_LONG,
        b"HTTP/1.1 431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    if !buf.ends_with(b"\r\n\r\n") || buf.len() > 512 {
        return None;
    }
    let head = std::str::from_utf8(buf).ok()?.to_ascii_lowercase();
    (head.contains("\r\ncontent-length: 0\r\n") && !head.contains("\r\ncontent-type:"))
        .then_some(status)
}

/// An error as a whole HTTP/1.1 response that closes the connection.
fn encode(error: ApiError, request_id: &RequestId) -> Bytes {
    let response = error.render(request_id, None);
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .now_or_never()
        .and_then(Result::ok)
        .unwrap_or_default();
    let mut out = Vec::with_capacity(256 + body.len());
    out.extend_from_slice(
        format!(
            "HTTP/1.1 {} {}\r\n",
            parts.status.as_u16(),
            parts.status.canonical_reason().unwrap_or("")
        )
        .as_bytes(),
    );
    for (name, value) in &parts.headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&body);
    Bytes::from(out)
}

impl AsyncRead for Io {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.stream).poll_read(cx, buf))?;
        if buf.filled().len() > before && self.shared.phase() == Phase::Idle {
            // The next request's first bytes: its header timeout starts.
            self.shared.enter(Phase::Head);
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_replacement(cx))?;
        if self.replaces(buf) {
            // Taken: written as the replacement, by this call or by flush.
            let _ = self.poll_replacement(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_replacement(cx))?;
        let mut non_empty = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (non_empty.next(), non_empty.next()) {
            if self.replaces(only) {
                let _ = self.poll_replacement(cx)?;
                return Poll::Ready(Ok(only.len()));
            }
        }
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_replacement(cx))?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_replacement(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_seconds_or_milliseconds() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("ten").is_err());
    }

    #[test]
    fn only_hyper_refusals_are_replaced() {
        let hyper = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 12:00:00 GMT\r\n\r\n";
        assert_eq!(hyper_refusal(hyper), Some(StatusCode::BAD_REQUEST));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(hyper_refusal(ours), None);
        let with_body =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n{}";
        assert_eq!(hyper_refusal(with_body), None);
    }
}
