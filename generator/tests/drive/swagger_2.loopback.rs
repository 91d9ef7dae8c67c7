//! A Swagger 2.0 document's crates, as its users use them: the generated
//! client against the generated server on loopback, through what the
//! conversion made of 2.0's forms (a shared body parameter, form
//! parameters with a file, `collectionFormat` `multi`, `pipes` and `csv`,
//! `type: file` answers, an API key and a basic or bearer alternative).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use fixture_swagger_2_client::models::{
    Dog, Error as ErrorBody, ListPetsStatusItem, NewPet, Pet, PutNoteBody,
};
use fixture_swagger_2_client::{Client, File, ListPetsParams, UploadPhotoForm};
use fixture_swagger_2_server::axum::body::Bytes;
use fixture_swagger_2_server::{
    ApiError, CreatePetRequest, CreatePetResponse, Credentials, GetPetRequest, GetPetResponse,
    GetPhotoRequest, GetPhotoResponse, ListPetsRequest, ListPetsResponse, PutNoteRequest,
    PutNoteResponse, RequestContext, Scheme, SwaggerPetShopApi, UploadPhotoRequest,
    UploadPhotoResponse, router,
};

/// The start of a PNG file.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\xff";

/// A photo as the server received it: the pet, the caption, the bytes.
type Photo = (i64, Option<String>, Bytes);
/// A note as the server received it: the pet, the text, whether pinned.
type Note = (i64, String, Option<bool>);

/// Keeps the last photo and note.
#[derive(Clone, Default)]
struct Shop {
    photo: Arc<Mutex<Option<Photo>>>,
    note: Arc<Mutex<Option<Note>>>,
}

impl SwaggerPetShopApi for Shop {
    type Principal = String;

    async fn authenticate(&self, credentials: Credentials<'_>) -> Result<String, ApiError> {
        let credential = credentials
            .presented
            .first()
            .ok_or_else(|| ApiError::unauthorized("NoCredential", "No credential."))?;
        match (credential.scheme, credential.value) {
            (Scheme::ApiKey | Scheme::PetstoreAuth, "secret") => Ok("keeper".to_owned()),
            _ => Err(ApiError::unauthorized(
                "InvalidCredential",
                "Unknown credential.",
            )),
        }
    }

    async fn list_pets(
        &self,
        _: RequestContext<String>,
        request: ListPetsRequest,
    ) -> Result<ListPetsResponse, ApiError> {
        // The pet's name says what the request carried.
        let name = format!(
            "limit={:?} tags={:?} status={:?} trace={:?}",
            request.limit, request.tags, request.status, request.x_trace
        );
        Ok(ListPetsResponse::Ok {
            body: vec![Pet::Dog(Dog::new(1, name, "Dog").with_barks(true))],
            x_total: Some(1),
        })
    }

    async fn create_pet(
        &self,
        context: RequestContext<String>,
        request: CreatePetRequest,
    ) -> Result<CreatePetResponse, ApiError> {
        let name = format!("{} by {}", request.body.name, context.principal);
        Ok(CreatePetResponse::Created {
            body: Pet::Dog(Dog::new(2, name, request.body.pet_type)),
        })
    }

    async fn get_pet(
        &self,
        _: RequestContext<String>,
        request: GetPetRequest,
    ) -> Result<GetPetResponse, ApiError> {
        Ok(GetPetResponse::NotFound {
            body: ErrorBody::new(404, format!("No pet {}.", request.pet_id)),
        })
    }

    async fn get_photo(
        &self,
        _: RequestContext<String>,
        _: GetPhotoRequest,
    ) -> Result<GetPhotoResponse, ApiError> {
        let kept = self.photo.lock().unwrap().clone();
        Ok(GetPhotoResponse::Ok {
            body: kept.map(|(_, _, bytes)| bytes).unwrap_or_default(),
        })
    }

    async fn upload_photo(
        &self,
        _: RequestContext<String>,
        request: UploadPhotoRequest,
    ) -> Result<UploadPhotoResponse, ApiError> {
        let form = request.body;
        *self.photo.lock().unwrap() = Some((request.pet_id, form.caption, form.file.bytes));
        Ok(UploadPhotoResponse::NoContent)
    }

    async fn put_note(
        &self,
        _: RequestContext<String>,
        request: PutNoteRequest,
    ) -> Result<PutNoteResponse, ApiError> {
        *self.note.lock().unwrap() = Some((request.pet_id, request.body.text, request.body.pinned));
        Ok(PutNoteResponse::NoContent)
    }
}

async fn serve() -> (SocketAddr, Shop, Client) {
    let shop = Shop::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router(shop.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .token("secret")
        .build()
        .unwrap();
    (addr, shop, client)
}

#[tokio::test]
async fn collection_formats_reach_the_server_as_lists() {
    let (_, _, client) = serve().await;
    let pets = client
        .list_pets(
            ListPetsParams::default()
                .limit(5)
                .tags(vec!["a".to_owned(), "b c".to_owned()])
                .status(vec![
                    ListPetsStatusItem::Available,
                    ListPetsStatusItem::Sold,
                ])
                .x_trace(vec!["t1".to_owned(), "t2".to_owned()]),
        )
        .await
        .unwrap();
    let [Pet::Dog(dog)] = pets.as_slice() else {
        panic!("{pets:?}");
    };
    assert_eq!(
        dog.name,
        "limit=Some(5) tags=Some([\"a\", \"b c\"]) status=Some([Available, Sold]) \
         trace=Some([\"t1\", \"t2\"])"
    );
}

#[tokio::test]
async fn a_shared_body_parameter_is_the_request_body() {
    let (_, _, client) = serve().await;
    let pet = client
        .create_pet(&NewPet::new("Rex", "Dog").with_nickname("R"))
        .await
        .unwrap();
    let Pet::Dog(dog) = pet else {
        panic!("{pet:?}");
    };
    assert_eq!(dog.name, "Rex by keeper");
}

#[tokio::test]
async fn a_shared_error_response_is_an_api_error() {
    let (_, _, client) = serve().await;
    let error = client.get_pet(7).await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(404), "{error:?}");
}

#[tokio::test]
async fn form_parameters_with_a_file_are_multipart_and_a_file_answer_is_bytes() {
    let (_, shop, client) = serve().await;
    let form = UploadPhotoForm::new(File::new(PNG).with_filename("rex.png")).with_caption("Rex");
    client.upload_photo(1, &form).await.unwrap();
    let kept = shop.photo.lock().unwrap().clone();
    assert_eq!(
        kept,
        Some((1, Some("Rex".to_owned()), Bytes::from_static(PNG)))
    );
    assert_eq!(&client.get_photo(1).await.unwrap()[..], PNG);
}

#[tokio::test]
async fn form_parameters_without_a_file_are_urlencoded() {
    let (_, shop, client) = serve().await;
    client
        .put_note(1, &PutNoteBody::new("feed at 6 & 18").with_pinned(true))
        .await
        .unwrap();
    let kept = shop.note.lock().unwrap().clone();
    assert_eq!(kept, Some((1, "feed at 6 & 18".to_owned(), Some(true))));
}

#[tokio::test]
async fn an_operation_under_the_documents_security_needs_its_api_key() {
    let (addr, _, _) = serve().await;
    let answer = fixture_swagger_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/pets"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 401);
}
