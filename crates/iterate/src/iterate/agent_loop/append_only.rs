//! The append-only check (contract §6): each request's input starts with the input of the
//! request before it, unless a compaction or a change of model lies between them. A request's
//! input is only whole once the loop has written its sections item after it, so the fold holds
//! the state the request opened on until then, and compares each input with the one before
//! by digests of its items.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fold::{AgentLoop, ContextItem, Outcome};
use super::responses::{self, Sink};
use crate::iterate::event::{EventKind, IterateEvent, Role};
use journalscope_shapes::diagnostic::Diagnostic;

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
                .map(|item| (digest(&item.value), item.offset))
                .collect(),
        }
    }
}

/// One input item's digest: its JSON walked in order, so that two items share one exactly
/// when they would be written as the same bytes (an object's keys in their order).
pub fn digest(value: &Value) -> u64 {
    fn walk(value: &Value, hasher: &mut FxHasher) {
        match value {
            Value::Null => hasher.write_u8(0),
            Value::Bool(flag) => hasher.write_u8(1 + u8::from(*flag)),
            Value::Number(number) => {
                hasher.write_u8(3);
                number.hash(hasher);
            }
            Value::String(text) => {
                hasher.write_u8(4);
                text.hash(hasher);
            }
            Value::Array(values) => {
                hasher.write_u8(5);
                hasher.write_usize(values.len());
                for value in values {
                    walk(value, hasher);
                }
            }
            Value::Object(object) => {
                hasher.write_u8(6);
                hasher.write_usize(object.len());
                for (name, value) in object {
                    name.hash(hasher);
                    walk(value, hasher);
                }
            }
        }
    }
    let mut hasher = FxHasher::default();
    walk(value, &mut hasher);
    hasher.finish()
}

/// Each context item's own input items as digests, each with its `call_id` when it is a call,
/// by the item's record and whether it is a stamp.
type OwnDigests = HashMap<(u64, bool), Vec<(u64, Option<String>)>>;

/// The digests each context item's own input items had at the last request, for its model and
/// path: an item renders alike at every request, so it is rendered and hashed once. A cache
/// of a pure function, so two memos are equal whatever they hold, and no checkpoint keeps one.
#[derive(Debug, Clone, Default)]
pub struct DigestMemo {
    model: Option<String>,
    path: Option<String>,
    own: OwnDigests,
}

impl PartialEq for DigestMemo {
    fn eq(&self, _: &DigestMemo) -> bool {
        true
    }
}

/// A walk's input items as digests, taking each item's own from the memo.
struct Digests {
    kept: OwnDigests,
    used: OwnDigests,
    items: Vec<(u64, i64)>,
}

impl Sink for Digests {
    type Entry = u64;

    fn own(
        &mut self,
        item: &ContextItem,
        render: &dyn Fn() -> Vec<Value>,
    ) -> Vec<(u64, Option<String>)> {
        let key = (item.seq, item.stamp);
        let own = self.kept.remove(&key).unwrap_or_else(|| {
            render()
                .iter()
                .map(|value| (digest(value), responses::call_of(value)))
                .collect()
        });
        self.used.insert(key, own.clone());
        own
    }

    fn made(&mut self, value: Value) -> u64 {
        digest(&value)
    }

    fn push(&mut self, offset: i64, digest: u64) {
        self.items.push((digest, offset));
    }

    fn note(&mut self, _: String) {}
}

impl DigestMemo {
    /// What the request at `request`, folded to `state`, sends, as [`Sent::of`] its rendered
    /// input; the memo then keeps the items this input holds.
    fn sent(
        &mut self,
        state: &AgentLoop,
        request: i64,
        model: Option<&str>,
        path: Option<&str>,
    ) -> Sent {
        if self.model.as_deref() != model || self.path.as_deref() != path {
            *self = DigestMemo {
                model: model.map(str::to_string),
                path: path.map(str::to_string),
                own: HashMap::new(),
            };
        }
        let mut digests = Digests {
            kept: std::mem::take(&mut self.own),
            used: HashMap::new(),
            items: Vec::new(),
        };
        responses::walk(state, model, path, &mut digests);
        self.own = digests.used;
        Sent {
            request,
            model: model.map(str::to_string),
            items: digests.items,
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
    /// The state the request opened on, once another event than its sections item came: until
    /// then the loop's state is that state (with its sections item), and none is copied.
    #[serde(default)]
    pub state: Option<AgentLoop>,
}

/// The check as the fold carries it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AppendOnly {
    pub last: Option<Sent>,
    pub waiting: Option<Box<Waiting>>,
    /// A compaction was applied since the last request opened.
    pub compacted: bool,
    #[serde(skip)]
    pub memo: DigestMemo,
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
    /// Takes the loop's state before `event` is folded: the state a waiting request opened on
    /// is copied only when something else than its sections item comes first.
    pub fn before(&mut self, state: &AgentLoop, event: &IterateEvent) {
        if let Some(waiting) = self.waiting.as_mut() {
            if waiting.state.is_none() && !is_sections_item_of(event, waiting.request) {
                waiting.state = Some(state.clone());
            }
        }
    }

    /// Takes one folded event in: `state` is the loop after it, `step` what it did. The event
    /// went through [`AppendOnly::before`] first.
    pub fn note(
        &mut self,
        state: &AgentLoop,
        outcome: Outcome,
        event: &IterateEvent,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match outcome {
            Outcome::Compacted { .. } => self.compacted = true,
            Outcome::Opened => {
                if let Some(waiting) = self.waiting.take() {
                    self.settle(*waiting, state, None, diagnostics);
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
                    state: None,
                }));
            }
            _ => {
                if let Some(waiting) = self
                    .waiting
                    .take_if(|waiting| is_sections_item_of(event, waiting.request))
                {
                    self.settle(*waiting, state, Some(event), diagnostics);
                }
            }
        }
    }

    /// Renders the waiting request whole, as digests, and compares it with the one before.
    /// `now` is the loop's state, `later` the request's sections item if it was just folded.
    pub fn settle(
        &mut self,
        waiting: Waiting,
        now: &AgentLoop,
        later: Option<&IterateEvent>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let (model, path) = (waiting.model.as_deref(), waiting.path.as_deref());
        let sent = match (waiting.state, later) {
            (None, _) => self.memo.sent(now, waiting.request, model, path),
            (Some(opened), None) => self.memo.sent(&opened, waiting.request, model, path),
            (Some(mut opened), Some(event)) => {
                opened.apply(event, &mut Vec::new());
                self.memo.sent(&opened, waiting.request, model, path)
            }
        };
        if let Some(before) = &self.last {
            if !excused(waiting.compacted, before, &sent) {
                if let Some(message) = break_between(before, &sent) {
                    diagnostics.push(Diagnostic::warning(
                        waiting.line,
                        Some(waiting.request),
                        "input-not-append-only",
                        message,
                    ));
                }
            }
        }
        self.last = Some(sent);
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
            check.before(&state, event);
            let step = state.apply(event, &mut diagnostics);
            check.note(&state, step, event, &mut diagnostics);
        }
        if let Some(waiting) = check.waiting.take() {
            check.settle(*waiting, &state, None, &mut diagnostics);
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
            check.before(&state, &event);
            let step = state.apply(&event, &mut diagnostics);
            check.note(&state, step, &event, &mut diagnostics);
        }
        // The head a sent request showed now reads otherwise, which the loop never does by
        // appending: the next input no longer starts with the one before.
        std::sync::Arc::make_mut(&mut state.items[2]).sections = Some(json!({"rules": "R2"}));
        let event = request(6, 5);
        check.before(&state, &event);
        let step = state.apply(&event, &mut diagnostics);
        check.note(&state, step, &event, &mut diagnostics);
        let waiting = check
            .waiting
            .take()
            .expect("the request waits for its sections item");
        check.settle(*waiting, &state, None, &mut diagnostics);
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
    fn given_a_memo_warmed_before_a_result_was_placed_when_the_next_input_is_digested_then_it_is_the_rendered_inputs(
    ) {
        let mut events = vec![
            said(1, "a"),
            request(2, 1),
            snapshot(3, 2, "R"),
            added(
                4,
                json!({"role": "assistant", "content": "x", "llmRequestOffset": 2, "call": {"callId": "c1", "status": "", "script": "s"}}),
            ),
            done(5, 2),
        ];
        let (before, _) = folded(&events);
        let mut memo = DigestMemo::default();
        let warmed = memo.sent(&before, 2, Some("m"), Some("/agents/a"));
        assert_eq!(
            warmed,
            Sent::of(
                2,
                Some("m"),
                &responses::input(&before, Some("m"), Some("/agents/a"))
            ),
            "a cold memo digests what the renderer writes"
        );
        events.extend([
            crate::iterate::agent_loop::fold::tests::event(
                6,
                "itx/run-requested",
                json!({"code": "s"}),
                None,
            ),
            added(
                7,
                json!({"role": "developer", "content": "42", "actor": {"type": "script", "requestOffset": 6}}),
            ),
            said(8, "b"),
            request(9, 8),
        ]);
        let (after, _) = folded(&events);
        let rendered = Sent::of(
            9,
            Some("m"),
            &responses::input(&after, Some("m"), Some("/agents/a")),
        );
        assert_eq!(
            memo.sent(&after, 9, Some("m"), Some("/agents/a")),
            rendered,
            "the answer's kept digests are its own, and its call's output, now the placed result, is digested anew"
        );
        assert_ne!(
            warmed.items[..],
            rendered.items[..warmed.items.len()],
            "the call's output changed, which the check must see"
        );
        assert_eq!(
            memo.sent(&after, 9, Some("other"), Some("/agents/a")),
            Sent::of(
                9,
                Some("other"),
                &responses::input(&after, Some("other"), Some("/agents/a"))
            ),
            "another model renders the answer otherwise: the memo starts again"
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
