//! The `Journal` facade the CLI and the desktop share: paging and filtering the event list,
//! stepping between marks, the timeline, and dialect-specific views refusing the wrong dialect.

use std::path::PathBuf;

use journalscope::dialect::{Ask, MessageWindow};
use journalscope::import::ImportControl;
use journalscope::journal::{Demo, EventQuery, Journal, StepTarget};

mod pages;

/// The window's step at row `seq`, with the first page of a thread's messages.
fn step(seq: u64) -> Ask {
    Ask::Step {
        seq,
        session: None,
        window: MessageWindow::FIRST,
    }
}

fn open_demo(demo: Demo, dir: &tempfile::TempDir) -> Journal {
    let path: PathBuf = dir.path().join(demo.file_name());
    std::fs::write(&path, demo.bytes()).expect("write the demo journal");
    let mut quiet = |_| {};
    Journal::open(
        &path,
        Some(&dir.path().join("journal.sqlite")),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the demo journal opens")
}

#[test]
fn unfiltered_pages_follow_file_order_and_report_the_total() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let page = journal
        .events_page(&EventQuery {
            start: 5,
            limit: 4,
            ..EventQuery::default()
        })
        .expect("page");
    assert_eq!(page.total, 30, "the total counts every event of the demo");
    let seqs: Vec<u64> = page.rows.iter().map(|r| r.seq).collect();
    assert_eq!(
        seqs,
        [5, 6, 7, 8],
        "a page starts where asked and keeps file order"
    );
}

#[test]
fn filters_by_type_and_text_and_locates_a_row_in_the_filtered_list() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let requests = EventQuery {
        types: vec!["events.iterate.com/agent/llm-request-requested".to_string()],
        ..EventQuery::default()
    };
    let page = journal.events_page(&requests).expect("page");
    let offsets: Vec<Option<i64>> = page.rows.iter().map(|r| r.offset).collect();
    assert_eq!(
        offsets,
        [Some(8), Some(21), Some(29)],
        "only requests pass the type filter"
    );
    assert_eq!(
        page.total, 3,
        "a type filter's total, read from the kept type counts, is its number of rows"
    );
    assert!(
        page.rows
            .iter()
            .all(|r| r.marks.contains(&"request".to_string())),
        "request rows carry the request badge"
    );
    let seq_of_21 = page.rows[1].seq;
    assert_eq!(
        journal.row_of_seq(&requests, seq_of_21).expect("row"),
        Some(1),
        "the second request is the second row of the filtered list"
    );
    let text = EventQuery {
        text: Some("IGNORE PREVIOUS".to_string()),
        ..EventQuery::default()
    };
    let found = journal.events_page(&text).expect("page");
    assert!(
        found.rows.iter().any(|r| r.offset == Some(15)),
        "text search finds the script output by its raw content"
    );
    assert_eq!(
        journal.row_of_seq(&text, 0).expect("row"),
        None,
        "an event the filter hides has no row"
    );
}

#[test]
fn regression_row_of_seq_counted_the_whole_table_without_a_filter() {
    // Unfiltered, the row is the seq (seqs are dense); it used to count every row before it,
    // 145 ms a step in a 200,000-event journal. The answer must not change.
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let all = EventQuery::default();
    let count = journal.info().expect("info").event_count;
    let page = journal
        .events_page(&EventQuery {
            limit: count,
            ..EventQuery::default()
        })
        .expect("page");
    for (row, event) in page.rows.iter().enumerate() {
        assert_eq!(
            journal.row_of_seq(&all, event.seq).expect("row"),
            Some(row as u64),
            "the unfiltered row of an event is its place in the list"
        );
    }
    assert_eq!(
        journal.row_of_seq(&all, count).expect("row"),
        None,
        "a seq past the end has no row"
    );
}

#[test]
fn stepping_moves_between_requests_compactions_and_diagnostics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let seq_of = |offset| {
        journal
            .seq_of_offset(offset)
            .expect("lookup")
            .expect("present")
    };
    let offset_of = |seq| journal.offset_at_seq(seq).expect("lookup");
    let next = journal
        .step(0, StepTarget::Request, true)
        .expect("the store reads")
        .expect("a request follows");
    assert_eq!(offset_of(next), Some(8), "the first request is @8");
    let back = journal
        .step(seq_of(29), StepTarget::Request, false)
        .expect("the store reads")
        .expect("a request precedes");
    assert_eq!(offset_of(back), Some(21), "the request before @29 is @21");
    let compaction = journal
        .step(0, StepTarget::Compaction, true)
        .expect("the store reads")
        .expect("compaction");
    assert_eq!(offset_of(compaction), Some(25), "the demo compacts at @25");
    assert!(
        journal
            .step(seq_of(33), StepTarget::Event, true)
            .expect("the store reads")
            .is_none(),
        "nothing follows the last event"
    );
    let diagnostic = journal
        .step(0, StepTarget::Diagnostic, true)
        .expect("the store reads")
        .expect("diagnostic");
    assert_eq!(
        offset_of(diagnostic),
        Some(22),
        "the first diagnostic is the ungenuine answer"
    );
    assert_eq!(
        journal.seq_of_offset(10).expect("lookup").map(offset_of),
        Some(Some(8)),
        "going to an offset in a gap lands on the event before it"
    );
}

#[test]
fn ag_ui_journals_step_by_run_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("ag-ui").expect("the AG-UI demo"), &dir);
    let offset_of = |seq| journal.offset_at_seq(seq).expect("lookup");
    let second = journal
        .step(0, StepTarget::Run, true)
        .expect("the store reads")
        .expect("the demo's second run follows its first");
    assert_eq!(
        offset_of(second),
        Some(29),
        "J/K land on the second RUN_STARTED, @29"
    );
    let first = journal
        .step(second, StepTarget::Run, false)
        .expect("the store reads")
        .expect("the first run precedes the second");
    assert_eq!(
        offset_of(first),
        Some(1),
        "stepping back by run lands on the first RUN_STARTED"
    );
    assert!(
        journal
            .step(second, StepTarget::Run, true)
            .expect("the store reads")
            .is_none(),
        "no run starts after the last one"
    );
}

#[test]
fn the_timeline_covers_every_event_and_marks_requests_and_compactions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let timeline = journal.timeline(8).expect("the timeline reads");
    assert_eq!(
        timeline.density.iter().map(|d| *d as u64).sum::<u64>(),
        timeline.event_count,
        "density buckets add up to the event count"
    );
    assert_eq!(
        timeline
            .marks
            .iter()
            .filter(|m| m.kind == "request")
            .count(),
        3,
        "one mark per request"
    );
    assert_eq!(
        timeline
            .marks
            .iter()
            .filter(|m| m.kind == "compaction")
            .count(),
        1,
        "one mark per compaction"
    );
}

#[test]
fn a_zoomed_timeline_spans_its_range_and_keeps_the_marks_and_diagnostics_inside_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let whole = journal.timeline(64).expect("the timeline reads");
    // Given the span from the second request's seq to the end, and one past the end
    let from = whole
        .marks
        .iter()
        .filter(|m| m.kind == "request")
        .nth(1)
        .expect("a second request")
        .seq;
    let zoomed = journal
        .timeline_of(64, Some(from..=u64::MAX))
        .expect("the zoomed timeline reads");
    // Then it spans exactly that part of the journal, clamped to its last event
    assert_eq!(
        (zoomed.first_seq, zoomed.last_seq, zoomed.event_count),
        (from, whole.event_count - 1, whole.event_count),
        "the span is clamped to the journal, and the count is still the journal's"
    );
    assert_eq!(
        zoomed.density.iter().map(|d| *d as u64).sum::<u64>(),
        zoomed.last_seq - zoomed.first_seq + 1,
        "density buckets add up to the events spanned"
    );
    // And it keeps exactly the marks and diagnostics of the whole picture that fall inside
    let inside = |seq: u64| seq >= from;
    let kept: Vec<_> = whole.marks.iter().filter(|m| inside(m.seq)).collect();
    assert_eq!(
        zoomed.marks.iter().collect::<Vec<_>>(),
        kept,
        "a demo this short keeps every mark, so the zoomed marks are the whole's inside the span"
    );
    assert_eq!(
        zoomed.diagnostic_seqs,
        whole
            .diagnostic_seqs
            .iter()
            .copied()
            .filter(|s| inside(*s))
            .collect::<Vec<_>>(),
        "the diagnostics inside the span, and none outside"
    );
    assert!(
        zoomed
            .marks
            .iter()
            .any(|m| m.kind == "request" && m.seq == from),
        "the request the span starts at is drawn"
    );
}

#[test]
fn dialect_views_refuse_a_journal_of_another_dialect_with_a_stable_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let iterate = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let err = iterate
        .view(&Ask::Turns { session: None })
        .expect_err("an iterate journal has no turns");
    assert_eq!(
        err.code(),
        "wrong-dialect",
        "the desktop matches on the code"
    );
    let other = tempfile::tempdir().expect("temp dir");
    let agui = open_demo(Demo::named("ag-ui").expect("the AG-UI demo"), &other);
    let err = agui
        .projection(1)
        .expect_err("an AG-UI journal has no iterate projection");
    assert_eq!(err.code(), "wrong-dialect", "and the other way round");
    assert_eq!(
        err.to_string(),
        "this is an ag-ui journal, which has no projection: they are a view of iterate journals",
        "the message names the view and the journals that have it"
    );
    assert!(agui.view(&step(0)).is_ok(), "the first AG-UI step folds");
    let runs = agui.view(&Ask::Turns { session: None }).expect("runs");
    assert!(
        runs.as_array().is_some_and(|runs| !runs.is_empty()),
        "the AG-UI demo has runs: {runs}"
    );
    let third = tempfile::tempdir().expect("temp dir");
    let agentskit = open_demo(
        Demo::named("agentskit").expect("the AgentsKit demo"),
        &third,
    );
    let turns = agentskit
        .view(&Ask::Turns { session: None })
        .expect("turns");
    assert!(
        turns["lines"]
            .as_array()
            .is_some_and(|lines| !lines.is_empty()),
        "every AgentsKit line gets a verdict"
    );
}

#[test]
fn an_event_detail_keeps_the_original_bytes_and_pretty_prints_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    let detail = journal.event_detail(0).expect("detail");
    let first_line = std::str::from_utf8(Demo::named("iterate").expect("the iterate demo").bytes())
        .expect("utf-8")
        .lines()
        .next()
        .expect("a first line")
        .to_string();
    assert_eq!(
        detail.raw, first_line,
        "raw is the line exactly as in the file"
    );
    assert!(
        detail.pretty.as_deref().is_some_and(|p| p.contains("\n  ")),
        "pretty is indented JSON"
    );
    let malformed = journal
        .events_page(&EventQuery::default())
        .expect("page")
        .rows
        .into_iter()
        .find(|r| r.offset.is_none())
        .expect("the demo has a malformed line");
    let detail = journal.event_detail(malformed.seq).expect("detail");
    assert!(
        detail.pretty.is_none(),
        "a line that is not JSON has no pretty form"
    );
    assert!(
        detail.diagnostics.iter().any(|d| d.code == "invalid-json"),
        "and carries its invalid-json diagnostic"
    );
}

#[test]
fn every_event_detail_carries_exactly_its_own_marks_and_diagnostics() {
    // Protects the detail's seek into the journal's marks and diagnostics (both in seq order):
    // it must find what a scan of all of them finds, for every event.
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::named("iterate").expect("the iterate demo"), &dir);
    for seq in 0..journal.event_count() {
        let detail = journal.event_detail(seq).expect("detail");
        let marks: Vec<_> = journal
            .marks()
            .expect("marks read")
            .iter()
            .filter(|m| m.seq == seq)
            .cloned()
            .collect();
        assert_eq!(detail.marks, marks, "the marks of event {seq}");
        let mut diagnostics: Vec<_> = journal
            .diagnostics_with_seq()
            .expect("diagnostics read")
            .iter()
            .filter(|(s, _)| *s == seq)
            .map(|(_, d)| d.clone())
            .collect();
        diagnostics.dedup();
        assert_eq!(
            detail.diagnostics, diagnostics,
            "the diagnostics of event {seq}"
        );
    }
    assert!(
        !journal.marks().expect("marks read").is_empty()
            && !journal
                .diagnostics_with_seq()
                .expect("diagnostics read")
                .is_empty(),
        "the demo has both to find"
    );
}
