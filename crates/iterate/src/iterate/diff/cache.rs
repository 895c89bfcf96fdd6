//! The cache report: for each request of a journal, how many prefix bytes it shares with the
//! request before it against the ideal, and why the prefix broke where it did.

use super::*;

/// One request in the cache report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CacheEntry {
    #[ts(type = "number")]
    pub request_offset: i64,
    #[ts(type = "number | null")]
    pub previous_request: Option<i64>,
    pub model: Option<String>,
    #[ts(type = "number")]
    pub body_bytes: u64,
    #[ts(type = "number")]
    pub messages: u64,
    /// Bytes a provider cache can reuse from the previous request.
    #[ts(type = "number")]
    pub reused_prefix_bytes: u64,
    #[ts(type = "number")]
    pub common_prefix_messages: u64,
    /// The previous request's body up to its timestamp message (0 for the first request).
    #[ts(type = "number")]
    pub ideal_prefix_bytes: u64,
    /// Bytes sent again that the ideal would have reused.
    #[ts(type = "number")]
    pub lost_bytes: u64,
    /// Bytes not covered by the reused prefix.
    #[ts(type = "number")]
    pub resent_bytes: u64,
    pub prefix_break: Option<PrefixBreak>,
    /// The body's input tokens, framing included.
    #[ts(type = "number")]
    pub tokens: u64,
    /// Tokens of the messages shared from the first with the previous request: the cacheable
    /// prefix a provider can serve.
    #[ts(type = "number")]
    pub reused_prefix_tokens: u64,
    /// Tokens of the previous request up to its timestamp message.
    #[ts(type = "number")]
    pub ideal_prefix_tokens: u64,
    /// Tokens sent again that the ideal would have reused: what a prefix break cost.
    #[ts(type = "number")]
    pub lost_tokens: u64,
    /// The cached input the journal reports for this request, when it does.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub reported_cached: Option<u64>,
}

/// Prefix stability across every request of a journal, each against the one before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CacheReport {
    pub transport: Transport,
    pub requests: Vec<CacheEntry>,
    #[ts(type = "number")]
    pub total_body_bytes: u64,
    #[ts(type = "number")]
    pub total_reused_bytes: u64,
    #[ts(type = "number")]
    pub total_ideal_bytes: u64,
    #[ts(type = "number")]
    pub total_lost_bytes: u64,
    #[ts(type = "number")]
    pub breaks: u64,
    #[ts(type = "number")]
    pub unexpected_breaks: u64,
    #[ts(type = "number")]
    pub total_tokens: u64,
    #[ts(type = "number")]
    pub total_reused_tokens: u64,
    #[ts(type = "number")]
    pub total_lost_tokens: u64,
}

impl CacheReport {
    /// Sets each request's reported cached input, from the usage the journal reports by
    /// request offset.
    pub fn with_reported(
        mut self,
        reported: &std::collections::HashMap<i64, super::super::event::Usage>,
    ) -> CacheReport {
        for entry in &mut self.requests {
            entry.reported_cached = reported
                .get(&entry.request_offset)
                .and_then(|usage| usage.cached_input);
        }
        self
    }
}

impl IterateJournal {
    /// Request offsets in file order.
    pub fn request_offsets(&self) -> Vec<i64> {
        self.events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::RequestRequested { .. }))
            .map(|e| e.offset)
            .collect()
    }

    /// The request before `offset` in file order.
    pub fn request_before(&self, offset: i64) -> Option<i64> {
        let offsets = self.request_offsets();
        let index = offsets.iter().position(|o| *o == offset)?;
        index.checked_sub(1).map(|i| offsets[i])
    }

    /// Diffs two requests of this journal and explains a break from the events between them.
    pub fn request_diff(
        &self,
        from: (i64, Transport),
        to: (i64, Transport),
    ) -> Result<RequestDiff, IterateError> {
        let a = self.request(from.0, from.1)?;
        let b = self.request(to.0, to.1)?;
        let changes = Changes::between(self, from.0.min(to.0), from.0.max(to.0));
        Ok(diff_snapshots(&a, &b, &changes))
    }

    /// Every request against the one before it, on one transport.
    pub fn cache_report(&self, transport: Transport) -> Result<CacheReport, IterateError> {
        let mut report = CacheReportBuilder::default();
        let mut previous: Option<RequestSnapshot> = None;
        for offset in self.request_offsets() {
            let snapshot = match self.request(offset, transport) {
                Ok(snapshot) => snapshot,
                // A request that sent nothing has no prefix to compare.
                Err(IterateError::NotSent(..)) => continue,
                Err(error) => return Err(error),
            };
            let changes = previous
                .as_ref()
                .map(|before| Changes::between(self, before.request_offset, offset));
            report.add(previous.as_ref().zip(changes.as_ref()), &snapshot);
            previous = Some(snapshot);
        }
        let reported = self
            .requests()
            .into_iter()
            .filter_map(|row| Some((row.offset, row.reported?)))
            .collect();
        Ok(report.finish(transport).with_reported(&reported))
    }
}

/// A cache report as its requests come in file order.
#[derive(Default)]
struct CacheReportBuilder {
    entries: Vec<CacheEntry>,
}

impl CacheReportBuilder {
    /// `snapshot`, against the request before it and what happened between them, if any.
    fn add(&mut self, before: Option<(&RequestSnapshot, &Changes)>, snapshot: &RequestSnapshot) {
        let body_bytes = snapshot.body().len() as u64;
        let offset = snapshot.request_offset;
        let entry = match before {
            None => CacheEntry {
                request_offset: offset,
                previous_request: None,
                model: snapshot.model.clone(),
                body_bytes,
                messages: snapshot.messages.len() as u64,
                reused_prefix_bytes: 0,
                common_prefix_messages: 0,
                ideal_prefix_bytes: 0,
                lost_bytes: 0,
                resent_bytes: body_bytes,
                prefix_break: None,
                tokens: snapshot.tokens.total,
                reused_prefix_tokens: 0,
                ideal_prefix_tokens: 0,
                lost_tokens: 0,
                reported_cached: None,
            },
            Some((before, changes)) => {
                let diff = diff_snapshots(before, snapshot, changes);
                let reused_prefix_tokens =
                    snapshot.prefix_tokens(diff.common_prefix_messages as usize);
                // An agent-loop request's every input item is kept by the next; a chat
                // request's last message, its time, is not.
                let ideal_messages = if before.responses_body.is_some() {
                    diff.ideal_prefix_messages as usize
                } else {
                    before.messages.len().saturating_sub(1)
                };
                let ideal_prefix_tokens = before.prefix_tokens(ideal_messages);
                CacheEntry {
                    request_offset: offset,
                    previous_request: Some(before.request_offset),
                    model: snapshot.model.clone(),
                    body_bytes,
                    messages: snapshot.messages.len() as u64,
                    reused_prefix_bytes: diff.reused_prefix_bytes,
                    common_prefix_messages: diff.common_prefix_messages,
                    ideal_prefix_bytes: diff.ideal_prefix_bytes,
                    lost_bytes: diff.ideal_prefix_bytes - diff.reused_prefix_bytes,
                    resent_bytes: body_bytes - diff.reused_prefix_bytes,
                    prefix_break: diff.prefix_break,
                    tokens: snapshot.tokens.total,
                    reused_prefix_tokens,
                    ideal_prefix_tokens,
                    lost_tokens: ideal_prefix_tokens.saturating_sub(reused_prefix_tokens),
                    reported_cached: None,
                }
            }
        };
        self.entries.push(entry);
    }

    fn finish(self, transport: Transport) -> CacheReport {
        let entries = self.entries;
        let sum = |f: fn(&CacheEntry) -> u64| entries.iter().map(f).sum::<u64>();
        CacheReport {
            transport,
            total_body_bytes: sum(|e| e.body_bytes),
            total_reused_bytes: sum(|e| e.reused_prefix_bytes),
            total_ideal_bytes: sum(|e| e.ideal_prefix_bytes),
            total_lost_bytes: sum(|e| e.lost_bytes),
            breaks: sum(|e| u64::from(e.prefix_break.is_some())),
            unexpected_breaks: sum(|e| {
                u64::from(e.prefix_break.as_ref().is_some_and(|b| !b.expected))
            }),
            total_tokens: sum(|e| e.tokens),
            total_reused_tokens: sum(|e| e.reused_prefix_tokens),
            total_lost_tokens: sum(|e| e.lost_tokens),
            requests: entries,
        }
    }
}

/// `IterateJournal::cache_report`, read from the store in one pass, for the requests with an
/// offset in `range` (either end open): the stored records from the request before the first
/// of them are folded slice by slice, each request rendered as the fold reaches it and set
/// against the one before, so memory holds a slice, two requests and the report. Where
/// offsets go back, or under the agent loop (whose request is whole only with the sections
/// item written after it), each request is rendered from its own checkpoint instead.
pub fn cache_report_stored(
    store: &Store,
    journal_id: i64,
    transport: Transport,
    range: (Option<i64>, Option<i64>),
) -> Result<CacheReport, StoreError> {
    let agent_loop = super::super::contract::of_journal(store, journal_id)?.name
        == super::super::contract::ContractName::AgentLoop;
    if agent_loop || store.has_late_records(journal_id)? {
        return cache_report_by_request(store, journal_id, transport, range);
    }
    let mut report = CacheReportBuilder::default();
    let mut previous: Option<RequestSnapshot> = None;
    let mut changes = Changes::default();
    let inside = |offset: i64| {
        range.0.is_none_or(|from| offset >= from) && range.1.is_none_or(|to| offset <= to)
    };
    super::super::stored::fold_range(store, journal_id, range, |projection, event| {
        changes.note_compaction(projection);
        let EventKind::RequestRequested { model } = &event.kind else {
            return;
        };
        if super::super::view::check_sent(projection, event.offset).is_err() {
            return;
        }
        let snapshot = super::super::render::render(
            projection,
            event.offset,
            model.clone(),
            event.created_at.as_deref(),
            transport,
        );
        let mut between = std::mem::take(&mut changes);
        if let Some(before) = &previous {
            between.note_system_additions(projection, before.request_offset);
        }
        if inside(event.offset) {
            report.add(
                previous.as_ref().map(|before| (before, &between)),
                &snapshot,
            );
        }
        previous = Some(snapshot);
    })?;
    Ok(report.finish(transport))
}

/// [`cache_report_stored`] of a journal whose offsets go back: each request in file order is
/// rendered from the records at or below its offset before it, and set against the request
/// before it that sent something, with what happened between their offsets.
fn cache_report_by_request(
    store: &Store,
    journal_id: i64,
    transport: Transport,
    range: (Option<i64>, Option<i64>),
) -> Result<CacheReport, StoreError> {
    let mut report = CacheReportBuilder::default();
    let mut previous: Option<RequestSnapshot> = None;
    for (offset, wanted) in super::super::stored::requests_to_walk(store, journal_id, range)? {
        let snapshot = match checkpoint::request_at(store, journal_id, offset, transport)? {
            Ok(snapshot) => snapshot,
            // A request that sent nothing has no prefix to compare.
            Err(_) => continue,
        };
        if wanted {
            let changes = match &previous {
                Some(before) => Some(Changes::between_stored(
                    store,
                    journal_id,
                    before.request_offset,
                    offset,
                )?),
                None => None,
            };
            report.add(previous.as_ref().zip(changes.as_ref()), &snapshot);
        }
        previous = Some(snapshot);
    }
    Ok(report.finish(transport))
}

/// `report`'s entries for the requests with an offset in `range`, and their totals.
pub fn cache_report_within(report: CacheReport, range: (Option<i64>, Option<i64>)) -> CacheReport {
    let entries = report
        .requests
        .into_iter()
        .filter(|e| {
            range.0.is_none_or(|from| e.request_offset >= from)
                && range.1.is_none_or(|to| e.request_offset <= to)
        })
        .collect();
    CacheReportBuilder { entries }.finish(report.transport)
}
