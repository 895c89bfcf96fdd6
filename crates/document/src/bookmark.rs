//! Bookmarks: the user's notes on events, kept in the journal's own database (table
//! `bookmarks`, user data: never derived, never rebuilt). One bookmark per event; setting a
//! note again edits it. A bookmark belongs to one import generation of a journal.

use serde::Serialize;
use ts_rs::TS;

use crate::journal::{Journal, JournalError};

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
        Ok(self
            .store()
            .bookmarks(self.row().id)?
            .into_iter()
            .map(|row| Bookmark {
                seq: row.seq,
                offset: row.offset,
                note: row.note,
                created_at: row.created_at,
            })
            .collect())
    }

    /// Adds a bookmark at event `seq`, or replaces the note of the one already there.
    pub fn set_bookmark(&self, seq: u64, note: &str) -> Result<Bookmark, JournalError> {
        let event = self.event(seq)?;
        self.store()
            .set_bookmark(self.row().id, seq, event.offset, note)?;
        self.bookmarks()?
            .into_iter()
            .find(|b| b.seq == seq)
            .ok_or(JournalError::NoSuchEvent(seq))
    }

    /// Removes the bookmark at `seq`; says whether there was one.
    pub fn remove_bookmark(&self, seq: u64) -> Result<bool, JournalError> {
        Ok(self.store().remove_bookmark(self.row().id, seq)?)
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
