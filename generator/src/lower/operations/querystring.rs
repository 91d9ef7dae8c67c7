//! OpenAPI 3.2's `in: querystring` parameters, which `parse` rewrites into
//! `in: query` ones marked [`QUERYSTRING`] with their media type: what each
//! is (the query's pairs, the whole query string, or left out), and the
//! rule that an operation with one has nothing else in its query: no
//! `in: query` parameter, no pair of its path's key, no API key.

use openapiv3::{
    APIKeyLocation, Parameter as OaParameter, ParameterData, ParameterSchemaOrContent, ReferenceOr,
    SecurityScheme,
};

use crate::error::Result;
use crate::ir::{FixedPair, MediaKind, ParamLocation, Parameter, SecurityRequirement};
use crate::lower::lenient::Leniency;
use crate::parse::{Pointer, QUERYSTRING};

use super::operation::OperationLowering;

/// What an `in: querystring` parameter is, by its media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum QueryString {
    /// `application/x-www-form-urlencoded`: an object whose properties are
    /// the query's pairs, which `parse` made the exploded `form` query
    /// parameter it means.
    Pairs,
    /// JSON or text: the whole query string is one value
    /// ([`ParamLocation::QueryString`]).
    Whole,
    /// Any other media type (`application/xml`, `application/jsonpath`):
    /// no agreed Rust form, so left out, with a note.
    Unread,
}

impl OperationLowering<'_, '_> {
    /// What the parameter `data` (at `at`) is when it is a querystring;
    /// `None` for any other. One without a media type is refused: the
    /// media type is what says how the query string is written.
    pub(super) fn querystring(
        &self,
        data: &ParameterData,
        at: &Pointer,
    ) -> Result<Option<QueryString>> {
        let Some(marked) = data.extensions.get(QUERYSTRING) else {
            return Ok(None);
        };
        let media_type = marked.as_str().unwrap_or_default();
        Ok(Some(match &data.format {
            ParameterSchemaOrContent::Schema(_) => QueryString::Pairs,
            ParameterSchemaOrContent::Content(content) if content.is_empty() => {
                return Err(self.doc.invalid(
                    &at.push("content"),
                    "an `in: querystring` parameter needs `content` with one media type \
                     (`application/json`, `text/plain`, `application/x-www-form-urlencoded`): \
                     it says how the whole query string is written",
                ));
            }
            ParameterSchemaOrContent::Content(_) => match MediaKind::of(media_type) {
                MediaKind::Json | MediaKind::Text => QueryString::Whole,
                _ => QueryString::Unread,
            },
        }))
    }

    /// Refuses an operation whose parameters (`sources`, the path item's
    /// and its own, each with where it is and whether it is the path
    /// item's) have a querystring beside an `in: query` parameter or
    /// another querystring, which OpenAPI 3.2 forbids: the query string is
    /// one value, which no pair can join. An operation's own parameter
    /// replaces the path item's of its name and place, as it does when the
    /// parameters are merged.
    pub(super) fn querystring_alone(
        &self,
        sources: &[(&ReferenceOr<OaParameter>, Pointer, bool)],
    ) -> Result<()> {
        let mut found: Vec<InQuery<'_>> = Vec::new();
        for (param, at, from_path_item) in sources {
            let resolved = self.doc.resolve(param, at)?;
            if let OaParameter::Query { parameter_data, .. } = resolved.value.as_ref() {
                found.push(InQuery {
                    name: parameter_data.name.clone(),
                    querystring: parameter_data.extensions.contains_key(QUERYSTRING),
                    at,
                    from_path_item: *from_path_item,
                });
            }
        }
        let replaced = |p: &InQuery<'_>| {
            p.from_path_item
                && found.iter().any(|own| {
                    !own.from_path_item && own.name == p.name && own.querystring == p.querystring
                })
        };
        let (querystrings, pairs): (Vec<&InQuery<'_>>, Vec<&InQuery<'_>>) = found
            .iter()
            .filter(|p| !replaced(p))
            .partition(|p| p.querystring);
        match (querystrings.as_slice(), pairs.first()) {
            ([first, second, ..], _) => Err(self.doc.invalid(
                second.at,
                format!(
                    "the operation has two `in: querystring` parameters, `{}` and `{}`; the \
                     query string is one value, so keep one of them",
                    first.name, second.name
                ),
            )),
            ([whole], Some(pair)) => Err(self.doc.invalid(
                whole.at,
                format!(
                    "the `in: querystring` parameter `{name}` is the whole query string, so the \
                     operation cannot also have the `in: query` parameter `{pair}` (OpenAPI 3.2 \
                     forbids both in one operation and its path item); make `{pair}` a property \
                     of `{name}`'s schema, or declare `{name}`'s properties as query parameters",
                    name = whole.name,
                    pair = pair.name,
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Refuses an operation whose whole query string is a parameter and
    /// whose path's key writes pairs into the query (`/a?method=b`): the
    /// client could not send both.
    pub(super) fn querystring_without_key_pairs(
        &self,
        params: &[Parameter],
        fixed_query: &[FixedPair],
    ) -> Result<()> {
        let Some(whole) = params
            .iter()
            .find(|p| p.location == ParamLocation::QueryString)
        else {
            return Ok(());
        };
        let in_query = params.iter().any(|p| p.location == ParamLocation::Query)
            || fixed_query
                .iter()
                .any(|pair| pair.declared != Some(ParamLocation::Header));
        if !in_query {
            return Ok(());
        }
        Err(self.doc.invalid(
            &whole.origin,
            format!(
                "the `in: querystring` parameter `{}` is the whole query string, so the path's \
                 key cannot write pairs into the query (`?name=value`); move them into the \
                 querystring's schema",
                whole.wire
            ),
        ))
    }

    /// `security` without the alternatives that send an API key in the
    /// query, when the whole query string is one of `params`: the key's
    /// pair cannot join the one value. Noted; when no alternative is left,
    /// refused, as the operation would read as open to anyone (D58).
    pub(super) fn querystring_security(
        &mut self,
        params: &[Parameter],
        security: Vec<SecurityRequirement>,
    ) -> Result<Vec<SecurityRequirement>> {
        let Some(whole) = params
            .iter()
            .find(|p| p.location == ParamLocation::QueryString)
        else {
            return Ok(security);
        };
        let mut kept = Vec::with_capacity(security.len());
        let mut key_in_query = None;
        for requirement in security {
            let mut in_query = None;
            for scheme in &requirement.schemes {
                if in_query.is_none() && self.key_in_query(scheme)? {
                    in_query = Some(scheme.clone());
                }
            }
            match in_query {
                Some(scheme) => key_in_query = key_in_query.or(Some(scheme)),
                None => kept.push(requirement),
            }
        }
        match key_in_query {
            None => Ok(kept),
            Some(scheme) if kept.is_empty() => Err(self.doc.invalid(
                &whole.origin,
                format!(
                    "the `in: querystring` parameter `{}` is the whole query string, so the \
                     operation's API key cannot be sent in the query too (security scheme \
                     `{scheme}`), and no other alternative of its security is met without it; \
                     put the key in a header (`in: header`)",
                    whole.wire
                ),
            )),
            Some(_) => {
                self.types
                    .lenient
                    .record(Leniency::QueryKeyBesideQueryString, &whole.origin);
                Ok(kept)
            }
        }
    }

    /// Whether the security scheme `name` is an API key in the query.
    fn key_in_query(&self, name: &str) -> Result<bool> {
        let Some(scheme) = self
            .doc
            .api
            .components
            .as_ref()
            .and_then(|c| c.security_schemes.get(name))
        else {
            return Ok(false);
        };
        let at = Pointer::root()
            .push("components")
            .push("securitySchemes")
            .push(name);
        Ok(matches!(
            self.doc.resolve(scheme, &at)?.value.as_ref(),
            SecurityScheme::APIKey {
                location: APIKeyLocation::Query,
                ..
            }
        ))
    }
}

/// A query parameter or querystring of an operation, as written.
struct InQuery<'p> {
    name: String,
    querystring: bool,
    /// Where the operation or its path item lists it.
    at: &'p Pointer,
    from_path_item: bool,
}

#[cfg(test)]
mod tests {
    use crate::ir::{Api, ParamLocation, Primitive, Ty};
    use crate::testing::lowered_as;

    /// A 3.2 document lowered.
    fn api(rest: &str) -> Api {
        lowered_as("3.2.0", rest).unwrap_or_else(|error| panic!("{error}"))
    }

    /// The error a 3.2 document gives.
    fn error(rest: &str) -> String {
        lowered_as("3.2.0", rest).err().unwrap_or_default()
    }

    /// A document whose `/a` GET has `params` (YAML flow items).
    fn document(params: &str) -> String {
        format!(
            "paths:\n  /a:\n    get:\n      parameters: [{params}]\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  schemas:\n    Q: {{type: object, required: [n], properties: {{n: {{type: integer, minimum: 1}}}}}}\n"
        )
    }

    /// JSON (`+json` too) and text are the whole query string: the
    /// value's type is lowered as any parameter's (named types kept), and
    /// JSON is marked so.
    #[test]
    fn a_json_or_text_querystring_is_the_whole_query_string() {
        let json = api(&document(
            "{in: querystring, name: q, required: true, content: {application/vnd.a+json: {schema: {$ref: '#/components/schemas/Q'}}}}",
        ));
        let q = &json.operations[0].params[0];
        assert_eq!(
            (q.wire.as_str(), q.location, q.required, q.json, q.object),
            ("q", ParamLocation::QueryString, true, true, false)
        );
        assert_eq!(q.shape.ty, Ty::Named("Q".to_owned()));
        let text = api(&document(
            "{in: querystring, name: s, content: {text/plain: {schema: {type: string, maxLength: 9}}}}",
        ));
        let s = &text.operations[0].params[0];
        assert_eq!(
            (s.location, s.required, s.json),
            (ParamLocation::QueryString, false, false)
        );
        assert_eq!(s.shape.ty, Ty::Primitive(Primitive::String));
        assert!(text.notes.is_empty(), "{:?}", text.notes);
        // An operation's own querystring replaces the path item's of its name.
        let replaced = api(
            "paths:\n  /a:\n    parameters: [{in: querystring, name: q, content: {text/plain: {}}}]\n    get:\n      parameters: [{in: querystring, name: q, required: true, content: {application/json: {}}}]\n      responses: {'204': {description: ok}}\n",
        );
        let params: Vec<(bool, bool)> = replaced.operations[0]
            .params
            .iter()
            .map(|p| (p.json, p.required))
            .collect();
        assert_eq!(params, [(true, true)]);
    }

    /// Another media type is left out, noted where the operation names it.
    #[test]
    fn a_querystring_in_another_media_type_is_left_out_with_a_note() {
        let api = api(&document(
            "{in: querystring, name: x, content: {application/xml: {schema: {type: object}}}}",
        ));
        assert!(api.operations[0].params.is_empty());
        assert!(
            api.notes.iter().any(|note| note.contains(
                "`in: querystring` parameters in a media type other than a form, JSON or text \
                 (OpenAPI 3.2) (1, the first at t.yaml#/paths/~1a/get/parameters/0)"
            )),
            "{:?}",
            api.notes
        );
    }

    /// Asserts that the document whose `/a` GET has `params` is refused
    /// with a message holding each of `parts`.
    fn refused_with(params: &str, parts: &[&str]) {
        refused(&document(params), parts);
    }

    /// Asserts that the document `rest` is refused with a message holding
    /// each of `parts`.
    fn refused(rest: &str, parts: &[&str]) {
        let message = error(rest);
        for part in parts {
            assert!(message.contains(part), "{part}: {message}");
        }
    }

    /// Beside an `in: query` parameter, or another querystring, a
    /// querystring (a form one too) is refused at its place; one without a
    /// media type too.
    #[test]
    fn a_querystring_beside_query_parameters_or_without_content_is_refused() {
        refused_with(
            "{in: query, name: limit, schema: {type: integer}}, {in: querystring, name: q, content: {application/json: {schema: {}}}}",
            &[
                "#/paths/~1a/get/parameters/1",
                "cannot also have the `in: query` parameter `limit`",
            ],
        );
        refused_with(
            "{in: querystring, name: f, content: {application/x-www-form-urlencoded: {schema: {}}}}, {in: query, name: limit, schema: {type: integer}}",
            &["#/paths/~1a/get/parameters/0", "`limit`"],
        );
        refused_with(
            "{in: querystring, name: a, content: {text/plain: {}}}, {in: querystring, name: b, content: {text/plain: {}}}",
            &["two `in: querystring` parameters, `a` and `b`"],
        );
        // The path item's query parameter is the operation's too.
        refused(
            "paths:\n  /a:\n    parameters: [{in: query, name: limit, schema: {type: integer}}]\n    get:\n      parameters: [{in: querystring, name: q, content: {text/plain: {}}}]\n      responses: {'204': {description: ok}}\n",
            &["#/paths/~1a/get/parameters/0", "`limit`"],
        );
        refused_with(
            "{in: querystring, name: s, schema: {type: string}}",
            &[
                "#/paths/~1a/get/parameters/0/content",
                "needs `content` with one media type",
            ],
        );
    }

    /// An API key in the query cannot join a whole query string: the
    /// alternative that sends one is left out, noted, and an operation with
    /// no other alternative is refused.
    #[test]
    fn an_api_key_in_the_query_is_no_alternative_beside_a_querystring() {
        let with_security = |security: &str| {
            format!(
                "paths:\n  /a:\n    get:\n      security: {security}\n      parameters: [{{in: querystring, name: q, content: {{application/json: {{}}}}}}]\n      responses: {{'204': {{description: ok}}}}\ncomponents:\n  securitySchemes:\n    key: {{type: apiKey, in: query, name: key}}\n    bearer: {{type: http, scheme: bearer}}\n"
            )
        };
        let api = api(&with_security("[{key: []}, {bearer: []}]"));
        let schemes: Vec<&[String]> = api.operations[0]
            .security
            .iter()
            .map(|r| r.schemes.as_slice())
            .collect();
        assert_eq!(schemes, [["bearer".to_owned()]]);
        assert!(
            api.notes.iter().any(|note| note.contains(
                "security alternatives that send an API key in the query, on operations whose \
                 whole query string is an `in: querystring` parameter (OpenAPI 3.2) (1, the \
                 first at t.yaml#/paths/~1a/get/parameters/0)"
            )),
            "{:?}",
            api.notes
        );
        refused(
            &with_security("[{key: []}]"),
            &["#/paths/~1a/get/parameters/0", "security scheme `key`"],
        );
    }

    /// A path key that writes pairs into the query leaves no room for a
    /// whole query string.
    #[test]
    fn a_querystring_under_a_path_key_with_a_query_is_refused() {
        refused(
            "paths:\n  /a?method=b:\n    get:\n      parameters: [{in: querystring, name: q, content: {application/json: {}}}]\n      responses: {'204': {description: ok}}\n",
            &["cannot write pairs into the query"],
        );
    }
}
