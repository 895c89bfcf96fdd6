//! Checkpoints of the Claude Code fold: what an append needs to go on from a transcript's end
//! without folding it again. The lasting part of the state (every node the transcript named,
//! and each line that started a turn under one) only grows, so it is kept as a log, sealed in
//! shared blocks as it fills; a checkpoint holds the log's unsealed end and the fold's
//! short-lived maps (recent responses and nodes, open tool calls, lines waiting for a parent).
//! A sealed block keeps its nodes sorted by digest and its turns by parent, so that a resumed
//! fold searches the blocks as they are read instead of building maps of a million nodes.
//! Only the latest checkpoint is kept, after the last record: the fold writes about earlier
//! lines (a tool call's result, a fork at the parent), so it goes on only from a journal's end.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fold::{ClaudeFold, Response, Waiting};
use journalscope_store::store::{Store, StoreError};
use journalscope_transcript::transcript::RequestRow;

/// The encoding of a checkpoint: a database with another is folded again.
pub const FORMAT: u32 = 5;

/// Log entries in one sealed block: 128 KiB of nodes, so that a million-line transcript
/// resumes from about a hundred blocks.
pub(super) const ENTRIES_PER_BLOCK: usize = 8_192;

/// A change to the lasting part of the fold's state, in the order the fold made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    /// A node: its uuid's digest, its seq and its line.
    Node(u64, u32, u32),
    /// A line that starts a turn under the node at this seq.
    Turn(u32),
}

const NODE: u8 = 0;
const TURN: u8 = 1;

fn encode_entries(entries: &[Entry], out: &mut Vec<u8>) {
    for entry in entries {
        match *entry {
            Entry::Node(digest, seq, line) => {
                out.push(NODE);
                out.extend_from_slice(&digest.to_le_bytes());
                out.extend_from_slice(&seq.to_le_bytes());
                out.extend_from_slice(&line.to_le_bytes());
            }
            Entry::Turn(parent) => {
                out.push(TURN);
                out.extend_from_slice(&parent.to_le_bytes());
            }
        }
    }
}

/// Hands each entry `bytes` holds to `each`, in order; `None` when they are not a log this
/// version wrote.
fn decode_entries(mut bytes: &[u8], mut each: impl FnMut(Entry)) -> Option<()> {
    fn take<const N: usize>(bytes: &mut &[u8]) -> Option<[u8; N]> {
        let (head, rest) = bytes.split_at_checked(N)?;
        *bytes = rest;
        head.try_into().ok()
    }
    while let Some((&tag, rest)) = bytes.split_first() {
        bytes = rest;
        each(match tag {
            NODE => Entry::Node(
                u64::from_le_bytes(take(&mut bytes)?),
                u32::from_le_bytes(take(&mut bytes)?),
                u32::from_le_bytes(take(&mut bytes)?),
            ),
            TURN => Entry::Turn(u32::from_le_bytes(take(&mut bytes)?)),
            _ => return None,
        });
    }
    Some(())
}

/// Bytes of a node in a sealed block: its digest, seq and line.
const NODE_BYTES: usize = 16;
/// Bytes of a parent's turns in a sealed block: its seq and how many turns began under it.
const TURN_BYTES: usize = 8;

/// A block of sealed log entries, as the store keeps it: the number of nodes and of parents,
/// the nodes sorted by digest, then each parent with its turns, sorted by parent.
pub(super) fn seal(entries: &[Entry]) -> Vec<u8> {
    let mut nodes = Vec::new();
    let mut turns: HashMap<u32, u32> = HashMap::new();
    for entry in entries {
        match *entry {
            Entry::Node(digest, seq, line) => nodes.push((digest, seq, line)),
            Entry::Turn(parent) => *turns.entry(parent).or_insert(0) += 1,
        }
    }
    nodes.sort_unstable();
    let mut turns: Vec<(u32, u32)> = turns.into_iter().collect();
    turns.sort_unstable();
    let mut out = Vec::with_capacity(8 + nodes.len() * NODE_BYTES + turns.len() * TURN_BYTES);
    out.extend_from_slice(&(nodes.len() as u32).to_le_bytes());
    out.extend_from_slice(&(turns.len() as u32).to_le_bytes());
    for (digest, seq, line) in nodes {
        out.extend_from_slice(&digest.to_le_bytes());
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&line.to_le_bytes());
    }
    for (parent, count) in turns {
        out.extend_from_slice(&parent.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
    }
    out
}

/// One sealed block as read back, checked to be as long as its counts say.
struct Block {
    bytes: Vec<u8>,
    nodes: usize,
    turns: usize,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

impl Block {
    fn read(bytes: Vec<u8>) -> Option<Block> {
        if bytes.len() < 8 {
            return None;
        }
        let nodes = u32_at(&bytes, 0) as usize;
        let turns = u32_at(&bytes, 4) as usize;
        (bytes.len() == 8 + nodes * NODE_BYTES + turns * TURN_BYTES).then_some(Block {
            bytes,
            nodes,
            turns,
        })
    }

    fn node(&self, digest: u64) -> Option<(u32, u32)> {
        let at = |index: usize| 8 + index * NODE_BYTES;
        let (mut low, mut high) = (0, self.nodes);
        while low < high {
            let middle = (low + high) / 2;
            match u64_at(&self.bytes, at(middle)).cmp(&digest) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => {
                    let at = at(middle);
                    return Some((u32_at(&self.bytes, at + 8), u32_at(&self.bytes, at + 12)));
                }
            }
        }
        None
    }

    fn turns(&self, parent: u32) -> u32 {
        let at = |index: usize| 8 + self.nodes * NODE_BYTES + index * TURN_BYTES;
        let (mut low, mut high) = (0, self.turns);
        while low < high {
            let middle = (low + high) / 2;
            match u32_at(&self.bytes, at(middle)).cmp(&parent) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return u32_at(&self.bytes, at(middle) + 4),
            }
        }
        0
    }
}

/// The blocks a resumed fold found sealed, searched where its own maps do not know a node.
#[derive(Default)]
pub struct Sealed {
    blocks: Vec<Block>,
}

impl Sealed {
    /// The seq and line of the node with this digest; the newest blocks first, where the
    /// parent of an appended line most likely is.
    pub(super) fn node(&self, digest: u64) -> Option<(u32, u32)> {
        self.blocks
            .iter()
            .rev()
            .find_map(|block| block.node(digest))
    }

    /// How many turns began under the node at seq `parent` in these blocks.
    pub(super) fn turns(&self, parent: u32) -> u32 {
        self.blocks.iter().map(|block| block.turns(parent)).sum()
    }
}

#[derive(Serialize, Deserialize)]
struct SavedResponse {
    key: u64,
    first: u64,
    row: RequestRow,
    usage: Option<Value>,
    mismatch_said: bool,
    lines: Vec<(u64, u64)>,
    at: u64,
}

/// The short-lived maps, each in an order that does not depend on hashing, so that the same
/// fold writes the same bytes.
#[derive(Serialize, Deserialize)]
struct Saved {
    records: u64,
    sealed: u64,
    /// Each recent node's seq and response key, oldest first.
    recent_nodes: Vec<(u64, u64)>,
    waiting_for_parent: Vec<(u64, Vec<Waiting>)>,
    main_sidechain: Option<bool>,
    /// The recent responses, in the order they began.
    responses: Vec<SavedResponse>,
    calls: Vec<(u64, u64)>,
    task_prompts: Vec<(u64, u64)>,
    boundaries: Vec<(u64, u64, Option<i64>)>,
    record: super::record::RecordState,
    recent_parents: Vec<(u64, Option<u64>)>,
    waiting_digests: Vec<(u64, u64)>,
    ledger: super::ledger::Ledger,
}

fn sorted<K: Ord + Copy, V: Clone>(map: &HashMap<K, V>) -> Vec<(K, V)> {
    let mut pairs: Vec<(K, V)> = map.iter().map(|(k, v)| (*k, v.clone())).collect();
    pairs.sort_by_key(|(k, _)| *k);
    pairs
}

/// The checkpoint of `fold` after its last record: the length of its JSON part, that part,
/// then the log entries not sealed yet.
pub(super) fn encode(fold: &ClaudeFold) -> Vec<u8> {
    let saved = Saved {
        records: fold.records,
        sealed: fold.sealed,
        recent_nodes: fold
            .node_order
            .iter()
            .filter_map(|seq| Some((*seq, *fold.node_response.get(seq)?)))
            .collect(),
        waiting_for_parent: sorted(&fold.waiting_for_parent),
        main_sidechain: fold.main_sidechain,
        responses: fold
            .response_order
            .iter()
            .filter_map(|key| {
                let response = fold.responses.get(key)?;
                Some(SavedResponse {
                    key: *key,
                    first: response.first,
                    row: response.row.clone(),
                    usage: response.usage.clone(),
                    mismatch_said: response.mismatch_said,
                    lines: sorted(&response.lines),
                    at: response.at,
                })
            })
            .collect(),
        calls: sorted(&fold.calls),
        task_prompts: sorted(&fold.task_prompts),
        boundaries: sorted(&fold.boundaries)
            .into_iter()
            .map(|(seq, (line, offset))| (seq, line, offset))
            .collect(),
        record: fold.record.clone(),
        recent_parents: fold.recent_parents.iter().copied().collect(),
        waiting_digests: sorted(&fold.waiting_digests),
        ledger: fold.ledger.clone(),
    };
    // Serialising plain data does not fail.
    let json = serde_json::to_vec(&saved).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + json.len() + fold.log.len() * 17);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    encode_entries(&fold.log, &mut out);
    out
}

/// The fold after the checkpoint of a journal that holds `records` records, when its latest
/// checkpoint is after exactly those records and every block it names is there; `None`
/// otherwise (an import stopped before its end), and the journal is folded again.
pub(super) fn resume(
    store: &Store,
    journal_id: i64,
    records: u64,
) -> Result<Option<ClaudeFold>, StoreError> {
    let Some((seq, bytes)) = store.checkpoint_before(journal_id, records)? else {
        return Ok(None);
    };
    if seq != records {
        return Ok(None);
    }
    let Some((saved, tail)) = split(&bytes) else {
        return Ok(None);
    };
    if saved.records != records {
        return Ok(None);
    }
    let blocks = store.checkpoint_blocks(journal_id, saved.sealed)?;
    if blocks.len() as u64 != saved.sealed {
        return Ok(None);
    }
    let Some(blocks) = blocks
        .into_iter()
        .map(Block::read)
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    let mut fold = rebuild(saved);
    fold.sealed_blocks = Sealed { blocks };
    let mut log = Vec::new();
    if decode_entries(tail, |entry| log.push(entry)).is_none() {
        return Ok(None);
    }
    for entry in &log {
        match *entry {
            Entry::Node(digest, seq, line) => {
                fold.nodes.insert(digest, (seq, line));
            }
            Entry::Turn(parent) => *fold.turn_children.entry(u64::from(parent)).or_insert(0) += 1,
        }
    }
    fold.log = log;
    Ok(Some(fold))
}

fn split(bytes: &[u8]) -> Option<(Saved, &[u8])> {
    let (length, rest) = bytes.split_at_checked(4)?;
    let length = u32::from_le_bytes(length.try_into().ok()?) as usize;
    let (json, tail) = rest.split_at_checked(length)?;
    Some((serde_json::from_slice(json).ok()?, tail))
}

/// The fold with the short-lived maps `saved` holds, before its log is replayed.
fn rebuild(saved: Saved) -> ClaudeFold {
    let mut fold = ClaudeFold {
        records: saved.records,
        sealed: saved.sealed,
        main_sidechain: saved.main_sidechain,
        waiting_for_parent: saved.waiting_for_parent.into_iter().collect(),
        calls: saved.calls.into_iter().collect(),
        task_prompts: saved.task_prompts.into_iter().collect(),
        boundaries: saved
            .boundaries
            .into_iter()
            .map(|(seq, line, offset)| (seq, (line, offset)))
            .collect(),
        record: saved.record,
        recent_parents: saved.recent_parents.into_iter().collect(),
        waiting_digests: saved.waiting_digests.into_iter().collect(),
        ledger: saved.ledger,
        ..ClaudeFold::default()
    };
    for (seq, key) in saved.recent_nodes {
        fold.node_response.insert(seq, key);
        fold.node_order.push_back(seq);
    }
    for response in saved.responses {
        fold.response_order.push_back(response.key);
        fold.responses.insert(
            response.key,
            Response {
                first: response.first,
                row: response.row,
                usage: response.usage,
                mismatch_said: response.mismatch_said,
                lines: response.lines.into_iter().collect(),
                at: response.at,
            },
        );
    }
    fold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsealed_log_reads_back_as_written() {
        let entries = vec![
            Entry::Node(u64::MAX, 0, 1),
            Entry::Turn(0),
            Entry::Node(7, u32::MAX, 3),
            Entry::Turn(u32::MAX),
        ];
        let mut bytes = Vec::new();
        encode_entries(&entries, &mut bytes);
        let mut read = Vec::new();
        assert!(
            decode_entries(&bytes, |entry| read.push(entry)).is_some(),
            "the log decodes"
        );
        assert_eq!(read, entries, "every entry comes back, in order");
    }

    #[test]
    fn a_log_cut_short_or_of_another_version_is_refused() {
        let mut bytes = Vec::new();
        encode_entries(&[Entry::Node(1, 2, 3)], &mut bytes);
        assert!(
            decode_entries(&bytes[..bytes.len() - 1], |_| ()).is_none(),
            "a node cut short is not read as one"
        );
        assert!(
            decode_entries(&[9, 0, 0, 0, 0], |_| ()).is_none(),
            "an unknown entry kind is refused rather than skipped"
        );
    }

    #[test]
    fn a_sealed_block_finds_each_node_and_sums_the_turns_under_each_parent() {
        // Given nodes in file order (digests unordered) and turns, one parent twice
        let entries: Vec<Entry> = (0..100u32)
            .map(|seq| {
                Entry::Node(
                    u64::from(seq).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    seq,
                    seq + 1,
                )
            })
            .chain([Entry::Turn(4), Entry::Turn(9), Entry::Turn(4)])
            .collect();
        // When sealed and read back
        let block = Block::read(seal(&entries)).expect("a block as long as its counts say");
        // Then every node is found, and no other
        for seq in 0..100u32 {
            assert_eq!(
                block.node(u64::from(seq).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                Some((seq, seq + 1)),
                "node {seq} is found by its digest"
            );
        }
        assert_eq!(block.node(12345), None, "an unknown digest is not found");
        assert_eq!(block.turns(4), 2, "two turns began under 4");
        assert_eq!(block.turns(9), 1, "one turn began under 9");
        assert_eq!(block.turns(5), 0, "none under 5");
        let two = Sealed {
            blocks: vec![block, Block::read(seal(&[Entry::Turn(4)])).expect("block")],
        };
        assert_eq!(two.turns(4), 3, "turns under a parent add up across blocks");
    }

    #[test]
    fn a_sealed_block_whose_length_disagrees_with_its_counts_is_refused() {
        let bytes = seal(&[Entry::Node(1, 2, 3), Entry::Turn(2)]);
        assert!(
            Block::read(bytes[..bytes.len() - 1].to_vec()).is_none(),
            "cut short"
        );
        assert!(Block::read(vec![1, 0, 0]).is_none(), "no counts");
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Block::read(longer).is_none(), "a byte too many");
    }

    #[test]
    fn a_state_that_is_not_a_checkpoint_is_refused() {
        assert!(split(&[]).is_none(), "no length");
        assert!(
            split(&[200, 0, 0, 0, b'{']).is_none(),
            "a length past the end"
        );
        assert!(
            split(&[1, 0, 0, 0, b'{']).is_none(),
            "JSON that does not parse"
        );
    }
}
