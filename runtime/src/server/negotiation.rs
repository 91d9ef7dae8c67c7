//! Media types: the response's, negotiated from `Accept`, and the request
//! body's, checked against what the operation accepts.
//!
//! Media types compare by their essence (`type/subtype`, case-insensitively);
//! parameters such as `charset` are ignored. A `*` in a type of the document
//! is a wildcard: `application/*+json` matches `application/vnd.x+json`.

use http::HeaderMap;
use http::header::ACCEPT;

use crate::server::error::ApiError;

/// The media type to answer with: of `offered` (the operation's response
/// media types, in the document's order), the one `Accept` prefers.
///
/// Without `Accept`, or when it ranks several types equally (as `*/*` does),
/// `application/json` when it is offered, else the first offered type. Ranges
/// are ranked by their `q` value, then by how specifically they name the
/// type. 406 when `Accept` rules out every offered type.
pub fn negotiate(
    headers: &HeaderMap,
    offered: &'static [&'static str],
) -> Result<&'static str, ApiError> {
    match one_type_named(headers, offered) {
        Some(named) => Ok(named),
        None => ranked(headers, offered),
    }
}

/// [`negotiate`]'s ranking of every range of `Accept`.
fn ranked(headers: &HeaderMap, offered: &'static [&'static str]) -> Result<&'static str, ApiError> {
    let default = offered
        .iter()
        .position(|t| essence(t).eq_ignore_ascii_case("application/json"))
        .unwrap_or(0);
    let mut ranges = accept_ranges(headers).peekable();
    if ranges.peek().is_none() {
        return offered
            .get(default)
            .copied()
            .ok_or_else(|| ApiError::not_acceptable(offered));
    }
    // For each offered type: the q of the most specific range that names it.
    let mut best: Option<(u16, u8, bool, usize)> = None;
    for (index, offer) in offered.iter().enumerate() {
        let mut matched: Option<(u8, u16)> = None;
        for range in accept_ranges(headers) {
            if let Some(specificity) = range.matches(offer) {
                if matched.is_none_or(|(s, _)| specificity > s) {
                    matched = Some((specificity, range.q));
                }
            }
        }
        let Some((specificity, q)) = matched else {
            continue;
        };
        if q == 0 {
            continue;
        }
        let candidate = (q, specificity, index == default, usize::MAX - index);
        if best.is_none_or(|b| candidate > b) {
            best = Some(candidate);
        }
    }
    match best {
        Some((_, _, _, reversed)) => Ok(offered[usize::MAX - reversed]),
        None => Err(ApiError::not_acceptable(offered)),
    }
}

/// The common case, ranked without parsing ranges: `Accept` is one type,
/// named exactly (`application/json`), and one of `offered` (none a
/// wildcard) is it. Every such offer would rank equal, and the first of
/// them wins, as in [`negotiate`]'s ranking.
fn one_type_named(headers: &HeaderMap, offered: &'static [&'static str]) -> Option<&'static str> {
    let mut values = headers.get_all(ACCEPT).iter();
    let value = values.next()?.to_str().ok()?.trim();
    if values.next().is_some()
        || value.contains([',', ';', '*'])
        || offered.iter().any(|t| t.contains('*'))
    {
        return None;
    }
    offered
        .iter()
        .copied()
        .find(|t| essence(t).eq_ignore_ascii_case(value))
}

/// The media type to send a body with: the negotiated one when the response
/// offers it, else the response's first; a wildcard type of the document
/// becomes `concrete`.
pub fn response_type(
    negotiated: &'static str,
    own: &'static [&'static str],
    concrete: &'static str,
) -> &'static str {
    let chosen = if own.contains(&negotiated) {
        negotiated
    } else {
        own.first().copied().unwrap_or(concrete)
    };
    if chosen.contains('*') {
        concrete
    } else {
        chosen
    }
}

/// Whether the media type `actual` (a `Content-Type` value) is one of `accepted`.
pub fn accepts(accepted: &[&str], actual: &str) -> bool {
    accepted.iter().any(|pattern| matches(pattern, actual))
}

/// Whether `actual` is the media type `pattern`, whose type or subtype may
/// hold a `*` wildcard.
pub fn matches(pattern: &str, actual: &str) -> bool {
    let (Some((p_type, p_sub)), Some((a_type, a_sub))) = (
        essence(pattern).split_once('/'),
        essence(actual).split_once('/'),
    ) else {
        return false;
    };
    (p_type == "*" || p_type.eq_ignore_ascii_case(a_type)) && glob(p_sub, a_sub)
}

/// `type/subtype` of a media type, without parameters.
fn essence(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or_default().trim()
}

/// Whether `value` fits `pattern`, in which one `*` stands for any text.
fn glob(pattern: &str, value: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern.eq_ignore_ascii_case(value),
        Some((prefix, suffix)) => {
            value.len() >= prefix.len() + suffix.len()
                && value
                    .get(..prefix.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
                && value
                    .get(value.len() - suffix.len()..)
                    .is_some_and(|s| s.eq_ignore_ascii_case(suffix))
        }
    }
}

/// One media range of `Accept`.
struct Range<'a> {
    kind: &'a str,
    subtype: &'a str,
    /// The `q` value in thousandths.
    q: u16,
}

impl Range<'_> {
    /// How specifically the range names `offer` (3: exactly, 2: `type/*`,
    /// 1: `*/*`), or `None` when it does not.
    fn matches(&self, offer: &str) -> Option<u8> {
        let (o_type, o_sub) = essence(offer).split_once('/')?;
        let specificity = match (self.kind, self.subtype) {
            ("*", _) => 1,
            (_, "*") => 2,
            _ => 3,
        };
        let type_fits = self.kind == "*" || o_type == "*" || o_type.eq_ignore_ascii_case(self.kind);
        let subtype_fits = self.subtype == "*" || glob(o_sub, self.subtype);
        (type_fits && subtype_fits).then_some(specificity)
    }
}

/// The media ranges of every `Accept` header, malformed ones skipped.
fn accept_ranges(headers: &HeaderMap) -> impl Iterator<Item = Range<'_>> {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|item| {
            let mut parts = item.split(';');
            let media = parts.next()?.trim();
            let (kind, subtype) = match media.split_once('/') {
                Some((kind, subtype)) => (kind.trim(), subtype.trim()),
                None if media == "*" => ("*", "*"),
                None => return None,
            };
            if kind.is_empty() || subtype.is_empty() {
                return None;
            }
            let q = parts
                .filter_map(|p| p.trim().split_once('='))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
                .map_or(1000, |(_, value)| parse_q(value.trim()));
            Some(Range { kind, subtype, q })
        })
}

/// `0.5` → 500; a malformed value counts as 1.
fn parse_q(value: &str) -> u16 {
    match value.parse::<f32>() {
        Ok(q) if (0.0..=1.0).contains(&q) => (q * 1000.0).round() as u16,
        _ => 1000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    const JSON_OR_CSV: &[&str] = &["text/csv", "application/json"];

    fn with_accept(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(ACCEPT, HeaderValue::from_static(value));
        }
        headers
    }

    fn chosen(accept: &[&'static str], offered: &'static [&'static str]) -> Option<&'static str> {
        negotiate(&with_accept(accept), offered).ok()
    }

    #[test]
    fn one_type_named_exactly_is_chosen_as_the_ranking_chooses_it() {
        const OFFERS: &[&[&str]] = &[
            &["application/json", "text/plain", "text/json"],
            &["text/plain", "application/json"],
            &["application/json", "application/json; charset=utf-8"],
            &["text/csv", "text/plain"],
        ];
        let mut fast = 0;
        for &offered in OFFERS {
            for accept in [
                "application/json",
                "TEXT/PLAIN",
                " text/json ",
                "text/csv",
                "image/png",
            ] {
                let headers = with_accept(&[accept]);
                if let Some(named) = one_type_named(&headers, offered) {
                    fast += 1;
                    assert_eq!(
                        Some(named),
                        ranked(&headers, offered).ok(),
                        "{accept} of {offered:?}"
                    );
                }
            }
        }
        assert_eq!(fast, 8, "the cases that take the short way");
        // Not taken: several types, parameters, wildcards on either side.
        for accept in [
            "application/json, text/plain",
            "application/json;q=0.5",
            "*/*",
        ] {
            assert_eq!(one_type_named(&with_accept(&[accept]), JSON_OR_CSV), None);
        }
        let json_twice = with_accept(&["application/json", "text/csv"]);
        assert_eq!(one_type_named(&json_twice, JSON_OR_CSV), None);
        let wildcard: &[&str] = &["application/*+json", "application/json"];
        assert_eq!(
            one_type_named(&with_accept(&["application/json"]), wildcard),
            None
        );
    }

    #[test]
    fn without_a_preference_json_is_chosen_when_offered() {
        assert_eq!(chosen(&[], JSON_OR_CSV), Some("application/json"));
        assert_eq!(chosen(&["*/*"], JSON_OR_CSV), Some("application/json"));
        assert_eq!(chosen(&["*"], JSON_OR_CSV), Some("application/json"));
        assert_eq!(chosen(&[], &["text/csv", "text/plain"]), Some("text/csv"));
        assert_eq!(
            chosen(&["text/*"], &["text/csv", "text/plain"]),
            Some("text/csv")
        );
    }

    #[test]
    fn the_highest_q_wins_then_the_most_specific_range() {
        assert_eq!(chosen(&["text/csv"], JSON_OR_CSV), Some("text/csv"));
        assert_eq!(
            chosen(&["application/json;q=0.5, text/csv;q=0.8"], JSON_OR_CSV),
            Some("text/csv")
        );
        assert_eq!(
            chosen(&["*/*;q=0.9", "TEXT/CSV"], JSON_OR_CSV),
            Some("text/csv")
        );
        // The specific range's q applies to its type, not the wildcard's.
        assert_eq!(
            chosen(&["*/*", "application/json;q=0.1"], JSON_OR_CSV),
            Some("text/csv")
        );
        assert_eq!(
            chosen(&["application/json; charset=utf-8; q=1"], JSON_OR_CSV),
            Some("application/json")
        );
    }

    #[test]
    fn q_zero_and_unlisted_types_are_not_acceptable() {
        assert_eq!(chosen(&["text/csv;q=0"], JSON_OR_CSV), None);
        assert_eq!(chosen(&["*/*;q=0"], JSON_OR_CSV), None);
        assert_eq!(chosen(&["image/png"], JSON_OR_CSV), None);
        assert_eq!(
            chosen(&["text/csv;q=0", "*/*"], JSON_OR_CSV),
            Some("application/json")
        );
        let refused = negotiate(&with_accept(&["image/png"]), JSON_OR_CSV).expect_err("406");
        assert_eq!(refused.status(), http::StatusCode::NOT_ACCEPTABLE);
    }

    #[test]
    fn malformed_ranges_and_q_values_are_read_past() {
        assert_eq!(
            chosen(&["nonsense, text/csv"], JSON_OR_CSV),
            Some("text/csv")
        );
        // Nothing but malformed ranges is no preference at all.
        assert_eq!(
            chosen(&["/csv, text/"], JSON_OR_CSV),
            Some("application/json")
        );
        assert_eq!(
            chosen(&["text/csv;q=high, application/json;q=0.9"], JSON_OR_CSV),
            Some("text/csv")
        );
    }

    #[test]
    fn a_bare_star_is_every_type_and_other_words_are_nothing() {
        // `*` alone is `*/*` (here at 0.9, above text/csv's 0.5).
        assert_eq!(
            chosen(&["*;q=0.9, text/csv;q=0.5"], JSON_OR_CSV),
            Some("application/json")
        );
        // A word without a slash names no type: only text/csv is acceptable.
        assert_eq!(
            chosen(&["garbage, text/csv;q=0.5"], JSON_OR_CSV),
            Some("text/csv")
        );
    }

    #[test]
    fn a_q_outside_zero_to_one_counts_as_one() {
        // Not 2 (which would beat JSON's 1): both at 1, JSON preferred.
        assert_eq!(
            chosen(&["text/csv;q=2, application/json"], JSON_OR_CSV),
            Some("application/json")
        );
    }

    #[test]
    fn an_offer_takes_the_q_of_its_most_specific_range_then_its_first() {
        const CSV_OR_PNG: &[&str] = &["text/csv", "image/png"];
        // text/csv: `text/*` (0.2) is more specific than `*/*` (0.9).
        assert_eq!(
            chosen(&["*/*;q=0.9, text/*;q=0.2"], CSV_OR_PNG),
            Some("image/png")
        );
        const CSV_OR_PLAIN: &[&str] = &["text/csv", "text/plain"];
        // text/csv: exactly named (0.2) is more specific than `text/*` (0.9).
        assert_eq!(
            chosen(&["text/*;q=0.9, text/csv;q=0.2"], CSV_OR_PLAIN),
            Some("text/plain")
        );
        // A type named twice counts at its first q (0.2, below JSON's 0.5).
        assert_eq!(
            chosen(
                &["text/csv;q=0.2, text/csv;q=0.9, application/json;q=0.5"],
                JSON_OR_CSV
            ),
            Some("application/json")
        );
    }

    #[test]
    fn a_wildcard_of_the_document_matches_concrete_types() {
        const VENDOR_JSON: &[&str] = &["application/*+json"];
        assert_eq!(
            chosen(&["application/vnd.acme+json"], VENDOR_JSON),
            Some("application/*+json")
        );
        assert_eq!(
            response_type("application/*+json", VENDOR_JSON, "application/json"),
            "application/json"
        );
        assert!(accepts(
            &["application/*+json"],
            "application/vnd.acme+json; charset=utf-8"
        ));
        assert!(!accepts(&["application/*+json"], "application/xml"));
        assert!(accepts(&["*/*"], "image/png"));
        assert!(accepts(
            &["Application/JSON"],
            "application/json;charset=UTF-8"
        ));
        assert!(!accepts(&["application/json"], "application"));
    }

    #[test]
    fn a_response_without_the_negotiated_type_uses_its_own_first() {
        assert_eq!(
            response_type("text/csv", &["application/json"], "application/json"),
            "application/json"
        );
        assert_eq!(
            response_type("text/csv", JSON_OR_CSV, "application/json"),
            "text/csv"
        );
        assert_eq!(
            response_type("text/csv", &[], "application/json"),
            "application/json"
        );
    }
}
