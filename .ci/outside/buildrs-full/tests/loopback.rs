//! The generated router, serving a small implementation of the generated
//! trait on a loopback port, called with the generated client.

use std::sync::Mutex;

use pets_full_app::models::Pet;
use pets_full_app::server::{
    ApiError, CreatePetRequest, CreatePetResponse, GetPetRequest, GetPetResponse, ListPetsRequest,
    ListPetsResponse, PetsApi, RequestContext,
};

#[derive(Default)]
struct Pets(Mutex<Vec<Pet>>);

impl PetsApi for Pets {
    async fn list_pets(
        &self,
        _: RequestContext,
        _: ListPetsRequest,
    ) -> Result<ListPetsResponse, ApiError> {
        let body = self.0.lock().unwrap().clone();
        Ok(ListPetsResponse::Ok { body })
    }

    async fn create_pet(
        &self,
        _: RequestContext,
        request: CreatePetRequest,
    ) -> Result<CreatePetResponse, ApiError> {
        self.0.lock().unwrap().push(request.body.clone());
        Ok(CreatePetResponse::Created { body: request.body })
    }

    async fn get_pet(
        &self,
        _: RequestContext,
        request: GetPetRequest,
    ) -> Result<GetPetResponse, ApiError> {
        let pets = self.0.lock().unwrap();
        match pets.iter().find(|pet| pet.id == request.pet_id) {
            Some(pet) => Ok(GetPetResponse::Ok { body: pet.clone() }),
            None => Err(ApiError::not_found("PetNotFound", "No such pet.")),
        }
    }
}

#[tokio::test]
async fn the_client_calls_the_generated_router() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let app = pets_full_app::server::router(Pets::default());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let client = pets_full_app::Client::builder()
        .base_url(&base_url)
        .build()
        .unwrap();

    let created = client.create_pet(&Pet::new(7, "Rex")).await.unwrap();
    assert_eq!(created, Pet::new(7, "Rex"));
    assert_eq!(client.get_pet(7).await.unwrap().name, "Rex");
    assert_eq!(client.list_pets().await.unwrap(), [Pet::new(7, "Rex")]);
    // The method's `ApiError` reaches the client as its error, rendered in
    // the server stubs' format (problem details) and read back by the client.
    let missing = client.get_pet(8).await.unwrap_err();
    let missing = missing.api_error().expect("an error answer");
    assert_eq!(missing.status().as_u16(), 404, "{missing:?}");
    assert_eq!(missing.message(), Some("No such pet."), "{missing:?}");

    // The router checks a body as raw JSON (the models' `ValidateJson`,
    // compiled without a feature) before the method sees it: an empty name
    // is a 400 that names the property, and nothing is created.
    let answer = pets_full_app::reqwest::Client::new()
        .post(format!("{base_url}/pets"))
        .header("content-type", "application/json")
        .body(r#"{"id": 8, "name": ""}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
    assert_eq!(answer.headers()["content-type"], "application/problem+json");
    let body: serde_json::Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    assert_eq!(body["errors"][0]["property"], "name", "{body}");
    assert_eq!(client.list_pets().await.unwrap(), [Pet::new(7, "Rex")]);
}
