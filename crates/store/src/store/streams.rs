//! The `streams` table: for a journal recorded from a remote stream, its URL, the stream's
//! id, the transport, the last offset stored and the tail's status; and what a tail asks of
//! the records it stored before: its generation, and the bytes held at an offset, by which a
//! redelivered record is known.

use rusqlite::{params, OptionalExtension};

use super::{JournalRow, Store, StoreError};

impl Store {
    /// The newest generation stored for `source_path` (a file's canonical path or a stream's
    /// URL), the one a follow or a tail goes on with.
    pub fn current_journal_for(&self, source_path: &str) -> Result<Option<JournalRow>, StoreError> {
        let id: Option<i64> = self
            .conn
            .query_row(
                "SELECT id FROM journals WHERE source_path = ?1 AND superseded_by IS NULL
                 ORDER BY id DESC LIMIT 1",
                [source_path],
                |row| row.get(0),
            )
            .optional()?;
        match id {
            Some(id) => self.journal(id),
            None => Ok(None),
        }
    }

    /// Starts the stream row of a new generation, live.
    pub fn create_stream(
        &self,
        journal_id: i64,
        url: &str,
        stream_id: Option<&str>,
        transport: &str,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO streams (journal_id, url, stream_id, transport, status)
             VALUES (?1, ?2, ?3, ?4, 'live')",
            params![journal_id, url, stream_id, transport],
        )?;
        Ok(())
    }

    /// The stream id a generation was recorded under, if the stream named one.
    pub fn stream_id(&self, journal_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT stream_id FROM streams WHERE journal_id = ?1",
                [journal_id],
                |row| row.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Records the tail's status (`live`, `stopped`, `failed: ...`).
    pub fn set_stream_status(&self, journal_id: i64, status: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE streams SET status = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
             WHERE journal_id = ?1",
            params![journal_id, status],
        )?;
        Ok(())
    }

    /// Records where a tail stands: the stream's id, the transport and the last offset stored.
    pub fn record_stream_position(
        &self,
        journal_id: i64,
        stream_id: Option<&str>,
        transport: &str,
        last_offset: Option<i64>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE streams SET stream_id = ?2, transport = ?3, last_offset = ?4,
                    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
             WHERE journal_id = ?1",
            params![journal_id, stream_id, transport, last_offset],
        )?;
        Ok(())
    }

    /// The original bytes of every record stored at `offset`, in order (a stream may have
    /// held one offset more than once).
    pub fn records_at_offset(
        &self,
        journal_id: i64,
        offset: i64,
    ) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset = ?2 ORDER BY seq",
        )?;
        let seqs = stmt.query_map(params![journal_id, offset], |row| row.get::<_, i64>(0))?;
        let seqs: Vec<i64> = seqs.collect::<Result<_, _>>()?;
        let mut records = Vec::with_capacity(seqs.len());
        for seq in seqs {
            if let Some((bytes, _)) = self.kept_record(journal_id, seq as u64)? {
                records.push(bytes);
            }
        }
        Ok(records)
    }
}
