//! An OpenAPI 3.2 document's crates, as its users use them: the generated
//! client against the generated server on loopback, through what 3.2
//! adds: the `QUERY` method with a body, a custom method (`COPY`) from
//! `additionalOperations`, a form `querystring` read as the query's pairs,
//! media types given by reference, and a cookie of `style: cookie`.

use std::net::SocketAddr;

use fixture_openapi_3_2_client::models::{Pet, PetFilter, PetQuery};
use fixture_openapi_3_2_client::{Client, ListPetsParams};
use fixture_openapi_3_2_server::{
    ApiError, CopyPetRequest, CopyPetResponse, GetPetRequest, GetPetResponse, ListPetsRequest,
    ListPetsResponse, Pets32Api, RawQueryRequest, RawQueryResponse, RequestContext,
    SearchPetsRequest, SearchPetsResponse, router,
};

/// Answers from what each request carried.
#[derive(Clone, Default)]
struct Pets;

impl Pets32Api for Pets {
    async fn list_pets(
        &self,
        _: RequestContext,
        request: ListPetsRequest,
    ) -> Result<ListPetsResponse, ApiError> {
        let filter = request.filter.unwrap_or_default();
        let name = format!(
            "kind={:?} limit={:?} session={:?}",
            filter.kind, filter.limit, request.session
        );
        Ok(ListPetsResponse::Ok {
            body: vec![Pet::new(1, name)],
        })
    }

    async fn search_pets(
        &self,
        _: RequestContext,
        request: SearchPetsRequest,
    ) -> Result<SearchPetsResponse, ApiError> {
        let body = request
            .body
            .kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| Pet::new(i as i64, format!("a {kind}")).with_kind(kind.clone()))
            .collect();
        Ok(SearchPetsResponse::Ok { body })
    }

    async fn get_pet(
        &self,
        _: RequestContext,
        request: GetPetRequest,
    ) -> Result<GetPetResponse, ApiError> {
        Ok(GetPetResponse::Ok {
            body: Pet::new(request.id, "Rex"),
        })
    }

    async fn copy_pet(
        &self,
        _: RequestContext,
        request: CopyPetRequest,
    ) -> Result<CopyPetResponse, ApiError> {
        if request.id != 7 {
            return Ok(CopyPetResponse::NotFound);
        }
        Ok(CopyPetResponse::Created {
            body: Pet::new(8, request.destination),
        })
    }

    async fn raw_query(
        &self,
        _: RequestContext,
        _: RawQueryRequest,
    ) -> Result<RawQueryResponse, ApiError> {
        Ok(RawQueryResponse::NoContent)
    }
}

async fn serve() -> (SocketAddr, Client) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(Pets)).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (addr, client)
}

#[tokio::test]
async fn the_query_method_carries_its_body_and_is_answered() {
    let (_, client) = serve().await;
    let pets = client
        .search_pets(&PetQuery::new(vec!["cat".to_owned(), "dog".to_owned()]))
        .await
        .unwrap();
    let kinds: Vec<_> = pets.iter().map(|p| p.kind.as_deref()).collect();
    assert_eq!(kinds, [Some("cat"), Some("dog")]);
}

#[tokio::test]
async fn a_custom_method_is_sent_and_routed_by_its_name() {
    let (addr, client) = serve().await;
    let copy = client.copy_pet(7, "Rex II").await.unwrap();
    assert_eq!((copy.id, copy.name.as_str()), (8, "Rex II"));
    // Its parameters are checked as any operation's are.
    let error = client.copy_pet(7, "").await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(400), "{error:?}");
    // Other methods are refused with the path's methods, COPY among them.
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .request(
            fixture_openapi_3_2_client::reqwest::Method::from_bytes(b"MOVE").unwrap(),
            format!("http://{addr}/pets/7"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 405);
    assert_eq!(answer.headers()["allow"], "GET, HEAD, COPY");
}

#[tokio::test]
async fn a_form_querystring_is_the_querys_pairs() {
    let (addr, client) = serve().await;
    let filter = PetFilter::new().with_kind("cat").with_limit(3);
    let pets = client
        .list_pets(ListPetsParams::default().filter(filter).session("s1"))
        .await
        .unwrap();
    assert_eq!(
        pets[0].name,
        "kind=Some(\"cat\") limit=Some(3) session=Some(\"s1\")"
    );
    // On the wire: the object's properties are the query's own pairs.
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/pets?kind=dog&limit=2"))
        .send()
        .await
        .unwrap();
    let text = answer.text().await.unwrap();
    assert!(
        text.contains(r#""name":"kind=Some(\"dog\") limit=Some(2) session=None""#),
        "{text}"
    );
    // And they are checked against the querystring's schema.
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/pets?limit=0"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
}

#[tokio::test]
async fn a_querystring_left_out_is_ignored_by_the_server() {
    let (addr, client) = serve().await;
    client.raw_query().await.unwrap();
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/raw?%7B%22a%22%3A1%7D"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 204);
}
