//! The one error type of the JS boundary, and its conversion into a real JS `Error`.
//!
//! Every failure reaches JS as an `Error` instance with `name = "ContextfoldError"`,
//! a stable `code` (e.g. `unmatched_tool_result`) and the `path` of the culprit in the
//! input (e.g. `[2]`, or `undefined` when no single place is at fault). Never a string.
//! A `summarizer_failed` error also carries `errors`: every failed summary call.

use contextfold::strategy::CompactError;
use wasm_bindgen::JsValue;

/// Result of an exported function: `Err` is thrown in JS.
pub type JsResult<T> = Result<T, JsValue>;

/// The `name` of every error thrown by the package.
pub const ERROR_NAME: &str = "ContextfoldError";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BindingError {
    /// An error of the core: bad JSON, a shape no format reads, a chain that breaks a rule.
    #[error(transparent)]
    Core(#[from] contextfold::Error),
    /// An option of the wrong type or value, e.g. `{ format: "gemini" }`.
    #[error("options{path}: {message}")]
    InvalidOption { path: String, message: String },
    /// A compaction that gave no result: summary calls failed and `onError` is `"throw"`
    /// (every failure is listed: they reach JS as the `errors` array of the thrown
    /// error), it was cancelled, or a hard budget cannot be met (the reason says what
    /// alone is too large). Its input errors are [`BindingError::Core`].
    #[error(transparent)]
    Compact(CompactError),
    /// The caller's `tokenCounter` threw or answered with something other than one
    /// non-negative integer per text.
    #[error("the token counter failed: {0}")]
    TokenCounter(String),
    /// The tool-call id template of `normalizeToolCallIds` is not one (path `template`).
    #[error("{0}")]
    InvalidTemplate(String),
    /// An argument that is no input at all, e.g. `estimateTokens(5)` (code
    /// `invalid_shape`, path `""`: the argument itself).
    #[error("{0}")]
    Argument(String),
    /// A value could not be converted to JS. A bug, never the caller's fault.
    #[error("internal error: {0}")]
    Internal(String),
    /// An error about a message as read, with `path` pointing into the caller's JSON
    /// (a provider message may be read as several; see [`BindingError::locate`]).
    #[error("{error} (at {path} of the input)")]
    Located { error: Box<BindingError>, path: String },
}

impl BindingError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            BindingError::Core(e) => e.code(),
            BindingError::InvalidOption { .. } => "invalid_option",
            BindingError::InvalidTemplate(_) => "invalid_template",
            BindingError::Argument(_) => "invalid_shape",
            BindingError::Compact(e) => e.code(),
            BindingError::TokenCounter(_) => "token_counter_failed",
            BindingError::Internal(_) => "internal",
            BindingError::Located { error, .. } => error.code(),
        }
    }

    /// Location of the culprit: in the messages (`[3].parts[1]`) or in the options
    /// (`options.format`, `options.maxTokens` of a budget that cannot be met).
    pub fn path(&self) -> Option<String> {
        match self {
            BindingError::Core(e) => e.path(),
            BindingError::InvalidOption { path, .. } => Some(format!("options{path}")),
            BindingError::Compact(e) => e.path(),
            BindingError::Internal(_) => None,
            BindingError::TokenCounter(_) => Some("options.tokenCounter".to_string()),
            BindingError::InvalidTemplate(_) => Some("template".to_string()),
            BindingError::Argument(_) => Some(String::new()),
            BindingError::Located { path, .. } => Some(path.clone()),
        }
    }

    /// Points a chain error (a message index of the chain as read) at the wire message
    /// of `value` it came from. Native input, and errors without a message, stay as they
    /// are; so does everything when the source map cannot be told.
    pub fn locate(self, value: &serde_json::Value, format: contextfold::format::Format, total: usize) -> BindingError {
        let BindingError::Core(core) = &self else { return self };
        match contextfold::locate::error_path(core, value, format, total) {
            Some(path) => BindingError::Located { error: Box::new(self), path },
            None => self,
        }
    }

    /// The JS `Error` to throw.
    pub fn to_js(&self) -> JsValue {
        let error = js_sys::Error::new(&self.to_string());
        error.set_name(ERROR_NAME);
        let path = self.path().map_or(JsValue::UNDEFINED, JsValue::from);
        // Setting a property on a fresh ordinary object cannot fail.
        let _ = js_sys::Reflect::set(&error, &JsValue::from_str("code"), &self.code().into());
        let _ = js_sys::Reflect::set(&error, &JsValue::from_str("path"), &path);
        if let BindingError::Compact(CompactError::Summarizer(errors)) = self {
            // `[{ kind, message, request }]`; a failed conversion leaves it undefined.
            let list = crate::convert::to_js(errors).unwrap_or(JsValue::UNDEFINED);
            let _ = js_sys::Reflect::set(&error, &JsValue::from_str("errors"), &list);
        }
        error.into()
    }
}

impl From<contextfold::format::FormatError> for BindingError {
    fn from(e: contextfold::format::FormatError) -> Self {
        BindingError::Core(e.into())
    }
}

impl From<contextfold::AstError> for BindingError {
    fn from(e: contextfold::AstError) -> Self {
        BindingError::Core(e.into())
    }
}

impl From<CompactError> for BindingError {
    fn from(e: CompactError) -> Self {
        match e {
            CompactError::Input(e) => BindingError::Core(e),
            CompactError::Option(e) => e.into(),
            other => BindingError::Compact(other),
        }
    }
}

impl From<BindingError> for JsValue {
    fn from(e: BindingError) -> Self {
        e.to_js()
    }
}

impl From<contextfold::settings::OptionError> for BindingError {
    fn from(e: contextfold::settings::OptionError) -> Self {
        BindingError::InvalidOption { path: e.path, message: e.message }
    }
}

impl From<contextfold::pipeline::JsonError> for BindingError {
    fn from(e: contextfold::pipeline::JsonError) -> Self {
        let error = BindingError::from(e.error);
        match e.input_path {
            Some(path) => BindingError::Located { error: Box::new(error), path },
            None => error,
        }
    }
}
