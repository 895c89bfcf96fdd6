//! The request and compaction panes read from the store: each side of them is the checkpoint
//! before an offset and a fold of at most a checkpoint's spacing of stored records, so they
//! answer at any offset of a journal of any size without loading it. A walk over the requests
//! of a range folds its stored records once, from the checkpoint before it.

use super::checkpoint::{event_at, projection_through, request_at, resume, seekable_records};
use super::diff::request_before_stored;
use super::event::{self, EventKind, IterateEvent};
use super::projection::Projection;
use super::render::{render, RequestSnapshot};
use super::view::{
    compaction_view_of, cutoff_of, request_view_of, CompactionSides, CompactionView, IterateError,
    RequestView,
};
use super::Transport;
use crate::store::{Store, StoreError};

/// What a pane read from the store gives: `None` when the checkpoints cannot answer (none were
/// kept for every record, or offsets do not increase), else the pane or why there is none.
pub type Stored<T> = Option<Result<T, IterateError>>;

/// The request pane at `request_offset`: its snapshot, what it newly published, and what
/// arrived after it that is still unpublished at the end of the journal.
pub fn request_view_at(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
    transport: Transport,
) -> Result<Stored<RequestView>, StoreError> {
    let snapshot = match request_at(store, journal_id, request_offset, transport)? {
        Some(Ok(snapshot)) => snapshot,
        Some(Err(error)) => return Ok(Some(Err(error))),
        None => return Ok(None),
    };
    let previous = request_before_stored(store, journal_id, request_offset)?;
    let earlier_through = match previous {
        Some(previous) => match projection_through(store, journal_id, previous)? {
            Some(projection) => projection.published_through,
            None => return Ok(None),
        },
        None => None,
    };
    let Some(projection) = projection_through(store, journal_id, request_offset)? else {
        return Ok(None);
    };
    let Some(latest) = resume(store, journal_id, store.event_count(journal_id)?)? else {
        return Ok(None);
    };
    Ok(Some(Ok(request_view_of(
        snapshot,
        previous,
        earlier_through,
        &projection,
        &latest.projection,
    ))))
}

/// The compaction pane at `offset`: the projection before the compaction's record and after
/// it, with the diagnostics the projection pane shows at each.
pub fn compaction_at(
    store: &Store,
    journal_id: i64,
    offset: i64,
) -> Result<Stored<CompactionView>, StoreError> {
    if seekable_records(store, journal_id, offset)?.is_none() {
        return Ok(None);
    }
    let Some(event) = event_at(store, journal_id, offset)? else {
        return Ok(Some(Err(IterateError::NotACompaction(offset))));
    };
    // Offsets increase, so what comes before the compaction is every record before its own.
    let Some(mut analyser) = resume(store, journal_id, event.seq)? else {
        return Ok(None);
    };
    let at_before = analyser.projection.at.unwrap_or(offset);
    let before = analyser.view_at(at_before);
    let record = store.events_between(journal_id, event.seq, event.seq + 1)?;
    for record in &record {
        analyser.feed_stored(record);
    }
    let after = analyser.view_at(offset);
    let cutoff_is_request = match cutoff_of(&event) {
        Some(cutoff) => event_at(store, journal_id, cutoff)?
            .is_some_and(|e| matches!(e.kind, EventKind::RequestRequested { .. })),
        None => false,
    };
    Ok(Some(compaction_view_of(
        &event,
        CompactionSides {
            before,
            after,
            projection_after: &analyser.projection,
        },
        |_| cutoff_is_request,
    )))
}

/// Records a walk reads from the store at a time.
const READ_SLICE: u64 = 4_096;

/// The stored records from the request before the first one in `from..=to` (either end
/// open) through `to`, each parsed and folded in turn onto the projection the checkpoint before
/// them starts: `visit` sees the projection after each event. So a fold over a range reads
/// only the records its range covers, holding one slice of them. `None` when the checkpoints
/// cannot answer (none were kept for every record, or offsets do not increase).
pub(super) fn fold_range(
    store: &Store,
    journal_id: i64,
    (from, to): (Option<i64>, Option<i64>),
    mut visit: impl FnMut(&Projection, &IterateEvent),
) -> Result<Option<()>, StoreError> {
    let Some(end) = seekable_records(store, journal_id, to.unwrap_or(i64::MAX))? else {
        return Ok(None);
    };
    let start = match from.and_then(|from| from.checked_sub(1)) {
        Some(before) => {
            let first = store.records_through_offset(journal_id, before)?;
            store
                .next_mark(journal_id, "request", Some(first), false)?
                .unwrap_or(first)
        }
        None => 0,
    };
    let Some(analyser) = resume(store, journal_id, start)? else {
        return Ok(None);
    };
    let mut projection = analyser.projection;
    for slice in store.slices(journal_id, start, end, READ_SLICE) {
        for record in &slice? {
            let Some(value) = record.json() else {
                continue;
            };
            let (Some(event), _) = event::parse_owned(record.seq, record.line, value) else {
                continue;
            };
            projection.apply(&event);
            visit(&projection, &event);
        }
    }
    Ok(Some(()))
}

/// Every request with an offset in `from..=to` (either end open), and the request before the
/// first of them, each rendered on every one of `transports`, in file order: `visit` gets the
/// request's offset and its snapshots. One [`fold_range`] serves them all. `None` when the
/// checkpoints cannot answer.
pub fn walk_requests(
    store: &Store,
    journal_id: i64,
    range: (Option<i64>, Option<i64>),
    transports: &[Transport],
    mut visit: impl FnMut(i64, Vec<RequestSnapshot>),
) -> Result<Option<()>, StoreError> {
    fold_range(store, journal_id, range, |projection, event| {
        if let EventKind::RequestRequested { model } = &event.kind {
            if super::view::check_sent(projection, event.offset).is_err() {
                return;
            }
            let snapshots = transports
                .iter()
                .map(|transport| {
                    render(
                        projection,
                        event.offset,
                        model.clone(),
                        event.created_at.as_deref(),
                        *transport,
                    )
                })
                .collect();
            visit(event.offset, snapshots);
        }
    })
}

/// The offsets of the requests `before` requests before the one at `request_offset` and
/// `after` requests after it (as far as there are), from the request marks: the range a
/// window of requests around one covers.
pub fn requests_around(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
    (before, after): (u64, u64),
) -> Result<(Option<i64>, Option<i64>), StoreError> {
    let Some(seq) = store.seq_at_offset(journal_id, request_offset)? else {
        return Ok((None, None));
    };
    let offset_of = |seq: Option<u64>| -> Result<Option<i64>, StoreError> {
        match seq {
            Some(seq) => store.offset_at_or_before_seq(journal_id, seq),
            None => Ok(None),
        }
    };
    let first = match before {
        0 => Some(request_offset),
        n => offset_of(store.nth_mark(journal_id, "request", seq, false, n)?)?
            .or(Some(request_offset)),
    };
    let last = match after {
        0 => Some(request_offset),
        n => offset_of(store.nth_mark(journal_id, "request", seq, true, n)?)?
            .or(Some(request_offset)),
    };
    Ok((first, last))
}
