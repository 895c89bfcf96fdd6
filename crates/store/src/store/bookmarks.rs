//! The `bookmarks` table: the user's notes on events, the one table of user data. It is never
//! derived and never rebuilt, and only these statements write it.

use rusqlite::params;

use super::{clamp, Store, StoreError};

/// One bookmark as the table keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookmarkRow {
    pub seq: u64,
    pub offset: Option<i64>,
    pub note: String,
    pub created_at: String,
}

impl Store {
    /// A journal's bookmarks, in file order.
    pub fn bookmarks(&self, journal_id: i64) -> Result<Vec<BookmarkRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, offset, note, created_at FROM bookmarks WHERE journal_id = ?1
             ORDER BY seq",
        )?;
        let rows = stmt.query_map([journal_id], |r| {
            Ok(BookmarkRow {
                seq: r.get::<_, i64>(0)? as u64,
                offset: r.get(1)?,
                note: r.get(2)?,
                created_at: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Notes `note` on the event `seq` (at `offset`), replacing the note already there.
    pub fn set_bookmark(
        &self,
        journal_id: i64,
        seq: u64,
        offset: Option<i64>,
        note: &str,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO bookmarks (journal_id, seq, offset, note) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (journal_id, seq) DO UPDATE SET note = excluded.note",
            params![journal_id, clamp(seq), offset, note],
        )?;
        Ok(())
    }

    /// Removes the bookmark of the event `seq`; whether there was one.
    pub fn remove_bookmark(&self, journal_id: i64, seq: u64) -> Result<bool, StoreError> {
        let removed = self.conn.execute(
            "DELETE FROM bookmarks WHERE journal_id = ?1 AND seq = ?2",
            params![journal_id, clamp(seq)],
        )?;
        Ok(removed > 0)
    }
}
