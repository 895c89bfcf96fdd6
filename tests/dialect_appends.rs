//! Every dialect's derived tables after an import and appends in random chunk sizes must be
//! those of one import of the whole file: the marks, the diagnostics, the tip and the request
//! rows, for journals with bad lines among their events.

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
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

    #[test]
    fn an_import_then_appends_in_random_chunks_derive_what_one_import_does(
        dialect in proptest::sample::select(vec![Dialect::Iterate, Dialect::AgUi, Dialect::AgentsKit]),
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
