//! The generated client against a loopback server that answers one request.

use std::io::{Read, Write};
use std::net::TcpListener;

#[tokio::test]
async fn the_client_calls_a_loopback_server() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buffer = [0; 1024];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).unwrap();
            assert!(read > 0, "the request ended early");
            request.extend_from_slice(&buffer[..read]);
        }
        let body = r#"{"id": 7, "name": "Rex"}"#;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        String::from_utf8(request).unwrap()
    });
    let client = pets_app::Client::builder()
        .base_url(format!("http://{address}"))
        .build()
        .unwrap();
    let pet = client.get_pet(7).await.unwrap();
    let request = server.join().unwrap();
    assert!(request.starts_with("GET /pets/7 HTTP/1.1\r\n"), "{request}");
    assert_eq!(pet.id, 7);
    assert_eq!(pet.name, "Rex");
}
