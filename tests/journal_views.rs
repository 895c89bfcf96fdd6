//! The `Journal` facade the CLI and the desktop share: paging and filtering the event list,
//! stepping between marks, the timeline, and dialect-specific views refusing the wrong dialect.

use std::path::PathBuf;

use journalscope::import::ImportControl;
use journalscope::journal::{Demo, EventQuery, Journal, StepTarget};
use journalscope_agui::agui::MessageWindow;

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
    let journal = open_demo(Demo::Iterate, &dir);
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
    let journal = open_demo(Demo::Iterate, &dir);
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
    let journal = open_demo(Demo::Iterate, &dir);
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
    let journal = open_demo(Demo::Iterate, &dir);
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
    let journal = open_demo(Demo::AgUi, &dir);
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
    let journal = open_demo(Demo::Iterate, &dir);
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
    let journal = open_demo(Demo::Iterate, &dir);
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
    let iterate = open_demo(Demo::Iterate, &dir);
    let err = iterate
        .agui_step(0, MessageWindow::FIRST)
        .expect_err("an iterate journal has no AG-UI state");
    assert_eq!(
        err.code(),
        "wrong-dialect",
        "the desktop matches on the code"
    );
    let other = tempfile::tempdir().expect("temp dir");
    let agui = open_demo(Demo::AgUi, &other);
    let err = agui
        .projection(1)
        .expect_err("an AG-UI journal has no iterate projection");
    assert_eq!(err.code(), "wrong-dialect", "and the other way round");
    assert_eq!(
        err.to_string(),
        "this is an ag-ui journal, which has no projection: they are a view of iterate journals",
        "the message names the view and the journals that have it"
    );
    assert!(
        agui.agui_step(0, MessageWindow::FIRST).is_ok(),
        "the first AG-UI step folds"
    );
    assert!(
        !agui.agui_runs().expect("runs").is_empty(),
        "the AG-UI demo has runs"
    );
    let third = tempfile::tempdir().expect("temp dir");
    let agentskit = open_demo(Demo::AgentsKit, &third);
    let turns = agentskit.agentskit_turns(None).expect("turns");
    assert!(
        !turns.lines.is_empty(),
        "every AgentsKit line gets a verdict"
    );
}

#[test]
fn an_event_detail_keeps_the_original_bytes_and_pretty_prints_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::Iterate, &dir);
    let detail = journal.event_detail(0).expect("detail");
    let first_line = std::str::from_utf8(Demo::Iterate.bytes())
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
    let journal = open_demo(Demo::Iterate, &dir);
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

#[test]
fn a_reload_after_a_follower_appended_shows_what_a_fresh_open_shows() {
    use journalscope::dialect::Dialect;
    use journalscope_gen::{write_journal, GenOptions};
    for dialect in [
        Dialect::Iterate,
        Dialect::AgUi,
        Dialect::AgentsKit,
        Dialect::ClaudeCode,
        Dialect::Codex,
    ] {
        let mut text = Vec::new();
        write_journal(
            &mut text,
            &GenOptions {
                dialect,
                events: 3_000,
                seed: 5,
                contract: journalscope_gen::ContractName::Seed,
            },
        )
        .expect("generate");
        let text = String::from_utf8(text).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("journal.jsonl");
        let db = dir.path().join("journal.sqlite");
        std::fs::write(&file, lines[..2_000].join("\n") + "\n").expect("write the start");
        let mut quiet = |_| {};
        let mut control = ImportControl {
            progress: &mut quiet,
            cancel: None,
        };
        let journal = Journal::open(&file, Some(&db), &mut control).expect("open");
        // A follower (another connection) appends the rest while the journal is open.
        std::fs::write(&file, lines.join("\n") + "\n").expect("grow the file");
        let follower = journalscope::store::Store::open(&db).expect("follower's store");
        journalscope::import::import_file(&follower, &file, &mut control).expect("append");
        drop(follower);
        // Filtered before the reload: the rows a filter keeps are kept for its next pages, and
        // must take in what was appended.
        let common = journal.event_types().expect("types")[0].kind.clone();
        let filters = [
            EventQuery {
                text: Some("E".to_string()),
                ..EventQuery::default()
            },
            EventQuery {
                types: vec![common],
                ..EventQuery::default()
            },
        ];
        for filter in &filters {
            journal.events_page(filter).expect("filtered page");
        }

        let reloaded = journal.reload().expect("reload");
        let fresh = Journal::open_quietly(&db).expect("a fresh open");
        let what = format!("{dialect:?}");
        // The last filter first: it is the one kept, which the reload must have extended.
        for filter in filters.iter().rev() {
            let whole = fresh.events_page(&EventQuery {
                limit: 10_000,
                ..filter.clone()
            });
            let whole = whole.expect("filtered page");
            assert!(
                whole.rows.iter().any(|row| row.seq >= 2_000),
                "{what}: {filter:?} keeps appended events, or this test shows nothing"
            );
            let seam = whole.rows.partition_point(|row| row.seq < 2_000) as u64;
            let page = EventQuery {
                start: seam.saturating_sub(5),
                limit: 10,
                ..filter.clone()
            };
            assert_eq!(
                reloaded.events_page(&page).expect("page"),
                fresh.events_page(&page).expect("page"),
                "{what}: {filter:?} keeps the same rows across the seam after a reload"
            );
            let last = whole.rows.last().map(|row| row.seq).expect("a row");
            assert_eq!(
                reloaded.row_of_seq(filter, last).expect("row"),
                Some(whole.total - 1),
                "{what}: {filter:?} finds an appended event at its row"
            );
        }
        assert_eq!(
            reloaded.event_count(),
            3_000,
            "{what}: the appended events are in"
        );
        assert_eq!(
            reloaded.info().expect("info").last_offset,
            fresh.info().expect("info").last_offset,
            "{what}: the same last offset"
        );
        assert_eq!(
            reloaded.timeline(64).expect("the timeline reads"),
            fresh.timeline(64).expect("the timeline reads"),
            "{what}: the same timeline"
        );
        let page = EventQuery {
            start: 1_990,
            limit: 20,
            ..EventQuery::default()
        };
        assert_eq!(
            reloaded.events_page(&page).expect("page"),
            fresh.events_page(&page).expect("page"),
            "{what}: the same rows across the seam"
        );
        assert_eq!(
            reloaded.diagnostics().expect("diagnostics read"),
            fresh.diagnostics().expect("diagnostics read"),
            "{what}: the same diagnostics"
        );
        for seq in [0, 1_999, 2_000, 2_999] {
            match dialect {
                Dialect::AgUi => assert_eq!(
                    reloaded.agui_step(seq, MessageWindow::FIRST).expect("step"),
                    fresh.agui_step(seq, MessageWindow::FIRST).expect("step"),
                    "{what}: the same AG-UI step at {seq}, either side of the seam"
                ),
                Dialect::AgentsKit => assert_eq!(
                    reloaded.agentskit_state(seq, None).expect("state"),
                    fresh.agentskit_state(seq, None).expect("state"),
                    "{what}: the same held snapshot at {seq}, either side of the seam"
                ),
                Dialect::Iterate | Dialect::ClaudeCode | Dialect::Codex => {
                    let at = fresh.event(seq).expect("event").offset.expect("an offset");
                    assert_eq!(
                        reloaded.step_at(at, None).expect("view"),
                        fresh.step_at(at, None).expect("view"),
                        "{what}: the same view at {seq}, either side of the seam"
                    );
                }
            }
        }
        match dialect {
            Dialect::AgUi => assert_eq!(
                reloaded.agui_runs().expect("runs"),
                fresh.agui_runs().expect("runs"),
                "{what}: the same runs"
            ),
            Dialect::AgentsKit => assert_eq!(
                reloaded.agentskit_turns(None).expect("turns"),
                fresh.agentskit_turns(None).expect("turns"),
                "{what}: the same turns"
            ),
            Dialect::ClaudeCode | Dialect::Codex => assert_eq!(
                reloaded.conversation_requests().expect("requests"),
                fresh.conversation_requests().expect("requests"),
                "{what}: the same requests"
            ),
            Dialect::Iterate => {}
        }
        if dialect == Dialect::Iterate {
            let last = fresh.info().expect("info").last_offset.expect("an offset");
            for at in [last / 3, last * 2 / 3, last] {
                assert_eq!(
                    reloaded.projection(at).expect("projection"),
                    fresh.projection(at).expect("projection"),
                    "{what}: the same projection at @{at}"
                );
            }
            assert_eq!(
                reloaded.requests().expect("requests"),
                fresh.requests().expect("requests"),
                "{what}: the same requests"
            );
        }
    }
}

#[test]
fn every_row_of_a_dense_or_sparse_page_carries_the_marks_and_severity_a_scan_finds() {
    // Protects the event list's reads of marks and diagnostics (one range for a dense page,
    // a lookup per row for a filter's): each row must show what the whole journal says of it.
    for demo in [Demo::Iterate, Demo::AgUi, Demo::AgentsKit] {
        let dir = tempfile::tempdir().expect("temp dir");
        let journal = open_demo(demo, &dir);
        let marks = journal.marks().expect("marks read");
        let diagnostics = journal.diagnostics_with_seq().expect("diagnostics read");
        let expect = |row: &journalscope::journal::EventRow| {
            let mut kinds: Vec<String> = Vec::new();
            for m in marks.iter().filter(|m| m.seq == row.seq) {
                if !kinds.contains(&m.kind) {
                    kinds.push(m.kind.clone());
                }
            }
            let severity = diagnostics
                .iter()
                .filter(|(seq, _)| *seq == row.seq)
                .map(|(_, d)| d.severity)
                .min();
            // Advice (info) wears no badge; errors and warnings do.
            if severity.is_some_and(|s| s != journalscope::diagnostic::Severity::Info) {
                kinds.push("diagnostic".to_string());
            }
            (kinds, severity)
        };
        let dense = journal.events_page(&EventQuery::default()).expect("page");
        let types = journal.event_types().expect("types");
        let sparse = journal
            .events_page(&EventQuery {
                types: types.iter().take(1).map(|t| t.kind.clone()).collect(),
                ..EventQuery::default()
            })
            .expect("filtered page");
        assert!(!sparse.rows.is_empty(), "{demo:?}: the filter keeps rows");
        for row in dense.rows.iter().chain(&sparse.rows) {
            assert_eq!(
                (row.marks.clone(), row.severity),
                expect(row),
                "{demo:?}: event {} shows its own marks and severity",
                row.seq
            );
        }
    }
}

#[test]
fn regression_advice_wears_no_alarm_badge_in_the_event_list() {
    use journalscope::diagnostic::Severity;
    // The AG-UI demo's first tool call names a parent message the thread lacks: advice (info).
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open_demo(Demo::AgUi, &dir);
    let page = journal
        .events_page(&EventQuery {
            limit: 1_000,
            ..EventQuery::default()
        })
        .expect("page");
    let advised: Vec<_> = page
        .rows
        .iter()
        .filter(|r| r.severity == Some(Severity::Info))
        .collect();
    assert!(!advised.is_empty(), "the demo holds advice");
    assert!(
        advised
            .iter()
            .all(|r| !r.marks.iter().any(|m| m == "diagnostic")),
        "advice is no alarm: {advised:?}"
    );
    assert!(
        page.rows
            .iter()
            .filter(|r| matches!(r.severity, Some(Severity::Error | Severity::Warning)))
            .all(|r| r.marks.iter().any(|m| m == "diagnostic")),
        "errors and warnings keep their badge"
    );
}

#[test]
fn a_text_filter_over_a_long_journal_scanned_on_two_threads_keeps_what_one_pass_keeps() {
    // 60,000 events: past the length from which the filter splits its scan in two.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("long.jsonl");
    let mut text = String::new();
    for offset in 1..=60_000u64 {
        // The needle sits in a record's bytes every 7th event, and across the halves' seam.
        let word = if offset % 7 == 0 || (29_998..=30_002).contains(&offset) {
            "needle"
        } else {
            "hay"
        };
        text.push_str(&format!(
            "{{\"offset\":{offset},\"type\":\"events.iterate.com/agent/context-added\",\
             \"payload\":{{\"role\":\"user\",\"content\":\"{word} {offset}\"}}}}\n"
        ));
    }
    std::fs::write(&path, text).expect("write the journal");
    let mut quiet = |_| {};
    let journal = Journal::open(
        &path,
        Some(&dir.path().join("long.sqlite")),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the journal opens");
    let page = journal
        .events_page(&EventQuery {
            text: Some("NEEDLE".to_string()),
            start: 0,
            limit: 10_000,
            ..EventQuery::default()
        })
        .expect("page");
    let one_pass = journal
        .store()
        .filtered_seqs(
            journal.row().id,
            &journalscope::store::EventFilter {
                types: &[],
                text: Some("NEEDLE"),
            },
            0,
            u64::MAX,
        )
        .expect("one pass");
    let listed: Vec<u64> = page.rows.iter().map(|r| r.seq).collect();
    assert_eq!(
        page.total,
        one_pass.len() as u64,
        "the split scan counts every hit once"
    );
    assert_eq!(
        listed,
        one_pass[..listed.len()],
        "the split scan lists the hits in file order, the seam included"
    );
    assert!(
        one_pass.contains(&29_998) && one_pass.contains(&30_001),
        "the hits on both sides of the seam are found"
    );
}

/// The desktop reads a long thread's messages a page at a time: a step carries one page and
/// the thread's length, and the pages read one after another add up to the whole thread.
#[test]
fn agui_messages_come_in_bounded_pages_that_add_up_to_the_thread() {
    // Given a generated AG-UI journal long enough for its thread to span many pages.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("long.agui.ndjson");
    let mut bytes = Vec::new();
    journalscope_gen::write_journal(
        &mut bytes,
        &journalscope_gen::GenOptions {
            dialect: journalscope::dialect::Dialect::AgUi,
            events: 5_000,
            seed: 7,
            contract: journalscope_gen::ContractName::Seed,
        },
    )
    .expect("generate the journal");
    std::fs::write(&path, bytes).expect("write the journal");
    let mut quiet = |_| {};
    let journal = Journal::open(
        &path,
        Some(&dir.path().join("journal.sqlite")),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the generated journal opens");
    let events = journal
        .events_page(&EventQuery::default())
        .expect("page")
        .total;
    for seq in [events / 2, events - 1] {
        // When the step is asked for with every message, and again a page of 7 at a time.
        let whole = journal
            .agui_step(seq, MessageWindow::FIRST)
            .expect("the step folds");
        assert!(
            whole.message_count > 14 && whole.message_count < MessageWindow::MAX,
            "at {seq} the thread spans several small pages and fits one large one: {}",
            whole.message_count
        );
        let first = journal
            .agui_step(seq, MessageWindow { start: 0, limit: 7 })
            .expect("the step folds");
        let mut paged = Vec::new();
        while (paged.len() as u64) < whole.message_count {
            let start = paged.len() as u64;
            let page = journal
                .agui_messages(whole.at, MessageWindow { start, limit: 7 })
                .expect("a page of messages");
            assert_eq!(page.start, start, "at {seq} a page starts where asked");
            assert_eq!(
                page.total, whole.message_count,
                "at {seq} a page counts the thread as the step does"
            );
            assert!(
                !page.messages.is_empty() && page.messages.len() <= 7,
                "at {seq} a page holds at most what was asked for, and something before the end"
            );
            paged.extend(page.messages);
        }
        // Then the pages are the thread, and the step's own page is the first of them.
        assert_eq!(
            paged, whole.messages,
            "at {seq} the pages add up to the thread"
        );
        assert_eq!(
            first.messages,
            whole.messages[..7],
            "at {seq} a step carries the page its window asks for"
        );
        assert_eq!(
            first.message_count, whole.message_count,
            "at {seq} a step counts every message, not just its page"
        );
        let past = journal
            .agui_messages(
                whole.at,
                MessageWindow {
                    start: u64::MAX,
                    limit: u64::MAX,
                },
            )
            .expect("a window past the end still answers");
        assert!(
            past.messages.is_empty() && past.start == whole.message_count,
            "at {seq} a window past the end is an empty page at the end"
        );
    }
}
