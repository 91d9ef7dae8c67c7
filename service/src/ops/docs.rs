//! `/docs`: the API reference page, Swagger UI over the served document.
//!
//! Swagger UI is vendored from its npm package (`swagger-ui-dist`, version in
//! `service/assets/swagger-ui/VERSION`) and embedded in the binary: the page
//! works offline, with no CDN. Its "Try it out" calls the serving instance:
//! the page replaces the document's `servers` with the page's own origin.

use axum::response::Response;
use http::HeaderValue;
use http::header::CACHE_CONTROL;

use super::text;

const BUNDLE: &[u8] = include_bytes!("../../assets/swagger-ui/swagger-ui-bundle.js");
const CSS: &[u8] = include_bytes!("../../assets/swagger-ui/swagger-ui.css");

/// The page: Swagger UI, started on `/openapi.json` with the instance's own
/// origin as the only server.
const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Logistics Fulfilment Service API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    fetch("/openapi.json")
      .then(function (response) { return response.json(); })
      .then(function (spec) {
        // "Try it out" calls this instance, not the hosts the document names.
        spec.servers = [{ url: window.location.origin, description: "This instance" }];
        window.ui = SwaggerUIBundle({
          spec: spec,
          dom_id: "#swagger-ui",
          deepLinking: true,
          docExpansion: "list",
          validatorUrl: null
        });
      });
  </script>
</body>
</html>
"##;

fn cached(mut response: Response) -> Response {
    response.headers_mut().insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

pub(super) async fn page() -> Response {
    text("text/html; charset=utf-8", PAGE)
}

pub(super) async fn css() -> Response {
    cached(text("text/css; charset=utf-8", CSS))
}

pub(super) async fn script() -> Response {
    cached(text("text/javascript; charset=utf-8", BUNDLE))
}
