//! Given/when/then tests for the snapshot cursor's verdicts (ADR-0010, interpretation §3),
//! through the public `turns`, `state_at` and `analyse` functions.

use crate::support::agentskit_lines;

use agentskit_lines::{diagnostic, journal, load, snapshot, submit};
use journalscope::diagnostic::Severity;
use journalscope::store::StoredEvent;
use journalscope_agentskit::agentskit::{analyse, state_at, turns, Verdict};
use serde_json::{json, Value};

fn verdicts(events: &[StoredEvent], session: Option<&str>) -> Vec<Verdict> {
    turns(events, session)
        .lines
        .iter()
        .map(|l| l.verdict)
        .collect()
}

fn held_sequence(events: &[StoredEvent], session: Option<&str>) -> Option<u64> {
    state_at(events, i64::MAX, session).sequence
}

#[test]
fn given_a_cursor_on_s1_when_the_first_snapshot_is_from_s2_then_it_is_foreign_and_s1_starts_the_cursor(
) {
    // Given a cursor fixed to s1
    // When the first snapshot comes from s2 with a high sequence, then s1's own at 0
    let events = journal(&[snapshot("s2", "t1", 9), snapshot("s1", "t1", 0)]);
    // Then s2's is foreign and s1's first snapshot is accepted whatever its sequence
    assert_eq!(
        verdicts(&events, Some("s1")),
        [Verdict::ForeignSession, Verdict::Accepted],
        "a foreign first snapshot must not fix the cursor's sequence"
    );
    assert_eq!(
        held_sequence(&events, Some("s1")),
        Some(0),
        "the held snapshot is s1's"
    );
}

#[test]
fn given_an_accepted_snapshot_when_the_same_sequence_arrives_again_then_it_is_a_duplicate() {
    // Given sequence 4 accepted
    let mut again = snapshot("s1", "t1", 4);
    again["payload"]["status"] = json!("complete");
    // When sequence 4 arrives again (with different content)
    let events = journal(&[snapshot("s1", "t1", 4), again]);
    // Then it is a duplicate and the held snapshot is untouched
    assert_eq!(
        verdicts(&events, None),
        [Verdict::Accepted, Verdict::Duplicate],
        "an equal sequence is a duplicate delivery"
    );
    let state = state_at(&events, 2, None);
    assert_eq!(
        serde_json::to_value(state.status).ok(),
        Some(json!("streaming")),
        "a duplicate must not replace the held snapshot"
    );
}

#[test]
fn given_an_accepted_snapshot_when_a_lower_sequence_arrives_then_it_is_stale() {
    // Given sequence 5 accepted; when sequence 3 arrives (a reconnect replay)
    let events = journal(&[snapshot("s1", "t1", 5), snapshot("s1", "t1", 3)]);
    // Then it is stale and state does not roll back
    assert_eq!(
        verdicts(&events, None),
        [Verdict::Accepted, Verdict::Stale],
        "a lower sequence is stale"
    );
    assert_eq!(
        held_sequence(&events, None),
        Some(5),
        "a stale snapshot must never roll state backward"
    );
}

#[test]
fn given_an_accepted_snapshot_when_a_foreign_session_sends_a_newer_sequence_then_it_is_inert() {
    // Given s1 #1 accepted; when s2 #9 arrives, then s1 #2
    let events = journal(&[
        snapshot("s1", "t1", 1),
        snapshot("s2", "t9", 9),
        snapshot("s1", "t1", 2),
    ]);
    // Then s2 #9 is foreign and did not raise the bar for s1 #2
    assert_eq!(
        verdicts(&events, None),
        [
            Verdict::Accepted,
            Verdict::ForeignSession,
            Verdict::Accepted
        ],
        "sequences are session-monotonic: a foreign sequence never counts"
    );
}

#[test]
fn given_an_accepted_snapshot_when_the_next_sequence_arrives_then_it_replaces_the_state_whole() {
    // Given a snapshot with two messages
    let first = snapshot("s1", "t1", 1);
    // When the next one holds a single, different message
    let mut next = snapshot("s1", "t2", 2);
    next["payload"]["messages"] = json!([agentskit_lines::message("only", "user", "again")]);
    let events = journal(&[first, next]);
    // Then it is accepted and nothing of the first survives
    assert_eq!(
        verdicts(&events, None),
        [Verdict::Accepted, Verdict::Accepted],
        "a greater sequence is accepted"
    );
    let state = state_at(&events, 2, None);
    let ids: Vec<String> = state
        .messages
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, ["only"], "accepted snapshots replace, never merge");
    assert_eq!(
        state.turn_id.as_deref(),
        Some("t2"),
        "the held turn is the new one"
    );
    assert_eq!(
        state.offset,
        Some(2),
        "the held snapshot was accepted at line 2"
    );
}

fn malformed(line: &str, code: &str) {
    // Given an accepted snapshot; when a malformed line arrives with a higher sequence, then
    // a valid next snapshot
    let text = format!(
        "{}\n{line}\n{}",
        snapshot("s1", "t1", 1),
        snapshot("s1", "t1", 2)
    );
    let events = load(&text);
    let report = turns(&events, None);
    // Then the line is malformed with its protocol code, and the cursor is untouched by it
    assert_eq!(
        report.lines[1].verdict,
        Verdict::Malformed,
        "{code}: the line is malformed"
    );
    assert_eq!(
        report.lines[1].code.as_deref(),
        Some(code),
        "the verdict carries the protocol's code"
    );
    assert_eq!(
        report.lines[2].verdict,
        Verdict::Accepted,
        "{code}: a malformed line must not move the cursor"
    );
    let protocol_errors: Vec<_> = events[1]
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .collect();
    assert_eq!(
        protocol_errors.len(),
        1,
        "{code}: one read-time diagnostic with the protocol's code"
    );
    assert_eq!(
        (protocol_errors[0].severity, protocol_errors[0].line),
        (Severity::Error, 2),
        "{code}: the diagnostic is an error on the line"
    );
}

fn with(mut value: Value, pointer: &str, replacement: Value) -> Value {
    if let Some(slot) = value.pointer_mut(pointer) {
        *slot = replacement;
    }
    value
}

#[test]
fn given_a_line_with_an_unsupported_version_when_folded_then_it_is_malformed() {
    let line = with(snapshot("s1", "t1", 7), "/version", json!(2));
    malformed(&line.to_string(), "PROTOCOL_UNSUPPORTED_VERSION");
}

#[test]
fn given_a_line_with_an_unknown_event_when_folded_then_it_is_malformed() {
    let line = with(
        snapshot("s1", "t1", 7),
        "/event",
        json!("server.turn.delta"),
    );
    malformed(&line.to_string(), "PROTOCOL_UNKNOWN_EVENT");
}

#[test]
fn given_a_snapshot_with_an_invalid_payload_when_folded_then_it_is_malformed() {
    let line = with(
        snapshot("s1", "t1", 7),
        "/payload/status",
        json!("thinking"),
    );
    malformed(&line.to_string(), "PROTOCOL_INVALID_PAYLOAD");
}

#[test]
fn given_a_line_that_is_not_json_when_folded_then_it_is_an_invalid_payload() {
    malformed(
        r#"{"protocol":"agentskit.chat.turn","sequence":7,"#,
        "PROTOCOL_INVALID_PAYLOAD",
    );
}

#[test]
fn given_a_retry_lineage_without_ancestry_when_folded_then_it_is_an_invalid_payload() {
    let line = with(
        snapshot("s1", "t2", 7),
        "/payload",
        json!({"messages": [], "status": "idle",
               "usage": {"promptTokens": 0, "completionTokens": 0, "totalTokens": 0},
               "lineage": {"operation": "retry"}}),
    );
    malformed(&line.to_string(), "PROTOCOL_INVALID_PAYLOAD");
}

#[test]
fn given_submit_and_diagnostic_lines_when_folded_then_they_are_not_snapshots() {
    // Given a submit, a snapshot, a server diagnostic and a submit of another session
    let events = journal(&[
        submit("s1", "t1", 0),
        snapshot("s1", "t1", 1),
        diagnostic("s1", "t1", 2),
        submit("s2", "t5", 3),
        snapshot("s1", "t1", 2),
    ]);
    // Then only the snapshots are judged; the diagnostic's sequence did not count
    assert_eq!(
        verdicts(&events, None),
        [
            Verdict::NotASnapshot,
            Verdict::Accepted,
            Verdict::NotASnapshot,
            Verdict::NotASnapshot,
            Verdict::Accepted
        ],
        "submits and diagnostics are inert, whatever their session or sequence"
    );
}

#[test]
fn given_lines_before_the_first_valid_snapshot_when_no_session_is_chosen_then_the_first_valid_snapshot_decides(
) {
    // Given a submit of s0, a malformed snapshot of s9, then s1's first valid snapshot
    let broken = with(snapshot("s9", "t1", 0), "/payload/usage", json!(null));
    let events = journal(&[submit("s0", "t0", 0), broken, snapshot("s1", "t1", 1)]);
    // Then the cursor follows s1
    assert_eq!(
        turns(&events, None).session.as_deref(),
        Some("s1"),
        "the default session is the first valid snapshot's"
    );
}

#[test]
fn given_nothing_accepted_yet_when_asking_for_state_then_every_field_is_null() {
    let events = journal(&[submit("s1", "t1", 0), snapshot("s1", "t1", 1)]);
    let state = serde_json::to_value(state_at(&events, 1, None)).unwrap_or_default();
    for field in ["sequence", "status", "messages", "usage", "lineage"] {
        assert_eq!(
            state[field],
            Value::Null,
            "{field} is null before any snapshot is accepted"
        );
    }
    assert_eq!(
        state["session"],
        json!("s1"),
        "the followed session is known already"
    );
    assert_eq!(
        state_at(&events, 2, None).sequence,
        Some(1),
        "folding through line 2 holds its snapshot"
    );
}

#[test]
fn given_a_journal_when_analysed_then_every_line_gets_its_verdict_as_a_mark() {
    let broken = with(snapshot("s1", "t1", 9), "/version", json!(3));
    let events = journal(&[
        submit("s1", "t1", 0),
        snapshot("s1", "t1", 2),
        snapshot("s1", "t1", 2),
        snapshot("s1", "t1", 1),
        snapshot("s2", "t1", 5),
        broken,
        snapshot("s1", "t1", 3),
    ]);
    let analysis = analyse(&events);
    let marks: Vec<(u64, &str)> = analysis
        .marks
        .iter()
        .map(|m| (m.seq, m.kind.as_str()))
        .collect();
    assert_eq!(
        marks,
        [
            (0, "not-a-snapshot"),
            (1, "accepted"),
            (2, "duplicate"),
            (3, "stale"),
            (4, "foreign-session"),
            (5, "malformed"),
            (6, "accepted")
        ],
        "one mark per line, its kind the verdict"
    );
    assert_eq!(
        analysis.marks[5].note, "PROTOCOL_UNSUPPORTED_VERSION",
        "a malformed line's note is its protocol code"
    );
    assert!(
        analysis.marks.iter().all(|m| !m.note.is_empty()),
        "every mark says why"
    );
    assert!(
        analysis.diagnostics.is_empty(),
        "a journal with sound lineage has no fold diagnostics"
    );
}
