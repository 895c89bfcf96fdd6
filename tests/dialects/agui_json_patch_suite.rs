//! The RFC 6902 conformance suite (npm `json-patch-test-suite`, committed under
//! tests/fixtures/agui/json-patch-test-suite/) run against the AG-UI state reducer: a
//! `STATE_SNAPSHOT` of the case's document, then a `STATE_DELTA` of its patch.

use journalscope_agui::agui::{apply_patch, patch_in_place, At, Thread};
use serde_json::{json, Value};

fn cases(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/agui/json-patch-test-suite/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the suite is committed");
    serde_json::from_str(&text).expect("the suite is JSON")
}

fn at(seq: u64) -> At {
    At {
        seq,
        line: seq + 1,
        offset: seq as i64 + 1,
    }
}

fn run_suite(file: &str) -> usize {
    let mut checked = 0;
    for (index, case) in cases(file).iter().enumerate() {
        if case.get("disabled").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let label = format!(
            "{file} case {index} ({})",
            case.get("comment")
                .and_then(Value::as_str)
                .unwrap_or("no comment")
        );
        let doc = case["doc"].clone();
        let mut thread = Thread::default();
        thread.apply(
            at(0),
            Some(&json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})),
        );
        thread.apply(
            at(1),
            Some(&json!({"type": "STATE_SNAPSHOT", "snapshot": doc})),
        );
        let report = thread.apply(
            at(2),
            Some(&json!({"type": "STATE_DELTA", "delta": case["patch"].clone()})),
        );
        if case.get("error").is_some() {
            assert_eq!(
                thread.state, doc,
                "{label}: a patch that must fail leaves the state unchanged"
            );
            assert!(
                report.patch_failure.is_some(),
                "{label}: a patch that must fail is reported as failed"
            );
        } else {
            assert!(
                report.patch_failure.is_none(),
                "{label}: a valid patch applies, got {:?}",
                report.patch_failure
            );
            if let Some(expected) = case.get("expected") {
                assert_eq!(
                    &thread.state, expected,
                    "{label}: the patched state matches"
                );
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_enabled_case_of_tests_json_passes_against_the_state_reducer() {
    let checked = run_suite("tests.json");
    assert_eq!(checked, 75, "every enabled case of tests.json was run");
}

#[test]
fn every_enabled_case_of_spec_tests_json_passes_against_the_state_reducer() {
    let checked = run_suite("spec_tests.json");
    assert_eq!(checked, 16, "every enabled case of spec_tests.json was run");
}

#[test]
fn every_case_patched_in_place_gives_what_a_patch_of_a_copy_gives() {
    // Protects the in-place path for one-operation patches: the same state, or the same
    // error with the document untouched, as the copying path for every case of both suites.
    let mut compared = 0;
    for file in ["tests.json", "spec_tests.json"] {
        for (index, case) in cases(file).iter().enumerate() {
            let (doc, patch) = (&case["doc"], &case["patch"]);
            let copied = apply_patch(doc, patch);
            let mut in_place = doc.clone();
            let result = patch_in_place(&mut in_place, patch);
            match (&copied, &result) {
                (Ok(expected), Ok(())) => assert_eq!(
                    &in_place, expected,
                    "{file} case {index}: the same patched document"
                ),
                (Err(expected), Err(got)) => {
                    assert_eq!(got, expected, "{file} case {index}: the same error");
                    assert_eq!(
                        &in_place, doc,
                        "{file} case {index}: a failed patch leaves the document as it was"
                    );
                }
                _ => panic!("{file} case {index}: {copied:?} against {result:?}"),
            }
            compared += 1;
        }
    }
    assert!(
        compared > 91,
        "every case of both suites was compared, {compared}"
    );
}
