//! Search over event text, and the item facts that filter it.
//!
//! A search reads every stored record's original bytes in order and tests them with a SIMD
//! substring scan ([`text::Needle`]): a record is parsed only when its bytes may hold the
//! text. There is no index to build or to keep: a search answers as soon as the journal is
//! stored, costs no disk, and an append is searchable at once.
//!
//! What is searched is an event's *text*: every JSON string value of the record, without object
//! keys (so that searching for `role` does not hit every record), or the raw bytes of a record
//! that is not JSON. Any substring matches, ignoring the case of ASCII letters.
//!
//! Role, actor, key, lane and published filters apply to iterate `context-added` events (the
//! items): see [`facts`].

mod facts;
pub mod text;

use journalscope_registry::dialect::Registered as _;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use facts::{item_facts, stored_item_facts, ItemFact};
use text::Needle;

use crate::journal::{Journal, JournalError};
use journalscope_store::store::{Store, StoreError};

/// Hits returned when the query does not say.
pub const DEFAULT_HIT_LIMIT: u64 = 10_000;

/// What to look for: text and filters, all optional, all of them must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SearchQuery {
    /// A literal substring of the event's text (case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    /// Event types, full or their last path segment (empty: all).
    #[serde(default)]
    pub types: Vec<String>,
    #[serde(default)]
    pub role: Option<String>,
    /// The actor's type (`user`, `github`, `script`, …).
    #[serde(default)]
    pub actor: Option<String>,
    #[serde(default)]
    pub key: Option<String>,
    /// `system` or `history`.
    #[serde(default)]
    pub lane: Option<String>,
    /// Published (or not) by offset `at`.
    #[serde(default)]
    pub published: Option<bool>,
    /// The offset the published filter is judged at; the end of the journal when absent.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub at: Option<i64>,
    #[serde(default)]
    #[ts(type = "number | null")]
    pub limit: Option<u64>,
}

impl SearchQuery {
    fn has_item_filter(&self) -> bool {
        self.role.is_some()
            || self.actor.is_some()
            || self.key.is_some()
            || self.lane.is_some()
            || self.published.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SearchHit {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub summary: String,
    /// The matching text with the match in `[` `]`, when the query had text.
    pub snippet: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SearchResult {
    /// Every event that matches.
    #[ts(type = "number")]
    pub total: u64,
    /// The first `limit` of them, in file order.
    pub hits: Vec<SearchHit>,
    pub truncated: bool,
}

/// Records from which a search runs on two threads: below it, starting the second costs more
/// than it saves.
const PARALLEL_FROM: u64 = 50_000;

/// What one scan of a range of records found: every hit counted, the first `limit` kept.
#[derive(Default)]
struct Scanned {
    total: u64,
    found: Vec<(u64, Option<String>)>,
}

/// Tests the records `range` against `needle`, those of `typed` only when it is given (both
/// in seq order, so the type filter is walked beside the scan).
fn scan(
    store: &Store,
    journal_id: i64,
    range: std::ops::Range<u64>,
    needle: &Needle,
    typed: Option<&[u64]>,
    passes: &(dyn Fn(u64) -> bool + Sync),
    limit: u64,
) -> Result<Scanned, StoreError> {
    let mut scanned = Scanned::default();
    let mut next_typed = typed.map_or(0, |typed| typed.partition_point(|&t| t < range.start));
    store.visit_bytes(journal_id, range.start, range.end, |seq, raw| {
        if let Some(typed) = typed {
            while typed.get(next_typed).is_some_and(|&t| t < seq) {
                next_typed += 1;
            }
            if typed.get(next_typed) != Some(&seq) {
                return true;
            }
        }
        if passes(seq) {
            if let Some(hit) = needle.find(raw) {
                scanned.total += 1;
                if (scanned.found.len() as u64) < limit {
                    scanned.found.push((seq, Some(hit.snippet)));
                }
            }
        }
        true
    })?;
    Ok(scanned)
}

fn type_matches(kind: &str, types: &[String]) -> bool {
    types
        .iter()
        .any(|wanted| kind == wanted || kind.rsplit('/').next() == Some(wanted.as_str()))
}

impl Journal {
    /// Every event whose text contains the query's text and that passes its filters, in file
    /// order: the first `limit` of them, and how many there are.
    pub fn search(&self, query: &SearchQuery) -> Result<SearchResult, JournalError> {
        let journal_id = self.row().id;
        let store = self.store();
        let events = self.event_count();
        let needle = query.text.as_deref().map(str::trim).and_then(Needle::new);
        // The types a query names (in full or by their last segment), as the journal has them.
        let typed: Option<Vec<u64>> = if query.types.is_empty() {
            None
        } else {
            let types: Vec<String> = store
                .type_counts(journal_id)?
                .into_iter()
                .map(|(kind, _)| kind)
                .filter(|kind| type_matches(kind, &query.types))
                .collect();
            Some(store.seqs_of_types(journal_id, &types)?)
        };
        let facts: Option<HashMap<u64, ItemFact>> = if query.has_item_filter() {
            // A journal whose dialect has no items passes no event through an item filter.
            let facts = if self
                .dialect()
                .offers(journalscope_registry::dialect::View::ItemFilters)
            {
                stored_item_facts(store, journal_id, query)?
            } else {
                Vec::new()
            };
            Some(facts.into_iter().map(|f| (f.seq, f)).collect())
        } else {
            None
        };
        let passes = |seq: u64| {
            facts
                .as_ref()
                .is_none_or(|facts| facts.get(&seq).is_some_and(|f| f.matches(query)))
        };
        let limit = query.limit.unwrap_or(DEFAULT_HIT_LIMIT);
        let mut total = 0u64;
        let mut found: Vec<(u64, Option<String>)> = Vec::new();
        match (&needle, &typed) {
            (None, None) => {
                let kept = (0..events).filter(|&seq| passes(seq));
                for seq in kept {
                    total += 1;
                    if (found.len() as u64) < limit {
                        found.push((seq, None));
                    }
                }
            }
            (None, Some(typed)) => {
                for &seq in typed.iter().filter(|&&seq| passes(seq)) {
                    total += 1;
                    if (found.len() as u64) < limit {
                        found.push((seq, None));
                    }
                }
            }
            (Some(needle), typed) => {
                let typed = typed.as_deref();
                let scan = |store: &Store, from: u64, to: u64| {
                    scan(store, journal_id, from..to, needle, typed, &passes, limit)
                };
                // Two halves at once on a large journal, the second over a connection of its
                // own: the test of each record's bytes is most of a search's time.
                let half = events / 2;
                let db = self.db_path();
                let (first, second) = if events >= PARALLEL_FROM {
                    std::thread::scope(|threads| {
                        let second = threads.spawn(|| -> Result<Scanned, StoreError> {
                            let store = Store::open_existing(db)?;
                            scan(&store, half, events)
                        });
                        let first = scan(store, 0, half);
                        let second = second
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                        (first, second)
                    })
                } else {
                    (scan(store, 0, events), Ok(Scanned::default()))
                };
                for scanned in [first?, second?] {
                    total += scanned.total;
                    let room = (limit as usize).saturating_sub(found.len());
                    found.extend(scanned.found.into_iter().take(room));
                }
            }
        }
        let seqs: Vec<u64> = found.iter().map(|(seq, _)| *seq).collect();
        let mut snippets = found.into_iter().peekable();
        let mut hits = Vec::with_capacity(seqs.len());
        for listed in store.listed_events(journal_id, &seqs)? {
            while snippets.next_if(|(seq, _)| *seq < listed.seq).is_some() {}
            if let Some((seq, snippet)) = snippets.next_if(|(seq, _)| *seq == listed.seq) {
                hits.push(SearchHit {
                    seq,
                    offset: listed.offset,
                    kind: listed.kind,
                    summary: listed.summary,
                    snippet,
                });
            }
        }
        Ok(SearchResult {
            total,
            truncated: total > hits.len() as u64,
            hits,
        })
    }
}
