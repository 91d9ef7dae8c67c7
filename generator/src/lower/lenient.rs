//! What published documents get wrong in ways the generator reads past: each
//! is generated the way its author most likely meant, and one note per
//! document says what was read leniently and where, so nothing is skipped
//! silently.

use crate::parse::{Document, Habit, Pointer};

/// A MUST of the specification broken in a way the generator reads past,
/// or a construct it reads only in part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Leniency {
    /// `type: array` without `items`: an array of any JSON values.
    ArrayWithoutItems,
    /// An `example` whose JSON type is not the schema's: kept in the docs as given.
    ExampleOfAnotherType,
    /// A `required` name that `properties` does not declare: a field of any JSON value.
    RequiredNotDeclared,
    /// A `pattern` the generated validators cannot compile (look-around,
    /// backreferences): not checked.
    PatternNotChecked,
    /// A media type name that is not `type/subtype` (`form-data`): read by
    /// its meaning (`form-data` is multipart, `…json` JSON), else bytes.
    MediaTypeName,
    /// A media type whose body differs from the first one's in the same
    /// `content` (`application/json` and `application/stream+json` with
    /// another schema): left out, the first one is generated.
    MediaTypeOtherBody,
    /// A `not` schema (`not: {required: [a, b]}` beside properties, `not:
    /// {type: "null"}`): read by the rest of its schema, what `not`
    /// excludes not checked.
    NotNotChecked,
    /// An `enum` of objects or arrays (Docker's `enum: [{}]`, "an empty
    /// object"): the schema's type, its values not checked against the list.
    StructureEnumNotChecked,
    /// An `enum` whose values are of several types, or not of the schema's
    /// `type` (`type: boolean, enum: ["0", true]`): the schema's type (any
    /// value when it has none), its values not checked against the list.
    MixedEnumNotChecked,
    /// A `type: string` enum with numbers or booleans among its values
    /// (`enum: [1, 2]`): those are their text (`"1"`); objects and arrays
    /// among them are left out.
    EnumValuesAsText,
    /// A `discriminator` that cannot name every alternative (an inline one
    /// without a `mapping` entry or a property of its own to read the
    /// value from): read as if there were none.
    DiscriminatorIgnored,
    /// A `required` name that `properties` does not declare beside
    /// `additionalProperties: false`: no value could match, so the name is
    /// ignored.
    RequiredForbidden,
    /// A `multipart/form-data` body whose schema is not an object with
    /// properties (an array, a union, any value): it lists no parts, so
    /// they are handed over as they come (the runtime's `Parts`).
    MultipartPartsUnlisted,
    /// A path key with a query string or a fragment (`/search?q={q}`,
    /// Flickr's `/rest?method=flickr.test.echo`, APIs.guru's
    /// `/#Action=X`): the path is what comes before; a `{name}` there is
    /// a query parameter, and the fixed pairs are sent in the query and
    /// tell apart the operations on one path.
    QueryInPathKey,
    /// An optional request body whose `content` is empty: no body.
    BodyWithoutContent,
    /// A path parameter whose `{name}` the path does not have: left out, as
    /// no request could carry it.
    PathParamNotInPath,
    /// A `{name}` of the path that the operation declares no path
    /// parameter for: a required text path parameter.
    PathTemplateNotDeclared,
    /// An operation whose path differs from an earlier one's in parameter
    /// names only, with the same method: the client has both, the server
    /// stubs serve the first (no request could reach the other).
    RepeatedPath,
    /// A parameter without a name, or a header parameter whose name is not
    /// an HTTP field name (with spaces): left out, as no request could
    /// carry it.
    ParamNameUnusable,
    /// A header parameter named `Accept`, `Content-Type` or `Authorization`,
    /// which OpenAPI says to ignore: the media types and the security
    /// schemes say them.
    ReservedHeaderIgnored,
    /// An `application/x-www-form-urlencoded` body whose schema is not an
    /// object (an array, a scalar): its text as it is.
    FormNotObject,
    /// A `oneOf` alternative that requires a property the merged schemas
    /// declare nowhere and forbid: no value can match it, so it is left out.
    AlternativeNeverMatches,
    /// A security requirement naming a 3.1 `mutualTLS` scheme: the client
    /// certificate is set on the HTTP client and checked where TLS ends,
    /// so the requirement asks nothing more of the request for it.
    MutualTlsByConnection,
    /// A property's own `required: true` (Swagger 2's form, for parameters):
    /// moved into its object's `required` list by the parser.
    RequiredFlag,
    /// A `pattern` that is not text (`pattern: 0`): removed by the parser,
    /// so nothing is checked.
    PatternNotText,
    /// A document that says 3.0 written with 3.1's forms: read as 3.1.
    ThreeOneForms,
    /// A parameter or header with `type` beside its name (Swagger 2's
    /// form): its schema.
    SchemaBesideName,
    /// A response without a `description`: an empty one.
    ResponseWithoutDescription,
    /// A path parameter without `required: true`: required, as a path has it.
    PathParameterNotRequired,
    /// An `operationId` an earlier operation has: a name of its own.
    RepeatedOperationId,
    /// A response's `schema` beside its description (Swagger 2's form).
    ResponseSchema,
    /// Swagger 2's `in: body` and `in: formData` parameters.
    BodyParameters,
    /// JSON Schema's conditional keywords (`if`/`then`/`else`,
    /// `dependentRequired`, `unevaluatedProperties`, …): not checked.
    ConditionalNotChecked,
    /// `items` given as a list (the tuple form of JSON Schema's drafts
    /// before 2020-12): read as 3.1's `prefixItems`.
    TupleItems,
    /// A document without `info`: titled after its file, without a version.
    NoInfo,
    /// A 3.0 document without `paths`: no operations.
    NoPaths,
    /// A vendor extension of a Swagger 2.0 document that the generator
    /// does not read: ignored.
    UnreadExtension,
    /// A security requirement alternative naming a scheme that
    /// `components.securitySchemes` does not declare, beside another
    /// alternative: left out, as no request could meet it.
    UndeclaredScheme,
    /// An OpenAPI 3.2 `querystring` parameter in another media type than a
    /// form, JSON or text (`application/xml`): left out.
    QueryStringUnread,
    /// A security alternative sending an API key in the query, on an
    /// operation whose whole query string is a parameter: left out for
    /// that operation, as the key's pair cannot join the one value.
    QueryKeyBesideQueryString,
}

impl From<Habit> for Leniency {
    fn from(habit: Habit) -> Self {
        match habit {
            Habit::RequiredFlag => Leniency::RequiredFlag,
            Habit::PatternNotText => Leniency::PatternNotText,
            Habit::SchemaBesideName => Leniency::SchemaBesideName,
            Habit::ResponseWithoutDescription => Leniency::ResponseWithoutDescription,
            Habit::ResponseSchema => Leniency::ResponseSchema,
            Habit::BodyParameters => Leniency::BodyParameters,
            Habit::ConditionalKeywords => Leniency::ConditionalNotChecked,
            Habit::ThreeOneForms => Leniency::ThreeOneForms,
            Habit::TupleItems => Leniency::TupleItems,
            Habit::NoInfo => Leniency::NoInfo,
            Habit::NoPaths => Leniency::NoPaths,
            Habit::UnreadExtension => Leniency::UnreadExtension,
        }
    }
}

impl Leniency {
    fn describe(self) -> (&'static str, &'static str) {
        match self {
            Leniency::ArrayWithoutItems => {
                ("arrays without `items`", "their items are any JSON value")
            }
            Leniency::ExampleOfAnotherType => (
                "examples of another type than their schema",
                "shown in the docs as given",
            ),
            Leniency::RequiredNotDeclared => (
                "`required` names that `properties` does not declare",
                "fields of any JSON value",
            ),
            Leniency::RequiredForbidden => (
                "`required` names that no property declares and `additionalProperties: false` forbids",
                "ignored (no value could have them)",
            ),
            Leniency::MultipartPartsUnlisted => (
                "multipart bodies whose schema is not an object with properties",
                "their parts as they come (`Parts`: name, bytes, file name, media type), not typed or checked",
            ),
            Leniency::QueryInPathKey => (
                "paths with a query string or fragment in their key (`/search?q={q}`, `/#Action=X`)",
                "the path is the part before `?` or `#`; its `{name}`s are query parameters (text, required, where the operation does not declare them), its fixed pairs are sent in the query (by the parameter of that name when there is one) and tell apart the operations on one path",
            ),
            Leniency::BodyWithoutContent => (
                "optional request bodies without a media type (`content: {}`)",
                "no body",
            ),
            Leniency::PathParamNotInPath => (
                "path parameters the path does not have",
                "left out (no request could carry them)",
            ),
            Leniency::PathTemplateNotDeclared => (
                "operations whose path has a `{name}` they declare no path parameter for",
                "each such name is a required text path parameter",
            ),
            Leniency::RepeatedPath => (
                "operations whose method and path (but for parameter names) an earlier one has",
                "in the client; the server stubs serve the earlier one, which every such request reaches",
            ),
            Leniency::ParamNameUnusable => (
                "parameters without a name, or headers whose name is not an HTTP header name",
                "left out (no request could carry them)",
            ),
            Leniency::ReservedHeaderIgnored => (
                "header parameters named `Accept`, `Content-Type` or `Authorization`",
                "ignored, as OpenAPI says (the media types and the security schemes say them)",
            ),
            Leniency::FormNotObject => (
                "form bodies whose schema is not an object",
                "their text as it is (no encoding of such a value as pairs is agreed on)",
            ),
            Leniency::PatternNotChecked => (
                "patterns the generated validators cannot compile",
                "not checked",
            ),
            Leniency::MediaTypeName => (
                "media type names that are not `type/subtype`",
                "read by their meaning (`form-data` as multipart, `…json` as JSON, `…urlencoded` as a form), else as bytes",
            ),
            Leniency::NotNotChecked => (
                "`not` schemas",
                "not checked: the value is read by the rest of its schema (any value when it says nothing else)",
            ),
            Leniency::StructureEnumNotChecked => (
                "`enum`s of objects or arrays",
                "their schema's type, the value not checked against the list",
            ),
            Leniency::MixedEnumNotChecked => (
                "`enum`s whose values are of several types, or not of the schema's `type`",
                "their schema's type (any value without one), the value not checked against the list",
            ),
            Leniency::DiscriminatorIgnored => (
                "`discriminator`s that cannot name every alternative",
                "ignored: the union is told apart by its alternatives' properties, or tried in order",
            ),
            Leniency::EnumValuesAsText => (
                "`type: string` enums with values of other types",
                "numbers and booleans read as their text (`1` as \"1\"), objects and arrays left out",
            ),
            Leniency::AlternativeNeverMatches => (
                "`oneOf` alternatives that require a property no value may have",
                "left out (no value can match them)",
            ),
            Leniency::MutualTlsByConnection => (
                "`mutualTLS` security schemes",
                "met by the connection (a client certificate on the HTTP client, checked where TLS ends), so the requirements ask nothing of the request for them",
            ),
            Leniency::ConditionalNotChecked => (
                "schemas with JSON Schema's conditional keywords (`if`/`then`/`else`, `dependentRequired`, `dependentSchemas`, `unevaluatedProperties`, `unevaluatedItems`)",
                "read by the rest of their schema, those keywords not checked",
            ),
            Leniency::ResponseSchema => (
                "responses with their `schema` beside their description (Swagger 2's form)",
                "read as their `application/json` content",
            ),
            Leniency::BodyParameters => (
                "operations with `in: body` or `in: formData` parameters (Swagger 2's form)",
                "read as their `requestBody`: JSON, or a form (`multipart/form-data` when a field is a file)",
            ),
            Leniency::RepeatedOperationId => (
                "`operationId`s that an earlier operation has",
                "named with a number after them (`list_pets2`)",
            ),
            Leniency::PathParameterNotRequired => (
                "path parameters without `required: true`",
                "required, as every path has them",
            ),
            Leniency::SchemaBesideName => (
                "parameters or headers with `type` beside their name (Swagger 2's form)",
                "read as their `schema` (`collectionFormat` as their style)",
            ),
            Leniency::ResponseWithoutDescription => (
                "responses without a `description`",
                "read with an empty one",
            ),
            Leniency::ThreeOneForms => (
                "OpenAPI 3.1 forms in a document that says 3.0 (`type: [string, \"null\"]`, a numeric `exclusiveMinimum`, …)",
                "the document read as 3.1 (`[string, \"null\"]` a nullable string)",
            ),
            Leniency::PatternNotText => (
                "a `pattern` that is a number, a boolean or `null` (`pattern: 0`), not a regular expression",
                "not checked",
            ),
            Leniency::RequiredFlag => (
                "`required: true` or `false` on a property (Swagger 2's form for parameters)",
                "read as the property listed, or not, in its object's `required`",
            ),
            Leniency::TupleItems => (
                "`items` given as a list of schemas (the tuple form of JSON Schema drafts before 2020-12)",
                "read as 3.1's `prefixItems`: the items' type (a `oneOf` of the positions' schemas when they differ), `additionalItems` as the items after them",
            ),
            Leniency::NoInfo => (
                "documents without `info`",
                "read as an `info` titled after the file, without a version",
            ),
            Leniency::NoPaths => (
                "3.0 documents without `paths`",
                "read as `paths: {}`: no operations",
            ),
            Leniency::UnreadExtension => (
                "vendor extensions (`x-…`) of a Swagger 2.0 document that the generator does not read",
                "ignored",
            ),
            Leniency::UndeclaredScheme => (
                "security requirement alternatives naming a scheme that `components.securitySchemes` does not declare",
                "left out (no request could meet them); the requirement's other alternatives remain",
            ),
            Leniency::QueryStringUnread => (
                "`in: querystring` parameters in a media type other than a form, JSON or text (OpenAPI 3.2)",
                "left out: the operations are generated without them, and their servers ignore the query string",
            ),
            Leniency::QueryKeyBesideQueryString => (
                "security alternatives that send an API key in the query, on operations whose whole query string is an `in: querystring` parameter (OpenAPI 3.2)",
                "left out for those operations (the key's pair cannot join the query string's one value); their other alternatives remain",
            ),
            Leniency::MediaTypeOtherBody => (
                "media types whose body differs from the first media type's in the same `content`",
                "left out: the first media type's body is generated",
            ),
        }
    }
}

/// The leniencies met while lowering, with where each was.
#[derive(Default)]
pub(crate) struct Lenient {
    found: Vec<(Leniency, Pointer)>,
}

impl Lenient {
    pub fn record(&mut self, what: Leniency, at: &Pointer) {
        self.found.push((what, at.clone()));
    }

    /// The one note for `doc`, if anything was read leniently: each kind
    /// with its count and its first place in the user's document.
    pub fn note(&self, doc: &Document) -> Option<String> {
        let mut kinds: Vec<Leniency> = self.found.iter().map(|(k, _)| *k).collect();
        kinds.sort();
        kinds.dedup();
        if kinds.is_empty() {
            return None;
        }
        let parts: Vec<String> = kinds
            .into_iter()
            .map(|kind| {
                // In the order they were met, which is the document's.
                let mut places: Vec<(String, Pointer)> = Vec::new();
                for (_, at) in self.found.iter().filter(|(k, _)| *k == kind) {
                    let at = doc.place(at);
                    if !places.contains(&at) {
                        places.push(at);
                    }
                }
                let (what, how) = kind.describe();
                let (file, first) = &places[0];
                format!(
                    "{what} ({}, the first at {file}{first}): {how}",
                    places.len(),
                )
            })
            .collect();
        Some(format!(
            "{}: read leniently: {}",
            doc.file,
            parts.join("; ")
        ))
    }
}
