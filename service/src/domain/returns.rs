//! Returns: arrival, completion and tags (decisions D14), and the fields
//! their listings filter and sort on.

use logistics_models::dynamic_query::{DynamicQuery, Property};
use logistics_models::{ReturnsQueryProperty, TaggedReturn, TaggedReturnsQueryProperty};
use uuid::Uuid;

use super::DomainError;
use super::repository::{Result, ReturnRepository};

/// The longest tag, in characters.
pub const MAX_TAG_LENGTH: usize = 256;

/// A step in a return's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnStep {
    /// The return arrived at the warehouse.
    Arrived,
    /// The return was completed.
    Completed,
}

/// What a return's timestamps say about it.
#[derive(Debug, Clone, Copy)]
pub struct ReturnProgress {
    /// When it arrived, if it has.
    pub arrived: bool,
    /// When it was completed, if it has.
    pub completed: bool,
}

/// Checks that a return may take `step`: arrival once, completion once and
/// only after arrival.
pub fn check_step(reference: &str, progress: ReturnProgress, step: ReturnStep) -> Result<()> {
    let refusal = match step {
        ReturnStep::Arrived if progress.arrived => Some("has already arrived"),
        ReturnStep::Completed if !progress.arrived => Some("has not arrived yet"),
        ReturnStep::Completed if progress.completed => Some("is already completed"),
        _ => None,
    };
    match refusal {
        Some(why) => Err(DomainError::Conflict {
            property: "returnReferenceNumber",
            code: "InvalidOperation",
            message: format!("return {reference} {why}"),
        }),
        None => Ok(()),
    }
}

/// Checks a tag: free text of 1 to 256 characters.
pub fn check_tag(tag: &str) -> Result<()> {
    let length = tag.chars().count();
    if length == 0 || length > MAX_TAG_LENGTH {
        return Err(DomainError::invalid(
            "tag",
            format!("must be 1 to {MAX_TAG_LENGTH} characters long"),
            "OutOfRange",
        ));
    }
    Ok(())
}

/// A field of a stored return, as listings filter and sort on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnField {
    /// `returnReferenceNumber`
    ReturnReferenceNumber,
    /// `salesOrderChannel`
    SalesOrderChannel,
    /// `salesOrderReferenceNumber`
    SalesOrderReferenceNumber,
    /// `notes`
    Notes,
    /// `trackingId`
    TrackingId,
    /// `cargoCarrier`
    CargoCarrier,
    /// `createdAt`
    CreatedAt,
    /// `updatedAt`
    UpdatedAt,
    /// `arrivedToWarehouseAt`
    ArrivedToWarehouseAt,
    /// `completedAt`
    CompletedAt,
    /// `tag`
    Tag,
}

/// A property of a listing's `dqb` query (generated from the spec's
/// `x-dynamic-query`), as the return's field it names. The mappings are
/// `match`es without a catch-all: a property added to the spec is a compile
/// error here until it is given a field.
pub trait ReturnProperty: Property {
    /// The field this property names.
    fn field(self) -> ReturnField;
}

impl ReturnProperty for ReturnsQueryProperty {
    fn field(self) -> ReturnField {
        match self {
            Self::ReturnReferenceNumber => ReturnField::ReturnReferenceNumber,
            Self::SalesOrderChannel => ReturnField::SalesOrderChannel,
            Self::SalesOrderReferenceNumber => ReturnField::SalesOrderReferenceNumber,
            Self::Notes => ReturnField::Notes,
            Self::TrackingId => ReturnField::TrackingId,
            Self::CargoCarrier => ReturnField::CargoCarrier,
            Self::CreatedAt => ReturnField::CreatedAt,
            Self::UpdatedAt => ReturnField::UpdatedAt,
            Self::ArrivedToWarehouseAt => ReturnField::ArrivedToWarehouseAt,
            Self::CompletedAt => ReturnField::CompletedAt,
        }
    }
}

impl ReturnProperty for TaggedReturnsQueryProperty {
    fn field(self) -> ReturnField {
        match self {
            Self::ReturnReferenceNumber => ReturnField::ReturnReferenceNumber,
            Self::SalesOrderChannel => ReturnField::SalesOrderChannel,
            Self::SalesOrderReferenceNumber => ReturnField::SalesOrderReferenceNumber,
            Self::Notes => ReturnField::Notes,
            Self::TrackingId => ReturnField::TrackingId,
            Self::CargoCarrier => ReturnField::CargoCarrier,
            Self::CreatedAt => ReturnField::CreatedAt,
            Self::UpdatedAt => ReturnField::UpdatedAt,
            Self::ArrivedToWarehouseAt => ReturnField::ArrivedToWarehouseAt,
            Self::CompletedAt => ReturnField::CompletedAt,
            Self::Tag => ReturnField::Tag,
        }
    }
}

/// One page of a listing and the number of returns matching before paging.
pub async fn list<P: ReturnProperty>(
    repository: &impl ReturnRepository,
    tenant: Uuid,
    query: &DynamicQuery<P>,
) -> Result<(Vec<TaggedReturn>, i64)> {
    repository.list_returns(tenant, query).await
}

/// Imports returns in the read model's shape, all or nothing.
pub async fn import(
    repository: &impl ReturnRepository,
    tenant: Uuid,
    returns: &[TaggedReturn],
) -> Result<usize> {
    repository.insert_returns(tenant, returns).await
}

/// Records a return's arrival or completion (the warehouse side).
pub async fn advance(
    repository: &impl ReturnRepository,
    tenant: Uuid,
    reference: &str,
    step: ReturnStep,
) -> Result<()> {
    let check = |progress: ReturnProgress| check_step(reference, progress, step);
    repository
        .record_return_step(tenant, reference, step, &check, super::now())
        .await
}

/// Sets a return's tag.
pub async fn tag(
    repository: &impl ReturnRepository,
    tenant: Uuid,
    reference: &str,
    tag: &str,
) -> Result<()> {
    check_tag(tag)?;
    if repository
        .set_return_tag(tenant, reference, tag, super::now())
        .await?
    {
        Ok(())
    } else {
        Err(not_found(reference))
    }
}

/// No return of the tenant has `reference`.
pub fn not_found(reference: &str) -> DomainError {
    DomainError::NotFound {
        property: "returnReferenceNumber",
        message: format!("No return has the reference number {reference}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_arrive_then_complete_once_each() {
        let fresh = ReturnProgress {
            arrived: false,
            completed: false,
        };
        let arrived = ReturnProgress {
            arrived: true,
            completed: false,
        };
        let done = ReturnProgress {
            arrived: true,
            completed: true,
        };
        assert!(check_step("R", fresh, ReturnStep::Arrived).is_ok());
        assert!(check_step("R", fresh, ReturnStep::Completed).is_err());
        assert!(check_step("R", arrived, ReturnStep::Arrived).is_err());
        assert!(check_step("R", arrived, ReturnStep::Completed).is_ok());
        assert!(check_step("R", done, ReturnStep::Completed).is_err());
        assert!(check_tag(&"x".repeat(256)).is_ok());
        assert!(check_tag(&"x".repeat(257)).is_err());
        assert!(check_tag("").is_err());
    }
}
