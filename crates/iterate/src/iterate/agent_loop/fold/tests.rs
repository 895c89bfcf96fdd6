//! The tests of `fold`.

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
