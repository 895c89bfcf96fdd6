//! What a Claude Code transcript shows at a line, read from the store: the conversation the
//! model had in front of it (the chain of parents, completed with the rest of each response and
//! the first answer to each tool call), the projection at an offset, and a request rendered as
//! the Messages API got it. Each walks the links the fold left, reading only the lines of the
//! conversation.

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::fold::{PARENT, REPLAYED, RESPONSE, RESULT};
use super::line::Line;
use super::outgoing;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;
use journalscope_store::store::{Store, StoreError, StoredEvent};
use journalscope_transcript::transcript::requests::{Messages, SentRequest};
use journalscope_transcript::transcript::{
    ConversationItem, ConversationView, RecordedRequest, RequestRow,
};

/// Lines read from the store at a time.
const READ_SLICE: usize = 512;

/// A message of a rendered request.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export, rename = "ConversationMessage")]
pub struct Message {
    pub role: String,
    #[ts(type = "Array<unknown>")]
    pub content: Vec<Value>,
}

/// A request as the Messages API got it: the conversation before its first line, in one
/// alternating list of messages.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationRequest {
    #[ts(type = "number")]
    pub request_offset: i64,
    pub model: Option<String>,
    #[ts(type = "Record<string, number> | null")]
    pub usage: Option<Value>,
    /// Why the provider says the prompt cache missed, where the response gives its reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cache_miss_reason: Option<String>,
    pub messages: Vec<Message>,
    /// The messages exactly as the client sends them, rendered from the conversation by the
    /// client's own rules: the context it adds, attachments as reminders, merged turns, the
    /// cache breakpoint; a string content stays a string. The export's `messages`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(
        type = "Array<{ role: string, content: string | Array<unknown> }>",
        optional
    )]
    pub sent: Option<Vec<Value>>,
    /// The body as the client's own record gives it, where the transcript records its
    /// requests; its messages are `messages`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub recorded: Option<Box<super::rebuild::RecordedBody>>,
    /// Body fields the transcript does not record, by name.
    pub not_recorded: Vec<String>,
    /// A tool call with no later result, or a result with no earlier call.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[ts(as = "Option<Vec<Diagnostic>>", optional)]
    pub diagnostics: Vec<Diagnostic>,
}

impl SentRequest for ConversationRequest {
    /// The body the transcript records its provider got: the whole body where Claude Code
    /// records its requests, less the fields it names as not recorded; else the model and the
    /// messages, as the client sends them where its rendering is known.
    fn body(&self) -> Value {
        match &self.recorded {
            Some(recorded) => recorded.body.clone(),
            None => match &self.sent {
                Some(sent) => serde_json::json!({"model": self.model, "messages": sent}),
                None => serde_json::json!({"model": self.model, "messages": self.messages}),
            },
        }
    }

    /// The request as one side of a diff: its first line, model, and messages as JSON; where
    /// the transcript records the tools and the system prompt, they lead, as they lead the
    /// prompt cache's prefix (a `tools` and a `system` entry).
    fn messages(&self) -> Messages {
        let recorded = self.recorded.iter().flat_map(|recorded| {
            [
                serde_json::json!({"role": "tools", "content": recorded.tools}),
                serde_json::json!({"role": "system", "content": recorded.system}),
            ]
        });
        let messages = self
            .messages
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or(Value::Null));
        (
            self.request_offset,
            self.model.clone(),
            recorded.chain(messages).collect(),
        )
    }

    fn text(&self, out: &mut String) -> std::fmt::Result {
        super::answer::request_text(out, self)
    }
}

/// The lines of the conversation for `leaf`, among the records before seq `end` (the cut-off),
/// in file order: user lines and assistant lines that are model input.
pub fn conversation(
    store: &Store,
    journal_id: i64,
    leaf: Option<u64>,
    end: u64,
) -> Result<Vec<StoredEvent>, StoreError> {
    let mut set = BTreeSet::new();
    let mut at = leaf.filter(|&seq| seq < end);
    while let Some(seq) = at {
        if !set.insert(seq) {
            break;
        }
        at = store
            .link_from(journal_id, PARENT, seq)?
            .filter(|&parent| parent < end);
    }
    // Response completion: every line of each response with a line in the set.
    let mut firsts = BTreeSet::new();
    for &seq in &set {
        if let Some(first) = store.link_from(journal_id, RESPONSE, seq)? {
            firsts.insert(first);
        }
    }
    for first in firsts {
        for seq in store.links_to(journal_id, RESPONSE, first)? {
            if seq < end {
                set.insert(seq);
            }
        }
    }
    let mut lines = read(store, journal_id, &set)?;
    // Result completion: the first line answering each call the set leaves unanswered.
    let answered: HashSet<String> = lines
        .iter()
        .filter_map(|record| record.json())
        .flat_map(|value| {
            Line::of(&value)
                .map(|line| line.tool_results().map(str::to_string).collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .collect();
    let mut results = BTreeSet::new();
    for record in &lines {
        let Some(value) = record.json() else { continue };
        let Some(line) = Line::of(&value) else {
            continue;
        };
        if line.tool_uses().all(|id| answered.contains(id)) {
            continue;
        }
        let mut target = store.link_from(journal_id, RESULT, record.seq)?;
        // A line of several calls has one result link each.
        if line.tool_uses().count() > 1 {
            for answer in store.links_from(journal_id, RESULT, record.seq)? {
                if answer < end && !set.contains(&answer) {
                    results.insert(answer);
                }
            }
            target = None;
        }
        if let Some(answer) = target.filter(|a| *a < end && !set.contains(a)) {
            results.insert(answer);
        }
    }
    if !results.is_empty() {
        lines.extend(read(store, journal_id, &results)?);
        lines.sort_by_key(|record| record.seq);
    }
    let mut kept = Vec::with_capacity(lines.len());
    let mut written_early = Vec::new();
    for record in lines {
        if store.link_from(journal_id, REPLAYED, record.seq)?.is_some() {
            continue;
        }
        let input = record.json().is_some_and(|value| {
            Line::of(&value).is_some_and(|line| line.is_message() && !line.is_synthetic())
        });
        if input {
            match store.link_from(journal_id, PARENT, record.seq)? {
                Some(parent) if parent > record.seq => written_early.push((record, parent)),
                _ => kept.push(record),
            }
        }
    }
    // A line written before its parent follows it in the conversation.
    for (record, parent) in written_early {
        let at = kept
            .iter()
            .position(|r| r.seq == parent)
            .map_or(kept.len(), |at| at + 1);
        kept.insert(at, record);
    }
    Ok(kept)
}

fn read(
    store: &Store,
    journal_id: i64,
    seqs: &BTreeSet<u64>,
) -> Result<Vec<StoredEvent>, StoreError> {
    let seqs: Vec<u64> = seqs.iter().copied().collect();
    let mut out = Vec::with_capacity(seqs.len());
    for slice in store.records_at(journal_id, &seqs, READ_SLICE) {
        out.extend(slice?);
    }
    Ok(out)
}

fn item(record: &StoredEvent) -> Option<ConversationItem> {
    let value = record.json()?;
    let line = Line::of(&value)?;
    Some(ConversationItem {
        offset: record.offset.unwrap_or(record.line as i64),
        uuid: line.uuid().map(str::to_string),
        role: line.kind.to_string(),
        content: line.blocks(),
        timestamp: line.timestamp().map(str::to_string),
        response: (line.kind == "assistant")
            .then(|| line.response_key().map(str::to_string))
            .flatten(),
    })
}

/// The projection at offset `at`: the conversation for the line there when it is a user or
/// assistant line, else for the newest main-thread one before it, cut off at `at`.
pub fn projection(store: &Store, journal_id: i64, at: i64) -> Result<ConversationView, StoreError> {
    let end = store.offset_cut(journal_id, at, None)?.prefix;
    let here = match end.checked_sub(1) {
        Some(last) => store.events_between(journal_id, last, last + 1)?.pop(),
        None => None,
    };
    let leaf = match here.filter(|record| record.offset == Some(at)) {
        Some(record) if is_input(&record) => Some(record.seq),
        _ => match end.checked_sub(1) {
            Some(last) => store.last_linked_at_or_before(journal_id, super::fold::MESSAGE, last)?,
            None => None,
        },
    };
    let lines = conversation(store, journal_id, leaf, end)?;
    Ok(ConversationView {
        at,
        system_known: false,
        system: Vec::new(),
        history: lines.iter().filter_map(item).collect(),
    })
}

fn is_input(record: &StoredEvent) -> bool {
    record.json().is_some_and(|value| {
        Line::of(&value).is_some_and(|line| line.is_message() && !line.is_synthetic())
    })
}

/// The request whose first line is at `request_offset`, rendered from the conversation before
/// it; `None` when no response starts there.
pub fn request(
    store: &Store,
    journal_id: i64,
    request_offset: i64,
) -> Result<Option<ConversationRequest>, StoreError> {
    let Some(seq) = store.seq_at_offset(journal_id, request_offset)? else {
        return Ok(None);
    };
    let stored_row: Option<RequestRow> = store
        .request_row(journal_id, seq)?
        .and_then(|row| serde_json::from_str(&row).ok());
    if let Some(mut row) = stored_row {
        if let Some(recorded) = row.recorded.take() {
            return recorded_request(store, journal_id, (seq, request_offset), row, &recorded)
                .map(Some);
        }
    }
    if store.link_from(journal_id, RESPONSE, seq)? != Some(seq) {
        return Ok(None);
    }
    let row: Option<RequestRow> = store
        .request_row(journal_id, seq)?
        .and_then(|row| serde_json::from_str(&row).ok());
    let leaf = store.link_from(journal_id, PARENT, seq)?;
    let conversation_lines = conversation(store, journal_id, leaf, seq)?;
    let (messages, mut diagnostics) = render(&conversation_lines);
    let model = row.as_ref().and_then(|r| r.model.clone());
    let rendered = sent(store, journal_id, seq, leaf, model.as_deref())?;
    diagnostics.extend(rendered.diagnostics);
    Ok(Some(ConversationRequest {
        request_offset,
        model,
        cache_miss_reason: row.as_ref().and_then(|r| r.cache_miss_reason.clone()),
        usage: row.and_then(|r| r.usage),
        messages,
        sent: rendered.messages,
        recorded: None,
        not_recorded: rendered.not_recorded,
        diagnostics,
    }))
}

/// The messages of a request as the client sends them, and what the transcript leaves
/// unknown of them.
struct Sent {
    messages: Option<Vec<Value>>,
    not_recorded: Vec<String>,
    diagnostics: Vec<Diagnostic>,
}

/// The request at `seq` rendered as the client renders its conversation (`outgoing`), from
/// the chain the client loads (`chain`); none for a release whose rendering is not known.
fn sent(
    store: &Store,
    journal_id: i64,
    seq: u64,
    leaf: Option<u64>,
    model: Option<&str>,
) -> Result<Sent, StoreError> {
    let first = store.event(journal_id, seq)?.and_then(|r| r.json());
    let text_of = |key: &str| {
        first
            .as_ref()
            .and_then(|line| line.field(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let version = text_of("version").unwrap_or_default();
    let release = outgoing::release(&version);
    let mut not_recorded: Vec<String> = UNRECORDED_BY_CONVERSATION
        .iter()
        .map(|n| n.to_string())
        .collect();
    if release < FIRST_RENDERED {
        not_recorded.push("context the client adds to messages (reminders, the date)".to_string());
        return Ok(Sent {
            messages: None,
            not_recorded,
            diagnostics: Vec::new(),
        });
    }
    not_recorded.push(
        "the client's memory files (CLAUDE.md) in its context reminder, and its time zone (the \
         reminder's date is read in UTC)"
            .to_string(),
    );
    if !(OBSERVED_RULES.0..=OBSERVED_RULES.1).contains(&release) {
        not_recorded.push(format!(
            "how {} renders its lines for the model: the sent messages follow the rules of \
             Claude Code 2.1.177 to 2.1.220",
            if version.is_empty() {
                "this client".to_string()
            } else {
                format!("Claude Code {version}")
            }
        ));
    }
    let chain = super::chain::lines(store, journal_id, leaf, seq)?;
    let values: Vec<(&StoredEvent, Value)> = chain
        .iter()
        .filter_map(|record| record.json().map(|value| (record, value)))
        .collect();
    let timestamp = text_of("timestamp").or_else(|| {
        values.iter().rev().find_map(|(_, v)| {
            v.field("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    });
    let date: String = timestamp.unwrap_or_default().chars().take(10).collect();
    // The run of the client that sent the request began at its latest queued prompt.
    let run_start = match seq.checked_sub(1) {
        Some(before) => store
            .last_linked_at_or_before(journal_id, super::fold::QUEUED, before)?
            .unwrap_or(0),
        None => 0,
    };
    let live_from = values
        .iter()
        .position(|(record, _)| record.seq >= run_start)
        .unwrap_or(values.len());
    let lines: Vec<&Value> = values.iter().map(|(_, v)| v).collect();
    let out = outgoing::messages(
        &lines,
        &outgoing::Rendering {
            model: model.unwrap_or(""),
            version: release,
            date: &date,
            live_from,
        },
    );
    let mut diagnostics = Vec::new();
    for (at, kind) in out.unrendered {
        if let Some((record, _)) = values.get(at) {
            let offset = record.offset.unwrap_or(record.line as i64);
            diagnostics.push(Diagnostic::warning(
                record.line,
                Some(offset),
                "attachment-not-rendered",
                format!(
                    "an attachment of type {kind} reaches the model in a form not known here: \
                     the request leaves it out"
                ),
            ));
        }
    }
    Ok(Sent {
        messages: Some(out.messages),
        not_recorded,
        diagnostics,
    })
}

/// The releases whose rendering of their conversation was read and checked against the
/// requests they sent.
const OBSERVED_RULES: ((u64, u64, u64), (u64, u64, u64)) = ((2, 1, 177), (2, 1, 220));

/// The first release the sent messages are rendered for: the 1.0 line's client is not known
/// to add the same context in the same places.
const FIRST_RENDERED: (u64, u64, u64) = (2, 0, 0);

/// A message as sent, as the window shows it: its content as blocks.
fn message_of(message: &Value) -> Message {
    Message {
        role: message
            .field("role")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string(),
        content: match message.field("content") {
            Some(content) => super::hash::content_blocks(content),
            None => Vec::new(),
        },
    }
}

/// What a request rendered from the conversation lacks: the transcript of a client that does
/// not record its requests holds none of it.
pub const UNRECORDED_BY_CONVERSATION: &[&str] = &[
    "system",
    "tools",
    "max_tokens",
    "thinking",
    "metadata",
    "stream",
    "other parameters",
];

/// A request the transcript records: its body rebuilt from its record, or, when the record
/// cannot give it, the conversation before its response with a diagnostic saying why.
fn recorded_request(
    store: &Store,
    journal_id: i64,
    (seq, request_offset): (u64, i64),
    row: RequestRow,
    recorded: &RecordedRequest,
) -> Result<ConversationRequest, StoreError> {
    let Some(line) = store.event(journal_id, seq)?.and_then(|r| r.json()) else {
        let not_recorded = super::rebuild::not_recorded(&Value::Null);
        return Ok(unbuilt(
            request_offset,
            row,
            not_recorded,
            "its line is not stored",
        ));
    };
    match super::rebuild::rebuild(store, journal_id, &line, recorded)? {
        Ok(body) => {
            let messages = body
                .body
                .field("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(message_of)
                .collect();
            let mut diagnostics = Vec::new();
            if body.digest.is_some() && !body.digest_verified {
                diagnostics.push(Diagnostic::warning(
                    request_offset as u64,
                    Some(request_offset),
                    "request-digest-differs",
                    "the rebuilt body does not give the digest the client recorded: some part \
                     of it is not as sent",
                ));
            }
            Ok(ConversationRequest {
                request_offset,
                model: row.model.clone(),
                usage: row.usage.clone(),
                cache_miss_reason: row.cache_miss_reason.clone(),
                messages,
                sent: None,
                not_recorded: super::rebuild::not_recorded(&line),
                recorded: Some(Box::new(body)),
                diagnostics,
            })
        }
        Err(why) => Ok(unbuilt(
            request_offset,
            row,
            super::rebuild::not_recorded(&line),
            &why,
        )),
    }
}

/// A recorded request that cannot be rebuilt: no messages, and a diagnostic saying why.
fn unbuilt(
    request_offset: i64,
    row: RequestRow,
    not_recorded: Vec<String>,
    why: &str,
) -> ConversationRequest {
    ConversationRequest {
        request_offset,
        model: row.model,
        cache_miss_reason: row.cache_miss_reason,
        usage: row.usage,
        messages: Vec::new(),
        sent: None,
        recorded: None,
        not_recorded,
        diagnostics: vec![Diagnostic::error(
            request_offset as u64,
            Some(request_offset),
            "request-record-broken",
            format!("the request cannot be rebuilt from the transcript: {why}"),
        )],
    }
}

/// The conversation's lines as one alternating list of messages: a response is one assistant
/// message as the model produced it, and the user lines that came while it was open (its tool
/// results) follow it as one user message.
pub fn render(lines: &[StoredEvent]) -> (Vec<Message>, Vec<Diagnostic>) {
    let mut messages: Vec<Message> = Vec::new();
    let mut open: Option<String> = None;
    let mut waiting: Vec<Value> = Vec::new();
    let mut calls: Vec<(String, u64, i64)> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    for record in lines {
        let Some(value) = record.json() else { continue };
        let Some(line) = Line::of(&value) else {
            continue;
        };
        let offset = record.offset.unwrap_or(record.line as i64);
        let blocks = line.blocks();
        match line.kind {
            "assistant" => {
                for id in line.tool_uses() {
                    calls.push((id.to_string(), record.line, offset));
                }
                let key = line
                    .response_key()
                    .map_or_else(|| format!("line {offset}"), str::to_string);
                let last_is_assistant = messages.last().is_some_and(|m| m.role == "assistant");
                if last_is_assistant && open.as_deref() == Some(key.as_str()) {
                    extend(&mut messages, blocks);
                } else if !waiting.is_empty() {
                    messages.push(Message {
                        role: "user".to_string(),
                        content: std::mem::take(&mut waiting),
                    });
                    messages.push(Message {
                        role: "assistant".to_string(),
                        content: blocks,
                    });
                } else if last_is_assistant {
                    extend(&mut messages, blocks);
                } else {
                    messages.push(Message {
                        role: "assistant".to_string(),
                        content: blocks,
                    });
                }
                open = Some(key);
            }
            _ => {
                for id in line.tool_results() {
                    if !calls.iter().any(|(call, ..)| call == id) {
                        diagnostics.push(Diagnostic::warning(
                            record.line,
                            Some(offset),
                            "tool-result-orphan",
                            format!("a result for tool call {id}, which no earlier line makes"),
                        ));
                    }
                    answered.insert(id.to_string());
                }
                if messages.last().is_some_and(|m| m.role == "assistant") {
                    waiting.extend(blocks);
                } else if let Some(last) = messages.last_mut() {
                    last.content.extend(blocks);
                } else {
                    messages.push(Message {
                        role: "user".to_string(),
                        content: blocks,
                    });
                }
            }
        }
    }
    if !waiting.is_empty() {
        messages.push(Message {
            role: "user".to_string(),
            content: waiting,
        });
    }
    for (id, line, offset) in calls {
        if !answered.contains(&id) {
            diagnostics.push(Diagnostic::warning(
                line,
                Some(offset),
                "tool-result-missing",
                format!("tool call {id} has no result before the request"),
            ));
        }
    }
    (messages, diagnostics)
}

fn extend(messages: &mut [Message], blocks: Vec<Value>) {
    if let Some(last) = messages.last_mut() {
        last.content.extend(blocks);
    }
}
