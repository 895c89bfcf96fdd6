//! The AG-UI fold: one thread's state and messages, built event by event as the official
//! TypeScript client (`@ag-ui/client`) builds them, with the reconciliation rules of
//! interpretation.md §2 and ordering checks reported as diagnostics. Pure: `apply` does no I/O
//! and cannot fail; every problem becomes a diagnostic at the event's offset.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use ts_rs::TS;

use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;

mod patch;
mod run;
mod snapshots;
mod tool_calls;

use patch::*;
pub use patch::{apply_patch, patch_in_place};

use super::messages::Messages;
use super::reader::type_name;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, rename = "AgUiRunStatus")]
pub enum RunStatus {
    /// No run has started yet.
    Idle,
    Running,
    Finished,
    /// Finished with an `interrupt` outcome: the run waits for the user.
    Interrupted,
    /// Ended by `RUN_ERROR`, or stopped by a malformed patch.
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgUiRun")]
pub struct Run {
    pub thread_id: Option<String>,
    pub run_id: Option<String>,
    pub status: RunStatus,
}

/// What a `MESSAGES_SNAPSHOT` did to one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, rename = "AgUiMessageFate")]
pub enum MessageFate {
    /// Held and in the snapshot: replaced by the snapshot's copy, keeping its position.
    Replaced,
    /// New in the snapshot: appended in snapshot order.
    Appended,
    /// Held but absent from the snapshot: the producer declared it gone.
    Dropped,
    /// Held, absent, and client-only (activity, or reasoning the snapshot does not track).
    KeptClientOnly,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgUiMessageReconciliation")]
pub struct MessageReconciliation {
    pub message_id: String,
    pub role: String,
    pub fate: MessageFate,
}

/// Where an event sits in the journal, for the diagnostics it raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct At {
    pub seq: u64,
    pub line: u64,
    pub offset: i64,
}

/// What applying one journal event did, beyond changing the thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub diagnostics: Vec<Diagnostic>,
    /// `(kind, note)` pairs for the event list and timeline.
    pub marks: Vec<(String, String)>,
    /// Why a state patch did not apply (failed or malformed).
    pub patch_failure: Option<String>,
    pub reconciliation: Vec<MessageReconciliation>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum ChunkMode {
    Text(String),
    Tool(String),
    Reasoning(String),
}

/// Ids in the order they were first seen, with a set to ask whether one was: the order lets a
/// checkpoint share the ids it lists with every checkpoint before it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct SeenIds {
    order: Vec<String>,
    set: HashSet<String>,
}

impl SeenIds {
    fn contains(&self, id: &str) -> bool {
        self.set.contains(id)
    }

    /// Whether `id` is new; it is seen from now on.
    fn insert(&mut self, id: &str) -> bool {
        if self.set.contains(id) {
            return false;
        }
        self.set.insert(id.to_string());
        self.order.push(id.to_string());
        true
    }

    pub(super) fn in_order(&self) -> &[String] {
        &self.order
    }
}

impl From<Vec<String>> for SeenIds {
    fn from(order: Vec<String>) -> SeenIds {
        let mut ids = SeenIds::default();
        for id in &order {
            ids.insert(id);
        }
        ids
    }
}

/// How a run stands after the event that ended it: `RUN_ERROR` fails it, and `RUN_FINISHED`
/// finishes it or, with an `interrupt` outcome, leaves it waiting for the user.
pub(super) fn ended_status(event: &Value) -> RunStatus {
    if str_field(event, "type") == Some("RUN_ERROR") {
        RunStatus::Error
    } else if event.field("outcome").and_then(|o| str_field(o, "type")) == Some("interrupt") {
        RunStatus::Interrupted
    } else {
        RunStatus::Finished
    }
}

/// The run a `RUN_STARTED` begins, under the ids it names.
pub(super) fn started_run(event: &Value) -> Run {
    Run {
        thread_id: str_field(event, "threadId").map(str::to_string),
        run_id: str_field(event, "runId").map(str::to_string),
        status: RunStatus::Running,
    }
}

/// One thread as a consumer holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Thread {
    pub state: Value,
    pub messages: Messages,
    pub run: Run,
    /// Steps started and not yet finished in the current run.
    pub steps: Vec<String>,
    pub(super) open_messages: BTreeSet<String>,
    pub(super) open_tool_calls: BTreeSet<String>,
    pub(super) chunk: Option<ChunkMode>,
    pub(super) seen_event: bool,
    pub(super) runs_started: u64,
    /// The current run was stopped by a malformed patch rather than by the producer.
    pub(super) halted_by_patch: bool,
    /// A snapshot or a run's input has said what the shared state is.
    pub(super) state_established: bool,
    /// Tool call ids a TOOL_CALL_START has opened, in any run: ids are unique to a thread.
    pub(super) started_tool_calls: SeenIds,
    /// Message ids whose open message a TEXT_MESSAGE_END or REASONING_MESSAGE_END closed, in
    /// any run: a message id names one message of a thread, and a consumer that meets it again
    /// adds to the message that ended instead of starting another.
    pub(super) ended_messages: SeenIds,
    /// Reasoning a REASONING_START opened and no REASONING_END has closed, by id, with where
    /// it started: what the journal's end reports as never ended.
    pub(super) open_reasoning: BTreeMap<String, At>,
    /// STATE_DELTAs applied in this run since its last snapshot or input state.
    pub(super) deltas_since_snapshot: u64,
    /// Deltas have built the state on `{}` and no snapshot or run input has said what it is.
    pub(super) state_only_from_deltas: bool,
}

impl Default for Thread {
    fn default() -> Self {
        Thread {
            // The official client starts an agent with `{}` as its state.
            state: json!({}),
            messages: Messages::default(),
            run: Run {
                thread_id: None,
                run_id: None,
                status: RunStatus::Idle,
            },
            steps: Vec::new(),
            open_messages: BTreeSet::new(),
            open_tool_calls: BTreeSet::new(),
            chunk: None,
            seen_event: false,
            runs_started: 0,
            halted_by_patch: false,
            state_established: false,
            started_tool_calls: SeenIds::default(),
            ended_messages: SeenIds::default(),
            open_reasoning: BTreeMap::new(),
            deltas_since_snapshot: 0,
            state_only_from_deltas: false,
        }
    }
}

fn str_field<'a>(event: &'a Value, field: &str) -> Option<&'a str> {
    event.field(field).and_then(Value::as_str)
}

fn id_of(message: &Value) -> Option<&str> {
    str_field(message, "id")
}

fn role_of(message: &Value) -> &str {
    str_field(message, "role").unwrap_or("")
}

const PATCH_OPS: &[&str] = &["add", "remove", "replace", "move", "copy", "test"];

fn merge_metadata(message: &mut Value, event: &Value) {
    let Some(Value::Object(extra)) = event.field("metadata") else {
        return;
    };
    let Some(object) = message.as_object_mut() else {
        return;
    };
    let slot = object
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    if let Some(map) = slot.as_object_mut() {
        for (key, value) in extra {
            map.insert(key.clone(), value.clone());
        }
    }
}

impl Thread {
    /// Applies one journal event. `value` is `None` for a record that is not JSON.
    pub fn apply(&mut self, at: At, value: Option<&Value>) -> Outcome {
        let mut report = Outcome::default();
        let Some(event) = value.filter(|v| v.is_object()) else {
            return report;
        };
        let Some(kind) = str_field(event, "type") else {
            return report;
        };
        if !super::reader::is_known_type(kind) {
            return report;
        }
        self.check_order(at, kind, &mut report);
        for expanded in self.expand(at, event, kind, &mut report) {
            self.dispatch(at, &expanded, &mut report);
        }
        report
    }

    /// What the journal's end says about the thread, given its last event, each diagnostic
    /// with the seq of the record it is said at: reasoning still open there never ended (said
    /// at its REASONING_START, where a reader looks for it), a run still running there was
    /// never terminated, and a state only deltas built was never established (both said at the
    /// last event). Provisional: a journal that grows may settle any of them.
    pub fn at_end(&self, last: At) -> Vec<(u64, Diagnostic)> {
        let mut out = Vec::new();
        let mut open: Vec<(&String, &At)> = self.open_reasoning.iter().collect();
        open.sort_by_key(|(_, started)| started.seq);
        for (id, started) in open {
            out.push((
                started.seq,
                Diagnostic::warning(
                    started.line,
                    Some(started.offset),
                    "reasoning-never-ended",
                    format!("reasoning {id:?} starts here and the journal ends without its REASONING_END"),
                ),
            ));
        }
        if self.run.status == RunStatus::Running {
            out.push((
                last.seq,
                Diagnostic::warning(
                    last.line,
                    Some(last.offset),
                    "run-never-finished",
                    format!(
                        "the journal ends while run {:?} is running: no RUN_FINISHED or RUN_ERROR",
                        self.run.run_id.as_deref().unwrap_or("")
                    ),
                ),
            ));
        }
        if self.state_only_from_deltas {
            out.push((
                last.seq,
                Diagnostic::info(
                    last.line,
                    Some(last.offset),
                    "state-never-established",
                    "the journal ends without a STATE_SNAPSHOT or run input state: the shared state is only what deltas built on `{}`",
                ),
            ));
        }
        out
    }

    fn warn(report: &mut Outcome, at: At, code: &str, message: impl Into<String>) {
        report
            .diagnostics
            .push(Diagnostic::warning(at.line, Some(at.offset), code, message));
    }

    fn info(report: &mut Outcome, at: At, code: &str, message: impl Into<String>) {
        report
            .diagnostics
            .push(Diagnostic::info(at.line, Some(at.offset), code, message));
    }

    fn error(report: &mut Outcome, at: At, code: &str, message: impl Into<String>) {
        report
            .diagnostics
            .push(Diagnostic::error(at.line, Some(at.offset), code, message));
    }

    /// Turns `*_CHUNK` events into start/content/end events as the client's chunk transform
    /// does: a chunk opens its message or tool call when none is open with that id, and any
    /// other event first closes what a chunk left open.
    fn expand(&mut self, at: At, event: &Value, kind: &str, report: &mut Outcome) -> Vec<Value> {
        let mut out = Vec::new();
        match kind {
            "TEXT_MESSAGE_CHUNK" | "REASONING_MESSAGE_CHUNK" => {
                let text = kind == "TEXT_MESSAGE_CHUNK";
                let id = str_field(event, "messageId").filter(|id| !id.is_empty());
                let current = match &self.chunk {
                    Some(ChunkMode::Text(open)) if text => Some(open.clone()),
                    Some(ChunkMode::Reasoning(open)) if !text => Some(open.clone()),
                    _ => None,
                };
                let continues =
                    current.is_some() && id.is_none_or(|id| Some(id) == current.as_deref());
                let message_id = if continues {
                    current.unwrap_or_default()
                } else {
                    out.extend(self.close_chunk());
                    let Some(id) = id else {
                        Self::error(
                            report,
                            at,
                            "chunk-without-id",
                            format!("the first {kind} of a message needs a messageId: a consumer stops here"),
                        );
                        return out;
                    };
                    if text {
                        let mut start = json!({
                            "type": "TEXT_MESSAGE_START",
                            "messageId": id,
                            "role": str_field(event, "role").unwrap_or("assistant"),
                        });
                        if let (Some(name), Some(map)) =
                            (event.field("name"), start.as_object_mut())
                        {
                            map.insert("name".into(), name.clone());
                        }
                        out.push(start);
                        self.chunk = Some(ChunkMode::Text(id.to_string()));
                    } else {
                        out.push(json!({"type": "REASONING_MESSAGE_START", "messageId": id}));
                        self.chunk = Some(ChunkMode::Reasoning(id.to_string()));
                    }
                    id.to_string()
                };
                if let Some(delta) = event.field("delta").filter(|d| !d.is_null()) {
                    let content = if text {
                        "TEXT_MESSAGE_CONTENT"
                    } else {
                        "REASONING_MESSAGE_CONTENT"
                    };
                    out.push(json!({"type": content, "messageId": message_id, "delta": delta}));
                }
            }
            "TOOL_CALL_CHUNK" => {
                let id = str_field(event, "toolCallId").filter(|id| !id.is_empty());
                let current = match &self.chunk {
                    Some(ChunkMode::Tool(open)) => Some(open.clone()),
                    _ => None,
                };
                let continues =
                    current.is_some() && id.is_none_or(|id| Some(id) == current.as_deref());
                let tool_call_id = if continues {
                    current.unwrap_or_default()
                } else {
                    out.extend(self.close_chunk());
                    let (Some(id), Some(name)) = (id, str_field(event, "toolCallName")) else {
                        Self::error(
                            report,
                            at,
                            "chunk-without-id",
                            "the first TOOL_CALL_CHUNK of a call needs toolCallId and toolCallName: a consumer stops here",
                        );
                        return out;
                    };
                    let mut start =
                        json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name});
                    if let (Some(parent), Some(map)) =
                        (event.field("parentMessageId"), start.as_object_mut())
                    {
                        map.insert("parentMessageId".into(), parent.clone());
                    }
                    out.push(start);
                    self.chunk = Some(ChunkMode::Tool(id.to_string()));
                    id.to_string()
                };
                if let Some(delta) = event.field("delta").filter(|d| !d.is_null()) {
                    out.push(json!({"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": delta}));
                }
            }
            // These pass through the client's transform without closing a chunked message.
            "RAW" | "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA" | "REASONING_ENCRYPTED_VALUE" => {
                out.push(event.clone());
            }
            _ => {
                out.extend(self.close_chunk());
                out.push(event.clone());
            }
        }
        out
    }

    fn close_chunk(&mut self) -> Option<Value> {
        match self.chunk.take()? {
            ChunkMode::Text(id) => Some(json!({"type": "TEXT_MESSAGE_END", "messageId": id})),
            ChunkMode::Tool(id) => Some(json!({"type": "TOOL_CALL_END", "toolCallId": id})),
            ChunkMode::Reasoning(id) => {
                Some(json!({"type": "REASONING_MESSAGE_END", "messageId": id}))
            }
        }
    }

    /// Changes the first message with `id`, if there is one.
    fn edit_message<R>(&mut self, id: &str, change: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let index = self.messages.position(id)?;
        Some(self.messages.edit(index, change))
    }

    fn dispatch(&mut self, at: At, event: &Value, report: &mut Outcome) {
        let kind = str_field(event, "type").unwrap_or("");
        match kind {
            "RUN_STARTED" => self.run_started(at, event, report),
            "RUN_FINISHED" => {
                self.check_open(at, report);
                self.check_run_id(at, event, "RUN_FINISHED", report);
                self.check_steps(at, report);
                self.run.status = ended_status(event);
                let interrupted = self.run.status == RunStatus::Interrupted;
                self.steps.clear();
                let run_id = str_field(event, "runId").unwrap_or("");
                let note = if interrupted {
                    format!("run {run_id} interrupted")
                } else {
                    format!("run {run_id} finished")
                };
                report.marks.push(("run-end".into(), note));
            }
            "RUN_ERROR" => {
                self.check_run_id(at, event, "RUN_ERROR", report);
                self.run.status = ended_status(event);
                self.open_messages.clear();
                self.open_tool_calls.clear();
                self.steps.clear();
                let message = str_field(event, "message").unwrap_or("");
                report.marks.push(("run-error".into(), short(message)));
            }
            "STEP_STARTED" => {
                if let Some(name) = str_field(event, "stepName") {
                    self.steps.push(name.to_string());
                }
            }
            "STEP_FINISHED" => {
                if let Some(name) = str_field(event, "stepName") {
                    match self.steps.iter().rposition(|s| s == name) {
                        Some(index) => {
                            self.steps.remove(index);
                        }
                        None => Self::warn(
                            report,
                            at,
                            "step-not-started",
                            format!("step {name:?} finishes but never started"),
                        ),
                    }
                }
            }
            "TEXT_MESSAGE_START" | "REASONING_MESSAGE_START" => {
                let Some(id) = str_field(event, "messageId") else {
                    return;
                };
                if self.open_messages.contains(id) {
                    Self::error(
                        report,
                        at,
                        "message-id-reused",
                        format!("{kind} for message {id:?}, which is still open: two messages under one id"),
                    );
                } else if self.ended_messages.contains(id) {
                    Self::error(
                        report,
                        at,
                        "message-id-reused-after-end",
                        format!("{kind} for message {id:?}, which already ended: message ids are unique, and a consumer adds what follows to the ended message"),
                    );
                }
                if self.messages.position(id).is_none() {
                    let mut message = if kind == "TEXT_MESSAGE_START" {
                        let mut m = json!({
                            "id": id,
                            "role": str_field(event, "role").unwrap_or("assistant"),
                            "content": "",
                        });
                        if let (Some(name), Some(map)) = (event.field("name"), m.as_object_mut()) {
                            map.insert("name".into(), name.clone());
                        }
                        m
                    } else {
                        json!({"id": id, "role": "reasoning", "content": ""})
                    };
                    merge_metadata(&mut message, event);
                    self.messages.push(message);
                } else {
                    self.edit_message(id, |message| merge_metadata(message, event));
                }
                self.open_messages.insert(id.to_string());
            }
            "TEXT_MESSAGE_CONTENT" | "REASONING_MESSAGE_CONTENT" => {
                let (Some(id), Some(delta)) =
                    (str_field(event, "messageId"), str_field(event, "delta"))
                else {
                    return;
                };
                if delta.is_empty() {
                    Self::error(
                        report,
                        at,
                        "empty-delta",
                        format!("{kind} for message {id:?} with an empty delta"),
                    );
                }
                if !self.open_messages.contains(id) && self.ended_messages.contains(id) {
                    Self::warn(
                        report,
                        at,
                        "message-already-ended",
                        format!("{kind} for message {id:?}, which already ended: a consumer appends it to the ended message"),
                    );
                }
                let appended = self.edit_message(id, |message| {
                    // In place: a message streamed in thousands of deltas is not copied for
                    // each of them.
                    match message.get_mut("content") {
                        Some(Value::String(content)) => content.push_str(delta),
                        _ => {
                            if let Some(map) = message.as_object_mut() {
                                map.insert("content".into(), Value::String(delta.to_string()));
                            }
                        }
                    }
                    merge_metadata(message, event);
                });
                match appended {
                    Some(()) => {}
                    None => Self::warn(
                        report,
                        at,
                        "message-not-started",
                        format!("{kind} for message {id:?}, which was never started: ignored"),
                    ),
                }
            }
            "TEXT_MESSAGE_END" | "REASONING_MESSAGE_END" => {
                let Some(id) = str_field(event, "messageId") else {
                    return;
                };
                let held = self
                    .edit_message(id, |message| merge_metadata(message, event))
                    .is_some();
                let was_open = self.open_messages.remove(id);
                if !was_open && self.ended_messages.contains(id) {
                    Self::warn(
                        report,
                        at,
                        "message-already-ended",
                        format!("{kind} for message {id:?}, which already ended"),
                    );
                } else if !held {
                    Self::warn(
                        report,
                        at,
                        "message-not-started",
                        format!("{kind} for message {id:?}, which was never started"),
                    );
                }
                if was_open {
                    self.ended_messages.insert(id);
                }
            }
            "REASONING_START" => {
                if let Some(id) = str_field(event, "messageId") {
                    // A second start of reasoning still open starts nothing new: the journal's
                    // end points at where it first started.
                    self.open_reasoning.entry(id.to_string()).or_insert(at);
                }
            }
            "REASONING_END" => {
                if let Some(id) = str_field(event, "messageId") {
                    self.open_reasoning.remove(id);
                }
            }
            "TOOL_CALL_START" => {
                if let Some(id) = str_field(event, "toolCallId") {
                    if !self.started_tool_calls.insert(id) {
                        Self::warn(
                            report,
                            at,
                            "tool-call-id-reused",
                            format!("TOOL_CALL_START for tool call {id:?}, which was started before: tool call ids are unique to a thread"),
                        );
                    }
                }
                self.tool_call_start(at, event, report)
            }
            "TOOL_CALL_ARGS" => {
                let (Some(id), Some(delta)) =
                    (str_field(event, "toolCallId"), str_field(event, "delta"))
                else {
                    return;
                };
                let appended = self.edit_tool_call(id, |call| {
                    let Some(function) = call.get_mut("function").and_then(Value::as_object_mut)
                    else {
                        return;
                    };
                    match function.get_mut("arguments") {
                        Some(Value::String(arguments)) => arguments.push_str(delta),
                        _ => {
                            function.insert("arguments".into(), Value::String(delta.to_string()));
                        }
                    }
                });
                match appended {
                    Some(()) => {}
                    None => Self::warn(
                        report,
                        at,
                        "tool-call-not-started",
                        format!(
                            "TOOL_CALL_ARGS for tool call {id:?}, which was never started: ignored"
                        ),
                    ),
                }
            }
            "TOOL_CALL_END" => {
                let Some(id) = str_field(event, "toolCallId") else {
                    return;
                };
                if self.messages.call_owner(id).is_none() {
                    Self::warn(
                        report,
                        at,
                        "tool-call-not-started",
                        format!("TOOL_CALL_END for tool call {id:?}, which was never started"),
                    );
                } else if self.open_tool_calls.contains(id) {
                    let arguments = self
                        .edit_tool_call(id, |call| {
                            call.pointer("/function/arguments")
                                .and_then(Value::as_str)
                                .map(str::to_string)
                        })
                        .flatten()
                        .unwrap_or_default();
                    if !arguments.trim().is_empty()
                        && serde_json::from_str::<serde::de::IgnoredAny>(&arguments).is_err()
                    {
                        Self::warn(
                            report,
                            at,
                            "tool-call-args-not-json",
                            format!(
                                "tool call {id:?} ends with arguments that are not JSON: {}",
                                short(&arguments)
                            ),
                        );
                    }
                }
                self.open_tool_calls.remove(id);
            }
            "TOOL_CALL_RESULT" => self.tool_call_result(at, event, report),
            "STATE_SNAPSHOT" => {
                if let Some(snapshot) = event.field("snapshot") {
                    if self.deltas_since_snapshot > 0 && self.run.status == RunStatus::Running {
                        Self::info(
                            report,
                            at,
                            "state-deltas-superseded",
                            format!(
                                "STATE_SNAPSHOT replaces the state that {} STATE_DELTA{} of this run built",
                                self.deltas_since_snapshot,
                                if self.deltas_since_snapshot == 1 { "" } else { "s" }
                            ),
                        );
                    }
                    self.deltas_since_snapshot = 0;
                    self.state_only_from_deltas = false;
                    self.state = snapshot.clone();
                    self.state_established = true;
                    report.marks.push((
                        "state-snapshot".into(),
                        format!("state replaced: {}", shape(snapshot)),
                    ));
                }
            }
            "STATE_DELTA" => self.state_delta(at, event, report),
            "MESSAGES_SNAPSHOT" => self.messages_snapshot(at, event, report),
            "ACTIVITY_SNAPSHOT" => self.activity_snapshot(event),
            "ACTIVITY_DELTA" => self.activity_delta(at, event, report),
            "REASONING_ENCRYPTED_VALUE" => self.encrypted_value(event),
            _ => {}
        }
    }
}

fn status_word(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Idle => "idle",
        RunStatus::Running => "running",
        RunStatus::Finished => "finished",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Error => "error",
    }
}

pub(crate) fn status_text(status: RunStatus) -> &'static str {
    status_word(status)
}

fn shape(value: &Value) -> String {
    match value {
        Value::Object(map) => format!("object with {} keys", map.len()),
        Value::Array(items) => format!("array of {}", items.len()),
        other => type_name(other).to_string(),
    }
}

fn short(text: &str) -> String {
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(80).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}
