//! Subtypes through the wire: the generated client sends a `Pet` of each
//! kind, the generated server hands the handler the subtype it was (and
//! checks that subtype's constraints), and answers with a list the client
//! reads back kind by kind.

use std::net::SocketAddr;
use std::sync::Mutex;

use fixture_inheritance_client::Client;
use fixture_inheritance_client::models::serde_json::{self, Value, json};
use fixture_inheritance_client::models::{Cat, Dog, Owner, Pet, PetBase, Puppy};
use fixture_inheritance_server::{
    AddPetRequest, AddPetResponse, ApiError, GetOwnerRequest, GetOwnerResponse, InheritanceApi,
    ListPetsRequest, ListPetsResponse, RequestContext, router,
};

/// Keeps the pets it is given, in order.
#[derive(Default)]
struct Shelter {
    pets: Mutex<Vec<Pet>>,
}

impl InheritanceApi for Shelter {
    async fn list_pets(
        &self,
        _: RequestContext,
        _: ListPetsRequest,
    ) -> Result<ListPetsResponse, ApiError> {
        let body = self.pets.lock().unwrap().clone();
        Ok(ListPetsResponse::Ok { body })
    }

    async fn add_pet(
        &self,
        _: RequestContext,
        request: AddPetRequest,
    ) -> Result<AddPetResponse, ApiError> {
        self.pets.lock().unwrap().push(request.body.clone());
        Ok(AddPetResponse::Created { body: request.body })
    }

    async fn get_owner(
        &self,
        _: RequestContext,
        _: GetOwnerRequest,
    ) -> Result<GetOwnerResponse, ApiError> {
        let pets = self.pets.lock().unwrap().clone();
        Ok(GetOwnerResponse::Ok {
            body: Owner::new(pets),
        })
    }
}

async fn serve() -> (SocketAddr, Client) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(Shelter::default())).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (addr, client)
}

/// POSTs `body` as JSON to `/pets`: the status and the JSON answer.
async fn post(addr: SocketAddr, body: &Value) -> (u16, Value) {
    let answer = fixture_inheritance_client::reqwest::Client::new()
        .post(format!("http://{addr}/pets"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    (status, serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap())
}

#[tokio::test]
async fn each_kind_of_pet_goes_and_comes_back_as_itself() {
    let (_, client) = serve().await;
    let dog = Pet::Dog(Dog::new("Dog", "Rex", 7));
    assert_eq!(client.add_pet(&dog).await.unwrap(), dog);
    let cat = Pet::Cat(Box::new(Cat::new("kitten", "Kit").with_meows(true)));
    assert_eq!(client.add_pet(&cat).await.unwrap(), cat);
    let puppy = Pet::Puppy(Puppy::new("puppy", "Bo", 2).with_chews("shoes"));
    client.add_pet(&puppy).await.unwrap();

    let pets = client.list_pets().await.unwrap();
    assert_eq!(pets, [dog.clone(), cat, puppy]);
    let owner = client.get_owner("o1").await.unwrap();
    let Some(Pet::Dog(rex)) = owner.pets.first() else {
        panic!("{owner:?}")
    };
    assert_eq!(rex.bark_volume, 7);
}

#[tokio::test]
async fn the_server_checks_the_subtype_the_tag_names() {
    let (addr, _) = serve().await;
    let (status, body) = post(addr, &json!({"petType": "Dog", "name": "Rex", "barkVolume": 12})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["errors"][0]["property"], "barkVolume", "{body}");
    // A dog needs its own required property.
    let (status, body) = post(addr, &json!({"petType": "Dog", "name": "Rex"})).await;
    assert_eq!(status, 400, "{body}");
    // The same value as a cat is a cat.
    let (status, body) = post(addr, &json!({"petType": "cat", "name": "Rex", "barkVolume": 12})).await;
    assert_eq!((status, &body["petType"]), (201, &json!("cat")), "{body}");
}

#[tokio::test]
async fn a_kind_the_server_does_not_know_is_kept_as_the_base() {
    let (addr, client) = serve().await;
    let (status, body) = post(addr, &json!({"petType": "parrot", "name": "Polly", "words": 40})).await;
    assert_eq!(status, 201, "{body}");
    // What the base declares is kept; the unknown kind's own property is not.
    assert_eq!(body, json!({"petType": "parrot", "name": "Polly"}));
    let pets = client.list_pets().await.unwrap();
    assert_eq!(pets, [Pet::Other(PetBase::new("parrot", "Polly"))]);
}
