//! A crate that generates its client in build.rs instead of committing it.
include!(concat!(env!("OUT_DIR"), "/pets_client.rs"));
