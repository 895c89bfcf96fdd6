//! The Claude Code and Codex dialects against hand-made transcripts and rollouts, each with its requests, rendered
//! requests, projections and diagnostics worked out from `claude-code-sessions.md` (see
//! `tests/fixtures/claude-code/README.md`), and against the real transcripts of the shared
//! corpus (copied into `tests/fixtures/claude-code/corpus/` with their licences).

use std::path::{Path, PathBuf};
use std::process::Command;

use journalscope::dialect::Ask;
use serde_json::Value;

mod recorded;

const BIN: &str = env!("CARGO_BIN_EXE_journalscope");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the command line with a cache of its own.
fn output(cache: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .output()
        .expect("run journalscope")
}

/// The text a command that must succeed prints.
fn text(cache: &Path, args: &[&str]) -> String {
    let out = output(cache, args);
    assert!(
        out.status.success(),
        "journalscope {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs the command line with a cache of its own; its JSON answer, or why it failed.
fn run(cache: &Path, args: &[&str]) -> Result<Value, String> {
    let out = output(cache, args);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("not JSON: {e}"))
}

/// Every file under `dir` whose extension is `extension`, recursively.
fn files_with(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read the folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files_with(&path, extension, found);
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
}

#[test]
fn every_fixture_shows_the_requests_projections_and_diagnostics_the_spec_gives() {
    let fixtures = root().join("tests/fixtures/claude-code");
    let cache = tempfile::tempdir().expect("cache dir");
    let mut expected = Vec::new();
    files_with(&fixtures.join("expected"), "json", &mut expected);
    expected.sort();
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for file in expected {
        let relative = file
            .strip_prefix(fixtures.join("expected"))
            .expect("under expected")
            .to_string_lossy()
            .into_owned();
        // `<fixture path>.<view>.json`
        let stem = relative.trim_end_matches(".json");
        let Some((fixture, view)) = stem.rsplit_once('.') else {
            continue;
        };
        let journal = fixtures.join(format!("{fixture}.jsonl"));
        let journal = journal.to_string_lossy().into_owned();
        let args: Vec<String> = if view == "requests" {
            vec!["requests".into(), journal, "--json".into()]
        } else if view == "diagnostics" {
            vec!["diagnostics".into(), journal, "--json".into()]
        } else if view == "cache" {
            vec!["cache".into(), journal, "--json".into()]
        } else if let Some(at) = view.strip_prefix("request-") {
            vec![
                "request".into(),
                journal,
                "--at".into(),
                at.into(),
                "--json".into(),
            ]
        } else if let Some(at) = view.strip_prefix("project-") {
            vec![
                "project".into(),
                journal,
                "--at".into(),
                at.into(),
                "--json".into(),
            ]
        } else {
            continue;
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let want: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read expected"))
                .expect("expected JSON");
        let got = match run(cache.path(), &args) {
            Ok(got) if view == "diagnostics" => {
                // The expected list names each diagnostic by its line and code.
                let mut pairs: Vec<Value> = got
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| serde_json::json!([d["line"], d["code"]]))
                    .collect();
                pairs.sort_by_key(Value::to_string);
                let mut want_pairs = want.as_array().cloned().unwrap_or_default();
                want_pairs.sort_by_key(Value::to_string);
                (Value::Array(pairs), Value::Array(want_pairs))
            }
            Ok(got) => (got, want),
            Err(error) => {
                mismatches.push(format!("{relative}: {error}"));
                continue;
            }
        };
        if got.0 != got.1 {
            mismatches.push(format!("{relative}:\n  want {}\n  got  {}", got.1, got.0));
        }
        checked += 1;
    }
    assert!(
        checked >= 100,
        "the fixtures have views to check ({checked})"
    );
    assert!(
        mismatches.is_empty(),
        "views that differ from what the spec gives:\n{}",
        mismatches.join("\n")
    );
}

/// Every transcript of the corpus, with its path.
fn corpus() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root().join("tests/fixtures/claude-code/corpus")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_corpus_transcripts_open_without_an_error_and_report_every_request_s_usage() {
    let cache = tempfile::tempdir().expect("cache dir");
    let transcripts = corpus();
    assert!(
        transcripts.len() >= 8,
        "the corpus holds its transcripts ({})",
        transcripts.len()
    );
    for path in transcripts {
        let file = path.to_string_lossy().into_owned();
        let imported = run(cache.path(), &["import", &file, "--json"]).expect("imports");
        assert_eq!(
            imported["dialect"], "claude-code",
            "{file}: read as a Claude Code transcript"
        );
        let diagnostics = run(cache.path(), &["diagnostics", &file, "--json"]).expect("lists");
        let errors: Vec<&Value> = diagnostics
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["severity"] == "error")
            .collect();
        assert!(
            errors.is_empty(),
            "{file}: no error-level diagnostic: {errors:?}"
        );
        let requests = run(cache.path(), &["requests", &file, "--json"]).expect("lists");
        let requests = requests.as_array().cloned().unwrap_or_default();
        assert!(!requests.is_empty(), "{file}: the transcript has requests");
        for request in &requests {
            assert!(
                request["usage"]["input_tokens"].is_number()
                    && request["usage"]["output_tokens"].is_number(),
                "{file}: request @{} shows the usage it reported",
                request["offset"]
            );
        }
        // Every request renders as one alternating list of messages with each call answered.
        for request in requests.iter().take(60) {
            let at = request["offset"].to_string();
            let rendered =
                run(cache.path(), &["request", &file, "--at", &at, "--json"]).expect("renders");
            let roles: Vec<&Value> = rendered["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| &m["role"])
                .collect();
            assert!(
                roles.windows(2).all(|w| w[0] != w[1]),
                "{file}: request @{at} alternates user and assistant messages"
            );
            assert!(
                rendered.get("diagnostics").is_none(),
                "{file}: request @{at} leaves no call unanswered and no result orphaned: {}",
                rendered["diagnostics"]
            );
        }
    }
}

#[test]
fn cache_text_names_each_break_and_its_cause_and_the_corpus_compaction_explains_its_miss() {
    let cache = tempfile::tempdir().expect("cache dir");
    let fixture = root().join("tests/fixtures/claude-code/compaction.jsonl");
    let text = text(cache.path(), &["cache", &fixture.to_string_lossy()]);
    assert!(
        text.contains(
            "@10: 14330 of 14330 expected tokens missed: the compaction at @7 replaced the history"
        ),
        "the break after the compaction is named with its cause: {text}"
    );
    assert!(
        text.contains("1 break(s), 0 unexplained"),
        "the totals count it as explained: {text}"
    );

    // A real session: its one compaction costs the request after it the whole history, and
    // the journal explains every break it has.
    let session = root().join(
        "tests/fixtures/claude-code/corpus/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    );
    let report = run(
        cache.path(),
        &["cache", &session.to_string_lossy(), "--json"],
    )
    .expect("cache --json on the corpus session");
    assert_eq!(
        report["unexplainedBreaks"], 0,
        "every break has a recorded cause"
    );
    let after = report["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|r| r["requestOffset"] == 1492)
        .expect("the first request after the compaction at @1481");
    assert!(
        after["causes"]
            .as_array()
            .expect("causes")
            .contains(&serde_json::json!({"kind": "compaction", "offset": 1481})),
        "the compaction at @1481 is among its causes: {after}"
    );
    assert!(
        after["missedTokens"].as_u64().expect("missed") > 100_000,
        "the history it lost was over 100,000 tokens: {after}"
    );
}

#[test]
fn a_transcript_s_report_lists_its_requests_with_their_prompt_cache_and_the_compaction_miss() {
    let cache = tempfile::tempdir().expect("cache dir");
    let session = root().join(
        "tests/fixtures/claude-code/corpus/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    );
    let html = cache.path().join("report.html");
    let stdout = text(
        cache.path(),
        &[
            "report",
            &session.to_string_lossy(),
            "-o",
            &html.to_string_lossy(),
        ],
    );
    assert!(
        stdout.contains("217 requests"),
        "the summary counts the transcript's requests, not iterate's (none): {stdout}"
    );
    let html = std::fs::read_to_string(&html).expect("read the report");
    let section = html
        .split("<section id=\"prompt-cache\">")
        .nth(1)
        .expect("the report has a prompt-cache section");
    assert!(
        section.contains("2 break(s), 0 unexplained"),
        "the section totals match `cache` on the same session"
    );
    let row = section
        .split("<tr data-offset=\"1492\">")
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("the request after the compaction has a row");
    assert!(
        row.contains("the compaction at @1481"),
        "its row says the compaction cost it the cache: {row}"
    );
}

#[test]
fn diff_of_two_transcript_requests_shows_where_they_part_and_why_the_cache_missed() {
    let cache = tempfile::tempdir().expect("cache dir");
    let session = root().join(
        "tests/fixtures/claude-code/corpus/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    );
    let session = session.to_string_lossy();
    // The request after the compaction, against the request before it by default.
    let diff = run(cache.path(), &["diff", &session, "--to", "1492", "--json"])
        .expect("diff --json across the compaction");
    assert_eq!(
        diff["from"]["requestOffset"], 1473,
        "the earlier side defaults to the request before in the thread"
    );
    assert_eq!(
        diff["commonPrefixMessages"], 0,
        "the summary replaced the history from its first message"
    );
    assert_eq!(
        diff["rows"][0]["op"], "changed",
        "the first message is now the summary"
    );
    assert!(
        diff["cache"]["causes"]
            .as_array()
            .expect("causes")
            .contains(&serde_json::json!({"kind": "compaction", "offset": 1481})),
        "the cache entry names the compaction: {}",
        diff["cache"]
    );

    // The text names the same break, and a request that extends the one before only adds.
    let text = text(
        cache.path(),
        &["diff", &session, "--from", "2372", "--to", "2380"],
    );
    assert!(
        text.contains("common prefix  155 message(s)") && text.contains("no cache break"),
        "the later request keeps every earlier message and its cache: {text}"
    );
    assert!(
        text.lines()
            .filter(|l| l.starts_with(['~', '-', '+', ' ']) && l.contains('│'))
            .all(|l| l.starts_with('+')),
        "only added rows follow the shared prefix: {text}"
    );

    // A Codex rollout diffs the same way, item by item.
    let rollout = root().join("tests/fixtures/claude-code/codex-compaction.jsonl");
    let diff = run(
        cache.path(),
        &["diff", &rollout.to_string_lossy(), "--json"],
    )
    .expect("diff --json of a rollout");
    assert!(
        diff["to"]["messages"].as_u64() > diff["from"]["messages"].as_u64(),
        "the last request holds more items than the one before: {diff}"
    );

    // Transports are an iterate notion: asking for one on a transcript is an error, not ignored.
    let out = output(
        cache.path(),
        &["diff", &session, "--from-transport", "workers-ai"],
    );
    assert!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("do not apply"),
        "a transport flag on a transcript is refused with a reason"
    );
    for command in ["diff", "request", "cache", "sizes"] {
        let mut args = vec![command, &session, "--transport", "workers-ai"];
        if command == "request" {
            args.extend(["--at", "4"]);
        }
        let out = output(cache.path(), &args);
        assert!(
            !out.status.success()
                && String::from_utf8_lossy(&out.stderr).contains("--transport does not apply"),
            "`{command} --transport` on a transcript is refused, not silently ignored"
        );
    }
}

#[test]
fn sizes_of_a_transcript_are_the_context_each_response_reported_with_its_cache_breaks() {
    let cache = tempfile::tempdir().expect("cache dir");
    let fixture = root().join("tests/fixtures/claude-code/compaction.jsonl");
    let text = text(cache.path(), &["sizes", &fixture.to_string_lossy()]);
    let row = |offset: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(offset))
            .unwrap_or_else(|| panic!("a row for {offset}: {text}"))
            .to_string()
    };
    assert!(
        row("@6 ").contains("14331"),
        "the context before the compaction is input + cache write + cache read: {text}"
    );
    assert!(
        row("@10 ").contains("5203") && row("@10 ").contains("the compaction at @7"),
        "after it the context shrank and the break names the compaction: {text}"
    );
    let json = run(
        cache.path(),
        &["sizes", &fixture.to_string_lossy(), "--json"],
    )
    .expect("sizes --json");
    assert_eq!(
        json["requests"].as_array().map(Vec::len),
        Some(5),
        "every request is listed in JSON too"
    );
}

#[test]
fn subagents_are_found_in_each_storage_layout_from_the_call_that_spawned_them() {
    let cache = tempfile::tempdir().expect("cache dir");
    let fixtures = root().join("tests/fixtures/claude-code");
    let listed = |session: &str| -> Vec<Value> {
        run(
            cache.path(),
            &[
                "subagents",
                &fixtures.join(session).to_string_lossy(),
                "--json",
            ],
        )
        .expect("subagents --json")
        .as_array()
        .expect("a list")
        .clone()
    };
    // 2.0.x: the agent file beside the session, named by the Task result.
    let beside = listed("subagents-2.0/b2000000-0000-4000-8000-000000000000.jsonl");
    assert_eq!(beside.len(), 1, "one subagent: {beside:?}");
    assert_eq!(
        (&beside[0]["callOffset"], &beside[0]["resultOffset"]),
        (&serde_json::json!(2), &serde_json::json!(3)),
        "the call and the result the session got back: {beside:?}"
    );
    assert!(
        beside[0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("subagents-2.0/agent-5a6b7c8d.jsonl")),
        "its file beside the session: {beside:?}"
    );
    // 2.1.x: under the session's own directory.
    let under = listed("subagents-2.1/b3000000-0000-4000-8000-000000000000.jsonl");
    assert!(
        under.len() == 1
            && under[0]["path"].as_str().is_some_and(|p| p
                .ends_with("b3000000-0000-4000-8000-000000000000/subagents/agent-a1b2c3d.jsonl")),
        "its file in the session's subagents directory: {under:?}"
    );
    assert_eq!(
        under[0]["callOffset"], 3,
        "the Task call, not the Read beside it"
    );
    // 1.0.x: inline, starting at the sidechain root the Task's prompt names.
    let inline = listed("sidechain-1.0.jsonl");
    assert_eq!(
        inline.len(),
        1,
        "the unlinked sidechain is no subagent of a call: {inline:?}"
    );
    assert_eq!(
        (
            &inline[0]["rootOffset"],
            &inline[0]["resultOffset"],
            &inline[0]["path"]
        ),
        (&serde_json::json!(4), &serde_json::json!(8), &Value::Null),
        "an inline subagent starts at its root line, in this file: {inline:?}"
    );
    // The agent file the listing names opens as a journal of its own, with its requests.
    let path = beside[0]["path"].as_str().expect("path");
    let requests = run(cache.path(), &["requests", path, "--json"]).expect("the agent's requests");
    assert!(
        requests
            .as_array()
            .is_some_and(|r| !r.is_empty() && r.iter().all(|r| r["sidechain"] == true)),
        "the subagent's own requests, all on its sidechain: {requests}"
    );
}

#[test]
fn a_transcript_request_exported_to_a_file_has_its_secrets_redacted_unless_exact() {
    // Given a session whose user pasted a credential before the model answered
    let dir = tempfile::tempdir().expect("temp dir");
    let session = dir.path().join("secret.jsonl");
    let secret = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let lines = [
        serde_json::json!({"parentUuid": null, "isSidechain": false, "type": "user",
            "sessionId": "5ec00000-0000-4000-8000-000000000000",
            "uuid": "5ec00000-0000-4000-8000-000000000001", "timestamp": "2026-03-02T10:00:00.000Z",
            "message": {"role": "user", "content": format!("Call the API with key {secret} please.")}}),
        serde_json::json!({"parentUuid": "5ec00000-0000-4000-8000-000000000001", "isSidechain": false,
            "type": "assistant", "sessionId": "5ec00000-0000-4000-8000-000000000000",
            "uuid": "5ec00000-0000-4000-8000-000000000002", "timestamp": "2026-03-02T10:00:02.000Z",
            "requestId": "req_5EC1",
            "message": {"model": "claude-opus-4-6", "id": "msg_5EC1", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "Done."}],
                "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 2}}}),
    ];
    let written: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&session, written).expect("write the session");
    let session = session.to_string_lossy().into_owned();
    let cache = tempfile::tempdir().expect("cache dir");
    let body = dir.path().join("body.json");
    let body_arg = body.to_string_lossy().into_owned();

    // When its request is exported to a file
    let said = text(
        cache.path(),
        &["request", &session, "--at", "2", "-o", &body_arg],
    );
    // Then the file is the body the provider got, with the key replaced by a marker
    let written: Value =
        serde_json::from_slice(&std::fs::read(&body).expect("the body")).expect("JSON body");
    let shown = written.to_string();
    assert_eq!(
        written["model"], "claude-opus-4-6",
        "the body names the model"
    );
    assert!(
        written["messages"].as_array().is_some_and(|m| m.len() == 1),
        "the body holds the messages before the response: {shown}"
    );
    assert!(
        !shown.contains(secret) && shown.contains("[REDACTED:"),
        "the pasted key does not leave the program: {shown}"
    );
    assert!(
        said.contains("1 secret redacted"),
        "the confirmation says what was redacted: {said}"
    );

    // And `--exact` writes the bytes as recorded, while curl is refused with a reason
    text(
        cache.path(),
        &["request", &session, "--at", "2", "-o", &body_arg, "--exact"],
    );
    assert!(
        String::from_utf8_lossy(&std::fs::read(&body).expect("the body")).contains(secret),
        "an exact export keeps the key"
    );
    let out = output(
        cache.path(),
        &["request", &session, "--at", "2", "--format", "curl"],
    );
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("does not record the system prompt"),
        "a curl command of a transcript's request is refused with a reason"
    );
}

/// The fixture `name` opened as a journal, its database in `dir`.
fn journal(name: &str, dir: &Path) -> journalscope::journal::Journal {
    let mut quiet = |_| {};
    journalscope::journal::Journal::open(
        &root().join("tests/fixtures/claude-code").join(name),
        Some(&dir.join("journal.sqlite")),
        &mut journalscope::import::ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the fixture opens")
}

#[test]
fn a_transcript_compaction_shows_the_conversation_before_it_and_the_one_that_goes_on() {
    // Given a Claude Code session compacted at line 7, its summary at 8
    let dir = tempfile::tempdir().expect("temp dir");
    let session = journal("compaction.jsonl", dir.path());
    // When the compaction is opened
    let compaction = session
        .view(&Ask::Compaction { at: 7 })
        .expect("a compaction at 7");
    // Then before is the six lines up to it, and after starts again from the summary
    let history = |view: &Value| view["history"].as_array().cloned().unwrap_or_default();
    let offsets = |view: &Value| -> Vec<i64> {
        history(view)
            .iter()
            .filter_map(|item| item["offset"].as_i64())
            .collect()
    };
    assert_eq!(
        offsets(&compaction["before"]),
        vec![1, 2, 3, 4, 5, 6],
        "before: the conversation the compaction replaced"
    );
    assert!(
        compaction["after"].is_object(),
        "the summary follows: {compaction}"
    );
    assert_eq!(
        offsets(&compaction["after"]),
        vec![8],
        "after: the summary alone"
    );
    let note = compaction["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("compaction"),
        "the note says what the transcript records of it: {note}"
    );
    let error = session
        .view(&Ask::Compaction { at: 6 })
        .expect_err("line 6 is a response, not a compaction");
    assert_eq!(
        error.code(),
        "not-a-compaction",
        "a clear error, not a panic"
    );

    // And a Codex rollout goes on with the compaction's replacement history
    let dir = tempfile::tempdir().expect("temp dir");
    let rollout = journal("codex-compaction.jsonl", dir.path());
    let compaction = rollout
        .view(&Ask::Compaction { at: 14 })
        .expect("a compaction at 14");
    let before = history(&compaction["before"]).len();
    assert!(before > 3, "before: the items the rollout had ({before})");
    assert_eq!(
        history(&compaction["after"]).len(),
        3,
        "after: the three items of its replacement history"
    );
}
