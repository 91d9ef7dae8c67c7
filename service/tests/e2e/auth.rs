//! Tokens, environments and X-Tenant-Id (D15–D17).

use logistics_client::reqwest::{Method, StatusCode};
use logistics_service::domain::tenancy::Environment;

use crate::harness::*;

on_both_backends! {
    async fn tokens_are_checked_and_bound_to_their_environment(service) {
        let a = service.tenant("A").await;
        let body = a.token.strip_prefix("lfs_stg_").expect("a staging token has the staging prefix");
        assert_eq!(body.len(), 43, "43 characters after the prefix (D16): {}", a.token);
        assert!(body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "URL-safe: {}", a.token);
        a.client.create_customer(&customer("a@example.com")).await.unwrap();

        let get = |authorization: Option<String>| {
            let request = service.raw(Method::GET, "/openapi/v1/Customers/1");
            let request = match authorization {
                Some(value) => request.header("authorization", value),
                None => request,
            };
            async move { json_of(request.send().await.unwrap()).await }
        };
        // Every accepted spelling (D15).
        for header in [format!("Bearer {}", a.token), format!("bearer  {}", a.token), a.token.clone()] {
            let (status, body) = get(Some(header.clone())).await;
            assert_eq!(status, 200, "{header:?}: {body}");
        }
        // Refused: none, another scheme, an unknown token of the right shape,
        // the right key with a wrong secret, a token of the wrong length.
        let unknown = format!("lfs_stg_{}", "A".repeat(43));
        let mut wrong_secret = a.token.clone();
        let last = wrong_secret.pop().unwrap();
        wrong_secret.push(if last == 'A' { 'B' } else { 'A' });
        for header in [
            None,
            Some(format!("Basic {}", a.token)),
            Some(format!("Bearer {unknown}")),
            Some(format!("Bearer {wrong_secret}")),
            Some(format!("Bearer {}x", a.token)),
            Some("Bearer".to_owned()),
        ] {
            let (status, body) = get(header.clone()).await;
            assert_eq!(status, 401, "{header:?}: {body}");
            assert_eq!(body["error"]["code"], 401);
            assert!(body["requestId"].is_string() && body["timestamp"].is_string(), "{body}");
            assert_eq!(codes_of(&body), [("Authorization".to_owned(), "InvalidCredential".to_owned())], "{header:?}");
        }
        let error = refused(service.client(&unknown).get_customer(1).await);
        assert_eq!(error.status(), StatusCode::UNAUTHORIZED);

        // A token of the other environment is refused, saying so (D16): a real
        // production token, and anything that looks like one.
        let production = service.tenant_with("P", Environment::Production, false).await;
        assert!(production.token.starts_with("lfs_prd_") && production.token.len() == 8 + 43);
        for token in [production.token.clone(), format!("lfs_prd_{}", "x".repeat(43))] {
            let error = refused(service.client(&token).get_customer(1).await);
            assert_eq!(error.status(), StatusCode::UNAUTHORIZED);
            let said = format!("{} {:?}", error.message().unwrap_or_default(), error.problems());
            assert!(said.contains("production") && said.contains("staging"), "the message names the environments: {said}");
        }
        // A refused request changes nothing.
        let error = refused(service.client(&wrong_secret).create_customer(&customer("b@example.com")).await);
        assert_eq!(error.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(service.count_rows("customers", a.id).await, 1);
    }

    async fn the_tenant_header_follows_the_emulation_rules(service) {
        let a = service.tenant("A").await;
        let b = service.tenant("B").await;
        let operator = service.emulating_tenant("Operator").await;

        // Absent, empty or the token's own tenant: the token's tenant.
        assert_eq!(a.client.with_tenant_id(a.id.to_string()).create_customer(&customer("a1@example.com")).await.unwrap().customer_no, 1);
        assert_eq!(a.client.with_tenant_id(a.id.to_string().to_uppercase()).get_customer(1).await.unwrap().email, "a1@example.com");
        let response = service.raw(Method::GET, "/openapi/v1/Customers/1").bearer_auth(&a.token).header("x-tenant-id", "").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);

        // Another tenant without the emulation right: 403, and nothing happens.
        for tenant in [b.id.to_string(), uuid::Uuid::new_v4().to_string(), "not-a-tenant".to_owned()] {
            let error = refused(a.client.with_tenant_id(tenant.clone()).create_customer(&customer("x@example.com")).await);
            assert_eq!(error.status(), StatusCode::FORBIDDEN, "{tenant}");
            assert_eq!(problems(&error), [("X-Tenant-Id".to_owned(), "Forbidden".to_owned())]);
        }
        assert_eq!(service.count_rows("customers", b.id).await, 0);

        // With the right: acts on the named tenant, and only there.
        let as_b = operator.client.with_tenant_id(b.id.to_string());
        let created = as_b.create_customer(&customer("made-by-operator@example.com")).await.unwrap();
        assert_eq!(created.customer_no, 1);
        assert_eq!(b.client.get_customer(1).await.unwrap().email, "made-by-operator@example.com");
        assert_eq!(as_b.get_customer(1).await.unwrap().id, created.id);
        assert_eq!(service.count_rows("customers", operator.id).await, 0);
        assert_eq!(refused(operator.client.get_customer(1).await).status(), StatusCode::NOT_FOUND);
        // …but not on a tenant that does not exist.
        for tenant in [uuid::Uuid::new_v4().to_string(), "not-a-tenant".to_owned()] {
            let error = refused(operator.client.with_tenant_id(tenant).get_customer(1).await);
            assert_eq!(error.status(), StatusCode::FORBIDDEN);
        }
    }
}
