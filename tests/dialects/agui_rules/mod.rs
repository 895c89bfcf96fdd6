//! Given/when/then tests for the AG-UI rules of interpretation.md §2 and the official
//! TypeScript client's behaviour the reducer mirrors.

use journalscope::diagnostic::Severity;
use journalscope::store::StoredEvent;
use journalscope_agui::agui::{
    analyse, read_bytes, runs, state_at, step_view, ChangeKind, MessageFate, RunStatus,
};
use proptest::prelude::*;
use serde_json::{json, Value};

mod ids;

fn journal(events: &[Value]) -> Vec<StoredEvent> {
    let text: Vec<String> = events.iter().map(Value::to_string).collect();
    read_bytes(text.join("\n").as_bytes())
}

fn start(run: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t1", "runId": run})
}

fn finish(run: &str) -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": run})
}

fn codes(events: &[StoredEvent]) -> Vec<String> {
    analyse(events)
        .diagnostics
        .into_iter()
        .map(|(_, d)| d.code)
        .collect()
}

fn final_state(events: &[StoredEvent]) -> journalscope_agui::agui::StateAt {
    state_at(events, events.len() as i64)
}

fn ids(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["id"].as_str().unwrap_or("?"))
        .collect()
}

fn text(id: &str, role: &str, content: &str) -> Value {
    json!({"id": id, "role": role, "content": content})
}

#[test]
fn given_any_state_when_a_state_snapshot_arrives_then_it_replaces_the_state_wholesale() {
    let events = journal(&[
        start("r1"),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1, "b": 2}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": [1, 2]}),
    ]);
    assert_eq!(
        final_state(&events).state,
        json!([1, 2]),
        "no merging: any JSON value replaces"
    );
}

#[test]
fn given_a_successful_delta_when_a_later_patch_fails_midway_then_state_keeps_the_first_result() {
    // Given a delta that applied,
    let events = journal(&[
        start("r1"),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}),
        // when the next patch's first operation would apply but its second fails,
        json!({"type": "STATE_DELTA", "delta": [
            {"op": "replace", "path": "/count", "value": 3},
            {"op": "remove", "path": "/missing"}
        ]}),
    ]);
    // then the whole patch is skipped and the warning names operation 1 and its path.
    let at_end = final_state(&events);
    assert_eq!(
        at_end.state,
        json!({"count": 2}),
        "a failing patch is atomic"
    );
    let warning = at_end
        .diagnostics
        .iter()
        .find(|d| d.code == "patch-failed")
        .expect("the failure is reported");
    assert_eq!(
        warning.severity,
        Severity::Warning,
        "a failing patch is a warning"
    );
    assert_eq!(warning.offset, Some(4), "reported at the failing event");
    assert!(
        warning.message.contains("operation 1") && warning.message.contains("/missing"),
        "the warning names the operation index and path: {}",
        warning.message
    );
    let marks = analyse(&events).marks;
    assert!(
        marks.iter().any(|m| m.kind == "patch-failed" && m.seq == 3),
        "the failure is marked on the timeline"
    );
    assert!(
        marks.iter().any(|m| m.kind == "state-delta" && m.seq == 2),
        "the successful delta is marked"
    );
}

#[test]
fn given_a_malformed_patch_when_folded_then_it_is_an_error_where_a_consumer_stops_and_the_rest_still_shows(
) {
    let events = journal(&[
        start("r1"),
        json!({"type": "STATE_DELTA", "delta": {"op": "add", "path": "/a", "value": 1}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "frobnicate", "path": "/a"}]}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"after": true}}),
    ]);
    let analysis = analyse(&events);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|(_, d)| d.code == "malformed-patch")
        .collect();
    assert_eq!(
        errors.len(),
        2,
        "a non-array patch and an unknown op are both malformed"
    );
    assert!(
        errors.iter().all(|(_, d)| d.severity == Severity::Error),
        "a malformed patch is an error"
    );
    let end = final_state(&events);
    assert_eq!(
        end.state,
        json!({"after": true}),
        "later events are still folded and shown"
    );
    assert_eq!(
        end.run.status,
        RunStatus::Error,
        "the run is marked as stopped"
    );
    assert!(
        !codes(&events).contains(&"event-after-run-end".to_string()),
        "a stop by patch does not flag every later event"
    );
}

#[test]
fn given_held_messages_when_a_messages_snapshot_arrives_then_known_ids_keep_position_new_ones_append_absent_ones_drop(
) {
    let events = journal(&[
        start("r1"),
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "input": {"messages": [
            text("u1", "user", "hi"), text("a1", "assistant", "draft"), text("u2", "user", "gone")
        ]}}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            text("n1", "assistant", "new"), text("a1", "assistant", "final"), text("u1", "user", "hi")
        ]}),
    ]);
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["u1", "a1", "n1"],
        "held order wins; unseen appended"
    );
    assert_eq!(
        end.messages[1]["content"], "final",
        "the snapshot's copy replaces in place"
    );
    let step = step_view(&events, 3);
    let fates: Vec<(String, MessageFate)> = step
        .reconciliation
        .iter()
        .map(|r| (r.message_id.clone(), r.fate))
        .collect();
    assert_eq!(
        fates,
        [
            ("u1".to_string(), MessageFate::Replaced),
            ("a1".to_string(), MessageFate::Replaced),
            ("u2".to_string(), MessageFate::Dropped),
            ("n1".to_string(), MessageFate::Appended),
        ],
        "each message's fate is recorded"
    );
}

fn activity(id: &str) -> Value {
    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": id, "activityType": "progress", "content": {"pct": 10}})
}

fn reasoning(id: &str) -> [Value; 3] {
    [
        json!({"type": "REASONING_MESSAGE_START", "messageId": id}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": "thinking"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": id}),
    ]
}

#[test]
fn given_activity_and_reasoning_when_a_snapshot_carries_neither_then_both_are_kept_as_client_only()
{
    let mut list = vec![start("r1"), activity("act1")];
    list.extend(reasoning("rs1"));
    list.push(json!({"type": "MESSAGES_SNAPSHOT", "messages": [text("u1", "user", "hi")]}));
    let events = journal(&list);
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["act1", "rs1", "u1"],
        "client-only messages survive"
    );
    let step = step_view(&events, events.len() as i64);
    assert!(
        step.reconciliation
            .iter()
            .filter(|r| r.fate == MessageFate::KeptClientOnly)
            .count()
            == 2,
        "both are recorded as kept client-only"
    );
}

#[test]
fn given_activity_messages_when_the_snapshot_carries_an_activity_then_the_exception_revokes_itself()
{
    // Given two held activity messages and a reasoning message,
    let mut list = vec![start("r1"), activity("act1"), activity("act2")];
    list.extend(reasoning("rs1"));
    // when a snapshot carries one activity message of its own,
    list.push(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "act2", "role": "activity", "activityType": "progress", "content": {"pct": 99}}
    ]}));
    let events = journal(&list);
    // then held activity absent from it is dropped, while reasoning is still preserved.
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["act2", "rs1"],
        "act1 dropped, rs1 kept"
    );
    assert_eq!(
        end.messages[0]["content"]["pct"], 99,
        "act2 replaced by the snapshot's copy"
    );
}

#[test]
fn given_reasoning_messages_when_the_snapshot_carries_reasoning_then_held_reasoning_absent_from_it_drops(
) {
    let mut list = vec![start("r1"), activity("act1")];
    list.extend(reasoning("rs1"));
    list.push(json!({"type": "MESSAGES_SNAPSHOT", "messages": [text("rs-canonical", "reasoning", "thinking")]}));
    let events = journal(&list);
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["act1", "rs-canonical"],
        "streamed reasoning gives way to the snapshot's; activity still preserved"
    );
}

#[test]
fn given_an_assistant_call_followed_by_text_when_results_arrive_then_they_sit_right_after_the_call_in_order(
) {
    let events = journal(&[
        start("r1"),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "a", "parentMessageId": "m1"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "b", "parentMessageId": "m1"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c2"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m2"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m2"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "r-c1", "toolCallId": "c1", "content": "1"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "r-c2", "toolCallId": "c2", "content": "2"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "r-x", "toolCallId": "nobody", "content": "?"}),
        finish("r1"),
    ]);
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["m1", "r-c1", "r-c2", "m2", "r-x"],
        "results follow their call after earlier results; an orphan is appended"
    );
    assert_eq!(
        end.messages[1]["role"], "tool",
        "results default to the tool role"
    );
    assert_eq!(
        end.messages[0]["toolCalls"].as_array().map(Vec::len),
        Some(2),
        "both calls joined the parent assistant message"
    );
    assert!(
        codes(&events).contains(&"tool-result-unknown-call".to_string()),
        "orphan flagged"
    );
}

#[test]
fn given_tool_call_parents_when_calls_start_then_they_attach_as_the_client_resolves_them() {
    let events = journal(&[
        start("r1"),
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "input": {"messages": [text("u1", "user", "q")]}}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "a", "parentMessageId": "u1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "b", "parentMessageId": ""}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "renamed"}),
    ]);
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["u1", "c1", "c2"],
        "a non-assistant parent and an empty parent both fall back to the call id"
    );
    assert_eq!(
        end.messages[1]["toolCalls"][0]["function"]["name"], "renamed",
        "a start for a known call only renames it"
    );
    assert_eq!(
        end.messages[1]["toolCalls"].as_array().map(Vec::len),
        Some(1),
        "the rename adds no second call"
    );
}

#[test]
fn given_chunk_events_when_folded_then_they_expand_into_start_content_end() {
    let events = journal(&[
        start("r1"),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"}),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "m1", "delta": "{\"a\""}),
        json!({"type": "TOOL_CALL_CHUNK", "delta": ":1}"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "rs1", "delta": "hmm"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "role": "user", "delta": "ok"}),
        finish("r1"),
    ]);
    let end = final_state(&events);
    assert_eq!(
        ids(&end.messages),
        ["m1", "rs1", "m2"],
        "chunks open messages by id"
    );
    assert_eq!(
        end.messages[0]["content"], "Hello",
        "a chunk without id continues the open message"
    );
    assert_eq!(
        end.messages[0]["toolCalls"][0]["function"]["arguments"], "{\"a\":1}",
        "tool call chunks attach to the parent and accumulate arguments"
    );
    assert_eq!(
        end.messages[1]["role"], "reasoning",
        "reasoning chunks build reasoning messages"
    );
    assert_eq!(
        end.messages[2]["role"], "user",
        "the first chunk's role is kept"
    );
    let codes = codes(&events);
    assert!(
        !codes.iter().any(|c| c.starts_with("run-ends-with-open")),
        "the next event closes what a chunk opened: {codes:?}"
    );
}

#[test]
fn given_a_first_chunk_without_id_when_folded_then_it_is_an_error() {
    let events = journal(&[
        start("r1"),
        json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "x"}),
    ]);
    assert!(
        codes(&events).contains(&"chunk-without-id".to_string()),
        "a consumer would stop"
    );
    assert!(
        final_state(&events).messages.is_empty(),
        "no message is invented"
    );
}

#[test]
fn given_run_input_when_a_run_starts_then_unseen_messages_append_and_its_state_is_the_baseline() {
    let events = journal(&[
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1",
               "input": {"state": {"n": 1}, "messages": [text("u1", "user", "a")]}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}),
        finish("r1"),
        // The next run's input carries the same messages again and the agreed state:
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r2",
               "input": {"state": {"n": 2}, "messages": [text("u1", "user", "a"), text("u2", "user", "b")]}}),
        finish("r2"),
        // A third run whose input disagrees with the carried-over state:
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r3", "input": {"state": {"n": 7}}}),
    ]);
    let after_second = state_at(&events, 5);
    assert_eq!(
        ids(&after_second.messages),
        ["u1", "u2"],
        "seen ids are not appended twice"
    );
    assert_eq!(
        after_second.state,
        json!({"n": 2}),
        "the delta applied to the input baseline"
    );
    let end = final_state(&events);
    assert_eq!(end.state, json!({"n": 7}), "the input's state wins");
    let warnings: Vec<_> = end
        .diagnostics
        .iter()
        .filter(|d| d.code == "baseline-differs")
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "only the disagreeing baseline is flagged"
    );
    assert_eq!(warnings[0].offset, Some(6), "at the third RUN_STARTED");
}

#[test]
fn given_a_finished_run_when_the_next_run_has_no_input_then_state_and_messages_carry_over() {
    let events = journal(&[
        start("r1"),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"k": "v"}}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "one"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        finish("r1"),
        start("r2"),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/k2", "value": 2}]}),
        finish("r2"),
    ]);
    let end = final_state(&events);
    assert_eq!(
        end.state,
        json!({"k": "v", "k2": 2}),
        "state persists across runs"
    );
    assert_eq!(ids(&end.messages), ["m1"], "messages persist across runs");
    let spans = runs(&events);
    assert_eq!(spans.len(), 2, "two runs on the timeline");
    assert_eq!(
        (spans[0].start, spans[0].end),
        (1, Some(6)),
        "first run's bounds"
    );
    assert_eq!(
        (spans[1].start, spans[1].end),
        (7, Some(9)),
        "second run's bounds"
    );
    assert!(
        spans.iter().all(|s| s.status == RunStatus::Finished),
        "both finished"
    );
}

#[test]
fn given_out_of_order_events_when_folded_then_each_ordering_break_is_a_warning() {
    let events = journal(&[
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "boo"}),
        start("r1"),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c9", "delta": "{}"}),
        finish("r1"),
        json!({"type": "STEP_STARTED", "stepName": "late"}),
        json!({"type": "RUN_ERROR", "message": "boom"}),
    ]);
    let analysis = analyse(&events);
    let at = |code: &str| -> Vec<u64> {
        analysis
            .diagnostics
            .iter()
            .filter(|(_, d)| d.code == code)
            .map(|(seq, _)| *seq)
            .collect()
    };
    assert_eq!(
        at("first-event-not-run-started"),
        [0],
        "the stream must open with a run"
    );
    assert_eq!(
        at("message-not-started"),
        [0],
        "content for a message never started"
    );
    assert_eq!(
        at("tool-call-not-started"),
        [4],
        "args for a tool call never started"
    );
    assert_eq!(
        at("run-ends-with-open-messages"),
        [5],
        "m1 still open at the end"
    );
    assert_eq!(
        at("run-ends-with-open-tool-calls"),
        [5],
        "c1 still open at the end"
    );
    assert_eq!(
        at("event-after-run-end"),
        [6],
        "an event after RUN_FINISHED"
    );
    assert_eq!(
        at("run-finished-and-failed"),
        [7],
        "a RUN_ERROR after RUN_FINISHED says the run ended twice"
    );
    assert!(
        analysis
            .diagnostics
            .iter()
            .all(|(_, d)| d.severity == Severity::Warning),
        "ordering breaks are warnings"
    );
    assert!(
        analysis
            .marks
            .iter()
            .any(|m| m.kind == "run-error" && m.note == "boom"),
        "the error is marked with its message"
    );
}

#[test]
fn given_an_activity_when_snapshots_and_deltas_arrive_then_replace_false_keeps_it_and_deltas_patch_it(
) {
    let events = journal(&[
        start("r1"),
        activity("act1"),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act1", "activityType": "progress",
               "content": {"pct": 50}, "replace": false}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act1", "activityType": "progress",
               "patch": [{"op": "replace", "path": "/pct", "value": 20}]}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act1", "activityType": "progress",
               "patch": [{"op": "remove", "path": "/nope"}]}),
    ]);
    let end = final_state(&events);
    assert_eq!(end.messages.len(), 1, "one activity message");
    assert_eq!(
        end.messages[0]["content"],
        json!({"pct": 20}),
        "replace:false ignored, delta applied"
    );
    assert!(
        codes(&events).contains(&"activity-patch-failed".to_string()),
        "a failing activity patch is a warning"
    );
}

#[test]
fn given_event_metadata_when_messages_are_built_then_it_merges_into_the_message_metadata() {
    let events = journal(&[
        start("r1"),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "metadata": {"a": 1}}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1", "metadata": {"b": 2}}),
    ]);
    assert_eq!(
        final_state(&events).messages[0]["metadata"],
        json!({"a": 1, "b": 2}),
        "metadata objects merge key by key"
    );
}

#[test]
fn given_a_delta_and_a_snapshot_when_stepping_then_the_step_lists_changed_paths_and_its_patch() {
    let events = journal(&[
        start("r1"),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1, "list": [1, 2], "gone": true}}),
        json!({"type": "STATE_DELTA", "delta": [
            {"op": "replace", "path": "/a", "value": 2},
            {"op": "add", "path": "/list/-", "value": 3},
            {"op": "remove", "path": "/gone"},
            {"op": "add", "path": "/x~1y", "value": {}}
        ]}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "test", "path": "/a", "value": 99}]}),
    ]);
    let snapshot = step_view(&events, 2);
    assert!(
        snapshot
            .changes
            .iter()
            .all(|c| c.change == ChangeKind::Added),
        "a snapshot over {{}} adds every key: {:?}",
        snapshot.changes
    );
    let delta = step_view(&events, 3);
    let changes: Vec<(&str, ChangeKind)> = delta
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.change))
        .collect();
    assert_eq!(
        changes,
        [
            ("/a", ChangeKind::Replaced),
            ("/list/2", ChangeKind::Added),
            ("/gone", ChangeKind::Removed),
            ("/x~1y", ChangeKind::Added),
        ],
        "each changed path, escaped as a JSON Pointer"
    );
    assert!(delta.patch.is_some(), "the step carries its patch");
    let failed = step_view(&events, 4);
    assert!(failed.changes.is_empty(), "a failed patch changes nothing");
    assert!(
        failed
            .patch_failure
            .as_deref()
            .is_some_and(|r| r.contains("operation 0")),
        "the failure reason is given: {:?}",
        failed.patch_failure
    );
}

#[test]
fn state_at_serializes_exactly_the_cli_contract_keys() {
    let events = journal(&[start("r1"), finish("r1")]);
    let value = serde_json::to_value(state_at(&events, 1)).expect("serializable");
    let keys: Vec<&String> = value
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["at", "state", "messages", "run", "diagnostics"],
        "the CLI contract"
    );
    assert_eq!(
        value["run"],
        json!({"threadId": "t1", "runId": "r1", "status": "running"}),
        "run is {{threadId, runId, status}} at offset 1"
    );
    let text = journalscope_agui::agui::render_state_text(&state_at(&events, 2));
    assert!(
        text.starts_with("@2  run t1/r1 finished"),
        "text form opens with the run: {text}"
    );
}

proptest! {
    /// Whatever a patch does, it applies whole or not at all.
    #[test]
    fn a_state_delta_applies_whole_or_leaves_state_unchanged(
        ops in proptest::collection::vec(
            (0usize..6, prop::sample::select(vec!["/a", "/b", "/a/0", "/list/0", "/list/-", "/list/9", "/c/d"]), 0i64..5),
            1..5,
        )
    ) {
        let names = ["add", "remove", "replace", "move", "copy", "test"];
        let delta: Vec<Value> = ops.iter().map(|(op, path, value)| {
            json!({"op": names[*op], "path": path, "from": "/a", "value": value})
        }).collect();
        let base = json!({"a": 1, "list": [1, 2], "c": {"d": 0}});
        let events = journal(&[
            start("r1"),
            json!({"type": "STATE_SNAPSHOT", "snapshot": base.clone()}),
            json!({"type": "STATE_DELTA", "delta": delta.clone()}),
        ]);
        let step = step_view(&events, 3);
        if step.patch_failure.is_some() {
            prop_assert_eq!(step.state, base, "a failed patch leaves state unchanged");
        } else {
            let mut expected = base.clone();
            let patch: json_patch::Patch = serde_json::from_value(Value::Array(delta)).expect("valid ops");
            prop_assert!(json_patch::patch(&mut expected, &patch).is_ok(), "the crate agrees it applies");
            prop_assert_eq!(step.state, expected, "an applied patch matches the crate's result");
        }
    }
}

fn message_strategy() -> impl Strategy<Value = (usize, usize)> {
    // (id index, role index): a small id pool makes collisions between held and snapshot likely.
    (0usize..8, 0usize..4)
}

const ROLES: [&str; 4] = ["user", "assistant", "activity", "reasoning"];

fn built(id: usize, role: usize, tag: &str) -> Value {
    json!({"id": format!("m{id}"), "role": ROLES[role], "content": tag})
}

proptest! {
    /// MESSAGES_SNAPSHOT reconciliation: the snapshot's messages are all present, everything
    /// else present is client-only material the snapshot could not know about, and the
    /// consumer's own order survives.
    #[test]
    fn a_messages_snapshot_keeps_held_order_and_holds_exactly_the_declared_set(
        held in proptest::collection::vec(message_strategy(), 0..7),
        snapshot in proptest::collection::vec(message_strategy(), 0..7),
    ) {
        let mut held_ids = std::collections::HashSet::new();
        let held: Vec<Value> = held
            .into_iter()
            .filter(|(id, _)| held_ids.insert(*id))
            .map(|(id, role)| built(id, role, "held"))
            .collect();
        let mut snap_ids = std::collections::HashSet::new();
        let snapshot: Vec<Value> = snapshot
            .into_iter()
            .filter(|(id, _)| snap_ids.insert(*id))
            .map(|(id, role)| built(id, role, "snap"))
            .collect();
        let events = journal(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": {"messages": held.clone()}}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": snapshot.clone()}),
        ]);
        let step = step_view(&events, 2);
        let result_ids: Vec<&str> = ids(&step.messages);
        for message in &snapshot {
            let id = message["id"].as_str().unwrap_or("?");
            prop_assert!(result_ids.contains(&id), "snapshot message {} is held", id);
        }
        let has = |role: &str| snapshot.iter().any(|m| m["role"] == role);
        for message in &step.messages {
            let id = message["id"].as_str().unwrap_or("?");
            let in_snapshot = snapshot.iter().any(|m| m["id"] == id);
            let client_only = (message["role"] == "activity" && !has("activity"))
                || (message["role"] == "reasoning" && !has("reasoning"));
            prop_assert!(in_snapshot || client_only, "{} is declared or client-only", id);
        }
        let survivors: Vec<&str> = ids(&held)
            .into_iter()
            .filter(|id| result_ids.contains(id))
            .collect();
        prop_assert_eq!(
            &result_ids[..survivors.len()],
            &survivors[..],
            "held survivors keep their order, ahead of appended messages"
        );
        prop_assert_eq!(
            step.reconciliation.len(),
            held.len() + step.reconciliation.iter().filter(|r| r.fate == MessageFate::Appended).count(),
            "every held message gets one fate, and each appended one too"
        );
    }
}

#[test]
fn given_nested_steps_when_stepping_then_the_open_steps_are_listed_and_a_stray_finish_is_flagged() {
    let events = journal(&[
        start("r1"),
        json!({"type": "STEP_STARTED", "stepName": "plan"}),
        json!({"type": "STEP_STARTED", "stepName": "search"}),
        json!({"type": "STEP_FINISHED", "stepName": "search"}),
        json!({"type": "STEP_FINISHED", "stepName": "never"}),
    ]);
    assert_eq!(
        step_view(&events, 3).steps,
        ["plan", "search"],
        "both steps open at 3"
    );
    assert_eq!(
        step_view(&events, 4).steps,
        ["plan"],
        "search finished at 4"
    );
    assert!(
        codes(&events).contains(&"step-not-started".to_string()),
        "stray finish flagged"
    );
}

#[test]
fn state_that_patches_would_nest_without_bound_is_refused_not_overflowing_the_stack() {
    // Given a chain {"a": {"a": … 1}}, when every delta copies the whole state onto its own
    // leaf, then its depth doubles each time; once past the cap the delta fails like any
    // patch and the state stays.
    let mut events = vec![
        start("r1"),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}}),
    ];
    let mut chain = 1;
    for _ in 0..14 {
        events.push(json!({"type": "STATE_DELTA", "delta": [
            {"op": "copy", "from": "", "path": "/a".repeat(chain)}
        ]}));
        chain *= 2;
    }
    events.push(finish("r1"));
    let stored = journal(&events);
    let failures = analyse(&stored)
        .diagnostics
        .into_iter()
        .filter(|(_, d)| d.code == "patch-failed" && d.message.contains("deeper than"))
        .count();
    assert!(
        failures > 0,
        "a delta past the depth cap fails for that reason"
    );
    let state = final_state(&stored);
    assert!(
        serde_json::to_string(&state).is_ok(),
        "the state that is left serialises"
    );
}
