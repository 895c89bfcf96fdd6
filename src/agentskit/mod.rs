//! The AgentsKit chat-turn dialect (`agentskit.chat.turn`, version 1): reading NDJSON envelopes,
//! decoding them with the protocol's own rules, folding them through the session-monotonic
//! snapshot cursor, and the lineage tree of retries, edits and regenerations.

pub mod cursor;
pub mod decoder;
pub mod lineage;
pub mod view;

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::dialect::{Analysis, Mark, ReadEvent};
use crate::source::RawRecord;
use crate::store::StoredEvent;

pub use cursor::{Cursor, Verdict};
pub use decoder::{decode, DecodeError, ProtocolCode, TurnBody, TurnEvent};
pub use lineage::{LineageNode, LineageTree};
pub use view::{
    render_state_text, render_turns_text, state_at, turns, LineReport, SnapshotAt, TurnsReport,
};

/// An AgentsKit envelope names its protocol; nothing else is needed to recognise one.
pub fn looks_like(value: &Value) -> bool {
    value.get("protocol").and_then(Value::as_str) == Some(decoder::PROTOCOL)
}

/// Reads one envelope into the indexed columns. Stateless: every line decodes on its own, and
/// the cursor's judgement is a fold-time matter (`analyse`).
// Braced rather than a unit struct: the dialect seam builds every reader with `default()`.
#[derive(Debug, Default)]
pub struct Reader {}

impl Reader {
    pub fn read(&mut self, record: &RawRecord, value: Option<&Value>) -> ReadEvent {
        let offset = Some(record.seq as i64 + 1);
        let field = |name: &str| {
            value
                .and_then(|v| v.get(name))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let kind = field("event");
        let created_at = field("emittedAt");
        match decode(value) {
            Ok(event) => ReadEvent {
                offset,
                kind,
                created_at,
                summary: summarize(&event),
                diagnostics: Vec::new(),
            },
            Err(error) => ReadEvent {
                offset,
                kind,
                created_at,
                summary: one_line(&error.to_string(), 120),
                diagnostics: vec![Diagnostic::error(
                    record.line,
                    offset,
                    error.code.as_str(),
                    error.reason,
                )],
            },
        }
    }
}

fn summarize(event: &TurnEvent) -> String {
    let head = format!("{} #{}", event.session_id, event.sequence);
    match &event.body {
        TurnBody::Submit { input } => format!(
            "submit {head} turn {}: {}",
            event.turn_id,
            one_line(input, 80)
        ),
        TurnBody::Snapshot(snapshot) => {
            let count = snapshot.messages.len();
            let noun = if count == 1 { "msg" } else { "msgs" };
            let ancestry = match &snapshot.lineage {
                Some(decoder::Lineage {
                    operation,
                    parent_turn_id: Some(parent),
                    ..
                }) => format!(" ({} of {parent})", operation.as_str()),
                _ => String::new(),
            };
            format!(
                "snapshot {head} {} {count} {noun}, turn {}{ancestry}",
                snapshot.status.as_str(),
                event.turn_id
            )
        }
        TurnBody::Diagnostic(d) => {
            one_line(&format!("diagnostic {head} {}: {}", d.code, d.message), 120)
        }
    }
}

/// Collapses whitespace and cuts at `max` characters, marking the cut.
fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > max {
        let cut: String = joined.chars().take(max).collect();
        return format!("{cut}…");
    }
    joined
}

/// One stored line, decoded.
#[derive(Debug, Clone)]
pub struct Line {
    pub seq: u64,
    pub line: u64,
    pub offset: i64,
    /// The envelope's `event` and `sequence` as written, kept for lines that fail to decode.
    pub event: Option<String>,
    pub sequence: Option<u64>,
    pub decoded: Result<TurnEvent, DecodeError>,
}

/// A journal's lines decoded once, ready for any number of cursor folds.
#[derive(Debug, Clone, Default)]
pub struct Journal {
    pub lines: Vec<Line>,
}

impl Journal {
    pub fn decode(events: &[StoredEvent]) -> Journal {
        let lines = events
            .iter()
            .map(|stored| {
                let value = stored.json();
                Line {
                    seq: stored.seq,
                    line: stored.line,
                    offset: stored.offset.unwrap_or(stored.seq as i64 + 1),
                    event: value
                        .as_ref()
                        .and_then(|v| v.get("event"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    sequence: value
                        .as_ref()
                        .and_then(|v| v.get("sequence"))
                        .and_then(Value::as_u64),
                    decoded: decode(value.as_ref()),
                }
            })
            .collect();
        Journal { lines }
    }

    /// Every session a valid envelope names, in order of first appearance.
    pub fn sessions(&self) -> Vec<String> {
        let mut sessions: Vec<String> = Vec::new();
        for line in &self.lines {
            if let Ok(event) = &line.decoded {
                if !sessions.contains(&event.session_id) {
                    sessions.push(event.session_id.clone());
                }
            }
        }
        sessions
    }

    /// The session a cursor follows unless told otherwise: the first valid snapshot's.
    pub fn default_session(&self) -> Option<String> {
        self.lines.iter().find_map(|line| match &line.decoded {
            Ok(event) if matches!(event.body, TurnBody::Snapshot(_)) => {
                Some(event.session_id.clone())
            }
            _ => None,
        })
    }

    /// The cursor's verdict on every line, for a cursor fixed to `session`.
    pub fn verdicts(&self, session: Option<&str>) -> Vec<Verdict> {
        let mut cursor = Cursor::new(session);
        self.lines
            .iter()
            .map(|l| cursor.apply(&l.decoded))
            .collect()
    }
}

/// Folds the journal with a cursor on its default session: one mark per line carrying the
/// verdict, and the lineage warnings of that session.
pub fn analyse(events: &[StoredEvent]) -> Analysis {
    let journal = Journal::decode(events);
    let session = journal.default_session();
    let mut cursor = Cursor::new(session.as_deref());
    let mut marks = Vec::with_capacity(journal.lines.len());
    for line in &journal.lines {
        let previous = cursor.current().map(|e| e.sequence);
        let verdict = cursor.apply(&line.decoded);
        marks.push(Mark {
            seq: line.seq,
            kind: verdict.as_str().to_string(),
            note: note(verdict, line, previous, session.as_deref()),
        });
    }
    let diagnostics = match &session {
        Some(session) => lineage::lineage(&journal, session).diagnostics,
        None => Vec::new(),
    };
    Analysis { diagnostics, marks }
}

/// Why a line got its verdict, in a few words; a malformed line's note is its protocol code.
fn note(verdict: Verdict, line: &Line, previous: Option<u64>, session: Option<&str>) -> String {
    let event = match &line.decoded {
        Err(error) => return error.code.as_str().to_string(),
        Ok(event) => event,
    };
    let held = previous.map_or_else(String::new, |p| p.to_string());
    match verdict {
        Verdict::Accepted => match previous {
            Some(p) => format!("sequence {} replaces {p}", event.sequence),
            None => format!("sequence {} is the first snapshot", event.sequence),
        },
        Verdict::Duplicate => format!("sequence {} is already held", event.sequence),
        Verdict::Stale => format!("sequence {} is below the held {held}", event.sequence),
        Verdict::ForeignSession => format!(
            "session {} is not the followed session {}",
            event.session_id,
            session.unwrap_or("(none)")
        ),
        Verdict::NotASnapshot => event.body.event_name().to_string(),
        Verdict::Malformed => String::new(),
    }
}
