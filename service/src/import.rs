//! The operator's import files (`spec/import.yaml`), read and turned into the
//! read models the domain imports.
//!
//! A file is a JSON array. Each item is checked by the code generated from
//! `spec/import.yaml` (`logistics-import-models`), and every problem of every
//! item is reported with the item's index and the field, before anything is
//! written. What the shop's export cannot have, the service assigns here:
//! ids, the Created state and the timestamps; customer and address numbers
//! are assigned by the domain as the orders are stored.
//!
//! A sales order item that has an `id` is read in the API's read-model shape
//! (`SalesOrder`), as imports were before the shop format (decisions D27);
//! a return in the read model's shape is a valid `ShopReturn` as it is.

use chrono::{DateTime, Utc};
use logistics_import_models::{ShopAddress, ShopReturn, ShopSalesOrder};
use logistics_models::{
    Address, CustomerSummary, SalesOrder, SalesOrderLineItem, SalesOrderPayment, SalesOrderState,
    TaggedReturn,
};
use serde_json::Value;
use uuid::Uuid;

/// Why a file cannot be imported: every problem, each naming the item and field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(pub Vec<String>);

impl std::fmt::Display for Problems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join("\n"))
    }
}

/// A reader of one kind of import file: its bytes and the time of the import
/// to the items the domain imports.
pub type Reader<T> = fn(&[u8], DateTime<Utc>) -> Result<Vec<T>, Problems>;

/// The sales orders of an import file, as the domain imports them.
pub fn sales_orders(bytes: &[u8], now: DateTime<Utc>) -> Result<Vec<SalesOrder>, Problems> {
    let items = array(bytes, "sales orders")?;
    let mut problems = Vec::new();
    let mut orders = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let read_model = item.as_object().is_some_and(|o| o.contains_key("id"));
        let order = if read_model {
            read_model_item::<SalesOrder>(item, index, &mut problems)
        } else {
            import_item::<ShopSalesOrder>(item, index, &mut problems)
                .map(|shop| sales_order(shop, now))
        };
        orders.extend(order);
    }
    if problems.is_empty() {
        Ok(orders)
    } else {
        Err(Problems(problems))
    }
}

/// The returns of an import file, as the domain imports them.
pub fn returns(bytes: &[u8], now: DateTime<Utc>) -> Result<Vec<TaggedReturn>, Problems> {
    let items = array(bytes, "returns")?;
    let mut problems = Vec::new();
    let returns: Vec<TaggedReturn> = items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| import_item::<ShopReturn>(item, index, &mut problems))
        .map(|shop| tagged_return(shop, now))
        .collect();
    if problems.is_empty() {
        Ok(returns)
    } else {
        Err(Problems(problems))
    }
}

/// The items of a file that must be a JSON array.
fn array(bytes: &[u8], what: &str) -> Result<Vec<Value>, Problems> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(_) => Err(Problems(vec![format!(
            "file: must be a JSON array of {what} (InvalidType)"
        )])),
        Err(error) => Err(Problems(vec![format!(
            "file: is not valid JSON: {error} (InvalidJson)"
        )])),
    }
}

/// Defines `$name`, which reads item `index` of a file as `T` with the
/// validation runtime `$validation` (each generated crate has its own), or
/// adds its problems, each naming the item and field, to `problems`.
macro_rules! item_reader {
    ($(#[$doc:meta])* $name:ident, $validation:path, $shape:literal) => {
        $(#[$doc])*
        pub(super) fn $name<T>(value: &Value, index: usize, problems: &mut Vec<String>) -> Option<T>
        where
            T: DeserializeOwned + Validate + ValidateJson,
        {
            use $validation as validation;
            let mut path = validation::Path::new("file");
            path.push_index(index);
            let mut report = validation::Report::new();
            let item = match T::deserialize(value) {
                Ok(item) => {
                    item.validate(&mut path, &mut report);
                    Some(item)
                }
                Err(error) => {
                    T::validate_json(value, &mut path, &mut report);
                    if report.is_empty() {
                        let message = format!("does not match {}: {error}", $shape);
                        report.push(&path, message, "InvalidType");
                    }
                    None
                }
            };
            let found = report.problems().iter();
            problems.extend(found.map(|p| format!("{}: {} ({})", p.property, p.message, p.error_code)));
            item.filter(|_| report.is_empty())
        }
    };
}

mod shop {
    use logistics_import_models::validation::{Validate, ValidateJson};
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    item_reader!(
        /// Item `index` in the import format.
        import_item,
        logistics_import_models::validation,
        "the import format"
    );
}

mod read_model {
    use logistics_models::validation::{Validate, ValidateJson};
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    item_reader!(
        /// Item `index` in the API's read-model shape.
        read_model_item,
        logistics_models::validation,
        "the read model"
    );
}

use read_model::read_model_item;
use shop::import_item;

/// A shop's order as the read model: a new id, Created at `now`, the
/// customer's and addresses' ids and numbers left for the domain to assign.
pub fn sales_order(shop: ShopSalesOrder, now: DateTime<Utc>) -> SalesOrder {
    let customer = CustomerSummary::new(
        Uuid::nil(),
        0,
        shop.customer.email,
        shop.customer.first_name,
        shop.customer.last_name,
        shop.customer.phone,
        now,
    );
    let line_items = shop
        .line_items
        .into_iter()
        .map(|line| {
            let mut item = SalesOrderLineItem::new(Uuid::new_v4(), line.sku)
                .with_amount_in_order(line.quantity);
            item.barcodes = line.barcodes;
            item.sale_price = line.sale_price;
            item.product_name = line.product_name;
            item.product_sale_price = line.sale_price;
            item
        })
        .collect();
    let mut order = SalesOrder::new(
        Uuid::new_v4(),
        shop.reference_number,
        SalesOrderState::Created,
        shop.approved_shipments.unwrap_or(true),
        shop.approved.unwrap_or(true),
        now,
        now,
        customer,
        line_items,
        Vec::new(),
    );
    order.sales_channel = shop.sales_channel;
    order.order_created_at = shop.order_created_at;
    order.shipping_address = shop.shipping_address.map(address);
    order.billing_address = shop.billing_address.map(address);
    order.payment = shop.payment.map(|payment| {
        let mut paid = SalesOrderPayment::new();
        paid.total_payment_amount = payment.total_payment_amount;
        paid
    });
    order
}

/// A shop's address; its id and number are the domain's to assign.
fn address(shop: ShopAddress) -> Address {
    let mut stored = Address::new(0, Uuid::nil());
    stored.address_first_name = shop.address_first_name;
    stored.address_last_name = shop.address_last_name;
    stored.company = shop.company;
    stored.address_one = shop.address_one;
    stored.address_two = shop.address_two;
    stored.district = shop.district;
    stored.city = shop.city;
    stored.postal_code = shop.postal_code;
    stored.country = shop.country;
    stored.address_phone = shop.address_phone;
    stored.tax_office = shop.tax_office;
    stored.tax_number = shop.tax_number;
    stored
}

/// A return as the read model: `createdAt` taken or `now`; `updatedAt`
/// taken or the latest of its times.
pub fn tagged_return(shop: ShopReturn, now: DateTime<Utc>) -> TaggedReturn {
    let created_at = shop.created_at.unwrap_or(now);
    let latest = [shop.arrived_to_warehouse_at, shop.completed_at]
        .into_iter()
        .flatten()
        .fold(created_at, DateTime::max);
    let mut item = TaggedReturn::new(
        shop.return_reference_number,
        created_at,
        shop.updated_at.unwrap_or(latest),
    );
    item.sales_order_channel = shop.sales_order_channel;
    item.sales_order_reference_number = shop.sales_order_reference_number;
    item.notes = shop.notes;
    item.tracking_id = shop.tracking_id;
    item.cargo_carrier = shop.cargo_carrier;
    item.arrived_to_warehouse_at = shop.arrived_to_warehouse_at;
    item.completed_at = shop.completed_at;
    item.tag = shop.tag;
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn a_return_is_updated_at_its_latest_time_unless_it_says() {
        let now = at("2026-04-01T00:00:00Z");
        let file = br#"[
            {"returnReferenceNumber": "R-1"},
            {"returnReferenceNumber": "R-2", "createdAt": "2026-03-01T00:00:00Z", "arrivedToWarehouseAt": "2026-03-05T00:00:00Z"},
            {"returnReferenceNumber": "R-3", "createdAt": "2026-03-01T00:00:00Z", "updatedAt": "2026-03-02T00:00:00Z"}
        ]"#;
        let read = returns(file, now).unwrap();
        let times: Vec<_> = read.iter().map(|r| (r.created_at, r.updated_at)).collect();
        assert_eq!(
            times,
            [
                (now, now),
                (at("2026-03-01T00:00:00Z"), at("2026-03-05T00:00:00Z")),
                (at("2026-03-01T00:00:00Z"), at("2026-03-02T00:00:00Z")),
            ]
        );
    }

    #[test]
    fn every_problem_names_its_item_and_field_in_either_shape() {
        let file = br#"[
            {"referenceNumber": "A", "customer": {"email": "a@example.com", "firstName": "A", "lastName": "B", "phone": "1"}, "lineItems": []},
            {"id": "not a uuid", "referenceNumber": "B"},
            {"referenceNumber": "C", "customer": {"email": "c@example.com", "firstName": "C", "lastName": "D", "phone": "1"},
             "lineItems": [{"sku": "X", "quantity": 1}], "customerNo": 7}
        ]"#;
        let Problems(problems) = sales_orders(file, Utc::now()).unwrap_err();
        let fields: Vec<&str> = problems
            .iter()
            .map(|p| p.split(':').next().unwrap())
            .collect();
        assert!(fields.contains(&"[0].lineItems"), "{problems:?}");
        assert!(fields.iter().any(|f| f.starts_with("[1].")), "{problems:?}");
        assert!(fields.contains(&"[2].customerNo"), "{problems:?}");
        assert_eq!(
            sales_orders(b"{}", Utc::now()).unwrap_err().0,
            ["file: must be a JSON array of sales orders (InvalidType)"]
        );
    }
}
