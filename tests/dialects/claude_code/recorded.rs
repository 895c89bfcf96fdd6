//! Recorded Claude Code sessions and Codex rollouts held against what their provider received.

use super::*;

#[test]
fn a_recorded_session_s_every_request_exports_as_its_provider_received_it() {
    // Given sessions Claude Code 2.1.332 wrote against a scripted provider, with each body the
    // provider received (a tool call and a file write; thinking, parallel calls, non-ASCII text
    // and a resumed session; a subagent with its own transcript)
    let cache = tempfile::tempdir().expect("cache");
    let scenarios = root().join("tests/fixtures/claude-code/recorded-2.1.332");
    let mut compared = 0;
    for scenario in ["c", "e", "g"] {
        let folder = scenarios.join(scenario);
        let mut files = Vec::new();
        files_with(&folder, "jsonl", &mut files);
        for file in files {
            let path = file.to_string_lossy().to_string();
            let db = cache.path().join(format!("{compared}.db"));
            let db = db.to_string_lossy().to_string();
            text(cache.path(), &["import", &path, "--db", &db]);
            let lines: Vec<Value> = std::fs::read_to_string(&file)
                .expect("read")
                .lines()
                .map(|l| serde_json::from_str(l).expect("JSON"))
                .collect();
            for (index, line) in lines.iter().enumerate() {
                if line["type"] != "api-request" {
                    continue;
                }
                // When each recorded request is exported exactly
                let at = (index + 1).to_string();
                let number: u64 = lines
                    .iter()
                    .find(|l| l["requestRef"] == line["id"])
                    .and_then(|l| l["requestId"].as_str())
                    .and_then(|id| id.strip_prefix("req_"))
                    .and_then(|n| n.parse().ok())
                    .expect("the response names the provider's request");
                let sent = std::fs::read(folder.join(format!("received/req-{number:04}.json")))
                    .expect("the body the provider received");
                let view = run(cache.path(), &["request", &db, "--at", &at, "--json"])
                    .expect("request --json");
                let out = cache.path().join("body.json");
                text(
                    cache.path(),
                    &[
                        "request",
                        &db,
                        "--at",
                        &at,
                        "--format",
                        "body",
                        "--exact",
                        "-o",
                        &out.to_string_lossy(),
                    ],
                );
                // Then it is what the provider received, byte for byte, less what the line
                // does not record, which the view names; and the client's digest agrees
                assert_eq!(
                    view["notRecorded"],
                    serde_json::json!(["metadata", "stream"]),
                    "{path}:{at}: the view names the fields no line records"
                );
                assert_eq!(
                    view["recorded"]["digestVerified"], true,
                    "{path}:{at}: the rebuilt body gives the client's digest"
                );
                let mut body: Value = serde_json::from_slice(&sent).expect("JSON");
                assert_eq!(
                    serde_json::to_vec(&body).expect("JSON"),
                    sent,
                    "the received body reads back to its own bytes"
                );
                let object = body.as_object_mut().expect("an object");
                object.shift_remove("metadata");
                object.shift_remove("stream");
                assert_eq!(
                    String::from_utf8(std::fs::read(&out).expect("the export")).expect("UTF-8"),
                    serde_json::to_string(&body).expect("JSON"),
                    "{path}:{at}: the export is the body as sent"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 11, "every recorded request of the three sessions");
}

#[test]
fn a_recorded_request_sent_with_other_tools_names_them_as_its_cache_break() {
    // Given a recorded session whose second request went with another system prompt and tool
    // set than the first (a second shape line), and whose response read nothing of the 5,000
    // tokens the first wrote to the cache
    let cache = tempfile::tempdir().expect("cache");
    let source = root().join(
        "tests/fixtures/claude-code/recorded-2.1.332/c/7227f51a-bb31-46d7-a624-7b115b27a446.jsonl",
    );
    let mut lines: Vec<Value> = std::fs::read_to_string(&source)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let requests: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i]["type"] == "api-request")
        .collect();
    let (first, second) = (requests[0], requests[1]);
    for line in lines.iter_mut() {
        let answers = line["requestRef"].clone();
        let usage = &mut line["message"]["usage"];
        if answers == lines_id(&source, first) {
            usage["cache_creation_input_tokens"] = serde_json::json!(5000);
        } else if answers == lines_id(&source, second) {
            usage["cache_creation_input_tokens"] = serde_json::json!(5000);
            usage["cache_read_input_tokens"] = serde_json::json!(0);
        }
    }
    let mut shape = lines
        .iter()
        .find(|l| l["type"] == "api-request-shape")
        .cloned()
        .expect("a shape");
    shape["shapeHash"] = serde_json::json!("f".repeat(64));
    shape["shape"]["tools"] = serde_json::json!([]);
    lines[second]["shapeHash"] = shape["shapeHash"].clone();
    lines.insert(second, shape);
    let file = cache.path().join("reshaped.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).expect("write");
    // When its cache report is read
    let report =
        run(cache.path(), &["cache", &file.to_string_lossy(), "--json"]).expect("cache --json");
    // Then the second request's miss is put down to the changed system prompt and tools
    let entry = report["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|r| r["requestOffset"] == serde_json::json!(second + 2))
        .unwrap_or_else(|| panic!("the second request in {report}"));
    assert_eq!(entry["broke"], true, "the cache broke: {entry}");
    let causes: Vec<&str> = entry["causes"]
        .as_array()
        .expect("causes")
        .iter()
        .filter_map(|c| c["kind"].as_str())
        .collect();
    assert_eq!(
        causes,
        ["system-or-tools"],
        "the changed shape, and no rewind (the request extends the first): {entry}"
    );
}

/// The id of the `api-request` at index `at` of the transcript in `path`.
fn lines_id(path: &Path, at: usize) -> Value {
    let text = std::fs::read_to_string(path).expect("read");
    let line: Value = serde_json::from_str(text.lines().nth(at).expect("the line")).expect("JSON");
    line["id"].clone()
}

#[test]
fn regression_a_rolled_back_turn_is_not_in_a_later_request() {
    // Given a rollout whose second turn was interrupted and then rolled back
    // (`thread_rolled_back`, as Codex 0.12x to 0.14x write it), and a third turn after
    let cache = tempfile::tempdir().expect("cache");
    let user = |text: &str| {
        serde_json::json!({"timestamp": "2026-03-02T10:00:00Z", "type": "response_item", "payload":
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}})
    };
    let assistant = |text: &str| {
        serde_json::json!({"timestamp": "2026-03-02T10:00:01Z", "type": "response_item", "payload":
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}})
    };
    let lines = [
        serde_json::json!({"timestamp": "2026-03-02T10:00:00Z", "type": "session_meta", "payload":
            {"id": "019c0000-0000-7000-8000-000000000001", "cwd": "/work/demo", "cli_version": "0.128.0"}}),
        serde_json::json!({"timestamp": "2026-03-02T10:00:00Z", "type": "turn_context", "payload": {"model": "gpt-5.2"}}),
        user("first question"),
        assistant("first answer"),
        user("second question"),
        user("<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"),
        serde_json::json!({"timestamp": "2026-03-02T10:00:02Z", "type": "event_msg", "payload":
            {"type": "thread_rolled_back", "num_turns": 1}}),
        user("third question"),
        assistant("third answer"),
    ];
    let file = cache
        .path()
        .join("rollout-2026-03-02T10-00-00-rolled.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).expect("write");
    // When the request that answered the third question is read
    let view = run(
        cache.path(),
        &["request", &file.to_string_lossy(), "--at", "9", "--json"],
    )
    .expect("request --json");
    // Then its input holds the first turn and the third, not the rolled-back second
    let texts: Vec<&str> = view["input"]
        .as_array()
        .expect("input")
        .iter()
        .filter_map(|item| item["content"][0]["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        ["first question", "first answer", "third question"],
        "the rolled-back turn and its interruption left the model's input"
    );
}

#[test]
fn a_codex_rollout_s_every_request_input_is_what_its_provider_received() {
    // Given a Codex 0.171.0 session against a scripted provider, compacting itself after every
    // few responses (`model_auto_compact_token_limit`), with each body the provider received
    let cache = tempfile::tempdir().expect("cache");
    let folder = root().join("tests/fixtures/claude-code/recorded-codex-0.171/compaction");
    let rollout = std::fs::read_dir(&folder)
        .expect("the folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("the rollout");
    let path = rollout.to_string_lossy().to_string();
    let rows = run(cache.path(), &["requests", &path, "--json"]).expect("requests --json");
    let offsets: Vec<i64> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["offset"].as_i64())
        .collect();
    assert_eq!(
        offsets.len(),
        15,
        "a request for each the provider received"
    );
    let windows = run(
        cache.path(),
        &[
            "sql",
            &path,
            "select note from marks where kind = 'compaction' order by seq",
            "--json",
        ],
    )
    .expect("sql --json");
    assert!(
        windows.to_string().contains(
            "context window 2 (01a24b68-1461-7c80-9a44-1919ac432175), after \
             01a24b67-a97d-77e3-9bc0-76f6cd6b5403"
        ),
        "each compaction names the context window it opens and the one it follows: {windows}"
    );
    let mut compactions = 0;
    for (n, at) in offsets.iter().enumerate() {
        let sent: Value = serde_json::from_slice(
            &std::fs::read(folder.join(format!("received/{:04}.json", n + 1))).expect("a body"),
        )
        .expect("JSON");
        let input = sent["input"].as_array().expect("input");
        // When each request is read
        let view = run(
            cache.path(),
            &["request", &path, "--at", &at.to_string(), "--json"],
        )
        .expect("request --json");
        // Then its input is the provider's after the base instructions, less a compaction's
        // own prompt, and what the rollout does not hold is named
        let last = input.last().expect("an item");
        let compacts = last["role"] == "user"
            && last.get("id").is_none()
            && last.to_string().contains("CONTEXT CHECKPOINT COMPACTION");
        let recorded = if compacts {
            compactions += 1;
            &input[1..input.len() - 1]
        } else {
            &input[1..]
        };
        assert_eq!(
            view["input"].as_array().expect("items").as_slice(),
            recorded,
            "@{at}: the input items as sent"
        );
        let missing = view["notRecorded"].to_string();
        assert!(
            missing.contains("base-instructions") && missing.contains("\"tools\""),
            "@{at}: the instructions item and the tools are named: {missing}"
        );
        assert_eq!(
            missing.contains("compaction prompt"),
            compacts,
            "@{at}: a compaction's request names its prompt as not recorded, no other does"
        );
    }
    assert_eq!(compactions, 5, "the session compacted five times");
}

#[test]
fn claude_code_s_own_account_is_held_against_what_the_responses_report() {
    let cache = tempfile::tempdir().expect("cache");
    let recorded = root().join("tests/fixtures/claude-code/recorded-2.1.332");
    let codes = |file: &str| -> Vec<(Value, String)> {
        let path = recorded.join(file).to_string_lossy().to_string();
        run(cache.path(), &["diagnostics", &path, "--json"])
            .expect("diagnostics --json")
            .as_array()
            .expect("a list")
            .iter()
            .filter(|d| d["code"] == "cost-state-differs")
            .map(|d| {
                (
                    d["offset"].clone(),
                    d["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    // Given a session whose every request is in its transcript, Claude Code's own count agrees
    assert!(
        codes("c/7227f51a-bb31-46d7-a624-7b115b27a446.jsonl").is_empty(),
        "the account agrees with the responses"
    );
    // Given a session whose subagent's requests are in the subagent's own transcript, the
    // account counts them and the session's responses do not
    let differs = codes("e/3bb2d32a-1e9d-49b7-8b72-3844f363d4d2.jsonl");
    assert_eq!(
        differs.len(),
        1,
        "one account line, and it differs: {differs:?}"
    );
    assert!(
        differs[0]
            .1
            .contains("input_tokens: 500 by Claude Code, 300 by the responses here"),
        "the difference is given per model and field: {}",
        differs[0].1
    );
}

#[test]
fn regression_the_segment_a_compaction_keeps_follows_its_summary_in_the_next_request() {
    // given a real compacted session (2.1.207, tugtool's fixture) whose compaction kept its
    // last response, and a prompt and answer after it
    let cache = tempfile::tempdir().expect("cache dir");
    let source = root().join(
        "tests/fixtures/claude-code/corpus/tugtool/compact-native/0967f3f0-013d-4849-b967-4b66dc702146.jsonl",
    );
    let text = std::fs::read_to_string(&source).expect("the corpus copy reads");
    let lines: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let last = lines
        .iter()
        .rev()
        .find_map(|l| l["uuid"].as_str())
        .expect("a node")
        .to_string();
    let session = lines[0]["sessionId"].clone();
    let prompt = serde_json::json!({"type": "user", "uuid": "after-prompt", "parentUuid": last,
        "sessionId": session, "timestamp": "2026-06-01T10:00:00.000Z", "version": "2.1.207",
        "message": {"role": "user", "content": "and the number 10?"}});
    let answer = serde_json::json!({"type": "assistant", "uuid": "after-answer",
        "parentUuid": "after-prompt", "sessionId": session, "requestId": "req_after",
        "timestamp": "2026-06-01T10:00:01.000Z", "version": "2.1.207",
        "message": {"id": "msg_after", "role": "assistant", "model": "claude-opus-4-7",
            "content": [{"type": "text", "text": "Ten."}],
            "usage": {"input_tokens": 1, "output_tokens": 1}}});
    let mut out = text.trim_end().to_string();
    for line in [prompt, answer] {
        out.push('\n');
        out.push_str(&line.to_string());
    }
    out.push('\n');
    let file = cache.path().join("compacted.jsonl");
    std::fs::write(&file, out).expect("write");
    let file = file.to_string_lossy().to_string();
    let at = (lines.len() + 2).to_string();
    // when the request after the compaction is shown
    let request = run(cache.path(), &["request", &file, "--at", &at, "--json"]).expect("renders");
    // then the kept response follows the summary, before the compaction's command lines
    let sent = request["sent"]
        .as_array()
        .expect("the sent messages are rendered");
    let summary = sent[0]["content"].to_string();
    assert!(
        summary.contains("This session is being continued"),
        "the first turn holds the summary: {summary}"
    );
    let kept = sent[1]["content"].to_string();
    assert!(
        sent[1]["role"] == "assistant" && kept.contains("The number 9"),
        "the response the compaction kept comes right after the summary: {}",
        sent[1]
    );
    let diagnostics = run(cache.path(), &["diagnostics", &file, "--json"]).expect("diagnostics");
    assert!(
        !diagnostics
            .to_string()
            .contains("preserved-segment-missing"),
        "the kept segment is found: {diagnostics}"
    );
}

#[test]
fn the_provider_s_own_cache_miss_reason_is_shown_with_the_request_and_in_the_cache_report() {
    // given a real 2.1.170 session whose responses carry the API's cache_miss_reason
    let cache = tempfile::tempdir().expect("cache dir");
    let file = root()
        .join("tests/fixtures/claude-code/corpus/tugtool/sessions/session-transcript-basic.jsonl")
        .to_string_lossy()
        .to_string();
    // when its cache report and the request at line 10 are shown
    let report = run(cache.path(), &["cache", &file, "--json"]).expect("cache report");
    let request = run(cache.path(), &["request", &file, "--at", "10", "--json"]).expect("request");
    // then both name the provider's reason
    let entry = report["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["requestOffset"] == 10)
        .expect("the request at line 10 is in the report");
    assert_eq!(
        entry["reportedReason"], "previous_message_not_found",
        "the report carries the reason the provider gave beside its own reading"
    );
    assert_eq!(
        request["cacheMissReason"], "previous_message_not_found",
        "the request view shows the provider's reason for the miss"
    );
}

#[test]
fn subagents_link_both_ways_for_codex_threads_and_claude_code_agent_files() {
    let cache = tempfile::tempdir().expect("cache dir");
    let fixtures = root().join("tests/fixtures/claude-code");
    let sessions = fixtures.join("recorded-codex-0.171/subagent/sessions/2026/12/06");
    let rollout = |id: &str| -> String {
        std::fs::read_dir(&sessions)
            .expect("the recorded rollouts")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(&format!("-{id}.jsonl")))
            .expect("the rollout of the thread")
            .to_string_lossy()
            .to_string()
    };
    // given a Codex 0.171 thread that spawned a subagent, then a forked one, in two turns
    let parent = rollout("01a24b69-5545-7392-8442-d4cb8e790bac");
    // when its subagents are listed
    let listed = run(cache.path(), &["subagents", &parent, "--json"]).expect("subagents --json");
    let listed = listed.as_array().expect("a list");
    // then each is found from its spawn_agent call, with the child's rollout
    let found: Vec<(Value, Value, String)> = listed
        .iter()
        .map(|s| {
            (
                s["callOffset"].clone(),
                s["resultOffset"].clone(),
                s["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "two spawned threads: {listed:?}");
    assert_eq!(
        (&found[0].0, &found[0].1),
        (&serde_json::json!(10), &serde_json::json!(13)),
        "the first spawn's call and the output naming its thread: {listed:?}"
    );
    assert!(
        found[0]
            .2
            .ends_with("-01a24b69-55cd-7272-be59-814e598d0f5b.jsonl")
            && found[1]
                .2
                .ends_with("-01a24b69-7225-7de2-a25b-9e204a994fb1.jsonl"),
        "each child's rollout is found where Codex keeps them: {listed:?}"
    );
    // and the child names the thread that spawned it
    let child = rollout("01a24b69-55cd-7272-be59-814e598d0f5b");
    let shown = text(cache.path(), &["subagents", &child]);
    assert!(
        shown.contains("spawned by 01a24b69-5545-7392-8442-d4cb8e790bac")
            && shown.contains(&parent),
        "the child's view names its parent thread and its rollout: {shown}"
    );
    // given a Claude Code 2.1.x agent file under its session
    let agent = fixtures
        .join("subagents-2.1/b3000000-0000-4000-8000-000000000000/subagents/agent-a1b2c3d.jsonl");
    let shown = text(cache.path(), &["subagents", &agent.to_string_lossy()]);
    assert!(
        shown.contains("spawned by b3000000-0000-4000-8000-000000000000")
            && shown.contains("subagents-2.1/b3000000-0000-4000-8000-000000000000.jsonl"),
        "the agent file names the session that ran it: {shown}"
    );
}
