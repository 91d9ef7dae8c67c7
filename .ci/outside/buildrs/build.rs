// The client of specs/pets.yaml (and schemas/pet.yaml, which it refers
// to), generated into OUT_DIR on every build that changed them.
fn main() {
    openapi_codegen::build::Builder::new("specs/pets.yaml")
        .name("pets")
        .generate_or_exit();
}
