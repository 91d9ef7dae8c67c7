//! A loopback HTTP/1.1 server for the client's tests of streamed answers:
//! it answers its connections in turn, each with one whole answer written
//! as it goes on the wire, then closes it.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// The heads of the requests a server took, lower-cased, in order.
pub(crate) type Heads = Arc<Mutex<Vec<String>>>;

/// A server answering its connections in turn with `answers`, keeping each
/// request's head; after the last answer it stops listening, so further
/// connections are refused. Its URL, and the heads.
pub(crate) async fn serve(answers: Vec<String>) -> (String, Heads) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let heads = Heads::default();
    let kept = Arc::clone(&heads);
    tokio::spawn(async move {
        for answer in answers {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut head = Vec::new();
            let mut buffer = [0; 1024];
            while !head.ends_with(b"\r\n\r\n") {
                let read = socket.read(&mut buffer).await.unwrap();
                assert!(read > 0, "the request ended before its head did");
                head.extend_from_slice(&buffer[..read]);
            }
            kept.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&head).to_lowercase());
            socket.write_all(answer.as_bytes()).await.unwrap();
            socket.shutdown().await.unwrap();
        }
    });
    (url, heads)
}

/// A 200 answer of `content_type` whose body is `chunks`, each its own
/// chunk; `ended`: with the last chunk that ends the body, else cut.
pub(crate) fn chunked(content_type: &str, chunks: &[&str], ended: bool) -> String {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\n\
         transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    );
    for chunk in chunks {
        out.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
    }
    if ended {
        out.push_str("0\r\n\r\n");
    }
    out
}

/// An answer of `status` with an empty body.
pub(crate) fn status(status: u16) -> String {
    format!("HTTP/1.1 {status} Status\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
}

/// A server that takes every connection and never answers: its URL, and
/// how many connections it took.
pub(crate) async fn silent() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let taken = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&taken);
    tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            open.push(socket);
        }
    });
    (url, taken)
}
