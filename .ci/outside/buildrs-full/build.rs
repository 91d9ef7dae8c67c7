// The models, the client and the server stubs of specs/pets.yaml (and
// schemas/pet.yaml), generated into OUT_DIR as one file: full mode.
fn main() {
    openapi_codegen::build::Builder::new("specs/pets.yaml")
        .name("pets")
        .full()
        .generate_or_exit();
}
