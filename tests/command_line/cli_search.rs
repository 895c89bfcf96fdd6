//! The `search`, `sql`, `break` and `bookmarks` commands on the demo, text and `--json`, and
//! their error paths (a bad breakpoint, a refused write).

use serde_json::{json, Value};

use crate::support::cli;
use cli::Cli;

#[test]
fn search_prints_hits_with_snippets_and_json_with_the_total() {
    let cli = Cli::new();
    let text = cli.ok(&["search", "demo", "approve"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "7 hits", "a count first: {text}");
    assert!(
        lines[2].trim_start().starts_with("@15  context-added")
            && lines[2].contains("[approve] the PR"),
        "a hit line: offset, short type, snippet: {text}"
    );
    let found = cli.json(&["search", "demo", "approve", "--json"]);
    assert_eq!(found["total"], json!(7), "the total");
    let offsets: Vec<&Value> = found["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| &h["offset"])
        .collect();
    assert_eq!(
        offsets,
        [
            &json!(4),
            &json!(15),
            &json!(19),
            &json!(22),
            &json!(23),
            &json!(25),
            &json!(28)
        ],
        "hits in file order"
    );
}

#[test]
fn search_filters_by_item_facts() {
    let cli = Cli::new();
    let found = cli.json(&[
        "search",
        "demo",
        "",
        "--role",
        "developer",
        "--actor",
        "github",
        "--json",
    ]);
    let offsets: Vec<i64> = found["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["offset"].as_i64())
        .collect();
    assert_eq!(
        offsets,
        [6, 7, 17, 18],
        "developer items of the github actor"
    );
    let unpublished = cli.json(&["search", "demo", "", "--published", "no", "--json"]);
    assert_eq!(
        unpublished["total"],
        json!(3),
        "three items after the last request"
    );
    let at = cli.json(&[
        "search",
        "demo",
        "",
        "--published",
        "no",
        "--at",
        "7",
        "--lane",
        "system",
        "--json",
    ]);
    assert_eq!(
        at["hits"][0]["offset"],
        json!(4),
        "the system prompt is unpublished at @7"
    );
    let bad = cli.run(&["search", "demo", "x", "--lane", "middle"]);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "an unknown lane is a bad argument"
    );
}

#[test]
fn sql_prints_a_text_table_and_json_rows() {
    let cli = Cli::new();
    let text = cli.ok(&[
        "sql",
        "demo",
        "SELECT offset, model FROM requests ORDER BY offset",
    ]);
    assert_eq!(
        text,
        "offset | model\n-------+--------\n8      | gpt-5.1\n21     | gpt-5.1\n29     | gpt-5.1\n(3 rows)\n",
        "an aligned text table with a row count"
    );
    let items = cli.json(&[
        "sql",
        "demo",
        "SELECT offset, published FROM items WHERE lane = 'history' ORDER BY position",
        "--at",
        "8",
        "--json",
    ]);
    assert_eq!(items["columns"], json!(["offset", "published"]), "columns");
    assert_eq!(
        items["rows"],
        json!([[3, 1], [5, 1], [7, 1]]),
        "the history lane at @8, all published"
    );
    assert_eq!(items["truncated"], json!(false), "not cut");
}

#[test]
fn sql_refuses_writes_with_an_error_line() {
    let cli = Cli::new();
    for statement in [
        "DELETE FROM events",
        "PRAGMA query_only = 0",
        "ATTACH DATABASE ':memory:' AS x",
    ] {
        let out = cli.run(&["sql", "demo", statement]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{statement:?} fails");
        assert!(
            stderr.contains("refused"),
            "{statement:?} is refused: {stderr}"
        );
    }
    let still = cli.json(&["sql", "demo", "SELECT count(*) AS n FROM events", "--json"]);
    assert_eq!(still["rows"], json!([[30]]), "nothing was deleted");
}

#[test]
fn break_runs_forward_and_backward_in_text_and_json() {
    let cli = Cli::new();
    let text = cli.ok(&["break", "demo", "--from", "8", "--on", "request"]);
    assert_eq!(
        text, "     @21  request gpt-5.1  (running forward from @8 on request)\n",
        "the hit, why, and the run"
    );
    let back = cli.json(&[
        "break",
        "demo",
        "--from",
        "21",
        "--on",
        "request",
        "--backward",
        "--json",
    ]);
    assert_eq!(back["hit"]["offset"], json!(8), "backward to @8");
    assert_eq!(back["forward"], json!(false), "the direction");
    assert_eq!(
        back["breakpoint"],
        json!({"kind": "request"}),
        "the breakpoint"
    );
    let key = cli.json(&[
        "break",
        "demo",
        "--from",
        "7",
        "--on",
        "key:github/review-task",
        "--json",
    ]);
    assert_eq!(
        key["hit"]["offset"],
        json!(17),
        "the next change of the key"
    );
    let sql = cli.json(&[
        "break",
        "demo",
        "--from",
        "13",
        "--on",
        "sql:type LIKE '%settled'",
        "--json",
    ]);
    assert_eq!(sql["hit"]["offset"], json!(23), "a SQL predicate");
    let none = cli.ok(&["break", "demo", "--from", "29", "--on", "compaction"]);
    assert_eq!(
        none, "no compaction running forward from @29\n",
        "no hit is said plainly"
    );
    let none = cli.json(&[
        "break",
        "demo",
        "--from",
        "29",
        "--on",
        "compaction",
        "--json",
    ]);
    assert_eq!(none["hit"], Value::Null, "no hit is null");
    let bad = cli.run(&["break", "demo", "--on", "sometimes"]);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "an unknown breakpoint is a bad argument"
    );
}

#[test]
fn bookmarks_are_added_listed_and_kept() {
    let cli = Cli::new();
    assert_eq!(
        cli.ok(&["bookmarks", "demo"]),
        "no bookmarks\n",
        "none at first"
    );
    let text = cli.ok(&["bookmarks", "demo", "--add", "7", "--note", "coalesced @6"]);
    assert_eq!(text, "      @7  coalesced @6\n", "the list after adding");
    let listed = cli.json(&["bookmarks", "demo", "--json"]);
    assert_eq!(listed[0]["offset"], json!(7), "kept in the database");
    assert_eq!(listed[0]["note"], json!("coalesced @6"), "with its note");
    let missing = cli.run(&["bookmarks", "demo", "--add", "10", "--note", "x"]);
    assert_eq!(missing.status.code(), Some(1), "no event has offset 10");
    let removed = cli.ok(&["bookmarks", "demo", "--remove", "7"]);
    assert_eq!(removed, "no bookmarks\n", "removed");
}
