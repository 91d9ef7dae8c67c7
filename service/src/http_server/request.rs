//! One request on a connection: its body held to the body timeout (a 408 in
//! place of the router's answer when it ran out), whether all of it has
//! arrived told to the request deadline ([`BodyArrival`]), and its response
//! counted as in flight until hyper has written it (decision D28).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode};
use hyper::body::{Frame, Incoming, SizeHint};
use logistics_server_stubs::{ApiError, ErrorBodyFormat, RequestId};
use tokio::time::Sleep;
use tower::ServiceExt as _;

use super::connection::{Shared, seconds};

/// One request: served by `app`, its body held to the body timeout.
pub(super) async fn handle(
    request: Request<Incoming>,
    app: Router,
    shared: Arc<Shared>,
    body_timeout: Duration,
) -> Result<Response<Tracked>, Infallible> {
    shared.request_started();
    let guard = InFlight(Arc::clone(&shared));
    let timed_out = Arc::new(AtomicBool::new(false));
    let request = if hyper::body::Body::is_end_stream(request.body()) {
        request.map(Body::new)
    } else {
        let arrival = BodyArrival::default();
        let mut request = request.map(|body| {
            Body::new(TimedBody {
                inner: body,
                deadline: Box::pin(tokio::time::sleep(body_timeout)),
                timed_out: Arc::clone(&timed_out),
                arrival: arrival.clone(),
            })
        });
        request.extensions_mut().insert(arrival);
        request
    };
    let response = match app.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let response = if timed_out.load(Ordering::Acquire) {
        replace_with_body_timeout(&response, body_timeout)
    } else {
        response
    };
    Ok(response.map(|body| Tracked {
        inner: body,
        _guard: guard,
    }))
}

/// Whether all of a request's body has arrived, for the request deadline: a
/// request still waiting for its body when the deadline passes is the
/// client's delay, answered 408 like a body that outlives the body timeout,
/// not the service's 503 (D28). A request without it (no body, or served
/// without this HTTP server) has all of its body.
#[derive(Debug, Clone, Default)]
pub struct BodyArrival(Arc<AtomicBool>);

impl BodyArrival {
    /// Whether the body's last byte has arrived.
    pub fn is_complete(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    fn complete(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// The 408 of a request whose body did not arrive within `limit`, with its
/// request id; the connection closes, since the rest of the body is unread.
pub fn body_timeout_response(request_id: &RequestId, limit: Duration) -> Response<Body> {
    let mut response = ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "RequestTimeout",
        format!("The request body did not arrive within {}.", seconds(limit)),
    )
    .at("body")
    .render_as::<ErrorBodyFormat>(request_id, None);
    response
        .headers_mut()
        .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The 408 that replaces the answer to a request whose body came too slowly
/// (the router saw a body that could not be read), with its request id.
fn replace_with_body_timeout(answered: &Response<Body>, body_timeout: Duration) -> Response<Body> {
    let request_id = answered
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .and_then(RequestId::parse)
        .unwrap_or_else(RequestId::generate);
    body_timeout_response(&request_id, body_timeout)
}

/// Counts a response as in flight until hyper has written (and dropped) it.
struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.response_finished();
    }
}

/// A response body that keeps its request counted as in flight.
pub(super) struct Tracked {
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
    arrival: BodyArrival,
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
            if frame.is_none() || self.inner.is_end_stream() {
                self.arrival.complete();
            }
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
