//! JSON edge cases in every dialect, `tests/fixtures/json-edges/`: one journal per dialect with
//! the same line layout (`LAYOUT`), and beside it `<dialect>.expected.json` holding the dialect
//! the import detected, the event count and every diagnostic in full (line, offset, severity,
//! code and message text). Each journal goes through the real CLI, so what a user reads about
//! a record that is not JSON, repeats a key or is cut short stays byte for byte the same
//! whatever parses the records.
//!
//! `JOURNALSCOPE_BLESS=1 cargo test --test journal json_edges` rewrites the expected files; review the
//! diff before committing it.

use crate::support::cli;

use std::path::{Path, PathBuf};

use cli::Cli;
use serde_json::{json, Value};

/// What each line of every journal holds, line 1 first. The edge cases sit between valid
/// records of the dialect, so each one is read on its own and the reading goes on after it.
const LAYOUT: [&str; 34] = [
    "valid record",
    "valid record",
    "valid record",
    "truncated JSON mid-file",
    "valid record",
    "invalid UTF-8 inside a string value",
    "valid record",
    "key repeated at the top level",
    "valid record",
    "key repeated in a nested object",
    "valid record",
    "key given three times",
    "valid record",
    "1e400 in a nested field (beyond f64)",
    "valid record",
    "integer beyond u64 and negative beyond i64",
    "valid record",
    "-0 and 1.0e2",
    "valid record",
    "lone surrogate escape \\ud800",
    "valid record",
    "escaped key \\u0061 repeating the key a",
    "valid record",
    "nesting 127 levels deep (the deepest accepted)",
    "valid record",
    "nesting 129 levels deep",
    "valid record",
    "trailing text after a value: {} {}",
    "valid record",
    "empty object {}",
    "valid record",
    "bare string",
    "valid record",
    "last record cut short, no newline",
];

/// The line whose string value holds bytes that are not UTF-8.
const INVALID_UTF8_LINE: usize = 6;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json-edges")
}

/// The journal is what `LAYOUT` describes: an editor that normalised it (added the final
/// newline, replaced the stray bytes) would quietly drop two of the cases.
fn check_journal(dialect: &str, bytes: &[u8]) {
    assert!(
        !bytes.ends_with(b"\n"),
        "{dialect}: the journal ends without a newline, so its last line is cut short"
    );
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    assert_eq!(
        lines.len(),
        LAYOUT.len(),
        "{dialect}: the journal has one line per case of the layout"
    );
    assert!(
        std::str::from_utf8(lines[INVALID_UTF8_LINE - 1]).is_err(),
        "{dialect}: line {INVALID_UTF8_LINE} holds bytes that are not UTF-8"
    );
    for (index, line) in lines.iter().enumerate() {
        if index + 1 != INVALID_UTF8_LINE {
            assert!(
                std::str::from_utf8(line).is_ok(),
                "{dialect}: line {} is UTF-8; only line {INVALID_UTF8_LINE} is not",
                index + 1
            );
        }
    }
}

/// Imports the dialect's journal and lists what the import found.
fn outcome(dialect: &str, reported: &str, input: &Path, work: &Path) -> Value {
    let cli = Cli::new();
    let db = work.join("journal.sqlite");
    let input_text = input.to_string_lossy();
    let db_text = db.to_string_lossy();
    let report = cli.json(&["import", &input_text, "--db", &db_text, "--json"]);
    assert_eq!(
        report["dialect"].as_str(),
        Some(reported),
        "{dialect}: the journal is detected as its own dialect, so its reader judges the records"
    );
    let listed: Vec<Value> = serde_json::from_value(cli.json(&["diagnostics", &db_text, "--json"]))
        .expect("diagnostics --json is a list");
    let diagnostics: Vec<Value> = listed
        .into_iter()
        .map(|d| {
            let line = d["line"].as_u64().expect("a diagnostic names its line");
            let case = usize::try_from(line)
                .ok()
                .and_then(|line| LAYOUT.get(line.checked_sub(1)?))
                .expect("a diagnostic's line is a line of the journal");
            json!({
                "line": line,
                "case": case,
                "offset": d.get("offset").cloned().unwrap_or(Value::Null),
                "severity": d["severity"],
                "code": d["code"],
                "message": d["message"],
            })
        })
        .collect();
    json!({
        "dialect": report["dialect"],
        "events": report["events"],
        "diagnostics": diagnostics,
    })
}

/// `dialect` as the command line spells it (the journal's file name), `reported` as the import's
/// JSON report does.
fn check(dialect: &str, reported: &str) {
    let input = fixtures().join(format!("{dialect}.jsonl"));
    let bytes = std::fs::read(&input).expect("the dialect's journal is committed");
    check_journal(dialect, &bytes);
    let work = tempfile::tempdir().expect("temp dir");
    let actual = outcome(dialect, reported, &input, work.path());
    let expected_path = fixtures().join(format!("{dialect}.expected.json"));
    if std::env::var_os("JOURNALSCOPE_BLESS").is_some() {
        let mut pretty = serde_json::to_string_pretty(&actual).expect("serialise");
        pretty.push('\n');
        std::fs::write(&expected_path, pretty).expect("write expected");
        return;
    }
    let expected: Value = serde_json::from_slice(
        &std::fs::read(&expected_path)
            .unwrap_or_else(|_| panic!("{dialect}: {} is committed", expected_path.display())),
    )
    .expect("expected file is JSON");
    assert!(
        actual == expected,
        "{dialect}: the import gives its committed diagnostics, word for word: expected\n{}\nactual\n{}",
        serde_json::to_string_pretty(&expected).unwrap_or_default(),
        serde_json::to_string_pretty(&actual).unwrap_or_default()
    );
}

#[test]
fn iterate_json_edges_give_their_committed_diagnostics() {
    check("iterate", "iterate");
}

#[test]
fn ag_ui_json_edges_give_their_committed_diagnostics() {
    check("ag-ui", "ag-ui");
}

#[test]
fn agentskit_json_edges_give_their_committed_diagnostics() {
    check("agentskit", "agents-kit");
}

#[test]
fn claude_code_json_edges_give_their_committed_diagnostics() {
    check("claude-code", "claude-code");
}

#[test]
fn codex_json_edges_give_their_committed_diagnostics() {
    check("codex", "codex");
}
