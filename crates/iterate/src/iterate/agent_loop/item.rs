//! A context item of the agent loop: the payload fields rendering reads, and its token count,
//! counted once and kept.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::Envelope;
use crate::iterate::event::{ContextAdded, IterateEvent, Role};
use journalscope_shapes::record_json::Field;

/// One context item, with the payload fields rendering reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextItem {
    pub offset: i64,
    /// The record it came from (the request's, for a stamp).
    pub seq: u64,
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<Value>,
    /// The context that wrote it, when another than the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_request_offset: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_items: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Value>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub snapshot: bool,
    /// The `Requested at:` stamp an opened request leaves.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stamp: bool,
    /// Its content's o200k_base tokens, once counted or read from the store.
    #[serde(skip)]
    pub tokens: TokenMemo,
}

/// An item's count, kept once taken: a cache of a pure function of the item's content, so two
/// items are equal whatever their memos hold, and no checkpoint writes it.
#[derive(Debug, Clone, Default)]
pub struct TokenMemo(OnceLock<u32>);

impl PartialEq for TokenMemo {
    fn eq(&self, _: &TokenMemo) -> bool {
        true
    }
}

impl TokenMemo {
    /// The count, if taken.
    pub fn get(&self) -> Option<u32> {
        self.0.get().copied()
    }

    /// Takes a count read from the store, unless one was taken already.
    pub fn restore(&self, tokens: u32) {
        let _ = self.0.set(tokens);
    }

    /// The count, taken with `count` if it was not yet.
    pub fn get_or_count(&self, count: impl FnOnce() -> u32) -> u32 {
        *self.0.get_or_init(count)
    }
}

impl ContextItem {
    /// The item a `context-added` appends: all of it is its record's, so that a checkpoint
    /// may name it by that record and build it again from it.
    pub fn added(event: &IterateEvent, context: &ContextAdded, envelope: &Envelope) -> ContextItem {
        let from = match (envelope.origin.as_deref(), envelope.path.as_deref()) {
            (Some(origin), path) if Some(origin) != path => Some(origin.to_string()),
            _ => envelope
                .field("from")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
        .filter(|from| from != "/");
        ContextItem {
            offset: event.offset,
            seq: event.seq,
            role: context.role,
            content: context.content.to_string(),
            actor: context.actor.clone(),
            files: context.files.clone(),
            from,
            llm_request_offset: context.llm_request_offset,
            compaction: context.compaction.clone(),
            call: envelope.field("call").cloned(),
            provider_items: envelope.field("providerItems").cloned(),
            provider_model: envelope
                .field("providerModel")
                .and_then(Value::as_str)
                .map(str::to_string),
            sections: envelope.field("sections").cloned(),
            snapshot: envelope.field("snapshot") == Some(&Value::Bool(true)),
            stamp: false,
            tokens: TokenMemo::default(),
        }
    }

    /// A compaction's summary, as the compaction at `event` places it: its record's alone.
    pub fn summary(
        event: &IterateEvent,
        context: &ContextAdded,
        compaction: &Value,
    ) -> ContextItem {
        ContextItem {
            offset: event.offset,
            seq: event.seq,
            role: context.role,
            content: context.content.to_string(),
            actor: context.actor.clone(),
            files: Vec::new(),
            from: None,
            llm_request_offset: None,
            compaction: Some(compaction.clone()),
            call: None,
            provider_items: None,
            provider_model: None,
            sections: None,
            snapshot: false,
            stamp: false,
            tokens: TokenMemo::default(),
        }
    }

    /// The `Requested at:` stamp the request at `event` leaves: its record's alone.
    pub fn stamp(event: &IterateEvent) -> ContextItem {
        ContextItem {
            offset: event.offset,
            seq: event.seq,
            role: Role::Developer,
            content: format!(
                "Requested at: {} (UTC)",
                event.created_at.as_deref().unwrap_or("")
            ),
            actor: Some(json!({"type": "agent"})),
            files: Vec::new(),
            from: None,
            llm_request_offset: None,
            compaction: None,
            call: None,
            provider_items: None,
            provider_model: None,
            sections: None,
            snapshot: false,
            stamp: true,
            tokens: TokenMemo::default(),
        }
    }

    /// The actor's `type`.
    pub fn actor_type(&self) -> Option<&str> {
        self.actor
            .as_ref()
            .and_then(|a| a.field("type"))
            .and_then(Value::as_str)
    }

    /// The run a script-actor item reports on (`actor.requestOffset`).
    pub fn script_run(&self) -> Option<i64> {
        (self.actor_type() == Some("script"))
            .then(|| self.actor.as_ref()?.field("requestOffset")?.as_i64())
            .flatten()
    }

    /// The history its compaction replaces, through this offset.
    pub fn replaces_through(&self) -> Option<i64> {
        self.compaction
            .as_ref()?
            .field("replacesHistoryThrough")?
            .as_i64()
    }
}
