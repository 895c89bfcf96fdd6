//! The shapes a transcript's views share, whatever wrote it (Claude Code, Codex): a request as
//! the list shows it, and the conversation at a line. Each transcript dialect fills them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// One request as `requests` lists it: its first line, ids, model, thread and the usage its
/// last line reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "ConversationRequest")]
pub struct RequestRow {
    #[ts(type = "number")]
    pub offset: i64,
    pub request_id: Option<String>,
    pub message_id: Option<String>,
    pub model: Option<String>,
    pub sidechain: bool,
    #[ts(type = "Record<string, number> | null")]
    pub usage: Option<Value>,
}

/// One line of the conversation, as the projection shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationItem {
    #[ts(type = "number")]
    pub offset: i64,
    pub uuid: Option<String>,
    pub role: String,
    #[ts(type = "Array<unknown>")]
    pub content: Vec<Value>,
    pub timestamp: Option<String>,
    /// The request (or message) id of the response an assistant line belongs to.
    pub response: Option<String>,
}

/// What the model could see at an offset: the system lane is not recorded in a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationView {
    #[ts(type = "number")]
    pub at: i64,
    pub system_known: bool,
    #[ts(type = "Array<unknown>")]
    pub system: Vec<Value>,
    pub history: Vec<ConversationItem>,
}
