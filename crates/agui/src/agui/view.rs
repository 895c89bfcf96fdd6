//! Views over a folded AG-UI journal: the thread at an offset (the CLI's `state --at`), one
//! step with what it changed (the desktop's step inspector), and run boundaries (its timeline),
//! each from loaded events or read from the store a slice at a time.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use journalscope_seam::family::MessageWindow;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;
use journalscope_store::store::{Store, StoreError, StoredEvent};

use super::reducer::{
    ended_status, started_run, status_text, At, MessageReconciliation, Outcome, Run, RunStatus,
    Thread,
};

/// The CLI's `state --at N` answer: the thread after folding events `1..=N`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export, rename = "AgUiStateAt")]
pub struct StateAt {
    #[ts(type = "number")]
    pub at: i64,
    pub state: Value,
    pub messages: Vec<Value>,
    pub run: Run,
    /// Read-time and fold-time diagnostics of events at offsets `<= at`, in journal order.
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "AgUiChangeKind")]
pub enum ChangeKind {
    Added,
    Replaced,
    Removed,
}

/// One JSON Pointer in the state that a step changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct PathChange {
    pub path: String,
    pub change: ChangeKind,
}

/// One step of the journal as the desktop's inspector shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ThreadStep {
    #[ts(type = "number")]
    pub at: i64,
    /// The event at `at` as it is in the journal; `null` when it is not JSON or out of range.
    pub event: Value,
    pub kind: Option<String>,
    /// State after this step.
    pub state: Value,
    /// The thread's messages after this step from `messages_start` on, as many as the window
    /// asked for (all of them from `step_view`).
    pub messages: Vec<Value>,
    /// Messages in the thread after this step.
    #[ts(type = "number")]
    pub message_count: u64,
    #[ts(type = "number")]
    pub messages_start: u64,
    pub run: Run,
    /// Steps of the current run started and not yet finished after this step, oldest first.
    pub steps: Vec<String>,
    /// The RFC 6902 patch this step carries (`STATE_DELTA` only).
    pub patch: Option<Value>,
    /// State paths this step changed, comparing the state before and after it.
    pub changes: Vec<PathChange>,
    /// Why this step's state patch did not apply.
    pub patch_failure: Option<String>,
    /// For a `MESSAGES_SNAPSHOT`: what happened to each message.
    pub reconciliation: Vec<MessageReconciliation>,
    /// Read-time and fold-time diagnostics of this step.
    pub diagnostics: Vec<Diagnostic>,
}

/// A page of the thread's messages after a step: what the desktop's message list scrolls to.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct MessagePage {
    #[ts(type = "number")]
    pub at: i64,
    #[ts(type = "number")]
    pub start: u64,
    /// Messages in the thread after the step.
    #[ts(type = "number")]
    pub total: u64,
    pub messages: Vec<Value>,
}

impl ThreadStep {
    /// The step with only the messages `window` covers.
    pub fn windowed(mut self, window: MessageWindow) -> ThreadStep {
        let range = window.range(self.messages.len());
        self.messages_start = range.start as u64;
        self.messages = self.messages.drain(range).collect();
        self
    }
}

/// One run on the timeline: from its `RUN_STARTED` to its `RUN_FINISHED` or `RUN_ERROR`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunSpan {
    pub thread_id: Option<String>,
    pub run_id: Option<String>,
    #[ts(type = "number")]
    pub start: i64,
    /// Offset of the event that ended the run; `None` while it is still open.
    #[ts(type = "number | null")]
    pub end: Option<i64>,
    pub status: RunStatus,
}

fn offset_of(event: &StoredEvent) -> i64 {
    event.offset.unwrap_or(event.seq as i64 + 1)
}

pub(super) fn at_of(event: &StoredEvent) -> At {
    At {
        seq: event.seq,
        line: event.line,
        offset: offset_of(event),
    }
}

/// Folds every event, handing each one's report to `visit` with the thread after it.
pub fn fold_with<'a>(
    events: impl IntoIterator<Item = &'a StoredEvent>,
    mut visit: impl FnMut(&StoredEvent, &Outcome, &Thread),
) -> Thread {
    let mut thread = Thread::default();
    for event in events {
        let report = thread.apply(at_of(event), event.json().as_ref());
        visit(event, &report, &thread);
    }
    thread
}

pub fn state_at(events: &[StoredEvent], at: i64) -> StateAt {
    let mut fold = StateFold::default();
    for event in events.iter().filter(|e| offset_of(e) <= at) {
        fold.add(event);
    }
    fold.finish(at)
}

/// Records a view reads from the store at a time.
const SLICE: u64 = 4_096;

/// Hands the stored records `from <= seq < to` to `visit` in order, reading a slice at a time.
fn each_stored(
    store: &Store,
    journal_id: i64,
    from: u64,
    to: u64,
    mut visit: impl FnMut(&StoredEvent),
) -> Result<(), StoreError> {
    for slice in store.slices(journal_id, from, to, SLICE) {
        for event in &slice? {
            visit(event);
        }
    }
    Ok(())
}

/// The thread after the first `records` records: the nearest checkpoint at or before them,
/// then the stored records after it. Also says where the checkpoint was (0 without one).
fn thread_after(
    store: &Store,
    journal_id: i64,
    records: u64,
    mut visit: impl FnMut(&StoredEvent, &Outcome),
) -> Result<(Thread, u64), StoreError> {
    let (from, mut thread) = match super::latest_checkpoint(store, journal_id, records)? {
        Some((from, restored)) => (from, restored.thread),
        None => (0, Thread::default()),
    };
    each_stored(store, journal_id, from, records, |event| {
        let report = thread.apply(at_of(event), event.json().as_ref());
        visit(event, &report);
    })?;
    Ok((thread, from))
}

/// `state_at`, read from the store: the nearest checkpoint and the records after it, with the
/// diagnostics before the checkpoint as the refresh that wrote it stored them.
pub fn state_at_stored(store: &Store, journal_id: i64, at: i64) -> Result<StateAt, StoreError> {
    let through = store.records_through_offset(journal_id, at)?;
    let mut after = Vec::new();
    let (thread, from) = thread_after(store, journal_id, through, |event, report| {
        after.extend(event.diagnostics.iter().cloned());
        after.extend(report.diagnostics.iter().cloned());
    })?;
    let mut diagnostics: Vec<Diagnostic> = if from > 0 {
        store
            .diagnostics_between(journal_id, 0, from)?
            .into_iter()
            .map(|(_, diagnostic)| diagnostic)
            .filter(|d| !super::PROVISIONAL_CODES.contains(&d.code.as_str()))
            .collect()
    } else {
        Vec::new()
    };
    diagnostics.extend(after);
    Ok(StateFold {
        thread,
        diagnostics,
    }
    .finish(at))
}

/// The thread and every diagnostic on the way, for `state_at`.
#[derive(Default)]
struct StateFold {
    thread: Thread,
    diagnostics: Vec<Diagnostic>,
}

impl StateFold {
    fn add(&mut self, event: &StoredEvent) {
        let report = self.thread.apply(at_of(event), event.json().as_ref());
        self.diagnostics.extend(event.diagnostics.iter().cloned());
        self.diagnostics.extend(report.diagnostics);
    }

    fn finish(self, at: i64) -> StateAt {
        StateAt {
            at,
            state: self.thread.state,
            messages: self.thread.messages.into_vec(),
            run: self.thread.run,
            diagnostics: self.diagnostics,
        }
    }
}

pub fn step_view(events: &[StoredEvent], at: i64) -> ThreadStep {
    let mut thread = Thread::default();
    for event in events.iter().filter(|e| offset_of(e) < at) {
        thread.apply(at_of(event), event.json().as_ref());
    }
    let current = events.iter().find(|e| offset_of(e) == at);
    step(thread, current, at)
}

/// `step_view`, read from the store: the nearest checkpoint before `at`, then the records
/// after it.
pub fn step_view_stored(store: &Store, journal_id: i64, at: i64) -> Result<ThreadStep, StoreError> {
    let before = store.records_through_offset(journal_id, at - 1)?;
    let (thread, _) = thread_after(store, journal_id, before, |_, _| {})?;
    let current = store
        .event(journal_id, before)?
        .filter(|event| offset_of(event) == at);
    Ok(step(thread, current.as_ref(), at))
}

/// The messages `window` covers in the thread after the step at `at`, read from the store as
/// `step_view_stored` reads the thread, without the rest of the step.
pub fn messages_stored(
    store: &Store,
    journal_id: i64,
    at: i64,
    window: MessageWindow,
) -> Result<MessagePage, StoreError> {
    let through = store.records_through_offset(journal_id, at)?;
    let (thread, _) = thread_after(store, journal_id, through, |_, _| {})?;
    let range = window.range(thread.messages.len());
    Ok(MessagePage {
        at,
        start: range.start as u64,
        total: thread.messages.len() as u64,
        messages: thread.messages[range].to_vec(),
    })
}

/// The step that applying `current` (the record at `at`, if any) to `thread` makes.
fn step(mut thread: Thread, current: Option<&StoredEvent>, at: i64) -> ThreadStep {
    let before = thread.state.clone();
    let value = current.and_then(StoredEvent::json);
    let report = match current {
        Some(event) => thread.apply(at_of(event), value.as_ref()),
        None => Outcome::default(),
    };
    let kind = current.and_then(|e| e.kind.clone());
    let patch = match (kind.as_deref(), &value) {
        (Some("STATE_DELTA"), Some(event)) => event.field("delta").cloned(),
        _ => None,
    };
    let mut changes = Vec::new();
    diff(&before, &thread.state, &mut String::new(), &mut changes);
    let mut diagnostics: Vec<Diagnostic> =
        current.map(|e| e.diagnostics.clone()).unwrap_or_default();
    diagnostics.extend(report.diagnostics);
    let messages = thread.messages.into_vec();
    ThreadStep {
        at,
        event: value.unwrap_or(Value::Null),
        kind,
        state: thread.state,
        message_count: messages.len() as u64,
        messages_start: 0,
        messages,
        run: thread.run,
        steps: thread.steps,
        patch,
        changes,
        patch_failure: report.patch_failure,
        reconciliation: report.reconciliation,
        diagnostics,
    }
}

pub fn runs(events: &[StoredEvent]) -> Vec<RunSpan> {
    let mut spans = RunSpans::default();
    fold_with(events, |event, report, thread| {
        spans.add(event, report, thread)
    });
    spans.list
}

/// `runs`, read from the store: the run marks the refresh left say where each run starts and
/// ends, the events they mark say under which ids and how it ended, and a run still open
/// where the next one starts (or at the journal's end) is asked of the thread there.
pub fn runs_stored(store: &Store, journal_id: i64) -> Result<Vec<RunSpan>, StoreError> {
    let marks = store.marked_records(journal_id, &["run-start", "run-end", "run-error"])?;
    let mut list: Vec<RunSpan> = Vec::new();
    // For each span left open, the records before which its status is read.
    let mut unsettled: Vec<(usize, u64)> = Vec::new();
    let mut open = false;
    for (mark, bytes) in marks {
        if !open && mark.kind != "run-start" {
            continue;
        }
        let Some(value) = journalscope_shapes::record_json::value(&bytes) else {
            continue;
        };
        // An AG-UI event's offset is its position.
        let offset = mark.seq as i64 + 1;
        if mark.kind == "run-start" {
            if open {
                unsettled.push((list.len() - 1, mark.seq));
            }
            let run = started_run(&value);
            list.push(RunSpan {
                thread_id: run.thread_id,
                run_id: run.run_id,
                start: offset,
                end: None,
                status: run.status,
            });
            open = true;
        } else if let Some(span) = list.last_mut() {
            span.end = Some(offset);
            span.status = ended_status(&value);
            open = false;
        }
    }
    if open {
        unsettled.push((list.len() - 1, store.event_count(journal_id)?));
    }
    // A run stays open past its start only when it never ended: a malformed patch may have
    // stopped it since, which the thread where the span stops knows.
    for (index, records) in unsettled {
        let (thread, _) = thread_after(store, journal_id, records, |_, _| {})?;
        list[index].status = thread.run.status;
    }
    Ok(list)
}

/// Run boundaries as a fold meets them.
#[derive(Default)]
struct RunSpans {
    list: Vec<RunSpan>,
    open: bool,
}

impl RunSpans {
    fn add(&mut self, event: &StoredEvent, report: &Outcome, thread: &Thread) {
        for (kind, _) in &report.marks {
            match kind.as_str() {
                "run-start" => {
                    self.list.push(RunSpan {
                        thread_id: thread.run.thread_id.clone(),
                        run_id: thread.run.run_id.clone(),
                        start: offset_of(event),
                        end: None,
                        status: thread.run.status,
                    });
                    self.open = true;
                }
                "run-end" | "run-error" if self.open => {
                    if let Some(span) = self.list.last_mut() {
                        span.end = Some(offset_of(event));
                    }
                    self.open = false;
                }
                _ => {}
            }
        }
        let open = self.open;
        if let Some(span) = self.list.last_mut() {
            if open || span.end == Some(offset_of(event)) {
                span.status = thread.run.status;
            }
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The paths where `after` differs from `before`, as specific as the shapes allow.
pub fn diff(before: &Value, after: &Value, path: &mut String, out: &mut Vec<PathChange>) {
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, old) in a {
                let len = path.len();
                path.push('/');
                path.push_str(&escape(key));
                match b.get(key) {
                    Some(new) => diff(old, new, path, out),
                    None => out.push(PathChange {
                        path: path.clone(),
                        change: ChangeKind::Removed,
                    }),
                }
                path.truncate(len);
            }
            for key in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(PathChange {
                    path: format!("{path}/{}", escape(key)),
                    change: ChangeKind::Added,
                });
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for index in 0..a.len().max(b.len()) {
                let len = path.len();
                path.push('/');
                path.push_str(&index.to_string());
                match (a.get(index), b.get(index)) {
                    (Some(old), Some(new)) => diff(old, new, path, out),
                    (Some(_), None) => out.push(PathChange {
                        path: path.clone(),
                        change: ChangeKind::Removed,
                    }),
                    (None, Some(_)) => out.push(PathChange {
                        path: path.clone(),
                        change: ChangeKind::Added,
                    }),
                    (None, None) => {}
                }
                path.truncate(len);
            }
        }
        (old, new) if old != new => out.push(PathChange {
            path: path.clone(),
            change: ChangeKind::Replaced,
        }),
        _ => {}
    }
}

fn excerpt(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => return String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = flat.chars().take(100).collect();
    let ellipsis = if flat.chars().count() > 100 {
        "…"
    } else {
        ""
    };
    format!(" {:?}", format!("{cut}{ellipsis}"))
}

pub fn render_state_text(state: &StateAt) -> String {
    let mut out = String::new();
    let run = &state.run;
    out.push_str(&format!(
        "@{}  run {}/{} {}\n",
        state.at,
        run.thread_id.as_deref().unwrap_or("-"),
        run.run_id.as_deref().unwrap_or("-"),
        status_text(run.status)
    ));
    out.push_str("state:\n");
    let pretty = serde_json::to_string_pretty(&state.state).unwrap_or_default();
    for line in pretty.lines() {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("messages ({}):\n", state.messages.len()));
    for (index, message) in state.messages.iter().enumerate() {
        let role = message.field("role").and_then(Value::as_str).unwrap_or("?");
        let id = message.field("id").and_then(Value::as_str).unwrap_or("?");
        let mut line = format!("  [{}] {role} {id}", index + 1);
        if let Some(call) = message.field("toolCallId").and_then(Value::as_str) {
            line.push_str(&format!(" -> {call}"));
        }
        if let Some(kind) = message.field("activityType").and_then(Value::as_str) {
            line.push_str(&format!(" ({kind})"));
        }
        line.push_str(&excerpt(message.field("content")));
        if let Some(calls) = message.field("toolCalls").and_then(Value::as_array) {
            for call in calls {
                let function = call.field("function");
                let name = function
                    .and_then(|f| f.field("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let args = function
                    .and_then(|f| f.field("arguments"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let args: String = args.split_whitespace().collect::<Vec<_>>().join(" ");
                line.push_str(&format!(
                    " call {}: {name}({args})",
                    call.field("id").and_then(Value::as_str).unwrap_or("?")
                ));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!("diagnostics ({}):\n", state.diagnostics.len()));
    for d in &state.diagnostics {
        out.push_str(&format!(
            "  @{} line {} {} {}: {}\n",
            d.offset.map_or("-".to_string(), |o| o.to_string()),
            d.line,
            d.severity.as_str(),
            d.code,
            d.message
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::MessageWindow;

    #[test]
    fn a_message_window_never_covers_more_than_an_answer_may_carry() {
        let all = MessageWindow {
            start: 0,
            limit: u64::MAX,
        };
        assert_eq!(
            all.range(25_000),
            0..MessageWindow::MAX as usize,
            "asking for everything of a long thread gets one bounded page"
        );
        let tail = MessageWindow {
            start: 24_990,
            limit: 50,
        };
        assert_eq!(
            tail.range(25_000),
            24_990..25_000,
            "a page at the end stops at the last message"
        );
        let past = MessageWindow {
            start: 30_000,
            limit: 50,
        };
        assert_eq!(
            past.range(25_000),
            25_000..25_000,
            "a page past the end is empty"
        );
    }
}
