//! Fuzz target bodies of contextfold (see `bodies`).
pub mod bodies;
