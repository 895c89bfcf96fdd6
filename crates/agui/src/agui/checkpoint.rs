//! Checkpoints of the AG-UI fold as the store keeps them: the thread every so many records,
//! with what consecutive checkpoints hold in common stored once. Messages go in blocks of a
//! few, and a checkpoint names again the blocks of the messages that did not change since the
//! one before; tool call ids and the ids of ended messages go in sealed blocks; a long array in
//! the shared state (a list that deltas append to) is cut into blocks that a later checkpoint
//! names again where its content is the same. A view at any offset is the nearest checkpoint
//! plus a fold of at most [`SPACING`] stored records after it, and an append folds on from the
//! latest one.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use journalscope_store::derived::Analysis;
use journalscope_store::store::{Store, StoreError};

use super::lint::RULES_VERSION;
use super::reducer::{At, ChunkMode, Run, Thread};

/// The encoding of a checkpoint, with the rules that derived the tables beside it: a database
/// with another is folded again from its first record. Encoding 2 added the ids of ended
/// messages, 3 the reasoning still open.
pub const FORMAT: u32 = (RULES_VERSION << 8) | 3;

/// Records from one checkpoint to the next. A view folds at most this many after its
/// checkpoint: measured with `journalscope bench`, a thousand keep a seek within a few
/// milliseconds of reading, and the checkpoints a small part of the journal.
pub const SPACING: u64 = 1_024;

/// Messages in one block. One: a message that changes between two checkpoints (a text being
/// streamed) is written again without its neighbours (a tool's output can be tens of KB), and a
/// snapshot that repeats the thread's messages at other positions names their blocks again.
/// Measured on generated threads, blocks of 8 messages made the checkpoints 60% larger.
const MESSAGES_PER_BLOCK: usize = 1;

/// Ids (of tool calls, of ended messages) in one block; only the last, unsealed, ids are in the
/// checkpoint itself.
const IDS_PER_BLOCK: usize = 1_024;

/// Items in one block of a long state array.
const ITEMS_PER_BLOCK: usize = 64;

/// State arrays longer than this are kept in blocks; shorter ones are in the checkpoint.
const LONG_ARRAY: usize = 2 * ITEMS_PER_BLOCK;

/// Block indices in one index block. A list of blocks is itself kept in index blocks, shared
/// like the others: between two checkpoints only the end of a long list changes.
const INDICES_PER_BLOCK: usize = 64;

/// Consecutive block indices, `[first, count]`: what did not change keeps its blocks, and what
/// was appended gets new ones in order, so a checkpoint's blocks are a few runs.
type Span = [u64; 2];

#[derive(Serialize, Deserialize)]
struct Encoded {
    state: Piece,
    /// The index blocks that list the message blocks.
    messages: Vec<Span>,
    message_count: u64,
    run: Run,
    steps: Vec<String>,
    open_messages: Vec<String>,
    open_tool_calls: Vec<String>,
    chunk: Option<ChunkMode>,
    seen_event: bool,
    runs_started: u64,
    halted_by_patch: bool,
    state_established: bool,
    calls: Vec<Span>,
    calls_tail: Vec<String>,
    /// The ids of ended messages, in blocks like the tool call ids.
    ended: Vec<Span>,
    ended_tail: Vec<String>,
    /// Reasoning still open, in the order of its ids, with where each started.
    open_reasoning: Vec<(String, At)>,
    deltas_since_snapshot: u64,
    state_only_from_deltas: bool,
}

/// A state value: kept whole, or, where it holds a long array, with that array in blocks.
#[derive(Serialize, Deserialize)]
enum Piece {
    Value(Value),
    Object(Vec<(String, Piece)>),
    Array(Vec<Span>),
}

fn spans(blocks: &[u64]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for &block in blocks {
        match out.last_mut() {
            Some([first, count]) if *first + *count == block => *count += 1,
            _ => out.push([block, 1]),
        }
    }
    out
}

/// What a refresh carries from one checkpoint to the next: the block that holds each part
/// that has not changed, and where the next new block goes.
pub(super) struct Encoder {
    next_block: u64,
    /// Each block of messages, with its content's hash.
    message_blocks: Vec<(u64, blake3::Hash)>,
    call_blocks: Vec<u64>,
    ended_blocks: Vec<u64>,
    /// The blocks of the last checkpoint's long arrays and index lists, by content.
    shared: HashMap<blake3::Hash, u64>,
}

impl Encoder {
    /// An encoder for a fold from the first record, its blocks after those at `next_block`.
    pub(super) fn new(next_block: u64) -> Encoder {
        Encoder {
            next_block,
            message_blocks: Vec::new(),
            call_blocks: Vec::new(),
            ended_blocks: Vec::new(),
            shared: HashMap::new(),
        }
    }

    fn block(&mut self, bytes: Vec<u8>, out: &mut Analysis) -> u64 {
        let block = self.next_block;
        self.next_block += 1;
        out.checkpoint_blocks.push((block, bytes));
        block
    }

    /// Writes a block for each full run of [`IDS_PER_BLOCK`] ids that `sealed` does not hold
    /// yet (ids are only ever added at the end, so a sealed block never changes), and returns
    /// how many ids the sealed blocks hold.
    fn seal(&mut self, ids: &[String], sealed: &mut Vec<u64>, out: &mut Analysis) -> usize {
        let full = ids.len() / IDS_PER_BLOCK;
        while sealed.len() < full {
            let start = sealed.len() * IDS_PER_BLOCK;
            let bytes = serde_json::to_vec(&ids[start..start + IDS_PER_BLOCK]).unwrap_or_default();
            let block = self.block(bytes, out);
            sealed.push(block);
        }
        full * IDS_PER_BLOCK
    }

    /// Adds the checkpoint of `thread` after `records` records to `out`, with the blocks it
    /// does not share with the checkpoint before it.
    pub(super) fn encode(&mut self, records: u64, thread: &mut Thread, out: &mut Analysis) {
        let touched = thread.messages.take_touched();
        let count = thread.messages.len();
        let needed = count.div_ceil(MESSAGES_PER_BLOCK);
        let mut kept = HashMap::new();
        // A block whose messages changed may hold what a block of the last checkpoint held (a
        // snapshot that repeats the messages the thread has), and then it is named again.
        for &(block, hash) in &self.message_blocks {
            kept.insert(hash, block);
        }
        self.message_blocks.truncate(needed);
        for index in 0..needed {
            let range = index * MESSAGES_PER_BLOCK..((index + 1) * MESSAGES_PER_BLOCK).min(count);
            if index < self.message_blocks.len() && !touched.any_in(range.clone()) {
                continue;
            }
            let bytes = serde_json::to_vec(&thread.messages[range]);
            let hash = blake3::hash(bytes.as_deref().unwrap_or_default());
            let block = self.shared_block(bytes, &mut kept, out);
            match self.message_blocks.get_mut(index) {
                Some(held) => *held = (block, hash),
                None => self.message_blocks.push((block, hash)),
            }
        }
        kept.clear();

        let calls = thread.started_tool_calls.in_order();
        let mut call_blocks = std::mem::take(&mut self.call_blocks);
        let calls_sealed = self.seal(calls, &mut call_blocks, out);
        self.call_blocks = call_blocks;
        let ended = thread.ended_messages.in_order();
        let mut ended_blocks = std::mem::take(&mut self.ended_blocks);
        let ended_sealed = self.seal(ended, &mut ended_blocks, out);
        self.ended_blocks = ended_blocks;

        for &(block, hash) in &self.message_blocks {
            kept.insert(hash, block);
        }
        let message_blocks: Vec<u64> = self
            .message_blocks
            .iter()
            .map(|(block, _)| *block)
            .collect();
        let messages = self.index(&message_blocks, &mut kept, out);
        let state = self.piece(&thread.state, &mut kept, out);
        self.shared = kept;

        let encoded = Encoded {
            state,
            messages,
            message_count: count as u64,
            run: thread.run.clone(),
            steps: thread.steps.clone(),
            open_messages: thread.open_messages.iter().cloned().collect(),
            open_tool_calls: thread.open_tool_calls.iter().cloned().collect(),
            chunk: thread.chunk.clone(),
            seen_event: thread.seen_event,
            runs_started: thread.runs_started,
            halted_by_patch: thread.halted_by_patch,
            state_established: thread.state_established,
            calls: spans(&self.call_blocks),
            calls_tail: calls[calls_sealed..].to_vec(),
            ended: spans(&self.ended_blocks),
            ended_tail: ended[ended_sealed..].to_vec(),
            open_reasoning: thread
                .open_reasoning
                .iter()
                .map(|(id, at)| (id.clone(), *at))
                .collect(),
            deltas_since_snapshot: thread.deltas_since_snapshot,
            state_only_from_deltas: thread.state_only_from_deltas,
        };
        if let Ok(bytes) = serde_json::to_vec(&encoded) {
            out.checkpoints.push((records, bytes));
        }
    }

    /// The block holding `bytes`: the last checkpoint's, or the one this checkpoint already
    /// wrote, when either holds the same; a new one otherwise.
    fn shared_block(
        &mut self,
        bytes: Result<Vec<u8>, serde_json::Error>,
        kept: &mut HashMap<blake3::Hash, u64>,
        out: &mut Analysis,
    ) -> u64 {
        let bytes = bytes.unwrap_or_default();
        let hash = blake3::hash(&bytes);
        let block = match self.shared.get(&hash).or_else(|| kept.get(&hash)) {
            Some(&block) => block,
            None => self.block(bytes, out),
        };
        kept.insert(hash, block);
        block
    }

    /// A list of blocks as the index blocks that hold it.
    fn index(
        &mut self,
        blocks: &[u64],
        kept: &mut HashMap<blake3::Hash, u64>,
        out: &mut Analysis,
    ) -> Vec<Span> {
        let indices: Vec<u64> = blocks
            .chunks(INDICES_PER_BLOCK)
            .map(|part| self.shared_block(serde_json::to_vec(part), kept, out))
            .collect();
        spans(&indices)
    }

    /// `value` as a checkpoint keeps it; the blocks of its long arrays are noted in `kept`.
    fn piece(
        &mut self,
        value: &Value,
        kept: &mut HashMap<blake3::Hash, u64>,
        out: &mut Analysis,
    ) -> Piece {
        match value {
            Value::Array(items) if items.len() > LONG_ARRAY => {
                let blocks: Vec<u64> = items
                    .chunks(ITEMS_PER_BLOCK)
                    .map(|part| self.shared_block(serde_json::to_vec(part), kept, out))
                    .collect();
                Piece::Array(self.index(&blocks, kept, out))
            }
            Value::Object(fields) => {
                let pieces: Vec<(String, Piece)> = fields
                    .iter()
                    .map(|(key, value)| (key.clone(), self.piece(value, kept, out)))
                    .collect();
                if pieces
                    .iter()
                    .all(|(_, piece)| matches!(piece, Piece::Value(_)))
                {
                    Piece::Value(value.clone())
                } else {
                    Piece::Object(pieces)
                }
            }
            other => Piece::Value(other.clone()),
        }
    }
}

/// A thread read back from a checkpoint, with the encoder that goes on from it.
pub(super) struct Restored {
    pub thread: Thread,
    pub encoder: Encoder,
}

/// What a list of blocks holds, in order, and each block it was read from with the hash of
/// its content.
type Blocks<T> = (Vec<T>, Vec<(u64, blake3::Hash)>);

/// The values the blocks of `spans` hold, in order, each block a JSON array; `None` when one
/// is missing or is not what this encoding wrote.
fn read_blocks<T: serde::de::DeserializeOwned>(
    store: &Store,
    journal_id: i64,
    spans: &[Span],
) -> Result<Option<Blocks<T>>, StoreError> {
    let mut items = Vec::new();
    let mut blocks = Vec::new();
    for &[first, count] in spans {
        let read = store.checkpoint_block_range(journal_id, first, count)?;
        if read.len() as u64 != count {
            return Ok(None);
        }
        for (block, bytes) in read {
            let Ok(part) = serde_json::from_slice::<Vec<T>>(&bytes) else {
                return Ok(None);
            };
            items.extend(part);
            blocks.push((block, blake3::hash(&bytes)));
        }
    }
    Ok(Some((items, blocks)))
}

/// The blocks a list of index blocks names, read with the hashes of their content; every block
/// read is noted in `shared` by content, for the next checkpoint to name again.
fn read_indexed<T: serde::de::DeserializeOwned>(
    store: &Store,
    journal_id: i64,
    index: &[Span],
    shared: &mut HashMap<blake3::Hash, u64>,
) -> Result<Option<Blocks<T>>, StoreError> {
    let Some((blocks, indices)) = read_blocks::<u64>(store, journal_id, index)? else {
        return Ok(None);
    };
    let Some((items, read)) = read_blocks::<T>(store, journal_id, &spans(&blocks))? else {
        return Ok(None);
    };
    shared.extend(
        indices
            .iter()
            .chain(&read)
            .map(|&(block, hash)| (hash, block)),
    );
    Ok(Some((items, read)))
}

/// Reads back a checkpoint that [`Encoder::encode`] wrote; `None` when it is not one, or names
/// a block the store does not have. The encoder's next block is left for the caller to place.
pub(super) fn decode(
    store: &Store,
    journal_id: i64,
    bytes: &[u8],
) -> Result<Option<Restored>, StoreError> {
    let Ok(encoded) = serde_json::from_slice::<Encoded>(bytes) else {
        return Ok(None);
    };
    let mut shared = HashMap::new();
    let Some((messages, message_blocks)) =
        read_indexed::<Value>(store, journal_id, &encoded.messages, &mut shared)?
    else {
        return Ok(None);
    };
    if messages.len() as u64 != encoded.message_count {
        return Ok(None);
    }
    let Some((mut ids, call_blocks)) = read_blocks::<String>(store, journal_id, &encoded.calls)?
    else {
        return Ok(None);
    };
    let call_blocks = call_blocks.into_iter().map(|(block, _)| block).collect();
    ids.extend(encoded.calls_tail);
    let Some((mut ended, ended_blocks)) = read_blocks::<String>(store, journal_id, &encoded.ended)?
    else {
        return Ok(None);
    };
    let ended_blocks = ended_blocks.into_iter().map(|(block, _)| block).collect();
    ended.extend(encoded.ended_tail);
    let Some(state) = value_of(store, journal_id, encoded.state, &mut shared)? else {
        return Ok(None);
    };
    let thread = Thread {
        state,
        messages: messages.into(),
        run: encoded.run,
        steps: encoded.steps,
        open_messages: encoded.open_messages.into_iter().collect(),
        open_tool_calls: encoded.open_tool_calls.into_iter().collect(),
        chunk: encoded.chunk,
        seen_event: encoded.seen_event,
        runs_started: encoded.runs_started,
        halted_by_patch: encoded.halted_by_patch,
        state_established: encoded.state_established,
        started_tool_calls: ids.into(),
        ended_messages: ended.into(),
        open_reasoning: encoded
            .open_reasoning
            .into_iter()
            .collect::<BTreeMap<String, At>>(),
        deltas_since_snapshot: encoded.deltas_since_snapshot,
        state_only_from_deltas: encoded.state_only_from_deltas,
    };
    Ok(Some(Restored {
        thread,
        encoder: Encoder {
            next_block: 0,
            message_blocks,
            call_blocks,
            ended_blocks,
            shared,
        },
    }))
}

impl Encoder {
    /// Places the blocks this encoder writes after those at `next_block`.
    pub(super) fn place_after(&mut self, next_block: u64) {
        self.next_block = next_block;
    }
}

fn value_of(
    store: &Store,
    journal_id: i64,
    piece: Piece,
    shared: &mut HashMap<blake3::Hash, u64>,
) -> Result<Option<Value>, StoreError> {
    Ok(match piece {
        Piece::Value(value) => Some(value),
        Piece::Object(fields) => {
            let mut map = serde_json::Map::new();
            for (key, piece) in fields {
                let Some(value) = value_of(store, journal_id, piece, shared)? else {
                    return Ok(None);
                };
                map.insert(key, value);
            }
            Some(Value::Object(map))
        }
        Piece::Array(index) => {
            let Some((items, _)) = read_indexed::<Value>(store, journal_id, &index, shared)? else {
                return Ok(None);
            };
            Some(Value::Array(items))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_in_order_make_one_span_and_a_gap_starts_another() {
        assert_eq!(spans(&[4, 5, 6, 9, 10, 2]), vec![[4, 3], [9, 2], [2, 1]]);
        assert!(spans(&[]).is_empty(), "no blocks, no spans");
    }
}
