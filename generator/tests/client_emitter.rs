//! The client emitter over a document with what the project's own spec does
//! not use: several success statuses, raw bodies, header and cookie
//! parameters, array styles, basic, bearer, query and cookie credentials,
//! server variables with allowed values, `default` as the only answer.

use std::path::{Path, PathBuf};

use openapi_codegen::config::{CrateTarget, Target};
use openapi_codegen::{Error, Generated, generate};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn target() -> Target {
    Target {
        spec: PathBuf::from("client-features.yaml"),
        models: CrateTarget {
            package: "client-features-models".to_owned(),
            path: PathBuf::from("models"),
        },
        client: Some(CrateTarget {
            package: "client-features-client".to_owned(),
            path: PathBuf::from("client"),
        }),
        server: None,
        trait_name: None,
        error_schema: None,
        bearer_api_keys: Vec::new(),
        client_accepts_data_envelope: true,
        client_example: None,
        version: None,
        changelog: None,
        open_enums: true,
        encoded_answers: Vec::new(),
        models_in_client: false,
        server_in_client: false,
    }
}

fn file<'a>(generated: &'a Generated, path: &str) -> &'a str {
    generated
        .files
        .get(path)
        .unwrap_or_else(|| panic!("{path} is not generated"))
}

/// `text` without the line breaks and indentation of prettyplease's layout.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn writes_the_client_crate() {
    let generated = generate(&data(), &target(), "test").unwrap();
    for path in [
        "client/Cargo.toml",
        "client/README.md",
        "client/src/lib.rs",
        "client/src/client.rs",
        "client/src/config.rs",
        "client/src/operations.rs",
    ] {
        file(&generated, path);
    }
    // What is the same for every API is the runtime's, not the crate's.
    for path in ["error", "retry", "transport", "paging"] {
        assert!(
            generated
                .files
                .get(format!("client/src/{path}.rs"))
                .is_none(),
            "{path}.rs is generated"
        );
    }
    let manifest = file(&generated, "client/Cargo.toml");
    assert!(manifest.contains("client-features-models.workspace = true"));
    assert!(manifest.contains("openapi-runtime = { workspace = true, features = [\"client\"] }"));
    assert!(
        manifest.contains("bytes.workspace = true"),
        "raw bodies are `bytes::Bytes`"
    );
}

#[test]
fn operations_take_typed_arguments_and_return_typed_results() {
    let generated = generate(&data(), &target(), "test").unwrap();
    let ops = flat(file(&generated, "client/src/operations.rs"));
    for expected in [
        // Path parameters in the path's order, typed; optional inputs in a struct.
        "pub async fn get_item( &self, kind: crate::models::Kind, id: i64, params: GetItemParams, ) -> Result<GetItemResponse, crate::Error>",
        // Several success statuses: an enum; exact statuses before ranges.
        "pub enum GetItemResponse { /// 200: The item. Ok(crate::models::Item), /// 204: Nothing to show. NoContent, }",
        "200 => { let __body = __answer.json::<crate::models::Item>(Envelope::Probe)?; Ok( __answer .into_response(GetItemResponse::Ok(__body), GetItemHeaders::read), ) }",
        "204 => { Ok( __answer .into_response(GetItemResponse::NoContent, GetItemHeaders::read), ) }",
        // Array styles, header and cookie parameters.
        "__call.query(\"fields\", &params.fields, Style::Pipe, false);",
        "__call.query(\"tags\", &params.tags, Style::Comma, true);",
        "__call.header(\"X-Trace\", &params.x_trace);",
        "__call.cookie(\"session\", &params.session);",
        // Raw bodies and text answers.
        "pub async fn put_blob( &self, name: &str, body: impl Into<bytes::Bytes>, ) -> Result<String, crate::Error>",
        "__call.body(\"application/octet-stream\", Into::<bytes::Bytes>::into(body));",
        "if let Some(__body) = params.body { __call.body(\"text/plain\", bytes::Bytes::from(__body)); }",
        // `default` as the only documented answer: any 2xx.
        "200..=299 => { let __body = __answer.json::<crate::models::Item>(Envelope::Probe)?; Ok(__answer.into_response(__body, AddNoteHeaders::read)) }",
        // Security per operation.
        "Scheme::Basic",
        "Scheme::Cookie { name: \"token\" }",
        "Scheme::Header { name: \"Authorization\", prefix: Some(\"Bearer\"), }",
        "Scheme::Query { name: \"api_key\" }",
        "const SECURITY: &[&[Scheme]] = &[];",
        // Arrays by reference; forms.
        "pub async fn delete_things(&self, ids: &[i64]) -> Result<(), crate::Error>",
        "__call.form_body(\"application/x-www-form-urlencoded\", body);",
        ".json::<Vec<crate::models::Item>>(Envelope::Fallback)?",
        // No body documented for success, or no success documented: `()` on any 2xx.
        "pub async fn ping(&self) -> Result<(), crate::Error>",
        "match __answer.status() { 200..=299 => Ok(__answer.into_response((), PingHeaders::read)), _ => Err(__answer.into_error()), }",
        // The plain method is the `…_with_response` one, keeping the body.
        "pub async fn ping(&self) -> Result<(), crate::Error> { self.ping_with_response().await.map(Response::into_inner) }",
        "pub async fn ping_with_response( &self, ) -> Result<Response<(), PingHeaders>, crate::Error>",
        "pub async fn probe(&self) -> Result<(), crate::Error>",
        // A paged listing with other arguments: they are passed to every page.
        "pub fn list_books_stream( &self, shelf: &str, x_library: i64, query: crate::models::ListBooksQQuery, params: ListBooksParams, ) -> impl futures_util::Stream< Item = Result<crate::models::Item, crate::Error>, > + Send + 'static",
        "let __params = params.clone().q(__query);",
        "offset: __page.offset, total: __page.data_set_count,",
    ] {
        assert!(
            ops.contains(expected),
            "operations.rs lacks\n{expected}\n\n{ops}"
        );
    }
    assert!(
        !ops.contains("\"Accept\", &params"),
        "an `Accept` header parameter is ignored, as OpenAPI says"
    );
}

#[test]
fn the_environments_are_the_servers_and_credentials_their_schemes() {
    let generated = generate(&data(), &target(), "test").unwrap();
    let config = flat(file(&generated, "client/src/config.rs"));
    for expected in [
        "#[default] Main,",
        "Main, /// The server `https://sandbox.example.com`.",
        "Server2, /// Any base URL",
        "ServerVariable { name: \"scheme\", default: \"https\", allowed: &[\"https\", \"http\"], }",
        // The variables in the docs: the values a variable allows, when
        // the document lists them.
        "/// - `scheme` (default `https`; one of `https`, `http`)",
        "/// - `version` (default `v2`)",
        "pub fn token(mut self, token: impl Into<String>) -> Self",
        "pub fn basic_auth( mut self, user: impl Into<String>, password: impl Into<String>, ) -> Self",
    ] {
        assert!(
            config.contains(expected),
            "config.rs lacks\n{expected}\n\n{config}"
        );
    }
}

#[test]
fn envelope_handling_follows_the_target() {
    let mut target = target();
    target.client_accepts_data_envelope = false;
    let generated = generate(&data(), &target, "test").unwrap();
    let ops = file(&generated, "client/src/operations.rs");
    assert!(!ops.contains("Envelope::Probe") && !ops.contains("Envelope::Fallback"));
    assert!(ops.contains("Envelope::Bare"));
}

#[test]
fn the_readme_lists_the_operations_and_takes_the_targets_example() {
    let mut target = target();
    let generic = generate(&data(), &target, "test").unwrap();
    let readme = file(&generic, "client/README.md");
    assert!(readme.contains("| `get_item(kind: models::Kind, id: i64, params: GetItemParams)` | `GET /items/{kind}/{id}` | `GetItemResponse` | Read an item. |"), "{readme}");
    assert!(
        readme.contains("| `Environment::Main` | `https://api.example.com/v2` |"),
        "{readme}"
    );
    assert!(
        readme.contains("CLIENT_FEATURES_CLIENT_BASE_URL"),
        "a generic example: {readme}"
    );

    target.client_example = Some(PathBuf::from("client-example.rs"));
    let specific = generate(&data(), &target, "test").unwrap();
    let readme = file(&specific, "client/README.md");
    assert!(
        readme.contains("client.delete_things(&[1, 2]).await?;"),
        "{readme}"
    );
    assert!(
        file(&specific, "client/src/lib.rs").contains("#![doc = include_str!(\"../README.md\")]")
    );
}

#[test]
fn an_error_schema_must_be_a_schema_of_the_document() {
    let mut target = target();
    target.error_schema = Some("Problem".to_owned());
    let error = generate(&data(), &target, "test").unwrap_err();
    assert!(matches!(error, Error::Config { .. }), "{error}");
    assert!(
        error.to_string().contains("`error-schema` names `Problem`"),
        "{error}"
    );

    target.error_schema = Some("Item".to_owned());
    let generated = generate(&data(), &target, "test").unwrap();
    assert!(file(&generated, "client/src/lib.rs").contains("pub type ErrorBody = models::Item;"));
}

#[test]
fn an_api_key_in_authorization_gets_bearer_only_where_the_settings_ask() {
    let text = r#"
openapi: 3.0.3
info: {title: Keys, version: '1'}
security: [{token: []}]
paths:
  /ping:
    get:
      operationId: ping
      responses:
        '204': {description: Up.}
components:
  securitySchemes:
    token: {type: apiKey, in: header, name: Authorization}
"#;
    let doc = openapi_codegen::parse::Document::parse(text, "keys.yaml", false).unwrap();
    let mut target = target();
    let generate = |target: &Target| openapi_codegen::generate_from(&doc, target, "test");
    let generated = generate(&target).unwrap();
    let ops = flat(file(&generated, "client/src/operations.rs"));
    assert!(
        ops.contains("Scheme::Header { name: \"Authorization\", prefix: None, }"),
        "{ops}"
    );
    assert!(
        !flat(file(&generated, "client/src/config.rs")).contains("Bearer <token>"),
        "the docs do not promise a prefix"
    );

    target.bearer_api_keys = vec!["token".to_owned()];
    let generated = generate(&target).unwrap();
    let ops = flat(file(&generated, "client/src/operations.rs"));
    assert!(
        ops.contains("Scheme::Header { name: \"Authorization\", prefix: Some(\"Bearer\"), }"),
        "{ops}"
    );
    assert!(
        flat(file(&generated, "client/src/config.rs"))
            .contains("in the `Authorization` header as `Bearer <token>`")
    );

    // A name that is no API key in a header is a settings error.
    target.bearer_api_keys = vec!["tokens".to_owned()];
    let error = generate(&target).unwrap_err();
    assert!(matches!(error, Error::Config { .. }), "{error}");
    assert!(error.to_string().contains("`tokens`"), "{error}");
}

#[test]
fn no_client_target_no_client() {
    let mut target = target();
    target.client = None;
    let generated = generate(&data(), &target, "test").unwrap();
    assert!(generated.files.iter().all(|(p, _)| p.starts_with("models")));
}
