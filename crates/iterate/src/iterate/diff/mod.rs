//! Request diff and cache-prefix stability: how two rendered requests compare (longest common
//! prefix in bytes and in messages, the first message that differs, a structural and a
//! character-level diff from there), why the prefix broke, and a per-journal report of how many
//! prefix bytes each request loses against the ideal.
//!
//! The ideal: a request's messages are the protocol message, the items, and a timestamp that is
//! always last. Published items are never rewritten and new items are appended, so the ideal
//! prefix a later request shares with an earlier one is *every message of the earlier request
//! but its timestamp* (in bytes: the earlier body up to where its timestamp message starts). A
//! shorter shared prefix is a break. Legitimate causes, found in the journal between the two
//! requests: a compaction, a system-lane item added after publication (rendered before all of
//! history), a published keyed slot republished with `updates=@N` in the system lane, a model
//! change (a provider's cache is per model, so nothing is reused), a transport change (roles
//! map differently). Anything else is a rewrite of published content, which the projection
//! rules forbid: it is reported as unexpected.

mod cache;
mod edit;

pub use cache::{cache_report_stored, cache_report_within, CacheEntry, CacheReport};
pub(crate) use edit::{character_diff, rows_with};

use serde::Serialize;
use ts_rs::TS;

use super::checkpoint;
use super::event::{self, EventKind, Role};
use super::journal::IterateJournal;
use super::projection::{Lane, Projection, Rules};
use super::render::{Message, RequestSnapshot};
use super::roles::Transport;
use super::view::IterateError;
use journalscope_store::store::{Store, StoreError};

/// Records a diff read from the store folds at a time.
const READ_SLICE: u64 = 4_096;

/// Edit distance past which a diff gives up on finding the shortest script and reports the
/// differing middle as one removal and one insertion: memory grows with its square.
const MAX_EDIT_DISTANCE: usize = 1000;
/// Characters on each side (after the common head and tail are trimmed) past which the
/// character diff is coarse.
const MAX_CHARACTER_DIFF: usize = 20_000;

/// One request as a side of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RequestSide {
    #[ts(type = "number")]
    pub request_offset: i64,
    pub transport: Transport,
    pub model: Option<String>,
    #[ts(type = "number")]
    pub messages: u64,
    #[ts(type = "number")]
    pub body_bytes: u64,
}

/// Why a prefix broke. Offsets are journal coordinates the desktop links to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum BreakCause {
    /// A compaction replaced history through `cutoff` with its summary at `offset`, and
    /// dropped or collapsed the listed items.
    Compaction {
        #[ts(type = "number")]
        offset: i64,
        #[ts(type = "number")]
        cutoff: i64,
        #[ts(type = "number[]")]
        removed: Vec<i64>,
    },
    /// A new system-lane item added after publication: the system lane renders before all of
    /// history, so it lands inside the published prefix.
    SystemLaneUpdate {
        #[ts(type = "number")]
        offset: i64,
        key: Option<String>,
    },
    /// A published keyed slot republished (`updates=@N`) in the system lane.
    KeyedSlotRepublished {
        #[ts(type = "number")]
        offset: i64,
        key: String,
        #[ts(type = "number")]
        updates: i64,
        lane: String,
    },
    /// Provider caches are per model: nothing is reused.
    ModelChange {
        from: Option<String>,
        to: Option<String>,
    },
    /// The two requests are rendered for different transports, whose roles differ.
    TransportChange { from: Transport, to: Transport },
    /// A sections-contract `context-rewritten` replaced or deleted sections the earlier
    /// request sent (or, for `*`, the whole list).
    ContextRewritten {
        #[ts(type = "number")]
        offset: i64,
        op: String,
        key: Option<String>,
        #[ts(type = "number[]")]
        removed: Vec<i64>,
    },
    /// A sections-contract section appended after a send, superseding the sent one: it leaves
    /// the prefix as it was and adds the new text after it.
    SectionSuperseded {
        #[ts(type = "number")]
        offset: i64,
        key: String,
        #[ts(type = "number")]
        supersedes: i64,
    },
    /// No cause in the journal explains the first differing message: published content was
    /// rewritten, which the projection rules forbid.
    Unexpected {
        #[ts(type = "number")]
        message: u64,
        explanation: String,
    },
}

impl BreakCause {
    /// One line for people.
    pub fn explain(&self) -> String {
        match self {
            BreakCause::Compaction {
                offset,
                cutoff,
                removed,
            } => format!(
                "compaction @{offset} replaced history ≤ @{cutoff} ({} item(s) removed)",
                removed.len()
            ),
            BreakCause::SystemLaneUpdate { offset, key } => match key {
                Some(key) => format!(
                    "system-lane item @{offset} key={key:?} added after publication, before history"
                ),
                None => {
                    format!("system-lane item @{offset} added after publication, before history")
                }
            },
            BreakCause::KeyedSlotRepublished {
                offset,
                key,
                updates,
                lane,
            } => format!(
                "{lane}-lane slot key={key:?} republished at @{offset} (updates=@{updates})"
            ),
            BreakCause::ModelChange { from, to } => format!(
                "model changed from {} to {}: the provider cache is per model",
                from.as_deref().unwrap_or("(none)"),
                to.as_deref().unwrap_or("(none)")
            ),
            BreakCause::TransportChange { from, to } => format!(
                "transport changed from {} to {}: roles map differently",
                from.as_str(),
                to.as_str()
            ),
            BreakCause::ContextRewritten {
                offset,
                op,
                key,
                removed,
            } => format!(
                "context-rewritten @{offset} ({op}{}) removed {} item(s) from the list",
                key.as_deref()
                    .map(|k| format!(" key={k:?}"))
                    .unwrap_or_default(),
                removed.len()
            ),
            BreakCause::SectionSuperseded {
                offset,
                key,
                supersedes,
            } => format!(
                "section key={key:?} superseded at @{offset} (supersedes=\"@{supersedes}\")"
            ),
            BreakCause::Unexpected {
                message,
                explanation,
            } => format!("unexpected break at message {message}: {explanation}"),
        }
    }
}

/// A prefix shorter than the ideal, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PrefixBreak {
    /// Index of the first message that differs (the message count of the common prefix).
    #[ts(type = "number")]
    pub at_message: u64,
    /// The item the earlier request has there, when it is an item.
    #[ts(type = "number | null")]
    pub earlier_item: Option<i64>,
    /// The item the later request has there, when it is an item.
    #[ts(type = "number | null")]
    pub later_item: Option<i64>,
    /// Ideal prefix bytes minus the bytes a provider cache can reuse.
    #[ts(type = "number")]
    pub lost_bytes: u64,
    /// The cause that explains the first differing message first, then any other change
    /// between the two requests that breaks a cache on its own.
    pub causes: Vec<BreakCause>,
    /// False when the break is unexpected.
    pub expected: bool,
    pub explanation: String,
    /// Agent loop: where the first differing input items differ (`content[0].text`, `type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub field: Option<String>,
    /// Agent loop: the index of the earlier request's input item that carries its
    /// `prompt_cache_breakpoint`, when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub breakpoint: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum DiffOp {
    Same,
    Changed,
    Removed,
    Added,
}

/// One message of one side of a structural diff row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DiffMessage {
    #[ts(type = "number")]
    pub index: u64,
    pub role: Role,
    /// The item's offset; none for the protocol and timestamp messages.
    #[ts(type = "number | null")]
    pub item: Option<i64>,
    pub content: String,
    /// An agent-loop input item's type (`message`, `function_call`, `function_call_output`,
    /// `reasoning`); absent for a chat message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub kind: Option<String>,
}

/// One row of the side-by-side diff, from the first differing message on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DiffRow {
    pub op: DiffOp,
    pub from: Option<DiffMessage>,
    pub to: Option<DiffMessage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct TextSegment {
    pub op: DiffOp,
    pub text: String,
}

/// The character-level diff of the first differing pair of messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CharacterDiff {
    #[ts(type = "number")]
    pub message: u64,
    pub from_role: Role,
    pub to_role: Role,
    /// `same`, `removed` and `added` segments of the content, in order.
    pub segments: Vec<TextSegment>,
    /// The differing middle was too large for a shortest edit script: shown as one removal
    /// and one insertion.
    pub coarse: bool,
}

/// Two rendered requests compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RequestDiff {
    pub from: RequestSide,
    pub to: RequestSide,
    /// Longest common prefix of the two provider bodies, in bytes.
    #[ts(type = "number")]
    pub common_prefix_bytes: u64,
    /// Leading messages identical in role and content.
    #[ts(type = "number")]
    pub common_prefix_messages: u64,
    /// The earlier request's messages but its timestamp.
    #[ts(type = "number")]
    pub ideal_prefix_messages: u64,
    /// The earlier request's body up to where its timestamp message starts.
    #[ts(type = "number")]
    pub ideal_prefix_bytes: u64,
    /// What a provider cache can reuse: the common prefix up to the ideal, none across a
    /// model change.
    #[ts(type = "number")]
    pub reused_prefix_bytes: u64,
    /// The first message that differs, when one does.
    #[ts(type = "number | null")]
    pub first_difference: Option<u64>,
    pub rows: Vec<DiffRow>,
    pub characters: Option<CharacterDiff>,
    pub prefix_break: Option<PrefixBreak>,
    /// Agent loop: the body's top-level fields besides `input`, compared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<BodyField>>", optional)]
    pub body_fields: Vec<BodyField>,
}

/// One top-level field of an agent-loop request body besides its input, on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct BodyField {
    pub name: String,
    pub op: DiffOp,
    /// The field's value as compact JSON; none where the side has no such field.
    pub from: Option<String>,
    pub to: Option<String>,
}

/// What happened in the journal between two requests that may break a prefix.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub compactions: Vec<BreakCause>,
    /// Items of the later request's system lane added after the earlier request.
    pub system_additions: Vec<BreakCause>,
}

impl Changes {
    /// Folds the events between the earlier request `lo` and the later `hi` onto the
    /// projection at `lo`, collecting compactions, and reads the system items added since.
    fn between(journal: &IterateJournal, lo: i64, hi: i64) -> Changes {
        let mut projection: Projection = journal.projection_at(lo);
        let mut changes = Changes::default();
        for event in journal
            .events
            .iter()
            .filter(|e| e.offset > lo && e.offset <= hi)
        {
            projection.apply(event);
            changes.note_compaction(&projection);
        }
        changes.note_system_additions(&projection, lo);
        changes
    }

    /// `between`, read from the store: the projection at `lo` from the checkpoint before it,
    /// then the stored records with an offset above `lo` and up to `hi`, in file order.
    fn between_stored(
        store: &Store,
        journal_id: i64,
        lo: i64,
        hi: i64,
    ) -> Result<Changes, StoreError> {
        let mut projection = checkpoint::projection_through(store, journal_id, lo)?;
        let seqs = store.seqs_with_offsets_between(journal_id, lo, hi)?;
        let mut changes = Changes::default();
        for slice in store.records_at(journal_id, &seqs, READ_SLICE as usize) {
            for record in &slice? {
                let Some(value) = record.json() else {
                    continue;
                };
                if let (Some(event), _) = event::parse_owned(record.seq, record.line, value) {
                    projection.apply(&event);
                    changes.note_compaction(&projection);
                }
            }
        }
        changes.note_system_additions(&projection, lo);
        Ok(changes)
    }

    /// The compaction or rewrite the event just folded applied, if any.
    pub(crate) fn note_compaction(&mut self, projection: &Projection) {
        // A replace that only appended changes nothing already sent.
        if let Some(rewrite) = projection
            .last_rewrite
            .as_ref()
            .filter(|r| !r.removed.is_empty())
        {
            self.compactions.push(BreakCause::ContextRewritten {
                offset: rewrite.offset,
                op: rewrite.op.to_string(),
                key: rewrite.key.clone(),
                removed: rewrite.removed.clone(),
            });
        }
        if let Some(applied) = &projection.last_compaction {
            let mut removed = applied.dropped.clone();
            removed.extend(&applied.collapsed);
            removed.sort_unstable();
            self.compactions.push(BreakCause::Compaction {
                offset: applied.offset,
                cutoff: applied.cutoff,
                removed,
            });
        }
    }

    /// The system items added after `lo`; under the sections contract, the sections that
    /// superseded a sent one.
    fn note_system_additions(&mut self, projection: &Projection, lo: i64) {
        if projection.rules != Rules::Seed {
            for item in &projection.history {
                if let (Some(key), Some(supersedes), true) =
                    (&item.key, item.updates_offset, item.is_section())
                {
                    if item.offset > lo {
                        self.system_additions.push(BreakCause::SectionSuperseded {
                            offset: item.offset,
                            key: key.clone(),
                            supersedes,
                        });
                    }
                }
            }
            return;
        }
        for item in projection.lane(Lane::System) {
            if item.offset <= lo {
                continue;
            }
            self.system_additions
                .push(match (&item.key, item.updates_offset) {
                    (Some(key), Some(updates)) => BreakCause::KeyedSlotRepublished {
                        offset: item.offset,
                        key: key.clone(),
                        updates,
                        lane: Lane::System.as_str().to_string(),
                    },
                    (key, _) => BreakCause::SystemLaneUpdate {
                        offset: item.offset,
                        key: key.clone(),
                    },
                });
        }
    }
}

/// Where each message starts in the provider body, and where the body ends: the body is
/// `{"model":…,"messages":[m0,m1,…]}` in compact JSON, so each message is its own
/// serialization plus a comma.
pub fn message_starts(snapshot: &RequestSnapshot) -> Vec<u64> {
    let model = serde_json::to_string(&snapshot.model).unwrap_or_default();
    let mut at = format!("{{\"model\":{model},\"messages\":[").len() as u64;
    let mut starts = Vec::with_capacity(snapshot.messages.len());
    for message in &snapshot.messages {
        starts.push(at);
        at += serde_json::to_vec(message).map_or(0, |b| b.len() as u64) + 1;
    }
    starts
}

pub(crate) fn common_prefix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn item_at(snapshot: &RequestSnapshot, message: usize) -> Option<i64> {
    // messages[i] is items[i - 1] for 1 ≤ i ≤ items; 0 is the protocol, the last the time.
    message
        .checked_sub(1)
        .and_then(|i| snapshot.items.get(i))
        .map(|item| item.offset)
}

fn side(snapshot: &RequestSnapshot, body_bytes: usize) -> RequestSide {
    RequestSide {
        request_offset: snapshot.request_offset,
        transport: snapshot.transport,
        model: snapshot.model.clone(),
        messages: snapshot.messages.len() as u64,
        body_bytes: body_bytes as u64,
    }
}

/// Compares two rendered requests. `changes` is what the journal did between them (empty for
/// snapshots that come from no journal): it is how a break is explained. The earlier of the two
/// (by request offset) sets the ideal; `from` and `to` may come in either order.
pub fn diff_snapshots(
    from: &RequestSnapshot,
    to: &RequestSnapshot,
    changes: &Changes,
) -> RequestDiff {
    if from.responses_body.is_some() && to.responses_body.is_some() {
        return super::agent_loop::diff::diff(from, to, changes);
    }
    let from_body = from.body();
    let to_body = to.body();
    let common_bytes = common_prefix(&from_body, &to_body);
    let common_messages = common_prefix(&from.messages, &to.messages);
    let (earlier, later) = if from.request_offset <= to.request_offset {
        (from, to)
    } else {
        (to, from)
    };
    // The protocol and every item: the seed contract's last message, the request's time, is
    // never reused, while a sections request ends with its stamp, which every later one keeps.
    let sections = !earlier.items.is_empty() && earlier.items.len() + 1 == earlier.messages.len();
    let ideal_messages = if sections {
        earlier.messages.len()
    } else {
        earlier.messages.len().saturating_sub(1)
    };
    let earlier_body = if earlier.request_offset == from.request_offset {
        &from_body
    } else {
        &to_body
    };
    let ideal_bytes = match message_starts(earlier).get(ideal_messages) {
        Some(start) => *start,
        // Every message: the body up to its closing `]}`.
        None if ideal_messages > 0 => earlier_body.len().saturating_sub(2) as u64,
        None => 0,
    };
    let model_changed = from.model != to.model;
    let reused = if model_changed {
        0
    } else {
        (common_bytes as u64).min(ideal_bytes)
    };
    let differs = common_messages < from.messages.len().max(to.messages.len());
    let first_difference = differs.then_some(common_messages as u64);
    let rows = if differs {
        rows_from(from, to, common_messages)
    } else {
        Vec::new()
    };
    let characters = match (
        from.messages.get(common_messages),
        to.messages.get(common_messages),
    ) {
        (Some(a), Some(b)) => Some(character_diff(common_messages as u64, a, b)),
        _ => None,
    };
    let broken = common_messages < ideal_messages || model_changed;
    let prefix_break = broken.then(|| {
        let causes = classify(earlier, later, common_messages, ideal_messages, changes);
        let expected = !causes
            .iter()
            .any(|c| matches!(c, BreakCause::Unexpected { .. }));
        let explanation = causes
            .iter()
            .map(BreakCause::explain)
            .collect::<Vec<_>>()
            .join("; ");
        PrefixBreak {
            at_message: common_messages as u64,
            earlier_item: item_at(earlier, common_messages),
            later_item: item_at(later, common_messages),
            lost_bytes: ideal_bytes.saturating_sub(reused),
            causes,
            expected,
            explanation,
            field: None,
            breakpoint: None,
        }
    });
    RequestDiff {
        from: side(from, from_body.len()),
        to: side(to, to_body.len()),
        common_prefix_bytes: common_bytes as u64,
        common_prefix_messages: common_messages as u64,
        ideal_prefix_messages: ideal_messages as u64,
        ideal_prefix_bytes: ideal_bytes,
        reused_prefix_bytes: reused,
        first_difference,
        rows,
        characters,
        prefix_break,
        body_fields: Vec::new(),
    }
}

/// Which change explains the first differing message `at`, then the other changes that break a
/// cache by themselves.
fn classify(
    earlier: &RequestSnapshot,
    later: &RequestSnapshot,
    at: usize,
    ideal: usize,
    changes: &Changes,
) -> Vec<BreakCause> {
    let mut whole = Vec::new();
    if earlier.model != later.model {
        whole.push(BreakCause::ModelChange {
            from: earlier.model.clone(),
            to: later.model.clone(),
        });
    }
    if earlier.transport != later.transport {
        whole.push(BreakCause::TransportChange {
            from: earlier.transport,
            to: later.transport,
        });
    }
    if at >= ideal {
        return whole;
    }
    let earlier_item = item_at(earlier, at);
    let later_item = if at <= later.items.len() {
        item_at(later, at)
    } else {
        None
    };
    let same_text = later
        .messages
        .get(at)
        .is_some_and(|m| m.content == earlier.messages[at].content);
    let offset_of = |cause: &BreakCause| match cause {
        BreakCause::Compaction { offset, .. }
        | BreakCause::ContextRewritten { offset, .. }
        | BreakCause::SectionSuperseded { offset, .. }
        | BreakCause::SystemLaneUpdate { offset, .. }
        | BreakCause::KeyedSlotRepublished { offset, .. } => Some(*offset),
        _ => None,
    };
    let mut found: Option<BreakCause> = None;
    if same_text && earlier.transport != later.transport {
        // Only the role moved: the transport maps this item differently.
        found = whole
            .iter()
            .find(|c| matches!(c, BreakCause::TransportChange { .. }))
            .cloned();
    }
    if found.is_none() {
        // Something new sits where the earlier request had an older message.
        if let Some(new) = later_item.filter(|o| *o > earlier.request_offset) {
            found = changes
                .compactions
                .iter()
                .chain(&changes.system_additions)
                .find(|c| offset_of(c) == Some(new))
                .cloned();
        }
    }
    if found.is_none() {
        // The earlier request's message is gone: a compaction removed it.
        if let Some(old) = earlier_item {
            let still_there = later.items.iter().any(|i| i.offset == old);
            if !still_there {
                found = changes
                    .compactions
                    .iter()
                    .find(|c| matches!(c,
                        BreakCause::Compaction { removed, .. } | BreakCause::ContextRewritten { removed, .. }
                        if removed.contains(&old)))
                    .cloned();
            }
        }
    }
    if found.is_none() {
        // The sections contract's standing document is one message of many sections: a
        // rewrite of any of them changes it.
        found = changes
            .compactions
            .iter()
            .find(|c| matches!(c, BreakCause::ContextRewritten { .. }))
            .cloned();
    }
    let mut causes = Vec::new();
    match found {
        Some(cause) => causes.push(cause),
        None => causes.push(BreakCause::Unexpected {
            message: at as u64,
            explanation: unexpected_reason(earlier, later, at, earlier_item, later_item),
        }),
    }
    let first = causes[0].clone();
    for cause in whole
        .into_iter()
        .chain(changes.compactions.iter().cloned())
        .chain(changes.system_additions.iter().cloned())
    {
        if cause != first {
            causes.push(cause);
        }
    }
    causes
}

fn unexpected_reason(
    earlier: &RequestSnapshot,
    later: &RequestSnapshot,
    at: usize,
    earlier_item: Option<i64>,
    later_item: Option<i64>,
) -> String {
    let name = |snapshot: &RequestSnapshot, item: Option<i64>| match item {
        Some(offset) => format!("item @{offset}"),
        None if at == 0 => "the protocol message".to_string(),
        None if at + 1 == snapshot.messages.len() => "the timestamp".to_string(),
        None => "nothing".to_string(),
    };
    if earlier_item.is_some() && earlier_item == later_item {
        return format!(
            "published item @{} was rewritten between request @{} and request @{}",
            earlier_item.unwrap_or_default(),
            earlier.request_offset,
            later.request_offset
        );
    }
    format!(
        "request @{} has {} where request @{} had {}, and no compaction, system-lane update, model or transport change explains it",
        later.request_offset,
        name(later, later_item),
        earlier.request_offset,
        name(earlier, earlier_item)
    )
}

fn diff_message(snapshot: &RequestSnapshot, index: usize, message: &Message) -> DiffMessage {
    DiffMessage {
        index: index as u64,
        role: message.role,
        item: item_at(snapshot, index),
        content: message.content.clone(),
        kind: None,
    }
}

/// The side-by-side rows from message `start` on: a shortest edit script over whole messages,
/// adjacent removals and additions paired as changes.
fn rows_from(from: &RequestSnapshot, to: &RequestSnapshot, start: usize) -> Vec<DiffRow> {
    rows_with(
        (&from.messages, &to.messages),
        start,
        |at| diff_message(from, at, &from.messages[at]),
        |at| diff_message(to, at, &to.messages[at]),
    )
}

/// The request before the request at `offset` in file order, read from the store's request
/// marks; `None` when there is none.
pub fn request_before_stored(
    store: &Store,
    journal_id: i64,
    offset: i64,
) -> Result<Option<i64>, StoreError> {
    let Ok(request) = checkpoint::request_event(store, journal_id, offset)? else {
        return Ok(None);
    };
    match store.next_mark(journal_id, "request", Some(request.seq), false)? {
        Some(before) => store.offset_at_or_before_seq(journal_id, before),
        None => Ok(None),
    }
}

/// `IterateJournal::request_diff`, read from the store: each request rendered from the
/// checkpoint before it, and the events between them folded from the checkpoint at the
/// earlier one.
pub fn request_diff_stored(
    store: &Store,
    journal_id: i64,
    from: (i64, Transport),
    to: (i64, Transport),
) -> Result<Result<RequestDiff, IterateError>, StoreError> {
    let rendered = |(offset, transport): (i64, Transport)| {
        checkpoint::request_at(store, journal_id, offset, transport)
    };
    let (a, b) = match (rendered(from)?, rendered(to)?) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(error), _) | (_, Err(error)) => return Ok(Err(error)),
    };
    let (lo, hi) = (from.0.min(to.0), from.0.max(to.0));
    let changes = Changes::between_stored(store, journal_id, lo, hi)?;
    Ok(Ok(diff_snapshots(&a, &b, &changes)))
}

#[cfg(test)]
mod tests;
