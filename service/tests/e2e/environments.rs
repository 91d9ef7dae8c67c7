//! One database serving both environments: a tenant belongs to the
//! environment it was created in, and neither emulation nor a token crosses
//! to a tenant of the other (decision D35; issue 18, defect 6).

use std::time::Duration;

use logistics_client::reqwest::{Method, StatusCode};
use logistics_client::{Client, RetryPolicy};
use logistics_service::domain::tenancy::{Environment, NewToken};
use logistics_service::domain::{TenantRepository, tenants};
use logistics_service::server::{self, Settings};
use logistics_service::storage::Store;

use crate::harness::*;

const BINARY: &str = env!("CARGO_BIN_EXE_logistics-service");

/// `logistics-service tenant create NAME --emulation --environment ENV`, as
/// an operator runs it on `database`: the tenant's id and token.
async fn tenant_create(database: &str, name: &str, environment: &str) -> (uuid::Uuid, String) {
    let args = [
        "tenant",
        "create",
        name,
        "--emulation",
        "--environment",
        environment,
        "--database",
        database,
    ]
    .map(str::to_owned);
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(BINARY)
            .args(args)
            .env_remove("DATABASE_URL")
            .env_remove("LOGISTICS_ENVIRONMENT")
            .output()
    })
    .await
    .expect("the command's thread")
    .expect("the binary runs");
    assert!(
        output.status.success(),
        "tenant create failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("tenant create prints JSON");
    let id = printed["tenantId"].as_str().expect("a tenant id").parse();
    let token = printed["token"].as_str().expect("a token").to_owned();
    (id.expect("a UUID"), token)
}

fn client(address: std::net::SocketAddr, token: &str) -> Client {
    Client::builder()
        .base_url(format!("http://{address}"))
        .retry_policy(RetryPolicy::none())
        .timeout(Duration::from_secs(30))
        .token(token)
        .build()
        .expect("a client")
}

/// Stores a token of `environment` for `tenant` by hand, as a hand-edited
/// or migrated database might hold one (the service never makes a token of
/// another environment than its tenant's); returns the token.
async fn stored_token(
    service: &TestService,
    tenant: uuid::Uuid,
    environment: Environment,
) -> String {
    let token = NewToken::generate(environment).expect("a token");
    let sql = "INSERT INTO tokens (key_id, tenant_id, environment, secret_hash, emulation, created_at) \
               VALUES ($1, $2, $3, $4, $5, 0)";
    let url = service.database_url();
    match service.backend {
        Backend::Sqlite => {
            let mut c =
                <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!("sqlite://{url}"))
                    .await
                    .expect("the test database opens");
            sqlx::query(sql)
                .bind(&token.key_id)
                .bind(tenant)
                .bind(environment.as_str())
                .bind(&token.secret_hash[..])
                .bind(true)
                .execute(&mut c)
                .await
                .expect("the token is stored");
        }
        Backend::Postgres => {
            let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(url)
                .await
                .expect("the test database opens");
            sqlx::query(sql)
                .bind(&token.key_id)
                .bind(tenant)
                .bind(environment.as_str())
                .bind(&token.secret_hash[..])
                .bind(true)
                .execute(&mut c)
                .await
                .expect("the token is stored");
        }
    }
    token.token
}

/// `GET /Customers/1` on `address` with `token`, as `tenant` when given:
/// the status and the body.
async fn read_customer(
    address: std::net::SocketAddr,
    token: &str,
    tenant: Option<uuid::Uuid>,
) -> (u16, serde_json::Value) {
    static HTTP: std::sync::OnceLock<logistics_client::reqwest::Client> =
        std::sync::OnceLock::new();
    let mut request = HTTP
        .get_or_init(logistics_client::reqwest::Client::new)
        .request(
            Method::GET,
            format!("http://{address}/openapi/v1/Customers/1"),
        )
        .timeout(Duration::from_secs(30))
        .bearer_auth(token);
    if let Some(tenant) = tenant {
        request = request.header("x-tenant-id", tenant.to_string());
    }
    json_of(request.send().await.expect("an answer")).await
}

on_both_backends! {
    async fn neither_emulation_nor_a_token_crosses_environments(service) {
        // The harness's instance serves staging; a production instance
        // shares its database, as in the issue.
        let production = server::start(&Settings {
            database: service.database_url().to_owned(),
            environment: Environment::Production,
            listen: "127.0.0.1:0".parse().expect("an address"),
            max_connections: 4,
            ..Settings::default()
        })
        .await
        .expect("a production instance starts on the same database");
        let (staging_at, production_at) = (service.address, production.address);

        // Tenants as the operator makes them, each with a customer.
        let (ops_production, ops_production_token) =
            tenant_create(service.database_url(), "Ops", "production").await;
        let (ops_staging, ops_staging_token) =
            tenant_create(service.database_url(), "Ops staging", "staging").await;
        let shop_staging = service.tenant("Shop").await;
        let shop_production = tenants::create(service.store(), "Shop", Environment::Production, false)
            .await
            .expect("a production tenant");
        shop_staging.client.create_customer(&customer("staging@example.com")).await.unwrap();
        client(production_at, &shop_production.token)
            .create_customer(&customer("production@example.com"))
            .await
            .unwrap();

        // Within its environment, an emulation token reaches every tenant.
        let (status, body) = read_customer(staging_at, &ops_staging_token, Some(shop_staging.id)).await;
        assert_eq!((status, body["email"].as_str()), (200, Some("staging@example.com")), "{body}");
        let (status, body) = read_customer(production_at, &ops_production_token, Some(shop_production.tenant_id)).await;
        assert_eq!((status, body["email"].as_str()), (200, Some("production@example.com")), "{body}");

        // Across, in both directions: 403 as for an unknown tenant, for
        // reads and writes, and nothing is read or written.
        for (at, token, other) in [
            (production_at, &ops_production_token, shop_staging.id),
            (staging_at, &ops_staging_token, shop_production.tenant_id),
        ] {
            let (status, body) = read_customer(at, token, Some(other)).await;
            assert_eq!(status, 403, "{body}");
            assert_eq!(codes_of(&body), [("X-Tenant-Id".to_owned(), "Forbidden".to_owned())], "{body}");
            assert!(!body.to_string().contains("@example.com"), "{body}");
            let as_other = client(at, token).with_tenant_id(other.to_string());
            let refusal = refused(as_other.create_customer(&customer("intruder@example.com")).await);
            assert_eq!(refusal.status(), StatusCode::FORBIDDEN);
            assert_eq!(service.count_rows("customers", other).await, 1, "nothing written");
        }
        // The emulating tenants' own ids are of their environment too.
        for (at, token, other) in [
            (production_at, &ops_production_token, ops_staging),
            (staging_at, &ops_staging_token, ops_production),
        ] {
            assert_eq!(read_customer(at, token, Some(other)).await.0, 403);
        }

        // A token of the service's environment whose tenant is of the other
        // does not authenticate (401), with or without X-Tenant-Id.
        let staging_token_of_production = stored_token(service, shop_production.tenant_id, Environment::Staging).await;
        let production_token_of_staging = stored_token(service, shop_staging.id, Environment::Production).await;
        for (at, token, tenant) in [
            (staging_at, &staging_token_of_production, shop_production.tenant_id),
            (production_at, &production_token_of_staging, shop_staging.id),
        ] {
            for named in [None, Some(tenant)] {
                let (status, body) = read_customer(at, token, named).await;
                assert_eq!(status, 401, "{body}");
                assert_eq!(codes_of(&body), [("Authorization".to_owned(), "InvalidCredential".to_owned())], "{body}");
            }
        }

        production.stop().await.expect("the production instance stops");
    }
}

/// Runs `$body` with `$c`, a connection to `$database` of `$backend`, and
/// `$migrator`, that backend's migrations.
macro_rules! with_connection {
    ($backend:expr, $database:expr, |$c:ident, $migrator:ident| $body:expr) => {
        match $backend {
            Backend::Sqlite => {
                let options = sqlx::sqlite::SqliteConnectOptions::new()
                    .filename(&$database.url)
                    .create_if_missing(true);
                let mut $c = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
                    .await
                    .expect("the test database opens");
                let $migrator = sqlx::migrate!("./migrations/sqlite");
                $body
            }
            Backend::Postgres => {
                let mut $c = <sqlx::PgConnection as sqlx::Connection>::connect(&$database.url)
                    .await
                    .expect("the test database opens");
                let $migrator = sqlx::migrate!("./migrations/postgres");
                $body
            }
        }
    };
}

/// Migration 0004 on a database of tenants made before it: each takes the
/// environment of its tokens; one whose environment cannot be told that way
/// (which the service never made) is put in none, and nothing reaches it.
async fn existing_tenants_take_their_tokens_environment(backend: Backend) {
    let Some(database) = TestDatabase::create(backend).await else {
        return;
    };
    let tenants: [(uuid::Uuid, &[&str], Option<Environment>); 5] = [
        (
            uuid::Uuid::new_v4(),
            &["staging"],
            Some(Environment::Staging),
        ),
        (
            uuid::Uuid::new_v4(),
            &["production", "production"],
            Some(Environment::Production),
        ),
        (uuid::Uuid::new_v4(), &["staging", "production"], None),
        (uuid::Uuid::new_v4(), &[], None),
        (uuid::Uuid::new_v4(), &["test"], None),
    ];
    with_connection!(backend, database, |c, migrator| {
        let mut before = migrator;
        before.migrations = before
            .migrations
            .iter()
            .filter(|m| m.version < 4)
            .cloned()
            .collect::<Vec<_>>()
            .into();
        before
            .run(&mut c)
            .await
            .expect("the migrations before 0004");
        for (n, (tenant, environments, _)) in tenants.iter().enumerate() {
            sqlx::query("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, 0)")
                .bind(tenant)
                .bind(format!("Tenant {n}"))
                .execute(&mut c)
                .await
                .expect("a tenant");
            for (k, environment) in environments.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO tokens (key_id, tenant_id, environment, secret_hash, emulation, created_at) \
                     VALUES ($1, $2, $3, $4, $5, 0)",
                )
                .bind(format!("key{n}x{k}"))
                .bind(tenant)
                .bind(*environment)
                .bind(&[0u8; 32][..])
                .bind(false)
                .execute(&mut c)
                .await
                .expect("a token");
            }
        }
    });
    let store = Store::open(&database.url, 2).await.expect("0004 applies");
    for (tenant, environments, expected) in &tenants {
        assert_eq!(
            store.tenant_environment(*tenant).await.unwrap(),
            *expected,
            "a tenant with tokens of {environments:?}"
        );
    }
    let token = store
        .find_token("key0x0")
        .await
        .unwrap()
        .expect("the token");
    assert!(token.serves(Environment::Staging));
    let token = store
        .find_token("key2x0")
        .await
        .unwrap()
        .expect("the token");
    assert!(
        !token.serves(Environment::Staging),
        "its tenant is in no environment"
    );
    assert!(store.has_tenants().await.unwrap());
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_existing_tenants_take_their_tokens_environment() {
    existing_tenants_take_their_tokens_environment(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_existing_tenants_take_their_tokens_environment() {
    existing_tenants_take_their_tokens_environment(Backend::Postgres).await;
}
