//! Claude Code's own record of its requests (2.1.3xx): `api-request-shape` lines (system prompt
//! and tools, by `shapeHash`), `api-request-blob` lines (a message as sent, by `hash`) and
//! `api-request` lines (the parameters, the request it extends, how many of its messages stay
//! and the hashes of those added, the cache marks). The fold resolves each request's hashes to
//! the lines that hold them, as it reads them; messages without a blob are the transcript's own
//! user and assistant lines, hashed run by run.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fold::ClaudeFold;
use super::hash::{content_blocks, message_hash};
use super::line::{digest, Line};
use journalscope_seam::interpreter::FoldRecord;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;
use journalscope_transcript::transcript::{MessageLines, RecordedRequest, RequestRow};

/// Line types of the request record.
pub const SHAPE: &str = "api-request-shape";
pub const BLOB: &str = "api-request-blob";
pub const REQUEST: &str = "api-request";

/// A request's full list of message lines is stored every this many requests of a chain, so
/// that rebuilding one reads at most this many requests' rows.
const FULL_EVERY: u32 = 16;

/// Recent requests whose message lines the fold keeps, for a request that extends one of them.
const RECENT_REQUESTS: usize = 8;

/// The digest a hash is found by, apart from the digests of uuids.
pub(super) fn hash_key(kind: &str, hash: &str) -> u64 {
    digest(&format!("{kind} {hash}"))
}

/// The run of user or assistant lines that is the newest message so far: consecutive user
/// lines are one message, consecutive assistant lines one while their message id stays.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Run {
    role: String,
    id: Option<String>,
    blocks: Vec<Value>,
    first: u64,
}

/// What the fold keeps of the request record between lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct RecordState {
    /// The transcript records its requests: its messages are hashed from here on.
    pub(super) on: bool,
    pub(super) run: Option<Run>,
    /// Blobs written since the last request: their hash key and seq.
    pub(super) blobs: Vec<(String, u64)>,
    /// The latest requests: seq, depth since a full list, message lines.
    pub(super) recent: VecDeque<(u64, u32, Vec<MessageLines>)>,
    /// Requests not answered yet, by seq: their rows.
    pub(super) open: VecDeque<(u64, RequestRow)>,
    /// How the client was started, as the latest line that says so.
    pub(super) entrypoint: Option<String>,
    /// The characters of the conversation's first prompt its billing block derives from.
    pub(super) prompt_chars: Option<String>,
}

/// The characters at UTF-16 positions 4, 7 and 20 of a prompt (`0` past its end): the client
/// derives its billing block's fingerprint from them.
pub fn prompt_chars(text: &str) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    [4, 7, 20]
        .iter()
        .map(|&i| match units.get(i) {
            Some(&unit) => String::from_utf16_lossy(&[unit]),
            None => "0".to_string(),
        })
        .collect()
}

impl ClaudeFold {
    /// Notes a user or assistant line into the run it belongs to, and the hash of the run so
    /// far; a compaction boundary ends the run.
    pub(super) fn note_for_record(&mut self, seq: u64, line: &Line<'_>) {
        if let Some(entrypoint) = line.value.field("entrypoint").and_then(Value::as_str) {
            if self.record.entrypoint.as_deref() != Some(entrypoint) {
                self.record.entrypoint = Some(entrypoint.to_string());
            }
        }
        if line.is_compact_boundary() {
            self.record.run = None;
            self.record.prompt_chars = None;
            return;
        }
        let meta = line.value.field("isMeta").and_then(Value::as_bool) == Some(true);
        if line.kind == "user" && !meta && self.record.prompt_chars.is_none() {
            let text = match line.value.field("message").and_then(|m| m.field("content")) {
                Some(Value::String(text)) => text.as_str(),
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .find(|b| b.field("type").and_then(Value::as_str) == Some("text"))
                    .and_then(|b| b.field("text"))
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                _ => "",
            };
            self.record.prompt_chars = Some(prompt_chars(text));
        }
        if !self.record.on {
            return;
        }
        if !line.is_message() {
            return;
        }
        let Some(message) = line.value.field("message") else {
            self.record.run = None;
            return;
        };
        let (Some(role), Some(content)) = (
            message.field("role").and_then(Value::as_str),
            message.field("content"),
        ) else {
            self.record.run = None;
            return;
        };
        let id = message.field("id").and_then(Value::as_str);
        let blocks = content_blocks(content);
        let same = self.record.run.as_ref().is_some_and(|run| {
            run.role == role && (role == "user" || (id.is_some() && run.id.as_deref() == id))
        });
        if !same {
            self.record.run = Some(Run {
                role: role.to_string(),
                id: id.map(str::to_string),
                blocks: Vec::new(),
                first: seq,
            });
        }
        let Some(run) = self.record.run.as_mut() else {
            return;
        };
        run.blocks.extend(blocks);
        let hash = message_hash(&serde_json::json!({"role": role, "content": run.blocks}));
        let first = run.first;
        self.remember(hash_key("message", &hash), first, seq);
    }

    /// Registers `key` as found at `seq` (to `last`, for a run), in the fold's lasting map.
    fn remember(&mut self, key: u64, seq: u64, last: u64) {
        self.nodes.insert(key, (seq as u32, last as u32));
        self.log
            .push(super::checkpoint::Entry::Node(key, seq as u32, last as u32));
    }

    /// Folds a line of the request record; `false` when the line is none of its types.
    pub(super) fn feed_record(&mut self, record: FoldRecord<'_>, line: &Line<'_>) -> bool {
        let seq = record.seq;
        match line.kind {
            SHAPE => {
                self.record.on = true;
                if let Some(hash) = line.value.field("shapeHash").and_then(Value::as_str) {
                    // A shape's entry keeps its line where a run keeps its last seq.
                    self.remember(hash_key("shape", hash), seq, record.line);
                }
                true
            }
            BLOB => {
                self.record.on = true;
                if let Some(hash) = line.value.field("hash").and_then(Value::as_str) {
                    self.remember(hash_key("blob", hash), seq, seq);
                    self.record.blobs.push((hash.to_string(), seq));
                }
                true
            }
            REQUEST => {
                self.record.on = true;
                self.feed_request(record, line);
                true
            }
            _ => false,
        }
    }

    fn feed_request(&mut self, record: FoldRecord<'_>, line: &Line<'_>) {
        let (seq, at, offset) = (record.seq, record.line, record.offset);
        let value = line.value;
        let mut problems = Vec::new();
        let (shape, shape_offset) = match value.field("shapeHash").and_then(Value::as_str) {
            Some(hash) => match self.node(hash_key("shape", hash)) {
                Some((shape, line)) => (Some(u64::from(shape)), Some(i64::from(line))),
                None => {
                    problems.push(format!("its shape {hash} is on no earlier line"));
                    (None, None)
                }
            },
            None => {
                problems.push("it names no shape".to_string());
                (None, None)
            }
        };
        let keep = value.field("keep").and_then(Value::as_u64).unwrap_or(0) as u32;
        let base = match value.field("base").and_then(Value::as_str) {
            Some(id) => match self.node(hash_key("request", id)) {
                Some((base, _)) => Some(u64::from(base)),
                None => {
                    problems.push(format!(
                        "the request it extends, {id}, is on no earlier line"
                    ));
                    None
                }
            },
            None if keep > 0 => {
                problems.push(format!("it keeps {keep} messages but extends no request"));
                None
            }
            None => None,
        };
        let cache_marked: Vec<u64> = value
            .field("cacheControl")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|mark| {
                let path = mark.field("path")?.as_array()?;
                (path.first()?.as_str()? == "messages"
                    && path.get(2).and_then(Value::as_str) == Some("content"))
                .then(|| path.get(1)?.as_u64())?
            })
            .collect();
        let written: Vec<(String, u64)> = std::mem::take(&mut self.record.blobs);
        let mut tail = Vec::new();
        for (index, hash) in value
            .field("tail")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let Some(hash) = hash.as_str() else {
                problems.push(format!("tail entry {index} is not a hash"));
                continue;
            };
            let position = u64::from(keep) + index as u64;
            if let Some((blob, _)) = self.node(hash_key("blob", hash)) {
                let blob = u64::from(blob);
                // A blob written with this request, while it carried the cache mark, holds its
                // text as a block; the client keeps a one-text message a plain string.
                if written.iter().any(|(h, _)| h == hash) && cache_marked.contains(&position) {
                    self.remember(hash_key("plain", hash), blob, blob);
                }
                let plain = self.node(hash_key("plain", hash)).is_some();
                tail.push(MessageLines {
                    first: blob,
                    last: blob,
                    whole: true,
                    plain,
                });
            } else if let Some((first, last)) = self.node(hash_key("message", hash)) {
                tail.push(MessageLines {
                    first: u64::from(first),
                    last: u64::from(last),
                    whole: false,
                    plain: false,
                });
            } else {
                problems.push(format!(
                    "message {} ({hash}) is neither a blob nor a run of earlier lines",
                    position
                ));
            }
        }
        // The base's messages, where the fold still has them: the keep is checked against
        // them, and every few requests the whole list is stored.
        let based = base.and_then(|base| {
            self.record
                .recent
                .iter()
                .find(|(seq, ..)| *seq == base)
                .map(|(_, depth, lines)| (*depth, lines.clone()))
        });
        let mut all = None;
        let mut depth = 0;
        match based {
            _ if keep == 0 => all = Some(tail.clone()),
            Some((base_depth, lines)) => {
                if keep as usize > lines.len() {
                    problems.push(format!(
                        "it keeps {keep} messages of a request that has {}",
                        lines.len()
                    ));
                }
                let mut full: Vec<MessageLines> = lines.into_iter().take(keep as usize).collect();
                full.extend(tail.iter().copied());
                depth = base_depth + 1;
                all = Some(full);
            }
            None => {}
        }
        let messages = all.as_ref().map(|lines| lines.len() as u32);
        if let Some(lines) = &all {
            self.record
                .recent
                .push_back((seq, depth % FULL_EVERY, lines.clone()));
            if self.record.recent.len() > RECENT_REQUESTS {
                self.record.recent.pop_front();
            }
        }
        let stored_all = all.filter(|_| depth % FULL_EVERY == 0 || base.is_none());
        if let Some(id) = value.field("id").and_then(Value::as_str) {
            self.remember(hash_key("request", id), seq, seq);
        }
        if !problems.is_empty() {
            self.found.diagnostics.push((
                seq,
                Diagnostic::error(
                    at,
                    offset,
                    "request-record-broken",
                    format!(
                        "the request cannot be rebuilt from the transcript: {}",
                        problems.join("; ")
                    ),
                ),
            ));
        }
        let params = value.field("params");
        let row = RequestRow {
            offset: offset.unwrap_or(seq as i64 + 1),
            request_id: None,
            message_id: None,
            model: params
                .and_then(|p| p.field("model"))
                .and_then(Value::as_str)
                .map(str::to_string),
            sidechain: line.is_sidechain() || value.field("agentId").is_some(),
            usage: None,
            created_at: line.timestamp().map(str::to_string),
            recorded: Some(RecordedRequest {
                shape,
                shape_offset,
                base,
                keep,
                tail,
                all: stored_all,
                messages,
                entrypoint: self.record.entrypoint.clone(),
                prompt_chars: self.record.prompt_chars.clone(),
            }),
            cache_miss_reason: None,
        };
        self.found.requests.push((seq, encode(&row)));
        self.found.marks.push(journalscope_store::derived::Mark {
            seq,
            kind: "request".to_string(),
            note: format!(
                "request {} (recorded)",
                row.model.as_deref().unwrap_or("(no model)")
            ),
        });
        self.record.open.push_back((seq, row));
        if self.record.open.len() > RECENT_REQUESTS * 4 {
            self.record.open.pop_front();
        }
    }

    /// The recorded request an assistant line answers (its `requestRef`), taken off the open
    /// ones: its seq and row.
    pub(super) fn answered_request(&mut self, line: &Line<'_>) -> Option<(u64, RequestRow)> {
        let id = line.value.field("requestRef")?.as_str()?;
        let (seq, _) = self.node(hash_key("request", id))?;
        let seq = u64::from(seq);
        let at = self.record.open.iter().position(|(s, _)| *s == seq)?;
        self.record.open.remove(at)
    }
}

fn encode(row: &RequestRow) -> String {
    // Serialising plain data does not fail.
    serde_json::to_string(row).unwrap_or_default()
}
