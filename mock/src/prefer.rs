//! The `Prefer` request header as Prism reads it, so that tests written
//! for Prism run unchanged: `code=404` picks the answer's status,
//! `example=NAME` one of its named examples, `dynamic=true` data made up
//! from the schema even where the document has an example.

use http::HeaderMap;

/// What a request asks of the mock's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefer {
    /// `code=N`: answer with this status.
    pub code: Option<u16>,
    /// `example=NAME`: answer with the example of this name.
    pub example: Option<String>,
    /// `dynamic=true`: answer with data made up from the schema.
    pub dynamic: bool,
}

impl Prefer {
    /// The preferences of every `Prefer` header: comma-separated (RFC
    /// 7240), with `;` taken as a separator too; a preference this mock
    /// does not know, or a value that does not parse, is ignored, as the
    /// RFC says a server may.
    pub fn from_headers(headers: &HeaderMap) -> Prefer {
        let mut prefer = Prefer::default();
        let values = headers
            .get_all("prefer")
            .iter()
            .filter_map(|v| v.to_str().ok());
        for preference in values.flat_map(|v| v.split([',', ';'])) {
            let Some((name, value)) = preference.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                "code" => prefer.code = value.parse().ok().or(prefer.code),
                "example" => prefer.example = Some(value.to_owned()),
                "dynamic" => prefer.dynamic = value.eq_ignore_ascii_case("true"),
                _ => {}
            }
        }
        prefer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefer(values: &[&str]) -> Prefer {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("prefer", value.parse().unwrap());
        }
        Prefer::from_headers(&headers)
    }

    #[test]
    fn prisms_preferences_one_by_one_or_together() {
        assert_eq!(prefer(&[]), Prefer::default());
        assert_eq!(prefer(&["code=404"]).code, Some(404));
        assert_eq!(prefer(&["example=\"cat\""]).example.as_deref(), Some("cat"));
        assert!(prefer(&["dynamic=true"]).dynamic);
        let all = prefer(&["code=201, example=created", "dynamic=false; respond-async"]);
        assert_eq!(
            all,
            Prefer {
                code: Some(201),
                example: Some("created".to_owned()),
                dynamic: false
            }
        );
        assert_eq!(prefer(&["code=abc"]).code, None);
    }
}
