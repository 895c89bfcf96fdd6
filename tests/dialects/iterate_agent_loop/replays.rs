//! The agent loop's replayed scenarios: each request's body against its golden, and the rendering
//! rules they exercise.

use super::*;

pub(crate) fn replay(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/iterate/agent-loop/replays")
        .join(format!("{name}.jsonl"))
}

fn replay_golden(name: &str, request: i64) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/fixtures/iterate/agent-loop/replays/expected/{name}.request-{request}.json"
    ));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn replay_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(replay(name))
        .expect("read the replay")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The input items of request `request` of replay `name`, as the store renders them.
fn replay_input(cli: &Cli, name: &str, request: i64) -> Vec<serde_json::Value> {
    let file = replay(name);
    let body = cli.ok_bytes(&[
        "request",
        s(&file),
        "--at",
        &request.to_string(),
        "--format",
        "body",
        "--exact",
    ]);
    let body: serde_json::Value = serde_json::from_slice(&body).expect("the body is JSON");
    body["input"].as_array().expect("an input list").clone()
}

/// Each item's `type`, or its `role` when it has none, as the loop's tests list them.
fn kinds(input: &[serde_json::Value]) -> Vec<String> {
    input
        .iter()
        .map(|item| {
            item.get("type")
                .or_else(|| item.get("role"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or("?")
                .to_string()
        })
        .collect()
}

fn assert_extends(before: &[serde_json::Value], after: &[serde_json::Value], what: &str) {
    assert!(
        after.len() > before.len() && after[..before.len()] == *before,
        "{what}: the later input begins with the earlier one, item for item, and adds to it"
    );
}

#[test]
fn given_each_replayed_scenario_when_its_requests_are_exported_then_each_body_is_its_golden() {
    let cli = Cli::new();
    for (name, requests) in REPLAYS {
        let file = replay(name);
        for &request in requests {
            let body = cli.ok_bytes(&[
                "request",
                s(&file),
                "--at",
                &request.to_string(),
                "--format",
                "body",
                "--exact",
            ]);
            assert_eq!(
                String::from_utf8_lossy(&body),
                String::from_utf8_lossy(&replay_golden(name, request)),
                "{name} @{request}: the body the loop's renderer gives, byte for byte"
            );
        }
    }
}

#[test]
fn given_each_replayed_scenario_when_folded_in_memory_or_grown_by_appends_then_both_derive_what_one_import_does(
) {
    for (name, requests) in REPLAYS {
        let lines = replay_lines(name);
        // Given the plain fold of the whole journal
        let journal = iterate_lines::journal(&lines);
        for &request in requests {
            let snapshot = journal
                .request(request, Transport::Openai)
                .unwrap_or_else(|e| panic!("{name} @{request} was sent: {e}"));
            assert_eq!(
                String::from_utf8_lossy(&snapshot.body()),
                String::from_utf8_lossy(&replay_golden(name, request)),
                "{name} @{request}: the plain fold renders what the store renders"
            );
        }
        // When the same records arrive one append at a time
        let dir = tempfile::tempdir().expect("temp dir");
        let (whole, whole_id) = importing::import_lines(dir.path(), &lines);
        let grows = dir.path().join("grows.jsonl");
        let grown =
            journalscope::store::Store::open(&dir.path().join("grows.sqlite")).expect("store");
        let mut grown_id = 0;
        for end in 1..=lines.len() {
            std::fs::write(&grows, lines[..end].join("\n") + "\n").expect("write");
            grown_id = importing::import_quietly(&grown, &grows);
        }
        // Then both stores derive the same marks, diagnostics, tip and request rows
        assert_eq!(
            importing::derived(&grown, grown_id),
            importing::derived(&whole, whole_id),
            "{name}: what appends derive is what one import derives"
        );
    }
}

#[test]
fn given_a_configured_effort_when_a_request_is_rendered_then_the_body_goes_with_it() {
    // Given the operator scenario whose first event configures the effort
    let mut lines = replay_lines("operator");
    lines[0] = lines[0].replace(
        r#""type":"events.iterate.com/agent/create-requested","payload":{}"#,
        r#""type":"events.iterate.com/agent/configured","payload":{"config":{"llm":{"reasoningEffort":"high"}}}"#,
    );
    assert!(
        lines[0].contains("configured"),
        "the first event was replaced"
    );
    // When its request is rendered
    let snapshot = iterate_lines::journal(&lines)
        .request(5, Transport::Openai)
        .expect("the request was sent");
    let body: serde_json::Value = serde_json::from_slice(&snapshot.body()).expect("JSON");
    // Then the body carries the configured effort and no note says it was defaulted
    assert_eq!(
        body["reasoning"],
        serde_json::json!({"effort": "high", "summary": "auto"}),
        "the effort the journal configured"
    );
    assert!(
        !snapshot.notes.iter().any(|note| note.contains("default")),
        "nothing defaulted is noted: {:?}",
        snapshot.notes
    );
}

#[test]
fn given_a_script_chain_when_each_request_is_rendered_then_each_extends_the_one_before() {
    let cli = Cli::new();
    // Given three requests of a script chain with an instruction change before the second
    let [first, second, third] = [4, 11, 18].map(|r| replay_input(&cli, "chain", r));
    // Then each begins with the one before
    assert_extends(&first, &second, "@11 after @4");
    assert_extends(&second, &third, "@18 after @11");
    assert_eq!(
        kinds(&first[..4]),
        vec!["developer"; 4],
        "the head: one developer message per section"
    );
    assert!(
        first[1].to_string().contains("prompt_cache_breakpoint")
            && !first[2].to_string().contains("prompt_cache_breakpoint"),
        "the breakpoint closes the last shared section, before the agent's own"
    );
    assert_eq!(
        kinds(&third),
        [
            "developer",
            "developer",
            "developer",
            "developer",
            "user",
            "developer",
            "reasoning",
            "message",
            "function_call",
            "function_call_output",
            "developer",
            "developer",
            "reasoning",
            "function_call",
            "function_call_output",
            "developer"
        ],
        "head, words, stamp, the answer replayed with its call and output, stamp, the update \
         where it happened, the second answer, stamp"
    );
    assert_eq!(
        (&third[8]["id"], &third[8]["call_id"], &third[9]["call_id"]),
        (
            &serde_json::json!("fc_4"),
            &serde_json::json!("call_r4"),
            &serde_json::json!("call_r4")
        ),
        "the call keeps the provider's ids and is followed by its own output"
    );
}

#[test]
fn given_answers_of_another_model_when_rendered_then_they_replay_without_reasoning_or_ids() {
    // Given a chain whose last request goes to a model other than the one that answered
    let input = replay_input(&Cli::new(), "other-model", 18);
    assert!(
        !kinds(&input).contains(&"reasoning".to_string()),
        "no reasoning of another model is replayed"
    );
    let calls: Vec<_> = input
        .iter()
        .filter(|item| item["type"] == "function_call")
        .collect();
    assert!(
        calls.iter().all(|call| call.get("id").is_none()),
        "calls lose their provider ids: {calls:?}"
    );
    assert_eq!(
        kinds(&input)
            .iter()
            .filter(|kind| *kind == "function_call_output")
            .count(),
        2,
        "each call is still followed by its output"
    );
}

#[test]
fn given_the_previous_loops_codemode_answer_when_rendered_then_it_is_a_call_and_its_output() {
    let input = replay_input(&Cli::new(), "codemode", 11);
    assert!(
        !serde_json::Value::Array(input.clone())
            .to_string()
            .contains("OLD PROMPT"),
        "the birth prompt the previous loop journaled is superseded by the sections"
    );
    assert_eq!(
        kinds(&input),
        [
            "user",
            "developer",
            "assistant",
            "function_call",
            "function_call_output",
            "developer"
        ],
        "words, stamp, prose, the block's script as a call, its output, stamp"
    );
    assert_eq!(
        (
            &input[3]["call_id"],
            &input[3]["arguments"],
            &input[4]["call_id"]
        ),
        (
            &serde_json::json!("call_6"),
            &serde_json::json!(r#"{"status":"Looking","script":"return 1"}"#),
            &serde_json::json!("call_6")
        ),
        "the call is named by the answer's offset and carries the block's status and script"
    );
}

#[test]
fn given_operator_instructions_after_the_birth_when_rendered_then_they_reach_the_model() {
    let input = replay_input(&Cli::new(), "operator", 5);
    assert_eq!(
        kinds(&input),
        ["developer", "user", "developer"],
        "instructions, words, stamp"
    );
    assert_eq!(
        input[0],
        serde_json::json!({"role": "developer", "content": "Be terse."}),
        "a system item is a developer message"
    );
}

#[test]
fn given_a_result_after_the_request_moved_on_when_rendered_then_no_result_yet_and_a_late_message() {
    let cli = Cli::new();
    let (before, after) = (
        replay_input(&cli, "late-result", 10),
        replay_input(&cli, "late-result", 15),
    );
    assert_extends(&before, &after, "@15 after @10");
    let output = after
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .expect("the call has an output");
    assert!(
        output["output"]
            .as_str()
            .is_some_and(|text| text.contains("No result had come back")),
        "the call shows no result yet, in every later request alike"
    );
    assert!(
        after[after.len() - 2]
            .to_string()
            .contains("came back after the conversation moved on"),
        "the result arrives as its own message, before the last stamp"
    );
}

#[test]
fn given_a_compaction_when_rendered_then_one_head_snapshot_and_a_cut_calls_result_as_a_message() {
    let input = replay_input(&Cli::new(), "compaction", 23);
    assert!(
        input[1].to_string().contains("Be exact."),
        "the head snapshot carries the folded update"
    );
    assert!(
        !kinds(&input).contains(&"function_call".to_string()),
        "the calls were compacted away"
    );
    assert!(
        input.iter().any(|item| item
            .to_string()
            .contains("came back after the conversation moved on")),
        "a result whose call was cut renders as a message"
    );
}

#[test]
fn given_idle_summaries_when_rendered_then_kept_ones_stay_word_for_word_and_a_merge_replaces_them()
{
    let cli = Cli::new();
    let texts = |name: &str| {
        replay_input(&cli, name, 27)
            .iter()
            .filter_map(|item| item["content"].as_str().map(str::to_string))
            .collect::<Vec<_>>()
    };
    let kept = texts("summaries-kept");
    assert!(
        kept.windows(2).any(|pair| pair == ["first", "second"]),
        "a summary that keeps the earlier ones follows them, both word for word: {kept:?}"
    );
    assert!(
        !kept.iter().any(|text| text == "More?"),
        "words the summary covers are gone"
    );
    let merged = texts("summaries-merged");
    assert!(
        merged.iter().any(|text| text == "both") && !merged.iter().any(|text| text == "first"),
        "a merge replaces every earlier summary: {merged:?}"
    );
}

#[test]
fn given_a_whole_lifecycle_when_folded_then_every_event_type_takes_its_part() {
    // Given a birth that failed once, a configured effort, a pinned entry, an owed answer that
    // is reminded and then paid, the loop's frames, usage and keep-warm facts, a quarantine and
    // a death
    let lines = replay_lines("lifecycle");
    let journal = iterate_lines::journal(&lines);
    let state_at = |at: i64| {
        journal
            .projection_at(at)
            .agent
            .expect("the loop's fold")
            .state
    };
    // Then each type does what the loop's reduce does with it, and none is unknown
    assert_eq!(
        iterate_lines::diagnostics(&lines)
            .iter()
            .map(|d| d.code.as_str())
            .collect::<Vec<_>>(),
        ["agent-loop-contract"],
        "every type is one of the loop's, and every payload keeps its shape"
    );
    assert_eq!(state_at(6).preamble.len(), 1, "the entry is pinned");
    let reminded = state_at(17).owed_answer.expect("the message is owed");
    assert_eq!(
        (reminded.offset, reminded.reminded),
        (7, true),
        "the reminder for @7 is spent"
    );
    assert_eq!(
        state_at(21).owed_answer,
        None,
        "words without a call pay it"
    );
    let end = state_at(27);
    assert_eq!(
        (end.creation, end.deletion),
        (Some(4), Some(27)),
        "born at the certificate after the failed attempt, dead at the last"
    );
    assert!(
        end.preamble.is_empty(),
        "the quarantine takes the entry out"
    );
    assert_eq!(
        end.summary,
        Some(serde_json::json!({"activity": "Scheduling"})),
        "the agent's own summary"
    );
    let body: serde_json::Value =
        serde_json::from_slice(&replay_golden("lifecycle", 19)).expect("JSON");
    assert_eq!(
        body["reasoning"]["effort"], "low",
        "the request goes with the configured effort"
    );
}

#[test]
fn given_a_long_agent_loop_journal_when_requests_are_diffed_from_checkpoints_then_each_diff_is_the_plain_folds(
) {
    use journalscope_iterate::iterate::diff::request_diff_stored;
    use journalscope_iterate::iterate::IterateJournal;
    let lines = long_journal(60);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), &lines);
    let plain = IterateJournal::from_stored(&store.events(id).expect("events"));
    let requests: Vec<i64> = store
        .request_rows(id)
        .expect("rows")
        .iter()
        .map(|row| {
            let summary: serde_json::Value = serde_json::from_str(&row.1).expect("a row");
            summary["offset"].as_i64().expect("an offset")
        })
        .collect();
    let mut compactions = 0;
    for pair in requests.windows(2) {
        let (from, to) = ((pair[0], Transport::Openai), (pair[1], Transport::Openai));
        let stored = request_diff_stored(&store, id, from, to)
            .expect("the store reads")
            .unwrap_or_else(|e| panic!("requests @{} and @{} were sent: {e}", pair[0], pair[1]));
        let folded = plain.request_diff(from, to).expect("both sent");
        assert_eq!(
            stored, folded,
            "@{} → @{}: the diff from the checkpoints is the one a fold from the first record makes",
            pair[0], pair[1]
        );
        if let Some(broke) = &stored.prefix_break {
            assert!(
                broke.expected
                    && matches!(
                        broke.causes.first(),
                        Some(journalscope_iterate::iterate::diff::BreakCause::Compaction { .. })
                    ),
                "@{} → @{}: only a compaction breaks the generated loop's prefix: {broke:?}",
                pair[0],
                pair[1]
            );
            compactions += 1;
        }
    }
    assert_eq!(
        compactions, 1,
        "the compaction of the fortieth turn is the one break among 60 turns"
    );
}

#[test]
fn regression_a_walk_over_agent_loop_requests_rendered_them_without_their_sections_or_path() {
    // Given the release journal opened from its file
    let dir = tempfile::tempdir().expect("temp dir");
    let mut quiet = |_| {};
    let journal = journalscope::journal::Journal::open(
        &fixture(),
        Some(&dir.path().join("journal.sqlite")),
        &mut journalscope::import::ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the fixture opens");
    // When every request is walked in one pass, as reports and sizes walk them
    let mut walked = Vec::new();
    journal
        .walk_requests((None, None), &[Transport::Openai], |offset, snapshots| {
            walked.push((offset, snapshots[0].body()));
        })
        .expect("the walk reads the store");
    // Then each sent request is there, with the body `request --at` gives: head and cache key
    assert_eq!(
        walked.iter().map(|(offset, _)| *offset).collect::<Vec<_>>(),
        SENT,
        "every request that sent something, and only those"
    );
    for (offset, body) in walked {
        assert_eq!(
            String::from_utf8_lossy(&body),
            String::from_utf8_lossy(&golden(offset)),
            "request @{offset}: the walk renders the body a single request renders"
        );
    }
}
