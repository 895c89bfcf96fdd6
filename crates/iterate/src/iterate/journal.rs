//! An iterate journal parsed whole and folded from its first record for every view: the plain
//! fold the store's checkpointed views are checked against, and the fold of a few records that
//! exist only in memory.

use std::ops::ControlFlow;

use super::checkpoint;
use super::event::{self, EventKind, IterateEvent};
use super::fold::{IterateFold, COUNTED_KEPT};
use super::projection::{fold_through, Projection, Rules};
use super::render::RequestSnapshot;
use super::roles::Transport;
use super::view::*;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_store::derived::{Analysis, FoldWatch, WATCH_EVERY};
use journalscope_store::store::StoredEvent;

/// An iterate journal parsed whole and folded from its first event for every view: the plain
/// fold the store's checkpointed views are checked against, and a fold of a few records that
/// only exist in memory. Its views are those of the store (`checkpoint`, `stored`, `diff`),
/// folded the simplest way.
#[derive(Debug, Clone, Default)]
pub struct IterateJournal {
    pub events: Vec<IterateEvent>,
    read_diagnostics: Vec<(Option<i64>, Diagnostic)>,
    /// What parsing a payload found odd (an unknown role, no payload), by seq: the fold
    /// ignores such items, so without these they would vanish silently.
    parse_diagnostics: Vec<(u64, Diagnostic)>,
    /// Records read, events or not: the count an analysis's tip describes.
    records: u64,
    /// The compaction trigger fraction each record that sets one sets, by seq.
    fraction: Vec<(u64, Option<f64>)>,
}

impl IterateJournal {
    pub fn from_stored(stored: &[StoredEvent]) -> IterateJournal {
        let mut unwatched = |_: u64| ControlFlow::Continue(());
        IterateJournal::parse(stored, &mut unwatched).unwrap_or_default()
    }

    /// Parses every record, telling `watch` how many were parsed; no checkpoints (only views
    /// need them). `None` when the watch abandoned it.
    fn parse(stored: &[StoredEvent], watch: FoldWatch<'_>) -> Option<IterateJournal> {
        let mut journal = IterateJournal::default();
        for (index, chunk) in stored.chunks(WATCH_EVERY).enumerate() {
            if watch((index * WATCH_EVERY) as u64).is_break() {
                return None;
            }
            journal.take(parse_records(chunk));
        }
        if watch(stored.len() as u64).is_break() {
            return None;
        }
        Some(journal)
    }

    /// Appends what parsing the records after this journal's found.
    fn take(&mut self, parsed: IterateJournal) {
        self.events.extend(parsed.events);
        self.read_diagnostics.extend(parsed.read_diagnostics);
        self.parse_diagnostics.extend(parsed.parse_diagnostics);
        self.records += parsed.records;
        self.fraction.extend(parsed.fraction);
    }

    /// Records read into this journal, events or not.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The fold of every event with offset `<= at`, in file order.
    pub fn projection_at(&self, at: i64) -> Projection {
        fold_through(&self.events, at)
    }

    pub fn projection_view(&self, at: i64) -> ProjectionView {
        let projection = self.projection_at(at);
        let diagnostics = diagnostics_through(&self.read_diagnostics, &projection, at);
        view_of(&projection, at, diagnostics)
    }

    fn request_event(&self, offset: i64) -> Option<&IterateEvent> {
        self.events
            .iter()
            .find(|e| e.offset == offset && matches!(e.kind, EventKind::RequestRequested { .. }))
    }

    /// What the request saw: events at or before its offset that precede it in the file. An
    /// event appended later with a lower (non-increasing) offset must not change a request
    /// that was already sent, or a retry would render different bytes.
    fn projection_for_request(&self, request: &IterateEvent) -> Projection {
        let mut projection = Projection::default();
        for event in self
            .events
            .iter()
            .filter(|e| e.seq <= request.seq && e.offset <= request.offset)
        {
            projection.apply(event);
        }
        projection
    }

    /// The request snapshot at `request_offset`, folding only events at or before it.
    pub fn request(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<RequestSnapshot, IterateError> {
        let event = self
            .request_event(request_offset)
            .ok_or(IterateError::NotARequest(request_offset))?;
        let EventKind::RequestRequested { model } = &event.kind else {
            return Err(IterateError::NotARequest(request_offset));
        };
        let projection = self.projection_for_request(event);
        let later = self.sections_item_after(&projection, event);
        checkpoint::render_request(&projection, event, model.clone(), transport, later)
    }

    /// The sections item the agent loop wrote for the request `event` after it, as
    /// [`checkpoint::sections_item_after`] finds it in the store.
    fn sections_item_after(
        &self,
        projection: &Projection,
        event: &IterateEvent,
    ) -> Option<&IterateEvent> {
        if projection.rules != Rules::AgentLoop {
            return None;
        }
        self.events
            .iter()
            .filter(|later| later.seq > event.seq)
            .take_while(|later| !matches!(later.kind, EventKind::RequestRequested { .. }))
            .find(|later| super::agent_loop::append_only::is_sections_item_of(later, event.offset))
    }

    pub fn request_view(
        &self,
        request_offset: i64,
        transport: Transport,
    ) -> Result<RequestView, IterateError> {
        let snapshot = self.request(request_offset, transport)?;
        let previous_request = self
            .events
            .iter()
            .filter(|e| {
                matches!(e.kind, EventKind::RequestRequested { .. }) && e.offset < request_offset
            })
            .map(|e| e.offset)
            .max();
        let earlier_through =
            previous_request.and_then(|p| self.projection_at(p).published_through);
        let projection = match self.request_event(request_offset) {
            Some(event) => self.projection_for_request(event),
            None => self.projection_at(request_offset),
        };
        let end = self.events.iter().map(|e| e.offset).max().unwrap_or(0);
        Ok(request_view_of(
            snapshot,
            previous_request,
            earlier_through,
            &projection,
            &self.projection_at(end),
        ))
    }

    /// Every request in file order, from one pass over the journal.
    pub fn requests(&self) -> Vec<RequestSummary> {
        // Where offsets increase, a request publishes every item folded so far, so the items
        // it newly publishes are those added since the last request: counted as they come
        // instead of rescanning the projection at every request.
        let monotonic = self.events.windows(2).all(|w| w[1].offset > w[0].offset);
        let mut projection = Projection::default();
        let mut summaries = Vec::new();
        let mut compactions = 0u64;
        let mut added_since = 0u64;
        for event in &self.events {
            let before = projection.published_through;
            let size = projection.system.len() + projection.history.len();
            projection.apply(event);
            if projection.last_compaction.is_some() {
                compactions += 1;
                added_since = projection
                    .items()
                    .filter(|(_, item)| !item.is_published(projection.published_through))
                    .count() as u64;
            } else if projection.system.len() + projection.history.len() > size {
                added_since += 1;
            }
            let agent_loop = projection.rules == Rules::AgentLoop;
            // As the fold: a request intent the agent loop did not open is no request.
            let opened = !agent_loop || projection.requests.contains(&event.offset);
            if let (EventKind::RequestRequested { model }, true) = (&event.kind, opened) {
                let newly = if monotonic {
                    added_since
                } else {
                    projection
                        .items()
                        .filter(|(_, item)| !item.is_published(before))
                        .count() as u64
                };
                added_since = 0;
                // The loop's own list, counted by scanning it: the plain way.
                let (items, newly) = match projection.agent.as_deref() {
                    Some(agent) if agent_loop => (
                        agent.state.items.len() as u64,
                        agent
                            .state
                            .items
                            .iter()
                            .filter(|item| before.is_none_or(|p| item.offset > p))
                            .count() as u64,
                    ),
                    _ => (
                        (projection.system.len() + projection.history.len()) as u64,
                        newly,
                    ),
                };
                // Counted afresh from the rendered text: the plain way the fold's kept counts
                // are checked against. An agent-loop row has none, as the fold's.
                let rendered = super::render::render(
                    &projection,
                    event.offset,
                    model.clone(),
                    event.created_at.as_deref(),
                    Transport::Openai,
                );
                let tokens = super::tokens::count_messages(model.as_deref(), &rendered.messages);
                summaries.push(RequestSummary {
                    offset: event.offset,
                    model: model.clone(),
                    created_at: event.created_at.clone(),
                    published_through: projection.published_through.unwrap_or(event.offset),
                    newly_published: newly,
                    compactions_before: compactions,
                    items,
                    tokens: (!agent_loop).then_some(tokens.total),
                    tokens_exact: !agent_loop && tokens.tokenizer.exact,
                    reported: None,
                });
                compactions = 0;
            }
            // As the fold does: a report reaches the row of one of the latest requests.
            if let EventKind::UsageReported(usage) = &event.kind {
                if let Some(summary) = summaries
                    .iter_mut()
                    .rev()
                    .take(COUNTED_KEPT)
                    .find(|summary| Some(summary.offset) == usage.request)
                {
                    summary.reported = Some(*usage);
                }
            }
        }
        summaries
    }

    pub fn compaction(&self, offset: i64) -> Result<CompactionView, IterateError> {
        let event = self
            .events
            .iter()
            .find(|e| e.offset == offset)
            .ok_or(IterateError::NotACompaction(offset))?;
        let mut before = Projection::default();
        for e in self
            .events
            .iter()
            .filter(|e| e.offset <= offset && e.seq < event.seq)
        {
            before.apply(e);
        }
        let mut after = before.clone();
        after.apply(event);
        let at_before = before.at.unwrap_or(offset);
        // Each side shows what reading the records folded into it found: those before the
        // compaction in the file, and the compaction's own.
        let read_before: Vec<_> = self
            .read_diagnostics
            .iter()
            .filter(|(_, d)| d.line < event.line)
            .cloned()
            .collect();
        let read_after: Vec<_> = self
            .read_diagnostics
            .iter()
            .filter(|(_, d)| d.line <= event.line)
            .cloned()
            .collect();
        compaction_view_of(
            event,
            CompactionSides {
                before: view_of(
                    &before,
                    at_before,
                    diagnostics_through(&read_before, &before, at_before),
                ),
                after: view_of(
                    &after,
                    offset,
                    diagnostics_through(&read_after, &after, offset),
                ),
                projection_after: &after,
                trigger: self.trigger_facts(event),
            },
            |cutoff| self.request_event(cutoff).is_some(),
        )
    }

    /// The trigger of the compaction `event`, from the events in memory: the request's row as
    /// the plain fold builds it (its count taken afresh from its rendered text).
    fn trigger_facts(&self, event: &IterateEvent) -> TriggerFacts {
        let Some(request) = cutoff_of(event).and_then(|cutoff| self.request_event(cutoff)) else {
            return TriggerFacts::default();
        };
        let Some(row) = self
            .requests()
            .into_iter()
            .find(|row| row.offset == request.offset)
        else {
            return TriggerFacts::default();
        };
        TriggerFacts {
            counted: row.tokens,
            usage: row.reported,
            model: row.model,
            fraction: self
                .fraction
                .iter()
                .rev()
                .find(|(seq, _)| *seq < event.seq)
                .and_then(|(_, f)| *f),
        }
    }

    /// One pass over the whole journal: fold diagnostics and the marks behind badges and the
    /// timeline.
    pub fn analyse(&self) -> Analysis {
        let mut unwatched = |_: u64| ControlFlow::Continue(());
        self.analyse_watched(&mut unwatched).unwrap_or_default()
    }

    fn analyse_watched(&self, watch: FoldWatch<'_>) -> Option<Analysis> {
        let mut fold = IterateFold {
            analysis: Analysis {
                diagnostics: self.parse_diagnostics.clone(),
                ..Analysis::default()
            },
            read_tail: self.read_diagnostics.iter().fold(
                DiagnosticTail::default(),
                |mut tail, (offset, d)| {
                    tail.note(*offset, d);
                    tail
                },
            ),
            through: self
                .read_diagnostics
                .iter()
                .filter_map(|(offset, _)| *offset)
                .max(),
            records: self.records,
            ..IterateFold::default()
        };
        for (index, event) in self.events.iter().enumerate() {
            if index % WATCH_EVERY == 0 && watch(index as u64).is_break() {
                return None;
            }
            fold.feed(event);
        }
        let analysis = fold.finish();
        if watch(self.events.len() as u64).is_break() {
            return None;
        }
        Some(analysis)
    }
}

/// Parses a run of records into events and diagnostics, without folding.
fn parse_records(stored: &[StoredEvent]) -> IterateJournal {
    let mut parsed = IterateJournal {
        records: stored.len() as u64,
        ..IterateJournal::default()
    };
    for record in stored {
        let event = record.json().and_then(|value| {
            if let Some(fraction) = TriggerFacts::fraction_of(&value) {
                parsed.fraction.push((record.seq, Some(fraction)));
            }
            let (event, found) = event::parse_owned(record.seq, record.line, value);
            for d in found {
                parsed.read_diagnostics.push((record.offset, d.clone()));
                parsed.parse_diagnostics.push((record.seq, d));
            }
            event
        });
        for d in &record.diagnostics {
            parsed.read_diagnostics.push((record.offset, d.clone()));
        }
        if let Some(event) = event {
            parsed.events.push(event);
        }
    }
    parsed
}
