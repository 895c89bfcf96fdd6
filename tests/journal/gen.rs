//! `journalscope gen`: the same seed writes the same bytes, and what it writes is a valid
//! journal of its dialect that folds without a single diagnostic.

use journalscope::dialect::Dialect;
use journalscope::import::ImportControl;
use journalscope::journal::Journal;
use journalscope_gen::{write_journal, ContractName, GenOptions};

fn generate(dialect: Dialect, events: u64, seed: u64) -> Vec<u8> {
    generate_contract(dialect, ContractName::Seed, events, seed)
}

fn generate_contract(dialect: Dialect, contract: ContractName, events: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_journal(
        &mut out,
        &GenOptions {
            dialect,
            events,
            seed,
            contract,
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

#[test]
fn given_the_agent_loop_contract_when_a_journal_is_generated_then_it_folds_without_a_warning_and_every_request_renders(
) {
    let bytes = generate_contract(Dialect::Iterate, ContractName::AgentLoop, 5_000, 7);
    assert!(
        bytes == generate_contract(Dialect::Iterate, ContractName::AgentLoop, 5_000, 7),
        "the same seed writes the same agent-loop journal"
    );
    assert!(
        generate_contract(Dialect::Iterate, ContractName::AgentLoop, 9_000, 7).starts_with(&bytes),
        "a shorter agent-loop journal is a prefix of a longer one, as the bench's append needs"
    );
    let (_dir, journal) = open(&bytes, "loop.jsonl");
    let info = journal.info().expect("info");
    assert_eq!(info.event_count, 5_000, "every generated line is an event");
    assert_eq!(
        info.contract.as_ref().map(|c| c.label()),
        Some("agent-loop 16".to_string()),
        "the journal is told apart as the agent loop, stamped v16"
    );
    let said: Vec<_> = journal
        .diagnostics()
        .expect("diagnostics read")
        .into_iter()
        .filter(|d| d.code != "agent-loop-contract")
        .collect();
    assert_eq!(
        said,
        Vec::new(),
        "a generated agent loop breaks no rule: every request opens, every input extends the one before"
    );
    let requests = journal.requests().expect("requests");
    assert!(
        requests.len() > 500,
        "a request every few events: {}",
        requests.len()
    );
    assert!(
        requests.iter().any(|r| r.compactions_before > 0),
        "idle summaries compact the loop"
    );
    let plain = journalscope_iterate::iterate::IterateJournal::from_stored(
        &journal
            .store()
            .events(journal.row().id)
            .expect("the stored events"),
    );
    let (mut late, mut placed) = (0, 0);
    for (index, request) in requests.iter().enumerate() {
        let snapshot = journal
            .request(
                request.offset,
                journalscope_iterate::iterate::Transport::Openai,
            )
            .unwrap_or_else(|err| panic!("request @{} renders: {err}", request.offset));
        let body = snapshot
            .responses_body
            .unwrap_or_else(|| panic!("request @{} has a Responses-API body", request.offset));
        let input = body["input"].as_array().cloned().unwrap_or_default();
        assert!(
            !input.is_empty(),
            "request @{} sends the head and the conversation",
            request.offset
        );
        if index % 10 == 0 {
            let folded = plain
                .request(
                    request.offset,
                    journalscope_iterate::iterate::Transport::Openai,
                )
                .unwrap_or_else(|err| panic!("request @{} folds: {err}", request.offset));
            assert_eq!(
                folded.responses_body.as_ref(),
                Some(&body),
                "request @{}: from the checkpoint before it as from the first record",
                request.offset
            );
        }
        let text = body.to_string();
        if text.contains("came back after the conversation moved on") {
            late += 1;
        }
        if input
            .iter()
            .any(|item| item["type"] == "function_call_output")
        {
            placed += 1;
        }
    }
    assert!(late > 0, "some scripts' results come back late");
    assert!(placed > 0, "most results are placed after their calls");
}
