//! Bookmarks: the user's notes on events, kept in the journal's own database (table
//! `bookmarks`, user data: never derived, never rebuilt). One bookmark per event; setting a
//! note again edits it. A bookmark belongs to one import generation of a journal.

use rusqlite::params;
use serde::Serialize;
use ts_rs::TS;

use crate::journal::{Journal, JournalError};
use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Bookmark {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    pub note: String,
    pub created_at: String,
}

impl Journal {
    /// Every bookmark of this journal, in file order.
    pub fn bookmarks(&self) -> Result<Vec<Bookmark>, JournalError> {
        let conn = self.store().connection();
        let mut stmt = conn
            .prepare(
                "SELECT seq, offset, note, created_at FROM bookmarks WHERE journal_id = ?1
                 ORDER BY seq",
            )
            .map_err(StoreError::from)?;
        let rows = stmt
            .query_map([self.row().id], |r| {
                Ok(Bookmark {
                    seq: r.get::<_, i64>(0)? as u64,
                    offset: r.get(1)?,
                    note: r.get(2)?,
                    created_at: r.get(3)?,
                })
            })
            .map_err(StoreError::from)?;
        Ok(rows.collect::<Result<_, _>>().map_err(StoreError::from)?)
    }

    /// Adds a bookmark at event `seq`, or replaces the note of the one already there.
    pub fn set_bookmark(&self, seq: u64, note: &str) -> Result<Bookmark, JournalError> {
        let event = self.event(seq)?;
        self.store()
            .connection()
            .execute(
                "INSERT INTO bookmarks (journal_id, seq, offset, note) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (journal_id, seq) DO UPDATE SET note = excluded.note",
                params![self.row().id, seq as i64, event.offset, note],
            )
            .map_err(StoreError::from)?;
        self.bookmarks()?
            .into_iter()
            .find(|b| b.seq == seq)
            .ok_or(JournalError::NoSuchEvent(seq))
    }

    /// Removes the bookmark at `seq`; says whether there was one.
    pub fn remove_bookmark(&self, seq: u64) -> Result<bool, JournalError> {
        let removed = self
            .store()
            .connection()
            .execute(
                "DELETE FROM bookmarks WHERE journal_id = ?1 AND seq = ?2",
                params![self.row().id, seq as i64],
            )
            .map_err(StoreError::from)?;
        Ok(removed > 0)
    }

    /// The next (or previous) bookmark from `from`.
    pub fn step_bookmark(
        &self,
        from: Option<u64>,
        forward: bool,
    ) -> Result<Option<Bookmark>, JournalError> {
        let marks = self.bookmarks()?;
        Ok(if forward {
            marks.into_iter().find(|b| from.is_none_or(|f| b.seq > f))
        } else {
            marks
                .into_iter()
                .rev()
                .find(|b| from.is_none_or(|f| b.seq < f))
        })
    }
}
