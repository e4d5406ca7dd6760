//! `UIMessage` parts the AI SDK UI reader keeps verbatim (its `uiParts` marker, for the
//! way back) that `convertToModelMessages` makes `ModelMessage` parts of: an assistant's
//! `reasoning-file` and `custom` (say `@ai-sdk/openai`'s `openai.compaction`, its
//! encrypted state in `providerMetadata`). Out of `aisdk-ui` they become the parts the
//! `ModelMessage` reader keeps verbatim (see [`crate::format::aisdk`]): the AI SDK takes
//! them as they are, another format gets their rendering, listed (see [`super::native_blocks`]).

use crate::format::data_url;
use crate::message::{marker_namespace, Message, Role};
use serde_json::{Map, Value};

/// The kept parts of `message` (an assistant's) that `convertToModelMessages` carries,
/// as the `ModelMessage` parts it makes of them, put among the message's parts where the
/// `UIMessage` had them. Returns their positions in the parts.
pub(super) fn restore(message: &mut Message) -> Vec<usize> {
    if message.role != Role::Assistant {
        return Vec::new();
    }
    let Some(kept) =
        message.extra.get(marker_namespace::AISDK).and_then(|m| m.get("uiParts")).and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let mut made = Vec::new();
    // Kept parts before a position that stay kept (`step-start`, ...): the native parts
    // stand that many places earlier.
    let mut skipped = 0usize;
    for entry in kept {
        let (Some(position), Some(part)) = (entry.get(0).and_then(Value::as_u64), entry.get(1)) else { continue };
        let Some(model) = model_part(part) else {
            skipped = skipped.saturating_add(1);
            continue;
        };
        let position = usize::try_from(position).unwrap_or(usize::MAX);
        made.push((position.saturating_sub(skipped), model));
    }
    let mut at = Vec::with_capacity(made.len());
    for (position, model) in made {
        let position = position.min(message.parts.len());
        message.parts.insert(position, crate::format::aisdk::kept_part(&model));
        at.push(position);
    }
    at
}

/// What `convertToModelMessages` makes of a `UIMessage` part it carries: `custom` ->
/// `{type, kind, providerOptions}`; `reasoning-file` -> `{type, data, mediaType,
/// providerOptions}` (the data of a `data:` URL, else the URL); `providerMetadata` as
/// `providerOptions`. `None` for a part it does not carry.
fn model_part(part: &Value) -> Option<Value> {
    let kind = part.get("type").and_then(Value::as_str)?;
    let mut model = Map::new();
    model.insert("type".into(), kind.into());
    match kind {
        "custom" => {
            model.insert("kind".into(), part.get("kind").cloned().unwrap_or(Value::Null));
        }
        "reasoning-file" => {
            let url = part.get("url").and_then(Value::as_str)?;
            let data = match data_url::split(url) {
                Some(split) => Value::Object(Map::from_iter([
                    ("type".to_string(), Value::from("data")),
                    ("data".to_string(), Value::from(split.data)),
                ])),
                None => Value::from(url),
            };
            model.insert("data".into(), data);
            model.insert("mediaType".into(), part.get("mediaType").cloned().unwrap_or(Value::Null));
        }
        _ => return None,
    }
    if let Some(options) = part.get("providerMetadata").filter(|m| !m.is_null()) {
        model.insert("providerOptions".into(), options.clone());
    }
    Some(Value::Object(model))
}
