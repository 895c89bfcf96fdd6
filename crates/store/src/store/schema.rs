//! The schema: its numbered, append-only migrations, and bringing a database up to the latest.

use super::*;

/// Schema changes, oldest first. Never edit a released entry: add a new one.
pub(super) const MIGRATIONS: &[&str] = &[
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

impl Store {
    pub(super) fn migrate(&self, path: &Path) -> Result<(), StoreError> {
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
}
