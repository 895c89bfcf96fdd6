//! Dialects: which system wrote a journal, and the seam each one plugs into. A dialect reads
//! one record at a time into the columns the store indexes (offset, type, time, summary) with
//! read-time diagnostics, and analyses a whole journal into fold-time diagnostics and marks.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::diagnostic::Diagnostic;
use crate::source::RawRecord;
use crate::{agentskit, agui, iterate};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Dialect {
    Iterate,
    AgUi,
    AgentsKit,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Iterate => "iterate",
            Dialect::AgUi => "ag-ui",
            Dialect::AgentsKit => "agentskit",
        }
    }

    pub fn parse(text: &str) -> Option<Dialect> {
        match text {
            "iterate" => Some(Dialect::Iterate),
            "ag-ui" => Some(Dialect::AgUi),
            "agentskit" => Some(Dialect::AgentsKit),
            _ => None,
        }
    }

    /// Decides from the first events that parse: an AgentsKit envelope names its protocol, an
    /// AG-UI event has an upper-case type from the AG-UI list, anything else is iterate.
    pub fn detect<'a>(values: impl IntoIterator<Item = &'a Value>) -> Dialect {
        for value in values.into_iter().take(64) {
            if agentskit::looks_like(value) {
                return Dialect::AgentsKit;
            }
            if agui::looks_like(value) {
                return Dialect::AgUi;
            }
            if iterate::looks_like(value) {
                return Dialect::Iterate;
            }
        }
        Dialect::Iterate
    }
}

/// The indexed columns of one record, as its dialect reads them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadEvent {
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub created_at: Option<String>,
    /// One line for an event list; never the whole payload.
    pub summary: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads records in file order. Readers may keep state (the previous offset, say), so one
/// reader follows one journal from its first record, or is resumed from the last stored one.
pub enum Reader {
    Iterate(iterate::Reader),
    AgUi(agui::Reader),
    AgentsKit(agentskit::Reader),
}

impl Reader {
    pub fn new(dialect: Dialect) -> Reader {
        match dialect {
            Dialect::Iterate => Reader::Iterate(iterate::Reader::default()),
            Dialect::AgUi => Reader::AgUi(agui::Reader::default()),
            Dialect::AgentsKit => Reader::AgentsKit(agentskit::Reader::default()),
        }
    }

    /// A reader positioned after what a journal already holds, `highest_offset` being the
    /// highest offset stored: a resumed read then judges the next record exactly as reading
    /// the whole file in one go would have.
    pub fn resume(dialect: Dialect, highest_offset: Option<i64>) -> Reader {
        let mut reader = Reader::new(dialect);
        if let Reader::Iterate(inner) = &mut reader {
            inner.resume_after(highest_offset);
        }
        reader
    }

    /// `value` is the record parsed as JSON, or `None` when it is not JSON (the caller has
    /// already reported that).
    pub fn read(&mut self, record: &RawRecord, value: Option<&Value>) -> ReadEvent {
        match self {
            Reader::Iterate(reader) => reader.read(record, value),
            Reader::AgUi(reader) => reader.read(record, value),
            Reader::AgentsKit(reader) => reader.read(record, value),
        }
    }
}

/// Something worth a badge in the event list or a mark on the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Mark {
    #[ts(type = "number")]
    pub seq: u64,
    /// Stable kind: `request`, `compaction`, `downgrade`, `unpublished`, `run-start`,
    /// `accepted`, `duplicate`, ... Each dialect documents its own.
    pub kind: String,
    /// Short text for a tooltip, e.g. the rule behind a downgrade.
    pub note: String,
}

/// What folding a whole journal found: fold-time diagnostics and marks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    pub diagnostics: Vec<(u64, Diagnostic)>,
    pub marks: Vec<Mark>,
    /// The projection after the last event (iterate journals only).
    pub tip: Option<crate::iterate::view::Tip>,
    /// Fold states to seek or resume from, each after the records its seq counts, encoded by
    /// the dialect that folded them.
    pub checkpoints: Vec<(u64, Vec<u8>)>,
    /// Parts the checkpoints share, each written once, by index.
    pub checkpoint_blocks: Vec<(u64, Vec<u8>)>,
    /// How far the checkpoints reach: set by the analysis that reached the journal's end.
    pub cover: Option<CheckpointCover>,
    /// Kinds of mark that describe the journal's end rather than their event (an item no
    /// request has published yet): the marks of these kinds that `marks` holds replace all
    /// the journal had.
    pub provisional_kinds: Vec<&'static str>,
}

/// What a journal's checkpoints describe: the records folded, the dialect's encoding, and
/// whether a view at an offset can start from them (offsets increase through the journal, so
/// the records at or before any offset are a prefix of the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointCover {
    pub records: u64,
    pub format: u32,
    pub seekable: bool,
}

/// Folds a whole journal once, for the derived tables.
pub fn analyse(dialect: Dialect, events: &[crate::store::StoredEvent]) -> Analysis {
    let mut unwatched = |_: u64| ControlFlow::Continue(());
    analyse_watched(dialect, events, &mut unwatched).unwrap_or_default()
}

/// Told how far a long fold got, in events (`0..=events.len()`, never going back), at least
/// every `WATCH_EVERY` events; answering `Break` abandons the fold. Keeps an import's progress
/// moving and its cancel button working while a large journal is analysed.
pub type FoldWatch<'a> = &'a mut dyn FnMut(u64) -> ControlFlow<()>;

/// How often a fold tells its watch how far it got.
pub const WATCH_EVERY: usize = 2_000;

/// Brings a journal's derived tables up to its records, for an import, an append, a follow
/// and a tail alike: a dialect that keeps checkpoints folds from its latest one, the others
/// fold every record again. `None` when the watch abandoned it.
pub fn refresh(
    store: &crate::store::Store,
    journal_id: i64,
    dialect: Dialect,
    watch: RefreshWatch<'_>,
) -> Result<Option<()>, crate::store::StoreError> {
    let mut folding = |done: u64| watch(RefreshStage::Folding, done);
    match dialect {
        Dialect::Iterate => return iterate::checkpoint::refresh(store, journal_id, &mut folding),
        Dialect::AgUi => return agui::refresh(store, journal_id, &mut folding),
        Dialect::AgentsKit => {}
    }
    let records = store.event_count(journal_id)?;
    let mut stored = Vec::with_capacity(records as usize);
    let mut from = 0;
    while from < records {
        if watch(RefreshStage::Reading, from).is_break() {
            return Ok(None);
        }
        let to = (from + 4_096).min(records);
        stored.extend(store.events_between(journal_id, from, to)?);
        from = to;
    }
    if watch(RefreshStage::Reading, records).is_break() {
        return Ok(None);
    }
    let mut folding = |done: u64| watch(RefreshStage::Folding, done);
    let Some(analysis) = analyse_watched(dialect, &stored, &mut folding) else {
        return Ok(None);
    };
    store.replace_analysis(journal_id, &analysis)?;
    Ok(Some(()))
}

/// What a refresh is doing: reading records back for a fold that needs them all, or folding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshStage {
    Reading,
    Folding,
}

/// Told how far a refresh got, in records of its stage; answering `Break` abandons it.
pub type RefreshWatch<'a> = &'a mut dyn FnMut(RefreshStage, u64) -> ControlFlow<()>;

/// `analyse`, watched: `None` when the watch abandoned it.
pub fn analyse_watched(
    dialect: Dialect,
    events: &[crate::store::StoredEvent],
    watch: FoldWatch<'_>,
) -> Option<Analysis> {
    match dialect {
        Dialect::Iterate => iterate::analyse_watched(events, watch),
        Dialect::AgUi => agui::analyse_watched(events, watch),
        Dialect::AgentsKit => agentskit::analyse_watched(events, watch),
    }
}
