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
pub trait Validate {
    /// Adds a problem to `report` for each constraint the value breaks.
    fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report);
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
    let mut report = Report::new();
    match serde_json::from_slice::<T>(bytes) {
        Ok(value) => {
            value.validate(&mut Path::new(root), &mut report);
            for problem in rules(&value) {
                report.add(problem);
            }
            if report.is_empty() {
                Ok(value)
            } else {
                Err(report)
            }
        }
        Err(error) if error.is_syntax() || error.is_eof() => {
            report.push(
                &Path::new(root),
                format!("is not valid JSON: {error}"),
                "InvalidJson",
            );
            Err(report)
        }
        Err(error) => {
            match serde_json::from_slice::<Value>(bytes) {
                Ok(value) => T::validate_json(&value, &mut Path::new(root), &mut report),
                Err(syntax) => report.push(
                    &Path::new(root),
                    format!("is not valid JSON: {syntax}"),
                    "InvalidJson",
                ),
            }
            if report.is_empty() {
                // The walk and serde disagree; say what serde said rather than nothing.
                report.push(
                    &Path::new(root),
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
        (Some(1), Some(max)) if length == 0 || length > max => {
            report.push(path, format!("must be 1 to {max} characters long"), code)
        }
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
