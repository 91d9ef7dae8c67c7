//! What a document declares once for the whole API: its servers (and their
//! variables), its security schemes, and the headers every operation takes.

use openapiv3::{APIKeyLocation, SecurityScheme as OaScheme};

use crate::error::Result;
use crate::ir::{
    Operation, ParamLocation, Parameter, SecurityScheme, SecuritySchemeKind, Server, ServerVariable,
};
use crate::names::{Namespace, type_name};
use crate::parse::{Document, Pointer};

pub(super) fn servers(doc: &Document) -> Vec<Server> {
    let mut names = Namespace::default();
    doc.api
        .servers
        .iter()
        .enumerate()
        .map(|(i, server)| {
            // "Production. Live data…" → `Production`.
            let label = server
                .description
                .as_deref()
                .and_then(|d| d.split(['.', ',', ':', '(', ';']).next())
                .map(str::trim)
                .filter(|d| !d.is_empty() && d.split_whitespace().count() <= 4)
                .map(type_name)
                .unwrap_or_else(|| format!("Server{}", i + 1));
            Server {
                url: server.url.clone(),
                description: server.description.clone(),
                name: names.claim(label),
                variables: server
                    .variables
                    .iter()
                    .flatten()
                    .map(|(name, variable)| ServerVariable {
                        name: name.clone(),
                        default: variable.default.clone(),
                        description: variable.description.clone(),
                        allowed: variable.enumeration.clone(),
                    })
                    .collect(),
            }
        })
        .collect()
}

pub(super) fn security_schemes(doc: &Document) -> Result<Vec<SecurityScheme>> {
    let Some(components) = &doc.api.components else {
        return Ok(Vec::new());
    };
    let base = Pointer::root().push("components").push("securitySchemes");
    let mut names = Namespace::default();
    components
        .security_schemes
        .iter()
        .map(|(name, scheme)| {
            let resolved = doc.resolve(scheme, &base.push(name))?;
            let (kind, description) = match resolved.value.as_ref() {
                OaScheme::APIKey {
                    location,
                    name,
                    description,
                    ..
                } => (
                    SecuritySchemeKind::ApiKey {
                        location: match location {
                            APIKeyLocation::Header => ParamLocation::Header,
                            APIKeyLocation::Query => ParamLocation::Query,
                            APIKeyLocation::Cookie => ParamLocation::Cookie,
                        },
                        name: name.clone(),
                    },
                    description.clone(),
                ),
                OaScheme::HTTP {
                    scheme,
                    description,
                    ..
                } => (
                    SecuritySchemeKind::Http {
                        scheme: scheme.to_ascii_lowercase(),
                    },
                    description.clone(),
                ),
                OaScheme::OAuth2 { description, .. }
                | OaScheme::OpenIDConnect { description, .. } => {
                    (SecuritySchemeKind::OAuth2, description.clone())
                }
            };
            Ok(SecurityScheme {
                name: name.clone(),
                rust_name: names.claim(type_name(name)),
                kind,
                description,
            })
        })
        .collect()
}

/// Header parameters declared once in `components.parameters` and used by
/// every operation.
pub(super) fn common_headers(operations: &[Operation]) -> Vec<Parameter> {
    let Some(first) = operations.first() else {
        return Vec::new();
    };
    first
        .params_in(ParamLocation::Header)
        .filter(|p| p.component.is_some())
        .filter(|p| {
            operations.iter().all(|op| {
                op.params
                    .iter()
                    .any(|q| q.component == p.component && q.location == p.location)
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {

    use crate::testing::api;

    #[test]
    fn lifts_headers_every_operation_takes() {
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/Tenant'}]\n      responses: {'200': {description: ok}}\n  /b:\n    get:\n      parameters: [{$ref: '#/components/parameters/Tenant'}, {name: X-Other, in: header, schema: {type: string}}]\n      responses: {'200': {description: ok}}\ncomponents:\n  parameters:\n    Tenant: {name: X-Tenant-Id, in: header, schema: {type: string}}\n",
        );
        let lifted: Vec<&str> = api.common_headers.iter().map(|p| p.wire.as_str()).collect();
        assert_eq!(lifted, ["X-Tenant-Id"]);
    }

    #[test]
    fn a_header_some_operation_lacks_is_not_lifted() {
        // `/b` takes a header, but not the component `/a` takes.
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/Tenant'}]\n      responses: {'200': {description: ok}}\n  /b:\n    get:\n      parameters: [{name: X-Other, in: header, schema: {type: string}}]\n      responses: {'200': {description: ok}}\ncomponents:\n  parameters:\n    Tenant: {name: X-Tenant-Id, in: header, schema: {type: string}}\n",
        );
        assert!(api.common_headers.is_empty(), "{:?}", api.common_headers);
    }

    #[test]
    fn names_servers_by_the_first_words_of_their_description() {
        let api = api(concat!(
            "servers:\n",
            "  - {url: 'https://api.example.com', description: 'Production. Live data'}\n",
            "  - {url: 'https://eu.example.com', description: 'EU west data centre'}\n",
            "  - {url: 'https://a.example.com', description: 'One server of the many we run'}\n",
            "  - {url: 'https://b.example.com'}\n",
            "  - {url: 'https://c.example.com', description: 'Production: the other one'}\n",
            "  - {url: 'https://d.example.com', description: '(no name)'}\n",
            "paths: {}\n",
        ));
        let names: Vec<(&str, &str)> = api
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.url.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("Production", "https://api.example.com"),
                ("EuWestDataCentre", "https://eu.example.com"),
                // More than four words is a sentence, not a name.
                ("Server3", "https://a.example.com"),
                ("Server4", "https://b.example.com"),
                ("Production2", "https://c.example.com"),
                ("Server6", "https://d.example.com"),
            ]
        );
    }
}
