//! Reports and sharing: the context size of every request (what the plot and the report
//! chart draw), a self-contained HTML report of a journal or an offset range (`html`), and a
//! verbatim JSONL slice of an offset range (`slice`).
//!
//! Sizes are measured in UTF-8 bytes of the rendered message *contents* (an item's header line,
//! a newline and its content, as `render` builds them), before JSON escaping; `estimated_tokens`
//! is those bytes divided by four, rounded up, a rough figure for people and not any
//! tokenizer's count. A prefix break is deliberately minimal: request r breaks the prefix when
//! its provider body does not start with request r-1's body up to (not including) r-1's last
//! message, the request-time message that always changes.

pub mod html;
pub mod slice;

use journalscope_registry::dialect::Registered as _;
use serde::Serialize;
use ts_rs::TS;

use crate::journal::{Journal, JournalError};
use journalscope_iterate::iterate::event::Role;
use journalscope_iterate::iterate::render::RequestSnapshot;
use journalscope_iterate::iterate::roles::Rule;
use journalscope_iterate::iterate::view::RequestSummary;
use journalscope_iterate::iterate::Transport;
use journalscope_registry::dialect::{Dialect, Mark, View};
use journalscope_shapes::diagnostic::{Diagnostic, Severity};

/// An offset range, both ends inclusive; a missing end is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[ts(export)]
pub struct OffsetRange {
    #[ts(type = "number | null")]
    pub from: Option<i64>,
    #[ts(type = "number | null")]
    pub to: Option<i64>,
}

impl OffsetRange {
    pub fn all() -> OffsetRange {
        OffsetRange::default()
    }

    pub fn contains(&self, offset: i64) -> bool {
        self.from.is_none_or(|f| offset >= f) && self.to.is_none_or(|t| offset <= t)
    }

    pub fn is_all(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

    /// `@3 … @21`, `@3 … end`, `whole journal`.
    pub fn label(&self) -> String {
        match (self.from, self.to) {
            (None, None) => "whole journal".to_string(),
            (from, to) => format!(
                "{} … {}",
                from.map_or_else(|| "start".to_string(), |f| format!("@{f}")),
                to.map_or_else(|| "end".to_string(), |t| format!("@{t}"))
            ),
        }
    }

    /// The events a range selects, in file order: those whose offset lies in the range, and
    /// those without an offset (unreadable lines) that sit between two selected ones, or
    /// before the first / after the last when that end of the range is open.
    pub fn seqs(&self, journal: &Journal) -> Result<Vec<u64>, JournalError> {
        let rows = journal.store().seq_offsets(journal.row().id)?;
        let inside = |o: &Option<i64>| o.is_some_and(|o| self.contains(o));
        let first = match self.from {
            None => Some(0),
            Some(_) => rows.iter().position(|(_, o)| inside(o)),
        };
        let last = match self.to {
            None => rows.len().checked_sub(1),
            Some(_) => rows.iter().rposition(|(_, o)| inside(o)),
        };
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(Vec::new());
        };
        if last < first {
            return Ok(Vec::new());
        }
        Ok(rows[first..=last]
            .iter()
            .filter(|(_, o)| o.is_none() || inside(o))
            .map(|(seq, _)| *seq)
            .collect())
    }
}

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

/// The context sizes of every request in `range`, measured on `transport`. Each request is
/// compared with the one before it in the journal, even when that one is outside the range.
/// One fold of the stored records from the checkpoint before the range renders them all;
/// where the checkpoints cannot answer, each request is asked for in turn.
pub fn context_sizes(
    journal: &Journal,
    range: OffsetRange,
    transport: Transport,
) -> Result<Vec<ContextSizes>, JournalError> {
    let requests = journal.requests()?;
    let summaries: std::collections::HashMap<i64, &RequestSummary> =
        requests.iter().map(|r| (r.offset, r)).collect();
    let mut sizes = Vec::new();
    let mut previous: Option<(i64, RequestSnapshot, Vec<u8>)> = None;
    journal.walk_requests(
        (range.from, range.to),
        &[transport],
        |offset, mut snapshots| {
            let (Some(snapshot), Some(summary)) = (snapshots.pop(), summaries.get(&offset)) else {
                return;
            };
            let body = snapshot.body();
            if range.contains(offset) {
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

/// One request row of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportRequest {
    pub summary: RequestSummary,
    pub sizes: ContextSizes,
}

/// One compaction of the report.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportCompaction {
    #[ts(type = "number")]
    pub offset: i64,
    #[ts(type = "number | null")]
    pub cutoff: Option<i64>,
    pub valid: bool,
    pub invalid_reason: Option<String>,
    #[ts(type = "number")]
    pub dropped: u64,
    #[ts(type = "number")]
    pub kept: u64,
    #[ts(type = "number")]
    pub collapsed: u64,
    /// The summary's first characters.
    pub summary_excerpt: Option<String>,
    /// The request whose input crossed the threshold, the tokens the compaction left, and
    /// what its summary costs.
    pub tokens: journalscope_iterate::iterate::view::CompactionTokens,
}

/// An item sent with a provider role other than its product role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportDowngrade {
    #[ts(type = "number")]
    pub offset: i64,
    pub product_role: String,
    pub provider_role: String,
    pub rule: Rule,
    pub explanation: String,
    /// The first request in the range that sent it so.
    #[ts(type = "number")]
    pub first_request: i64,
    /// How many requests in the range sent it.
    #[ts(type = "number")]
    pub requests: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TransportDowngrades {
    pub transport: Transport,
    pub downgrades: Vec<ReportDowngrade>,
}

/// A mark with the offset of its event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ReportMark {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    pub kind: String,
    pub note: String,
}

/// Everything a report shows, also what `report --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Report {
    pub file_name: String,
    pub dialect: Dialect,
    pub framing: String,
    pub range: OffsetRange,
    /// Events the range selects.
    #[ts(type = "number")]
    pub events: u64,
    #[ts(type = "number")]
    pub journal_events: u64,
    #[ts(type = "number | null")]
    pub first_offset: Option<i64>,
    #[ts(type = "number | null")]
    pub last_offset: Option<i64>,
    #[ts(type = "number")]
    pub errors: u64,
    #[ts(type = "number")]
    pub warnings: u64,
    pub diagnostics: Vec<Diagnostic>,
    /// Marks of the selected events.
    pub marks: Vec<ReportMark>,
    /// Selected seqs carrying a diagnostic.
    #[ts(type = "number[]")]
    pub diagnostic_seqs: Vec<u64>,
    /// The first selected seq: timeline positions are `seq - first_seq`.
    #[ts(type = "number")]
    pub first_seq: u64,
    pub requests: Vec<ReportRequest>,
    pub compactions: Vec<ReportCompaction>,
    pub downgrades: Vec<TransportDowngrades>,
    /// A transcript's requests with their reported usage and prompt-cache misses.
    #[ts(type = "import(\"./TranscriptCacheReport\").TranscriptCacheReport | null")]
    pub prompt_cache: Option<journalscope_transcript::transcript::cache::CacheReport>,
}

const EXCERPT_CHARS: usize = 240;

fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(EXCERPT_CHARS).collect();
    if text.chars().count() > EXCERPT_CHARS {
        out.push('…');
    }
    out
}

/// Gathers a report of `range` (sizes measured on the `openai` transport; downgrades on both).
pub fn build(journal: &Journal, range: OffsetRange) -> Result<Report, JournalError> {
    let info = journal.info()?;
    let seqs = range.seqs(journal)?;
    let selected = |seq: u64| seqs.binary_search(&seq).is_ok();
    let mut diagnostics = Vec::new();
    let mut diagnostic_seqs = Vec::new();
    for (seq, d) in journal.diagnostics_with_seq()? {
        if selected(seq) {
            diagnostics.push(d);
            if diagnostic_seqs.last() != Some(&seq) {
                diagnostic_seqs.push(seq);
            }
        }
    }
    diagnostics.dedup();
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count() as u64
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let offsets: std::collections::HashMap<u64, i64> = {
        let rows = journal.store().seq_offsets(journal.row().id)?;
        rows.into_iter()
            .filter_map(|(seq, offset)| Some((seq, offset?)))
            .filter(|(seq, _)| selected(*seq))
            .collect()
    };
    let marks: Vec<ReportMark> = journal
        .marks()?
        .iter()
        .filter(|m| selected(m.seq))
        .map(|m: &Mark| ReportMark {
            seq: m.seq,
            offset: offsets.get(&m.seq).copied(),
            kind: m.kind.clone(),
            note: m.note.clone(),
        })
        .collect();
    let (mut requests, mut compactions, mut downgrades) = (Vec::new(), Vec::new(), Vec::new());
    if journal.dialect().offers(View::Requests) {
        let summaries: Vec<RequestSummary> = journal
            .requests()?
            .into_iter()
            .filter(|r| range.contains(r.offset))
            .collect();
        let sizes = context_sizes(journal, range, Transport::Openai)?;
        requests = summaries
            .iter()
            .cloned()
            .zip(sizes)
            .map(|(summary, sizes)| ReportRequest { summary, sizes })
            .collect();
        for mark in marks.iter().filter(|m| m.kind == "compaction") {
            let Some(offset) = mark.offset else {
                continue;
            };
            let view = journal.compaction(offset)?;
            compactions.push(ReportCompaction {
                offset,
                cutoff: view.cutoff,
                valid: view.valid,
                invalid_reason: view.invalid_reason.clone(),
                dropped: view.dropped.len() as u64,
                kept: view.kept.len() as u64,
                collapsed: view.collapsed.len() as u64,
                summary_excerpt: view.summary.as_ref().map(|s| excerpt(&s.content)),
                tokens: view.tokens.clone(),
            });
        }
        let mut found: Vec<Vec<ReportDowngrade>> =
            Transport::ALL.iter().map(|_| Vec::new()).collect();
        let mut note = |offset: i64, snapshots: Vec<RequestSnapshot>| {
            if !range.contains(offset) {
                return;
            }
            for (found, snapshot) in found.iter_mut().zip(&snapshots) {
                note_downgrades(found, offset, snapshot);
            }
        };
        journal.walk_requests((range.from, range.to), &Transport::ALL, &mut note)?;
        for (transport, mut found) in Transport::ALL.into_iter().zip(found) {
            found.sort_by_key(|d| d.offset);
            downgrades.push(TransportDowngrades {
                transport,
                downgrades: found,
            });
        }
    }
    let prompt_cache = if journal.dialect().offers(View::Conversation) {
        Some(journal.transcript_cache((range.from, range.to))?)
    } else {
        None
    };
    Ok(Report {
        prompt_cache,
        file_name: info.file_name,
        dialect: info.dialect,
        framing: info.framing,
        range,
        events: seqs.len() as u64,
        journal_events: info.event_count,
        first_offset: offsets.values().min().copied(),
        last_offset: offsets.values().max().copied(),
        errors,
        warnings,
        diagnostics,
        marks,
        diagnostic_seqs,
        first_seq: seqs.first().copied().unwrap_or(0),
        requests,
        compactions,
        downgrades,
    })
}

/// The downgrades of the request at `offset`, counted into `found`: one row per item and
/// rule, with the first request that sent it and how many did.
fn note_downgrades(found: &mut Vec<ReportDowngrade>, offset: i64, snapshot: &RequestSnapshot) {
    for item in snapshot.items.iter().filter(|i| i.rule.is_downgrade()) {
        if let Some(known) = found
            .iter_mut()
            .find(|d| d.offset == item.offset && d.rule == item.rule)
        {
            known.requests += 1;
            continue;
        }
        found.push(ReportDowngrade {
            offset: item.offset,
            product_role: item.product_role.as_str().to_string(),
            provider_role: item.provider_role.as_str().to_string(),
            rule: item.rule,
            explanation: item.rule.explain().to_string(),
            first_request: offset,
            requests: 1,
        });
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

    #[test]
    fn given_ranges_when_asked_then_contains_and_labels_follow_the_open_ends() {
        let range = OffsetRange {
            from: Some(3),
            to: None,
        };
        assert!(
            range.contains(3) && range.contains(99),
            "from is inclusive, to open"
        );
        assert!(!range.contains(2), "below from is outside");
        assert_eq!(range.label(), "@3 … end", "an open end is named");
        assert_eq!(
            OffsetRange::all().label(),
            "whole journal",
            "no ends: everything"
        );
    }

    #[test]
    fn given_long_text_when_excerpted_then_it_is_cut_with_an_ellipsis() {
        let long = "é".repeat(EXCERPT_CHARS + 5);
        let cut = excerpt(&long);
        assert_eq!(
            cut.chars().count(),
            EXCERPT_CHARS + 1,
            "cut on characters, not bytes"
        );
        assert!(cut.ends_with('…'), "a cut excerpt says so");
        assert_eq!(excerpt("short"), "short", "short text is whole");
    }
}
