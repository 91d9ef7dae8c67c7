//! Tests of the generated crates live in `tests/`; this library is empty.
