//! Value types shared by several exports, declared once in Rust: tsify generates their
//! TypeScript declarations into the package's `.d.ts`.

use contextfold::format::Format;
use serde::Serialize;
use tsify::Tsify;

/// A message format contextfold reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
pub enum ChainFormat {
    #[serde(rename = "native")]
    Native,
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
    #[serde(rename = "aisdk")]
    AiSdk,
    #[serde(rename = "aisdk-ui")]
    AiSdkUi,
    #[serde(rename = "langchain")]
    LangChain,
}

impl From<Format> for ChainFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Native => ChainFormat::Native,
            Format::OpenAi => ChainFormat::OpenAi,
            Format::Anthropic => ChainFormat::Anthropic,
            Format::Gemini => ChainFormat::Gemini,
            Format::AiSdk => ChainFormat::AiSdk,
            Format::AiSdkUi => ChainFormat::AiSdkUi,
            Format::LangChain => ChainFormat::LangChain,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_format_serializes_to_the_format_name() {
        for f in [
            Format::Native,
            Format::OpenAi,
            Format::Anthropic,
            Format::Gemini,
            Format::AiSdk,
            Format::AiSdkUi,
            Format::LangChain,
        ] {
            assert_eq!(serde_json::to_value(ChainFormat::from(f)).unwrap(), serde_json::json!(f.as_str()));
            assert_eq!(Format::from_name(f.as_str()), Some(f));
        }
    }
}
