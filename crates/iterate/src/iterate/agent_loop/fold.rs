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
pub(crate) mod tests {
    use super::*;
    use crate::iterate::event::parse;
    use serde_json::json;

    pub(crate) const PATH: &str = "/agents/a";

    /// An event of the loop at `offset`, from the agent processor unless `source` says other.
    pub(crate) fn event(
        offset: i64,
        name: &str,
        payload: Value,
        source: Option<Value>,
    ) -> IterateEvent {
        let source = source.unwrap_or_else(
            || json!({"origin": PATH, "processor": {"slug": "agent", "version": "16"}}),
        );
        let value = json!({
            "offset": offset,
            "type": format!("events.iterate.com/{name}"),
            "createdAt": format!("2026-11-20T09:00:{:02}.000Z", offset % 60),
            "path": PATH,
            "source": source,
            "payload": payload,
        });
        let (Some(event), _) = parse(offset as u64, offset as u64, &value) else {
            panic!("a test event parses: {value}");
        };
        event
    }

    pub(crate) fn added(offset: i64, payload: Value) -> IterateEvent {
        event(offset, "agent/context-added", payload, None)
    }

    pub(crate) fn said(offset: i64, content: &str) -> IterateEvent {
        event(
            offset,
            "agent/context-added",
            json!({"role": "user", "content": content}),
            Some(json!({"origin": PATH})),
        )
    }

    pub(crate) fn request(offset: i64, trigger: i64) -> IterateEvent {
        event(
            offset,
            "agent/llm-request-requested",
            json!({"model": "gpt-5.1", "expiresAt": "later", "triggerOffset": trigger}),
            None,
        )
    }

    pub(crate) fn settled(offset: i64, request: i64, result: Value) -> IterateEvent {
        event(
            offset,
            "agent/llm-request-settled",
            json!({"requestOffset": request, "result": result}),
            None,
        )
    }

    /// The loop after `events`, with what folding them said.
    pub(crate) fn folded(events: &[IterateEvent]) -> (AgentLoop, Vec<Diagnostic>) {
        let mut state = AgentLoop::default();
        let mut diagnostics = Vec::new();
        for event in events {
            state.apply(event, &mut diagnostics);
        }
        (state, diagnostics)
    }

    fn offsets(state: &AgentLoop) -> Vec<i64> {
        state.items.iter().map(|item| item.offset).collect()
    }

    #[test]
    fn given_words_from_a_user_when_folded_then_they_are_appended_and_wake_the_loop_externally() {
        let (mut state, _) = folded(&[said(1, "hi")]);
        state.consecutive_llm_failures = 2;
        state.autonomous_turn_count = 3;
        state.apply(&said(2, "again"), &mut Vec::new());
        assert_eq!(offsets(&state), vec![1, 2], "both items are in the list");
        let trigger = state.pending_trigger.clone().expect("a trigger is pending");
        assert_eq!(
            (trigger.offset, trigger.source),
            (2, TriggerSource::External),
            "the newest words replace the pending trigger, from outside the loop"
        );
        assert_eq!(
            (state.consecutive_llm_failures, state.autonomous_turn_count),
            (0, 0),
            "external words zero both counters"
        );
        assert_eq!(
            state.last_activity_at.as_deref(),
            Some("2026-11-20T09:00:02.000Z"),
            "a change sets the last activity"
        );
    }

    #[test]
    fn given_an_old_birth_prompt_when_folded_then_it_is_ignored() {
        let value = json!({
            "offset": 1, "type": "events.iterate.com/agent/context-added",
            "idempotencyKey": "agent/system-prompt:abc",
            "payload": {"role": "system", "content": "old prompt"},
        });
        let (Some(old), _) = parse(1, 1, &value) else {
            panic!("the event parses");
        };
        let (state, diagnostics) = folded(&[old]);
        assert!(state.items.is_empty(), "the old prompt adds nothing");
        assert!(diagnostics.is_empty(), "and is no fault");
        assert_eq!(
            state.last_activity_at, None,
            "an ignored event changes nothing"
        );
    }

    #[test]
    fn given_items_the_loop_writes_when_folded_then_only_users_and_developers_trigger_and_agents_count_as_the_loop(
    ) {
        let (state, _) = folded(&[added(
            1,
            json!({"role": "developer", "content": "note", "actor": {"type": "agent"}}),
        )]);
        assert_eq!(
            state.pending_trigger.map(|t| t.source),
            Some(TriggerSource::AgentLoop),
            "an agent actor's item is the loop's own trigger"
        );
        let (state, _) = folded(&[
            added(1, json!({"role": "system", "content": "s"})),
            added(2, json!({"role": "assistant", "content": "a"})),
            added(
                3,
                json!({"role": "user", "content": "u", "llmRequestPolicy": {"behaviour": "dont-trigger-request"}}),
            ),
        ]);
        assert_eq!(
            state.pending_trigger, None,
            "system, assistant and dont-trigger-request items wake nothing"
        );
    }

    #[test]
    fn given_owed_answers_when_folded_then_the_why_names_the_message_or_the_scheduled_job() {
        let (state, _) = folded(&[added(
            1,
            json!({"role": "user", "content": "q", "answerOwed": true}),
        )]);
        assert_eq!(
            state.owed_answer,
            Some(OwedAnswer {
                offset: 1,
                why: "the message".to_string(),
                reminded: false
            }),
            "answerOwed true owes an answer to the message"
        );
        let scheduled = event(
            2,
            "agent/context-added",
            json!({"role": "user", "content": "nightly"}),
            Some(json!({"origin": PATH, "schedule": {"key": "nightly"}})),
        );
        let (state, _) = folded(&[scheduled]);
        assert_eq!(
            state.owed_answer.map(|o| o.why),
            Some("the scheduled job \"nightly\"".to_string()),
            "a scheduled job owes an answer unless it says otherwise"
        );
        let declined = event(
            2,
            "agent/context-added",
            json!({"role": "user", "content": "nightly", "answerOwed": false}),
            Some(json!({"origin": PATH, "schedule": {"key": "nightly"}})),
        );
        assert_eq!(
            folded(&[declined]).0.owed_answer,
            None,
            "answerOwed false owes nothing, even scheduled"
        );
        let root = event(
            2,
            "agent/context-added",
            json!({"role": "user", "content": "nightly"}),
            Some(json!({"origin": "/", "schedule": {"key": "nightly"}})),
        );
        assert_eq!(
            folded(&[root]).0.owed_answer,
            None,
            "a schedule from the root owes nothing"
        );
    }

    #[test]
    fn given_an_owed_answer_when_reminded_and_a_script_reports_with_nothing_pending_then_it_is_given_up(
    ) {
        let (mut state, _) = folded(&[
            added(
                1,
                json!({"role": "user", "content": "q", "answerOwed": true}),
            ),
            event(2, "agent/paused", json!({"reason": "r"}), None),
        ]);
        assert!(
            state.owed_answer.is_some() && state.pending_trigger.is_none(),
            "owed, and the pause dropped the trigger"
        );
        state.apply(
            &event(3, "agent/answer-reminded", json!({"inputOffset": 1}), None),
            &mut Vec::new(),
        );
        assert_eq!(
            state.owed_answer.as_ref().map(|o| o.reminded),
            Some(true),
            "the reminder marks it"
        );
        state.apply(
            &added(
                4,
                json!({"role": "developer", "content": "done", "actor": {"type": "script", "requestOffset": 9}, "llmRequestPolicy": {"behaviour": "dont-trigger-request"}}),
            ),
            &mut Vec::new(),
        );
        assert_eq!(
            state.owed_answer, None,
            "a quiet script item after the reminder, nothing open or pending, ends it"
        );
    }

    #[test]
    fn given_words_from_other_contexts_when_gated_then_hold_and_wake_act_on_the_waiting_list() {
        let other = |offset| {
            event(
                offset,
                "agent/context-added",
                json!({"role": "user", "content": "ping"}),
                Some(json!({"origin": "/agents/b"})),
            )
        };
        let (mut state, _) = folded(&[other(1), other(2)]);
        assert_eq!(
            state.pending_trigger.as_ref().and_then(|t| t.gate.clone()),
            Some(vec![1, 2]),
            "each word from another context waits at the gate after those before"
        );
        assert_eq!(
            state.items[0].from.as_deref(),
            Some("/agents/b"),
            "the item keeps who sent it"
        );
        state.apply(
            &event(
                3,
                "agent/input-gated",
                json!({"inputOffset": 1, "wake": false}),
                None,
            ),
            &mut Vec::new(),
        );
        assert_eq!(
            state.pending_trigger.as_ref().and_then(|t| t.gate.clone()),
            Some(vec![2]),
            "a hold takes its offset off the list"
        );
        state.apply(
            &event(
                4,
                "agent/input-gated",
                json!({"inputOffset": 2, "wake": true}),
                None,
            ),
            &mut Vec::new(),
        );
        let trigger = state.pending_trigger.clone().expect("the trigger stays");
        assert_eq!(trigger.gate, None, "a wake drops the gate");
        let (mut held, _) = folded(&[other(1)]);
        held.apply(
            &event(
                2,
                "agent/input-gated",
                json!({"inputOffset": 1, "wake": false}),
                None,
            ),
            &mut Vec::new(),
        );
        assert_eq!(
            held.pending_trigger, None,
            "holding the last waiting offset drops the trigger"
        );
        let (state, _) = folded(&[said(1, "mine"), other(2)]);
        assert_eq!(
            state.pending_trigger.and_then(|t| t.gate),
            None,
            "behind an ungated trigger nothing is gated"
        );
    }

    #[test]
    fn given_a_request_on_the_pending_trigger_when_folded_then_it_opens_with_a_stamp() {
        let mut diagnostics = Vec::new();
        let mut state = AgentLoop::default();
        state.apply(&said(1, "go"), &mut diagnostics);
        assert_eq!(
            state.apply(&request(2, 1), &mut diagnostics),
            Outcome::Opened,
            "it opens"
        );
        let stamp = state.items.last().expect("a stamp");
        assert!(
            stamp.stamp && stamp.role == Role::Developer && stamp.actor_type() == Some("agent"),
            "the stamp is an agent developer item: {stamp:?}"
        );
        assert_eq!(
            stamp.content, "Requested at: 2026-11-20T09:00:02.000Z (UTC)",
            "with the request's createdAt verbatim"
        );
        assert_eq!(state.pending_trigger, None, "the trigger is spent");
        assert_eq!(
            state
                .open_request
                .as_ref()
                .map(|o| (o.requested_at_offset, o.trigger_source)),
            Some((2, TriggerSource::External)),
            "the request is open"
        );
        assert_eq!(
            state.autonomous_turn_count, 0,
            "an external trigger is no autonomous turn"
        );
        assert_eq!(
            state.apply(&request(3, 1), &mut diagnostics),
            Outcome::Ignored,
            "a request while one is open is ignored"
        );
        assert!(
            diagnostics
                .last()
                .is_some_and(|d| d.code == "request-not-opened" && d.message.contains("still open")),
            "and says why: {diagnostics:?}"
        );
        let (mut other, _) = folded(&[said(1, "go")]);
        let mut said_why = Vec::new();
        assert_eq!(
            other.apply(&request(2, 7), &mut said_why),
            Outcome::Ignored,
            "a triggerOffset that is not the pending trigger opens nothing"
        );
        assert!(
            said_why[0].message.contains("not the pending trigger @1"),
            "and names the pending one: {said_why:?}"
        );
        let incomplete = event(
            3,
            "agent/llm-request-requested",
            json!({"model": "m", "triggerOffset": 1}),
            None,
        );
        let mut skipped = Vec::new();
        assert_eq!(
            other.apply(&incomplete, &mut skipped),
            Outcome::Ignored,
            "a request without expiresAt is malformed"
        );
        assert_eq!(
            skipped[0].code, "agent-payload-skipped",
            "and skipped with a warning"
        );
    }

    #[test]
    fn given_settlements_when_folded_then_failures_retry_and_plain_answers_pay_what_is_owed() {
        let base = [
            added(
                1,
                json!({"role": "user", "content": "q", "answerOwed": true}),
            ),
            request(2, 1),
        ];
        let (mut state, _) = folded(&base);
        state.apply(
            &settled(3, 2, json!({"status": "failed", "errorMessage": "503"})),
            &mut Vec::new(),
        );
        assert_eq!(state.consecutive_llm_failures, 1, "a failure counts");
        assert_eq!(
            state.pending_trigger.as_ref().map(|t| (t.offset, t.source)),
            Some((2, TriggerSource::External)),
            "the trigger returns on the failed request, with its source"
        );
        assert_eq!(state.open_request, None, "the request closed");
        state.apply(&request(4, 2), &mut Vec::new());
        state.apply(
            &settled(
                5,
                4,
                json!({"status": "succeeded", "text": "<codemode>\nx\n</codemode>"}),
            ),
            &mut Vec::new(),
        );
        assert_eq!(
            state.consecutive_llm_failures, 0,
            "a success zeroes failures"
        );
        assert!(
            state.owed_answer.is_some(),
            "a script is no answer: still owed"
        );
        let (mut state, _) = folded(&base);
        assert_eq!(
            state.apply(
                &settled(3, 9, json!({"status": "succeeded", "text": "hi"})),
                &mut Vec::new()
            ),
            Outcome::Ignored,
            "a settlement of another request counts for nothing"
        );
        state.apply(
            &settled(4, 2, json!({"status": "succeeded", "text": "Done."})),
            &mut Vec::new(),
        );
        assert_eq!(state.owed_answer, None, "plain words answer what was owed");
    }

    #[test]
    fn given_a_pause_when_folded_then_it_drops_the_trigger_and_a_resume_zeroes_the_counters() {
        let (mut state, _) = folded(&[said(1, "go")]);
        state.consecutive_llm_failures = 2;
        state.apply(
            &event(2, "agent/paused", json!({"reason": "r"}), None),
            &mut Vec::new(),
        );
        assert!(
            state.paused && state.pending_trigger.is_none(),
            "paused, trigger dropped"
        );
        assert_eq!(
            state.apply(&request(3, 1), &mut Vec::new()),
            Outcome::Ignored,
            "nothing opens on the dropped trigger"
        );
        state.apply(&event(4, "agent/resumed", json!({}), None), &mut Vec::new());
        assert!(
            !state.paused && state.consecutive_llm_failures == 0,
            "resumed, counters zeroed"
        );
    }

    #[test]
    fn given_sections_items_when_folded_then_they_merge_in_first_shown_order() {
        let (state, _) = folded(&[
            added(
                1,
                json!({"role": "system", "content": "", "snapshot": true, "sections": {"a": "1", "b": "2", "c": "3"}}),
            ),
            added(
                2,
                json!({"role": "system", "content": "diff", "sections": {"a": "1'", "b": null, "d": "4"}}),
            ),
        ]);
        assert_eq!(
            Value::Object(state.sections),
            json!({"a": "1'", "c": "3", "d": "4"}),
            "a shown name keeps its place, null deletes, a new name goes last"
        );
    }

    #[test]
    fn given_answers_when_folded_then_the_run_awaited_comes_from_the_call_or_the_script() {
        let answer = |offset, payload: Value| added(offset, payload);
        let (state, _) = folded(&[answer(
            1,
            json!({"role": "assistant", "content": "x", "llmRequestOffset": 0, "call": {"callId": "c9", "status": "", "script": "s"}}),
        )]);
        assert_eq!(state.awaiting_run.as_deref(), Some("c9"), "the call's id");
        let (state, _) = folded(&[answer(
            4,
            json!({"role": "assistant", "content": "<codemode>\ns\n</codemode>", "llmRequestOffset": 0}),
        )]);
        assert_eq!(
            state.awaiting_run.as_deref(),
            Some("call_4"),
            "a legacy script is named by its offset"
        );
        let (mut state, _) = folded(&[answer(
            4,
            json!({"role": "assistant", "content": "words", "llmRequestOffset": 0}),
        )]);
        assert_eq!(state.awaiting_run, None, "words await no run");
        state.awaiting_run = Some("c1".to_string());
        state.apply(
            &event(
                5,
                "itx/run-requested",
                json!({"code": "s"}),
                Some(json!({"origin": "/agents/other", "processor": {"slug": "agent"}})),
            ),
            &mut Vec::new(),
        );
        assert!(
            state.pending_runs.is_empty(),
            "another context's run is not this agent's"
        );
        state.apply(
            &event(6, "itx/run-requested", json!({"code": "s"}), None),
            &mut Vec::new(),
        );
        assert_eq!(
            (
                state.runs.get(&6).map(String::as_str),
                state.awaiting_run.clone()
            ),
            (Some("c1"), None),
            "the agent's own run takes the awaited call"
        );
        state.apply(
            &event(
                7,
                "itx/run-settled",
                json!({"requestOffset": 6, "settlement": {"status": "succeeded"}}),
                None,
            ),
            &mut Vec::new(),
        );
        assert!(
            state.pending_runs.is_empty(),
            "a settled run is no longer pending"
        );
    }

    #[test]
    fn given_a_compaction_when_folded_then_the_list_is_rebuilt_around_the_summary() {
        let (mut state, _) = folded(&[
            added(
                1,
                json!({"role": "system", "content": "", "snapshot": true, "sections": {"a": "1"}}),
            ),
            added(2, json!({"role": "system", "content": "standing note"})),
            said(3, "old words"),
            added(
                4,
                json!({"role": "developer", "content": "s1", "compaction": {"replacesHistoryThrough": 3}}),
            ),
            said(5, "kept words"),
            added(
                6,
                json!({"role": "system", "content": "diff", "sections": {"b": "2"}}),
            ),
            said(7, "newer words"),
        ]);
        state.runs.insert(3, "c3".to_string());
        state.runs.insert(7, "c7".to_string());
        let outcome = state.apply(
            &added(
                8,
                json!({"role": "developer", "content": "s2", "compaction": {"replacesHistoryThrough": 5, "keepsEarlierSummaries": true}}),
            ),
            &mut Vec::new(),
        );
        assert_eq!(outcome, Outcome::Compacted { cutoff: 5 }, "it applies");
        assert_eq!(
            offsets(&state),
            vec![1, 2, 4, 8, 7],
            "head, system items without sections, kept summaries ≤ c, the summary, the rest after c"
        );
        assert_eq!(
            state.items[0].sections,
            Some(json!({"a": "1", "b": "2"})),
            "the head carries the whole shown map, at the first sections item's offset"
        );
        assert!(
            state.items[0].snapshot && state.items[0].content.is_empty(),
            "the head is a snapshot"
        );
        assert_eq!(
            state.runs.keys().copied().collect::<Vec<_>>(),
            vec![7],
            "runs ≤ c are dropped"
        );
        assert_eq!(
            state.pending_trigger.as_ref().map(|t| t.offset),
            Some(7),
            "a compaction triggers nothing"
        );
        let mut diagnostics = Vec::new();
        assert_eq!(
            state.apply(
                &added(9, json!({"role": "developer", "content": "s3", "compaction": {"replacesHistoryThrough": 4}})),
                &mut diagnostics,
            ),
            Outcome::Ignored,
            "a cutoff an earlier summary already reaches is ignored"
        );
        assert_eq!(
            state.apply(
                &added(10, json!({"role": "developer", "content": "s4", "compaction": {"replacesHistoryThrough": 10}})),
                &mut diagnostics,
            ),
            Outcome::Ignored,
            "a cutoff not before the summary is ignored"
        );
        assert_eq!(
            diagnostics
                .iter()
                .map(|d| d.code.as_str())
                .collect::<Vec<_>>(),
            vec!["compaction-ignored", "compaction-ignored"],
            "each is said"
        );
    }

    #[test]
    fn given_payloads_that_break_their_shape_when_folded_then_they_are_skipped_and_said() {
        let (state, diagnostics) = folded(&[
            added(
                1,
                json!({"role": "user", "content": "x", "actor": {"type": "github"}}),
            ),
            added(
                2,
                json!({"role": "system", "content": "x", "sections": "not an object"}),
            ),
            added(
                3,
                json!({"role": "assistant", "content": "x", "call": {"callId": 4}}),
            ),
            added(4, json!({"content": "no role"})),
            event(5, "agent/configured", json!({"config": 3}), None),
        ]);
        assert!(state.items.is_empty(), "no malformed item is kept");
        assert_eq!(
            diagnostics
                .iter()
                .filter(|d| d.code == "agent-payload-skipped")
                .count(),
            5,
            "each is said: {diagnostics:?}"
        );
    }

    #[test]
    fn given_patches_reminders_and_summaries_when_folded_then_each_merges_as_the_loop_merges_it() {
        // Given config patches, a reminder for another input, and two summary updates
        let (state, _) = folded(&[
            event(
                1,
                "agent/configured",
                json!({"config": {"llm": {"model": "m", "reasoningEffort": "high"}, "maxAutonomousTurns": 5}}),
                None,
            ),
            event(
                2,
                "agent/configured",
                json!({"config": {"llm": {"reasoningEffort": "", "model": "n"}, "maxAutonomousTurns": null}}),
                None,
            ),
            added(
                3,
                json!({"role": "user", "content": "answer me", "actor": {"type": "user"}, "answerOwed": true}),
            ),
            event(4, "agent/answer-reminded", json!({"inputOffset": 99}), None),
            event(
                5,
                "agent/summary-updated",
                json!({"title": "T", "activity": "A", "waitingFor": "timer"}),
                None,
            ),
            event(
                6,
                "agent/summary-updated",
                json!({"title": "", "activity": "B", "waitingFor": null}),
                None,
            ),
        ]);
        // Then an empty or null patch keeps what was set, and only a non-empty one replaces it
        assert_eq!(
            Value::Object(state.config),
            json!({"llm": {"model": "n", "reasoningEffort": "high"}, "maxAutonomousTurns": 5}),
            "the llm knobs merge one by one; an empty effort and a null knob keep theirs"
        );
        assert_eq!(
            state.owed_answer.map(|owed| owed.reminded),
            Some(false),
            "a reminder for another input leaves the owed answer unreminded"
        );
        assert_eq!(
            state.summary,
            Some(json!({"title": "T", "activity": "B", "waitingFor": null})),
            "each field named replaces its own; an empty title keeps the old one; null clears waitingFor"
        );
    }

    #[test]
    fn given_lifecycle_and_preamble_events_when_folded_then_they_are_kept_once_and_in_place() {
        let (state, diagnostics) = folded(&[
            event(1, "agent/created", json!({"path": PATH}), None),
            event(2, "agent/created", json!({"path": PATH}), None),
            event(
                3,
                "agent/configured",
                json!({"config": {"llm": {"model": "m"}}}),
                None,
            ),
            event(
                4,
                "agent/configured",
                json!({"config": {"compactionTriggerFraction": 0.8}}),
                None,
            ),
            event(
                5,
                "agent/preamble-entry-set",
                json!({"key": "a", "code": "1"}),
                None,
            ),
            event(
                6,
                "agent/preamble-entry-set",
                json!({"key": "b", "code": "2"}),
                None,
            ),
            event(
                7,
                "agent/preamble-entry-set",
                json!({"key": "a", "code": null}),
                None,
            ),
            event(
                8,
                "agent/preamble-entry-quarantined",
                json!({"key": "b", "code": "2", "error": "e"}),
                None,
            ),
        ]);
        assert_eq!(state.creation, Some(1), "born once");
        assert_eq!(
            diagnostics[0].code, "agent-lifecycle-repeated",
            "a second birth is said"
        );
        assert_eq!(
            Value::Object(state.config),
            json!({"llm": {"model": "m"}, "compactionTriggerFraction": 0.8}),
            "configured merges"
        );
        assert!(
            state.preamble.is_empty(),
            "null and quarantine remove entries"
        );
    }
}
