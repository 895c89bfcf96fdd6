//! Checkpoints of the iterate fold as the store keeps them: the fold's state every few
//! hundred records, encoded by reference so that all of them together stay small beside the
//! journal. An item is named by the record it came from (its content is that record's, and a
//! record never changes), request offsets go in sealed blocks that every later checkpoint
//! shares, and only the latest diagnostics are listed, with their counts. A view at any offset
//! is the nearest checkpoint plus a fold of the stored records after it.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::agent_loop::fold::ContextItem;
use super::event::{self, EventKind, Rewrite};
use super::fold::{Checkpointing, IterateFold, LeftOut, SinceRequest};
use super::projection::{AgentFold, Item, LoopState, Projection, RequestOffsets, Rules};
use super::view::{DiagnosticTail, ProjectionView};
use journalscope_shapes::diagnostic::{Diagnostic, Severity};
use journalscope_store::store::{Store, StoreError};

/// The encoding's version: a checkpoint of another one is never read, and the views fold
/// from the records instead.
pub const FORMAT: u32 = 10;

/// Records between two checkpoints at least. A view folds at most this many records after
/// its checkpoint; measured with `journalscope bench`, a few hundred keep a seek within a few
/// milliseconds of reading.
const SPACING: u64 = 512;

/// Records from one checkpoint to the next: more when the projection is large, so that a
/// checkpoint, which lists every item, stays a small fraction of the records it follows.
pub(super) fn spacing(projection: &Projection) -> u64 {
    let agent_items = projection.agent.as_ref().map_or(0, |a| a.state.items.len());
    let items = projection.system.len() + projection.history.len() + agent_items;
    SPACING.max(2 * items as u64)
}

/// Records a view reads from the store at a time.
const READ_SLICE: u64 = 4_096;

#[derive(Serialize, Deserialize)]
struct State {
    format: u32,
    records: u64,
    through: Option<i64>,
    read: Tail,
    fold: Tail,
    at: Option<i64>,
    published_through: Option<i64>,
    has_system_prompt: bool,
    waiting: Vec<i64>,
    /// Sealed request blocks, each stored once as a checkpoint block of the same index.
    sealed: u64,
    open: Vec<i64>,
    unordered: Vec<i64>,
    system: Vec<ItemRef>,
    history: Vec<ItemRef>,
    checkpointing: Checkpointing,
    since_request: SinceRequest,
    contract: super::contract::ContractSeen,
    #[serde(default)]
    rules: Rules,
    #[serde(default)]
    loop_state: LoopState,
    #[serde(default)]
    counted: super::fold::CountedRequests,
    /// The agent loop's fold, its items named by their records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<Box<AgentRef>>,
    #[serde(default)]
    agent_declined: bool,
}

/// Diagnostics as a checkpoint keeps them: all counted, the latest listed.
#[derive(Serialize, Deserialize)]
struct Tail {
    count: u64,
    errors: u64,
    latest: Vec<Diagnostic>,
}

/// An item by the record it came from, with what the fold changed on it.
#[derive(Serialize, Deserialize)]
struct ItemRef {
    seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    updates: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    coalesced: Vec<i64>,
    /// A compaction's summary, which names no slot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    summary: bool,
    /// The item's message in o200k_base tokens: counted once, here, and read back after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tokens: Option<u32>,
}

impl ItemRef {
    fn of(item: &Item, rules: Rules) -> ItemRef {
        ItemRef {
            seq: item.seq,
            updates: item.updates_offset,
            coalesced: item.coalesced.clone(),
            summary: item.compaction.is_some() && item.key.is_none(),
            tokens: Some(item.tokens(rules)),
        }
    }
}

/// The agent loop's fold as a checkpoint keeps it: the fold without its items, and its items
/// and those of the state its waiting request opened on, each named by its record. A long
/// journal's checkpoints then grow with the loop's items, not with their text.
#[derive(Serialize, Deserialize)]
struct AgentRef {
    fold: AgentFold,
    items: Vec<LoopItemRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    waiting_items: Option<Vec<LoopItemRef>>,
}

/// A loop item by the record that makes it, or whole when the fold made it of more than one
/// record (the head a compaction writes of the merged sections) or merged what it carries
/// into the state (an item carrying sections, kept whole so that none is ever read wrong).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum LoopItemRef {
    Added(u64),
    Summary(u64),
    Stamp(u64),
    Whole(Box<ContextItem>),
}

impl LoopItemRef {
    fn of(item: &ContextItem) -> LoopItemRef {
        if item.sections.is_some() {
            LoopItemRef::Whole(Box::new(item.clone()))
        } else if item.stamp {
            LoopItemRef::Stamp(item.seq)
        } else if item.role == super::event::Role::Developer && item.compaction.is_some() {
            LoopItemRef::Summary(item.seq)
        } else {
            LoopItemRef::Added(item.seq)
        }
    }
}

impl AgentRef {
    /// The fold named by reference; its items are taken out while its other fields are
    /// copied, and put back.
    fn of(agent: &mut AgentFold) -> AgentRef {
        let items = std::mem::take(&mut agent.state.items);
        let waiting = agent
            .check
            .waiting
            .as_mut()
            .and_then(|waiting| waiting.state.as_mut())
            .map(|state| std::mem::take(&mut state.items));
        let fold = agent.clone();
        let refs = AgentRef {
            fold,
            items: items.iter().map(|item| LoopItemRef::of(item)).collect(),
            waiting_items: waiting
                .as_ref()
                .map(|items| items.iter().map(|item| LoopItemRef::of(item)).collect()),
        };
        agent.state.items = items;
        let opened = agent
            .check
            .waiting
            .as_mut()
            .and_then(|waiting| waiting.state.as_mut());
        if let (Some(opened), Some(items)) = (opened, waiting) {
            opened.items = items;
        }
        refs
    }

    /// The fold again, its items built from their records; `None` when one no longer
    /// builds the item it named.
    fn fold(self, store: &Store, journal_id: i64) -> Result<Option<AgentFold>, StoreError> {
        let mut fold = self.fold;
        let Some(items) = loop_items(store, journal_id, self.items)? else {
            return Ok(None);
        };
        fold.state.items = items;
        if let Some(refs) = self.waiting_items {
            let Some(items) = loop_items(store, journal_id, refs)? else {
                return Ok(None);
            };
            match fold
                .check
                .waiting
                .as_mut()
                .and_then(|waiting| waiting.state.as_mut())
            {
                Some(opened) => opened.items = items,
                None => return Ok(None),
            }
        }
        Ok(Some(fold))
    }
}

/// Loop items built again from the records they name, as the loop's fold built them.
fn loop_items(
    store: &Store,
    journal_id: i64,
    refs: Vec<LoopItemRef>,
) -> Result<Option<Vec<Arc<ContextItem>>>, StoreError> {
    let mut items = Vec::with_capacity(refs.len());
    for r in refs {
        let seq = match &r {
            LoopItemRef::Whole(item) => {
                items.push(Arc::new(*item.clone()));
                continue;
            }
            LoopItemRef::Added(seq) | LoopItemRef::Summary(seq) | LoopItemRef::Stamp(seq) => *seq,
        };
        // A loop item keeps no line, so the record's is not looked up.
        let Some(raw) = store.record_raw(journal_id, seq)? else {
            return Ok(None);
        };
        let Some(value) = journalscope_shapes::record_json::value(&raw) else {
            return Ok(None);
        };
        let (Some(event), _) = event::parse_owned(seq, 0, value) else {
            return Ok(None);
        };
        let item = match (&event.kind, &r, event.agent.as_deref()) {
            (EventKind::ContextAdded(context), LoopItemRef::Added(_), Some(envelope)) => {
                ContextItem::added(&event, context, envelope)
            }
            (EventKind::ContextAdded(context), LoopItemRef::Summary(_), _) => {
                match &context.compaction {
                    Some(compaction) => ContextItem::summary(&event, context, compaction),
                    None => return Ok(None),
                }
            }
            (EventKind::RequestRequested { .. }, LoopItemRef::Stamp(_), _) => {
                ContextItem::stamp(&event)
            }
            _ => return Ok(None),
        };
        items.push(Arc::new(item));
    }
    Ok(Some(items))
}

fn errors_in<'a>(diagnostics: impl IntoIterator<Item = &'a Diagnostic>) -> u64 {
    diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .count() as u64
}

/// Encodes the fold's state after the records it has folded, and the request blocks
/// sealed since its last checkpoint (index and bytes), which the store keeps once.
pub(super) fn encode(fold: &mut IterateFold) -> (Vec<u8>, Vec<(u64, Vec<u8>)>) {
    let agent = fold
        .projection
        .agent
        .as_deref_mut()
        .map(|agent| Box::new(AgentRef::of(agent)));
    let projection = &fold.projection;
    let sealed = projection.requests.sealed_blocks();
    let blocks = sealed
        .iter()
        .enumerate()
        .skip(fold.checkpointing.blocks as usize)
        .map(|(index, block)| {
            let bytes = block
                .iter()
                .flat_map(|offset| offset.to_le_bytes())
                .collect();
            (index as u64, bytes)
        })
        .collect();
    fold.checkpointing.blocks = sealed.len() as u64;
    let found = &projection.diagnostics;
    let keep = found.len().saturating_sub(super::view::VIEW_DIAGNOSTICS);
    let state = State {
        format: FORMAT,
        records: fold.records,
        through: fold.through,
        read: Tail {
            count: fold.read_tail.count,
            errors: fold.read_tail.errors,
            latest: fold.read_tail.latest.iter().cloned().collect(),
        },
        fold: Tail {
            count: fold.fold_left_out.count + found.len() as u64,
            errors: fold.fold_left_out.errors + errors_in(found),
            latest: found[keep..].to_vec(),
        },
        at: projection.at,
        published_through: projection.published_through,
        has_system_prompt: projection.has_system_prompt,
        waiting: projection.waiting_for_system_prompt.clone(),
        sealed: sealed.len() as u64,
        open: projection.requests.open_block().to_vec(),
        unordered: projection.requests.unordered().iter().copied().collect(),
        system: projection
            .system
            .iter()
            .map(|item| ItemRef::of(item, projection.rules))
            .collect(),
        history: projection
            .history
            .iter()
            .map(|item| ItemRef::of(item, projection.rules))
            .collect(),
        checkpointing: fold.checkpointing.clone(),
        since_request: fold.since_request,
        contract: fold.contract.clone(),
        rules: projection.rules,
        loop_state: projection.loop_state,
        counted: fold.counted.clone(),
        agent,
        agent_declined: projection.agent_declined,
    };
    // Serialising plain data into a vector does not fail.
    let bytes = serde_json::to_vec(&state).unwrap_or_default();
    (bytes, blocks)
}

/// The fold a checkpoint describes, its items read back from their records; `None` when
/// the checkpoint does not read (another encoding, a record gone), and the caller folds from
/// the records instead.
fn decode(store: &Store, journal_id: i64, bytes: &[u8]) -> Result<Option<IterateFold>, StoreError> {
    let Ok(state) = serde_json::from_slice::<State>(bytes) else {
        return Ok(None);
    };
    if state.format != FORMAT {
        return Ok(None);
    }
    let blocks = store.checkpoint_blocks(journal_id, state.sealed)?;
    if blocks.len() as u64 != state.sealed {
        return Ok(None);
    }
    let sealed = blocks
        .iter()
        .map(|bytes| {
            Arc::new(
                bytes
                    .chunks_exact(8)
                    .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                    .collect(),
            )
        })
        .collect();
    let requests = RequestOffsets::from_parts(
        sealed,
        state.open,
        state.unordered.into_iter().collect::<BTreeSet<_>>(),
    );
    let (Some(system), Some(history)) = (
        items(store, journal_id, &state.system, state.rules)?,
        items(store, journal_id, &state.history, state.rules)?,
    ) else {
        return Ok(None);
    };
    let fold_listed = state.fold.latest.len() as u64;
    let fold_errors_listed = errors_in(&state.fold.latest);
    let mut projection = Projection::restore(
        state.rules,
        state.loop_state,
        system,
        history,
        state.published_through,
        state.at,
        state.has_system_prompt,
        state.waiting,
        requests,
        state.fold.latest,
    );
    projection.agent = match state.agent {
        Some(agent) => match agent.fold(store, journal_id)? {
            Some(fold) => Some(Box::new(fold)),
            None => return Ok(None),
        },
        None => None,
    };
    projection.agent_declined = state.agent_declined;
    Ok(Some(IterateFold {
        projection,
        read_tail: DiagnosticTail {
            count: state.read.count,
            errors: state.read.errors,
            latest: state.read.latest.into(),
        },
        through: state.through,
        records: state.records,
        fold_left_out: LeftOut {
            count: state.fold.count.saturating_sub(fold_listed),
            errors: state.fold.errors.saturating_sub(fold_errors_listed),
        },
        checkpointing: state.checkpointing,
        since_request: state.since_request,
        contract: state.contract,
        counted: state.counted,
        ..IterateFold::default()
    }))
}

/// Items rebuilt from the records they name, as the fold under `rules` made them: a context
/// item from its `context-added`, a request stamp from its request, a rewritten section from
/// its `context-rewritten`. `None` when one no longer reads as an item.
fn items(
    store: &Store,
    journal_id: i64,
    refs: &[ItemRef],
    rules: Rules,
) -> Result<Option<Vec<Item>>, StoreError> {
    let mut items = Vec::with_capacity(refs.len());
    for r in refs {
        let Some((line, raw)) = store.record_bytes(journal_id, r.seq)? else {
            return Ok(None);
        };
        let Some(value) = journalscope_shapes::record_json::value(&raw) else {
            return Ok(None);
        };
        let (Some(event), _) = event::parse_owned(r.seq, line, value) else {
            return Ok(None);
        };
        let mut item = match (&event.kind, rules) {
            (EventKind::ContextAdded(context), Rules::Sections) => {
                Item::from_sections_context(&event, context)
            }
            (EventKind::ContextAdded(context), _) => Item::from_context(&event, context),
            (EventKind::RequestRequested { .. }, Rules::Sections) => Item::stamp(&event),
            (EventKind::ContextRewritten(Rewrite::Replace { key, content }), Rules::Sections) => {
                Item::from_rewrite(&event, key, content)
            }
            _ => return Ok(None),
        };
        item.updates_offset = r.updates;
        item.coalesced = r.coalesced.clone();
        if r.summary {
            item.key = None;
        }
        if let Some(tokens) = r.tokens {
            item.restore_tokens(rules, tokens);
        }
        items.push(item);
    }
    Ok(Some(items))
}

/// The fold after the first `records` records: the latest checkpoint at or before them,
/// then a fold of the stored records after it. A checkpoint that does not read (another
/// encoding, a record gone) is passed over, and the fold starts further back.
pub fn resume(store: &Store, journal_id: i64, records: u64) -> Result<IterateFold, StoreError> {
    let mut fold = IterateFold::default();
    let mut before = records;
    while let Some((seq, bytes)) = store.checkpoint_before(journal_id, before)? {
        if let Some(decoded) = decode(store, journal_id, &bytes)? {
            fold = decoded;
            break;
        }
        match seq.checked_sub(1) {
            Some(earlier) => before = earlier,
            None => break,
        }
    }
    if written_by_this_fold(store, journal_id)? {
        fold.stored_totals = stored_totals(store, journal_id, fold.records, records)?;
    }
    fold.replay = true;
    for slice in store.slices(journal_id, fold.records, records, READ_SLICE) {
        for record in &slice? {
            fold.feed_stored(record);
        }
    }
    Ok(fold)
}

/// Whether the journal's derived tables were written by this encoding's fold: only then are
/// its stored counts what a fold would count again (a database an older version wrote is
/// folded once more, and must not take its counts).
fn written_by_this_fold(store: &Store, journal_id: i64) -> Result<bool, StoreError> {
    Ok(store
        .checkpoint_cover(journal_id)?
        .is_some_and(|cover| cover.format == FORMAT))
}

/// The request totals stored for the records `from..to`, by the request's seq.
fn stored_totals(
    store: &Store,
    journal_id: i64,
    from: u64,
    to: u64,
) -> Result<std::collections::HashMap<u64, (u64, bool)>, StoreError> {
    Ok(store
        .request_rows_between(journal_id, from, to)?
        .into_iter()
        .filter_map(|(seq, row)| {
            let row = serde_json::from_str::<super::view::RequestSummary>(&row).ok()?;
            Some((seq, (row.tokens?, row.tokens_exact)))
        })
        .collect())
}

/// The fold after the records a fold through offset `at` reads (those at or before it,
/// in file order), and only those before seq `before` when it is given: the checkpoint before
/// the cut's prefix of the file, a fold of the rest of the prefix, then the late records
/// after it (see [`Store::offset_cut`]).
pub(super) fn resume_through(
    store: &Store,
    journal_id: i64,
    at: i64,
    before: Option<u64>,
) -> Result<IterateFold, StoreError> {
    let cut = store.offset_cut(journal_id, at, before)?;
    let mut fold = resume(store, journal_id, cut.prefix)?;
    for slice in store.records_at(journal_id, &cut.late, READ_SLICE as usize) {
        for record in &slice? {
            fold.feed_stored(record);
        }
    }
    Ok(fold)
}

/// The projection view at `at` from the store: the checkpoint before it and at most a
/// checkpoint's spacing of records (and the late records after them, where offsets went
/// back).
pub fn view_at(store: &Store, journal_id: i64, at: i64) -> Result<ProjectionView, StoreError> {
    let fold = resume_through(store, journal_id, at, None)?;
    restore_stored_counts(store, journal_id, &fold.projection)?;
    Ok(fold.view_at(at))
}

/// Gives items the counts the import stored for their records: the seed and sections items
/// folded again after the checkpoint (the checkpoint's own have theirs), and every agent-loop
/// item with text (its checkpoint names them by record). A view in a process of its own would
/// otherwise load an encoding (tens of milliseconds, tens of megabytes) to count them again.
/// A count is taken only under the same variant: the same rules and header.
fn restore_stored_counts(
    store: &Store,
    journal_id: i64,
    projection: &Projection,
) -> Result<(), StoreError> {
    if !written_by_this_fold(store, journal_id)? {
        return Ok(());
    }
    if let Some(agent) = projection.agent.as_deref() {
        let untaken = agent
            .state
            .items
            .iter()
            .filter(|item| !item.content.is_empty() && item.tokens.get().is_none());
        for item in untaken {
            let stored = store.record_tokens_at(journal_id, item.seq)?;
            let variant = super::agent_loop::view::TOKEN_VARIANT;
            if let Some((_, tokens)) = stored.into_iter().find(|(v, _)| *v == variant) {
                item.tokens.restore(tokens);
            }
        }
    }
    let rules = projection.rules;
    for (_, item) in projection.items() {
        let Some(variant) = item.token_variant(rules).filter(|_| !item.has_tokens()) else {
            continue;
        };
        let stored = store.record_tokens_at(journal_id, item.seq)?;
        if let Some((_, tokens)) = stored.into_iter().find(|(v, _)| *v == variant) {
            item.restore_tokens(rules, tokens);
        }
    }
    Ok(())
}

/// The request event at `request_offset` (the first in the file, should several records
/// share the offset), or why there is none.
pub(super) fn request_event(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
) -> Result<Result<super::event::IterateEvent, super::view::IterateError>, StoreError> {
    let request = first_event_at(store, journal_id, request_offset, |event| {
        matches!(event.kind, EventKind::RequestRequested { .. })
    })?;
    Ok(request.ok_or(super::view::IterateError::NotARequest(request_offset)))
}

/// The projection a request saw: the records at or before its offset that precede it in
/// the file. A record appended later with a lower offset must not change a request that was
/// already sent, or a retry would render different bytes.
pub(super) fn projection_for_request(
    store: &Store,
    journal_id: i64,
    request: &super::event::IterateEvent,
) -> Result<Projection, StoreError> {
    Ok(resume_through(store, journal_id, request.offset, Some(request.seq + 1))?.projection)
}

/// The request snapshot at `request_offset` from the store: the projection the request saw,
/// from the checkpoint before it, rendered as the request's own event says.
pub fn request_at(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
    transport: super::Transport,
) -> Result<Result<super::render::RequestSnapshot, super::view::IterateError>, StoreError> {
    let event = match request_event(store, journal_id, request_offset)? {
        Ok(event) => event,
        Err(error) => return Ok(Err(error)),
    };
    let EventKind::RequestRequested { model } = &event.kind else {
        return Ok(Err(super::view::IterateError::NotARequest(request_offset)));
    };
    let projection = projection_for_request(store, journal_id, &event)?;
    let later = sections_item_after(store, journal_id, &projection, &event)?;
    Ok(render_request(
        &projection,
        &event,
        model.clone(),
        transport,
        later.as_ref(),
    ))
}

/// Records after an agent-loop request searched for the sections item the loop writes for it:
/// the loop writes it as it sends the request, so it comes within a few records.
const SECTIONS_ITEM_REACH: u64 = 256;

/// The sections item the agent loop wrote for the request `event` after it: the first system
/// item carrying sections with `llmRequestOffset` naming the request, before the next request
/// and within [`SECTIONS_ITEM_REACH`] records. `None` for a journal of another contract.
pub(super) fn sections_item_after(
    store: &Store,
    journal_id: i64,
    projection: &Projection,
    event: &super::event::IterateEvent,
) -> Result<Option<super::event::IterateEvent>, StoreError> {
    if projection.rules != Rules::AgentLoop {
        return Ok(None);
    }
    let from = event.seq + 1;
    for record in store.events_between(journal_id, from, from + SECTIONS_ITEM_REACH)? {
        let Some(value) = record.json() else {
            continue;
        };
        let (Some(later), _) = event::parse_owned(record.seq, record.line, value) else {
            continue;
        };
        if matches!(later.kind, EventKind::RequestRequested { .. }) {
            return Ok(None);
        }
        if super::agent_loop::append_only::is_sections_item_of(&later, event.offset) {
            return Ok(Some(later));
        }
    }
    Ok(None)
}

/// A request rendered from the projection it saw (and, for the agent loop, the sections item
/// written for it after it), or why it sent nothing.
pub(super) fn render_request(
    projection: &Projection,
    event: &super::event::IterateEvent,
    model: Option<String>,
    transport: super::Transport,
    later: Option<&super::event::IterateEvent>,
) -> Result<super::render::RequestSnapshot, super::view::IterateError> {
    super::view::check_sent(projection, event.offset)?;
    if projection.rules == Rules::AgentLoop {
        let path = event.agent.as_ref().and_then(|e| e.path.as_deref());
        return Ok(super::agent_loop::request::render(
            projection,
            event.offset,
            model,
            path,
            later,
        ));
    }
    Ok(super::render::render(
        projection,
        event.offset,
        model,
        event.created_at.as_deref(),
        transport,
    ))
}

/// The projection after the records at or before `at`: the checkpoint before them and a fold
/// of the rest.
pub(super) fn projection_through(
    store: &Store,
    journal_id: i64,
    at: i64,
) -> Result<Projection, StoreError> {
    Ok(resume_through(store, journal_id, at, None)?.projection)
}

/// The first stored event with `offset`.
pub(super) fn event_at(
    store: &Store,
    journal_id: i64,
    offset: i64,
) -> Result<Option<super::event::IterateEvent>, StoreError> {
    first_event_at(store, journal_id, offset, |_| true)
}

/// The first stored event with `offset` that `wanted` takes.
fn first_event_at(
    store: &Store,
    journal_id: i64,
    offset: i64,
    wanted: impl Fn(&super::event::IterateEvent) -> bool,
) -> Result<Option<super::event::IterateEvent>, StoreError> {
    for seq in store.seqs_at_offset(journal_id, offset)? {
        let Some(record) = store.events_between(journal_id, seq, seq + 1)?.pop() else {
            continue;
        };
        let Some(value) = record.json() else {
            continue;
        };
        if let (Some(event), _) = event::parse_owned(record.seq, record.line, value) {
            if wanted(&event) {
                return Ok(Some(event));
            }
        }
    }
    Ok(None)
}

/// The fold of the latest checkpoint at or before `records` records, when it reads: what
/// an append or a refresh folds on from.
pub(super) fn latest(
    store: &Store,
    journal_id: i64,
    records: u64,
) -> Result<Option<IterateFold>, StoreError> {
    match store.checkpoint_before(journal_id, records)? {
        Some((_, bytes)) => decode(store, journal_id, &bytes),
        None => Ok(None),
    }
}
