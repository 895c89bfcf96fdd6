//! Shared by the AgentsKit integration tests: reading NDJSON into stored events the way an
//! import does (without a database), and building envelopes.
// Each test file uses its own subset of these.

use journalscope::dialect::Dialect;
use journalscope::ingest::read_records;
use journalscope::source::{split, Framing, Position};
use journalscope::store::StoredEvent;
use serde_json::{json, Value};

/// Reads NDJSON text into stored events as the importer reads them, without a database.
pub fn load(text: &str) -> Vec<StoredEvent> {
    let records = split(text.as_bytes(), Framing::Jsonl, Position::default(), true).records;
    read_records(Dialect::AgentsKit, records)
}

/// Stored events of the given envelopes, one per line.
pub fn journal(lines: &[Value]) -> Vec<StoredEvent> {
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    load(&text.join("\n"))
}

fn envelope(session: &str, turn: &str, sequence: u64, event: &str, payload: Value) -> Value {
    json!({
        "protocol": "agentskit.chat.turn",
        "version": 1,
        "eventId": format!("{session}-{turn}-{sequence}-{}", event.rsplit('.').next().unwrap_or(event)),
        "sessionId": session,
        "turnId": turn,
        "sequence": sequence,
        "emittedAt": "2026-07-11T10:00:00.000Z",
        "event": event,
        "payload": payload,
    })
}

pub fn message(id: &str, role: &str, content: &str) -> Value {
    json!({"id": id, "role": role, "content": content, "status": "complete",
           "createdAt": "2026-07-11T10:00:00.000Z"})
}

/// A streaming snapshot holding one user message `<turn>-u` and one assistant message
/// `<turn>-a`.
pub fn snapshot(session: &str, turn: &str, sequence: u64) -> Value {
    envelope(
        session,
        turn,
        sequence,
        "server.turn.snapshot",
        json!({
            "messages": [message(&format!("{turn}-u"), "user", "hello"),
                         message(&format!("{turn}-a"), "assistant", "hi")],
            "status": "streaming",
            "usage": {"promptTokens": 3, "completionTokens": sequence, "totalTokens": 3 + sequence},
        }),
    )
}

pub fn with_lineage(mut snapshot: Value, operation: &str, parent: &str, source: &str) -> Value {
    snapshot["payload"]["lineage"] =
        json!({"operation": operation, "parentTurnId": parent, "sourceMessageId": source});
    snapshot
}

pub fn submit(session: &str, turn: &str, sequence: u64) -> Value {
    envelope(
        session,
        turn,
        sequence,
        "client.turn.submit",
        json!({"input": "hello"}),
    )
}

pub fn diagnostic(session: &str, turn: &str, sequence: u64) -> Value {
    envelope(
        session,
        turn,
        sequence,
        "server.turn.diagnostic",
        json!({"version": 1, "code": "MODEL_OVERLOADED", "message": "try later", "retryable": true}),
    )
}
