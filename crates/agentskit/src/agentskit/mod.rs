//! The AgentsKit chat-turn dialect (`agentskit.chat.turn`, version 1): reading NDJSON envelopes,
//! decoding them with the protocol's own rules, folding them through the session-monotonic
//! snapshot cursor, and the lineage tree of retries, edits and regenerations.

pub mod cursor;
pub mod decoder;
pub mod lineage;
pub mod prompt;
pub mod view;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use journalscope_seam::family::{Answer, Ask, AskError, Family, Reply};
use journalscope_seam::interpreter::{Controls, Fold, FoldRecord, Interpreter, RecordReader, View};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::{Field, Parsed};
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::{Analysis, CheckpointCover, Dialect, Mark, ReadEvent};
use journalscope_store::store::{JournalRow, Store, StoreError, StoredEvent};

pub use cursor::{Cursor, Verdict};
pub use decoder::{decode, DecodeError, ProtocolCode, TurnBody, TurnEvent};
pub use lineage::{LineageNode, LineageTree};
pub use prompt::PromptTokens;
pub use view::{
    render_state_text, render_turns_text, state_at, state_at_stored, turns, turns_in_slices,
    turns_stored, LineReport, SnapshotAt, TurnsReport,
};

/// An AgentsKit envelope names its protocol; nothing else is needed to recognise one.
pub fn looks_like(value: &Value) -> bool {
    value.field("protocol").and_then(Value::as_str) == Some(decoder::PROTOCOL)
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
pub struct AgentsKitJournal {
    pub lines: Vec<Line>,
}

impl Line {
    /// A record decoded: where it sits, and its envelope as written.
    pub fn of(seq: u64, line: u64, offset: Option<i64>, value: Option<&Value>) -> Line {
        Line {
            seq,
            line,
            offset: offset.unwrap_or(seq as i64 + 1),
            event: value
                .and_then(|v| v.field("event"))
                .and_then(Value::as_str)
                .map(str::to_string),
            sequence: value
                .and_then(|v| v.field("sequence"))
                .and_then(Value::as_u64),
            decoded: decode(value),
        }
    }
}

impl AgentsKitJournal {
    pub fn decode(events: &[StoredEvent]) -> AgentsKitJournal {
        let lines = events
            .iter()
            .map(|stored| {
                Line::of(
                    stored.seq,
                    stored.line,
                    stored.offset,
                    stored.json().as_ref(),
                )
            })
            .collect();
        AgentsKitJournal { lines }
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

/// Everything a fold of these records derives, as an import would store it: one mark per line
/// carrying the cursor's verdict, and the lineage warnings of the followed session.
pub fn analyse(events: &[StoredEvent]) -> Analysis {
    journalscope_seam::interpreter::fold_all(&INTERPRETER, events)
}

/// The encoding of an AgentsKit checkpoint: a database with another is folded again (2: a
/// prompt that differed from its report is kept, so its warning is not said twice; 3: each turn
/// is one row).
pub const CHECKPOINT_FORMAT: u32 = 3;

/// The AgentsKit dialect, as the seam sees it.
pub struct AgentsKit;

pub const INTERPRETER: AgentsKit = AgentsKit;

impl Interpreter for AgentsKit {
    fn dialect(&self) -> Dialect {
        Dialect::AgentsKit
    }

    fn describes(&self) -> &'static str {
        "AgentsKit turn snapshots"
    }

    fn demo(&self) -> Option<&'static journalscope_seam::interpreter::DemoJournal> {
        Some(&journalscope_seam::interpreter::DemoJournal {
            file_name: "agentskit-demo.ndjson",
            bytes: include_bytes!("../../../../demo/agentskit-demo.ndjson"),
            title: "AgentsKit",
            about: "snapshot cursor: verdicts, sessions, lineage",
        })
    }

    fn looks_like(&self, value: &Value) -> bool {
        looks_like(value)
    }

    fn reader(&self, _highest_offset: Option<i64>) -> Box<dyn RecordReader> {
        Box::new(Reader::default())
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(AgentsKitFold::default())
    }

    fn resume(
        &self,
        store: &Store,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<Box<dyn Fold>>, StoreError> {
        let resumed = store
            .checkpoint_before(journal_id, records)?
            .and_then(|(seq, bytes)| Some((seq, serde_json::from_slice::<Resume>(&bytes).ok()?)));
        Ok(resumed.map(|(seq, resume)| {
            let lineage = match (resume.lineage, &resume.session) {
                (Some(state), _) => Some(lineage::LineageBuilder::resume(state)),
                (None, Some(session)) => Some(lineage::LineageBuilder::for_diagnostics(session)),
                (None, None) => None,
            };
            let before_session = resume
                .before_session
                .into_iter()
                .map(|state| {
                    let builder = lineage::LineageBuilder::resume(state);
                    (builder.session().to_string(), builder)
                })
                .collect();
            Box::new(AgentsKitFold {
                session: resume.session,
                held: resume.held,
                lineage,
                before_session,
                flagged: resume.flagged,
                records: seq,
                ..AgentsKitFold::default()
            }) as Box<dyn Fold>
        }))
    }

    fn offers(&self) -> &'static [View] {
        &[View::Snapshots]
    }

    fn controls(&self) -> Controls {
        Controls::new(false, &["diagnostic", "sql"], &["diagnostic"])
    }

    fn checkpoint_format(&self) -> u32 {
        CHECKPOINT_FORMAT
    }

    fn answers(&self, family: Family) -> bool {
        matches!(family, Family::State | Family::Turns)
    }

    fn answer(&self, store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
        match ask {
            Ask::State { at, session } => {
                let state = state_at_stored(store, journal.id, *at, session.as_deref())?;
                Ok(Reply::View(Answer::of(&state, |out, state| {
                    out.push_str(&render_state_text(state));
                    Ok(())
                })))
            }
            // The window steps by row; an AgentsKit offset is the row's position, one past it.
            Ask::Step { seq, session, .. } => {
                let at = i64::try_from(*seq).unwrap_or(i64::MAX).saturating_add(1);
                let state = state_at_stored(store, journal.id, at, session.as_deref())?;
                Ok(Reply::View(Answer::of(&state, |out, state| {
                    out.push_str(&render_state_text(state));
                    Ok(())
                })))
            }
            Ask::Turns { session } => {
                let report = turns_stored(store, journal.id, session.as_deref())?;
                Ok(Reply::View(Answer::of(&report, |out, report| {
                    out.push_str(&render_turns_text(report));
                    Ok(())
                })))
            }
            _ => Err(AskError::NotOffered(ask.family())),
        }
    }
}

impl RecordReader for Reader {
    fn read(&mut self, record: &RawRecord, parsed: Option<&mut Parsed<'_>>) -> ReadEvent {
        Reader::read(self, record, parsed.map(Parsed::value))
    }
}

/// Where a fold stands, for the next one to go on from: the followed session, the sequence the
/// cursor holds and what the lineage knows. The view at an offset needs none of it (the
/// accepted marks name the held line), so only the latest is kept.
#[derive(Debug, Deserialize)]
struct Resume {
    session: Option<String>,
    held: Option<u64>,
    lineage: Option<lineage::LineageState>,
    /// Before a valid snapshot names the session: what each session's lineage knows so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    before_session: Vec<lineage::LineageState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flagged: Option<Flagged>,
}

/// The latest prompt whose count and report were too far apart: the turn's later snapshots
/// repeat the same report, and one warning says it.
/// A [`Resume`] as it is written, borrowing what the fold holds.
#[derive(Serialize)]
struct ResumeRef<'a> {
    session: Option<&'a str>,
    held: Option<u64>,
    lineage: Option<lineage::LineageStateRef<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    before_session: Vec<lineage::LineageStateRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flagged: Option<&'a Flagged>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Flagged {
    turn: String,
    counted: u64,
    reported: u64,
}

/// The cursor on the session of the first valid snapshot, folded line by line: one mark per
/// line carrying its verdict, and the lineage of that session for its warnings. It keeps only
/// the held sequence and the lineage's turns and message ids, never a line.
#[derive(Default)]
struct AgentsKitFold {
    session: Option<String>,
    held: Option<u64>,
    lineage: Option<lineage::LineageBuilder>,
    /// Before the first valid snapshot names the session, each session's lineage so far: the
    /// one of the session that turns out to be followed goes on.
    before_session: HashMap<String, lineage::LineageBuilder>,
    flagged: Option<Flagged>,
    /// The turn, prompt length and report last set against a count: a turn's streaming
    /// snapshots repeat its prompt, which is counted once.
    checked: Option<(String, usize, u64)>,
    found: Analysis,
    records: u64,
}

impl Fold for AgentsKitFold {
    fn feed(&mut self, record: FoldRecord<'_>, parsed: Option<Parsed<'_>>) {
        let value = parsed.map(Parsed::into_value);
        let line = Line::of(record.seq, record.line, record.offset, value.as_ref());
        if self.session.is_none() {
            if let Ok(
                event @ TurnEvent {
                    body: TurnBody::Snapshot(_),
                    ..
                },
            ) = &line.decoded
            {
                let session = event.session_id.clone();
                self.lineage = Some(
                    self.before_session
                        .remove(&session)
                        .unwrap_or_else(|| lineage::LineageBuilder::for_diagnostics(&session)),
                );
                self.before_session.clear();
                self.session = Some(session);
            }
        }
        let mut cursor = Cursor::resume(self.session.as_deref(), self.held);
        let previous = cursor.held();
        let verdict = cursor.apply(&line.decoded);
        self.held = cursor.held();
        self.found.marks.push(Mark {
            seq: line.seq,
            kind: verdict.as_str().to_string(),
            note: note(verdict, &line, previous, self.session.as_deref()),
        });
        if verdict == Verdict::Accepted {
            self.reconcile(&line);
        }
        match (&mut self.lineage, &line.decoded) {
            (Some(lineage), _) => lineage.add(&line),
            (None, Ok(event)) => self
                .before_session
                .entry(event.session_id.clone())
                .or_insert_with(|| lineage::LineageBuilder::for_diagnostics(&event.session_id))
                .add(&line),
            (None, Err(_)) => {}
        }
        self.records += 1;
    }

    fn take_found(&mut self) -> Analysis {
        std::mem::take(&mut self.found)
    }

    fn end(&mut self) -> Analysis {
        let mut analysis = self.take_found();
        if let Some(lineage) = &self.lineage {
            analysis.diagnostics.extend(lineage.diagnostics());
        }
        let mut before_session: Vec<lineage::LineageStateRef> = self
            .before_session
            .values()
            .map(lineage::LineageBuilder::state)
            .collect();
        // The same bytes however the sessions were met.
        before_session.sort_by(|a, b| a.session().cmp(b.session()));
        let resume = ResumeRef {
            session: self.session.as_deref(),
            held: self.held,
            lineage: self.lineage.as_ref().map(lineage::LineageBuilder::state),
            before_session,
            flagged: self.flagged.as_ref(),
        };
        analysis.provisional_codes = lineage::PROVISIONAL_CODES.to_vec();
        analysis.checkpoints = vec![(
            self.records,
            serde_json::to_vec(&resume).unwrap_or_default(),
        )];
        analysis.checkpoint_replaces = true;
        analysis.cover = Some(CheckpointCover {
            records: self.records,
            format: CHECKPOINT_FORMAT,
            seekable: false,
        });
        analysis
    }

    fn records(&self) -> u64 {
        self.records
    }
}

impl AgentsKitFold {
    /// Sets an accepted snapshot's reported prompt against its count: a difference beyond the
    /// tolerance is a warning on the line, once for each turn and figures.
    fn reconcile(&mut self, line: &Line) {
        let Ok(TurnEvent {
            turn_id,
            body: TurnBody::Snapshot(snapshot),
            ..
        }) = &line.decoded
        else {
            return;
        };
        let key = (
            turn_id.clone(),
            prompt::prompt_messages(snapshot).len(),
            snapshot.usage.prompt_tokens,
        );
        if self.checked.as_ref() == Some(&key) {
            return;
        }
        self.checked = Some(key);
        let tokens = PromptTokens::of(snapshot);
        let Some(check) = tokens.reconciliation.filter(|r| !r.within) else {
            return;
        };
        let flagged = Flagged {
            turn: turn_id.clone(),
            counted: check.counted,
            reported: check.reported,
        };
        if self.flagged.as_ref() == Some(&flagged) {
            return;
        }
        self.flagged = Some(flagged);
        let way = if check.difference > 0 {
            "more"
        } else {
            "fewer"
        };
        self.found.diagnostics.push((
            line.seq,
            Diagnostic::warning(
                line.line,
                Some(line.offset),
                "token-count-differs",
                format!(
                    "turn {turn_id}'s prompt of {} message(s) counts {} tokens ({}); its snapshot reported {}: {} {way}, beyond the tolerance of {}",
                    tokens.messages,
                    check.counted,
                    tokens.counted.tokenizer.method,
                    check.reported,
                    check.difference.unsigned_abs(),
                    check.tolerance
                ),
            ),
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(seq: u64) -> RawRecord {
        RawRecord {
            seq,
            line: seq + 1,
            byte_start: 0,
            byte_len: 0,
            bytes: Vec::new(),
        }
    }

    fn snapshot_line() -> Value {
        let message = |id: &str| {
            json!({"id": id, "role": "user", "content": "x", "status": "complete",
                   "createdAt": "2026-07-11T10:00:00.000Z"})
        };
        json!({
            "protocol": "agentskit.chat.turn", "version": 1, "eventId": "e4", "sessionId": "s1",
            "turnId": "t2", "sequence": 4, "emittedAt": "2026-07-11T10:00:04Z",
            "event": "server.turn.snapshot",
            "payload": {"messages": [message("m1"), message("m2"), message("m3")],
                        "status": "streaming",
                        "usage": {"promptTokens": 1, "completionTokens": 2, "totalTokens": 3},
                        "lineage": {"operation": "retry", "parentTurnId": "t1", "sourceMessageId": "m1"}}
        })
    }

    #[test]
    fn an_envelope_is_recognised_by_its_protocol() {
        assert!(
            looks_like(&snapshot_line()),
            "the protocol field identifies AgentsKit"
        );
        assert!(
            !looks_like(&json!({"type": "RUN_STARTED"})),
            "other dialects' events are not AgentsKit"
        );
    }

    #[test]
    fn a_snapshot_reads_into_its_columns_and_a_one_line_summary() {
        let read = Reader::default().read(&record(6), Some(&snapshot_line()));
        assert_eq!(
            read.offset,
            Some(7),
            "the offset is the 1-based line position"
        );
        assert_eq!(
            read.kind.as_deref(),
            Some("server.turn.snapshot"),
            "the kind is the envelope's event"
        );
        assert_eq!(
            read.created_at.as_deref(),
            Some("2026-07-11T10:00:04Z"),
            "the time is emittedAt"
        );
        assert_eq!(
            read.summary, "snapshot s1 #4 streaming 3 msgs, turn t2 (retry of t1)",
            "the summary names session, sequence, status, size, turn and ancestry"
        );
        assert!(
            read.diagnostics.is_empty(),
            "a valid line has no diagnostics"
        );
    }

    #[test]
    fn a_line_that_is_not_json_is_an_invalid_payload_on_its_line() {
        let read = Reader::default().read(&record(2), None);
        let codes: Vec<(&str, u64)> = read
            .diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.line))
            .collect();
        assert_eq!(
            codes,
            [("PROTOCOL_INVALID_PAYLOAD", 3)],
            "unparseable lines get the protocol's invalid-payload code"
        );
        assert_eq!(
            read.offset,
            Some(3),
            "an unparseable line still has its offset"
        );
    }

    #[test]
    fn a_malformed_line_keeps_its_event_and_time_for_the_list() {
        let mut value = snapshot_line();
        value["version"] = json!(2);
        let read = Reader::default().read(&record(0), Some(&value));
        assert_eq!(
            read.kind.as_deref(),
            Some("server.turn.snapshot"),
            "a malformed line is still listed under its event"
        );
        assert_eq!(
            read.diagnostics.first().map(|d| d.code.as_str()),
            Some("PROTOCOL_UNSUPPORTED_VERSION"),
            "the diagnostic carries the protocol code"
        );
        assert!(
            read.summary.starts_with("PROTOCOL_UNSUPPORTED_VERSION"),
            "the summary leads with the code"
        );
    }
}
