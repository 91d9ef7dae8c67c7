//! `logistics-service`: serves the Logistics Fulfilment Service API, and the
//! operator commands of the warehouse side (tenants, imports, state changes).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use logistics_service::domain::tenancy::Environment;
use logistics_service::ops::healthcheck;
use logistics_service::rate_limit::StoreChoice;
use logistics_service::storage::Store;
use logistics_service::{commands, server};

/// The Logistics Fulfilment Service: a multi-tenant REST API for receiving
/// orders, customers, sales orders and returns.
///
/// Without a command it serves the API. Every setting can also come from the
/// environment variable named beside it.
#[derive(Debug, Parser)]
#[command(name = "logistics-service", version, propagate_version = true)]
struct Cli {
    /// The database: a `postgres://` URL, or a SQLite file
    /// [default: ./data/<environment>.db]
    #[arg(long, env = "DATABASE_URL", global = true, value_name = "URL")]
    database: Option<String>,

    /// The environment this instance serves; each has its own tokens and, by
    /// default, its own database. The operator commands act only on tenants
    /// of this environment.
    #[arg(long, env = "LOGISTICS_ENVIRONMENT", global = true, default_value = "staging", value_parser = parse_environment)]
    environment: Environment,

    /// How logs are written.
    #[arg(
        long,
        env = "LOGISTICS_LOG_FORMAT",
        global = true,
        default_value = "human"
    )]
    log_format: LogFormat,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    /// Lines for people.
    Human,
    /// One JSON object per line, for log collectors.
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API (the default).
    Serve(ServeArgs),
    /// Manage tenants.
    Tenant {
        #[command(subcommand)]
        command: TenantCommand,
    },
    /// Manage a tenant's tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Import warehouse-side data: a JSON array of what a shop's export has
    /// (spec/import.yaml), validated, all or nothing.
    Import {
        #[command(subcommand)]
        command: ImportCommand,
    },
    /// Change a sales order's state.
    SalesOrder {
        #[command(subcommand)]
        command: SalesOrderCommand,
    },
    /// Record a return's progress or tag it.
    Return {
        #[command(subcommand)]
        command: ReturnCommand,
    },
    /// Change a receiving order's state.
    ReceivingOrder {
        #[command(subcommand)]
        command: ReceivingOrderCommand,
    },
    /// Serve a mock of the API for integrators' tests: the document's
    /// examples (Prism's `Prefer: code=…, example=…, dynamic=true` choose),
    /// requests checked as the service checks them; no database.
    Mock {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:4010")]
        listen: SocketAddr,
        /// The seed of the data made up where the document has no example.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Ask a running instance whether it is healthy: exits 0 when its
    /// `/healthz` (or `--ready`: `/readyz`) answers 200 within 3 seconds. The
    /// container image's health check.
    Healthcheck {
        /// The instance's address [default: LOGISTICS_LISTEN, or
        /// 127.0.0.1:8080; an unspecified address means the loopback one].
        #[arg(long, env = "LOGISTICS_LISTEN", default_value = "127.0.0.1:8080")]
        address: SocketAddr,
        /// Ask `/readyz` (the database answers) instead of `/healthz`.
        #[arg(long)]
        ready: bool,
    },
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, env = "LOGISTICS_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,

    /// Requests per minute per token, over a sliding window; 0 turns the limit off.
    #[arg(long, env = "LOGISTICS_RATE_LIMIT", default_value_t = 250)]
    rate_limit: u32,

    /// Where the rate limit keeps its windows: `memory` (each instance its
    /// own), `database` (the PostgreSQL database, shared by every instance on
    /// it) or `redis://HOST:PORT` (shared by every instance using it)
    /// [default: database on PostgreSQL, memory on SQLite].
    #[arg(long, env = "LOGISTICS_RATE_LIMIT_STORE", value_name = "STORE")]
    rate_limit_store: Option<StoreChoice>,

    /// What every key of a shared rate-limit store starts with (to share one
    /// Redis server between deployments).
    #[arg(long, env = "LOGISTICS_RATE_LIMIT_PREFIX", default_value = "lfs:rate:")]
    rate_limit_prefix: String,

    /// Serve `/metrics` on this address instead of the API's (for example
    /// 127.0.0.1:9090, to keep it off the public port).
    #[arg(long, env = "LOGISTICS_METRICS_LISTEN", value_name = "ADDR")]
    metrics_listen: Option<SocketAddr>,

    /// Seconds a request may take before it is abandoned and answered 503
    /// `Timeout`; 0: no deadline.
    #[arg(
        long,
        env = "LOGISTICS_REQUEST_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = 25
    )]
    request_timeout: u64,

    /// The largest request body, in bytes.
    #[arg(long, env = "LOGISTICS_BODY_LIMIT", default_value_t = 16 * 1024 * 1024)]
    body_limit: usize,

    /// Database connections [default: 16 on PostgreSQL, half of them for
    /// reads by key; on SQLite two per CPU, at least 2 and at most 16].
    #[arg(long, env = "LOGISTICS_MAX_CONNECTIONS")]
    max_connections: Option<u32>,

    #[command(flatten)]
    connections: logistics_service::http_server::ConnectionSettings,
}

#[derive(Debug, Subcommand)]
enum TenantCommand {
    /// Create a tenant and its token; prints `{"tenantId": …, "token": …}`
    /// (the token is shown this once).
    Create {
        /// The tenant's name.
        name: String,
        /// Let the token act on behalf of other tenants (X-Tenant-Id).
        #[arg(long)]
        emulation: bool,
    },
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Give a tenant of this environment another token; prints
    /// `{"tenantId": …, "token": …}` (the token is shown this once). Its other
    /// tokens keep working. Tokens are stored hashed: this is the way to a
    /// token when one is lost.
    Create {
        /// The tenant the token is for.
        #[arg(long)]
        tenant: uuid::Uuid,
        /// Let the token act on behalf of other tenants (X-Tenant-Id).
        #[arg(long)]
        emulation: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ImportCommand {
    /// Import sales orders; each customer is matched by email or created, and
    /// the order's addresses are added to it.
    SalesOrders {
        /// A JSON file: an array of ShopSalesOrder (spec/import.yaml), or of
        /// SalesOrder (items with an `id`).
        file: PathBuf,
        /// The tenant the orders belong to.
        #[arg(long)]
        tenant: uuid::Uuid,
    },
    /// Import returns (each may carry a tag).
    Returns {
        /// A JSON file: an array of ShopReturn (spec/import.yaml), each with
        /// an optional `tag`.
        file: PathBuf,
        /// The tenant the returns belong to.
        #[arg(long)]
        tenant: uuid::Uuid,
    },
}

#[derive(Debug, Subcommand)]
enum SalesOrderCommand {
    /// Move a sales order to STATE (Picked, Packed, ReadyToBeShipped, Shipped,
    /// Delivered, Cancelled), setting its timestamps.
    Advance {
        /// The sales order's reference number.
        reference: String,
        /// The state to move to.
        state: String,
        /// The tenant the order belongs to.
        #[arg(long)]
        tenant: uuid::Uuid,
    },
}

#[derive(Debug, Subcommand)]
enum ReturnCommand {
    /// Record that a return arrived at the warehouse, or was completed.
    Advance {
        /// The return's reference number.
        reference: String,
        /// What happened.
        step: ReturnStepArg,
        /// The tenant the return belongs to.
        #[arg(long)]
        tenant: uuid::Uuid,
    },
    /// Set a return's tag (free text, at most 256 characters).
    Tag {
        /// The return's reference number.
        reference: String,
        /// The tag.
        tag: String,
        /// The tenant the return belongs to.
        #[arg(long)]
        tenant: uuid::Uuid,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReturnStepArg {
    /// The return arrived at the warehouse.
    Arrived,
    /// The return was completed.
    Completed,
}

#[derive(Debug, Subcommand)]
enum ReceivingOrderCommand {
    /// Move a receiving order to STATE (ArrivedToWarehouse, Completed, Cancelled).
    Advance {
        /// The receiving order's reference number.
        reference: String,
        /// The state to move to.
        state: String,
        /// The tenant the order belongs to.
        #[arg(long)]
        tenant: uuid::Uuid,
    },
}

fn parse_environment(text: &str) -> Result<Environment, String> {
    text.parse()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    let database = cli
        .database
        .unwrap_or_else(|| format!("./data/{}.db", cli.environment));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let environment = cli.environment;
    let result = runtime.block_on(async move {
        match cli
            .command
            .unwrap_or(Command::Serve(ServeArgs::defaults_from_env()))
        {
            Command::Serve(args) => {
                let max_connections = args
                    .max_connections
                    .unwrap_or_else(|| Store::default_max_connections(&database));
                let settings = server::Settings {
                    database,
                    environment,
                    listen: args.listen,
                    rate_limit: args.rate_limit,
                    rate_limit_store: args.rate_limit_store,
                    rate_limit_prefix: args.rate_limit_prefix,
                    body_limit: args.body_limit,
                    max_connections,
                    metrics_listen: args.metrics_listen,
                    request_timeout: Duration::from_secs(args.request_timeout),
                    connections: args.connections,
                };
                server::run(settings).await
            }
            Command::Tenant {
                command: TenantCommand::Create { name, emulation },
            } => commands::create_tenant(&database, environment, &name, emulation).await,
            Command::Token {
                command: TokenCommand::Create { tenant, emulation },
            } => commands::create_token(&database, environment, tenant, emulation).await,
            Command::Import {
                command: ImportCommand::SalesOrders { file, tenant },
            } => commands::import_sales_orders(&database, environment, tenant, &file).await,
            Command::Import {
                command: ImportCommand::Returns { file, tenant },
            } => commands::import_returns(&database, environment, tenant, &file).await,
            Command::SalesOrder {
                command:
                    SalesOrderCommand::Advance {
                        reference,
                        state,
                        tenant,
                    },
            } => {
                commands::advance_sales_order(&database, environment, tenant, &reference, &state)
                    .await
            }
            Command::Return {
                command:
                    ReturnCommand::Advance {
                        reference,
                        step,
                        tenant,
                    },
            } => {
                let step = match step {
                    ReturnStepArg::Arrived => {
                        logistics_service::domain::returns::ReturnStep::Arrived
                    }
                    ReturnStepArg::Completed => {
                        logistics_service::domain::returns::ReturnStep::Completed
                    }
                };
                commands::advance_return(&database, environment, tenant, &reference, step).await
            }
            Command::Return {
                command:
                    ReturnCommand::Tag {
                        reference,
                        tag,
                        tenant,
                    },
            } => commands::tag_return(&database, environment, tenant, &reference, &tag).await,
            Command::ReceivingOrder {
                command:
                    ReceivingOrderCommand::Advance {
                        reference,
                        state,
                        tenant,
                    },
            } => {
                commands::advance_receiving_order(
                    &database,
                    environment,
                    tenant,
                    &reference,
                    &state,
                )
                .await
            }
            Command::Mock { listen, seed } => commands::mock(listen, seed).await,
            Command::Healthcheck { address, ready } => {
                let path = if ready { "/readyz" } else { "/healthz" };
                healthcheck::check(healthcheck::local(address), path).await
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

impl ServeArgs {
    /// The serve settings when no command is given: from the environment
    /// variables, or the defaults.
    fn defaults_from_env() -> ServeArgs {
        #[derive(Parser)]
        struct Only {
            #[command(flatten)]
            serve: ServeArgs,
        }
        Only::parse_from(["logistics-service"]).serve
    }
}

fn init_logging(format: LogFormat) {
    logistics_service::ops::trace::init_logging(format == LogFormat::Json);
}
