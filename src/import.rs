//! Importing a journal file into the store: deciding whether the file is unchanged, grew by
//! appended records, or changed, and streaming its records through the dialect's reader into
//! the store with progress and cancellation. The user's file is only ever read.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::diagnostic::Diagnostic;
use crate::dialect::{self, Dialect, ReadEvent, Reader};
use crate::source::{self, Framing, Position, RawRecord};
use crate::store::{JournalRow, NewJournal, SourcePosition, Store, StoreError};

/// Records written per progress report (and per cancellation check).
const BATCH: usize = 5_000;

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

/// Progress of a running import, in bytes of the (decompressed) source.
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
    fn cancelled(&self) -> bool {
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
    let raw = fs::read(path).map_err(read_err)?;
    let compressed = source::is_gzip(&raw);
    let bytes = source::decode(raw).map_err(read_err)?;
    if source::looks_binary(&bytes) {
        return Err(ImportError::NotAJournal {
            path: path.to_path_buf(),
        });
    }
    let name = source_name(path);
    let previous = store
        .latest_journal()?
        .filter(|journal| journal.source_path == name);

    if let Some(prev) = &previous {
        let prefix_len = prev.imported_bytes as usize;
        if prefix_len <= bytes.len()
            && blake3::hash(&bytes[..prefix_len]).to_hex().as_str() == prev.content_hash
        {
            if prefix_len == bytes.len() {
                store.record_position(
                    prev.id,
                    &SourcePosition {
                        size: meta.len(),
                        mtime_ns: mtime_ns(&meta),
                        content_hash: prev.content_hash.clone(),
                        imported_bytes: prev.imported_bytes,
                        imported_lines: prev.imported_lines,
                        ends_mid_line: prev.ends_mid_line,
                    },
                )?;
                return Ok(ImportOutcome {
                    journal_id: prev.id,
                    kind: ImportKind::Unchanged,
                    added: 0,
                });
            }
            // Growth can only be read as appended records when what came before ended on a
            // record boundary; an array's closing bracket or a cut last line moves.
            if !compressed && !prev.ends_mid_line && prev.framing != Framing::JsonArray {
                let added = ingest(store, prev, &bytes, true, mtime_ns(&meta), control)?;
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
    let result = ingest(store, &journal, &bytes, true, mtime_ns(&meta), control);
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
        .filter_map(|r| serde_json::from_slice(&r.bytes).ok())
        .collect();
    Dialect::detect(values.iter())
}

/// Reads one record: parses it and lets the dialect read its columns. A record that is not
/// JSON is kept with an `invalid-json` error.
pub fn read_record(reader: &mut Reader, record: &RawRecord) -> ReadEvent {
    match crate::record_json::parse(&record.bytes) {
        Ok(parsed) => {
            let mut read = reader.read(record, Some(&parsed.value));
            for key in parsed.duplicate_keys {
                read.diagnostics.push(Diagnostic::warning(
                    record.line,
                    read.offset,
                    "duplicate-key",
                    format!("key {key:?} appears twice in one object: the last one counts"),
                ));
            }
            read
        }
        Err(err) => {
            let mut read = reader.read(record, None);
            read.diagnostics.insert(
                0,
                Diagnostic::error(
                    record.line,
                    read.offset,
                    "invalid-json",
                    format!("not JSON: {err}"),
                ),
            );
            read
        }
    }
}

/// Appends the records of `bytes` after what `journal` already holds, then refreshes the
/// derived tables. `complete` says the source ends here for good (an import); a follower
/// passes false so that a half-written last record waits for its end.
///
/// Each batch commits with the position it reached, so a process killed mid-import leaves a
/// prefix of whole records that the next import resumes after; the last batch commits with
/// the fold's analysis, so a finished import never lacks its derived tables.
pub fn ingest(
    store: &Store,
    journal: &JournalRow,
    bytes: &[u8],
    complete: bool,
    mtime_ns: Option<i64>,
    control: &mut ImportControl<'_>,
) -> Result<u64, ImportError> {
    let start = journal.imported_bytes as usize;
    let seq = store.event_count(journal.id)?;
    let at = Position {
        byte: journal.imported_bytes,
        line: journal.imported_lines,
        seq,
    };
    let split = source::split(&bytes[start..], journal.framing, at, complete);
    let consumed = start + split.consumed;
    let total = bytes.len() as u64;
    let added = split.records.len() as u64;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&bytes[..start]);
    let mut hashed = start;
    let mut reader = Reader::resume(journal.dialect, store.highest_offset(journal.id)?);
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
        let (reached, lines, ends_mid_line) = match next {
            Some(record) => (record.byte_start as usize, record.line - 1, false),
            None => (
                consumed,
                journal.imported_lines + split.lines,
                complete
                    && journal.framing == Framing::Jsonl
                    && consumed > 0
                    && bytes[consumed - 1] != b'\n',
            ),
        };
        hasher.update(&bytes[hashed..reached]);
        hashed = reached;
        let content_hash = hasher.finalize().to_hex().to_string();
        let batch: Vec<(RawRecord, ReadEvent)> = chunk
            .iter()
            .map(|record| (record.clone(), read_record(&mut reader, record)))
            .collect();
        store.transaction(|store| -> Result<(), ImportError> {
            store.append(journal.id, &batch)?;
            store.record_position(
                journal.id,
                &SourcePosition {
                    size: total,
                    mtime_ns,
                    content_hash,
                    imported_bytes: reached as u64,
                    imported_lines: lines,
                    ends_mid_line,
                },
            )?;
            if next.is_none() && (added > 0 || seq == 0) {
                let events = store.events(journal.id)?;
                store.replace_analysis(journal.id, &dialect::analyse(journal.dialect, &events))?;
            }
            Ok(())
        })?;
        done += chunk.len() as u64;
        (control.progress)(ImportProgress {
            done_bytes: if next.is_some() {
                reached as u64
            } else {
                total
            },
            total_bytes: total,
            events: seq + done,
        });
        if next.is_none() {
            break;
        }
    }
    Ok(added)
}
