//! The `links` table: a record that names another, as its dialect's fold resolved it (a reply
//! its parent, a line the response it belongs to). Views walk a conversation through it.

use rusqlite::{params, OptionalExtension};

use super::{clamp, Store, StoreError};

impl Store {
    /// What the record at `seq` names by `kind`: the first, where it names several.
    pub fn link_from(
        &self,
        journal_id: i64,
        kind: &str,
        seq: u64,
    ) -> Result<Option<u64>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT target FROM links WHERE journal_id = ?1 AND kind = ?2 AND seq = ?3
                 ORDER BY target LIMIT 1",
            )?
            .query_row(params![journal_id, kind, clamp(seq)], |row| {
                Ok(row.get::<_, i64>(0)? as u64)
            })
            .optional()?)
    }

    /// Everything the record at `seq` names by `kind`, in file order.
    pub fn links_from(
        &self,
        journal_id: i64,
        kind: &str,
        seq: u64,
    ) -> Result<Vec<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT target FROM links WHERE journal_id = ?1 AND kind = ?2 AND seq = ?3
             ORDER BY target",
        )?;
        let rows = stmt.query_map(params![journal_id, kind, clamp(seq)], |row| {
            Ok(row.get::<_, i64>(0)? as u64)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every record that names the record at `target` by `kind`, in file order.
    pub fn links_to(
        &self,
        journal_id: i64,
        kind: &str,
        target: u64,
    ) -> Result<Vec<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM links WHERE journal_id = ?1 AND kind = ?2 AND target = ?3 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![journal_id, kind, clamp(target)], |row| {
            Ok(row.get::<_, i64>(0)? as u64)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The latest record at or before `seq` that has a link of `kind`.
    pub fn last_linked_at_or_before(
        &self,
        journal_id: i64,
        kind: &str,
        seq: u64,
    ) -> Result<Option<u64>, StoreError> {
        let found: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT max(seq) FROM links WHERE journal_id = ?1 AND kind = ?2 AND seq <= ?3",
            )?
            .query_row(params![journal_id, kind, clamp(seq)], |row| row.get(0))?;
        Ok(found.map(|seq| seq as u64))
    }

    /// Every link a journal has, as `(kind, seq, target)`.
    pub fn links(&self, journal_id: i64) -> Result<Vec<(String, u64, u64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT kind, seq, target FROM links WHERE journal_id = ?1 ORDER BY kind, seq, target",
        )?;
        let rows = stmt.query_map([journal_id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)? as u64,
                row.get::<_, i64>(2)? as u64,
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every link of `kind` a journal has, as `(seq, target)` in file order.
    pub fn links_of_kind(
        &self,
        journal_id: i64,
        kind: &str,
    ) -> Result<Vec<(u64, u64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, target FROM links WHERE journal_id = ?1 AND kind = ?2 ORDER BY seq, target",
        )?;
        let rows = stmt.query_map(params![journal_id, kind], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get::<_, i64>(1)? as u64))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
