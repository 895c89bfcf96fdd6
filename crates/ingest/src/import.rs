//! Importing a journal file into the store: deciding whether the file is unchanged, grew by
//! appended records, or changed, and streaming its records through the dialect's reader into
//! the store with progress and cancellation. The user's file is only ever read.

use journalscope_registry::dialect::Registered as _;
use std::fs;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::ingest::{self, Ingest};
use journalscope_registry::dialect::{self, Dialect, ReadEvent};
use journalscope_shapes::source::{self, Framing, Position, RawRecord};
use journalscope_shapes::source_ends::{self, SourceEnds, StreamEnds};
use journalscope_store::store::{JournalRow, NewJournal, SourcePosition, Store, StoreError};

mod stream;

pub use stream::read_full;
use stream::*;

/// Records written per progress report (and per cancellation check).
const BATCH: usize = 5_000;

/// Bytes read from the file at a time by a streaming import: memory stays this size (plus the
/// longest record) whatever the file's.
const CHUNK: usize = 8 << 20;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("import cancelled")]
    Cancelled,
    #[error("{path} is not a journal: it holds binary data and no line of JSON")]
    NotAJournal { path: PathBuf },
}

/// How an import related to what the store already had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ImportKind {
    /// The file was imported for the first time.
    New,
    /// The store already held exactly this content.
    Unchanged,
    /// The file grew by appended records; only the tail was read.
    Appended,
    /// The file changed (rewritten, truncated, rotated): a new generation was imported and the
    /// old one kept.
    Replaced,
}

/// Which part of an import a progress report is about. After the records are stored, a large
/// journal still takes a while to analyse; its stages report progress of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ImportStage {
    /// Records are read from the file and stored: `done_bytes` moves.
    Storing,
    /// The journal is folded for its diagnostics and marks: `analysed` moves.
    Folding,
    /// The analysis is written to the derived tables.
    Saving,
}

/// Progress of a running import: bytes of the (decompressed) source while storing, then
/// events analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportProgress {
    #[ts(type = "number")]
    pub done_bytes: u64,
    #[ts(type = "number")]
    pub total_bytes: u64,
    #[ts(type = "number")]
    pub events: u64,
    pub stage: ImportStage,
    /// Events the current analysis stage has done, of `events`.
    #[ts(type = "number")]
    pub analysed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOutcome {
    pub journal_id: i64,
    pub kind: ImportKind,
    /// Records added by this import.
    pub added: u64,
}

/// Reports progress and can be cancelled from another thread.
pub struct ImportControl<'a> {
    pub progress: &'a mut dyn FnMut(ImportProgress),
    pub cancel: Option<&'a AtomicBool>,
}

impl ImportControl<'_> {
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

fn mtime_ns(meta: &fs::Metadata) -> Option<i64> {
    meta.modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|d| d.as_nanos() as i64)
}

/// The name under which a file is remembered: its canonical path when it has one.
pub fn source_name(path: &Path) -> String {
    fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// Where cached databases and demo files live: `$JOURNALSCOPE_CACHE_DIR`, else the XDG cache
/// directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("JOURNALSCOPE_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("journalscope");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache").join("journalscope");
    }
    std::env::temp_dir().join("journalscope")
}

/// The cached database of a journal file: one per canonical path.
pub fn cached_db_path(source: &Path) -> PathBuf {
    let name = source_name(source);
    let hash = blake3::hash(name.as_bytes()).to_hex();
    let stem = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "journal".to_string());
    cache_dir().join(format!("{stem}-{}.sqlite", &hash.as_str()[..16]))
}

/// Imports `path` into `store`, reusing what is already there when the file is unchanged or
/// only grew.
pub fn import_file(
    store: &Store,
    path: &Path,
    control: &mut ImportControl<'_>,
) -> Result<ImportOutcome, ImportError> {
    let read_err = |source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = fs::metadata(path).map_err(read_err)?;
    let name = source_name(path);
    let known = store
        .latest_journal()?
        .is_some_and(|journal| journal.source_path == name);
    if !known {
        if let Some(outcome) = import_streaming(store, path, &meta, &name, control)? {
            return Ok(outcome);
        }
    }
    if let Some(prev) = store
        .latest_journal()?
        .filter(|journal| journal.source_path == name)
    {
        if holds_exactly(path, &meta, &prev).map_err(read_err)? {
            return keep_unchanged(store, &prev, &meta, control);
        }
        if let Some(added) = append_in_place(store, path, &meta, &prev, control)? {
            return Ok(ImportOutcome {
                journal_id: prev.id,
                kind: ImportKind::Appended,
                added,
            });
        }
    }
    let raw = fs::read(path).map_err(read_err)?;
    let compressed = source::is_gzip(&raw);
    let bytes = source::decode(raw).map_err(read_err)?;
    if source::looks_binary(&bytes) {
        return Err(ImportError::NotAJournal {
            path: path.to_path_buf(),
        });
    }
    let previous = store
        .latest_journal()?
        .filter(|journal| journal.source_path == name);

    if let Some(prev) = &previous {
        let prefix_len = prev.imported_bytes as usize;
        if prefix_len <= bytes.len()
            && SourceEnds::whole(&bytes).holds(prefix_len as u64, &prev.content_hash)
        {
            if prefix_len == bytes.len() {
                // A compressed file whose content did not change.
                return keep_unchanged(store, prev, &meta, control);
            }
            // Growth can only be read as appended records when what came before ended on a
            // record boundary; an array's closing bracket or a cut last line moves.
            if !compressed
                && !prev.ends_mid_line
                && prev.framing != Framing::JsonArray
                && grows_alike(store, prev, &bytes)?
            {
                let ends = SourceEnds::split(&bytes, prefix_len);
                let added = ingest_whole(store, prev, &ends, mtime_ns(&meta), control)?;
                return Ok(ImportOutcome {
                    journal_id: prev.id,
                    kind: ImportKind::Appended,
                    added,
                });
            }
        }
    }

    let framing = source::detect_framing(&bytes);
    let journal_id = store.transaction(|store| -> Result<i64, ImportError> {
        let dialect = detect_dialect(&bytes, framing);
        let id = store.create_journal(&NewJournal {
            source_path: &name,
            dialect,
            framing,
        })?;
        Ok(id)
    })?;
    let journal = store.journal(journal_id)?.ok_or(StoreError::Empty)?;
    let result = ingest_whole(
        store,
        &journal,
        &SourceEnds::whole(&bytes),
        mtime_ns(&meta),
        control,
    );
    match result {
        Ok(added) => Ok(ImportOutcome {
            journal_id,
            kind: if previous.is_some() {
                ImportKind::Replaced
            } else {
                ImportKind::New
            },
            added,
        }),
        Err(err) => {
            // The empty generation must not hide the previous one.
            store.discard_journal(journal_id)?;
            Err(err)
        }
    }
}

/// Whether `path` holds exactly the bytes `journal` was imported from, hashed in chunks: the
/// common reopen of a large unchanged journal must not read it into memory whole (a gigabyte
/// at a million events). A compressed source never matches here (its size is not the size of
/// what was imported) and takes the whole-file path.
fn holds_exactly(path: &Path, meta: &fs::Metadata, journal: &JournalRow) -> std::io::Result<bool> {
    if meta.len() != journal.imported_bytes {
        return Ok(false);
    }
    let mut file = fs::File::open(path)?;
    source_ends::file_holds(&mut file, journal.imported_bytes, &journal.content_hash)
}

/// Takes in what was appended to an uncompressed file that still holds what `journal` read of
/// it, reading only the appended bytes (and the two windows that check the rest). `None` when
/// the file must be read whole: it is compressed, a JSON array, cut mid-line before, or no
/// longer what was read.
fn append_in_place(
    store: &Store,
    path: &Path,
    meta: &fs::Metadata,
    journal: &JournalRow,
    control: &mut ImportControl<'_>,
) -> Result<Option<u64>, ImportError> {
    let read_err = |source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let base = journal.imported_bytes;
    if journal.ends_mid_line || journal.framing == Framing::JsonArray || meta.len() <= base {
        return Ok(None);
    }
    let mut file = fs::File::open(path).map_err(read_err)?;
    let magic = source_ends::read_at(&mut file, 0, 2).map_err(read_err)?;
    if source::is_gzip(&magic)
        || !source_ends::file_holds(&mut file, base, &journal.content_hash).map_err(read_err)?
    {
        return Ok(None);
    }
    let (head, before) = source_ends::windows(&mut file, base).map_err(read_err)?;
    if !grows_alike(store, journal, &head)? {
        return Ok(None);
    }
    let ends = StreamEnds::resumed(head, before, base);
    Ok(Some(ingest_stream(
        store, journal, file, meta, ends, control,
    )?))
}

/// Whether the grown file, whose first bytes are `head`, reads as `journal` read it: the same
/// framing, and (for a journal that held no records, its framing and dialect guessed from
/// blank bytes) the same dialect. Otherwise its growth is read whole, as a new generation.
fn grows_alike(store: &Store, journal: &JournalRow, head: &[u8]) -> Result<bool, StoreError> {
    let framing = source::detect_framing(head);
    if framing != journal.framing {
        return Ok(false);
    }
    Ok(store.event_count(journal.id)? > 0 || detect_dialect(head, framing) == journal.dialect)
}

/// Records that `journal`'s source was seen again, unchanged (its size and mtime as now). Its
/// derived tables are brought up to date when an older version wrote them (a database from
/// before the checkpoints), or a follower stopped before folding what it stored.
fn keep_unchanged(
    store: &Store,
    journal: &JournalRow,
    meta: &fs::Metadata,
    control: &mut ImportControl<'_>,
) -> Result<ImportOutcome, ImportError> {
    store.transaction(|store| -> Result<(), ImportError> {
        store.record_position(
            journal.id,
            &SourcePosition {
                size: meta.len(),
                mtime_ns: mtime_ns(meta),
                content_hash: journal.content_hash.clone(),
                imported_bytes: journal.imported_bytes,
                imported_lines: journal.imported_lines,
                ends_mid_line: journal.ends_mid_line,
            },
        )?;
        if !dialect::is_current(store, journal.id, journal.dialect)? {
            let mut ingest = resume(store, journal, meta.len(), control)?;
            store.append_analysis(journal.id, &ingest.end())?;
        }
        Ok(())
    })?;
    Ok(ImportOutcome {
        journal_id: journal.id,
        kind: ImportKind::Unchanged,
        added: 0,
    })
}

/// Imports a first-seen, uncompressed JSONL file without holding it in memory: it is read in
/// chunks, every record is parsed once (its columns and the analysis come from the same parse)
/// and stored in one transaction. `None` when the file needs the whole-file path (gzip, a JSON
/// array, an SSE body).
fn import_streaming(
    store: &Store,
    path: &Path,
    meta: &fs::Metadata,
    name: &str,
    control: &mut ImportControl<'_>,
) -> Result<Option<ImportOutcome>, ImportError> {
    let read_err = |source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = fs::File::open(path).map_err(read_err)?;
    let mut head = vec![0u8; 256 * 1024];
    let filled = read_full(&mut file, &mut head).map_err(read_err)?;
    head.truncate(filled);
    if !source::is_gzip(&head) && source::looks_binary(&head) {
        return Err(ImportError::NotAJournal {
            path: path.to_path_buf(),
        });
    }
    if source::is_gzip(&head) || source::detect_framing(&head) != Framing::Jsonl {
        return Ok(None);
    }
    let journal_id = store.transaction(|store| -> Result<i64, ImportError> {
        Ok(store.create_journal(&NewJournal {
            source_path: name,
            dialect: detect_dialect(&head, Framing::Jsonl),
            framing: Framing::Jsonl,
        })?)
    })?;
    let journal = store.journal(journal_id)?.ok_or(StoreError::Empty)?;
    drop(head);
    let bulk = store.enter_bulk_mode()?;
    let mut result = ingest_stream(store, &journal, file, meta, StreamEnds::default(), control);
    if bulk {
        let restored = store.leave_bulk_mode();
        if result.is_ok() {
            if let Err(err) = restored {
                result = Err(err.into());
            }
        }
    }
    match result {
        Ok(added) => Ok(Some(ImportOutcome {
            journal_id,
            kind: ImportKind::New,
            added,
        })),
        Err(err) => {
            store.discard_journal(journal_id)?;
            Err(err)
        }
    }
}

/// Detects the dialect from the first records that parse.
pub fn detect_dialect(bytes: &[u8], framing: Framing) -> Dialect {
    let head = &bytes[..bytes.len().min(256 * 1024)];
    let split = source::split(
        head,
        framing,
        Position::default(),
        framing != Framing::JsonArray,
    );
    let records = if split.records.is_empty() && framing == Framing::JsonArray {
        source::split(bytes, framing, Position::default(), true).records
    } else {
        split.records
    };
    let values: Vec<Value> = records
        .iter()
        .take(64)
        .filter_map(|r| journalscope_shapes::record_json::value(&r.bytes))
        .collect();
    Dialect::detect(values.iter())
}

/// How an ingest of bytes at hand lands them.
#[derive(Debug, Clone, Copy)]
pub struct Landing {
    /// The source ends here for good (an import); a follower passes false, so that a
    /// half-written last record waits for its end.
    pub complete: bool,
    pub mtime_ns: Option<i64>,
    /// Take at most this many records; the position stops after the last one taken.
    pub limit: Option<u64>,
    /// Store what the fold says of the journal's end with the last batch. A follower, which
    /// lands often, says it on its own schedule ([`say_end`]).
    pub end: bool,
}

/// Appends the records of `source` after what `journal` already holds, each batch committed
/// with the position it reached and what the fold found, so that a process killed midway
/// leaves a prefix of whole records that the next import resumes after. `fold` is the ingest
/// that landed the journal's records so far, when the caller kept it; it is resumed from the
/// journal's checkpoints when absent or behind the store, and left there for the next call.
/// `landed` sees each record as it is stored.
pub fn ingest(
    store: &Store,
    journal: &JournalRow,
    source: &SourceEnds<'_>,
    fold: &mut Option<Ingest>,
    how: Landing,
    control: &mut ImportControl<'_>,
    landed: &mut dyn FnMut(&RawRecord, &ReadEvent),
) -> Result<u64, ImportError> {
    let start = journal.imported_bytes;
    debug_assert_eq!(
        source.base(),
        start,
        "the bytes at hand start where the journal stops"
    );
    let seq = store.event_count(journal.id)?;
    let at = Position {
        byte: start,
        line: journal.imported_lines,
        seq,
    };
    let after = source.after();
    let mut split = source::split(after, journal.framing, at, how.complete);
    let mut consumed = start + split.consumed as u64;
    let mut lines = journal.imported_lines + split.lines;
    if let Some(limit) = how.limit {
        if split.records.len() as u64 > limit {
            split.records.truncate(limit as usize);
            // Stop right after the last record taken, so a later call resumes there.
            if let Some(last) = split.records.last() {
                let end = (last.byte_start + last.byte_len - start) as usize;
                let newline = after[end..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(after.len(), |p| end + p + 1);
                consumed = start + newline as u64;
                lines = last.line;
            }
        }
    }
    let total = source.len();
    let added = split.records.len() as u64;
    if added == 0 && consumed == start && seq > 0 {
        return Ok(0);
    }
    if fold
        .as_ref()
        .is_some_and(|f| f.journal_id() != journal.id || f.records() != seq)
    {
        *fold = None;
    }
    let mut done = 0u64;
    let mut chunks = split.records.chunks(BATCH).peekable();
    loop {
        let chunk = chunks.next().unwrap_or(&[]);
        let next = chunks.peek().and_then(|c| c.first());
        if control.cancelled() {
            return Err(ImportError::Cancelled);
        }
        // Where this batch leaves the source: the start of the next record (its line not yet
        // counted), or the end of what the split consumed.
        let (reached, reached_lines, ends_mid_line) = match next {
            Some(record) => (record.byte_start, record.line - 1, false),
            None => (
                consumed,
                lines,
                how.complete
                    && journal.framing == Framing::Jsonl
                    && consumed > 0
                    && source.byte_before(consumed) != Some(b'\n'),
            ),
        };
        let content_hash = source.hash_at(reached);
        let batch = store.transaction(|store| -> Result<Batch, ImportError> {
            let mut ingest = match fold.take() {
                Some(ingest) => ingest,
                None => resume(store, journal, total, control)?,
            };
            let batch: Batch = chunk
                .iter()
                .map(|record| {
                    let cut = ends_mid_line && next.is_none() && Some(record) == chunk.last();
                    let read = if cut {
                        ingest.read_unterminated(record)
                    } else {
                        ingest.read(record)
                    };
                    (record.clone(), read)
                })
                .collect();
            ingest::land(store, journal.id, &batch, &ingest.take_found())?;
            store.record_position(
                journal.id,
                &SourcePosition {
                    size: total,
                    mtime_ns: how.mtime_ns,
                    content_hash,
                    imported_bytes: reached,
                    imported_lines: reached_lines,
                    ends_mid_line,
                },
            )?;
            if next.is_none() && how.end {
                store.append_analysis(journal.id, &ingest.end())?;
            }
            *fold = Some(ingest);
            Ok(batch)
        })?;
        for (record, read) in &batch {
            landed(record, read);
        }
        done += chunk.len() as u64;
        (control.progress)(ImportProgress {
            done_bytes: reached,
            total_bytes: total,
            events: seq + done,
            stage: ImportStage::Storing,
            analysed: 0,
        });
        if next.is_none() {
            (control.progress)(ImportProgress {
                done_bytes: total,
                total_bytes: total,
                events: seq + done,
                stage: ImportStage::Saving,
                analysed: seq + done,
            });
            break;
        }
    }
    Ok(added)
}

/// Stores what an ingest's fold says of the journal's end, in one transaction: a follower
/// does this on its own schedule rather than with every batch it lands.
pub fn say_end(store: &Store, ingest: &mut Ingest) -> Result<(), StoreError> {
    store.transaction(|store| store.append_analysis(ingest.journal_id(), &ingest.end()))
}

/// Brings a stored journal's derived tables up to its records in one transaction, reporting
/// the fold's progress: for a database an older version wrote, or one whose follower stopped
/// before folding what it stored.
pub fn refresh(
    store: &Store,
    journal: &JournalRow,
    control: &mut ImportControl<'_>,
) -> Result<(), ImportError> {
    store.transaction(|store| {
        let mut ingest = resume(store, journal, 0, control)?;
        store.append_analysis(journal.id, &ingest.end())?;
        Ok(())
    })
}

/// Lands an in-memory import of `source`'s records into `journal` from its start or its end,
/// with what it says of its end.
fn ingest_whole(
    store: &Store,
    journal: &JournalRow,
    source: &SourceEnds<'_>,
    mtime_ns: Option<i64>,
    control: &mut ImportControl<'_>,
) -> Result<u64, ImportError> {
    ingest(
        store,
        journal,
        source,
        &mut None,
        Landing {
            complete: true,
            mtime_ns,
            limit: None,
            end: true,
        },
        control,
        &mut |_, _| {},
    )
}

#[cfg(test)]
mod tests;
