//! Typed iterate events: the envelope fields the fold needs, parsed leniently from a stored
//! record. Parsing never fails; what is odd about a payload becomes a diagnostic.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::reader::short_type;
use crate::diagnostic::Diagnostic;

/// The product role of a context item, before any provider mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
}

impl Role {
    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "system" => Some(Role::System),
            "developer" => Some(Role::Developer),
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// Whether an item wakes the model (`llmRequestPolicy.behaviour`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    AfterCurrentRequest,
    InterruptCurrentRequest,
    DontTriggerRequest,
}

/// The payload of a `context-added` event.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextAdded {
    pub role: Role,
    pub content: std::sync::Arc<str>,
    pub key: Option<String>,
    pub actor: Option<Value>,
    pub refs: Vec<Value>,
    pub files: Vec<Value>,
    pub behaviour: Behaviour,
    pub llm_request_offset: Option<i64>,
    /// The raw `compaction` object, when present.
    pub compaction: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    ContextAdded(Box<ContextAdded>),
    RequestRequested {
        model: Option<String>,
    },
    /// Known or unknown events that do not change the projection.
    Other,
}

/// One iterate event as the fold sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct IterateEvent {
    pub seq: u64,
    pub line: u64,
    pub offset: i64,
    pub created_at: Option<String>,
    pub kind: EventKind,
    /// What the event shows of the contract its journal follows.
    pub contract: Option<super::contract::Signal>,
}

/// Whether events of type `kind` can change the projection: every other type parses to
/// [`EventKind::Other`], so a fold may skip such records unread.
pub fn changes_projection(kind: &str) -> bool {
    matches!(
        short_type(kind),
        Some("context-added" | "llm-request-requested")
    )
}

/// Parses what the fold needs from one record. `None` when the record cannot be reduced at all
/// (not JSON, not an object, no integer offset); the reader has reported why.
pub fn parse(seq: u64, line: u64, value: &Value) -> (Option<IterateEvent>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let Some(object) = value.as_object() else {
        return (None, diagnostics);
    };
    let offset = match object.get("offset") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    };
    let Some(offset) = offset else {
        return (None, diagnostics);
    };
    let created_at = object
        .get("createdAt")
        .and_then(Value::as_str)
        .map(str::to_string);
    let kind = match object
        .get("type")
        .and_then(Value::as_str)
        .and_then(short_type)
    {
        Some("context-added") => {
            match parse_context(line, offset, object.get("payload"), &mut diagnostics) {
                Some(context) => EventKind::ContextAdded(Box::new(context)),
                None => EventKind::Other,
            }
        }
        Some("llm-request-requested") => EventKind::RequestRequested {
            model: object
                .get("payload")
                .and_then(|p| p.get("model"))
                .and_then(Value::as_str)
                .map(str::to_string),
        },
        _ => EventKind::Other,
    };
    (
        Some(IterateEvent {
            seq,
            line,
            offset,
            created_at,
            kind,
            contract: super::contract::signal(value),
        }),
        diagnostics,
    )
}

/// [`parse`] of a record's value that the caller no longer needs: a context item's content,
/// most of a record's bytes, is taken out of the value instead of cloned from it.
pub fn parse_owned(
    seq: u64,
    line: u64,
    mut value: Value,
) -> (Option<IterateEvent>, Vec<Diagnostic>) {
    let content = match value
        .get_mut("payload")
        .and_then(|payload| payload.get_mut("content"))
    {
        Some(Value::String(text)) => Some(std::mem::take(text)),
        _ => None,
    };
    let (mut event, diagnostics) = parse(seq, line, &value);
    if let (Some(event), Some(content)) = (event.as_mut(), content) {
        if let EventKind::ContextAdded(context) = &mut event.kind {
            context.content = content.into();
        }
    }
    (event, diagnostics)
}

fn parse_context(
    line: u64,
    offset: i64,
    payload: Option<&Value>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<ContextAdded> {
    let Some(payload) = payload.and_then(Value::as_object) else {
        diagnostics.push(Diagnostic::error(
            line,
            Some(offset),
            "invalid-payload",
            "context-added has no payload object: ignored",
        ));
        return None;
    };
    let role = match payload.get("role").and_then(Value::as_str) {
        Some(text) => match Role::parse(text) {
            Some(role) => role,
            None => {
                diagnostics.push(Diagnostic::error(
                    line,
                    Some(offset),
                    "invalid-role",
                    format!("role {text:?} is not system, developer, user or assistant: ignored"),
                ));
                return None;
            }
        },
        None => {
            diagnostics.push(Diagnostic::error(
                line,
                Some(offset),
                "invalid-role",
                "context-added has no role: ignored",
            ));
            return None;
        }
    };
    let content = match payload.get("content") {
        Some(Value::String(text)) => text.clone(),
        None | Some(Value::Null) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "missing-content",
                "context-added has no content: rendered empty",
            ));
            String::new()
        }
        Some(other) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "content-not-string",
                "content is not a string: rendered as its JSON text",
            ));
            other.to_string()
        }
    };
    let key = match payload.get("key") {
        Some(Value::String(key)) => Some(key.clone()),
        None | Some(Value::Null) => None,
        Some(other) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "key-not-string",
                format!("key {other} is not a string: treated as unkeyed"),
            ));
            None
        }
    };
    let mut list = |field: &str| match payload.get(field) {
        Some(Value::Array(items)) => items.clone(),
        None | Some(Value::Null) => Vec::new(),
        Some(other) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "field-not-list",
                format!("{field} is {other}, not a list: treated as empty"),
            ));
            Vec::new()
        }
    };
    let refs = list("refs");
    let files = list("files");
    if let Some(actor) = payload
        .get("actor")
        .filter(|a| !a.is_null() && !a.is_object())
    {
        diagnostics.push(Diagnostic::warning(
            line,
            Some(offset),
            "actor-not-object",
            format!(
                "actor is {actor}, not an object: treated as an external actor of unknown type"
            ),
        ));
    }
    let llm_request_offset = match payload.get("llmRequestOffset") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.is_i64() => n.as_i64(),
        Some(other) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "field-not-integer",
                format!("llmRequestOffset is {other}, not an integer offset: ignored"),
            ));
            None
        }
    };
    let behaviour = match payload
        .get("llmRequestPolicy")
        .and_then(|p| p.get("behaviour"))
        .and_then(Value::as_str)
    {
        None | Some("after-current-request") => Behaviour::AfterCurrentRequest,
        Some("interrupt-current-request") => Behaviour::InterruptCurrentRequest,
        Some("dont-trigger-request") => Behaviour::DontTriggerRequest,
        Some(other) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "unknown-request-policy",
                format!("llmRequestPolicy.behaviour {other:?} is unknown: after-current-request assumed"),
            ));
            Behaviour::AfterCurrentRequest
        }
    };
    Some(ContextAdded {
        role,
        content: content.into(),
        key,
        actor: payload.get("actor").filter(|a| !a.is_null()).cloned(),
        refs,
        files,
        behaviour,
        llm_request_offset,
        compaction: payload.get("compaction").filter(|c| !c.is_null()).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing_a_value_the_caller_gives_up_finds_what_parsing_a_borrowed_one_does() {
        let records = [
            r#"{"offset":1,"type":"events.iterate.com/agent/context-added","payload":{"role":"user","content":"hello there","key":"k"}}"#,
            r#"{"offset":2,"type":"context-added","payload":{"role":"developer","content":{"not":"text"}}}"#,
            r#"{"offset":3,"type":"context-added","payload":{"role":"user"}}"#,
            r#"{"offset":4,"type":"context-added","payload":{"role":"wizard","content":"x"}}"#,
            r#"{"offset":5,"type":"llm-request-requested","payload":{"model":"m","content":"not a context item"}}"#,
            r#"{"offset":"6","type":"context-added","payload":"not an object"}"#,
            r#"{"type":"context-added","payload":{"role":"user","content":"no offset"}}"#,
            r#"["not an object"]"#,
        ];
        for record in records {
            let value: Value = serde_json::from_str(record).expect("test JSON");
            assert_eq!(
                parse_owned(7, 8, value.clone()),
                parse(7, 8, &value),
                "moving the content out must not change the event or its diagnostics: {record}"
            );
        }
    }
}
