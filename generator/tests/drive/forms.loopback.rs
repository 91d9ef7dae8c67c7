//! The generated client against the generated server on loopback: a file
//! upload (bytes, file name, media type and text fields arrive intact), a
//! form body, `deepObject` and exploded `form` object query parameters, a
//! multipart body whose schema lists no parts (its parts as they are), a
//! `multipart/related` body, and the 400s that list every problem of a bad
//! request.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use fixture_forms_client::models::serde_json::{self, Value};
use fixture_forms_client::models::{
    Credentials, Filter, FilterCreated, FilterStatus, IssueTokenBody, Page, PasswordGrant, Query,
    Range, Receipt, RefreshGrant, StoreDocumentBodyMetadata, UploadKind, UploadMeta,
};
use fixture_forms_client::{
    Client, File, ImportAnyParams, LookUpParams, Parts, PutAvatarForm, PutAvatarParams,
    SearchParams, StoreDocumentForm, UploadForm,
};
use fixture_forms_server::{
    ApiError, DetectRequest, DetectResponse, FormsApi, ImportAnyRequest, ImportAnyResponse,
    IssueTokenRequest, IssueTokenResponse, LogInRequest, LogInResponse, LookUpRequest,
    LookUpResponse, PutAvatarRequest, PutAvatarResponse, RequestContext, SearchRequest,
    SearchResponse, SetColumnsRequest, SetColumnsResponse, StoreDocumentRequest,
    StoreDocumentResponse, UploadRequest, UploadResponse, router,
};

/// Answers with what it was sent.
struct Echo;

/// Each part as `name:filename:media type:text`.
fn described(parts: &fixture_forms_server::multipart::Parts) -> Vec<String> {
    parts
        .iter()
        .map(|part| {
            let file = &part.value;
            format!(
                "{}:{}:{}:{}",
                part.name,
                file.filename.clone().unwrap_or_default(),
                file.content_type.clone().unwrap_or_default(),
                String::from_utf8_lossy(&file.bytes)
            )
        })
        .collect()
}

impl FormsApi for Echo {
    async fn upload(
        &self,
        _: RequestContext,
        request: UploadRequest,
    ) -> Result<UploadResponse, ApiError> {
        let form = request.body;
        let text = |file: &fixture_forms_server::multipart::File| {
            format!(
                "{}:{}:{}",
                file.filename.clone().unwrap_or_default(),
                file.content_type.clone().unwrap_or_default(),
                String::from_utf8_lossy(&file.bytes)
            )
        };
        let mut receipt = Receipt::new(
            form.file.filename.clone().unwrap_or_default(),
            form.file.content_type.clone().unwrap_or_default(),
            i64::try_from(form.file.bytes.len()).unwrap(),
            form.title.clone(),
            form.tags.clone().unwrap_or_default(),
            form.attachments.iter().map(text).collect(),
        );
        if let Some(count) = form.count {
            receipt = receipt.with_count(count);
        }
        if let Some(source) = form.meta.and_then(|meta| meta.source) {
            receipt = receipt.with_source(source);
        }
        // The bytes themselves, compared in the test through their size and
        // a checksum-like text: every byte value survives.
        let all_bytes: Vec<u8> = (0..=255).collect();
        if form.file.bytes.as_ref() != [b"\r\n--".as_slice(), &all_bytes].concat() {
            return Err(ApiError::conflict(
                "Mismatch",
                "the file's bytes changed on the way",
            ));
        }
        Ok(UploadResponse::Created { body: receipt })
    }

    async fn put_avatar(
        &self,
        _: RequestContext,
        request: PutAvatarRequest,
    ) -> Result<PutAvatarResponse, ApiError> {
        let body = request.body.expect("the test sends a body");
        assert_eq!(body.caption.as_deref(), Some("me"));
        assert_eq!(body.image.map(|f| f.bytes.len()), Some(3));
        Ok(PutAvatarResponse::NoContent)
    }

    async fn set_columns(
        &self,
        _: RequestContext,
        request: SetColumnsRequest,
    ) -> Result<SetColumnsResponse, ApiError> {
        Ok(SetColumnsResponse::Ok {
            body: described(&request.body),
        })
    }

    async fn import_any(
        &self,
        _: RequestContext,
        request: ImportAnyRequest,
    ) -> Result<ImportAnyResponse, ApiError> {
        Ok(ImportAnyResponse::Ok {
            body: request.body.as_ref().map(described).unwrap_or_default(),
        })
    }

    async fn store_document(
        &self,
        _: RequestContext,
        request: StoreDocumentRequest,
    ) -> Result<StoreDocumentResponse, ApiError> {
        Ok(StoreDocumentResponse::Ok {
            body: format!(
                "{}:{}",
                request.body.metadata.name,
                request.body.media.bytes.len()
            ),
        })
    }

    async fn look_up(
        &self,
        _: RequestContext,
        request: LookUpRequest,
    ) -> Result<LookUpResponse, ApiError> {
        let mut texts = vec![request.ids];
        texts.extend(request.x_meta);
        texts.extend(request.plain.map(|n| n.to_string()));
        texts.extend(request.pairs.unwrap_or_default());
        Ok(LookUpResponse::Ok {
            body: texts,
            x_cursor: Some(r#"{"cursor":"c2"}"#.to_owned()),
        })
    }

    async fn issue_token(
        &self,
        _: RequestContext,
        request: IssueTokenRequest,
    ) -> Result<IssueTokenResponse, ApiError> {
        let body = match request.body {
            IssueTokenBody::PasswordGrant(grant) => {
                vec![grant.grant_type, grant.username, grant.password]
            }
            IssueTokenBody::RefreshGrant(grant) => vec![
                grant.grant_type,
                grant.refresh_token,
                grant.lifetime.map(|l| l.to_string()).unwrap_or_default(),
            ],
        };
        Ok(IssueTokenResponse::Ok { body })
    }

    async fn detect(
        &self,
        _: RequestContext,
        request: DetectRequest,
    ) -> Result<DetectResponse, ApiError> {
        Ok(DetectResponse::Ok {
            body: vec![request.body],
        })
    }

    async fn log_in(
        &self,
        _: RequestContext,
        request: LogInRequest,
    ) -> Result<LogInResponse, ApiError> {
        Ok(LogInResponse::Ok { body: request.body })
    }

    async fn search(
        &self,
        _: RequestContext,
        request: SearchRequest,
    ) -> Result<SearchResponse, ApiError> {
        let mut query = Query::new().with_page(request.page);
        if let Some(filter) = request.filter {
            query = query.with_filter(filter);
        }
        if let Some(labels) = request.labels {
            query = query.with_labels(labels);
        }
        if let Some(q) = request.q {
            query = query.with_q(q);
        }
        Ok(SearchResponse::Ok { body: query })
    }
}

async fn serve() -> (SocketAddr, Client) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(Echo)).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (addr, client)
}

/// The names of the problems a 400 lists, sorted, in whichever error format
/// the server writes: the first list of objects with a `property` (or a
/// `pointer`, `name` or `field`).
fn problems(body: &Value) -> Vec<String> {
    fn find(value: &Value) -> Option<Vec<String>> {
        match value {
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .map(|item| {
                    ["property", "pointer", "name", "field"]
                        .iter()
                        .find_map(|key| item.get(*key)?.as_str())
                        .map(|name| name.trim_start_matches('/').to_owned())
                })
                .collect(),
            Value::Object(object) => object.values().find_map(find),
            _ => None,
        }
    }
    let mut found = find(body).unwrap_or_else(|| panic!("no problems in {body}"));
    found.sort();
    found
}

/// Sends a request the generated client would not write; the answer's
/// status and JSON body.
async fn raw(request: fixture_forms_client::reqwest::RequestBuilder) -> (u16, Value) {
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    let body = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    (status, body)
}

#[tokio::test]
async fn a_file_and_its_fields_arrive_intact() {
    let (_, client) = serve().await;
    // Bytes that look like the multipart syntax, and every byte value.
    let bytes: Vec<u8> = [b"\r\n--".as_slice(), &(0..=255).collect::<Vec<u8>>()].concat();
    let form = UploadForm::new(
        File::new(bytes.clone())
            .with_filename("snap shot \"1\".png")
            .with_content_type("image/png"),
        "Holiday",
    )
    .with_tags(vec!["sea".to_owned(), "sun, sand".to_owned()])
    .with_count(3)
    .with_kind(UploadKind::Photo)
    .with_attachments(vec![
        File::new(&b"first"[..]).with_filename("a.txt"),
        File::new(&b"second"[..]),
    ])
    .with_meta(UploadMeta::new().with_source("camera"));
    let receipt = client.upload(&form).await.unwrap();
    assert_eq!(receipt.filename, "snap shot \"1\".png");
    assert_eq!(receipt.content_type, "image/png");
    assert_eq!(receipt.size, i64::try_from(bytes.len()).unwrap());
    assert_eq!(receipt.title, "Holiday");
    assert_eq!(receipt.tags, ["sea", "sun, sand"]);
    assert_eq!(receipt.count, Some(3));
    assert_eq!(receipt.source.as_deref(), Some("camera"));
    // A file without a name is sent under its part's name, as bytes.
    assert_eq!(
        receipt.attachments,
        [
            "a.txt:application/octet-stream:first",
            "attachments:application/octet-stream:second"
        ]
    );
}

#[tokio::test]
async fn a_media_type_named_form_data_is_multipart() {
    let (_, client) = serve().await;
    let form = PutAvatarForm::new()
        .with_image(File::new(&b"png"[..]))
        .with_caption("me");
    client
        .put_avatar(PutAvatarParams::default().body(form))
        .await
        .unwrap();
}

/// A `multipart/related` body goes out under that media type, which the
/// server checks, with its parts named as in a form.
#[tokio::test]
async fn a_multipart_related_body_is_sent_and_read_as_related() {
    let (addr, client) = serve().await;
    let form = StoreDocumentForm::new(
        StoreDocumentBodyMetadata::new("notes.txt"),
        File::new(&b"abc"[..]),
    );
    assert_eq!(client.store_document(&form).await.unwrap(), "notes.txt:3");
    let body = "--b\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\
                Content-Type: application/json\r\n\r\n{\"name\":\"x\"}\r\n\
                --b\r\nContent-Disposition: form-data; name=\"media\"; filename=\"m\"\r\n\r\n1\r\n\
                --b--\r\n";
    let send = |media_type: &str| {
        fixture_forms_client::reqwest::Client::new()
            .post(format!("http://{addr}/documents"))
            .header("content-type", format!("{media_type}; boundary=b"))
            .body(body)
    };
    let answer = send("multipart/related").send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "\"x:1\"");
    let (status, _) = raw(send("multipart/form-data")).await;
    assert_eq!(status, 415);
}

#[tokio::test]
async fn a_bad_multipart_body_is_one_400_listing_every_problem() {
    let (addr, _) = serve().await;
    let body = "--b\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\nmany\r\n\
                --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n1\r\n\
                --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"y\"\r\n\r\n2\r\n\
                --b\r\nContent-Disposition: form-data; name=\"surprise\"\r\n\r\n?\r\n\
                --b--\r\n";
    let (status, body) = raw(fixture_forms_client::reqwest::Client::new()
        .post(format!("http://{addr}/uploads"))
        .header("content-type", "multipart/form-data; boundary=b")
        .body(body))
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        problems(&body),
        ["count", "file", "surprise", "title"],
        "{body}"
    );
}

#[tokio::test]
async fn parts_a_schema_does_not_list_arrive_as_they_were_sent() {
    let (addr, client) = serve().await;
    let parts = Parts::new()
        .with_text("columns", "summary")
        .with_text("columns", "a \"quoted\" name")
        .with_file(
            "scan",
            File::new(&b"\r\n--x"[..])
                .with_filename("scan.png")
                .with_content_type("image/png"),
        );
    let described = client.set_columns(&parts).await.unwrap();
    assert_eq!(
        described,
        [
            "columns:::summary",
            "columns:::a \"quoted\" name",
            "scan:scan.png:image/png:\r\n--x",
        ]
    );
    // An optional body: absent, then given.
    let none = client.import_any(ImportAnyParams::default()).await.unwrap();
    assert!(none.is_empty());
    let one = client
        .import_any(ImportAnyParams::default().body(Parts::new().with_text("k", "v")))
        .await
        .unwrap();
    assert_eq!(one, ["k:::v"]);
    // A body that is not multipart is refused, not handed over empty.
    let (status, body) = raw(fixture_forms_client::reqwest::Client::new()
        .put(format!("http://{addr}/columns"))
        .header("content-type", "multipart/form-data; boundary=b")
        .body("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nno end"))
    .await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn parameters_with_json_content_are_sent_as_json_text() {
    // And each item of an array of arrays, exploded (`pairs=[1,2]&pairs=[3,4]`).
    let (_, client) = serve().await;
    let ids = ["a".to_owned(), "b,c".to_owned()];
    let answer = client
        .look_up_with_response(
            &ids,
            LookUpParams::default()
                .x_meta(Page::new().with_limit(5))
                .plain(7)
                .pairs(vec![vec![1, 2], vec![3, 4]]),
        )
        .await
        .unwrap();
    assert_eq!(
        answer.body(),
        &[r#"["a","b,c"]"#, r#"{"limit":5}"#, "7", "[1,2]", "[3,4]"]
    );
    assert_eq!(
        answer.declared().x_cursor.as_deref(),
        Some(r#"{"cursor":"c2"}"#)
    );
}

#[tokio::test]
async fn a_form_body_of_one_of_several_objects_round_trips() {
    let (addr, client) = serve().await;
    let password = IssueTokenBody::PasswordGrant(PasswordGrant::new("password", "ada", "s3cret&="));
    assert_eq!(
        client.issue_token(&password).await.unwrap(),
        ["password", "ada", "s3cret&="]
    );
    // The other alternative, its integer typed from the form's text.
    let refresh =
        IssueTokenBody::RefreshGrant(RefreshGrant::new("refresh_token", "r1").with_lifetime(60));
    assert_eq!(
        client.issue_token(&refresh).await.unwrap(),
        ["refresh_token", "r1", "60"]
    );
    // A bad value of the chosen alternative is a 400 naming it.
    let (status, body) = raw(fixture_forms_client::reqwest::Client::new()
        .post(format!("http://{addr}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=refresh_token&refresh_token=r&lifetime=0"))
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(problems(&body), ["lifetime"], "{body}");
    // A form whose schema is a string is its text as it is.
    assert_eq!(
        client.detect("text=tacos%20and%20pizza").await.unwrap(),
        ["text=tacos%20and%20pizza"]
    );
}

#[tokio::test]
async fn a_form_body_round_trips() {
    let (_, client) = serve().await;
    let credentials = Credentials::new("ada lovelace & co")
        .with_remember(true)
        .with_scopes(vec!["read".to_owned(), "write=all".to_owned()]);
    let answer = client.log_in(&credentials).await.unwrap();
    assert_eq!(answer, credentials);
}

#[tokio::test]
async fn object_query_parameters_round_trip() {
    let (_, client) = serve().await;
    let filter = Filter::new()
        .with_name("a[b]=c&d")
        .with_min_age(18)
        .with_status(FilterStatus::Active);
    let labels = BTreeMap::from([
        ("team".to_owned(), "blue".to_owned()),
        ("tier one".to_owned(), "x&y".to_owned()),
    ]);
    let page = Page::new().with_limit(10).with_cursor("c1");
    let query = client
        .search(
            page.clone(),
            SearchParams::default()
                .filter(filter.clone())
                .labels(labels.clone())
                .q("needle"),
        )
        .await
        .unwrap();
    assert_eq!(query.filter, Some(filter));
    assert_eq!(query.labels, Some(labels));
    assert_eq!(query.page, Some(page));
    assert_eq!(query.q.as_deref(), Some("needle"));
}

#[tokio::test]
async fn a_nested_object_of_a_query_parameter_round_trips_in_brackets() {
    let (addr, client) = serve().await;
    // `filter[created][gt]=1&filter[created][lt]=5`, and `filter[created]=7`:
    // the union's object alternative, then its integer one.
    for created in [
        FilterCreated::Range(Range::new().with_gt(1).with_lt(5)),
        FilterCreated::Integer(7),
    ] {
        let filter = Filter::new().with_name("n").with_created(created);
        let query = client
            .search(
                Page::new().with_limit(1),
                SearchParams::default().filter(filter.clone()),
            )
            .await
            .unwrap();
        assert_eq!(query.filter, Some(filter));
    }
    // A nested value that breaks its schema is named by its keys.
    let (status, body) = raw(fixture_forms_client::reqwest::Client::new().get(format!(
        "http://{addr}/search?filter[created][lt]=5000&limit=1"
    )))
    .await;
    assert_eq!(status, 400, "{body}");
    let named = problems(&body);
    assert!(
        named.iter().all(|p| p.starts_with("filter.created")) && !named.is_empty(),
        "{body}"
    );
}

#[tokio::test]
async fn bad_object_parameters_are_named_by_their_keys() {
    let (addr, client) = serve().await;
    let (status, body) = raw(fixture_forms_client::reqwest::Client::new().get(format!(
        "http://{addr}/search?filter[minAge]=old&filter[status]=lost&limit=1000&q=x"
    )))
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        problems(&body),
        ["filter.minAge", "filter.status", "limit"],
        "{body}"
    );
    // A required object parameter none of whose keys is given is missing.
    let error = client
        .search(Page::new(), SearchParams::default())
        .await
        .unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(400), "{error:?}");
}

/// A test double of the server trait builds a multipart body as a client
/// builds one: `new` with the required parts, a setter per optional part
/// (the struct is `#[non_exhaustive]`, so a part the document adds later
/// breaks no test that builds it).
#[test]
fn a_server_form_is_built_with_new_and_setters() {
    use fixture_forms_server::multipart::File as ServerFile;
    let form = fixture_forms_server::UploadForm::new(ServerFile::new("x".as_bytes()), "title")
        .with_count(2)
        .with_attachments(vec![ServerFile::new("a".as_bytes())]);
    assert_eq!(form.file.bytes.as_ref(), b"x");
    assert_eq!(form.title, "title");
    assert_eq!(form.count, Some(2));
    assert_eq!(form.attachments.len(), 1);
    assert_eq!((form.tags, form.kind, form.meta), (None, None, None));
    let empty = fixture_forms_server::PutAvatarForm::default();
    assert_eq!(empty, fixture_forms_server::PutAvatarForm::new());
    assert_eq!((empty.image, empty.caption), (None, None));
}
