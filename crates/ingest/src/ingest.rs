//! The one way records go into the store, for an import, a followed file and a remote tail
//! alike: each record is parsed once, its dialect's reader takes the indexed columns and its
//! dialect's fold takes the value, and the records are stored with what the fold found in the
//! same transaction. An ingest that goes on after what a journal holds starts from the journal's
//! latest checkpoint, so an append folds only what it adds (and the few records after that
//! checkpoint).

use std::ops::ControlFlow;

use journalscope_registry::dialect::{interpreter, Fold, FoldRecord, Interpreter, RecordReader};
use journalscope_seam::interpreter::read_record;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::source::RawRecord;
use journalscope_store::derived::{Analysis, Dialect, FoldWatch, ReadEvent, WATCH_EVERY};
use journalscope_store::store::{JournalRow, Store, StoreError, StoredEvent};

/// Stored records a resumed fold reads at a time.
const RESUME_SLICE: u64 = 4_096;

/// One journal's records on their way into the store.
pub struct Ingest {
    journal_id: i64,
    reader: Box<dyn RecordReader>,
    fold: Box<dyn Fold>,
}

impl Ingest {
    /// For a journal that holds no record yet.
    pub fn fresh(journal: &JournalRow) -> Ingest {
        Ingest::first(journal.id, interpreter(journal.dialect))
    }

    fn first(journal_id: i64, interpreter: &dyn Interpreter) -> Ingest {
        Ingest {
            journal_id,
            reader: interpreter.reader(None),
            fold: interpreter.fold(),
        }
    }

    /// For the records after those `journal` holds: the reader goes on after the highest
    /// stored offset, and the fold from the journal's latest checkpoint, folding the stored
    /// records after it (`watch` hears how far, in records). What was derived past that
    /// checkpoint is discarded and derived again, in the caller's transaction. `None` when the
    /// watch abandoned it.
    pub fn resume(
        store: &Store,
        journal: &JournalRow,
        watch: FoldWatch<'_>,
    ) -> Result<Option<Ingest>, StoreError> {
        Ingest::resume_with(store, journal, interpreter(journal.dialect), watch)
    }

    /// [`Ingest::resume`] with the implementation given rather than the journal's own: a test
    /// that checkpoints more often than its dialect does.
    pub fn resume_with(
        store: &Store,
        journal: &JournalRow,
        interpreter: &dyn Interpreter,
        watch: FoldWatch<'_>,
    ) -> Result<Option<Ingest>, StoreError> {
        let id = journal.id;
        let records = store.event_count(id)?;
        if records == 0 {
            return Ok(Some(Ingest::first(id, interpreter)));
        }
        let usable = store
            .checkpoint_cover(id)?
            .filter(|cover| cover.format == interpreter.checkpoint_format());
        let resumed = match usable {
            Some(cover) => interpreter.resume(store, id, cover.records.min(records))?,
            None => None,
        };
        let mut fold = match resumed {
            Some(fold) => {
                store.discard_analysis_from(id, fold.records())?;
                fold
            }
            None => {
                store.replace_analysis(id, &Analysis::default())?;
                interpreter.fold()
            }
        };
        let from = fold.records();
        if watch(from).is_break() {
            return Ok(None);
        }
        for slice in store.slices(id, from, records, RESUME_SLICE) {
            if watch(fold.records()).is_break() {
                return Ok(None);
            }
            for record in &slice? {
                fold.feed(FoldRecord::of(record), record.parsed());
                if fold.records() % WATCH_EVERY as u64 == 0 && watch(fold.records()).is_break() {
                    return Ok(None);
                }
            }
            store.append_analysis(id, &fold.take_found())?;
        }
        Ok(Some(Ingest {
            journal_id: id,
            reader: interpreter.reader(store.highest_offset(id)?),
            fold,
        }))
    }

    pub fn journal_id(&self) -> i64 {
        self.journal_id
    }

    /// Records read or folded so far, stored ones included.
    pub fn records(&self) -> u64 {
        self.fold.records()
    }

    /// Reads one record: its bytes are parsed once (noting a key given twice, or why they are
    /// not JSON), the dialect's reader takes the columns and the fold the value.
    pub fn read(&mut self, record: &RawRecord) -> ReadEvent {
        self.read_noting(record, false, |_| Vec::new())
    }

    /// [`Ingest::read`] of a record that ends the input without a line break: a dialect may
    /// call it cut short when it is not JSON.
    pub fn read_unterminated(&mut self, record: &RawRecord) -> ReadEvent {
        self.read_noting(record, true, |_| Vec::new())
    }

    /// [`Ingest::read`], with diagnostics that came with the record (what a connection did
    /// just before it), made for the offset the reader found; the record keeps them after its
    /// own.
    pub fn read_noting(
        &mut self,
        record: &RawRecord,
        unterminated: bool,
        noted: impl FnOnce(Option<i64>) -> Vec<Diagnostic>,
    ) -> ReadEvent {
        let (mut read, value) = read_record(self.reader.as_mut(), record, unterminated);
        read.diagnostics.extend(noted(read.offset));
        self.fold.feed(
            FoldRecord {
                seq: record.seq,
                line: record.line,
                offset: read.offset,
                diagnostics: &read.diagnostics,
            },
            value,
        );
        read
    }

    /// What the fold found since it was last asked, to store with the records it came from.
    pub fn take_found(&mut self) -> Analysis {
        self.fold.take_found()
    }

    /// What the fold says of the journal's end as it stands, to store once the records are
    /// (see [`Fold::end`]).
    pub fn end(&mut self) -> Analysis {
        self.fold.end()
    }
}

/// Reads the records of a journal of `dialect` as an import stores them, without a store: for
/// tests and one-shot tools.
pub fn read_records(dialect: Dialect, records: Vec<RawRecord>) -> Vec<StoredEvent> {
    journalscope_seam::interpreter::read_records(interpreter(dialect), records)
}

/// Stores read records and what the fold found in them, in the caller's transaction.
pub fn land(
    store: &Store,
    journal_id: i64,
    records: &[(RawRecord, ReadEvent)],
    found: &Analysis,
) -> Result<(), StoreError> {
    if !records.is_empty() {
        store.append(journal_id, records)?;
    }
    if !found.is_empty() {
        store.append_analysis(journal_id, found)?;
    }
    Ok(())
}

/// Brings a journal's derived tables up to its records, in the caller's transaction: for a
/// database an older version wrote, or one whose follower stopped before folding what it
/// stored. `None` when the watch abandoned it (the caller's transaction then keeps nothing).
pub fn refresh(
    store: &Store,
    journal: &JournalRow,
    watch: FoldWatch<'_>,
) -> Result<Option<()>, StoreError> {
    refresh_with(store, journal, interpreter(journal.dialect), watch)
}

/// [`refresh`] with the implementation given (see [`Ingest::resume_with`]).
pub fn refresh_with(
    store: &Store,
    journal: &JournalRow,
    interpreter: &dyn Interpreter,
    watch: FoldWatch<'_>,
) -> Result<Option<()>, StoreError> {
    let Some(mut ingest) = Ingest::resume_with(store, journal, interpreter, watch)? else {
        return Ok(None);
    };
    let records = ingest.records();
    if watch(records).is_break() {
        return Ok(None);
    }
    store.append_analysis(journal.id, &ingest.end())?;
    Ok(Some(()))
}

/// A watch that never stops a fold.
pub fn unwatched(_: u64) -> ControlFlow<()> {
    ControlFlow::Continue(())
}
