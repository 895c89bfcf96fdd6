//! Lineage: retries, edits and regenerations form a tree of turns under their submits, and
//! ancestry naming what the session never held is a warning on the declaring line.

use crate::support::agentskit_lines;
use crate::support::importing;

use agentskit_lines::{journal, snapshot, submit, with_lineage};
use journalscope::diagnostic::Severity;
use journalscope_agentskit::agentskit::{analyse, turns, LineageNode};
use serde_json::json;

fn shape(node: &LineageNode) -> String {
    let children: Vec<String> = node.children.iter().map(shape).collect();
    if children.is_empty() {
        format!("{}:{}", node.turn_id, node.operation.as_str())
    } else {
        format!(
            "{}:{}[{}]",
            node.turn_id,
            node.operation.as_str(),
            children.join(",")
        )
    }
}

fn codes(events: &[journalscope::store::StoredEvent]) -> Vec<(u64, String, Severity)> {
    analyse(events)
        .diagnostics
        .into_iter()
        .map(|(seq, d)| (seq, d.code, d.severity))
        .collect()
}

#[test]
fn given_retry_edit_and_regenerate_when_folded_then_they_hang_under_their_parents() {
    // Given a submitted turn t1, a retry t2 of it, an edit t3 of t2 and a regeneration t4 of t1
    let mut first = snapshot("s1", "t1", 1);
    first["payload"]["lineage"] = json!({"operation": "submit"});
    let events = journal(&[
        submit("s1", "t1", 0),
        first,
        with_lineage(snapshot("s1", "t2", 2), "retry", "t1", "t1-u"),
        with_lineage(snapshot("s1", "t3", 3), "edit", "t2", "t2-u"),
        with_lineage(snapshot("s1", "t4", 4), "regenerate", "t1", "t1-a"),
        snapshot("s1", "t3", 5),
    ]);
    // Then the tree mirrors the ancestry, children in order of first appearance
    let report = turns(&events, None);
    let shapes: Vec<String> = report.lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t1:submit[t2:retry[t3:edit],t4:regenerate]"],
        "each derived turn hangs under its parentTurnId"
    );
    let t3 = &report.lineage[0].children[0].children[0];
    assert_eq!(
        (
            t3.parent_turn_id.as_deref(),
            t3.source_message_id.as_deref()
        ),
        (Some("t2"), Some("t2-u")),
        "a node carries its declared ancestry"
    );
    assert_eq!(
        t3.snapshot_offsets,
        [4, 6],
        "a node lists the offsets of its turn's snapshots"
    );
    assert_eq!(
        report.lineage[0].snapshot_offsets,
        [2],
        "a submit line is not a snapshot offset"
    );
    assert!(
        codes(&events).is_empty(),
        "sound ancestry raises no warning"
    );
}

#[test]
fn given_a_turn_without_lineage_when_folded_then_it_is_a_submit_root() {
    // Given snapshots from before lineage existed
    let events = journal(&[snapshot("s1", "t1", 1), snapshot("s1", "t2", 2)]);
    let report = turns(&events, None);
    let shapes: Vec<String> = report.lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t1:submit", "t2:submit"],
        "a turn with no declared lineage is a plain submit"
    );
}

#[test]
fn given_a_retry_of_an_unknown_turn_when_folded_then_it_warns_and_shows_it_as_a_root() {
    let events = journal(&[
        snapshot("s1", "t1", 1),
        with_lineage(snapshot("s1", "t2", 2), "retry", "ghost", "t1-u"),
    ]);
    assert_eq!(
        codes(&events),
        [(1, "lineage-unknown-turn".to_string(), Severity::Warning)],
        "an unknown parent turn is a warning on the declaring line"
    );
    let shapes: Vec<String> = turns(&events, None).lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t1:submit", "t2:retry"],
        "an orphan is still shown, as a root"
    );
}

#[test]
fn given_an_edit_of_an_unknown_message_when_folded_then_it_warns() {
    let events = journal(&[
        snapshot("s1", "t1", 1),
        with_lineage(snapshot("s1", "t2", 2), "edit", "t1", "no-such-message"),
    ]);
    assert_eq!(
        codes(&events),
        [(1, "lineage-unknown-message".to_string(), Severity::Warning)],
        "an unknown source message is a warning on the declaring line"
    );
    let shapes: Vec<String> = turns(&events, None).lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t1:submit[t2:edit]"],
        "a known parent still adopts the turn"
    );
}

#[test]
fn given_turns_naming_each_other_when_folded_then_the_cycle_is_cut_and_reported() {
    let events = journal(&[
        with_lineage(snapshot("s1", "t1", 1), "retry", "t2", "t2-u"),
        with_lineage(snapshot("s1", "t2", 2), "retry", "t1", "t1-u"),
        with_lineage(snapshot("s1", "t3", 3), "regenerate", "t3", "t3-a"),
    ]);
    let found = codes(&events);
    assert_eq!(
        found,
        [
            (1, "lineage-cycle".to_string(), Severity::Warning),
            (2, "lineage-cycle".to_string(), Severity::Warning)
        ],
        "a turn that descends from itself is reported where it is declared"
    );
    let shapes: Vec<String> = turns(&events, None).lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t2:retry[t1:retry]", "t3:regenerate"],
        "every turn stays visible once the cycle is cut"
    );
}

#[test]
fn given_a_turn_whose_lineage_changes_when_folded_then_the_first_declaration_wins() {
    let events = journal(&[
        snapshot("s1", "t1", 1),
        snapshot("s1", "t0", 2),
        with_lineage(snapshot("s1", "t2", 3), "retry", "t1", "t1-u"),
        with_lineage(snapshot("s1", "t2", 4), "edit", "t0", "t0-u"),
    ]);
    assert_eq!(
        codes(&events),
        [(3, "lineage-conflict".to_string(), Severity::Warning)],
        "a turn changing its ancestry is a warning"
    );
    let shapes: Vec<String> = turns(&events, None).lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t1:submit[t2:retry]", "t0:submit"],
        "the first declaration places the turn"
    );
}

#[test]
fn given_lineage_in_another_session_when_folded_then_it_is_not_this_sessions_tree() {
    let events = journal(&[
        snapshot("s1", "t1", 1),
        with_lineage(snapshot("s2", "t2", 2), "retry", "t1", "t1-u"),
    ]);
    let report = turns(&events, None);
    let shapes: Vec<String> = report.lineage.iter().map(shape).collect();
    assert_eq!(
        shapes,
        ["t1:submit"],
        "the tree is the followed session's only"
    );
    assert!(
        codes(&events).is_empty(),
        "another session's lineage is not checked against this one"
    );
    let other: Vec<String> = turns(&events, Some("s2"))
        .lineage
        .iter()
        .map(shape)
        .collect();
    assert_eq!(
        other,
        ["t2:retry"],
        "in s2 the retry's parent is unknown, so it is a root"
    );
}

#[test]
fn a_lineage_chain_as_long_as_the_journal_is_cut_into_roots_instead_of_overflowing_the_stack() {
    // Given 1,000 turns, each regenerating the one before, when the lineage tree is built and
    // rendered, then no branch nests deeper than the cap and every cut is a warning.
    let mut lines = vec![snapshot("s1", "t0", 1)];
    for turn in 1..1_000u64 {
        let parent = format!("t{}", turn - 1);
        lines.push(with_lineage(
            snapshot("s1", &format!("t{turn}"), turn + 1),
            "regenerate",
            &parent,
            &format!("{parent}-a"),
        ));
    }
    let events = journal(&lines);
    let report = turns(&events, None);
    fn deepest(node: &LineageNode) -> usize {
        1 + node.children.iter().map(deepest).max().unwrap_or(0)
    }
    let depth = report.lineage.iter().map(deepest).max().unwrap_or(0);
    assert!(
        depth <= journalscope_agentskit::agentskit::lineage::MAX_LINEAGE_DEPTH,
        "no branch is deeper than the cap ({depth})"
    );
    assert_eq!(report.lineage.len(), 5, "the chain is shown as five roots");
    let cuts = codes(&events)
        .into_iter()
        .filter(|(_, code, _)| code == "lineage-too-deep")
        .count();
    assert_eq!(cuts, 4, "each cut says so");
    assert!(
        serde_json::to_string(&report).is_ok(),
        "the report serialises for the desktop"
    );
}

#[test]
fn regression_an_append_that_brings_a_named_parent_turn_withdraws_its_unknown_turn_warning() {
    use journalscope::store::Store;

    let import = importing::import_quietly;
    let codes = |store: &Store, id: i64| -> Vec<String> {
        store
            .diagnostics(id)
            .expect("diagnostics")
            .into_iter()
            .map(|(_, d)| d.code)
            .collect()
    };
    // Given a retry whose parent turn t1 the journal does not hold yet
    let first = [
        snapshot("s1", "t0", 1),
        with_lineage(snapshot("s1", "t2", 2), "retry", "t1", "t0-u"),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("turns.jsonl");
    let text =
        |lines: &[serde_json::Value]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    std::fs::write(&path, text(&first)).expect("write");
    let store = Store::open(&dir.path().join("db.sqlite")).expect("store");
    let id = import(&store, &path);
    assert_eq!(
        codes(&store, id),
        ["lineage-unknown-turn"],
        "t1 is unknown so far"
    );
    // When an append brings t1
    let mut grown = first.to_vec();
    grown.push(snapshot("s1", "t1", 3));
    std::fs::write(&path, text(&grown)).expect("append");
    let id = import(&store, &path);
    // Then the warning is gone, as one import of the whole file would have it
    assert!(
        codes(&store, id).is_empty(),
        "the parent is known now: {:?}",
        codes(&store, id)
    );
    let whole = Store::open(&dir.path().join("whole.sqlite")).expect("store");
    let whole_id = import(&whole, &path);
    assert_eq!(
        store.marks(id).expect("marks"),
        whole.marks(whole_id).expect("marks"),
        "and the verdicts are those of one import"
    );
}
