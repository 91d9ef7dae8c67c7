//! Text the service refuses whatever the field: the NUL character (U+0000),
//! which PostgreSQL cannot store in text and which no field of the interface
//! has a use for (decision D30). Every backend refuses it alike, here,
//! before the domain sees the request.

use logistics_models::dynamic_query::{DynamicQuery, Property, Value as QueryValue};
use logistics_models::validation::Problem;
use serde::Serialize;
use serde_json::Value;

/// The problem of a value holding NUL, at `property`.
fn problem(property: String) -> Problem {
    Problem {
        property,
        message: "must not contain the NUL character (U+0000)".to_owned(),
        error_code: "InvalidFormat".to_owned(),
    }
}

/// A problem when the parameter `name`'s `value` holds NUL.
pub fn check_parameter(name: &str, value: &str) -> Option<Problem> {
    value.contains('\0').then(|| problem(name.to_owned()))
}

/// A problem when a filter value of the dynamic query parameter `name` holds
/// NUL (written as NUL or `%00` in its inner query). Filter values are the
/// only text of a query that reaches the database: elsewhere a NUL is in no
/// op or property the grammar knows (the stubs' 400 `InvalidDynamicQuery`),
/// or in a parameter the grammar ignores.
pub fn check_query<P: Property>(name: &str, query: &DynamicQuery<P>) -> Option<Problem> {
    fn holds_nul(value: &QueryValue) -> bool {
        match value {
            QueryValue::String(text) => text.contains('\0'),
            QueryValue::List(items) => items.iter().any(holds_nul),
            _ => false,
        }
    }
    query
        .filters()
        .iter()
        .any(|filter| holds_nul(&filter.value))
        .then(|| problem(name.to_owned()))
}

/// A problem for every string of a request body holding NUL, each at its
/// path (`[3].lineItems[0].sku`, as the schema's problems are named).
pub fn check_body<T: Serialize>(body: &T) -> Vec<Problem> {
    // A body with no NUL anywhere, nearly every body, is only looked
    // through; one with NUL somewhere is walked to name each place.
    if !holds_nul(body) {
        return Vec::new();
    }
    let mut problems = Vec::new();
    if let Ok(value) = serde_json::to_value(body) {
        walk(&value, &mut String::new(), &mut problems);
    }
    problems
}

/// Whether any string of `body` (a value or a key) holds NUL: `body`
/// written as JSON to nowhere, by a formatter that stops at the first
/// NUL's escape. Nothing is kept, so a bulk upsert's megabyte is neither
/// copied nor searched again.
fn holds_nul<T: Serialize>(body: &T) -> bool {
    struct StopsAtNul;

    impl serde_json::ser::Formatter for StopsAtNul {
        fn write_char_escape<W: ?Sized + std::io::Write>(
            &mut self,
            _writer: &mut W,
            escape: serde_json::ser::CharEscape,
        ) -> std::io::Result<()> {
            match escape {
                serde_json::ser::CharEscape::AsciiControl(0) => Err(std::io::Error::other("NUL")),
                _ => Ok(()),
            }
        }
    }

    let mut serializer = serde_json::Serializer::with_formatter(std::io::sink(), StopsAtNul);
    // Only the NUL stops the writing: `sink` takes everything, and a body
    // of this service's types always serializes.
    body.serialize(&mut serializer)
        .is_err_and(|error| error.is_io())
}

fn walk(value: &Value, path: &mut String, problems: &mut Vec<Problem>) {
    let length = path.len();
    match value {
        Value::String(text) if text.contains('\0') => problems.push(problem(path.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                walk(item, path, problems);
                path.truncate(length);
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(name);
                walk(field, path, problems);
                path.truncate(length);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logistics_models::ReturnsQuery;

    #[test]
    fn every_string_with_nul_is_named_by_its_path() {
        let body = serde_json::json!([
            {"sku": "A", "lines": [{"lot": "x\u{0}y"}]},
            {"sku": "\u{0}"}
        ]);
        let paths: Vec<String> = check_body(&body).into_iter().map(|p| p.property).collect();
        assert_eq!(paths, ["[0].lines[0].lot", "[1].sku"]);
    }

    #[test]
    fn only_nul_is_found_among_the_escaped_characters() {
        assert!(!holds_nul(
            &serde_json::json!({"a": "\u{1}\n\t\"\\ \u{7f}", "b": [1, null]})
        ));
        assert!(holds_nul(&serde_json::json!({"a": ["ok", "late \u{0}"]})));
        assert!(holds_nul(&serde_json::json!({"key \u{0}": 1})), "a key too");
        // A NUL in a key is in no value: nothing to name, as before.
        assert!(check_body(&serde_json::json!({"key \u{0}": 1})).is_empty());
    }

    #[test]
    fn a_backslash_u_written_out_is_not_nul() {
        assert!(check_body(&serde_json::json!({"note": "\\u0000"})).is_empty());
        assert!(check_parameter("dqb", "v=\\u0000").is_none());
        assert!(check_parameter("referenceNumber", "A\u{0}B").is_some());
        let query = |text: &str| ReturnsQuery::parse(text).unwrap();
        assert!(check_query("dqb", &query("o=eq&p=notes&v=a%00b")).is_some());
        assert!(check_query("dqb", &query("o=in&p=notes&v=a,%00")).is_some());
        assert!(check_query("dqb", &query("o=eq&p=notes&v=a%2500b")).is_none());
    }
}
