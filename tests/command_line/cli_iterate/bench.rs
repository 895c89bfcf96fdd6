//! `journalscope bench`, `project` and `state` as a whole process: every figure the bench prints,
//! and each view from the store.

use super::*;

/// The figures a bench report judges against a target.
fn judged(report: &serde_json::Value) -> Vec<&str> {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter_map(|c| c["figure"].as_str())
        .collect()
}

/// The figures every dialect's bench reports, and that the append it measures leaves the
/// generated journal as it was.
fn assert_scale_figures(report: &serde_json::Value, dir: &std::path::Path) {
    for figure in [
        "/scale/smallImportMs",
        "/scale/costPerEventRatio",
        "/scale/viewP50Ms",
        "/scale/viewP99Ms",
        "/scale/reopenMs",
        "/scale/databaseToJournal",
        "/scale/checkpointShare",
        "/scale/appendMs",
        "/scale/searchPageMs",
        "/scale/searchAllMs",
    ] {
        let value = report.pointer(figure).and_then(serde_json::Value::as_f64);
        assert!(
            value.is_some_and(|v| v >= 0.0),
            "{figure} is measured: {value:?}"
        );
    }
    assert!(
        report["scale"]["viewSamples"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "the view is timed at some offsets: {}",
        report["scale"]["viewSamples"]
    );
    assert!(
        report["scale"]["searchHits"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "the timed search finds something, so it lists hits rather than scanning for none: {}",
        report["scale"]["searchHits"]
    );
    let journal = std::path::Path::new(report["journalPath"].as_str().expect("journal path"));
    assert!(
        journal.starts_with(dir),
        "the journal is in the bench's directory"
    );
    assert_eq!(
        std::fs::metadata(journal).expect("journal").len(),
        report["fileBytes"].as_u64().expect("file bytes"),
        "the append is cut back: a later run reuses the journal as generated"
    );
    let checks = judged(report);
    for target in [
        "import cost per event, N vs N/10",
        "import peak RSS",
        "view at an offset, median",
        "view at an offset, p99",
        "reopen, list and middle",
        "search, first page of hits",
        "search, every hit",
        "database / journal",
        "checkpoints / database",
        "append 1,000 events",
    ] {
        assert!(
            checks.contains(&target),
            "the {target} target is judged: {checks:?}"
        );
    }
}

#[test]
fn bench_of_every_other_dialect_reports_the_scale_figures_without_the_iterate_views() {
    let cli = Cli::new();
    // The JSON spells a dialect as its serde name, the command line as its argument.
    for (dialect, named) in [("ag-ui", "ag-ui"), ("agentskit", "agents-kit")] {
        let dir = tempfile::tempdir().expect("temp dir");
        let report = cli.json(&[
            "bench",
            "--dialect",
            dialect,
            "--events",
            "1500",
            "--dir",
            s(dir.path()),
            "--json",
        ]);
        assert_eq!(
            report["dialect"], named,
            "the journal is of the dialect asked for"
        );
        assert_scale_figures(&report, dir.path());
        assert!(
            report.get("seek").is_none(),
            "{dialect}: the iterate-only views are not reported: {}",
            report["seek"]
        );
    }
}

#[test]
fn bench_prints_every_figure_and_its_target_in_text_and_json() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let args = ["bench", "--events", "3000", "--dir", s(dir.path())];
    let report = cli.json(&[&args[..], &["--compare", "--json"]].concat());
    assert_eq!(
        report["events"], 3000,
        "the journal has the events asked for"
    );
    // The floor needs no peer installed: it is what the `sqlite3` target is judged against.
    assert!(
        report["storeFloorMs"].as_f64().is_some_and(|v| v > 0.0),
        "--compare measures the store floor: {}",
        report["storeFloorMs"]
    );
    let sqlite3_ran = report["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .any(|p| p["tool"] == "sqlite3");
    assert_eq!(
        report["sqlite3RatioCeiling"].as_f64().is_some(),
        sqlite3_ran,
        "the ceiling is given exactly when sqlite3 ran: {}",
        report["sqlite3RatioCeiling"]
    );
    assert!(
        !dir.path().join("bench-store-floor.db").exists(),
        "the floor's database is removed after it is measured"
    );
    for figure in [
        "/import/ms",
        "/import/peakRssBytes",
        "/reopenMs",
        "/firstViewMs",
        "/seek/p99Ms",
        "/requestRenderMs",
    ] {
        let value = report.pointer(figure).and_then(serde_json::Value::as_f64);
        assert!(
            value.is_some_and(|v| v >= 0.0),
            "{figure} is measured: {value:?}"
        );
    }
    assert_scale_figures(&report, dir.path());
    let checks = judged(&report);
    for target in ["import time", "import peak RSS", "seek p99 (in process)"] {
        assert!(
            checks.contains(&target),
            "the {target} target is judged: {checks:?}"
        );
    }

    let text = cli.ok(&args);
    for label in [
        "import ",
        "reopen (unchanged)",
        "first view",
        "search \"",
        "seek (1000 offsets)",
    ] {
        assert!(
            text.contains(label),
            "the text report shows {label:?}:\n{text}"
        );
    }
    assert!(
        text.contains(", reused"),
        "a second run reuses the generated journal:\n{text}"
    );
}

#[test]
fn project_answers_from_the_store_as_a_plain_fold_does_at_any_offset() {
    // Protects `project` on a long journal: the CLI answers from the database (the stored tip
    // at the end, a checkpoint elsewhere) and must print what a plain fold of every parsed
    // record gives.
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("long.jsonl");
    let mut text = Vec::new();
    journalscope_gen::write_synthetic(&mut text, 12_000, 5).expect("generate");
    std::fs::write(&file, text).expect("write");
    let imported = cli.json(&["import", s(&file), "--json"]);
    assert_eq!(imported["events"], 12_000, "import counts every event");
    let journal = journalscope::journal::Journal::open(
        &file,
        Some(&dir.path().join("plain.sqlite")),
        &mut journalscope::import::ImportControl {
            progress: &mut |_| {},
            cancel: None,
        },
    )
    .expect("the library opens the journal");
    let plain = journalscope_iterate::iterate::IterateJournal::from_stored(
        &journal.store().events(journal.row().id).expect("events"),
    );
    let last = journal.event_count() - 1;
    for seq in [10, 7_000, last] {
        let at = journal
            .event(seq)
            .expect("event")
            .offset
            .expect("an offset");
        let printed = cli.json(&["project", s(&file), "--at", &at.to_string(), "--json"]);
        let expected = serde_json::to_value(plain.projection_view(at)).expect("json");
        assert_eq!(
            printed, expected,
            "`project --at {at}` (event {seq}) prints the plain fold's projection"
        );
    }
}

#[test]
fn state_shows_any_journal_in_its_own_shape_and_an_iterate_journal_as_its_projection() {
    // Protects the one command that views every dialect at an offset: on an iterate journal it
    // is the projection `project` prints, in text and in JSON.
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("long.jsonl");
    let mut text = Vec::new();
    journalscope_gen::write_synthetic(&mut text, 3_000, 5).expect("generate");
    std::fs::write(&file, text).expect("write");
    for at in ["7", "1200", "99999"] {
        assert_eq!(
            cli.json(&["state", s(&file), "--at", at, "--json"]),
            cli.json(&["project", s(&file), "--at", at, "--json"]),
            "`state --at {at}` is the projection in JSON"
        );
        assert_eq!(
            cli.ok(&["state", s(&file), "--at", at]),
            cli.ok(&["project", s(&file), "--at", at]),
            "and in text"
        );
    }
}

#[test]
fn project_shows_the_latest_diagnostics_and_counts_every_one_in_text_and_json() {
    // Protects `project` (and each step of the window, which gets the same view) on a journal
    // with a diagnostic on every event: the view carries the latest, the count tells them all.
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("unknown.jsonl");
    let mut text = String::new();
    text.push_str(
        &json!({"offset": 0, "type": "events.iterate.com/agent/context-added",
                "payload": {"role": "system", "key": "agent/system-prompt", "content": "p"}})
        .to_string(),
    );
    text.push('\n');
    for offset in 1..=150 {
        text.push_str(
            &json!({"offset": offset, "type": "events.iterate.com/github/webhook-received"})
                .to_string(),
        );
        text.push('\n');
    }
    std::fs::write(&file, text).expect("write");

    let view = cli.json(&["project", s(&file), "--at", "150", "--json"]);
    assert_eq!(view["diagnosticCount"], 150, "every diagnostic is counted");
    assert_eq!(view["errorCount"], 0, "unknown types are warnings");
    let carried = view["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(carried.len(), 100, "the view carries the latest 100");
    assert_eq!(carried[0]["offset"], 51, "starting after the 50 left out");

    let shown = cli.ok(&["project", s(&file), "--at", "150"]);
    assert!(
        shown.contains("(50 earlier not shown: `journalscope diagnostics` lists every one)"),
        "the text says how many it leaves out and where they are:\n{shown}"
    );
    assert!(
        shown.contains(" @51 ") && !shown.contains(" @50 "),
        "the latest are listed, the earliest are not:\n{shown}"
    );
}

#[test]
fn a_sections_journal_is_viewed_by_its_contract_before_its_events_show_it() {
    let cli = Cli::new();
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate/sections/rewrite.jsonl");
    // The 7.0.0 stamp first shows at the request @4; @1 to @3 carry stated roles only.
    let view = cli.json(&["project", s(&file), "--at", "3", "--json"]);
    let offsets = |lane: &str| -> Vec<i64> {
        view[lane]
            .as_array()
            .expect("a lane")
            .iter()
            .filter_map(|item| item["offset"].as_i64())
            .collect()
    };
    assert_eq!(
        (view["rules"].clone(), offsets("system"), offsets("history")),
        (json!("sections"), vec![1, 2], vec![3]),
        "the standing document and the list, not the seed lanes: {view}"
    );
    assert_eq!(
        view["system"][0]["header"],
        json!("<section key=\"style\">"),
        "a section reads as the contract writes it"
    );
}
