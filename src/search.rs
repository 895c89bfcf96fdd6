//! Full-text search over event text and the item facts that filter it.
//!
//! The index (`event_text`, SQLite FTS5 with the trigram tokenizer) is derived and rebuildable:
//! [`refresh`] indexes whatever events a journal holds that are not indexed yet, so it is cheap
//! to call after every import and every tail append. Opening a journal does not wait for it
//! (at a million events it takes half a minute): the app indexes in the background
//! ([`index_in_background`]), and a search either indexes a small remainder itself or says how
//! far the index got ([`JournalError::Indexing`]).
//!
//! What is indexed is an event's *text*: every JSON string value of the record, one per line,
//! without object keys (so that searching for `role` does not hit every record), or the raw
//! bytes of a record that is not JSON. Any substring of three or more characters matches,
//! case-insensitively; shorter text falls back to a scan of the indexed text.
//!
//! Role, actor, key, lane and published filters apply to iterate `context-added` events (the
//! items). An item is *published at offset A* when some request or compaction at or before A
//! moved `publishedThrough` past the item's offset: its [`ItemFact::published_by`] is that
//! event's offset. An item replaced in place before publication (coalesced) still counts as
//! passed by the boundary: the filter answers "had publication reached this event", while the
//! projection pane shows what content actually went out.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::iterate::event::{EventKind, Role};
use crate::iterate::projection::{compaction_cutoff, Lane};
use crate::iterate::roles::actor_type;
use crate::iterate::IterateJournal;
use crate::journal::{Journal, JournalError};
use crate::store::{Store, StoreError};

/// Events indexed per transaction: a batch holds the write lock for about a tenth of a second,
/// which a tail appending beside an indexer waits out well within the busy timeout.
const INDEX_BATCH: i64 = 5_000;

/// Hits returned when the query does not say.
pub const DEFAULT_HIT_LIMIT: u64 = 10_000;

/// How many of a journal's events the index holds: always its first `indexed` events, since
/// seqs are dense and indexing goes in seq order.
pub fn indexed(store: &Store, journal_id: i64) -> Result<u64, StoreError> {
    store
        .connection()
        .query_row(
            "SELECT indexed FROM event_text_state WHERE journal_id = ?1",
            [journal_id],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n.max(0) as u64)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(0),
            e => Err(e.into()),
        })
}

/// Indexes the events of `journal_id` that are not indexed yet; returns how many it added.
///
/// Each batch commits on its own and re-reads how far the index got inside its transaction,
/// so indexers on several connections (the app's background indexer and a search that cannot
/// wait) share the work without indexing an event twice, and a killed indexer loses one batch.
pub fn refresh(store: &Store, journal_id: i64) -> Result<u64, StoreError> {
    let mut added = 0;
    loop {
        let batch = store.transaction(|store| -> Result<u64, StoreError> {
            let conn = store.connection();
            let start = indexed(store, journal_id)? as i64;
            let rows: Vec<(i64, Vec<u8>)> = conn
                .prepare_cached(
                    "SELECT seq, raw FROM event_records WHERE journal_id = ?1 AND seq >= ?2
                     ORDER BY seq LIMIT ?3",
                )?
                .query_map(params![journal_id, start, INDEX_BATCH], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?
                .collect::<Result<_, _>>()?;
            let Some(&(last, _)) = rows.last() else {
                return Ok(0);
            };
            let mut write = conn.prepare_cached(
                "INSERT INTO event_text (body, journal_id, seq) VALUES (?1, ?2, ?3)",
            )?;
            for (seq, raw) in &rows {
                write.execute(params![event_text(raw), journal_id, seq])?;
            }
            conn.execute(
                "INSERT INTO event_text_state (journal_id, indexed) VALUES (?1, ?2)
                 ON CONFLICT (journal_id) DO UPDATE SET indexed = excluded.indexed",
                params![journal_id, last + 1],
            )?;
            Ok(rows.len() as u64)
        })?;
        if batch == 0 {
            return Ok(added);
        }
        added += batch;
    }
}

/// Indexes a journal on a thread of its own, over its own connection to `db`, so that a large
/// journal is usable before its index is complete; searches meanwhile say how far it got.
/// `running` is shared by everyone who starts indexers for a window: while one runs, starting
/// another does nothing (`None`), since the running one goes on to the journal's last event.
pub fn index_in_background(
    db: PathBuf,
    journal_id: i64,
    running: Arc<AtomicBool>,
) -> Option<JoinHandle<Result<u64, StoreError>>> {
    if running.swap(true, Ordering::AcqRel) {
        return None;
    }
    let running = Running(running);
    Some(std::thread::spawn(move || {
        let _running = running;
        Store::open_existing(&db).and_then(|store| refresh(&store, journal_id))
    }))
}

/// Clears the "an indexer runs" flag when the indexer ends, however it ends: a flag left set
/// would keep every later indexer from starting.
struct Running(Arc<AtomicBool>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Drops the index of a journal generation (it is rebuilt on demand).
pub fn forget(store: &Store, journal_id: i64) -> Result<(), StoreError> {
    let conn = store.connection();
    conn.execute("DELETE FROM event_text WHERE journal_id = ?1", [journal_id])?;
    conn.execute(
        "DELETE FROM event_text_state WHERE journal_id = ?1",
        [journal_id],
    )?;
    Ok(())
}

/// The searchable text of a record: its JSON string values, one a line, or the raw text.
pub fn event_text(raw: &[u8]) -> String {
    match serde_json::from_slice::<Value>(raw) {
        Ok(value) => {
            let mut out = String::new();
            collect_strings(&value, &mut out);
            out
        }
        Err(_) => String::from_utf8_lossy(raw).into_owned(),
    }
}

fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(s);
        }
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

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
    /// The matching text with the match in `[` `]`, when the query had text of 3+ characters.
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
    let mut facts: Vec<ItemFact> = Vec::new();
    let mut waiting: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    let mut through: Option<i64> = None;
    for event in &journal.events {
        let reached = match &event.kind {
            EventKind::ContextAdded(context) => {
                waiting.entry(event.offset).or_default().push(facts.len());
                facts.push(ItemFact {
                    seq: event.seq,
                    offset: event.offset,
                    role: context.role,
                    actor: actor_type(context.actor.as_ref()).map(str::to_string),
                    key: context.key.clone(),
                    lane: Lane::of(context.role),
                    published_by: None,
                });
                context
                    .compaction
                    .as_ref()
                    .filter(|_| context.role == Role::Developer)
                    .and_then(|c| compaction_cutoff(event.offset, c).ok())
            }
            EventKind::RequestRequested { .. } => Some(event.offset),
            EventKind::Other => None,
        };
        if let Some(reached) = reached {
            let next = through.map_or(reached, |t| t.max(reached));
            through = Some(next);
            let later = waiting.split_off(&(next + 1));
            for index in std::mem::replace(&mut waiting, later)
                .into_values()
                .flatten()
            {
                facts[index].published_by = Some(event.offset);
            }
        }
    }
    facts
}

fn fact_matches(fact: &ItemFact, query: &SearchQuery) -> bool {
    let at = query.at.unwrap_or(i64::MAX);
    query
        .role
        .as_deref()
        .is_none_or(|r| fact.role.as_str() == r)
        && query
            .actor
            .as_deref()
            .is_none_or(|a| fact.actor.as_deref() == Some(a))
        && query
            .key
            .as_deref()
            .is_none_or(|k| fact.key.as_deref() == Some(k))
        && query
            .lane
            .as_deref()
            .is_none_or(|l| fact.lane.as_str() == l)
        && query.published.is_none_or(|wanted| {
            fact.offset <= at && fact.published_by.is_some_and(|p| p <= at) == wanted
        })
}

fn type_matches(kind: Option<&str>, types: &[String]) -> bool {
    types.is_empty()
        || types.iter().any(|wanted| {
            kind.is_some_and(|k| k == wanted || k.rsplit('/').next() == Some(wanted.as_str()))
        })
}

/// An FTS5 phrase that matches `text` literally.
fn phrase(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

impl Journal {
    /// Every event whose text contains the query's text and that passes its filters, indexing
    /// first whatever the index lacks (the CLI's search: it has nothing else to do meanwhile).
    pub fn search(&self, query: &SearchQuery) -> Result<SearchResult, JournalError> {
        self.search_indexing_at_most(query, u64::MAX)
    }

    /// [`Journal::search`] for a caller that must stay responsive: when the index lacks more
    /// than `at_most` events (a background indexer is still at work), it answers
    /// [`JournalError::Indexing`] at once instead of indexing them.
    pub fn search_indexing_at_most(
        &self,
        query: &SearchQuery,
        at_most: u64,
    ) -> Result<SearchResult, JournalError> {
        let journal_id = self.row().id;
        let total = self.event_count();
        let indexed = indexed(self.store(), journal_id)?;
        if total.saturating_sub(indexed) > at_most {
            return Err(JournalError::Indexing { indexed, total });
        }
        if indexed < total {
            refresh(self.store(), journal_id)?;
        }
        self.search_index_of(query)
    }

    fn search_index_of(&self, query: &SearchQuery) -> Result<SearchResult, JournalError> {
        let journal_id = self.row().id;
        let conn = self.store().connection();
        let text = query
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let columns = "e.seq, e.offset, e.type, e.summary";
        let (sql, needle) = match text {
            Some(t) if t.chars().count() >= 3 => (
                format!(
                    "SELECT {columns}, snippet(event_text, 0, '[', ']', '…', 48)
                     FROM event_text JOIN events e ON e.journal_id = ?1 AND e.seq = event_text.seq
                     WHERE event_text MATCH ?2 AND event_text.journal_id = ?1 ORDER BY e.seq"
                ),
                Some(phrase(t)),
            ),
            Some(t) => (
                format!(
                    "SELECT {columns}, NULL
                     FROM event_text JOIN events e ON e.journal_id = ?1 AND e.seq = event_text.seq
                     WHERE event_text.journal_id = ?1 AND instr(lower(body), lower(?2)) > 0
                     ORDER BY e.seq"
                ),
                Some(t.to_string()),
            ),
            None => (
                format!(
                    "SELECT {columns}, NULL FROM events e WHERE e.journal_id = ?1 AND ?2 IS NULL
                     ORDER BY e.seq"
                ),
                None,
            ),
        };
        let facts: Option<HashMap<u64, ItemFact>> = if query.has_item_filter() {
            let facts = match self.iterate() {
                Ok(iterate) => item_facts(iterate),
                Err(_) => Vec::new(),
            };
            Some(facts.into_iter().map(|f| (f.seq, f)).collect())
        } else {
            None
        };
        let limit = query.limit.unwrap_or(DEFAULT_HIT_LIMIT);
        let mut stmt = conn.prepare(&sql).map_err(StoreError::from)?;
        let mut rows = stmt
            .query(params![journal_id, needle])
            .map_err(StoreError::from)?;
        let mut result = SearchResult {
            total: 0,
            hits: Vec::new(),
            truncated: false,
        };
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            let hit = SearchHit {
                seq: row.get::<_, i64>(0).map_err(StoreError::from)? as u64,
                offset: row.get(1).map_err(StoreError::from)?,
                kind: row.get(2).map_err(StoreError::from)?,
                summary: row.get(3).map_err(StoreError::from)?,
                snippet: row.get(4).map_err(StoreError::from)?,
            };
            if !type_matches(hit.kind.as_deref(), &query.types) {
                continue;
            }
            if let Some(facts) = &facts {
                if !facts.get(&hit.seq).is_some_and(|f| fact_matches(f, query)) {
                    continue;
                }
            }
            result.total += 1;
            if (result.hits.len() as u64) < limit {
                result.hits.push(hit);
            } else {
                result.truncated = true;
            }
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_text_keeps_string_values_and_drops_keys() {
        let text =
            event_text(br#"{"type":"a/b","payload":{"role":"user","content":"Hello"},"n":3}"#);
        assert_eq!(
            text, "a/b\nuser\nHello",
            "values only, in record order, one a line"
        );
    }

    #[test]
    fn event_text_of_a_line_that_is_not_json_is_the_line() {
        assert_eq!(
            event_text(b"{\"content\":\"truncated"),
            "{\"content\":\"truncated",
            "a broken record stays searchable by its bytes"
        );
    }

    #[test]
    fn phrase_quotes_double_quotes() {
        assert_eq!(
            phrase(r#"say "hi""#),
            r#""say ""hi""""#,
            "a literal FTS5 phrase"
        );
    }
}
