//! The fold's checkpoints read back: the latest at or before a record, the request blocks it
//! seals, and how much they take.

use super::*;

/// A checkpoint state or shared part as its dialect encoded it.
fn checkpoint_part(stored: &[u8]) -> Result<Vec<u8>, StoreError> {
    compression::decompress(stored).map_err(|reason| StoreError::DamagedCheckpoint { reason })
}

impl Store {
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
}
