//! The context size of every request, by lane (what the context-size plot, the report chart
//! and `sizes` draw), measured on the rendered requests read from the store.
//!
//! Sizes are measured in UTF-8 bytes of the rendered message *contents* (an item's header line,
//! a newline and its content, as `render` builds them), before JSON escaping, and in tokens as
//! each request counts its messages. A prefix break is deliberately minimal: request r breaks
//! the prefix when its provider body does not start with request r-1's body up to (not
//! including) r-1's last message, the request-time message that always changes.

use serde::Serialize;
use ts_rs::TS;

use super::event::Role;
use super::render::RequestSnapshot;
use super::roles::Rule;
use super::view::RequestSummary;
use super::Transport;
use journalscope_store::store::{Store, StoreError};

/// How big one request's context was, by lane: a bar of the context-size plot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ContextSizes {
    #[ts(type = "number")]
    pub request_offset: i64,
    pub model: Option<String>,
    #[ts(type = "number")]
    pub messages: u64,
    /// The protocol message and the request-time message: the same shape on every request.
    #[ts(type = "number")]
    pub frame_bytes: u64,
    /// System-lane items.
    #[ts(type = "number")]
    pub system_bytes: u64,
    /// History-lane items that are not compaction summaries.
    #[ts(type = "number")]
    pub history_bytes: u64,
    /// Compaction summaries standing in for dropped history.
    #[ts(type = "number")]
    pub summary_bytes: u64,
    #[ts(type = "number")]
    pub total_bytes: u64,
    /// The same lanes in tokens, counted with `tokenizer`: message content only.
    #[ts(type = "number")]
    pub frame_tokens: u64,
    #[ts(type = "number")]
    pub system_tokens: u64,
    #[ts(type = "number")]
    pub history_tokens: u64,
    #[ts(type = "number")]
    pub summary_tokens: u64,
    /// What the chat format adds: per message its markers and role, once the reply's priming.
    #[ts(type = "number")]
    pub framing_tokens: u64,
    /// Every lane and the framing: the input the provider bills for this body.
    #[ts(type = "number")]
    pub total_tokens: u64,
    pub tokenizer: journalscope_shapes::tokens::Tokenizer,
    /// The input and cached input the journal reports for this request, when it does.
    #[ts(type = "number | null")]
    pub reported_input: Option<u64>,
    #[ts(type = "number | null")]
    pub reported_cached: Option<u64>,
    /// The context window the journal reports for this request's model.
    #[ts(type = "number | null")]
    pub max_context: Option<u64>,
    /// Tokens of the messages this body shares, from the first, with the previous one: what a
    /// provider's prefix cache can serve.
    #[ts(type = "number")]
    pub common_prefix_tokens: u64,
    /// Valid compactions folded in since the previous request.
    #[ts(type = "number")]
    pub compactions_before: u64,
    /// The previous request in the journal, whatever the range.
    #[ts(type = "number | null")]
    pub previous_request: Option<i64>,
    /// Longest common prefix, in bytes, of this provider body and the previous one.
    #[ts(type = "number")]
    pub common_prefix_bytes: u64,
    /// This body does not start with the previous body's stable part (all but its last,
    /// request-time, message): a provider's prefix cache cannot reuse it.
    pub prefix_break: bool,
    /// With a break: the index of the first message of the previous request that differs.
    #[ts(type = "number | null")]
    pub first_changed_message: Option<u64>,
}

/// The input items of a request rendered as a Responses-API body, one message each: such a
/// request has no frame, and the promise it keeps is that its input starts with every input
/// item of the one before.
fn input_items(snapshot: &RequestSnapshot) -> Option<&Vec<serde_json::Value>> {
    snapshot
        .responses_body
        .as_ref()?
        .get("input")?
        .as_array()
        .filter(|input| input.len() == snapshot.messages.len())
}

/// Measures each lane of one rendered request, by `size` of each message.
fn lanes(snapshot: &RequestSnapshot, size: impl Fn(usize) -> u64) -> (u64, u64, u64, u64) {
    let (mut frame, mut system, mut history, mut summary) = (0u64, 0u64, 0u64, 0u64);
    if input_items(snapshot).is_some() {
        // Each input item is its own message: the developer ones (the head's sections, the
        // stamps, instructions) stand where a chat request's system lane does.
        for (index, message) in snapshot.messages.iter().enumerate() {
            match message.role {
                Role::System | Role::Developer => system += size(index),
                _ => history += size(index),
            }
        }
        return (frame, system, history, summary);
    }
    let last = snapshot.messages.len().saturating_sub(1);
    for index in 0..snapshot.messages.len() {
        let bytes = size(index);
        // `items[i]` describes `messages[i + 1]`; the first and last messages are the frame.
        let item = index
            .checked_sub(1)
            .filter(|_| index < last)
            .and_then(|i| snapshot.items.get(i));
        match item {
            None => frame += bytes,
            Some(item) if item.lane == "system" => system += bytes,
            Some(item) if item.rule == Rule::CompactionSummaryDowngrade => summary += bytes,
            Some(_) => history += bytes,
        }
    }
    (frame, system, history, summary)
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The part of a body the next request should repeat: everything before its last message.
fn stable_prefix(snapshot: &RequestSnapshot) -> Vec<u8> {
    let mut head = snapshot.clone();
    head.messages.pop();
    let mut body = head.body();
    // `…,"messages":[m0,…,mk]}` → `…,"messages":[m0,…,mk` : the next body continues after it.
    body.truncate(body.len().saturating_sub(2));
    body
}

/// The context sizes of every request with an offset in `range` (either end open), measured on
/// `transport`. Each request is compared with the one before it in the journal, even when that
/// one is outside the range. One fold of the stored records from the checkpoint before the
/// range renders them all; where the checkpoints cannot answer, each request is asked for in
/// turn.
pub fn context_sizes(
    store: &Store,
    journal_id: i64,
    range: (Option<i64>, Option<i64>),
    transport: Transport,
) -> Result<Vec<ContextSizes>, StoreError> {
    let requests = super::answer::requests(store, journal_id)?;
    let summaries: std::collections::HashMap<i64, &RequestSummary> =
        requests.iter().map(|r| (r.offset, r)).collect();
    let inside = |offset: i64| {
        range.0.is_none_or(|from| offset >= from) && range.1.is_none_or(|to| offset <= to)
    };
    let mut sizes = Vec::new();
    let mut previous: Option<(i64, RequestSnapshot, Vec<u8>)> = None;
    super::stored::walk_requests(
        store,
        journal_id,
        range,
        &[transport],
        |offset, mut snapshots| {
            let (Some(snapshot), Some(summary)) = (snapshots.pop(), summaries.get(&offset)) else {
                return;
            };
            let body = snapshot.body();
            if inside(offset) {
                sizes.push(measure(summary, &snapshot, &body, previous.as_ref()));
            }
            previous = Some((offset, snapshot, body));
        },
    )?;
    Ok(sizes)
}

fn measure(
    summary: &RequestSummary,
    snapshot: &RequestSnapshot,
    body: &[u8],
    previous: Option<&(i64, RequestSnapshot, Vec<u8>)>,
) -> ContextSizes {
    let (frame, system, history, summary_bytes) =
        lanes(snapshot, |i| snapshot.messages[i].content.len() as u64);
    let tokens = &snapshot.tokens;
    let usage = summary.reported;
    let (frame_tokens, system_tokens, history_tokens, summary_tokens) = lanes(snapshot, |i| {
        u64::from(tokens.messages.get(i).copied().unwrap_or(0))
    });
    let total = frame + system + history + summary_bytes;
    // Input items are compared whole (ids and breakpoints included), messages by their text.
    let shared_messages = previous.map_or(0, |(_, before, _)| {
        match (input_items(before), input_items(snapshot)) {
            (Some(earlier), Some(later)) => earlier
                .iter()
                .zip(later)
                .take_while(|(a, b)| a == b)
                .count(),
            _ => before
                .messages
                .iter()
                .zip(&snapshot.messages)
                .take_while(|(a, b)| a == b)
                .count(),
        }
    });
    let common_prefix_tokens = snapshot.prefix_tokens(shared_messages);
    let (common, prefix_break, first_changed) = match previous {
        None => (0, false, None),
        Some((_, before, before_body)) => {
            let common = common_prefix(before_body, body) as u64;
            let broken = match input_items(before) {
                Some(earlier) => shared_messages < earlier.len(),
                None => !body.starts_with(&stable_prefix(before)),
            };
            let changed = broken.then_some(shared_messages as u64);
            (common, broken, changed)
        }
    };
    ContextSizes {
        request_offset: summary.offset,
        model: summary.model.clone(),
        messages: snapshot.messages.len() as u64,
        frame_bytes: frame,
        system_bytes: system,
        history_bytes: history,
        summary_bytes,
        total_bytes: total,
        frame_tokens,
        system_tokens,
        history_tokens,
        summary_tokens,
        framing_tokens: tokens.framing,
        total_tokens: tokens.total,
        tokenizer: tokens.tokenizer.clone(),
        reported_input: usage.and_then(|u| u.input),
        reported_cached: usage.and_then(|u| u.cached_input),
        max_context: usage.and_then(|u| u.max_context),
        common_prefix_tokens,
        compactions_before: summary.compactions_before,
        previous_request: previous.map(|(offset, _, _)| *offset),
        common_prefix_bytes: common,
        prefix_break,
        first_changed_message: first_changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_bodies_when_comparing_then_the_common_prefix_stops_at_the_first_difference() {
        assert_eq!(
            common_prefix(b"abcd", b"abxd"),
            2,
            "stops at the first byte that differs"
        );
        assert_eq!(
            common_prefix(b"ab", b"abcd"),
            2,
            "a prefix is common entirely"
        );
        assert_eq!(common_prefix(b"", b"x"), 0, "nothing is common with empty");
    }
}
