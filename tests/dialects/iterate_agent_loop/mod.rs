//! iterate's agent loop (contract "agent" v16) through the binary and the library: a hand-written
//! journal with triggers, a script run whose result is placed and one whose result comes back
//! late, a retried request, a compaction, sections updates, input from another context, owed
//! answers and a pause. Each request's body is checked byte for byte against its golden.

use crate::support::cli;
use crate::support::importing;
use crate::support::iterate_lines;

use std::path::{Path, PathBuf};

use cli::Cli;
use journalscope_iterate::iterate::agent_loop::fold::TriggerSource;
use journalscope_iterate::iterate::projection::Rules;
use journalscope_iterate::iterate::Transport;

mod replays;

const SENT: [i64; 5] = [4, 11, 18, 24, 26];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate/agent-loop/release.jsonl")
}

fn golden(request: i64) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/fixtures/iterate/agent-loop/expected/request-{request}.json"
    ));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn lines() -> Vec<String> {
    std::fs::read_to_string(fixture())
        .expect("read the fixture")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn given_the_release_journal_when_each_request_is_exported_exactly_then_the_body_is_its_golden() {
    let cli = Cli::new();
    let file = fixture();
    for request in SENT {
        let at = request.to_string();
        let body = cli.ok_bytes(&[
            "request",
            s(&file),
            "--at",
            &at,
            "--format",
            "body",
            "--exact",
        ]);
        assert_eq!(
            String::from_utf8_lossy(&body),
            String::from_utf8_lossy(&golden(request)),
            "request @{request}: the Responses-API body, byte for byte"
        );
    }
}

#[test]
fn given_the_release_journal_when_folded_in_memory_then_each_body_is_the_one_the_store_renders() {
    let journal = iterate_lines::journal(&lines());
    for request in SENT {
        let snapshot = journal
            .request(request, Transport::Openai)
            .unwrap_or_else(|e| panic!("request @{request} was sent: {e}"));
        assert_eq!(
            String::from_utf8_lossy(&snapshot.body()),
            String::from_utf8_lossy(&golden(request)),
            "request @{request}: the plain fold renders what the store's checkpoints render"
        );
    }
}

#[test]
fn given_a_request_the_pause_left_without_a_trigger_when_asked_for_then_it_says_it_sent_nothing() {
    let cli = Cli::new();
    let file = fixture();
    let run = cli.run(&["request", s(&file), "--at", "30"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && stderr.contains("sent nothing"),
        "the pause dropped the nightly trigger, so @30 opened nothing: {stderr}"
    );
    let diagnostics = cli.json(&["diagnostics", s(&file), "--json"]);
    let codes: Vec<&str> = diagnostics
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        vec!["agent-loop-contract", "request-not-opened"],
        "the loop is named once; only the intent at @30 is said, and no input breaks the prefix"
    );
    let requests = cli.json(&["requests", s(&file), "--json"]);
    let rows = requests.as_array().expect("a list");
    assert_eq!(
        rows.iter()
            .filter_map(|r| r["offset"].as_i64())
            .collect::<Vec<_>>(),
        SENT,
        "the request list holds the requests the loop sent, not the intent at @30"
    );
    let counts = |name: &str| {
        rows.iter()
            .filter_map(|r| r[name].as_u64())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        (counts("items"), counts("newlyPublished")),
        (vec![2, 6, 10, 7, 8], vec![2, 4, 4, 4, 1]),
        "each row counts the loop's items (fewer after the compaction before @24) and the ones \
         it sent first"
    );
    let diff = cli.json(&["diff", s(&file), "--json"]);
    assert_eq!(
        diff["to"]["requestOffset"].as_i64(),
        Some(26),
        "a diff names the last request sent by default: {diff}"
    );
}

#[test]
fn given_the_release_journal_when_its_context_sizes_are_measured_then_each_input_item_is_a_message_and_only_the_compaction_breaks_the_prefix(
) {
    let cli = Cli::new();
    let sizes = cli.json(&["sizes", s(&fixture()), "--json"]);
    let rows = sizes.as_array().expect("a list");
    let field =
        |name: &str| -> Vec<serde_json::Value> { rows.iter().map(|r| r[name].clone()).collect() };
    assert_eq!(
        field("messages"),
        [5, 11, 18, 9, 10].map(serde_json::Value::from),
        "a row counts the request's input items"
    );
    assert!(
        rows.iter().all(|r| r["frameBytes"] == 0
            && r["systemBytes"].as_u64().unwrap_or(0) + r["historyBytes"].as_u64().unwrap_or(0)
                == r["totalBytes"].as_u64().unwrap_or(u64::MAX)),
        "an input has no frame: every item is in the developer or the conversation lane: {rows:?}"
    );
    assert_eq!(
        field("prefixBreak"),
        [false, false, false, true, false].map(serde_json::Value::from),
        "each input extends the one before, but across the compaction before @24"
    );
    assert_eq!(
        rows[3]["compactionsBefore"], 1,
        "the break at @24 is the compaction's"
    );
}

#[test]
fn given_an_agent_loop_journal_when_opened_then_the_window_gets_its_size_plot_but_no_transport_switch(
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut quiet = |_| {};
    let mut control = journalscope::import::ImportControl {
        progress: &mut quiet,
        cancel: None,
    };
    let open = |path: &Path, control: &mut journalscope::import::ImportControl<'_>| {
        let db = dir.path().join(format!(
            "{}.sqlite",
            path.file_stem()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ));
        journalscope::journal::Journal::open(path, Some(&db), control)
            .expect("opens")
            .info()
            .expect("its info")
            .controls
    };
    let controls = open(&fixture(), &mut control);
    assert!(
        !controls.transports && controls.sizes,
        "every agent-loop request is one Responses-API body, whatever the transport: {controls:?}"
    );
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate/basic.jsonl");
    let controls = open(&seed, &mut control);
    assert!(
        controls.transports && controls.sizes,
        "a seed-contract journal renders per transport: {controls:?}"
    );
}

#[test]
fn given_a_result_in_time_and_one_after_the_next_request_when_the_runs_are_shown_then_each_says_which(
) {
    let cli = Cli::new();
    let runs = |file: &Path, at: &str| {
        cli.json(&["state", s(file), "--at", at, "--json"])["agentLoop"]["runs"].clone()
    };
    let release = runs(&fixture(), "12");
    assert_eq!(
        (&release[0]["result"], &release[0]["inTime"]),
        (&serde_json::json!(10), &serde_json::json!(true)),
        "the changelog's result @10 came back before the next request: it went as the call's output: {release}"
    );
    let late = runs(&replays::replay("late-result"), "15");
    assert_eq!(
        (&late[0]["result"], &late[0]["inTime"]),
        (&serde_json::json!(14), &serde_json::json!(false)),
        "the slow script's result @14 came back after request @10 opened: it went as a late message: {late}"
    );
}

#[test]
fn given_a_request_when_shown_as_text_then_it_says_what_the_journal_does_not_record() {
    let cli = Cli::new();
    let text = cli.ok(&["request", s(&fixture()), "--at", "4"]);
    assert!(
        text.contains("OpenAI Responses API")
            && text.contains("descriptions are not recorded")
            && text.contains("the loop's default at contract v16"),
        "the text form names the API, what it could not take from the journal, and where the \
         effort came from: {text}"
    );
    assert!(
        text.contains(&String::from_utf8_lossy(&golden(4)).to_string()),
        "and prints the body as sent: {text}"
    );
}

#[test]
fn given_the_release_journal_when_folded_then_the_loops_state_follows_each_rule() {
    let journal = iterate_lines::journal(&lines());
    let state_at = |at: i64| {
        let projection = journal.projection_at(at);
        assert_eq!(
            projection.rules,
            Rules::AgentLoop,
            "@{at}: folded as the loop"
        );
        projection.agent.expect("the loop's fold").state
    };
    let at_16 = state_at(16);
    assert_eq!(
        at_16
            .pending_trigger
            .as_ref()
            .map(|t| (t.offset, t.source, t.gate.clone())),
        Some((16, TriggerSource::External, Some(vec![16]))),
        "words from /agents/support wait at the gate"
    );
    assert_eq!(
        at_16
            .owed_answer
            .as_ref()
            .map(|o| (o.offset, o.why.as_str())),
        Some((16, "the message")),
        "they are owed an answer"
    );
    assert_eq!(
        at_16
            .runs
            .iter()
            .map(|(run, call)| (*run, call.as_str()))
            .collect::<Vec<_>>(),
        vec![(8, "call_a1"), (15, "call_b2")],
        "each run took the call its answer awaited"
    );
    assert_eq!(
        state_at(17).pending_trigger.and_then(|t| t.gate),
        None,
        "the wake at @17 drops the gate"
    );
    assert_eq!(
        state_at(22).owed_answer,
        None,
        "the plain answer at @22 pays it"
    );
    let at_23 = state_at(23);
    assert_eq!(
        at_23.items.iter().map(|i| i.offset).collect::<Vec<_>>(),
        vec![5, 23, 16, 18, 20, 21],
        "the compaction keeps the head (at the first sections item), its summary and what came after @14"
    );
    assert_eq!(
        at_23.runs.keys().copied().collect::<Vec<_>>(),
        vec![15],
        "runs through @14 are dropped"
    );
    let at_25 = state_at(25);
    assert_eq!(
        (
            at_25.consecutive_llm_failures,
            at_25.pending_trigger.map(|t| t.offset)
        ),
        (1, Some(24)),
        "the failure counts and the trigger returns on the failed request"
    );
    let at_29 = state_at(29);
    assert!(
        at_29.paused && at_29.pending_trigger.is_none(),
        "the pause drops the nightly trigger"
    );
    assert_eq!(
        at_29.owed_answer.map(|o| o.why),
        Some("the scheduled job \"nightly\"".to_string()),
        "the scheduled job is owed an answer"
    );
    let end = state_at(31);
    assert!(!end.paused, "resumed");
    assert_eq!(end.autonomous_turn_count, 0, "resuming zeroes the counters");
    assert_eq!(end.creation, Some(1), "born at @1");
}

/// A long agent-loop journal: `cycles` turns of words, a request, an answer with a `run` call,
/// its run and its result, a sections update every fifth turn and a compaction every fortieth.
fn long_journal(cycles: i64) -> Vec<String> {
    use serde_json::json;
    let path = "/agents/long";
    let agent = json!({"origin": path, "processor": {"slug": "agent", "version": "16"}});
    let mut lines = Vec::new();
    let mut offset = 0;
    let mut line = |offset: i64,
                    name: &str,
                    payload: serde_json::Value,
                    source: &serde_json::Value| {
        lines.push(
            json!({"offset": offset, "type": format!("events.iterate.com/{name}"),
                   "createdAt": format!("2026-11-20T09:{:02}:{:02}.000Z", (offset / 60) % 60, offset % 60),
                   "path": path, "source": source, "payload": payload})
            .to_string(),
        );
    };
    let mut cutoff = 0;
    for cycle in 0..cycles {
        let said = offset + 1;
        line(
            said,
            "agent/context-added",
            json!({"role": "user", "content": format!("turn {cycle}")}),
            &json!({"origin": path}),
        );
        let request = said + 1;
        line(
            request,
            "agent/llm-request-requested",
            json!({"model": "gpt-5.1", "expiresAt": "later", "triggerOffset": said}),
            &agent,
        );
        let mut next = request + 1;
        if cycle == 0 || cycle % 5 == 0 {
            line(
                next,
                "agent/context-added",
                json!({"role": "system", "content": if cycle == 0 { String::new() } else { format!("rules now {cycle}") },
                "snapshot": cycle == 0, "llmRequestOffset": request, "sections": {"identity": "Long", "rules": format!("rules {cycle}")}}),
                &agent,
            );
            next += 1;
        }
        let call = format!("call_{cycle}");
        line(
            next,
            "agent/context-added",
            json!({"role": "assistant", "content": format!("On it.\n<codemode>\nstep({cycle})\n</codemode>"),
            "llmRequestOffset": request, "call": {"callId": call, "status": "", "script": format!("step({cycle})")}, "providerModel": "gpt-5.1",
            "providerItems": [{"type": "message", "id": format!("m{cycle}"), "content": [{"type": "output_text", "text": "On it."}]},
                              {"type": "function_call", "id": format!("f{cycle}"), "call_id": call, "name": "run", "arguments": "{}"}],
            "llmRequestPolicy": {"behaviour": "dont-trigger-request"}}),
            &agent,
        );
        line(
            next + 1,
            "agent/llm-request-settled",
            json!({"requestOffset": request, "result": {"status": "succeeded", "text": "On it."}}),
            &agent,
        );
        line(
            next + 2,
            "itx/run-requested",
            json!({"code": format!("step({cycle})")}),
            &agent,
        );
        line(
            next + 3,
            "itx/run-settled",
            json!({"requestOffset": next + 2, "settlement": {"status": "succeeded"}}),
            &agent,
        );
        line(
            next + 4,
            "agent/context-added",
            json!({"role": "developer", "content": format!("result {cycle}"),
            "actor": {"type": "script", "requestOffset": next + 2}, "llmRequestPolicy": {"behaviour": "dont-trigger-request"}}),
            &agent,
        );
        offset = next + 4;
        if cycle % 40 == 39 {
            let through = offset - 20;
            if through > cutoff {
                cutoff = through;
                offset += 1;
                line(
                    offset,
                    "agent/context-added",
                    json!({"role": "developer", "content": format!("summary through {through}"),
                    "compaction": {"replacesHistoryThrough": through, "keepsEarlierSummaries": cycle % 80 == 79}}),
                    &agent,
                );
            }
        }
    }
    lines
}

#[test]
fn given_a_long_agent_loop_journal_when_requests_are_read_from_checkpoints_then_each_body_is_the_plain_folds(
) {
    use journalscope_iterate::iterate::IterateJournal;
    let lines = long_journal(200);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), &lines);
    let records = store.event_count(id).expect("count");
    assert!(
        store
            .checkpoint_before(id, records)
            .expect("read")
            .is_some(),
        "a journal of {records} records has checkpoints to read from"
    );
    let plain = IterateJournal::from_stored(&store.events(id).expect("events"));
    let mut compared = 0;
    for row in store.request_rows(id).expect("rows") {
        let summary: serde_json::Value = serde_json::from_str(&row.1).expect("a row");
        let request = summary["offset"].as_i64().expect("an offset");
        let stored = journalscope_iterate::iterate::checkpoint::request_at(
            &store,
            id,
            request,
            Transport::Openai,
        )
        .expect("the store reads")
        .unwrap_or_else(|e| panic!("request @{request} was sent: {e}"));
        let folded = plain.request(request, Transport::Openai).expect("sent");
        assert_eq!(
            String::from_utf8_lossy(&stored.body()),
            String::from_utf8_lossy(&folded.body()),
            "request @{request}: from the checkpoint before it as from the first record"
        );
        compared += 1;
    }
    assert_eq!(compared, 200, "every turn's request was compared");
    let found = plain.analyse().diagnostics;
    assert!(
        found.iter().all(|(_, d)| d.code == "agent-loop-contract"),
        "the generated loop breaks no rule and every input extends the one before: {:?}",
        found.iter().map(|(_, d)| &d.message).collect::<Vec<_>>()
    );
}

#[test]
fn given_a_long_agent_loop_journal_when_checkpointed_then_its_checkpoints_name_items_by_record_without_their_text(
) {
    let lines = long_journal(200);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), &lines);
    let mut before = store.event_count(id).expect("count");
    let mut read = 0;
    while let Some((seq, bytes)) = store.checkpoint_before(id, before).expect("read") {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("\"added\""),
            "the checkpoint after record {seq} names the loop's items by their records"
        );
        assert!(
            !text.contains("step("),
            "the checkpoint after record {seq} holds no answer's or script's text, which its record keeps"
        );
        read += 1;
        let Some(earlier) = seq.checked_sub(1) else {
            break;
        };
        before = earlier;
    }
    assert!(read > 1, "a long journal has several checkpoints: {read}");
}

#[test]
fn given_an_imported_agent_loop_journal_when_viewed_from_the_store_then_each_items_count_is_the_one_the_import_stored(
) {
    use journalscope::tokens::Encoding;
    let lines = long_journal(120);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = importing::import_lines(dir.path(), &lines);
    let mut checked = 0;
    for at in [5, 200, 511, 700, 900] {
        let view =
            journalscope_iterate::iterate::checkpoint::view_at(&store, id, at).expect("a view");
        for item in view.history.iter().filter(|item| !item.content.is_empty()) {
            assert_eq!(
                item.tokens,
                Encoding::O200kBase.count(&item.content),
                "the item @{} in the view at @{at} counts its text in o200k_base",
                item.offset
            );
            let seq = store
                .records_through_offset(id, item.offset - 1)
                .expect("a position");
            let stored = store.record_tokens_at(id, seq).expect("read");
            assert!(
                stored.contains(&(3, item.tokens)),
                "the import stored the count of the item @{} (record {seq}), so that a view needs no encoding: {stored:?}",
                item.offset
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "the views held items with text: {checked}");
}

#[test]
fn given_the_release_journal_when_projected_then_the_list_and_the_runs_are_shown() {
    let cli = Cli::new();
    let view = cli.json(&["project", s(&fixture()), "--at", "20", "--json"]);
    let offsets: Vec<i64> = view["history"]
        .as_array()
        .expect("the list")
        .iter()
        .filter_map(|item| item["offset"].as_i64())
        .collect();
    assert_eq!(
        offsets,
        vec![3, 4, 5, 6, 10, 11, 12, 13, 16, 18, 20],
        "the loop's items in its order: words, stamps, sections, answers, results"
    );
    assert_eq!(
        view["agentLoop"]["runs"],
        serde_json::json!([
            {"run": 8, "callId": "call_a1", "settled": true, "result": 10, "inTime": true},
            {"run": 15, "callId": "call_b2", "settled": true, "result": 20, "inTime": false},
        ]),
        "each run with its call, settlement and result, and whether the result came back \
         before the next request (@20 after @18 opened): {view}"
    );
    assert_eq!(
        view["agentLoop"]["openRequest"],
        serde_json::json!(18),
        "the request @18 is open"
    );
    assert_eq!(
        view["agentLoop"]["owedAnswer"],
        serde_json::json!(16),
        "the words from /agents/support are owed an answer"
    );
    let text = cli.ok(&["project", s(&fixture()), "--at", "20"]);
    assert!(
        text.contains("LIST")
            && text.contains("RUNS")
            && text.contains("@15 call_b2 · settled · result @20"),
        "the text form lists the items and the runs: {text}"
    );
}

// ── iterate's own render scenarios ──
// Each journal under `agent-loop/replays/` replays one scenario of the loop's own render tests
// as the loop's test harness commits it: offsets from 1 in input order, `createdAt` that many
// seconds past the epoch, every event on `/agents/a`. Their goldens are the bodies the loop's
// renderer gives for them; the tests below also hold the properties those scenarios assert.

/// Each replayed journal and the requests it opens.
const REPLAYS: [(&str, &[i64]); 9] = [
    ("chain", &[4, 11, 18]),
    ("other-model", &[4, 11, 18]),
    ("codemode", &[5, 11]),
    ("operator", &[5]),
    ("late-result", &[4, 10, 15]),
    ("compaction", &[4, 11, 18, 23]),
    ("summaries-kept", &[4, 11, 18, 27]),
    ("summaries-merged", &[4, 11, 18, 27]),
    ("lifecycle", &[8, 19]),
];
