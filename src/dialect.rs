//! Dialects: which system wrote a journal, and the seam each one plugs into. A dialect reads
//! one record at a time into the columns the store indexes (offset, type, time, summary) with
//! read-time diagnostics, and analyses a whole journal into fold-time diagnostics and marks.

use std::ops::ControlFlow;

use serde_json::Value;

use crate::source::RawRecord;
use crate::{agentskit, agui, iterate};

pub use crate::derived::{
    Analysis, CheckpointCover, Dialect, FoldWatch, Mark, ReadEvent, TipRow, WATCH_EVERY,
};

impl Dialect {
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

/// Folds a whole journal once, for the derived tables.
pub fn analyse(dialect: Dialect, events: &[crate::store::StoredEvent]) -> Analysis {
    let mut unwatched = |_: u64| ControlFlow::Continue(());
    analyse_watched(dialect, events, &mut unwatched).unwrap_or_default()
}

/// Brings a journal's derived tables up to its records, for an import, an append, a follow
/// and a tail alike: a dialect that keeps checkpoints folds from its latest one, the others
/// fold every record again, a slice of records at a time. `None` when the watch abandoned it.
pub fn refresh(
    store: &crate::store::Store,
    journal_id: i64,
    dialect: Dialect,
    watch: FoldWatch<'_>,
) -> Result<Option<()>, crate::store::StoreError> {
    match dialect {
        Dialect::Iterate => iterate::checkpoint::refresh(store, journal_id, watch),
        Dialect::AgUi => agui::refresh(store, journal_id, watch),
        Dialect::AgentsKit => agentskit::refresh(store, journal_id, watch),
    }
}

/// What a stored journal is in the middle of at its end (an AG-UI run that started and has
/// not finished), as a phrase for a connection that drops there; `None` when nothing is open
/// or the dialect has no such unit.
pub fn unfinished(
    store: &crate::store::Store,
    journal_id: i64,
    dialect: Dialect,
) -> Result<Option<String>, crate::store::StoreError> {
    match dialect {
        Dialect::AgUi => agui::unfinished(store, journal_id),
        Dialect::Iterate | Dialect::AgentsKit => Ok(None),
    }
}

/// Whether a journal's derived tables are those this version derives, for every record: a
/// database written before a dialect kept checkpoints (or in an older encoding of them), or
/// one whose follower stopped before folding what it stored, needs a refresh.
pub fn is_current(
    store: &crate::store::Store,
    journal_id: i64,
    dialect: Dialect,
) -> Result<bool, crate::store::StoreError> {
    match dialect {
        Dialect::Iterate => {
            let records = store.event_count(journal_id)?;
            Ok(store.checkpoint_cover(journal_id)?.is_some_and(|cover| {
                cover.format == iterate::checkpoint::FORMAT && cover.records == records
            }))
        }
        Dialect::AgUi => {
            let records = store.event_count(journal_id)?;
            Ok(store.checkpoint_cover(journal_id)?.is_some_and(|cover| {
                cover.format == agui::checkpoint::FORMAT && cover.records == records
            }))
        }
        Dialect::AgentsKit => {
            let records = store.event_count(journal_id)?;
            Ok(store.checkpoint_cover(journal_id)?.is_some_and(|cover| {
                cover.format == agentskit::CHECKPOINT_FORMAT && cover.records == records
            }))
        }
    }
}

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
