//! The AG-UI dialect: reading AG-UI event streams (JSONL, JSON array or captured SSE), folding
//! them into a thread's state and messages as the official TypeScript client does (with the
//! rules of interpretation.md §2), and the views the CLI and desktop show.
//!
//! Marks written by `analyse`: `run-start`, `run-end`, `run-error`, `state-snapshot`,
//! `state-delta`, `patch-failed`, `messages-snapshot`.
//!
//! Where the project's documents and the client source read for this module disagree, the
//! documents win: the activity exception of `MESSAGES_SNAPSHOT` revokes itself like the
//! reasoning one (interpretation.md §2; the client read always keeps activity), and a
//! `TOOL_CALL_START` for a tool call already held only renames it (wire-formats.md). An
//! event's `metadata` object is merged key by key into the message it builds or changes.

mod answer;
pub mod checkpoint;
pub mod lint;
mod messages;
mod reader;
mod reducer;
mod view;

pub use messages::Messages;
pub use reader::{is_known_type, looks_like, Reader, EVENT_TYPES};
pub use reducer::{
    apply_patch, patch_in_place, At, MessageFate, MessageReconciliation, Outcome, Run, RunStatus,
    Thread,
};
pub use view::{
    diff, fold_with, messages_stored, render_state_text, runs, runs_stored, state_at,
    state_at_stored, step_view, step_view_stored, ChangeKind, MessagePage, PathChange, RunSpan,
    StateAt, ThreadStep,
};

use serde_json::Value;

use journalscope_seam::family::{Ask, AskError, Family, Reply};
use journalscope_seam::interpreter::{Controls, Fold, FoldRecord, Interpreter, RecordReader, View};
use journalscope_shapes::record_json::{Field, Parsed};
use journalscope_shapes::source::{detect_framing, split, Position, RawRecord};
use journalscope_store::derived::{Analysis, CheckpointCover, Dialect, Mark, ReadEvent};
use journalscope_store::store::{JournalRow, Store, StoreError, StoredEvent};

/// The AG-UI dialect, as the seam sees it: its fold keeps a checkpoint every `spacing` records.
pub struct AgUi {
    spacing: u64,
}

pub const INTERPRETER: AgUi = AgUi {
    spacing: checkpoint::SPACING,
};

impl AgUi {
    /// The dialect with a checkpoint every `spacing` records (at least one): tests use a short
    /// one to cross many checkpoints in a small journal.
    pub fn with_spacing(spacing: u64) -> AgUi {
        AgUi {
            spacing: spacing.max(1),
        }
    }
}

impl Interpreter for AgUi {
    fn dialect(&self) -> Dialect {
        Dialect::AgUi
    }

    fn describes(&self) -> &'static str {
        "AG-UI event streams"
    }

    fn demo(&self) -> Option<&'static journalscope_seam::interpreter::DemoJournal> {
        Some(&journalscope_seam::interpreter::DemoJournal {
            file_name: "agui-demo.sse",
            bytes: include_bytes!("../../../../demo/agui-demo.sse"),
            title: "AG-UI",
            about: "state snapshots and JSON patches, messages, runs",
        })
    }

    fn looks_like(&self, value: &Value) -> bool {
        looks_like(value)
    }

    fn reader(&self, _highest_offset: Option<i64>) -> Box<dyn RecordReader> {
        Box::new(Reader::default())
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(AgUiFold {
            thread: Thread::default(),
            encoder: checkpoint::Encoder::new(0),
            spacing: self.spacing,
            found: Analysis::default(),
            records: 0,
            last: None,
        })
    }

    fn resume(
        &self,
        store: &Store,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<Box<dyn Fold>>, StoreError> {
        let Some((from, bytes)) = store.checkpoint_before(journal_id, records)? else {
            return Ok(None);
        };
        let Some(restored) = checkpoint::decode(store, journal_id, &bytes)? else {
            return Ok(None);
        };
        let mut encoder = restored.encoder;
        encoder.place_after(store.checkpoint_block_end(journal_id)?);
        let last = match from.checked_sub(1) {
            Some(seq) => store
                .event(journal_id, seq)?
                .map(|event| view::at_of(&event)),
            None => None,
        };
        Ok(Some(Box::new(AgUiFold {
            thread: restored.thread,
            encoder,
            spacing: self.spacing,
            found: Analysis::default(),
            records: from,
            last,
        })))
    }

    fn offers(&self) -> &'static [View] {
        &[View::Thread]
    }

    fn controls(&self) -> Controls {
        Controls::new(false, &["diagnostic", "sql"], &["run", "diagnostic"]).stepping(&["run"])
    }

    fn checkpoint_format(&self) -> u32 {
        checkpoint::FORMAT
    }

    fn unfinished(&self, store: &Store, journal_id: i64) -> Result<Option<String>, StoreError> {
        unfinished(store, journal_id)
    }

    fn posted(&self, body: &Value) -> Option<Result<String, String>> {
        Some(run_input_key(body))
    }

    fn answers(&self, family: Family) -> bool {
        answer::answers(family)
    }

    fn answer(&self, store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
        answer::answer(store, journal, ask)
    }
}

impl RecordReader for Reader {
    fn read(&mut self, record: &RawRecord, parsed: Option<&mut Parsed<'_>>) -> ReadEvent {
        Reader::read(self, record, parsed.map(Parsed::value))
    }
}

/// The thread folded record by record, a checkpoint of it every `spacing` records, each
/// naming again the blocks of what did not change since the one before.
struct AgUiFold {
    thread: Thread,
    encoder: checkpoint::Encoder,
    spacing: u64,
    found: Analysis,
    records: u64,
    /// Where the last record folded stands: what the end's diagnostics are said at.
    last: Option<At>,
}

impl Fold for AgUiFold {
    fn feed(&mut self, record: FoldRecord<'_>, parsed: Option<Parsed<'_>>) {
        let value = parsed.map(Parsed::into_value);
        let at = At {
            seq: record.seq,
            line: record.line,
            offset: record.offset.unwrap_or(record.seq as i64 + 1),
        };
        let report = self.thread.apply(at, value.as_ref());
        note_report(&mut self.found, record.seq, &report);
        self.records += 1;
        self.last = Some(at);
        if self.records.is_multiple_of(self.spacing) {
            self.encoder
                .encode(self.records, &mut self.thread, &mut self.found);
        }
    }

    fn take_found(&mut self) -> Analysis {
        std::mem::take(&mut self.found)
    }

    fn end(&mut self) -> Analysis {
        let mut analysis = self.take_found();
        if let Some(last) = self.last {
            analysis.diagnostics.extend(self.thread.at_end(last));
        }
        analysis.provisional_codes = PROVISIONAL_CODES.to_vec();
        analysis.cover = Some(CheckpointCover {
            records: self.records,
            format: checkpoint::FORMAT,
            seekable: true,
        });
        analysis
    }

    fn records(&self) -> u64 {
        self.records
    }
}

/// Everything a fold of these records derives, as an import would store it.
pub fn analyse(events: &[StoredEvent]) -> Analysis {
    journalscope_seam::interpreter::fold_all(&INTERPRETER, events)
}

/// The journal a run input's runs are kept in, one a thread ("thread=t1"); a body without a
/// thread and a run is no `RunAgentInput`.
pub fn run_input_key(input: &Value) -> Result<String, String> {
    let named = |field: &str| input.get(field).and_then(Value::as_str);
    match (input.is_object(), named("threadId"), named("runId")) {
        (true, Some(thread), Some(_)) => Ok(format!("thread={thread}")),
        _ => {
            Err("the run input is a RunAgentInput object, with a threadId and a runId".to_string())
        }
    }
}

/// What a stored AG-UI journal is in the middle of at its end, as a phrase ("run \"r1\""):
/// the latest run lifecycle event, found through the type index, is a RUN_STARTED.
pub fn unfinished(store: &Store, journal_id: i64) -> Result<Option<String>, StoreError> {
    let last =
        store.last_event_of_types(journal_id, &["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"])?;
    Ok(last.and_then(|event| {
        let value = event.json()?;
        (value.field("type")?.as_str()? == "RUN_STARTED").then(|| {
            format!(
                "run {:?}",
                value
                    .field("runId")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("")
            )
        })
    }))
}

/// Diagnostics about the journal's end rather than their event (said at the last event, or at
/// the start of reasoning still open there): each end replaces them.
const PROVISIONAL_CODES: &[&str] = &[
    "reasoning-never-ended",
    "run-never-finished",
    "state-never-established",
];

/// The latest checkpoint after at most `records` records, in this encoding and readable:
/// how many records it follows and the thread after them.
fn latest_checkpoint(
    store: &Store,
    journal_id: i64,
    records: u64,
) -> Result<Option<(u64, checkpoint::Restored)>, StoreError> {
    let Some(cover) = store.checkpoint_cover(journal_id)? else {
        return Ok(None);
    };
    if cover.format != checkpoint::FORMAT {
        return Ok(None);
    }
    let Some((seq, bytes)) = store.checkpoint_before(journal_id, records)? else {
        return Ok(None);
    };
    Ok(checkpoint::decode(store, journal_id, &bytes)?.map(|restored| (seq, restored)))
}

/// Adds what folding one event reported to an analysis.
fn note_report(analysis: &mut Analysis, seq: u64, report: &Outcome) {
    for diagnostic in &report.diagnostics {
        analysis.diagnostics.push((seq, diagnostic.clone()));
    }
    for (kind, note) in &report.marks {
        analysis.marks.push(Mark {
            seq,
            kind: kind.clone(),
            note: note.clone(),
        });
    }
}

/// Reads a whole AG-UI journal from its bytes without a store: framing detection, splitting
/// and the reader, as an import would store it. For tests and one-shot tools.
pub fn read_bytes(bytes: &[u8]) -> Vec<StoredEvent> {
    let framing = detect_framing(bytes);
    let records = split(bytes, framing, Position::default(), true).records;
    journalscope_seam::interpreter::read_records(&INTERPRETER, records)
}
