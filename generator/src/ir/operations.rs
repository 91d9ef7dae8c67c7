//! Operations: what a client sends and a server answers.

use super::{Docs, Origin, Shape, Ty};

/// One operation (a method on a path).
#[derive(Debug, Clone)]
pub struct Operation {
    /// The `operationId`, or one made from method and path when it has none.
    pub id: String,
    /// The method's Rust name (snake_case).
    pub fn_name: String,
    /// The prefix of the operation's own types (UpperCamelCase), e.g.
    /// `CreateCustomer` for `CreateCustomerRequest`.
    pub type_prefix: String,
    /// The HTTP method.
    pub method: Method,
    /// The path template, e.g. `/pets/{petId}`.
    pub path: String,
    /// The fixed pairs of a query string or fragment written into the
    /// path's key (Flickr's `/rest?method=flickr.test.echo`, APIs.guru's
    /// `/#Action=DescribeDBInstances`), in the key's order: what tells
    /// apart the operations on one path.
    pub fixed_query: Vec<FixedPair>,
    /// Where the operation is in the document.
    pub origin: Origin,
    /// `summary` (as title), `description`, `deprecated`.
    pub docs: Docs,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its parameters (path-level ones merged in, overrides applied), in
    /// document order: path-level first.
    pub params: Vec<Parameter>,
    /// Its request body.
    pub body: Option<RequestBody>,
    /// Its responses, in document order.
    pub responses: Vec<Response>,
    /// The security requirements: any one of the alternatives must be met; an
    /// empty list means no authentication.
    pub security: Vec<SecurityRequirement>,
}

/// A pair of the query string or fragment of a path's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedPair {
    /// The name (`method`).
    pub name: String,
    /// The value (`flickr.test.echo`); `None` for a bare name (`?uploads`),
    /// which any value of that name matches.
    pub value: Option<String>,
    /// Where a request carries it: a parameter of the operation with that
    /// name (APIs.guru's `Action` query parameter, DynamoDB's `X-Amz-Target`
    /// header), which the caller sets; `None` when no parameter has that
    /// name, and the client sends the pair in the query itself.
    pub declared: Option<ParamLocation>,
}

/// A path template without its parameters' names (`/a/{id}/b` → `/a/{}/b`):
/// templates of one shape describe the same paths.
pub fn template_shape(path: &str) -> String {
    let mut shape = String::with_capacity(path.len());
    let mut in_braces = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_braces = true;
                shape.push('{');
            }
            '}' => {
                in_braces = false;
                shape.push('}');
            }
            _ if in_braces => {}
            c => shape.push(c),
        }
    }
    shape
}

/// For each of `operations`, whether an earlier one has its method on a
/// path of the same shape (`/a/{id}` and `/a/{key}`, which OpenAPI forbids):
/// no request can tell them apart, so only the first is served.
pub fn repeats_a_route(operations: &[Operation]) -> Vec<bool> {
    let mut seen = std::collections::HashSet::new();
    operations
        .iter()
        .map(|op| {
            let mut pairs: Vec<(&str, Option<&str>)> = op
                .fixed_query
                .iter()
                .map(|pair| (pair.name.as_str(), pair.value.as_deref()))
                .collect();
            pairs.sort();
            !seen.insert((&op.method, template_shape(&op.path), pairs))
        })
        .collect()
}

/// A media type without its parameters, lower-case
/// (`Application/JSON; charset=utf-8` → `application/json`).
pub fn media_essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// How a media type's bodies are encoded.
pub enum MediaKind {
    /// JSON, or any `+json` type (and `*/*` and `application/*`, read as
    /// JSON).
    Json,
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `text/*`.
    Text,
    /// Anything else (`application/pdf`, `image/*`): bytes as they are.
    Binary,
    /// `multipart/*`.
    Multipart,
}

impl MediaKind {
    /// The kind of `media_type` (its parameters aside).
    pub fn of(media_type: &str) -> MediaKind {
        let essence = media_essence(media_type);
        let (kind, subtype) = essence.split_once('/').unwrap_or((essence.as_str(), ""));
        match (kind, subtype) {
            // A wildcard of a type that is never JSON (an `image/*`
            // download): bytes.
            ("image" | "audio" | "video" | "font" | "model", "*") => MediaKind::Binary,
            // Any text is text, never JSON.
            ("text", "*") => MediaKind::Text,
            (_, "json") | (_, "*") | ("*", _) => MediaKind::Json,
            (_, sub) if sub.ends_with("+json") => MediaKind::Json,
            // A name that is not `type/subtype`, by its suffix or meaning.
            (name, "") if name.ends_with("json") => MediaKind::Json,
            (name, "") if name.ends_with("form-data") || name == "multipart" => {
                MediaKind::Multipart
            }
            (name, "") if name.ends_with("urlencoded") => MediaKind::Form,
            ("application", "x-www-form-urlencoded") => MediaKind::Form,
            ("multipart", _) => MediaKind::Multipart,
            ("text", _) => MediaKind::Text,
            _ => MediaKind::Binary,
        }
    }
}

/// Whether `name` is a valid HTTP field name (RFC 9110's `token`).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

impl Operation {
    /// The path with the fixed pairs of its key, as a request carries
    /// them (`/rest?method=photos.search`, `/ X-Amz-Target: Db.GetItem`):
    /// how documentation names the operation.
    pub fn path_key(&self) -> String {
        let mut key = self.path.clone();
        let (headers, query): (Vec<&FixedPair>, Vec<&FixedPair>) = self
            .fixed_query
            .iter()
            .partition(|pair| pair.declared == Some(ParamLocation::Header));
        for (i, pair) in query.iter().enumerate() {
            key.push(if i == 0 { '?' } else { '&' });
            key.push_str(&pair.name);
            if let Some(value) = &pair.value {
                key.push('=');
                key.push_str(value);
            }
        }
        for pair in headers {
            key.push_str(&format!(
                " {}: {}",
                pair.name,
                pair.value.as_deref().unwrap_or("…")
            ));
        }
        key
    }

    /// The parameters at `location`.
    pub fn params_in(&self, location: ParamLocation) -> impl Iterator<Item = &Parameter> {
        self.params.iter().filter(move |p| p.location == location)
    }

    /// Whether the operation requires authentication.
    pub fn is_authenticated(&self) -> bool {
        !self.security.is_empty() && self.security.iter().all(|r| !r.schemes.is_empty())
    }

    /// The method of the server's trait that checks the body's rules
    /// (`x-rules`): the trait, its handlers and the README all name it.
    pub fn rules_method_name(&self) -> String {
        format!("check_{}_body", self.fn_name)
    }

    /// The responses with a 1xx–3xx status.
    pub fn success_responses(&self) -> impl Iterator<Item = &Response> {
        self.responses.iter().filter(|r| r.status.is_success())
    }

    /// The header that makes a client resume the operation's event stream
    /// when its connection is lost: [`LAST_EVENT_ID`] (in any case), which
    /// says that the server reads back the last id a client saw. An `id`
    /// in the events, or a `retry`, says only that the server sends them.
    pub fn resumes_events_with(&self) -> Option<&Parameter> {
        self.params_in(ParamLocation::Header)
            .find(|p| p.wire.eq_ignore_ascii_case(LAST_EVENT_ID))
    }
}

/// An HTTP method.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// GET
    Get,
    /// PUT
    Put,
    /// POST
    Post,
    /// DELETE
    Delete,
    /// OPTIONS
    Options,
    /// HEAD
    Head,
    /// PATCH
    Patch,
    /// TRACE
    Trace,
    /// Any other method, by the name it is sent with (OpenAPI 3.2's
    /// `query` method is `QUERY`; its `additionalOperations` name others,
    /// such as `COPY`): a token, as HTTP's methods are (RFC 9110).
    Other(String),
}

impl Method {
    /// The method as HTTP spells it.
    pub fn as_str(&self) -> &str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
            Method::Other(name) => name,
        }
    }

    /// Whether repeating the request has no further effect (RFC 9110);
    /// of the others, QUERY's is (its draft RFC says so), and no other's
    /// is known.
    pub fn is_idempotent(&self) -> bool {
        match self {
            Method::Post | Method::Patch => false,
            Method::Other(name) => name == "QUERY",
            _ => true,
        }
    }

    /// Whether it is one of the eight methods of OpenAPI 3.0, which HTTP
    /// libraries name (`reqwest::Method::GET`, `axum::routing::get`).
    pub fn is_standard(&self) -> bool {
        !matches!(self, Method::Other(_))
    }
}

/// Where a parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamLocation {
    /// In the path.
    Path,
    /// In the query string.
    Query,
    /// In a header.
    Header,
    /// In a cookie.
    Cookie,
    /// The whole query string, one value in the media type of the
    /// parameter's `content` (OpenAPI 3.2's `in: querystring`): its JSON
    /// text ([`Parameter::json`]) or the text itself, percent-encoded. The
    /// operation has no other query parameter. (A querystring in
    /// `application/x-www-form-urlencoded` is a [`ParamLocation::Query`]
    /// object spread over the pairs instead.)
    QueryString,
}

/// How an array or object parameter is serialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamStyle {
    /// `simple` (path, header): comma-separated.
    Simple,
    /// `form` (query, cookie): `name=a&name=b` when exploded, `name=a,b` otherwise.
    Form,
    /// `spaceDelimited` (query).
    SpaceDelimited,
    /// `pipeDelimited` (query).
    PipeDelimited,
    /// `deepObject` (query): an object's properties as `name[key]=value`.
    DeepObject,
    /// `label` (path): `.a`, a list `.a,b` (`.a.b` exploded).
    Label,
    /// `matrix` (path): `;name=a`, a list `;name=a,b` (`;name=a;name=b`
    /// exploded).
    Matrix,
}

/// A parameter of an operation.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Its name on the wire.
    pub wire: String,
    /// The Rust field name (snake_case, unique among the operation's parameters and body).
    pub field: String,
    /// Where it is.
    pub location: ParamLocation,
    /// Whether it must be given.
    pub required: bool,
    /// Its shape (scalars, enums, or arrays of them).
    pub shape: Shape,
    /// Its serialisation style.
    pub style: ParamStyle,
    /// Whether arrays are exploded.
    pub explode: bool,
    /// Whether its value is an object (a struct or a map of scalars or
    /// arrays of them) spread over the query string: as `name[key]=value`
    /// pairs when the style is `deepObject`, as `key=value` pairs when it is
    /// exploded `form`.
    pub object: bool,
    /// Whether its value is one JSON text (`content` with a JSON media
    /// type): the client writes the typed value as JSON; the server stubs
    /// hand the text over, as they do for other values that are not
    /// scalars, except for [`ParamLocation::QueryString`], whose value they
    /// decode and check as a JSON body's.
    pub json: bool,
    /// Its documentation.
    pub docs: Docs,
    /// Where it is declared.
    pub origin: Origin,
    /// Its name in `components.parameters`, when it was declared there.
    pub component: Option<String>,
    /// The typed query language it carries, when it has an `x-dynamic-query` extension.
    pub dynamic_query: Option<DynamicQuery>,
}

/// A query language carried in one string parameter (the `x-dynamic-query`
/// extension): filters, sorting and paging over a declared set of properties.
#[derive(Debug, Clone)]
pub struct DynamicQuery {
    /// The name of the generated query type (UpperCamelCase), e.g. `ReturnsQuery`.
    pub name: String,
    /// The name of the generated enum of its properties, e.g. `ReturnsQueryProperty`.
    pub property_type: String,
    /// The properties that can be filtered and sorted on, in document order.
    pub properties: Vec<QueryProperty>,
    /// The largest page size; larger requests are clamped.
    pub max_count: u32,
    /// The page size when none is asked for.
    pub default_count: u32,
    /// The properties results are finally sorted by, ascending.
    pub default_sort: Vec<String>,
}

/// A property of a dynamic query.
#[derive(Debug, Clone)]
pub struct QueryProperty {
    /// Its name in the query.
    pub wire: String,
    /// The Rust variant name (UpperCamelCase).
    pub name: String,
    /// The type of its values.
    pub kind: QueryValueKind,
}

/// The type of a dynamic query property's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryValueKind {
    /// Text.
    String,
    /// An RFC 3339 date-time.
    DateTime,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// A boolean.
    Boolean,
    /// A UUID.
    Uuid,
}

/// A request body.
#[derive(Debug, Clone)]
pub struct RequestBody {
    /// Whether a body must be sent.
    pub required: bool,
    /// The media types accepted, in document order; wildcards such as
    /// `application/*+json` are kept as written.
    pub media_types: Vec<String>,
    /// How the body is encoded (the same for all its media types).
    pub kind: BodyKind,
    /// Rules across its fields that schemas cannot state (the `x-rules`
    /// extension), in document order; the server's implementer checks them.
    pub rules: Vec<BodyRule>,
    /// Its documentation.
    pub docs: Docs,
    /// Where it is.
    pub origin: Origin,
}

impl RequestBody {
    /// The media type a multipart body is written in:
    /// `multipart/form-data` when the document lists it, else the first
    /// `multipart/…` it lists (`related`, `mixed`), which its servers
    /// check; `multipart/form-data` for a name such as `form-data`.
    pub fn multipart_media_type(&self) -> String {
        // A subtype is a `token` (RFC 9110), as a header name is; `*` is
        // a wildcard, not one to send.
        let listed: Vec<String> = self
            .media_types
            .iter()
            .map(|m| media_essence(m))
            .filter(|m| {
                m.strip_prefix("multipart/")
                    .is_some_and(|subtype| subtype != "*" && is_header_name(subtype))
            })
            .collect();
        listed
            .iter()
            .find(|m| *m == "multipart/form-data")
            .or(listed.first())
            .cloned()
            .unwrap_or_else(|| "multipart/form-data".to_owned())
    }
}

/// A rule of a request body that its schema cannot state, such as "no two
/// line items with the same `sku`", declared by the `x-rules` extension of
/// the request body: a list of `{code, description}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyRule {
    /// The error code a violation is reported with.
    pub code: String,
    /// What the rule requires, in words.
    pub description: String,
}

/// How a body is encoded and what it decodes to.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyKind {
    /// JSON, decoding to the shape.
    Json(Shape),
    /// Text, as a string.
    Text,
    /// Bytes, as they are.
    Binary,
    /// `application/x-www-form-urlencoded`, decoding to the shape.
    Form(Shape),
    /// `multipart/form-data` (request bodies only): one part per property of
    /// the shape, an object; its binary properties are files.
    Multipart(Multipart),
    /// A sequence of JSON items (OpenAPI 3.2's `itemSchema`: JSON Lines,
    /// JSON text sequences), decoding to the shape, an array of the items.
    Sequence(Sequence),
}

impl BodyKind {
    /// The shape a body of JSON values (a document, a form's fields, a
    /// sequence's items) decodes to; `None` for text, bytes and parts.
    pub fn json_shape(&self) -> Option<&Shape> {
        match self {
            BodyKind::Json(shape) | BodyKind::Form(shape) => Some(shape),
            BodyKind::Sequence(sequence) => Some(&sequence.shape),
            BodyKind::Text | BodyKind::Binary | BodyKind::Multipart(_) => None,
        }
    }
}

/// A sequential JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    /// The array of its items.
    pub shape: Shape,
    /// How its items are framed.
    pub framing: Framing,
}

impl Sequence {
    /// The shape of one item.
    pub fn item(&self) -> &Shape {
        match &self.shape.ty {
            Ty::Array(item) => item,
            _ => &self.shape,
        }
    }
}

/// How the items of a sequential body are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One item a line (`application/jsonl`, `application/x-ndjson`).
    Lines,
    /// Each item after a record separator (`application/json-seq`, RFC 7464).
    RecordSeparator,
}

impl Framing {
    /// The runtime's name for it (`openapi_runtime::sequence::Framing`).
    pub fn runtime_name(self) -> &'static str {
        match self {
            Framing::Lines => "Lines",
            Framing::RecordSeparator => "RecordSeparator",
        }
    }

    /// The framing of `media_type`'s items: record separators for JSON
    /// text sequences (`…json-seq`), lines otherwise.
    pub fn of(media_type: &str) -> Framing {
        if media_essence(media_type).ends_with("json-seq") {
            Framing::RecordSeparator
        } else {
            Framing::Lines
        }
    }
}

/// A `multipart/form-data` body.
#[derive(Debug, Clone, PartialEq)]
pub struct Multipart {
    /// The object whose properties are the parts (the models' type that
    /// checks the fields that are not files).
    pub shape: Shape,
    /// The `encoding` object's `contentType` of the parts that give one, in
    /// document order.
    pub content_types: Vec<PartContentType>,
}

/// The media type a part is sent with, as the `encoding` object says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartContentType {
    /// The property (the part's name).
    pub part: String,
    /// Its `contentType`: one media type, or several separated by commas.
    pub content_type: String,
}

/// One documented response.
#[derive(Debug, Clone)]
pub struct Response {
    /// Its status.
    pub status: Status,
    /// The Rust variant name (UpperCamelCase), e.g. `Created` or `Status299`.
    pub name: String,
    /// Its description.
    pub docs: Docs,
    /// Its headers, in document order.
    pub headers: Vec<ResponseHeader>,
    /// Its media types, in document order (empty: no body).
    pub media_types: Vec<String>,
    /// How its body is encoded (`None`: no body).
    pub body: Option<BodyKind>,
    /// When it offers `text/event-stream`: the type of each event's data,
    /// which the media type's schema describes (text without a schema).
    /// The stream is not among `media_types` when another media type is.
    pub events: Option<Shape>,
    /// The name of the component it came from (`components.responses`), if any.
    pub component: Option<String>,
}

/// The media type of server-sent events.
pub const EVENT_STREAM: &str = "text/event-stream";

/// The header that resumes a stream of server-sent events after the last
/// event a client saw (the WHATWG HTML standard's `EventSource`).
pub const LAST_EVENT_ID: &str = "Last-Event-ID";

/// A response status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// One status code.
    Code(u16),
    /// A range, `4XX` is `Range(4)`.
    Range(u16),
    /// `default`: any status not documented otherwise.
    Default,
}

/// As a document writes it: `404`, `4XX`, `default`.
impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Code(code) => write!(f, "{code}"),
            Status::Range(range) => write!(f, "{range}XX"),
            Status::Default => f.write_str("default"),
        }
    }
}

impl Status {
    /// Whether the status means success (1xx–3xx).
    pub fn is_success(self) -> bool {
        match self {
            Status::Code(code) => code < 400,
            Status::Range(range) => range < 4,
            Status::Default => false,
        }
    }
}

/// A header of a response.
#[derive(Debug, Clone)]
pub struct ResponseHeader {
    /// Its name on the wire.
    pub wire: String,
    /// The Rust field name (snake_case).
    pub field: String,
    /// Whether it is always sent.
    pub required: bool,
    /// Its shape.
    pub shape: Shape,
    /// Its documentation.
    pub docs: Docs,
}

/// One way of meeting an operation's security: all its schemes at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecurityRequirement {
    /// The schemes, by their names in `components.securitySchemes`.
    pub schemes: Vec<String>,
}

/// A security scheme.
#[derive(Debug, Clone)]
pub struct SecurityScheme {
    /// Its name in `components.securitySchemes`.
    pub name: String,
    /// The Rust name (UpperCamelCase).
    pub rust_name: String,
    /// What it is.
    pub kind: SecuritySchemeKind,
    /// Its description.
    pub description: Option<String>,
}

/// The kinds of security scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecuritySchemeKind {
    /// An API key in a header, query parameter or cookie.
    ApiKey {
        /// Where it is.
        location: ParamLocation,
        /// The header, parameter or cookie name.
        name: String,
    },
    /// HTTP authentication in the `Authorization` header (`bearer`, `basic`, …).
    Http {
        /// The scheme, lower-case.
        scheme: String,
    },
    /// OAuth 2 or OpenID Connect: a bearer token in the `Authorization` header.
    OAuth2,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multipart_body_is_written_in_form_data_unless_the_document_names_another() {
        let media_type = |listed: &[&str]| {
            RequestBody {
                required: true,
                media_types: listed.iter().map(|m| (*m).to_owned()).collect(),
                kind: BodyKind::Binary,
                rules: Vec::new(),
                docs: Docs::default(),
                origin: Origin::default(),
            }
            .multipart_media_type()
        };
        assert_eq!(media_type(&["multipart/related"]), "multipart/related");
        assert_eq!(
            media_type(&["Multipart/Mixed; charset=utf-8", "multipart/form-data"]),
            "multipart/form-data"
        );
        assert_eq!(media_type(&["form-data"]), "multipart/form-data");
        assert_eq!(media_type(&["multipart/*"]), "multipart/form-data");
    }

    #[test]
    fn an_event_stream_resumes_where_the_operation_takes_last_event_id() {
        let api = crate::testing::api(
            "paths:
  /feed:
    get:
      parameters:
        - {name: last-event-id, in: header, schema: {type: string}}
      responses:
        '200': {description: ok, content: {text/event-stream: {}}}
  /log:
    get:
      parameters:
        - {name: Last-Event-ID, in: query, schema: {type: string}}
      responses:
        '200': {description: ok, content: {text/event-stream: {}}}
",
        );
        let header = |path: &str| {
            let op = api.operations.iter().find(|op| op.path == path).unwrap();
            op.resumes_events_with().map(|p| p.wire.clone())
        };
        assert_eq!(header("/feed").as_deref(), Some("last-event-id"));
        assert_eq!(header("/log"), None, "a query parameter is not the header");
    }

    /// A status reads as the document writes it; success is below 400, for
    /// a code and for a range (`2XX`, `3XX` succeed, `4XX` does not).
    #[test]
    fn statuses_read_as_written_and_succeed_below_400() {
        let written = [Status::Code(404), Status::Range(2), Status::Default].map(|s| s.to_string());
        assert_eq!(written, ["404", "2XX", "default"]);
        let success =
            |statuses: &[Status]| statuses.iter().map(|s| s.is_success()).collect::<Vec<_>>();
        assert_eq!(
            success(&[
                Status::Code(204),
                Status::Code(399),
                Status::Code(400),
                Status::Code(500)
            ]),
            [true, true, false, false]
        );
        assert_eq!(
            success(&[
                Status::Range(2),
                Status::Range(3),
                Status::Range(4),
                Status::Range(5)
            ]),
            [true, true, false, false]
        );
        assert!(!Status::Default.is_success());
    }

    #[test]
    fn classifies_media_types() {
        assert!(matches!(
            MediaKind::of("application/json; charset=utf-8"),
            MediaKind::Json
        ));
        assert!(matches!(
            MediaKind::of("application/*+json"),
            MediaKind::Json
        ));
        assert!(matches!(
            MediaKind::of("application/json-patch+json"),
            MediaKind::Json
        ));
        assert!(matches!(MediaKind::of("text/json"), MediaKind::Json));
        assert!(matches!(MediaKind::of("text/plain"), MediaKind::Text));
        assert!(matches!(MediaKind::of("text/*"), MediaKind::Text));
        assert!(matches!(
            MediaKind::of("application/octet-stream"),
            MediaKind::Binary
        ));
        assert!(matches!(
            MediaKind::of("application/x-www-form-urlencoded"),
            MediaKind::Form
        ));
        assert!(matches!(
            MediaKind::of("multipart/form-data"),
            MediaKind::Multipart
        ));
        // Names that are not `type/subtype`, by their meaning.
        assert!(matches!(MediaKind::of("form-data"), MediaKind::Multipart));
        assert!(matches!(
            MediaKind::of("x-www-form-urlencoded"),
            MediaKind::Form
        ));
        assert!(matches!(MediaKind::of("json"), MediaKind::Json));
        assert!(matches!(MediaKind::of("pdf"), MediaKind::Binary));
        // Wildcards: of a type that is never JSON, bytes; of any type, JSON.
        assert!(matches!(MediaKind::of("image/*"), MediaKind::Binary));
        assert!(matches!(MediaKind::of("video/*"), MediaKind::Binary));
        assert!(matches!(MediaKind::of("*/*"), MediaKind::Json));
        assert!(matches!(MediaKind::of("application/*"), MediaKind::Json));
    }
}
