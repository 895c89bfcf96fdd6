//! The SQLite store: raw events append-only (the verbatim bytes of every record and where it
//! sat in the file), derived, rebuildable tables (fold diagnostics, marks, checkpoints, request
//! rows), and the user's bookmarks. WAL mode; migrations are append-only and numbered. It is
//! the only code that writes SQL.

mod analysis;
mod bookmarks;
mod checkpoints;
mod compression;
mod diagnostics;
mod event_rows;
mod journals;
mod links;
mod marks;
mod offsets;
mod record_blocks;
mod records;
mod request_rows;
mod schema;
mod streams;
mod text_match;
mod tips;

pub use bookmarks::BookmarkRow;
pub use event_rows::{EventFilter, ListedEvent};
pub use journals::{JournalRow, NewJournal, SourcePosition};
pub use offsets::OffsetCut;
pub use record_blocks::{register_record_functions, RECORD_FUNCTION, SUMMARY_FUNCTION};
pub use records::{EventHead, Slices, StoredEvent};

use std::cell::RefCell;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

use crate::derived::{Analysis, CheckpointCover, Dialect, Mark, ReadEvent, TipRow};
use journalscope_shapes::diagnostic::{Diagnostic, Severity};
use journalscope_shapes::source::{Framing, RawRecord};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path} is not a Journalscope database")]
    NotAStore { path: PathBuf },
    #[error("database {path} was written by a newer Journalscope (schema {found}, this build knows {known})")]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("the database holds no journal")]
    Empty,
    #[error(
        "the stored bytes of records {}.. are damaged ({reason}); delete the database and \
         import the journal again",
        .key & ((1 << 40) - 1)
    )]
    DamagedBlock { key: i64, reason: String },
    #[error(
        "a stored checkpoint of the journal is damaged ({reason}); delete the database and \
         import the journal again"
    )]
    DamagedCheckpoint { reason: String },
}

/// How long a connection waits for another one's write before giving up: long enough for any
/// batch a tail or an import commits, short enough that a wedged writer is reported.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// What [`Store::type_counts`] and the type filter call an event without a type.
pub const UNTYPED: &str = "(none)";

/// The key of an event's bytes in `event_bytes` (see migration 6): a journal's events are
/// contiguous and in file order, so an import appends at the end of the table. 2^40 events a
/// journal is more than any file holds.
fn bytes_id(journal_id: i64, seq: u64) -> i64 {
    (journal_id << 40) | seq as i64
}

pub struct Store {
    conn: Connection,
    /// Blocks of record bytes decompressed lately (see `record_blocks`).
    blocks: RefCell<record_blocks::BlockCache>,
    /// The highest offset appended so far (see `offsets`).
    highest: RefCell<offsets::Highest>,
}

impl Store {
    /// Opens or creates a store at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let store = Store {
            conn,
            blocks: RefCell::default(),
            highest: RefCell::default(),
        };
        store.configure(path)?;
        Ok(store)
    }

    /// Opens a store that must already exist and be a Journalscope database.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let has_schema: bool = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'journals'",
                [],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|_| StoreError::NotAStore {
                path: path.to_path_buf(),
            })?;
        if !has_schema {
            return Err(StoreError::NotAStore {
                path: path.to_path_buf(),
            });
        }
        let store = Store {
            conn,
            blocks: RefCell::default(),
            highest: RefCell::default(),
        };
        store.configure(path)?;
        Ok(store)
    }

    pub fn in_memory() -> Result<Store, StoreError> {
        let store = Store {
            conn: Connection::open_in_memory()?,
            blocks: RefCell::default(),
            highest: RefCell::default(),
        };
        store.configure(Path::new(":memory:"))?;
        Ok(store)
    }

    fn configure(&self, path: &Path) -> Result<(), StoreError> {
        // First, so that even switching to WAL waits (boundedly) for a writer in another
        // process instead of failing at once with "database is locked".
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        // Takes effect only in a database not yet written (before WAL is on): records run to
        // a kilobyte and more, and with 16 KiB pages fewer of them overflow. A first import of
        // a million events was about a tenth faster than with the default 4 KiB.
        self.conn.pragma_update(None, "page_size", 16_384)?;
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|source| StoreError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.migrate(path)?;
        self.restore_indexes();
        Ok(())
    }

    /// A streamed first import drops the offset index of `events` and commits as it goes;
    /// killed before its end, it leaves it missing. It is rebuilt here. Best effort: an
    /// import still running in another process holds the write lock and builds it itself.
    fn restore_indexes(&self) {
        let present: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master
                 WHERE type = 'index' AND name = 'events_by_offset'",
                [],
                |row| row.get(0),
            )
            .unwrap_or(1);
        if present < 1 {
            let _ = self.finish_bulk_load();
        }
    }

    /// Commits the work so far of a [`Store::transaction`] and goes on in a new one, so that a
    /// long import killed midway keeps what it committed.
    pub fn commit_and_continue(&self) -> Result<(), StoreError> {
        self.conn.execute_batch("COMMIT; BEGIN IMMEDIATE")?;
        Ok(())
    }

    /// The connection itself, for tests that inspect a database or age it as an older version
    /// left it. The core reaches SQL only through the methods here (`tests/layering.rs`).
    #[doc(hidden)]
    pub fn inspection_connection(&self) -> &Connection {
        &self.conn
    }

    /// Before a first import into a database that holds no events: a rollback journal writes the
    /// new pages once, where WAL writes them twice (to the log, then again at the checkpoint).
    /// Either mode survives a crash; [`Store::leave_bulk_mode`] returns to WAL. Returns whether
    /// the mode changed (it cannot while another connection has the database open).
    pub fn enter_bulk_mode(&self) -> Result<bool, StoreError> {
        let empty: bool =
            self.conn
                .query_row("SELECT NOT EXISTS (SELECT 1 FROM events)", [], |row| {
                    row.get(0)
                })?;
        if !empty {
            return Ok(false);
        }
        // A database another connection holds stays in WAL; the import is then only slower.
        let mode = self
            .conn
            .query_row("PRAGMA journal_mode = DELETE", [], |row| {
                row.get::<_, String>(0)
            })
            .unwrap_or_default();
        Ok(mode.eq_ignore_ascii_case("delete"))
    }

    pub fn leave_bulk_mode(&self) -> Result<(), StoreError> {
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        Ok(())
    }

    /// Drops the offset index of `events` while the table is empty, so that a bulk load
    /// appends without maintaining it; [`Store::finish_bulk_load`] builds it once at the
    /// end. Called inside a transaction, a load that fails rolls back to the index it had.
    /// Returns whether it dropped it.
    pub fn start_bulk_load(&self) -> Result<bool, StoreError> {
        let empty: bool =
            self.conn
                .query_row("SELECT NOT EXISTS (SELECT 1 FROM events)", [], |row| {
                    row.get(0)
                })?;
        if empty {
            self.conn
                .execute_batch("DROP INDEX IF EXISTS events_by_offset;")?;
        }
        // A load only appends, so a small page cache loses nothing to spills, and every new
        // page is zeroed, filled and written from memory that stays in the core's cache: a
        // 64 MiB cache made the import 1.5 to 2 times slower than this 2 MiB one.
        self.conn.pragma_update(None, "cache_size", -2_048)?;
        Ok(empty)
    }

    /// Builds the offset index of `events` dropped by [`Store::start_bulk_load`]. Since
    /// the events' bytes live in `event_bytes` (migration 6), this scans only the small rows of
    /// `events`, which costs less than keeping the index up to date row by row.
    pub fn finish_bulk_load(&self) -> Result<(), StoreError> {
        // The sort that builds an index takes as much memory as the page cache may, per sorting
        // thread. The reading thread has finished by now, so the sort gets its core.
        self.conn.pragma_update(None, "cache_size", -4_096)?;
        self.conn.pragma_update(None, "threads", 2)?;
        self.conn.execute_batch(
            "CREATE INDEX IF NOT EXISTS events_by_offset ON events(journal_id, offset);",
        )?;
        self.conn.pragma_update(None, "threads", 0)?;
        Ok(())
    }

    /// Runs `work` in one transaction: all of it lands or none of it does.
    pub fn transaction<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&Store) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| E::from(StoreError::Sql(e)))?;
        match work(self) {
            Ok(value) => {
                self.conn
                    .execute_batch("COMMIT")
                    .map_err(|e| E::from(StoreError::Sql(e)))?;
                Ok(value)
            }
            Err(err) => {
                // The original error matters more than a failed rollback.
                let _ = self.conn.execute_batch("ROLLBACK");
                self.blocks.borrow_mut().clear();
                self.forget_highest();
                Err(err)
            }
        }
    }
}

/// A seq as SQLite holds it: `u64::MAX` (no upper bound) as the largest integer.
fn clamp(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

/// The seq a seek runs strictly past: `from`, or just outside the journal when there is none.
fn bound(from: Option<u64>, forward: bool) -> i64 {
    match (from, forward) {
        (Some(seq), _) => clamp(seq),
        (None, true) => -1,
        (None, false) => i64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::schema::MIGRATIONS;
    use super::*;
    use crate::derived::Link;

    /// A database as version 5 wrote it: the bytes inside `events`.
    fn version_5_database(path: &Path) {
        let conn = Connection::open(path).expect("open");
        for sql in &MIGRATIONS[..5] {
            conn.execute_batch(sql).expect("old migration");
        }
        conn.execute_batch(
            "INSERT INTO journals (id, source_path, size, content_hash, dialect, framing,
                                   imported_bytes, imported_lines)
             VALUES (1, 'a.jsonl', 0, '', 'iterate', 'jsonl', 0, 0),
                    (2, 'b.jsonl', 0, '', 'iterate', 'jsonl', 0, 0);
             INSERT INTO events (journal_id, seq, line, byte_start, byte_len, raw, offset, type,
                                 summary)
             VALUES (1, 0, 1, 0, 3, x'7b7d0a', 1, 't', 'first'),
                    (1, 1, 2, 3, 2, x'5b5d', 2, 't', 'second'),
                    (2, 0, 1, 0, 4, x'6e756c6c', 1, 'u', 'other');
             PRAGMA user_version = 5;",
        )
        .expect("version 5 rows");
    }

    #[test]
    fn given_stored_records_when_read_in_slices_then_each_comes_once_in_order_and_reading_stops_where_they_end(
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);
        let store = Store::open(&path).expect("migrates");
        let seqs = |from, to, slice| -> Vec<Vec<u64>> {
            store
                .slices(1, from, to, slice)
                .map(|read| read.expect("slice").iter().map(|e| e.seq).collect())
                .collect()
        };
        assert_eq!(seqs(0, 2, 1), vec![vec![0], vec![1]], "one record a slice");
        assert_eq!(
            seqs(0, 2, 4_096),
            vec![vec![0, 1]],
            "a slice holds at most its size"
        );
        assert_eq!(
            seqs(1, 2, 8),
            vec![vec![1]],
            "reading starts where it is asked to"
        );
        assert_eq!(
            seqs(0, 100, 1),
            vec![vec![0], vec![1]],
            "past the last record, no empty slices follow"
        );
        assert!(seqs(2, 2, 8).is_empty(), "an empty range reads nothing");
    }

    #[test]
    fn given_marks_when_the_nth_one_either_way_is_asked_then_the_farthest_there_is_answers() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);
        let store = Store::open(&path).expect("migrates");
        let mark = |seq| Mark {
            seq,
            kind: "request".to_string(),
            note: String::new(),
        };
        store
            .append_analysis(
                1,
                &Analysis {
                    marks: vec![mark(0), mark(1)],
                    ..Analysis::default()
                },
            )
            .expect("marks stored");
        let nth = |from, forward, n| {
            store
                .nth_mark(1, "request", from, forward, n)
                .expect("reads")
        };
        assert_eq!(
            nth(1, false, 1),
            Some(0),
            "the first request before event 1"
        );
        assert_eq!(
            nth(1, false, 5),
            Some(0),
            "fewer than five before: the farthest"
        );
        assert_eq!(nth(0, true, 1), Some(1), "the first request after event 0");
        assert_eq!(
            nth(0, true, 3),
            Some(1),
            "fewer than three after: the farthest"
        );
        assert_eq!(nth(1, true, 1), None, "none after the last");
        assert_eq!(nth(0, false, 1), None, "none before the first");
    }

    #[test]
    fn given_a_version_5_database_when_opened_then_every_event_keeps_its_bytes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);

        let store = Store::open(&path).expect("migrates");

        let raw = |journal| -> Vec<Vec<u8>> {
            store
                .events(journal)
                .expect("events")
                .into_iter()
                .map(|e| e.raw)
                .collect()
        };
        assert_eq!(
            raw(1),
            vec![b"{}\n".to_vec(), b"[]".to_vec()],
            "the migration moves each record's original bytes, unchanged, to its event"
        );
        assert_eq!(
            raw(2),
            vec![b"null".to_vec()],
            "events of two journals with the same seq keep apart"
        );
        let summary: String = store
            .conn
            .query_row(
                "SELECT summary FROM events WHERE journal_id = 1 AND seq = 1",
                [],
                |r| r.get(0),
            )
            .expect("columns");
        assert_eq!(summary, "second", "the other columns stay");
    }

    #[test]
    fn discarding_the_analysis_from_a_record_removes_the_links_of_every_kind_from_it_and_no_other()
    {
        // Given two journals with links of three kinds on both sides of record 5
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);
        let store = Store::open(&path).expect("migrates");
        let links: Vec<Link> = ["parent", "response", "result"]
            .iter()
            .flat_map(|kind| {
                [2, 5, 9].map(|seq| Link {
                    seq,
                    kind,
                    target: 1,
                })
            })
            .collect();
        for journal in [1, 2] {
            store
                .append_analysis(
                    journal,
                    &Analysis {
                        links: links.clone(),
                        ..Analysis::default()
                    },
                )
                .expect("links");
        }
        // When the first journal's analysis is discarded from record 5
        store.discard_analysis_from(1, 5).expect("discard");
        // Then each kind keeps only its link before 5, and the other journal keeps all
        let kept: Vec<(String, u64, u64)> = ["parent", "response", "result"]
            .iter()
            .map(|kind| (kind.to_string(), 2, 1))
            .collect();
        assert_eq!(
            store.links(1).expect("links"),
            kept,
            "links at 5 and after go, of every kind"
        );
        assert_eq!(
            store.links(2).expect("links").len(),
            9,
            "another journal's links stay"
        );
    }

    #[test]
    fn discarding_a_journal_removes_its_bytes_and_no_other_journals() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);
        let store = Store::open(&path).expect("migrates");

        store.discard_journal(1).expect("discard");

        let left: Vec<i64> = store
            .conn
            .prepare("SELECT id FROM event_bytes ORDER BY id")
            .expect("prepare")
            .query_map([], |r| r.get(0))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(
            left,
            vec![bytes_id(2, 0)],
            "only the other journal's bytes are left"
        );
    }

    #[test]
    fn given_a_version_7_database_when_opened_then_its_type_counts_are_kept_and_follow_appends() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);
        {
            let conn = Connection::open(&path).expect("open");
            for sql in &MIGRATIONS[5..7] {
                conn.execute_batch(sql).expect("old migration");
            }
            conn.execute_batch(
                "INSERT INTO events (journal_id, seq, line, byte_start, byte_len, summary)
                 VALUES (1, 2, 3, 5, 1, 'untyped');
                 PRAGMA user_version = 7;",
            )
            .expect("version 7");
        }

        let store = Store::open(&path).expect("migrates");

        assert_eq!(
            store.type_counts(1).expect("counts"),
            vec![("t".to_string(), 2), ("(none)".to_string(), 1)],
            "the migration counts the events already stored, the most frequent type first"
        );
        assert_eq!(
            store.type_counts(2).expect("counts"),
            vec![("u".to_string(), 1)],
            "each journal counts its own events"
        );
        let index: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'events_by_type'",
                [],
                |r| r.get(0),
            )
            .expect("schema");
        assert_eq!(index, 0, "the index the counts replace is gone");

        let record = |seq: u64| RawRecord {
            seq,
            line: seq + 1,
            byte_start: seq,
            byte_len: 1,
            bytes: b"x".to_vec(),
        };
        let read = |kind: Option<&str>| ReadEvent {
            offset: None,
            kind: kind.map(str::to_string),
            created_at: None,
            summary: String::new(),
            diagnostics: Vec::new(),
        };
        store
            .append(
                1,
                &[
                    (record(3), read(Some("u"))),
                    (record(4), read(Some("u"))),
                    (record(5), read(Some("u"))),
                    (record(6), read(None)),
                ],
            )
            .expect("append");
        assert_eq!(
            store.type_counts(1).expect("counts"),
            vec![
                ("u".to_string(), 3),
                ("(none)".to_string(), 2),
                ("t".to_string(), 2)
            ],
            "an append adds its events to the counts, new types included"
        );

        store.discard_journal(1).expect("discard");
        assert!(
            store.type_counts(1).expect("counts").is_empty(),
            "a discarded journal leaves no counts behind"
        );
        assert_eq!(
            store.type_counts(2).expect("counts"),
            vec![("u".to_string(), 1)],
            "and the other journal keeps its own"
        );
    }

    /// A tip as a dialect would hand it over: the store keeps its view as it is given.
    fn tip_of(events: u64, through: i64) -> TipRow {
        TipRow {
            events,
            through,
            view: format!(r#"{{"at":{through},"note":"a \"quoted\" note","ünicode":"✓"}}"#),
        }
    }

    #[test]
    fn given_an_old_database_when_a_tip_is_kept_then_it_reads_back_and_is_replaced_and_discarded() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        version_5_database(&path);
        let store = Store::open(&path).expect("migrates through version 7");
        assert_eq!(
            store.tip(1).expect("read"),
            None,
            "an old journal has no tip until analysed"
        );

        let analysis = |tip| Analysis {
            tip: Some(tip),
            ..Analysis::default()
        };
        store
            .replace_analysis(1, &analysis(tip_of(2, 2)))
            .expect("keep a tip");
        store
            .replace_analysis(2, &analysis(tip_of(1, 1)))
            .expect("keep another");
        assert_eq!(
            store.tip(1).expect("read"),
            Some(tip_of(2, 2)),
            "the tip reads back as it was kept, its view and diagnostics included"
        );
        store
            .replace_analysis(1, &analysis(tip_of(3, 5)))
            .expect("replace");
        assert_eq!(
            store.tip(1).expect("read"),
            Some(tip_of(3, 5)),
            "a new analysis replaces the tip"
        );
        store
            .replace_analysis(1, &Analysis::default())
            .expect("an analysis without a tip");
        assert_eq!(
            store.tip(1).expect("read"),
            None,
            "an analysis without one removes it"
        );

        store.discard_journal(2).expect("discard");
        assert_eq!(
            store.tip(2).expect("read"),
            None,
            "a discarded journal's tip goes with it"
        );
    }
}
