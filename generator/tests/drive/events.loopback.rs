//! Server-sent events: the generated client reads a `text/event-stream`
//! answer event by event (`…_events`), from the generated server stubs
//! (whose implementation writes the stream as text) and from a hand-written
//! server that streams chunk by chunk, stalls, refuses the request, or cuts
//! a feed off, which the client resumes with `Last-Event-ID`.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fixture_events_client::futures_util::{StreamExt, TryStreamExt, stream};
use fixture_events_client::models::serde_json;
use fixture_events_client::models::{Chunk, Completion, Prompt};
use fixture_events_client::{Client, Error, FollowFeedParams};
use fixture_events_server::axum;
use fixture_events_server::responses::{
    CreateCompletionResponse, FollowFeedResponse, GetTicksResponse, TailLogResponse,
};
use fixture_events_server::{
    ApiError, CreateCompletionRequest, FollowFeedRequest, GetTicksRequest, RequestContext,
    StreamApi, TailLogRequest, router,
};

/// Writes each answer as the document says: the completion as JSON, the
/// ticks and the log as the text of their event streams.
struct Writer;

impl StreamApi for Writer {
    async fn create_completion(
        &self,
        _: RequestContext,
        request: CreateCompletionRequest,
    ) -> Result<CreateCompletionResponse, ApiError> {
        let body = Completion::new(format!("echo: {}", request.body.text));
        Ok(CreateCompletionResponse::Ok { body })
    }

    async fn get_ticks(
        &self,
        _: RequestContext,
        request: GetTicksRequest,
    ) -> Result<GetTicksResponse, ApiError> {
        let body = (1..=request.count)
            .map(|n| format!("event: tick\nid: {n}\ndata: {{\"n\": {n}}}\n\n"))
            .collect();
        Ok(GetTicksResponse::Ok { body })
    }

    async fn follow_feed(
        &self,
        _: RequestContext,
        request: FollowFeedRequest,
    ) -> Result<FollowFeedResponse, ApiError> {
        let after: i64 = request.last_event_id.map_or(0, |id| id.parse().unwrap());
        let body = (after + 1..=after + 2)
            .map(|n| format!("id: {n}\ndata: {{\"n\": {n}}}\n\n"))
            .chain(["data: [DONE]\n\n".to_owned()])
            .collect();
        Ok(FollowFeedResponse::Ok { body })
    }

    async fn tail_log(
        &self,
        _: RequestContext,
        _: TailLogRequest,
    ) -> Result<TailLogResponse, ApiError> {
        let body = ": connected\n\ndata: first line\n\ndata: second\ndata: line\n\n".to_owned();
        Ok(TailLogResponse::Ok { body })
    }
}

async fn listen(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

fn client(addr: SocketAddr, timeout: Duration) -> Client {
    Client::builder()
        .base_url(format!("http://{addr}"))
        .timeout(timeout)
        .build()
        .unwrap()
}

#[tokio::test]
async fn events_of_the_generated_server_are_read_one_by_one() {
    let addr = listen(router(Writer)).await;
    let client = client(addr, Duration::from_secs(10));
    let ticks = client.get_ticks_events(3).await.unwrap();
    assert_eq!(ticks.status().as_u16(), 200);
    let ticks: Vec<_> = ticks.try_collect().await.unwrap();
    let read: Vec<(Option<&str>, Option<&str>, i64)> = ticks
        .iter()
        .map(|t| (t.event.as_deref(), t.id.as_deref(), t.data.n))
        .collect();
    assert_eq!(
        read,
        [
            (Some("tick"), Some("1"), 1),
            (Some("tick"), Some("2"), 2),
            (Some("tick"), Some("3"), 3)
        ]
    );
    // Without a schema, each event's data is its text, lines joined.
    let lines: Vec<String> = client
        .tail_log_events()
        .await
        .unwrap()
        .map_ok(|event| event.data)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(lines, ["first line", "second\nline"]);
    // The plain method still answers with the stream's whole text.
    let whole = client.get_ticks(1).await.unwrap();
    assert_eq!(whole, "event: tick\nid: 1\ndata: {\"n\": 1}\n\n");
    // JSON beside the stream: the plain method asks for JSON.
    let completion = client.create_completion(&Prompt::new("hi")).await.unwrap();
    assert_eq!(completion, Completion::new("echo: hi"));
    // The caller's `Last-Event-ID` goes with the first request.
    let posts: Vec<i64> = client
        .follow_feed_events(FollowFeedParams::default().last_event_id("5"))
        .await
        .unwrap()
        .map_ok(|event| event.data.n)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(posts, [6, 7]);
    // A refused request is the error it is, before any event.
    let Err(Error::Api(refused)) = client.get_ticks_events(0).await else {
        panic!("a count of 0 is not refused");
    };
    assert_eq!(refused.status().as_u16(), 400);
}

/// A server streaming as OpenAI's does: chunks that split events and
/// lines, a `[DONE]` that ends the stream, a stall, a refusal.
fn streaming_server() -> axum::Router {
    use axum::body::Body;
    use axum::http::{Response, StatusCode};
    use axum::routing::post;

    async fn chat(body: String) -> Response<Body> {
        let prompt: serde_json::Value = serde_json::from_str(&body).unwrap();
        let (status, chunks): (StatusCode, Vec<&'static str>) = match prompt["text"].as_str() {
            Some("refuse") => (
                StatusCode::BAD_REQUEST,
                vec![r#"{"type": "about:blank", "title": "Bad Request", "detail": "no"}"#],
            ),
            Some("stall") => (StatusCode::OK, vec!["data: {\"delta\": \"a\"}\n\n"]),
            Some("broken") => (
                StatusCode::OK,
                vec!["data: {\"delta\": 1}\n\n", "data: {\"delta\": \"ok\"}\n\n"],
            ),
            _ => (
                StatusCode::OK,
                vec![
                    "data: {\"del",
                    "ta\": \"Hel\"}\r\n\r\n: keep-alive\r\n\r\nda",
                    "ta: {\"delta\": \"lo\"}\n\n",
                    "data: [DONE]\n\n",
                    "data: {\"delta\": \"after the end\"}\n\n",
                ],
            ),
        };
        let stall = prompt["text"] == "stall";
        let chunks = stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
        let body = if stall {
            Body::from_stream(chunks.chain(stream::pending()))
        } else {
            Body::from_stream(chunks)
        };
        let media_type = if status.is_success() {
            "text/event-stream"
        } else {
            "application/problem+json"
        };
        Response::builder()
            .status(status)
            .header("content-type", media_type)
            .body(body)
            .unwrap()
    }

    axum::Router::new().route("/chat", post(chat))
}

#[tokio::test]
async fn a_stream_is_read_across_chunks_until_done() {
    let addr = listen(streaming_server()).await;
    let client = client(addr, Duration::from_secs(10));
    let prompt = Prompt::new("hello").with_stream(true);
    let chunks: Vec<Chunk> = client
        .create_completion_events(&prompt)
        .await
        .unwrap()
        .map_ok(|event| event.data)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(chunks, [Chunk::new("Hel"), Chunk::new("lo")]);

    // Data that does not decode is an error in its place; the stream goes on.
    let items: Vec<Result<_, Error>> = client
        .create_completion_events(&Prompt::new("broken"))
        .await
        .unwrap()
        .collect()
        .await;
    assert!(
        matches!(items[0], Err(Error::Decode { .. })),
        "{:?}",
        items[0]
    );
    assert_eq!(items[1].as_ref().unwrap().data, Chunk::new("ok"));

    let Err(Error::Api(refused)) = client
        .create_completion_events(&Prompt::new("refuse"))
        .await
    else {
        panic!("not refused");
    };
    assert_eq!(refused.message(), Some("no"));
}

#[tokio::test]
async fn a_stream_that_stalls_past_the_time_out_ends_with_an_error() {
    let addr = listen(streaming_server()).await;
    let client = client(addr, Duration::from_millis(300));
    let mut events = client
        .create_completion_events(&Prompt::new("stall"))
        .await
        .unwrap();
    assert_eq!(events.next().await.unwrap().unwrap().data, Chunk::new("a"));
    let stalled = events.next().await.unwrap().unwrap_err();
    assert!(matches!(stalled, Error::Stalled { .. }), "{stalled:?}");
    assert!(stalled.is_timeout());
    assert!(
        events.next().await.is_none(),
        "the stream ends after the stall"
    );
}

/// A feed as a server that is restarted mid-stream sends it: the first
/// request's answer is cut off in the middle of its third post; asked
/// again after the second, it gives the third and ends without `[DONE]`;
/// asked after the third, it says with 204 that nothing more will come.
/// `seen` keeps each request's `Last-Event-ID`.
fn feed_server(seen: Arc<Mutex<Vec<Option<String>>>>) -> axum::Router {
    use axum::body::Body;
    use axum::http::{HeaderMap, Response, StatusCode};
    use axum::routing::get;

    let feed = move |headers: HeaderMap| async move {
        let last = headers
            .get("last-event-id")
            .map(|id| id.to_str().unwrap().to_owned());
        seen.lock().unwrap().push(last.clone());
        let chunks = match last.as_deref() {
            None => vec![
                "retry: 10\nid: 1\ndata: {\"n\": 1}\n\n",
                "id: 2\ndata: {\"n\": 2}\n\nid: 3\ndata: {\"n\"",
            ],
            Some("2") => vec!["id: 3\ndata: {\"n\": 3}\n\n"],
            _ => {
                return Response::builder()
                    .status(StatusCode::NO_CONTENT)
                    .body(Body::empty())
                    .unwrap();
            }
        };
        let cut = last.is_none();
        let chunks = stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
        // A body that fails is a connection cut (no last chunk), once what
        // came before it has been written.
        let cut_off = stream::once(async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Err(std::io::Error::other("the server restarts"))
        });
        let body = if cut {
            Body::from_stream(chunks.chain(cut_off))
        } else {
            Body::from_stream(chunks)
        };
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(body)
            .unwrap()
    };
    axum::Router::new().route("/feed", get(feed))
}

#[tokio::test]
async fn a_feed_cut_off_is_resumed_after_the_last_event_it_gave() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let addr = listen(feed_server(Arc::clone(&seen))).await;
    let client = client(addr, Duration::from_secs(10));
    let posts: Vec<(Option<String>, i64)> = client
        .follow_feed_events(Default::default())
        .await
        .unwrap()
        .map_ok(|event| (event.id, event.data.n))
        .try_collect()
        .await
        .unwrap();
    let id = |n: &str| Some(n.to_owned());
    assert_eq!(posts, [(id("1"), 1), (id("2"), 2), (id("3"), 3)]);
    // Cut off after the second post, resumed after it; ended cleanly after
    // the third, asked after it, and told that the feed is over.
    assert_eq!(*seen.lock().unwrap(), [None, id("2"), id("3")]);
}
