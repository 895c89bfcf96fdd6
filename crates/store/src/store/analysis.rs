//! What a fold derived, written and discarded together: the diagnostics, marks, request rows and
//! checkpoints of an `Analysis`, and all of them from a record on when it is read again.

use super::*;

impl Store {
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

    pub(super) fn forget_checkpoints(&self, journal_id: i64) -> Result<(), StoreError> {
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
}
