//! The marks read back (what the fold noted of a record: a request, a compaction, …): in a
//! range, the next or the nth from a record, and thinned for an overview.

use super::*;

fn mark_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Mark> {
    Ok(Mark {
        seq: row.get::<_, i64>(0)? as u64,
        kind: row.get(1)?,
        note: row.get(2)?,
    })
}

impl Store {
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
}
