//! Every dialect's derived tables after an import and appends in random chunk sizes must be
//! those of one import of the whole file: the marks, the diagnostics, the tip and the request
//! rows, for journals with bad lines among their events.

mod agentskit_common;
mod import_common;

use import_common::import_quietly as import;
use journalscope::dialect::Dialect;
use journalscope::gen::{write_journal, GenOptions};
use journalscope::store::Store;

fn generated(dialect: Dialect, events: u64, seed: u64) -> Vec<String> {
    let mut bytes = Vec::new();
    write_journal(
        &mut bytes,
        &GenOptions {
            dialect,
            events,
            seed,
        },
    )
    .expect("generate");
    let mut lines: Vec<String> = String::from_utf8(bytes)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    // A line that is not JSON and one that is JSON but no event of the dialect, spread out.
    for at in [lines.len() / 3, 2 * lines.len() / 3] {
        lines.insert(at, "not json at all".to_string());
        lines.insert(at + 1, r#"{"what":"no event of any dialect"}"#.to_string());
    }
    lines
}

fn derived(store: &Store, id: i64) -> impl PartialEq + std::fmt::Debug {
    (
        store.marks(id).expect("marks"),
        store.diagnostics(id).expect("diagnostics"),
        store.tip(id).expect("tip"),
        store.request_rows(id).expect("request rows"),
        store.links(id).expect("links"),
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

    #[test]
    fn an_import_then_appends_in_random_chunks_derive_what_one_import_does(
        dialect in proptest::sample::select(vec![Dialect::Iterate, Dialect::AgUi, Dialect::AgentsKit, Dialect::ClaudeCode, Dialect::Codex]),
        seed in 0u64..1_000_000,
        cuts in proptest::collection::vec(1usize..1_500, 1..4),
    ) {
        let lines = generated(dialect, 1_500, seed);
        let dir = tempfile::tempdir().expect("temp dir");
        let whole_file = dir.path().join("whole.jsonl");
        std::fs::write(&whole_file, lines.join("\n") + "\n").expect("write");
        let whole = Store::open(&dir.path().join("whole.sqlite")).expect("store");
        let whole_id = import(&whole, &whole_file);

        let grows = dir.path().join("grows.jsonl");
        let grown = Store::open(&dir.path().join("grows.sqlite")).expect("store");
        let mut cuts = cuts;
        cuts.sort_unstable();
        cuts.push(lines.len());
        let mut grown_id = 0;
        for end in cuts {
            std::fs::write(&grows, lines[..end.min(lines.len())].join("\n") + "\n").expect("write");
            grown_id = import(&grown, &grows);
        }
        proptest::prop_assert_eq!(
            derived(&grown, grown_id),
            derived(&whole, whole_id),
            "{:?}: what appends derive is what one import derives", dialect
        );
    }
}

#[test]
fn regression_an_agentskit_append_before_the_first_snapshot_forgot_the_turns_submitted_before_it() {
    // Given a session whose turns are submitted before any snapshot names the session, and a
    // snapshot that retries one of them, appended after the submits were imported
    use agentskit_common::{snapshot, submit, with_lineage};
    let lines: Vec<String> = [
        submit("s1", "t0", 1),
        submit("s1", "t1", 2),
        with_lineage(snapshot("s1", "t2", 3), "retry", "t0", "t0-u"),
        snapshot("s1", "t2", 4),
    ]
    .iter()
    .map(|value| value.to_string())
    .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let whole_file = dir.path().join("whole.jsonl");
    std::fs::write(&whole_file, lines.join("\n") + "\n").expect("write");
    let whole = Store::open(&dir.path().join("whole.sqlite")).expect("store");
    let whole_id = import(&whole, &whole_file);
    // When the submits are imported first and the snapshots appended
    let grows = dir.path().join("grows.jsonl");
    let grown = Store::open(&dir.path().join("grows.sqlite")).expect("store");
    std::fs::write(&grows, lines[..2].join("\n") + "\n").expect("write");
    import(&grown, &grows);
    std::fs::write(&grows, lines.join("\n") + "\n").expect("write");
    let grown_id = import(&grown, &grows);
    // Then the retry's parent is known as it is to one import of the whole file
    assert_eq!(
        derived(&grown, grown_id),
        derived(&whole, whole_id),
        "the turns submitted before the session was known survive the append"
    );
    assert!(
        !whole
            .diagnostics(whole_id)
            .expect("diagnostics")
            .iter()
            .any(|(_, d)| d.code == "lineage-unknown-turn"),
        "t0 was submitted, so the retry names a known turn"
    );
}
