//! Journals holding several sessions: they are listed, and the cursor can follow any of them.

use crate::support::agentskit_lines;

use agentskit_lines::{journal, snapshot, submit};
use journalscope_agentskit::agentskit::{state_at, turns, Verdict};

fn interleaved() -> Vec<journalscope::store::StoredEvent> {
    journal(&[
        submit("alpha", "a1", 0),
        snapshot("alpha", "a1", 1),
        snapshot("beta", "b1", 1),
        snapshot("alpha", "a1", 2),
        snapshot("beta", "b1", 2),
        snapshot("gamma", "g1", 0),
        snapshot("beta", "b1", 1),
    ])
}

#[test]
fn given_a_journal_of_three_sessions_when_reported_then_all_are_listed_in_order() {
    let report = turns(&interleaved(), None);
    assert_eq!(
        report.sessions,
        ["alpha", "beta", "gamma"],
        "sessions are listed in order of first appearance"
    );
    assert_eq!(
        report.session.as_deref(),
        Some("alpha"),
        "the default session is the first valid snapshot's"
    );
}

#[test]
fn given_a_journal_of_three_sessions_when_the_cursor_follows_beta_then_beta_is_judged() {
    let events = interleaved();
    let report = turns(&events, Some("beta"));
    let verdicts: Vec<Verdict> = report.lines.iter().map(|l| l.verdict).collect();
    assert_eq!(
        verdicts,
        [
            Verdict::NotASnapshot,
            Verdict::ForeignSession,
            Verdict::Accepted,
            Verdict::ForeignSession,
            Verdict::Accepted,
            Verdict::ForeignSession,
            Verdict::Stale
        ],
        "a cursor fixed to beta judges beta's snapshots and leaves the others foreign"
    );
    assert_eq!(
        report.session.as_deref(),
        Some("beta"),
        "the report names the followed session"
    );
    let roots: Vec<&str> = report.lineage.iter().map(|n| n.turn_id.as_str()).collect();
    assert_eq!(roots, ["b1"], "the lineage is beta's");
    let state = state_at(&events, 7, Some("beta"));
    assert_eq!(
        (state.session.as_deref(), state.sequence, state.offset),
        (Some("beta"), Some(2), Some(5)),
        "beta's state is its own highest snapshot"
    );
}

#[test]
fn given_a_session_the_journal_lacks_when_followed_then_nothing_is_accepted() {
    let events = interleaved();
    let report = turns(&events, Some("delta"));
    assert!(
        report.lines.iter().all(|l| l.verdict != Verdict::Accepted),
        "no snapshot of an absent session can be accepted"
    );
    assert!(report.lineage.is_empty(), "an absent session has no turns");
    let state = state_at(&events, 7, Some("delta"));
    assert_eq!(
        (state.session.as_deref(), state.sequence),
        (Some("delta"), None),
        "state names the asked session and holds nothing"
    );
}
