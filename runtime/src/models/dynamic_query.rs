//! The DynamicQuery grammar: filters, sorting and paging over a declared set of
//! properties, carried URL-encoded in one query parameter (by convention `dqb`).
//!
//! The inner query is itself a query string:
//! - filters are triplets `o=<op>&p=<property>&v=<value>`, in that order, where
//!   `<op>` is a full name (`Equals`) or a short code (`eq`), optionally followed
//!   by `|OrElse` to combine the filter with the next one by OR instead of AND;
//!   filters are folded left to right without precedence; `v=null` is null, and
//!   `In` takes a comma-separated list;
//! - sorting is `s=<property>[,asc|desc]`, repeatable, applied in order;
//! - paging is `offset=<n>&count=<n>`; the first occurrence of each counts.
//!
//! Other parameters are ignored. [`DynamicQuery::parse`] reads the grammar for
//! a server; the builder methods and [`DynamicQuery::to_query_string`] write it
//! for a client. [`check`] reads it over properties known only at run time
//! ([`Listed`]), as a mock of the document does, with the same messages.

use std::fmt;
use std::marker::PhantomData;

/// The properties of one listing, generated from its `x-dynamic-query`.
pub trait Property: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// Every property, in the document's order.
    const ALL: &'static [Self];
    /// The largest page; larger counts are clamped to it.
    const MAX_COUNT: u32;
    /// The page size when none is asked for.
    const DEFAULT_COUNT: u32;
    /// The properties results are finally sorted by, ascending, after any
    /// requested sorting, so that paging is stable.
    const DEFAULT_SORT: &'static [Self];

    /// The property's name in queries.
    fn name(self) -> &'static str;

    /// The type of the property's values.
    fn kind(self) -> ValueKind;

    /// The property called `name`, if there is one.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|p| p.name() == name)
    }
}

/// The properties a query may name, as reading one needs them: a
/// generated [`Property`] enum, or [`Listed`] names and types.
pub trait Properties {
    /// A property.
    type Property: Copy;
    /// The property called `name`, if there is one.
    fn find(&self, name: &str) -> Option<Self::Property>;
    /// A property's name in queries.
    fn name_of(&self, property: Self::Property) -> &str;
    /// The type of a property's values.
    fn kind_of(&self, property: Self::Property) -> ValueKind;
    /// Every property's name, in the document's order (for messages).
    fn names(&self) -> Vec<&str>;
}

/// The properties of a generated [`Property`] enum.
struct Typed<P>(PhantomData<P>);

impl<P: Property> Properties for Typed<P> {
    type Property = P;

    fn find(&self, name: &str) -> Option<P> {
        P::from_name(name)
    }

    fn name_of(&self, property: P) -> &str {
        property.name()
    }

    fn kind_of(&self, property: P) -> ValueKind {
        property.kind()
    }

    fn names(&self) -> Vec<&str> {
        P::ALL.iter().map(|p| p.name()).collect()
    }
}

/// Properties known only at run time, by name and type, in order: a
/// property is its index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed(pub Vec<(String, ValueKind)>);

impl Properties for Listed {
    type Property = usize;

    fn find(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|(n, _)| n == name)
    }

    fn name_of(&self, property: usize) -> &str {
        self.0.get(property).map_or("", |(name, _)| name)
    }

    fn kind_of(&self, property: usize) -> ValueKind {
        self.0
            .get(property)
            .map_or(ValueKind::String, |(_, kind)| *kind)
    }

    fn names(&self) -> Vec<&str> {
        self.0.iter().map(|(name, _)| name.as_str()).collect()
    }
}

/// Reads `text` over `properties` as [`DynamicQuery::parse`] does, for
/// what it says is wrong: the same error, word for word.
pub fn check(text: &str, properties: &impl Properties) -> Result<(), QueryError> {
    read(text, properties).map(drop)
}

/// The type of a property's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// Text.
    String,
    /// An RFC 3339 date-time.
    DateTime,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A UUID.
    Uuid,
}

impl ValueKind {
    fn describe(self) -> &'static str {
        match self {
            ValueKind::String => "text",
            ValueKind::DateTime => "an RFC 3339 date-time such as 2026-03-14T09:30:00Z",
            ValueKind::Integer => "an integer",
            ValueKind::Number => "a number",
            ValueKind::Boolean => "true or false",
            ValueKind::Uuid => "a UUID",
        }
    }
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `Equals` (`eq`).
    Equals,
    /// `NotEqual` (`ne`).
    NotEqual,
    /// `In` (`in`): one of a comma-separated list.
    In,
    /// `Contains` (`cts`).
    Contains,
    /// `StartsWith` (`sw`).
    StartsWith,
    /// `EndsWith` (`ew`).
    EndsWith,
    /// `GreaterThan` (`gt`).
    GreaterThan,
    /// `GreaterThanOrEqual` (`gtoe`).
    GreaterThanOrEqual,
    /// `LessThan` (`lt`).
    LessThan,
    /// `LessThanOrEqual` (`ltoe`).
    LessThanOrEqual,
}

impl Op {
    /// Every op.
    pub const ALL: [Op; 10] = [
        Op::Equals,
        Op::NotEqual,
        Op::In,
        Op::Contains,
        Op::StartsWith,
        Op::EndsWith,
        Op::GreaterThan,
        Op::GreaterThanOrEqual,
        Op::LessThan,
        Op::LessThanOrEqual,
    ];

    /// The op's full name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Equals => "Equals",
            Op::NotEqual => "NotEqual",
            Op::In => "In",
            Op::Contains => "Contains",
            Op::StartsWith => "StartsWith",
            Op::EndsWith => "EndsWith",
            Op::GreaterThan => "GreaterThan",
            Op::GreaterThanOrEqual => "GreaterThanOrEqual",
            Op::LessThan => "LessThan",
            Op::LessThanOrEqual => "LessThanOrEqual",
        }
    }

    /// The op's short code.
    pub fn short_code(self) -> &'static str {
        match self {
            Op::Equals => "eq",
            Op::NotEqual => "ne",
            Op::In => "in",
            Op::Contains => "cts",
            Op::StartsWith => "sw",
            Op::EndsWith => "ew",
            Op::GreaterThan => "gt",
            Op::GreaterThanOrEqual => "gtoe",
            Op::LessThan => "lt",
            Op::LessThanOrEqual => "ltoe",
        }
    }

    /// The op written as `text`, by full name or short code.
    pub fn parse(text: &str) -> Option<Op> {
        Op::ALL
            .into_iter()
            .find(|op| op.name() == text || op.short_code() == text)
    }

    /// Whether the op compares text (and so needs a text property).
    pub fn is_textual(self) -> bool {
        matches!(self, Op::Contains | Op::StartsWith | Op::EndsWith)
    }

    /// Whether the op orders values.
    pub fn is_ordering(self) -> bool {
        matches!(
            self,
            Op::GreaterThan | Op::GreaterThanOrEqual | Op::LessThan | Op::LessThanOrEqual
        )
    }
}

/// A value in a filter.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// Text.
    String(String),
    #[cfg(feature = "chrono")]
    /// A date-time.
    DateTime(chrono::DateTime<chrono::Utc>),
    /// An integer.
    Integer(i64),
    /// A number.
    Number(f64),
    /// A boolean.
    Boolean(bool),
    #[cfg(feature = "uuid")]
    /// A UUID.
    Uuid(uuid::Uuid),
    /// The list an `In` filter compares with.
    List(Vec<Value>),
}

impl Value {
    /// A list of values, for `In`.
    pub fn list<T: Into<Value>>(items: impl IntoIterator<Item = T>) -> Self {
        Value::List(items.into_iter().map(Into::into).collect())
    }

    fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::String(text) => out.push_str(text),
            #[cfg(feature = "chrono")]
            Value::DateTime(at) => {
                out.push_str(&at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
            }
            Value::Integer(n) => out.push_str(&n.to_string()),
            Value::Number(n) => out.push_str(&n.to_string()),
            Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            #[cfg(feature = "uuid")]
            Value::Uuid(id) => out.push_str(&id.hyphenated().to_string()),
            Value::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
            }
        }
    }

    fn parse(text: &str, kind: ValueKind) -> Option<Value> {
        Some(match kind {
            ValueKind::String => Value::String(text.to_owned()),
            #[cfg(feature = "chrono")]
            ValueKind::DateTime => Value::DateTime(
                chrono::DateTime::parse_from_rfc3339(text)
                    .ok()?
                    .with_timezone(&chrono::Utc),
            ),
            ValueKind::Integer => Value::Integer(text.parse().ok()?),
            ValueKind::Number => Value::Number(text.parse::<f64>().ok().filter(|n| n.is_finite())?),
            ValueKind::Boolean => Value::Boolean(match text {
                "true" | "True" => true,
                "false" | "False" => false,
                _ => return None,
            }),
            #[cfg(feature = "uuid")]
            ValueKind::Uuid => Value::Uuid(uuid::Uuid::try_parse(text).ok()?),
            #[cfg(not(all(feature = "chrono", feature = "uuid")))]
            _ => return None,
        })
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::String(text.to_owned())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Self {
        Value::String(text)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Integer(n)
    }
}

impl From<i32> for Value {
    fn from(n: i32) -> Self {
        Value::Integer(n.into())
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Boolean(b)
    }
}

#[cfg(feature = "chrono")]
impl From<chrono::DateTime<chrono::Utc>> for Value {
    fn from(at: chrono::DateTime<chrono::Utc>) -> Self {
        Value::DateTime(at)
    }
}

#[cfg(feature = "uuid")]
impl From<uuid::Uuid> for Value {
    fn from(id: uuid::Uuid) -> Self {
        Value::Uuid(id)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

/// How a filter combines with the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Join {
    /// Both must hold (the default).
    #[default]
    And,
    /// Either may hold (`|OrElse`).
    Or,
}

/// One filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter<P> {
    /// The property compared.
    pub property: P,
    /// The comparison.
    pub op: Op,
    /// The value compared with (a [`Value::List`] for [`Op::In`]).
    pub value: Value,
    /// How this filter combines with the next one.
    pub join_next: Join,
}

/// A sorting direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// Smallest first (the default).
    #[default]
    Ascending,
    /// Largest first.
    Descending,
}

/// One sort key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort<P> {
    /// The property sorted by.
    pub property: P,
    /// The direction.
    pub direction: Direction,
}

/// A query over the properties `P`: filters, sorting and paging.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicQuery<P> {
    filters: Vec<Filter<P>>,
    sort: Vec<Sort<P>>,
    offset: Option<u32>,
    count: Option<u32>,
    properties: PhantomData<P>,
}

impl<P: Property> Default for DynamicQuery<P> {
    fn default() -> Self {
        DynamicQuery {
            filters: Vec::new(),
            sort: Vec::new(),
            offset: None,
            count: None,
            properties: PhantomData,
        }
    }
}

impl<P: Property> DynamicQuery<P> {
    /// A query without filters, sorting or paging: the first page in the default order.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a filter, combined with the previous one by AND (unless
    /// [`or`](Self::or) was called after it).
    pub fn filter(mut self, property: P, op: Op, value: impl Into<Value>) -> Self {
        self.filters.push(Filter {
            property,
            op,
            value: value.into(),
            join_next: Join::And,
        });
        self
    }

    /// Combines the last filter with the next one by OR instead of AND.
    pub fn or(mut self) -> Self {
        if let Some(last) = self.filters.last_mut() {
            last.join_next = Join::Or;
        }
        self
    }

    /// Sorts by `property` (after any earlier sort keys).
    pub fn sort(mut self, property: P, direction: Direction) -> Self {
        self.sort.push(Sort {
            property,
            direction,
        });
        self
    }

    /// Skips the first `offset` results.
    pub fn offset(mut self, offset: u32) -> Self {
        self.offset = Some(offset);
        self
    }

    /// Asks for pages of `count` results (clamped to 1..=`P::MAX_COUNT`).
    pub fn count(mut self, count: u32) -> Self {
        self.count = Some(count);
        self
    }

    /// The filters, in order.
    pub fn filters(&self) -> &[Filter<P>] {
        &self.filters
    }

    /// The requested sort keys, in order.
    pub fn sorting(&self) -> &[Sort<P>] {
        &self.sort
    }

    /// The requested sort keys followed by the default ones not already used:
    /// the complete order results come in.
    pub fn effective_sort(&self) -> Vec<Sort<P>> {
        let mut keys = self.sort.clone();
        for &property in P::DEFAULT_SORT {
            if !keys.iter().any(|k| k.property == property) {
                keys.push(Sort {
                    property,
                    direction: Direction::Ascending,
                });
            }
        }
        keys
    }

    /// The requested offset, if any.
    pub fn requested_offset(&self) -> Option<u32> {
        self.offset
    }

    /// The requested page size, if any.
    pub fn requested_count(&self) -> Option<u32> {
        self.count
    }

    /// The offset used: the requested one, or 0.
    pub fn effective_offset(&self) -> u32 {
        self.offset.unwrap_or(0)
    }

    /// The page size used: the requested one clamped to 1..=`P::MAX_COUNT`,
    /// or `P::DEFAULT_COUNT`.
    pub fn effective_count(&self) -> u32 {
        self.count
            .unwrap_or(P::DEFAULT_COUNT)
            .clamp(1, P::MAX_COUNT.max(1))
    }

    /// The inner query string, ready to be sent as the query parameter's
    /// value (the HTTP client encodes it once more as a whole).
    pub fn to_query_string(&self) -> String {
        let mut out = String::new();
        let mut pair = |key: &str, value: &str| {
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(key);
            out.push('=');
            encode_component(value, &mut out);
        };
        for filter in &self.filters {
            let op = match filter.join_next {
                Join::And => filter.op.name().to_owned(),
                Join::Or => format!("{}|OrElse", filter.op.name()),
            };
            pair("o", &op);
            pair("p", filter.property.name());
            let mut value = String::new();
            filter.value.write(&mut value);
            pair("v", &value);
        }
        for key in &self.sort {
            let direction = match key.direction {
                Direction::Ascending => "asc",
                Direction::Descending => "desc",
            };
            pair("s", &format!("{},{direction}", key.property.name()));
        }
        if let Some(offset) = self.offset {
            pair("offset", &offset.to_string());
        }
        if let Some(count) = self.count {
            pair("count", &count.to_string());
        }
        out
    }

    /// Reads an inner query string (the parameter's decoded value). A leading
    /// `?` is allowed; parameters the grammar does not know are ignored.
    pub fn parse(text: &str) -> Result<Self, QueryError> {
        let read = read(text, &Typed::<P>(PhantomData))?;
        Ok(DynamicQuery {
            filters: read.filters,
            sort: read.sort,
            offset: read.offset,
            count: read.count,
            properties: PhantomData,
        })
    }
}

/// What a query says, over properties of any kind.
struct Read<X> {
    filters: Vec<Filter<X>>,
    sort: Vec<Sort<X>>,
    offset: Option<u32>,
    count: Option<u32>,
}

/// Reads an inner query string over `properties`.
fn read<C: Properties>(text: &str, properties: &C) -> Result<Read<C::Property>, QueryError> {
    let text = text.strip_prefix('?').unwrap_or(text);
    let mut query = Read {
        filters: Vec::new(),
        sort: Vec::new(),
        offset: None,
        count: None,
    };
    // A filter being read: its op and join, then its property.
    let mut pending: Option<(Op, Join, Option<C::Property>)> = None;
    let mut filter_number = 0;
    for (key, value) in text
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(split_pair)
    {
        match key.as_str() {
            "o" => {
                if pending.is_some() {
                    return Err(QueryError::new(format!(
                        "filter {filter_number} has an `o` but no `p` and `v`; every filter is `o=<op>&p=<property>&v=<value>`"
                    )));
                }
                filter_number += 1;
                let (op_text, join) = match value.split_once('|') {
                    None => (value.as_str(), Join::And),
                    Some((op, "OrElse")) => (op, Join::Or),
                    Some((op, "AndAlso")) => (op, Join::And),
                    Some((_, other)) => {
                        return Err(QueryError::new(format!(
                            "filter {filter_number}: `|{other}` is not a logical operator; use `|OrElse` (or `|AndAlso`)"
                        )));
                    }
                };
                let op = Op::parse(op_text).ok_or_else(|| {
                    let known: Vec<String> = Op::ALL
                        .iter()
                        .map(|op| format!("{} ({})", op.name(), op.short_code()))
                        .collect();
                    QueryError::new(format!(
                        "filter {filter_number}: `{op_text}` is not an op; use one of {}",
                        known.join(", ")
                    ))
                })?;
                pending = Some((op, join, None));
            }
            "p" => match &mut pending {
                Some((_, _, property @ None)) => {
                    *property = Some(
                        properties
                            .find(&value)
                            .ok_or_else(|| unknown_property(properties, &value))?,
                    );
                }
                _ => {
                    return Err(QueryError::new(format!(
                        "a `p` must follow an `o`: every filter is `o=<op>&p=<property>&v=<value>` (near `p={value}`)"
                    )));
                }
            },
            "v" => match pending.take() {
                Some((op, join, Some(property))) => {
                    let value = filter_value(properties, op, property, &value, filter_number)?;
                    query.filters.push(Filter {
                        property,
                        op,
                        value,
                        join_next: join,
                    });
                }
                _ => {
                    return Err(QueryError::new(format!(
                        "a `v` must follow an `o` and a `p`: every filter is `o=<op>&p=<property>&v=<value>` (near `v={value}`)"
                    )));
                }
            },
            "s" => {
                let (name, direction) = match value.split_once(',') {
                    None => (value.as_str(), Direction::Ascending),
                    Some((name, direction)) => (
                        name,
                        match direction.to_ascii_lowercase().as_str() {
                            "asc" => Direction::Ascending,
                            "desc" => Direction::Descending,
                            other => {
                                return Err(QueryError::new(format!(
                                    "sort `{value}`: `{other}` is not a direction; use asc or desc"
                                )));
                            }
                        },
                    ),
                };
                let property = properties
                    .find(name)
                    .ok_or_else(|| unknown_property(properties, name))?;
                query.sort.push(Sort {
                    property,
                    direction,
                });
            }
            "offset" if query.offset.is_none() => {
                let n = paging_number("offset", &value)?;
                query.offset = Some(n.clamp(0, i64::from(u32::MAX)) as u32);
            }
            "count" if query.count.is_none() => {
                let n = paging_number("count", &value)?;
                query.count = Some(n.clamp(1, i64::from(u32::MAX)) as u32);
            }
            _ => {}
        }
    }
    if pending.is_some() {
        return Err(QueryError::new(format!(
            "filter {filter_number} is incomplete; every filter is `o=<op>&p=<property>&v=<value>`"
        )));
    }
    Ok(query)
}

impl<P: Property> fmt::Display for DynamicQuery<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_query_string())
    }
}

impl<P: Property> std::str::FromStr for DynamicQuery<P> {
    type Err = QueryError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

fn filter_value<C: Properties>(
    properties: &C,
    op: Op,
    property: C::Property,
    text: &str,
    number: usize,
) -> Result<Value, QueryError> {
    let kind = properties.kind_of(property);
    let name = properties.name_of(property);
    if text == "null" {
        return match op {
            Op::Equals | Op::NotEqual => Ok(Value::Null),
            _ => Err(QueryError::new(format!(
                "filter {number}: null can only be compared with Equals or NotEqual, not {}",
                op.name()
            ))),
        };
    }
    if op.is_textual() && kind != ValueKind::String {
        return Err(QueryError::new(format!(
            "filter {number}: {} only applies to text, and `{name}` is not text",
            op.name()
        )));
    }
    if op.is_ordering() && kind == ValueKind::Boolean {
        return Err(QueryError::new(format!(
            "filter {number}: `{name}` cannot be ordered with {}",
            op.name()
        )));
    }
    let one = |item: &str| {
        Value::parse(item, kind).ok_or_else(|| {
            QueryError::new(format!(
                "filter {number}: `{item}` is not a value of `{name}`, which takes {}",
                kind.describe()
            ))
        })
    };
    if op == Op::In {
        Ok(Value::List(
            text.split(',').map(one).collect::<Result<_, _>>()?,
        ))
    } else {
        one(text)
    }
}

fn paging_number(key: &str, value: &str) -> Result<i64, QueryError> {
    value
        .trim()
        .parse::<i64>()
        .map_err(|_| QueryError::new(format!("`{key}={value}`: {key} must be an integer")))
}

fn unknown_property(properties: &impl Properties, name: &str) -> QueryError {
    let known = properties.names();
    QueryError::new(format!(
        "`{name}` is not a property of this listing; use one of {}",
        known.join(", ")
    ))
}

fn split_pair(pair: &str) -> (String, String) {
    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
    (decode_component(key), decode_component(value))
}

/// Percent-decodes a query component (`+` is a space); malformed escapes
/// are kept as written.
fn decode_component(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn encode_component(text: &str, out: &mut String) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

/// Why a query could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    message: String,
}

impl QueryError {
    fn new(message: String) -> Self {
        QueryError { message }
    }

    /// What is wrong, naming the problem.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escape_at_the_very_end_is_decoded() {
        assert_eq!(decode_component("a%41"), "aA");
        assert_eq!(decode_component("%41"), "A");
        assert_eq!(decode_component("name%3D"), "name=");
    }

    #[test]
    fn malformed_escapes_are_kept_as_written() {
        assert_eq!(decode_component("100%"), "100%");
        assert_eq!(decode_component("a%4"), "a%4");
        assert_eq!(decode_component("%zz%41"), "%zzA");
        assert_eq!(decode_component("%%41"), "%A");
        // An escape cut short by a multi-byte character keeps the character whole.
        assert_eq!(decode_component("%é"), "%é");
        assert_eq!(decode_component("%aé"), "%aé");
    }

    #[test]
    fn plus_is_a_space_and_escaped_bytes_make_utf8() {
        assert_eq!(decode_component("a+b%2Bc"), "a b+c");
        assert_eq!(decode_component("M%C3%BCller"), "Müller");
    }

    /// The properties of a listing, as a models crate generates them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Field {
        Name,
        Quantity,
        Active,
        CreatedAt,
    }

    impl Property for Field {
        const ALL: &'static [Self] = &[
            Field::Name,
            Field::Quantity,
            Field::Active,
            Field::CreatedAt,
        ];
        const MAX_COUNT: u32 = 100;
        const DEFAULT_COUNT: u32 = 25;
        const DEFAULT_SORT: &'static [Self] = &[Field::CreatedAt, Field::Name];

        fn name(self) -> &'static str {
            match self {
                Field::Name => "name",
                Field::Quantity => "quantity",
                Field::Active => "active",
                Field::CreatedAt => "createdAt",
            }
        }

        fn kind(self) -> ValueKind {
            match self {
                Field::Name => ValueKind::String,
                Field::Quantity => ValueKind::Integer,
                Field::Active => ValueKind::Boolean,
                Field::CreatedAt => ValueKind::DateTime,
            }
        }
    }

    type Query = DynamicQuery<Field>;

    fn error(text: &str) -> String {
        let error = Query::parse(text).expect_err(text);
        assert_eq!(error.to_string(), error.message(), "shown as its message");
        error.message().to_owned()
    }

    /// Properties listed at run time read a query as the generated enum
    /// does: the same queries pass, the same errors, word for word.
    #[test]
    fn listed_properties_read_as_the_generated_enum() {
        let listed = Listed(
            Field::ALL
                .iter()
                .map(|f| (f.name().to_owned(), f.kind()))
                .collect(),
        );
        for text in [
            "o=eq&p=name&v=a&s=quantity,desc&offset=2&count=5",
            "o=In&p=quantity&v=1,2&o=ne|OrElse&p=active&v=null",
            "o=eq&p=colour&v=red",
            "o=gt&p=createdAt&v=yesterday",
            "o=StartsWith&p=quantity&v=1",
            "o=gt&p=active&v=true",
            "s=nothing",
            "count=ten",
            "o=eq&p=name",
        ] {
            let typed = Query::parse(text)
                .map(drop)
                .map_err(|e| e.message().to_owned());
            let read = check(text, &listed).map_err(|e| e.message().to_owned());
            assert_eq!(read, typed, "{text}");
        }
        assert!(check("o=eq&p=colour&v=red", &listed).is_err());
    }

    #[test]
    fn a_built_query_reads_back_as_itself() {
        let query = Query::new()
            .filter(Field::Name, Op::StartsWith, "Mü & co=")
            .or()
            .filter(Field::Quantity, Op::In, Value::list([1, 2, 3]))
            .filter(Field::Active, Op::NotEqual, Option::<bool>::None)
            .sort(Field::Quantity, Direction::Descending)
            .offset(40)
            .count(20);
        let text = query.to_query_string();
        assert_eq!(
            text,
            "o=StartsWith%7COrElse&p=name&v=M%C3%BC%20%26%20co%3D&o=In&p=quantity&v=1%2C2%2C3\
             &o=NotEqual&p=active&v=null&s=quantity%2Cdesc&offset=40&count=20"
        );
        assert_eq!(Query::parse(&text), Ok(query.clone()));
        assert_eq!(text.parse::<Query>(), Ok(query));
    }

    #[test]
    fn ops_read_by_full_name_or_short_code_and_join_by_and_unless_or_else() {
        let query = Query::parse(
            "?o=eq&p=name&v=a&o=gtoe|OrElse&p=quantity&v=3&o=ltoe|AndAlso&p=quantity&v=9",
        )
        .expect("valid");
        let read: Vec<(Op, Join)> = query
            .filters()
            .iter()
            .map(|f| (f.op, f.join_next))
            .collect();
        assert_eq!(
            read,
            [
                (Op::Equals, Join::And),
                (Op::GreaterThanOrEqual, Join::Or),
                (Op::LessThanOrEqual, Join::And)
            ]
        );
        assert_eq!(query.filters()[1].value, Value::Integer(3));
        for op in Op::ALL {
            assert_eq!(Op::parse(op.name()), Some(op));
            assert_eq!(Op::parse(op.short_code()), Some(op));
        }
        assert_eq!(Op::parse("equals"), None);
    }

    #[test]
    fn values_are_read_as_the_property_type_says() {
        let query = Query::parse(
            "o=eq&p=active&v=True&o=in&p=name&v=a,b&o=eq&p=quantity&v=null&o=eq&p=active&v=False",
        )
        .expect("valid");
        let values: Vec<&Value> = query.filters().iter().map(|f| &f.value).collect();
        assert_eq!(
            values,
            [
                &Value::Boolean(true),
                &Value::List(vec![Value::from("a"), Value::from("b")]),
                &Value::Null,
                &Value::Boolean(false),
            ]
        );
        assert_eq!(
            error("o=eq&p=quantity&v=seven"),
            "filter 1: `seven` is not a value of `quantity`, which takes an integer"
        );
        assert_eq!(
            error("o=in&p=quantity&v=1,x"),
            "filter 1: `x` is not a value of `quantity`, which takes an integer"
        );
        assert_eq!(
            error("o=gt&p=name&v=null"),
            "filter 1: null can only be compared with Equals or NotEqual, not GreaterThan"
        );
        assert_eq!(
            error("o=cts&p=quantity&v=1"),
            "filter 1: Contains only applies to text, and `quantity` is not text"
        );
        assert_eq!(
            error("o=lt&p=active&v=true"),
            "filter 1: `active` cannot be ordered with LessThan"
        );
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn date_times_are_rfc_3339_in_utc() {
        let query =
            Query::parse("o=gt&p=createdAt&v=2026-03-14T10%3A30%3A00%2B01%3A00").expect("valid");
        let Value::DateTime(at) = &query.filters()[0].value else {
            panic!("not a date-time: {query:?}");
        };
        assert_eq!(at.to_rfc3339(), "2026-03-14T09:30:00+00:00");
        assert!(error("o=gt&p=createdAt&v=yesterday").contains("an RFC 3339 date-time"));
    }

    #[test]
    fn a_filter_out_of_order_or_incomplete_is_refused_by_its_number() {
        assert_eq!(
            error("o=eq&p=name&v=a&o=eq&o=eq"),
            "filter 2 has an `o` but no `p` and `v`; every filter is `o=<op>&p=<property>&v=<value>`"
        );
        assert!(error("p=name&v=a").starts_with("a `p` must follow an `o`"));
        assert!(error("o=eq&v=a").starts_with("a `v` must follow an `o` and a `p`"));
        assert_eq!(
            error("o=eq&p=name"),
            "filter 1 is incomplete; every filter is `o=<op>&p=<property>&v=<value>`"
        );
        assert!(
            error("o=like&p=name&v=a")
                .starts_with("filter 1: `like` is not an op; use one of Equals (eq), ")
        );
        assert_eq!(
            error("o=eq|XorElse&p=name&v=a"),
            "filter 1: `|XorElse` is not a logical operator; use `|OrElse` (or `|AndAlso`)"
        );
    }

    #[test]
    fn an_unknown_property_names_the_known_ones() {
        let expected = "`colour` is not a property of this listing; use one of name, quantity, active, createdAt";
        assert_eq!(error("o=eq&p=colour&v=red"), expected);
        assert_eq!(error("s=colour"), expected);
    }

    #[test]
    fn sorting_is_ascending_unless_desc_and_ends_with_the_default_keys() {
        let query = Query::parse("s=name,DESC&s=quantity").expect("valid");
        assert_eq!(
            query.sorting(),
            [
                Sort {
                    property: Field::Name,
                    direction: Direction::Descending
                },
                Sort {
                    property: Field::Quantity,
                    direction: Direction::Ascending
                },
            ]
        );
        let effective: Vec<(Field, Direction)> = query
            .effective_sort()
            .iter()
            .map(|key| (key.property, key.direction))
            .collect();
        assert_eq!(
            effective,
            [
                (Field::Name, Direction::Descending),
                (Field::Quantity, Direction::Ascending),
                (Field::CreatedAt, Direction::Ascending),
            ]
        );
        assert_eq!(
            error("s=name,up"),
            "sort `name,up`: `up` is not a direction; use asc or desc"
        );
    }

    #[test]
    fn paging_takes_the_first_of_each_and_clamps_the_page_size() {
        let query =
            Query::parse("offset=-5&count=500&offset=10&count=2&colour=red").expect("valid");
        assert_eq!(query.requested_offset(), Some(0));
        assert_eq!(query.requested_count(), Some(500));
        assert_eq!(query.effective_offset(), 0);
        assert_eq!(query.effective_count(), Field::MAX_COUNT);
        let later = Query::parse("offset=10").expect("valid");
        assert_eq!(later.requested_offset(), Some(10));
        assert_eq!(later.effective_offset(), 10);
        assert_eq!(later.to_string(), later.to_query_string());
        assert_eq!(later.to_string(), "offset=10");
        let plain = Query::parse("").expect("empty is the first page");
        assert_eq!(plain, Query::new());
        assert_eq!(plain.effective_count(), Field::DEFAULT_COUNT);
        assert_eq!(Query::new().count(0).effective_count(), 1);
        assert_eq!(
            error("count=many"),
            "`count=many`: count must be an integer"
        );
    }
}
