//! The append-only check (contract §6): each request's input starts with the input of the
//! request before it, unless a compaction or a change of model lies between them. A request's
//! input is only whole once the loop has written its sections item after it, so the fold holds
//! the state the request opened on until then, and compares each input with the one before
//! by digests of its items.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fold::{AgentLoop, Step};
use super::responses;
use crate::diagnostic::Diagnostic;
use crate::iterate::event::{EventKind, IterateEvent, Role};

/// What a request sent, as digests of its input items.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub request: i64,
    pub model: Option<String>,
    /// Each input item's digest and the offset of the item it renders.
    pub items: Vec<(u64, i64)>,
}

impl Sent {
    pub fn of(request: i64, model: Option<&str>, input: &responses::Input) -> Sent {
        Sent {
            request,
            model: model.map(str::to_string),
            items: input
                .items
                .iter()
                .map(|item| {
                    let mut hasher = DefaultHasher::new();
                    item.value.to_string().hash(&mut hasher);
                    (hasher.finish(), item.offset)
                })
                .collect(),
        }
    }
}

/// How many leading input items `now` shares with `before`, item for item.
pub fn shared(before: &Sent, now: &Sent) -> usize {
    before
        .items
        .iter()
        .zip(&now.items)
        .take_while(|(a, b)| a.0 == b.0)
        .count()
}

/// Whether the promise does not hold between two requests: across an applied compaction
/// (`compacted`) or a change of model the loop may send another input.
pub fn excused(compacted: bool, before: &Sent, now: &Sent) -> bool {
    compacted || before.model != now.model
}

/// Why `now` does not extend `before`, naming the first item that differs.
pub fn break_between(before: &Sent, now: &Sent) -> Option<String> {
    let at = shared(before, now);
    let differs = (at < before.items.len() && at < now.items.len()).then_some(at);
    let what = match differs {
        Some(at) => format!(
            "its input item {at} (from @{}) differs from request @{}'s (from @{})",
            now.items[at].1, before.request, before.items[at].1
        ),
        None if now.items.len() < before.items.len() => format!(
            "it ends after {} input items, where request @{} had {} (the first missing is from @{})",
            now.items.len(),
            before.request,
            before.items.len(),
            before.items[now.items.len()].1
        ),
        None => return None,
    };
    Some(format!(
        "request @{}'s input does not start with request @{}'s, and no compaction or change of model lies between them: {what}",
        now.request, before.request
    ))
}

/// A request whose input waits for its sections item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Waiting {
    pub request: i64,
    pub line: u64,
    pub model: Option<String>,
    pub path: Option<String>,
    /// A compaction was applied since the request before it opened.
    pub compacted: bool,
    /// The state the request opened on.
    pub state: AgentLoop,
}

/// The check as the fold carries it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AppendOnly {
    pub last: Option<Sent>,
    pub waiting: Option<Box<Waiting>>,
    /// A compaction was applied since the last request opened.
    pub compacted: bool,
}

/// Whether `event` is the sections item the loop writes for the request at `request`.
pub fn is_sections_item_of(event: &IterateEvent, request: i64) -> bool {
    let EventKind::ContextAdded(context) = &event.kind else {
        return false;
    };
    context.role == Role::System
        && context.llm_request_offset == Some(request)
        && event
            .agent
            .as_ref()
            .and_then(|envelope| envelope.field("sections"))
            .is_some_and(Value::is_object)
}

/// The input of the request that opened on `state`, with the sections item written for it.
pub fn request_input(
    state: &AgentLoop,
    later: Option<&IterateEvent>,
    model: Option<&str>,
    path: Option<&str>,
) -> responses::Input {
    match later {
        Some(event) => {
            let mut state = state.clone();
            state.apply(event, &mut Vec::new());
            responses::input(&state, model, path)
        }
        None => responses::input(state, model, path),
    }
}

impl AppendOnly {
    /// Takes one folded event in: `state` is the loop after it, `step` what it did.
    pub fn note(
        &mut self,
        state: &AgentLoop,
        step: Step,
        event: &IterateEvent,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match step {
            Step::Compacted { .. } => self.compacted = true,
            Step::Opened => {
                if let Some(waiting) = self.waiting.take() {
                    self.settle(*waiting, None, diagnostics);
                }
                let (model, path) = match (&event.kind, &event.agent) {
                    (EventKind::RequestRequested { model }, envelope) => (
                        model.clone(),
                        envelope.as_ref().and_then(|e| e.path.clone()),
                    ),
                    _ => (None, None),
                };
                self.waiting = Some(Box::new(Waiting {
                    request: event.offset,
                    line: event.line,
                    model,
                    path,
                    compacted: std::mem::take(&mut self.compacted),
                    state: state.clone(),
                }));
            }
            _ => {
                if let Some(waiting) = self
                    .waiting
                    .take_if(|waiting| is_sections_item_of(event, waiting.request))
                {
                    self.settle(*waiting, Some(event), diagnostics);
                }
            }
        }
    }

    /// Renders the waiting request whole and compares it with the one before.
    fn settle(
        &mut self,
        waiting: Waiting,
        later: Option<&IterateEvent>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let input = request_input(
            &waiting.state,
            later,
            waiting.model.as_deref(),
            waiting.path.as_deref(),
        );
        let now = Sent::of(waiting.request, waiting.model.as_deref(), &input);
        if let Some(before) = &self.last {
            if !excused(waiting.compacted, before, &now) {
                if let Some(message) = break_between(before, &now) {
                    diagnostics.push(Diagnostic::warning(
                        waiting.line,
                        Some(waiting.request),
                        "input-not-append-only",
                        message,
                    ));
                }
            }
        }
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterate::agent_loop::fold::tests::{added, folded, request, said, settled};
    use serde_json::json;

    /// The append-only diagnostics of folding `events` with the check.
    fn checked(events: &[IterateEvent]) -> Vec<Diagnostic> {
        let mut state = AgentLoop::default();
        let mut check = AppendOnly::default();
        let mut diagnostics = Vec::new();
        for event in events {
            let step = state.apply(event, &mut diagnostics);
            check.note(&state, step, event, &mut diagnostics);
        }
        if let Some(waiting) = check.waiting.take() {
            check.settle(*waiting, None, &mut diagnostics);
        }
        diagnostics
            .into_iter()
            .filter(|d| d.code == "input-not-append-only")
            .collect()
    }

    fn done(offset: i64, request: i64) -> IterateEvent {
        settled(
            offset,
            request,
            json!({"status": "succeeded", "text": "ok"}),
        )
    }

    /// Whether every request of `events` opened.
    fn all_open(events: &[IterateEvent]) -> bool {
        !folded(events)
            .1
            .iter()
            .any(|d| d.code == "request-not-opened")
    }

    fn snapshot(offset: i64, request: i64, text: &str) -> IterateEvent {
        added(
            offset,
            json!({"role": "system", "content": "", "snapshot": true, "llmRequestOffset": request, "sections": {"rules": text}}),
        )
    }

    #[test]
    fn given_requests_that_only_append_when_checked_then_nothing_is_said() {
        let events = [
            said(1, "a"),
            request(2, 1),
            snapshot(3, 2, "R"),
            done(4, 2),
            said(5, "b"),
            request(6, 5),
        ];
        assert!(all_open(&events), "both requests open");
        let found = checked(&events);
        assert!(
            found.is_empty(),
            "each input extends the one before: {found:?}"
        );
    }

    #[test]
    fn given_an_item_a_sent_request_showed_that_renders_otherwise_later_then_the_first_differing_item_is_named(
    ) {
        let mut state = AgentLoop::default();
        let mut check = AppendOnly::default();
        let mut diagnostics = Vec::new();
        for event in [
            said(1, "a"),
            request(2, 1),
            snapshot(3, 2, "R"),
            done(4, 2),
            said(5, "b"),
        ] {
            let step = state.apply(&event, &mut diagnostics);
            check.note(&state, step, &event, &mut diagnostics);
        }
        // The head a sent request showed now reads otherwise, which the loop never does by
        // appending: the next input no longer starts with the one before.
        state.items[2].sections = Some(json!({"rules": "R2"}));
        let event = request(6, 5);
        let step = state.apply(&event, &mut diagnostics);
        check.note(&state, step, &event, &mut diagnostics);
        let waiting = check
            .waiting
            .take()
            .expect("the request waits for its sections item");
        check.settle(*waiting, None, &mut diagnostics);
        let found: Vec<_> = diagnostics
            .iter()
            .filter(|d| d.code == "input-not-append-only")
            .collect();
        assert_eq!(found.len(), 1, "the break is said once: {diagnostics:?}");
        assert!(
            found[0].message.contains("input item 0 (from @3)") && found[0].offset == Some(6),
            "at the later request, naming the first differing item: {}",
            found[0].message
        );
    }

    #[test]
    fn given_a_compaction_between_requests_when_checked_then_the_shorter_input_is_no_break() {
        let events = [
            said(1, "a"),
            request(2, 1),
            done(3, 2),
            said(4, "b"),
            added(
                5,
                json!({"role": "developer", "content": "sum", "compaction": {"replacesHistoryThrough": 3}}),
            ),
            request(6, 4),
        ];
        assert!(all_open(&events), "both requests open");
        assert!(
            checked(&events).is_empty(),
            "a compaction may rewrite the input"
        );
        let mut uncompacted = events.clone();
        uncompacted[4] = said(5, "c");
        uncompacted[5] = request(6, 5);
        assert!(
            checked(&uncompacted).is_empty(),
            "without the compaction the input only grows"
        );
    }

    #[test]
    fn given_two_inputs_when_compared_then_a_shorter_one_names_the_first_missing_item() {
        let before = Sent {
            request: 2,
            model: None,
            items: vec![(1, 1), (2, 2)],
        };
        let now = Sent {
            request: 5,
            model: None,
            items: vec![(1, 1)],
        };
        let said = break_between(&before, &now).expect("a shorter input breaks the prefix");
        assert!(
            said.contains("from @2"),
            "it names the first missing item: {said}"
        );
        assert_eq!(
            break_between(&now, &before),
            None,
            "a longer input that starts the same is fine"
        );
    }
}
