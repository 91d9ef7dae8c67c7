//! Validation against the document's schemas, reporting every problem.
//!
//! Two walks share the checks here:
//! - [`Validate`] checks a decoded value for the constraints serde cannot
//!   check (lengths, ranges, formats, item counts);
//! - [`ValidateJson`] checks a raw JSON value for everything (types, required
//!   and unknown properties, enum values, formats and constraints).
//!
//! [`from_json_slice`] decodes with serde first and only walks the raw JSON
//! when that fails, so a valid document pays for one parse and the
//! constraint checks, nothing more.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// The most problems a [`Report`] keeps; further ones are only counted.
pub const MAX_PROBLEMS: usize = 100;

/// One problem with one value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Where the value is, such as `[3].lineItems[0].sku`.
    pub property: String,
    /// What is wrong with it.
    pub message: String,
    /// A machine-readable code, such as `Required` or `InvalidType`.
    #[serde(rename = "errorCode")]
    pub error_code: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.property, self.message, self.error_code
        )
    }
}

/// Every problem found, up to [`MAX_PROBLEMS`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    problems: Vec<Problem>,
    omitted: usize,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Report::default()
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty() && self.omitted == 0
    }

    /// The problems kept, in the order they were found.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// How many problems were found beyond [`MAX_PROBLEMS`].
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// How many problems were found in all.
    pub fn total(&self) -> usize {
        self.problems.len() + self.omitted
    }

    /// The problems kept.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }

    /// Adds a problem (counted only, once the report is full).
    pub fn add(&mut self, problem: Problem) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(problem);
        } else {
            self.omitted += 1;
        }
    }

    /// Adds the problems of `other` (counted only, once the report is full).
    pub fn append(&mut self, other: Report) {
        self.omitted += other.omitted;
        for problem in other.problems {
            self.add(problem);
        }
    }

    /// Adds a problem with the value at `path`.
    pub fn push(&mut self, path: &Path<'_>, message: impl Into<String>, error_code: &str) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(Problem {
                property: path.to_string(),
                message: message.into(),
                error_code: error_code.to_owned(),
            });
        } else {
            self.omitted += 1;
        }
    }

    /// Adds a problem with the property `key` of the object at `path`.
    pub fn push_child(&mut self, path: &mut Path<'_>, key: &str, message: &str, error_code: &str) {
        if self.problems.len() < MAX_PROBLEMS {
            let property = path.child(key);
            self.problems.push(Problem {
                property,
                message: message.to_owned(),
                error_code: error_code.to_owned(),
            });
        } else {
            self.omitted += 1;
        }
    }

    /// A one-line summary, such as "The request has 3 validation errors."
    pub fn summary(&self, subject: &str) -> String {
        match (self.total(), self.omitted) {
            (1, _) => format!("The {subject} has 1 validation error."),
            (n, 0) => format!("The {subject} has {n} validation errors."),
            (n, omitted) => format!(
                "The {subject} has {n} validation errors; the first {} are listed, {omitted} more were not.",
                self.problems.len()
            ),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        if self.omitted > 0 {
            write!(f, "; and {} more", self.omitted)?;
        }
        Ok(())
    }
}

impl std::error::Error for Report {}

/// The location of the value being checked. It is rendered only when a
/// problem is reported, so walking a valid value allocates nothing for it.
#[derive(Debug, Clone)]
pub struct Path<'a> {
    root: &'static str,
    segments: Vec<Segment<'a>>,
}

#[derive(Debug, Clone, Copy)]
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    /// The path of a whole document; `root` names it in problems about the
    /// document itself (for example `body`).
    pub fn new(root: &'static str) -> Self {
        Path {
            root,
            segments: Vec::new(),
        }
    }

    /// Steps into the property `key`.
    pub fn push_key(&mut self, key: &'a str) {
        self.segments.push(Segment::Key(key));
    }

    /// Steps into the item at `index`.
    pub fn push_index(&mut self, index: usize) {
        self.segments.push(Segment::Index(index));
    }

    /// Steps back out.
    pub fn pop(&mut self) {
        self.segments.pop();
    }

    /// The rendered path of the property `key` of the value here.
    pub fn child(&self, key: &str) -> String {
        let mut rendered = if self.segments.is_empty() {
            String::new()
        } else {
            self.to_string()
        };
        if !rendered.is_empty() {
            rendered.push('.');
        }
        rendered.push_str(key);
        rendered
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.segments.is_empty() {
            return f.write_str(self.root);
        }
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Key(key) if i == 0 => f.write_str(key)?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// Checks a decoded value for the constraints serde cannot check.
///
/// A type with no such constraints implements it with an empty block
/// (`impl Validate for Tag {}`): the default adds nothing.
pub trait Validate {
    /// Adds a problem to `report` for each constraint the value breaks.
    fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
        let _ = (path, report);
    }
}

/// Checks a raw JSON value against a schema.
pub trait ValidateJson {
    /// Adds a problem to `report` for each way `value` breaks the schema.
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report);
}

/// Decodes `bytes` as JSON into `T` and checks it, or reports every problem.
///
/// `root` names the document in problems about the document as a whole.
pub fn from_json_slice<T>(bytes: &[u8], root: &'static str) -> Result<T, Report>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    from_json_slice_with(bytes, root, |_: &T| Vec::new())
}

/// Like [`from_json_slice`], with `rules` that a schema cannot state. They see
/// every value that decodes, even one whose own checks found problems, and
/// their problems join those in one report; a value that does not decode at
/// all is reported without them.
pub fn from_json_slice_with<T>(
    bytes: &[u8],
    root: &'static str,
    rules: impl FnOnce(&T) -> Vec<Problem>,
) -> Result<T, Report>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    from_json_under(bytes, &Path::new(root), rules)
}

/// Like [`from_json_slice`], for the item at `index` of a sequence (JSON
/// Lines, JSON text sequences): its problems are named as those of a JSON
/// array's item would be (`[2].name`).
pub fn item_from_json_slice<T>(bytes: &[u8], root: &'static str, index: usize) -> Result<T, Report>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    let mut at = Path::new(root);
    at.push_index(index);
    from_json_under(bytes, &at, |_: &T| Vec::new())
}

/// Like [`from_json_slice`] for a JSON value that is a part of a request
/// rather than its body (an OpenAPI 3.2 querystring): its problems are
/// reported under `at` (`filter`, `filter.limit`), as a parameter's are.
pub fn from_json_slice_at<T>(bytes: &[u8], at: &Path<'static>) -> Result<T, Report>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    from_json_under(bytes, at, |_: &T| Vec::new())
}

/// [`from_json_slice_with`] with every problem under `at`.
fn from_json_under<T>(
    bytes: &[u8],
    at: &Path<'static>,
    rules: impl FnOnce(&T) -> Vec<Problem>,
) -> Result<T, Report>
where
    T: DeserializeOwned + Validate + ValidateJson,
{
    let mut report = Report::new();
    match serde_json::from_slice::<T>(bytes) {
        Ok(value) => {
            let mut path: Path<'_> = at.clone();
            value.validate(&mut path, &mut report);
            for problem in rules(&value) {
                report.add(problem);
            }
            if report.is_empty() {
                Ok(value)
            } else {
                Err(report)
            }
        }
        // Not `T`, or not JSON: read as any JSON, a syntax error is the
        // same error, and a value is walked for every problem at once.
        Err(error) => {
            match serde_json::from_slice::<Value>(bytes) {
                Ok(value) => {
                    let mut path: Path<'_> = at.clone();
                    T::validate_json(&value, &mut path, &mut report);
                }
                Err(syntax) => {
                    report.push(at, format!("is not valid JSON: {syntax}"), "InvalidJson")
                }
            }
            if report.is_empty() {
                // The walk and serde disagree; say what serde said rather than nothing.
                report.push(
                    at,
                    format!("does not match the schema: {error}"),
                    "InvalidType",
                );
            }
            Err(report)
        }
    }
}

/// Checks `value` against the schema of `T`, returning every problem.
pub fn check_json<T: ValidateJson>(value: &Value, root: &'static str) -> Report {
    let mut report = Report::new();
    T::validate_json(value, &mut Path::new(root), &mut report);
    report
}

// ---- helpers for generated code ------------------------------------------------

/// Deserialises an optional property that may be absent but not `null`.
/// Used with `#[serde(default, deserialize_with = "...")]`.
pub fn deserialize_some<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Deserialises a property that must be present but may be `null`.
pub fn deserialize_nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(deserializer)
}

/// Serialises `value`, an alternative of a union that `property` tells
/// apart, with `property` set to `tag` where the value leaves it out (an
/// optional discriminator with a default, as Pydantic writes one): without
/// it, no reader could tell which alternative the value is.
pub fn serialize_tagged<S, T>(
    value: &T,
    property: &str,
    tag: &str,
    serializer: S,
) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
    T: serde::Serialize + ?Sized,
{
    let mut json = serde_json::to_value(value).map_err(serde::ser::Error::custom)?;
    if let Value::Object(object) = &mut json {
        object
            .entry(property)
            .or_insert_with(|| Value::String(tag.to_owned()));
    }
    serde::Serialize::serialize(&json, serializer)
}

/// The object `value` is, or a problem if it is not one.
pub fn expect_object<'v>(
    value: &'v Value,
    path: &Path<'_>,
    report: &mut Report,
) -> Option<&'v serde_json::Map<String, Value>> {
    match value {
        Value::Object(object) => Some(object),
        other => {
            report.push(path, type_message("an object", other), "InvalidType");
            None
        }
    }
}

/// Reports each property of `object` that is not among `known`.
pub fn check_unknown_properties(
    object: &serde_json::Map<String, Value>,
    known: &[&str],
    path: &mut Path<'_>,
    report: &mut Report,
) {
    for key in object.keys() {
        if !known.contains(&key.as_str()) {
            report.push_child(path, key, "is not a known property", "UnknownProperty");
        }
    }
}

/// Reports each of `required` that `object` lacks.
pub fn check_required_properties(
    object: &serde_json::Map<String, Value>,
    required: &[&str],
    path: &mut Path<'_>,
    report: &mut Report,
) {
    for key in required {
        if !object.contains_key(*key) {
            report.push_child(path, key, "is required", "Required");
        }
    }
}

/// Checks `value` as a `T` (its type and everything `T` checks).
pub fn walk<'v, T: ValidateJson>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
    T::validate_json(value, path, report);
}

/// Whether a property may be `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Null {
    /// `null` is allowed (a nullable schema, or an optional property of a response).
    Allowed,
    /// `null` is a problem.
    Refused,
}

/// Checks the property `key` of `object`, when it is there, as a `T`.
pub fn property<'v, T: ValidateJson>(
    object: &'v serde_json::Map<String, Value>,
    key: &'static str,
    null: Null,
    path: &mut Path<'v>,
    report: &mut Report,
) {
    let Some(value) = object.get(key) else {
        return;
    };
    path.push_key(key);
    match (value.is_null(), null) {
        (true, Null::Allowed) => {}
        (true, Null::Refused) => report_null(path, report),
        (false, _) => T::validate_json(value, path, report),
    }
    path.pop();
}

/// Reports a `null` where the schema does not allow one.
pub fn report_null(path: &Path<'_>, report: &mut Report) {
    report.push(path, "must not be null", "InvalidType");
}

/// Reports a value that fits none of a union's alternatives.
pub fn report_no_alternative(path: &Path<'_>, alternatives: &str, report: &mut Report) {
    report.push(
        path,
        format!("must be one of: {alternatives}"),
        "InvalidType",
    );
}

fn type_message(expected: &str, found: &Value) -> String {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    format!("must be {expected}, not {found}")
}

/// Checks a string's length in characters.
pub fn check_length(
    value: &str,
    min: Option<usize>,
    max: Option<usize>,
    code: Option<&str>,
    path: &Path<'_>,
    report: &mut Report,
) {
    let length = value.chars().count();
    let code = code.unwrap_or("OutOfRange");
    match (min, max) {
        (Some(min), Some(max)) if length < min || length > max => report.push(
            path,
            format!("must be {min} to {max} characters long"),
            code,
        ),
        (Some(1), None) if length == 0 => report.push(path, "must not be empty", code),
        (Some(min), None) if length < min => report.push(
            path,
            format!("must be at least {min} characters long"),
            code,
        ),
        (None, Some(max)) if length > max => {
            report.push(path, format!("must be at most {max} characters long"), code)
        }
        _ => {}
    }
}

/// Checks that a string is an email address: `local@domain`, neither part
/// empty, no `@` or white space outside a quoted local part. Deliberately
/// lenient: real addresses are varied.
pub fn check_email(value: &str, code: Option<&str>, path: &Path<'_>, report: &mut Report) {
    let plain = |part: &str| {
        !part
            .chars()
            .any(|c| c == '@' || c.is_whitespace() || c.is_control())
    };
    let valid = match value.rsplit_once('@') {
        Some((local, domain)) => {
            let quoted = local.len() >= 2 && local.starts_with('"') && local.ends_with('"');
            !local.is_empty() && !domain.is_empty() && plain(domain) && (quoted || plain(local))
        }
        None => false,
    };
    if !valid {
        report.push(
            path,
            "must be an email address",
            code.unwrap_or("InvalidFormat"),
        );
    }
}

/// Checks a number against `minimum`/`maximum` (each with its exclusiveness).
pub fn check_range(
    value: f64,
    minimum: Option<(f64, bool)>,
    maximum: Option<(f64, bool)>,
    code: Option<&str>,
    path: &Path<'_>,
    report: &mut Report,
) {
    let code = code.unwrap_or("OutOfRange");
    if let Some((min, exclusive)) = minimum {
        if exclusive && value <= min {
            report.push(path, format!("must be greater than {min}"), code);
        } else if !exclusive && value < min {
            report.push(path, format!("must be at least {min}"), code);
        }
    }
    if let Some((max, exclusive)) = maximum {
        if exclusive && value >= max {
            report.push(path, format!("must be less than {max}"), code);
        } else if !exclusive && value > max {
            report.push(path, format!("must be at most {max}"), code);
        }
    }
}

/// Checks that a number is a multiple of `factor`.
pub fn check_multiple_of(
    value: f64,
    factor: f64,
    code: Option<&str>,
    path: &Path<'_>,
    report: &mut Report,
) {
    let quotient = value / factor;
    if (quotient - quotient.round()).abs() > 1e-9 {
        report.push(
            path,
            format!("must be a multiple of {factor}"),
            code.unwrap_or("OutOfRange"),
        );
    }
}

/// Checks the number of items of an array.
pub fn check_items(
    count: usize,
    min: Option<usize>,
    max: Option<usize>,
    code: Option<&str>,
    path: &Path<'_>,
    report: &mut Report,
) {
    let code = code.unwrap_or("OutOfRange");
    if let Some(min) = min {
        if count < min {
            let message = if min == 1 {
                "must not be empty".to_owned()
            } else {
                format!("must have at least {min} items")
            };
            report.push(path, message, code);
        }
    }
    if let Some(max) = max {
        if count > max {
            report.push(
                path,
                format!("must have at most {max} items, not {count}"),
                code,
            );
        }
    }
}

/// Checks that no two items of an array are equal.
pub fn check_unique<T: PartialEq>(
    items: &[T],
    code: Option<&str>,
    path: &Path<'_>,
    report: &mut Report,
) {
    let duplicate = items
        .iter()
        .enumerate()
        .any(|(i, item)| items[..i].contains(item));
    if duplicate {
        report.push(
            path,
            "must not contain the same item twice",
            code.unwrap_or("OutOfRange"),
        );
    }
}

/// Checks the number of properties of an object.
pub fn check_property_count(
    count: usize,
    min: Option<usize>,
    max: Option<usize>,
    path: &Path<'_>,
    report: &mut Report,
) {
    if min.is_some_and(|min| count < min) || max.is_some_and(|max| count > max) {
        let (min, max) = (
            min.unwrap_or(0),
            max.map_or("any".to_owned(), |m| m.to_string()),
        );
        report.push(
            path,
            format!("must have {min} to {max} properties"),
            "OutOfRange",
        );
    }
}

/// Checks a string against a regular expression of the document.
#[cfg(feature = "regex")]
pub fn check_pattern(
    value: &str,
    pattern: &regex_lite::Regex,
    code: Option<&str>,
    path: &Path<'_>,
    report: &mut Report,
) {
    if !pattern.is_match(value) {
        report.push(
            path,
            format!("must match the pattern {}", pattern.as_str()),
            code.unwrap_or("InvalidFormat"),
        );
    }
}

// ---- the JSON walk for primitives and containers --------------------------------

impl ValidateJson for Value {
    fn validate_json<'v>(_: &'v Value, _: &mut Path<'v>, _: &mut Report) {}
}

impl ValidateJson for serde_json::Map<String, Value> {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        expect_object(value, path, report);
    }
}

impl ValidateJson for String {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        if !value.is_string() {
            report.push(path, type_message("a string", value), "InvalidType");
        }
    }
}

impl ValidateJson for () {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        if !value.is_null() {
            report.push(path, type_message("null", value), "InvalidType");
        }
    }
}

impl ValidateJson for bool {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        if !value.is_boolean() {
            report.push(path, type_message("a boolean", value), "InvalidType");
        }
    }
}

macro_rules! integer_validate_json {
    ($($ty:ty),*) => {$(
        impl ValidateJson for $ty {
            fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
                let in_range = match value {
                    Value::Number(n) if n.is_i64() => n.as_i64().map(|v| <$ty>::try_from(v).is_ok()),
                    Value::Number(n) if n.is_u64() => n.as_u64().map(|v| <$ty>::try_from(v).is_ok()),
                    _ => None,
                };
                match in_range {
                    Some(true) => {}
                    Some(false) => report.push(
                        path,
                        format!("must be between {} and {}", <$ty>::MIN, <$ty>::MAX),
                        "OutOfRange",
                    ),
                    None => report.push(path, type_message("an integer", value), "InvalidType"),
                }
            }
        }
    )*};
}

integer_validate_json!(i8, i16, i32, i64, u8, u16, u32, u64);

impl ValidateJson for f64 {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        if !value.is_number() {
            report.push(path, type_message("a number", value), "InvalidType");
        }
    }
}

impl ValidateJson for f32 {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match value.as_f64() {
            Some(v) if v.is_finite() && v.abs() > f64::from(f32::MAX) => {
                report.push(path, "is too large for a 32-bit float", "OutOfRange")
            }
            Some(_) => {}
            None => report.push(path, type_message("a number", value), "InvalidType"),
        }
    }
}

#[cfg(feature = "uuid")]
impl ValidateJson for uuid::Uuid {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match value.as_str() {
            Some(text) if uuid::Uuid::try_parse(text).is_ok() => {}
            Some(_) => report.push(path, "must be a UUID", "InvalidFormat"),
            None => report.push(path, type_message("a string", value), "InvalidType"),
        }
    }
}

#[cfg(feature = "chrono")]
impl ValidateJson for chrono::DateTime<chrono::Utc> {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match value.as_str() {
            Some(text)
                if serde_json::from_value::<Self>(Value::String(text.to_owned())).is_ok() => {}
            Some(_) => report.push(
                path,
                "must be an RFC 3339 date-time such as 2026-03-14T09:30:00Z",
                "InvalidFormat",
            ),
            None => report.push(path, type_message("a string", value), "InvalidType"),
        }
    }
}

#[cfg(feature = "chrono")]
impl ValidateJson for chrono::NaiveDate {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match value.as_str() {
            Some(text) if text.parse::<chrono::NaiveDate>().is_ok() => {}
            Some(_) => report.push(path, "must be a date such as 2026-03-14", "InvalidFormat"),
            None => report.push(path, type_message("a string", value), "InvalidType"),
        }
    }
}

impl<T: ValidateJson> ValidateJson for Vec<T> {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match value {
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    path.push_index(index);
                    T::validate_json(item, path, report);
                    path.pop();
                }
            }
            other => report.push(path, type_message("an array", other), "InvalidType"),
        }
    }
}

impl<T: ValidateJson> ValidateJson for BTreeMap<String, T> {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        if let Some(object) = expect_object(value, path, report) {
            for (key, item) in object {
                path.push_key(key);
                T::validate_json(item, path, report);
                path.pop();
            }
        }
    }
}

impl<T: ValidateJson> ValidateJson for Option<T> {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        if !value.is_null() {
            T::validate_json(value, path, report);
        }
    }
}

impl<T: ValidateJson> ValidateJson for Box<T> {
    fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        T::validate_json(value, path, report);
    }
}

// ---- the typed walk for primitives and containers --------------------------------

macro_rules! nothing_to_validate {
    ($($ty:ty),*) => {$(
        impl Validate for $ty {
            fn validate<'s>(&'s self, _: &mut Path<'s>, _: &mut Report) {}
        }
    )*};
}

nothing_to_validate!(Value, serde_json::Map<String, Value>, String, bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
nothing_to_validate!(());
#[cfg(feature = "uuid")]
nothing_to_validate!(uuid::Uuid);
#[cfg(feature = "chrono")]
nothing_to_validate!(chrono::DateTime<chrono::Utc>, chrono::NaiveDate);

impl<T: Validate> Validate for Vec<T> {
    fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
        for (index, item) in self.iter().enumerate() {
            path.push_index(index);
            item.validate(path, report);
            path.pop();
        }
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
        for (key, item) in self {
            path.push_key(key);
            item.validate(path, report);
            path.pop();
        }
    }
}

impl<T: Validate> Validate for Option<T> {
    fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
        if let Some(value) = self {
            value.validate(path, report);
        }
    }
}

impl<T: Validate> Validate for Box<T> {
    fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
        T::validate(self, path, report);
    }
}

/// The error of parsing a string into an enum of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEnumValue {
    /// The value given.
    pub value: String,
    /// The values allowed.
    pub expected: &'static [&'static str],
}

impl fmt::Display for UnknownEnumValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not one of: {}",
            self.value,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownEnumValue {}

/// Decodes a string of an open enum: `known` gives the variant of a value
/// the document lists, any other string becomes `unknown(value)`. Listed
/// values are not copied.
pub fn deserialize_open_enum<'de, D, T>(
    deserializer: D,
    known: fn(&str) -> Option<T>,
    unknown: fn(String) -> T,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Text<T> {
        known: fn(&str) -> Option<T>,
        unknown: fn(String) -> T,
    }

    impl<T> serde::de::Visitor<'_> for Text<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }

        fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<T, E> {
            Ok((self.known)(value).unwrap_or_else(|| (self.unknown)(value.to_owned())))
        }

        fn visit_string<E: serde::de::Error>(self, value: String) -> Result<T, E> {
            Ok(match (self.known)(&value) {
                Some(known) => known,
                None => (self.unknown)(value),
            })
        }
    }

    deserializer.deserialize_str(Text { known, unknown })
}

/// Checks that `value` is one of an enum's wire values.
pub fn check_enum_value(
    value: &Value,
    expected: &'static [&'static str],
    path: &Path<'_>,
    report: &mut Report,
) {
    match value.as_str() {
        Some(text) if expected.contains(&text) => {}
        Some(_) => report.push(
            path,
            format!("must be one of: {}", expected.join(", ")),
            "InvalidEnumValue",
        ),
        None => report.push(path, type_message("a string", value), "InvalidType"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills a report to [`MAX_PROBLEMS`] with `add`, then gives it two more.
    fn overfilled(add: impl Fn(&mut Report, usize)) -> Report {
        let mut report = Report::new();
        for i in 0..MAX_PROBLEMS {
            add(&mut report, i);
        }
        assert_eq!(
            (report.problems().len(), report.omitted()),
            (MAX_PROBLEMS, 0)
        );
        add(&mut report, MAX_PROBLEMS);
        add(&mut report, MAX_PROBLEMS + 1);
        report
    }

    #[test]
    fn a_report_keeps_the_first_problems_and_counts_the_rest() {
        let problem = |i: usize| Problem {
            property: format!("p{i}"),
            message: "is wrong".to_owned(),
            error_code: "Invalid".to_owned(),
        };
        let by_add = overfilled(|report, i| report.add(problem(i)));
        let by_push =
            overfilled(|report, _| report.push(&Path::new("body"), "is wrong", "Invalid"));
        let by_child = overfilled(|report, i| {
            report.push_child(
                &mut Path::new("body"),
                &format!("k{i}"),
                "is wrong",
                "Invalid",
            );
        });
        for report in [&by_add, &by_push, &by_child] {
            assert_eq!(
                (report.problems().len(), report.omitted()),
                (MAX_PROBLEMS, 2)
            );
            assert_eq!(report.total(), MAX_PROBLEMS + 2);
        }
        assert_eq!(by_child.problems()[3].property, "k3");

        let mut merged = Report::new();
        merged.add(problem(0));
        merged.append(by_add);
        assert_eq!(
            (merged.problems().len(), merged.omitted()),
            (MAX_PROBLEMS, 3)
        );

        let mut few = Report::new();
        few.add(problem(0));
        assert_eq!(few.to_string(), "p0: is wrong (Invalid)");
        few.add(problem(1));
        assert_eq!(
            few.to_string(),
            "p0: is wrong (Invalid); p1: is wrong (Invalid)"
        );
        few.append(Report {
            problems: Vec::new(),
            omitted: 1,
        });
        assert_eq!(
            few.to_string(),
            "p0: is wrong (Invalid); p1: is wrong (Invalid); and 1 more"
        );
    }

    #[test]
    fn a_nullable_property_is_null_or_its_value_but_never_absent() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Line {
            #[serde(deserialize_with = "deserialize_nullable")]
            lot: Option<u32>,
            #[serde(default, deserialize_with = "deserialize_some")]
            note: Option<String>,
        }
        let line = |json: &str| serde_json::from_str::<Line>(json).map_err(|e| e.to_string());
        assert_eq!(
            line(r#"{"lot":3,"note":"n"}"#),
            Ok(Line {
                lot: Some(3),
                note: Some("n".to_owned())
            })
        );
        assert_eq!(
            line(r#"{"lot":null}"#),
            Ok(Line {
                lot: None,
                note: None
            })
        );
        assert!(line("{}").unwrap_err().starts_with("missing field `lot`"));
        assert!(
            line(r#"{"lot":1,"note":null}"#).is_err(),
            "absent, not null"
        );
    }

    /// What `check` reports of a value at `body`: each problem's message
    /// and code.
    fn reported(check: impl FnOnce(&mut Path<'_>, &mut Report)) -> Vec<(String, String)> {
        let mut report = Report::new();
        check(&mut Path::new("body"), &mut report);
        let problems = report.into_problems().into_iter();
        problems.map(|p| (p.message, p.error_code)).collect()
    }

    /// The one message `check` reports, or `None`.
    fn message(check: impl FnOnce(&mut Path<'_>, &mut Report)) -> Option<String> {
        let mut problems = reported(check);
        assert!(problems.len() <= 1, "{problems:?}");
        problems.pop().map(|(message, _)| message)
    }

    #[test]
    fn a_strings_length_is_counted_in_characters_against_its_bounds() {
        let length = |text: &str, min, max| {
            message(|path, report| {
                check_length(text, min, max, None, path, report);
            })
        };
        let between = "must be 2 to 4 characters long";
        assert_eq!(length("a", Some(2), Some(4)).as_deref(), Some(between));
        assert_eq!(length("éé", Some(2), Some(4)), None);
        assert_eq!(length("abcd", Some(2), Some(4)), None);
        assert_eq!(length("abcde", Some(2), Some(4)).as_deref(), Some(between));
        let one_to_three = "must be 1 to 3 characters long";
        assert_eq!(length("", Some(1), Some(3)).as_deref(), Some(one_to_three));
        assert_eq!(
            length("abcd", Some(1), Some(3)).as_deref(),
            Some(one_to_three)
        );
        assert_eq!(
            length("", Some(1), None).as_deref(),
            Some("must not be empty")
        );
        assert_eq!(length("a", Some(1), None), None);
        let at_least = "must be at least 3 characters long";
        assert_eq!(length("ab", Some(3), None).as_deref(), Some(at_least));
        assert_eq!(length("abc", Some(3), None), None);
        assert_eq!(length("abc", None, Some(3)), None);
        let at_most = "must be at most 3 characters long";
        assert_eq!(length("abcd", None, Some(3)).as_deref(), Some(at_most));
        let coded = reported(|path, report| {
            check_length("", Some(1), None, Some("NameRequired"), path, report);
        });
        assert_eq!(coded[0].1, "NameRequired");
    }

    #[test]
    fn an_email_address_is_a_local_part_and_a_domain() {
        let email = |text: &str| message(|path, report| check_email(text, None, path, report));
        assert_eq!(email("a@example.com"), None);
        assert_eq!(email("\"a b\"@example.com"), None, "a quoted local part");
        for bad in ["a b\"@example.com", "@example.com", "a@", "a@b c", "plain"] {
            assert_eq!(
                email(bad).as_deref(),
                Some("must be an email address"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_number_is_checked_against_each_bound_and_its_exclusiveness() {
        let range = |value, minimum, maximum| {
            message(|path, report| {
                check_range(value, minimum, maximum, None, path, report);
            })
        };
        assert_eq!(
            range(0.5, Some((1.0, false)), None).as_deref(),
            Some("must be at least 1")
        );
        assert_eq!(range(1.0, Some((1.0, false)), None), None);
        assert_eq!(
            range(1.0, Some((1.0, true)), None).as_deref(),
            Some("must be greater than 1")
        );
        assert_eq!(range(1.5, Some((1.0, true)), None), None);
        assert_eq!(range(3.0, None, Some((5.0, false))), None);
        assert_eq!(range(5.0, None, Some((5.0, false))), None);
        assert_eq!(
            range(5.5, None, Some((5.0, false))).as_deref(),
            Some("must be at most 5")
        );
        assert_eq!(
            range(5.0, None, Some((5.0, true))).as_deref(),
            Some("must be less than 5")
        );
        assert_eq!(range(4.9, None, Some((5.0, true))), None);
        let multiple =
            |value| message(|path, report| check_multiple_of(value, 0.5, None, path, report));
        assert_eq!(multiple(1.5), None);
        assert_eq!(multiple(1.2).as_deref(), Some("must be a multiple of 0.5"));
    }

    #[test]
    fn an_arrays_and_an_objects_sizes_are_checked_against_their_bounds() {
        let items = |count, min, max| {
            message(|path, report| {
                check_items(count, min, max, None, path, report);
            })
        };
        assert_eq!(
            items(0, Some(1), None).as_deref(),
            Some("must not be empty")
        );
        assert_eq!(
            items(1, Some(2), None).as_deref(),
            Some("must have at least 2 items")
        );
        assert_eq!(items(2, Some(2), Some(3)), None);
        assert_eq!(items(3, Some(2), Some(3)), None);
        assert_eq!(
            items(4, None, Some(3)).as_deref(),
            Some("must have at most 3 items, not 4")
        );
        let properties = |count, min, max| {
            message(|path, report| {
                check_property_count(count, min, max, path, report);
            })
        };
        assert_eq!(
            properties(0, Some(1), Some(2)).as_deref(),
            Some("must have 1 to 2 properties")
        );
        assert_eq!(properties(1, Some(1), Some(2)), None);
        assert_eq!(properties(2, Some(1), Some(2)), None);
        assert_eq!(
            properties(3, Some(1), Some(2)).as_deref(),
            Some("must have 1 to 2 properties")
        );
        assert_eq!(
            properties(3, None, Some(2)).as_deref(),
            Some("must have 0 to 2 properties")
        );
        assert_eq!(
            properties(0, Some(1), None).as_deref(),
            Some("must have 1 to any properties")
        );
        assert_eq!(properties(1, None, Some(2)), None);
    }

    #[cfg(feature = "regex")]
    #[test]
    fn a_string_must_match_its_pattern() {
        let pattern = regex_lite::Regex::new("^[A-Z]+$").unwrap();
        let matched =
            |text: &str| reported(|path, report| check_pattern(text, &pattern, None, path, report));
        assert_eq!(matched("ABC"), []);
        assert_eq!(
            matched("abc"),
            [(
                "must match the pattern ^[A-Z]+$".to_owned(),
                "InvalidFormat".to_owned()
            )]
        );
    }

    #[test]
    fn a_string_must_be_one_of_its_enums_values() {
        let one_of = |value: Value| {
            message(|path, report| check_enum_value(&value, &["a", "b"], path, report))
        };
        assert_eq!(one_of(Value::from("b")), None);
        assert_eq!(
            one_of(Value::from("c")).as_deref(),
            Some("must be one of: a, b")
        );
        assert_eq!(
            one_of(Value::from(1)).as_deref(),
            Some("must be a string, not a number")
        );
        let none_fits = message(|path, report| report_no_alternative(path, "Dog, Cat", report));
        assert_eq!(none_fits.as_deref(), Some("must be one of: Dog, Cat"));
        let unknown = UnknownEnumValue {
            value: "c".to_owned(),
            expected: &["a", "b"],
        };
        assert_eq!(unknown.to_string(), "`c` is not one of: a, b");
    }

    /// The one problem of `value` checked as a `T`, or `None`.
    fn check<T: ValidateJson>(value: Value) -> Option<String> {
        let mut report = Report::new();
        walk::<T>(&value, &mut Path::new("body"), &mut report);
        let mut problems = report.into_problems();
        assert!(problems.len() <= 1, "{problems:?}");
        problems.pop().map(|p| p.message)
    }

    /// The type check of each primitive: what it takes, and the problem of
    /// a value of another type.
    #[test]
    fn each_primitive_takes_its_json_type_and_names_what_it_found() {
        use serde_json::json;
        assert_eq!(check::<serde_json::Map<String, Value>>(json!({})), None);
        assert_eq!(
            check::<serde_json::Map<String, Value>>(json!([])).as_deref(),
            Some("must be an object, not an array")
        );
        assert_eq!(check::<()>(Value::Null), None);
        assert_eq!(
            check::<()>(json!(0)).as_deref(),
            Some("must be null, not a number")
        );
        assert_eq!(check::<bool>(json!(true)), None);
        assert_eq!(
            check::<bool>(json!("true")).as_deref(),
            Some("must be a boolean, not a string")
        );
        assert_eq!(check::<f64>(json!(1.5)), None);
        assert_eq!(
            check::<f64>(json!(null)).as_deref(),
            Some("must be a number, not null")
        );
        let too_large = Some("is too large for a 32-bit float");
        assert_eq!(check::<f32>(json!(1.5)), None);
        assert_eq!(check::<f32>(json!(f64::from(f32::MAX))), None);
        assert_eq!(check::<f32>(json!(-1e39)).as_deref(), too_large);
        assert_eq!(
            check::<f32>(json!(false)).as_deref(),
            Some("must be a number, not a boolean")
        );
        assert_eq!(check::<Option<bool>>(Value::Null), None);
        assert_eq!(
            check::<Option<bool>>(json!(1)).as_deref(),
            Some("must be a boolean, not a number")
        );
        assert_eq!(
            check::<Box<bool>>(json!(1)).as_deref(),
            Some("must be a boolean, not a number")
        );
        let report = check_json::<bool>(&json!(1), "flag");
        assert_eq!(report.problems()[0].property, "flag");
    }

    #[cfg(all(feature = "uuid", feature = "chrono"))]
    #[test]
    fn a_uuid_a_date_and_a_date_time_are_strings_of_their_format() {
        use serde_json::json;
        let id = "0191d3b2-7c1e-7a2b-9c3d-4e5f60718293";
        assert_eq!(check::<uuid::Uuid>(json!(id)), None);
        assert_eq!(
            check::<uuid::Uuid>(json!("0191")).as_deref(),
            Some("must be a UUID")
        );
        assert_eq!(
            check::<uuid::Uuid>(json!(7)).as_deref(),
            Some("must be a string, not a number")
        );
        type Instant = chrono::DateTime<chrono::Utc>;
        assert_eq!(check::<Instant>(json!("2026-03-14T09:30:00Z")), None);
        assert_eq!(
            check::<Instant>(json!("2026-03-14")).as_deref(),
            Some("must be an RFC 3339 date-time such as 2026-03-14T09:30:00Z")
        );
        assert_eq!(
            check::<Instant>(json!({})).as_deref(),
            Some("must be a string, not an object")
        );
        assert_eq!(check::<chrono::NaiveDate>(json!("2026-03-14")), None);
        assert_eq!(
            check::<chrono::NaiveDate>(json!("14/03/2026")).as_deref(),
            Some("must be a date such as 2026-03-14")
        );
        assert_eq!(
            check::<chrono::NaiveDate>(json!(1)).as_deref(),
            Some("must be a string, not a number")
        );
    }

    #[test]
    fn a_maps_values_are_checked_each_at_its_key() {
        let mut report = Report::new();
        let value = serde_json::json!({"a": true, "b": 1});
        walk::<BTreeMap<String, bool>>(&value, &mut Path::new("body"), &mut report);
        let places: Vec<&str> = report
            .problems()
            .iter()
            .map(|p| p.property.as_str())
            .collect();
        assert_eq!(places, ["b"]);
    }

    /// A value whose own rule is to be even: it shows where the containers
    /// walk to.
    struct Even(u32);

    impl Validate for Even {
        fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
            if self.0 % 2 == 1 {
                report.push(path, "must be even", "Odd");
            }
        }
    }

    #[test]
    fn containers_validate_each_value_they_hold_at_its_place() {
        fn places(value: &impl Validate) -> Vec<String> {
            let mut report = Report::new();
            value.validate(&mut Path::new("body"), &mut report);
            let problems = report.into_problems();
            problems.into_iter().map(|p| p.property).collect()
        }
        let map = BTreeMap::from([("a".to_owned(), Even(2)), ("b".to_owned(), Even(3))]);
        assert_eq!(places(&map), ["b"]);
        assert_eq!(places(&Some(Even(1))), ["body"]);
        assert_eq!(places(&None::<Even>), Vec::<String>::new());
        assert_eq!(places(&Box::new(Even(5))), ["body"]);
        assert_eq!(places(&vec![Even(0), Even(7)]), ["[1]"]);
    }

    #[test]
    fn an_open_enum_takes_any_string_and_only_a_string() {
        #[derive(Debug, PartialEq)]
        enum Carrier {
            Aras,
            Other(String),
        }
        fn decode(json: &str) -> Result<Carrier, String> {
            let mut deserializer = serde_json::Deserializer::from_str(json);
            let known = |text: &str| (text == "Aras").then_some(Carrier::Aras);
            deserialize_open_enum(&mut deserializer, known, Carrier::Other)
                .map_err(|e| e.to_string())
        }
        assert_eq!(decode(r#""Aras""#), Ok(Carrier::Aras));
        assert_eq!(decode(r#""MNG""#), Ok(Carrier::Other("MNG".to_owned())));
        let error = decode("1").unwrap_err();
        assert!(
            error.starts_with("invalid type: integer `1`, expected a string"),
            "{error}"
        );
    }

    /// The tag is written where the value leaves it out, and never
    /// replaces one the value has.
    #[test]
    fn a_union_alternative_is_written_with_its_tag() {
        #[derive(serde::Serialize)]
        struct Dog {
            #[serde(skip_serializing_if = "Option::is_none")]
            kind: Option<&'static str>,
            name: &'static str,
        }
        let write = |dog: &Dog| {
            serialize_tagged(dog, "kind", "dog", serde_json::value::Serializer).unwrap()
        };
        let rex = Dog {
            kind: None,
            name: "Rex",
        };
        assert_eq!(
            write(&rex),
            serde_json::json!({"kind": "dog", "name": "Rex"})
        );
        let puppy = Dog {
            kind: Some("puppy"),
            name: "Bo",
        };
        assert_eq!(
            write(&puppy),
            serde_json::json!({"kind": "puppy", "name": "Bo"})
        );
    }

    /// A schema as a models crate writes it: `{ sku (1..=8 chars), quantity (≥ 1) }`,
    /// both required, nothing else allowed.
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Line {
        sku: String,
        quantity: i32,
    }

    impl Validate for Line {
        fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
            path.push_key("sku");
            check_length(&self.sku, Some(1), Some(8), None, path, report);
            path.pop();
            path.push_key("quantity");
            check_range(
                f64::from(self.quantity),
                Some((1.0, false)),
                None,
                None,
                path,
                report,
            );
            path.pop();
        }
    }

    impl ValidateJson for Line {
        fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
            let Some(object) = expect_object(value, path, report) else {
                return;
            };
            check_required_properties(object, &["sku", "quantity"], path, report);
            check_unknown_properties(object, &["sku", "quantity"], path, report);
            property::<String>(object, "sku", Null::Refused, path, report);
            property::<i32>(object, "quantity", Null::Refused, path, report);
        }
    }

    fn problems(report: &Report) -> Vec<(String, String, String)> {
        report
            .problems()
            .iter()
            .map(|p| (p.property.clone(), p.message.clone(), p.error_code.clone()))
            .collect()
    }

    fn owned(expected: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
        expected
            .iter()
            .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
            .collect()
    }

    #[test]
    fn a_valid_body_decodes() {
        let lines: Vec<Line> =
            from_json_slice(br#"[{"sku":"A-1","quantity":2}]"#, "body").expect("valid");
        assert_eq!(lines[0].sku, "A-1");
    }

    #[test]
    fn a_body_that_decodes_reports_every_broken_constraint() {
        let report = from_json_slice::<Vec<Line>>(
            br#"[{"sku":"A-1","quantity":2},{"sku":"","quantity":0},{"sku":"TOO-LONG-1","quantity":1}]"#,
            "body",
        )
        .expect_err("constraints");
        assert_eq!(
            problems(&report),
            owned(&[
                ("[1].sku", "must be 1 to 8 characters long", "OutOfRange"),
                ("[1].quantity", "must be at least 1", "OutOfRange"),
                ("[2].sku", "must be 1 to 8 characters long", "OutOfRange"),
            ])
        );
        assert_eq!(
            report.summary("request"),
            "The request has 3 validation errors."
        );
    }

    #[test]
    fn rules_join_the_checks_of_a_body_that_decodes() {
        let report = from_json_slice_with::<Line>(br#"{"sku":"","quantity":1}"#, "body", |line| {
            vec![Problem {
                property: "sku".to_owned(),
                message: format!("`{}` is not in the catalogue", line.sku),
                error_code: "UnknownSku".to_owned(),
            }]
        })
        .expect_err("both");
        assert_eq!(report.total(), 2);
        assert_eq!(report.problems()[1].error_code, "UnknownSku");
    }

    #[test]
    fn a_body_that_does_not_decode_is_walked_for_every_problem() {
        let report = from_json_slice::<Vec<Line>>(
            br#"[{"sku":7,"colour":"red"},{"sku":null,"quantity":70000000000},"x"]"#,
            "body",
        )
        .expect_err("types");
        assert_eq!(
            problems(&report),
            owned(&[
                ("[0].quantity", "is required", "Required"),
                ("[0].colour", "is not a known property", "UnknownProperty"),
                ("[0].sku", "must be a string, not a number", "InvalidType"),
                ("[1].sku", "must not be null", "InvalidType"),
                (
                    "[1].quantity",
                    "must be between -2147483648 and 2147483647",
                    "OutOfRange"
                ),
                ("[2]", "must be an object, not a string", "InvalidType"),
            ])
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_one_problem_with_the_root() {
        let report = from_json_slice::<Line>(b"{\"sku\":", "body").expect_err("syntax");
        assert_eq!(report.total(), 1);
        assert_eq!(report.problems()[0].property, "body");
        assert_eq!(report.problems()[0].error_code, "InvalidJson");
        assert_eq!(
            report.summary("request"),
            "The request has 1 validation error."
        );
    }

    #[test]
    fn a_full_report_counts_what_it_no_longer_keeps() {
        let mut report = Report::new();
        for _ in 0..MAX_PROBLEMS + 3 {
            report.push(&Path::new("body"), "is wrong", "Wrong");
        }
        assert_eq!(report.problems().len(), MAX_PROBLEMS);
        assert_eq!((report.omitted(), report.total()), (3, MAX_PROBLEMS + 3));
        assert_eq!(
            report.summary("request"),
            "The request has 103 validation errors; the first 100 are listed, 3 more were not."
        );
        assert!(report.to_string().ends_with("; and 3 more"));
    }

    #[test]
    fn paths_render_as_keys_and_indexes() {
        let mut path = Path::new("body");
        assert_eq!(path.to_string(), "body");
        assert_eq!(path.child("sku"), "sku");
        path.push_index(3);
        path.push_key("lineItems");
        path.push_index(0);
        assert_eq!(path.to_string(), "[3].lineItems[0]");
        assert_eq!(path.child("sku"), "[3].lineItems[0].sku");
        path.pop();
        path.pop();
        path.pop();
        path.push_key("name");
        assert_eq!(path.to_string(), "name");
    }

    #[test]
    fn constraint_messages_say_the_bounds() {
        let path = Path::new("value");
        let mut report = Report::new();
        check_length("", Some(1), None, None, &path, &mut report);
        check_length("ab", Some(3), None, Some("TooShort"), &path, &mut report);
        check_length("abcd", None, Some(3), None, &path, &mut report);
        check_length("äöü", Some(3), Some(3), None, &path, &mut report);
        check_range(
            5.0,
            Some((5.0, true)),
            Some((5.0, true)),
            None,
            &path,
            &mut report,
        );
        check_range(
            5.0,
            Some((5.0, false)),
            Some((4.5, false)),
            None,
            &path,
            &mut report,
        );
        check_multiple_of(0.3, 0.1, None, &path, &mut report);
        check_multiple_of(0.35, 0.1, None, &path, &mut report);
        check_items(0, Some(1), None, None, &path, &mut report);
        check_items(4, Some(2), Some(3), None, &path, &mut report);
        check_unique(&[1, 2, 1], None, &path, &mut report);
        check_property_count(0, Some(1), None, &path, &mut report);
        let messages: Vec<String> = problems(&report)
            .into_iter()
            .map(|(_, message, code)| format!("{message} ({code})"))
            .collect();
        assert_eq!(
            messages,
            [
                "must not be empty (OutOfRange)",
                "must be at least 3 characters long (TooShort)",
                "must be at most 3 characters long (OutOfRange)",
                "must be greater than 5 (OutOfRange)",
                "must be less than 5 (OutOfRange)",
                "must be at most 4.5 (OutOfRange)",
                "must be a multiple of 0.1 (OutOfRange)",
                "must not be empty (OutOfRange)",
                "must have at most 3 items, not 4 (OutOfRange)",
                "must not contain the same item twice (OutOfRange)",
                "must have 1 to any properties (OutOfRange)",
            ]
        );
    }

    #[test]
    fn email_addresses_are_checked_leniently() {
        let path = Path::new("email");
        for valid in ["a@b", "first.last+tag@example.co.uk", "\"a b\"@example.com"] {
            let mut report = Report::new();
            check_email(valid, None, &path, &mut report);
            assert!(report.is_empty(), "{valid}");
        }
        for invalid in ["", "a", "@b", "a@", "a b@c", "a@b c", "a@@b"] {
            let mut report = Report::new();
            check_email(invalid, None, &path, &mut report);
            assert_eq!(
                report.problems()[0].message,
                "must be an email address",
                "{invalid}"
            );
        }
    }

    #[test]
    fn open_enums_keep_unknown_values_and_the_check_names_the_known_ones() {
        #[derive(Debug, PartialEq)]
        enum Colour {
            Red,
            Unknown(String),
        }
        let decode = |json: &str| {
            let mut deserializer = serde_json::Deserializer::from_str(json);
            deserialize_open_enum(
                &mut deserializer,
                |text| (text == "red").then_some(Colour::Red),
                Colour::Unknown,
            )
        };
        assert_eq!(decode("\"red\"").expect("known"), Colour::Red);
        assert_eq!(
            decode("\"mauve\"").expect("kept"),
            Colour::Unknown("mauve".to_owned())
        );
        assert!(decode("3").is_err());
        let mut report = Report::new();
        check_enum_value(
            &Value::from("mauve"),
            &["red", "green"],
            &Path::new("colour"),
            &mut report,
        );
        check_enum_value(&Value::from(3), &["red"], &Path::new("colour"), &mut report);
        assert_eq!(
            problems(&report),
            owned(&[
                ("colour", "must be one of: red, green", "InvalidEnumValue"),
                ("colour", "must be a string, not a number", "InvalidType"),
            ])
        );
    }
}
