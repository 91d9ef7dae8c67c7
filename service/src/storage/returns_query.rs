//! The `dqb` DynamicQuery of the return listings, as SQL run by the
//! database: filters become a WHERE clause folded left to right as the
//! platform folds them, sorting an ORDER BY with a stable tail, paging
//! LIMIT/OFFSET. Values are always bound, never spliced into the SQL.

use logistics_models::dynamic_query::{Direction, DynamicQuery, Join, Op, Value};

use crate::domain::returns::{ReturnField, ReturnProperty};

/// A value to bind, in the order of the `$n` placeholders.
#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    /// Text.
    Text(String),
    /// An integer (also timestamps, as microseconds).
    Int(i64),
}

/// A listing's query, ready to run: `$1` is the tenant, the binds follow.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlQuery {
    /// The condition after `WHERE tenant_id = $1 AND`, or `TRUE`.
    pub condition: String,
    /// The `ORDER BY` list.
    pub order: String,
    /// The values of `$2`, `$3`, …
    pub binds: Vec<Bind>,
    /// The page size.
    pub limit: i64,
    /// The rows skipped.
    pub offset: i64,
}

/// The column that stores a return's field. A `match` without a catch-all:
/// a field added to the domain is a compile error here until it is stored.
fn column(field: ReturnField) -> &'static str {
    match field {
        ReturnField::ReturnReferenceNumber => "return_reference_number",
        ReturnField::SalesOrderChannel => "sales_order_channel",
        ReturnField::SalesOrderReferenceNumber => "sales_order_reference_number",
        ReturnField::Notes => "notes",
        ReturnField::TrackingId => "tracking_id",
        ReturnField::CargoCarrier => "cargo_carrier",
        ReturnField::CreatedAt => "created_at",
        ReturnField::UpdatedAt => "updated_at",
        ReturnField::ArrivedToWarehouseAt => "arrived_to_warehouse_at",
        ReturnField::CompletedAt => "completed_at",
        ReturnField::Tag => "tag",
    }
}

/// Translates `query`; placeholders start at `$2` (`$1` is the tenant).
pub fn plan<P: ReturnProperty>(query: &DynamicQuery<P>) -> SqlQuery {
    let mut binds = Vec::new();
    let mut condition = String::new();
    let mut join = Join::And;
    for (i, filter) in query.filters().iter().enumerate() {
        let clause = filter_sql(
            column(filter.property.field()),
            filter.op,
            &filter.value,
            &mut binds,
        );
        condition = if i == 0 {
            clause
        } else {
            let word = if join == Join::Or { "OR" } else { "AND" };
            format!("({condition} {word} {clause})")
        };
        join = filter.join_next;
    }
    if condition.is_empty() {
        condition.push_str("TRUE");
    }
    let order = query
        .effective_sort()
        .iter()
        .map(|key| {
            // Nulls first going up, last going down, on both databases.
            let direction = match key.direction {
                Direction::Ascending => "ASC NULLS FIRST",
                Direction::Descending => "DESC NULLS LAST",
            };
            format!("{} {direction}", column(key.property.field()))
        })
        .collect::<Vec<_>>()
        .join(", ");
    SqlQuery {
        condition,
        order,
        binds,
        limit: i64::from(query.effective_count()),
        offset: i64::from(query.effective_offset()),
    }
}

fn filter_sql(column: &str, op: Op, value: &Value, binds: &mut Vec<Bind>) -> String {
    let mut placeholder = |value: &Value| {
        binds.push(bind(value));
        format!("${}", binds.len() + 1)
    };
    match (op, value) {
        (Op::Equals, Value::Null) => format!("{column} IS NULL"),
        (Op::NotEqual, Value::Null) => format!("{column} IS NOT NULL"),
        (Op::Equals, v) => format!("{column} = {}", placeholder(v)),
        // As the platform compares: a null is not equal to any value.
        (Op::NotEqual, v) => format!("({column} IS NULL OR {column} <> {})", placeholder(v)),
        (Op::In, Value::List(items)) => {
            let list: Vec<String> = items.iter().map(&mut placeholder).collect();
            format!("{column} IN ({})", list.join(", "))
        }
        (Op::In, v) => format!("{column} = {}", placeholder(v)),
        (Op::Contains | Op::StartsWith | Op::EndsWith, v) => {
            let text = match v {
                Value::String(text) => escape_like(text),
                other => escape_like(&text_of(other)),
            };
            let pattern = match op {
                Op::Contains => format!("%{text}%"),
                Op::StartsWith => format!("{text}%"),
                _ => format!("%{text}"),
            };
            format!(
                "{column} LIKE {} ESCAPE '\\'",
                placeholder(&Value::String(pattern))
            )
        }
        (Op::GreaterThan, v) => format!("{column} > {}", placeholder(v)),
        (Op::GreaterThanOrEqual, v) => format!("{column} >= {}", placeholder(v)),
        (Op::LessThan, v) => format!("{column} < {}", placeholder(v)),
        (Op::LessThanOrEqual, v) => format!("{column} <= {}", placeholder(v)),
    }
}

fn bind(value: &Value) -> Bind {
    match value {
        Value::DateTime(at) => Bind::Int(at.timestamp_micros()),
        Value::Integer(n) => Bind::Int(*n),
        other => Bind::Text(text_of(other)),
    }
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        Value::Number(n) => n.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(n) => n.to_string(),
        Value::DateTime(at) => at.to_rfc3339(),
        Value::Uuid(id) => id.to_string(),
        Value::List(items) => items.iter().map(text_of).collect::<Vec<_>>().join(","),
    }
}

/// Escapes `%`, `_` and the escape character itself for `LIKE … ESCAPE '\'`.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use logistics_models::ReturnsQuery;

    #[test]
    fn folds_filters_left_to_right_and_binds_every_value() {
        let query = ReturnsQuery::parse(
            "o=eq|OrElse&p=cargoCarrier&v=A&o=in&p=cargoCarrier&v=B,C&o=gt&p=createdAt&v=2026-03-01T00:00:00Z&o=ne&p=notes&v=x&o=sw&p=trackingId&v=50%25_off&s=notes,desc&count=10&offset=20",
        )
        .unwrap();
        let sql = plan(&query);
        assert_eq!(
            sql.condition,
            "((((cargo_carrier = $2 OR cargo_carrier IN ($3, $4)) AND created_at > $5) AND (notes IS NULL OR notes <> $6)) AND tracking_id LIKE $7 ESCAPE '\\')"
        );
        assert_eq!(
            sql.binds,
            [
                Bind::Text("A".into()),
                Bind::Text("B".into()),
                Bind::Text("C".into()),
                Bind::Int(1_772_323_200_000_000),
                Bind::Text("x".into()),
                Bind::Text("50\\%\\_off%".into()),
            ]
        );
        assert_eq!(
            sql.order,
            "notes DESC NULLS LAST, created_at ASC NULLS FIRST, return_reference_number ASC NULLS FIRST"
        );
        assert_eq!((sql.limit, sql.offset), (10, 20));
    }

    #[test]
    fn without_a_query_lists_the_first_hundred_in_creation_order() {
        let sql = plan(&ReturnsQuery::new());
        assert_eq!(sql.condition, "TRUE");
        assert_eq!(
            sql.order,
            "created_at ASC NULLS FIRST, return_reference_number ASC NULLS FIRST"
        );
        assert_eq!((sql.limit, sql.offset), (100, 0));
        let nulls =
            plan(&ReturnsQuery::parse("o=eq&p=notes&v=null&o=ne&p=trackingId&v=null").unwrap());
        assert_eq!(
            nulls.condition,
            "(notes IS NULL AND tracking_id IS NOT NULL)"
        );
        assert!(nulls.binds.is_empty());
    }
}
