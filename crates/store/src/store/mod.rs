//! The SQLite store: raw events append-only (the verbatim bytes of every record and where it
//! sat in the file), derived, rebuildable tables (fold diagnostics, marks, checkpoints, request
//! rows), and the user's bookmarks. WAL mode; migrations are append-only and numbered. It is
//! the only code that writes SQL.

mod bookmarks;
mod compression;
mod event_rows;
mod links;
mod offsets;
mod record_blocks;
mod streams;
mod text_match;

pub use bookmarks::BookmarkRow;
pub use event_rows::{EventFilter, ListedEvent};
pub use offsets::OffsetCut;
pub use record_blocks::{register_record_functions, RECORD_FUNCTION, SUMMARY_FUNCTION};

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

/// Schema changes, oldest first. Never edit a released entry: add a new one.
const MIGRATIONS: &[&str] = &[
    // 1: raw events and the journals they came from.
    "CREATE TABLE journals (
        id INTEGER PRIMARY KEY,
        source_path TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER,
        content_hash TEXT NOT NULL,
        dialect TEXT NOT NULL,
        framing TEXT NOT NULL,
        imported_bytes INTEGER NOT NULL,
        imported_lines INTEGER NOT NULL,
        ends_mid_line INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        superseded_by INTEGER REFERENCES journals(id)
    );
    CREATE TABLE events (
        journal_id INTEGER NOT NULL REFERENCES journals(id),
        seq INTEGER NOT NULL,
        line INTEGER NOT NULL,
        byte_start INTEGER NOT NULL,
        byte_len INTEGER NOT NULL,
        raw BLOB NOT NULL,
        offset INTEGER,
        type TEXT,
        created_at TEXT,
        summary TEXT NOT NULL,
        PRIMARY KEY (journal_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX events_by_offset ON events(journal_id, offset);
    CREATE INDEX events_by_type ON events(journal_id, type);
    CREATE TABLE read_diagnostics (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        offset INTEGER,
        line INTEGER NOT NULL,
        severity TEXT NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL
    );
    CREATE INDEX read_diagnostics_by_seq ON read_diagnostics(journal_id, seq);",
    // 2: derived, rebuildable from events at any time.
    "CREATE TABLE fold_diagnostics (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        offset INTEGER,
        line INTEGER NOT NULL,
        severity TEXT NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL
    );
    CREATE INDEX fold_diagnostics_by_seq ON fold_diagnostics(journal_id, seq);
    CREATE TABLE marks (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        note TEXT NOT NULL
    );
    CREATE INDEX marks_by_seq ON marks(journal_id, seq);
    CREATE INDEX marks_by_kind ON marks(journal_id, kind, seq);",
    // 3: remote streams followed live: which stream each journal generation holds and how far
    // it was read. The URL is stored without userinfo; request headers are never stored.
    "CREATE TABLE streams (
        journal_id INTEGER PRIMARY KEY REFERENCES journals(id),
        url TEXT NOT NULL,
        stream_id TEXT,
        transport TEXT NOT NULL,
        last_offset INTEGER,
        status TEXT NOT NULL,
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );",
    // 4: derived, rebuildable full-text index of each event's text (JSON string values, not
    // keys), trigram-tokenized so that any substring of three or more characters matches.
    // `event_text_state` says how many events of each journal are indexed.
    "CREATE VIRTUAL TABLE event_text USING fts5(
        body, journal_id UNINDEXED, seq UNINDEXED, tokenize = 'trigram'
    );
    CREATE TABLE event_text_state (
        journal_id INTEGER PRIMARY KEY,
        indexed INTEGER NOT NULL
    );",
    // 5: bookmarks are the user's own notes, not derived: never rebuilt or dropped.
    "CREATE TABLE bookmarks (
        journal_id INTEGER NOT NULL REFERENCES journals(id),
        seq INTEGER NOT NULL,
        offset INTEGER,
        note TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (journal_id, seq)
    );",
    // 6: each event's original bytes leave `events` for a table of their own, keyed by
    // `(journal_id << 40) | seq`. In `events`, a WITHOUT ROWID table, the bytes made rows large:
    // every insert compared keys across overflow pages, and every read of `offset` or `type`
    // walked the overflow chain of `raw` before it. `event_records` reads both as one; every
    // event has its bytes, and the LEFT JOIN lets SQLite skip the lookup when a query (say a
    // console query for offsets and types) does not ask for them.
    "CREATE TABLE event_bytes (id INTEGER PRIMARY KEY, raw BLOB NOT NULL);
    INSERT INTO event_bytes (id, raw) SELECT (journal_id << 40) | seq, raw FROM events;
    ALTER TABLE events DROP COLUMN raw;
    CREATE VIEW event_records AS
        SELECT e.journal_id, e.seq, e.line, e.byte_start, e.byte_len, b.raw, e.offset, e.type,
               e.created_at, e.summary
        FROM events e LEFT JOIN event_bytes b ON b.id = (e.journal_id << 40) | e.seq;",
    // 7: derived, rebuildable: the projection after an iterate journal's last event, as its
    // analysis left it, so that a window shows the journal's end before loading it whole.
    "CREATE TABLE tips (
        journal_id INTEGER PRIMARY KEY,
        events INTEGER NOT NULL,
        through INTEGER NOT NULL,
        view TEXT NOT NULL
    );",
    // 8: derived, rebuildable: how many events of each type a journal holds, kept up to date
    // by every append. The type filter's list asked it of every event, once at each open and
    // again each time a tail grew: a scan of `events_by_type`, a quarter of a second at a
    // million events. The index served nothing else (the filter matches `coalesce(type, ..)`,
    // which it cannot seek), and building it after a bulk load was a tenth of the import.
    "CREATE TABLE event_type_counts (
        journal_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        events INTEGER NOT NULL,
        PRIMARY KEY (journal_id, type)
    ) WITHOUT ROWID;
    INSERT INTO event_type_counts (journal_id, type, events)
        SELECT journal_id, coalesce(type, '(none)'), count(*) FROM events GROUP BY 1, 2;
    DROP INDEX IF EXISTS events_by_type;",
    // 9: derived, rebuildable: the fold's state every few hundred records, so that a view at
    // any offset is a checkpoint plus a short fold of stored records, and an append folds only
    // what it added. A state is encoded by its dialect; what several states share (an iterate
    // journal's request offsets, in sealed blocks) is kept once in `checkpoint_blocks`.
    // `checkpoint_cover` says how many records the checkpoints describe and in which encoding.
    "CREATE TABLE checkpoints (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        state BLOB NOT NULL,
        PRIMARY KEY (journal_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE checkpoint_blocks (
        journal_id INTEGER NOT NULL,
        block INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (journal_id, block)
    ) WITHOUT ROWID;
    CREATE TABLE checkpoint_cover (
        journal_id INTEGER PRIMARY KEY,
        records INTEGER NOT NULL,
        format INTEGER NOT NULL,
        seekable INTEGER NOT NULL
    );",
    // 10: derived, rebuildable: one row per request a fold met, by the seq of its record, as
    // its dialect encoded it, so that the request list is read rather than folded from every
    // record.
    "CREATE TABLE request_rows (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        row TEXT NOT NULL,
        PRIMARY KEY (journal_id, seq)
    ) WITHOUT ROWID;",
    // 11: a search scans the stored bytes instead: the full-text index was larger than the
    // journal and took a minute and a half to build at a million events.
    "DROP TABLE IF EXISTS event_text;
    DROP TABLE IF EXISTS event_text_state;",
    // 12: the bytes and summaries of every 256 neighbouring records, compressed together once
    // all of them are stored (see `record_blocks`): a row each made a journal of small records
    // (streamed tokens) nearly three times its size. `event_bytes` keeps the records of a
    // block not yet full, with their summaries, and every record of a database written
    // before, whose summaries stay in `events`; a new event's `summary` there is empty.
    // `event_records` reads both through `record_bytes(journal_id, seq)` and
    // `record_summary(journal_id, seq)`, which a connection registers to read them.
    // Checkpoint states and blocks are compressed from now on: the ones written before are
    // dropped, and the next open rebuilds them.
    "CREATE TABLE event_blocks (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
    ALTER TABLE event_bytes ADD COLUMN summary TEXT;
    DROP VIEW event_records;
    CREATE VIEW event_records AS
        SELECT e.journal_id, e.seq, e.line, e.byte_start, e.byte_len,
               record_bytes(e.journal_id, e.seq) AS raw, e.offset, e.type, e.created_at,
               coalesce(record_summary(e.journal_id, e.seq), e.summary) AS summary
        FROM events e;
    DELETE FROM checkpoints;
    DELETE FROM checkpoint_blocks;
    DELETE FROM checkpoint_cover;",
    // 13: the records whose offset does not rise above every earlier record's (see
    // `offsets`), so that a fold through any offset reads a prefix of the file and these
    // instead of every record. Filled here for the journals already stored.
    "CREATE TABLE late_records (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        offset INTEGER NOT NULL,
        PRIMARY KEY (journal_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO late_records (journal_id, seq, offset)
        SELECT journal_id, seq, offset FROM (
            SELECT journal_id, seq, offset,
                   max(offset) OVER (PARTITION BY journal_id ORDER BY seq
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
            FROM events WHERE offset IS NOT NULL)
        WHERE offset <= before;",
    // 14: derived, rebuildable: a record that names another (a reply its parent, a line the
    // response it belongs to), as its dialect's fold resolved it, so that a view can walk a
    // conversation through the index instead of reading every record.
    "CREATE TABLE links (
        journal_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seq INTEGER NOT NULL,
        target INTEGER NOT NULL,
        PRIMARY KEY (journal_id, kind, seq, target)
    ) WITHOUT ROWID;
    CREATE INDEX links_by_target ON links(journal_id, kind, target);",
    // 15: derived, rebuildable: the tokens a fold counted in a record's content, by the
    // record's seq and the dialect's variant of it (what else the count depends on), so that a
    // view folding the record again reads the count instead of loading a tokenizer.
    "CREATE TABLE record_tokens (
        journal_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        variant INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        PRIMARY KEY (journal_id, seq, variant)
    ) WITHOUT ROWID;",
];

/// What [`Store::type_counts`] and the type filter call an event without a type.
pub const UNTYPED: &str = "(none)";

/// The key of an event's bytes in `event_bytes` (see migration 6): a journal's events are
/// contiguous and in file order, so an import appends at the end of the table. 2^40 events a
/// journal is more than any file holds.
fn bytes_id(journal_id: i64, seq: u64) -> i64 {
    (journal_id << 40) | seq as i64
}

/// What the event list shows of an event, read without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventHead {
    pub seq: u64,
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub summary: String,
}

/// Stored records read a slice at a time: see [`Store::slices`].
pub struct Slices<'a> {
    store: &'a Store,
    journal_id: i64,
    next: u64,
    to: u64,
    slice: u64,
}

impl Iterator for Slices<'_> {
    type Item = Result<Vec<StoredEvent>, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.to {
            return None;
        }
        let end = self.next.saturating_add(self.slice).min(self.to);
        let read = self.store.events_between(self.journal_id, self.next, end);
        self.next = match &read {
            Ok(events) if !events.is_empty() => end,
            _ => self.to,
        };
        match read {
            Ok(events) if events.is_empty() => None,
            other => Some(other),
        }
    }
}

/// One stored event: the record as it was in the file, and its indexed columns.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub seq: u64,
    pub line: u64,
    pub byte_start: u64,
    pub byte_len: u64,
    pub raw: Vec<u8>,
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub created_at: Option<String>,
    pub summary: String,
    /// Diagnostics found when the record was read (not those of folding).
    pub diagnostics: Vec<Diagnostic>,
}

impl StoredEvent {
    /// The record parsed as JSON, or `None` when it is not JSON.
    pub fn json(&self) -> Option<Value> {
        journalscope_shapes::record_json::value(&self.raw)
    }

    /// The record parsed as the import parses it, for a fold to take what it keeps.
    pub fn parsed(&self) -> Option<journalscope_shapes::record_json::Parsed<'_>> {
        journalscope_shapes::record_json::parse_tree(&self.raw)
            .ok()
            .map(|(parsed, _)| parsed)
    }

    pub fn raw_text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }
}

/// A journal as the store knows it: one import generation of one source.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalRow {
    pub id: i64,
    pub source_path: String,
    pub size: u64,
    pub mtime_ns: Option<i64>,
    pub content_hash: String,
    pub dialect: Dialect,
    pub framing: Framing,
    pub imported_bytes: u64,
    pub imported_lines: u64,
    pub ends_mid_line: bool,
}

/// What the store is asked to remember about a new journal.
#[derive(Debug, Clone)]
pub struct NewJournal<'a> {
    pub source_path: &'a str,
    pub dialect: Dialect,
    pub framing: Framing,
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

    fn migrate(&self, path: &Path) -> Result<(), StoreError> {
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |row| row.get(0))?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found: version,
                known,
            });
        }
        if version == known {
            return Ok(());
        }
        // Two processes may open a new database at once: the write lock is taken first and the
        // version read again under it, so only one of them migrates.
        self.transaction(|store| -> Result<(), StoreError> {
            let version: i64 = store
                .conn
                .pragma_query_value(None, "user_version", |row| row.get(0))?;
            for (index, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
                store.conn.execute_batch(sql)?;
                store
                    .conn
                    .pragma_update(None, "user_version", index as i64 + 1)?;
            }
            Ok(())
        })
    }

    /// The connection itself, for tests that inspect a database or age it as an older version
    /// left it. The core reaches SQL only through the methods here (`tests/layering.rs`).
    #[doc(hidden)]
    pub fn inspection_connection(&self) -> &Connection {
        &self.conn
    }

    /// The newest journal generation, the one every view shows.
    pub fn latest_journal(&self) -> Result<Option<JournalRow>, StoreError> {
        self.journal_where("superseded_by IS NULL ORDER BY id DESC LIMIT 1", [])
    }

    pub fn journal(&self, id: i64) -> Result<Option<JournalRow>, StoreError> {
        self.journal_where("id = ?1", [id])
    }

    fn journal_where<P: rusqlite::Params>(
        &self,
        clause: &str,
        params: P,
    ) -> Result<Option<JournalRow>, StoreError> {
        let sql = format!(
            "SELECT id, source_path, size, mtime_ns, content_hash, dialect, framing,
                    imported_bytes, imported_lines, ends_mid_line
             FROM journals WHERE {clause}"
        );
        Ok(self
            .conn
            .query_row(&sql, params, |row| {
                Ok(JournalRow {
                    id: row.get(0)?,
                    source_path: row.get(1)?,
                    size: row.get::<_, i64>(2)? as u64,
                    mtime_ns: row.get(3)?,
                    content_hash: row.get(4)?,
                    dialect: Dialect::parse(&row.get::<_, String>(5)?).unwrap_or_default(),
                    framing: Framing::parse(&row.get::<_, String>(6)?).unwrap_or(Framing::Jsonl),
                    imported_bytes: row.get::<_, i64>(7)? as u64,
                    imported_lines: row.get::<_, i64>(8)? as u64,
                    ends_mid_line: row.get(9)?,
                })
            })
            .optional()?)
    }

    /// Starts a new journal generation; an older one of the same source is kept, marked as
    /// superseded, so nothing once imported is lost.
    pub fn create_journal(&self, new: &NewJournal<'_>) -> Result<i64, StoreError> {
        self.conn.execute(
            "INSERT INTO journals (source_path, size, mtime_ns, content_hash, dialect, framing,
                                   imported_bytes, imported_lines)
             VALUES (?1, 0, NULL, '', ?2, ?3, 0, 0)",
            params![new.source_path, new.dialect.as_str(), new.framing.as_str()],
        )?;
        let id = self.conn.last_insert_rowid();
        self.conn.execute(
            "UPDATE journals SET superseded_by = ?1
             WHERE id <> ?1 AND superseded_by IS NULL AND source_path = ?2",
            params![id, new.source_path],
        )?;
        Ok(id)
    }

    /// Removes a journal generation that never finished importing, and makes the one it was
    /// to supersede current again.
    pub fn discard_journal(&self, journal_id: i64) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM events WHERE journal_id = ?1", [journal_id])?;
        record_blocks::discard_records(&self.conn, journal_id)?;
        // The journal's key may be given to the next one.
        self.blocks.borrow_mut().clear();
        self.forget_highest();
        self.conn.execute(
            "DELETE FROM late_records WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn
            .execute("DELETE FROM links WHERE journal_id = ?1", [journal_id])?;
        self.conn.execute(
            "DELETE FROM read_diagnostics WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn.execute(
            "DELETE FROM fold_diagnostics WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn
            .execute("DELETE FROM marks WHERE journal_id = ?1", [journal_id])?;
        self.conn
            .execute("DELETE FROM tips WHERE journal_id = ?1", [journal_id])?;
        self.conn.execute(
            "DELETE FROM request_rows WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn.execute(
            "DELETE FROM record_tokens WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.forget_checkpoints(journal_id)?;
        self.conn.execute(
            "DELETE FROM event_type_counts WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn.execute(
            "UPDATE journals SET superseded_by = NULL WHERE superseded_by = ?1",
            [journal_id],
        )?;
        self.conn
            .execute("DELETE FROM journals WHERE id = ?1", [journal_id])?;
        Ok(())
    }

    /// Records how far into its source a journal has been read.
    pub fn record_position(
        &self,
        journal_id: i64,
        position: &SourcePosition,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE journals SET size = ?2, mtime_ns = ?3, content_hash = ?4,
                    imported_bytes = ?5, imported_lines = ?6, ends_mid_line = ?7
             WHERE id = ?1",
            params![
                journal_id,
                position.size as i64,
                position.mtime_ns,
                position.content_hash,
                position.imported_bytes as i64,
                position.imported_lines as i64,
                position.ends_mid_line,
            ],
        )?;
        Ok(())
    }

    /// Appends records with what their dialect read of them. Callers batch inside
    /// [`Store::transaction`] for speed.
    pub fn append(
        &self,
        journal_id: i64,
        events: &[(RawRecord, ReadEvent)],
    ) -> Result<(), StoreError> {
        let mut insert = self.conn.prepare_cached(
            "INSERT INTO events (journal_id, seq, line, byte_start, byte_len, offset, type,
                                 created_at, summary)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        let mut diagnose = self.conn.prepare_cached(
            "INSERT INTO read_diagnostics (journal_id, seq, offset, line, severity, code, message)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut typed: Vec<(&str, i64)> = Vec::new();
        for (record, read) in events {
            // A journal has a few dozen types: a scan beats hashing each event's.
            let kind = read.kind.as_deref().unwrap_or(UNTYPED);
            match typed.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => typed.push((kind, 1)),
            }
            insert.execute(params![
                journal_id,
                record.seq as i64,
                record.line as i64,
                record.byte_start as i64,
                record.byte_len as i64,
                read.offset,
                read.kind,
                read.created_at,
                "",
            ])?;
            for d in &read.diagnostics {
                diagnose.execute(params![
                    journal_id,
                    record.seq as i64,
                    d.offset,
                    d.line as i64,
                    d.severity.as_str(),
                    d.code,
                    d.message,
                ])?;
            }
        }
        let mut count = self.conn.prepare_cached(
            "INSERT INTO event_type_counts (journal_id, type, events) VALUES (?1, ?2, ?3)
             ON CONFLICT (journal_id, type) DO UPDATE SET events = events + excluded.events",
        )?;
        for (kind, n) in typed {
            count.execute(params![journal_id, kind, n])?;
        }
        self.note_late_records(journal_id, events)?;
        let kept: Vec<(u64, record_blocks::Kept<'_>)> = events
            .iter()
            .map(|(record, read)| (record.seq, (record.bytes.as_slice(), read.summary.as_str())))
            .collect();
        record_blocks::keep_records(&self.conn, journal_id, &kept)
    }

    /// How many events of each type a journal holds, the most frequent first.
    pub fn type_counts(&self, journal_id: i64) -> Result<Vec<(String, u64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT type, events FROM event_type_counts WHERE journal_id = ?1
             ORDER BY events DESC, type",
        )?;
        let rows = stmt.query_map([journal_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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

    /// How many events a journal holds. Its events are numbered 0, 1, … in file order without
    /// gaps (a follower numbers the next one by this count), so the highest seq answers
    /// through the primary key: `count(*)` scanned an index for a quarter of a second per call
    /// at a million events, and opening a journal asks more than once.
    pub fn event_count(&self, journal_id: i64) -> Result<u64, StoreError> {
        Ok(self.conn.query_row(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE journal_id = ?1",
            [journal_id],
            |row| row.get::<_, i64>(0),
        )? as u64)
    }

    /// The lowest and the highest offset a journal holds.
    pub fn offset_span(&self, journal_id: i64) -> Result<(Option<i64>, Option<i64>), StoreError> {
        // Two subqueries: each is one seek of the offset index, where `min` and `max` in one
        // select scanned all of it (a tenth of a second at a million events).
        Ok(self.conn.query_row(
            "SELECT (SELECT min(offset) FROM events WHERE journal_id = ?1),
                    (SELECT max(offset) FROM events WHERE journal_id = ?1)",
            [journal_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    }

    /// Every event's seq and offset (`None` for a record without one), in file order.
    pub fn seq_offsets(&self, journal_id: i64) -> Result<Vec<(u64, Option<i64>)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT seq, offset FROM events WHERE journal_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([journal_id], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, Option<i64>>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether an event at or before `offset` lies at seq `from` or later.
    pub fn any_at_or_before_offset_from(
        &self,
        journal_id: i64,
        offset: i64,
        from: u64,
    ) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM events
              WHERE journal_id = ?1 AND offset <= ?2 AND seq >= ?3)",
            params![journal_id, offset, clamp(from)],
            |r| r.get(0),
        )?)
    }

    /// The highest offset a journal holds, for resuming its reader.
    pub fn highest_offset(&self, journal_id: i64) -> Result<Option<i64>, StoreError> {
        Ok(self.conn.query_row(
            "SELECT max(offset) FROM events WHERE journal_id = ?1",
            [journal_id],
            |row| row.get(0),
        )?)
    }

    pub fn last_event(&self, journal_id: i64) -> Result<Option<StoredEvent>, StoreError> {
        Ok(self
            .events_where(
                journal_id,
                "seq = (SELECT max(seq) FROM events WHERE journal_id = ?1)",
            )?
            .pop())
    }

    /// The latest event of any of `types`, found through the type index whatever the
    /// journal's length.
    pub fn last_event_of_types(
        &self,
        journal_id: i64,
        types: &[&str],
    ) -> Result<Option<StoredEvent>, StoreError> {
        self.last_event_of_types_before(journal_id, types, u64::MAX)
    }

    /// The latest event of any of `types` before record `before`, through the type index.
    pub fn last_event_of_types_before(
        &self,
        journal_id: i64,
        types: &[&str],
        before: u64,
    ) -> Result<Option<StoredEvent>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT max(seq) FROM events WHERE journal_id = ?1 AND type = ?2 AND seq < ?3",
        )?;
        let mut latest: Option<i64> = None;
        for kind in types {
            let seq: Option<i64> =
                stmt.query_row(params![journal_id, kind, clamp(before)], |row| row.get(0))?;
            latest = latest.max(seq);
        }
        match latest {
            Some(seq) => self.event(journal_id, seq as u64),
            None => Ok(None),
        }
    }

    /// Every event of a journal in file order, with its read-time diagnostics.
    pub fn events(&self, journal_id: i64) -> Result<Vec<StoredEvent>, StoreError> {
        self.events_where(journal_id, "1 = 1")
    }

    /// The events with `from <= seq < to`: what an import reads back in slices, so that it can
    /// report progress and be cancelled between them.
    pub fn events_between(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.events_where(journal_id, &format!("seq >= {from} AND seq < {to}"))
    }

    /// The stored records `from <= seq < to` in order, at most `slice` of them at a time: how
    /// a fold reads a journal of any length with one slice in memory. It ends early where the
    /// records do.
    pub fn slices(&self, journal_id: i64, from: u64, to: u64, slice: u64) -> Slices<'_> {
        Slices {
            store: self,
            journal_id,
            next: from,
            to,
            slice: slice.max(1),
        }
    }

    /// Lends `visit` the original bytes of each stored record `from <= seq < to`, in order,
    /// without copying them, until it returns false: how a scan of every record's text (a
    /// search) reads a journal of any size with one record in hand.
    pub fn visit_bytes(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
        mut visit: impl FnMut(u64, &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        if from >= to {
            return Ok(());
        }
        record_blocks::visit_records(&self.conn, journal_id, from, to, &mut |seq, raw, _| {
            visit(seq, raw)
        })
    }

    /// The seqs of the events whose type is one of `types`, in order.
    pub fn seqs_of_types(&self, journal_id: i64, types: &[String]) -> Result<Vec<u64>, StoreError> {
        if types.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; types.len()].join(", ");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT seq FROM events WHERE journal_id = ? AND type IN ({marks}) ORDER BY seq"
        ))?;
        let values = std::iter::once(rusqlite::types::Value::Integer(journal_id)).chain(
            types
                .iter()
                .map(|t| rusqlite::types::Value::Text(t.clone())),
        );
        let rows = stmt.query_map(rusqlite::params_from_iter(values), |r| {
            Ok(r.get::<_, i64>(0)? as u64)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The event list's columns of the event at `seq`, without its bytes.
    pub fn event_head(&self, journal_id: i64, seq: u64) -> Result<Option<EventHead>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT offset, type, summary FROM events WHERE journal_id = ?1 AND seq = ?2",
        )?;
        let head = stmt
            .query_row(params![journal_id, seq as i64], |r| {
                Ok(EventHead {
                    seq,
                    offset: r.get(0)?,
                    kind: r.get(1)?,
                    summary: r.get(2)?,
                })
            })
            .optional()?;
        let Some(mut head) = head else {
            return Ok(None);
        };
        if let Some((_, Some(summary))) = self.kept_record(journal_id, seq)? {
            head.summary = summary;
        }
        Ok(Some(head))
    }

    pub fn event(&self, journal_id: i64, seq: u64) -> Result<Option<StoredEvent>, StoreError> {
        let mut events = self.events_where(journal_id, &format!("seq = {seq}"))?;
        Ok(events.pop())
    }

    /// The events at or before `offset` (those with none excluded), in file order.
    pub fn events_through_offset(
        &self,
        journal_id: i64,
        offset: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.events_where(journal_id, &format!("offset <= {offset}"))
    }

    fn events_where(&self, journal_id: i64, clause: &str) -> Result<Vec<StoredEvent>, StoreError> {
        let sql = format!(
            "SELECT seq, line, byte_start, byte_len, offset, type, created_at, summary
             FROM events WHERE journal_id = ?1 AND {clause} ORDER BY seq"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut events: Vec<StoredEvent> = stmt
            .query_map([journal_id], |row| {
                Ok(StoredEvent {
                    seq: row.get::<_, i64>(0)? as u64,
                    line: row.get::<_, i64>(1)? as u64,
                    byte_start: row.get::<_, i64>(2)? as u64,
                    byte_len: row.get::<_, i64>(3)? as u64,
                    raw: Vec::new(),
                    offset: row.get(4)?,
                    kind: row.get(5)?,
                    created_at: row.get(6)?,
                    summary: row.get(7)?,
                    diagnostics: Vec::new(),
                })
            })?
            .collect::<Result<_, _>>()?;
        if events.is_empty() {
            return Ok(events);
        }
        let first = events[0].seq;
        let last = events[events.len() - 1].seq;
        // The bytes of the seq range in one pass, where they lie in order; a clause that
        // skips seqs skips their bytes here.
        let mut next = 0;
        record_blocks::visit_records(
            &self.conn,
            journal_id,
            first,
            last + 1,
            &mut |seq, raw, summary| {
                while next < events.len() && events[next].seq < seq {
                    next += 1;
                }
                if let Some(event) = events.get_mut(next).filter(|e| e.seq == seq) {
                    event.raw = raw.to_vec();
                    if let Some(summary) = summary {
                        event.summary = summary.to_string();
                    }
                }
                true
            },
        )?;
        let mut stmt = self.conn.prepare(
            "SELECT seq, offset, line, severity, code, message FROM read_diagnostics
             WHERE journal_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY rowid",
        )?;
        let rows = stmt.query_map(params![journal_id, first as i64, last as i64], |row| {
            Ok((row.get::<_, i64>(0)? as u64, diagnostic_from_row(row, 1)?))
        })?;
        // Events are sorted by seq, so each diagnostic finds its event by binary search.
        for row in rows {
            let (seq, diagnostic) = row?;
            if let Ok(index) = events.binary_search_by_key(&seq, |e| e.seq) {
                events[index].diagnostics.push(diagnostic);
            }
        }
        Ok(events)
    }

    /// Replaces the derived tables of a journal with a fresh analysis.
    pub fn replace_analysis(&self, journal_id: i64, analysis: &Analysis) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM fold_diagnostics WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn
            .execute("DELETE FROM marks WHERE journal_id = ?1", [journal_id])?;
        self.conn.execute(
            "DELETE FROM request_rows WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn.execute(
            "DELETE FROM record_tokens WHERE journal_id = ?1",
            [journal_id],
        )?;
        self.conn
            .execute("DELETE FROM links WHERE journal_id = ?1", [journal_id])?;
        self.forget_checkpoints(journal_id)?;
        self.append_analysis(journal_id, analysis)?;
        self.keep_tip(journal_id, analysis.tip.as_ref())
    }

    /// Removes what the analysis found at or after record `seq`, and the checkpoints after
    /// it: an analysis resumed from the checkpoint at `seq` finds all of it again.
    pub fn discard_analysis_from(&self, journal_id: i64, seq: u64) -> Result<(), StoreError> {
        let seq = clamp(seq);
        for table in ["fold_diagnostics", "marks", "request_rows"] {
            self.conn.execute(
                &format!("DELETE FROM {table} WHERE journal_id = ?1 AND seq >= ?2"),
                params![journal_id, seq],
            )?;
        }
        // Links are keyed by kind before seq: each kind (found by seeking from the one
        // before) is a range of the key, where a plain `seq >=` scanned every link of the
        // journal, a quarter of a second at a million lines.
        self.conn.execute(
            "WITH RECURSIVE kinds(kind) AS (
                 SELECT min(kind) FROM links WHERE journal_id = ?1
                 UNION ALL
                 SELECT (SELECT min(kind) FROM links WHERE journal_id = ?1 AND kind > kinds.kind)
                 FROM kinds WHERE kinds.kind IS NOT NULL)
             DELETE FROM links
             WHERE journal_id = ?1 AND kind IN (SELECT kind FROM kinds) AND seq >= ?2",
            params![journal_id, seq],
        )?;
        self.conn.execute(
            "DELETE FROM checkpoints WHERE journal_id = ?1 AND seq > ?2",
            params![journal_id, seq],
        )?;
        Ok(())
    }

    /// Removes the checkpoints before record `seq`: a dialect that resumes only from its
    /// latest keeps no other.
    pub fn discard_checkpoints_before(&self, journal_id: i64, seq: u64) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM checkpoints WHERE journal_id = ?1 AND seq < ?2",
            params![journal_id, clamp(seq)],
        )?;
        Ok(())
    }

    fn forget_checkpoints(&self, journal_id: i64) -> Result<(), StoreError> {
        for table in ["checkpoints", "checkpoint_blocks", "checkpoint_cover"] {
            self.conn.execute(
                &format!("DELETE FROM {table} WHERE journal_id = ?1"),
                [journal_id],
            )?;
        }
        Ok(())
    }

    /// Attaches a diagnostic to a stored record after it landed: what a tail saw of the
    /// connection (a drop, a silence) once the record before it was already stored. Kept with
    /// the records' own read-time diagnostics, which no refresh rebuilds.
    pub fn attach_diagnostic(
        &self,
        journal_id: i64,
        seq: u64,
        diagnostic: &Diagnostic,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO read_diagnostics (journal_id, seq, offset, line, severity, code, message)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                journal_id,
                seq as i64,
                diagnostic.offset,
                diagnostic.line as i64,
                diagnostic.severity.as_str(),
                diagnostic.code,
                diagnostic.message,
            ],
        )?;
        Ok(())
    }

    /// Adds the marks and fold diagnostics of `analysis` to those the journal has: an import
    /// writes what its fold found batch by batch, in file order, instead of all at its end.
    /// Readers order them by seq, then by when they were written, so an analysis written in
    /// parts reads back as the same analysis written whole.
    pub fn append_analysis(&self, journal_id: i64, analysis: &Analysis) -> Result<(), StoreError> {
        for code in &analysis.provisional_codes {
            self.conn.execute(
                "DELETE FROM fold_diagnostics WHERE journal_id = ?1 AND code = ?2",
                params![journal_id, code],
            )?;
        }
        let mut diagnose = self.conn.prepare_cached(
            "INSERT INTO fold_diagnostics (journal_id, seq, offset, line, severity, code, message)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (seq, d) in &analysis.diagnostics {
            diagnose.execute(params![
                journal_id,
                *seq as i64,
                d.offset,
                d.line as i64,
                d.severity.as_str(),
                d.code,
                d.message,
            ])?;
        }
        for kind in &analysis.provisional_kinds {
            self.conn.execute(
                "DELETE FROM marks WHERE journal_id = ?1 AND kind = ?2",
                params![journal_id, kind],
            )?;
        }
        let mut mark = self.conn.prepare_cached(
            "INSERT INTO marks (journal_id, seq, kind, note) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for m in &analysis.marks {
            mark.execute(params![journal_id, m.seq as i64, m.kind, m.note])?;
        }
        let mut request = self.conn.prepare_cached(
            "INSERT OR REPLACE INTO request_rows (journal_id, seq, row) VALUES (?1, ?2, ?3)",
        )?;
        for (seq, row) in &analysis.requests {
            request.execute(params![journal_id, *seq as i64, row])?;
        }
        let mut counted = self.conn.prepare_cached(
            "INSERT OR IGNORE INTO record_tokens (journal_id, seq, variant, tokens)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (seq, variant, tokens) in &analysis.record_tokens {
            counted.execute(params![journal_id, clamp(*seq), variant, tokens])?;
        }
        let mut link = self.conn.prepare_cached(
            "INSERT OR IGNORE INTO links (journal_id, kind, seq, target) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for l in &analysis.links {
            link.execute(params![journal_id, l.kind, clamp(l.seq), clamp(l.target)])?;
        }
        if analysis.checkpoint_replaces {
            if let Some(first) = analysis.checkpoints.iter().map(|(seq, _)| *seq).min() {
                self.discard_checkpoints_before(journal_id, first)?;
            }
        }
        let mut checkpoint = self.conn.prepare_cached(
            "INSERT OR REPLACE INTO checkpoints (journal_id, seq, state) VALUES (?1, ?2, ?3)",
        )?;
        for (seq, state) in &analysis.checkpoints {
            checkpoint.execute(params![
                journal_id,
                *seq as i64,
                compression::compress(state)
            ])?;
        }
        let mut block = self.conn.prepare_cached(
            "INSERT OR REPLACE INTO checkpoint_blocks (journal_id, block, bytes)
             VALUES (?1, ?2, ?3)",
        )?;
        for (index, bytes) in &analysis.checkpoint_blocks {
            block.execute(params![
                journal_id,
                *index as i64,
                compression::compress(bytes)
            ])?;
        }
        if let Some(tip) = &analysis.tip {
            self.keep_tip(journal_id, Some(tip))?;
        }
        if let Some(cover) = &analysis.cover {
            self.conn.execute(
                "INSERT OR REPLACE INTO checkpoint_cover (journal_id, records, format, seekable)
                 VALUES (?1, ?2, ?3, ?4)",
                params![
                    journal_id,
                    cover.records as i64,
                    cover.format,
                    cover.seekable
                ],
            )?;
        }
        Ok(())
    }

    /// Bytes a journal's checkpoints take, their shared blocks included.
    pub fn checkpoint_bytes(&self, journal_id: i64) -> Result<u64, StoreError> {
        let bytes: i64 = self.conn.query_row(
            "SELECT (SELECT coalesce(sum(length(state)), 0) FROM checkpoints WHERE journal_id = ?1)
                  + (SELECT coalesce(sum(length(bytes)), 0) FROM checkpoint_blocks
                     WHERE journal_id = ?1)",
            [journal_id],
            |row| row.get(0),
        )?;
        Ok(bytes as u64)
    }

    /// What a journal's checkpoints describe, if it has any.
    pub fn checkpoint_cover(&self, journal_id: i64) -> Result<Option<CheckpointCover>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT records, format, seekable FROM checkpoint_cover WHERE journal_id = ?1",
                [journal_id],
                |row| {
                    Ok(CheckpointCover {
                        records: row.get::<_, i64>(0)? as u64,
                        format: row.get(1)?,
                        seekable: row.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// The latest checkpoint after at most `records` records: its seq and encoded state.
    pub fn checkpoint_before(
        &self,
        journal_id: i64,
        records: u64,
    ) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, state FROM checkpoints WHERE journal_id = ?1 AND seq <= ?2
             ORDER BY seq DESC LIMIT 1",
        )?;
        let found = stmt
            .query_row(params![journal_id, records as i64], |row| {
                Ok((row.get::<_, i64>(0)? as u64, row.get::<_, Vec<u8>>(1)?))
            })
            .optional()?;
        found
            .map(|(seq, state)| Ok((seq, checkpoint_part(&state)?)))
            .transpose()
    }

    /// The first `count` shared checkpoint parts, in order; fewer when some are missing.
    pub fn checkpoint_blocks(
        &self,
        journal_id: i64,
        count: u64,
    ) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT bytes FROM checkpoint_blocks WHERE journal_id = ?1 AND block < ?2
             ORDER BY block",
        )?;
        let rows = stmt.query_map(params![journal_id, count as i64], |row| {
            row.get::<_, Vec<u8>>(0)
        })?;
        rows.map(|bytes| checkpoint_part(&bytes?)).collect()
    }

    /// The shared checkpoint parts `first <= block < first + count`, by index; a missing one is
    /// left out.
    pub fn checkpoint_block_range(
        &self,
        journal_id: i64,
        first: u64,
        count: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT block, bytes FROM checkpoint_blocks
             WHERE journal_id = ?1 AND block >= ?2 AND block < ?3 ORDER BY block",
        )?;
        let rows = stmt.query_map(
            params![journal_id, clamp(first), clamp(first.saturating_add(count))],
            |row| Ok((row.get::<_, i64>(0)? as u64, row.get::<_, Vec<u8>>(1)?)),
        )?;
        rows.map(|row| {
            let (index, bytes) = row?;
            Ok((index, checkpoint_part(&bytes)?))
        })
        .collect()
    }

    /// The index after the highest shared checkpoint part a journal has: where new parts go
    /// without replacing one that a kept checkpoint names.
    pub fn checkpoint_block_end(&self, journal_id: i64) -> Result<u64, StoreError> {
        let highest: Option<i64> = self.conn.query_row(
            "SELECT max(block) FROM checkpoint_blocks WHERE journal_id = ?1",
            [journal_id],
            |row| row.get(0),
        )?;
        Ok(highest.map_or(0, |block| block as u64 + 1))
    }

    /// How many records come before the first whose offset is above `offset`: in a journal
    /// whose offsets increase, the records at or before `offset` (an offset-index seek).
    pub fn records_through_offset(&self, journal_id: i64, offset: i64) -> Result<u64, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset > ?2
             ORDER BY offset LIMIT 1",
        )?;
        match stmt
            .query_row(params![journal_id, offset], |row| row.get::<_, i64>(0))
            .optional()?
        {
            Some(seq) => Ok(seq as u64),
            None => self.event_count(journal_id),
        }
    }

    /// The first record with exactly `offset` (an offset-index seek).
    pub fn seq_at_offset(&self, journal_id: i64, offset: i64) -> Result<Option<u64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT min(seq) FROM events WHERE journal_id = ?1 AND offset = ?2")?;
        let seq: Option<i64> = stmt.query_row(params![journal_id, offset], |row| row.get(0))?;
        Ok(seq.map(|s| s as u64))
    }

    /// The event at `offset`, or the last one before it (the latest in the file among equals).
    pub fn seq_at_or_before_offset(
        &self,
        journal_id: i64,
        offset: i64,
    ) -> Result<Option<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset <= ?2
             ORDER BY offset DESC, seq DESC LIMIT 1",
        )?;
        Ok(stmt
            .query_row(params![journal_id, offset], |row| row.get::<_, i64>(0))
            .optional()?
            .map(|seq| seq as u64))
    }

    /// The offset of the event at `seq`, or of the nearest event before it that has one.
    pub fn offset_at_or_before_seq(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<i64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT offset FROM events WHERE journal_id = ?1 AND seq <= ?2 AND offset IS NOT NULL
             ORDER BY seq DESC LIMIT 1",
        )?;
        Ok(stmt
            .query_row(params![journal_id, clamp(seq)], |row| row.get(0))
            .optional()?)
    }

    /// One record's line and original bytes, looked up by its seq alone: what a checkpoint
    /// that names items by the records they came from reads back.
    pub fn record_bytes(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT line FROM events WHERE journal_id = ?1 AND seq = ?2")?;
        let Some(line) = stmt
            .query_row(params![journal_id, clamp(seq)], |row| row.get::<_, i64>(0))
            .optional()?
        else {
            return Ok(None);
        };
        Ok(self
            .kept_record(journal_id, seq)?
            .map(|(raw, _)| (line as u64, raw)))
    }

    /// One record's original bytes by its seq, without its line: what a checkpoint that names
    /// items by their records reads back when the items keep no line.
    pub fn record_raw(&self, journal_id: i64, seq: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.kept_record(journal_id, seq)?.map(|(raw, _)| raw))
    }

    /// One record's original bytes and its summary where `events` does not hold it.
    pub(super) fn kept_record(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<record_blocks::Record>, StoreError> {
        record_blocks::record_at(&self.conn, &mut self.blocks.borrow_mut(), journal_id, seq)
    }

    /// Replaces the journal's tip (see [`Store::tip`]); `None` removes it.
    pub fn keep_tip(&self, journal_id: i64, tip: Option<&TipRow>) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM tips WHERE journal_id = ?1", [journal_id])?;
        if let Some(tip) = tip {
            self.conn.execute(
                "INSERT INTO tips (journal_id, events, through, view) VALUES (?1, ?2, ?3, ?4)",
                params![journal_id, tip.events as i64, tip.through, tip.view],
            )?;
        }
        Ok(())
    }

    /// The view after a journal's last event, as its last analysis left it. `None` when none
    /// was kept (a dialect that keeps none, a database from before migration 7).
    /// The tip when it describes `events` records and `at` lies at or past its last offset;
    /// the view, which can be large, is read only then.
    pub fn tip_reaching(
        &self,
        journal_id: i64,
        events: u64,
        at: i64,
    ) -> Result<Option<TipRow>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT events, through, view FROM tips
                 WHERE journal_id = ?1 AND events = ?2 AND through <= ?3",
            )?
            .query_row(params![journal_id, clamp(events), at], |row| {
                Ok(TipRow {
                    events: row.get::<_, i64>(0)? as u64,
                    through: row.get(1)?,
                    view: row.get(2)?,
                })
            })
            .optional()?)
    }

    pub fn tip(&self, journal_id: i64) -> Result<Option<TipRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT events, through, view FROM tips WHERE journal_id = ?1",
                [journal_id],
                |row| {
                    Ok(TipRow {
                        events: row.get::<_, i64>(0)? as u64,
                        through: row.get(1)?,
                        view: row.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Every diagnostic of a journal, read-time and fold-time, in file order.
    pub fn diagnostics(&self, journal_id: i64) -> Result<Vec<(u64, Diagnostic)>, StoreError> {
        self.diagnostics_between(journal_id, 0, u64::MAX)
    }

    /// The diagnostics of the events `from <= seq < to`, read-time before fold-time for each.
    pub fn diagnostics_between(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
    ) -> Result<Vec<(u64, Diagnostic)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, offset, line, severity, code, message, 0 AS stage, rowid
               FROM read_diagnostics WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
             UNION ALL
             SELECT seq, offset, line, severity, code, message, 1 AS stage, rowid
               FROM fold_diagnostics WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq, stage, rowid",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(from), clamp(to)], |row| {
            Ok((row.get::<_, i64>(0)? as u64, diagnostic_from_row(row, 1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many error and warning diagnostics a journal has, read-time and fold-time.
    pub fn diagnostic_counts(&self, journal_id: i64) -> Result<(u64, u64), StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT severity, sum(n) FROM (
                SELECT severity, count(*) AS n FROM read_diagnostics WHERE journal_id = ?1
                 GROUP BY severity
                UNION ALL
                SELECT severity, count(*) FROM fold_diagnostics WHERE journal_id = ?1
                 GROUP BY severity)
             GROUP BY severity",
        )?;
        let rows = stmt.query_map([journal_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))
        })?;
        let (mut errors, mut warnings) = (0, 0);
        for row in rows {
            let (severity, n) = row?;
            // Advice is listed with the diagnostics but counts as neither.
            match Severity::parse(&severity) {
                Some(Severity::Warning) => warnings += n,
                Some(Severity::Info) => {}
                _ => errors += n,
            }
        }
        Ok((errors, warnings))
    }

    /// How many diagnostics of each code a journal has, read-time and fold-time, by code.
    pub fn diagnostic_codes(&self, journal_id: i64) -> Result<Vec<(String, u64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT code, sum(n) FROM (
                SELECT code, count(*) AS n FROM read_diagnostics WHERE journal_id = ?1
                 GROUP BY code
                UNION ALL
                SELECT code, count(*) FROM fold_diagnostics WHERE journal_id = ?1
                 GROUP BY code)
             GROUP BY code ORDER BY code",
        )?;
        let rows = stmt.query_map([journal_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The nearest event after `from` (before it, going back) with a diagnostic; `from` is
    /// `None` outside the journal (before its start going forward, after its end going back).
    pub fn next_diagnostic(
        &self,
        journal_id: i64,
        from: Option<u64>,
        forward: bool,
    ) -> Result<Option<u64>, StoreError> {
        let pick = |table: &str| -> Result<Option<u64>, StoreError> {
            let sql = if forward {
                format!("SELECT min(seq) FROM {table} WHERE journal_id = ?1 AND seq > ?2")
            } else {
                format!("SELECT max(seq) FROM {table} WHERE journal_id = ?1 AND seq < ?2")
            };
            let seq: Option<i64> = self
                .conn
                .prepare_cached(&sql)?
                .query_row(params![journal_id, bound(from, forward)], |row| row.get(0))?;
            Ok(seq.map(|s| s as u64))
        };
        let (read, fold) = (pick("read_diagnostics")?, pick("fold_diagnostics")?);
        Ok(match (read, fold) {
            (Some(a), Some(b)) => Some(if forward { a.min(b) } else { a.max(b) }),
            (a, b) => a.or(b),
        })
    }

    pub fn marks(&self, journal_id: i64) -> Result<Vec<Mark>, StoreError> {
        self.marks_between(journal_id, 0, u64::MAX)
    }

    /// The marks of the events `from <= seq < to`, in file order.
    pub fn marks_between(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
    ) -> Result<Vec<Mark>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, kind, note FROM marks WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq, rowid",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(from), clamp(to)], mark_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The request row of the request at `seq`, if there is one.
    pub fn request_row(&self, journal_id: i64, seq: u64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT row FROM request_rows WHERE journal_id = ?1 AND seq = ?2")?
            .query_row(params![journal_id, clamp(seq)], |row| row.get(0))
            .optional()?)
    }

    /// The request rows of the records `from..to` (seqs), in file order.
    pub fn request_rows_between(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
    ) -> Result<Vec<(u64, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, row FROM request_rows WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(from), clamp(to)], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get::<_, String>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The token counts stored for the record at `seq`: variant and tokens.
    pub fn record_tokens_at(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Vec<(i64, u32)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT variant, tokens FROM record_tokens WHERE journal_id = ?1 AND seq = ?2",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(seq)], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, u32>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A journal's last request row, when it has one.
    pub fn last_request_row(&self, journal_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT row FROM request_rows WHERE journal_id = ?1 ORDER BY seq DESC LIMIT 1",
            )?
            .query_row(params![journal_id], |row| row.get(0))
            .optional()?)
    }

    /// The request rows of the records whose offsets lie in `from..=to` (an open end reads
    /// from the first or to the last), in file order, for a journal whose offsets increase.
    pub fn request_rows_in(
        &self,
        journal_id: i64,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Result<Vec<(u64, String)>, StoreError> {
        let from = match from {
            Some(from) => self.records_through_offset(journal_id, from.saturating_sub(1))?,
            None => 0,
        };
        let to = match to {
            Some(to) => self.records_through_offset(journal_id, to)?,
            None => u64::MAX,
        };
        self.request_rows_between(journal_id, from, to)
    }

    /// Up to `count` request rows before record `seq`, the nearest first.
    pub fn request_rows_before(
        &self,
        journal_id: i64,
        seq: u64,
        count: u64,
    ) -> Result<Vec<(u64, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, row FROM request_rows WHERE journal_id = ?1 AND seq < ?2
             ORDER BY seq DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(seq), clamp(count)], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get::<_, String>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A journal's request rows (see [`Analysis::requests`]), in file order.
    pub fn request_rows(&self, journal_id: i64) -> Result<Vec<(u64, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, row FROM request_rows WHERE journal_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([journal_id], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get::<_, String>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The marks of `kinds`, in file order, each with the bytes of the record it marks: what a
    /// timeline needs of a long journal without reading every mark and every record.
    pub fn marked_records(
        &self,
        journal_id: i64,
        kinds: &[&str],
    ) -> Result<Vec<(Mark, Vec<u8>)>, StoreError> {
        let mut marks = Vec::new();
        let mut stmt = self.conn.prepare_cached(
            "SELECT m.seq, m.kind, m.note, m.rowid FROM marks m
             WHERE m.journal_id = ?1 AND m.kind = ?2",
        )?;
        for kind in kinds {
            let rows = stmt.query_map(params![journal_id, kind], |row| {
                Ok((mark_from_row(row)?, row.get::<_, i64>(3)?))
            })?;
            for row in rows {
                marks.push(row?);
            }
        }
        marks.sort_by_key(|(mark, rowid)| (mark.seq, *rowid));
        // In seq order, so that each block of records is decompressed once for all the marks
        // in it.
        let seqs: Vec<u64> = marks.iter().map(|(mark, _)| mark.seq).collect();
        let records = record_blocks::records_at(
            &self.conn,
            &mut self.blocks.borrow_mut(),
            journal_id,
            &seqs,
        )?;
        // A mark names a stored record; one whose bytes are gone is left out.
        Ok(marks
            .into_iter()
            .zip(records)
            .filter_map(|((mark, _), record)| record.map(|(bytes, _)| (mark, bytes)))
            .collect())
    }

    /// The nearest event after `from` (before it, going back) with a mark of `kind`; `from`
    /// as [`Store::next_diagnostic`] takes it.
    pub fn next_mark(
        &self,
        journal_id: i64,
        kind: &str,
        from: Option<u64>,
        forward: bool,
    ) -> Result<Option<u64>, StoreError> {
        let sql = if forward {
            "SELECT min(seq) FROM marks WHERE journal_id = ?1 AND kind = ?2 AND seq > ?3"
        } else {
            "SELECT max(seq) FROM marks WHERE journal_id = ?1 AND kind = ?2 AND seq < ?3"
        };
        let seq: Option<i64> = self
            .conn
            .prepare_cached(sql)?
            .query_row(params![journal_id, kind, bound(from, forward)], |row| {
                row.get(0)
            })?;
        Ok(seq.map(|s| s as u64))
    }

    /// The offset of the first event with a mark of `kind` strictly between events `after` and
    /// `before`; `None` when none lies there.
    pub fn mark_offset_between(
        &self,
        journal_id: i64,
        kind: &str,
        after: u64,
        before: u64,
    ) -> Result<Option<i64>, StoreError> {
        let Some(seq) = self
            .next_mark(journal_id, kind, Some(after), true)?
            .filter(|&s| s < before)
        else {
            return Ok(None);
        };
        Ok(Some(
            self.offset_at_or_before_seq(journal_id, seq)?
                .unwrap_or(seq as i64 + 1),
        ))
    }

    /// The `n`th event (counting from 1) after `from` (before it, going back) with a mark of
    /// `kind`, or the farthest there is when fewer lie that way; `None` when none does.
    pub fn nth_mark(
        &self,
        journal_id: i64,
        kind: &str,
        from: u64,
        forward: bool,
        n: u64,
    ) -> Result<Option<u64>, StoreError> {
        let sql = if forward {
            "SELECT max(seq) FROM (SELECT seq FROM marks WHERE journal_id = ?1 AND kind = ?2
               AND seq > ?3 ORDER BY seq LIMIT ?4)"
        } else {
            "SELECT min(seq) FROM (SELECT seq FROM marks WHERE journal_id = ?1 AND kind = ?2
               AND seq < ?3 ORDER BY seq DESC LIMIT ?4)"
        };
        let seq: Option<i64> = self
            .conn
            .prepare_cached(sql)?
            .query_row(params![journal_id, kind, clamp(from), clamp(n)], |row| {
                row.get(0)
            })?;
        Ok(seq.map(|s| s as u64))
    }

    /// The first mark of each of `kinds` in each span of `bin_width` events from the start of
    /// `seqs`, in file order: a timeline's marks, thinned by SQLite instead of reading every mark.
    pub fn thinned_marks(
        &self,
        journal_id: i64,
        kinds: &[&str],
        seqs: RangeInclusive<u64>,
        bin_width: u64,
    ) -> Result<Vec<Mark>, StoreError> {
        let mut marks = Vec::new();
        let mut stmt = self.conn.prepare_cached(
            "SELECT min(seq), kind, note FROM marks
             WHERE journal_id = ?1 AND kind = ?2 AND seq BETWEEN ?4 AND ?5
             GROUP BY (seq - ?4) / ?3",
        )?;
        for kind in kinds {
            let rows = stmt.query_map(
                params![
                    journal_id,
                    kind,
                    bin_width.max(1) as i64,
                    *seqs.start() as i64,
                    *seqs.end() as i64
                ],
                mark_from_row,
            )?;
            for row in rows {
                marks.push(row?);
            }
        }
        marks.sort_by_key(|m| m.seq);
        Ok(marks)
    }

    /// The first event with a diagnostic in each span of `bin_width` events from the start of
    /// `seqs`, in file order.
    pub fn thinned_diagnostic_seqs(
        &self,
        journal_id: i64,
        seqs: RangeInclusive<u64>,
        bin_width: u64,
    ) -> Result<Vec<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT min(seq) FROM (
                SELECT seq FROM read_diagnostics WHERE journal_id = ?1 AND seq BETWEEN ?3 AND ?4
                UNION ALL
                SELECT seq FROM fold_diagnostics WHERE journal_id = ?1 AND seq BETWEEN ?3 AND ?4)
             GROUP BY (seq - ?3) / ?2 ORDER BY 1",
        )?;
        let rows = stmt.query_map(
            params![
                journal_id,
                bin_width.max(1) as i64,
                *seqs.start() as i64,
                *seqs.end() as i64
            ],
            |row| row.get::<_, i64>(0),
        )?;
        rows.map(|row| Ok(row? as u64)).collect()
    }
}

/// How far a journal's source has been read, for deciding later whether it grew, changed or
/// stayed the same.
#[derive(Debug, Clone, PartialEq)]
pub struct SourcePosition {
    pub size: u64,
    pub mtime_ns: Option<i64>,
    /// blake3 of the first `imported_bytes` bytes of the (decompressed) source.
    pub content_hash: String,
    pub imported_bytes: u64,
    pub imported_lines: u64,
    pub ends_mid_line: bool,
}

/// A seq as SQLite holds it: `u64::MAX` (no upper bound) as the largest integer.
/// A checkpoint state or shared part as its dialect encoded it.
fn checkpoint_part(stored: &[u8]) -> Result<Vec<u8>, StoreError> {
    compression::decompress(stored).map_err(|reason| StoreError::DamagedCheckpoint { reason })
}

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

fn mark_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Mark> {
    Ok(Mark {
        seq: row.get::<_, i64>(0)? as u64,
        kind: row.get(1)?,
        note: row.get(2)?,
    })
}

fn diagnostic_from_row(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Diagnostic> {
    Ok(Diagnostic {
        offset: row.get(first)?,
        line: row.get::<_, i64>(first + 1)? as u64,
        severity: Severity::parse(&row.get::<_, String>(first + 2)?).unwrap_or(Severity::Error),
        code: row.get(first + 3)?,
        message: row.get(first + 4)?,
    })
}

#[cfg(test)]
mod tests {
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
