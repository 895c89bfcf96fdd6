//! iterate's agent loop (contract "agent" v16) through the binary and the library: a hand-written
//! journal with triggers, a script run whose result is placed and one whose result comes back
//! late, a retried request, a compaction, sections updates, input from another context, owed
//! answers and a pause. Each request's body is checked byte for byte against its golden.

mod cli;
mod common;
mod import_common;

use std::path::{Path, PathBuf};

use cli::Cli;
use journalscope::iterate::agent_loop::fold::TriggerSource;
use journalscope::iterate::projection::Rules;
use journalscope::iterate::Transport;

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
    let journal = common::journal(&lines());
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
    let late = runs(&replay("late-result"), "15");
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
    let journal = common::journal(&lines());
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
    use journalscope::iterate::IterateJournal;
    let lines = long_journal(200);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = import_common::import_lines(dir.path(), &lines);
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
        let stored =
            journalscope::iterate::checkpoint::request_at(&store, id, request, Transport::Openai)
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
    let (store, id) = import_common::import_lines(dir.path(), &lines);
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
    let (store, id) = import_common::import_lines(dir.path(), &lines);
    let mut checked = 0;
    for at in [5, 200, 511, 700, 900] {
        let view = journalscope::iterate::checkpoint::view_at(&store, id, at).expect("a view");
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

fn replay(name: &str) -> PathBuf {
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
        let journal = common::journal(&lines);
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
        let (whole, whole_id) = import_common::import_lines(dir.path(), &lines);
        let grows = dir.path().join("grows.jsonl");
        let grown =
            journalscope::store::Store::open(&dir.path().join("grows.sqlite")).expect("store");
        let mut grown_id = 0;
        for end in 1..=lines.len() {
            std::fs::write(&grows, lines[..end].join("\n") + "\n").expect("write");
            grown_id = import_common::import_quietly(&grown, &grows);
        }
        // Then both stores derive the same marks, diagnostics, tip and request rows
        assert_eq!(
            import_common::derived(&grown, grown_id),
            import_common::derived(&whole, whole_id),
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
    let snapshot = common::journal(&lines)
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
    let journal = common::journal(&lines);
    let state_at = |at: i64| {
        journal
            .projection_at(at)
            .agent
            .expect("the loop's fold")
            .state
    };
    // Then each type does what the loop's reduce does with it, and none is unknown
    assert_eq!(
        common::diagnostics(&lines)
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
    use journalscope::iterate::diff::request_diff_stored;
    use journalscope::iterate::IterateJournal;
    let lines = long_journal(60);
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, id) = import_common::import_lines(dir.path(), &lines);
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
                        Some(journalscope::iterate::diff::BreakCause::Compaction { .. })
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
