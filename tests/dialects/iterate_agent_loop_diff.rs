//! The diff and the prompt-cache explanation of iterate's agent-loop requests, through the
//! binary, on the release journal: requests compared by their Responses-API input items, and a
//! break of the loop's promise (each input starts with the input before it) explained.

use crate::support::cli;

use std::path::{Path, PathBuf};

use cli::Cli;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate/agent-loop/release.jsonl")
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn diff(cli: &Cli, file: &Path, from: &str, to: &str) -> Value {
    cli.json(&["diff", s(file), "--from", from, "--to", to, "--json"])
}

/// The rows' `(op, item offset, type)` on the side that has the item.
fn rows(diff: &Value) -> Vec<(String, i64, String)> {
    diff["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let side = if row["to"].is_null() {
                &row["from"]
            } else {
                &row["to"]
            };
            (
                row["op"].as_str().unwrap_or_default().to_string(),
                side["item"].as_i64().unwrap_or_default(),
                side["kind"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn given_two_consecutive_requests_when_diffed_then_the_shared_prefix_and_the_added_items_are_shown()
{
    let cli = Cli::new();
    let file = fixture();

    let diff = diff(&cli, &file, "4", "11");

    assert_eq!(
        (
            &diff["from"]["messages"],
            &diff["commonPrefixMessages"],
            &diff["idealPrefixMessages"]
        ),
        (&Value::from(5), &Value::from(5), &Value::from(5)),
        "the five input items of @4 (the head's three sections, the words, the stamp) are all shared: {diff}"
    );
    assert_eq!(
        diff["reusedPrefixBytes"], diff["idealPrefixBytes"],
        "nothing of the earlier input is lost: {diff}"
    );
    assert!(
        diff["prefixBreak"].is_null(),
        "an input that only grows breaks nothing: {}",
        diff["prefixBreak"]
    );
    assert_eq!(
        diff["firstDifference"], 5,
        "the first item @11 adds comes after the shared ones"
    );
    let added = |item: i64, kind: &str| ("added".to_string(), item, kind.to_string());
    assert_eq!(
        rows(&diff),
        vec![
            added(6, "reasoning"),
            added(6, "message"),
            added(6, "function_call"),
            added(10, "function_call_output"),
            added(11, "message"),
            added(12, "message"),
        ],
        "the answer @6 as its input items, its call's output from the script result @10, the \
         stamp @11 and the sections update @12 are added, each with its type"
    );
    let fields: Vec<(&str, &str)> = diff["bodyFields"]
        .as_array()
        .expect("the body's other fields")
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap_or_default(),
                f["op"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            "model",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "stream",
            "store",
            "include",
            "prompt_cache_key",
            "reasoning"
        ]
        .map(|name| (name, "same"))
        .to_vec(),
        "every top-level field besides the input is compared, and none changed"
    );

    let text = cli.ok(&["diff", s(&file), "--from", "4", "--to", "11"]);
    assert!(
        text.contains("no break: the later request extends the earlier one")
            && text.contains("[7] assistant function_call @6: run ")
            && text.contains("body fields the same: model, tools"),
        "the text form says the prefix held and shows each added item with its type: {text}"
    );
}

#[test]
fn given_two_requests_across_the_compaction_when_diffed_then_the_break_is_explained_as_the_compaction(
) {
    let cli = Cli::new();
    let file = fixture();

    let diff = diff(&cli, &file, "18", "24");

    let broke = &diff["prefixBreak"];
    assert_eq!(
        broke["causes"][0],
        serde_json::json!({"kind": "compaction", "offset": 23, "cutoff": 14, "removed": [3, 4, 6, 10, 11, 12, 13]}),
        "the compaction @23 explains the break, naming the items of @18 it replaced, the script \
         result @10 that went as its call's output among them: {broke}"
    );
    assert_eq!(
        broke["expected"], true,
        "a compaction may rewrite the input"
    );
    assert_eq!(
        (
            &broke["atMessage"],
            &broke["earlierItem"],
            &broke["laterItem"]
        ),
        (&Value::from(1), &Value::from(5), &Value::from(5)),
        "the first differing input item is the head's second section: {broke}"
    );
    assert_eq!(
        broke["field"], "content[0].text",
        "what differs in it is the section's text (the compaction's head holds the merged sections)"
    );
    assert_eq!(
        broke["breakpoint"], 1,
        "the earlier head carries the cache breakpoint on that very item"
    );
    assert!(
        broke["lostBytes"].as_u64().is_some_and(|lost| lost > 0),
        "the earlier input past the first item is lost: {broke}"
    );
    assert!(
        diff["characters"]["segments"]
            .as_array()
            .is_some_and(|segments| segments
                .iter()
                .any(|s| s["op"] == "added" && s["text"] == " carefully")),
        "the character diff of the item's JSON shows the words added: {}",
        diff["characters"]
    );

    let text = cli.ok(&["diff", s(&file), "--from", "18", "--to", "24"]);
    assert!(
        text.contains("cause  compaction: compaction @23 replaced history ≤ @14")
            && text.contains("field  input item 1 differs in `content[0].text`")
            && text.contains("breakpoint  input item 1, at or after the first difference"),
        "the text form names the cause, the field and the breakpoint: {text}"
    );
}

#[test]
fn given_the_release_journal_when_its_cache_is_reported_then_the_compaction_is_its_only_break() {
    let cli = Cli::new();

    let report = cli.json(&["cache", s(&fixture()), "--json"]);

    let entries = report["requests"].as_array().expect("entries");
    let offsets: Vec<i64> = entries
        .iter()
        .filter_map(|e| e["requestOffset"].as_i64())
        .collect();
    assert_eq!(
        offsets,
        vec![4, 11, 18, 24, 26],
        "every request that was sent, and not the one the pause left without a trigger"
    );
    assert_eq!(
        (&report["breaks"], &report["unexpectedBreaks"]),
        (&Value::from(1), &Value::from(0)),
        "only the compaction breaks the prefix, as it may: {report}"
    );
    for entry in entries {
        let at = &entry["requestOffset"];
        if *at == 24 {
            assert_eq!(
                entry["prefixBreak"]["causes"][0]["kind"], "compaction",
                "@24 lost its prefix to the compaction: {entry}"
            );
        } else {
            assert_eq!(
                entry["reusedPrefixTokens"], entry["idealPrefixTokens"],
                "@{at} reuses every input item of the request before it: {entry}"
            );
        }
    }
}

#[test]
fn given_a_request_sent_to_another_model_when_diffed_then_the_model_change_explains_the_break() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("model-change.jsonl");
    let text = std::fs::read_to_string(fixture()).expect("read the fixture");
    // Request @11 goes to another model: the answer @6 is no longer its model's own, so its
    // reasoning is dropped and its message renders plainly.
    let changed: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("{\"offset\":11,") {
                line.replace("\"model\":\"gpt-5.1\"", "\"model\":\"gpt-5.2\"")
            } else {
                line.to_string()
            }
        })
        .collect();
    std::fs::write(&file, changed.join("\n") + "\n").expect("write the journal");

    let diff = diff(&cli, &file, "4", "11");

    let broke = &diff["prefixBreak"];
    assert_eq!(
        broke["causes"][0],
        serde_json::json!({"kind": "model-change", "from": "gpt-5.1", "to": "gpt-5.2"}),
        "the provider's cache is per model: {broke}"
    );
    assert_eq!(
        (&broke["expected"], &diff["reusedPrefixBytes"]),
        (&Value::from(true), &Value::from(0)),
        "a change of model is allowed to break the prefix, and nothing is reused"
    );
    let model = diff["bodyFields"]
        .as_array()
        .and_then(|fields| fields.iter().find(|f| f["name"] == "model"))
        .expect("the model field");
    assert_eq!(
        (&model["op"], &model["from"], &model["to"]),
        (
            &Value::from("changed"),
            &Value::from("\"gpt-5.1\""),
            &Value::from("\"gpt-5.2\"")
        ),
        "the body's model field says what changed"
    );
}
