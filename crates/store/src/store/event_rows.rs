//! The event list's reads: which seqs a filter of types and text keeps, and the listed
//! columns of a set of seqs. The filter's text test is `text_match`'s.

use rusqlite::types::Value as Sql;

use super::text_match::TextMatch;
use super::{record_blocks, Store, StoreError, UNTYPED};

/// How many events a filter tests at a time.
const SCAN_SLICE: u64 = 4_096;

/// What the event list keeps: events of these types (none: every type) whose summary or
/// original bytes hold `text` (none: any).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter<'a> {
    pub types: &'a [String],
    pub text: Option<&'a str>,
}

/// The columns a row of the event list shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedEvent {
    pub seq: u64,
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub created_at: Option<String>,
    pub summary: String,
}

impl Store {
    /// The seqs in `from..to` that `filter` keeps, in order, found by one scan.
    pub fn filtered_seqs(
        &self,
        journal_id: i64,
        filter: &EventFilter<'_>,
        from: u64,
        to: u64,
    ) -> Result<Vec<u64>, StoreError> {
        let mut clause = String::from("journal_id = ?");
        let mut params = vec![Sql::Integer(journal_id)];
        if !filter.types.is_empty() {
            clause.push_str(&format!(" AND coalesce(type, '{UNTYPED}') IN ("));
            clause.push_str(&vec!["?"; filter.types.len()].join(", "));
            clause.push(')');
            params.extend(filter.types.iter().map(|t| Sql::Text(t.clone())));
        }
        let text = filter.text.filter(|t| !t.is_empty()).map(TextMatch::new);
        let mut stmt = self.conn.prepare(&format!(
            "SELECT seq, summary FROM events WHERE {clause} AND seq >= ? AND seq < ? ORDER BY seq"
        ))?;
        let to = to.min(self.event_count(journal_id)?);
        let mut found = Vec::new();
        // Slice by slice, so that the text test walks the slice's records beside its rows with
        // one slice of summaries in memory.
        let mut start = from;
        while start < to {
            let end = start.saturating_add(SCAN_SLICE).min(to);
            let mut slice_params = params.clone();
            slice_params.push(Sql::Integer(super::clamp(start)));
            slice_params.push(Sql::Integer(super::clamp(end)));
            let rows = stmt.query_map(rusqlite::params_from_iter(slice_params.iter()), |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
            })?;
            let kept: Vec<(u64, String)> = rows.collect::<Result<_, _>>()?;
            match &text {
                None => found.extend(kept.iter().map(|(seq, _)| *seq)),
                Some(text) => {
                    let (Some(first), Some(last)) = (kept.first(), kept.last()) else {
                        start = end;
                        continue;
                    };
                    let mut next = 0;
                    let mut test = |seq: u64, raw: &[u8], summary: Option<&str>| {
                        while kept.get(next).is_some_and(|(s, _)| *s < seq) {
                            next += 1;
                        }
                        if let Some((s, listed)) = kept.get(next).filter(|(s, _)| *s == seq) {
                            let summary = summary.unwrap_or(listed);
                            if text.is_in(summary.as_bytes()) || text.is_in(raw) {
                                found.push(*s);
                            }
                        }
                        true
                    };
                    record_blocks::visit_records(
                        &self.conn,
                        journal_id,
                        first.0,
                        last.0 + 1,
                        &mut test,
                    )?;
                }
            }
            start = end;
        }
        Ok(found)
    }

    /// The listed columns of `seqs` (ascending; a seq with no stored event is left out).
    pub fn listed_events(
        &self,
        journal_id: i64,
        seqs: &[u64],
    ) -> Result<Vec<ListedEvent>, StoreError> {
        let row_of = |r: &rusqlite::Row<'_>| -> rusqlite::Result<ListedEvent> {
            Ok(ListedEvent {
                seq: r.get::<_, i64>(0)? as u64,
                offset: r.get(1)?,
                kind: r.get(2)?,
                created_at: r.get(3)?,
                summary: r.get(4)?,
            })
        };
        let mut rows = Vec::with_capacity(seqs.len());
        let mut range = self.conn.prepare_cached(
            "SELECT seq, offset, type, created_at, summary FROM events
             WHERE journal_id = ?1 AND seq >= ?2 AND seq <= ?3 ORDER BY seq",
        )?;
        // A block's worth at a time: one range read of the rows and one visit of the block for
        // the summaries kept with the records, however many of its records are asked. A lookup
        // each read the block again for every record (a search listing 330,000 hits spent
        // six seconds there).
        for group in seqs
            .chunk_by(|a, b| a / record_blocks::BLOCK_RECORDS == b / record_blocks::BLOCK_RECORDS)
        {
            let (Some(&low), Some(&high)) = (group.first(), group.last()) else {
                continue;
            };
            let from = rows.len();
            let mut wanted = group.iter().peekable();
            let found = range.query_map(
                rusqlite::params![journal_id, super::clamp(low), super::clamp(high)],
                row_of,
            )?;
            for row in found {
                let row = row?;
                while wanted.next_if(|&&seq| seq < row.seq).is_some() {}
                if wanted.next_if(|&&seq| seq == row.seq).is_some() {
                    rows.push(row);
                }
            }
            let mut next = from;
            record_blocks::visit_records(
                &self.conn,
                journal_id,
                low,
                high + 1,
                &mut |seq, _, summary| {
                    while rows.get(next).is_some_and(|r| r.seq < seq) {
                        next += 1;
                    }
                    if let (Some(row), Some(summary)) =
                        (rows.get_mut(next).filter(|r| r.seq == seq), summary)
                    {
                        row.summary = summary.to_string();
                    }
                    true
                },
            )?;
        }
        Ok(rows)
    }
}
