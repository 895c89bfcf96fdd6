//! The diff of two agent-loop requests over their Responses-API input items: the items shared
//! as a prefix, those added, removed or changed, the body's other fields, and why the loop's
//! prompt-cache promise (each input starts with the input before it) broke, judged as the
//! append-only check judges it.

use serde_json::{Map, Value};

use super::append_only::{self, Sent};
use super::responses::{Input, InputItem};
use crate::iterate::diff::{
    character_diff, common_prefix, rows_with, BodyField, BreakCause, Changes, DiffMessage, DiffOp,
    PrefixBreak, RequestDiff, RequestSide,
};
use crate::iterate::render::{Message, RequestSnapshot};

/// One side: the rendered request, its input items and their digests.
struct Side<'a> {
    snapshot: &'a RequestSnapshot,
    input: Input,
    sent: Sent,
}

impl<'a> Side<'a> {
    fn of(snapshot: &'a RequestSnapshot) -> Side<'a> {
        // `items` names, for each input item of the body, the context item it renders.
        let values = snapshot
            .responses_body
            .as_ref()
            .and_then(|body| body.get("input"))
            .and_then(Value::as_array);
        let input = Input {
            items: values
                .into_iter()
                .flatten()
                .zip(&snapshot.items)
                .map(|(value, item)| InputItem {
                    offset: item.offset,
                    value: value.clone(),
                })
                .collect(),
            notes: Vec::new(),
        };
        let sent = Sent::of(snapshot.request_offset, snapshot.model.as_deref(), &input);
        Side {
            snapshot,
            input,
            sent,
        }
    }

    fn digests(&self) -> Vec<u64> {
        self.sent.items.iter().map(|(digest, _)| *digest).collect()
    }

    /// The input item at `at` as a row of the diff shows it: its role and text as the
    /// request's view shows them, its type and the item it renders.
    fn message(&self, at: usize) -> DiffMessage {
        let value = self.input.items.get(at).map(|item| &item.value);
        let shown = self.snapshot.messages.get(at);
        DiffMessage {
            index: at as u64,
            role: shown.map_or(crate::iterate::event::Role::User, |m| m.role),
            item: self.input.items.get(at).map(|item| item.offset),
            content: shown.map(|m| m.content.clone()).unwrap_or_default(),
            kind: value.map(|value| {
                value
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("message")
                    .to_string()
            }),
        }
    }

    /// The input item at `at` as its JSON text, for the character diff: what differs may be a
    /// field the text of the row does not show (the cache breakpoint, an id).
    fn json(&self, at: usize) -> Option<Message> {
        let item = self.input.items.get(at)?;
        Some(Message {
            role: self.snapshot.messages.get(at)?.role,
            content: item.value.to_string(),
        })
    }

    /// Where the body's input ends: the body is `{"model":…,"input":[i0,i1,…],…}` in compact
    /// JSON, so each item is its text plus a comma. 0 for an empty input.
    fn input_end(&self) -> u64 {
        if self.input.items.is_empty() {
            return 0;
        }
        let head = match &self.snapshot.model {
            Some(model) => format!("{{\"model\":{},\"input\":[", Value::from(model.as_str())),
            None => "{\"input\":[".to_string(),
        };
        let items: usize = self
            .input
            .items
            .iter()
            .map(|item| item.value.to_string().len())
            .sum();
        (head.len() + items + self.input.items.len() - 1) as u64
    }

    /// The index of the input item carrying the cache breakpoint (contract §4: the head's last
    /// section that may carry it).
    fn breakpoint(&self) -> Option<usize> {
        self.input.items.iter().position(|item| {
            item.value
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|parts| {
                    parts
                        .iter()
                        .any(|part| part.get("prompt_cache_breakpoint").is_some())
                })
        })
    }
}

/// Where two values first differ, as a path: `content[0].text`, `type`, `[2]`.
pub fn differing_field(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: &mut String) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let key = x
                    .keys()
                    .chain(y.keys().filter(|key| !x.contains_key(*key)))
                    .find(|key| x.get(*key) != y.get(*key));
                if let Some(key) = key {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                    if let (Some(u), Some(v)) = (x.get(key), y.get(key)) {
                        walk(u, v, path);
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => match x.iter().zip(y).position(|(u, v)| u != v) {
                Some(at) => {
                    path.push_str(&format!("[{at}]"));
                    walk(&x[at], &y[at], path);
                }
                None => path.push_str(&format!("[{}]", x.len().min(y.len()))),
            },
            _ => {}
        }
    }
    let mut path = String::new();
    walk(a, b, &mut path);
    if path.is_empty() {
        // Equal as values, so only the text differs: the order of keys.
        "the order of its keys".to_string()
    } else {
        path
    }
}

/// The body's top-level fields besides `input`, in the earlier body's order, then those only
/// the later body has.
fn body_fields(from: Option<&Value>, to: Option<&Value>) -> Vec<BodyField> {
    let empty = Map::new();
    let x = from.and_then(Value::as_object).unwrap_or(&empty);
    let y = to.and_then(Value::as_object).unwrap_or(&empty);
    x.keys()
        .chain(y.keys().filter(|key| !x.contains_key(*key)))
        .filter(|key| *key != "input")
        .map(|name| {
            let (a, b) = (x.get(name), y.get(name));
            let op = match (a, b) {
                (Some(a), Some(b)) if a == b => DiffOp::Same,
                (Some(_), Some(_)) => DiffOp::Changed,
                (Some(_), None) => DiffOp::Removed,
                _ => DiffOp::Added,
            };
            BodyField {
                name: name.clone(),
                op,
                from: a.map(Value::to_string),
                to: b.map(Value::to_string),
            }
        })
        .collect()
}

fn request_side(side: &Side, body_bytes: usize) -> RequestSide {
    RequestSide {
        request_offset: side.snapshot.request_offset,
        transport: side.snapshot.transport,
        model: side.snapshot.model.clone(),
        messages: side.input.items.len() as u64,
        body_bytes: body_bytes as u64,
    }
}

/// Compares two rendered agent-loop requests item for item. The ideal is the loop's promise:
/// the later input starts with every item of the earlier one. `changes` is what the journal did
/// between them: a compaction there, or a change of model, lets the loop send another input,
/// as the append-only check allows; any other break is unexpected.
pub fn diff(from: &RequestSnapshot, to: &RequestSnapshot, changes: &Changes) -> RequestDiff {
    let (a, b) = (Side::of(from), Side::of(to));
    let (from_body, to_body) = (from.body(), to.body());
    let common_bytes = common_prefix(&from_body, &to_body) as u64;
    let common = append_only::shared(&a.sent, &b.sent);
    let (earlier, later) = if from.request_offset <= to.request_offset {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let ideal_messages = earlier.input.items.len();
    let ideal_bytes = earlier.input_end();
    let model_changed = from.model != to.model;
    let reused = if model_changed {
        0
    } else {
        common_bytes.min(ideal_bytes)
    };
    let differs = common < a.input.items.len().max(b.input.items.len());
    let rows = if differs {
        rows_with(
            (&a.digests(), &b.digests()),
            common,
            |at| a.message(at),
            |at| b.message(at),
        )
    } else {
        Vec::new()
    };
    let characters = match (a.json(common), b.json(common)) {
        (Some(x), Some(y)) => Some(character_diff(common as u64, &x, &y)),
        _ => None,
    };
    let broken = common < ideal_messages || model_changed;
    let prefix_break = broken.then(|| {
        prefix_break(
            earlier,
            later,
            common,
            ideal_bytes.saturating_sub(reused),
            changes,
        )
    });
    RequestDiff {
        from: request_side(&a, from_body.len()),
        to: request_side(&b, to_body.len()),
        common_prefix_bytes: common_bytes,
        common_prefix_messages: common as u64,
        ideal_prefix_messages: ideal_messages as u64,
        ideal_prefix_bytes: ideal_bytes,
        reused_prefix_bytes: reused,
        first_difference: differs.then_some(common as u64),
        rows,
        characters,
        prefix_break,
        body_fields: body_fields(from.responses_body.as_ref(), to.responses_body.as_ref()),
    }
}

/// Why the later input does not start with the earlier one at item `at`, and where the cache
/// breakpoint sits against it.
fn prefix_break(
    earlier: &Side,
    later: &Side,
    at: usize,
    lost_bytes: u64,
    changes: &Changes,
) -> PrefixBreak {
    let prefix_lost = at < earlier.input.items.len();
    let mut causes = Vec::new();
    if prefix_lost {
        let compaction = changes.compactions.iter().find_map(|cause| match cause {
            BreakCause::Compaction { offset, cutoff, .. } => Some((*offset, *cutoff)),
            _ => None,
        });
        if let Some((offset, cutoff)) = compaction {
            // The agent loop's fold names no dropped items: the earlier request's items up to
            // the cutoff that the later one no longer renders are the ones it replaced.
            let mut removed: Vec<i64> = earlier
                .input
                .items
                .iter()
                .map(|item| item.offset)
                .filter(|offset| {
                    *offset <= cutoff && !later.input.items.iter().any(|i| i.offset == *offset)
                })
                .collect();
            removed.dedup();
            causes.push(BreakCause::Compaction {
                offset,
                cutoff,
                removed,
            });
        }
    }
    if earlier.snapshot.model != later.snapshot.model {
        causes.push(BreakCause::ModelChange {
            from: earlier.snapshot.model.clone(),
            to: later.snapshot.model.clone(),
        });
    }
    let compacted = causes
        .iter()
        .any(|cause| matches!(cause, BreakCause::Compaction { .. }));
    if !append_only::excused(compacted, &earlier.sent, &later.sent) {
        if let Some(explanation) = append_only::break_between(&earlier.sent, &later.sent) {
            causes.insert(
                0,
                BreakCause::Unexpected {
                    message: at as u64,
                    explanation,
                },
            );
        }
    }
    let expected = !causes
        .iter()
        .any(|cause| matches!(cause, BreakCause::Unexpected { .. }));
    let field = match (earlier.input.items.get(at), later.input.items.get(at)) {
        (Some(x), Some(y)) => Some(differing_field(&x.value, &y.value)),
        _ => None,
    };
    let breakpoint = earlier.breakpoint();
    let mut explanation: Vec<String> = causes.iter().map(BreakCause::explain).collect();
    if let Some(field) = &field {
        explanation.push(format!("input item {at} differs in `{field}`"));
    }
    explanation.push(match breakpoint {
        Some(point) if point < at => format!(
            "the cache breakpoint sits at input item {point}, before the first difference: the input through it can still be read from the cache"
        ),
        Some(point) => format!(
            "the cache breakpoint sits at input item {point}, at or after the first difference: what was cached through it is not reused"
        ),
        None => "the earlier request's input carries no cache breakpoint".to_string(),
    });
    PrefixBreak {
        at_message: at as u64,
        earlier_item: earlier.input.items.get(at).map(|item| item.offset),
        later_item: later.input.items.get(at).map(|item| item.offset),
        lost_bytes,
        causes,
        expected,
        explanation: explanation.join("; "),
        field,
        breakpoint: breakpoint.map(|point| point as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterate::event::Role;
    use crate::iterate::render::RenderedItem;
    use crate::iterate::roles::{Rule, Transport};
    use serde_json::json;

    /// A rendered request built by hand: `items` as `(offset, input item)`.
    fn request(offset: i64, items: &[(i64, Value)]) -> RequestSnapshot {
        let messages: Vec<Message> = items
            .iter()
            .map(|(_, value)| Message {
                role: Role::User,
                content: value["content"].as_str().unwrap_or_default().to_string(),
            })
            .collect();
        let input = Input {
            items: items
                .iter()
                .map(|(offset, value)| InputItem {
                    offset: *offset,
                    value: value.clone(),
                })
                .collect(),
            notes: Vec::new(),
        };
        RequestSnapshot {
            request_offset: offset,
            transport: Transport::Openai,
            model: Some("m".to_string()),
            tokens: crate::iterate::tokens::count_messages(Some("m"), &messages),
            messages,
            items: items
                .iter()
                .map(|(offset, _)| RenderedItem {
                    offset: *offset,
                    lane: "input".to_string(),
                    product_role: Role::User,
                    provider_role: Role::User,
                    rule: Rule::User,
                })
                .collect(),
            responses_body: Some(super::super::responses::body(&input, Some("m"), None, None)),
            notes: Vec::new(),
        }
    }

    #[test]
    fn given_an_earlier_item_rendered_otherwise_without_a_compaction_when_diffed_then_the_break_is_unexpected(
    ) {
        let said = |text: &str| json!({"role": "user", "content": text});
        let earlier = request(2, &[(1, said("a")), (2, said("stamp"))]);
        let later = request(
            5,
            &[
                (1, said("a, rewritten")),
                (2, said("stamp")),
                (5, said("b")),
            ],
        );

        let diff = diff(&earlier, &later, &Changes::default());

        let broke = diff.prefix_break.expect("the first item no longer matches");
        assert!(
            !broke.expected,
            "nothing between them lets the input change"
        );
        assert!(
            matches!(&broke.causes[0], BreakCause::Unexpected { message: 0, explanation }
                if explanation.contains("its input item 0 (from @1) differs from request @2's")),
            "the append-only check's words name the item: {:?}",
            broke.causes
        );
        assert_eq!(
            broke.field.as_deref(),
            Some("content"),
            "the content is what differs"
        );
        assert_eq!(
            (diff.common_prefix_messages, diff.reused_prefix_bytes),
            (0, diff.common_prefix_bytes.min(diff.ideal_prefix_bytes)),
            "no item is shared, and only the bytes before the first item are reused"
        );
        let body = earlier.body();
        let end = diff.ideal_prefix_bytes as usize;
        assert!(
            body[..end].ends_with(said("stamp").to_string().as_bytes())
                && body.get(end) == Some(&b']'),
            "the ideal ends where the earlier body's input ends: {}",
            String::from_utf8_lossy(&body[..end])
        );
    }

    #[test]
    fn given_two_input_items_when_compared_then_the_path_names_the_first_field_that_differs() {
        let head = |text: &str| json!({"role": "developer", "content": [{"type": "input_text", "text": text, "prompt_cache_breakpoint": {"mode": "explicit"}}]});
        assert_eq!(
            differing_field(&head("a"), &head("b")),
            "content[0].text",
            "a section's new text is named down to the part"
        );
        assert_eq!(
            differing_field(
                &json!({"role": "developer", "content": "x"}),
                &json!({"role": "user", "content": "x"})
            ),
            "role",
            "a role that moved is named"
        );
        assert_eq!(
            differing_field(&json!({"a": [1, 2]}), &json!({"a": [1, 2, 3]})),
            "a[2]",
            "a longer list is named at its first extra element"
        );
        assert_eq!(
            differing_field(
                &json!({"call_id": "c"}),
                &json!({"call_id": "c", "id": "i"})
            ),
            "id",
            "a field only one side has is named"
        );
    }
}
