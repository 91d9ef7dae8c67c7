//! The mock served on loopback and called over HTTP, as an integrator's
//! tests call it: each `Prefer` header, the refusals in the generated
//! stubs' order, answers valid against their schemas and the same for the
//! same seed; and `contract`, passing against the mock and failing on a
//! server whose answers break the document.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use std::path::Path;

use axum::Json;
use axum::routing::get;
use openapi_codegen_mock::Mock;
use openapi_codegen_mock::contract::{Contract, Outcome};
use serde_json::{Value, json};

const PETS: &str = "tests/data/pets.yaml";

/// Serves `router` on a free loopback port; its base URL.
async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}")
}

async fn mock(seed: u64) -> String {
    serve(Mock::load(Path::new(PETS), PETS, seed).unwrap().router()).await
}

async fn get_json(url: &str, prefer: Option<&str>) -> (u16, Value) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(prefer) = prefer {
        request = request.header("Prefer", prefer);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn an_answer_comes_from_the_documents_example_or_the_one_prefer_names() {
    let base = mock(0).await;
    let (status, pet) = get_json(&format!("{base}/pets/1"), None).await;
    assert_eq!(status, 200);
    assert_eq!(
        pet,
        json!({"id": 1, "name": "Rex", "kind": "dog", "code": "PET-0001"})
    );

    let client = reqwest::Client::new();
    let created = |prefer: &'static str| {
        client
            .post(format!("{base}/pets"))
            .header("X-Api-Key", "any")
            .header("Prefer", prefer)
            .json(&json!({"name": "Tom", "kind": "cat"}))
            .send()
    };
    let answer = created("example=cat").await.unwrap();
    assert_eq!(answer.status(), 201);
    assert!(
        answer.headers().contains_key("location"),
        "a required header is sent"
    );
    assert_eq!(answer.json::<Value>().await.unwrap()["name"], "Tom");
    // The first named example without a preference.
    let answer = created("respond-async").await.unwrap();
    assert_eq!(answer.json::<Value>().await.unwrap()["name"], "Rex");
    // `code=409` picks the declared 409, with its example.
    let answer = created("code=409").await.unwrap();
    assert_eq!(answer.status(), 409);
    assert_eq!(
        answer.json::<Value>().await.unwrap(),
        json!({"message": "the name is taken"})
    );
    // A status or example the document does not have is refused, named.
    let answer = created("code=418").await.unwrap();
    assert_eq!(answer.status(), 400);
    let problem: Value = answer.json().await.unwrap();
    assert!(
        problem["detail"].as_str().unwrap().contains("201, 409"),
        "{problem}"
    );
    let answer = created("example=hamster").await.unwrap();
    assert_eq!(answer.status(), 400);
}

#[tokio::test]
async fn data_made_up_from_the_schema_is_valid_and_the_same_for_the_same_seed() {
    let (first, second, other) = (mock(7).await, mock(7).await, mock(8).await);
    let (status, pets) = get_json(&format!("{first}/pets"), None).await;
    assert_eq!(status, 200);
    let pets = pets.as_array().unwrap().clone();
    assert!(!pets.is_empty());
    for pet in &pets {
        let code = pet["code"].as_str().unwrap();
        assert!(
            regex_lite::Regex::new("^PET-[0-9]{4}$")
                .unwrap()
                .is_match(code),
            "{code}"
        );
        assert!(pet["id"].as_i64().unwrap() >= 1);
        assert!(["dog", "cat"].contains(&pet["kind"].as_str().unwrap()));
        assert!(pet["owner"].as_str().unwrap().contains('@'));
    }
    assert_eq!(
        get_json(&format!("{second}/pets"), None).await.1,
        Value::Array(pets.clone())
    );
    assert_ne!(
        get_json(&format!("{other}/pets"), None).await.1,
        Value::Array(pets)
    );
    // `dynamic=true` makes data up even where there is an example.
    let (_, made_up) = get_json(&format!("{first}/pets/1"), Some("dynamic=true")).await;
    assert_ne!(made_up["name"], "Rex");
    assert!(made_up["code"].as_str().unwrap().starts_with("PET-"));
}

/// A response that offers an event stream beside JSON is generated for
/// JSON only (the generator notes the other media type as left out), so
/// the mock, as the stubs, answers JSON, and 406 to an `Accept` of events.
#[tokio::test]
async fn an_event_stream_beside_json_is_left_out_as_the_stubs_leave_it() {
    let base = mock(3).await;
    let client = reqwest::Client::new();
    let json = client
        .get(format!("{base}/pets/feed"))
        .send()
        .await
        .unwrap();
    assert_eq!(json.headers()["content-type"], "application/json");
    let pets: Value = json.json().await.unwrap();
    assert!(pets.as_array().is_some_and(|p| !p.is_empty()), "{pets}");
    let events = client
        .get(format!("{base}/pets/feed"))
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 406);
}

#[tokio::test]
async fn requests_are_refused_as_the_generated_stubs_refuse_them() {
    let base = mock(0).await;
    let client = reqwest::Client::new();
    let problem = |answer: reqwest::Response| async move {
        let status = answer.status().as_u16();
        let body: Value = answer.json().await.unwrap();
        (status, body)
    };
    // No credential: 401 before the body is read.
    let (status, _) = problem(
        client
            .post(format!("{base}/pets"))
            .body("not json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401);
    // A body that breaks the schema: 400 naming each property.
    let answer = client
        .post(format!("{base}/pets"))
        .header("X-Api-Key", "any")
        .json(&json!({"name": "", "kind": "horse", "extra": 1}))
        .send()
        .await
        .unwrap();
    let (status, body) = problem(answer).await;
    assert_eq!(status, 400);
    let properties: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["property"].as_str().unwrap())
        .collect();
    assert_eq!(properties, ["extra", "name", "kind"], "{body}");
    // Not JSON, and another media type.
    let answer = client
        .post(format!("{base}/pets"))
        .header("X-Api-Key", "any")
        .header("Content-Type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    let (status, body) = problem(answer).await;
    assert_eq!(
        (status, body["errors"][0]["code"].as_str()),
        (400, Some("InvalidJson"))
    );
    let answer = client
        .post(format!("{base}/pets"))
        .header("X-Api-Key", "any")
        .header("Content-Type", "text/plain")
        .body("Rex")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 415);
    // Parameters: a path value that is not an integer, a query value out of range.
    let (status, body) = get_json(&format!("{base}/pets/abc"), None).await;
    assert_eq!(
        (status, body["errors"][0]["property"].as_str()),
        (400, Some("id"))
    );
    let (status, body) = get_json(&format!("{base}/pets?limit=0&tag=a,b"), None).await;
    assert_eq!(
        (status, body["errors"][0]["property"].as_str()),
        (400, Some("limit")),
        "{body}"
    );
    // No such path; no such method on a path, with Allow.
    assert_eq!(get_json(&format!("{base}/owners"), None).await.0, 404);
    let answer = client.patch(format!("{base}/pets/1")).send().await.unwrap();
    assert_eq!(answer.status(), 405);
    assert_eq!(answer.headers()["allow"], "GET, DELETE");
    // A status without a body.
    let answer = client
        .delete(format!("{base}/pets/1"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 204);
    assert!(answer.bytes().await.unwrap().is_empty());
}

/// The sorted properties of a problem-details 400.
async fn problems(answer: reqwest::Response) -> (u16, Vec<String>) {
    let status = answer.status().as_u16();
    let body: Value = answer.json().await.unwrap_or(Value::Null);
    let mut named: Vec<String> = body["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["property"].as_str().map(str::to_owned))
        .collect();
    named.sort();
    (status, named)
}

/// The `forms` fixture's loopback drive test
/// (`generator/tests/drive/forms.loopback.rs`) sends these bad requests to
/// the generated server stubs; the mock of the same document names the
/// same problems, reading forms, multipart bodies and object parameters
/// with the stubs' own runtime readers.
#[tokio::test]
async fn forms_multipart_bodies_and_object_parameters_are_refused_as_the_stubs_refuse_them() {
    let forms = "../generator/tests/fixtures/forms.yaml";
    let base = serve(Mock::load(Path::new(forms), forms, 0).unwrap().router()).await;
    let client = reqwest::Client::new();
    let multipart = "--b\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\nmany\r\n\
                     --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n1\r\n\
                     --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"y\"\r\n\r\n2\r\n\
                     --b\r\nContent-Disposition: form-data; name=\"surprise\"\r\n\r\n?\r\n\
                     --b--\r\n";
    let answer = client
        .post(format!("{base}/uploads"))
        .header("content-type", "multipart/form-data; boundary=b")
        .body(multipart)
        .send()
        .await
        .unwrap();
    assert_eq!(
        problems(answer).await,
        (
            400,
            vec![
                "count".into(),
                "file".into(),
                "surprise".into(),
                "title".into()
            ]
        )
    );

    let answer = client
        .post(format!("{base}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=refresh_token&refresh_token=r&lifetime=0")
        .send()
        .await
        .unwrap();
    assert_eq!(problems(answer).await, (400, vec!["lifetime".into()]));

    let search = |query: &str| client.get(format!("{base}/search?{query}")).send();
    let (status, named) = problems(search("filter[created][lt]=5000&limit=1").await.unwrap()).await;
    assert_eq!(status, 400);
    assert!(
        !named.is_empty() && named.iter().all(|p| p.starts_with("filter.created")),
        "{named:?}"
    );
    let answer = search("filter[minAge]=old&filter[status]=lost&limit=1000&q=x")
        .await
        .unwrap();
    assert_eq!(
        problems(answer).await,
        (
            400,
            vec![
                "filter.minAge".into(),
                "filter.status".into(),
                "limit".into()
            ]
        )
    );
    // `page`, an exploded form object, is required: none of its keys given.
    assert_eq!(
        problems(search("q=x").await.unwrap()).await,
        (400, vec!["page".into()])
    );
    // And a good one passes.
    assert_eq!(
        search("filter[name]=n&filter[created]=7&limit=1")
            .await
            .unwrap()
            .status(),
        200
    );
}

/// `label` and `matrix` path parameters lose their lead as the stubs'
/// reader takes it off, and without it are refused with its message.
#[tokio::test]
async fn label_and_matrix_path_parameters_are_read_with_their_lead() {
    let styles = "tests/data/styles.yaml";
    let base = serve(Mock::load(Path::new(styles), styles, 0).unwrap().router()).await;
    let status = |path: &'static str| {
        let url = format!("{base}{path}");
        async move { reqwest::get(url).await.unwrap().status().as_u16() }
    };
    assert_eq!(status("/dots/.1.2.3").await, 204);
    assert_eq!(status("/matrix/;id=5").await, 204);
    assert_eq!(status("/dots/.1.x").await, 400);
    assert_eq!(status("/matrix/;id=x").await, 400);
    let answer = reqwest::get(format!("{base}/dots/1.2")).await.unwrap();
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["errors"][0]["property"], "ids");
    assert_eq!(
        body["errors"][0]["detail"],
        "does not start with `.`, as its style asks"
    );
    let answer = reqwest::get(format!("{base}/matrix/;other=5"))
        .await
        .unwrap();
    let body: Value = answer.json().await.unwrap();
    assert_eq!(
        body["errors"][0]["detail"],
        "does not start with `;id=`, as its style asks"
    );
}

#[tokio::test]
async fn contract_passes_against_the_mock_and_fails_on_a_broken_answer() {
    let base = mock(0).await;
    let key = || {
        let mut headers = http::HeaderMap::new();
        headers.insert("x-api-key", "any".parse().unwrap());
        headers
    };
    let contract = Contract::load(Path::new(PETS), PETS, &base, key()).unwrap();
    let lines = contract.run().await;
    let outcomes: Vec<(&str, &Outcome)> = lines
        .iter()
        .map(|l| (l.operation.split(' ').next().unwrap(), &l.outcome))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("listPets", &Outcome::Passed(200)),
            ("createPet", &Outcome::Passed(201)),
            ("getPet", &Outcome::Passed(200)),
            (
                "deletePet",
                &Outcome::Skipped("the required parameter `id` has no example".to_owned())
            ),
            ("petFeed", &Outcome::Passed(200)),
        ]
    );

    // A server that answers getPet with a pet whose code breaks the pattern
    // and whose kind is not listed, and listPets with an undeclared status.
    let broken = axum::Router::new()
        .route(
            "/pets/{id}",
            get(|| async { Json(json!({"id": 1, "name": "Rex", "kind": "horse", "code": "P1"})) }),
        )
        .route("/pets", get(|| async { (http::StatusCode::ACCEPTED, "") }));
    let broken = serve(broken).await;
    let contract = Contract::load(Path::new(PETS), PETS, &broken, key()).unwrap();
    let lines = contract.run().await;
    let failed = |id: &str| match &lines
        .iter()
        .find(|l| l.operation.starts_with(id))
        .unwrap()
        .outcome
    {
        Outcome::Failed(problems) => problems.clone(),
        other => panic!("{id}: {other:?}"),
    };
    let get_pet = failed("getPet ");
    assert_eq!(get_pet.len(), 2, "{get_pet:?}");
    assert!(
        get_pet[0].starts_with("kind: must be one of: dog, cat"),
        "{get_pet:?}"
    );
    assert!(
        get_pet[1].starts_with("code: must match the pattern"),
        "{get_pet:?}"
    );
    assert!(failed("listPets")[0].contains("status 202 is not declared"));
    let rendered = lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        rendered.contains("FAIL  getPet GET /pets/{id}"),
        "{rendered}"
    );
}
