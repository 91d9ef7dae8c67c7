//! A crate that generates its client and server stubs in build.rs: the
//! client at the root, the models as `models`, the server as `server`.
include!(concat!(env!("OUT_DIR"), "/pets_full.rs"));
