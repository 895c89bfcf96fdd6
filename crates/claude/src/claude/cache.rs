//! How two requests of a Claude Code transcript relate, for the cache report: the later one's
//! conversation extends the earlier one's when its parent chain passes through that response;
//! otherwise a compaction replaced the history or the conversation went back to an earlier line.

use super::fold::{PARENT, RESPONSE};
use journalscope_store::store::{Store, StoreError};
use journalscope_transcript::transcript::cache::{facts_for, report, CacheReport, Lineage, Range};
use journalscope_transcript::transcript::{RecordedRequest, RequestRow};

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
    if let Some(recorded) = recorded(store, journal_id, current)? {
        return recorded_lineage(store, journal_id, before, (current, &recorded));
    }
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

/// The record of the request at `seq`, where the transcript records it.
fn recorded(
    store: &Store,
    journal_id: i64,
    seq: u64,
) -> Result<Option<RecordedRequest>, StoreError> {
    Ok(store
        .request_row(journal_id, seq)?
        .and_then(|row| serde_json::from_str::<RequestRow>(&row).ok())
        .and_then(|row| row.recorded))
}

/// How a recorded request relates to the one before it: it extends it when it keeps all its
/// messages, or when that one's messages are the first of its own; a compaction between them
/// replaced the history; otherwise the conversation went back.
fn recorded_lineage(
    store: &Store,
    journal_id: i64,
    before: u64,
    (current, recorded): (u64, &RecordedRequest),
) -> Result<Lineage, StoreError> {
    if let Some(offset) = store.mark_offset_between(journal_id, "compaction", before, current)? {
        return Ok(Lineage::Compacted { offset });
    }
    let earlier = self::recorded(store, journal_id, before)?;
    if recorded.base == Some(before) {
        let kept_all = earlier
            .as_ref()
            .and_then(|e| e.messages)
            .is_some_and(|count| recorded.keep >= count);
        if kept_all {
            return Ok(Lineage::Extends);
        }
    }
    if let Some(earlier) = earlier {
        let lines = |r: &RecordedRequest| super::rebuild::message_lines(store, journal_id, r);
        if let (Ok(then), Ok(now)) = (lines(&earlier)?, lines(recorded)?) {
            if now.starts_with(&then) {
                return Ok(Lineage::Extends);
            }
        }
    }
    Ok(Lineage::Rewound { from: None })
}
