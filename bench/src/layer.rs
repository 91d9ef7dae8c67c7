//! The generated layer alone: the generated router over a trivial in-memory
//! implementation against a hand-written axum router that does the same work
//! (the same bearer-token check, the same JSON decoding into the same model
//! types, the same schema validation and `x-rules`, the same data answered),
//! both served in this process, driven by the same load in alternating rounds.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, StatusCode, header};
use logistics_models::validation::{Path, Problem, Report, Validate};
use logistics_models::{BulkUpsertResult, ReceivingOrderBatch, SalesOrder};
use logistics_server_stubs::{
    ApiError, BulkUpsertReceivingOrdersRequest, BulkUpsertReceivingOrdersResponse,
    CreateCustomerRequest, CreateCustomerResponse, Credentials, FulfilmentApi, GetCustomerRequest,
    GetCustomerResponse, GetSalesOrderRequest, GetSalesOrderResponse, ListReturnsRequest,
    ListReturnsResponse, ListReturnsWithTagRequest, ListReturnsWithTagResponse, RequestContext,
    RequestId, UpdateReceivingOrderTransferDetailRequest,
    UpdateReceivingOrderTransferDetailResponse,
};
use logistics_service::domain::receiving_orders::check_batch;

use crate::data;
use crate::load::{self, Load, Stats};

/// The token both routers accept.
const TOKEN: &str = "lfs_stg_bench-token";

/// The data both routers answer with.
pub struct Memory {
    sales_orders: HashMap<String, SalesOrder>,
    upserted: AtomicU64,
}

impl Memory {
    fn new() -> Self {
        let sales_orders = (1..=100)
            .map(|n| (data::sales_order_reference(n), data::sales_order(n, n)))
            .collect();
        Memory {
            sales_orders,
            upserted: AtomicU64::new(0),
        }
    }

    /// The check both routers make of the `Authorization` header's value:
    /// `Bearer <token>` or a bare token, as the service accepts it.
    fn authenticate(&self, value: &str) -> bool {
        value.strip_prefix("Bearer ").unwrap_or(value).trim() == TOKEN
    }

    fn upsert(&self, batch: &ReceivingOrderBatch) -> BulkUpsertResult {
        self.upserted
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        BulkUpsertResult::new()
    }
}

fn not_measured() -> ApiError {
    ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        "NotImplemented",
        "not part of the benchmark",
    )
}

/// The generated trait over [`Memory`].
struct Generated(Arc<Memory>);

impl FulfilmentApi for Generated {
    type Principal = ();

    async fn authenticate(&self, credentials: Credentials<'_>) -> Result<(), ApiError> {
        if self.0.authenticate(credentials.value()) {
            Ok(())
        } else {
            Err(ApiError::unauthorized(
                "InvalidCredential",
                "The token is not valid.",
            ))
        }
    }

    async fn bulk_upsert_receiving_orders(
        &self,
        _: RequestContext<()>,
        request: BulkUpsertReceivingOrdersRequest,
    ) -> Result<BulkUpsertReceivingOrdersResponse, ApiError> {
        Ok(BulkUpsertReceivingOrdersResponse::Ok {
            body: self.0.upsert(&request.body),
        })
    }

    fn check_bulk_upsert_receiving_orders_body(&self, body: &ReceivingOrderBatch) -> Vec<Problem> {
        check_batch(body)
    }

    async fn update_receiving_order_transfer_detail(
        &self,
        _: RequestContext<()>,
        _: UpdateReceivingOrderTransferDetailRequest,
    ) -> Result<UpdateReceivingOrderTransferDetailResponse, ApiError> {
        Err(not_measured())
    }

    fn check_update_receiving_order_transfer_detail_body(
        &self,
        _: &logistics_models::TransferDetail,
    ) -> Vec<Problem> {
        Vec::new()
    }

    async fn create_customer(
        &self,
        _: RequestContext<()>,
        _: CreateCustomerRequest,
    ) -> Result<CreateCustomerResponse, ApiError> {
        Err(not_measured())
    }

    async fn get_customer(
        &self,
        _: RequestContext<()>,
        _: GetCustomerRequest,
    ) -> Result<GetCustomerResponse, ApiError> {
        Err(not_measured())
    }

    async fn get_sales_order(
        &self,
        _: RequestContext<()>,
        request: GetSalesOrderRequest,
    ) -> Result<GetSalesOrderResponse, ApiError> {
        match self.0.sales_orders.get(&request.reference_number) {
            Some(order) => Ok(GetSalesOrderResponse::Ok {
                body: order.clone(),
            }),
            None => Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "ResourceNotFound",
                "No such sales order.",
            )),
        }
    }

    async fn list_returns(
        &self,
        _: RequestContext<()>,
        _: ListReturnsRequest,
    ) -> Result<ListReturnsResponse, ApiError> {
        Err(not_measured())
    }

    async fn list_returns_with_tag(
        &self,
        _: RequestContext<()>,
        _: ListReturnsWithTagRequest,
    ) -> Result<ListReturnsWithTagResponse, ApiError> {
        Err(not_measured())
    }
}

/// The state of the hand-written baseline.
struct Baseline {
    memory: Arc<Memory>,
    /// Whether it also answers with an `X-Request-Id` (taken from the request
    /// or generated, with the stubs' [`RequestId`]), as the generated router does.
    request_ids: bool,
}

impl Baseline {
    fn finish(&self, headers: &HeaderMap, mut response: Response) -> Response {
        if self.request_ids {
            response.headers_mut().insert(
                &logistics_server_stubs::request_id::X_REQUEST_ID,
                RequestId::from_headers(headers).to_header_value(),
            );
        }
        response
    }
}

/// The hand-written baseline: plain axum handlers over the same [`Memory`].
fn baseline(memory: Arc<Memory>, request_ids: bool) -> Router {
    let state = Arc::new(Baseline {
        memory,
        request_ids,
    });
    Router::new()
        .route(
            "/openapi/v1/SalesOrders/{referenceNumber}",
            axum::routing::get(baseline_get_sales_order),
        )
        .route(
            "/openapi/v1/ReceivingOrders/BulkUpsert",
            axum::routing::post(baseline_bulk_upsert),
        )
        .with_state(state)
}

fn baseline_authenticate(memory: &Memory, headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| memory.authenticate(value))
}

fn error(status: StatusCode, code: &str) -> Response {
    json(
        status,
        &serde_json::json!({"errorCode": code, "message": code}),
    )
}

fn json<T: serde::Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => (status, [(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn baseline_get_sales_order(
    State(state): State<Arc<Baseline>>,
    UrlPath(reference): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    let response = if !baseline_authenticate(&state.memory, &headers) {
        error(StatusCode::UNAUTHORIZED, "InvalidCredential")
    } else {
        match state.memory.sales_orders.get(&reference) {
            Some(order) => json(StatusCode::OK, &order.clone()),
            None => error(StatusCode::NOT_FOUND, "ResourceNotFound"),
        }
    };
    state.finish(&headers, response)
}

async fn baseline_bulk_upsert(
    State(state): State<Arc<Baseline>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let response = bulk_upsert_response(&state.memory, &headers, &body);
    state.finish(&headers, response)
}

fn bulk_upsert_response(memory: &Memory, headers: &HeaderMap, body: &[u8]) -> Response {
    if !baseline_authenticate(memory, headers) {
        return error(StatusCode::UNAUTHORIZED, "InvalidCredential");
    }
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !is_json {
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType");
    }
    let batch: ReceivingOrderBatch = match serde_json::from_slice(body) {
        Ok(batch) => batch,
        Err(_) => return error(StatusCode::BAD_REQUEST, "InvalidJson"),
    };
    let mut report = Report::new();
    batch.validate(&mut Path::new("body"), &mut report);
    for problem in check_batch(&batch) {
        report.add(problem);
    }
    if !report.is_empty() {
        return json(StatusCode::BAD_REQUEST, &report.problems());
    }
    json(StatusCode::OK, &memory.upsert(&batch))
}

/// One comparison's result: the generated router's and the baseline's stats,
/// round by round.
pub struct Comparison {
    /// What was requested.
    pub name: &'static str,
    /// The generated router's rounds.
    pub generated: Vec<Stats>,
    /// The baseline's rounds.
    pub baseline: Vec<Stats>,
    /// The rounds of the baseline that also answers with an `X-Request-Id`.
    pub baseline_ids: Vec<Stats>,
}

/// Serves both routers on a runtime of two worker threads, and drives them
/// from this thread's runtime, `rounds` rounds each, alternating.
pub fn run(load: Load, rounds: usize) -> Result<Vec<Comparison>, String> {
    let memory = Arc::new(Memory::new());
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let generated_router = logistics_server_stubs::router(Generated(memory.clone()));
    let baseline_router = baseline(memory.clone(), false);
    let baseline_ids_router = baseline(memory.clone(), true);
    let addresses = server.block_on(async {
        let a = serve(generated_router).await?;
        let b = serve(baseline_router).await?;
        let c = serve(baseline_ids_router).await?;
        Ok::<_, String>([a, b, c])
    })?;
    let driver = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let get: load::MakeRequest = Arc::new(|n| {
        let reference = data::sales_order_reference(1 + (n % 100) as usize);
        load::request(
            "GET",
            &format!("/openapi/v1/SalesOrders/{reference}"),
            TOKEN,
            None,
        )
    });
    let body = data::receiving_order_batch("layer", 100, 10);
    let post_bytes = load::request(
        "POST",
        "/openapi/v1/ReceivingOrders/BulkUpsert",
        TOKEN,
        Some(&body),
    );
    let post: load::MakeRequest = Arc::new(move |_| post_bytes.clone());
    let mut comparisons = Vec::new();
    for (name, make) in [
        ("GET sales order (path parameter)", get),
        ("POST bulk upsert, 100 orders × 10 lines", post),
    ] {
        let mut comparison = Comparison {
            name,
            generated: Vec::new(),
            baseline: Vec::new(),
            baseline_ids: Vec::new(),
        };
        // A short warm-up of each, not counted.
        let warm = Load {
            duration: load.duration / 4,
            ..load
        };
        for address in addresses {
            driver.block_on(load::run(address, warm, make.clone()));
        }
        for round in 0..rounds {
            // Rotate which goes first so that drift favours none.
            for i in 0..addresses.len() {
                let which = (round + i) % addresses.len();
                let stats = driver.block_on(load::run(addresses[which], load, make.clone()));
                if stats.ok == 0 {
                    return Err(format!(
                        "{name}: no successful request ({})",
                        stats.first_error.unwrap_or_default()
                    ));
                }
                match which {
                    0 => comparison.generated.push(stats),
                    1 => comparison.baseline.push(stats),
                    _ => comparison.baseline_ids.push(stats),
                }
            }
        }
        comparisons.push(comparison);
    }
    drop(driver);
    server.shutdown_background();
    Ok(comparisons)
}

async fn serve(router: Router) -> Result<SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok(address)
}
