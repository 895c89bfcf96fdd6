//! The iterate fold: the whole-journal analysis built one record at a time (the projection,
//! what each request counted, the marks, the diagnostics and the checkpoints), as an import
//! feeds it and as a view folds stored records from a checkpoint.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checkpoint;
use super::event::{self, EventKind, IterateEvent, Role};
use super::projection::{compaction_cutoff, Lane, Projection, Rules};
use super::roles::{provider_role, Transport};
use super::view::*;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Parsed;
use journalscope_store::derived::{Analysis, CheckpointCover, Mark};
use journalscope_store::store::StoredEvent;

/// The whole-journal analysis built one event at a time, so that an import can analyse records
/// as it stores them instead of reading the journal back and parsing it again.
#[derive(Debug, Default)]
pub struct IterateFold {
    pub(super) projection: Projection,
    pub(super) analysis: Analysis,
    /// What reading the records found, as much as the tip's view needs of it.
    pub(super) read_tail: DiagnosticTail,
    /// The highest offset that shows in the tip's view: of an event, or of a record with a
    /// diagnostic.
    pub(super) through: Option<i64>,
    pub(super) records: u64,
    /// Fold diagnostics a checkpoint counted without keeping them (it keeps the latest).
    pub(super) fold_left_out: LeftOut,
    pub(super) checkpointing: Checkpointing,
    /// What the next request's row counts since the request before it.
    pub(super) since_request: SinceRequest,
    /// What the events so far showed of the journal's contract.
    pub(super) contract: super::contract::ContractSeen,
    /// The latest requests' counted input, for the usage reported after them.
    pub(super) counted: CountedRequests,
    /// The lanes' counts so far, which each request's total adds to.
    pub(super) running_total: super::tokens::RunningTotal,
    /// Totals the import already counted, by the request's seq: a fold again over stored
    /// records takes them rather than counting (and loading an encoding) again.
    pub(super) stored_totals: std::collections::HashMap<u64, (u64, bool)>,
    /// The newest record whose item's count is stored (in `analysis.record_tokens`).
    pub(super) tokens_stored_through: Option<u64>,
    /// A view's fold of records already stored: the import counted their items, and what this
    /// fold finds is not stored, so it counts none.
    pub(super) replay: bool,
}

/// How many requests back a reported usage is set against its request's count: reports come
/// right after their request's settlement, so a few suffice.
pub(super) const COUNTED_KEPT: usize = 64;

/// The latest requests' rows, newest last, with the seq of each request's record.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct CountedRequests(std::collections::VecDeque<(u64, RequestSummary)>);

impl CountedRequests {
    pub(super) fn note(&mut self, seq: u64, request: RequestSummary) {
        if self.0.len() == COUNTED_KEPT {
            self.0.pop_front();
        }
        self.0.push_back((seq, request));
    }

    /// Where the row of the request at `offset` is, newest first: a report follows its
    /// request closely.
    fn position(&self, offset: i64) -> Option<usize> {
        self.0.iter().rposition(|(_, r)| r.offset == offset)
    }

    fn of(&mut self, offset: i64) -> Option<&mut (u64, RequestSummary)> {
        let at = self.position(offset)?;
        self.0.get_mut(at)
    }

    fn get(&self, offset: i64) -> Option<&RequestSummary> {
        Some(&self.0.get(self.position(offset)?)?.1)
    }
}

/// Counted for a request's row since the request before it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SinceRequest {
    /// Valid compactions folded.
    pub compactions: u64,
    /// Items the next request will publish that no request has, while offsets increase.
    pub added: u64,
}

/// Diagnostics counted but no longer listed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct LeftOut {
    pub count: u64,
    pub errors: u64,
}

/// When the next checkpoint is due, and whether offsets have increased so far.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Checkpointing {
    /// Records since the last checkpoint.
    pub since: u64,
    /// The last record's offset, among those that have one.
    pub last_offset: Option<i64>,
    /// An offset did not increase: the records at or before an offset are not a prefix of
    /// the file, so no view can start from a checkpoint.
    pub unseekable: bool,
    /// Sealed request blocks already handed out for storage.
    pub blocks: u64,
}

impl IterateFold {
    /// Parses one record's JSON (already parsed by the reader) and folds it in; the value's
    /// content moves into the fold. `offset` is the one the reader found for the record.
    /// Then [`IterateFold::note_read`] takes what the reader said about it.
    pub fn feed_record(&mut self, seq: u64, line: u64, offset: Option<i64>, value: Value) {
        self.feed_read(seq, offset, event::parse_owned(seq, line, value));
    }

    /// Folds what parsing a record found: its event, and what was odd about it.
    fn feed_read(
        &mut self,
        seq: u64,
        offset: Option<i64>,
        (parsed, found): (Option<IterateEvent>, Vec<Diagnostic>),
    ) {
        for d in found {
            self.read_tail.note(offset, &d);
            self.analysis.diagnostics.push((seq, d));
            self.through = self.through.max(offset);
        }
        if let Some(event) = parsed {
            self.feed(&event);
        }
    }

    /// Takes what reading a record (parsed or not) found: it counts, and its diagnostics show
    /// in the tip's view as in a loaded journal's.
    /// This ends the record: a checkpoint that is due is taken after it.
    pub fn note_read(&mut self, offset: Option<i64>, diagnostics: &[Diagnostic]) {
        self.records += 1;
        if !diagnostics.is_empty() {
            self.through = self.through.max(offset);
        }
        for d in diagnostics {
            self.read_tail.note(offset, d);
        }
        let checkpointing = &mut self.checkpointing;
        if let Some(offset) = offset {
            if checkpointing.last_offset.is_some_and(|last| offset <= last) {
                checkpointing.unseekable = true;
            }
            checkpointing.last_offset = Some(offset);
        }
        checkpointing.since += 1;
        if checkpointing.since >= checkpoint::spacing(&self.projection) {
            checkpointing.since = 0;
            let (state, blocks) = checkpoint::encode(self);
            self.analysis.checkpoints.push((self.records, state));
            self.analysis.checkpoint_blocks.extend(blocks);
        }
    }

    /// Folds one stored record in, as an import folds it when it reads it.
    pub fn feed_stored(&mut self, record: &StoredEvent) {
        if let Some(value) = record.json() {
            self.feed_record(record.seq, record.line, record.offset, value);
        }
        self.note_read(record.offset, &record.diagnostics);
    }

    /// The projection view at `at`, this fold having folded exactly the records at or
    /// before it.
    pub fn view_at(&self, at: i64) -> ProjectionView {
        view_of(&self.projection, at, self.view_diagnostics())
    }

    fn view_diagnostics(&self) -> ViewDiagnostics {
        let mut diagnostics = self.read_tail.with_fold(&self.projection.diagnostics);
        diagnostics.count += self.fold_left_out.count;
        diagnostics.errors += self.fold_left_out.errors;
        diagnostics
    }

    /// Counts the loop item the record at `seq` put in the list (every item when the loop just
    /// took over), for the store: a view in a process of its own reads the count rather than
    /// loading the encoding.
    fn count_loop_items(&mut self, seq: u64, took_over: bool) {
        use super::agent_loop::view::{added_by, counted, TOKEN_VARIANT};
        let Some(agent) = self.projection.agent.as_deref() else {
            return;
        };
        let tokens = &mut self.analysis.record_tokens;
        if took_over {
            for item in agent
                .state
                .items
                .iter()
                .filter(|item| !item.content.is_empty())
            {
                tokens.push((item.seq, TOKEN_VARIANT, counted(item)));
            }
        } else if let Some(item) =
            added_by(&agent.state, seq, self.projection.last_compaction.is_some())
        {
            tokens.push((seq, TOKEN_VARIANT, counted(item)));
        }
    }

    /// The input tokens of the request `event` opens, and whether the count is exact: the total
    /// an import stored when this fold replays its records, else the running total, which
    /// stores each item's count at the first request that sums it (records come in seq order):
    /// views that fold its record again read it there.
    fn request_tokens(&mut self, event: &IterateEvent, model: Option<&str>) -> (u64, bool) {
        if let Some(&stored) = self.stored_totals.get(&event.seq) {
            return stored;
        }
        let projection = &self.projection;
        let record_tokens = &mut self.analysis.record_tokens;
        let stored_through = self.tokens_stored_through;
        let mut newest = stored_through;
        let rules = projection.rules;
        let counted =
            self.running_total
                .request(projection, model, event.created_at.as_deref(), |item| {
                    if stored_through.is_none_or(|through| item.seq > through) {
                        if let Some(variant) = item.token_variant(rules) {
                            record_tokens.push((item.seq, variant, item.tokens(rules)));
                        }
                        newest = newest.max(Some(item.seq));
                    }
                });
        self.tokens_stored_through = newest;
        // Every test build checks the running total against rendering the request whole.
        debug_assert_eq!(
            counted.0,
            super::tokens::count_request(
                projection,
                model,
                event.created_at.as_deref(),
                Transport::Openai,
            )
            .total,
            "the running total of the request at {}",
            event.offset
        );
        counted
    }

    pub fn feed(&mut self, event: &IterateEvent) {
        self.through = self.through.max(Some(event.offset));
        let known = self.projection.diagnostics.len();
        let published_before = self.projection.published_through;
        let items_before = self.projection.system.len() + self.projection.history.len();
        let rules_before = self.projection.rules;
        self.projection.apply(event);
        if !self.replay && self.projection.rules == Rules::AgentLoop {
            self.count_loop_items(event.seq, rules_before != Rules::AgentLoop);
        }
        let items = self.projection.system.len() + self.projection.history.len();
        if self.projection.last_compaction.is_some() {
            self.since_request.compactions += 1;
            self.since_request.added = self
                .projection
                .items()
                .filter(|(_, item)| !item.is_published(self.projection.published_through))
                .count() as u64;
        } else if items > items_before {
            self.since_request.added += 1;
        }
        let agent_loop = self.projection.rules == Rules::AgentLoop;
        // A request intent the agent loop did not open sent nothing: it is no request.
        let opened = !agent_loop || self.projection.requests.contains(&event.offset);
        if let (EventKind::RequestRequested { model }, true) = (&event.kind, opened) {
            // An agent-loop request's input is whole only once the loop writes its sections
            // item after it: its row carries no count.
            let (tokens, tokens_exact) = if agent_loop {
                (0, false)
            } else {
                self.request_tokens(event, model.as_deref())
            };
            let projection = &self.projection;
            // While offsets increase, a request publishes every item folded so far, so what it
            // newly publishes is what was added since the request before: counted as it comes,
            // where a scan of the projection at every request was a tenth of an import.
            let increasing = !self.checkpointing.unseekable
                && self
                    .checkpointing
                    .last_offset
                    .is_none_or(|last| event.offset > last);
            let newly_published = if increasing {
                self.since_request.added
            } else {
                projection
                    .items()
                    .filter(|(_, item)| !item.is_published(published_before))
                    .count() as u64
            };
            // The loop's items are its own list, which the seed and sections lists leave empty.
            let (items, newly_published) = match projection.agent.as_deref() {
                Some(agent) if agent_loop => (
                    agent.state.items.len() as u64,
                    agent
                        .state
                        .items
                        .iter()
                        .filter(|item| published_before.is_none_or(|p| item.offset > p))
                        .count() as u64,
                ),
                _ => (
                    (projection.system.len() + projection.history.len()) as u64,
                    newly_published,
                ),
            };
            let summary = RequestSummary {
                offset: event.offset,
                model: model.clone(),
                created_at: event.created_at.clone(),
                published_through: projection.published_through.unwrap_or(event.offset),
                newly_published,
                compactions_before: self.since_request.compactions,
                items,
                tokens: (!agent_loop).then_some(tokens),
                tokens_exact,
                reported: None,
            };
            self.since_request = SinceRequest::default();
            if let Ok(row) = serde_json::to_string(&summary) {
                self.analysis.requests.push((event.seq, row));
            }
            self.counted.note(event.seq, summary);
        }
        for d in &self.projection.diagnostics[known..] {
            self.analysis.diagnostics.push((event.seq, d.clone()));
        }
        let mark = |kind: &str, note: String| Mark {
            seq: event.seq,
            kind: kind.to_string(),
            note,
        };
        let processor = event.agent.as_ref().and_then(|e| e.processor.as_ref());
        let stamped = processor
            .filter(|p| p.slug.as_deref() == Some("agent"))
            .and_then(|p| p.version.as_deref());
        let is_request = matches!(event.kind, EventKind::RequestRequested { .. });
        let shown_before = self.contract.contract();
        let step = self.contract.note_at(
            event.contract.as_ref(),
            is_request,
            Some(event.offset),
            stamped,
        );
        if let Some((agent, sections)) = step.disagree {
            self.analysis.diagnostics.push((
                event.seq,
                super::contract::disagreement_diagnostic(event, agent, sections),
            ));
        }
        if let Some((before, now)) = &step.now {
            self.analysis.marks.push(mark("contract", now.label()));
            // Said once per family: a version seen later changes the mark, not the warning.
            if before.name != now.name {
                if let Some(d) = super::contract::folding_diagnostic(event, now) {
                    self.analysis.diagnostics.push((event.seq, d));
                }
            }
        }
        // The loop's version is judged at its first request, and again at each new version a
        // stamp shows.
        let now = self.contract.contract();
        if now.name == super::contract::ContractName::AgentLoop {
            let first_request = is_request && !self.contract.agent_request_seen();
            let new_version = stamped.is_some()
                && shown_before.name == now.name
                && shown_before.version != now.version;
            if first_request || new_version {
                self.contract.see_agent_request();
                if let Some(d) =
                    super::contract::agent_version_diagnostic(event, now.version.as_deref())
                {
                    self.analysis.diagnostics.push((event.seq, d));
                }
            }
        }
        if let Some((before, now)) = step.changed {
            self.analysis.diagnostics.push((
                event.seq,
                super::contract::change_diagnostic(event, &before, &now),
            ));
        }
        match &event.kind {
            EventKind::RequestRequested { model } if opened => self.analysis.marks.push(mark(
                "request",
                format!("request {}", model.as_deref().unwrap_or("(no model)")),
            )),
            EventKind::UsageReported(usage) => self.reconcile(event, usage),
            EventKind::ContextAdded(context) => {
                if let Some(compaction) = context
                    .compaction
                    .as_ref()
                    .filter(|_| context.role == Role::Developer)
                {
                    let note = match (
                        &self.projection.last_compaction,
                        compaction_cutoff(event.offset, compaction),
                    ) {
                        (Some(applied), _) => {
                            format!("compaction of history ≤ @{}", applied.cutoff)
                        }
                        (None, Err(reason)) => format!("ignored compaction: {reason}"),
                        (None, Ok(_)) => "ignored compaction".to_string(),
                    };
                    self.analysis.marks.push(mark("compaction", note));
                }
                let lane = Lane::of(context.role);
                if let Some(item) = self
                    .projection
                    .last_item
                    .filter(|(touched, _)| *touched == lane)
                    .and_then(|(_, index)| self.projection.lane(lane).get(index))
                    .filter(|item| item.seq == event.seq)
                {
                    for transport in Transport::ALL {
                        let role = provider_role(item, transport);
                        if role.rule.is_downgrade() {
                            self.analysis.marks.push(mark(
                                "downgrade",
                                format!(
                                    "{} ⇣ {} ({})",
                                    item.role.as_str(),
                                    role.role.as_str(),
                                    role.rule.as_str()
                                ),
                            ));
                            break;
                        }
                    }
                    if !item.coalesced.is_empty() {
                        self.analysis.marks.push(mark(
                            "coalesced",
                            format!(
                                "replaced unpublished @{}",
                                item.coalesced[item.coalesced.len() - 1]
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// The input tokens counted for the request at `offset`, among the latest requests.
    pub fn counted_input(&self, offset: i64) -> Option<u64> {
        self.counted.get(offset).and_then(|r| r.tokens)
    }

    /// Sets a reported usage against its request's count: the request's row takes the usage,
    /// and a difference beyond the tolerance is said.
    fn reconcile(&mut self, event: &IterateEvent, usage: &super::event::Usage) {
        let Some((request_seq, request)) = usage.request.and_then(|offset| self.counted.of(offset))
        else {
            return;
        };
        let request_seq = *request_seq;
        request.reported = Some(*usage);
        if let Ok(row) = serde_json::to_string(&request) {
            self.analysis.requests.push((request_seq, row));
        }
        let (offset, exact) = (request.offset, request.tokens_exact);
        let Some(check) = request.reconciliation() else {
            return;
        };
        let (counted, reported) = (check.counted, check.reported);
        if !check.within {
            let (how, way) = match (exact, check.difference < 0) {
                (true, true) => ("exact", "fewer"),
                (true, false) => ("exact", "more"),
                (false, true) => ("an estimate", "fewer"),
                (false, false) => ("an estimate", "more"),
            };
            self.analysis.diagnostics.push((
                event.seq,
                Diagnostic::warning(
                    event.line,
                    Some(event.offset),
                    "token-count-differs",
                    format!(
                        "request @{} counts {} input tokens ({how}); its provider reported {}: {} {way}, beyond the tolerance of {}",
                        offset,
                        counted,
                        reported,
                        check.difference.unsigned_abs(),
                        check.tolerance
                    ),
                ),
            ));
        }
    }

    /// Takes the marks and diagnostics found so far, which later events never change: a
    /// streaming import stores them as it goes. [`IterateFold::finish`] gives the rest.
    pub fn take_found(&mut self) -> Analysis {
        Analysis {
            diagnostics: std::mem::take(&mut self.analysis.diagnostics),
            marks: std::mem::take(&mut self.analysis.marks),
            checkpoints: std::mem::take(&mut self.analysis.checkpoints),
            checkpoint_blocks: std::mem::take(&mut self.analysis.checkpoint_blocks),
            requests: std::mem::take(&mut self.analysis.requests),
            record_tokens: std::mem::take(&mut self.analysis.record_tokens),
            ..Analysis::default()
        }
    }

    /// Everything not handed out yet, and what the fold says of the journal's end: the items
    /// no request has published (marks that replace those an earlier end gave), the view at
    /// the end, and how far the checkpoints reach. The fold can go on after it.
    pub fn end(&mut self) -> Analysis {
        let mut analysis = self.take_found();
        for (_, item) in self.projection.items() {
            if !item.is_published(self.projection.published_through) {
                analysis.marks.push(Mark {
                    seq: item.seq,
                    kind: "unpublished".to_string(),
                    note: "no request has published this item yet".to_string(),
                });
            }
        }
        analysis.marks.sort_by_key(|m| m.seq);
        analysis.diagnostics.sort_by_key(|(seq, _)| *seq);
        let through = self.through.unwrap_or(i64::MIN);
        let diagnostics = self.view_diagnostics();
        analysis.provisional_kinds = vec!["unpublished"];
        analysis.cover = Some(CheckpointCover {
            records: self.records,
            format: checkpoint::FORMAT,
            seekable: !self.checkpointing.unseekable,
        });
        analysis.tip = Some(
            Tip {
                events: self.records,
                through,
                view: view_of(&self.projection, through, diagnostics),
            }
            .row(),
        );
        analysis
    }

    /// What the whole fold found: [`IterateFold::take_found`] and [`IterateFold::end`] together.
    pub fn finish(mut self) -> Analysis {
        let mut analysis = std::mem::take(&mut self.analysis);
        analysis.absorb(self.end());
        analysis.marks.sort_by_key(|m| m.seq);
        analysis.diagnostics.sort_by_key(|(seq, _)| *seq);
        analysis
    }
}

impl journalscope_seam::interpreter::Fold for IterateFold {
    fn feed(
        &mut self,
        record: journalscope_seam::interpreter::FoldRecord<'_>,
        parsed: Option<Parsed<'_>>,
    ) {
        let read = match parsed {
            Some(Parsed::Tree(tree)) => Some(event::parse_tree(record.seq, record.line, tree)),
            Some(Parsed::Value(value)) => Some(event::parse_owned(record.seq, record.line, value)),
            None => None,
        };
        if let Some(read) = read {
            self.feed_read(record.seq, record.offset, read);
        }
        self.note_read(record.offset, record.diagnostics);
    }

    fn take_found(&mut self) -> Analysis {
        IterateFold::take_found(self)
    }

    fn end(&mut self) -> Analysis {
        IterateFold::end(self)
    }

    fn records(&self) -> u64 {
        self.records
    }
}
