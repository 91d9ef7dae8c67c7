//! Enums of integers, numbers and booleans are their values on the wire.

use fixture_scalar_enums_models::{Flag, Level, MaybeLevel, Offset, Ratio, Setting, validation};
use serde_json::json;

#[test]
fn values_round_trip_as_numbers_and_booleans() {
    assert_eq!(serde_json::to_value(Level::Minus1).unwrap(), json!(-1));
    assert_eq!(
        serde_json::from_value::<Level>(json!(2)).unwrap(),
        Level::V2
    );
    assert_eq!(serde_json::to_value(Ratio::V0Point5).unwrap(), json!(0.5));
    assert_eq!(
        serde_json::from_value::<Ratio>(json!(-1.5)).unwrap(),
        Ratio::Minus1Point5
    );
    assert_eq!(
        serde_json::from_value::<Ratio>(json!(1)).unwrap(),
        Ratio::V1
    );
    assert_eq!(serde_json::to_value(Flag::True).unwrap(), json!(true));
    // Zero is zero, not minus zero (which JSON would carry as `-0.0`).
    assert_eq!(serde_json::to_string(&Offset::V0).unwrap(), "0.0");
    assert_eq!(serde_json::to_string(&Offset::Minus0Point5).unwrap(), "-0.5");
    assert_eq!(Level::ALL.map(Level::value), [1, 2, 3, -1]);
    // Not a value of the enum, or not a number at all.
    assert!(serde_json::from_value::<Level>(json!(4)).is_err());
    assert!(serde_json::from_value::<Level>(json!("1")).is_err());
    assert!(serde_json::from_value::<Flag>(json!(false)).is_err());
}

#[test]
fn parameters_read_them_from_text() {
    assert_eq!("-1".parse::<Level>().unwrap(), Level::Minus1);
    assert_eq!("0.5".parse::<Ratio>().unwrap(), Ratio::V0Point5);
    assert_eq!("true".parse::<Flag>().unwrap(), Flag::True);
    assert!("7".parse::<Level>().is_err());
    assert_eq!(Level::V3.to_string(), "3");
}

#[test]
fn bodies_with_them_round_trip_and_validate() {
    let body = json!({"level": 3, "ratio": 1, "flag": true, "maybe": null, "inline": 8});
    let setting: Setting = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(setting.level, Level::V3);
    assert_eq!(setting.maybe, None::<MaybeLevel>);
    assert_eq!(serde_json::to_value(&setting).unwrap()["level"], json!(3));
    assert!(validation::check_json::<Setting>(&body, "body").is_empty());
    let wrong = json!({"level": 5, "ratio": "x"});
    let report = validation::check_json::<Setting>(&wrong, "body");
    let found = |property: &str, code: &str| {
        report
            .problems()
            .iter()
            .any(|p| p.property.ends_with(property) && p.error_code == code)
    };
    assert!(
        found("level", "InvalidEnumValue"),
        "{:?}",
        report.problems()
    );
    assert!(found("ratio", "InvalidType"), "{:?}", report.problems());
}
