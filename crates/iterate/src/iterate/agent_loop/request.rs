//! An agent-loop request as the views show it: the Responses-API body, each input item as a
//! message of text beside it (for reading and counting), and what the journal does not record.

use serde_json::Value;

use super::append_only::request_input;
use super::fold::AgentLoop;
use super::responses;
use crate::iterate::event::{IterateEvent, Role};
use crate::iterate::projection::Projection;
use crate::iterate::render::{Message, RenderedItem, RequestSnapshot};
use crate::iterate::roles::{Rule, Transport};
use journalscope_shapes::record_json::Field;

/// Said of every agent-loop request: the journal does not record it.
const UNRECORDED: &str = "the `run` tool's descriptions are not recorded in the journal: the \
tool is written without them";

/// The reasoning effort a request goes with when no `configured` event set
/// `llm.reasoningEffort`: the default of the loop's config at contract v16.
pub const DEFAULT_EFFORT: &str = "medium";

/// The reasoning effort the loop's config holds, and whether the journal set it.
fn effort(state: &AgentLoop) -> (String, bool) {
    let set = state
        .config
        .get("llm")
        .and_then(|llm| llm.field("reasoningEffort"))
        .and_then(Value::as_str);
    match set {
        Some(effort) => (effort.to_string(), true),
        None => (DEFAULT_EFFORT.to_string(), false),
    }
}

/// An input item's role and text, as a message shows it.
fn as_message(value: &Value) -> Message {
    let text = |name: &str| match value.field(name) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.field("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    match value.field("type").and_then(Value::as_str) {
        Some("function_call") => Message {
            role: Role::Assistant,
            content: format!("run {}", text("arguments")),
        },
        Some("function_call_output") => Message {
            role: Role::User,
            content: text("output"),
        },
        Some("reasoning") => Message {
            role: Role::Assistant,
            content: "(encrypted reasoning)".to_string(),
        },
        _ => Message {
            role: value
                .field("role")
                .and_then(Value::as_str)
                .and_then(Role::parse)
                .unwrap_or(Role::User),
            content: text("content"),
        },
    }
}

fn rule_of(role: Role) -> Rule {
    match role {
        Role::System => Rule::System,
        Role::Developer => Rule::TrustedDeveloper,
        Role::User => Rule::User,
        Role::Assistant => Rule::Assistant,
    }
}

/// The request at `request_offset` from the projection folded through it, for its `model`
/// and the agent's own `path`, with `later`, the sections item the loop wrote for it.
pub fn render(
    projection: &Projection,
    request_offset: i64,
    model: Option<String>,
    path: Option<&str>,
    later: Option<&IterateEvent>,
) -> RequestSnapshot {
    let state = projection
        .agent
        .as_ref()
        .map(|agent| agent.state.clone())
        .unwrap_or_default();
    let mut input = request_input(&state, later, model.as_deref(), path);
    let (effort, configured) = effort(&state);
    let body = responses::body(&input, model.as_deref(), path, Some(&effort));
    let mut notes = vec![UNRECORDED.to_string()];
    if !configured {
        notes.push(format!(
            "no `configured` event sets `llm.reasoningEffort`: the effort is `{effort}`, the loop's default at contract v16"
        ));
    }
    if path.is_none() {
        notes.push("the request event names no path: `prompt_cache_key` is left out".to_string());
    }
    notes.append(&mut input.notes);
    let messages: Vec<Message> = input.items.iter().map(|i| as_message(&i.value)).collect();
    let items = input
        .items
        .iter()
        .zip(&messages)
        .map(|(item, message)| RenderedItem {
            offset: item.offset,
            lane: "input".to_string(),
            product_role: message.role,
            provider_role: message.role,
            rule: rule_of(message.role),
        })
        .collect();
    let tokens = crate::iterate::tokens::count_messages(model.as_deref(), &messages);
    RequestSnapshot {
        request_offset,
        transport: Transport::Openai,
        model,
        messages,
        items,
        tokens,
        responses_body: Some(body),
        notes,
    }
}
