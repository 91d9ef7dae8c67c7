//! A client that stops reading its answer is cut off by the write timeout
//! (issue 44): it no longer holds the connection, and the answer's memory,
//! for as long as it likes.

use std::time::Duration;

use axum::Router;
use axum::routing::get;
use logistics_service::http_server::{self, ConnectionSettings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Far more than the two sockets' buffers hold, so that the server's
/// writes wait for the client.
const ANSWER_BYTES: usize = 64 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_disconnected_after_the_write_timeout() {
    let router = Router::new().route("/large", get(|| async { vec![0u8; ANSWER_BYTES] }));
    let settings = ConnectionSettings {
        write_timeout: Duration::from_secs(1),
        ..ConnectionSettings::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("its address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(http_server::serve(listener, router, settings, 16, async {
        let _ = stopped.await;
    }));

    let mut client = TcpStream::connect(address).await.expect("connects");
    client
        .write_all(b"GET /large HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("the request is sent");
    let mut first = [0u8; 1024];
    let mut read = client.read(&mut first).await.expect("the answer starts");
    assert!(read > 0);
    // The client stops reading for four times the write timeout.
    tokio::time::sleep(Duration::from_secs(4)).await;

    // What the server had written before it gave up, then the end: never
    // the whole answer, and the connection closed.
    let mut buffer = vec![0u8; 1 << 20];
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match client.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read += n,
            }
        }
    })
    .await;

    assert!(
        ended.is_ok(),
        "the connection was not closed ({read} bytes read)"
    );
    assert!(
        read < ANSWER_BYTES,
        "the whole answer was sent: {read} bytes"
    );
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_reads_slowly_but_steadily_gets_the_whole_answer() {
    let router = Router::new().route("/large", get(|| async { vec![7u8; 8 << 20] }));
    let settings = ConnectionSettings {
        write_timeout: Duration::from_secs(1),
        ..ConnectionSettings::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("its address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(http_server::serve(listener, router, settings, 16, async {
        let _ = stopped.await;
    }));

    let mut client = TcpStream::connect(address).await.expect("connects");
    client
        .write_all(b"GET /large HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("the request is sent");
    // 8 MiB read in 256 KiB steps, a tenth of the limit apart: the kernel
    // wakes the server's write only when a good part of its buffer is
    // free, about every half second at this pace, still within the limit.
    let mut received = Vec::new();
    let mut buffer = vec![0u8; 256 << 10];
    let done = tokio::time::timeout(Duration::from_secs(30), async {
        while !received.ends_with(&[7u8; 16]) || received.len() < 8 << 20 {
            let n = client.read(&mut buffer).await.expect("reads");
            assert!(
                n > 0,
                "the connection closed after {} bytes",
                received.len()
            );
            received.extend_from_slice(&buffer[..n]);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(
        done.is_ok(),
        "the answer did not arrive: {} bytes",
        received.len()
    );
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
}
