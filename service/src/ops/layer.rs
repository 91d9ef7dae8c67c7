//! The operations layer: around every route, the request id settled and the
//! request's log context; around the API's routes also the metrics and the
//! request deadline.
//!
//! One hand-written layer with one future rather than four middlewares:
//! axum boxes the future of every layer a router is given (and
//! `middleware::from_fn` boxes its own again), and each did its own lookups
//! of the request id, the operation and the clock. Here the request id is
//! read once, the operation matched once, the clock read at the start and at
//! the answer, and the deadline's timer made only when the route does not
//! answer at once.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use http::{Request, Response, StatusCode};
use logistics_server_stubs::{ApiError, ErrorBodyFormat, RequestId};
use tokio::time::{Instant, Sleep};
use tower::{Layer, Service};

use super::Operation;
use super::metrics::{InFlight, Metrics, RequestMetrics};
use super::trace::{self, RequestContext};
use crate::http_server::{self, BodyArrival};

/// The operations layer (see the module's documentation).
#[derive(Clone, Default)]
pub struct OperationsLayer {
    /// `None` for the operations endpoints, which are neither counted nor
    /// held to the deadline.
    api: Option<Arc<Api>>,
}

/// What the layer does to the API's requests only.
struct Api {
    metrics: RequestMetrics,
    /// `None`: no deadline.
    deadline: Option<Duration>,
}

impl OperationsLayer {
    /// For the API's routes: counted and timed in `metrics`, and answered
    /// 503 `Timeout` when not answered within `deadline` (`None`: never).
    pub fn api(metrics: &Metrics, deadline: Option<Duration>) -> OperationsLayer {
        OperationsLayer {
            api: Some(Arc::new(Api {
                metrics: metrics.requests(),
                deadline,
            })),
        }
    }

    /// For the operations endpoints: the request id and the log context only.
    pub fn operations_endpoints() -> OperationsLayer {
        OperationsLayer::default()
    }
}

impl<S> Layer<S> for OperationsLayer {
    type Service = Operations<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Operations {
            inner,
            api: self.api.clone(),
        }
    }
}

/// A route with the operations layer around it.
#[derive(Clone)]
pub struct Operations<S> {
    inner: S,
    api: Option<Arc<Api>>,
}

impl<S> Service<Request<Body>> for Operations<S>
where
    S: Service<Request<Body>, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        let started = Instant::now();
        // The id the router will read from the header, and the log lines'.
        let request_id = RequestId::settle(request.headers_mut());
        let operation = Operation::find(&request);
        let context = RequestContext::new(request_id.clone(), operation.id());
        let api = self.api.as_ref().map(|api| ApiRequest {
            in_flight: api.metrics.start(),
            deadline: api.deadline.map(|limit| Deadline {
                limit,
                // Read now: the request is the route's from here on.
                arrival: request.extensions().get::<BodyArrival>().cloned(),
            }),
        });
        // A route's `call` only makes its future: the work, and the log
        // lines that need the context, happen when it is polled.
        ResponseFuture {
            inner: self.inner.call(request),
            timer: None,
            context: Some(context),
            started,
            request_id,
            operation,
            api,
        }
    }
}

/// What is kept of an API request for its answer.
struct ApiRequest {
    in_flight: InFlight,
    deadline: Option<Deadline>,
}

/// The request deadline of one request.
struct Deadline {
    limit: Duration,
    /// Whether the body has all arrived; `None`: the request had no body
    /// still to come (see [`BodyArrival`]).
    arrival: Option<BodyArrival>,
}

pin_project_lite::pin_project! {
    /// The answer of a route with the operations layer around it.
    pub struct ResponseFuture<F> {
        #[pin]
        inner: F,
        // The deadline's timer, made the first time the route is not ready:
        // most answers to a request that needs no database never wait.
        #[pin]
        timer: Option<Sleep>,
        // `None` only while it is entered, in `poll`.
        context: Option<RequestContext>,
        started: Instant,
        request_id: RequestId,
        operation: Operation,
        // `None` for the operations endpoints; taken when answered.
        api: Option<ApiRequest>,
    }
}

impl<F, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let _entered = RequestContext::enter(this.context);
        let response = match this.inner.poll(cx) {
            Poll::Ready(Ok(response)) => response,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            Poll::Pending => {
                let Some(deadline) = this.api.as_ref().and_then(|api| api.deadline.as_ref()) else {
                    return Poll::Pending;
                };
                if this.timer.is_none() {
                    let at = *this.started + deadline.limit;
                    this.timer.set(Some(tokio::time::sleep_until(at)));
                }
                match this.timer.as_pin_mut().map(|timer| timer.poll(cx)) {
                    Some(Poll::Ready(())) => deadline.answer(this.request_id, *this.operation),
                    _ => return Poll::Pending,
                }
            }
        };
        let elapsed = this.started.elapsed();
        let status = response.status().as_u16();
        trace::record_answer(status, elapsed);
        if let Some(api) = this.api.take() {
            api.in_flight.answered(*this.operation, status, elapsed);
        }
        Poll::Ready(Ok(response))
    }
}

impl Deadline {
    /// The answer when the deadline passed: 408 `RequestTimeout` when the
    /// body was still arriving (the client's delay, as past the body
    /// timeout: D28), 503 `Timeout` otherwise.
    fn answer(&self, request_id: &RequestId, operation: Operation) -> Response<Body> {
        if self
            .arrival
            .as_ref()
            .is_some_and(|body| !body.is_complete())
        {
            return http_server::body_timeout_response(request_id, self.limit);
        }
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "Timeout",
            format!(
                "The request was not answered within {} seconds and was abandoned; retry it.",
                self.limit.as_secs_f64()
            ),
        )
        .render_as::<ErrorBodyFormat>(request_id, operation.id())
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::routing::get;
    use http::HeaderMap;
    use tower::ServiceExt as _;

    use super::*;
    use crate::ops::metrics::PoolStatus;

    fn api(route: Router, deadline: Duration) -> Router {
        let metrics = Metrics::new(
            || PoolStatus {
                size: 1,
                idle: 1,
                max: 4,
            },
            "SQLite",
            "memory",
        );
        route.layer(OperationsLayer::api(&metrics, Some(deadline)))
    }

    async fn answer(router: Router, request: Request<Body>) -> (StatusCode, String) {
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    fn never_answered() -> Router {
        Router::new().route(
            "/openapi/v1/SalesOrders/{referenceNumber}",
            get(std::future::pending::<&'static str>),
        )
    }

    fn slow_request() -> Request<Body> {
        Request::get("/openapi/v1/SalesOrders/SO-1")
            .header("x-request-id", "slow-1")
            .body(Body::empty())
            .unwrap()
    }

    #[tokio::test]
    async fn the_route_reads_the_request_id_the_layer_settled() {
        let echo = || {
            Router::new().route(
                "/echo",
                get(|headers: HeaderMap| async move {
                    headers["x-request-id"].to_str().unwrap().to_owned()
                }),
            )
        };
        let routers = [
            api(echo(), Duration::from_secs(5)),
            echo().layer(OperationsLayer::operations_endpoints()),
        ];
        for router in routers {
            for (given, kept) in [
                (Some("given-1"), true),
                (Some("two words"), false),
                (None, false),
            ] {
                let mut request = Request::get("/echo");
                if let Some(given) = given {
                    request = request.header("x-request-id", given);
                }
                let (status, seen) =
                    answer(router.clone(), request.body(Body::empty()).unwrap()).await;
                assert_eq!(status, StatusCode::OK);
                if kept {
                    assert_eq!(Some(seen.as_str()), given);
                } else {
                    assert_eq!(seen.len(), 26, "a new id: {seen}");
                }
            }
        }
    }

    #[tokio::test]
    async fn a_request_not_answered_within_the_deadline_is_answered_503_timeout() {
        let router = api(never_answered(), Duration::from_millis(50));
        let (status, body) = answer(router, slow_request()).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            body.contains("Timeout") && body.contains("0.05 seconds"),
            "{body}"
        );
        assert!(body.contains("slow-1"), "keeps the request id: {body}");
    }

    #[tokio::test]
    async fn a_body_still_arriving_at_the_deadline_is_answered_408() {
        let router = api(never_answered(), Duration::from_millis(50));
        let mut request = slow_request();
        request.extensions_mut().insert(BodyArrival::default());
        let (status, body) = answer(router, request).await;
        assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
        assert!(
            body.contains("RequestTimeout") && body.contains("slow-1"),
            "{body}"
        );
    }
}
