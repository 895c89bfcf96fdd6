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

pub mod checkpoint;
pub mod lint;
mod messages;
mod reader;
mod reducer;
mod view;

pub use messages::Messages;
pub use reader::{is_known_type, looks_like, Reader, EVENT_TYPES};
pub use reducer::{
    apply_patch, patch_in_place, At, MessageFate, MessageReconciliation, Run, RunStatus,
    StepReport, Thread,
};
pub use view::{
    diff, fold_with, render_state_text, runs, runs_stored, state_at, state_at_stored, step_view,
    step_view_stored, AgUiStep, ChangeKind, PathChange, RunSpan, StateAt,
};

use std::ops::ControlFlow;

use serde_json::Value;

use crate::derived::{Analysis, CheckpointCover, FoldWatch, Mark, WATCH_EVERY};
use crate::diagnostic::Diagnostic;
use crate::source::{detect_framing, split, Position};
use crate::store::{Store, StoreError, StoredEvent};

pub fn analyse(events: &[StoredEvent]) -> Analysis {
    let mut unwatched = |_: u64| ControlFlow::Continue(());
    analyse_watched(events, &mut unwatched).unwrap_or_default()
}

/// `analyse`, telling `watch` how far it got; `None` when the watch abandoned it.
pub fn analyse_watched(events: &[StoredEvent], watch: FoldWatch<'_>) -> Option<Analysis> {
    let mut analysis = Analysis::default();
    let mut abandoned = false;
    let watched = events.iter().enumerate().map_while(|(index, event)| {
        abandoned = index % WATCH_EVERY == 0 && watch(index as u64).is_break();
        (!abandoned).then_some(event)
    });
    let thread = fold_with(watched, |event, report, _| {
        note_report(&mut analysis, event, report)
    });
    if abandoned || watch(events.len() as u64).is_break() {
        return None;
    }
    if let Some(last) = events.last() {
        for end in thread.at_end(view::at_of(last)) {
            analysis.diagnostics.push((last.seq, end));
        }
    }
    Some(analysis)
}

/// What a stored AG-UI journal is in the middle of at its end, as a phrase ("run \"r1\""):
/// the latest run lifecycle event, found through the type index, is a RUN_STARTED.
pub fn unfinished(store: &Store, journal_id: i64) -> Result<Option<String>, StoreError> {
    let last =
        store.last_event_of_types(journal_id, &["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"])?;
    Ok(last.and_then(|event| {
        let value = event.json()?;
        (value.get("type")?.as_str()? == "RUN_STARTED").then(|| {
            format!(
                "run {:?}",
                value
                    .get("runId")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("")
            )
        })
    }))
}

/// Records an AG-UI refresh reads from the store at a time.
const REFRESH_SLICE: u64 = 4_096;

/// Diagnostics about the journal's end rather than their event: each refresh replaces them.
const PROVISIONAL_CODES: &[&str] = &["run-never-finished", "state-never-established"];

/// Brings an AG-UI journal's derived tables up to its records, as `analyse` would: the fold
/// goes on from the latest checkpoint (from the first record when there is none in this
/// encoding), reads the records after it slice by slice, and writes a checkpoint every
/// [`checkpoint::SPACING`] records, so that an append folds only what it added and memory
/// holds one slice and the thread. `None` when the watch abandoned it.
pub fn refresh(
    store: &Store,
    journal_id: i64,
    watch: FoldWatch<'_>,
) -> Result<Option<()>, StoreError> {
    refresh_every(store, journal_id, checkpoint::SPACING, watch)
}

/// [`refresh`] with a checkpoint every `spacing` records (at least one): tests use a short one
/// to cross many checkpoints in a small journal.
pub fn refresh_every(
    store: &Store,
    journal_id: i64,
    spacing: u64,
    watch: FoldWatch<'_>,
) -> Result<Option<()>, StoreError> {
    let spacing = spacing.max(1);
    let records = store.event_count(journal_id)?;
    let next_block = store.checkpoint_block_end(journal_id)?;
    let (from, mut thread, mut encoder) = match latest_checkpoint(store, journal_id, records)? {
        Some((from, restored)) => {
            store.discard_analysis_from(journal_id, from)?;
            let mut encoder = restored.encoder;
            encoder.place_after(next_block);
            (from, restored.thread, encoder)
        }
        None => {
            store.replace_analysis(journal_id, &Analysis::default())?;
            (0, Thread::default(), checkpoint::Encoder::new(0))
        }
    };
    for slice in store.slices(journal_id, from, records, REFRESH_SLICE) {
        let slice = slice?;
        if slice
            .first()
            .is_some_and(|first| watch(first.seq).is_break())
        {
            return Ok(None);
        }
        let mut found = Analysis::default();
        for event in &slice {
            let report = thread.apply(view::at_of(event), event.json().as_ref());
            note_report(&mut found, event, &report);
            let folded = event.seq + 1;
            if folded % spacing == 0 && folded > from {
                encoder.encode(folded, &mut thread, &mut found);
            }
        }
        store.append_analysis(journal_id, &found)?;
    }
    if watch(records).is_break() {
        return Ok(None);
    }
    let end = match records.checked_sub(1) {
        Some(last) => store
            .event(journal_id, last)?
            .map_or_else(Vec::new, |last| {
                thread
                    .at_end(view::at_of(&last))
                    .into_iter()
                    .map(|d| (last.seq, d))
                    .collect()
            }),
        None => Vec::new(),
    };
    store.append_analysis(
        journal_id,
        &Analysis {
            diagnostics: end,
            provisional_codes: PROVISIONAL_CODES.to_vec(),
            cover: Some(CheckpointCover {
                records,
                format: checkpoint::FORMAT,
                seekable: true,
            }),
            ..Analysis::default()
        },
    )?;
    Ok(Some(()))
}

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
fn note_report(analysis: &mut Analysis, event: &StoredEvent, report: &StepReport) {
    for diagnostic in &report.diagnostics {
        analysis.diagnostics.push((event.seq, diagnostic.clone()));
    }
    for (kind, note) in &report.marks {
        analysis.marks.push(Mark {
            seq: event.seq,
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
    let mut reader = Reader::default();
    records
        .into_iter()
        .map(|record| {
            let value: Option<Value> = serde_json::from_slice(&record.bytes).ok();
            let mut read = reader.read(&record, value.as_ref());
            if value.is_none() {
                read.diagnostics.insert(
                    0,
                    Diagnostic::error(
                        record.line,
                        read.offset,
                        "invalid-json",
                        "the record is not JSON: shown as text, it changes nothing",
                    ),
                );
            }
            StoredEvent {
                seq: record.seq,
                line: record.line,
                byte_start: record.byte_start,
                byte_len: record.byte_len,
                offset: read.offset,
                kind: read.kind,
                created_at: read.created_at,
                summary: read.summary,
                diagnostics: read.diagnostics,
                raw: record.bytes,
            }
        })
        .collect()
}
