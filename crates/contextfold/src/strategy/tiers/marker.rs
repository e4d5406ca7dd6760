//! How tier summaries and the bridge are marked and recognized (the format is
//! documented on the parent module).

use crate::message::{Message, Part, Role};
use serde::Serialize;
use serde_json::{Map, Value};

/// The `extra` key holding tier metadata.
pub use crate::message::TIER_METADATA_KEY as METADATA_KEY;
/// Start of the text of a compressed summary: `[Compressed history: N messages] `.
pub const COMPRESSED_PREFIX: &str = "[Compressed history: ";
/// Start of the text of a condensed summary: `[Condensed history: N messages] `.
pub const CONDENSED_PREFIX: &str = "[Condensed history: ";
/// Text of the bridge user message.
pub const BRIDGE_TEXT: &str = "[Earlier messages are summarized. The conversation continues from here.]";

/// How strongly a tier summary compresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TierLevel {
    /// Medium compression (an assistant message).
    Condensed,
    /// High compression, essential facts only (a system message).
    Compressed,
}

impl TierLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            TierLevel::Condensed => "condensed",
            TierLevel::Compressed => "compressed",
        }
    }

    /// The role a summary of this level has.
    pub fn role(self) -> Role {
        match self {
            TierLevel::Condensed => Role::Assistant,
            TierLevel::Compressed => Role::System,
        }
    }

    pub fn prefix(self) -> &'static str {
        match self {
            TierLevel::Condensed => CONDENSED_PREFIX,
            TierLevel::Compressed => COMPRESSED_PREFIX,
        }
    }

    fn parse(s: &str) -> Option<TierLevel> {
        match s {
            "condensed" => Some(TierLevel::Condensed),
            "compressed" => Some(TierLevel::Compressed),
            _ => None,
        }
    }
}

/// What a tier summary says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TierSummary {
    pub level: TierLevel,
    /// Original messages it covers (summed over merges).
    pub message_count: usize,
    /// When it was made, as the caller gave it; `None` when not given or lost in a
    /// round trip that dropped the metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// Recognizes a tier summary: by its metadata; by its sealed first text part (see
/// [`crate::ast::seal`]: provider formats carry no metadata); by the prefix alone only
/// for a system message (the developer's, never user text: Anthropic and Gemini may
/// join a compressed summary into the one system prompt). A user or assistant text
/// imitating a summary is plain text. The role must fit the level (compressed: system,
/// condensed: assistant).
pub fn summary_info(message: &Message) -> Option<TierSummary> {
    let info = from_metadata(message).or_else(|| match message.parts.first() {
        Some(Part::Text(t)) => sealed_info(&t.text)
            .or_else(|| (message.role == Role::System).then(|| from_text(&t.text)).flatten())
            .map(|(level, message_count)| TierSummary { level, message_count, created_at: None }),
        _ => None,
    })?;
    (info.level.role() == message.role).then_some(info)
}

/// Level and count of a sealed summary text (its seal checks out for its level).
pub fn sealed_info(text: &str) -> Option<(TierLevel, usize)> {
    let body = unsealed(text)?;
    from_text(body).filter(|(level, _)| crate::ast::unseal(text, level.as_str()).is_some())
}

/// `text` without a tier seal, or `None` when it carries none that checks out.
fn unsealed(text: &str) -> Option<&str> {
    [TierLevel::Compressed, TierLevel::Condensed].into_iter().find_map(|level| crate::ast::unseal(text, level.as_str()))
}

/// True for the bridge user message, recognized by its exact text (metadata alone is
/// not enough: a user message merged into a bridge must not be taken for one).
pub fn is_bridge(message: &Message) -> bool {
    message.role == Role::User
        && message.parts.iter().all(|p| matches!(p, Part::Text(_)))
        && message.joined_text().trim() == BRIDGE_TEXT
}

/// Original messages a message stands for: a summary its count, the bridge none,
/// anything else one.
pub(super) fn covered(message: &Message) -> usize {
    match summary_info(message) {
        Some(info) => info.message_count,
        None if is_bridge(message) => 0,
        None => 1,
    }
}

fn from_metadata(message: &Message) -> Option<TierSummary> {
    let meta = message.extra.get(METADATA_KEY)?.as_object()?;
    if meta.get("type")?.as_str()? != "summary" {
        return None;
    }
    let level = TierLevel::parse(meta.get("level")?.as_str()?)?;
    let message_count = usize::try_from(meta.get("messageCount")?.as_u64()?).ok()?;
    let created_at = meta.get("createdAt").and_then(Value::as_str).map(str::to_string);
    Some(TierSummary { level, message_count, created_at })
}

/// Level and count from a `[Compressed history: N messages] ` style prefix.
pub(super) fn from_text(text: &str) -> Option<(TierLevel, usize)> {
    [TierLevel::Compressed, TierLevel::Condensed].into_iter().find_map(|level| {
        let rest = text.strip_prefix(level.prefix())?;
        let (number, tail) = rest.split_once(' ')?;
        let count = number.parse().ok()?;
        (tail.starts_with("message]") || tail.starts_with("messages]")).then_some((level, count))
    })
}

/// The summary text of `text` without its seal and prefix (the text itself when it has
/// none).
pub(super) fn strip_prefix(text: &str) -> &str {
    let text = unsealed(text).unwrap_or(text);
    if from_text(text).is_none() {
        return text;
    }
    text.split_once("] ").map_or("", |(_, body)| body)
}

/// The summary text a summary message carries, without its prefix.
pub(super) fn summary_body(message: &Message) -> String {
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(strip_prefix(&t.text)),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// A summary message: prefixed, sealed text plus metadata.
pub(super) fn summary_message(level: TierLevel, count: usize, created_at: Option<&str>, text: &str) -> Message {
    let text = crate::ast::seal(format!("{}{}", header(level, count), text.trim()), level.as_str());
    let mut message = Message::text(level.role(), text);
    let mut meta = Map::new();
    meta.insert("type".into(), Value::from("summary"));
    meta.insert("level".into(), Value::from(level.as_str()));
    meta.insert("messageCount".into(), Value::from(count));
    if let Some(at) = created_at {
        meta.insert("createdAt".into(), Value::from(at));
    }
    message.extra.insert(METADATA_KEY.into(), Value::Object(meta));
    message
}

/// The prefix of a summary of `count` messages.
pub(super) fn header(level: TierLevel, count: usize) -> String {
    let noun = if count == 1 { "message" } else { "messages" };
    format!("{}{count} {noun}] ", level.prefix())
}

pub(super) fn bridge_message() -> Message {
    let mut message = Message::text(Role::User, BRIDGE_TEXT);
    let mut meta = Map::new();
    meta.insert("type".into(), Value::from("bridge"));
    message.extra.insert(METADATA_KEY.into(), Value::Object(meta));
    message
}
