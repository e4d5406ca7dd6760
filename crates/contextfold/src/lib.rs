//! contextfold: keep LLM conversations inside their context budget by folding old
//! content into summaries, without ever producing a chain a provider rejects.
//!
//! Data flows one way: provider JSON -> [`format`] -> [`message`]s -> [`ast`] ->
//! strategy -> repair -> messages -> format -> provider JSON.
//!
//! This crate is plain Rust: no wasm-bindgen, no JS, no async runtime. The
//! `contextfold-wasm` crate binds it for JavaScript.

pub mod ast;
pub mod convert;
pub mod error;
pub mod extra;
pub mod format;
pub(crate) mod hashing;
pub mod inspect;
pub(crate) mod json_eq;
pub(crate) mod json_map;
pub(crate) mod json_node;
pub mod json_span;
pub mod locate;
pub mod measure;
pub mod message;
pub mod names;
pub mod pipeline;
pub mod prompt;
pub mod repair;
pub mod reuse;
pub mod schema;
pub mod session;
pub mod settings;
pub mod strategy;
pub mod summarize;
pub mod testing;
pub mod text_pieces;

pub use ast::{AstError, BodyPair, ChainAst, Header, PairKind, Section};
pub use error::Error;
pub use message::{Message, Part, Role};
