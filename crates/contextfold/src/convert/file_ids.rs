//! A file OpenAI stores, named by its id, between the two OpenAI APIs: Chat's `{type:
//! "file", file: {file_id, filename?}}` and the Responses API's `{type: "input_file",
//! file_id, filename?}` name the same file in the same account, so the id goes over
//! (dropped, it was listed as media a target cannot carry, or written as "[input_file]").
//! Any other provider has no use for an OpenAI file id (step 4 drops it, listed).

use crate::format::{openai, responses, Format};
use crate::message::{FilePart, Part};
use serde_json::{json, Map, Value};

/// The other OpenAI API's part for a file `part` holds by id. A Responses `input_file`
/// becomes Chat's file part in place (its marker is Chat's own, kept by the steps after);
/// a Chat file is returned, to take the part's place once those steps are done (its
/// Responses content block would be taken for a block of the source format and rendered).
pub(super) fn between_openai_apis(part: &mut Part, from: Format, to: Format) -> Option<Part> {
    let replaced = match (from, to, &*part) {
        (Format::OpenAi, Format::OpenAiResponses, Part::File(file)) => {
            return chat_file_id(file).map(|(id, name)| {
                let mut block = json!({ "type": "input_file", "file_id": id });
                if let (Some(name), Some(object)) = (name, block.as_object_mut()) {
                    object.insert("filename".into(), name.into());
                }
                responses::native::content_part(&block, "input_file")
            });
        }
        (Format::OpenAiResponses, Format::OpenAi, Part::Text(text)) => {
            let block = responses::native::block_of(&text.extra);
            let input_file = block.filter(|b| b.get("type").and_then(Value::as_str) == Some("input_file"));
            input_file.and_then(|b| Some((b.get("file_id")?.as_str()?, b.get("filename").and_then(Value::as_str)))).map(
                |(id, name)| {
                    let mut file = FilePart { name: name.map(str::to_string), ..FilePart::default() };
                    let mut held = Map::new();
                    held.insert("file_id".into(), id.into());
                    crate::format::fields::add_marker(&mut file.extra, openai::NAMESPACE, "file", Value::Object(held));
                    Part::File(file)
                },
            )
        }
        _ => None,
    };
    if let Some(replaced) = replaced {
        *part = replaced;
    }
    None
}

/// The id (and name) of a Chat file part given by `file_id` alone.
fn chat_file_id(file: &FilePart) -> Option<(&str, Option<&str>)> {
    if file.url.is_some() || file.data.is_some() {
        return None;
    }
    let id = file.extra.get(openai::NAMESPACE)?.get("file")?.get("file_id")?.as_str()?;
    Some((id, file.name.as_deref()))
}
