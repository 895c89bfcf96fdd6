//! The Codex dialect: Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), read
//! as section 2 of `claude-code-sessions.md` says. A line's offset is its line number. The
//! model's input is the `response_item` payloads in order (but ghost snapshots), a compaction
//! replacing all of it before; a request is a run of output items, with the usage of the token
//! count that belongs to it.
//!
//! Marks: `request` (a run's first item), `compaction`, `session` (a `session_meta` line). Links:
//! `response` (an output item to its run's first).

pub mod answer;
mod rollback;
pub mod sessions;
pub mod subagent;

use serde_json::Value;

use journalscope_seam::family::{Ask, AskError, Family, Reply};
use journalscope_seam::interpreter::{Controls, Fold, FoldRecord, Interpreter, RecordReader, View};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::{Field, Parsed};
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::{Analysis, CheckpointCover, Dialect, Link, Mark, ReadEvent};
use journalscope_store::store::{JournalRow, Store, StoreError, StoredEvent};
use journalscope_transcript::transcript::requests::SentRequest;
use journalscope_transcript::transcript::{ConversationItem, ConversationView, RequestRow};

/// The line types of a rollout.
const LINE_TYPES: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
    // 0.17x: the session's state and each response's usage, neither sent to the model.
    "world_state",
    "token_usage_record",
];

/// What a request's body holds that no rollout line records: the base instructions go as a
/// developer item at the head of the input (`session_meta` holds their text, which the client
/// trims by the tools it offers, and not the item's id), and the tools and parameters.
pub const NOT_RECORDED: &[&str] = &[
    "the base-instructions developer item at the head of the input",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "reasoning",
    "store",
    "stream",
    "include",
    "prompt_cache_key",
    "text",
];

/// The context window a `compacted` line opens, as its fields name it (0.140 and later): its
/// number, its id and the window it follows.
fn window_of(payload: &Value) -> String {
    let text = |key: &str| match payload.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    // Before 0.142 the number was written as `window_id`.
    let (number, id) = match payload.field("window_id") {
        Some(Value::Number(n)) => (Some(n.to_string()), None),
        _ => (text("window_number"), text("window_id")),
    };
    let mut out = String::new();
    if number.is_some() || id.is_some() {
        out.push_str(": context window");
        if let Some(number) = number {
            out.push_str(&format!(" {number}"));
        }
        if let Some(id) = id {
            out.push_str(&format!(" ({id})"));
        }
    }
    if let Some(previous) = text("previous_window_id") {
        out.push_str(&format!(", after {previous}"));
    }
    out
}

/// The field the client keeps on an item for itself: it sends it to no provider but its own,
/// and there without its per-content metadata.
const PASSTHROUGH: &str = "internal_chat_message_metadata_passthrough";

/// An item as the client sends it to the provider the session names.
fn as_sent(mut item: Value, own_provider: bool) -> Value {
    if let Some(object) = item.as_object_mut() {
        if own_provider {
            if let Some(Value::Object(passthrough)) = object.get_mut(PASSTHROUGH) {
                passthrough.shift_remove("content_item_metadata");
            }
        } else {
            object.shift_remove(PASSTHROUGH);
        }
    }
    item
}

/// The encoding of a Codex fold's checkpoint: a database with another is folded again.
pub const FORMAT: u32 = 4;

/// Mark kind: a `session_meta` line, which holds the session's base instructions.
pub const SESSION: &str = "session";

/// Link kind: an output item to the first item of its run.
pub const RESPONSE: &str = "response";

/// The Codex dialect, as the seam sees it.
pub struct Codex;

pub const INTERPRETER: Codex = Codex;

pub fn looks_like(value: &Value) -> bool {
    value.field("payload").is_some()
        && value
            .field("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| LINE_TYPES.contains(&kind))
}

impl Interpreter for Codex {
    fn dialect(&self) -> Dialect {
        Dialect::Codex
    }

    fn describes(&self) -> &'static str {
        "Codex rollouts"
    }

    fn looks_like(&self, value: &Value) -> bool {
        looks_like(value)
    }

    fn reader(&self, _highest_offset: Option<i64>) -> Box<dyn RecordReader> {
        Box::new(Reader)
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(CodexFold::default())
    }

    fn resume(
        &self,
        store: &Store,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<Box<dyn Fold>>, StoreError> {
        let saved = store
            .checkpoint_before(journal_id, records)?
            .and_then(|(seq, bytes)| Some((seq, serde_json::from_slice::<Saved>(&bytes).ok()?)));
        Ok(saved.map(|(seq, saved)| {
            Box::new(CodexFold {
                records: seq,
                model: saved.model,
                run: saved.run,
                last_run: saved.last_run,
                input_since: saved.input_since,
                pending: saved.pending,
                last_total: saved.last_total,
                ..CodexFold::default()
            }) as Box<dyn Fold>
        }))
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
        FORMAT
    }

    fn answers(&self, family: Family) -> bool {
        answer::answers(family)
    }

    fn answer(&self, store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
        answer::answer(store, journal, ask)
    }
}

/// Reads a rollout line: its line number, its type (the payload's, for a response item or an
/// event) and its time.
pub struct Reader;

impl RecordReader for Reader {
    fn read(&mut self, record: &RawRecord, parsed: Option<&mut Parsed<'_>>) -> ReadEvent {
        let value = parsed.map(Parsed::value);
        let offset = Some(record.line as i64);
        let Some(value) = value else {
            return ReadEvent {
                offset,
                ..ReadEvent::default()
            };
        };
        let kind = value.field("type").and_then(Value::as_str);
        let payload_kind = value
            .field("payload")
            .and_then(|p| p.field("type"))
            .and_then(Value::as_str);
        let mut diagnostics = Vec::new();
        if !value.is_object() {
            diagnostics.push(Diagnostic::error(
                record.line,
                offset,
                "not-an-object",
                "a rollout line must be a JSON object",
            ));
        } else if !kind.is_some_and(|k| LINE_TYPES.contains(&k)) {
            diagnostics.push(Diagnostic::info(
                record.line,
                offset,
                "unknown-line-type",
                "a line type this reader does not know: stored and shown raw",
            ));
        }
        let shown = match (kind, payload_kind) {
            (Some(kind @ ("response_item" | "event_msg")), Some(inner)) => {
                format!("{kind}/{inner}")
            }
            (Some(kind), _) => kind.to_string(),
            (None, _) => String::new(),
        };
        ReadEvent {
            offset,
            kind: kind.map(|_| shown.clone()),
            created_at: value
                .field("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string),
            summary: summarize(value, &shown),
            diagnostics,
        }
    }
}

fn summarize(value: &Value, shown: &str) -> String {
    let payload = value.field("payload");
    let text = payload.and_then(|p| {
        p.field("content")
            .and_then(Value::as_array)
            .and_then(|blocks| blocks.iter().find_map(|b| b.field("text")?.as_str()))
            .or_else(|| p.field("name").and_then(Value::as_str))
            .or_else(|| p.field("message").and_then(Value::as_str))
            .or_else(|| p.field("model").and_then(Value::as_str))
    });
    let role = payload
        .and_then(|p| p.field("role"))
        .and_then(Value::as_str)
        .map(|r| format!(" {r}"))
        .unwrap_or_default();
    let said = format!("{shown}{role}: {}", text.unwrap_or(""));
    let joined = said.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > 120 {
        let cut: String = joined.chars().take(120).collect();
        return format!("{cut}…");
    }
    joined
}

/// Whether a response item is model input at all (a ghost snapshot is the client's own).
fn is_model_item(payload: &Value) -> bool {
    payload.field("type").and_then(Value::as_str) != Some("ghost_snapshot")
}

/// Whether a response item is the model's output: an assistant message, reasoning, a call.
fn is_output(payload: &Value) -> bool {
    match payload.field("type").and_then(Value::as_str) {
        Some("message") => payload.field("role").and_then(Value::as_str) == Some("assistant"),
        Some(kind) => {
            kind == "reasoning" || kind.ends_with("_call") && !kind.ends_with("_call_output")
        }
        None => false,
    }
}

/// A run of output items as the fold goes through it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Run {
    first: u64,
    row: RequestRow,
}

/// Where a fold stands after its last record, for an append to go on from: the whole state
/// but what it found, which is stored. Only the latest is kept (the fold rewrites at most the
/// last run's row, which the resumed fold rewrites the same).
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    model: Option<String>,
    run: Option<Run>,
    last_run: Option<Run>,
    input_since: bool,
    pending: Option<Value>,
    last_total: Option<Value>,
}

#[derive(Default)]
struct CodexFold {
    found: Analysis,
    records: u64,
    model: Option<String>,
    run: Option<Run>,
    /// The run that ended last, and whether input came since.
    last_run: Option<Run>,
    input_since: bool,
    /// A count that belongs to the next run.
    pending: Option<Value>,
    last_total: Option<Value>,
}

impl CodexFold {
    fn close_run(&mut self) {
        if let Some(run) = self.run.take() {
            self.last_run = Some(run);
            self.input_since = false;
        }
    }

    fn emit(&mut self, run_first: u64, row: &RequestRow) {
        self.found
            .requests
            .push((run_first, serde_json::to_string(row).unwrap_or_default()));
    }
}

impl Fold for CodexFold {
    fn feed(&mut self, record: FoldRecord<'_>, parsed: Option<Parsed<'_>>) {
        let value = parsed.map(Parsed::into_value);
        self.records += 1;
        let seq = record.seq;
        let Some(value) = value else { return };
        let Some(payload) = value.field("payload") else {
            return;
        };
        if let Some(mark) = subagent::marks(seq, &value) {
            self.found.marks.push(mark);
        }
        match value.field("type").and_then(Value::as_str) {
            // Marked so that a view finds the session's instructions through the mark index
            // instead of scanning every record for the line's type.
            Some("session_meta") => self.found.marks.push(Mark {
                seq,
                kind: SESSION.to_string(),
                note: format!(
                    "session {}",
                    payload
                        .field("id")
                        .and_then(Value::as_str)
                        .unwrap_or("(no id)")
                ),
            }),
            Some("turn_context") => {
                if let Some(model) = payload.field("model").and_then(Value::as_str) {
                    self.model = Some(model.to_string());
                }
            }
            Some("response_item") if is_model_item(payload) => {
                if is_output(payload) {
                    if self.run.is_none() {
                        let usage = self.pending.take();
                        let row = RequestRow {
                            offset: record.offset.unwrap_or(record.line as i64),
                            request_id: None,
                            message_id: None,
                            model: self.model.clone(),
                            sidechain: false,
                            usage,
                            created_at: value
                                .field("timestamp")
                                .and_then(Value::as_str)
                                .map(str::to_string),
                            recorded: None,
                            cache_miss_reason: None,
                        };
                        self.emit(seq, &row);
                        self.found.marks.push(Mark {
                            seq,
                            kind: "request".to_string(),
                            note: format!(
                                "request {}",
                                self.model.as_deref().unwrap_or("(no model)")
                            ),
                        });
                        self.run = Some(Run { first: seq, row });
                    }
                    let first = self.run.as_ref().map_or(seq, |run| run.first);
                    self.found.links.push(Link {
                        seq,
                        kind: RESPONSE,
                        target: first,
                    });
                } else {
                    self.close_run();
                    self.input_since = true;
                }
            }
            Some("compacted") => {
                self.close_run();
                self.input_since = true;
                self.found.marks.push(Mark {
                    seq,
                    kind: "compaction".to_string(),
                    note: format!("the history before is replaced{}", window_of(payload)),
                });
            }
            Some("event_msg")
                if payload.field("type").and_then(Value::as_str) == Some("token_count") =>
            {
                let Some(info) = payload.field("info").filter(|i| i.is_object()) else {
                    return;
                };
                let total = info.field("total_token_usage").cloned();
                if total.is_some() && total == self.last_total {
                    return;
                }
                self.last_total = total;
                let usage = info.field("last_token_usage").cloned();
                self.close_run();
                let takes = self
                    .last_run
                    .as_ref()
                    .is_some_and(|run| !self.input_since && run.row.usage.is_none());
                if takes {
                    if let Some(mut run) = self.last_run.take() {
                        run.row.usage = usage;
                        let (first, row) = (run.first, run.row.clone());
                        self.emit(first, &row);
                        self.last_run = Some(run);
                    }
                } else {
                    self.pending = usage;
                }
            }
            _ => {}
        }
    }

    fn take_found(&mut self) -> Analysis {
        std::mem::take(&mut self.found)
    }

    fn end(&mut self) -> Analysis {
        let mut analysis = self.take_found();
        let saved = Saved {
            model: self.model.clone(),
            run: self.run.clone(),
            last_run: self.last_run.clone(),
            input_since: self.input_since,
            pending: self.pending.clone(),
            last_total: self.last_total.clone(),
        };
        // Serialising plain data does not fail.
        analysis.checkpoints = vec![(self.records, serde_json::to_vec(&saved).unwrap_or_default())];
        analysis.checkpoint_replaces = true;
        analysis.cover = Some(CheckpointCover {
            records: self.records,
            format: FORMAT,
            seekable: true,
        });
        analysis
    }

    fn records(&self) -> u64 {
        self.records
    }
}

/// A rollout's request as the Responses API got it: every model input item before its first
/// output item, a compaction replacing what came before it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "RolloutRequest")]
pub struct RolloutRequest {
    #[ts(type = "number")]
    pub request_offset: i64,
    pub model: Option<String>,
    #[ts(type = "Record<string, number> | null")]
    pub usage: Option<Value>,
    #[ts(type = "Array<unknown>")]
    pub input: Vec<Value>,
    /// What the body holds that the rollout does not record, by name.
    pub not_recorded: Vec<String>,
}

impl SentRequest for RolloutRequest {
    /// The body the rollout records its provider got: the model and the input items.
    fn body(&self) -> Value {
        serde_json::json!({"model": self.model, "input": self.input})
    }

    /// The request as one side of a diff: its first line, model, and input items.
    fn messages(&self) -> journalscope_transcript::transcript::requests::Messages {
        (self.request_offset, self.model.clone(), self.input.clone())
    }

    fn text(&self, out: &mut String) -> std::fmt::Result {
        answer::request_text(out, self)
    }
}

/// Records read from the store at a time.
const READ_SLICE: u64 = 4_096;

/// How many turns a `thread_rolled_back` line takes back, when the line is one.
fn rolled_back_turns(value: &Value) -> Option<usize> {
    let payload = value.field("payload")?;
    (value.field("type")?.as_str()? == "event_msg"
        && payload.field("type")?.as_str()? == "thread_rolled_back")
        .then(|| payload.field("num_turns")?.as_u64())?
        .map(|n| n as usize)
}

/// The model input of the records before seq `end`: from the last compaction before it (its
/// replacement history, else a user message holding its summary), then each response item.
fn input_before(
    store: &Store,
    journal_id: i64,
    end: u64,
) -> Result<Vec<(StoredEvent, Value)>, StoreError> {
    let compaction = store.next_mark(journal_id, "compaction", Some(end), false)?;
    let mut input = Vec::new();
    let from = match compaction {
        Some(seq) => {
            if let Some(record) = store.events_between(journal_id, seq, seq + 1)?.pop() {
                if let Some(payload) = record.json().and_then(|v| v.field("payload").cloned()) {
                    let replacement = match payload.field("replacement_history") {
                        Some(Value::Array(items)) => items.clone(),
                        _ => vec![serde_json::json!({"type": "message", "role": "user",
                            "content": [{"type": "input_text",
                                "text": payload.field("message").and_then(Value::as_str).unwrap_or("")}]})],
                    };
                    for item in replacement {
                        input.push((record.clone(), item));
                    }
                }
            }
            seq + 1
        }
        None => 0,
    };
    for slice in store.slices(journal_id, from, end, READ_SLICE) {
        for record in slice? {
            let Some(value) = record.json() else { continue };
            if let Some(turns) = rolled_back_turns(&value) {
                rollback::roll_back(&mut input, turns);
                continue;
            }
            if value.field("type").and_then(Value::as_str) != Some("response_item") {
                continue;
            }
            if let Some(payload) = value.field("payload").filter(|p| is_model_item(p)) {
                let payload = payload.clone();
                input.push((record, payload));
            }
        }
    }
    Ok(input)
}

/// The cache report of the rollout's requests in `range`, each against the request before it
/// (read back from the range's first). A rollout never goes back: only a compaction cuts the
/// conversation between two requests.
pub fn cache_report(
    store: &Store,
    journal_id: i64,
    range: journalscope_transcript::transcript::cache::Range,
) -> Result<journalscope_transcript::transcript::cache::CacheReport, StoreError> {
    use journalscope_transcript::transcript::cache::{facts_for, report, Lineage};
    let rows = store.request_rows_in(journal_id, range.0, range.1)?;
    report(
        facts_for(range, rows, |seq, count| {
            store.request_rows_before(journal_id, seq, count)
        })?,
        range,
        |before, current| {
            Ok(
                match store.mark_offset_between(
                    journal_id,
                    "compaction",
                    before.seq,
                    current.seq,
                )? {
                    Some(offset) => Lineage::Compacted { offset },
                    None => Lineage::Extends,
                },
            )
        },
    )
}

/// The request whose first item is at `request_offset`; `None` when no run starts there.
pub fn request(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
) -> Result<Option<RolloutRequest>, StoreError> {
    let Some(seq) = store.seq_at_offset(journal_id, request_offset)? else {
        return Ok(None);
    };
    let Some(row) = store
        .request_row(journal_id, seq)?
        .and_then(|row| serde_json::from_str::<RequestRow>(&row).ok())
    else {
        return Ok(None);
    };
    let own_provider = session_meta(store, journal_id, seq)?
        .and_then(|meta| meta.json())
        .and_then(|v| {
            v.field("payload")?
                .field("model_provider")?
                .as_str()
                .map(|p| p == "openai")
        })
        .unwrap_or(false);
    let input = input_before(store, journal_id, seq)?
        .into_iter()
        .map(|(_, item)| as_sent(item, own_provider))
        .collect();
    let mut not_recorded: Vec<String> = NOT_RECORDED.iter().map(|n| n.to_string()).collect();
    // A compaction's own request (0.17x marks its answer) ends with the prompt that asks for
    // the summary, which no line holds.
    let compacts = store
        .event(journal_id, seq)?
        .and_then(|record| record.json())
        .and_then(|v| v.field("metadata")?.field("compaction_output")?.as_bool())
        == Some(true);
    if compacts {
        not_recorded.push(COMPACTION_PROMPT.to_string());
    }
    Ok(Some(RolloutRequest {
        request_offset,
        model: row.model,
        usage: row.usage,
        input,
        not_recorded,
    }))
}

/// What a compaction's request holds after the rollout's items.
pub const COMPACTION_PROMPT: &str =
    "the compaction prompt: a user message that ends the input (Codex's own, or the compact_prompt setting)";

/// The session's `session_meta` line before seq `end`.
fn session_meta(
    store: &Store,
    journal_id: i64,
    end: u64,
) -> Result<Option<StoredEvent>, StoreError> {
    match store.next_mark(journal_id, SESSION, Some(end), false)? {
        Some(seq) => store.event(journal_id, seq),
        None => Ok(None),
    }
}

/// What the model could see at offset `at`: the session's base instructions, when it records
/// them, and every model input item through `at`.
pub fn projection(store: &Store, journal_id: i64, at: i64) -> Result<ConversationView, StoreError> {
    let end = store.offset_cut(journal_id, at, None)?.prefix;
    let meta = session_meta(store, journal_id, end)?;
    let instructions = meta.as_ref().and_then(|meta| {
        let value = meta.json()?;
        let text = value
            .field("payload")?
            .field("base_instructions")?
            .field("text")?
            .as_str()?
            .to_string();
        Some(
            serde_json::json!({"offset": meta.offset.unwrap_or(meta.line as i64), "content": text}),
        )
    });
    let history = input_before(store, journal_id, end)?
        .into_iter()
        .map(|(record, item)| ConversationItem {
            offset: record.offset.unwrap_or(record.line as i64),
            uuid: None,
            role: item
                .field("role")
                .or_else(|| item.field("type"))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            content: vec![item],
            timestamp: record.created_at.clone(),
            response: None,
        })
        .collect();
    Ok(ConversationView {
        at,
        system_known: instructions.is_some(),
        system: instructions.into_iter().collect(),
        history,
    })
}
