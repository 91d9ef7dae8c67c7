//! An OpenAPI 3.1 document's types, as a user reads and writes them.

use fixture_openapi_3_1_models::{Dog, DogChip, DogKind, Kitten, Pet, Photo, Puppy, validation};
use serde_json::json;

#[test]
fn a_dog_round_trips_with_every_3_1_construct() {
    let body = json!({
        "name": "Rex", "nickname": null, "kind": "dog", "age": 3, "weight": 12.5,
        "owner": {"name": "Ann", "phone": "+4412"}, "vet": null, "extra": {"any": [1]},
        "tally": ["walks", 2], "chip": 981, "schemaVersion": 2, "good": true,
        "tags": ["good", "boy"]
    });
    let dog: Dog = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(dog.kind, DogKind::Dog);
    assert_eq!(dog.chip, Some(DogChip::Integer(981)));
    assert_eq!(dog.nickname, None);
    assert!(validation::check_json::<Dog>(&body, "body").is_empty());
    let back = serde_json::to_value(&dog).unwrap();
    assert_eq!(back["tally"], json!(["walks", 2]));
    assert_eq!(back["schemaVersion"], json!(2));
    assert_eq!(back["good"], json!(true));
}

#[test]
fn the_3_1_constraints_are_checked() {
    // exclusiveMinimum 0, exclusiveMaximum 40: 0 and 40 are out; prefixItems
    // with `items: false`: exactly two items.
    let body = json!({"name": "Rex", "kind": "dog", "age": 40, "tally": ["walks"], "chip": "x".repeat(16)});
    let report = validation::check_json::<Dog>(&body, "body");
    for property in ["age", "tally", "chip"] {
        assert!(
            report
                .problems()
                .iter()
                .any(|p| p.property.ends_with(property)),
            "{property}: {:?}",
            report.problems()
        );
    }
    // `const: dog`: an answer with another kind still decodes, keeping the
    // value as for every enum the API sends, and validation refuses it.
    let cat = json!({"name": "Rex", "kind": "cat", "age": 1});
    let decoded: Dog = serde_json::from_value(cat.clone()).unwrap();
    assert!(!decoded.kind.is_known());
    let report = validation::check_json::<Dog>(&cat, "body");
    assert!(
        report
            .problems()
            .iter()
            .any(|p| p.property.ends_with("kind")),
        "{:?}",
        report.problems()
    );
}

#[test]
fn base64_content_is_bytes_in_json() {
    let photo: Photo =
        serde_json::from_value(json!({"data": "aGk=", "mediaType": "image/png"})).unwrap();
    assert_eq!(serde_json::to_value(&photo).unwrap()["data"], json!("aGk="));
}

/// Pydantic's tagged union: the tag has a default, so the alternatives do
/// not require it, but the union writes it, or no reader could tell them
/// apart; a tag the value has is kept.
#[test]
fn a_tagged_union_writes_its_tag_where_the_alternative_leaves_it_out() {
    let puppy = Pet::Puppy(Puppy::new("Bo"));
    let written = serde_json::to_value(&puppy).unwrap();
    assert_eq!(written, json!({"species": "puppy", "name": "Bo"}));
    let read = serde_json::from_value::<Pet>(written).unwrap();
    let tagged = Puppy::new("Bo").with_species(fixture_openapi_3_1_models::PuppySpecies::Puppy);
    assert_eq!(read, Pet::Puppy(tagged));
    let kitten: Pet = serde_json::from_value(json!({"species": "kitten", "name": "Mi"})).unwrap();
    assert_eq!(
        kitten,
        Pet::Kitten(
            Kitten::new("Mi").with_species(fixture_openapi_3_1_models::KittenSpecies::Kitten)
        )
    );
    assert_eq!(
        serde_json::to_value(&kitten).unwrap(),
        json!({"species": "kitten", "name": "Mi"})
    );
}
