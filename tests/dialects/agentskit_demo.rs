//! The demo journal shipped in demo/ must show off everything the AgentsKit view can: every
//! verdict, a reconnect, a retry and an edit with sound lineage.

use crate::support::agentskit_lines;

use journalscope::dialect::Dialect;
use journalscope::dialect::Registered as _;
use journalscope_agentskit::agentskit::{analyse, state_at, turns, Verdict};

fn demo() -> Vec<journalscope::store::StoredEvent> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/agentskit-demo.ndjson");
    let text = std::fs::read_to_string(path).expect("the demo journal is committed");
    agentskit_lines::load(&text)
}

#[test]
fn the_demo_is_detected_as_agentskit() {
    let values: Vec<serde_json::Value> = demo().iter().filter_map(|e| e.json()).collect();
    assert_eq!(
        Dialect::detect(&values),
        Dialect::AgentsKit,
        "the demo must open as an AgentsKit journal"
    );
}

#[test]
fn the_demo_exercises_every_verdict() {
    let report = turns(&demo(), None);
    for verdict in Verdict::ALL {
        assert!(
            report.lines.iter().any(|l| l.verdict == verdict),
            "the demo must contain a {} line",
            verdict.as_str()
        );
    }
    assert!(
        report.sessions.len() >= 2,
        "the demo holds a foreign session to show the session picker"
    );
}

#[test]
fn the_demo_replays_a_reconnect_as_a_duplicate_then_a_stale_snapshot() {
    let report = turns(&demo(), None);
    let verdicts: Vec<Verdict> = report.lines.iter().map(|l| l.verdict).collect();
    let reconnect = verdicts
        .windows(2)
        .position(|w| w == [Verdict::Duplicate, Verdict::Stale]);
    assert!(
        reconnect.is_some(),
        "a reconnect replays the held snapshot then an older one: {verdicts:?}"
    );
    let at = reconnect.map_or(0, |i| i as i64 + 2);
    let before = state_at(&demo(), at - 2, None).sequence;
    assert_eq!(
        state_at(&demo(), at, None).sequence,
        before,
        "the reconnect leaves the held snapshot where it was"
    );
}

#[test]
fn the_demo_has_a_retry_and_an_edit_with_sound_lineage() {
    let events = demo();
    let report = turns(&events, None);
    let mut operations = Vec::new();
    let mut stack: Vec<_> = report.lineage.iter().collect();
    while let Some(node) = stack.pop() {
        if node.parent_turn_id.is_some() {
            operations.push(node.operation.as_str());
        }
        stack.extend(node.children.iter());
    }
    operations.sort_unstable();
    assert_eq!(
        operations,
        ["edit", "retry"],
        "the demo shows a retry and an edit hanging under their parents"
    );
    assert_eq!(
        report.lineage.len(),
        1,
        "one submit roots the whole demo conversation"
    );
    assert!(
        analyse(&events).diagnostics.is_empty(),
        "the demo's lineage is sound: no warnings"
    );
}

#[test]
fn the_demo_flags_its_malformed_lines_with_protocol_codes() {
    let events = demo();
    let report = turns(&events, None);
    for line in report
        .lines
        .iter()
        .filter(|l| l.verdict == Verdict::Malformed)
    {
        let code = line.code.as_deref().unwrap_or("");
        assert!(
            code.starts_with("PROTOCOL_"),
            "a malformed line names its protocol code, got {code:?}"
        );
        let stored = &events[line.offset as usize - 1];
        assert!(
            stored.diagnostics.iter().any(|d| d.code == code),
            "the malformed line carries a read-time diagnostic with its code"
        );
    }
}
