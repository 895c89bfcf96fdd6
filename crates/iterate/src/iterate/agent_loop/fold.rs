//! The agent loop's reduced state and its pure fold, as `iterate-agent-loop-contract.md` §2–§3
//! say: the context items, the sections shown to the model, runs, the pending trigger, the
//! open request, the counters, the pause and the owed answer. `apply` does no I/O and cannot
//! fail: a payload that breaks its shape is skipped and said at its offset.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::codemode::{self, Codemode};
pub use super::item::{ContextItem, TokenMemo};
use super::Envelope;
use crate::iterate::event::{Behaviour, ContextAdded, EventKind, IterateEvent, Role};
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;

/// Who woke the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TriggerSource {
    External,
    AgentLoop,
}

/// The item that will open the next request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingTrigger {
    pub offset: i64,
    /// `atMs`, as the event's `createdAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub source: TriggerSource,
    /// Words from other contexts waiting at the input gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Vec<i64>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenRequest {
    pub requested_at_offset: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub trigger_source: TriggerSource,
}

/// An answer the agent owes since an external item asked for one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwedAnswer {
    pub offset: i64,
    pub why: String,
    pub reminded: bool,
}

/// The reduced state of one agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentLoop {
    /// Shared, so that a copy of the state (the one a request opened on) copies no item.
    pub items: Vec<Arc<ContextItem>>,
    /// Section name → the text shown to the model, in first-shown order.
    pub sections: Map<String, Value>,
    /// Run offset → the call it runs.
    pub runs: BTreeMap<i64, String>,
    pub awaiting_run: Option<String>,
    pub pending_runs: BTreeSet<i64>,
    pub pending_trigger: Option<PendingTrigger>,
    pub open_request: Option<OpenRequest>,
    pub consecutive_llm_failures: u32,
    pub autonomous_turn_count: u32,
    pub paused: bool,
    pub owed_answer: Option<OwedAnswer>,
    pub creation: Option<i64>,
    pub deletion: Option<i64>,
    pub config: Map<String, Value>,
    pub summary: Option<Value>,
    pub preamble: Map<String, Value>,
    pub last_activity_at: Option<String>,
}

/// What folding one event did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed.
    Ignored,
    Changed,
    /// A request opened at the event's offset.
    Opened,
    /// A compaction replaced the history through `cutoff`.
    Compacted {
        cutoff: i64,
    },
}

/// What a payload breaks, for the diagnostic that skips it.
fn skipped(event: &IterateEvent, what: &str, why: &str) -> Diagnostic {
    Diagnostic::warning(
        event.line,
        Some(event.offset),
        "agent-payload-skipped",
        format!("{what} skipped: {why}"),
    )
}

/// Why a context item's actor is not one the loop writes, if it is not.
fn actor_problem(actor: Option<&Value>) -> Option<String> {
    let actor = actor?;
    match actor.field("type").and_then(Value::as_str) {
        Some("user" | "agent") => None,
        Some("script") if actor.field("requestOffset").is_some_and(Value::is_i64) => None,
        Some("script") => Some("a script actor has no integer requestOffset".to_string()),
        _ => Some(format!(
            "actor {actor} is not {{type:\"user\"}}, {{type:\"script\", requestOffset}} or {{type:\"agent\"}}"
        )),
    }
}

impl AgentLoop {
    /// Folds one event in, in file order; what it breaks goes to `diagnostics`.
    pub fn apply(&mut self, event: &IterateEvent, diagnostics: &mut Vec<Diagnostic>) -> Outcome {
        let empty = Envelope {
            name: None,
            path: None,
            origin: None,
            processor: None,
            schedule: None,
            idempotency_key: None,
            payload: Value::Null,
        };
        let envelope = event.agent.as_deref().unwrap_or(&empty);
        let outcome = match &event.kind {
            EventKind::ContextAdded(context) => self.add(event, context, envelope, diagnostics),
            EventKind::RequestRequested { model } => {
                self.request(event, model.as_deref(), envelope, diagnostics)
            }
            EventKind::RequestSettled { .. } => self.settle(event, envelope, diagnostics),
            EventKind::Paused if !self.paused => {
                self.paused = true;
                self.pending_trigger = None;
                Outcome::Changed
            }
            EventKind::Resumed if self.paused => {
                self.paused = false;
                self.consecutive_llm_failures = 0;
                self.autonomous_turn_count = 0;
                Outcome::Changed
            }
            _ => self.other(event, envelope, diagnostics),
        };
        if outcome != Outcome::Ignored {
            if let Some(at) = &event.created_at {
                self.last_activity_at = Some(at.clone());
            }
        }
        outcome
    }

    fn add(
        &mut self,
        event: &IterateEvent,
        context: &ContextAdded,
        envelope: &Envelope,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Outcome {
        let offset = event.offset;
        // An old journal's birth prompt, which the loop now writes as sections.
        if context.role == Role::System
            && envelope
                .idempotency_key
                .as_deref()
                .is_some_and(|key| key.starts_with("agent/system-prompt:"))
        {
            return Outcome::Ignored;
        }
        let problem = if !context.stated_role {
            Some("it has no role".to_string())
        } else {
            actor_problem(context.actor.as_ref())
                .or_else(|| {
                    envelope
                        .field("sections")
                        .filter(|s| !s.is_object())
                        .map(|s| format!("sections is {s}, not an object"))
                })
                .or_else(|| {
                    envelope
                        .field("call")
                        .filter(|c| {
                            c.field("callId").and_then(Value::as_str).is_none()
                                || c.field("script").and_then(Value::as_str).is_none()
                        })
                        .map(|c| format!("call {c} has no string callId and script"))
                })
                .or_else(|| {
                    envelope
                        .field("providerItems")
                        .filter(|p| !p.is_array())
                        .map(|p| format!("providerItems is {p}, not a list"))
                })
        };
        if let Some(why) = problem {
            diagnostics.push(skipped(event, "context-added", &why));
            return Outcome::Ignored;
        }
        if let (Role::Developer, Some(compaction)) = (context.role, &context.compaction) {
            return self.compact(event, context, compaction, diagnostics);
        }
        let item = ContextItem::added(event, context, envelope);
        let from = item.from.clone();
        if let (Role::System, Some(Value::Object(sections))) = (item.role, &item.sections) {
            for (name, text) in sections {
                if text.is_null() {
                    self.sections.shift_remove(name);
                } else {
                    // A name already shown keeps its place; a new one goes last.
                    self.sections.insert(name.clone(), text.clone());
                }
            }
        }
        if item.role == Role::Assistant && item.llm_request_offset.is_some() {
            self.awaiting_run = match item.call.as_ref().and_then(|c| c.field("callId")) {
                Some(Value::String(call)) => Some(call.clone()),
                _ => matches!(codemode::parse(&item.content), Codemode::Script(_))
                    .then(|| format!("call_{offset}")),
            };
        }
        let actor = item.actor_type().map(str::to_string);
        self.items.push(Arc::new(item));
        let triggers = matches!(context.role, Role::User | Role::Developer)
            && context.behaviour != Behaviour::DontTriggerRequest;
        if triggers {
            self.trigger(event, envelope, actor.as_deref(), from.as_deref());
        } else if actor.as_deref() == Some("script")
            && self.owed_answer.as_ref().is_some_and(|owed| owed.reminded)
            && self.open_request.is_none()
            && self.pending_trigger.is_none()
        {
            // The script answered after the reminder, and nothing more will: given up.
            self.owed_answer = None;
        }
        Outcome::Changed
    }

    fn trigger(
        &mut self,
        event: &IterateEvent,
        envelope: &Envelope,
        actor: Option<&str>,
        from: Option<&str>,
    ) {
        let offset = event.offset;
        let source = match actor {
            Some("script" | "agent") => TriggerSource::AgentLoop,
            _ => TriggerSource::External,
        };
        let mut gate = None;
        if source == TriggerSource::External {
            self.consecutive_llm_failures = 0;
            self.autonomous_turn_count = 0;
            if let Some(Value::Object(summary)) = &mut self.summary {
                if summary.contains_key("waitingFor") {
                    summary.insert("waitingFor".to_string(), Value::Null);
                }
            }
            let scheduled =
                envelope.schedule.is_some() && envelope.origin_or_path().is_some_and(|o| o != "/");
            let owed = match envelope.field("answerOwed") {
                Some(Value::Bool(owed)) => *owed,
                _ => scheduled,
            };
            if owed {
                let why = match &envelope.schedule {
                    Some(key) => format!("the scheduled job \"{key}\""),
                    None => "the message".to_string(),
                };
                self.owed_answer = Some(OwedAnswer {
                    offset,
                    why,
                    reminded: false,
                });
            }
            if from.is_some() {
                gate = match &self.pending_trigger {
                    None => Some(vec![offset]),
                    Some(PendingTrigger {
                        gate: Some(waiting),
                        ..
                    }) => Some(waiting.iter().copied().chain([offset]).collect()),
                    Some(_) => None,
                };
            }
        }
        self.pending_trigger = Some(PendingTrigger {
            offset,
            at: event.created_at.clone(),
            source,
            gate,
        });
    }

    fn compact(
        &mut self,
        event: &IterateEvent,
        context: &ContextAdded,
        compaction: &Value,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Outcome {
        let offset = event.offset;
        let Some(cutoff) = compaction
            .field("replacesHistoryThrough")
            .and_then(Value::as_i64)
        else {
            diagnostics.push(skipped(
                event,
                "compaction",
                "replacesHistoryThrough is not an integer offset",
            ));
            return Outcome::Ignored;
        };
        let ignored = |why: String| {
            Diagnostic::warning(
                event.line,
                Some(offset),
                "compaction-ignored",
                format!("compaction ignored: {why}"),
            )
        };
        if cutoff >= offset {
            diagnostics.push(ignored(format!(
                "it replaces history through @{cutoff}, not before its own offset @{offset}"
            )));
            return Outcome::Ignored;
        }
        if let Some(earlier) = self
            .items
            .iter()
            .filter_map(|item| item.replaces_through())
            .find(|through| *through >= cutoff)
        {
            diagnostics.push(ignored(format!(
                "an earlier compaction already replaces history through @{earlier}, not before @{cutoff}"
            )));
            return Outcome::Ignored;
        }
        let keeps = compaction.field("keepsEarlierSummaries") == Some(&Value::Bool(true));
        let old = std::mem::take(&mut self.items);
        let mut items = Vec::with_capacity(old.len());
        if !self.sections.is_empty() {
            let first = old.iter().find(|item| item.sections.is_some());
            items.push(Arc::new(ContextItem {
                offset: first.map_or(offset, |item| item.offset),
                seq: first.map_or(event.seq, |item| item.seq),
                role: Role::System,
                content: String::new(),
                actor: None,
                files: Vec::new(),
                from: None,
                llm_request_offset: None,
                compaction: None,
                call: None,
                provider_items: None,
                provider_model: None,
                sections: Some(Value::Object(self.sections.clone())),
                snapshot: true,
                stamp: false,
                tokens: TokenMemo::default(),
            }));
        }
        items.extend(
            old.iter()
                .filter(|item| item.role == Role::System && item.sections.is_none())
                .cloned(),
        );
        if keeps {
            items.extend(
                old.iter()
                    .filter(|item| item.compaction.is_some() && item.offset <= cutoff)
                    .cloned(),
            );
        }
        items.push(Arc::new(ContextItem::summary(event, context, compaction)));
        items.extend(
            old.into_iter()
                .filter(|item| item.role != Role::System && item.offset > cutoff),
        );
        self.items = items;
        self.runs.retain(|run, _| *run > cutoff);
        Outcome::Compacted { cutoff }
    }

    fn request(
        &mut self,
        event: &IterateEvent,
        model: Option<&str>,
        envelope: &Envelope,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Outcome {
        let trigger = envelope.field("triggerOffset").and_then(Value::as_i64);
        let (Some(trigger), Some(model), Some(expires_at)) =
            (trigger, model, envelope.field("expiresAt"))
        else {
            diagnostics.push(skipped(
                event,
                "llm-request-requested",
                "model, expiresAt and an integer triggerOffset are all required",
            ));
            return Outcome::Ignored;
        };
        let why = match (&self.pending_trigger, &self.open_request) {
            (_, Some(open)) => Some(format!(
                "request @{} is still open",
                open.requested_at_offset
            )),
            (None, None) => Some("no trigger is pending".to_string()),
            (Some(pending), None) if pending.offset != trigger => Some(format!(
                "its triggerOffset @{trigger} is not the pending trigger @{}",
                pending.offset
            )),
            (Some(_), None) => None,
        };
        if let Some(why) = why {
            diagnostics.push(Diagnostic::info(
                event.line,
                Some(event.offset),
                "request-not-opened",
                format!("this request intent opened nothing and sent nothing: {why}"),
            ));
            return Outcome::Ignored;
        }
        let source = self
            .pending_trigger
            .take()
            .map_or(TriggerSource::External, |t| t.source);
        self.items.push(Arc::new(ContextItem::stamp(event)));
        self.open_request = Some(OpenRequest {
            requested_at_offset: event.offset,
            expires_at: Some(expires_at.clone()),
            model: Some(model.to_string()),
            trigger_source: source,
        });
        if source == TriggerSource::AgentLoop {
            self.autonomous_turn_count += 1;
        }
        Outcome::Opened
    }

    fn settle(
        &mut self,
        event: &IterateEvent,
        envelope: &Envelope,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Outcome {
        let request = envelope.field("requestOffset").and_then(Value::as_i64);
        let result = envelope.field("result");
        let status = result
            .and_then(|r| r.field("status"))
            .and_then(Value::as_str);
        let (Some(request), Some(status @ ("succeeded" | "failed" | "cancelled"))) =
            (request, status)
        else {
            diagnostics.push(skipped(
                event,
                "llm-request-settled",
                "it needs an integer requestOffset and a result of status succeeded, failed or cancelled",
            ));
            return Outcome::Ignored;
        };
        let Some(open) = self
            .open_request
            .take_if(|open| open.requested_at_offset == request)
        else {
            return Outcome::Ignored;
        };
        match status {
            "succeeded" => {
                self.consecutive_llm_failures = 0;
                let text = result
                    .and_then(|r| r.field("text"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if codemode::parse(text) == Codemode::None {
                    self.owed_answer = None;
                }
            }
            "failed" => {
                self.consecutive_llm_failures += 1;
                // The retry opens on the failed request itself.
                self.pending_trigger = Some(PendingTrigger {
                    offset: request,
                    at: event.created_at.clone(),
                    source: open.trigger_source,
                    gate: None,
                });
            }
            _ => {}
        }
        Outcome::Changed
    }

    fn other(
        &mut self,
        event: &IterateEvent,
        envelope: &Envelope,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Outcome {
        let offset = event.offset;
        let int = |name: &str| envelope.field(name).and_then(Value::as_i64);
        match envelope.name {
            Some("itx/run-requested") => {
                let ours = envelope
                    .processor
                    .as_ref()
                    .is_some_and(|p| p.slug.as_deref() == Some("agent"))
                    && envelope.origin_or_path() == envelope.path.as_deref();
                if !ours {
                    return Outcome::Ignored;
                }
                self.pending_runs.insert(offset);
                if let Some(call) = self.awaiting_run.take() {
                    self.runs.insert(offset, call);
                }
                Outcome::Changed
            }
            Some("itx/run-settled") => match int("requestOffset") {
                Some(run) if self.pending_runs.remove(&run) => Outcome::Changed,
                Some(_) => Outcome::Ignored,
                None => {
                    diagnostics.push(skipped(event, "run-settled", "no integer requestOffset"));
                    Outcome::Ignored
                }
            },
            Some("agent/input-gated") => {
                let Some(input) = int("inputOffset") else {
                    diagnostics.push(skipped(event, "input-gated", "no integer inputOffset"));
                    return Outcome::Ignored;
                };
                let wake = envelope.field("wake") == Some(&Value::Bool(true));
                let Some(pending) = self.pending_trigger.as_mut() else {
                    return Outcome::Ignored;
                };
                let Some(waiting) = pending.gate.as_mut().filter(|w| w.contains(&input)) else {
                    return Outcome::Ignored;
                };
                if wake {
                    pending.gate = None;
                } else {
                    waiting.retain(|o| *o != input);
                    if waiting.is_empty() {
                        self.pending_trigger = None;
                    }
                }
                Outcome::Changed
            }
            Some("agent/answer-reminded") => match self.owed_answer.as_mut() {
                Some(owed) if Some(owed.offset) == int("inputOffset") => {
                    owed.reminded = true;
                    Outcome::Changed
                }
                _ => Outcome::Ignored,
            },
            Some("agent/configured") => match envelope.field("config") {
                Some(Value::Object(config)) => {
                    configure(&mut self.config, config);
                    Outcome::Changed
                }
                _ => {
                    diagnostics.push(skipped(event, "configured", "config is not an object"));
                    Outcome::Ignored
                }
            },
            Some("agent/created") => once(&mut self.creation, event, "born", diagnostics),
            Some("agent/deleted") => once(&mut self.deletion, event, "deleted", diagnostics),
            Some("agent/preamble-entry-set") => {
                let Some(key) = envelope.field("key").and_then(Value::as_str) else {
                    diagnostics.push(skipped(event, "preamble-entry-set", "no string key"));
                    return Outcome::Ignored;
                };
                match envelope.field("code") {
                    Some(code) => {
                        self.preamble.insert(key.to_string(), code.clone());
                    }
                    None => {
                        self.preamble.shift_remove(key);
                    }
                }
                Outcome::Changed
            }
            Some("agent/preamble-entry-quarantined") => {
                match envelope.field("key").and_then(Value::as_str) {
                    Some(key) => {
                        self.preamble.shift_remove(key);
                        Outcome::Changed
                    }
                    None => Outcome::Ignored,
                }
            }
            Some("agent/summary-updated") => {
                let summary = self
                    .summary
                    .get_or_insert_with(|| Value::Object(Map::new()));
                if let (Value::Object(summary), Value::Object(said)) = (summary, &envelope.payload)
                {
                    for name in ["title", "activity", "description"] {
                        if let Some(text) = said
                            .get(name)
                            .filter(|v| v.as_str().is_some_and(|t| !t.is_empty()))
                        {
                            summary.insert(name.to_string(), text.clone());
                        }
                    }
                    if let Some(waiting) = said.get("waitingFor") {
                        summary.insert("waitingFor".to_string(), waiting.clone());
                    }
                }
                Outcome::Changed
            }
            _ => Outcome::Ignored,
        }
    }
}

/// Merges a `configured` patch as the loop does: `llm.model` and `llm.reasoningEffort` each
/// replace theirs when they are non-empty text, and every other knob replaces its own unless it
/// is `null`.
fn configure(config: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        if value.is_null() {
            continue;
        }
        if key == "llm" {
            let llm = config
                .entry("llm")
                .or_insert_with(|| Value::Object(Map::new()));
            if let (Value::Object(llm), Value::Object(given)) = (llm, value) {
                for name in ["model", "reasoningEffort"] {
                    if let Some(text) = given
                        .get(name)
                        .filter(|v| v.as_str().is_some_and(|t| !t.is_empty()))
                    {
                        llm.insert(name.to_string(), text.clone());
                    }
                }
            }
            continue;
        }
        config.insert(key.clone(), value.clone());
    }
}

/// Sets a once-only event's offset, or says it came again.
fn once(
    slot: &mut Option<i64>,
    event: &IterateEvent,
    what: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Outcome {
    match slot {
        Some(first) => {
            diagnostics.push(Diagnostic::warning(
                event.line,
                Some(event.offset),
                "agent-lifecycle-repeated",
                format!("the agent was already {what} at @{first}: ignored"),
            ));
            Outcome::Ignored
        }
        None => {
            *slot = Some(event.offset);
            Outcome::Changed
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
