//! Views of an iterate journal: the projection at an offset, request snapshots and summaries,
//! compaction step-debugging, and the whole-journal analysis (fold diagnostics and marks).
//! These are the shapes the CLI prints and the desktop shows.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::event::{EventKind, IterateEvent, Role};
use super::projection::{compaction_cutoff, Item, Projection, Rules};
use super::render::{header_line, RequestSnapshot};
use super::roles::{provider_role, ProviderRole, Rule, Transport};
use journalscope_shapes::diagnostic::{Diagnostic, Severity};
use journalscope_shapes::record_json::Field;
use journalscope_store::derived::TipRow;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IterateError {
    #[error("offset {0} is not an llm-request-requested event")]
    NotARequest(i64),
    #[error("offset {0} is not a compaction (a developer context-added with compaction metadata)")]
    NotACompaction(i64),
    #[error("request @{0} is the first request: there is no earlier one to diff against")]
    NoEarlierRequest(i64),
    #[error("request @{0} sent nothing: {1}")]
    NotSent(i64, String),
}

impl IterateError {
    /// A stable code for tools and for the desktop's error display.
    pub fn code(&self) -> &'static str {
        match self {
            IterateError::NotARequest(_) => "not-a-request",
            IterateError::NotACompaction(_) => "not-a-compaction",
            IterateError::NoEarlierRequest(_) => "no-earlier-request",
            IterateError::NotSent(..) => "request-not-sent",
        }
    }
}

/// Whether the request at `offset` sent what the projection folded through it holds, and why
/// not: a sections-contract or agent-loop request that opened nothing.
pub fn check_sent(projection: &Projection, offset: i64) -> Result<(), IterateError> {
    match projection.rules {
        Rules::Seed => Ok(()),
        Rules::Sections if projection.requests.contains(&offset) => Ok(()),
        Rules::Sections => Err(IterateError::NotSent(
            offset,
            "under the sections contract it opened no request (no pending trigger, a request \
             still open, or the agent paused), so it has no body"
                .to_string(),
        )),
        Rules::AgentLoop if projection.requests.contains(&offset) => Ok(()),
        Rules::AgentLoop => Err(IterateError::NotSent(
            offset,
            "under the agent loop it opened no request (no pending trigger, another request \
             still open, or a triggerOffset that is not the pending trigger's), so it has no body"
                .to_string(),
        )),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ProviderRoles {
    pub openai: ProviderRole,
    #[serde(rename = "workers-ai")]
    pub workers_ai: ProviderRole,
}

/// One projection item as the CLI prints it and the desktop shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ItemView {
    #[ts(type = "number")]
    pub offset: i64,
    pub role: Role,
    #[ts(type = "unknown")]
    pub actor: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub updates_offset: Option<i64>,
    #[ts(type = "unknown[]")]
    pub refs: Vec<Value>,
    #[ts(type = "unknown[]")]
    pub files: Vec<Value>,
    pub content: String,
    pub published: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub compaction: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub llm_request_offset: Option<i64>,
    pub provider_roles: ProviderRoles,
    /// The exact header line the request carries for this item.
    pub header: String,
    /// Offsets this slot replaced in place while unpublished, oldest first.
    #[ts(type = "number[]")]
    pub coalesced: Vec<i64>,
    /// The item's message (header and content) in o200k_base tokens, framing aside.
    #[serde(default)]
    pub tokens: u32,
}

impl ItemView {
    pub fn of(item: &Item, published_through: Option<i64>, rules: Rules) -> ItemView {
        ItemView {
            offset: item.offset,
            role: item.role,
            actor: item.actor.clone(),
            key: item.key.clone(),
            updates_offset: item.updates_offset,
            refs: item.refs.clone(),
            files: item.files.clone(),
            content: item.content.to_string(),
            published: item.is_published(published_through),
            compaction: item.compaction.clone(),
            llm_request_offset: item.llm_request_offset,
            provider_roles: ProviderRoles {
                openai: provider_role(item, Transport::Openai),
                workers_ai: provider_role(item, Transport::WorkersAi),
            },
            header: header_line(item),
            coalesced: item.coalesced.clone(),
            tokens: item.tokens(rules),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Pending {
    /// Why triggers wait: `waiting-for-system-prompt`.
    pub reason: String,
    /// The triggering items that wait.
    #[ts(type = "number[]")]
    pub offsets: Vec<i64>,
}

/// How many diagnostics a view carries: the latest through its offset. A journal can have one
/// for every event (a type this reader does not know, say), and a view is built and sent to
/// the window at every step: at 100,000 such events a view listing them all was 25 MB.
pub const VIEW_DIAGNOSTICS: usize = 100;

/// The projection at an offset: `project --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ProjectionView {
    #[ts(type = "number")]
    pub at: i64,
    #[ts(type = "number | null")]
    pub published_through: Option<i64>,
    pub pending: Option<Pending>,
    /// The contract rules the projection was folded by, when they are not the seed
    /// contract's: under the sections contract `system` is the standing document and
    /// `history` the rest of the list; a journal that is not folded has neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub rules: Option<Rules>,
    pub system: Vec<ItemView>,
    pub history: Vec<ItemView>,
    /// The latest diagnostics through `at`, at most [`VIEW_DIAGNOSTICS`], in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// The agent loop beside its items (which `history` lists): runs, trigger, open request,
    /// owed answer, pause and counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub agent_loop: Option<super::agent_loop::view::AgentLoopView>,
    /// Every diagnostic through `at`, those `diagnostics` leaves out included.
    #[serde(default)]
    #[ts(type = "number")]
    pub diagnostic_count: u64,
    /// How many of those are errors.
    #[serde(default)]
    #[ts(type = "number")]
    pub error_count: u64,
}

impl ProjectionView {
    /// The view of a sections-contract journal at an offset before its events showed the
    /// contract: the seed fold's lanes moved onto the sections list, as the fold moves them
    /// where the contract shows (which, before the first request, is the list the sections
    /// fold builds). A view already folded by other rules is returned as it is.
    pub fn under_sections(self) -> ProjectionView {
        if self.rules.is_some() {
            return self;
        }
        let item = |view: ItemView| Item {
            offset: view.offset,
            seq: 0,
            role: view.role,
            actor: view.actor,
            key: view.key,
            updates_offset: view.updates_offset,
            refs: view.refs,
            files: view.files,
            content: view.content.into(),
            compaction: view.compaction,
            llm_request_offset: view.llm_request_offset,
            coalesced: view.coalesced,
            stamp: false,
            tokens: Default::default(),
        };
        let mut projection = Projection {
            system: self.system.into_iter().map(item).collect(),
            history: self.history.into_iter().map(item).collect(),
            published_through: self.published_through,
            ..Projection::default()
        };
        projection.move_onto_sections();
        view_of(
            &projection,
            self.at,
            ViewDiagnostics {
                latest: self.diagnostics,
                count: self.diagnostic_count,
                errors: self.error_count,
            },
        )
    }

    /// The view of an agent-loop journal at an offset before its events showed the loop: no
    /// lanes (the loop's items are its own), its diagnostics kept. A view folded by the loop's
    /// rules is returned as it is.
    pub fn under_agent_loop(self) -> ProjectionView {
        if self.rules == Some(Rules::AgentLoop) {
            return self;
        }
        ProjectionView {
            rules: Some(Rules::AgentLoop),
            published_through: None,
            pending: None,
            system: Vec::new(),
            history: Vec::new(),
            ..self
        }
    }

    /// A view kept before the counts existed (a stored tip) lists every diagnostic and counts
    /// none: counts them, then keeps the latest.
    pub fn fit_diagnostics(&mut self) {
        if self.diagnostic_count < self.diagnostics.len() as u64 {
            let fitted = ViewDiagnostics::of(self.diagnostics.iter());
            self.diagnostics = fitted.latest;
            self.diagnostic_count = fitted.count;
            self.error_count = fitted.errors;
        }
    }
}

/// The read diagnostics of a journal as its tip's view needs them: counted, the latest kept.
/// The tip is at or past every offset, so every record's diagnostic with an offset is in it;
/// keeping them all made an import's memory grow with them (190 MB for 500,000).
#[derive(Debug, Default)]
pub(super) struct DiagnosticTail {
    pub count: u64,
    pub errors: u64,
    /// The latest [`VIEW_DIAGNOSTICS`], in file order.
    pub latest: std::collections::VecDeque<Diagnostic>,
}

impl DiagnosticTail {
    /// Takes one record's diagnostic, in file order. One without an offset shows in no view.
    pub(super) fn note(&mut self, offset: Option<i64>, diagnostic: &Diagnostic) {
        if offset.is_none() {
            return;
        }
        self.count += 1;
        self.errors += u64::from(diagnostic.severity == Severity::Error);
        if self.latest.len() == VIEW_DIAGNOSTICS {
            self.latest.pop_front();
        }
        self.latest.push_back(diagnostic.clone());
    }

    /// The view's diagnostics: these and the fold's. The latest of both together are among
    /// the latest read ones and the fold's, so the result is what every diagnostic would give.
    pub(super) fn with_fold(&self, fold: &[Diagnostic]) -> ViewDiagnostics {
        let kept = ViewDiagnostics::of(self.latest.iter().chain(fold));
        let left_out = self.count - self.latest.len() as u64;
        let errors_left_out = self.errors
            - self
                .latest
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count() as u64;
        ViewDiagnostics {
            latest: kept.latest,
            count: kept.count + left_out,
            errors: kept.errors + errors_left_out,
        }
    }
}

/// A view's diagnostics: the latest few, and how many there are.
pub(super) struct ViewDiagnostics {
    pub(super) latest: Vec<Diagnostic>,
    pub(super) count: u64,
    pub(super) errors: u64,
}

impl ViewDiagnostics {
    /// Orders `all` by line (stable, so one record's keep their order) and keeps the last
    /// [`VIEW_DIAGNOSTICS`]; only those are cloned.
    fn of<'a>(all: impl IntoIterator<Item = &'a Diagnostic>) -> ViewDiagnostics {
        let mut all: Vec<&Diagnostic> = all.into_iter().collect();
        all.sort_by_key(|d| d.line);
        let errors = all.iter().filter(|d| d.severity == Severity::Error).count() as u64;
        let skip = all.len().saturating_sub(VIEW_DIAGNOSTICS);
        ViewDiagnostics {
            count: all.len() as u64,
            errors,
            latest: all[skip..].iter().map(|d| (*d).clone()).collect(),
        }
    }
}

/// The projection after a journal's last event, as an analysis leaves it: what the window
/// shows at the end of a journal before the journal is loaded for stepping. Valid at every
/// offset from `through` on, where no event and no record's diagnostic is left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Tip {
    /// Records the analysis read: a tip describes that many events and no other count.
    pub events: u64,
    /// The highest offset of an event or of a record with a diagnostic (`i64::MIN` when none
    /// has one): past it, the view changes only its `at`.
    pub through: i64,
    pub view: ProjectionView,
}

impl Tip {
    /// The tip as the store keeps it.
    pub fn row(&self) -> TipRow {
        TipRow {
            events: self.events,
            through: self.through,
            // Serialising plain data into a string does not fail.
            view: serde_json::to_string(&self.view).unwrap_or_default(),
        }
    }

    /// A tip the store kept; `None` when its view no longer reads (it is derived, and a view
    /// then folds the journal instead). A view kept before the counts existed is fitted.
    pub fn from_row(row: &TipRow) -> Option<Tip> {
        let mut view: ProjectionView = serde_json::from_str(&row.view).ok()?;
        view.fit_diagnostics();
        Some(Tip {
            events: row.events,
            through: row.through,
            view,
        })
    }

    /// The view at `at`, when the tip holds it: `at` at or past every offset.
    pub fn view_at(&self, at: i64) -> Option<ProjectionView> {
        (at >= self.through).then(|| ProjectionView {
            at,
            ..self.view.clone()
        })
    }
}

/// One request in `requests`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RequestSummary {
    #[ts(type = "number")]
    pub offset: i64,
    pub model: Option<String>,
    pub created_at: Option<String>,
    #[ts(type = "number")]
    pub published_through: i64,
    /// Items this request published that no earlier request had.
    #[ts(type = "number")]
    pub newly_published: u64,
    /// Valid compactions folded in since the previous request.
    #[ts(type = "number")]
    pub compactions_before: u64,
    /// Items in the request body.
    #[ts(type = "number")]
    pub items: u64,
    /// Input tokens the body costs, framing included, on the openai transport.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub tokens: Option<u64>,
    /// Whether `tokens` is counted with the model's own encoding (else an estimate).
    #[serde(default)]
    pub tokens_exact: bool,
    /// What the journal reports the request cost, once it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reported: Option<super::event::Usage>,
}

impl RequestSummary {
    /// The request's count set against its reported input, once both are known.
    pub fn reconciliation(&self) -> Option<journalscope_shapes::tokens::Reconciliation> {
        let reported = self.reported.and_then(|usage| usage.input)?;
        Some(journalscope_shapes::tokens::Reconciliation::of(
            self.tokens?,
            reported,
            self.tokens_exact,
        ))
    }
}

/// One item whose provider role differs from its product role on a transport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Downgrade {
    #[ts(type = "number")]
    pub offset: i64,
    pub product_role: Role,
    pub provider_role: Role,
    pub rule: Rule,
    pub explanation: String,
}

/// A request as the desktop shows it: the snapshot, its exact body, and its publication
/// boundary.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RequestView {
    pub snapshot: RequestSnapshot,
    /// The provider body, byte for byte what `request -o` writes.
    pub body: String,
    #[ts(type = "number | null")]
    pub previous_request: Option<i64>,
    /// Items first published by this request.
    #[ts(type = "number[]")]
    pub newly_published: Vec<i64>,
    /// Items in this request that an earlier request had already published.
    #[ts(type = "number[]")]
    pub earlier_published: Vec<i64>,
    /// Items that arrived after this request and are not yet published by the end of the
    /// journal.
    #[ts(type = "number[]")]
    pub unpublished: Vec<i64>,
    pub downgrades: Vec<Downgrade>,
    /// What the journal reports this request cost, when it does.
    pub reported: Option<super::event::Usage>,
    /// The request's count (on the openai transport) set against the reported input.
    pub reconciliation: Option<journalscope_shapes::tokens::Reconciliation>,
}

/// Step-debugging one compaction.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CompactionView {
    #[ts(type = "number")]
    pub offset: i64,
    #[ts(type = "number | null")]
    pub cutoff: Option<i64>,
    pub valid: bool,
    pub invalid_reason: Option<String>,
    pub summary: Option<ItemView>,
    #[ts(type = "unknown")]
    pub usage: Option<Value>,
    pub before: ProjectionView,
    pub after: ProjectionView,
    #[ts(type = "number[]")]
    pub dropped: Vec<i64>,
    #[ts(type = "number[]")]
    pub kept: Vec<i64>,
    #[ts(type = "number[]")]
    pub collapsed: Vec<i64>,
    #[ts(type = "number | null")]
    pub request_at_cutoff: Option<i64>,
    pub tokens: CompactionTokens,
}

/// A compaction in tokens: the request whose usage crossed the threshold, what it cost, and
/// what the context costs once compacted.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CompactionTokens {
    pub tokenizer: journalscope_shapes::tokens::Tokenizer,
    /// The request at the cutoff, counted (framing included) and as its provider reported it.
    #[ts(type = "number | null")]
    pub before_counted: Option<u64>,
    #[ts(type = "number | null")]
    pub before_reported: Option<u64>,
    /// The context window the provider reported for that request.
    #[ts(type = "number | null")]
    pub max_context: Option<u64>,
    /// The share of the window that triggers a compaction, as the agent was configured.
    pub trigger_fraction: Option<f64>,
    /// `trigger_fraction × max_context`, rounded down.
    #[ts(type = "number | null")]
    pub threshold: Option<u64>,
    /// Whether the request's input (reported, else counted) reached the threshold.
    pub crossed: Option<bool>,
    /// What a request right after the compaction costs: the projection it leaves.
    #[ts(type = "number")]
    pub after: u64,
    /// The summary's own message.
    #[ts(type = "number | null")]
    pub summary: Option<u64>,
}

impl CompactionTokens {
    /// One line: the input before against the threshold, what is left, what the summary
    /// costs, e.g. `578 reported ≥ threshold 512 (0.8 × 640) · 326 after · summary 88`.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        let used = match (self.before_reported, self.before_counted) {
            (Some(reported), _) => Some((reported, "reported")),
            (None, Some(counted)) => Some((counted, "counted")),
            (None, None) => None,
        };
        if let Some((used, how)) = used {
            match (self.threshold, self.max_context, self.trigger_fraction) {
                (Some(threshold), Some(window), Some(fraction)) => parts.push(format!(
                    "{used} {how} {} threshold {threshold} ({fraction} × {window})",
                    if self.crossed == Some(true) {
                        "≥"
                    } else {
                        "<"
                    }
                )),
                _ => parts.push(format!("{used} {how} before")),
            }
        }
        parts.push(format!("{} after", self.after));
        if let Some(summary) = self.summary {
            parts.push(format!("summary {summary}"));
        }
        parts.join(" · ")
    }
}

/// What the journal says of a compaction's trigger: the request at its cutoff as the fold
/// counted it, the usage reported for it, and the configured trigger fraction.
#[derive(Debug, Default, Clone)]
pub(super) struct TriggerFacts {
    pub counted: Option<u64>,
    pub model: Option<String>,
    pub usage: Option<super::event::Usage>,
    pub fraction: Option<f64>,
}

impl TriggerFacts {
    /// The trigger fraction an agent's `configured` payload sets, if it does.
    pub(super) fn fraction_of(value: &Value) -> Option<f64> {
        let kind = value.field("type")?.as_str()?;
        if super::reader::short_type(kind) != Some("configured") {
            return None;
        }
        value
            .field("payload")?
            .field("config")?
            .field("compactionTriggerFraction")?
            .as_f64()
    }

    fn tokens(&self, after: &Projection, summary: Option<&Item>) -> CompactionTokens {
        let counted_after =
            super::tokens::count_request(after, self.model.as_deref(), None, Transport::Openai);
        let max_context = self.usage.and_then(|u| u.max_context);
        let threshold = match (self.fraction, max_context) {
            (Some(fraction), Some(max)) => Some((fraction * max as f64).floor() as u64),
            _ => None,
        };
        let before_reported = self.usage.and_then(|u| u.input);
        CompactionTokens {
            tokenizer: counted_after.tokenizer,
            before_counted: self.counted,
            before_reported,
            max_context,
            trigger_fraction: self.fraction,
            threshold,
            crossed: threshold
                .zip(before_reported.or(self.counted))
                .map(|(threshold, used)| used >= threshold),
            after: counted_after.total,
            summary: summary.map(|item| u64::from(item.tokens(after.rules))),
        }
    }
}

/// The request pane from what folds gave: the request's snapshot, the request before it and
/// how far that one had published, the projection the request saw, and the one at the end of
/// the journal.
pub(super) fn request_view_of(
    snapshot: RequestSnapshot,
    previous_request: Option<i64>,
    earlier_through: Option<i64>,
    projection: &Projection,
    latest: &Projection,
) -> RequestView {
    let request_offset = snapshot.request_offset;
    let (mut newly_published, mut earlier_published) = (Vec::new(), Vec::new());
    for (_, item) in projection.items() {
        if item.is_published(earlier_through) {
            earlier_published.push(item.offset);
        } else {
            newly_published.push(item.offset);
        }
    }
    let unpublished = latest
        .items()
        .filter(|(_, item)| {
            item.offset > request_offset && !item.is_published(latest.published_through)
        })
        .map(|(_, item)| item.offset)
        .collect();
    let downgrades = snapshot
        .items
        .iter()
        .filter(|i| i.provider_role != i.product_role)
        .map(|i| Downgrade {
            offset: i.offset,
            product_role: i.product_role,
            provider_role: i.provider_role,
            rule: i.rule,
            explanation: i.rule.explain().to_string(),
        })
        .collect();
    RequestView {
        body: String::from_utf8_lossy(&snapshot.body()).into_owned(),
        snapshot,
        previous_request,
        newly_published,
        earlier_published,
        unpublished,
        downgrades,
        // The journal's layer reads these from the request's row.
        reported: None,
        reconciliation: None,
    }
}

/// The offset a compaction event says it replaces history through, if it says one.
pub(super) fn cutoff_of(event: &IterateEvent) -> Option<i64> {
    let EventKind::ContextAdded(context) = &event.kind else {
        return None;
    };
    context
        .compaction
        .as_ref()
        .filter(|_| context.role == Role::Developer)?
        .field("replacesHistoryThrough")
        .and_then(Value::as_i64)
}

/// The two sides of a compaction, as views, and the projection after it.
pub(super) struct CompactionSides<'a> {
    pub before: ProjectionView,
    pub after: ProjectionView,
    pub projection_after: &'a Projection,
    pub trigger: TriggerFacts,
}

/// The compaction pane for the event `event`, from the views on either side of it;
/// `is_request` says whether a request sits at an offset.
pub(super) fn compaction_view_of(
    event: &IterateEvent,
    sides: CompactionSides<'_>,
    is_request: impl Fn(i64) -> bool,
) -> Result<CompactionView, IterateError> {
    let offset = event.offset;
    let EventKind::ContextAdded(context) = &event.kind else {
        return Err(IterateError::NotACompaction(offset));
    };
    let Some(compaction) = context
        .compaction
        .as_ref()
        .filter(|_| context.role == Role::Developer)
    else {
        return Err(IterateError::NotACompaction(offset));
    };
    let after = sides.projection_after;
    let cutoff = cutoff_of(event);
    let validity = compaction_cutoff(offset, compaction);
    let applied = after.last_compaction.clone();
    let summary_item = after
        .history
        .first()
        .filter(|item| item.offset == offset && applied.is_some());
    let summary = summary_item.map(|item| ItemView::of(item, after.published_through, after.rules));
    let tokens = sides.trigger.tokens(after, summary_item);
    let request_at_cutoff = cutoff.filter(|c| is_request(*c));
    Ok(CompactionView {
        offset,
        cutoff,
        valid: validity.is_ok(),
        invalid_reason: validity.err(),
        summary,
        usage: compaction.field("usage").cloned(),
        before: sides.before,
        after: sides.after,
        dropped: applied
            .as_ref()
            .map(|a| a.dropped.clone())
            .unwrap_or_default(),
        kept: applied.as_ref().map(|a| a.kept.clone()).unwrap_or_default(),
        collapsed: applied.map(|a| a.collapsed).unwrap_or_default(),
        request_at_cutoff,
        tokens,
    })
}

/// A view's diagnostics: what reading the records at or before `at` found, then the fold's,
/// in line order.
pub(super) fn diagnostics_through(
    read: &[(Option<i64>, Diagnostic)],
    projection: &Projection,
    at: i64,
) -> ViewDiagnostics {
    ViewDiagnostics::of(
        read.iter()
            .filter(|(offset, _)| offset.is_some_and(|o| o <= at))
            .map(|(_, d)| d)
            .chain(&projection.diagnostics),
    )
}

pub(super) fn view_of(
    projection: &Projection,
    at: i64,
    diagnostics: ViewDiagnostics,
) -> ProjectionView {
    let through = projection.published_through;
    // The loop's items are its own: they are the list, in the loop's order.
    let agent = projection
        .agent
        .as_deref()
        .filter(|_| projection.rules == Rules::AgentLoop);
    let (system, history): (&[Item], &[Item]) = match projection.rules {
        Rules::Seed => (&projection.system, &projection.history),
        Rules::Sections | Rules::AgentLoop => {
            projection.history.split_at(projection.standing_len())
        }
    };
    let item_view = |item: &Item| {
        let mut view = ItemView::of(item, through, projection.rules);
        if projection.rules != Rules::Seed {
            view.header = super::section_text::item_header(item);
            let wire = |transport| {
                let (role, rule) = super::section_text::wire_role(item, transport);
                ProviderRole { role, rule }
            };
            view.provider_roles = ProviderRoles {
                openai: wire(Transport::Openai),
                workers_ai: wire(Transport::WorkersAi),
            };
        }
        view
    };
    ProjectionView {
        at,
        published_through: through,
        pending: (!projection.waiting_for_system_prompt.is_empty()).then(|| Pending {
            reason: "waiting-for-system-prompt".to_string(),
            offsets: projection.waiting_for_system_prompt.clone(),
        }),
        rules: (projection.rules != Rules::Seed).then_some(projection.rules),
        system: system.iter().map(item_view).collect(),
        history: match agent {
            Some(agent) => super::agent_loop::view::items(&agent.state, through),
            None => history.iter().map(item_view).collect(),
        },
        agent_loop: agent.map(|agent| super::agent_loop::view::AgentLoopView::of(&agent.state)),
        diagnostics: diagnostics.latest,
        diagnostic_count: diagnostics.count,
        error_count: diagnostics.errors,
    }
}

#[cfg(test)]
mod tests;
