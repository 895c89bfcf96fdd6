//! What each iterate item is, for the search's item filters: its role, actor, key and lane,
//! and the request or compaction whose publication boundary first passed it. An item replaced
//! in place before publication (coalesced) still counts as passed by the boundary: the filter
//! answers "had publication reached this event", while the projection pane shows what content
//! actually went out.

use std::collections::BTreeMap;

use journalscope_iterate::iterate::event::{self, EventKind, IterateEvent, Role};
use journalscope_iterate::iterate::projection::{compaction_cutoff, Lane};
use journalscope_iterate::iterate::roles::actor_type;
use journalscope_iterate::iterate::IterateJournal;
use journalscope_store::store::{Store, StoreError};

use super::SearchQuery;

/// What an iterate item is, for filtering: read from its `context-added` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemFact {
    pub seq: u64,
    pub offset: i64,
    pub role: Role,
    pub actor: Option<String>,
    pub key: Option<String>,
    pub lane: Lane,
    /// The offset of the request or compaction that first published this item.
    pub published_by: Option<i64>,
}

/// One pass over the journal: each item's facts and when publication first reached it.
pub fn item_facts(journal: &IterateJournal) -> Vec<ItemFact> {
    let mut fold = FactFold::keeping(None);
    for event in &journal.events {
        fold.add(event);
    }
    fold.facts
}

/// [`item_facts`] read from the store, of the items whose role, actor, key and lane `query`
/// describes: only the records of the types that can add an item or reach a boundary are
/// parsed, one at a time, so nothing but those items' facts is held.
pub fn stored_item_facts(
    store: &Store,
    journal_id: i64,
    query: &SearchQuery,
) -> Result<Vec<ItemFact>, StoreError> {
    let types: Vec<String> = store
        .type_counts(journal_id)?
        .into_iter()
        .map(|(kind, _)| kind)
        .filter(|kind| event::changes_projection(kind))
        .collect();
    let seqs = store.seqs_of_types(journal_id, &types)?;
    let (Some(&first), Some(&last)) = (seqs.first(), seqs.last()) else {
        return Ok(Vec::new());
    };
    let mut wanted = seqs.iter().copied().peekable();
    let mut fold = FactFold::keeping(Some(query));
    store.visit_bytes(journal_id, first, last + 1, |seq, raw| {
        while wanted.next_if(|&w| w < seq).is_some() {}
        if wanted.next_if_eq(&seq).is_none() {
            return true;
        }
        let parsed = journalscope_shapes::record_json::value(raw)
            .and_then(|value| event::parse_owned(seq, 0, value).0);
        if let Some(event) = parsed {
            fold.add(&event);
        }
        true
    })?;
    Ok(fold.facts)
}

/// The facts so far, and the items publication has not reached yet, by offset.
struct FactFold<'q> {
    /// Keeps only the items this query's role, actor, key and lane describe; `None` keeps all.
    keep: Option<&'q SearchQuery>,
    facts: Vec<ItemFact>,
    waiting: BTreeMap<i64, Vec<usize>>,
    through: Option<i64>,
}

impl<'q> FactFold<'q> {
    fn keeping(keep: Option<&'q SearchQuery>) -> FactFold<'q> {
        FactFold {
            keep,
            facts: Vec::new(),
            waiting: BTreeMap::new(),
            through: None,
        }
    }

    fn add(&mut self, event: &IterateEvent) {
        let reached = match &event.kind {
            EventKind::ContextAdded(context) => {
                let fact = ItemFact {
                    seq: event.seq,
                    offset: event.offset,
                    role: context.role,
                    actor: actor_type(context.actor.as_ref()).map(str::to_string),
                    key: context.key.clone(),
                    lane: Lane::of(context.role),
                    published_by: None,
                };
                if self.keep.is_none_or(|query| fact.is_of_kind(query)) {
                    self.waiting
                        .entry(event.offset)
                        .or_default()
                        .push(self.facts.len());
                    self.facts.push(fact);
                }
                context
                    .compaction
                    .as_ref()
                    .filter(|_| context.role == Role::Developer)
                    .and_then(|c| compaction_cutoff(event.offset, c).ok())
            }
            EventKind::RequestRequested { .. } => Some(event.offset),
            _ => None,
        };
        if let Some(reached) = reached {
            let next = self.through.map_or(reached, |t| t.max(reached));
            self.through = Some(next);
            let later = self.waiting.split_off(&(next + 1));
            for index in std::mem::replace(&mut self.waiting, later)
                .into_values()
                .flatten()
            {
                self.facts[index].published_by = Some(event.offset);
            }
        }
    }
}

impl ItemFact {
    /// Whether this item passes the query's item filters.
    pub fn matches(&self, query: &SearchQuery) -> bool {
        let at = query.at.unwrap_or(i64::MAX);
        self.is_of_kind(query)
            && query.published.is_none_or(|wanted| {
                self.offset <= at && self.published_by.is_some_and(|p| p <= at) == wanted
            })
    }

    /// Whether this item has the role, actor, key and lane the query asks for.
    fn is_of_kind(&self, query: &SearchQuery) -> bool {
        query
            .role
            .as_deref()
            .is_none_or(|r| self.role.as_str() == r)
            && query
                .actor
                .as_deref()
                .is_none_or(|a| self.actor.as_deref() == Some(a))
            && query
                .key
                .as_deref()
                .is_none_or(|k| self.key.as_deref() == Some(k))
            && query
                .lane
                .as_deref()
                .is_none_or(|l| self.lane.as_str() == l)
    }
}
