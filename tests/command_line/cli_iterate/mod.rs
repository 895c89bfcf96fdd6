//! The `journalscope` binary on iterate journals: every command on the demo, text and `--json`,
//! and the error paths (missing file, bad argument, bad lines, databases, re-import, growth,
//! gzip).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::support::cli;
use cli::Cli;

mod bench;

fn demo_file(dir: &Path) -> PathBuf {
    let path = dir.join("iterate-demo.jsonl");
    std::fs::write(
        &path,
        journalscope::journal::Demo::named("iterate")
            .expect("the iterate demo")
            .bytes(),
    )
    .expect("write the demo");
    path
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

#[test]
fn import_reports_counts_dialect_and_diagnostics_in_text_and_json() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = demo_file(dir.path());
    let text = cli.ok(&["import", s(&file)]);
    assert!(
        text.starts_with("imported "),
        "a first import says imported: {text}"
    );
    assert!(
        text.contains("iterate (jsonl)"),
        "the dialect and framing are printed: {text}"
    );
    assert!(
        text.contains("events     30"),
        "the demo has 30 stored events (the malformed line included): {text}"
    );
    assert!(
        text.contains("invalid-json"),
        "the malformed line is reported: {text}"
    );
    let value = cli.json(&["import", s(&file), "--json"]);
    assert_eq!(
        value["importKind"], "unchanged",
        "a re-import of an unchanged file says unchanged"
    );
    assert_eq!(value["events"], 30, "the event count is stable");
    assert_eq!(value["dialect"], "iterate", "the dialect is detected");
    assert_eq!(
        (value["firstOffset"].clone(), value["lastOffset"].clone()),
        (json!(1), json!(33)),
        "offsets span the demo"
    );
    assert_eq!(
        value["diagnostics"]["byCode"]["invalid-json"], 1,
        "one malformed line"
    );
    let again = cli.ok(&["import", s(&file)]);
    assert!(
        again.starts_with("unchanged"),
        "the text form says unchanged too: {again}"
    );
}

#[test]
fn import_names_the_contract_each_journal_follows_and_where_it_changes() {
    let cli = Cli::new();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate");
    // (fixture, contract, version, the diagnostic codes the contract leaves, and how many)
    type Case = (
        &'static str,
        &'static str,
        Value,
        &'static [(&'static str, u64)],
    );
    let cases: [Case; 4] = [
        ("basic", "seed", Value::Null, &[]),
        (
            "contract-sections-8",
            "sections",
            json!("8.0.0"),
            &[("sections-contract", 1)],
        ),
        (
            "contract-agent-loop",
            "agent-loop",
            Value::Null,
            &[
                ("agent-loop-contract", 1),
                ("agent-loop-version", 1),
                ("agent-payload-skipped", 1),
            ],
        ),
        (
            "contract-mixed",
            "sections",
            json!("8.0.0"),
            &[("sections-contract", 1), ("contract-changed", 2)],
        ),
    ];
    for (fixture, contract, version, codes) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("journal.sqlite");
        let file = fixtures.join(format!("{fixture}.jsonl"));
        let value = cli.json(&["import", s(&file), "--db", s(&db), "--json"]);
        assert_eq!(
            (value["contract"].clone(), value["contractVersion"].clone()),
            (json!(contract), version.clone()),
            "{fixture}: the contract and the version its requests were stamped with"
        );
        for (code, count) in codes {
            assert_eq!(
                value["diagnostics"]["byCode"][code],
                json!(count),
                "{fixture}: {code} is said where the contract shows or changes"
            );
        }
        let text = cli.ok(&["import", s(&file), "--db", s(&db)]);
        let label = match version.as_str() {
            Some(version) => format!("contract   {contract} {version}"),
            None => format!("contract   {contract}"),
        };
        assert!(
            text.contains(&label),
            "{fixture}: the text form names the contract: {text}"
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("journal.sqlite");
    let mixed = fixtures.join("contract-mixed.jsonl");
    cli.ok(&["import", s(&mixed), "--db", s(&db)]);
    let found = cli.json(&["diagnostics", s(&db), "--json"]);
    let changes: Vec<i64> = found
        .as_array()
        .expect("a list of diagnostics")
        .iter()
        .filter(|d| d["code"] == "contract-changed")
        .filter_map(|d| d["offset"].as_i64())
        .collect();
    assert_eq!(
        changes,
        vec![5, 7],
        "the change is said at the first request of each new contract: seed → 7.0.0 → 8.0.0"
    );
}

#[test]
fn an_agent_loop_journal_lists_every_event_and_a_request_it_skipped_says_why_it_has_no_body() {
    let cli = Cli::new();
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/iterate/contract-agent-loop.jsonl");
    let events = cli.json(&["events", s(&file), "--json"]);
    assert_eq!(
        events.as_array().map(Vec::len),
        Some(4),
        "every event is stored and listed: {events}"
    );
    let view = cli.json(&["project", s(&file), "--at", "2", "--json"]);
    assert_eq!(
        (
            view["rules"].clone(),
            view["system"].clone(),
            view["history"].clone()
        ),
        (json!("agent-loop"), json!([]), json!([])),
        "no seed lanes at any offset, even before the loop shows: {view}"
    );
    let request = cli.run(&["request", s(&file), "--at", "3"]);
    let stderr = String::from_utf8_lossy(&request.stderr);
    assert!(
        !request.status.success() && stderr.contains("sent nothing"),
        "a request without expiresAt is skipped, and says it has no body: {stderr}"
    );
    let text = cli.ok(&["project", s(&file), "--at", "3"]);
    assert!(
        text.contains("agent loop") && !text.contains("SYSTEM LANE"),
        "the text form names the loop instead of showing lanes: {text}"
    );
}

#[test]
fn a_sections_request_that_opened_nothing_has_no_body_and_says_why() {
    let cli = Cli::new();
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate/sections/loop.jsonl");
    let request = cli.run(&["request", s(&file), "--at", "2"]);
    let stderr = String::from_utf8_lossy(&request.stderr);
    assert!(
        !request.status.success() && stderr.contains("sent nothing"),
        "the request @2 had no trigger: {stderr}"
    );
    let text = cli.ok(&["project", s(&file), "--at", "7"]);
    assert!(
        text.contains("STANDING DOCUMENT")
            && text.contains("LIST")
            && text.contains("sent through @4"),
        "the projection names the sections contract's parts: {text}"
    );
}

#[test]
fn a_file_that_grew_imports_only_its_tail() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = demo_file(dir.path());
    let first = cli.json(&["import", s(&file), "--json"]);
    assert_eq!(first["importKind"], "new", "the first import is new");
    let mut handle = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open for append");
    writeln!(handle, r#"{{"offset":40,"type":"events.iterate.com/agent/llm-request-requested","payload":{{"model":"gpt-5.1"}},"createdAt":"2026-11-20T09:04:00Z"}}"#).expect("append");
    writeln!(handle, r#"{{"offset":41,"type":"events.iterate.com/agent/context-added","payload":{{"role":"assistant","llmRequestOffset":40,"content":"done"}}}}"#).expect("append");
    drop(handle);
    let grown = cli.json(&["import", s(&file), "--json"]);
    assert_eq!(
        grown["importKind"], "appended",
        "a grown file imports only its tail"
    );
    assert_eq!(grown["events"], 32, "the two appended events are added");
    assert_eq!(grown["lastOffset"], 41, "the new tail is indexed");
    let requests = cli.json(&["requests", s(&file), "--json"]);
    assert_eq!(
        requests.as_array().map(Vec::len),
        Some(4),
        "the appended request is seen"
    );
}

#[test]
fn a_database_written_by_import_db_is_accepted_as_a_journal() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = demo_file(dir.path());
    let db = dir.path().join("demo.sqlite");
    cli.ok(&["import", s(&file), "--db", s(&db)]);
    assert!(db.is_file(), "import --db writes the database");
    let from_db = cli.json(&["project", s(&db), "--at", "21", "--json"]);
    let from_demo = cli.json(&["project", "demo", "--at", "21", "--json"]);
    assert_eq!(
        from_db, from_demo,
        "the database projects exactly as the journal does"
    );
}

#[test]
fn gzip_input_is_read() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("iterate-demo.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(
            journalscope::journal::Demo::named("iterate")
                .expect("the iterate demo")
                .bytes(),
        )
        .expect("compress");
    std::fs::write(&file, encoder.finish().expect("finish gzip")).expect("write gz");
    let value = cli.json(&["import", s(&file), "--json"]);
    assert_eq!(value["events"], 30, "the gzip demo has the same events");
    assert_eq!(
        value["dialect"], "iterate",
        "the gzip demo is an iterate journal"
    );
}

#[test]
fn events_filters_by_offset_range_and_type() {
    let cli = Cli::new();
    let text = cli.ok(&["events", "demo", "--from", "20", "--to", "24"]);
    let offsets: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        offsets,
        vec!["@20", "@21", "@22", "@23", "@24"],
        "--from/--to are inclusive: {text}"
    );
    let value = cli.json(&[
        "events",
        "demo",
        "--type",
        "llm-request-requested",
        "--json",
    ]);
    let found: Vec<i64> = value
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|e| e["offset"].as_i64())
        .collect();
    assert_eq!(found, vec![8, 21, 29], "--type matches the last segment");
    let full = cli.json(&[
        "events",
        "demo",
        "--type",
        "events.iterate.com/agents/context-added",
        "--json",
    ]);
    assert_eq!(
        full.as_array().map(Vec::len),
        Some(1),
        "the full type matches only events spelled with it (@25)"
    );
    let all = cli.json(&["events", "demo", "--json"]);
    assert_eq!(
        all.as_array().map(Vec::len),
        Some(30),
        "without filters every stored event is listed"
    );
}

#[test]
fn project_prints_lanes_in_text_and_json() {
    let cli = Cli::new();
    let text = cli.ok(&["project", "demo", "--at", "21"]);
    assert!(
        text.contains("published through @21"),
        "the header names publishedThrough: {text}"
    );
    assert!(
        text.contains("SYSTEM LANE") && text.contains("HISTORY LANE"),
        "both lanes are printed"
    );
    let value = cli.json(&["project", "demo", "--at", "3", "--json"]);
    assert_eq!(
        value["pending"]["offsets"],
        json!([3]),
        "the early input waits for the system prompt"
    );
    assert_eq!(
        value["publishedThrough"],
        Value::Null,
        "nothing is published at @3"
    );
    let after = cli.json(&["project", "demo", "--at", "33", "--json"]);
    let history: Vec<i64> = after["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter_map(|i| i["offset"].as_i64())
        .collect();
    assert_eq!(
        history,
        vec![25, 22, 28, 30, 32, 33],
        "after compaction: summary, then history after the cutoff"
    );
}

#[test]
fn requests_lists_every_request() {
    let cli = Cli::new();
    let text = cli.ok(&["requests", "demo"]);
    for offset in ["@8", "@21", "@29"] {
        assert!(text.contains(offset), "request {offset} is listed: {text}");
    }
    let value = cli.json(&["requests", "demo", "--json"]);
    let offsets: Vec<i64> = value
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|r| r["offset"].as_i64())
        .collect();
    assert_eq!(offsets, vec![8, 21, 29], "every request in file order");
    assert_eq!(
        value[2]["compactionsBefore"], 1,
        "the compaction before @29 is counted"
    );
}

#[test]
fn request_renders_both_transports_and_writes_the_exact_body() {
    let cli = Cli::new();
    let text = cli.ok(&["request", "demo", "--at", "21"]);
    assert!(
        text.contains("transport openai"),
        "openai is the default transport: {text}"
    );
    let openai = cli.json(&["request", "demo", "--at", "21", "--json"]);
    let workers = cli.json(&[
        "request",
        "demo",
        "--at",
        "21",
        "--transport",
        "workers-ai",
        "--json",
    ]);
    assert_eq!(openai["transport"], "openai", "the transport is named");
    assert_eq!(workers["transport"], "workers-ai", "the transport is named");
    let tail_role = |v: &Value| {
        v["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["role"].clone())
    };
    assert_eq!(
        tail_role(&openai),
        Some(json!("developer")),
        "the openai tail is developer"
    );
    assert_eq!(
        tail_role(&workers),
        Some(json!("system")),
        "the workers-ai tail is system"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    for (transport, value) in [("openai", &openai), ("workers-ai", &workers)] {
        let out = dir.path().join(format!("body-{transport}.json"));
        let said = cli.ok(&[
            "request",
            "demo",
            "--at",
            "21",
            "--transport",
            transport,
            "-o",
            s(&out),
        ]);
        assert!(said.contains("wrote"), "-o says what it wrote: {said}");
        let bytes = std::fs::read(&out).expect("the body was written");
        let expected = cli::body_of(value);
        assert_eq!(
            bytes, expected,
            "-o writes exactly the --json messages wrapped as the {transport} body"
        );
    }
}

#[test]
fn diagnostics_lists_every_problem_in_text_and_json() {
    let cli = Cli::new();
    let text = cli.ok(&["diagnostics", "demo"]);
    assert!(
        text.contains("invalid-json")
            && text.contains("unknown-type")
            && text.contains("assistant-without-genuine-request"),
        "every demo diagnostic is listed: {text}"
    );
    let value = cli.json(&["diagnostics", "demo", "--json"]);
    let codes: Vec<&str> = value
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        vec![
            "assistant-without-genuine-request",
            "unknown-type",
            "invalid-json"
        ],
        "diagnostics in file order"
    );
}

#[test]
fn a_missing_file_fails_with_one_clear_line() {
    let cli = Cli::new();
    let output = cli.run(&["project", "/no/such/journal.jsonl", "--at", "3"]);
    assert!(!output.status.success(), "a missing file is an error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line on stderr: {stderr}");
    assert!(
        stderr.contains("/no/such/journal.jsonl"),
        "the line names the file: {stderr}"
    );
}

#[test]
fn a_bad_argument_exits_with_2() {
    let cli = Cli::new();
    for args in [
        &["project", "demo", "--at", "x"][..],
        &["request", "demo", "--at", "21", "--transport", "claude"][..],
        &["frobnicate"][..],
    ] {
        let output = cli.run(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "`{}` is a usage error",
            args.join(" ")
        );
    }
    let output = cli.run(&["request", "demo", "--at", "9"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "an offset that is not a request is an error, not a usage error"
    );
}

#[test]
fn a_journal_with_bad_lines_imports_and_reports_them() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("bad.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"offset":1,"type":"events.iterate.com/agent/context-added","payload":{"role":"system","key":"agent/system-prompt","content":"p"}}"#, "\n",
            "not json at all\n",
            "[1,2,3]\n",
            r#"{"type":"events.iterate.com/agent/context-added","payload":{"role":"user","content":"no offset"}}"#, "\n",
            r#"{"offset":2,"type":"events.iterate.com/agent/llm-request-requested","payload":{"model":"m"}}"#, "\n",
        ),
    )
    .expect("write");
    let output = cli.run(&["import", s(&file), "--json"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "bad lines never refuse the journal: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(value["events"], 5, "every line is stored");
    let by_code = &value["diagnostics"]["byCode"];
    assert_eq!(by_code["invalid-json"], 1, "the non-JSON line is reported");
    assert_eq!(by_code["not-an-object"], 1, "the array line is reported");
    assert!(
        by_code["missing-offset"].as_u64().unwrap_or(0) >= 1,
        "the offsetless event is reported: {by_code}"
    );
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    // Regression: `--json | head` printed "error: Broken pipe" and exited 1, because the
    // serde_json error wrapping the closed pipe was not recognised as one.
    let cli = Cli::new();
    let mut child = cli
        .command(&["events", "demo", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success(), "a closed pipe exits 0");
    assert!(
        output.stderr.is_empty(),
        "a closed pipe prints nothing: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
