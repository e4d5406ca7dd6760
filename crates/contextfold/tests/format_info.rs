#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `formats()` as JS reads it: camelCase field names, as its declaration (`FormatInfo`)
//! says, and every field of a request declared.

use contextfold::convert::formats;
use contextfold::format::Format;

#[test]
fn request_fields_serialize_in_camel_case_as_declared() {
    let all = serde_json::to_value(formats()).unwrap();
    let declared = ["system", "messages", "systemIn"];
    for info in all.as_array().unwrap() {
        let Some(request) = info["request"].as_object() else { continue };
        for key in request.keys() {
            assert!(declared.contains(&key.as_str()), "{}: undeclared request field {key}", info["name"]);
        }
    }
    let gemini = formats().into_iter().find(|f| f.name == Format::Gemini).unwrap();
    let request = serde_json::to_value(gemini.request).unwrap();
    assert_eq!(request["systemIn"], "config");
    assert!(request.get("system_in").is_none());
}
