//! The request rows read back: what the fold counted of each request, by seq, in a range, the
//! latest, and a record's token count.

use super::*;

impl Store {
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
}
