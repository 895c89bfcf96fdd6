//! `journalscope diff` and `cache` on the journals in tests/fixtures/diff/, one per cause of a
//! broken prefix (compaction, system-lane update, keyed slot republished in the system lane,
//! model change, transport change) and one that only appends: golden `--json` outputs, the
//! classification of each cause, the ideal, and the text output. An unexpected break cannot
//! come from a journal (the projection never rewrites published content); it is tested on
//! hand-made snapshots in `crates/iterate/src/iterate/diff.rs`.
//!
//! To rewrite the expectations after an intended change, run
//! `JOURNALSCOPE_BLESS=1 cargo test --test journal request_diff` and review the diff.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::cli;
use cli::Cli;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

fn fixture(name: &str) -> String {
    fixtures()
        .join(format!("{name}.jsonl"))
        .to_string_lossy()
        .into_owned()
}

/// (fixture, extra diff arguments): each fixture's diff of its two requests.
const CASES: &[(&str, &[&str])] = &[
    ("append", &["--from", "4", "--to", "7"]),
    ("compaction", &["--from", "7", "--to", "11"]),
    ("system-update", &["--from", "4", "--to", "8"]),
    ("keyed-republish", &["--from", "4", "--to", "8"]),
    ("model-change", &["--from", "4", "--to", "7"]),
    (
        "transport-change",
        &[
            "--from",
            "5",
            "--to",
            "5",
            "--from-transport",
            "openai",
            "--to-transport",
            "workers-ai",
        ],
    ),
];

#[test]
fn diff_and_cache_json_match_the_committed_expectations() {
    let cli = Cli::new();
    let bless = std::env::var_os("JOURNALSCOPE_BLESS").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for (name, args) in CASES {
        let file = fixture(name);
        let mut diff_args = vec!["diff", file.as_str()];
        diff_args.extend_from_slice(args);
        diff_args.push("--json");
        for (command, argv) in [
            ("diff", diff_args.clone()),
            ("cache", vec!["cache", file.as_str(), "--json"]),
        ] {
            let actual = cli.ok(&argv);
            let path = fixtures()
                .join("expected")
                .join(format!("{name}.{command}.json"));
            if bless {
                std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
                std::fs::write(&path, &actual).expect("bless");
                continue;
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{} is readable ({e}); bless with JOURNALSCOPE_BLESS=1",
                    path.display()
                )
            });
            if expected != actual {
                mismatches.push(path.display().to_string());
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "outputs differ from the committed expectations (JOURNALSCOPE_BLESS=1 rewrites them): {mismatches:?}"
    );
}

fn diff_json(cli: &Cli, name: &str) -> Value {
    let (_, args) = CASES
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a known case");
    let file = fixture(name);
    let mut argv = vec!["diff", file.as_str()];
    argv.extend_from_slice(args);
    argv.push("--json");
    cli.json(&argv)
}

fn first_cause(diff: &Value) -> &Value {
    &diff["prefixBreak"]["causes"][0]
}

#[test]
fn given_only_appends_when_diffed_then_the_prefix_is_the_ideal_and_nothing_broke() {
    let cli = Cli::new();
    let diff = diff_json(&cli, "append");
    assert_eq!(diff["prefixBreak"], Value::Null, "an append breaks nothing");
    // Request @4: protocol, system @2, user @3, time = 4 messages; the ideal is all but time.
    assert_eq!(
        diff["idealPrefixMessages"], 3,
        "ideal: every message but the earlier time"
    );
    assert_eq!(
        diff["commonPrefixMessages"], 3,
        "the later request extends the earlier"
    );
    assert_eq!(
        diff["reusedPrefixBytes"], diff["idealPrefixBytes"],
        "everything the ideal reuses is reused"
    );
    assert!(
        diff["commonPrefixBytes"].as_u64() >= diff["idealPrefixBytes"].as_u64(),
        "the bodies share at least the ideal bytes"
    );
    let cache = cli.json(&["cache", &fixture("append"), "--json"]);
    assert_eq!(
        cache["totalLostBytes"], 0,
        "an append-only journal loses no prefix"
    );
    assert_eq!(cache["breaks"], 0, "and has no breaks");
}

#[test]
fn given_a_compaction_between_requests_when_diffed_then_the_compaction_and_its_cutoff_explain_it() {
    let cli = Cli::new();
    let diff = diff_json(&cli, "compaction");
    let cause = first_cause(&diff);
    assert_eq!(
        cause["kind"], "compaction",
        "the cause is the compaction: {diff}"
    );
    assert_eq!(cause["offset"], 9, "the summary's offset");
    assert_eq!(cause["cutoff"], 5, "replacesHistoryThrough");
    assert_eq!(
        cause["removed"],
        serde_json::json!([3, 5]),
        "history ≤ @5 dropped"
    );
    assert_eq!(
        diff["prefixBreak"]["atMessage"], 2,
        "the first history message differs"
    );
    assert_eq!(
        diff["prefixBreak"]["laterItem"], 9,
        "the summary sits there now"
    );
    assert_eq!(
        diff["prefixBreak"]["expected"], true,
        "a compaction is legitimate"
    );
}

#[test]
fn given_a_system_item_after_publication_when_diffed_then_the_system_lane_update_explains_it() {
    let cli = Cli::new();
    let diff = diff_json(&cli, "system-update");
    let cause = first_cause(&diff);
    assert_eq!(cause["kind"], "system-lane-update", "cause: {diff}");
    assert_eq!(cause["offset"], 6, "the new system item");
    assert_eq!(cause["key"], Value::Null, "it has no key");
    assert_eq!(
        diff["prefixBreak"]["earlierItem"], 3,
        "it lands before the first history item"
    );
}

#[test]
fn given_a_published_system_slot_republished_when_diffed_then_the_key_and_updates_explain_it() {
    let cli = Cli::new();
    let diff = diff_json(&cli, "keyed-republish");
    let cause = first_cause(&diff);
    assert_eq!(cause["kind"], "keyed-slot-republished", "cause: {diff}");
    assert_eq!(cause["key"], "agent/system-prompt", "which key");
    assert_eq!(cause["updates"], 2, "updates=@2");
    assert_eq!(cause["offset"], 6, "the new occurrence");
    assert_eq!(cause["lane"], "system", "in the system lane");
}

#[test]
fn given_a_model_change_when_diffed_then_nothing_is_reused_and_the_model_explains_it() {
    let cli = Cli::new();
    let diff = diff_json(&cli, "model-change");
    assert_eq!(
        diff["commonPrefixMessages"], 3,
        "the messages still extend the earlier request"
    );
    assert_eq!(diff["reusedPrefixBytes"], 0, "a cache is per model");
    let cause = first_cause(&diff);
    assert_eq!(cause["kind"], "model-change", "cause: {diff}");
    assert_eq!(cause["from"], "gpt-5.1", "the earlier model");
    assert_eq!(cause["to"], "gpt-5.1-pro", "the later model");
    assert_eq!(
        diff["prefixBreak"]["lostBytes"], diff["idealPrefixBytes"],
        "the whole ideal is lost"
    );
}

#[test]
fn given_one_request_on_two_transports_when_diffed_then_the_transport_explains_the_role_change() {
    let cli = Cli::new();
    let diff = diff_json(&cli, "transport-change");
    let cause = first_cause(&diff);
    assert_eq!(cause["kind"], "transport-change", "cause: {diff}");
    assert_eq!(
        diff["prefixBreak"]["atMessage"], 2,
        "the developer item @3 is remapped"
    );
    assert_eq!(
        diff["characters"]["fromRole"], "developer",
        "openai keeps developer"
    );
    assert_eq!(
        diff["characters"]["toRole"], "system",
        "workers-ai maps it to system"
    );
}

#[test]
fn given_no_from_when_diffed_then_the_request_before_is_used_and_the_first_request_is_refused() {
    let cli = Cli::new();
    let file = fixture("compaction");
    let diff = cli.json(&["diff", &file, "--to", "11", "--json"]);
    assert_eq!(diff["from"]["requestOffset"], 7, "the request before @11");
    let last = cli.json(&["diff", &file, "--json"]);
    assert_eq!(
        (
            last["from"]["requestOffset"].clone(),
            last["to"]["requestOffset"].clone()
        ),
        (Value::from(7), Value::from(11)),
        "no arguments: the last request against the one before"
    );
    let first = cli.run(&["diff", &file, "--to", "4"]);
    assert!(
        !first.status.success(),
        "the first request has nothing before it"
    );
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("no earlier one"),
        "the error says why: {}",
        String::from_utf8_lossy(&first.stderr)
    );
    let bad = cli.run(&["diff", &file, "--from", "5", "--to", "11"]);
    assert!(!bad.status.success(), "@5 is not a request");
}

#[test]
fn diff_text_shows_the_prefix_the_break_the_rows_and_the_characters() {
    let cli = Cli::new();
    let text = cli.ok(&[
        "diff",
        &fixture("keyed-republish"),
        "--from",
        "4",
        "--to",
        "8",
    ]);
    for needle in [
        "diff request @4 (gpt-5.1, openai) → @8 (gpt-5.1, openai)",
        "common prefix  2 message(s)",
        "break at message 2 (@3 → @6)",
        "cause  keyed-slot-republished: system-lane slot key=\"agent/system-prompt\" republished at @6 (updates=@2)",
        "── characters of message 2 ── user → system",
        "{+",
    ] {
        assert!(text.contains(needle), "diff text has {needle:?}:\n{text}");
    }
}

#[test]
fn cache_text_shows_a_row_and_a_bar_per_request_and_explains_breaks() {
    let cli = Cli::new();
    let text = cli.ok(&["cache", &fixture("compaction")]);
    for needle in [
        "cache prefix · transport openai · 3 request(s)",
        "@4",
        "@11",
        "█",
        "1 break(s), 0 unexpected",
        "BREAKS",
        "@11: break at message 2",
        "compaction: compaction @9 replaced history ≤ @5 (2 item(s) removed)",
    ] {
        assert!(text.contains(needle), "cache text has {needle:?}:\n{text}");
    }
}

#[test]
fn the_demo_shows_a_republished_system_prompt_and_a_compaction() {
    let cli = Cli::new();
    let cache = cli.json(&["cache", "demo", "--json"]);
    let kinds: Vec<(Value, Value)> = cache["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|r| {
            (
                r["requestOffset"].clone(),
                r["prefixBreak"]["causes"][0]["kind"].clone(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (Value::from(8), Value::Null),
            (Value::from(21), Value::from("keyed-slot-republished")),
            (Value::from(29), Value::from("compaction")),
        ],
        "the demo's breaks: @19 republishes the system prompt, @25 compacts"
    );
    assert_eq!(
        cache["unexpectedBreaks"], 0,
        "the demo has no unexpected break"
    );
    let range = cli.json(&["cache", "demo", "--from", "20", "--to", "28", "--json"]);
    assert_eq!(
        range["requests"],
        Value::Array(vec![cache["requests"][1].clone()]),
        "a range keeps its requests, each still set against the request before it (@21 against @8)"
    );
    assert_eq!(
        range["totalBodyBytes"], cache["requests"][1]["bodyBytes"],
        "and totals them alone"
    );
}
