//! An OpenAPI 3.2 document's crates, as its users use them: the generated
//! client against the generated server on loopback, through what 3.2
//! adds: the `QUERY` method with a body, a custom method (`COPY`) from
//! `additionalOperations`, a form `querystring` read as the query's pairs,
//! a JSON and a text `querystring` as the whole query string,
//! media types given by reference, a cookie of `style: cookie`, and
//! sequential bodies (`itemSchema`): JSON Lines up (to a method that takes
//! each item as it arrives) and down, a JSON text sequence, server-sent
//! events whose data is typed.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use fixture_openapi_3_2_client::futures_util::StreamExt as _;
use fixture_openapi_3_2_client::models::{
    Pet, PetFilter, PetLogResponseItem, PetLogResponseItemChange, PetQuery, Selector,
};
use fixture_openapi_3_2_client::{Client, ListPetsParams, PetLogParams, PetsNamedParams};
use fixture_openapi_3_2_server::{
    ApiError, CopyPetRequest, CopyPetResponse, ExportPetsRequest, ExportPetsResponse,
    GetPetRequest, GetPetResponse, ImportPetsRequest, ImportPetsResponse, Items,
    LegacyPetsRequest, LegacyPetsResponse, ListPetsRequest, ListPetsResponse, PetFeedRequest,
    PetFeedResponse, PetLogRequest, PetLogResponse, Pets32Api, PetsNamedRequest,
    PetsNamedResponse, RawQueryRequest, RawQueryResponse, RequestContext, SearchPetsRequest,
    SearchPetsResponse, router,
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

    async fn export_pets(
        &self,
        _: RequestContext,
        _: ExportPetsRequest,
    ) -> Result<ExportPetsResponse, ApiError> {
        // Written as the stream yields them: a thousand pets, one a line.
        let pets = fixture_openapi_3_2_client::futures_util::stream::iter(0..1000).map(|i| Pet::new(i, format!("pet {i}")));
        Ok(ExportPetsResponse::Ok {
            body: Items::new(pets),
        })
    }

    async fn pet_log(
        &self,
        _: RequestContext,
        request: PetLogRequest,
    ) -> Result<PetLogResponse, ApiError> {
        let entries = fixture_openapi_3_2_client::futures_util::stream::iter(vec![
            PetLogResponseItem::new(1, PetLogResponseItemChange::Added),
            PetLogResponseItem::new(1, PetLogResponseItemChange::Renamed),
        ]);
        // Followed, the answer stays open: nothing more is written.
        let body = if request.follow == Some(true) {
            Items::new(entries.chain(fixture_openapi_3_2_client::futures_util::stream::pending()))
        } else {
            Items::new(entries)
        };
        Ok(PetLogResponse::Ok { body })
    }

    async fn import_pets(
        &self,
        _: RequestContext,
        request: ImportPetsRequest,
    ) -> Result<ImportPetsResponse, ApiError> {
        // Each pet as its line arrives: one refused answers with its 400.
        let mut pets = request.body;
        let mut sum = 0;
        while let Some(pet) = pets.next().await {
            let pet = pet?;
            IMPORTED.lock().unwrap().push(pet.id);
            sum += pet.id;
        }
        Ok(ImportPetsResponse::Ok { body: sum })
    }

    async fn pet_feed(
        &self,
        _: RequestContext,
        _: PetFeedRequest,
    ) -> Result<PetFeedResponse, ApiError> {
        Ok(PetFeedResponse::Ok {
            body: "event: new\ndata: {\"id\":1,\"name\":\"Rex\"}\n\n\
                   event: new\ndata: {\"id\":2,\"name\":\"Tom\"}\n\n"
                .to_owned(),
        })
    }

    async fn raw_query(
        &self,
        _: RequestContext,
        request: RawQueryRequest,
    ) -> Result<RawQueryResponse, ApiError> {
        Ok(RawQueryResponse::Ok {
            body: request.selector,
        })
    }

    async fn pets_named(
        &self,
        _: RequestContext,
        request: PetsNamedRequest,
    ) -> Result<PetsNamedResponse, ApiError> {
        let name = request.name.unwrap_or_else(|| "(no query)".to_owned());
        Ok(PetsNamedResponse::Ok {
            body: Pet::new(1, name),
        })
    }

    async fn legacy_pets(
        &self,
        _: RequestContext,
        _: LegacyPetsRequest,
    ) -> Result<LegacyPetsResponse, ApiError> {
        Ok(LegacyPetsResponse::NoContent)
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

/// Serves as [`serve`] does, keeping the raw query string of every request
/// the server is sent, as it came.
async fn serve_keeping_queries() -> (SocketAddr, Client, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = seen.clone();
    let app = router(Pets).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let query = request.uri().query().unwrap_or_default().to_owned();
            keep.lock().unwrap().push(query);
            next.run(request)
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (addr, client, seen)
}

/// `GET /raw` with `query` as it is, answered: the status and the body.
async fn raw_get(addr: SocketAddr, path_and_query: &str) -> (u16, String) {
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}{path_and_query}"))
        .send()
        .await
        .unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}

#[tokio::test]
async fn a_json_querystring_is_the_whole_query_percent_encoded() {
    let (addr, client, seen) = serve_keeping_queries().await;
    let selector = Selector::new(vec![1, 2]).with_flag(true);
    let echoed = client.raw_query(selector.clone()).await.unwrap();
    assert_eq!(echoed, selector);
    // On the wire: the JSON text, every byte but the unreserved ones
    // percent-encoded, as the specification's example is.
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        ["%7B%22numbers%22%3A%5B1%2C2%5D%2C%22flag%22%3Atrue%7D"]
    );
    // The specification's own example, from another client, with a null.
    let (status, text) = raw_get(
        addr,
        "/raw?%7B%22numbers%22%3A%5B1%2C2%5D%2C%22flag%22%3Anull%7D",
    )
    .await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(text, r#"{"numbers":[1,2]}"#);
}

#[tokio::test]
async fn a_json_querystring_that_breaks_its_schema_is_refused_with_a_pointer() {
    let (addr, _) = serve().await;
    // `{"numbers":[1,"x"]}`: the item's place, under the parameter's name.
    let (status, text) = raw_get(addr, "/raw?%7B%22numbers%22%3A%5B1%2C%22x%22%5D%7D").await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains(r#""property":"selector.numbers[1]""#) && text.contains("InvalidType"),
        "{text}"
    );
    // `{"numbers":[-1,0,1,2]}`: too many, and one below its minimum.
    let (status, text) = raw_get(
        addr,
        "/raw?%7B%22numbers%22%3A%5B-1%2C0%2C1%2C2%5D%7D",
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains(r#""property":"selector.numbers""#), "{text}");
    assert!(text.contains(r#""property":"selector.numbers[0]""#), "{text}");
    // Form pairs are not JSON.
    let (status, text) = raw_get(addr, "/raw?numbers=1").await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains(r#""property":"selector""#) && text.contains("InvalidJson"),
        "{text}"
    );
}

#[tokio::test]
async fn a_required_querystring_must_be_there() {
    let (addr, _) = serve().await;
    for path in ["/raw", "/raw?"] {
        let (status, text) = raw_get(addr, path).await;
        assert_eq!(status, 400, "{path}: {text}");
        assert!(
            text.contains(r#"{"property":"selector","detail":"is required","code":"Required"}"#),
            "{path}: {text}"
        );
    }
}

#[tokio::test]
async fn a_text_querystring_is_the_whole_query_as_text() {
    let (_, client, seen) = serve_keeping_queries().await;
    let pet = client
        .pets_named(PetsNamedParams::default().name("Rex & Tom+1"))
        .await
        .unwrap();
    assert_eq!(pet.name, "Rex & Tom+1");
    // Absent, it is `None`; too long, it is refused by its schema.
    let pet = client.pets_named(PetsNamedParams::default()).await.unwrap();
    assert_eq!(pet.name, "(no query)");
    let error = client
        .pets_named(PetsNamedParams::default().name("x".repeat(21)))
        .await
        .unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(400), "{error:?}");
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        ["Rex%20%26%20Tom%2B1", "", &"x".repeat(21)]
    );
}

#[tokio::test]
async fn a_querystring_in_xml_is_left_out_and_ignored_by_the_server() {
    let (addr, client) = serve().await;
    client.legacy_pets().await.unwrap();
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/pets/legacy?%3Ca%2F%3E"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 204);
}

#[tokio::test]
async fn json_lines_come_down_as_items_and_go_up_checked_item_by_item() {
    let (addr, client) = serve().await;
    let pets = client.export_pets().await.unwrap();
    assert_eq!(pets.len(), 1000);
    assert_eq!((pets[999].id, pets[999].name.as_str()), (999, "pet 999"));
    // Each line is one pet on the wire.
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/pets/export"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["content-type"], "application/jsonl");
    let text = answer.text().await.unwrap();
    assert_eq!(text.lines().count(), 1000);
    assert!(text.starts_with("{\"id\":0,\"name\":\"pet 0\"}\n"), "{text:.60}");

    let sent = [Pet::new(3, "Rex"), Pet::new(4, "Tom")];
    assert_eq!(client.import_pets(&sent).await.unwrap(), 7);
    // A line that is not a pet is refused, named by its place.
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .post(format!("http://{addr}/pets/import"))
        .header("content-type", "application/x-ndjson")
        .body("{\"id\":1,\"name\":\"Rex\"}\n{\"id\":2}\n")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
    let text = answer.text().await.unwrap();
    assert!(text.contains(r#""property":"[1].name""#), "{text}");
    let answer = fixture_openapi_3_2_client::reqwest::Client::new()
        .post(format!("http://{addr}/pets/import"))
        .header("content-type", "application/x-ndjson")
        .body("{\"id\":1,\"name\":\"Rex\"}\nnot json\n")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 400);
    assert!(answer.text().await.unwrap().contains("item 1 is not JSON"));
}

/// The ids of the pets `importPets` has taken, as it takes them.
static IMPORTED: std::sync::Mutex<Vec<i64>> = std::sync::Mutex::new(Vec::new());

/// Writes all of `text` to `socket` (tokio's `net` alone, without its
/// `io-util`, which the loopback crate does not have).
async fn write_all(socket: &tokio::net::TcpStream, text: &str) {
    let mut bytes = text.as_bytes();
    while !bytes.is_empty() {
        socket.writable().await.unwrap();
        match socket.try_write(bytes) {
            Ok(written) => bytes = &bytes[written..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{e}"),
        }
    }
}

/// Everything `socket` reads until the server closes it.
async fn read_to_end(socket: &tokio::net::TcpStream) -> String {
    let mut out = Vec::new();
    let mut buffer = [0; 4096];
    loop {
        socket.readable().await.unwrap();
        match socket.try_read(&mut buffer) {
            Ok(0) => return String::from_utf8(out).unwrap(),
            Ok(read) => out.extend_from_slice(&buffer[..read]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{e}"),
        }
    }
}

#[tokio::test]
async fn items_up_reach_the_method_before_the_body_has_ended() {
    let (addr, _) = serve().await;
    let socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let chunk = |line: &str| format!("{:x}\r\n{line}\r\n", line.len());
    write_all(
        &socket,
        "POST /pets/import HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\
         content-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\n\r\n",
    )
    .await;
    write_all(&socket, &chunk("{\"id\":4242,\"name\":\"first\"}\n")).await;
    // The rest is sent only once the method has taken the first pet.
    let taken = async {
        while !IMPORTED.lock().unwrap().contains(&4242) {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), taken)
        .await
        .expect("the first pet reaches the method before the body has ended");
    write_all(&socket, &chunk("{\"id\":1,\"name\":\"second\"}\n")).await;
    write_all(&socket, "0\r\n\r\n").await;
    let answer = read_to_end(&socket).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("\r\n\r\n4243"), "{answer}");
}

#[tokio::test]
async fn a_json_text_sequence_is_framed_by_record_separators() {
    let (addr, client) = serve().await;
    let log = client.pet_log(Default::default()).await.unwrap();
    assert_eq!(
        log,
        [
            PetLogResponseItem::new(1, PetLogResponseItemChange::Added),
            PetLogResponseItem::new(1, PetLogResponseItemChange::Renamed),
        ]
    );
    let bytes = fixture_openapi_3_2_client::reqwest::Client::new()
        .get(format!("http://{addr}/pets/log"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes.iter().filter(|&&b| b == 0x1e).count(), 2);
    assert_eq!(bytes[0], 0x1e);
}

#[tokio::test]
async fn server_sent_events_of_an_item_schema_have_typed_data() {
    let (_, client) = serve().await;
    let events = client.pet_feed_events().await.unwrap();
    let pets: Vec<Pet> = events.map(|e| e.unwrap().data).collect().await;
    let names: Vec<_> = pets.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Rex", "Tom"]);
}

#[tokio::test]
async fn a_sequences_items_come_as_they_are_written() {
    let (_, client) = serve().await;
    let mut pets = client.export_pets_items().await.unwrap();
    let mut count = 0;
    while let Some(pet) = pets.next().await {
        assert_eq!(pet.unwrap().id, count);
        count += 1;
    }
    assert_eq!(count, 1000);
    // An answer that stays open still gives the items written so far.
    let mut log = client
        .pet_log_items(PetLogParams::default().follow(true))
        .await
        .unwrap();
    for change in [PetLogResponseItemChange::Added, PetLogResponseItemChange::Renamed] {
        let entry = tokio::time::timeout(std::time::Duration::from_secs(10), log.next())
            .await
            .expect("an entry written is read before the answer ends")
            .unwrap()
            .unwrap();
        assert_eq!(entry, PetLogResponseItem::new(1, change));
    }
}
