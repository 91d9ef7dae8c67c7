//! Limits and the protocol around the operations (D19, D20, D22, D23): body
//! size, batch size, rate limit, content types, unknown routes and methods,
//! negotiation, request ids.

use logistics_client::reqwest::{Method, StatusCode};

use crate::harness::*;

on_both_backends! {
    async fn a_body_over_16_mib_is_413_and_1000_items_is_the_batch_limit(service) {
        let a = service.tenant("A").await;
        // 16 MiB + 1 declared: refused from the headers, before any of the body
        // is sent (`Expect: 100-continue`), so the answer cannot race the upload.
        let limit = 16 * 1024 * 1024;
        let (status, body) = raw_exchange(
            service.address,
            &format!(
                "POST /openapi/v1/ReceivingOrders/BulkUpsert HTTP/1.1\r\nHost: localhost\r\n\
                 Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nExpect: 100-continue\r\n\r\n",
                a.token,
                limit + 1
            ),
        )
        .await;
        assert_eq!(status, 413, "{body}");
        assert!(body.contains("PayloadTooLarge"), "{body}");
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 0);

        let items = |n: usize| batch((0..n).map(|i| order(Some(&format!("RO-{i:04}")), vec![line("SKU", 1)])).collect());
        let error = refused(a.client.bulk_upsert_receiving_orders(&items(1001)).await);
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(problems(&error).iter().any(|(_, c)| c == "MaximumBatchSizeExceeded"), "{error}");
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 0);
        let result = a.client.bulk_upsert_receiving_orders(&items(1000)).await.unwrap();
        assert_eq!(result.update_failures, Some(vec![]));
        assert_eq!(service.count_rows("receiving_orders", a.id).await, 1000);
    }

    async fn content_types_are_the_decided_ones_or_415(service) {
        let a = service.tenant("A").await;
        let send = |path: &'static str, content_type: Option<&'static str>, body: String| {
            let request = service.raw(Method::POST, path).bearer_auth(&a.token).body(body);
            let request = match content_type {
                Some(value) => request.header("content-type", value),
                None => request,
            };
            async move { request.send().await.unwrap() }
        };
        let customer_body = |n: usize| format!(r#"{{"email":"c{n}@example.com","firstName":"A","lastName":"B","phone":"1"}}"#);
        for (n, (content_type, accepted)) in [
            (Some("application/json"), true),
            (Some("application/json; charset=utf-8"), true),
            (Some("application/json-patch+json"), true),
            (Some("text/json"), false),
            (Some("text/plain"), false),
            (Some("application/xml"), false),
            (None, false),
        ]
        .into_iter()
        .enumerate()
        {
            // A new email each time, so an accepted body is never a 409.
            let response = send("/openapi/v1/Customers", content_type, customer_body(n)).await;
            if accepted {
                assert_eq!(response.status(), StatusCode::CREATED, "{content_type:?}");
            } else {
                let (status, body) = json_of(response).await;
                assert_eq!(status, 415, "{content_type:?}: {body}");
                assert!(body.to_string().contains("InvalidContentType"), "{body}");
            }
        }
        let order_body = r#"[{"referenceNumber":"RO-CT","receiveType":"Standard","transferType":"CargoTransfer","lineItems":[{"sku":"S","expectedQuantity":1,"hasLimitCheck":false,"tolerance":0}]}]"#;
        for (content_type, accepted) in [
            (Some("application/json"), true),
            (Some("text/json"), true),
            (Some("application/json-patch+json"), true),
            (Some("application/vnd.acme+json; charset=utf-8"), true),
            (Some("text/plain"), false),
            (None, false),
        ] {
            let response = send("/openapi/v1/ReceivingOrders/BulkUpsert", content_type, order_body.to_owned()).await;
            let expected = if accepted { StatusCode::OK } else { StatusCode::UNSUPPORTED_MEDIA_TYPE };
            assert_eq!(response.status(), expected, "{content_type:?}");
        }
    }

    async fn the_rate_limit_counts_each_token_in_every_spelling(service) {
        let mut limited = service.restart_with(Options { rate_limit: 3, ..Options::default() }).await;
        let a = limited.tenant("A").await;
        let b = limited.tenant("B").await;
        a.client.create_customer(&customer("a@example.com")).await.unwrap();
        let get = |authorization: String| {
            let request = limited.raw(Method::GET, "/openapi/v1/Customers/1").header("authorization", authorization);
            async move { request.send().await.unwrap() }
        };
        // Requests without a credential are refused, not counted.
        for _ in 0..3 {
            let response = limited.raw(Method::GET, "/openapi/v1/Customers/1").send().await.unwrap();
            assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        }
        let second = get(format!("bearer  {}", a.token)).await;
        assert_eq!(second.status(), StatusCode::OK);
        assert_eq!(second.headers()["x-remaining-calls"], "1");
        let third = get(a.token.clone()).await;
        assert_eq!(third.status(), StatusCode::OK);
        assert_eq!(third.headers()["x-remaining-calls"], "0");
        // The window is full, whatever the header's spelling.
        for spelling in [format!("Bearer {}", a.token), format!("BEARER {} ", a.token), a.token.clone()] {
            let response = get(spelling.clone()).await;
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS, "{spelling:?}");
            let headers = response.headers().clone();
            let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
            assert!((1..=60).contains(&retry), "{retry}");
            assert_eq!(headers["x-retry-after"], headers["retry-after"]);
            assert_eq!(headers["x-remaining-calls"], "0");
            let (_, body) = json_of(response).await;
            assert!(body.to_string().contains("TooManyRequests"), "{body}");
            assert_eq!(body["error"]["code"], 429);
        }
        let error = refused(a.client.get_customer(1).await);
        assert_eq!(error.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(error.retry_after().is_some_and(|wait| wait.as_secs() >= 1));
        // Another token has a window of its own.
        assert_eq!(refused(b.client.get_customer(1).await).status(), StatusCode::NOT_FOUND);
        limited.stop().await;
    }

    async fn in_flight_requests_finish_when_the_service_stops(service) {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let mut instance = service.restart_with(Options::default()).await;
        let a = instance.tenant("A").await;
        let orders = batch((0..200).map(|i| order(Some(&format!("RO-{i:04}")), vec![line("SKU", 1)])).collect());
        let body = serde_json::to_vec(&orders).unwrap();
        // The request is in flight once the service asks for its body
        // (`100 Continue`): stop the service then, and only then send the body.
        let mut stream = tokio::net::TcpStream::connect(instance.address).await.unwrap();
        let head = format!(
            "POST /openapi/v1/ReceivingOrders/BulkUpsert HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
            a.token,
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let mut buffer = [0u8; 4096];
        while !String::from_utf8_lossy(&answer).contains("\r\n\r\n") {
            let n = stream.read(&mut buffer).await.unwrap();
            assert!(n > 0, "the service closed the connection");
            answer.extend_from_slice(&buffer[..n]);
        }
        assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 100"), "{}", String::from_utf8_lossy(&answer));
        let finish = async {
            stream.write_all(&body).await.unwrap();
            let mut rest = Vec::new();
            stream.read_to_end(&mut rest).await.unwrap();
            String::from_utf8_lossy(&rest).into_owned()
        };
        let ((), answer) = tokio::join!(instance.stop(), finish);
        assert!(answer.starts_with("HTTP/1.1 200"), "the in-flight upsert is answered: {answer}");
        assert!(answer.contains(r#""updateFailures":[]"#), "{answer}");
        assert_eq!(instance.count_rows("receiving_orders", a.id).await, 200, "and committed whole");
        // Nothing is served any more.
        assert!(a.client.get_customer(1).await.is_err());
    }

    async fn unknown_routes_methods_and_media_types(service) {
        let a = service.tenant("A").await;
        let (status, body) = json_of(service.raw(Method::GET, "/openapi/v1/Products").bearer_auth(&a.token).send().await.unwrap()).await;
        assert_eq!(status, 404);
        assert!(body.to_string().contains("RouteNotFound"), "{body}");

        let response = service.raw(Method::DELETE, "/openapi/v1/Customers/1").bearer_auth(&a.token).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        let allow = response.headers()["allow"].to_str().unwrap().to_owned();
        assert!(allow.split(", ").any(|m| m == "GET") && !allow.contains("DELETE"), "{allow}");
        let (_, body) = json_of(response).await;
        assert!(body.to_string().contains("MethodNotAllowed"), "{body}");

        let (status, body) = json_of(service.raw(Method::GET, "/openapi/v1/Returns").bearer_auth(&a.token).header("accept", "application/xml").send().await.unwrap()).await;
        assert_eq!(status, 406);
        assert!(body.to_string().contains("NotAcceptable"), "{body}");
        for accept in ["text/plain", "text/json", "application/json", "*/*"] {
            let response = service.raw(Method::GET, "/openapi/v1/Returns").bearer_auth(&a.token).header("accept", accept).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{accept}");
            let served = response.headers()["content-type"].to_str().unwrap().to_owned();
            let expected = if accept.contains('*') { "application/json" } else { accept };
            assert!(served.starts_with(expected), "{accept} → {served}");
            let (_, body) = json_of(response).await;
            assert_eq!(body["dataSetCount"], 0);
        }

        // A sane request id is taken; every answer carries one, errors in the body too.
        let response = service.raw(Method::GET, "/openapi/v1/Customers/7").bearer_auth(&a.token).header("x-request-id", "test-42").send().await.unwrap();
        assert_eq!(response.headers()["x-request-id"], "test-42");
        let (status, body) = json_of(response).await;
        assert_eq!((status, body["requestId"].as_str()), (404, Some("test-42")));
        assert_eq!(body["error"]["code"], 404);
        for insane in ["x".repeat(129), "has space".to_owned()] {
            let response = service.raw(Method::GET, "/openapi/v1/Returns").bearer_auth(&a.token).header("x-request-id", insane.as_str()).send().await.unwrap();
            let given = response.headers()["x-request-id"].to_str().unwrap().to_owned();
            assert!(!given.is_empty() && given != insane, "{given}");
        }
    }
}

/// A distinct number per content type, for distinct emails.
/// Sends `head` (a request without a body) over a new connection and reads
/// one answer: its status and body.
async fn raw_exchange(address: std::net::SocketAddr, head: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let read = async {
        loop {
            let n = stream.read(&mut buffer).await.unwrap();
            answer.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&answer).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap())
                    })
                    .unwrap_or(0);
                if answer.len() >= end + 4 + length || n == 0 {
                    let status = text[9..12].parse().unwrap();
                    break (status, text[end + 4..].to_owned());
                }
            }
            assert!(n > 0, "the connection closed before an answer: {text}");
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .expect("an answer within 10 s")
}
