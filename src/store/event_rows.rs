//! The event list's reads: which seqs a filter of types and text keeps, and the listed
//! columns of a set of seqs. The filter's text test is `text_match`'s SQL function.

use rusqlite::types::Value as Sql;

use super::{text_match, Store, StoreError, UNTYPED};

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
        if let Some(text) = filter.text.filter(|t| !t.is_empty()) {
            let contains = text_match::FUNCTION;
            clause.push_str(&format!(
                " AND ({contains}(summary, ?) OR {contains}((SELECT raw FROM event_bytes \
                 WHERE id = (journal_id << 40) | seq), ?))"
            ));
            params.push(Sql::Text(text.to_string()));
            params.push(Sql::Text(text.to_string()));
        }
        params.push(Sql::Integer(super::clamp(from)));
        params.push(Sql::Integer(super::clamp(to)));
        let mut stmt = self.conn.prepare(&format!(
            "SELECT seq FROM events WHERE {clause} AND seq >= ? AND seq < ? ORDER BY seq"
        ))?;
        let found = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| {
            r.get::<_, i64>(0)
        })?;
        // Collected whole before it is returned: a scan that fails midway leaves no half list.
        let found: Vec<i64> = found.collect::<Result<_, _>>()?;
        Ok(found.into_iter().map(|seq| seq as u64).collect())
    }

    /// The listed columns of `seqs` (in order, each a stored event): a dense run of seqs is
    /// one range read, a sparse set a lookup each.
    pub fn listed_events(
        &self,
        journal_id: i64,
        seqs: &[u64],
    ) -> Result<Vec<ListedEvent>, StoreError> {
        let (Some(first), Some(last)) = (seqs.first(), seqs.last()) else {
            return Ok(Vec::new());
        };
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
        if last - first + 1 == seqs.len() as u64 {
            let mut stmt = self.conn.prepare_cached(
                "SELECT seq, offset, type, created_at, summary FROM events
                 WHERE journal_id = ?1 AND seq >= ?2 AND seq <= ?3 ORDER BY seq",
            )?;
            let found = stmt.query_map(
                rusqlite::params![journal_id, super::clamp(*first), super::clamp(*last)],
                row_of,
            )?;
            for row in found {
                rows.push(row?);
            }
        } else {
            let mut stmt = self.conn.prepare_cached(
                "SELECT seq, offset, type, created_at, summary FROM events
                 WHERE journal_id = ?1 AND seq = ?2",
            )?;
            for seq in seqs {
                rows.push(
                    stmt.query_row(rusqlite::params![journal_id, super::clamp(*seq)], row_of)?,
                );
            }
        }
        Ok(rows)
    }
}
