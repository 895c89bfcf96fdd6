//! The request and compaction panes read from the store: each side of them is the checkpoint
//! before an offset and a fold of at most a checkpoint's spacing of stored records (and the
//! late records after them, where offsets went back), so they answer at any offset of a
//! journal of any size. A walk over the requests of a range folds its stored records once,
//! from the checkpoint before it.

use super::checkpoint::{
    event_at, projection_for_request, projection_through, render_request, request_at,
    request_event, resume, resume_through, sections_item_after,
};
use super::event::{self, EventKind, IterateEvent};
use super::projection::Projection;
use super::render::RequestSnapshot;
use super::view::{
    compaction_view_of, cutoff_of, request_view_of, CompactionSides, CompactionView, IterateError,
    ProjectionView, RequestSummary, RequestView, TriggerFacts,
};
use super::Transport;
use journalscope_store::store::{Store, StoreError};

/// The projection pane at `at`: the analysis's tip at or past the journal's last offset (when
/// it describes every record), the checkpoint before `at` and a short fold elsewhere, under
/// the contract the journal follows, which its views follow at every offset (the fold learns
/// it only as its events show it).
pub fn projection(store: &Store, journal_id: i64, at: i64) -> Result<ProjectionView, StoreError> {
    let records = store.event_count(journal_id)?;
    let tip = store
        .tip_reaching(journal_id, records, at)?
        .and_then(|row| super::view::Tip::from_row(&row))
        .and_then(|tip| tip.view_at(at));
    let view = match tip {
        Some(view) => view,
        None => super::checkpoint::view_at(store, journal_id, at)?,
    };
    use super::contract::ContractName;
    Ok(match super::contract::of_journal(store, journal_id)?.name {
        ContractName::AgentLoop => view.under_agent_loop(),
        ContractName::Sections => view.under_sections(),
        _ => view,
    })
}

/// The request pane at `request_offset`: its snapshot, what it newly published, and what
/// arrived after it that is still unpublished at the end of the journal.
pub fn request_view_at(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
    transport: Transport,
) -> Result<Result<RequestView, IterateError>, StoreError> {
    let event = match request_event(store, journal_id, request_offset)? {
        Ok(event) => event,
        Err(error) => return Ok(Err(error)),
    };
    let EventKind::RequestRequested { model } = &event.kind else {
        return Ok(Err(IterateError::NotARequest(request_offset)));
    };
    let projection = projection_for_request(store, journal_id, &event)?;
    let later = sections_item_after(store, journal_id, &projection, &event)?;
    let snapshot = match render_request(
        &projection,
        &event,
        model.clone(),
        transport,
        later.as_ref(),
    ) {
        Ok(snapshot) => snapshot,
        Err(error) => return Ok(Err(error)),
    };
    let previous = request_below(store, journal_id, &event)?;
    let earlier_through = match previous {
        Some(previous) => projection_through(store, journal_id, previous)?.published_through,
        None => None,
    };
    let latest = resume(store, journal_id, store.event_count(journal_id)?)?;
    Ok(Ok(request_view_of(
        snapshot,
        previous,
        earlier_through,
        &projection,
        &latest.projection,
    )))
}

/// The highest request offset below the request `event`'s: where offsets rise, the request
/// before it in the file.
fn request_below(
    store: &Store,
    journal_id: i64,
    event: &IterateEvent,
) -> Result<Option<i64>, StoreError> {
    if store.has_late_records(journal_id)? {
        return store.highest_marked_offset_below(journal_id, "request", event.offset);
    }
    match store.next_mark(journal_id, "request", Some(event.seq), false)? {
        Some(before) => store.offset_at_or_before_seq(journal_id, before),
        None => Ok(None),
    }
}

/// The compaction pane at `offset`: the projection before the compaction's record and after
/// it, with the diagnostics the projection pane shows at each.
pub fn compaction_at(
    store: &Store,
    journal_id: i64,
    offset: i64,
) -> Result<Result<CompactionView, IterateError>, StoreError> {
    let Some(event) = event_at(store, journal_id, offset)? else {
        return Ok(Err(IterateError::NotACompaction(offset)));
    };
    // Before the compaction: the records at or below its offset that precede it in the file.
    let mut fold = resume_through(store, journal_id, offset, Some(event.seq))?;
    let at_before = fold.projection.at.unwrap_or(offset);
    let before = fold.view_at(at_before);
    let record = store.events_between(journal_id, event.seq, event.seq + 1)?;
    for record in &record {
        fold.feed_stored(record);
    }
    let after = fold.view_at(offset);
    let request = match cutoff_of(&event) {
        Some(cutoff) => request_event(store, journal_id, cutoff)?.ok(),
        None => None,
    };
    let trigger = trigger_facts(store, journal_id, request.as_ref(), event.seq)?;
    Ok(compaction_view_of(
        &event,
        CompactionSides {
            before,
            after,
            projection_after: &fold.projection,
            trigger,
        },
        |_| request.is_some(),
    ))
}

/// What the store says of a compaction's trigger: the request's row (its count, as the fold
/// kept it, and the usage reported for it), and the trigger fraction configured before `seq`.
fn trigger_facts(
    store: &Store,
    journal_id: i64,
    request: Option<&IterateEvent>,
    seq: u64,
) -> Result<TriggerFacts, StoreError> {
    let Some(request) = request else {
        return Ok(TriggerFacts::default());
    };
    let row = store
        .request_row(journal_id, request.seq)?
        .and_then(|row| serde_json::from_str::<RequestSummary>(&row).ok());
    let fraction = store
        .last_event_of_types_before(
            journal_id,
            &[
                "events.iterate.com/agent/configured",
                "events.iterate.com/agents/configured",
            ],
            seq,
        )?
        .and_then(|record| record.json())
        .and_then(|value| TriggerFacts::fraction_of(&value));
    Ok(TriggerFacts {
        counted: row.as_ref().and_then(|row| row.tokens),
        usage: row.as_ref().and_then(|row| row.reported),
        model: row.and_then(|row| row.model),
        fraction,
    })
}

/// Records a walk reads from the store at a time.
const READ_SLICE: u64 = 4_096;

/// The stored records from the request before the first one in `from..=to` (either end
/// open) through `to`, each parsed and folded in turn onto the projection the checkpoint before
/// them starts: `visit` sees the projection after each event. So a fold over a range reads
/// only the records its range covers, holding one slice of them. Only where offsets rise
/// through the journal is the projection after an event the one its request saw; the callers
/// ask [`Store::has_late_records`] first.
pub(super) fn fold_range(
    store: &Store,
    journal_id: i64,
    (from, to): (Option<i64>, Option<i64>),
    mut visit: impl FnMut(&Projection, &IterateEvent),
) -> Result<(), StoreError> {
    let end = store
        .offset_cut(journal_id, to.unwrap_or(i64::MAX), None)?
        .prefix;
    let start = match from.and_then(|from| from.checked_sub(1)) {
        Some(before) => {
            let first = store.offset_cut(journal_id, before, None)?.prefix;
            store
                .next_mark(journal_id, "request", Some(first), false)?
                .unwrap_or(first)
        }
        None => 0,
    };
    let mut projection = resume(store, journal_id, start)?.projection;
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
    Ok(())
}

/// The requests of a journal whose offsets go back that a walk over `from..=to` visits, in
/// file order: each request with an offset in the range, and the request before each of them.
/// Such a journal's requests each fold from their own checkpoint (see [`request_at`]).
pub(super) fn requests_to_walk(
    store: &Store,
    journal_id: i64,
    (from, to): (Option<i64>, Option<i64>),
) -> Result<Vec<(i64, bool)>, StoreError> {
    let inside =
        |offset: i64| from.is_none_or(|from| offset >= from) && to.is_none_or(|to| offset <= to);
    let requests = store.marked_offsets(journal_id, "request")?;
    let mut walk = Vec::new();
    for (index, &(_, offset)) in requests.iter().enumerate() {
        let wanted = inside(offset);
        let before_wanted = requests
            .get(index + 1)
            .is_some_and(|&(_, next)| inside(next));
        if wanted || before_wanted {
            walk.push((offset, wanted));
        }
    }
    Ok(walk)
}

/// Every request with an offset in `from..=to` (either end open), and the request before the
/// first of them, each rendered on every one of `transports`, in file order: `visit` gets the
/// request's offset and its snapshots. One [`fold_range`] serves them all where offsets rise.
pub fn walk_requests(
    store: &Store,
    journal_id: i64,
    range: (Option<i64>, Option<i64>),
    transports: &[Transport],
    mut visit: impl FnMut(i64, Vec<RequestSnapshot>),
) -> Result<(), StoreError> {
    if store.has_late_records(journal_id)? {
        for (offset, _) in requests_to_walk(store, journal_id, range)? {
            let mut snapshots = Vec::with_capacity(transports.len());
            for transport in transports {
                match request_at(store, journal_id, offset, *transport)? {
                    Ok(snapshot) => snapshots.push(snapshot),
                    Err(_) => break,
                }
            }
            if snapshots.len() == transports.len() {
                visit(offset, snapshots);
            }
        }
        return Ok(());
    }
    // An agent-loop request is whole only with the sections item the loop writes after it, which
    // lies a few records ahead: it is read from the store as each request is met.
    let mut failed = None;
    fold_range(store, journal_id, range, |projection, event| {
        let EventKind::RequestRequested { model } = &event.kind else {
            return;
        };
        if failed.is_some() || super::view::check_sent(projection, event.offset).is_err() {
            return;
        }
        let later =
            match super::checkpoint::sections_item_after(store, journal_id, projection, event) {
                Ok(later) => later,
                Err(error) => {
                    failed = Some(error);
                    return;
                }
            };
        let snapshots: Vec<RequestSnapshot> = transports
            .iter()
            .filter_map(|transport| {
                super::checkpoint::render_request(
                    projection,
                    event,
                    model.clone(),
                    *transport,
                    later.as_ref(),
                )
                .ok()
            })
            .collect();
        if snapshots.len() == transports.len() {
            visit(event.offset, snapshots);
        }
    })?;
    failed.map_or(Ok(()), Err)
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
    let Ok(request) = request_event(store, journal_id, request_offset)? else {
        return Ok((None, None));
    };
    let seq = request.seq;
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

/// The usage the journal reports for each request with an offset in `range` (either end
/// open), by request offset: read from the request rows, which the fold fills in as the
/// reports come.
pub fn reported_usage(
    store: &Store,
    journal_id: i64,
    (from, to): (Option<i64>, Option<i64>),
) -> Result<std::collections::HashMap<i64, super::event::Usage>, StoreError> {
    Ok(request_summaries_in(store, journal_id, (from, to))?
        .into_iter()
        .filter_map(|row| Some((row.offset, row.reported?)))
        .collect())
}

/// The request rows the fold stored for requests at offsets `from..=to`, read back.
pub fn request_summaries_in(
    store: &Store,
    journal_id: i64,
    (from, to): (Option<i64>, Option<i64>),
) -> Result<Vec<RequestSummary>, StoreError> {
    Ok(store
        .request_rows_in(journal_id, from, to)?
        .into_iter()
        .filter_map(|(_, row)| serde_json::from_str::<RequestSummary>(&row).ok())
        .collect())
}
