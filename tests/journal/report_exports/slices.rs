//! Slices of a journal and the command line's sizes, report and slice.

use super::*;

/// A journal line: an event at an offset, or (None) a line that is not JSON.
fn journal_lines(offsets: &[Option<i64>]) -> Vec<String> {
    offsets
        .iter()
        .enumerate()
        .map(|(i, o)| match o {
            Some(o) => line(
                *o,
                "context-added",
                json!({"role": "user", "actor": {"type": "user"}, "content": format!("line {i} \u{e9} \"q\"")}),
            ),
            None => format!("not json {i}"),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn any_slice_reimports_into_the_same_events(
        gaps in proptest::collection::vec((1i64..4, proptest::bool::weighted(0.15)), 1..24),
        ends in (0i64..80, 0i64..80),
    ) {
        let mut offset = 0;
        let offsets: Vec<Option<i64>> = gaps
            .iter()
            .map(|(gap, broken)| {
                offset += gap;
                (!broken).then_some(offset)
            })
            .collect();
        let text = journal_text(&journal_lines(&offsets));
        let dir = tempfile::tempdir().expect("temp dir");
        let journal = open_bytes(dir.path(), "j.jsonl", text.as_bytes());

        let whole = slice::slice_bytes(&journal, OffsetRange::all()).expect("whole slice");
        prop_assert_eq!(&whole, text.as_bytes(), "the slice of the whole range is the original lines");

        let range = OffsetRange { from: Some(ends.0.min(ends.1)), to: Some(ends.0.max(ends.1)) };
        let bytes = slice::slice_bytes(&journal, range).expect("slice");
        let originals = journal.store().events(journal.row().id).expect("events");
        let seqs = range.seqs(&journal).expect("seqs");
        let expected: Vec<(Option<i64>, Vec<u8>)> = seqs
            .iter()
            .map(|s| (originals[*s as usize].offset, originals[*s as usize].raw.clone()))
            .collect();
        for (o, _) in &expected {
            prop_assert!(o.is_none_or(|o| range.contains(o)), "a slice holds only events of its range");
        }
        if expected.is_empty() {
            prop_assert!(bytes.is_empty(), "an empty selection writes nothing");
        } else {
            let again = open_bytes(dir.path(), "slice.jsonl", &bytes);
            let events = again.store().events(again.row().id).expect("events");
            let got: Vec<(Option<i64>, Vec<u8>)> = events.iter().map(|e| (e.offset, e.raw.clone())).collect();
            prop_assert_eq!(got, expected, "the slice re-imports into the same events, raw bytes and offsets");
        }
    }
}

// ---------------------------------------------------------------- CLI

#[test]
fn cli_sizes_prints_one_row_per_request_as_text_and_json() {
    let cli = Cli::new();
    let text = cli.ok(&["sizes", "demo"]);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with('@'))
        .collect();
    assert_eq!(rows.len(), 3, "one row per request: {text}");
    assert!(
        rows[2].contains("compaction×1"),
        "@29 follows a compaction: {text}"
    );
    assert!(
        rows[2].contains("prefix-break"),
        "@29 breaks the prefix: {text}"
    );
    assert!(
        text.contains("counted with o200k_base, the encoding of gpt-5.1"),
        "the tokenizer is named: {text}"
    );
    let columns: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(
        (columns[7], columns[8]),
        ("578", "578"),
        "@21 counts 578 tokens, as its provider reported: {text}"
    );
    let json = cli.json(&["sizes", "demo", "--json"]);
    let list = json.as_array().expect("a list of sizes");
    assert_eq!(list.len(), 3, "three requests as JSON");
    assert_eq!(
        list[2]["requestOffset"], 29,
        "camelCase fields, offsets as numbers"
    );
    assert_eq!(list[2]["prefixBreak"], true, "the break is in the JSON");
    assert_eq!(
        list[2]["compactionsBefore"], 1,
        "the compaction is in the JSON"
    );
    let workers = cli.json(&[
        "sizes",
        "demo",
        "--json",
        "--transport",
        "workers-ai",
        "--from",
        "20",
    ]);
    assert_eq!(
        workers.as_array().map(Vec::len),
        Some(2),
        "--from keeps @21 and @29"
    );
    let wrong = cli.run(&["sizes", "demo:ag-ui"]);
    assert!(!wrong.status.success(), "sizes needs an iterate journal");
}

#[test]
fn cli_report_writes_the_library_html_and_prints_json() {
    let cli = Cli::new();
    let out = tempfile::tempdir().expect("out dir");
    let file = out.path().join("report.html");
    let text = cli.ok(&["report", "demo", "-o", file.to_str().expect("utf-8")]);
    assert!(
        text.starts_with(
            "wrote the report of iterate-demo.jsonl (whole journal, 30 events, 3 requests) to "
        ),
        "the CLI says what it wrote: {text}"
    );
    let written = std::fs::read_to_string(&file).expect("the report file");
    let golden = std::fs::read_to_string(golden_path()).expect("golden");
    assert_eq!(
        written, golden,
        "the CLI writes the golden report of the demo"
    );
    let stdout = cli.ok(&["report", "demo"]);
    assert_eq!(stdout, golden, "without -o the HTML goes to stdout");
    let json = cli.json(&["report", "demo", "--json", "--from", "9", "--to", "25"]);
    assert_eq!(json["fileName"], "iterate-demo.jsonl", "the file is named");
    assert_eq!(
        json["range"],
        json!({"from": 9, "to": 25}),
        "the range is echoed"
    );
    assert_eq!(
        json["requests"].as_array().map(Vec::len),
        Some(1),
        "one request in range"
    );
    assert_eq!(json["dialect"], "iterate", "the dialect is named");
    let agui = cli.json(&["report", "demo:ag-ui", "--json"]);
    assert_eq!(agui["dialect"], "ag-ui", "other dialects get a report too");
}

#[test]
fn cli_slice_writes_the_original_lines_and_says_so() {
    let cli = Cli::new();
    let out = tempfile::tempdir().expect("out dir");
    let file = out.path().join("slice.jsonl");
    let path = file.to_str().expect("utf-8");
    let text = cli.ok(&["slice", "demo", "--from", "3", "--to", "8", "-o", path]);
    assert!(
        text.starts_with("wrote 6 events (") && text.contains("of @3 … @8 to "),
        "the CLI says what it wrote: {text}"
    );
    let written = std::fs::read_to_string(&file).expect("slice file");
    let demo = String::from_utf8(
        Demo::named("iterate")
            .expect("the iterate demo")
            .bytes()
            .to_vec(),
    )
    .expect("utf-8 demo");
    let expected: String = demo
        .lines()
        .skip(2)
        .take(6)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(written, expected, "lines @3 … @8 of the demo, verbatim");
    let json = cli.json(&[
        "slice", "demo", "--from", "3", "--to", "8", "-o", path, "--json",
    ]);
    assert_eq!(
        json,
        json!({"events": 6, "bytes": expected.len()}),
        "--json says how much was written"
    );
    let stdout = cli.ok(&["slice", "demo", "--from", "3", "--to", "8"]);
    assert_eq!(stdout, expected, "without -o the slice goes to stdout");
    let refused = cli.run(&["slice", "demo", "--json"]);
    assert!(
        !refused.status.success(),
        "--json needs -o (the slice itself is the output)"
    );
}
