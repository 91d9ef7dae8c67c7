//! What a models crate needs: [`validation`] (the checks of decoded values
//! and of raw JSON, reporting every problem), [`dynamic_query`] (the `dqb`
//! grammar over the properties a models crate declares) and [`param`]
//! (parameters parsed from text).

pub mod dynamic_query;
pub mod param;
pub mod validation;
