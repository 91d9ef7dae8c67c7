//! Unions beside properties and enums of other types, as a user reads and
//! writes them.

use fixture_openapi_3_0_constructs_models::{
    Code, Contact, Grid, Level, Pet, Record, RecordTxt, Settings, Switch, validation,
};
use serde_json::json;

#[test]
fn one_of_beside_properties_is_an_enum_of_structs_with_the_shared_fields() {
    let txt = json!({"type": "txt", "name": "www", "ttl": 60, "text": "v=spf1"});
    let record: Record = serde_json::from_value(txt.clone()).unwrap();
    let Record::Txt(RecordTxt {
        name, ttl, text, ..
    }) = &record
    else {
        panic!("{record:?}");
    };
    assert_eq!(
        (name.as_str(), *ttl, text.as_str()),
        ("www", Some(60), "v=spf1")
    );
    assert_eq!(serde_json::to_value(&record).unwrap(), txt);
    let a: Record =
        serde_json::from_value(json!({"type": "a", "name": "@", "address": "192.0.2.1"})).unwrap();
    assert!(matches!(a, Record::A(_)));
    // The alternative's own required property is required.
    assert!(serde_json::from_value::<Record>(json!({"type": "txt", "name": "www"})).is_err());
    // The shared constraint is checked in each alternative.
    let short_ttl = json!({"type": "aaaa", "name": "@", "address": "::1", "ttl": 5});
    let report = validation::check_json::<Record>(&short_ttl, "body");
    assert!(
        report
            .problems()
            .iter()
            .any(|p| p.property.ends_with("ttl")),
        "{:?}",
        report.problems()
    );
}

#[test]
fn any_of_beside_properties_is_one_struct_with_the_alternatives_fields_optional() {
    let contact: Contact =
        serde_json::from_value(json!({"id": "c1", "email": "a@example.com"})).unwrap();
    assert_eq!(contact.email.as_deref(), Some("a@example.com"));
    assert_eq!(contact.phone, None);
    let both = json!({"id": "c2", "email": "b@example.com", "phone": "+1"});
    assert_eq!(
        serde_json::to_value(serde_json::from_value::<Contact>(both.clone()).unwrap()).unwrap(),
        both
    );
}

#[test]
fn all_of_with_a_one_of_member_is_tagged_by_its_discriminator() {
    let pet: Pet =
        serde_json::from_value(json!({"name": "Tom", "kind": "cat", "lives": 9})).unwrap();
    let Pet::Cat(cat) = &pet else {
        panic!("{pet:?}")
    };
    assert_eq!((cat.name.as_str(), cat.lives), ("Tom", Some(9)));
    assert!(matches!(
        serde_json::from_value::<Pet>(json!({"name": "Rex", "kind": "dog", "goodBoy": true}))
            .unwrap(),
        Pet::Dog(_)
    ));
}

#[test]
fn settings_round_trip_and_validate() {
    let body = json!({
        "mode": false, "weight": 1.5, "code": "GB", "anything": [1, "x", null],
        "count": 3, "lookahead": "admin", "missing": {"any": "value"}
    });
    let settings: Settings = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(settings.mode, Switch::False);
    assert_eq!(settings.code, Some(Code("GB".to_owned())));
    assert_eq!(serde_json::to_value(&settings).unwrap(), body);
    assert!(validation::check_json::<Settings>(&body, "body").is_empty());
    // `allOf: [{type: string, minLength: 2}]` keeps its constraint; the
    // look-ahead pattern is not checked (the note says so).
    let short = json!({"mode": false, "code": "G", "missing": 1});
    let report = validation::check_json::<Settings>(&short, "body");
    assert!(
        report
            .problems()
            .iter()
            .any(|p| p.property.ends_with("code")),
        "{:?}",
        report.problems()
    );
    assert_eq!(Level::from_value(2), Some(Level::V2));
}

#[test]
fn constraints_two_levels_down_are_checked_in_raw_json_and_typed_values() {
    let body = json!({
        "rows": [["abc", "toolong"], ["ok"]],
        "currencies": {"US": ["usd", "dollars"]},
    });
    let problems = |report: validation::Report| -> Vec<String> {
        report.problems().iter().map(|p| p.property.clone()).collect()
    };
    let raw = problems(validation::check_json::<Grid>(&body, "body"));
    assert_eq!(raw, ["rows[0][1]", "currencies.US[1]"], "{raw:?}");
    let grid: Grid = serde_json::from_value(body).unwrap();
    let mut report = validation::Report::new();
    validation::Validate::validate(&grid, &mut validation::Path::new("body"), &mut report);
    assert_eq!(problems(report), raw);
}

#[test]
fn a_component_that_is_a_reference_is_its_targets_type() {
    let contact: fixture_openapi_3_0_constructs_models::ContactAlias =
        serde_json::from_value(json!({"id": "c1", "email": "a@example.com"})).unwrap();
    // The same type, whatever sits beside the `$ref`.
    let conflict: fixture_openapi_3_0_constructs_models::ConflictContact = contact;
    let _: Contact = conflict;
}
