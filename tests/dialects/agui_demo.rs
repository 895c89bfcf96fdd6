//! The demo journal demo/agui-demo.sse exercises what the AG-UI views are for: two runs, tool
//! calls, a failing patch, and a MESSAGES_SNAPSHOT that reorders, drops and preserves.

use journalscope::diagnostic::Severity;
use journalscope::source::{detect_framing, Framing};
use journalscope::store::StoredEvent;
use journalscope_agui::agui::{
    analyse, read_bytes, runs, state_at, step_view, MessageFate, RunStatus,
};
use serde_json::{json, Value};

fn demo() -> (Vec<u8>, Vec<StoredEvent>) {
    let path = format!("{}/demo/agui-demo.sse", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(path).expect("the demo journal is committed");
    let events = read_bytes(&bytes);
    (bytes, events)
}

fn offset_of(events: &[StoredEvent], kind: &str) -> Vec<i64> {
    events
        .iter()
        .filter(|e| e.kind.as_deref() == Some(kind))
        .filter_map(|e| e.offset)
        .collect()
}

#[test]
fn the_demo_is_an_sse_capture_that_loads_without_errors() {
    let (bytes, events) = demo();
    assert_eq!(
        detect_framing(&bytes),
        Framing::Sse,
        "the demo is in SSE capture form"
    );
    assert_eq!(events.len(), 34, "every data frame is an event");
    let errors: Vec<_> = events
        .iter()
        .flat_map(|e| e.diagnostics.iter())
        .chain(analyse(&events).diagnostics.iter().map(|(_, d)| d))
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    assert!(
        errors.is_empty(),
        "the demo has no error diagnostics: {errors:?}"
    );
}

#[test]
fn the_demo_has_two_finished_runs_and_parallel_tool_calls() {
    let (_, events) = demo();
    let spans = runs(&events);
    assert_eq!(spans.len(), 2, "two runs");
    assert!(
        spans
            .iter()
            .all(|s| s.status == RunStatus::Finished && s.end.is_some()),
        "both runs finish: {spans:?}"
    );
    assert_eq!(
        offset_of(&events, "TOOL_CALL_START").len(),
        2,
        "two tool calls"
    );
    let end_of_run_1 = spans[0].end.unwrap_or(0);
    let thread = state_at(&events, end_of_run_1);
    let roles: Vec<&str> = thread
        .messages
        .iter()
        .map(|m| m["id"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        roles,
        ["u1", "rs1", "act1", "a1", "t_paris", "t_tokyo", "a2"],
        "both results sit right after the assistant message that made the calls"
    );
    assert_eq!(
        thread.messages[2]["content"],
        json!({"done": 2, "total": 2}),
        "activity deltas applied"
    );
}

#[test]
fn the_demo_has_a_failing_patch_that_leaves_state_unchanged() {
    let (_, events) = demo();
    let analysis = analyse(&events);
    let failed: Vec<_> = analysis
        .marks
        .iter()
        .filter(|m| m.kind == "patch-failed")
        .collect();
    assert_eq!(failed.len(), 1, "exactly one patch fails");
    let at = failed[0].seq as i64 + 1;
    let step = step_view(&events, at);
    assert!(
        step.patch_failure
            .as_deref()
            .is_some_and(|r| r.contains("operation 1") && r.contains("/todos/5/done")),
        "the failure names the operation and path: {:?}",
        step.patch_failure
    );
    assert!(step.changes.is_empty(), "the failed patch changed nothing");
    assert_eq!(
        step.state,
        json!({"todos": [{"text": "Pack sunglasses", "done": false}]}),
        "operation 0 was rolled back with the rest"
    );
}

#[test]
fn the_demo_snapshot_reorders_drops_and_preserves_activity_and_reasoning() {
    let (_, events) = demo();
    let at = offset_of(&events, "MESSAGES_SNAPSHOT")[0];
    let step = step_view(&events, at);
    let fate = |id: &str| {
        step.reconciliation
            .iter()
            .find(|r| r.message_id == id)
            .map(|r| (r.role.as_str(), r.fate))
    };
    assert_eq!(
        fate("act1"),
        Some(("activity", MessageFate::KeptClientOnly)),
        "activity preserved"
    );
    assert_eq!(
        fate("rs1"),
        Some(("reasoning", MessageFate::KeptClientOnly)),
        "reasoning preserved"
    );
    assert_eq!(
        fate("t_tokyo"),
        Some(("tool", MessageFate::Dropped)),
        "t_tokyo dropped"
    );
    assert_eq!(
        fate("a4"),
        Some(("assistant", MessageFate::Appended)),
        "a4 appended"
    );
    assert_eq!(
        fate("a2"),
        Some(("assistant", MessageFate::Replaced)),
        "a2 replaced"
    );
    let snapshot_order: Vec<String> = step.event["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let held_order: Vec<String> = step
        .messages
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .filter(|id| snapshot_order.contains(id))
        .collect();
    assert_ne!(
        held_order, snapshot_order,
        "the snapshot lists messages in another order"
    );
    assert_eq!(
        held_order,
        ["u1", "a1", "t_paris", "a2", "u2", "a3", "a4"],
        "the consumer keeps its own order for messages it holds"
    );
    assert_eq!(
        step.messages
            .iter()
            .filter_map(|m| m["id"].as_str())
            .collect::<Vec<_>>(),
        ["u1", "rs1", "act1", "a1", "t_paris", "a2", "u2", "a3", "a4"],
        "the full result after reconciliation"
    );
    let end = state_at(&events, events.len() as i64);
    assert_eq!(
        end.state,
        json!({"todos": [{"text": "Pack sunglasses", "done": false}], "city": "Paris"}),
        "state carried across runs"
    );
    assert_eq!(
        end.messages.last().map(|m| &m["id"]),
        Some(&Value::from("a4")),
        "a4 last"
    );
}
