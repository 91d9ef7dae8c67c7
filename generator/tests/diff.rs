//! The classifier of `openapi_codegen::diff` on small documents: each edit
//! is listed at its JSON pointer and judged as ARCHITECTURE.md ("How the
//! generated API evolves") says, on the wire and for Rust code.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

mod vendored;

use openapi_codegen::diff::{Change, Crates, Report, Verdict, compare};
use openapi_codegen::parse::Document;

use Verdict::{Breaking, Compatible};

/// A document with a request type (`CustomerInput`, with the request-only
/// enum `Tier`) and a response type (`Customer`, with the response-only
/// enum `State`).
const BASE: &str = r##"openapi: 3.0.3
info: {title: Shop, version: '1'}
paths:
  /customers:
    post:
      operationId: createCustomer
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/CustomerInput'}
      responses:
        '201':
          description: Created.
          headers:
            Location: {schema: {type: string}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Customer'}
  /customers/{id}:
    get:
      operationId: getCustomer
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer, format: int64}}
        - {name: expand, in: query, schema: {type: string}}
      responses:
        '200':
          description: The customer.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Customer'}
components:
  schemas:
    CustomerInput:
      type: object
      required: [email]
      properties:
        email: {type: string, maxLength: 256}
        tier: {$ref: '#/components/schemas/Tier'}
    Customer:
      description: A customer.
      type: object
      required: [id, email, state]
      properties:
        id: {type: integer, format: int64}
        email: {type: string}
        nickname: {type: string}
        state: {$ref: '#/components/schemas/State'}
    Tier: {type: string, enum: [gold, silver]}
    State: {type: string, enum: [active, blocked]}
"##;

fn doc(text: &str) -> Document {
    Document::parse(text, "shop.yaml", false).expect("a valid document")
}

/// The base document with `from` replaced by `to` (which must occur).
fn edited(edits: &[(&str, &str)]) -> String {
    edited_from(BASE, edits)
}

/// `base` with `from` replaced by `to` (which must occur).
fn edited_from(base: &str, edits: &[(&str, &str)]) -> String {
    let mut text = base.to_owned();
    for (from, to) in edits {
        assert!(text.contains(from), "the base has {from:?}");
        text = text.replacen(from, to, 1);
    }
    text
}

fn diff_with(edits: &[(&str, &str)], crates: Crates) -> Report {
    compare(&doc(BASE), &doc(&edited(edits)), crates)
}

fn diff(edits: &[(&str, &str)]) -> Report {
    diff_with(edits, Crates::ALL)
}

/// The one change at `pointer`, with its verdicts.
fn at<'a>(report: &'a Report, pointer: &str) -> &'a Change {
    let found: Vec<&Change> = report
        .changes
        .iter()
        .filter(|c| c.pointer.to_string() == pointer)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one change at {pointer}; the report:\n{}",
        report.render("base")
    );
    found[0]
}

fn verdicts(change: &Change) -> (Verdict, Verdict) {
    (change.wire.verdict, change.rust.verdict)
}

#[test]
fn the_same_document_has_no_change_and_text_edits_are_not_changes() {
    let report = diff(&[]);
    assert!(report.changes.is_empty());
    assert!(!report.other_differences);

    let report = diff(&[("description: A customer.", "description: Someone who buys.")]);
    assert!(report.changes.is_empty(), "{}", report.render("base"));
    assert!(report.other_differences);
    assert!(report.render("base").contains("no change of the interface"));
}

#[test]
fn an_optional_request_property_is_compatible_for_both() {
    let report = diff(&[(
        "        tier: {$ref: '#/components/schemas/Tier'}\n",
        "        tier: {$ref: '#/components/schemas/Tier'}\n        loyaltyTier: {type: string}\n",
    )]);
    assert_eq!(report.changes.len(), 1);
    let change = at(
        &report,
        "#/components/schemas/CustomerInput/properties/loyaltyTier",
    );
    assert_eq!(verdicts(change), (Compatible, Compatible));
    assert!(
        change
            .what
            .contains("optional property `CustomerInput.loyaltyTier` added")
    );
    assert!(!report.is_breaking());
}

#[test]
fn a_required_request_property_breaks_both() {
    let report = diff(&[
        (
            "      required: [email]\n",
            "      required: [email, phone]\n",
        ),
        (
            "        email: {type: string, maxLength: 256}\n",
            "        email: {type: string, maxLength: 256}\n        phone: {type: string}\n",
        ),
    ]);
    let change = at(
        &report,
        "#/components/schemas/CustomerInput/properties/phone",
    );
    assert_eq!(verdicts(change), (Breaking, Breaking));
    assert!(report.is_breaking());
}

#[test]
fn response_properties_added_are_compatible_removed_break() {
    let report = diff(&[(
        "        nickname: {type: string}\n",
        "        nickname: {type: string}\n        since: {type: string, format: date-time}\n",
    )]);
    let change = at(&report, "#/components/schemas/Customer/properties/since");
    assert_eq!(verdicts(change), (Compatible, Compatible));

    let report = diff(&[("        nickname: {type: string}\n", "")]);
    let change = at(&report, "#/components/schemas/Customer/properties/nickname");
    assert_eq!(verdicts(change), (Breaking, Breaking));
    assert!(change.what.contains("removed"), "{}", change.what);
}

#[test]
fn an_enum_value_the_server_sends_breaks_strict_clients_but_not_rust() {
    let report = diff(&[(
        "enum: [active, blocked]",
        "enum: [active, blocked, archived]",
    )]);
    let change = at(&report, "#/components/schemas/State/enum/2");
    assert_eq!(verdicts(change), (Breaking, Compatible));
    assert!(change.what.contains("`archived`"));

    // A value only requests use: the server accepts more.
    let report = diff(&[("enum: [gold, silver]", "enum: [gold, silver, bronze]")]);
    assert_eq!(
        verdicts(at(&report, "#/components/schemas/Tier/enum/2")),
        (Compatible, Compatible)
    );

    // Removing one breaks requests that send it, and its variant.
    let report = diff(&[("enum: [gold, silver]", "enum: [gold]")]);
    assert_eq!(
        verdicts(at(&report, "#/components/schemas/Tier/enum/1")),
        (Breaking, Breaking)
    );
}

#[test]
fn type_format_and_nullable_changes() {
    let report = diff(&[(
        "        id: {type: integer, format: int64}\n",
        "        id: {type: string}\n",
    )]);
    let change = at(&report, "#/components/schemas/Customer/properties/id");
    assert_eq!(verdicts(change), (Breaking, Breaking));
    assert!(
        change.what.contains("from integer to string"),
        "{}",
        change.what
    );

    // A format that changes the Rust type breaks Rust code.
    let report = diff(&[(
        "        id: {type: integer, format: int64}\n",
        "        id: {type: integer, format: int32}\n",
    )]);
    let change = at(&report, "#/components/schemas/Customer/properties/id");
    assert_eq!(change.rust.verdict, Breaking);
    assert!(
        change.rust.reason.contains("`i64` to `i32`"),
        "{}",
        change.rust.reason
    );

    // A required response property that may now be null: clients may get
    // null, and the field becomes an Option.
    let report = diff(&[(
        "        email: {type: string}\n",
        "        email: {type: string, nullable: true}\n",
    )]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/components/schemas/Customer/properties/email"
        )),
        (Breaking, Breaking)
    );
    // An optional one is an Option already.
    let report = diff(&[(
        "        nickname: {type: string}\n",
        "        nickname: {type: string, nullable: true}\n",
    )]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/components/schemas/Customer/properties/nickname"
        )),
        (Breaking, Compatible)
    );
}

#[test]
fn required_changes_depend_on_the_direction() {
    // Optional → required in a response: the server always sends it.
    let report = diff(&[(
        "      required: [id, email, state]\n",
        "      required: [id, email, state, nickname]\n",
    )]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/components/schemas/Customer/properties/nickname"
        )),
        (Compatible, Breaking)
    );
    // Required → optional in a request: clients may leave it out.
    let report = diff(&[("      required: [email]\n", "      required: []\n")]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/components/schemas/CustomerInput/properties/email"
        )),
        (Compatible, Breaking)
    );
}

#[test]
fn read_only_and_write_only_count_where_they_relax_required() {
    // `readOnly` on a required property of a request type: requests need
    // not send it, so its field becomes an `Option`.
    let report = diff(&[(
        "email: {type: string, maxLength: 256}",
        "email: {type: string, maxLength: 256, readOnly: true}",
    )]);
    let change = at(
        &report,
        "#/components/schemas/CustomerInput/properties/email",
    );
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(change.what.contains("now optional"), "{}", change.what);
    // `writeOnly` there changes nothing: requests still send it.
    let report = diff(&[(
        "email: {type: string, maxLength: 256}",
        "email: {type: string, maxLength: 256, writeOnly: true}",
    )]);
    assert!(report.changes.is_empty(), "{}", report.render("base"));
    // A required read-only property added to a request type is an optional
    // field: old clients need not send it, and `new` is unchanged.
    let report = diff(&[
        (
            "      required: [email]\n",
            "      required: [email, code]\n",
        ),
        (
            "        tier: {$ref: '#/components/schemas/Tier'}\n",
            "        tier: {$ref: '#/components/schemas/Tier'}\n        code: {type: string, readOnly: true}\n",
        ),
    ]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/components/schemas/CustomerInput/properties/code"
        )),
        (Compatible, Compatible)
    );
}

#[test]
fn a_variant_renamed_by_an_extension_breaks_rust_only() {
    // Names that give the variants they already had change nothing.
    let report = diff(&[(
        "Tier: {type: string, enum: [gold, silver]}",
        "Tier: {type: string, enum: [gold, silver], x-enum-varnames: [Gold, Silver]}",
    )]);
    assert!(report.changes.is_empty(), "{}", report.render("base"));
    let report = diff(&[(
        "Tier: {type: string, enum: [gold, silver]}",
        "Tier: {type: string, enum: [gold, silver], x-enum-varnames: [Premium, Silver]}",
    )]);
    let change = at(&report, "#/components/schemas/Tier/enum/0");
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(
        change.what.contains("from `Gold` to `Premium`"),
        "{}",
        change.what
    );
}

#[test]
fn constraints_tightened_in_a_request_break_the_wire_only() {
    let report = diff(&[(
        "{type: string, maxLength: 256}",
        "{type: string, maxLength: 128}",
    )]);
    let change = at(
        &report,
        "#/components/schemas/CustomerInput/properties/email/maxLength",
    );
    assert_eq!(verdicts(change), (Breaking, Compatible));
    let report = diff(&[(
        "{type: string, maxLength: 256}",
        "{type: string, maxLength: 512}",
    )]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/components/schemas/CustomerInput/properties/email/maxLength"
        )),
        (Compatible, Compatible)
    );
}

#[test]
fn operations_and_parameters() {
    let new_operation = (
        "components:\n",
        "  /customers/{id}/block:\n    post:\n      operationId: blockCustomer\n      responses:\n        '204': {description: Blocked.}\ncomponents:\n",
    );
    let pointer = "#/paths/~1customers~1{id}~1block/post";
    // The client gains a method; the server trait a required one.
    let report = diff(&[new_operation]);
    assert_eq!(verdicts(at(&report, pointer)), (Compatible, Breaking));
    let report = diff_with(
        &[new_operation],
        Crates {
            client: true,
            server: false,
        },
    );
    assert_eq!(verdicts(at(&report, pointer)), (Compatible, Compatible));

    let report = diff(&[(
        "        - {name: expand, in: query, schema: {type: string}}\n",
        "        - {name: expand, in: query, schema: {type: string}}\n        - {name: fields, in: query, schema: {type: string}}\n",
    )]);
    assert_eq!(
        verdicts(at(&report, "#/paths/~1customers~1{id}/get/parameters/2")),
        (Compatible, Compatible)
    );
    let report = diff(&[(
        "{name: expand, in: query, schema",
        "{name: expand, in: query, required: true, schema",
    )]);
    assert_eq!(
        verdicts(at(&report, "#/paths/~1customers~1{id}/get/parameters/1")),
        (Breaking, Breaking)
    );

    let report = diff(&[(
        "      operationId: getCustomer\n",
        "      operationId: fetchCustomer\n",
    )]);
    assert_eq!(
        verdicts(at(&report, "#/paths/~1customers~1{id}/get/operationId")),
        (Compatible, Breaking)
    );

    // A response header: clients ignore it; the server's variant gains a field.
    let report = diff(&[(
        "            Location: {schema: {type: string}}\n",
        "            Location: {schema: {type: string}}\n            X-Trace: {schema: {type: string}}\n",
    )]);
    assert_eq!(
        verdicts(at(
            &report,
            "#/paths/~1customers/post/responses/201/headers/X-Trace"
        )),
        (Compatible, Breaking)
    );
}

#[test]
fn the_first_optional_input_of_an_operation_adds_its_params_argument() {
    // `createCustomer` has no optional input: its client method has no
    // `params` argument, and its first optional parameter adds one.
    let first = (
        "      operationId: createCustomer\n",
        "      operationId: createCustomer\n      parameters:\n        - {name: dryRun, in: query, schema: {type: boolean}}\n",
    );
    let pointer = "#/paths/~1customers/post/parameters/0";
    let report = diff(&[first]);
    let change = at(&report, pointer);
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(
        change.rust.reason.contains("gains a `params` argument"),
        "{}",
        change.rust.reason
    );
    // Without a client there is no `params` argument to add.
    let server_only = Crates {
        client: false,
        server: true,
    };
    assert_eq!(
        verdicts(at(&diff_with(&[first], server_only), pointer)),
        (Compatible, Compatible)
    );
    // A second one is a new field of the struct that exists.
    let old = edited(&[first]);
    let new = old.replace(
        "{name: dryRun, in: query, schema: {type: boolean}}\n",
        "{name: dryRun, in: query, schema: {type: boolean}}\n        - {name: notify, in: query, schema: {type: boolean}}\n",
    );
    let report = compare(&doc(&old), &doc(&new), Crates::ALL);
    let change = at(&report, "#/paths/~1customers/post/parameters/1");
    assert_eq!(verdicts(change), (Compatible, Compatible));
    assert!(
        change.rust.reason.contains("`Params` struct"),
        "{}",
        change.rust.reason
    );

    // A required path parameter and an ignored header are no `Params` field.
    let report = diff(&[(
        "      operationId: createCustomer\n",
        "      operationId: createCustomer\n      parameters:\n        - {name: Accept, in: header, schema: {type: string}}\n",
    )]);
    assert_eq!(verdicts(at(&report, pointer)), (Compatible, Compatible));

    // An optional body is a `Params` field too: the first optional input.
    let with_body = |required: &str| {
        BASE.replace(
            "  /customers/{id}:\n    get:\n",
            &format!(
                "  /customers/{{id}}:\n    put:\n      operationId: replaceCustomer\n      parameters:\n        - {{name: id, in: path, required: true, schema: {{type: integer}}}}\n{required}      responses:\n        '204': {{description: Replaced.}}\n    get:\n"
            ),
        )
    };
    let report = compare(
        &doc(&with_body("")),
        &doc(&with_body(
            "      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/CustomerInput'}\n",
        )),
        Crates::ALL,
    );
    let change = at(&report, "#/paths/~1customers~1{id}/put/requestBody");
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(
        change.rust.reason.contains("gains a `params` argument"),
        "{}",
        change.rust.reason
    );
}

/// Two operations that take the header `X-Tenant-Id`, declared once.
const TENANTED: &str = r##"openapi: 3.0.3
info: {title: Shop, version: '1'}
paths:
  /customers:
    get:
      operationId: listCustomers
      parameters:
        - $ref: '#/components/parameters/TenantId'
      responses:
        '200': {description: The customers.}
  /orders:
    get:
      operationId: listOrders
      parameters:
        - $ref: '#/components/parameters/TenantId'
      responses:
        '200': {description: The orders.}
components:
  parameters:
    TenantId: {name: X-Tenant-Id, in: header, required: true, schema: {type: string}}
"##;

#[test]
fn a_header_no_longer_common_to_every_operation_changes_every_method() {
    let pointer = "#/components/parameters/TenantId";
    let without_header = "  /ping:\n    get:\n      operationId: ping\n      responses:\n        '204': {description: Up.}\ncomponents:\n";
    let new = TENANTED.replacen("components:\n", without_header, 1);
    let report = compare(&doc(TENANTED), &doc(&new), Crates::ALL);
    let change = at(&report, pointer);
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(
        change.what.contains("`ping` do(es) not take it"),
        "the user is told which operation lacks it: {}",
        change.what
    );
    assert!(report.is_breaking());

    // Added with the header, the operation keeps it common: a new method only.
    let with_header = "  /ping:\n    get:\n      operationId: ping\n      parameters:\n        - $ref: '#/components/parameters/TenantId'\n      responses:\n        '204': {description: Up.}\ncomponents:\n";
    let new = TENANTED.replacen("components:\n", with_header, 1);
    let report = compare(
        &doc(TENANTED),
        &doc(&new),
        Crates {
            client: true,
            server: false,
        },
    );
    assert!(!report.is_breaking(), "{}", report.render("base"));

    // The other way: removing the one operation without it makes the header
    // common, so the methods that took it as an input no longer do.
    let report = compare(
        &doc(&TENANTED.replacen("components:\n", without_header, 1)),
        &doc(TENANTED),
        Crates::ALL,
    );
    assert_eq!(verdicts(at(&report, pointer)), (Compatible, Breaking));
    assert!(at(&report, pointer).what.contains("now common"));

    // Only the models crate: no method or setter to change.
    let report = compare(
        &doc(TENANTED),
        &doc(&TENANTED.replacen("components:\n", without_header, 1)),
        Crates {
            client: false,
            server: false,
        },
    );
    assert!(
        report
            .changes
            .iter()
            .all(|c| c.pointer.to_string() != pointer),
        "{}",
        report.render("base")
    );
}

#[test]
fn body_rules_refuse_more_requests_and_the_first_one_adds_a_trait_method() {
    let first = (
        "      requestBody:\n        required: true\n",
        "      requestBody:\n        required: true\n        x-rules:\n          - {code: EmailTaken, description: no two customers share an email.}\n",
    );
    let report = diff(&[first]);
    let change = at(&report, "#/paths/~1customers/post/requestBody/x-rules/0");
    assert_eq!(verdicts(change), (Breaking, Breaking));
    assert!(
        change.rust.reason.contains("`check_create_customer_body`"),
        "{}",
        change.rust.reason
    );
    // Without server stubs, nothing of the Rust API changes.
    let report = diff_with(
        &[first],
        Crates {
            client: true,
            server: false,
        },
    );
    assert_eq!(
        verdicts(at(
            &report,
            "#/paths/~1customers/post/requestBody/x-rules/0"
        )),
        (Breaking, Compatible)
    );
    // A second rule is checked by the method that exists already.
    let old = edited(&[first]);
    let new = old.replace(
        "share an email.}\n",
        "share an email.}\n          - {code: PhoneTaken}\n",
    );
    let report = compare(&doc(&old), &doc(&new), Crates::ALL);
    assert_eq!(
        verdicts(at(
            &report,
            "#/paths/~1customers/post/requestBody/x-rules/1"
        )),
        (Breaking, Compatible)
    );
}

#[test]
fn a_renamed_schema_is_a_removal_an_addition_and_changed_uses() {
    let report = diff(&[
        (
            "schema: {$ref: '#/components/schemas/Customer'}",
            "schema: {$ref: '#/components/schemas/Client'}",
        ),
        (
            "schema: {$ref: '#/components/schemas/Customer'}",
            "schema: {$ref: '#/components/schemas/Client'}",
        ),
        ("    Customer:\n", "    Client:\n"),
    ]);
    assert_eq!(
        verdicts(at(&report, "#/components/schemas/Customer")),
        (Compatible, Breaking)
    );
    assert_eq!(
        verdicts(at(&report, "#/components/schemas/Client")),
        (Compatible, Compatible)
    );
    // Each use: the same shape on the wire, another Rust type.
    let change = at(
        &report,
        "#/paths/~1customers~1{id}/get/responses/200/content/application~1json/schema",
    );
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(
        change.what.contains("from `Customer` to `Client`"),
        "{}",
        change.what
    );
}

#[test]
fn the_summary_and_the_changelog_name_each_change() {
    let report = diff(&[
        (
            "enum: [active, blocked]",
            "enum: [active, blocked, archived]",
        ),
        ("        nickname: {type: string}\n", ""),
    ]);
    let summary = report.render("HEAD");
    assert!(
        summary.starts_with(
            "shop.yaml: 2 change(s) since HEAD: 2 breaking on the wire, 1 breaking for Rust code"
        ),
        "{summary}"
    );
    assert!(summary.contains("#/components/schemas/Customer/properties/nickname"));
    assert!(summary.contains("#/components/schemas/State/enum/2"));

    let changelog = report.changelog("0.2.0");
    assert!(
        changelog.starts_with(
            "## 0.2.0\n\n### Breaking for Rust code\n\n- property `Customer.nickname` removed"
        ),
        "{changelog}"
    );
    assert!(
        changelog.contains("### Breaking on the wire only\n\n- value `archived` added to `State`"),
        "{changelog}"
    );
}

#[test]
fn real_documents_have_no_change_from_themselves_and_each_change_between_them_points_into_one() {
    let documents: Vec<Document> = vendored::documents()
        .iter()
        .map(|path| {
            let label = path.to_string_lossy().into_owned();
            Document::load(&vendored::root().join(path), &label)
                .expect("a vendored document parses")
        })
        .collect();
    let mut compared = 0;
    for old in &documents {
        let same = compare(old, old, Crates::ALL);
        assert!(same.changes.is_empty(), "{}", same.render(&old.file));
        for new in &documents {
            let report = compare(old, new, Crates::ALL);
            for change in &report.changes {
                assert!(
                    new.node(&change.pointer).is_some() || old.node(&change.pointer).is_some(),
                    "{} from {}: {} points nowhere",
                    new.file,
                    old.file,
                    change.pointer
                );
            }
            compared += report.changes.len();
        }
    }
    assert!(
        compared > 100,
        "different documents differ: {compared} changes"
    );
}

#[test]
fn subtypes_told_apart_by_a_discriminator_change_the_base_for_rust_only() {
    const TAGGED: (&str, &str) = (
        "      description: A customer.\n",
        "      description: A customer.\n      discriminator: {propertyName: email}\n",
    );
    const STATE: &str = "    State: {type: string, enum: [active, blocked]}\n";
    let with = |subtypes: &[&str]| {
        let mut schemas = STATE.to_owned();
        for name in subtypes {
            schemas.push_str(&format!(
                "    {name}: {{allOf: [{{$ref: '#/components/schemas/Customer'}}]}}\n"
            ));
        }
        schemas
    };
    let (one, two) = (with(&["Vip"]), with(&["Vip", "Staff"]));

    // The first subtype makes the base an enum of its subtypes.
    let report = diff(&[TAGGED, (STATE, &one)]);
    let change = at(&report, "#/components/schemas/Customer");
    assert!(
        change
            .what
            .contains("now has subtypes told apart by `email`"),
        "{}",
        change.what
    );
    assert_eq!(verdicts(change), (Compatible, Breaking));

    // A subtype more is a variant more of a `#[non_exhaustive]` enum; one
    // fewer is a variant gone.
    let old = edited(&[TAGGED, (STATE, &one)]);
    let new = edited(&[TAGGED, (STATE, &two)]);
    let added = compare(&doc(&old), &doc(&new), Crates::ALL);
    assert!(
        added.changes.iter().all(|c| c.rust.verdict == Compatible),
        "{}",
        added.render("base")
    );
    let removed = compare(&doc(&new), &doc(&old), Crates::ALL);
    let change = at(&removed, "#/components/schemas/Customer");
    assert!(
        change.what.contains("`Staff` is no longer a subtype"),
        "{}",
        change.what
    );
    assert_eq!(verdicts(change), (Compatible, Breaking));

    // A subtype named by another value is read as another variant.
    let renamed = new.replace(
        "    Staff: {allOf",
        "    Staff: {x-ms-discriminator-value: staff, allOf",
    );
    let report = compare(&doc(&new), &doc(&renamed), Crates::ALL);
    let change = at(&report, "#/components/schemas/Customer");
    assert!(
        change.what.contains("from [Staff] to [staff]"),
        "{}",
        change.what
    );
    assert_eq!(verdicts(change), (Breaking, Compatible));
}

/// A 3.1 document whose API sends a webhook (`Event`, carried only by it)
/// and calls back the URL an operation's request gives.
const HOOKS: &str = r##"openapi: 3.1.0
info: {title: Hooks, version: '1'}
paths:
  /subscriptions:
    post:
      operationId: subscribe
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [url]
              properties:
                url: {type: string}
      responses:
        '201': {description: Subscribed.}
      callbacks:
        onEvent:
          '{$request.body#/url}':
            post:
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Event'}
              responses:
                '204': {description: Received.}
webhooks:
  newEvent:
    post:
      parameters:
        - {name: X-Signature, in: header, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Event'}
      responses:
        '200':
          description: Received.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Receipt'}
components:
  schemas:
    Event:
      type: object
      required: [id]
      properties:
        id: {type: string}
        note: {type: string}
    Receipt:
      type: object
      properties:
        seen: {type: boolean}
"##;

fn hooks_diff(edits: &[(&str, &str)]) -> Report {
    compare(&doc(HOOKS), &doc(&edited_from(HOOKS, edits)), Crates::ALL)
}

#[test]
fn a_payload_travels_as_a_response_and_a_receivers_answer_as_a_request() {
    // The API sends the payload: a property dropped breaks receivers that
    // read it, a new required one does not.
    let report = hooks_diff(&[("        note: {type: string}\n", "")]);
    let change = at(&report, "#/components/schemas/Event/properties/note");
    assert_eq!(change.wire.verdict, Breaking, "{}", change.wire.reason);
    let report = hooks_diff(&[("      required: [id]\n", "      required: [id, note]\n")]);
    assert_eq!(
        at(&report, "#/components/schemas/Event/properties/note")
            .wire
            .verdict,
        Compatible
    );
    // The receiver answers: the API refusing answers it took is a break.
    let report = hooks_diff(&[(
        "    Receipt:\n      type: object\n",
        "    Receipt:\n      type: object\n      required: [seen]\n",
    )]);
    assert_eq!(
        at(&report, "#/components/schemas/Receipt/properties/seen")
            .wire
            .verdict,
        Breaking
    );
}

#[test]
fn webhooks_and_callbacks_added_removed_and_changed() {
    let webhook = "#/webhooks/newEvent/post";
    let removed = hooks_diff(&[("  newEvent:\n", "  oldEvent:\n")]);
    assert_eq!(verdicts(at(&removed, webhook)), (Compatible, Breaking));
    let added = at(&removed, "#/webhooks/oldEvent/post");
    assert_eq!(verdicts(added), (Compatible, Breaking));
    assert!(
        added.rust.reason.contains("receiver trait"),
        "{}",
        added.rust.reason
    );
    // Without server stubs no receiver trait gains a method.
    let client_only = Crates {
        client: true,
        server: false,
    };
    let new = HOOKS.replacen("  newEvent:\n", "  oldEvent:\n", 1);
    let report = compare(&doc(HOOKS), &doc(&new), client_only);
    assert_eq!(
        verdicts(at(&report, "#/webhooks/oldEvent/post")),
        (Compatible, Compatible)
    );

    // A callback added to an operation clients already call reaches their
    // URLs: a break on the wire.
    let callback = "#/paths/~1subscriptions/post/callbacks/onEvent/{$request.body#~1url}/post";
    let old = HOOKS.replacen(
        "      callbacks:\n        onEvent:\n",
        "      callbacks:\n        onOther:\n",
        1,
    );
    let report = compare(&doc(&old), &doc(HOOKS), Crates::ALL);
    let added = at(&report, callback);
    assert_eq!(verdicts(added), (Breaking, Breaking), "{}", added.what);
    assert!(
        added.what.contains("callback `onEvent` of `subscribe`"),
        "{}",
        added.what
    );

    // The header the API sends: receivers that read it lose it.
    let report = hooks_diff(&[(
        "        - {name: X-Signature, in: header, required: true, schema: {type: string}}\n",
        "        - {name: X-Other, in: header, schema: {type: string}}\n        - {name: x-signature, in: header, required: true, schema: {type: integer}}\n",
    )]);
    let added = at(&report, &format!("{webhook}/parameters/0"));
    assert_eq!(verdicts(added), (Compatible, Compatible), "{}", added.what);
    assert!(added.what.contains("`X-Other`"), "{}", added.what);
    // Header names are case-insensitive: the same header, its type changed.
    let retyped = at(&report, &format!("{webhook}/parameters/1/schema"));
    assert_eq!(retyped.wire.verdict, Breaking, "{}", retyped.what);
    // A status the receivers answer with, dropped.
    let report = hooks_diff(&[(
        "        '204': {description: Received.}\n",
        "        '202': {description: Received.}\n",
    )]);
    let dropped = at(&report, &format!("{callback}/responses/204"));
    assert_eq!(verdicts(dropped), (Breaking, Breaking));
    assert_eq!(
        at(&report, &format!("{callback}/responses/202"))
            .wire
            .verdict,
        Compatible
    );
}

#[test]
fn an_openapi_3_2_query_operation_is_compared_at_the_users_pointer() {
    let old = "openapi: 3.2.0\ninfo: {title: Q, version: '1'}\npaths:\n  /search:\n    query:\n      operationId: search\n      parameters:\n        - {name: limit, in: header, schema: {type: integer}}\n      responses:\n        '200': {description: Found.}\n";
    let new = old.replace(
        "        - {name: limit, in: header, schema: {type: integer}}\n",
        "        - {name: limit, in: header, required: true, schema: {type: integer}}\n",
    );
    let report = compare(&doc(old), &doc(&new), Crates::ALL);
    let change = at(&report, "#/paths/~1search/query/parameters/0");
    assert_eq!(verdicts(change), (Breaking, Breaking), "{}", change.what);
    let gone = old.replace("    query:\n", "    get:\n");
    let report = compare(&doc(old), &doc(&gone), Crates::ALL);
    let removed = at(&report, "#/paths/~1search/query");
    assert!(removed.what.contains("QUERY /search"), "{}", removed.what);
}

/// An OpenAPI 3.2 querystring is a place of its own: made an `in: query`
/// parameter of the same name, it is removed and another added, as the
/// query it is sent in changes from one value to pairs. Its schema, in
/// its `content`, is compared as a `schema` is.
#[test]
fn a_querystring_is_a_place_of_its_own_and_its_content_schema_is_compared() {
    let document = |parameter: &str| {
        doc(&format!(
            "openapi: 3.2.0\ninfo: {{title: Q, version: '1'}}\npaths:\n  /a:\n    get:\n      operationId: getA\n      parameters: [{parameter}]\n      responses: {{'204': {{description: Done.}}}}\n"
        ))
    };
    let whole = |schema: &str| {
        document(&format!(
            "{{in: querystring, name: q, required: true, content: {{application/json: {{schema: {schema}}}}}}}"
        ))
    };
    let pairs = document("{in: query, name: q, required: true, schema: {type: string}}");
    let report = compare(&whole("{type: string}"), &pairs, Crates::ALL);
    let changes: Vec<(String, Verdict)> = report
        .changes
        .iter()
        .map(|c| (c.pointer.to_string(), c.wire.verdict))
        .collect();
    assert_eq!(
        changes,
        [
            ("#/paths/~1a/get/parameters/0".to_owned(), Breaking),
            ("#/paths/~1a/get/parameters/0".to_owned(), Breaking),
        ],
        "{}",
        report.render("base")
    );
    let report = compare(
        &whole("{type: string}"),
        &whole("{type: string, maxLength: 3}"),
        Crates::ALL,
    );
    let change = at(
        &report,
        "#/paths/~1a/get/parameters/0/content/application~1json/schema/maxLength",
    );
    assert_eq!(verdicts(change), (Breaking, Compatible));
}

/// What each generated crate loses when a webhook goes, and how a hook's
/// payload and answers are compared: a payload is read by receivers, an
/// answer by the API.
#[test]
fn a_hooks_payload_and_answers_are_compared_for_the_crates_generated() {
    let webhook = "#/webhooks/newEvent/post";
    let server_only = Crates {
        client: false,
        server: true,
    };
    let client_only = Crates {
        client: true,
        server: false,
    };
    let models_only = Crates {
        client: false,
        server: false,
    };
    let gone = HOOKS.replacen("  newEvent:\n", "  oldEvent:\n", 1);
    for (crates, rust) in [
        (server_only, Breaking),
        (client_only, Breaking),
        (models_only, Compatible),
    ] {
        let report = compare(&doc(HOOKS), &doc(&gone), crates);
        let removed = at(&report, webhook);
        assert_eq!(removed.rust.verdict, rust, "{}", removed.rust.reason);
    }

    // A callback of an operation that is new itself calls back no URL an
    // old client gave.
    let without = HOOKS.replacen("  /subscriptions:\n", "  /subscriptions-old:\n", 1);
    let report = compare(&doc(&without), &doc(HOOKS), Crates::ALL);
    let callback = "#/paths/~1subscriptions/post/callbacks/onEvent/{$request.body#~1url}/post";
    assert_eq!(at(&report, callback).wire.verdict, Compatible);

    // The payload: the media types the API sends, and whether it always
    // sends one.
    let payload = format!("{webhook}/requestBody");
    let report = hooks_diff(&[(
        "      requestBody:\n        required: true\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/Event'}\n      responses:\n        '200':",
        "      requestBody:\n        content:\n          application/cbor:\n            schema: {$ref: '#/components/schemas/Event'}\n      responses:\n        '200':",
    )]);
    let optional = at(&report, &format!("{payload}/required"));
    assert_eq!(
        verdicts(optional),
        (Breaking, Breaking),
        "{}",
        optional.what
    );
    let removed = at(&report, &format!("{payload}/content/application~1json"));
    assert_eq!(
        verdicts(removed),
        (Compatible, Compatible),
        "{}",
        removed.what
    );
    let added = at(&report, &format!("{payload}/content/application~1cbor"));
    assert_eq!(verdicts(added), (Breaking, Compatible), "{}", added.what);
    // A payload's inline schema is compared as a response's is: a property
    // the API stops sending breaks receivers that read it.
    let inline = HOOKS.replacen(
        "            schema: {$ref: '#/components/schemas/Event'}\n      responses:\n        '200':",
        "            schema: {type: object, properties: {id: {type: string}}}\n      responses:\n        '200':",
        1,
    );
    let dropped = inline.replacen("properties: {id: {type: string}}", "properties: {}", 1);
    let report = compare(&doc(&inline), &doc(&dropped), Crates::ALL);
    let property = at(
        &report,
        &format!("{payload}/content/application~1json/schema/properties/id"),
    );
    assert_eq!(property.wire.verdict, Breaking, "{}", property.what);

    // The receivers' answers: an error answer is no part of the success
    // types; a success answer is, for the sender (client) and the receiver
    // (server stubs).
    let with_error = HOOKS.replacen(
        "        '200':\n          description: Received.\n",
        "        '400': {description: Refused.}\n        '200':\n          description: Received.\n",
        1,
    );
    let report = compare(&doc(&with_error), &doc(HOOKS), Crates::ALL);
    let error = at(&report, &format!("{webhook}/responses/400"));
    assert_eq!(verdicts(error), (Breaking, Compatible), "{}", error.what);
    let report = compare(&doc(HOOKS), &doc(&with_error), Crates::ALL);
    let error = at(&report, &format!("{webhook}/responses/400"));
    assert_eq!(verdicts(error), (Compatible, Compatible), "{}", error.what);
    let without_success = HOOKS.replacen("        '200':\n", "        '201':\n", 1);
    for (crates, rust) in [
        (server_only, Breaking),
        (client_only, Breaking),
        (models_only, Compatible),
    ] {
        let report = compare(&doc(HOOKS), &doc(&without_success), crates);
        let removed = at(&report, &format!("{webhook}/responses/200"));
        assert_eq!(removed.rust.verdict, rust, "{}", removed.rust.reason);
        let added = at(&report, &format!("{webhook}/responses/201"));
        let gains = if crates.client { Breaking } else { Compatible };
        assert_eq!(added.rust.verdict, gains, "{}", added.rust.reason);
    }
    // An answer's media type the API no longer reads.
    let report = hooks_diff(&[(
        "          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Receipt'}\n",
        "          content:\n            application/xml:\n              schema: {$ref: '#/components/schemas/Receipt'}\n",
    )]);
    let answer = format!("{webhook}/responses/200/content");
    let removed = at(&report, &format!("{answer}/application~1json"));
    assert_eq!(removed.wire.verdict, Breaking, "{}", removed.what);
    let added = at(&report, &format!("{answer}/application~1xml"));
    assert_eq!(added.wire.verdict, Compatible, "{}", added.what);
}

/// Whether two schemas have the same shape ignores their text, not the
/// names a document chose: a property called `description` is part of it.
#[test]
fn a_property_named_like_a_text_keyword_is_part_of_the_shape() {
    // `Signup` is `CustomerInput` with other text, and `extra` properties.
    let renamed = |extra: &str| {
        diff(&[
            (
                "schema: {$ref: '#/components/schemas/CustomerInput'}",
                "schema: {$ref: '#/components/schemas/Signup'}",
            ),
            (
                "    Customer:\n",
                &format!(
                    "    Signup:\n      description: Another text.\n      type: object\n      required: [email]\n      properties:\n        email: {{type: string, maxLength: 256, description: Where we write.}}\n        tier: {{$ref: '#/components/schemas/Tier'}}\n{extra}    Customer:\n"
                ),
            ),
        ])
    };
    let body = "#/paths/~1customers/post/requestBody/content/application~1json/schema";
    let report = renamed("");
    assert_eq!(verdicts(at(&report, body)), (Compatible, Breaking));
    for property in ["description", "x-tier"] {
        let report = renamed(&format!("        {property}: {{type: string}}\n"));
        let change = at(&report, body);
        assert_eq!(
            change.wire.verdict, Breaking,
            "{property}: {}",
            change.wire.reason
        );
    }
}

/// Security requirements name schemes, and a scheme may be called `x-…`.
#[test]
fn security_requirements_changed_are_listed() {
    let secured = |scheme: &str| {
        edited(&[
            (
                "    post:\n      operationId: createCustomer\n",
                &format!(
                    "    post:\n      operationId: createCustomer\n      security: [{{{scheme}: []}}]\n"
                ),
            ),
            (
                "components:\n  schemas:\n",
                "components:\n  securitySchemes:\n    x-api-key: {type: apiKey, in: header, name: X-Api-Key}\n    x-token: {type: http, scheme: bearer}\n  schemas:\n",
            ),
        ])
    };
    let report = compare(
        &doc(&secured("x-api-key")),
        &doc(&secured("x-token")),
        Crates::ALL,
    );
    let change = at(&report, "#/paths/~1customers/post/security");
    assert_eq!(change.wire.verdict, Breaking, "{}", change.what);
    let same = compare(
        &doc(&secured("x-token")),
        &doc(&secured("x-token")),
        Crates::ALL,
    );
    assert!(same.changes.is_empty(), "{}", same.render("base"));
}

/// Parameters are matched by where they are and their name (a header's in
/// any case, an operation's over its path item's); each is compared with
/// its match, whichever its index.
#[test]
fn parameters_are_matched_by_place_and_name() {
    // The first of two parameters changed.
    let report = diff(&[(
        "{name: id, in: path, required: true, schema: {type: integer, format: int64}}",
        "{name: id, in: path, required: true, schema: {type: integer, format: int32}}",
    )]);
    let change = at(&report, "#/paths/~1customers~1{id}/get/parameters/0/schema");
    assert!(
        change.what.contains("from `int64` to `int32`"),
        "{}",
        change.what
    );

    // A header's name in another case is the same header.
    let header = |name: &str| {
        (
            "        - {name: expand, in: query, schema: {type: string}}\n",
            format!(
                "        - {{name: expand, in: query, schema: {{type: string}}}}\n        - {{name: {name}, in: header, schema: {{type: string}}}}\n"
            ),
        )
    };
    let (from, to) = header("X-Trace");
    let old = edited(&[(from, &to)]);
    let (from, to) = header("x-trace");
    let new = edited(&[(from, &to)]);
    let report = compare(&doc(&old), &doc(&new), Crates::ALL);
    assert!(report.changes.is_empty(), "{}", report.render("base"));

    // A query parameter described by a `content` is still in the query:
    // given a `schema` instead, it is the same parameter, retyped.
    let filter = |how: &str| {
        edited(&[(
            "        - {name: expand, in: query, schema: {type: string}}\n",
            &format!("        - {{name: expand, in: query, {how}}}\n"),
        )])
    };
    let report = compare(
        &doc(&filter(
            "content: {application/json: {schema: {type: string}}}",
        )),
        &doc(&filter("schema: {type: integer}")),
        Crates::ALL,
    );
    let kinds: Vec<&str> = report.changes.iter().map(|c| c.what.as_str()).collect();
    assert!(
        kinds
            .iter()
            .all(|what| !what.contains("removed") && !what.contains("added")),
        "{kinds:?}"
    );
}

/// A response that gains or loses its body changes what the client
/// method returns.
#[test]
fn a_response_without_a_body_is_not_a_media_type_removed() {
    let report = diff(&[(
        "          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Customer'}\n  /customers/{id}:",
        "  /customers/{id}:",
    )]);
    let change = at(&report, "#/paths/~1customers/post/responses/201");
    assert!(
        change.what.contains("no longer has a body"),
        "{}",
        change.what
    );
    assert_eq!(verdicts(change), (Breaking, Breaking));
}

/// A rule removed from a body: the server trait loses its rules method
/// only with the last rule, and only where there are server stubs.
#[test]
fn a_body_rule_removed_takes_the_trait_method_only_with_the_last() {
    let rules = |codes: &[&str]| {
        let list: String = codes
            .iter()
            .map(|code| format!("          - {{code: {code}}}\n"))
            .collect();
        edited(&[(
            "      requestBody:\n        required: true\n",
            &format!("      requestBody:\n        required: true\n        x-rules:\n{list}"),
        )])
    };
    let rule = "#/paths/~1customers/post/requestBody/x-rules/1";
    let two = rules(&["EmailTaken", "PhoneTaken"]);
    let report = compare(&doc(&two), &doc(&rules(&["EmailTaken"])), Crates::ALL);
    assert_eq!(verdicts(at(&report, rule)), (Compatible, Compatible));
    let client_only = Crates {
        client: true,
        server: false,
    };
    let one = rules(&["EmailTaken"]);
    let report = compare(&doc(&one), &doc(BASE), client_only);
    let last = "#/paths/~1customers/post/requestBody/x-rules/0";
    assert_eq!(verdicts(at(&report, last)), (Compatible, Compatible));
    let report = compare(&doc(&one), &doc(BASE), Crates::ALL);
    assert_eq!(verdicts(at(&report, last)), (Compatible, Breaking));
}

/// Each change is listed under its verdicts: the summary's columns, and
/// the changelog's one group per change.
#[test]
fn each_change_is_listed_under_its_own_verdicts() {
    let report = diff(&[
        (
            "enum: [active, blocked]",
            "enum: [active, blocked, archived]",
        ),
        (
            "        nickname: {type: string}\n",
            "        nickname: {type: string}\n        note: {type: string}\n",
        ),
    ]);
    let summary = report.render("HEAD");
    let rows: Vec<&str> = summary.lines().filter(|l| l.contains("  #/")).collect();
    assert_eq!(
        rows,
        [
            "  compatible  compatible  #/components/schemas/Customer/properties/note",
            "  breaking    compatible  #/components/schemas/State/enum/2",
        ],
        "{summary}"
    );
    let changelog = report.changelog("0.2.0");
    let compatible = changelog
        .split_once("### Compatible\n\n")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    assert_eq!(
        compatible.lines().count(),
        1,
        "only the compatible change:\n{changelog}"
    );
    assert!(compatible.contains("`Customer.note`"), "{changelog}");
}

/// A format changes the Rust type where the generator maps it to another
/// type, and names both; a format it does not map changes nothing in Rust.
#[test]
fn a_format_change_names_the_rust_types_the_generator_writes() {
    let cases = [
        (
            "type: string",
            "type: string, format: date-time",
            "from `String` to `DateTime<Utc>`",
        ),
        (
            "type: string, format: date",
            "type: string, format: uuid",
            "from `NaiveDate` to `Uuid`",
        ),
        (
            "type: integer, format: int64",
            "type: integer, format: uint8",
            "from `i64` to `u8`",
        ),
        (
            "type: integer, format: int16",
            "type: integer, format: uint16",
            "from `i16` to `u16`",
        ),
        (
            "type: integer, format: int8",
            "type: integer, format: uint32",
            "from `i8` to `u32`",
        ),
        (
            "type: integer, format: uint64",
            "type: integer, format: int32",
            "from `u64` to `i32`",
        ),
        (
            "type: number, format: float",
            "type: number",
            "from `f32` to `f64`",
        ),
    ];
    for (from, to, says) in cases {
        let old = edited(&[(
            "        nickname: {type: string}\n",
            &format!("        nickname: {{{from}}}\n"),
        )]);
        let new = edited(&[(
            "        nickname: {type: string}\n",
            &format!("        nickname: {{{to}}}\n"),
        )]);
        let report = compare(&doc(&old), &doc(&new), Crates::ALL);
        let change = at(&report, "#/components/schemas/Customer/properties/nickname");
        assert_eq!(change.rust.verdict, Breaking, "{from} → {to}");
        assert!(
            change.rust.reason.contains(says),
            "{from} → {to}: {}",
            change.rust.reason
        );
    }
    // A binary string is a `String` in a schema, as an email or a URI is.
    for format in ["binary", "email", "uri"] {
        let new = edited(&[(
            "        nickname: {type: string}\n",
            &format!("        nickname: {{type: string, format: {format}}}\n"),
        )]);
        let report = compare(&doc(BASE), &doc(&new), Crates::ALL);
        let change = at(&report, "#/components/schemas/Customer/properties/nickname");
        assert_eq!(
            change.rust.verdict, Compatible,
            "{format}: {}",
            change.rust.reason
        );
    }
}

/// Each constraint is judged by the way it bounds the values: a larger
/// `maxLength` lets more through, a larger `minLength` fewer, `uniqueItems`
/// fewer when it becomes true; the same number written otherwise is no
/// change.
#[test]
fn constraints_are_judged_by_the_way_they_bound_the_values() {
    let email = "#/components/schemas/CustomerInput/properties/email";
    let from = "{type: string, maxLength: 256}";
    let cases = [
        (
            "{type: string, maxLength: 256, minLength: 3}",
            "minLength",
            Breaking,
            "`minLength: 3` added to `CustomerInput.email`",
        ),
        (
            "{type: string}",
            "maxLength",
            Compatible,
            "`maxLength: 256` removed from `CustomerInput.email`",
        ),
        (
            "{type: string, maxLength: 300}",
            "maxLength",
            Compatible,
            "`maxLength` of `CustomerInput.email` changed from 256 to 300",
        ),
        (
            "{type: string, maxLength: 255}",
            "maxLength",
            Breaking,
            "changed from 256 to 255",
        ),
        (
            "{type: string, maxLength: 256, uniqueItems: true}",
            "uniqueItems",
            Breaking,
            "`uniqueItems: true` added",
        ),
        (
            "{type: string, maxLength: 256, pattern: '^a'}",
            "pattern",
            Breaking,
            "`pattern: ^a` added",
        ),
    ];
    for (to, key, wire, says) in cases {
        let report = diff(&[(from, to)]);
        let change = at(&report, &format!("{email}/{key}"));
        assert_eq!(
            verdicts(change),
            (wire, Compatible),
            "{to}: {}",
            change.what
        );
        assert!(change.what.contains(says), "{to}: {}", change.what);
    }
    let bounded = |bound: &str| edited(&[(from, &format!("{{type: string, {bound}}}"))]);
    for (old, new, wire) in [
        ("minLength: 3", "minLength: 1", Compatible),
        ("minLength: 1", "minLength: 3", Breaking),
        ("uniqueItems: true", "uniqueItems: false", Compatible),
    ] {
        let report = compare(&doc(&bounded(old)), &doc(&bounded(new)), Crates::ALL);
        let key = new.split_once(':').map(|(k, _)| k).unwrap_or_default();
        let change = at(&report, &format!("{email}/{key}"));
        assert_eq!(change.wire.verdict, wire, "{old} → {new}");
    }
    let report = compare(
        &doc(&bounded("multipleOf: 2")),
        &doc(&bounded("multipleOf: 2.0")),
        Crates::ALL,
    );
    assert!(report.changes.is_empty(), "{}", report.render("base"));
}

/// `additionalProperties`: closing an object narrows it, opening it
/// widens it, a typed map is compared as a schema, and `true` is what no
/// keyword says.
#[test]
fn additional_properties_closed_opened_and_typed() {
    let input = "    CustomerInput:\n      type: object\n";
    let with = |keyword: &str| {
        edited(&[(
            input,
            &format!("{input}      additionalProperties: {keyword}\n"),
        )])
    };
    let pointer = "#/components/schemas/CustomerInput/additionalProperties";
    let report = compare(&doc(BASE), &doc(&with("false")), Crates::ALL);
    let closed = at(&report, pointer);
    assert!(closed.what.contains("no longer allows"), "{}", closed.what);
    assert_eq!(verdicts(closed), (Breaking, Compatible));
    let report = compare(&doc(&with("false")), &doc(BASE), Crates::ALL);
    let opened = at(&report, pointer);
    assert!(opened.what.contains("now allows"), "{}", opened.what);
    assert_eq!(verdicts(opened), (Compatible, Compatible));
    let report = compare(&doc(&with("true")), &doc(BASE), Crates::ALL);
    assert!(report.changes.is_empty(), "{}", report.render("base"));

    let report = compare(&doc(BASE), &doc(&with("{type: string}")), Crates::ALL);
    let map = at(&report, pointer);
    assert_eq!(verdicts(map), (Breaking, Breaking), "{}", map.what);
    let report = compare(
        &doc(&with("{type: string}")),
        &doc(&with("{type: integer}")),
        Crates::ALL,
    );
    let retyped = at(&report, pointer);
    assert!(
        retyped
            .what
            .contains("the other properties of `CustomerInput`")
            && retyped.what.contains("from string to integer"),
        "{}",
        retyped.what
    );
}

/// Names given to the values of an integer enum, matched by the values'
/// text as the lowering reads them.
#[test]
fn a_variant_of_an_integer_enum_renamed_by_an_extension() {
    let level = |names: &str| {
        edited(&[(
            "    Tier: {type: string",
            &format!(
                "    Level: {{type: integer, enum: [1, 2], x-enum-varnames: [{names}]}}\n    Tier: {{type: string"
            ),
        )])
    };
    let report = compare(
        &doc(&level("Low, High")),
        &doc(&level("Low, Top")),
        Crates::ALL,
    );
    let change = at(&report, "#/components/schemas/Level/enum/1");
    assert!(
        change.what.contains("from `High` to `Top`"),
        "{}",
        change.what
    );
    assert_eq!(verdicts(change), (Compatible, Breaking));
}

/// A union's alternatives: those named match by name wherever they are,
/// inline ones by position; a discriminator is compared whichever keyword
/// holds the alternatives.
#[test]
fn a_unions_alternatives_and_its_discriminator() {
    let pet = |schema: &str| {
        edited(&[
            (
                "          description: The customer.\n",
                "          description: The customer.\n          headers:\n            X-Pet: {schema: {$ref: '#/components/schemas/Pet'}}\n",
            ),
            (
                "    Tier: {type: string",
                &format!(
                    "    Pet: {schema}\n    Cat: {{type: object, properties: {{meows: {{type: boolean}}}}}}\n    Dog: {{type: object, properties: {{barks: {{type: boolean}}}}}}\n    Tier: {{type: string"
                ),
            ),
        ])
    };
    let cat = "{$ref: '#/components/schemas/Cat'}";
    let dog = "{$ref: '#/components/schemas/Dog'}";
    let pointer = "#/components/schemas/Pet";
    let one_of = |members: &str| pet(&format!("{{oneOf: [{members}]}}"));

    let reordered = compare(
        &doc(&one_of(&format!("{cat}, {dog}"))),
        &doc(&one_of(&format!("{dog}, {cat}"))),
        Crates::ALL,
    );
    assert!(reordered.changes.is_empty(), "{}", reordered.render("base"));

    let report = compare(
        &doc(&one_of(cat)),
        &doc(&one_of(&format!("{cat}, {dog}"))),
        Crates::ALL,
    );
    let added = at(&report, &format!("{pointer}/oneOf/1"));
    assert!(
        added.what.contains("alternative `Dog` added to `Pet`"),
        "{}",
        added.what
    );
    assert_eq!(added.rust.verdict, Breaking);
    let report = compare(
        &doc(&one_of(&format!("{cat}, {dog}"))),
        &doc(&one_of(dog)),
        Crates::ALL,
    );
    let removed = at(&report, &format!("{pointer}/oneOf/0"));
    assert!(
        removed.what.contains("alternative `Cat` removed"),
        "{}",
        removed.what
    );

    let report = compare(
        &doc(&one_of("{type: string}, {type: integer}")),
        &doc(&one_of("{type: string}, {type: boolean}")),
        Crates::ALL,
    );
    let retyped = at(&report, &format!("{pointer}/oneOf/1"));
    assert!(
        retyped
            .what
            .contains("alternative 2 of `Pet` changed from integer to boolean"),
        "{}",
        retyped.what
    );

    let any_of = |property: &str| {
        pet(&format!(
            "{{anyOf: [{cat}, {dog}], discriminator: {{propertyName: {property}}}}}"
        ))
    };
    let report = compare(&doc(&any_of("kind")), &doc(&any_of("type")), Crates::ALL);
    let change = at(&report, &format!("{pointer}/discriminator"));
    assert_eq!(verdicts(change), (Breaking, Breaking), "{}", change.what);
}

/// A schema without `type` has the type its keywords imply, and messages
/// name a property by its path below a named schema, or by its place.
#[test]
fn the_type_a_schema_implies_and_the_names_of_its_properties() {
    let cases = [
        (
            "{oneOf: [{type: string}]}",
            "{properties: {a: {type: string}}}",
            "from a union to object",
        ),
        (
            "{anyOf: [{type: string}]}",
            "{items: {type: string}}",
            "from a union to array",
        ),
        (
            "{allOf: [{type: object}]}",
            "{items: {type: string}}",
            "from object to array",
        ),
        (
            "{additionalProperties: {type: string}}",
            "{}",
            "from object to any value",
        ),
        (
            "{properties: {a: {type: string}}}",
            "{items: {}}",
            "from object to array",
        ),
    ];
    for (from, to, says) in cases {
        let nickname = |schema: &str| {
            edited(&[(
                "        nickname: {type: string}\n",
                &format!("        nickname: {schema}\n"),
            )])
        };
        let report = compare(&doc(&nickname(from)), &doc(&nickname(to)), Crates::ALL);
        let change = at(&report, "#/components/schemas/Customer/properties/nickname");
        assert!(change.what.contains(says), "{from} → {to}: {}", change.what);
    }

    // Inline: the property of a property of a body is named by its place.
    let inline = |ty: &str| {
        edited(&[(
            "            schema: {$ref: '#/components/schemas/CustomerInput'}\n",
            &format!(
                "            schema: {{type: object, properties: {{address: {{type: object, properties: {{city: {{type: {ty}}}}}}}}}}}\n"
            ),
        )])
    };
    let report = compare(
        &doc(&inline("string")),
        &doc(&inline("integer")),
        Crates::ALL,
    );
    let change = &report.changes[0];
    assert!(
        change.what.starts_with(
            "the type of `city` of `address` of the request body of `createCustomer` changed"
        ),
        "{}",
        change.what
    );
    // Below a named schema: its path.
    let named = |ty: &str| {
        edited(&[(
            "        nickname: {type: string}\n",
            &format!("        nickname: {{type: object, properties: {{first: {{type: {ty}}}}}}}\n"),
        )])
    };
    let report = compare(&doc(&named("string")), &doc(&named("integer")), Crates::ALL);
    let change = at(
        &report,
        "#/components/schemas/Customer/properties/nickname/properties/first",
    );
    assert!(
        change
            .what
            .starts_with("the type of `Customer.nickname.first` changed"),
        "{}",
        change.what
    );
}

/// An operation that takes another header does not take the common one.
#[test]
fn another_header_does_not_keep_a_header_common() {
    let other_header = "  /ping:\n    get:\n      operationId: ping\n      parameters:\n        - {name: X-Other, in: header, schema: {type: string}}\n      responses:\n        '204': {description: Up.}\ncomponents:\n";
    let new = TENANTED.replacen("components:\n", other_header, 1);
    let report = compare(&doc(TENANTED), &doc(&new), Crates::ALL);
    let change = at(&report, "#/components/parameters/TenantId");
    assert!(
        change.what.contains("`ping` do(es) not take it"),
        "{}",
        change.what
    );
    // The client alone, or the server stubs alone, change as much.
    for crates in [
        Crates {
            client: true,
            server: false,
        },
        Crates {
            client: false,
            server: true,
        },
    ] {
        let report = compare(&doc(TENANTED), &doc(&new), crates);
        let change = at(&report, "#/components/parameters/TenantId");
        assert_eq!(change.rust.verdict, Breaking, "{crates:?}");
    }
}

/// An optional header of the operation's own is a `Params` field: the
/// first one adds the `params` argument.
#[test]
fn an_optional_header_is_the_first_optional_input() {
    let report = diff(&[(
        "      operationId: createCustomer\n",
        "      operationId: createCustomer\n      parameters:\n        - {name: X-Request-Id, in: header, schema: {type: string}}\n",
    )]);
    let change = at(&report, "#/paths/~1customers/post/parameters/0");
    assert_eq!(verdicts(change), (Compatible, Breaking));
    assert!(
        change.rust.reason.contains("gains a `params` argument"),
        "{}",
        change.rust.reason
    );
}

/// A schema that holds itself is marked, and compared, once per use: a
/// required property added to it breaks the requests that carry it.
#[test]
fn a_recursive_schema_is_compared_where_it_is_used() {
    let with_node = |required: &str| {
        edited(&[
            (
                "        tier: {$ref: '#/components/schemas/Tier'}\n",
                "        tier: {$ref: '#/components/schemas/Tier'}\n        tree: {$ref: '#/components/schemas/Node'}\n",
            ),
            (
                "    Tier: {type: string",
                &format!(
                    "    Node:\n      type: object\n      required: [{required}]\n      properties:\n        name: {{type: string}}\n        kind: {{type: string}}\n        children: {{type: array, items: {{$ref: '#/components/schemas/Node'}}}}\n    Tier: {{type: string"
                ),
            ),
        ])
    };
    let report = compare(
        &doc(&with_node("name")),
        &doc(&with_node("name, kind")),
        Crates::ALL,
    );
    let change = at(&report, "#/components/schemas/Node/properties/kind");
    assert_eq!(change.wire.verdict, Breaking, "{}", change.what);
}

/// A schema only a parameter uses is a request's; one only a callback's
/// body uses is what the API sends, as a response is.
#[test]
fn parameters_and_callbacks_give_their_schemas_a_use() {
    let level = |values: &str| {
        edited(&[
            (
                "        - {name: expand, in: query, schema: {type: string}}\n",
                "        - {name: expand, in: query, schema: {type: string}}\n        - {name: level, in: query, schema: {$ref: '#/components/schemas/Level'}}\n",
            ),
            (
                "    Tier: {type: string",
                &format!("    Level: {{type: string, enum: [{values}]}}\n    Tier: {{type: string"),
            ),
        ])
    };
    let report = compare(&doc(&level("low, high")), &doc(&level("low")), Crates::ALL);
    let removed = at(&report, "#/components/schemas/Level/enum/1");
    assert_eq!(removed.wire.verdict, Breaking, "{}", removed.wire.reason);

    let ping = |properties: &str| {
        HOOKS
            .replacen(
                "                    schema: {$ref: '#/components/schemas/Event'}\n              responses:\n                '204'",
                "                    schema: {$ref: '#/components/schemas/Ping'}\n              responses:\n                '204'",
                1,
            )
            .replacen(
                "    Receipt:\n",
                &format!("    Ping:\n      type: object\n      properties: {{{properties}}}\n    Receipt:\n"),
                1,
            )
    };
    let report = compare(
        &doc(&ping("at: {type: string}, note: {type: string}")),
        &doc(&ping("at: {type: string}")),
        Crates::ALL,
    );
    let dropped = at(&report, "#/components/schemas/Ping/properties/note");
    assert_eq!(dropped.wire.verdict, Breaking, "{}", dropped.wire.reason);
}
