//! Path templates axum cannot take as they are: the generated router sends
//! each request to the operation whose template its path fits, splits a
//! segment that holds several parameters at its fixed text, and answers
//! 404 for a path that fits none; the generated client builds each path.
//! Two parameters with no text between them, told apart by the values of
//! one (`/profiles/{id}{mediaTypeExtension}`).
//! Keys with a query string or fragment (`/rest?method=photos.search`,
//! `/#Action=DeleteThing`): the client sends their pairs, the router
//! hands each request to the operation whose pairs it carries.
//! Path parameters in `label` (`.a`) and `matrix` (`;id=a`) style.

use std::net::SocketAddr;

use fixture_path_templates_client::models::{
    DeleteThingAction, DescribeThingsAction, GetProfileMediaTypeExtension, GetThingXAmzTarget,
    Match,
};
use fixture_path_templates_client::{Client, SearchPhotosParams};
use fixture_path_templates_client::models::serde_json::{self, Value};
use fixture_path_templates_server::responses::{
    CompareRangeResponse, CompareRefsResponse, DeleteFileResponse, DeleteThingResponse,
    DescribeThingsResponse, ExportHistoryResponse, GetFileAsJsonResponse, GetFileResponse,
    GetPackageResponse, GetPhotoInfoResponse, GetProfileResponse, GetStyledResponse,
    GetThingResponse, SearchPhotosResponse,
};
use fixture_path_templates_server::{
    ApiError, ArchiveApi, CompareRangeRequest, CompareRefsRequest, DeleteFileRequest,
    DeleteThingRequest, DescribeThingsRequest, ExportHistoryRequest, GetFileAsJsonRequest,
    GetFileRequest, GetPackageRequest, GetPhotoInfoRequest, GetProfileRequest, GetStyledRequest,
    GetThingRequest, RequestContext, SearchPhotosRequest, router,
};

/// Answers with the operation reached and the path parameters it got.
struct Echo;

fn matched(operation: &str, values: &[&str]) -> Match {
    Match::new(operation, values.iter().map(|v| v.to_string()).collect())
}

impl ArchiveApi for Echo {
    async fn get_file_as_json(
        &self,
        _: RequestContext,
        request: GetFileAsJsonRequest,
    ) -> Result<GetFileAsJsonResponse, ApiError> {
        let body = matched("getFileAsJson", &[&request.name]);
        Ok(GetFileAsJsonResponse::Ok { body })
    }

    async fn get_file(
        &self,
        _: RequestContext,
        request: GetFileRequest,
    ) -> Result<GetFileResponse, ApiError> {
        let body = matched("getFile", &[&request.id]);
        Ok(GetFileResponse::Ok { body })
    }

    async fn delete_file(
        &self,
        _: RequestContext,
        request: DeleteFileRequest,
    ) -> Result<DeleteFileResponse, ApiError> {
        let body = matched("deleteFile", &[&request.id]);
        Ok(DeleteFileResponse::Ok { body })
    }

    async fn get_package(
        &self,
        _: RequestContext,
        request: GetPackageRequest,
    ) -> Result<GetPackageResponse, ApiError> {
        let body = matched("getPackage", &[&request.name, &request.version.to_string()]);
        Ok(GetPackageResponse::Ok { body })
    }

    async fn compare_range(
        &self,
        _: RequestContext,
        request: CompareRangeRequest,
    ) -> Result<CompareRangeResponse, ApiError> {
        let body = matched("compareRange", &[&request.basehead]);
        Ok(CompareRangeResponse::Ok { body })
    }

    async fn compare_refs(
        &self,
        _: RequestContext,
        request: CompareRefsRequest,
    ) -> Result<CompareRefsResponse, ApiError> {
        let body = matched("compareRefs", &[&request.base, &request.head]);
        Ok(CompareRefsResponse::Ok { body })
    }

    async fn get_profile(
        &self,
        _: RequestContext,
        request: GetProfileRequest,
    ) -> Result<GetProfileResponse, ApiError> {
        let body = matched(
            "getProfile",
            &[&request.id, request.media_type_extension.as_str()],
        );
        Ok(GetProfileResponse::Ok { body })
    }

    async fn get_styled(
        &self,
        _: RequestContext,
        request: GetStyledRequest,
    ) -> Result<GetStyledResponse, ApiError> {
        let joined = |items: &[String]| items.join("|");
        let numbers = |items: &[i64]| {
            items.iter().map(i64::to_string).collect::<Vec<_>>().join("|")
        };
        let body = matched(
            "getStyled",
            &[
                &request.label,
                &joined(&request.labels),
                &numbers(&request.versions),
                &request.matrix,
                &joined(&request.matrices),
                &numbers(&request.pairs),
            ],
        );
        Ok(GetStyledResponse::Ok { body })
    }

    async fn search_photos(
        &self,
        _: RequestContext,
        request: SearchPhotosRequest,
    ) -> Result<SearchPhotosResponse, ApiError> {
        let text = request.text.unwrap_or_default();
        let body = matched("searchPhotos", &[&text]);
        Ok(SearchPhotosResponse::Ok { body })
    }

    async fn get_photo_info(
        &self,
        _: RequestContext,
        request: GetPhotoInfoRequest,
    ) -> Result<GetPhotoInfoResponse, ApiError> {
        let body = matched("getPhotoInfo", &[&request.photo_id]);
        Ok(GetPhotoInfoResponse::Ok { body })
    }

    async fn export_history(
        &self,
        _: RequestContext,
        request: ExportHistoryRequest,
    ) -> Result<ExportHistoryResponse, ApiError> {
        let body = matched("exportHistory", &[&request.filename]);
        Ok(ExportHistoryResponse::Ok { body })
    }

    async fn describe_things(
        &self,
        _: RequestContext,
        request: DescribeThingsRequest,
    ) -> Result<DescribeThingsResponse, ApiError> {
        let body = matched("describeThings", &[request.action.as_str()]);
        Ok(DescribeThingsResponse::Ok { body })
    }

    async fn delete_thing(
        &self,
        _: RequestContext,
        request: DeleteThingRequest,
    ) -> Result<DeleteThingResponse, ApiError> {
        let body = matched("deleteThing", &[request.action.as_str(), &request.thing_id]);
        Ok(DeleteThingResponse::Ok { body })
    }

    async fn get_thing(
        &self,
        _: RequestContext,
        request: GetThingRequest,
    ) -> Result<GetThingResponse, ApiError> {
        let body = matched("getThing", &[request.x_amz_target.as_str()]);
        Ok(GetThingResponse::Ok { body })
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

/// Sends `method path`; the answer's status, `Allow` header and JSON body.
async fn send(addr: SocketAddr, method: &str, path: &str) -> (u16, Option<String>, Value) {
    let method = fixture_path_templates_client::reqwest::Method::from_bytes(method.as_bytes())
        .unwrap();
    let answer = fixture_path_templates_client::reqwest::Client::new()
        .request(method, format!("http://{addr}{path}"))
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let allow = answer
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    (status, allow, body)
}

/// The operation a request reached and the parameters it got.
async fn reached(addr: SocketAddr, method: &str, path: &str) -> (String, Vec<String>) {
    let (status, _, body) = send(addr, method, path).await;
    assert_eq!(status, 200, "{method} {path}: {body}");
    let found: Match = serde_json::from_value(body).unwrap();
    (found.operation, found.values)
}

fn expect(operation: &str, values: &[&str]) -> (String, Vec<String>) {
    (
        operation.to_owned(),
        values.iter().map(|v| v.to_string()).collect(),
    )
}

#[tokio::test]
async fn a_request_reaches_the_operation_whose_template_its_path_fits() {
    let (addr, _) = serve().await;
    assert_eq!(
        reached(addr, "GET", "/files/report.json").await,
        expect("getFileAsJson", &["report"])
    );
    assert_eq!(
        reached(addr, "GET", "/files/report").await,
        expect("getFile", &["report"])
    );
    // `/files/{id}` alone has DELETE: it takes the `.json` path as its id.
    assert_eq!(
        reached(addr, "DELETE", "/files/report.json").await,
        expect("deleteFile", &["report.json"])
    );
    assert_eq!(
        reached(addr, "GET", "/compare/main...v1.2").await,
        expect("compareRefs", &["main", "v1.2"])
    );
    assert_eq!(
        reached(addr, "GET", "/compare/main..v1.2").await,
        expect("compareRange", &["main..v1.2"])
    );
}

#[tokio::test]
async fn a_segment_of_several_parameters_splits_at_its_fixed_text() {
    let (addr, _) = serve().await;
    // The earlier parameter takes the longest text: the last `-` separates.
    assert_eq!(
        reached(addr, "GET", "/packages/my-tool-3.zip").await,
        expect("getPackage", &["my-tool", "3"])
    );
    // Split before decoding: an encoded `-` is the parameter's own.
    assert_eq!(
        reached(addr, "GET", "/packages/a%2Db-3.zip").await,
        expect("getPackage", &["a-b", "3"])
    );
    // Each part is read and checked as its parameter.
    let (status, _, body) = send(addr, "GET", "/packages/tool-0.zip").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("version"), "{body}");
}

/// `{id}{mediaTypeExtension}`: no text between them, so the values of the
/// second, an enum, split them.
#[tokio::test]
async fn adjacent_parameters_split_at_the_values_of_the_enum_beside_them() {
    let (addr, client) = serve().await;
    assert_eq!(
        client
            .get_profile("me.json", GetProfileMediaTypeExtension::Xml)
            .await
            .unwrap(),
        matched("getProfile", &["me.json", ".xml"])
    );
    assert_eq!(
        reached(addr, "GET", "/profiles/a.b.json").await,
        expect("getProfile", &["a.b", ".json"])
    );
    let (status, _, body) = send(addr, "GET", "/profiles/a.yaml").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("mediaTypeExtension"), "{body}");
}

#[tokio::test]
async fn a_path_that_fits_no_template_of_its_route_is_not_found() {
    let (addr, _) = serve().await;
    for path in ["/packages/tool.zip", "/packages/tool-3.tar", "/packages/tool"] {
        let (status, _, body) = send(addr, "GET", path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    // A method no template of the route has.
    let (status, allow, _) = send(addr, "POST", "/files/report.json").await;
    assert_eq!(status, 405);
    assert_eq!(allow.as_deref(), Some("GET, DELETE, HEAD"));
    // HEAD is answered where GET is, by the same template's operation.
    let answer = fixture_path_templates_client::reqwest::Client::new()
        .head(format!("http://{addr}/packages/tool-3.zip"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
}

#[tokio::test]
async fn the_client_builds_each_template_and_the_server_reads_it_back() {
    let (_, client) = serve().await;
    assert_eq!(
        client.get_file_as_json("a b").await.unwrap(),
        matched("getFileAsJson", &["a b"])
    );
    assert_eq!(client.get_file("a").await.unwrap(), matched("getFile", &["a"]));
    // The same path as `getFile` but for its parameter's name: the server
    // stubs serve `getFile` for it.
    assert_eq!(
        client.get_file_by_key("k").await.unwrap(),
        matched("getFile", &["k"])
    );
    assert_eq!(
        client.get_package("my-tool", 12).await.unwrap(),
        matched("getPackage", &["my-tool", "12"])
    );
    assert_eq!(
        client.compare_refs("main", "feature/x").await.unwrap(),
        matched("compareRefs", &["main", "feature/x"])
    );
    // The client encodes a separator inside a value (`.` as `%2E`), so
    // that the server's split finds both values whole.
    assert_eq!(
        client.compare_refs("v1...v2", "x...y").await.unwrap(),
        matched("compareRefs", &["v1...v2", "x...y"])
    );
    assert_eq!(
        client.get_package("my-tool-2", 12).await.unwrap(),
        matched("getPackage", &["my-tool-2", "12"])
    );
    assert_eq!(
        client.compare_range("main...dev").await.unwrap(),
        // One parameter holding `...` is the other template's path: the
        // server cannot tell them apart, and the one with more fixed text wins.
        matched("compareRefs", &["main", "dev"])
    );
}

/// Operations on one path told apart by the pairs of their keys: the
/// client sends them (or the parameter of their name does), the router
/// reads them back; a request with none of them fits no operation.
#[tokio::test]
async fn the_pairs_of_a_key_tell_apart_the_operations_on_its_path() {
    let (addr, client) = serve().await;
    assert_eq!(
        client
            .search_photos(SearchPhotosParams::default().text("sea"))
            .await
            .unwrap(),
        matched("searchPhotos", &["sea"])
    );
    assert_eq!(
        client.get_photo_info("p1").await.unwrap(),
        matched("getPhotoInfo", &["p1"])
    );
    // A `{name}` of the key's query is a query parameter.
    assert_eq!(
        client.export_history("a&b.csv").await.unwrap(),
        matched("exportHistory", &["a&b.csv"])
    );
    assert_eq!(
        reached(addr, "GET", "/exports?filename=x.csv").await,
        expect("exportHistory", &["x.csv"])
    );
    // A fragment's pair is carried by the parameter of its name: in the
    // query, or in a header.
    assert_eq!(
        client
            .describe_things(DescribeThingsAction::DescribeThings)
            .await
            .unwrap(),
        matched("describeThings", &["DescribeThings"])
    );
    assert_eq!(
        client
            .delete_thing(DeleteThingAction::DeleteThing, "t1")
            .await
            .unwrap(),
        matched("deleteThing", &["DeleteThing", "t1"])
    );
    assert_eq!(
        client
            .get_thing(GetThingXAmzTarget::ThingsGetThing)
            .await
            .unwrap(),
        matched("getThing", &["Things.GetThing"])
    );
    assert_eq!(
        reached(addr, "GET", "/rest?api_key=k&method=photos.getInfo&photo_id=p2").await,
        expect("getPhotoInfo", &["p2"])
    );
    for (method, path) in [("GET", "/rest"), ("GET", "/rest?method=other"), ("POST", "/")] {
        let (status, _, body) = send(addr, method, path).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
}

/// `label` and `matrix` style: the client writes each parameter's lead
/// (`.`, `;name=`) and, exploded, repeats it; the server reads past them.
#[tokio::test]
async fn label_and_matrix_path_parameters_round_trip() {
    let (addr, client) = serve().await;
    let strings = |items: &[&str]| items.iter().map(|i| i.to_string()).collect::<Vec<_>>();
    assert_eq!(
        client
            .get_styled(
                "a.b",
                &strings(&["x", "y.z"]),
                &[1, 2],
                "m;n=o",
                &strings(&["p", ""]),
                &[3, 4],
            )
            .await
            .unwrap(),
        matched("getStyled", &["a.b", "x|y.z", "1|2", "m;n=o", "p|", "3|4"])
    );
    assert_eq!(
        reached(addr, "GET", "/styles/.a/.b.c/v.7,8/;matrix=m/;matrices=d;matrices=e/;pairs=5,6").await,
        expect("getStyled", &["a", "b|c", "7|8", "m", "d|e", "5|6"])
    );
    // Without its lead, or with another parameter's name, a value is refused
    // by name; so is an item its schema refuses.
    for (path, name) in [
        ("/styles/a/.b/v.1/;matrix=m/;matrices=d/;pairs=5", "label"),
        ("/styles/.a/.b/v.1/;other=m/;matrices=d/;pairs=5", "matrix"),
        ("/styles/.a/.b/v.1/;matrix=m/;matrices=d;x=e/;pairs=5", "matrices"),
        ("/styles/.a/.b/v.1/;matrix=m/;matrices=d/;pairs=0", "pairs"),
    ] {
        let (status, _, body) = send(addr, "GET", path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body.to_string().contains(name), "{path}: {body}");
    }
}
