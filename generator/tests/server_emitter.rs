//! The server emitter on documents unlike ours: no security, no error
//! schema, `default` responses, query styles, forms, HTTP bearer auth.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

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
fn errors_are_problem_details_without_an_error_schema() {
    let files = generate(PET_SHOP, None);
    let lib = file(&files, "server/src/lib.rs");
    assert!(
        lib.contains("pub type ErrorBodyFormat = openapi_runtime::server::error::ProblemDetails;"),
        "{lib}"
    );
}

/// A document whose error schema is neither the envelope nor problem details.
const OTHER_ERRORS: &str = r#"
openapi: 3.0.3
info: {title: Shop, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200': {description: The pets., content: {application/json: {schema: {type: array, items: {type: string}}}}}
        '400': {description: Bad., content: {application/vnd.shop.error+json: {schema: {$ref: '#/components/schemas/Failure'}}}}
components:
  schemas:
    Failure:
      type: object
      required: [statusCode, reason, traceId]
      properties:
        statusCode: {type: integer}
        reason: {type: string}
        traceId: {type: string}
        hint: {type: string}
        violations:
          type: array
          items:
            type: object
            required: [field, message]
            properties:
              field: {type: string}
              message: {type: string}
              rule: {type: string}
"#;

#[test]
fn errors_take_the_shape_of_the_error_schema() {
    let files = generate(OTHER_ERRORS, Some("Failure"));
    let lib = file(&files, "server/src/lib.rs");
    assert!(lib.contains("pub struct ErrorBodyFormat;"), "{lib}");
    let table: String = lib.split_whitespace().collect();
    for field in [
        r#"("statusCode",openapi_runtime::error_fields::Part::Status)"#,
        r#"("reason",openapi_runtime::error_fields::Part::Title)"#,
        r#"("traceId",openapi_runtime::error_fields::Part::RequestId)"#,
        r#"("field",openapi_runtime::error_fields::ProblemPart::Property)"#,
        r#"("message",openapi_runtime::error_fields::ProblemPart::Message)"#,
        r#"("rule",openapi_runtime::error_fields::ProblemPart::ErrorCode)"#,
        r#"constCONTENT_TYPE:&'staticstr="application/vnd.shop.error+json";"#,
    ] {
        assert!(table.contains(field), "{field} in:\n{lib}");
    }
    // An optional property that matches nothing is left out.
    assert!(!lib.contains("\"hint\""), "{lib}");
    // The request id's docs say where these bodies carry it.
    let api = file(&files, "server/src/api.rs");
    assert!(api.contains("and error bodies in `traceId`."), "{api}");
    let readme = file(&files, "server/README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        readme.contains("the shape of the document's `Failure`")
            && readme.contains("`Content-Type: application/vnd.shop.error+json`"),
        "{readme}"
    );

    // This interface's envelope is a table of its own too: the runtime
    // has no writer of it.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = Document::load(&root.join("spec/openapi.yaml"), "spec/openapi.yaml").unwrap();
    let config =
        openapi_codegen::config::Config::load(&root.join("spec/codegen.toml"), "spec/codegen.toml")
            .unwrap();
    let generated = openapi_codegen::generate_from(&doc, &config.api[0], "the test").unwrap();
    let lib = generated
        .files
        .get("generated-server-stubs/src/lib.rs")
        .expect("the server's lib.rs");
    assert!(lib.contains("pub struct ErrorBodyFormat;"), "{lib}");
    let table: String = lib.split_whitespace().collect();
    for field in [
        r#"("code",openapi_runtime::error_fields::Part::Status)"#,
        r#"("message",openapi_runtime::error_fields::Part::Message)"#,
        // Wrapped, with a trailing comma.
        r#"("errorCode",openapi_runtime::error_fields::ProblemPart::ErrorCode,)"#,
        r#"("requestId",openapi_runtime::error_fields::Part::RequestId)"#,
        r#"("timestamp",openapi_runtime::error_fields::Part::Timestamp)"#,
        r#"constCONTENT_TYPE:&'staticstr="application/json";"#,
    ] {
        assert!(table.contains(field), "{field} in:\n{lib}");
    }
}

#[test]
fn a_required_error_property_that_matches_nothing_is_an_error_with_its_pointer() {
    let text = OTHER_ERRORS.replace(
        "required: [statusCode, reason, traceId]",
        "required: [statusCode, reason, traceId, hint]",
    );
    let doc = Document::parse(&text, "shop.yaml", false).unwrap();
    let mut target = Target::standalone(PathBuf::from("shop.yaml"), "shop");
    target.error_schema = Some("Failure".to_owned());
    let error = openapi_codegen::generate_from(&doc, &target, "the test").unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("shop.yaml#/components/schemas/Failure/properties/hint"),
        "{message}"
    );
    assert!(message.contains("`hint`"), "{message}");
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
        // axum takes no text after a parameter: the route is the
        // parameter's, and the handler checks the path fits the template.
        ".route(\n            \"/pets/{name}\",",
        "if params::path_fits(request.uri().path(), \"/pets/{name}.json\") {",
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

#[test]
fn nested_object_parameters_stop_at_a_type_inside_itself() {
    let doc = r#"
openapi: 3.0.3
info: {title: Tree, version: '1'}
paths:
  /nodes:
    get:
      operationId: findNodes
      parameters:
        - {name: filter, in: query, style: deepObject, schema: {$ref: '#/components/schemas/Node'}}
      responses:
        '204': {description: Found.}
components:
  schemas:
    Node:
      type: object
      properties:
        name: {type: string}
        at: {$ref: '#/components/schemas/Point'}
        parent: {$ref: '#/components/schemas/Node'}
    Point:
      type: object
      properties:
        x: {type: integer}
"#;
    let files = generate(doc, None);
    let routes = file(&files, "server/src/routes.rs");
    let compact: String = routes.split_whitespace().collect();
    // `filter[at][x]=1` is read in brackets, typed…
    assert!(
        compact.contains(
            "name:\"at\",kind:body::FormKind::Object(&[body::FormField{name:\"x\",kind:body::FormKind::Integer"
        ),
        "{routes}"
    );
    // …and `parent`, a `Node` inside a `Node`, as JSON text: no endless fields.
    assert!(
        compact.contains("name:\"parent\",kind:body::FormKind::Json"),
        "{routes}"
    );
}

#[test]
fn a_nested_error_object_may_be_an_alias() {
    // The envelope's inline `error` is the same object as `Detail`, so an
    // alias of it (D48): its fields are still read as the error's.
    let files = generate(
        r##"openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: getA
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Detail'}
        '400':
          description: bad
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Failure'}
components:
  schemas:
    Failure:
      type: object
      required: [error]
      properties:
        error:
          type: object
          properties:
            code: {type: string}
            message: {type: string}
    Detail:
      type: object
      properties:
        code: {type: string}
        message: {type: string}
"##,
        Some("Failure"),
    );
    let lib: String = file(&files, "server/src/lib.rs")
        .split_whitespace()
        .collect();
    assert!(
        lib.contains(r#"("message",openapi_runtime::error_fields::Part::Message)"#),
        "{lib}"
    );
}

#[test]
fn a_tagged_alternative_that_is_a_copy_is_read_through_its_alias() {
    // Pet's `cat` alternative is written out again as `Aaa.first`, which
    // comes first: the alternative is an alias of `AaaFirst` (D48). Both
    // alternatives require their tag, so the union derives its
    // serialisation instead of writing the tag itself.
    let files = generate(
        r##"openapi: 3.0.3
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Aaa:
      type: object
      properties:
        first: {type: object, required: [kind, name], properties: {kind: {type: string, enum: [cat]}, name: {type: string}}}
    Pet:
      oneOf:
        - {type: object, required: [kind, name], properties: {kind: {type: string, enum: [cat]}, name: {type: string}}}
        - {type: object, required: [kind, bark], properties: {kind: {type: string, enum: [dog]}, bark: {type: boolean}}}
      discriminator: {propertyName: kind}
"##,
        None,
    );
    let models = file(&files, "models/src/common.rs");
    assert!(models.contains("= AaaFirst;"), "{models}");
    assert!(!models.contains("serialize_tagged"), "{models}");
}

#[test]
fn encoded_answers_get_a_twin_whose_body_is_sent_as_it_is() {
    let doc = Document::parse(PET_SHOP, "shop.yaml", false).expect("a valid document");
    let mut target = Target::standalone(PathBuf::from("shop.yaml"), "shop");
    target.client = None;
    target.encoded_answers = vec!["listPets".to_owned()];
    let generated = openapi_codegen::generate_from(&doc, &target, "the test")
        .expect("generated")
        .files;
    let responses = file(&generated, "server/src/responses.rs");
    // The JSON answers get twins; the others do not.
    assert!(
        responses.contains("OkEncoded {")
            && responses.contains("body: openapi_runtime::server::Encoded<Vec<models::Pet>>"),
        "{responses}"
    );
    assert!(responses.contains("DefaultEncoded {"), "{responses}");
    assert!(responses.contains("respond::encoded("), "{responses}");
    assert!(!responses.contains("AddPetResponse::NoContentEncoded"));
    assert!(
        file(&generated, "server/src/lib.rs").contains("pub use openapi_runtime::server::Encoded;")
    );

    let mut refused = |id: &str| {
        target.encoded_answers = vec![id.to_owned()];
        openapi_codegen::generate_from(&doc, &target, "the test")
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let unknown = refused("listPet");
    assert!(
        unknown.contains("`encoded-answers` names `listPet`, which is no operationId"),
        "{unknown}"
    );
    let text_only = refused("getPet");
    assert!(text_only.contains("none of the answers"), "{text_only}");
}
