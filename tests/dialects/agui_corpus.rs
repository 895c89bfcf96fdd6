//! Real AG-UI captures (copied from the shared corpus into tests/fixtures/agui/corpus/): each
//! opens without an error diagnostic, and its final state and messages are what the official
//! TypeScript client computes (golden `*.expected.json`, derived from the client's source by
//! `derive_expected.py` and checked by hand for the tool-call captures).

use crate::support::agui_recordings;

use journalscope::dialect::Registered as _;
use std::path::PathBuf;

use journalscope::diagnostic::Severity;
use journalscope_agui::agui::{analyse, read_bytes, runs, state_at, RunStatus};
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    agui_recordings::fixtures("corpus")
}

fn captures() -> Vec<PathBuf> {
    agui_recordings::recordings("corpus")
}

#[test]
fn every_capture_opens_without_an_error_and_ends_as_the_client_computes() {
    let files = captures();
    assert_eq!(files.len(), 20, "all 20 corpus captures are fixtures");
    for path in files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let bytes = std::fs::read(&path).expect("capture readable");
        let events = read_bytes(&bytes);
        assert!(!events.is_empty(), "{name}: the capture has events");
        let dialect = journalscope::dialect::Dialect::detect(
            events
                .iter()
                .filter_map(|e| e.json())
                .collect::<Vec<_>>()
                .iter(),
        );
        assert_eq!(
            dialect,
            journalscope::dialect::Dialect::AgUi,
            "{name}: detected as AG-UI"
        );
        let read_errors: Vec<_> = events
            .iter()
            .flat_map(|e| e.diagnostics.iter())
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert!(
            read_errors.is_empty(),
            "{name}: no read-time error, got {read_errors:?}"
        );
        let analysis = analyse(&events);
        let fold_errors: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|(_, d)| d.severity == Severity::Error)
            .collect();
        assert!(
            fold_errors.is_empty(),
            "{name}: no fold-time error, got {fold_errors:?}"
        );
        let last = events.len() as i64;
        let thread = state_at(&events, last);
        let expected_path = path.with_extension("expected.json");
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(&expected_path).expect("golden file committed"),
        )
        .expect("golden file is JSON");
        assert_eq!(
            thread.state, expected["state"],
            "{name}: final state matches the client"
        );
        assert_eq!(
            Value::Array(thread.messages.clone()),
            expected["messages"],
            "{name}: final messages match the client"
        );
        let spans = runs(&events);
        assert_eq!(spans.len(), 1, "{name}: each capture is one run");
        assert!(
            matches!(
                spans[0].status,
                RunStatus::Finished | RunStatus::Interrupted
            ),
            "{name}: the run finished"
        );
        assert_eq!(
            spans[0].end,
            Some(last),
            "{name}: the run ends at the last event"
        );
    }
}

#[test]
fn a_result_for_a_call_from_an_earlier_capture_is_a_warning_not_an_error() {
    // Given the second turn of a capture whose tool call was made in the first turn's file,
    let bytes = std::fs::read(corpus_dir().join("mixedtoolinvocationintegration-turn2.json"))
        .expect("capture readable");
    let events = read_bytes(&bytes);
    // when it is analysed alone,
    let analysis = analyse(&events);
    // then the orphan result is flagged, and still appended as the client appends it.
    assert!(
        analysis
            .diagnostics
            .iter()
            .any(|(_, d)| d.code == "tool-result-unknown-call" && d.severity == Severity::Warning),
        "an orphan tool result is a warning"
    );
}

#[test]
fn sse_edge_cases_load_and_show_malformed_frames_as_diagnostics() {
    let bytes = std::fs::read(corpus_dir().join("sse-edge-cases.txt")).expect("capture readable");
    assert_eq!(
        journalscope::source::detect_framing(&bytes),
        journalscope::source::Framing::Sse,
        "the capture is read as SSE despite its headings"
    );
    let events = read_bytes(&bytes);
    let codes: Vec<&str> = events
        .iter()
        .flat_map(|e| e.diagnostics.iter().map(|d| d.code.as_str()))
        .collect();
    assert!(
        codes.iter().filter(|c| **c == "invalid-json").count() >= 2,
        "`not valid json` and the truncated object are invalid JSON: {codes:?}"
    );
    assert!(
        codes.contains(&"unknown-type"),
        "UNKNOWN_EVENT_TYPE is flagged"
    );
    assert!(
        codes.contains(&"missing-field"),
        "TEXT_MESSAGE_START without messageId is flagged"
    );
    let multi_line = events
        .iter()
        .find(|e| e.kind.as_deref() == Some("STATE_SNAPSHOT"))
        .expect("the multi-line data frame is one event");
    let thread = state_at(&events, multi_line.offset.unwrap_or(0));
    assert_eq!(
        thread.state,
        serde_json::json!({"count": 42, "name": "test"}),
        "multi-line data fields join into one snapshot"
    );
    let analysis = analyse(&events);
    assert!(
        analysis
            .marks
            .iter()
            .filter(|m| m.kind == "run-start")
            .count()
            == 4,
        "all four runs are marked"
    );
    let unicode = state_at(&events, events.len() as i64);
    let last = unicode
        .messages
        .iter()
        .find(|m| m["id"] == "msg_04")
        .expect("msg_04 built");
    assert_eq!(
        last["content"], "Hello 你好 🌟 €Special: \"quotes\", \\backslash\\, \ttab",
        "unicode and escapes survive SSE framing"
    );
}
