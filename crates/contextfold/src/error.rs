//! The crate's one public error type: a stable `code`, the `path` of the culprit, and a
//! readable message. The wasm bindings turn it into a JS `ContextfoldError`.

use crate::ast::AstError;
use crate::format::FormatError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error(transparent)]
    Ast(#[from] AstError),
}

impl Error {
    /// Stable machine-readable code, e.g. `missing_tool_result`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Format(e) => e.code(),
            Error::Ast(e) => e.code(),
        }
    }

    /// Location of the culprit in the input (`[3].parts[1]`), when one is at fault.
    pub fn path(&self) -> Option<String> {
        match self {
            Error::Format(e) => e.path().map(str::to_string),
            Error::Ast(e) => e.path(),
        }
    }
}
