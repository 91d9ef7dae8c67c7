//! The generated [`FulfilmentApi`] trait, implemented: each method turns its
//! validated request into domain and storage calls and their outcome into
//! its response. Routing, parsing, validation and error rendering are the
//! generated router's.

use logistics_models::validation::Problem;
use logistics_models::{
    BulkUpsertResult, ReceivingOrderBatch, Return, ReturnList, TaggedReturnList, TransferDetail,
};
use logistics_server_stubs::{
    ApiError, BulkUpsertReceivingOrdersRequest, BulkUpsertReceivingOrdersResponse,
    CreateCustomerRequest, CreateCustomerResponse, Credentials, Encoded, FulfilmentApi,
    GetCustomerRequest, GetCustomerResponse, GetSalesOrderRequest, GetSalesOrderResponse,
    ListReturnsRequest, ListReturnsResponse, ListReturnsWithTagRequest, ListReturnsWithTagResponse,
    RequestContext, UpdateReceivingOrderTransferDetailRequest,
    UpdateReceivingOrderTransferDetailResponse,
};

use crate::auth::{Authenticator, Refusal};
use crate::domain::tenancy::{Environment, Principal};
use crate::domain::{DomainError, Repository, customers, receiving_orders, returns, sales_orders};
use crate::text;
use http::StatusCode;

/// The service behind the generated router, over any [`Repository`]
/// (`storage::Store` in the binary).
pub struct Service<R> {
    repository: R,
    auth: Authenticator<R>,
}

impl<R: Repository + Clone> Service<R> {
    /// The service over `repository`, accepting the tokens of `environment`.
    pub fn new(repository: R, environment: Environment) -> Self {
        Service {
            auth: Authenticator::new(repository.clone(), environment),
            repository,
        }
    }
}

/// A domain failure as the interface answers it.
fn api_error(error: DomainError) -> ApiError {
    match error {
        DomainError::Invalid(problems) => ApiError::bad_request(problems),
        DomainError::NotFound { property, message } => {
            ApiError::not_found("ResourceNotFound", message).at(property)
        }
        DomainError::Conflict {
            property,
            code,
            message,
        } => ApiError::conflict(code, message).at(property),
        DomainError::UnknownTenant(tenant) => ApiError::not_found(
            "ResourceNotFound",
            format!("tenant {tenant} does not exist"),
        )
        .at("X-Tenant-Id"),
        DomainError::Unavailable(cause) => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "The database failed and nothing was written; the request can be sent again.",
        )
        .with_cause(cause),
        DomainError::MaybeApplied(cause) => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "The database failed while committing, and the write may have been applied; \
             read it back before sending it again.",
        )
        .with_cause(cause),
        DomainError::Internal(message) => ApiError::internal(message),
    }
}

fn refusal(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::InvalidCredential => ApiError::unauthorized(
            "InvalidCredential",
            "The token is not valid; send the tenant's token as `Bearer <token>`.",
        )
        .at("Authorization"),
        Refusal::WrongEnvironment { token, service } => ApiError::unauthorized(
            "InvalidCredential",
            format!("This token belongs to the {token} environment, and this is {service}: use a {service} token."),
        )
        .at("Authorization"),
        Refusal::NoEmulationRight => {
            ApiError::forbidden("Forbidden", "This token may not act on behalf of another tenant.").at("X-Tenant-Id")
        }
        Refusal::UnknownTenant => ApiError::forbidden("Forbidden", "X-Tenant-Id names no tenant of this environment.").at("X-Tenant-Id"),
        Refusal::Unavailable(cause) => ApiError::internal(cause),
        Refusal::TooManyRequests(refused) => refused.into_api_error(),
    }
}

/// 400 with `problem`, if there is one (the NUL checks, decision D30).
fn refuse(problem: Option<Problem>) -> Result<(), ApiError> {
    match problem {
        Some(problem) => Err(ApiError::bad_request([problem])),
        None => Ok(()),
    }
}

/// A count the interface carries as int32.
fn int32(n: impl TryInto<i32>) -> i32 {
    n.try_into().unwrap_or(i32::MAX)
}

impl<R: Repository + 'static> FulfilmentApi for Service<R> {
    type Principal = Principal;

    async fn authenticate(&self, credentials: Credentials<'_>) -> Result<Principal, ApiError> {
        // Bytes that are not text still name a tenant (none): an unreadable
        // X-Tenant-Id is refused like an unknown one, not taken as absent.
        let tenant = credentials
            .headers
            .get("x-tenant-id")
            .map(|v| String::from_utf8_lossy(v.as_bytes()));
        self.auth
            .authenticate(credentials.value(), tenant.as_deref())
            .await
            .map_err(refusal)
    }

    async fn bulk_upsert_receiving_orders(
        &self,
        context: RequestContext<Principal>,
        request: BulkUpsertReceivingOrdersRequest,
    ) -> Result<BulkUpsertReceivingOrdersResponse, ApiError> {
        let batch = request.body.into_inner();
        let failures =
            receiving_orders::upsert(&self.repository, context.principal.tenant_id, &batch)
                .await
                .map_err(api_error)?;
        Ok(BulkUpsertReceivingOrdersResponse::Ok {
            body: BulkUpsertResult::new().with_update_failures(failures),
        })
    }

    fn check_bulk_upsert_receiving_orders_body(&self, body: &ReceivingOrderBatch) -> Vec<Problem> {
        let mut problems = receiving_orders::check_batch(body);
        problems.extend(text::check_body(body));
        problems
    }

    async fn update_receiving_order_transfer_detail(
        &self,
        context: RequestContext<Principal>,
        request: UpdateReceivingOrderTransferDetailRequest,
    ) -> Result<UpdateReceivingOrderTransferDetailResponse, ApiError> {
        refuse(text::check_parameter(
            "referenceNumber",
            &request.reference_number,
        ))?;
        let stored = receiving_orders::update_transfer_detail(
            &self.repository,
            context.principal.tenant_id,
            &request.reference_number,
            &request.body,
        )
        .await
        .map_err(api_error)?;
        Ok(UpdateReceivingOrderTransferDetailResponse::Ok { body: stored })
    }

    fn check_update_receiving_order_transfer_detail_body(
        &self,
        body: &TransferDetail,
    ) -> Vec<Problem> {
        let mut problems = receiving_orders::check_transfer_detail(body);
        problems.extend(text::check_body(body));
        problems
    }

    async fn create_customer(
        &self,
        context: RequestContext<Principal>,
        request: CreateCustomerRequest,
    ) -> Result<CreateCustomerResponse, ApiError> {
        let problems = text::check_body(&request.body);
        if !problems.is_empty() {
            return Err(ApiError::bad_request(problems));
        }
        let customer =
            customers::create(&self.repository, context.principal.tenant_id, &request.body)
                .await
                .map_err(api_error)?;
        let location = format!("/openapi/v1/Customers/{}", customer.customer_no);
        Ok(CreateCustomerResponse::Created {
            body: customer,
            location,
        })
    }

    async fn get_customer(
        &self,
        context: RequestContext<Principal>,
        request: GetCustomerRequest,
    ) -> Result<GetCustomerResponse, ApiError> {
        match self
            .repository
            .customer(context.principal.tenant_id, request.customer_no)
            .await
            .map_err(api_error)?
        {
            Some(customer) => Ok(GetCustomerResponse::Ok { body: customer }),
            None => Err(ApiError::not_found(
                "ResourceNotFound",
                format!("No customer has the customerNo {}.", request.customer_no),
            )
            .at("customerNo")),
        }
    }

    async fn get_sales_order(
        &self,
        context: RequestContext<Principal>,
        request: GetSalesOrderRequest,
    ) -> Result<GetSalesOrderResponse, ApiError> {
        let reference = &request.reference_number;
        refuse(text::check_parameter("referenceNumber", reference))?;
        // Stored whole as its answer's JSON: sent as it is (D65).
        match self
            .repository
            .sales_order_json(context.principal.tenant_id, reference)
            .await
            .map_err(api_error)?
        {
            Some(json) => Ok(GetSalesOrderResponse::OkEncoded {
                body: Encoded::from_json_unchecked(json),
            }),
            None => Err(api_error(sales_orders::not_found(reference))),
        }
    }

    async fn list_returns(
        &self,
        context: RequestContext<Principal>,
        request: ListReturnsRequest,
    ) -> Result<ListReturnsResponse, ApiError> {
        let query = request.dqb.unwrap_or_default();
        refuse(text::check_query("dqb", &query))?;
        let (items, total) = returns::list(&self.repository, context.principal.tenant_id, &query)
            .await
            .map_err(api_error)?;
        let items = items
            .into_iter()
            .map(|r| {
                let mut item = Return::new(r.return_reference_number, r.created_at, r.updated_at);
                item.sales_order_channel = r.sales_order_channel;
                item.sales_order_reference_number = r.sales_order_reference_number;
                item.notes = r.notes;
                item.tracking_id = r.tracking_id;
                item.cargo_carrier = r.cargo_carrier;
                item.arrived_to_warehouse_at = r.arrived_to_warehouse_at;
                item.completed_at = r.completed_at;
                item
            })
            .collect();
        Ok(ListReturnsResponse::Ok {
            body: ReturnList::new(
                int32(query.effective_count()),
                int32(query.effective_offset()),
                int32(total),
                items,
            ),
        })
    }

    async fn list_returns_with_tag(
        &self,
        context: RequestContext<Principal>,
        request: ListReturnsWithTagRequest,
    ) -> Result<ListReturnsWithTagResponse, ApiError> {
        let query = request.dqb.unwrap_or_default();
        refuse(text::check_query("dqb", &query))?;
        let (items, total) = returns::list(&self.repository, context.principal.tenant_id, &query)
            .await
            .map_err(api_error)?;
        Ok(ListReturnsWithTagResponse::Ok {
            body: TaggedReturnList::new(
                int32(query.effective_count()),
                int32(query.effective_offset()),
                int32(total),
                items,
            ),
        })
    }
}
