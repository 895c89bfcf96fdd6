//! The pure fold of a Claude Code transcript: it resolves the conversation graph line by line
//! (each line's parent, the response it belongs to, the first line that answers each tool
//! call, the sidechain a call spawned) into links the views walk, and finds what is odd on the
//! way. It keeps digests of ids, never the lines.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::Value;

use super::line::{digest, reported_usage, shape, ByDigest, Line};
use journalscope_seam::interpreter::{Fold, FoldRecord};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::{Field, Parsed};
use journalscope_store::derived::{Analysis, CheckpointCover, Link, Mark};
use journalscope_transcript::transcript::RequestRow;

pub use super::checkpoint::FORMAT;
use super::checkpoint::{Entry, Sealed, ENTRIES_PER_BLOCK};

/// Link kinds: a line's parent, the first line of the response it belongs to, the first line
/// answering a tool call, a main-thread message (to itself), the sidechain a call spawned, and
/// the line a replayed line repeats.
pub const PARENT: &str = "parent";
pub const RESPONSE: &str = "response";
pub const RESULT: &str = "result";
pub const MESSAGE: &str = "message";
pub const SPAWNED: &str = "spawned";
pub const REPLAYED: &str = "replayed";
/// A compaction boundary's link to the last line of the segment of history it keeps.
pub const PRESERVED: &str = "preserved";
/// A prompt the client queued (to itself): where a run of the client begins, as far as its
/// requests can tell. A `-p` run queues one prompt.
pub const QUEUED: &str = "queued";

/// A line whose parent was not seen (yet): its seq, line and offset.
pub(super) type Waiting = (u64, u64, Option<i64>);

/// A response as the fold goes through its lines.
pub(super) struct Response {
    pub(super) first: u64,
    pub(super) row: RequestRow,
    /// The usage its latest line reported.
    pub(super) usage: Option<Value>,
    pub(super) mismatch_said: bool,
    /// Each line's timestamp and content, to know a replayed line.
    pub(super) lines: HashMap<u64, u64>,
    /// The seq its row is stored under: the recorded request it answers, else its first line.
    pub(super) at: u64,
}

#[derive(Default)]
pub struct ClaudeFold {
    pub(super) found: Analysis,
    pub(super) records: u64,
    /// Each node by its uuid's digest: its seq and its line, as 32 bits each (a transcript of
    /// four billion lines is not one a client writes).
    pub(super) nodes: HashMap<u64, (u32, u32), ByDigest>,
    /// The nodes and turns of the blocks sealed before the fold resumed from a checkpoint
    /// (empty for a fold from the first line): searched where the maps do not know a node.
    pub(super) sealed_blocks: Sealed,
    /// The response key of each of the latest nodes, for a child to tell a new turn from a
    /// sibling block, and their order.
    pub(super) node_response: HashMap<u64, u64>,
    pub(super) node_order: VecDeque<u64>,
    /// Lines whose parent was not seen (yet): by the parent's digest.
    pub(super) waiting_for_parent: HashMap<u64, Vec<Waiting>>,
    /// The thread of the file's first message: the main thread.
    pub(super) main_sidechain: Option<bool>,
    /// The latest responses, and the order they began in: the lines of a response come
    /// together, so older ones are done.
    pub(super) responses: HashMap<u64, Response>,
    pub(super) response_order: VecDeque<u64>,
    /// Each tool call not answered yet, by its id's digest: the line that made it.
    pub(super) calls: HashMap<u64, u64>,
    /// The newest Task call with each prompt, by the prompt's digest: an inline sidechain's
    /// root links to it.
    pub(super) task_prompts: HashMap<u64, u64>,
    /// How many children of each node start a new turn (those in `sealed_blocks` aside).
    pub(super) turn_children: HashMap<u64, u32>,
    /// Compaction boundaries that have no child yet.
    pub(super) boundaries: HashMap<u64, (u64, Option<i64>)>,
    /// Changes to the nodes and turns not sealed in a checkpoint block yet, and how many
    /// blocks are sealed (see `checkpoint`).
    pub(super) log: Vec<Entry>,
    pub(super) sealed: u64,
    /// What the transcript's own record of its requests has told so far.
    pub(super) record: super::record::RecordState,
    /// The latest nodes' digests with their parents', oldest first: a line written before its
    /// parent is linked to it unless the parent descends from it.
    pub(super) recent_parents: VecDeque<(u64, Option<u64>)>,
    /// The digest of each line waiting for its parent, by seq.
    pub(super) waiting_digests: HashMap<u64, u64>,
    /// What the responses reported so far, per model.
    pub(super) ledger: super::ledger::Ledger,
}

/// Nodes whose parents the fold remembers, to tell a line written early from a cycle.
const RECENT_PARENTS: usize = 1_024;

/// Responses the fold remembers: a line of one that began earlier than these is read as a
/// response of its own.
const RECENT_RESPONSES: usize = 256;

/// Nodes whose response the fold remembers for their children.
const RECENT_NODES: usize = 4_096;

fn keyed(key: Option<&str>, seq: u64) -> u64 {
    match key {
        Some(key) => digest(key),
        // A line without an id is a response of its own.
        None => seq | (1 << 63),
    }
}

impl ClaudeFold {
    /// The seq and line of the node whose uuid has this digest.
    pub(super) fn node(&self, digest: u64) -> Option<(u32, u32)> {
        self.nodes
            .get(&digest)
            .copied()
            .or_else(|| self.sealed_blocks.node(digest))
    }

    /// The digests of the node with `digest` and its ancestors among the recent nodes.
    fn ancestry(&self, mut digest: Option<u64>) -> Vec<u64> {
        let mut found = Vec::new();
        while let Some(at) = digest {
            if found.contains(&at) || found.len() > RECENT_PARENTS {
                break;
            }
            found.push(at);
            digest = self
                .recent_parents
                .iter()
                .rev()
                .find(|(node, _)| *node == at)
                .and_then(|(_, parent)| *parent);
        }
        found
    }

    fn link(&mut self, seq: u64, kind: &'static str, target: u64) {
        self.found.links.push(Link { seq, kind, target });
    }

    fn mark(&mut self, seq: u64, kind: &str, note: String) {
        self.found.marks.push(Mark {
            seq,
            kind: kind.to_string(),
            note,
        });
    }

    fn say(&mut self, seq: u64, diagnostic: Diagnostic) {
        self.found.diagnostics.push((seq, diagnostic));
    }

    /// Counts a child of the node at `parent` (on line `parent_line`) that starts a turn: a
    /// user line that says more than tool results, or a line of another response. Two of them
    /// make a fork.
    fn note_child(&mut self, (parent, parent_line): (u64, u64), seq: u64, line: &Line<'_>) {
        let starts = line.starts_a_turn()
            || (line.kind == "assistant"
                && !line.is_synthetic()
                && self.node_response.get(&parent) != Some(&keyed(line.response_key(), seq)));
        if !starts {
            return;
        }
        self.log.push(Entry::Turn(parent as u32));
        let count = self.turn_children.entry(parent).or_insert(0);
        *count += 1;
        // Said once, at the second turn.
        if *count + self.sealed_blocks.turns(parent as u32) == 2 {
            self.say(
                parent,
                Diagnostic::info(
                    parent_line,
                    Some(parent_line as i64),
                    "fork",
                    "this line has two children that each start a turn: a rewind or a fork",
                ),
            );
        }
    }

    fn feed_line(&mut self, record: FoldRecord<'_>, line: Line<'_>) {
        if self.feed_record(record, &line) {
            return;
        }
        let seq = record.seq;
        let at = record.line;
        let offset = record.offset;
        // A replayed line repeats an earlier line of its response: it is skipped.
        let response_key = (line.kind == "assistant" && !line.is_synthetic())
            .then(|| keyed(line.response_key(), seq));
        if let Some(key) = response_key {
            if let Some(response) = self.responses.get(&key) {
                if let Some(&original) = response.lines.get(&shape(&line)) {
                    self.link(seq, REPLAYED, original);
                    self.say(
                        seq,
                        Diagnostic::info(
                            at,
                            offset,
                            "replayed-line",
                            "this line repeats an earlier line of its response: skipped",
                        ),
                    );
                    return;
                }
            }
        }
        self.note_for_record(seq, &line);
        // The node, and its place in the graph.
        let node = match line.uuid().map(digest) {
            Some(uuid) if self.node(uuid).is_some() => {
                self.say(
                    seq,
                    Diagnostic::warning(
                        at,
                        offset,
                        "duplicate-uuid",
                        format!(
                            "uuid {} is an earlier line's: that line is the node",
                            line.uuid().unwrap_or("")
                        ),
                    ),
                );
                false
            }
            Some(uuid) => {
                self.nodes.insert(uuid, (seq as u32, at as u32));
                self.log.push(Entry::Node(uuid, seq as u32, at as u32));
                if let Some(waiting) = self.waiting_for_parent.remove(&uuid) {
                    // The client queues a line's writes after awaiting other work, so two lines
                    // can reach the file in the reverse of the order they were made in (seen in
                    // 2.1.170); it reads parents across the whole file, and so does this fold.
                    let ancestry = self.ancestry(line.parent().map(digest));
                    for (child, child_line, child_offset) in waiting {
                        let child_digest = self.waiting_digests.remove(&child);
                        if child_digest.is_some_and(|d| ancestry.contains(&d)) {
                            self.say(
                                child,
                                Diagnostic::error(
                                    child_line,
                                    child_offset,
                                    "parent-out-of-order",
                                    format!(
                                        "its parent is line {at}, which comes after it and \
                                         descends from it: the line is read as a root"
                                    ),
                                ),
                            );
                            continue;
                        }
                        self.link(child, PARENT, seq);
                        self.say(
                            child,
                            Diagnostic::info(
                                child_line,
                                child_offset,
                                "parent-written-later",
                                format!(
                                    "its parent is line {at}, written after it: the client wrote \
                                     the two out of order"
                                ),
                            ),
                        );
                    }
                }
                true
            }
            None => false,
        };
        if node {
            if let Some(uuid) = line.uuid() {
                self.recent_parents
                    .push_back((digest(uuid), line.parent().map(digest)));
                if self.recent_parents.len() > RECENT_PARENTS {
                    self.recent_parents.pop_front();
                }
            }
            if let Some(parent) = line.parent() {
                let parent_digest = digest(parent);
                match self.node(parent_digest) {
                    Some((parent_seq, parent_line)) => {
                        let (parent_seq, parent_line) =
                            (u64::from(parent_seq), u64::from(parent_line));
                        self.link(seq, PARENT, parent_seq);
                        if let Some((boundary_line, boundary_offset)) =
                            self.boundaries.remove(&parent_seq)
                        {
                            if !line.is_compact_summary() {
                                self.say(
                                    parent_seq,
                                    Diagnostic::warning(
                                        boundary_line,
                                        boundary_offset,
                                        "compaction-without-summary",
                                        "the compaction's first child is not its summary",
                                    ),
                                );
                            }
                        }
                        self.note_child((parent_seq, parent_line), seq, &line);
                    }
                    None => {
                        if let Some(uuid) = line.uuid() {
                            self.waiting_digests.insert(seq, digest(uuid));
                        }
                        self.waiting_for_parent
                            .entry(parent_digest)
                            .or_default()
                            .push((seq, at, offset))
                    }
                }
            }
            if let Some(key) = response_key {
                self.node_response.insert(seq, key);
                self.node_order.push_back(seq);
                if self.node_order.len() > RECENT_NODES {
                    if let Some(old) = self.node_order.pop_front() {
                        self.node_response.remove(&old);
                    }
                }
            }
        }
        if line.is_message() && !line.is_synthetic() {
            let main = *self.main_sidechain.get_or_insert(line.is_sidechain());
            if line.is_sidechain() == main {
                self.link(seq, MESSAGE, seq);
            }
        }
        if line.is_sidechain() {
            self.mark(seq, "sidechain", "a subagent's line".to_string());
        }
        if line.is_api_error() {
            self.say(
                seq,
                Diagnostic::info(at, offset, "api-error", "the API answered with an error"),
            );
        }
        match line.kind {
            "assistant" if !line.is_synthetic() => {
                self.feed_response(record, &line, response_key.unwrap_or_default())
            }
            "user" => self.feed_user(record, &line),
            "cost-state" => self.feed_cost_state(record, &line),
            "queue-operation"
                if line.value.field("operation").and_then(Value::as_str) == Some("enqueue") =>
            {
                self.link(seq, QUEUED, seq)
            }
            "system" if line.is_compact_boundary() => {
                let metadata = line.value.field("compactMetadata");
                let trigger = metadata
                    .and_then(|m| m.field("trigger"))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let tokens = metadata
                    .and_then(|m| m.field("preTokens"))
                    .map(Value::to_string)
                    .unwrap_or_else(|| "?".to_string());
                self.mark(
                    seq,
                    "compaction",
                    format!("{trigger} compaction of {tokens} tokens"),
                );
                if self.record.on {
                    // Seen in 2.1.332: the record holds no line for the summary's request.
                    self.say(
                        seq,
                        Diagnostic::info(
                            at,
                            offset,
                            "summary-request-not-recorded",
                            "the client asked the model for this compaction's summary in a \
                             request its record does not hold: that request is not recorded",
                        ),
                    );
                }
                if node {
                    self.boundaries.insert(seq, (at, offset));
                }
                if line.has_preserved_segment() {
                    self.say(
                        seq,
                        Diagnostic::warning(
                            at,
                            offset,
                            "preserved-segment",
                            "the compaction keeps a segment of the history: the requests after \
                             it send that segment right after the summary, as the client does",
                        ),
                    );
                }
                if let Some(tail) = line.preserved_tail() {
                    match self.node(digest(tail)) {
                        Some((tail_seq, _)) => self.link(seq, PRESERVED, u64::from(tail_seq)),
                        None => self.say(
                            seq,
                            Diagnostic::warning(
                                at,
                                offset,
                                "preserved-segment-missing",
                                format!(
                                    "the compaction keeps a segment of the history ending at \
                                     {tail}, which no earlier line is: the summary is followed \
                                     by what came after it"
                                ),
                            ),
                        ),
                    }
                }
            }
            _ => {}
        }
    }

    fn feed_response(&mut self, record: FoldRecord<'_>, line: &Line<'_>, key: u64) {
        let (seq, at, offset) = (record.seq, record.line, record.offset);
        let usage = line.usage().map(reported_usage);
        let shape = shape(line);
        if line.response_key().is_none() {
            self.say(
                seq,
                Diagnostic::warning(
                    at,
                    offset,
                    "response-without-id",
                    "the line names no request and no message: it is a response of its own",
                ),
            );
        }
        let first = match self.responses.get_mut(&key) {
            Some(response) => {
                response.lines.insert(shape, seq);
                let mismatch = match (&response.usage, &usage) {
                    (Some(before), Some(now)) => usage_mismatch(before, now),
                    _ => false,
                };
                if mismatch && !response.mismatch_said {
                    response.mismatch_said = true;
                    self.found.diagnostics.push((
                        seq,
                        Diagnostic::warning(
                            at,
                            offset,
                            "usage-mismatch",
                            "the usage differs from what an earlier line of this response reported",
                        ),
                    ));
                }
                if usage.is_some() {
                    self.ledger
                        .account(line.model(), response.usage.as_ref(), usage.as_ref());
                    response.usage = usage.clone();
                    response.row.usage = usage;
                }
                if let Some(reason) = line.cache_miss_reason() {
                    response.row.cache_miss_reason = Some(reason.to_string());
                }
                self.found
                    .requests
                    .push((response.at, encode_row(&response.row)));
                response.first
            }
            None => {
                let recorded = self.answered_request(line);
                let row = match &recorded {
                    Some((_, row)) => RequestRow {
                        request_id: line.request_id().map(str::to_string),
                        message_id: line.message_id().map(str::to_string),
                        model: row
                            .model
                            .clone()
                            .or_else(|| line.model().map(str::to_string)),
                        usage: usage.clone(),
                        cache_miss_reason: line.cache_miss_reason().map(str::to_string),
                        ..row.clone()
                    },
                    None => RequestRow {
                        offset: offset.unwrap_or(seq as i64 + 1),
                        request_id: line.request_id().map(str::to_string),
                        message_id: line.message_id().map(str::to_string),
                        model: line.model().map(str::to_string),
                        sidechain: line.is_sidechain(),
                        usage: usage.clone(),
                        created_at: line.timestamp().map(str::to_string),
                        recorded: None,
                        cache_miss_reason: line.cache_miss_reason().map(str::to_string),
                    },
                };
                let at_seq = recorded.as_ref().map_or(seq, |(s, _)| *s);
                if usage.is_none() {
                    self.say(
                        seq,
                        Diagnostic::warning(
                            at,
                            offset,
                            "usage-missing",
                            "the response reports no usage",
                        ),
                    );
                }
                self.found.requests.push((at_seq, encode_row(&row)));
                if recorded.is_none() {
                    self.mark(
                        seq,
                        "request",
                        format!("request {}", line.model().unwrap_or("(no model)")),
                    );
                }
                self.response_order.push_back(key);
                if self.response_order.len() > RECENT_RESPONSES {
                    if let Some(old) = self.response_order.pop_front() {
                        self.responses.remove(&old);
                    }
                }
                self.ledger.account(line.model(), None, usage.as_ref());
                self.responses.insert(
                    key,
                    Response {
                        first: seq,
                        row,
                        usage,
                        mismatch_said: false,
                        lines: HashMap::from([(shape, seq)]),
                        at: at_seq,
                    },
                );
                seq
            }
        };
        self.link(seq, RESPONSE, first);
        for call in line.tool_uses() {
            self.calls.insert(digest(call), seq);
        }
        for call in line.tool_calls() {
            let task = matches!(
                call.field("name").and_then(Value::as_str),
                Some("Task" | "Agent")
            );
            if let Some(prompt) = call
                .field("input")
                .and_then(|i| i.field("prompt"))
                .and_then(Value::as_str)
                .filter(|_| task)
            {
                self.task_prompts.insert(digest(prompt), seq);
            }
        }
    }

    fn feed_user(&mut self, record: FoldRecord<'_>, line: &Line<'_>) {
        let (seq, at, offset) = (record.seq, record.line, record.offset);
        if let Some(agent) = line.spawned_agent() {
            self.mark(seq, super::subagent::SUBAGENT, format!("subagent {agent}"));
        }
        let answered: HashSet<u64> = line.tool_results().map(digest).collect();
        for id in answered {
            if let Some(call) = self.calls.remove(&id) {
                self.link(call, RESULT, seq);
            }
        }
        // An inline sidechain (before agent files): its root's text is the prompt of the Task
        // call that spawned it.
        if line.is_sidechain() && line.parent().is_none() && line.agent_id().is_none() {
            match line
                .first_text()
                .and_then(|text| self.task_prompts.get(&digest(text)).copied())
            {
                Some(task) => self.link(task, SPAWNED, seq),
                None => self.say(
                    seq,
                    Diagnostic::info(
                        at,
                        offset,
                        "sidechain-unlinked",
                        "no Task call before this sidechain has its prompt",
                    ),
                ),
            }
        }
    }
}

/// Whether a later line's usage contradicts an earlier line's of the same response: an
/// input-side count changed, or the output count fell.
fn usage_mismatch(before: &Value, now: &Value) -> bool {
    let field = |usage: &Value, name: &str| usage.field(name).and_then(Value::as_i64);
    let input_changed = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]
    .iter()
    .any(|name| field(before, name) != field(now, name));
    let output_fell = matches!(
        (field(before, "output_tokens"), field(now, "output_tokens")),
        (Some(b), Some(n)) if n < b
    );
    input_changed || output_fell
}

fn encode_row(row: &RequestRow) -> String {
    // Serialising plain data does not fail.
    serde_json::to_string(row).unwrap_or_default()
}

/// Diagnostics about the journal's end rather than their line: each end replaces them.
const PROVISIONAL_CODES: &[&str] = &["parent-not-found", "compaction-without-summary-yet"];

impl Fold for ClaudeFold {
    fn feed(&mut self, record: FoldRecord<'_>, parsed: Option<Parsed<'_>>) {
        let value = parsed.map(Parsed::into_value);
        self.records += 1;
        let Some(value) = value else { return };
        let Some(line) = Line::of(&value) else { return };
        self.feed_line(record, line);
    }

    fn take_found(&mut self) -> Analysis {
        // Full blocks of the log are sealed as they fill, so the log stays short.
        while self.log.len() >= ENTRIES_PER_BLOCK {
            let block: Vec<Entry> = self.log.drain(..ENTRIES_PER_BLOCK).collect();
            self.found
                .checkpoint_blocks
                .push((self.sealed, super::checkpoint::seal(&block)));
            self.sealed += 1;
        }
        std::mem::take(&mut self.found)
    }

    fn end(&mut self) -> Analysis {
        let mut analysis = self.take_found();
        analysis.checkpoints = vec![(self.records, super::checkpoint::encode(self))];
        analysis.checkpoint_replaces = true;
        for waiting in self.waiting_for_parent.values() {
            for &(seq, at, offset) in waiting {
                analysis.diagnostics.push((
                    seq,
                    Diagnostic::warning(
                        at,
                        offset,
                        "parent-not-found",
                        "its parent names no line of this file: the line is read as a root",
                    ),
                ));
            }
        }
        analysis.diagnostics.sort_by_key(|(seq, _)| *seq);
        analysis.provisional_codes = PROVISIONAL_CODES.to_vec();
        analysis.cover = Some(CheckpointCover {
            records: self.records,
            format: FORMAT,
            seekable: true,
        });
        analysis
    }

    fn records(&self) -> u64 {
        self.records
    }
}
