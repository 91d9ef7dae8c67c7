//! A base schema with a discriminator and its `allOf` subtypes, as a user
//! reads and writes them: a `Pet` is any of its subtypes, each with its own
//! properties, and one of a kind this crate does not know is still read.

use fixture_inheritance_models::{
    Bike, Cat, Dog, Owner, Pet, PetBase, Puppy, Shape, Vehicle, validation,
};
use serde_json::{Value, json};

fn read(value: &Value) -> Pet {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{value}: {e}"))
}

fn problems(value: &Value) -> Vec<String> {
    validation::check_json::<Pet>(value, "body")
        .problems()
        .iter()
        .map(|p| p.property.clone())
        .collect()
}

#[test]
fn a_subtype_keeps_its_own_properties_and_writes_back_the_same() {
    let cat = json!({"petType": "cat", "name": "Tom", "meows": true});
    let pet = read(&cat);
    let Pet::Cat(tom) = &pet else {
        panic!("{pet:?}")
    };
    assert_eq!((tom.name.as_str(), tom.meows), ("Tom", Some(true)));
    assert_eq!(serde_json::to_value(&pet).unwrap(), cat);

    let dog = json!({"petType": "Dog", "name": "Rex", "barkVolume": 7});
    let Pet::Dog(rex) = read(&dog) else {
        panic!("{dog}")
    };
    assert_eq!(rex.bark_volume, 7);
    // The subtype's own required property is required.
    assert!(serde_json::from_value::<Pet>(json!({"petType": "Dog", "name": "Rex"})).is_err());
}

#[test]
fn each_subtype_is_named_by_its_mapping_its_extension_or_its_schema_name() {
    let kitten = read(&json!({"petType": "kitten", "name": "Kit"}));
    assert!(matches!(kitten, Pet::Cat(_)), "{kitten:?}");
    // A subtype of a subtype is one of the base's, with every ancestor's properties.
    let puppy = read(&json!({"petType": "puppy", "name": "Bo", "barkVolume": 2, "chews": "shoes"}));
    let Pet::Puppy(Puppy {
        bark_volume, chews, ..
    }) = &puppy
    else {
        panic!("{puppy:?}")
    };
    assert_eq!((*bark_volume, chews.as_deref()), (2, Some("shoes")));
    let pet_dog = read(&json!({"petType": "PetDog", "name": "Ace", "tricks": ["sit"]}));
    assert!(matches!(pet_dog, Pet::PetDog(_)), "{pet_dog:?}");
}

#[test]
fn a_kind_this_crate_does_not_know_is_read_as_the_base() {
    let parrot = json!({"petType": "parrot", "name": "Polly", "words": 40});
    let Pet::Other(PetBase { pet_type, name, .. }) = read(&parrot) else {
        panic!("{parrot}")
    };
    assert_eq!((pet_type.as_str(), name.as_str()), ("parrot", "Polly"));
    // The base's own name is the base.
    assert!(matches!(
        read(&json!({"petType": "Pet", "name": "Generic"})),
        Pet::Other(_)
    ));
    // What the base requires is still required.
    assert!(serde_json::from_value::<Pet>(json!({"name": "Nobody"})).is_err());
}

#[test]
fn the_checks_are_the_named_subtypes() {
    assert_eq!(
        problems(&json!({"petType": "Dog", "name": "Rex", "barkVolume": 12})),
        ["barkVolume"]
    );
    assert_eq!(
        problems(&json!({"petType": "parrot", "name": ""})),
        ["name"]
    );
    assert!(problems(&json!({"petType": "cat", "name": "Tom"})).is_empty());
    let mut report = validation::Report::new();
    let loud = Pet::Dog(Dog::new("Dog", "Rex", 12));
    validation::Validate::validate(&loud, &mut validation::Path::new("body"), &mut report);
    assert_eq!(report.problems().len(), 1, "{:?}", report.problems());
}

#[test]
fn bases_inside_other_types_are_read_by_their_tags() {
    let owner = json!({
        "pets": [
            {"petType": "cat", "name": "Tom", "rival": {"petType": "Dog", "name": "Rex", "barkVolume": 9}},
            {"petType": "Dog", "name": "Rex", "barkVolume": 9},
            {"petType": "hamster", "name": "Ham"}
        ]
    });
    let read: Owner = serde_json::from_value(owner.clone()).unwrap();
    let [Pet::Cat(tom), Pet::Dog(_), Pet::Other(_)] = read.pets.as_slice() else {
        panic!("{:?}", read.pets)
    };
    let Some(rival) = &tom.rival else {
        panic!("{tom:?}")
    };
    assert!(matches!(**rival, Pet::Dog(_)), "{rival:?}");
    assert_eq!(serde_json::to_value(&read).unwrap(), owner);
    // A subtype named where the document names it is that struct.
    let _: Option<&Dog> = read.favourite.as_ref();
    let _: Cat = Cat::new("cat", "Tom");
}

#[test]
fn a_discriminator_without_subtypes_stays_a_struct() {
    let shape: Shape = serde_json::from_value(json!({"kind": "circle"})).unwrap();
    assert_eq!(shape.kind, "circle");
}

#[test]
fn a_subtype_is_written_with_its_tag_and_the_base_as_it_came() {
    // The property is not declared: a subtype's struct has no field for it.
    let bike = Vehicle::Bike(Bike::new().with_bell(true));
    assert_eq!(
        serde_json::to_value(&bike).unwrap(),
        json!({"kind": "Bike", "bell": true})
    );
    let read: Vehicle = serde_json::from_value(json!({"kind": "Bike", "bell": true})).unwrap();
    assert_eq!(read, bike);
    // A base read without a tag is written without one.
    let plain = json!({"wheels": 4});
    let read: Vehicle = serde_json::from_value(plain.clone()).unwrap();
    assert!(matches!(read, Vehicle::Other(_)), "{read:?}");
    assert_eq!(serde_json::to_value(&read).unwrap(), plain);
}
