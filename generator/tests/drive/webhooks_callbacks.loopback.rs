//! Webhooks and callbacks, each sent by the generated sender and received
//! by the generated receiver: a webhook from `WebhookSender` to the
//! `webhooks` router; and the callback an operation's implementation
//! sends, with `CallbackSender`, to the URL `callbacks::urls` builds from
//! its request's body, received by the `callbacks` router. Both receivers
//! check what they receive as the API's own router does (a 400).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use fixture_webhooks_callbacks_client::models::serde_json::{self, Value, json};
use fixture_webhooks_callbacks_client::models::{
    Event, EventKind, PetAddedBody, PetAddedResponse, SubscribeOnStatusBody, SubscribeResponse,
    Subscription,
};
use fixture_webhooks_callbacks_client::{CallbackSender, Client, WebhookSender};
use fixture_webhooks_callbacks_server::callbacks::{
    self, PetEventsCallbacks, SubscribeOnEventRequest, SubscribeOnEventResponse,
    SubscribeOnStatusRequest, SubscribeOnStatusResponse, RequestReceiptOnReceiptRequest,
    RequestReceiptOnReceiptResponse,
};
use fixture_webhooks_callbacks_server::webhooks::{
    self, PetAddedRequest, PetEventsWebhooks, PetRemovedRequest, PetRemovedResponse,
};
use fixture_webhooks_callbacks_server::{
    ApiError, PetEventsApi, RequestContext, RequestReceiptRequest, RequestReceiptResponse,
    SubscribeRequest, router,
};

/// What a receiver was sent, as its trait received it.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<String>>>);

impl Received {
    fn push(&self, what: String) {
        self.0.lock().unwrap().push(what);
    }

    fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl PetEventsWebhooks for Received {
    async fn pet_added(
        &self,
        _: webhooks::RequestContext,
        request: PetAddedRequest,
    ) -> Result<webhooks::PetAddedResponse, ApiError> {
        self.push(format!("added {} {} from {}", request.body.id, request.body.name, request.x_shop));
        Ok(webhooks::PetAddedResponse::Ok {
            body: PetAddedResponse::new().with_seen(true),
        })
    }

    async fn pet_removed(
        &self,
        _: webhooks::RequestContext,
        request: PetRemovedRequest,
    ) -> Result<PetRemovedResponse, ApiError> {
        self.push(format!("removed {}", request.body.pet_id));
        Ok(PetRemovedResponse::NoContent)
    }
}

impl PetEventsCallbacks for Received {
    async fn subscribe_on_event(
        &self,
        _: callbacks::RequestContext,
        request: SubscribeOnEventRequest,
    ) -> Result<SubscribeOnEventResponse, ApiError> {
        // Typed: the kind is the enum's variant, the id a number.
        assert_eq!(request.body.kind, EventKind::Added);
        self.push(format!("event {:?} {}", request.body.kind, request.body.pet_id));
        Ok(SubscribeOnEventResponse::NoContent)
    }

    async fn subscribe_on_status(
        &self,
        _: callbacks::RequestContext,
        request: SubscribeOnStatusRequest,
    ) -> Result<SubscribeOnStatusResponse, ApiError> {
        self.push(format!("active {}", request.body.active));
        Ok(SubscribeOnStatusResponse::Ok)
    }

    async fn request_receipt_on_receipt(
        &self,
        _: callbacks::RequestContext,
        _: RequestReceiptOnReceiptRequest,
    ) -> Result<RequestReceiptOnReceiptResponse, ApiError> {
        Ok(RequestReceiptOnReceiptResponse::Ok)
    }
}

/// The shop's API: a subscription fires its callbacks before it answers.
struct Shop;

impl PetEventsApi for Shop {
    async fn subscribe(
        &self,
        _: RequestContext,
        request: SubscribeRequest,
    ) -> Result<fixture_webhooks_callbacks_server::SubscribeResponse, ApiError> {
        let send = |url: Option<String>| {
            let url = url.ok_or_else(|| ApiError::internal("no callback URL"))?;
            CallbackSender::new(&url, Client::builder())
                .map_err(|error| ApiError::internal(error.to_string()))
        };
        send(callbacks::urls::subscribe_on_event_url(&request))?
            .subscribe_on_event(&Event::new(EventKind::Added, 7))
            .await
            .map_err(|error| ApiError::internal(error.to_string()))?;
        send(callbacks::urls::subscribe_on_status_url(&request))?
            .subscribe_on_status(&SubscribeOnStatusBody::new(true))
            .await
            .map_err(|error| ApiError::internal(error.to_string()))?;
        Ok(fixture_webhooks_callbacks_server::SubscribeResponse::Created {
            body: SubscribeResponse::new("sub-1"),
        })
    }

    async fn request_receipt(
        &self,
        _: RequestContext,
        _: RequestReceiptRequest,
    ) -> Result<RequestReceiptResponse, ApiError> {
        Ok(RequestReceiptResponse::Accepted)
    }
}

async fn serve(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// POSTs `body` to `url` as JSON: the answer's status and JSON body.
async fn post(url: &str, body: Value) -> (u16, Value) {
    let answer = fixture_webhooks_callbacks_client::reqwest::Client::new()
        .post(url)
        .header("x-shop", "shop-1")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let bytes = answer.bytes().await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_webhook_sender_reaches_the_webhook_receiver_typed() {
    let received = Received::default();
    let addr = serve(webhooks::router(received.clone())).await;
    let sender = WebhookSender::new(&format!("http://{addr}/petAdded"), Client::builder()).unwrap();
    let answer = sender
        .pet_added("shop-1", &PetAddedBody::new(3, "Rex").with_tag("dog"))
        .await
        .unwrap();
    assert_eq!(answer, PetAddedResponse::new().with_seen(true));
    let removed = WebhookSender::new(&format!("http://{addr}/petRemoved"), Client::builder()).unwrap();
    removed
        .pet_removed(&Event::new(EventKind::Removed, 3))
        .await
        .unwrap();
    assert_eq!(received.all(), ["added 3 Rex from shop-1", "removed 3"]);

    // The receiver checks the body as the API's router does.
    let (status, body) = post(&format!("http://{addr}/petAdded"), json!({"id": 0, "name": ""})).await;
    assert_eq!(status, 400, "{body}");
    // And the sender reports the refusal with its status.
    let error = sender.pet_added("shop-1", &PetAddedBody::new(0, "Rex")).await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(400), "{error}");
    assert_eq!(received.all().len(), 2);
}

#[tokio::test]
async fn an_operation_fires_its_callbacks_to_the_urls_its_request_gives() {
    let received = Received::default();
    let receiver = serve(callbacks::router(received.clone())).await;
    let shop = serve(router(Shop)).await;
    let client = Client::builder().base_url(format!("http://{shop}")).build().unwrap();
    // `onEvent` goes to `{$request.body#/callbackUrl}/events`, `onStatus`
    // to `{$request.query.statusUrl}`.
    let answer = client
        .subscribe(
            &format!("http://{receiver}/onStatus"),
            &Subscription::new(format!("http://{receiver}")),
        )
        .await
        .unwrap();
    assert_eq!(answer, SubscribeResponse::new("sub-1"));
    assert_eq!(received.all(), ["event Added 7", "active true"]);

    // A payload that is not an `Event` is refused before the trait sees it.
    let (status, body) = post(&format!("http://{receiver}/events"), json!({"kind": "eaten", "petId": 7})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = post(&format!("http://{receiver}/events"), json!({"kind": "added"})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(received.all().len(), 2);
}

#[test]
fn a_callback_url_is_none_when_the_request_lacks_its_value() {
    let request = SubscribeRequest {
        status_url: "http://example.com/status".to_owned(),
        body: Subscription::new("http://example.com/hooks"),
    };
    assert_eq!(
        callbacks::urls::subscribe_on_event_url(&request).as_deref(),
        Some("http://example.com/hooks/events")
    );
    assert_eq!(
        callbacks::urls::subscribe_on_status_url(&request).as_deref(),
        Some("http://example.com/status")
    );
}
