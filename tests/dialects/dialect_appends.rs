//! Every dialect's derived tables after an import and appends in random chunk sizes must be
//! those of one import of the whole file: the marks, the diagnostics, the tip and the request
//! rows, for journals with bad lines among their events.

use crate::support::agentskit_lines;
use crate::support::importing;

use importing::{derived, import_quietly as import};
use journalscope::dialect::Dialect;
use journalscope::ingest::Ingest;
use journalscope::store::Store;
use journalscope_gen::{write_journal, GenOptions};
use std::ops::ControlFlow;

fn generated(dialect: Dialect, events: u64, seed: u64) -> Vec<String> {
    let mut bytes = Vec::new();
    write_journal(
        &mut bytes,
        &GenOptions {
            dialect,
            events,
            seed,
            contract: journalscope_gen::ContractName::Seed,
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
    use agentskit_lines::{snapshot, submit, with_lineage};
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

/// Whether the next append to the journal folds only what it adds: the fold resumes after
/// the last stored record (the watch hears first where it goes on from).
fn goes_on_from_the_end(store: &Store, id: i64) -> bool {
    let journal = store.journal(id).expect("read").expect("journal");
    let records = store.event_count(id).expect("count");
    let mut starts_at = None;
    Ingest::resume(store, &journal, &mut |folded| {
        starts_at.get_or_insert(folded);
        ControlFlow::Continue(())
    })
    .expect("resume")
    .expect("not abandoned");
    starts_at == Some(records)
}

/// Every transcript under `dir` and its subfolders.
fn transcripts(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("fixture folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            transcripts(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            out.push(path);
        }
    }
}

#[test]
fn every_session_fixture_appended_line_by_line_derives_what_one_import_does() {
    // Given every Claude Code and Codex fixture: forks, rewinds, compactions, replayed and
    // out-of-order lines, subagents, and the transcripts real clients wrote
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
    let mut files = Vec::new();
    transcripts(&root, &mut files);
    files.sort();
    assert!(files.len() >= 20, "the fixtures are found: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("fixture");
        let lines: Vec<&str> = text.lines().collect();
        let dir = tempfile::tempdir().expect("temp dir");
        let whole_file = dir.path().join("whole.jsonl");
        std::fs::write(&whole_file, lines.join("\n") + "\n").expect("write");
        let whole = Store::open(&dir.path().join("whole.sqlite")).expect("store");
        let whole_id = import(&whole, &whole_file);
        // When the same lines arrive one append at a time, each going on from the checkpoint
        // the one before left (long files in a few larger appends)
        let step = (lines.len() / 40).max(1);
        let grows = dir.path().join("grows.jsonl");
        let grown = Store::open(&dir.path().join("grows.sqlite")).expect("store");
        let mut grown_id = 0;
        let mut end = 0;
        while end < lines.len() {
            end = (end + step).min(lines.len());
            std::fs::write(&grows, lines[..end].join("\n") + "\n").expect("write");
            grown_id = import(&grown, &grows);
            assert!(
                goes_on_from_the_end(&grown, grown_id),
                "{}: the next append goes on from the end, folding nothing again",
                file.display()
            );
        }
        // Then both hold the same marks, diagnostics, request rows and links
        assert_eq!(
            derived(&grown, grown_id),
            derived(&whole, whole_id),
            "{}: what appends derive is what one import derives",
            file.display()
        );
    }
}

#[test]
fn a_long_session_resumed_from_its_sealed_blocks_still_knows_its_first_lines() {
    // Given a generated session long enough that the checkpoint seals its nodes in several
    // blocks, then lines that go back to its first lines: two prompts rewinding to line 1, a
    // line reusing line 2's uuid, and an answer to line 3
    let mut lines: Vec<String> = generated(Dialect::ClaudeCode, 30_000, 11)
        .into_iter()
        .filter(|line| line.starts_with('{') && line.contains("\"uuid\""))
        .collect();
    let imported_first = lines.len();
    let uuid = |line: &str| -> String {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        value["uuid"].as_str().expect("uuid").to_string()
    };
    let (first, second, third) = (uuid(&lines[0]), uuid(&lines[1]), uuid(&lines[2]));
    let prompt = |id: &str, parent: &str, text: &str| {
        serde_json::json!({"type": "user", "uuid": id, "parentUuid": parent,
            "sessionId": "5e551000-0000-4000-8000-000000000000", "isSidechain": false,
            "timestamp": "2026-11-30T00:00:00.000Z",
            "message": {"role": "user", "content": text}})
        .to_string()
    };
    lines.push(prompt(
        "aaaaaaaa-0000-4000-8000-000000000001",
        &first,
        "try again",
    ));
    lines.push(prompt(
        "aaaaaaaa-0000-4000-8000-000000000002",
        &first,
        "once more",
    ));
    lines.push(prompt(&second, &third, "a uuid given twice"));
    lines.push(prompt(
        "aaaaaaaa-0000-4000-8000-000000000003",
        &third,
        "back to line 3",
    ));
    let dir = tempfile::tempdir().expect("temp dir");
    let whole_file = dir.path().join("whole.jsonl");
    std::fs::write(&whole_file, lines.join("\n") + "\n").expect("write");
    let whole = Store::open(&dir.path().join("whole.sqlite")).expect("store");
    let whole_id = import(&whole, &whole_file);
    // When the generated lines are imported first and the others appended
    let grows = dir.path().join("grows.jsonl");
    let grown = Store::open(&dir.path().join("grows.sqlite")).expect("store");
    std::fs::write(&grows, lines[..imported_first].join("\n") + "\n").expect("write");
    let first_id = import(&grown, &grows);
    assert!(
        grown
            .checkpoint_blocks(first_id, 100)
            .expect("blocks")
            .len()
            >= 3,
        "the session's nodes fill several sealed blocks"
    );
    assert!(
        goes_on_from_the_end(&grown, first_id),
        "the append goes on from the checkpoint"
    );
    std::fs::write(&grows, lines.join("\n") + "\n").expect("write");
    let grown_id = import(&grown, &grows);
    // Then the append found the rewind and the reused uuid as one import does
    assert_eq!(
        derived(&grown, grown_id),
        derived(&whole, whole_id),
        "what the append derives from the sealed blocks is what one import derives"
    );
    let codes: Vec<(u64, String)> = grown
        .diagnostics(grown_id)
        .expect("diagnostics")
        .into_iter()
        .map(|(seq, d)| (seq, d.code))
        .collect();
    assert!(
        codes.contains(&(0, "fork".to_string())),
        "two prompts under line 1 make it a fork: {codes:?}"
    );
    assert!(
        codes.contains(&(imported_first as u64 + 2, "duplicate-uuid".to_string())),
        "line 2's uuid, given again, is known from the sealed blocks: {codes:?}"
    );
}
