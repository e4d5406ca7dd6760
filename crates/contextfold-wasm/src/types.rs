//! Value types several exports share. They are the core's own types: the core derives
//! their TypeScript declarations (tsify, behind its `tsify` feature, which only this crate
//! enables), so JS sees exactly what the core serializes, under the names below.

pub use contextfold::ast::RepairAction;
/// A message format contextfold reads (its TypeScript name).
pub use contextfold::format::Format as ChainFormat;
pub use contextfold::message::Role;
/// The API whose rules a chain must keep (its TypeScript name).
pub use contextfold::repair::Provider as ProviderName;
pub use contextfold::repair::{Diagnostic, RepairStep};
pub use contextfold::strategy::Totals;
use serde::Serialize;
use serde_json::{Map, Value};
use tsify::Tsify;

/// A message in contextfold's native, provider-neutral format (the `"native"` format).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct NativeMessage {
    pub role: Role,
    #[tsify(type = "Array<{ type: string; [key: string]: unknown }>")]
    pub parts: Vec<Value>,
    /// Fields of other formats, kept through a round trip.
    #[serde(flatten)]
    #[tsify(type = "{ [key: string]: unknown }")]
    pub extra: Map<String, Value>,
}

/// `Diagnostic["code"]`: declared from the core's one list of codes.
#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const TS_DIAGNOSTIC_CODE: &str = contextfold::repair::DIAGNOSTIC_CODES_TS;
