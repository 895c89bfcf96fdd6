//! The built CLI on AG-UI journals: `state --at` in text and JSON, `diagnostics` and `events`
//! on the demo journal and on the corpus fixtures.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agui/corpus")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs the CLI with a private cache directory, so tests neither share nor leave databases.
fn run(args: &[&str]) -> (String, String, bool) {
    let cache = tempfile::tempdir().expect("temporary cache directory");
    let output = Command::new(env!("CARGO_BIN_EXE_journalscope"))
        .args(args)
        .env("JOURNALSCOPE_CACHE_DIR", cache.path())
        .output()
        .expect("the CLI runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.success(),
    )
}

fn run_json(args: &[&str]) -> Value {
    let (stdout, stderr, ok) = run(args);
    assert!(ok, "{args:?} succeeds: {stderr}");
    serde_json::from_str(&stdout).expect("--json prints JSON")
}

#[test]
fn state_text_on_the_demo_shows_the_run_state_messages_and_the_failed_patch() {
    let (stdout, stderr, ok) = run(&["state", "demo:ag-ui", "--at", "23"]);
    assert!(ok, "state succeeds: {stderr}");
    assert!(
        stdout.starts_with("@23  run demo-thread/run-1 running"),
        "the text form opens with the offset and run: {stdout}"
    );
    assert!(
        stdout.contains("\"Pack sunglasses\""),
        "the state is shown: {stdout}"
    );
    assert!(
        stdout.contains("[4] assistant a1 call call_paris: get_weather"),
        "tool calls are shown on their assistant message: {stdout}"
    );
    assert!(
        stdout.contains("warning patch-failed"),
        "the failed patch is listed among the diagnostics: {stdout}"
    );
}

#[test]
fn state_json_on_the_demo_is_the_cli_contract() {
    let value = run_json(&["state", "demo:ag-ui", "--at", "34", "--json"]);
    let keys: Vec<&String> = value
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["at", "state", "messages", "run", "diagnostics"],
        "contract keys"
    );
    assert_eq!(
        value["run"],
        json!({"threadId": "demo-thread", "runId": "run-2", "status": "finished"}),
        "the second run finished"
    );
    assert_eq!(value["state"]["city"], "Paris", "state after both runs");
    let ids: Vec<&str> = value["messages"]
        .as_array()
        .map(|ms| ms.iter().filter_map(|m| m["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        ids,
        ["u1", "rs1", "act1", "a1", "t_paris", "a2", "u2", "a3", "a4"],
        "messages after the reconciling snapshot"
    );
}

#[test]
fn state_json_on_a_corpus_capture_matches_its_golden_file() {
    let capture = fixture("step12-paralleltoolcalls-turn1.json");
    let value = run_json(&["state", &capture, "--at", "48", "--json"]);
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("step12-paralleltoolcalls-turn1.expected.json"))
            .expect("golden committed"),
    )
    .expect("golden is JSON");
    assert_eq!(
        value["state"], golden["state"],
        "state as the client computes it"
    );
    assert_eq!(
        value["messages"], golden["messages"],
        "messages as the client computes them"
    );
    assert_eq!(
        value["diagnostics"],
        json!([]),
        "a clean capture has no diagnostics"
    );
}

#[test]
fn diagnostics_on_the_sse_edge_cases_list_malformed_frames_in_text_and_json() {
    let capture = fixture("sse-edge-cases.txt");
    let (stdout, stderr, ok) = run(&["diagnostics", &capture]);
    assert!(
        ok,
        "diagnostics succeeds on a journal with broken frames: {stderr}"
    );
    for code in [
        "invalid-json",
        "unknown-type",
        "missing-field",
        "event-after-run-end",
    ] {
        assert!(stdout.contains(code), "{code} is listed: {stdout}");
    }
    let value = run_json(&["diagnostics", &capture, "--json"]);
    let codes: Vec<&str> = value
        .as_array()
        .map(|ds| ds.iter().filter_map(|d| d["code"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        codes.iter().filter(|c| **c == "invalid-json").count() >= 2,
        "the broken frames are errors in JSON too: {codes:?}"
    );
}

#[test]
fn events_on_the_demo_carry_summaries_and_marks() {
    let (stdout, _, ok) = run(&["events", "demo:ag-ui"]);
    assert!(ok, "events succeeds");
    assert!(
        stdout.contains("TEXT_MESSAGE_CONTENT a2 \"Paris is sunny (22 °C); \""),
        "content events are summarised with their delta: {stdout}"
    );
    let value = run_json(&["events", "demo:ag-ui", "--json"]);
    let events = value.as_array().cloned().unwrap_or_default();
    assert_eq!(events.len(), 34, "every demo event is listed");
    let marks: Vec<String> = events
        .iter()
        .flat_map(|e| e["marks"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    for kind in [
        "run-start",
        "run-end",
        "state-delta",
        "patch-failed",
        "messages-snapshot",
    ] {
        assert!(
            marks.iter().any(|m| m == kind),
            "{kind} mark present: {marks:?}"
        );
    }
}
