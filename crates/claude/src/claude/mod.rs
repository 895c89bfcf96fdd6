//! The Claude Code dialect: session transcripts (`~/.claude/projects/<project>/<session>.jsonl`)
//! read as `claude-code-sessions.md` says. A line's offset is its line number; the conversation
//! at a line is the chain of parents that ends there, completed with the rest of each response
//! and the first answer to each tool call; a request is one response, rendered from the
//! conversation before its first line.
//!
//! Marks: `request` (a response's first line), `compaction` (a compaction boundary),
//! `sidechain` (a subagent's line), `subagent` (a Task result naming its agent). Links (see `fold`): `parent`, `response`, `result`,
//! `message`, `spawned`, `replayed`.

pub mod answer;
mod attachment;
pub mod cache;
mod chain;
mod checkpoint;
pub mod fold;
pub mod hash;
mod ledger;
pub mod line;
pub mod outgoing;
pub mod rebuild;
pub mod record;
pub mod sessions;
pub mod subagent;
pub mod view;

use serde_json::Value;

use journalscope_seam::family::{Ask, AskError, Family, Reply};
use journalscope_seam::interpreter::{Controls, Fold, Interpreter, RecordReader, View};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::{Dialect, ReadEvent};
use journalscope_store::store::{JournalRow, Store, StoreError};

use journalscope_shapes::record_json::{Field, Parsed};
pub use journalscope_transcript::transcript::{ConversationItem, ConversationView, RequestRow};
pub use view::{ConversationRequest, Message};

/// The Claude Code dialect, as the seam sees it.
pub struct ClaudeCode;

pub const INTERPRETER: ClaudeCode = ClaudeCode;

/// A transcript line has a type of its own and says which session it belongs to, or points
/// at a line of one (a summary's `leafUuid`, a snapshot's `messageId`).
pub fn looks_like(value: &Value) -> bool {
    let Some(line) = line::Line::of(value) else {
        return false;
    };
    line.is_known_type()
        && ["uuid", "sessionId", "leafUuid", "messageId"]
            .iter()
            .any(|field| value.field(field).is_some())
}

impl Interpreter for ClaudeCode {
    fn dialect(&self) -> Dialect {
        Dialect::ClaudeCode
    }

    fn describes(&self) -> &'static str {
        "Claude Code sessions"
    }

    fn looks_like(&self, value: &Value) -> bool {
        looks_like(value)
    }

    fn reader(&self, _highest_offset: Option<i64>) -> Box<dyn RecordReader> {
        Box::new(Reader)
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(fold::ClaudeFold::default())
    }

    fn resume(
        &self,
        store: &Store,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<Box<dyn Fold>>, StoreError> {
        Ok(checkpoint::resume(store, journal_id, records)?
            .map(|fold| Box::new(fold) as Box<dyn Fold>))
    }

    fn offers(&self) -> &'static [View] {
        &[View::Conversation]
    }

    fn controls(&self) -> Controls {
        Controls::new(
            false,
            &["request", "compaction", "diagnostic", "sql"],
            &["request", "compaction", "diagnostic"],
        )
        .stepping(&["request", "compaction"])
    }

    fn sessions(
        &self,
        now: std::time::SystemTime,
    ) -> Vec<journalscope_transcript::transcript::Session> {
        sessions::list(now)
    }

    fn session_place(&self) -> Option<journalscope_transcript::transcript::SessionPlace> {
        sessions::place()
    }

    fn checkpoint_format(&self) -> u32 {
        fold::FORMAT
    }

    fn answers(&self, family: Family) -> bool {
        answer::answers(family)
    }

    fn answer(&self, store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
        answer::answer(store, journal, ask)
    }
}

/// Reads a transcript line into the indexed columns: its line number, type and time.
pub struct Reader;

impl RecordReader for Reader {
    /// The client appends as the session goes: a last line that does not parse is one it has
    /// not finished writing.
    fn cut_short(&self, record: &RawRecord, offset: Option<i64>, why: &str) -> Diagnostic {
        Diagnostic::warning(
            record.line,
            offset,
            "truncated-line",
            format!("the last line is cut short ({why}): the session may still be writing it"),
        )
    }

    fn read(&mut self, record: &RawRecord, parsed: Option<&mut Parsed<'_>>) -> ReadEvent {
        let value = parsed.map(Parsed::value);
        let offset = Some(record.line as i64);
        let Some(value) = value else {
            return ReadEvent {
                offset,
                summary: one_line(&String::from_utf8_lossy(&record.bytes), 120),
                ..ReadEvent::default()
            };
        };
        if !value.is_object() {
            return ReadEvent {
                offset,
                summary: one_line(&value.to_string(), 120),
                diagnostics: vec![Diagnostic::error(
                    record.line,
                    offset,
                    "not-an-object",
                    "a transcript line must be a JSON object",
                )],
                ..ReadEvent::default()
            };
        }
        let line = line::Line::of(value);
        let mut diagnostics = Vec::new();
        if !line.is_some_and(|l| l.is_known_type()) {
            diagnostics.push(Diagnostic::info(
                record.line,
                offset,
                "unknown-line-type",
                format!(
                    "type {} is not a transcript line this reader knows: stored and shown raw",
                    value
                        .field("type")
                        .map_or_else(|| "(none)".to_string(), Value::to_string)
                ),
            ));
        }
        ReadEvent {
            offset,
            kind: value
                .field("type")
                .and_then(Value::as_str)
                .map(str::to_string),
            created_at: value
                .field("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string),
            summary: line.map_or_else(String::new, |l| summarize(&l)),
            diagnostics,
        }
    }
}

fn summarize(line: &line::Line<'_>) -> String {
    let side = if line.is_sidechain() {
        " (sidechain)"
    } else {
        ""
    };
    match line.kind {
        "user" => {
            let results = line.tool_results().count();
            match line.first_text() {
                Some(text) if !line.is_compact_summary() => {
                    one_line(&format!("user{side}: {text}"), 120)
                }
                Some(_) => format!("user{side}: compaction summary"),
                None if results > 0 => format!("user{side}: {results} tool result(s)"),
                None => format!("user{side}"),
            }
        }
        "assistant" => {
            let model = line.model().unwrap_or("?");
            let what = line
                .tool_calls()
                .next()
                .and_then(|call| call.field("name").and_then(Value::as_str))
                .map(|name| format!("calls {name}"))
                .or_else(|| {
                    line.blocks().iter().find_map(|b| {
                        b.field("text")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                            .or_else(|| {
                                b.field("thinking")
                                    .and_then(Value::as_str)
                                    .map(|t| format!("thinking: {t}"))
                            })
                    })
                })
                .unwrap_or_default();
            one_line(&format!("assistant {model}{side}: {what}"), 120)
        }
        "system" => format!("system {}", line.subtype().unwrap_or("")),
        record::REQUEST => {
            let value = line.value;
            format!(
                "request {}: keeps {} message(s) of the one before, adds {}",
                value
                    .field("params")
                    .and_then(|p| p.field("model"))
                    .and_then(Value::as_str)
                    .unwrap_or("?"),
                value.field("keep").and_then(Value::as_u64).unwrap_or(0),
                value
                    .field("tail")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
            )
        }
        record::BLOB => format!(
            "a {} message as sent",
            nested_text(line.value, "message", "role").unwrap_or("?")
        ),
        record::SHAPE => "the system prompt and tools as sent".to_string(),
        "attachment" => format!(
            "attachment {}",
            nested_text(line.value, "attachment", "type").unwrap_or("")
        ),
        other => other.to_string(),
    }
}

/// The text at `outer.inner` of a line.
fn nested_text<'a>(value: &'a Value, outer: &str, inner: &str) -> Option<&'a str> {
    value.get(outer)?.get(inner)?.as_str()
}

/// Collapses whitespace and cuts at `max` characters, marking the cut.
fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, word) in text.split_whitespace().enumerate() {
        if count > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > max {
            let cut: String = out.chars().take(max).collect();
            return format!("{cut}…");
        }
    }
    out
}
