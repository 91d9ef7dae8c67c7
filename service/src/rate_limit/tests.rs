use super::*;

/// A service that admits the key of its `Authorization` header when the
/// header says it authenticated, as the authentication does.
fn authenticating() -> impl Service<
    Request<Body>,
    Response = Response<Body>,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone
+ Send
+ 'static {
    tower::service_fn(|request: Request<Body>| async move {
        let header = request.headers()["authorization"]
            .to_str()
            .unwrap()
            .to_owned();
        let response = match header.strip_prefix("good ") {
            Some(key) => match admit(key).await {
                Ok(()) => Response::new(Body::empty()),
                Err(refused) => {
                    let mut response = Response::new(Body::empty());
                    *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
                    response
                        .headers_mut()
                        .insert("retry-after", HeaderValue::from(refused.retry_after));
                    response
                }
            },
            None => {
                let mut response = Response::new(Body::empty());
                *response.status_mut() = StatusCode::UNAUTHORIZED;
                response
            }
        };
        Ok(response)
    })
}

async fn send(
    service: &mut impl Service<
        Request<Body>,
        Response = Response<Body>,
        Error = std::convert::Infallible,
    >,
    authorization: &str,
) -> Response<Body> {
    let request = Request::builder()
        .header("authorization", authorization)
        .body(Body::empty())
        .unwrap();
    service.call(request).await.unwrap()
}

#[tokio::test]
async fn only_tokens_that_authenticate_are_counted() {
    let limit = RateLimit::new(2);
    let mut service = RateLimitLayer::new(limit.clone()).layer(authenticating());
    for n in 0..100 {
        let response = send(&mut service, &format!("garbage {n}")).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert!(!response.headers().contains_key("x-remaining-calls"));
    }
    assert_eq!(limit.inner.local.keys(), 0, "no window for garbage");
    let first = send(&mut service, "good k").await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(first.headers()["x-remaining-calls"], "1");
    assert_eq!(
        send(&mut service, "good k").await.headers()["x-remaining-calls"],
        "0"
    );
    let refused = send(&mut service, "good k").await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limit.inner.local.keys(), 1);
}

#[tokio::test]
async fn an_unreachable_store_leaves_the_instance_its_own_window() {
    // Nothing listens on port 1.
    let store = StoreChoice::Redis("redis://127.0.0.1:1".to_owned());
    let limit = RateLimit::with_store(2, &store, "unused.db", "t:".to_owned()).unwrap();
    let started = Instant::now();
    assert_eq!(limit.check("k").await, Verdict::Allowed { remaining: 1 });
    assert_eq!(limit.check("k").await, Verdict::Allowed { remaining: 0 });
    assert!(matches!(limit.check("k").await, Verdict::Refused { .. }));
    assert!(
        started.elapsed() < STORE_DEADLINE * 3,
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn stores_are_chosen_by_name_or_url() {
    assert_eq!("memory".parse(), Ok(StoreChoice::Memory));
    assert_eq!("database".parse(), Ok(StoreChoice::Database));
    assert_eq!(
        "redis://127.0.0.1:6379".parse(),
        Ok(StoreChoice::Redis("redis://127.0.0.1:6379".to_owned()))
    );
    assert!("mysql://x".parse::<StoreChoice>().is_err());
    assert_eq!(
        StoreChoice::default_for("postgres://h/db"),
        StoreChoice::Database
    );
    assert_eq!(
        StoreChoice::default_for("./data/staging.db"),
        StoreChoice::Memory
    );
    assert_eq!(whole_seconds(1), 1);
    assert_eq!(whole_seconds(1000), 1);
    assert_eq!(whole_seconds(1001), 2);
}
