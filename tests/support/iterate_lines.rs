//! Builders shared by the iterate integration tests: journal lines written in code and read
//! through the same reader the importer uses, so tests see exactly what a journal file gives.

use journalscope::diagnostic::Diagnostic;
use journalscope::dialect::Dialect;
use journalscope::ingest::read_records;
use journalscope::source::RawRecord;
use journalscope::store::StoredEvent;
use journalscope_iterate::iterate::IterateJournal;
use serde_json::{json, Value};

pub const PREFIX: &str = "events.iterate.com/agent/";

/// The time every built event carries, derived from its offset so tail messages differ.
pub fn time_of(offset: i64) -> String {
    format!(
        "2026-01-01T00:{:02}:{:02}Z",
        (offset / 60) % 60,
        offset % 60
    )
}

pub fn event(offset: i64, short_type: &str, payload: Value) -> String {
    json!({
        "offset": offset,
        "type": format!("{PREFIX}{short_type}"),
        "payload": payload,
        "createdAt": time_of(offset),
        "path": "/agents/test",
    })
    .to_string()
}

/// A `context-added` line.
pub fn ctx(offset: i64, payload: Value) -> String {
    event(offset, "context-added", payload)
}

pub fn user(offset: i64, content: &str) -> String {
    ctx(
        offset,
        json!({"role": "user", "actor": {"type": "user", "origin": "web"}, "content": content}),
    )
}

pub fn system_prompt(offset: i64, content: &str) -> String {
    ctx(
        offset,
        json!({"role": "system", "key": "agent/system-prompt", "content": content}),
    )
}

pub fn keyed(offset: i64, role: &str, key: &str, content: &str) -> String {
    ctx(
        offset,
        json!({"role": role, "key": key, "content": content}),
    )
}

pub fn request(offset: i64) -> String {
    event(
        offset,
        "llm-request-requested",
        json!({"model": "test-model"}),
    )
}

pub fn compaction(offset: i64, cutoff: Value, content: &str) -> String {
    ctx(
        offset,
        json!({
            "role": "developer",
            "content": content,
            "compaction": {"replacesHistoryThrough": cutoff, "usage": {"inputTokens": 4321, "outputTokens": 123}},
        }),
    )
}

/// A sections-contract section (8.0.0): keyed, by the platform, no role.
pub fn section(offset: i64, key: &str, content: &str) -> String {
    ctx(
        offset,
        json!({"kind": "section", "key": key, "content": content, "actor": {"type": "platform"}}),
    )
}

/// A sections-contract message (8.0.0): no role, only an actor of `actor_type`.
pub fn said(offset: i64, actor_type: &str, content: &str) -> String {
    ctx(
        offset,
        json!({"content": content, "actor": {"type": actor_type}}),
    )
}

/// The model's output for `request` (8.0.0 puts the request on the actor).
pub fn model_reply(offset: i64, request: i64, content: &str) -> String {
    ctx(
        offset,
        json!({"content": content, "actor": {"type": "model", "llmRequestOffset": request}}),
    )
}

/// A request stamped with a sections `contractVersion`.
pub fn stamped_request(offset: i64, version: &str) -> String {
    event(
        offset,
        "llm-request-requested",
        json!({"model": "test-model", "contractVersion": version}),
    )
}

/// A `context-rewritten` line.
pub fn rewrite(offset: i64, payload: Value) -> String {
    event(offset, "context-rewritten", payload)
}

/// `llm-request-settled` for `request` with `status` (succeeded, failed, cancelled).
pub fn settled(offset: i64, request: i64, status: &str) -> String {
    event(
        offset,
        "llm-request-settled",
        json!({"requestOffset": request, "result": {"status": status}}),
    )
}

/// Reads lines as the importer does: one record a line, the iterate reader's checks included.
pub fn stored(lines: &[String]) -> Vec<StoredEvent> {
    let mut byte_start = 0u64;
    let records = lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let record = RawRecord {
                seq: index as u64,
                line: index as u64 + 1,
                byte_start,
                byte_len: line.len() as u64,
                bytes: line.as_bytes().to_vec(),
            };
            byte_start += line.len() as u64 + 1;
            record
        })
        .collect();
    read_records(Dialect::Iterate, records)
}

pub fn journal(lines: &[String]) -> IterateJournal {
    IterateJournal::from_stored(&stored(lines))
}

/// Every diagnostic a journal gets: those of reading and those of folding.
pub fn diagnostics(lines: &[String]) -> Vec<Diagnostic> {
    let stored = stored(lines);
    let mut all: Vec<Diagnostic> = stored
        .iter()
        .flat_map(|e| e.diagnostics.iter().cloned())
        .collect();
    all.extend(
        journalscope::dialect::analyse(Dialect::Iterate, &stored)
            .diagnostics
            .into_iter()
            .map(|(_, d)| d),
    );
    all
}

pub fn codes_at(diagnostics: &[Diagnostic], offset: i64) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.offset == Some(offset))
        .map(|d| d.code.clone())
        .collect()
}
