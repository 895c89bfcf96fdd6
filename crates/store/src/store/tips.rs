//! The tip: the view at a journal's end as the last import left it, kept so that opening even
//! a large journal folds nothing.

use super::*;

impl Store {
    /// Replaces the journal's tip (see [`Store::tip`]); `None` removes it.
    pub fn keep_tip(&self, journal_id: i64, tip: Option<&TipRow>) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM tips WHERE journal_id = ?1", [journal_id])?;
        if let Some(tip) = tip {
            self.conn.execute(
                "INSERT INTO tips (journal_id, events, through, view) VALUES (?1, ?2, ?3, ?4)",
                params![journal_id, tip.events as i64, tip.through, tip.view],
            )?;
        }
        Ok(())
    }

    /// The view after a journal's last event, as its last analysis left it. `None` when none
    /// was kept (a dialect that keeps none, a database from before migration 7).
    /// The tip when it describes `events` records and `at` lies at or past its last offset;
    /// the view, which can be large, is read only then.
    pub fn tip_reaching(
        &self,
        journal_id: i64,
        events: u64,
        at: i64,
    ) -> Result<Option<TipRow>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT events, through, view FROM tips
                 WHERE journal_id = ?1 AND events = ?2 AND through <= ?3",
            )?
            .query_row(params![journal_id, clamp(events), at], |row| {
                Ok(TipRow {
                    events: row.get::<_, i64>(0)? as u64,
                    through: row.get(1)?,
                    view: row.get(2)?,
                })
            })
            .optional()?)
    }

    pub fn tip(&self, journal_id: i64) -> Result<Option<TipRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT events, through, view FROM tips WHERE journal_id = ?1",
                [journal_id],
                |row| {
                    Ok(TipRow {
                        events: row.get::<_, i64>(0)? as u64,
                        through: row.get(1)?,
                        view: row.get(2)?,
                    })
                },
            )
            .optional()?)
    }
}
