//! Object query parameters: the properties of an object (a struct or a map)
//! spread over the query string, as `name[key]=value` pairs (`deepObject`
//! style) or as `key=value` pairs (exploded `form` style). Each value's text
//! is typed by the object's schema, then the object is checked like a body:
//! every problem is added to the [`Report`] under a name such as
//! `filter.age` (`deepObject`) or `age` (`form`).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::models::validation::{Path, Report, ValidateJson};
use crate::server::body::{FormField, insert_below};
use crate::server::params::query_pairs;

/// How an object parameter is spread over the query string.
#[derive(Debug, Clone, Copy)]
pub enum Spread<'a> {
    /// `deepObject`: `name[key]=value`.
    Deep,
    /// Exploded `form`: `key=value`, for the keys `fields` lists; with a
    /// `*` field (a map), every key but `others`, the operation's other
    /// query parameters.
    Form {
        /// The names of the operation's other query parameters.
        others: &'a [&'a str],
    },
}

/// Reads the object parameter `name` from `query`: `None`, with problems in
/// `report`, when a value breaks its schema, or when it is missing (no pair
/// of it) and `required`.
pub fn object<T>(
    query: Option<&str>,
    name: &'static str,
    spread: Spread<'_>,
    fields: &[FormField],
    required: bool,
    report: &mut Report,
) -> Option<T>
where
    T: DeserializeOwned + ValidateJson,
{
    let mut object = Map::new();
    for (pair_name, raw) in query_pairs(query) {
        let Some((head, keys)) = bracketed(&pair_name) else {
            continue;
        };
        let (key, below) = match spread {
            Spread::Deep => match keys.split_first() {
                Some((key, below)) if head == name => (*key, below),
                _ => continue,
            },
            Spread::Form { others } => {
                let listed = fields.iter().any(|f| f.name == head);
                let spare = fields.iter().any(|f| f.name == "*") && !others.contains(&head);
                if !(listed || spare) {
                    continue;
                }
                (head, &keys[..])
            }
        };
        insert_below(&mut object, fields, key.to_owned(), below, raw.into_owned());
    }
    if object.is_empty() {
        if required {
            report.push(&Path::new(name), "is required", "Required");
        }
        return None;
    }
    let value = Value::Object(object);
    let mut found = Report::new();
    let mut path = Path::new(name);
    if matches!(spread, Spread::Deep) {
        path.push_key(name);
    }
    T::validate_json(&value, &mut path, &mut found);
    if !found.is_empty() {
        for problem in found.into_problems() {
            report.add(problem);
        }
        return None;
    }
    match serde_json::from_value::<T>(value) {
        Ok(value) => Some(value),
        Err(error) => {
            report.push(
                &Path::new(name),
                format!("does not match the schema: {error}"),
                "InvalidType",
            );
            None
        }
    }
}

/// A pair name and the keys in brackets after it: `filter[near][lat]` is
/// `filter` and `[near, lat]`; `None` when the brackets do not pair up.
fn bracketed(pair_name: &str) -> Option<(&str, Vec<&str>)> {
    let Some(open) = pair_name.find('[') else {
        return Some((pair_name, Vec::new()));
    };
    let mut keys = Vec::new();
    let mut rest = &pair_name[open..];
    while !rest.is_empty() {
        let inner = rest.strip_prefix('[')?;
        let close = inner.find(']')?;
        keys.push(&inner[..close]);
        rest = &inner[close + 1..];
    }
    Some((&pair_name[..open], keys))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::server::body::FormKind;

    /// A map of integers, as a models crate would check it.
    struct Counts;

    impl ValidateJson for Counts {
        fn validate_json<'v>(value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
            let Some(object) = value.as_object() else {
                return report.push(path, "must be an object", "InvalidType");
            };
            for (key, value) in object {
                if !value.is_i64() {
                    path.push_key(key);
                    report.push(path, "must be an integer", "InvalidType");
                    path.pop();
                }
            }
        }
    }

    impl<'de> serde::Deserialize<'de> for Counts {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            BTreeMap::<String, i64>::deserialize(d).map(|_| Counts)
        }
    }

    const INTEGERS: &[FormField] = &[FormField {
        name: "*",
        kind: FormKind::Integer,
        list: false,
    }];

    #[test]
    fn reads_deep_objects_and_names_bad_values_by_their_key() {
        let mut report = Report::new();
        let read: Option<Counts> = object(
            Some("filter%5Ba%5D=1&filter[b]=2&other=x"),
            "filter",
            Spread::Deep,
            INTEGERS,
            true,
            &mut report,
        );
        assert!(read.is_some() && report.is_empty(), "{report:?}");
        let read: Option<Counts> = object(
            Some("filter[a]=1&filter[b]=two"),
            "filter",
            Spread::Deep,
            INTEGERS,
            true,
            &mut report,
        );
        assert!(read.is_none());
        assert_eq!(report.problems()[0].property, "filter.b");
    }

    const RANGE: &[FormField] = &[
        FormField {
            name: "gt",
            kind: FormKind::Integer,
            list: false,
        },
        FormField {
            name: "lt",
            kind: FormKind::Integer,
            list: false,
        },
    ];

    const FILTER: &[FormField] = &[
        FormField {
            name: "created",
            kind: FormKind::Object(RANGE),
            list: false,
        },
        FormField {
            name: "name",
            kind: FormKind::Text,
            list: false,
        },
    ];

    fn read(query: &str, spread: Spread<'_>) -> Option<Value> {
        object(
            Some(query),
            "filter",
            spread,
            FILTER,
            false,
            &mut Report::new(),
        )
    }

    #[test]
    fn reads_nested_objects_from_keys_in_brackets() {
        let query = "filter[created][gt]=1&filter%5Bcreated%5D%5Blt%5D=x&filter[name]=a\
                     &filter[name][x]=2&filter[other][y]=3&filter[created]=9";
        assert_eq!(
            read(query, Spread::Deep),
            Some(serde_json::json!({"created": {"gt": 1, "lt": "x"}, "name": "a"}))
        );
        // The scalar alternative of a union, given for the field itself.
        assert_eq!(
            read("filter[created]=5", Spread::Deep),
            Some(serde_json::json!({"created": 5}))
        );
        assert_eq!(
            read(
                "created[gt]=1&limit=3&created[lt",
                Spread::Form { others: &["limit"] }
            ),
            Some(serde_json::json!({"created": {"gt": 1}}))
        );
        assert_eq!(bracketed("a[b][c]"), Some(("a", vec!["b", "c"])));
        assert_eq!(bracketed("a"), Some(("a", vec![])));
        assert_eq!(bracketed("a[b]c"), None);
    }

    #[test]
    fn reads_exploded_form_objects_around_the_other_parameters() {
        let mut report = Report::new();
        let read: Option<Counts> = object(
            Some("a=1&limit=10&b=2"),
            "counts",
            Spread::Form { others: &["limit"] },
            INTEGERS,
            false,
            &mut report,
        );
        assert!(read.is_some() && report.is_empty(), "{report:?}");
        // Each pair that is not another parameter is a property of a map.
        let spread: Option<Value> = object(
            Some("a=1&limit=10&b=x"),
            "counts",
            Spread::Form { others: &["limit"] },
            INTEGERS,
            false,
            &mut report,
        );
        assert_eq!(spread, Some(serde_json::json!({"a": 1, "b": "x"})));
        // Only the listed properties of an object without a map's spare.
        assert_eq!(
            self::read("name=n&limit=3&zzz=1", Spread::Form { others: &["limit"] }),
            Some(serde_json::json!({"name": "n"}))
        );
        // Only this parameter's own keys, not another's in brackets.
        assert_eq!(
            self::read("filter[name]=a&other[note]=b", Spread::Deep),
            Some(serde_json::json!({"name": "a"}))
        );
        let missing: Option<Counts> =
            object(None, "counts", Spread::Deep, INTEGERS, true, &mut report);
        assert!(missing.is_none());
        assert_eq!(report.problems()[0].property, "counts");
    }
}
