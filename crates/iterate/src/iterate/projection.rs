//! The iterate projection and its pure reducer: the system and history lanes, keyed slots,
//! `publishedThrough`, compaction, birth gating and the genuine-request check, exactly as
//! `interpretation.md` §1 says. `apply` does no I/O and cannot fail; what breaks a rule becomes
//! a diagnostic on the projection. The same state folds the sections contract (`sections`)
//! once an event shows it, and hands over to the agent loop's fold (`agent_loop`) where it shows.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::contract::Signal;
use super::event::{Behaviour, ContextAdded, EventKind, IterateEvent, Role};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;

pub const SYSTEM_PROMPT_KEY: &str = "agent/system-prompt";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    System,
    History,
}

impl Lane {
    pub fn of(role: Role) -> Lane {
        if role == Role::System {
            Lane::System
        } else {
            Lane::History
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Lane::System => "system",
            Lane::History => "history",
        }
    }
}

/// One item of the projection.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Source offset: the newest event that set this slot.
    pub offset: i64,
    pub seq: u64,
    pub role: Role,
    pub actor: Option<Value>,
    pub key: Option<String>,
    pub updates_offset: Option<i64>,
    pub refs: Vec<Value>,
    pub files: Vec<Value>,
    pub content: Arc<str>,
    pub compaction: Option<Value>,
    pub llm_request_offset: Option<i64>,
    /// Offsets this slot replaced in place before it was published, oldest first.
    pub coalesced: Vec<i64>,
    /// A sections-contract request stamp: `content` is the request's `createdAt`.
    pub stamp: bool,
    /// The item's message counted once (see [`Item::tokens`]).
    pub tokens: super::tokens::TokenMemo,
}

impl Item {
    pub(crate) fn from_context(event: &IterateEvent, context: &ContextAdded) -> Item {
        Item {
            offset: event.offset,
            seq: event.seq,
            role: context.role,
            actor: context.actor.clone(),
            key: context.key.clone(),
            updates_offset: None,
            refs: context.refs.clone(),
            files: context.files.clone(),
            content: context.content.clone(),
            compaction: context.compaction.clone(),
            llm_request_offset: context.llm_request_offset,
            coalesced: Vec::new(),
            stamp: false,
            tokens: Default::default(),
        }
    }

    pub fn is_published(&self, published_through: Option<i64>) -> bool {
        published_through.is_some_and(|through| self.offset <= through)
    }
}

/// A compaction that took effect: what it removed and why, for step-debugging.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedCompaction {
    pub offset: i64,
    pub cutoff: i64,
    pub dropped: Vec<i64>,
    pub kept: Vec<i64>,
    pub collapsed: Vec<i64>,
}

/// Which contract's rules the fold applies. A journal starts under the seed contract's and
/// moves on at the first event that shows another contract, folding from there by its rules.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Rules {
    #[default]
    Seed,
    /// The sections contract (7.0.0, 8.0.0): the whole list is the history lane while folding,
    /// and its leading run of sections is the standing document.
    Sections,
    /// iterate's agent loop (contract "agent" v16): the lanes stay empty, and the loop's own
    /// state ([`AgentFold`]) holds its context items.
    AgentLoop,
}

/// The agent loop's fold as the projection carries it: its state, and the check of its
/// requests' inputs. It runs beside the seed fold from a journal's first event until the
/// journal shows its contract or sends a request, so that a journal whose first sign of the
/// loop comes late is folded by the loop's rules from its first event.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AgentFold {
    pub state: super::agent_loop::fold::AgentLoop,
    pub check: super::agent_loop::append_only::AppendOnly,
    /// What folding it found while it ran beside the seed fold, said if it takes over.
    pub held: Vec<Diagnostic>,
}

/// What wakes the model next under the sections contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Trigger {
    pub offset: i64,
    /// A user-role item, as opposed to the agent loop's own (a developer item, a retry).
    pub external: bool,
}

/// The agent loop beside the list: what the sections contract's requests open on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoopState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Trigger>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<i64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failures: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A `context-rewritten` that took effect: the items it replaced or removed.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedRewrite {
    pub offset: i64,
    /// `replace`, `delete` or `delete *`.
    pub op: &'static str,
    pub key: Option<String>,
    pub removed: Vec<i64>,
}

/// The fold state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Projection {
    pub rules: Rules,
    pub loop_state: LoopState,
    pub system: Vec<Item>,
    pub history: Vec<Item>,
    pub published_through: Option<i64>,
    /// Offset of the newest event folded in.
    pub at: Option<i64>,
    pub has_system_prompt: bool,
    /// Triggering items queued until `agent/system-prompt` exists.
    pub waiting_for_system_prompt: Vec<i64>,
    /// Offsets of every `llm-request-requested` folded so far: the genuine request offsets.
    pub requests: RequestOffsets,
    pub diagnostics: Vec<Diagnostic>,
    /// Set by the last `apply` when it was a valid compaction.
    pub last_compaction: Option<AppliedCompaction>,
    /// Set by the last `apply` when it was a `context-rewritten` that changed the list.
    pub last_rewrite: Option<AppliedRewrite>,
    /// Where the last `apply` put an item (appended, replaced in place, or a summary).
    pub last_item: Option<(Lane, usize)>,
    /// The position of the newest item of each key in each lane, so that a keyed update finds
    /// its slot without scanning a long lane. Appends and in-place replacements never move
    /// items; compaction does, and rebuilds it.
    pub(super) slots: std::collections::HashMap<(Lane, String), usize>,
    /// Moves whenever the lanes change other than by an append, or their rules change.
    pub(super) edits: Edits,
    /// The agent loop's fold: the journal's under [`Rules::AgentLoop`], and beside the seed
    /// fold until the journal shows another contract or sends a request.
    pub agent: Option<Box<AgentFold>>,
    /// The agent loop's fold no longer runs beside the seed fold.
    pub agent_declined: bool,
}

/// A count of a projection's edits (see [`Projection::edits`]): a fold that keeps a running
/// total of the lanes' token counts adds only what was appended while this stays put. Two
/// projections are equal whatever their counts: it describes how a value came about.
#[derive(Debug, Clone, Copy, Default)]
pub struct Edits(pub(super) u64);

impl PartialEq for Edits {
    fn eq(&self, _: &Edits) -> bool {
        true
    }
}

impl Edits {
    pub(super) fn note(&mut self) {
        self.0 += 1;
    }
}

/// The offsets of every request folded so far. A long journal has hundreds of thousands, and
/// every checkpoint and every seek clones the projection, so full blocks are shared rather than
/// copied: a clone costs a pointer per block plus the open block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOffsets {
    /// Full blocks of increasing offsets, each greater than the block before.
    sealed: Vec<Arc<Vec<i64>>>,
    /// The open block, after every sealed one.
    open: Vec<i64>,
    /// Offsets that arrived out of order (a journal whose offsets do not increase).
    unordered: BTreeSet<i64>,
}

const REQUEST_BLOCK: usize = 1024;

impl RequestOffsets {
    /// Rebuilds offsets from the parts [`RequestOffsets::sealed_blocks`],
    /// [`RequestOffsets::open_block`] and [`RequestOffsets::unordered`] gave: a checkpoint keeps
    /// the sealed blocks once for all checkpoints and the rest inline.
    pub(crate) fn from_parts(
        sealed: Vec<Arc<Vec<i64>>>,
        open: Vec<i64>,
        unordered: BTreeSet<i64>,
    ) -> RequestOffsets {
        RequestOffsets {
            sealed,
            open,
            unordered,
        }
    }

    /// The full blocks, oldest first: a block never changes once sealed.
    pub(crate) fn sealed_blocks(&self) -> &[Arc<Vec<i64>>] {
        &self.sealed
    }

    pub(crate) fn open_block(&self) -> &[i64] {
        &self.open
    }

    pub(crate) fn unordered(&self) -> &BTreeSet<i64> {
        &self.unordered
    }

    fn last(&self) -> Option<i64> {
        self.open
            .last()
            .or_else(|| self.sealed.last().and_then(|block| block.last()))
            .copied()
    }

    pub fn insert(&mut self, offset: i64) {
        if self.last().is_some_and(|last| offset <= last) {
            if !self.contains(&offset) {
                self.unordered.insert(offset);
            }
            return;
        }
        self.open.push(offset);
        if self.open.len() == REQUEST_BLOCK {
            self.sealed.push(Arc::new(std::mem::take(&mut self.open)));
        }
    }

    pub fn contains(&self, offset: &i64) -> bool {
        if self.unordered.contains(offset) || self.open.binary_search(offset).is_ok() {
            return true;
        }
        let block = self
            .sealed
            .partition_point(|block| block.last().is_some_and(|last| last < offset));
        self.sealed
            .get(block)
            .is_some_and(|block| block.binary_search(offset).is_ok())
    }

    pub fn len(&self) -> usize {
        self.sealed.len() * REQUEST_BLOCK + self.open.len() + self.unordered.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a compaction item was ignored, if it was.
pub fn compaction_cutoff(offset: i64, compaction: &Value) -> Result<i64, String> {
    match compaction.field("replacesHistoryThrough") {
        Some(Value::Number(n)) if n.is_i64() => {
            let cutoff = n.as_i64().unwrap_or(i64::MAX);
            if cutoff < offset {
                Ok(cutoff)
            } else {
                Err(format!(
                    "cutoff @{cutoff} is not before the summary's own offset @{offset}: it would erase future history"
                ))
            }
        }
        Some(other) => Err(format!(
            "replacesHistoryThrough is {other}, not an integer offset"
        )),
        None => Err("compaction has no replacesHistoryThrough".to_string()),
    }
}

impl Projection {
    pub fn lane(&self, lane: Lane) -> &Vec<Item> {
        match lane {
            Lane::System => &self.system,
            Lane::History => &self.history,
        }
    }

    fn lane_mut(&mut self, lane: Lane) -> &mut Vec<Item> {
        match lane {
            Lane::System => &mut self.system,
            Lane::History => &mut self.history,
        }
    }

    /// Every item in projection order: the system lane, then history.
    pub fn items(&self) -> impl Iterator<Item = (Lane, &Item)> {
        self.system
            .iter()
            .map(|i| (Lane::System, i))
            .chain(self.history.iter().map(|i| (Lane::History, i)))
    }

    /// Folds one event in. Events must come in file order.
    pub fn apply(&mut self, event: &IterateEvent) {
        self.last_compaction = None;
        self.last_rewrite = None;
        self.last_item = None;
        self.at = Some(self.at.map_or(event.offset, |at| at.max(event.offset)));
        match (&event.contract, self.rules) {
            (Some(Signal::AgentLoop), Rules::Seed | Rules::Sections) => self.move_onto_agent_loop(),
            (Some(Signal::Sections { .. }), Rules::Seed) => {
                self.decline_agent_loop();
                self.move_onto_sections();
            }
            _ => {}
        }
        match self.rules {
            Rules::Seed => {
                if !self.agent_declined {
                    let agent = self.agent.get_or_insert_with(Box::default);
                    agent.state.apply(event, &mut agent.held);
                }
                self.apply_seed(event);
                if matches!(event.kind, EventKind::RequestRequested { .. }) {
                    self.decline_agent_loop();
                }
            }
            Rules::Sections => self.apply_sections(event),
            Rules::AgentLoop => self.apply_agent_loop(event),
        }
    }

    /// The seed or sections contract shows: the agent loop's fold beside it stops.
    fn decline_agent_loop(&mut self) {
        self.agent_declined = true;
        self.agent = None;
    }

    /// The agent loop shows: its fold takes over, with what it found while it ran beside the
    /// seed fold (from the first event, unless another contract showed before).
    pub(super) fn move_onto_agent_loop(&mut self) {
        self.system.clear();
        self.history.clear();
        self.waiting_for_system_prompt.clear();
        let agent = self.agent.get_or_insert_with(Box::default);
        self.diagnostics.append(&mut agent.held);
        self.rules = Rules::AgentLoop;
        self.rebuild_slots();
    }

    /// Folds one event by the agent loop's rules: a request it opens publishes, as under the
    /// sections contract, and is the only kind that has a body.
    fn apply_agent_loop(&mut self, event: &IterateEvent) {
        use super::agent_loop::fold::Outcome;
        let agent = self.agent.get_or_insert_with(Box::default);
        agent.check.before(&agent.state, event);
        let outcome = agent.state.apply(event, &mut self.diagnostics);
        agent
            .check
            .note(&agent.state, outcome, event, &mut self.diagnostics);
        match outcome {
            Outcome::Opened => {
                self.published_through = Some(
                    self.published_through
                        .map_or(event.offset, |p| p.max(event.offset)),
                );
                self.requests.insert(event.offset);
            }
            Outcome::Compacted { cutoff } => {
                self.last_compaction = Some(AppliedCompaction {
                    offset: event.offset,
                    cutoff,
                    dropped: Vec::new(),
                    kept: Vec::new(),
                    collapsed: Vec::new(),
                });
            }
            Outcome::Changed | Outcome::Ignored => {}
        }
    }

    fn apply_seed(&mut self, event: &IterateEvent) {
        match &event.kind {
            EventKind::ContextAdded(context) => self.add_context(event, context),
            EventKind::RequestRequested { .. } => {
                if !self.has_system_prompt {
                    self.diagnostics.push(Diagnostic::warning(
                        event.line,
                        Some(event.offset),
                        "request-before-system-prompt",
                        format!(
                            "request @{} was published before any {SYSTEM_PROMPT_KEY:?} system item existed",
                            event.offset
                        ),
                    ));
                }
                self.published_through = Some(
                    self.published_through
                        .map_or(event.offset, |p| p.max(event.offset)),
                );
                self.requests.insert(event.offset);
                self.loop_state.trigger = None;
            }
            _ => {}
        }
    }

    fn add_context(&mut self, event: &IterateEvent, context: &ContextAdded) {
        let offset = event.offset;
        if context.role == Role::Assistant {
            self.check_genuine_request(event, context);
        }
        if let Some(compaction) = &context.compaction {
            if context.role == Role::Developer {
                self.compact(event, context, compaction);
                return;
            }
            self.diagnostics.push(Diagnostic::warning(
                event.line,
                Some(offset),
                "compaction-wrong-role",
                format!(
                    "compaction metadata on a {} item: only developer items compact; added as an ordinary item",
                    context.role.as_str()
                ),
            ));
        }
        if context.role == Role::System && context.key.as_deref() == Some(SYSTEM_PROMPT_KEY) {
            self.has_system_prompt = true;
            // The queued trigger is scheduled now that the prompt exists.
            self.waiting_for_system_prompt.clear();
        }
        let triggers = matches!(context.role, Role::User | Role::Developer)
            && context.behaviour != Behaviour::DontTriggerRequest;
        if triggers && !self.has_system_prompt {
            self.waiting_for_system_prompt.push(offset);
        }
        if triggers {
            // Kept for the sections contract, should the journal turn out to follow it.
            self.loop_state.trigger = Some(Trigger {
                offset,
                external: context.role == Role::User,
            });
        }

        let lane = Lane::of(context.role);
        let published_through = self.published_through;
        let mut item = Item::from_context(event, context);
        let Some(key) = &context.key else {
            self.push(lane, item);
            return;
        };
        let slot = self.slots.get(&(lane, key.clone())).copied();
        match slot {
            None => self.push(lane, item),
            Some(index) => {
                let existing = &self.lane(lane)[index];
                if existing.is_published(published_through) {
                    item.updates_offset = Some(existing.offset);
                    self.push(lane, item);
                } else {
                    // Unpublished: replace in place, keeping position and updatesOffset.
                    let mut coalesced = existing.coalesced.clone();
                    coalesced.push(existing.offset);
                    item.updates_offset = existing.updates_offset;
                    item.coalesced = coalesced;
                    self.lane_mut(lane)[index] = item;
                    self.edits.note();
                    self.last_item = Some((lane, index));
                }
            }
        }
    }

    pub(super) fn push(&mut self, lane: Lane, item: Item) {
        let index = self.lane(lane).len();
        if let Some(key) = &item.key {
            self.slots.insert((lane, key.clone()), index);
        }
        self.lane_mut(lane).push(item);
        self.last_item = Some((lane, index));
    }

    /// A projection rebuilt from a checkpoint's parts; the key slots are derived again.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn restore(
        rules: Rules,
        loop_state: LoopState,
        system: Vec<Item>,
        history: Vec<Item>,
        published_through: Option<i64>,
        at: Option<i64>,
        has_system_prompt: bool,
        waiting_for_system_prompt: Vec<i64>,
        requests: RequestOffsets,
        diagnostics: Vec<Diagnostic>,
    ) -> Projection {
        let mut projection = Projection {
            rules,
            loop_state,
            system,
            history,
            published_through,
            at,
            has_system_prompt,
            waiting_for_system_prompt,
            requests,
            diagnostics,
            ..Projection::default()
        };
        projection.rebuild_slots();
        projection
    }

    /// Finds every key's slot again, after a change that moved items (which is an edit).
    pub(super) fn rebuild_slots(&mut self) {
        self.edits.note();
        self.slots.clear();
        for lane in [Lane::System, Lane::History] {
            for index in 0..self.lane(lane).len() {
                if let Some(key) = self.lane(lane)[index].key.clone() {
                    self.slots.insert((lane, key), index);
                }
            }
        }
    }

    fn check_genuine_request(&mut self, event: &IterateEvent, context: &ContextAdded) {
        let message = match context.llm_request_offset {
            Some(request) if self.requests.contains(&request) => return,
            Some(request) => format!(
                "assistant item names llmRequestOffset @{request}, which is not an earlier llm-request-requested: it may not request code execution"
            ),
            None => "assistant item has no llmRequestOffset: it may not request code execution"
                .to_string(),
        };
        self.diagnostics.push(Diagnostic::warning(
            event.line,
            Some(event.offset),
            "assistant-without-genuine-request",
            message,
        ));
    }

    fn compact(&mut self, event: &IterateEvent, context: &ContextAdded, compaction: &Value) {
        let offset = event.offset;
        let cutoff = match compaction_cutoff(offset, compaction) {
            Ok(cutoff) => cutoff,
            Err(reason) => {
                self.diagnostics.push(Diagnostic::error(
                    event.line,
                    Some(offset),
                    "compaction-cutoff-not-before-item",
                    format!("compaction ignored: {reason}"),
                ));
                return;
            }
        };
        let mut summary = Item::from_context(event, context);
        // A summary is its own item; a key on it names no slot.
        summary.key = None;
        let (kept, dropped): (Vec<Item>, Vec<Item>) = std::mem::take(&mut self.history)
            .into_iter()
            .partition(|item| item.offset > cutoff);
        let mut collapsed = Vec::new();
        let mut seen_keys = std::collections::HashSet::new();
        let mut system: Vec<Item> = Vec::with_capacity(self.system.len());
        // Walk newest first so the first occurrence met of each key is the one that survives.
        for item in std::mem::take(&mut self.system).into_iter().rev() {
            match &item.key {
                Some(key) if !seen_keys.insert(key.clone()) => collapsed.push(item.offset),
                _ => system.push(item),
            }
        }
        system.reverse();
        collapsed.reverse();
        self.system = system;
        self.last_compaction = Some(AppliedCompaction {
            offset,
            cutoff,
            dropped: dropped.iter().map(|i| i.offset).collect(),
            kept: kept.iter().map(|i| i.offset).collect(),
            collapsed,
        });
        self.history = std::iter::once(summary).chain(kept).collect();
        self.rebuild_slots();
        self.last_item = Some((Lane::History, 0));
        self.published_through = Some(self.published_through.map_or(cutoff, |p| p.max(cutoff)));
    }
}

/// Folds every event with offset `<= at`, in file order.
pub fn fold_through(events: &[IterateEvent], at: i64) -> Projection {
    let mut projection = Projection::default();
    for event in events.iter().filter(|e| e.offset <= at) {
        projection.apply(event);
    }
    projection
}

#[cfg(test)]
mod tests {
    use super::RequestOffsets;

    #[test]
    fn request_offsets_find_every_inserted_offset_across_blocks_and_out_of_order() {
        let mut offsets = RequestOffsets::default();
        for offset in (0..5000).map(|n| n * 3) {
            offsets.insert(offset);
        }
        offsets.insert(7);
        offsets.insert(7);
        offsets.insert(3);
        for offset in (0..5000).map(|n| n * 3) {
            assert!(offsets.contains(&offset), "@{offset} was inserted in order");
        }
        assert!(offsets.contains(&7), "an out-of-order offset is found");
        assert!(!offsets.contains(&8), "@8 was never a request");
        assert!(!offsets.contains(&15_001), "nothing past the last request");
        assert_eq!(offsets.len(), 5001, "duplicates are not counted twice");
        let shared = offsets.clone();
        offsets.insert(20_000);
        assert!(
            !shared.contains(&20_000),
            "a clone does not see requests folded after it"
        );
    }
}
