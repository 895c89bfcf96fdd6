//! The conversation before a request as the client itself loads it (`docs/formats/claude-code.md`,
//! rules R1 to R3): the chain of parents to the request's first line, every node kind kept
//! (attachments and system lines too); after a compaction, the segment of history it keeps
//! placed after its summary; and each response completed with its other lines and their tool
//! results, right after its last line on the chain. Read from the links the fold left.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::fold::{PARENT, PRESERVED, REPLAYED, RESPONSE, RESULT};
use super::line::Line;
use journalscope_shapes::record_json::Field;
use journalscope_store::store::{Store, StoreError, StoredEvent};

/// Lines of a preserved segment read back from its tail, at most: a client keeps a few turns.
const SEGMENT_LIMIT: usize = 100_000;

/// The lines of the conversation ending at `leaf`, among the records before seq `end`, in the
/// order the client sends them.
pub fn lines(
    store: &Store,
    journal_id: i64,
    leaf: Option<u64>,
    end: u64,
) -> Result<Vec<StoredEvent>, StoreError> {
    let mut walk = Vec::new();
    let mut seen = HashSet::new();
    let mut at = leaf.filter(|&seq| seq < end);
    while let Some(seq) = at {
        if !seen.insert(seq) {
            break;
        }
        walk.push(seq);
        at = store
            .link_from(journal_id, PARENT, seq)?
            .filter(|&parent| parent < end);
    }
    walk.reverse();
    let mut lines = by_seq(store, journal_id, walk.iter().copied().collect())?;
    let mut order = walk;
    if let Some(&root) = order.first() {
        if let Some(segment) = preserved(store, journal_id, root, end, &mut lines)? {
            let anchor = segment.anchor.as_deref().and_then(|uuid| {
                order.iter().position(|seq| {
                    lines
                        .get(seq)
                        .and_then(StoredEvent::json)
                        .is_some_and(|v| v.field("uuid").and_then(|u| u.as_str()) == Some(uuid))
                })
            });
            let at = anchor.unwrap_or(0) + 1;
            let kept: Vec<u64> = segment
                .seqs
                .into_iter()
                .filter(|seq| !order.contains(seq))
                .collect();
            order.splice(at.min(order.len())..at.min(order.len()), kept);
        }
    }
    let order = complete_responses(store, journal_id, order, end, &mut lines)?;
    let mut out = Vec::with_capacity(order.len());
    for seq in order {
        if store.link_from(journal_id, REPLAYED, seq)?.is_some() {
            continue;
        }
        if let Some(record) = lines.remove(&seq) {
            out.push(record);
        }
    }
    Ok(out)
}

/// A compaction's kept history: its lines' seqs in order, and the uuid of the line they follow.
struct Segment {
    seqs: Vec<u64>,
    anchor: Option<String>,
}

/// The history the compaction at `root` keeps, when `root` is one that keeps some.
fn preserved(
    store: &Store,
    journal_id: i64,
    root: u64,
    end: u64,
    lines: &mut HashMap<u64, StoredEvent>,
) -> Result<Option<Segment>, StoreError> {
    let Some(tail) = store
        .link_from(journal_id, PRESERVED, root)?
        .filter(|&tail| tail < end)
    else {
        return Ok(None);
    };
    let Some(boundary) = lines.get(&root).and_then(StoredEvent::json) else {
        return Ok(None);
    };
    let Some((head, anchor)) = Line::of(&boundary).and_then(|line| {
        line.preserved_segment()
            .map(|(head, anchor)| (head.map(str::to_string), anchor.map(str::to_string)))
    }) else {
        return Ok(None);
    };
    // From the tail back to the head, by parents.
    let mut seqs = Vec::new();
    let mut at = Some(tail);
    let mut reached = false;
    while let Some(seq) = at {
        if seqs.contains(&seq) || seqs.len() >= SEGMENT_LIMIT {
            break;
        }
        let Some(record) = store.event(journal_id, seq)? else {
            break;
        };
        let uuid = record
            .json()
            .and_then(|v| v.field("uuid").and_then(|u| u.as_str()).map(str::to_string));
        seqs.push(seq);
        lines.insert(seq, record);
        if uuid.is_some() && uuid == head {
            reached = true;
            break;
        }
        at = store.link_from(journal_id, PARENT, seq)?;
    }
    if !reached {
        return Ok(None);
    }
    seqs.reverse();
    Ok(Some(Segment { seqs, anchor }))
}

/// Each response on the chain completed: its lines not on the chain, then the tool results
/// answering any of its lines, in file order, after its last line on the chain.
fn complete_responses(
    store: &Store,
    journal_id: i64,
    order: Vec<u64>,
    end: u64,
    lines: &mut HashMap<u64, StoredEvent>,
) -> Result<Vec<u64>, StoreError> {
    let on_chain: HashSet<u64> = order.iter().copied().collect();
    // Each response's first line, and the last of its lines on the chain.
    let mut last_on_chain: HashMap<u64, u64> = HashMap::new();
    let mut firsts = Vec::new();
    for &seq in &order {
        if let Some(first) = store.link_from(journal_id, RESPONSE, seq)? {
            if !last_on_chain.contains_key(&first) {
                firsts.push(first);
            }
            last_on_chain.insert(first, seq);
        }
    }
    let mut added: HashSet<u64> = HashSet::new();
    let mut after: HashMap<u64, Vec<u64>> = HashMap::new();
    for first in firsts {
        let members: Vec<u64> = store
            .links_to(journal_id, RESPONSE, first)?
            .into_iter()
            .filter(|s| *s < end)
            .collect();
        let siblings: BTreeSet<u64> = members
            .iter()
            .copied()
            .filter(|s| !on_chain.contains(s) && !added.contains(s))
            .collect();
        let mut results = BTreeSet::new();
        for member in members {
            for answer in store.links_from(journal_id, RESULT, member)? {
                if answer < end && !on_chain.contains(&answer) && !added.contains(&answer) {
                    results.insert(answer);
                }
            }
        }
        if siblings.is_empty() && results.is_empty() {
            continue;
        }
        let group: Vec<u64> = siblings.into_iter().chain(results).collect();
        added.extend(group.iter().copied());
        if let Some(&last) = last_on_chain.get(&first) {
            after.insert(last, group);
        }
    }
    if after.is_empty() {
        return Ok(order);
    }
    let missing: BTreeSet<u64> = added
        .into_iter()
        .filter(|s| !lines.contains_key(s))
        .collect();
    lines.extend(by_seq(store, journal_id, missing)?);
    let mut out = Vec::with_capacity(order.len());
    for seq in order {
        out.push(seq);
        if let Some(group) = after.remove(&seq) {
            out.extend(group);
        }
    }
    Ok(out)
}

fn by_seq(
    store: &Store,
    journal_id: i64,
    seqs: BTreeSet<u64>,
) -> Result<HashMap<u64, StoredEvent>, StoreError> {
    let seqs: Vec<u64> = seqs.into_iter().collect();
    let mut out = HashMap::with_capacity(seqs.len());
    for slice in store.records_at(journal_id, &seqs, 512) {
        for record in slice? {
            out.insert(record.seq, record);
        }
    }
    Ok(out)
}
