//! The generated validators report exactly the problems of a bad document:
//! every one, with its path, message and error code, in a stable order.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use logistics_models::validation::{self, Problem, Report};
use logistics_models::{CustomerInput, ReceivingOrderBatch};
use serde_json::json;

fn problems(report: &Report) -> Vec<(String, String, String)> {
    report
        .problems()
        .iter()
        .map(
            |Problem {
                 property,
                 message,
                 error_code,
             }| (property.clone(), message.clone(), error_code.clone()),
        )
        .collect()
}

fn expected(rows: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|(p, m, c)| ((*p).to_owned(), (*m).to_owned(), (*c).to_owned()))
        .collect()
}

fn decode_batch(value: serde_json::Value) -> Result<ReceivingOrderBatch, Report> {
    validation::from_json_slice(&serde_json::to_vec(&value).unwrap(), "body")
}

#[test]
fn a_batch_with_many_problems_lists_each_one_nested_in_arrays() {
    let report = decode_batch(json!([
        {"receiveType": "Nope", "lineItems": [], "transferType": "CargoTransfer", "extra": 1},
        {
            "referenceNumber": "",
            "receiveType": "Standard",
            "transferType": "PickupTransfer",
            "lineItems": [{"sku": "", "expectedQuantity": 0, "hasLimitCheck": "yes", "tolerance": -1}],
            "cargoTransfer": {"shipmentDate": "tomorrow", "trackingNumber": null}
        },
        "not an order"
    ]))
    .unwrap_err();
    assert_eq!(
        problems(&report),
        expected(&[
            ("[0].extra", "is not a known property", "UnknownProperty"),
            (
                "[0].receiveType",
                "must be one of: Standard, Deducted, Return",
                "InvalidEnumValue"
            ),
            ("[0].lineItems", "must not be empty", "OutOfRange"),
            (
                "[1].referenceNumber",
                "must be 1 to 30 characters long",
                "ReferenceNumberTooLong"
            ),
            (
                "[1].lineItems[0].sku",
                "must be 1 to 100 characters long",
                "EmptyLineItemSku"
            ),
            (
                "[1].lineItems[0].expectedQuantity",
                "must be at least 1",
                "LineItemQuantityError"
            ),
            (
                "[1].lineItems[0].hasLimitCheck",
                "must be a boolean, not a string",
                "InvalidType"
            ),
            (
                "[1].lineItems[0].tolerance",
                "must be at least 0",
                "OutOfRange"
            ),
            (
                "[1].cargoTransfer.shipmentDate",
                "must be an RFC 3339 date-time such as 2026-03-14T09:30:00Z",
                "InvalidFormat"
            ),
            (
                "[1].cargoTransfer.trackingNumber",
                "must not be null",
                "InvalidType"
            ),
            ("[2]", "must be an object, not a string", "InvalidType"),
        ])
    );
    assert_eq!(
        report.summary("request"),
        "The request has 11 validation errors."
    );
}

#[test]
fn well_typed_documents_are_still_checked_for_their_constraints() {
    // Serde accepts this; only the constraints are wrong.
    let report = decode_batch(json!([{
        "referenceNumber": "R".repeat(31),
        "receiveType": "Standard",
        "transferType": "CargoTransfer",
        "lineItems": [{"sku": "A", "expectedQuantity": 0, "hasLimitCheck": true, "tolerance": 0}],
        "lineItemLotNumbers": [{"expectedQuantity": -2}]
    }]))
    .unwrap_err();
    assert_eq!(
        problems(&report),
        expected(&[
            (
                "[0].referenceNumber",
                "must be 1 to 30 characters long",
                "ReferenceNumberTooLong"
            ),
            (
                "[0].lineItems[0].expectedQuantity",
                "must be at least 1",
                "LineItemQuantityError"
            ),
            (
                "[0].lineItemLotNumbers[0].expectedQuantity",
                "must be at least 1",
                "LineItemQuantityError"
            ),
        ])
    );
}

#[test]
fn a_batch_over_the_limit_is_refused_with_its_error_code() {
    let order = json!({
        "receiveType": "Standard",
        "transferType": "CargoTransfer",
        "lineItems": [{"sku": "A", "expectedQuantity": 1, "hasLimitCheck": false, "tolerance": 0}]
    });
    assert_eq!(
        decode_batch(json!(vec![order.clone(); 1000]))
            .unwrap()
            .len(),
        1000
    );
    let report = decode_batch(json!(vec![order; 1001])).unwrap_err();
    assert_eq!(
        problems(&report),
        expected(&[(
            "body",
            "must have at most 1000 items, not 1001",
            "MaximumBatchSizeExceeded"
        )])
    );
}

#[test]
fn malformed_json_is_one_problem_with_the_position() {
    let report =
        validation::from_json_slice::<ReceivingOrderBatch>(b"[{\"receiveType\": }", "body")
            .unwrap_err();
    let found = problems(&report);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].0.as_str(), found[0].2.as_str()),
        ("body", "InvalidJson")
    );
    assert_eq!(
        found[0].1,
        "is not valid JSON: expected value at line 1 column 18"
    );
}

#[test]
fn the_list_is_capped_at_100_and_the_summary_counts_the_rest() {
    let report = decode_batch(json!(vec!["x"; 150])).unwrap_err();
    assert_eq!(report.problems().len(), 100);
    assert_eq!(report.omitted(), 50);
    assert_eq!(report.problems()[99].property, "[99]");
    assert_eq!(
        report.summary("request"),
        "The request has 150 validation errors; the first 100 are listed, 50 more were not."
    );
}

#[test]
fn customer_input_rules_have_the_platforms_error_codes() {
    let bytes = serde_json::to_vec(&json!({"email": "nope", "firstName": "", "phone": 5})).unwrap();
    let report = validation::from_json_slice::<CustomerInput>(&bytes, "body").unwrap_err();
    assert_eq!(
        problems(&report),
        expected(&[
            ("lastName", "is required", "Required"),
            (
                "email",
                "must be an email address",
                "CustomerEmailWrongFormat"
            ),
            (
                "firstName",
                "must be 1 to 100 characters long",
                "EmptyCustomerFirstName"
            ),
            ("phone", "must be a string, not a number", "InvalidType"),
        ])
    );
}

#[test]
fn unusual_but_valid_emails_are_accepted_and_unknown_customer_fields_ignored() {
    for email in [
        "a'jaj5f8@1kkqu.info",
        "#l/szq+}@x.example",
        "o'brien@example.com",
        "x@localhost",
    ] {
        let body = json!({"email": email, "firstName": "A", "lastName": "B", "phone": "1", "nickname": "ignored"});
        let decoded: CustomerInput =
            validation::from_json_slice(&serde_json::to_vec(&body).unwrap(), "body")
                .unwrap_or_else(|r| panic!("{email}: {r}"));
        assert_eq!(decoded.email, email);
    }
    for email in ["", "plain", "a@", "@b", "a b@c.d", "a@b@c"] {
        let body = json!({"email": email, "firstName": "A", "lastName": "B", "phone": "1"});
        assert!(
            validation::from_json_slice::<CustomerInput>(
                &serde_json::to_vec(&body).unwrap(),
                "body"
            )
            .is_err(),
            "{email:?} was accepted"
        );
    }
}
