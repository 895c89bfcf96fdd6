//! How two requests of a Claude Code transcript relate, for the cache report: the later one's
//! conversation extends the earlier one's when its parent chain passes through that response;
//! otherwise a compaction replaced the history or the conversation went back to an earlier line.

use super::fold::{PARENT, RESPONSE};
use crate::store::{Store, StoreError};
use crate::transcript::cache::{report, stored_facts, CacheReport, Lineage, Range};

/// The cache report of every request of the transcript.
pub fn cache_report(
    store: &Store,
    journal_id: i64,
    range: Range,
) -> Result<CacheReport, StoreError> {
    report(
        stored_facts(store.request_rows(journal_id)?, |seq| {
            Ok(store.event(journal_id, seq)?.and_then(|e| e.created_at))
        }),
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
