//! Typed iterate events: the envelope fields the fold needs, parsed leniently from a stored
//! record. Parsing never fails; what is odd about a payload becomes a diagnostic.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::reader::short_type;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::{Json, Node};

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
    /// Whether the payload names its role; a sections-contract payload may leave it to be
    /// derived from its actor, and `role` is then that derived role.
    pub stated_role: bool,
}

impl ContextAdded {
    /// The role the sections contract gives the item: a key makes it system, a compaction
    /// summary user; with no actor the stated role stands (user when none is stated); the
    /// platform, agent, script and worker actors are developer, the model is assistant, and
    /// every other actor is user.
    pub fn derived_role(&self) -> Role {
        derive_role(
            self.role,
            self.key.is_some(),
            self.compaction.is_some(),
            self.actor.as_ref(),
        )
    }
}

/// [`ContextAdded::derived_role`] from the fields an item keeps.
pub fn derive_role(stated: Role, keyed: bool, summary: bool, actor: Option<&Value>) -> Role {
    if keyed {
        return Role::System;
    }
    if summary {
        return Role::User;
    }
    let Some(actor) = actor else {
        return stated;
    };
    match actor.field("type").and_then(Node::as_str) {
        Some("platform" | "agent" | "script" | "worker") => Role::Developer,
        Some("model") => Role::Assistant,
        _ => Role::User,
    }
}

/// What a `context-rewritten` does to the sections of the list.
#[derive(Debug, Clone, PartialEq)]
pub enum Rewrite {
    /// Every section of `key` gives way to one fresh section holding `content`.
    Replace {
        key: String,
        content: std::sync::Arc<str>,
    },
    /// Every section of `key` goes.
    Delete { key: String },
    /// The whole list goes: sections, messages and stamps.
    DeleteAll,
}

/// How a request ended, as `llm-request-settled` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settlement {
    Succeeded,
    Failed,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    ContextAdded(Box<ContextAdded>),
    RequestRequested {
        model: Option<String>,
    },
    ContextRewritten(Rewrite),
    RequestSettled {
        request: Option<i64>,
        settlement: Settlement,
    },
    Paused,
    Resumed,
    /// What the provider reported a request cost; it changes nothing the model sees.
    UsageReported(Usage),
    /// Known or unknown events that do not change the projection.
    Other,
}

/// A `token-usage-reported` payload: each figure as the provider gave it, if it did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Usage {
    #[ts(type = "number | null")]
    pub request: Option<i64>,
    #[ts(type = "number | null")]
    pub input: Option<u64>,
    #[ts(type = "number | null")]
    pub cached_input: Option<u64>,
    #[ts(type = "number | null")]
    pub output: Option<u64>,
    #[ts(type = "number | null")]
    pub max_context: Option<u64>,
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
    /// What the agent loop's fold reads beside the typed event.
    pub agent: Option<Box<super::agent_loop::Envelope>>,
}

/// Whether events of type `kind` can change the projection: every other type parses to
/// [`EventKind::Other`], so a fold may skip such records unread.
pub fn changes_projection(kind: &str) -> bool {
    matches!(
        short_type(kind),
        Some(
            "context-added"
                | "llm-request-requested"
                | "context-rewritten"
                | "llm-request-settled"
                | "paused"
                | "resumed"
        )
    )
}

/// Parses what the fold needs from one record. `None` when the record cannot be reduced at all
/// (not JSON, not an object, no integer offset); the reader has reported why.
pub fn parse<J: Node>(seq: u64, line: u64, value: &J) -> (Option<IterateEvent>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    if !value.is_object() {
        return (None, diagnostics);
    }
    let object = value;
    let offset = object
        .field("offset")
        .and_then(|offset| match offset.as_str() {
            Some(text) => text.parse().ok(),
            None => offset.as_i64(),
        });
    let Some(offset) = offset else {
        return (None, diagnostics);
    };
    let created_at = object
        .field("createdAt")
        .and_then(Node::as_str)
        .map(str::to_string);
    let kind = match object
        .field("type")
        .and_then(Node::as_str)
        .and_then(short_type)
    {
        Some("context-added") => {
            match parse_context(line, offset, object.field("payload"), &mut diagnostics) {
                Some(context) => EventKind::ContextAdded(Box::new(context)),
                None => EventKind::Other,
            }
        }
        Some("llm-request-requested") => EventKind::RequestRequested {
            model: object
                .field("payload")
                .and_then(|p| p.field("model"))
                .and_then(Node::as_str)
                .map(str::to_string),
        },
        Some("context-rewritten") => {
            match parse_rewrite(line, offset, object.field("payload"), &mut diagnostics) {
                Some(rewrite) => EventKind::ContextRewritten(rewrite),
                None => EventKind::Other,
            }
        }
        Some("llm-request-settled") => {
            let payload = object.field("payload");
            let status = payload
                .and_then(|p| p.field("result"))
                .and_then(|r| r.field("status"))
                .and_then(Node::as_str);
            EventKind::RequestSettled {
                request: payload
                    .and_then(|p| {
                        p.field("requestOffset")
                            .or_else(|| p.field("llmRequestOffset"))
                    })
                    .and_then(Node::as_i64),
                settlement: match status {
                    Some("failed") => Settlement::Failed,
                    Some("cancelled") => Settlement::Cancelled,
                    _ => Settlement::Succeeded,
                },
            }
        }
        Some("paused") => EventKind::Paused,
        Some("resumed") => EventKind::Resumed,
        Some("token-usage-reported") => {
            let payload = object.field("payload");
            let number = |field: &str| payload.and_then(|p| p.field(field)).and_then(Node::as_u64);
            EventKind::UsageReported(Usage {
                request: payload
                    .and_then(|p| {
                        p.field("llmRequestOffset")
                            .or_else(|| p.field("requestOffset"))
                    })
                    .and_then(Node::as_i64),
                input: number("inputTokens"),
                cached_input: number("cachedInputTokens"),
                output: number("outputTokens"),
                max_context: number("maxContextTokens"),
            })
        }
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
            agent: super::agent_loop::Envelope::of(value).map(Box::new),
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
    let context = value
        .field("type")
        .and_then(Node::as_str)
        .and_then(short_type)
        == Some("context-added");
    let content = match value
        .get_mut("payload")
        .and_then(|payload| payload.get_mut("content"))
        .filter(|_| context)
    {
        Some(Value::String(text)) => Some(std::mem::take(text)),
        _ => None,
    };
    with_content(parse(seq, line, &value), content.map(Into::into))
}

/// [`parse`] of a record's tree the caller gives up: a context item's content, most of a
/// record, is copied once, straight from the record's bytes into the event.
pub fn parse_tree(
    seq: u64,
    line: u64,
    mut tree: Json<'_>,
) -> (Option<IterateEvent>, Vec<Diagnostic>) {
    let context = tree
        .field("type")
        .and_then(Json::as_str)
        .and_then(short_type)
        == Some("context-added");
    let content = match tree
        .field_mut("payload")
        .and_then(|payload| payload.field_mut("content"))
        .filter(|_| context)
    {
        Some(Json::Str(text)) => Some(std::sync::Arc::<str>::from(std::mem::take(text).as_ref())),
        _ => None,
    };
    with_content(parse(seq, line, &tree), content)
}

/// A parsed context item given the content its caller moved out of the record before parsing.
fn with_content(
    (mut event, diagnostics): (Option<IterateEvent>, Vec<Diagnostic>),
    content: Option<std::sync::Arc<str>>,
) -> (Option<IterateEvent>, Vec<Diagnostic>) {
    if let (Some(event), Some(content)) = (event.as_mut(), content) {
        if let EventKind::ContextAdded(context) = &mut event.kind {
            context.content = content;
        }
    }
    (event, diagnostics)
}

fn parse_context<J: Node>(
    line: u64,
    offset: i64,
    payload: Option<&J>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<ContextAdded> {
    let Some(payload) = payload.filter(|p| p.is_object()) else {
        diagnostics.push(Diagnostic::error(
            line,
            Some(offset),
            "invalid-payload",
            "context-added has no payload object: ignored",
        ));
        return None;
    };
    let role = match payload.field("role").filter(|role| !role.is_null()) {
        Some(role) if role.as_str().is_some() => {
            match Role::parse(role.as_str().unwrap_or_default()) {
                Some(role) => role,
                None => {
                    diagnostics.push(Diagnostic::error(
                        line,
                        Some(offset),
                        "invalid-role",
                        format!(
                            "role {:?} is not system, developer, user or assistant: ignored",
                            role.as_str().unwrap_or_default()
                        ),
                    ));
                    return None;
                }
            }
        }
        Some(other) => {
            diagnostics.push(Diagnostic::error(
                line,
                Some(offset),
                "invalid-role",
                format!("role {other} is not a string: ignored"),
            ));
            return None;
        }
        // The sections contract derives it: see below.
        None => Role::User,
    };
    let stated_role = payload.field("role").is_some_and(|role| !role.is_null());
    let content = match payload.field("content").filter(|c| !c.is_null()) {
        Some(text) if text.as_str().is_some() => text.as_str().unwrap_or_default().to_string(),
        None => {
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
    let key = match payload.field("key").filter(|k| !k.is_null()) {
        Some(key) if key.as_str().is_some() => key.as_str().map(str::to_string),
        None => None,
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
    let mut list = |field: &str| match payload.field(field).filter(|l| !l.is_null()) {
        Some(list) if list.as_array().is_some() => list
            .as_array()
            .unwrap_or_default()
            .iter()
            .map(Node::to_value)
            .collect(),
        None => Vec::new(),
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
        .field("actor")
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
    // 8.0.0 puts the request a model turn answers on its actor.
    let llm_request_offset = match payload.field("llmRequestOffset").or_else(|| {
        payload
            .field("actor")
            .and_then(|a| a.field("llmRequestOffset"))
    }) {
        None => None,
        Some(null) if null.is_null() => None,
        Some(n) if n.is_i64() => n.as_i64(),
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
        .field("llmRequestPolicy")
        .and_then(|p| p.field("behaviour"))
        .and_then(Node::as_str)
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
    let mut context = ContextAdded {
        role,
        content: content.into(),
        key,
        actor: payload
            .field("actor")
            .filter(|a| !a.is_null())
            .map(Node::to_value),
        refs,
        files,
        behaviour,
        llm_request_offset,
        compaction: payload
            .field("compaction")
            .filter(|c| !c.is_null())
            .map(Node::to_value),
        stated_role,
    };
    if !stated_role {
        context.role = context.derived_role();
    }
    Some(context)
}

/// A `context-rewritten` payload; `None`, reported, when it breaks the op's rules: replace
/// needs content and a real key, `"*"` is delete-only and delete takes no content.
fn parse_rewrite<J: Node>(
    line: u64,
    offset: i64,
    payload: Option<&J>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Rewrite> {
    let payload = payload.filter(|p| p.is_object());
    let field = |name: &str| payload.and_then(|p| p.field(name)).filter(|v| !v.is_null());
    let op = field("op").and_then(Node::as_str);
    let key = field("key").and_then(Node::as_str);
    let content = field("content");
    let rewrite = match (op, key, content) {
        (Some("delete"), Some("*"), None) => Ok(Rewrite::DeleteAll),
        (Some("delete"), Some(key), None) => Ok(Rewrite::Delete {
            key: key.to_string(),
        }),
        (Some("delete"), Some(_), Some(_)) => Err("a delete takes no content".to_string()),
        (Some("replace"), Some("*"), _) => Err("\"*\" can only be deleted".to_string()),
        (Some("replace"), Some(key), Some(text)) if text.as_str().is_some() => {
            Ok(Rewrite::Replace {
                key: key.to_string(),
                content: text.as_str().unwrap_or_default().into(),
            })
        }
        (Some("replace"), Some(_), Some(_)) => Err("replace content is not a string".to_string()),
        (Some("replace"), Some(_), None) => Err("a replace needs content".to_string()),
        (Some("replace" | "delete"), None, _) => Err("it names no key".to_string()),
        (Some(other), _, _) => Err(format!("op {other:?} is neither replace nor delete")),
        (None, _, _) => Err("it has no op".to_string()),
    };
    match rewrite {
        Ok(rewrite) => Some(rewrite),
        Err(reason) => {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "invalid-rewrite",
                format!("context-rewritten skipped: {reason}"),
            ));
            None
        }
    }
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
            r#"{"offset":5,"type":"context-rewritten","payload":{"op":"replace","key":"k","content":"kept"}}"#,
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
            let (tree, _) =
                journalscope_shapes::record_json::parse_tree(record.as_bytes()).expect("test JSON");
            let journalscope_shapes::record_json::Parsed::Tree(tree) = tree else {
                panic!("a fresh parse is a tree");
            };
            assert_eq!(
                parse_tree(7, 8, tree),
                parse(7, 8, &value),
                "reading the record's tree finds what reading its value does: {record}"
            );
        }
    }
}
