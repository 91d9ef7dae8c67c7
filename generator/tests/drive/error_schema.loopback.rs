//! A document whose settings name an error schema: the generated server
//! writes every error, its own 400 and the implementation's 404, in that
//! schema's shape (an envelope with the problems in a nested object) and
//! media type, and the generated client decodes it as the schema's type.

use std::net::SocketAddr;

use fixture_error_schema_client::models::Widget;
use fixture_error_schema_client::models::serde_json::{self, Value};
use fixture_error_schema_client::{Client, Error};
use fixture_error_schema_server::{
    ApiError, Credentials, GetWidgetRequest, GetWidgetResponse, RequestContext,
    RetireWidgetRequest, RetireWidgetResponse, WidgetsApi, router,
};

/// Knows the widget 7.
struct Shelf;

impl WidgetsApi for Shelf {
    type Principal = String;

    /// The key as it came, prefix and all.
    async fn authenticate(&self, credentials: Credentials<'_>) -> Result<String, ApiError> {
        match credentials.presented.first().map(|c| c.value) {
            Some("Bearer secret") => Ok("keeper".to_owned()),
            _ => Err(ApiError::unauthorized("InvalidCredential", "Unknown key.")),
        }
    }

    async fn retire_widget(
        &self,
        context: RequestContext<String>,
        request: RetireWidgetRequest,
    ) -> Result<RetireWidgetResponse, ApiError> {
        assert_eq!((context.principal.as_str(), request.id), ("keeper", 7));
        Ok(RetireWidgetResponse::NoContent)
    }

    async fn get_widget(
        &self,
        _: RequestContext,
        request: GetWidgetRequest,
    ) -> Result<GetWidgetResponse, ApiError> {
        if request.id == 7 {
            return Ok(GetWidgetResponse::Ok {
                body: Widget::new(7),
            });
        }
        Err(ApiError::not_found(
            "WidgetNotFound",
            format!("No widget has the id {}.", request.id),
        ))
    }
}

/// The settings' `bearer-api-keys`: the client sends the key after
/// `Bearer `, which the server hands over as it came.
#[tokio::test]
async fn the_client_sends_the_api_key_after_bearer() {
    let (addr, _) = serve().await;
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .token("secret")
        .build()
        .unwrap();
    client.retire_widget(7).await.unwrap();
}

async fn serve() -> (SocketAddr, Client) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(Shelf)).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (addr, client)
}

#[tokio::test]
async fn a_400_is_written_in_the_error_schema_with_its_media_type() {
    let (addr, _) = serve().await;
    let answer = fixture_error_schema_client::reqwest::Client::new()
        .get(format!("http://{addr}/widgets/0"))
        .header("x-request-id", "req-400")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
    assert_eq!(
        answer.headers()["content-type"],
        "application/vnd.widgets.failure+json"
    );
    let body: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    // The table's parts, by the schema's names; `hint` matches none.
    assert_eq!(body["httpStatus"], 400, "{body}");
    assert_eq!(body["type"], "about:blank", "{body}");
    assert!(body["occurredAt"].is_string(), "{body}");
    assert!(body.get("hint").is_none(), "{body}");
    let failure = &body["failure"];
    assert_eq!(failure["correlationId"], "req-400", "{body}");
    assert_eq!(failure["reason"], "Bad Request", "{body}");
    let violations = failure["violations"].as_array().expect("a list of problems");
    assert_eq!(violations.len(), 1, "{body}");
    assert_eq!(violations[0]["pointer"], "id", "{body}");
    assert!(violations[0]["msg"].is_string(), "{body}");
    assert!(violations[0]["rule"].is_string(), "{body}");
    assert!(failure["errorCode"].is_string() && failure["description"].is_string());
}

#[tokio::test]
async fn the_client_decodes_an_error_as_the_schema_s_type() {
    let (_, client) = serve().await;
    assert_eq!(client.get_widget(7).await.unwrap().id, 7);
    let Err(Error::Api(error)) = client.get_widget(8).await else {
        panic!("a 404 is an API error");
    };
    assert_eq!(error.status().as_u16(), 404);
    let failure = &error.body().failure;
    assert_eq!(failure.error_code, "WidgetNotFound");
    assert_eq!(failure.description, "No widget has the id 8.");
    assert_eq!(error.body().http_status, Some(404));
    // Read where the crate's `ERROR_FIELDS` say, not by common names.
    assert_eq!(error.message(), Some("No widget has the id 8."));
    let server_id = failure.correlation_id.as_deref();
    assert!(server_id.is_some_and(|id| !id.is_empty()), "{failure:?}");
    assert_eq!(error.request_id(), server_id);
}

/// A 400's problems, read by the table: `violations`' `pointer`, `msg`
/// and `rule`.
#[tokio::test]
async fn the_client_lists_the_problems_the_schema_names() {
    let (_, client) = serve().await;
    let Err(Error::Api(error)) = client.get_widget(0).await else {
        panic!("a 400 is an API error");
    };
    assert_eq!(error.status().as_u16(), 400);
    let problems = error.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].property, "id");
    assert!(!problems[0].message.is_empty());
    assert!(problems[0].code.is_some(), "{problems:?}");
    assert_eq!(error.message(), Some(error.body().failure.description.as_str()));
}
