//! What the CLI and the desktop show of an AgentsKit journal: the per-line verdicts with the
//! lineage tree (`turns`), and the snapshot a cursor holds after a given line (`state_at`, or
//! `state_at_stored` from the database), each as serialisable data and as plain text.

use std::fmt::Write;

use serde::Serialize;
use ts_rs::TS;

use super::cursor::{Cursor, Verdict};
use super::decoder::{Lineage, Message, TurnBody, TurnDiagnostic, TurnEvent, TurnStatus, Usage};
use super::lineage::{lineage, LineageBuilder, LineageNode};
use super::prompt::PromptTokens;
use super::AgentsKitJournal;
use journalscope_store::store::{Store, StoreError, StoredEvent};

/// The CLI's `turns` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct TurnsReport {
    /// The session the cursor followed; `None` when the journal holds no valid snapshot and
    /// none was asked for.
    pub session: Option<String>,
    /// Every session a valid envelope names, in order of first appearance.
    pub sessions: Vec<String>,
    pub lines: Vec<LineReport>,
    pub lineage: Vec<LineageNode>,
}

/// The cursor's verdict on one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, rename = "AgentsKitLineReport")]
pub struct LineReport {
    #[ts(type = "number")]
    pub offset: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub sequence: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub event: Option<String>,
    pub verdict: Verdict,
    /// The protocol's decode error code, for a malformed line only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub code: Option<String>,
}

pub fn turns(events: &[StoredEvent], session: Option<&str>) -> TurnsReport {
    let journal = AgentsKitJournal::decode(events);
    let session = session
        .map(str::to_string)
        .or_else(|| journal.default_session());
    let verdicts = journal.verdicts(session.as_deref());
    let lines = journal
        .lines
        .iter()
        .zip(verdicts)
        .map(|(line, verdict)| line_report(line, verdict))
        .collect();
    let lineage = session
        .as_deref()
        .map(|s| lineage(&journal, s).roots)
        .unwrap_or_default();
    TurnsReport {
        session,
        sessions: journal.sessions(),
        lines,
        lineage,
    }
}

/// `turns`, read from the store a slice at a time: the report keeps a small row per line and
/// the lineage its turns, never the snapshots.
pub fn turns_stored(
    store: &Store,
    journal_id: i64,
    session: Option<&str>,
) -> Result<TurnsReport, StoreError> {
    turns_in_slices(store, journal_id, session, SLICE)
}

/// [`turns_stored`] reading `slice` records at a time: tests use a short one to cross many
/// seams between slices.
pub fn turns_in_slices(
    store: &Store,
    journal_id: i64,
    session: Option<&str>,
    slice: u64,
) -> Result<TurnsReport, StoreError> {
    let session = match session {
        Some(session) => Some(session.to_string()),
        None => stored_default_session(store, journal_id)?,
    };
    let records = store.event_count(journal_id)?;
    let mut builder = session.as_deref().map(LineageBuilder::new);
    let mut sessions: Vec<String> = Vec::new();
    let mut lines = Vec::new();
    let mut held = None;
    for read in store.slices(journal_id, 0, records, slice) {
        let journal = AgentsKitJournal::decode(&read?);
        for named in journal.sessions() {
            if !sessions.contains(&named) {
                sessions.push(named);
            }
        }
        let mut cursor = Cursor::resume(session.as_deref(), held);
        for line in &journal.lines {
            lines.push(line_report(line, cursor.apply(&line.decoded)));
            if let Some(builder) = &mut builder {
                builder.add(line);
            }
        }
        held = cursor.held();
    }
    Ok(TurnsReport {
        session,
        sessions,
        lines,
        lineage: builder.map(|b| b.finish().roots).unwrap_or_default(),
    })
}

fn line_report(line: &super::Line, verdict: Verdict) -> LineReport {
    LineReport {
        offset: line.offset,
        sequence: line
            .decoded
            .as_ref()
            .map(|e| e.sequence)
            .ok()
            .or(line.sequence),
        event: line.event.clone(),
        verdict,
        code: line
            .decoded
            .as_ref()
            .err()
            .map(|e| e.code.as_str().to_string()),
    }
}

pub fn render_turns_text(report: &TurnsReport) -> String {
    let mut out = String::new();
    let session = report.session.as_deref().unwrap_or("(none)");
    let _ = writeln!(
        out,
        "session {session} (sessions: {})",
        if report.sessions.is_empty() {
            "none".to_string()
        } else {
            report.sessions.join(", ")
        }
    );
    for line in &report.lines {
        let sequence = line
            .sequence
            .map_or_else(|| "-".to_string(), |s| format!("#{s}"));
        let mut text = format!(
            "@{:<4} {:<16} {:<6} {}",
            line.offset,
            line.verdict.as_str(),
            sequence,
            line.event.as_deref().unwrap_or("-")
        );
        if let Some(code) = &line.code {
            text.push(' ');
            text.push_str(code);
        }
        let _ = writeln!(out, "{}", text.trim_end());
    }
    out.push_str("lineage:\n");
    if report.lineage.is_empty() {
        out.push_str("  (no turns)\n");
    }
    for root in &report.lineage {
        render_node(&mut out, root, 1);
    }
    out
}

fn render_node(out: &mut String, node: &LineageNode, depth: usize) {
    let mut text = format!(
        "{}{} {}",
        "  ".repeat(depth),
        node.turn_id,
        node.operation.as_str()
    );
    if let Some(parent) = &node.parent_turn_id {
        let _ = write!(text, " of {parent}");
    }
    if let Some(source) = &node.source_message_id {
        let _ = write!(text, " from {source}");
    }
    if !node.snapshot_offsets.is_empty() {
        let offsets: Vec<String> = node
            .snapshot_offsets
            .iter()
            .map(|o| format!("@{o}"))
            .collect();
        let _ = write!(text, "  snapshots {}", offsets.join(" "));
    }
    let _ = writeln!(out, "{text}");
    for child in &node.children {
        render_node(out, child, depth + 1);
    }
}

/// The CLI's `state --at N` answer: the snapshot the cursor holds after lines `1..=at`, all
/// nulls while it holds none.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SnapshotAt {
    #[ts(type = "number")]
    pub at: i64,
    pub session: Option<String>,
    #[ts(type = "number | null")]
    pub sequence: Option<u64>,
    pub status: Option<TurnStatus>,
    pub messages: Option<Vec<Message>>,
    pub usage: Option<Usage>,
    /// The turn's prompt counted, against the usage's `promptTokens`.
    pub tokens: Option<Box<PromptTokens>>,
    pub lineage: Option<Lineage>,
    /// The turn the held snapshot belongs to.
    pub turn_id: Option<String>,
    /// The line the held snapshot was accepted at.
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    /// The snapshot's own `error`, when the turn failed.
    pub error: Option<TurnDiagnostic>,
}

pub fn state_at(events: &[StoredEvent], at: i64, session: Option<&str>) -> SnapshotAt {
    let journal = AgentsKitJournal::decode(events);
    let session = session
        .map(str::to_string)
        .or_else(|| journal.default_session());
    let mut cursor = Cursor::new(session.as_deref());
    let mut offset = None;
    for line in journal.lines.iter().filter(|l| l.offset <= at) {
        if cursor.apply(&line.decoded) == Verdict::Accepted {
            offset = Some(line.offset);
        }
    }
    snapshot_at(at, session, cursor.current().zip(offset))
}

/// Records a fold of a session other than the default reads from the store at a time.
const SLICE: u64 = 4_096;

/// `state_at`, read from the store. For the session the analysis followed (the first valid
/// snapshot's), the `accepted` marks already say which line the cursor holds at `at`: one
/// index seek and one line decoded, whatever the journal's length. Another session is folded
/// from the first record with one slice in memory at a time.
pub fn state_at_stored(
    store: &Store,
    journal_id: i64,
    at: i64,
    session: Option<&str>,
) -> Result<SnapshotAt, StoreError> {
    let default = stored_default_session(store, journal_id)?;
    let session = session.map(str::to_string).or_else(|| default.clone());
    let through = store.records_through_offset(journal_id, at)?;
    let accepted = if session == default {
        store.next_mark(journal_id, Verdict::Accepted.as_str(), Some(through), false)?
    } else {
        fold_session(store, journal_id, through, session.as_deref())?
    };
    let held = match accepted {
        Some(seq) => store.event(journal_id, seq)?,
        None => None,
    };
    let decoded = held.as_ref().map(|event| {
        let line = AgentsKitJournal::decode(std::slice::from_ref(event))
            .lines
            .remove(0);
        (line.decoded, line.offset)
    });
    let held = match &decoded {
        Some((Ok(event), offset)) => Some((event, *offset)),
        _ => None,
    };
    Ok(snapshot_at(at, session, held))
}

/// The session of the first accepted snapshot: the one the analysis's cursor followed.
fn stored_default_session(store: &Store, journal_id: i64) -> Result<Option<String>, StoreError> {
    let Some(seq) = store.next_mark(journal_id, Verdict::Accepted.as_str(), None, true)? else {
        return Ok(None);
    };
    let Some(event) = store.event(journal_id, seq)? else {
        return Ok(None);
    };
    let line = AgentsKitJournal::decode(std::slice::from_ref(&event))
        .lines
        .remove(0);
    Ok(line.decoded.ok().map(|event| event.session_id))
}

/// The seq of the line a cursor on `session` holds after the first `through` records.
fn fold_session(
    store: &Store,
    journal_id: i64,
    through: u64,
    session: Option<&str>,
) -> Result<Option<u64>, StoreError> {
    let (mut held, mut accepted) = (None, None);
    for slice in store.slices(journal_id, 0, through, SLICE) {
        let journal = AgentsKitJournal::decode(&slice?);
        let mut cursor = Cursor::resume(session, held);
        for line in &journal.lines {
            if cursor.apply(&line.decoded) == Verdict::Accepted {
                accepted = Some(line.seq);
            }
        }
        held = cursor.held();
    }
    Ok(accepted)
}

fn snapshot_at(at: i64, session: Option<String>, held: Option<(&TurnEvent, i64)>) -> SnapshotAt {
    let snapshot = held.and_then(|(event, offset)| match &event.body {
        TurnBody::Snapshot(snapshot) => Some((event, snapshot, offset)),
        _ => None,
    });
    SnapshotAt {
        at,
        session,
        sequence: snapshot.map(|(e, _, _)| e.sequence),
        status: snapshot.map(|(_, s, _)| s.status),
        messages: snapshot.map(|(_, s, _)| s.messages.clone()),
        usage: snapshot.map(|(_, s, _)| s.usage),
        tokens: snapshot.map(|(_, s, _)| Box::new(PromptTokens::of(s))),
        lineage: snapshot.and_then(|(_, s, _)| s.lineage.clone()),
        turn_id: snapshot.map(|(e, _, _)| e.turn_id.clone()),
        offset: snapshot.map(|(_, _, o)| o),
        error: snapshot.and_then(|(_, s, _)| s.error.clone()),
    }
}

pub fn render_state_text(state: &SnapshotAt) -> String {
    let mut out = String::new();
    let session = state.session.as_deref().unwrap_or("(none)");
    let (Some(sequence), Some(status)) = (state.sequence, state.status) else {
        let _ = writeln!(
            out,
            "@{} session {session}: no snapshot accepted yet",
            state.at
        );
        return out;
    };
    let _ = writeln!(
        out,
        "@{} session {session} sequence {sequence} turn {} status {} (accepted at @{})",
        state.at,
        state.turn_id.as_deref().unwrap_or("-"),
        status.as_str(),
        state
            .offset
            .map_or_else(|| "-".to_string(), |o| o.to_string())
    );
    if let Some(usage) = &state.usage {
        let _ = writeln!(
            out,
            "usage: prompt {} completion {} total {}",
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
        );
    }
    if let Some(tokens) = &state.tokens {
        let _ = writeln!(out, "{}", tokens.line());
    }
    match &state.lineage {
        Some(Lineage {
            operation,
            parent_turn_id: Some(parent),
            source_message_id: Some(source),
        }) => {
            let _ = writeln!(
                out,
                "lineage: {} of {parent} from {source}",
                operation.as_str()
            );
        }
        Some(l) => {
            let _ = writeln!(out, "lineage: {}", l.operation.as_str());
        }
        None => {}
    }
    if let Some(error) = &state.error {
        let _ = writeln!(out, "error: {} {}", error.code, error.message);
    }
    let messages = state.messages.as_deref().unwrap_or_default();
    let _ = writeln!(out, "messages ({}):", messages.len());
    for m in messages {
        let _ = writeln!(
            out,
            "  [{}] {} {}: {}",
            m.id,
            m.role.as_str(),
            m.status.as_str(),
            // Continuation lines stay inside the message's block.
            m.content.replace('\n', "\n      ")
        );
        for call in m.tool_calls.iter().flatten() {
            let _ = writeln!(out, "    tool {} {}({})", call.id, call.name, call.args);
        }
    }
    out
}
