//! The CLI on AgentsKit journals: `turns` and `state` in text and `--json`, with and without
//! `--session`, run as the built binary.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/agentskit-demo.ndjson");
const MULTI: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/agentskit/multi-session.ndjson"
);

/// Runs the binary with its cache in `cache`, returning stdout; a failure is a test failure.
fn run(cache: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_journalscope"))
        .args(args)
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "journalscope {args:?} must succeed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("output is UTF-8")
}

fn run_json(cache: &Path, args: &[&str]) -> Value {
    let text = run(cache, args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?} prints JSON ({e}): {text}"))
}

#[test]
fn turns_prints_every_verdict_and_the_lineage_tree() {
    let cache = tempfile::tempdir().expect("temp dir");
    let text = run(cache.path(), &["turns", DEMO]);
    for verdict in [
        "accepted",
        "duplicate",
        "stale",
        "foreign-session",
        "malformed",
        "not-a-snapshot",
    ] {
        assert!(
            text.contains(verdict),
            "the text report names the {verdict} verdict:\n{text}"
        );
    }
    assert!(
        text.contains("PROTOCOL_UNKNOWN_EVENT"),
        "a malformed line shows its code"
    );
    assert!(
        text.contains("\n    turn-2 retry of turn-1 from msg-u1")
            && text.contains("\n      turn-3 edit of turn-2 from msg-u1"),
        "the lineage tree is drawn with indentation:\n{text}"
    );
}

#[test]
fn turns_json_follows_the_cli_contract() {
    let cache = tempfile::tempdir().expect("temp dir");
    let report = run_json(cache.path(), &["turns", DEMO, "--json"]);
    assert_eq!(
        report["session"], "sess-demo-42",
        "the default session is named"
    );
    assert_eq!(
        report["sessions"],
        serde_json::json!(["sess-demo-42", "sess-other-7"]),
        "all sessions are listed"
    );
    let lines = report["lines"].as_array().expect("lines is an array");
    assert_eq!(lines.len(), 15, "one entry per journal line");
    assert_eq!(
        lines[9],
        serde_json::json!({"offset": 10, "sequence": 6, "event": "server.turn.delta",
                           "verdict": "malformed", "code": "PROTOCOL_UNKNOWN_EVENT"}),
        "a malformed line carries its code"
    );
    assert_eq!(
        lines[1],
        serde_json::json!({"offset": 2, "sequence": 1, "event": "server.turn.snapshot",
                           "verdict": "accepted"}),
        "absent optional fields are omitted"
    );
    let root = &report["lineage"][0];
    assert_eq!(
        (&root["turnId"], &root["operation"]),
        (&Value::from("turn-1"), &Value::from("submit")),
        "the lineage is rooted at the submitted turn"
    );
    assert!(
        root.get("parentTurnId").is_none(),
        "a root has no parentTurnId field"
    );
    assert_eq!(
        root["children"][0]["parentTurnId"], "turn-1",
        "children name their parent"
    );
}

#[test]
fn state_prints_the_held_snapshot_in_text_and_json() {
    let cache = tempfile::tempdir().expect("temp dir");
    let text = run(cache.path(), &["state", DEMO, "--at", "6"]);
    assert!(
        text.contains("sequence 3") && text.contains("accepted at @4"),
        "after the reconnect the snapshot accepted at line 4 is still held:\n{text}"
    );
    let state = run_json(cache.path(), &["state", DEMO, "--at", "15", "--json"]);
    for field in [
        "at", "session", "sequence", "status", "messages", "usage", "lineage",
    ] {
        assert!(
            state.get(field).is_some(),
            "state JSON has {field}: {state}"
        );
    }
    assert_eq!(
        state["lineage"]["operation"], "edit",
        "the last held snapshot is the edit"
    );
    let empty = run_json(cache.path(), &["state", DEMO, "--at", "1", "--json"]);
    assert_eq!(
        (&empty["sequence"], &empty["messages"]),
        (&Value::Null, &Value::Null),
        "nothing is held before the first snapshot"
    );
}

#[test]
fn session_picks_the_session_the_cursor_follows() {
    let cache = tempfile::tempdir().expect("temp dir");
    let report = run_json(
        cache.path(),
        &["turns", MULTI, "--session", "beta", "--json"],
    );
    assert_eq!(report["session"], "beta", "the asked session is followed");
    assert_eq!(
        report["lines"][1]["verdict"], "accepted",
        "beta's first snapshot is accepted"
    );
    assert_eq!(
        report["lines"][2]["verdict"], "foreign-session",
        "alpha's snapshot is foreign to a beta cursor"
    );
    let text = run(
        cache.path(),
        &["state", MULTI, "--at", "7", "--session", "beta"],
    );
    assert!(
        text.contains("session beta sequence 9"),
        "state follows the asked session:\n{text}"
    );
}

#[test]
fn diagnostics_report_lineage_warnings_and_protocol_errors() {
    let cache = tempfile::tempdir().expect("temp dir");
    let lineage = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/agentskit/lineage-warnings.ndjson"
    );
    let found = run_json(cache.path(), &["diagnostics", lineage, "--json"]);
    let codes: Vec<(&str, &str)> = found
        .as_array()
        .expect("diagnostics is an array")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or(""),
                d["severity"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("lineage-unknown-turn", "warning"),
            ("lineage-unknown-message", "warning"),
            ("lineage-cycle", "warning"),
            ("lineage-conflict", "warning")
        ],
        "lineage problems are fold-time warnings on their lines"
    );
    let text = run(cache.path(), &["diagnostics", DEMO]);
    assert!(
        text.contains("PROTOCOL_UNKNOWN_EVENT") && text.contains("PROTOCOL_INVALID_PAYLOAD"),
        "the demo's malformed lines are reported with their protocol codes:\n{text}"
    );
}
