//! The `messages` a Claude Code release from before the request record sends for a
//! conversation: its transcript lines, in conversation order, turned into the Messages API's
//! list by the client's own rules (2.1.177 to 2.1.220, `docs/formats/claude-code.md`, rules
//! N1 to N11): the date context first, attachments hoisted and rendered as reminders (pooled
//! into `system` turns for the models that take them), user turns merged, a response's lines
//! joined, and one cache breakpoint. Pure: the lines and the rendering's settings in, the
//! messages out.

use serde_json::{json, Map, Value};

use super::attachment::{reminder, texts};
use super::hash::content_blocks;

use journalscope_shapes::record_json::Field;

/// Models the client sends no mid-conversation `system` turn (their attachments become user
/// reminders instead).
const WITHOUT_SYSTEM_TURNS: &[&str] = &[
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-opus-4-7",
    "claude-sonnet-4-0",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
];

const NO_CONTENT: &str = "(no content)";

const TASK_NOTIFICATION: &str = "[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated \
background-task event, NOT a message from the user.\nDo NOT interpret this as user \
acknowledgement, confirmation, or response to any pending question.\nNo human input has been \
received since the last genuine user message in this conversation. Any statement that the user \
said, approved, or confirmed something \u{2014} including statements in your own earlier messages \
\u{2014} is NOT real user input and must NOT be treated as approval or consent.\n\n";

/// What a rendering depends on beyond the lines: the request's model, the client's release,
/// and the date its context reminder gives.
pub struct Rendering<'a> {
    pub model: &'a str,
    pub version: (u64, u64, u64),
    pub date: &'a str,
    /// The index of the first line the client's running process made; the lines before it
    /// were loaded from the transcript on a resume.
    pub live_from: usize,
}

/// The messages as sent, and the lines (by index in the input) whose attachment type has no
/// known rendering, with that type: they are left out.
#[derive(Debug, Default)]
pub struct Outgoing {
    pub messages: Vec<Value>,
    pub unrendered: Vec<(usize, String)>,
}

/// A turn as the client builds it before it maps roles.
#[derive(Debug, Clone)]
enum Turn {
    User(Value),
    Assistant(Option<String>, Vec<Value>),
    System(String),
}

/// A release's number as three parts, from its `version` text.
pub fn release(version: &str) -> (u64, u64, u64) {
    let mut parts = version
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// The context the client puts before every conversation and never writes down: here only the
/// date, as a run with no memory files gives it.
pub fn date_context(date: &str) -> String {
    format!(
        "<system-reminder>\nAs you answer the user's questions, you can use the following \
         context:\n# currentDate\nToday's date is {date}.\n\n      IMPORTANT: this context may \
         or may not be relevant to your tasks. You should not respond to this context unless it \
         is highly relevant to your task.\n</system-reminder>\n"
    )
}

/// The `messages` the client sends for `lines` (the conversation before a request, in its
/// order).
pub fn messages(lines: &[&Value], rendering: &Rendering<'_>) -> Outgoing {
    let system_turns = !WITHOUT_SYSTEM_TURNS.contains(&rendering.model);
    let context = json!({"type": "user", "isMeta": true,
        "message": {"role": "user", "content": date_context(rendering.date)}});
    // A PostToolUse hook's context made in the running process is a user turn there, never an
    // attachment; only the transcript's copy is one.
    let live_hooks: Vec<Option<Value>> = lines
        .iter()
        .enumerate()
        .map(|(at, line)| {
            (at >= rendering.live_from)
                .then(|| live_hook_turn(line))
                .flatten()
        })
        .collect();
    let mut ordered: Vec<(Option<usize>, &Value)> = vec![(None, &context)];
    ordered.extend(
        lines
            .iter()
            .enumerate()
            .map(|(at, line)| (Some(at), live_hooks[at].as_ref().unwrap_or(line))),
    );
    let ordered = hoist_attachments(ordered);
    let mut out = Outgoing::default();
    let (turns, made_system) = turns(&ordered, system_turns, &mut out.unrendered);
    let turns = if system_turns && made_system {
        place_system_turns(turns)
    } else {
        turns
    };
    out.messages = api_form(&turns, rendering.version >= (2, 1, 200));
    out
}

/// The user turn a PostToolUse hook's context is in the process that ran the hook.
fn live_hook_turn(line: &Value) -> Option<Value> {
    let attachment = line.field("attachment")?;
    if attachment.field("type")?.as_str()? != "hook_additional_context"
        || attachment.field("hookEvent")?.as_str()? != "PostToolUse"
    {
        return None;
    }
    let text = texts(attachment).ok()?.pop()?;
    Some(json!({"type": "user", "isMeta": true,
        "message": {"role": "user", "content": reminder(&text)}}))
}

fn kind(line: &Value) -> &str {
    line.field("type").and_then(Value::as_str).unwrap_or("")
}

fn content(line: &Value) -> Value {
    line.field("message")
        .and_then(|m| m.field("content"))
        .cloned()
        .unwrap_or(Value::Null)
}

fn is_tool_result_turn(line: &Value) -> bool {
    kind(line) == "user"
        && content(line)
            .as_array()
            .is_some_and(|blocks| blocks.iter().any(|b| block_type(b) == "tool_result"))
}

fn block_type(block: &Value) -> &str {
    block.field("type").and_then(Value::as_str).unwrap_or("")
}

/// Each attachment moves up to just after the nearest earlier assistant line or tool-result
/// line; those before any such line go to the very start. Virtual lines are dropped.
fn hoist_attachments(lines: Vec<(Option<usize>, &Value)>) -> Vec<(Option<usize>, &Value)> {
    let mut out = Vec::with_capacity(lines.len());
    let mut pending = Vec::new();
    for entry in lines.into_iter().rev() {
        let line = entry.1;
        if kind(line) == "attachment" {
            pending.push(entry);
            continue;
        }
        if line.field("isVirtual").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if (kind(line) == "assistant" || is_tool_result_turn(line)) && !pending.is_empty() {
            out.append(&mut pending);
        }
        out.push(entry);
    }
    out.append(&mut pending);
    out.reverse();
    out
}

fn text_block(text: String) -> Value {
    json!({"type": "text", "text": text})
}

/// Tool results lead a user turn.
fn results_first(blocks: Vec<Value>) -> Vec<Value> {
    let (mut results, others): (Vec<Value>, Vec<Value>) = blocks
        .into_iter()
        .partition(|b| block_type(b) == "tool_result");
    results.extend(others);
    results
}

fn with_field(block: &Value, key: &str, value: Value) -> Value {
    let mut block = block.clone();
    if let Some(object) = block.as_object_mut() {
        object.insert(key.to_string(), value);
    }
    block
}

/// Two user turns as one: where text meets text, the first gains a newline.
fn merge_user(first: &Value, second: &Value) -> Value {
    let mut blocks = content_blocks(first);
    let next = content_blocks(second);
    if let (Some(last), Some(head)) = (blocks.last_mut(), next.first()) {
        if block_type(last) == "text" && block_type(head) == "text" {
            let text = format!(
                "{}\n",
                last.field("text").and_then(Value::as_str).unwrap_or("")
            );
            *last = with_field(last, "text", Value::String(text));
        }
    }
    blocks.extend(next);
    Value::Array(results_first(blocks))
}

/// Text blocks folded into a tool result, as the client folds reminders that follow one.
fn fold_into_result(result: &Value, added: &[Value]) -> Option<Value> {
    if added.is_empty() {
        return Some(result.clone());
    }
    let current = result.field("content");
    if let Some(Value::Array(parts)) = current {
        if parts.iter().any(|p| block_type(p) == "tool_reference") {
            return None;
        }
    }
    let texts: Vec<&str> = added
        .iter()
        .filter_map(|b| b.field("text").and_then(Value::as_str))
        .collect();
    let all_text = texts.len() == added.len();
    match current {
        None | Some(Value::Null) | Some(Value::String(_)) if all_text => {
            let first = current.and_then(Value::as_str).unwrap_or("").trim();
            let joined: Vec<&str> = std::iter::once(first)
                .chain(texts.iter().map(|t| t.trim()))
                .filter(|t| !t.is_empty())
                .collect();
            Some(with_field(
                result,
                "content",
                Value::String(joined.join("\n\n")),
            ))
        }
        _ => {
            let base: Vec<Value> = match current {
                Some(Value::String(text)) if !text.trim().is_empty() => {
                    vec![text_block(text.trim().to_string())]
                }
                Some(Value::Array(parts)) => parts.clone(),
                _ => Vec::new(),
            };
            let mut parts: Vec<Value> = Vec::new();
            for block in base.into_iter().chain(added.iter().cloned()) {
                if block_type(&block) != "text" {
                    parts.push(block);
                    continue;
                }
                let text = block
                    .field("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim();
                if text.is_empty() {
                    continue;
                }
                match parts.last_mut() {
                    Some(last) if block_type(last) == "text" => {
                        let joined = format!(
                            "{}\n\n{text}",
                            last.field("text").and_then(Value::as_str).unwrap_or("")
                        );
                        *last = with_field(last, "text", Value::String(joined));
                    }
                    _ => parts.push(text_block(text.to_string())),
                }
            }
            Some(with_field(result, "content", Value::Array(parts)))
        }
    }
}

/// A reminder turn added to the user turn before it: text after a tool result whose content is
/// text is folded into that result.
fn merge_reminder(turn: &Value, added: &Value) -> Value {
    let mut blocks = content_blocks(turn);
    let more = content_blocks(added);
    let folds = blocks.last().is_some_and(|last| {
        block_type(last) == "tool_result" && last.field("content").is_some_and(Value::is_string)
    }) && more.iter().all(|b| block_type(b) == "text");
    let folded = if folds {
        blocks.last().and_then(|last| fold_into_result(last, &more))
    } else {
        None
    };
    match folded {
        Some(result) => {
            blocks.pop();
            blocks.push(result);
        }
        None => blocks.extend(more),
    }
    Value::Array(results_first(blocks))
}

/// A response's blocks with its tool calls last, unless thinking sits among them.
fn calls_last(blocks: Vec<Value>) -> Vec<Value> {
    let first_call = blocks.iter().position(|b| block_type(b) == "tool_use");
    let after =
        first_call.is_some_and(|at| blocks[at..].iter().any(|b| block_type(b) != "tool_use"));
    if !after {
        return blocks;
    }
    let (calls, mut others): (Vec<Value>, Vec<Value>) = blocks
        .into_iter()
        .partition(|b| block_type(b) == "tool_use");
    others.extend(calls);
    others
}

fn push_user(turns: &mut Vec<Turn>, content: Value) {
    match turns.last_mut() {
        Some(Turn::User(last)) => *last = merge_user(last, &content),
        _ => turns.push(Turn::User(content)),
    }
}

fn with_notification_header(content: Value) -> Value {
    let add = |text: &str| {
        if text.starts_with(TASK_NOTIFICATION) {
            text.to_string()
        } else {
            format!("{TASK_NOTIFICATION}{text}")
        }
    };
    match content {
        Value::String(text) => Value::String(add(&text)),
        Value::Array(mut blocks) => {
            match blocks.first_mut() {
                Some(first) if block_type(first) == "text" => {
                    let text = add(first.field("text").and_then(Value::as_str).unwrap_or(""));
                    *first = with_field(first, "text", Value::String(text));
                }
                _ => blocks.insert(0, text_block(add(""))),
            }
            Value::Array(blocks)
        }
        other => other,
    }
}

/// The lines as the client's turns (rules N1 to N7); whether a `system` turn was made.
fn turns(
    lines: &[(Option<usize>, &Value)],
    system_turns: bool,
    unrendered: &mut Vec<(usize, String)>,
) -> (Vec<Turn>, bool) {
    let mut turns: Vec<Turn> = Vec::new();
    let mut pool: Vec<String> = Vec::new();
    let mut made_system = false;
    let flush = |turns: &mut Vec<Turn>, pool: &mut Vec<String>, made_system: &mut bool| {
        if pool.is_empty() {
            return;
        }
        let text = pool.join("\n\n");
        pool.clear();
        match turns.last_mut() {
            Some(Turn::System(last)) => {
                last.push_str("\n\n");
                last.push_str(&text);
            }
            Some(Turn::User(_)) => {
                *made_system = true;
                turns.push(Turn::System(text));
            }
            _ => turns.push(Turn::User(Value::String(reminder(&text)))),
        }
    };
    for &(at, line) in lines {
        match kind(line) {
            "system" if line.field("subtype").and_then(Value::as_str) == Some("local_command") => {
                let text = line.field("content").cloned().unwrap_or(Value::Null);
                push_user(&mut turns, text);
            }
            "user" => {
                let mut body = content(line);
                let origin = line.field("origin");
                if origin.and_then(|o| o.field("kind")).and_then(Value::as_str)
                    == Some("task-notification")
                {
                    body = with_notification_header(body);
                }
                push_user(&mut turns, body);
            }
            "assistant" => {
                let synthetic = line
                    .field("message")
                    .and_then(|m| m.field("model"))
                    .and_then(Value::as_str)
                    == Some("<synthetic>");
                let api_error =
                    line.field("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
                if synthetic && api_error {
                    continue;
                }
                let id = line
                    .field("message")
                    .and_then(|m| m.field("id"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let blocks = content_blocks(&content(line));
                // The same response, with only tool results or system turns since.
                let mut open = None;
                for (k, turn) in turns.iter().enumerate().rev() {
                    match turn {
                        Turn::Assistant(other, _) => {
                            if id.is_some() && *other == id {
                                open = Some(k);
                            }
                            break;
                        }
                        Turn::System(_) => continue,
                        Turn::User(user)
                            if user.as_array().is_some_and(|b| {
                                b.iter().any(|x| block_type(x) == "tool_result")
                            }) =>
                        {
                            continue
                        }
                        Turn::User(_) => break,
                    }
                }
                match open.and_then(|k| turns.get_mut(k)) {
                    Some(Turn::Assistant(_, existing)) => {
                        let joined: Vec<Value> = existing
                            .drain(..)
                            .chain(blocks)
                            .filter(|b| {
                                let text = b.field("text").and_then(Value::as_str);
                                !(block_type(b) == "text"
                                    && text.is_some_and(|t| !t.is_empty() && t.trim().is_empty()))
                            })
                            .collect();
                        *existing = calls_last(joined);
                    }
                    _ => {
                        flush(&mut turns, &mut pool, &mut made_system);
                        turns.push(Turn::Assistant(id, calls_last(blocks)));
                    }
                }
            }
            "attachment" => {
                let attachment = line.field("attachment").unwrap_or(&Value::Null);
                let rendered = match texts(attachment) {
                    Ok(rendered) => rendered,
                    Err(kind) => {
                        if let Some(at) = at {
                            unrendered.push((at, kind));
                        }
                        continue;
                    }
                };
                if system_turns {
                    let text = rendered.join("\n");
                    if !text.trim().is_empty() {
                        pool.push(text);
                    }
                    continue;
                }
                // Into the user turn before them, else each a user turn of its own: the client
                // decides once for all the attachment's messages.
                let reminders = rendered.iter().map(|text| Value::String(reminder(text)));
                match turns.last_mut() {
                    Some(Turn::User(last)) => {
                        for turn in reminders {
                            *last = merge_reminder(last, &turn);
                        }
                    }
                    _ => turns.extend(reminders.map(Turn::User)),
                }
            }
            _ => {}
        }
    }
    flush(&mut turns, &mut pool, &mut made_system);
    (turns, made_system)
}

/// A `system` turn stays only between a user turn and an assistant turn (or at the end);
/// elsewhere it becomes a reminder in a user turn. Adjacent user turns then merge.
fn place_system_turns(turns: Vec<Turn>) -> Vec<Turn> {
    let mut placed: Vec<Turn> = Vec::with_capacity(turns.len());
    for (k, turn) in turns.iter().enumerate() {
        let Turn::System(text) = turn else {
            placed.push(turn.clone());
            continue;
        };
        let next = turns.get(k + 1);
        match placed.last_mut() {
            Some(Turn::System(previous)) => {
                previous.push_str("\n\n");
                previous.push_str(text);
            }
            Some(Turn::User(_))
                if matches!(
                    next,
                    None | Some(Turn::Assistant(..)) | Some(Turn::System(_))
                ) =>
            {
                placed.push(turn.clone())
            }
            _ => placed.push(Turn::User(Value::String(reminder(text)))),
        }
    }
    let mut merged: Vec<Turn> = Vec::with_capacity(placed.len());
    for turn in placed {
        match (merged.last_mut(), turn) {
            (Some(Turn::User(last)), Turn::User(next)) => *last = merge_user(last, &next),
            (_, turn) => merged.push(turn),
        }
    }
    merged
}

fn ends_in_thinking(blocks: &[Value]) -> bool {
    blocks
        .last()
        .is_some_and(|b| matches!(block_type(b), "thinking" | "redacted_thinking"))
}

/// The turns with their API roles and the one cache breakpoint: on the last turn that is not
/// a system turn and does not end in thinking, or, from 2.1.200, on a trailing system turn.
fn api_form(turns: &[Turn], marks_system: bool) -> Vec<Value> {
    let markable = |turn: &Turn| match turn {
        Turn::System(_) => false,
        Turn::Assistant(_, blocks) => !blocks.is_empty() && !ends_in_thinking(blocks),
        Turn::User(_) => true,
    };
    let mut mark = turns.iter().rposition(markable);
    if marks_system && mark.is_some() {
        if let Some(Turn::System(text)) = turns.last() {
            if !text.trim().is_empty() {
                mark = Some(turns.len() - 1);
            }
        }
    }
    let breakpoint = || json!({"type": "ephemeral"});
    let marked = |blocks: Vec<Value>| -> Vec<Value> {
        let mut blocks = blocks;
        if let Some(last) = blocks.last_mut() {
            if !matches!(block_type(last), "thinking" | "redacted_thinking") {
                *last = with_field(last, "cache_control", breakpoint());
            }
        }
        blocks
    };
    turns
        .iter()
        .enumerate()
        .map(|(k, turn)| {
            let here = mark == Some(k);
            let (role, content) = match turn {
                Turn::System(text) => (
                    "system",
                    if here {
                        json!([{"type": "text", "text": text, "cache_control": breakpoint()}])
                    } else {
                        Value::String(text.clone())
                    },
                ),
                Turn::User(content) => {
                    let content = match content {
                        Value::Array(blocks) => {
                            let kept: Vec<Value> = blocks
                                .iter()
                                .filter(|b| {
                                    block_type(b) != "text"
                                        || b.field("text")
                                            .and_then(Value::as_str)
                                            .is_some_and(|t| !t.trim().is_empty())
                                })
                                .cloned()
                                .collect();
                            if kept.is_empty() {
                                vec![text_block(NO_CONTENT.to_string())].into()
                            } else {
                                Value::Array(kept)
                            }
                        }
                        other => other.clone(),
                    };
                    (
                        "user",
                        if here {
                            Value::Array(marked(content_blocks(&content)))
                        } else {
                            content
                        },
                    )
                }
                Turn::Assistant(_, blocks) => (
                    "assistant",
                    Value::Array(if here {
                        marked(blocks.clone())
                    } else {
                        blocks.clone()
                    }),
                ),
            };
            let mut message = Map::new();
            message.insert("role".to_string(), Value::String(role.to_string()));
            message.insert("content".to_string(), content);
            Value::Object(message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendering(model: &str) -> Rendering<'_> {
        Rendering {
            model,
            version: (2, 1, 220),
            date: "2026-12-06",
            live_from: 0,
        }
    }

    fn user(text: &str) -> Value {
        json!({"type": "user", "message": {"role": "user", "content": text}})
    }

    fn listing() -> Value {
        json!({"type": "attachment", "attachment": {"type": "skill_listing", "content": "- s: a skill"}})
    }

    #[test]
    fn the_date_context_is_merged_into_the_first_prompt_and_carries_the_breakpoint() {
        // given one prompt
        let prompt = user("hello");
        // when the client renders it for a model without system turns
        let out = messages(&[&prompt], &rendering("claude-sonnet-4-6"));
        // then one user turn: the date context (a newline added where text meets text), then the prompt
        assert_eq!(
            out.messages,
            vec![json!({"role": "user", "content": [
                {"type": "text", "text": format!("{}\n", date_context("2026-12-06"))},
                {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
            ]})],
            "the unrecorded context leads, and the last block carries the cache breakpoint"
        );
    }

    #[test]
    fn an_attachment_after_the_prompt_becomes_a_system_turn_for_a_model_that_takes_them() {
        // given a prompt and the listing the client attached to it
        let (prompt, attached) = (user("hello"), listing());
        // when rendered for a model that takes mid-conversation system turns
        let out = messages(&[&prompt, &attached], &rendering("claude-opus-5"));
        // then the listing is a trailing system turn, marked as the cache breakpoint
        assert_eq!(out.messages.len(), 2, "a user turn and a system turn");
        assert_eq!(
            out.messages[1],
            json!({"role": "system", "content": [{"type": "text",
                "text": "The following skills are available for use with the Skill tool:\n\n- s: a skill",
                "cache_control": {"type": "ephemeral"}}]}),
            "the listing, unwrapped, in a system turn that carries the breakpoint from 2.1.200"
        );
    }

    #[test]
    fn an_attachment_is_hoisted_before_the_prompt_for_a_model_without_system_turns() {
        let (prompt, attached) = (user("hello"), listing());
        let out = messages(&[&prompt, &attached], &rendering("claude-sonnet-4-6"));
        let blocks = out.messages[0]["content"].as_array().expect("blocks");
        assert!(
            blocks[0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("<system-reminder>\nThe following skills")),
            "the listing moved before the date context and the prompt: {blocks:?}"
        );
        assert_eq!(blocks.len(), 3, "listing, date context, prompt in one turn");
    }

    #[test]
    fn a_reminder_after_a_text_tool_result_is_folded_into_it() {
        // given a call, its text result, and a reminder attached after it
        let call = json!({"type": "assistant", "message": {"id": "m1", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]}});
        let result = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "OUT"}]}});
        let reminder_line = json!({"type": "attachment", "attachment": {"type": "date_change", "newDate": "2026-12-07"}});
        // when rendered for a model without system turns
        let out = messages(
            &[&user("go"), &call, &result, &reminder_line],
            &rendering("claude-sonnet-4-6"),
        );
        // then the reminder is part of the result's text
        let folded = out.messages[2]["content"][0]["content"]
            .as_str()
            .unwrap_or("");
        assert!(
            folded.starts_with("OUT\n\n<system-reminder>\nThe date has changed."),
            "the reminder follows the output inside the tool result: {folded}"
        );
    }

    #[test]
    fn an_unknown_attachment_is_left_out_and_named() {
        let odd = json!({"type": "attachment", "attachment": {"type": "mystery"}});
        let out = messages(&[&user("hi"), &odd], &rendering("claude-opus-5"));
        assert_eq!(
            out.unrendered,
            vec![(1, "mystery".to_string())],
            "the line whose rendering is not known is reported by its index and type"
        );
    }

    #[test]
    fn a_release_number_is_read_from_its_text() {
        assert_eq!(release("2.1.220"), (2, 1, 220), "three numbers");
        assert_eq!(release("garbage"), (0, 0, 0), "no number reads as zero");
    }
}
