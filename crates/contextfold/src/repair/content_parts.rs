//! Content parts the Responses API rejects where they stand ([`validate`]'s
//! `invalid_part` for that provider): a Chat Completions part (`text`, `image_url`) in a
//! Responses message, a type it does not know, output text in a user message. Repair puts
//! what the part says in the part type the API takes there
//! ([`native::fixed_content_part`]); a part nothing can stand for goes, listed.
//!
//! [`validate`]: super::validate

use super::{Draft, RepairStep};
use crate::format::responses::native::{self, content_problem};
use crate::message::{Part, Role};
use std::borrow::Cow;

pub(crate) fn clean(draft: &mut Draft<'_>, steps: &mut Vec<RepairStep>) {
    let (index, role) = (draft.index, draft.source.role);
    let mut gone = Vec::new();
    for (part, p) in &mut draft.parts {
        let part = *part;
        if content_problem(role, p).is_some() {
            draft.changed = true;
            match native::fixed_content_part(role, p) {
                Some(fixed) => {
                    *p = Cow::Owned(fixed);
                    steps.push(RepairStep::ConvertedContentPart { index, part, content: None });
                }
                None => {
                    gone.push(part);
                    steps.push(RepairStep::DroppedContentPart { index, part, content: None });
                }
            }
            continue;
        }
        let Part::ToolResult(r) = p.as_ref() else { continue };
        if !r.content.iter().any(|c| content_problem(Role::Tool, c).is_some()) {
            continue;
        }
        draft.changed = true;
        if let Part::ToolResult(r) = p.to_mut() {
            let content = std::mem::take(&mut r.content);
            for (at, c) in content.into_iter().enumerate() {
                if content_problem(Role::Tool, &c).is_none() {
                    r.content.push(c);
                } else if let Some(fixed) = native::fixed_content_part(Role::Tool, &c) {
                    r.content.push(fixed);
                    steps.push(RepairStep::ConvertedContentPart { index, part, content: Some(at) });
                } else {
                    steps.push(RepairStep::DroppedContentPart { index, part, content: Some(at) });
                }
            }
        }
    }
    if !gone.is_empty() {
        draft.retain(|part, _| !gone.contains(&part));
    }
}
