//! The diagnostics read back: all of them, in a range, counted, by code, the next from a record,
//! and thinned for an overview.

use super::*;

pub(super) fn diagnostic_from_row(
    row: &rusqlite::Row<'_>,
    first: usize,
) -> rusqlite::Result<Diagnostic> {
    Ok(Diagnostic {
        offset: row.get(first)?,
        line: row.get::<_, i64>(first + 1)? as u64,
        severity: Severity::parse(&row.get::<_, String>(first + 2)?).unwrap_or(Severity::Error),
        code: row.get(first + 3)?,
        message: row.get(first + 4)?,
    })
}

impl Store {
    /// Every diagnostic of a journal, read-time and fold-time, in file order.
    pub fn diagnostics(&self, journal_id: i64) -> Result<Vec<(u64, Diagnostic)>, StoreError> {
        self.diagnostics_between(journal_id, 0, u64::MAX)
    }

    /// The diagnostics of the events `from <= seq < to`, read-time before fold-time for each.
    pub fn diagnostics_between(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
    ) -> Result<Vec<(u64, Diagnostic)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, offset, line, severity, code, message, 0 AS stage, rowid
               FROM read_diagnostics WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
             UNION ALL
             SELECT seq, offset, line, severity, code, message, 1 AS stage, rowid
               FROM fold_diagnostics WHERE journal_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq, stage, rowid",
        )?;
        let rows = stmt.query_map(params![journal_id, clamp(from), clamp(to)], |row| {
            Ok((row.get::<_, i64>(0)? as u64, diagnostic_from_row(row, 1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many error and warning diagnostics a journal has, read-time and fold-time.
    pub fn diagnostic_counts(&self, journal_id: i64) -> Result<(u64, u64), StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT severity, sum(n) FROM (
                SELECT severity, count(*) AS n FROM read_diagnostics WHERE journal_id = ?1
                 GROUP BY severity
                UNION ALL
                SELECT severity, count(*) FROM fold_diagnostics WHERE journal_id = ?1
                 GROUP BY severity)
             GROUP BY severity",
        )?;
        let rows = stmt.query_map([journal_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))
        })?;
        let (mut errors, mut warnings) = (0, 0);
        for row in rows {
            let (severity, n) = row?;
            // Advice is listed with the diagnostics but counts as neither.
            match Severity::parse(&severity) {
                Some(Severity::Warning) => warnings += n,
                Some(Severity::Info) => {}
                _ => errors += n,
            }
        }
        Ok((errors, warnings))
    }

    /// How many diagnostics of each code a journal has, read-time and fold-time, by code.
    pub fn diagnostic_codes(&self, journal_id: i64) -> Result<Vec<(String, u64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT code, sum(n) FROM (
                SELECT code, count(*) AS n FROM read_diagnostics WHERE journal_id = ?1
                 GROUP BY code
                UNION ALL
                SELECT code, count(*) FROM fold_diagnostics WHERE journal_id = ?1
                 GROUP BY code)
             GROUP BY code ORDER BY code",
        )?;
        let rows = stmt.query_map([journal_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The nearest event after `from` (before it, going back) with a diagnostic; `from` is
    /// `None` outside the journal (before its start going forward, after its end going back).
    pub fn next_diagnostic(
        &self,
        journal_id: i64,
        from: Option<u64>,
        forward: bool,
    ) -> Result<Option<u64>, StoreError> {
        let pick = |table: &str| -> Result<Option<u64>, StoreError> {
            let sql = if forward {
                format!("SELECT min(seq) FROM {table} WHERE journal_id = ?1 AND seq > ?2")
            } else {
                format!("SELECT max(seq) FROM {table} WHERE journal_id = ?1 AND seq < ?2")
            };
            let seq: Option<i64> = self
                .conn
                .prepare_cached(&sql)?
                .query_row(params![journal_id, bound(from, forward)], |row| row.get(0))?;
            Ok(seq.map(|s| s as u64))
        };
        let (read, fold) = (pick("read_diagnostics")?, pick("fold_diagnostics")?);
        Ok(match (read, fold) {
            (Some(a), Some(b)) => Some(if forward { a.min(b) } else { a.max(b) }),
            (a, b) => a.or(b),
        })
    }

    /// The first event with a diagnostic in each span of `bin_width` events from the start of
    /// `seqs`, in file order.
    pub fn thinned_diagnostic_seqs(
        &self,
        journal_id: i64,
        seqs: RangeInclusive<u64>,
        bin_width: u64,
    ) -> Result<Vec<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT min(seq) FROM (
                SELECT seq FROM read_diagnostics WHERE journal_id = ?1 AND seq BETWEEN ?3 AND ?4
                UNION ALL
                SELECT seq FROM fold_diagnostics WHERE journal_id = ?1 AND seq BETWEEN ?3 AND ?4)
             GROUP BY (seq - ?3) / ?2 ORDER BY 1",
        )?;
        let rows = stmt.query_map(
            params![
                journal_id,
                bin_width.max(1) as i64,
                *seqs.start() as i64,
                *seqs.end() as i64
            ],
            |row| row.get::<_, i64>(0),
        )?;
        rows.map(|row| Ok(row? as u64)).collect()
    }
}
