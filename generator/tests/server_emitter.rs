//! The server emitter on documents unlike ours: no security, no error
//! schema, `default` responses, query styles, forms, HTTP bearer auth.

use std::path::PathBuf;

use openapi_codegen::config::Target;
use openapi_codegen::parse::Document;

const PET_SHOP: &str = r#"
openapi: 3.0.3
info: {title: Pet Shop API, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: ids, in: query, style: pipeDelimited, explode: false, schema: {type: array, items: {type: integer}}}
        - {name: kind, in: query, schema: {$ref: '#/components/schemas/Kind'}}
        - {name: X-Trace, in: header, schema: {type: string, maxLength: 8}}
      responses:
        '200': {description: The pets., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}}}}
        '404': {description: None., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
        default: {description: Other., content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
    post:
      operationId: addPet
      requestBody: {required: true, content: {application/x-www-form-urlencoded: {schema: {$ref: '#/components/schemas/Pet'}}}}
      responses:
        '204': {description: Added.}
  /pets/{name}.json:
    get:
      operationId: getPet
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: The pet., content: {text/plain: {schema: {type: string}}}}
components:
  schemas:
    Kind: {type: string, enum: [cat, dog]}
    Pet: {type: object, required: [name], properties: {name: {type: string}, age: {type: integer}}}
    Error: {type: object, properties: {message: {type: string}}}
"#;

fn generate(text: &str, error_schema: Option<&str>) -> openapi_codegen::emit::Files {
    let doc = Document::parse(text, "shop.yaml", false).expect("a valid document");
    let mut target = Target::standalone(PathBuf::from("shop.yaml"), "shop");
    target.client = None;
    target.error_schema = error_schema.map(str::to_owned);
    openapi_codegen::generate_from(&doc, &target, "the test")
        .expect("generated")
        .files
}

fn file<'a>(files: &'a openapi_codegen::emit::Files, path: &str) -> &'a str {
    files
        .get(path)
        .unwrap_or_else(|| panic!("{path} is generated"))
}

#[test]
fn a_document_without_security_has_no_hook_and_no_principal() {
    let files = generate(PET_SHOP, None);
    let api = file(&files, "server/src/api.rs");
    assert!(api.contains("pub trait PetShopApi: Send + Sync + 'static {"));
    assert!(api.contains("pub struct RequestContext {"));
    assert!(!api.contains("Principal"));
    assert!(!api.contains("fn authenticate"));
    assert!(files.get("server/src/security.rs").is_none());
    assert!(!file(&files, "server/src/lib.rs").contains("security"));
}

#[test]
fn without_an_error_schema_every_response_is_a_variant() {
    let files = generate(PET_SHOP, None);
    let responses = file(&files, "server/src/responses.rs");
    let list = responses
        .split("pub enum ListPetsResponse {")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("the enum");
    assert!(list.contains("Ok {"));
    assert!(list.contains("NotFound {"));
    assert!(list.contains("Default {"));
    assert!(list.contains("status: http::StatusCode,"));
    assert!(responses.contains("pub enum AddPetResponse {"));
    assert!(responses.contains("NoContent,"));
}

#[test]
fn with_an_error_schema_its_responses_are_not_variants() {
    let files = generate(PET_SHOP, Some("Error"));
    let responses = file(&files, "server/src/responses.rs");
    let list = responses
        .split("pub enum ListPetsResponse {")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("the enum");
    assert!(list.contains("Ok {"));
    assert!(!list.contains("NotFound"));
    assert!(!list.contains("Default"));
    // An error schema the document does not have is a clear error.
    let doc = Document::parse(PET_SHOP, "shop.yaml", false).unwrap();
    let mut target = Target::standalone(PathBuf::from("shop.yaml"), "shop");
    target.error_schema = Some("Problem".to_owned());
    let error = openapi_codegen::generate_from(&doc, &target, "the test").unwrap_err();
    assert!(error.to_string().contains("`Problem`"), "{error}");
}

#[test]
fn parameters_are_read_by_location_and_style() {
    let files = generate(PET_SHOP, None);
    let routes = file(&files, "server/src/routes.rs");
    for expected in [
        "params::exploded(tags, \"tags\", false, &mut report)",
        "params::list(ids, '|', \"ids\", false, &mut report)",
        "let kind: Option<models::Kind> = params::value(kind, \"kind\", false, &mut report)",
        "let x_trace: Option<String> = params::header(",
        "\"x-trace\",\n        \"X-Trace\",",
        "let name: Option<String> = params::path(",
        "2,\n        \"\",\n        \".json\",\n        \"name\",",
        "body::form(",
        ".route(\n            \"/pets/{name}.json\",",
    ] {
        assert!(
            routes.contains(expected),
            "routes.rs lacks {expected}:\n{routes}"
        );
    }
    // The header's maxLength is checked.
    assert!(routes.contains("check_length(text, None, Some(8), None, path, report)"));
    // The models' own types parse from text where the types are (the orphan rule).
    let params = file(&files, "models/src/params.rs");
    assert!(
        params.contains("impl FromParam for crate::Kind"),
        "{params}"
    );
}

#[test]
fn http_bearer_credentials_come_from_the_authorization_header() {
    let secured = PET_SHOP.replace(
        "components:\n",
        "security: [{bearer: []}]\ncomponents:\n  securitySchemes:\n    bearer: {type: http, scheme: bearer}\n",
    );
    let files = generate(&secured, None);
    let security = file(&files, "server/src/security.rs");
    assert!(security.contains("params::authorization(&parts.headers, \"bearer\")"));
    assert!(security.contains("pub(crate) async fn authenticate_bearer<"));
    let api = file(&files, "server/src/api.rs");
    assert!(api.contains("type Principal: Send + Sync + 'static;"));
    assert!(api.contains("context: RequestContext<Self::Principal>,"));
}
