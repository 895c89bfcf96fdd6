//! How two requests of a Claude Code transcript relate, for the cache report: the later one's
//! conversation extends the earlier one's when its parent chain passes through that response;
//! otherwise a compaction replaced the history or the conversation went back to an earlier line.

use super::fold::{PARENT, RESPONSE};
use crate::store::{Store, StoreError};
use crate::transcript::cache::{facts_for, report, CacheReport, Lineage, Range};

/// The cache report of the transcript's requests in `range`, each against the request before it
/// in its thread: it reads the request rows of the range and, back from its first, the rows up
/// to that request.
pub fn cache_report(
    store: &Store,
    journal_id: i64,
    range: Range,
) -> Result<CacheReport, StoreError> {
    let rows = store.request_rows_in(journal_id, range.0, range.1)?;
    report(
        facts_for(range, rows, |seq, count| {
            store.request_rows_before(journal_id, seq, count)
        })?,
        range,
        |before, current| lineage(store, journal_id, before.seq, current.seq),
    )
}

/// Walks `current`'s chain back from its parent to the first line older than `before`'s
/// response, so it visits only lines written between the two requests.
fn lineage(
    store: &Store,
    journal_id: i64,
    before: u64,
    current: u64,
) -> Result<Lineage, StoreError> {
    let mut at = store.link_from(journal_id, PARENT, current)?;
    while let Some(seq) = at.filter(|&s| s >= before) {
        if store.link_from(journal_id, RESPONSE, seq)? == Some(before) {
            return Ok(Lineage::Extends);
        }
        at = store.link_from(journal_id, PARENT, seq)?;
    }
    if let Some(offset) = store.mark_offset_between(journal_id, "compaction", before, current)? {
        return Ok(Lineage::Compacted { offset });
    }
    let from = match at {
        Some(seq) => store.offset_at_or_before_seq(journal_id, seq)?,
        None => None,
    };
    Ok(Lineage::Rewound { from })
}
