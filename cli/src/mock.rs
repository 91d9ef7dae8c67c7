//! `mock --spec DOC [--listen ADDR] [--seed N]`: the document served
//! (`openapi-codegen-mock`); `contract --spec DOC --base-url URL
//! [--header 'NAME: VALUE' …]`: a live API held to the document, each
//! operation's example request sent and its answer checked.

use std::time::Instant;

use http::{HeaderMap, HeaderName, HeaderValue};
use openapi_codegen_mock::Mock;
use openapi_codegen_mock::contract::{Contract, Outcome};

use crate::args::{ContractArgs, MockArgs};
use crate::{Failure, Result, fail};

/// Serves the document until the process is stopped.
pub fn mock(args: &MockArgs) -> Result<()> {
    let file = args.spec.display().to_string();
    let started = Instant::now();
    let mock = Mock::load(&args.spec, &file, args.seed)?;
    let operations = mock.api().operations.len();
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| fail(format!("cannot listen on {}: {e}", args.listen)))?;
        let address = listener
            .local_addr()
            .map_err(|e| fail(format!("cannot listen on {}: {e}", args.listen)))?;
        eprintln!(
            "serving {file} ({operations} operations, seed {}) on http://{address} (read in {} ms)",
            args.seed,
            started.elapsed().as_millis()
        );
        mock.serve(listener)
            .await
            .map_err(|e| fail(format!("serving on {address}: {e}")))
    })
}

/// Checks the API at `--base-url` against the document: exit code 1 when
/// an answer breaks it.
pub fn contract(args: &ContractArgs) -> Result<()> {
    let file = args.spec.display().to_string();
    let mut headers = HeaderMap::new();
    for header in &args.header {
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| fail(format!("--header takes 'NAME: VALUE', not `{header}`")))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|e| fail(format!("--header `{header}`: {e}")))?;
        let value = HeaderValue::from_str(value.trim())
            .map_err(|e| fail(format!("--header `{header}`: {e}")))?;
        headers.append(name, value);
    }
    let contract = Contract::load(&args.spec, &file, &args.base_url, headers)?;
    let lines = runtime()?.block_on(contract.run());
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for line in &lines {
        println!("{line}");
        match line.outcome {
            Outcome::Passed(_) => passed += 1,
            Outcome::Failed(_) => failed += 1,
            Outcome::Skipped(_) => skipped += 1,
        }
    }
    println!(
        "\n{file} against {}: {passed} passed, {failed} failed, {skipped} skipped",
        args.base_url
    );
    if failed > 0 {
        return Err(Failure::drift(format!("{failed} answer(s) break {file}")));
    }
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(format!("cannot start the async runtime: {e}")))
}
