//! Decoding one `agentskit.chat.turn` envelope the way the protocol's own decoder does: the same
//! three error codes in the same order (version, then event kind, then everything else), the
//! same field rules, unknown fields tolerated. A reason names the first offending field so the
//! inspector can say more than the protocol's generic messages.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use journalscope_shapes::record_json::Field;

mod fields;

use fields::{
    identifier, is_diagnostic_code, kind_of, non_negative_integer, optional_str, str_field,
};
pub use fields::{is_canonical_instant, is_identifier, is_iso_datetime};

pub const PROTOCOL: &str = "agentskit.chat.turn";
pub const VERSION: u64 = 1;

pub const SUBMIT: &str = "client.turn.submit";
pub const SNAPSHOT: &str = "server.turn.snapshot";
pub const DIAGNOSTIC: &str = "server.turn.diagnostic";
const EVENTS: &[&str] = &[SUBMIT, SNAPSHOT, DIAGNOSTIC];

/// The protocol's decode error codes, spelled as the protocol spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[ts(export, rename = "AgentsKitProtocolCode")]
pub enum ProtocolCode {
    #[serde(rename = "PROTOCOL_UNSUPPORTED_VERSION")]
    UnsupportedVersion,
    #[serde(rename = "PROTOCOL_UNKNOWN_EVENT")]
    UnknownEvent,
    #[serde(rename = "PROTOCOL_INVALID_PAYLOAD")]
    InvalidPayload,
}

impl ProtocolCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolCode::UnsupportedVersion => "PROTOCOL_UNSUPPORTED_VERSION",
            ProtocolCode::UnknownEvent => "PROTOCOL_UNKNOWN_EVENT",
            ProtocolCode::InvalidPayload => "PROTOCOL_INVALID_PAYLOAD",
        }
    }
}

impl std::fmt::Display for ProtocolCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a line is not a valid turn event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {reason}")]
pub struct DecodeError {
    pub code: ProtocolCode,
    pub reason: String,
}

impl DecodeError {
    fn invalid(reason: impl Into<String>) -> DecodeError {
        DecodeError {
            code: ProtocolCode::InvalidPayload,
            reason: reason.into(),
        }
    }
}

/// A decoded envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEvent {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub sequence: u64,
    pub emitted_at: String,
    pub body: TurnBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TurnBody {
    Submit { input: String },
    Snapshot(Snapshot),
    Diagnostic(TurnDiagnostic),
}

impl TurnBody {
    pub fn event_name(&self) -> &'static str {
        match self {
            TurnBody::Submit { .. } => SUBMIT,
            TurnBody::Snapshot(_) => SNAPSHOT,
            TurnBody::Diagnostic(_) => DIAGNOSTIC,
        }
    }
}

/// A complete turn snapshot: the whole conversation as the server holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub messages: Vec<Message>,
    pub status: TurnStatus,
    pub usage: Usage,
    pub error: Option<TurnDiagnostic>,
    pub lineage: Option<Lineage>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "AgentsKitTurnStatus")]
pub enum TurnStatus {
    Idle,
    Streaming,
    Complete,
    Error,
}

impl TurnStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnStatus::Idle => "idle",
            TurnStatus::Streaming => "streaming",
            TurnStatus::Complete => "complete",
            TurnStatus::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgentsKitUsage")]
pub struct Usage {
    #[ts(type = "number")]
    pub prompt_tokens: u64,
    #[ts(type = "number")]
    pub completion_tokens: u64,
    #[ts(type = "number")]
    pub total_tokens: u64,
}

/// The `server.turn.diagnostic` payload, also a snapshot's optional `error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, rename = "AgentsKitTurnDiagnostic")]
pub struct TurnDiagnostic {
    pub code: String,
    pub message: String,
    pub retryable: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "AgentsKitOperation")]
pub enum Operation {
    Submit,
    Retry,
    Edit,
    Regenerate,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Submit => "submit",
            Operation::Retry => "retry",
            Operation::Edit => "edit",
            Operation::Regenerate => "regenerate",
        }
    }
}

/// Which operation made a turn and, unless it is a plain submit, what it derives from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgentsKitLineage")]
pub struct Lineage {
    pub operation: Operation,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent_turn_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source_message_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "AgentsKitRole")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "AgentsKitMessageStatus")]
pub enum MessageStatus {
    Pending,
    Streaming,
    Complete,
    Error,
}

impl MessageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Pending => "pending",
            MessageStatus::Streaming => "streaming",
            MessageStatus::Complete => "complete",
            MessageStatus::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, rename = "AgentsKitToolStatus")]
pub enum ToolStatus {
    Pending,
    Running,
    Complete,
    Error,
    RequiresConfirmation,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgentsKitToolCall")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub args: Value,
    pub status: ToolStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub result: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

/// A canonical AgentsKit message as a snapshot carries it. Unknown fields are dropped, as the
/// protocol's own projection drops them.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgentsKitMessage")]
pub struct Message {
    pub id: String,
    pub role: Role,
    pub content: String,
    pub status: MessageStatus,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parts: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub metadata: Option<Value>,
}

/// Decodes one line. `None` is a line that is not JSON, which the protocol reports as an
/// invalid payload.
pub fn decode(value: Option<&Value>) -> Result<TurnEvent, DecodeError> {
    let Some(value) = value else {
        return Err(DecodeError::invalid("the line is not valid JSON"));
    };
    let Some(envelope) = value.as_object() else {
        return Err(DecodeError::invalid("an envelope must be a JSON object"));
    };
    // The protocol checks version and event kind before anything else, and only for envelopes
    // that claim to be its own; the order decides which code a doubly broken line gets.
    if envelope.field("protocol").and_then(Value::as_str) == Some(PROTOCOL) {
        if let Some(version) = envelope.field("version").and_then(Value::as_f64) {
            if version != VERSION as f64 {
                return Err(DecodeError {
                    code: ProtocolCode::UnsupportedVersion,
                    reason: format!(
                        "version {} is not supported (only {VERSION})",
                        envelope["version"]
                    ),
                });
            }
            if let Some(event) = envelope.field("event").and_then(Value::as_str) {
                if !EVENTS.contains(&event) {
                    return Err(DecodeError {
                        code: ProtocolCode::UnknownEvent,
                        reason: format!("event {event:?} is not a turn event"),
                    });
                }
            }
        }
    }
    decode_envelope(envelope).map_err(DecodeError::invalid)
}

fn decode_envelope(envelope: &Map<String, Value>) -> Result<TurnEvent, String> {
    match envelope.field("protocol") {
        Some(Value::String(p)) if p == PROTOCOL => {}
        Some(other) => return Err(format!("protocol is {other}, not {PROTOCOL:?}")),
        None => return Err("protocol is missing".into()),
    }
    match envelope.field("version") {
        Some(v) if v.as_f64() == Some(VERSION as f64) => {}
        Some(other) => return Err(format!("version is {other}, not {VERSION}")),
        None => return Err("version is missing".into()),
    }
    let event_id = identifier(envelope, "eventId", "")?;
    let session_id = identifier(envelope, "sessionId", "")?;
    let turn_id = identifier(envelope, "turnId", "")?;
    let sequence = match envelope.field("sequence") {
        Some(v) => non_negative_integer(v)
            .ok_or_else(|| format!("sequence is {v}, not an integer >= 0"))?,
        None => return Err("sequence is missing".into()),
    };
    let emitted_at = match envelope.field("emittedAt") {
        Some(Value::String(s)) if is_iso_datetime(s) => s.clone(),
        Some(other) => return Err(format!("emittedAt is {other}, not an ISO-8601 date-time")),
        None => return Err("emittedAt is missing".into()),
    };
    let event = match envelope.field("event") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(format!("event is {other}, not a string")),
        None => return Err("event is missing".into()),
    };
    let payload = match envelope.field("payload") {
        Some(Value::Object(p)) => p,
        Some(other) => return Err(format!("payload is {}, not an object", kind_of(other))),
        None => return Err("payload is missing".into()),
    };
    let body = match event {
        SUBMIT => TurnBody::Submit {
            input: submit_input(payload)?,
        },
        SNAPSHOT => TurnBody::Snapshot(snapshot(payload)?),
        DIAGNOSTIC => TurnBody::Diagnostic(turn_diagnostic(payload, "payload")?),
        other => return Err(format!("event {other:?} is not a turn event")),
    };
    Ok(TurnEvent {
        event_id,
        session_id,
        turn_id,
        sequence,
        emitted_at,
        body,
    })
}

fn submit_input(payload: &Map<String, Value>) -> Result<String, String> {
    match payload.field("input") {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err("payload.input is blank".into()),
        Some(other) => Err(format!("payload.input is {}, not a string", kind_of(other))),
        None => Err("payload.input is missing".into()),
    }
}

fn snapshot(payload: &Map<String, Value>) -> Result<Snapshot, String> {
    let messages = match payload.field("messages") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, m)| message(m, &format!("payload.messages[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(other) => {
            return Err(format!(
                "payload.messages is {}, not an array",
                kind_of(other)
            ))
        }
        None => return Err("payload.messages is missing".into()),
    };
    let status = match str_field(payload, "status", "payload")? {
        "idle" => TurnStatus::Idle,
        "streaming" => TurnStatus::Streaming,
        "complete" => TurnStatus::Complete,
        "error" => TurnStatus::Error,
        other => {
            return Err(format!(
                "payload.status {other:?} is not idle, streaming, complete or error"
            ))
        }
    };
    let usage = match payload.field("usage") {
        Some(Value::Object(u)) => Usage {
            prompt_tokens: token_count(u, "promptTokens")?,
            completion_tokens: token_count(u, "completionTokens")?,
            total_tokens: token_count(u, "totalTokens")?,
        },
        Some(other) => {
            return Err(format!(
                "payload.usage is {}, not an object",
                kind_of(other)
            ))
        }
        None => return Err("payload.usage is missing".into()),
    };
    let error = match payload.field("error") {
        None => None,
        Some(Value::Object(e)) => Some(turn_diagnostic(e, "payload.error")?),
        Some(other) => {
            return Err(format!(
                "payload.error is {}, not an object",
                kind_of(other)
            ))
        }
    };
    let lineage = match payload.field("lineage") {
        None => None,
        Some(Value::Object(l)) => Some(lineage(l)?),
        Some(other) => {
            return Err(format!(
                "payload.lineage is {}, not an object",
                kind_of(other)
            ))
        }
    };
    Ok(Snapshot {
        messages,
        status,
        usage,
        error,
        lineage,
    })
}

fn token_count(usage: &Map<String, Value>, field: &str) -> Result<u64, String> {
    match usage.get(field) {
        Some(v) => non_negative_integer(v)
            .ok_or_else(|| format!("payload.usage.{field} is {v}, not an integer >= 0")),
        None => Err(format!("payload.usage.{field} is missing")),
    }
}

fn lineage(lineage: &Map<String, Value>) -> Result<Lineage, String> {
    let operation = match str_field(lineage, "operation", "payload.lineage")? {
        "submit" => Operation::Submit,
        "retry" => Operation::Retry,
        "edit" => Operation::Edit,
        "regenerate" => Operation::Regenerate,
        other => {
            return Err(format!(
                "payload.lineage.operation {other:?} is not submit, retry, edit or regenerate"
            ))
        }
    };
    if operation == Operation::Submit {
        // A submit has no ancestry; stray ancestry fields are dropped like any unknown field.
        return Ok(Lineage {
            operation,
            parent_turn_id: None,
            source_message_id: None,
        });
    }
    Ok(Lineage {
        operation,
        parent_turn_id: Some(identifier(lineage, "parentTurnId", "payload.lineage.")?),
        source_message_id: Some(identifier(lineage, "sourceMessageId", "payload.lineage.")?),
    })
}

fn turn_diagnostic(payload: &Map<String, Value>, at: &str) -> Result<TurnDiagnostic, String> {
    match payload.field("version") {
        Some(v) if v.as_f64() == Some(1.0) => {}
        Some(other) => return Err(format!("{at}.version is {other}, not 1")),
        None => return Err(format!("{at}.version is missing")),
    }
    let code = str_field(payload, "code", at)?;
    if !is_diagnostic_code(code) {
        return Err(format!(
            "{at}.code {code:?} is not an upper-case code like TURN_FAILED"
        ));
    }
    let message = str_field(payload, "message", at)?;
    if message.is_empty() {
        return Err(format!("{at}.message is empty"));
    }
    let retryable = match payload.field("retryable") {
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "{at}.retryable is {}, not a boolean",
                kind_of(other)
            ))
        }
        None => return Err(format!("{at}.retryable is missing")),
    };
    Ok(TurnDiagnostic {
        code: code.to_string(),
        message: message.to_string(),
        retryable,
    })
}

fn message(value: &Value, at: &str) -> Result<Message, String> {
    let Some(m) = value.as_object() else {
        return Err(format!("{at} is {}, not an object", kind_of(value)));
    };
    let id = str_field(m, "id", at)?;
    if id.is_empty() {
        return Err(format!("{at}.id is empty"));
    }
    let content = str_field(m, "content", at)?;
    let role = match str_field(m, "role", at)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        "tool" => Role::Tool,
        other => {
            return Err(format!(
                "{at}.role {other:?} is not user, assistant, system or tool"
            ))
        }
    };
    let status = match str_field(m, "status", at)? {
        "pending" => MessageStatus::Pending,
        "streaming" => MessageStatus::Streaming,
        "complete" => MessageStatus::Complete,
        "error" => MessageStatus::Error,
        other => {
            return Err(format!(
                "{at}.status {other:?} is not pending, streaming, complete or error"
            ))
        }
    };
    let created_at = str_field(m, "createdAt", at)?;
    if !is_canonical_instant(created_at) {
        return Err(format!(
            "{at}.createdAt {created_at:?} is not a UTC instant like 2026-07-11T10:00:00.000Z"
        ));
    }
    let tool_call_id = optional_str(m, "toolCallId", at)?;
    let parts = match m.field("parts") {
        None => None,
        Some(Value::Array(items)) => {
            for (i, part) in items.iter().enumerate() {
                content_part(part, &format!("{at}.parts[{i}]"))?;
            }
            Some(items.clone())
        }
        Some(other) => return Err(format!("{at}.parts is {}, not an array", kind_of(other))),
    };
    let tool_calls = match m.field("toolCalls") {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, c)| tool_call(c, &format!("{at}.toolCalls[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(other) => {
            return Err(format!(
                "{at}.toolCalls is {}, not an array",
                kind_of(other)
            ))
        }
    };
    let metadata = match m.field("metadata") {
        None => None,
        Some(v @ Value::Object(_)) => Some(v.clone()),
        Some(other) => {
            return Err(format!(
                "{at}.metadata is {}, not an object",
                kind_of(other)
            ))
        }
    };
    Ok(Message {
        id: id.to_string(),
        role,
        content: content.to_string(),
        status,
        created_at: created_at.to_string(),
        parts,
        tool_calls,
        tool_call_id,
        metadata,
    })
}

fn content_part(value: &Value, at: &str) -> Result<(), String> {
    let Some(part) = value.as_object() else {
        return Err(format!("{at} is {}, not an object", kind_of(value)));
    };
    let kind = str_field(part, "type", at)?;
    match kind {
        "text" => {
            str_field(part, "text", at)?;
            return Ok(());
        }
        "image" | "audio" | "video" | "file" => {}
        other => {
            return Err(format!(
                "{at}.type {other:?} is not text, image, audio, video or file"
            ))
        }
    }
    str_field(part, "source", at)?;
    optional_str(part, "mimeType", at)?;
    if kind == "image" {
        if let Some(detail) = part.field("detail") {
            if !matches!(detail.as_str(), Some("low" | "high" | "auto")) {
                return Err(format!("{at}.detail is {detail}, not low, high or auto"));
            }
        }
    }
    if kind == "audio" || kind == "video" {
        if let Some(duration) = part.field("durationSec") {
            if !duration.as_f64().is_some_and(|d| d.is_finite() && d >= 0.0) {
                return Err(format!("{at}.durationSec is {duration}, not a number >= 0"));
            }
        }
    }
    if kind == "file" {
        optional_str(part, "filename", at)?;
    }
    Ok(())
}

fn tool_call(value: &Value, at: &str) -> Result<ToolCall, String> {
    let Some(call) = value.as_object() else {
        return Err(format!("{at} is {}, not an object", kind_of(value)));
    };
    let id = str_field(call, "id", at)?;
    let name = str_field(call, "name", at)?;
    if id.is_empty() || name.is_empty() {
        return Err(format!("{at} needs a non-empty id and name"));
    }
    let args = match call.field("args") {
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => return Err(format!("{at}.args is {}, not an object", kind_of(other))),
        None => return Err(format!("{at}.args is missing")),
    };
    let status = match str_field(call, "status", at)? {
        "pending" => ToolStatus::Pending,
        "running" => ToolStatus::Running,
        "complete" => ToolStatus::Complete,
        "error" => ToolStatus::Error,
        "requires_confirmation" => ToolStatus::RequiresConfirmation,
        other => return Err(format!("{at}.status {other:?} is not a tool call status")),
    };
    Ok(ToolCall {
        id: id.to_string(),
        name: name.to_string(),
        args,
        status,
        result: optional_str(call, "result", at)?,
        error: optional_str(call, "error", at)?,
    })
}

#[cfg(test)]
mod tests;
