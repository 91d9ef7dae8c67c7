//! Files up and down, in media types that are not JSON and whose schema
//! says only `format: binary` or nothing: the generated client sends and
//! receives them as bytes, through the generated server, and bytes that are
//! neither JSON nor UTF-8 come back exactly as they were sent.

use std::sync::{Arc, Mutex};

use fixture_binary_answers_client::{Client, Error};
use fixture_binary_answers_server::axum::body::Bytes;
use fixture_binary_answers_server::{
    ApiError, BinaryAnswersApi, ExportRowsRequest, ExportRowsResponse, GetPhotoRequest,
    GetPhotoResponse, GetReportRequest, GetReportResponse, ImportRowsRequest, ImportRowsResponse,
    PutPhotoRequest, PutPhotoResponse, RequestContext, router,
};

/// The start of a PNG file: not JSON, not UTF-8.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe";
/// The start of a PDF file.
const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";
/// Rows of text that a JSON decoder would refuse.
const CSV: &[u8] = b"id,name\n1,ada\n";

/// What an upload was: its path's id, its bytes and its `Content-Type`.
type Upload = (String, Bytes, Option<String>);

/// Answers with the files above, and keeps what is uploaded.
#[derive(Clone, Default)]
struct Files {
    photo: Arc<Mutex<Option<Upload>>>,
    imported: Arc<Mutex<Option<Bytes>>>,
}

impl BinaryAnswersApi for Files {
    async fn get_photo(
        &self,
        _: RequestContext,
        request: GetPhotoRequest,
    ) -> Result<GetPhotoResponse, ApiError> {
        Ok(match request.id.as_str() {
            "known" => GetPhotoResponse::Ok {
                body: Bytes::from_static(PNG),
            },
            _ => GetPhotoResponse::NotFound,
        })
    }

    async fn put_photo(
        &self,
        context: RequestContext,
        request: PutPhotoRequest,
    ) -> Result<PutPhotoResponse, ApiError> {
        let content_type = context
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        *self.photo.lock().unwrap() = Some((request.id, request.body, content_type));
        Ok(PutPhotoResponse::NoContent)
    }

    async fn get_report(
        &self,
        _: RequestContext,
        _: GetReportRequest,
    ) -> Result<GetReportResponse, ApiError> {
        Ok(GetReportResponse::Ok {
            body: Bytes::from_static(PDF),
        })
    }

    async fn export_rows(
        &self,
        _: RequestContext,
        _: ExportRowsRequest,
    ) -> Result<ExportRowsResponse, ApiError> {
        Ok(ExportRowsResponse::Ok {
            body: Bytes::from_static(CSV),
        })
    }

    async fn import_rows(
        &self,
        _: RequestContext,
        request: ImportRowsRequest,
    ) -> Result<ImportRowsResponse, ApiError> {
        *self.imported.lock().unwrap() = Some(request.body);
        Ok(ImportRowsResponse::Accepted)
    }
}

async fn serve() -> (Files, Client) {
    let files = Files::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router(files.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = Client::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    (files, client)
}

#[tokio::test]
async fn an_image_answer_is_its_bytes() {
    let (_, client) = serve().await;
    let photo: Bytes = client.get_photo("known").await.unwrap();
    assert_eq!(&photo[..], PNG);
    assert!(std::str::from_utf8(&photo).is_err());
}

#[tokio::test]
async fn a_documented_error_status_of_a_binary_operation_is_an_error() {
    let (_, client) = serve().await;
    let error = client.get_photo("unknown").await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(404), "{error:?}");
    assert!(!matches!(error, Error::Decode { .. }), "{error:?}");
}

#[tokio::test]
async fn a_pdf_and_text_said_to_be_binary_are_their_bytes() {
    let (_, client) = serve().await;
    assert_eq!(&client.get_report("r1").await.unwrap()[..], PDF);
    assert_eq!(&client.export_rows().await.unwrap()[..], CSV);
}

#[tokio::test]
async fn uploads_are_their_bytes_sent_as_a_media_type_the_document_lists() {
    let (files, client) = serve().await;
    client
        .put_photo("p1", Bytes::from_static(PNG))
        .await
        .unwrap();
    let kept = files.photo.lock().unwrap().clone();
    assert_eq!(
        kept,
        Some((
            "p1".to_owned(),
            Bytes::from_static(PNG),
            Some("image/png".to_owned())
        ))
    );
    client.import_rows(Bytes::from_static(CSV)).await.unwrap();
    assert_eq!(files.imported.lock().unwrap().as_deref(), Some(CSV));
}
