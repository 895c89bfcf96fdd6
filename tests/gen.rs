//! `journalscope gen`: the same seed writes the same bytes, and what it writes is a valid
//! journal of its dialect that folds without a single diagnostic.

use journalscope::dialect::Dialect;
use journalscope::gen::{write_journal, GenOptions};
use journalscope::import::ImportControl;
use journalscope::journal::Journal;

fn generate(dialect: Dialect, events: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_journal(
        &mut out,
        &GenOptions {
            dialect,
            events,
            seed,
        },
    )
    .expect("write to memory");
    out
}

fn open(bytes: &[u8], name: &str) -> (tempfile::TempDir, Journal) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write the journal");
    let mut quiet = |_| {};
    let journal = Journal::open(
        &path,
        Some(&dir.path().join("journal.sqlite")),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("a generated journal opens");
    (dir, journal)
}

#[test]
fn the_same_seed_writes_identical_bytes_and_another_seed_does_not() {
    for dialect in [
        Dialect::Iterate,
        Dialect::AgUi,
        Dialect::AgentsKit,
        Dialect::ClaudeCode,
        Dialect::Codex,
    ] {
        let first = generate(dialect, 2_000, 42);
        let again = generate(dialect, 2_000, 42);
        let other = generate(dialect, 2_000, 43);
        assert!(
            first == again,
            "{dialect:?}: gen must be deterministic for a seed"
        );
        assert!(
            first != other,
            "{dialect:?}: the seed must change the journal"
        );
    }
}

#[test]
fn a_shorter_journal_is_a_prefix_of_a_longer_one_with_the_same_seed() {
    let short = generate(Dialect::Iterate, 1_000, 9);
    let long = generate(Dialect::Iterate, 3_000, 9);
    assert!(
        long.starts_with(&short),
        "the event count cuts the same stream, so benchmarks of different sizes compare"
    );
}

#[test]
fn a_generated_iterate_journal_folds_with_zero_diagnostics() {
    let bytes = generate(Dialect::Iterate, 5_000, 7);
    let (_dir, journal) = open(&bytes, "gen.jsonl");
    assert_eq!(journal.dialect(), Dialect::Iterate, "detected as iterate");
    let info = journal.info().expect("info");
    assert_eq!(info.event_count, 5_000, "every generated line is an event");
    assert_eq!(
        journal.diagnostics().expect("diagnostics read"),
        Vec::new(),
        "a generated journal follows every rule of the spec"
    );
    let requests = journal.requests().expect("requests");
    assert!(
        requests.len() > 500,
        "requests every few events: {}",
        requests.len()
    );
    assert!(
        requests.iter().any(|r| r.compactions_before > 0),
        "compactions happen"
    );
    let last = info.last_offset.expect("a last offset");
    assert!(
        last > 5_000,
        "ephemeral chunks leave offset gaps (last @{last})"
    );
    let projection = journal.projection(last).expect("projection at the end");
    assert!(
        projection
            .history
            .iter()
            .any(|i| i.updates_offset.is_some()),
        "keyed slots are updated across requests"
    );
    assert!(
        projection.system.len() > 1,
        "the system lane holds the prompt and instructions"
    );
    let sizes: Vec<usize> = bytes.split(|b| *b == b'\n').map(<[u8]>::len).collect();
    assert!(sizes.iter().any(|s| *s > 20_000), "some payloads are large");
}

#[test]
fn generated_ag_ui_agentskit_and_claude_code_journals_load_without_diagnostics() {
    for (dialect, name) in [
        (Dialect::AgUi, "gen.ag-ui.jsonl"),
        (Dialect::AgentsKit, "gen.ndjson"),
        (Dialect::ClaudeCode, "session.jsonl"),
        (Dialect::Codex, "rollout.jsonl"),
    ] {
        let bytes = generate(dialect, 3_000, 5);
        let (_dir, journal) = open(&bytes, name);
        assert_eq!(journal.dialect(), dialect, "detected as {dialect:?}");
        assert_eq!(
            journal.info().expect("info").event_count,
            3_000,
            "{dialect:?}: every line is an event"
        );
        // The generator cuts its stream at the count asked for, which may fall inside a run:
        // that the last run is still open at the end is the only thing to say.
        let found: Vec<_> = journal
            .diagnostics()
            .expect("diagnostics read")
            .into_iter()
            .filter(|d| !(d.code == "run-never-finished" && d.offset == Some(3_000)))
            .collect();
        assert_eq!(
            found,
            Vec::new(),
            "{dialect:?}: a generated journal is valid"
        );
    }
}
