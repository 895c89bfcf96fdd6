//! The `journals` table: one row per journal a database holds (its source, its dialect and how
//! far it has been read), and discarding one with everything kept of it.

use super::*;

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

impl Store {
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
}
