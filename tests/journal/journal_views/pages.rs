//! Reloads, pages of the event list and of an AG-UI thread, each as a fresh scan finds them.

use super::*;

#[test]
fn a_reload_after_a_follower_appended_shows_what_a_fresh_open_shows() {
    use journalscope::dialect::{Dialect, Family};
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
            assert_eq!(
                reloaded.view(&step(seq)).expect("step"),
                fresh.view(&step(seq)).expect("step"),
                "{what}: the same step at {seq}, either side of the seam"
            );
            if dialect != Dialect::AgUi && dialect != Dialect::AgentsKit {
                let at = fresh.event(seq).expect("event").offset.expect("an offset");
                let state = Ask::State { at, session: None };
                assert_eq!(
                    reloaded.view(&state).expect("view"),
                    fresh.view(&state).expect("view"),
                    "{what}: the same view at {seq}, either side of the seam"
                );
            }
        }
        if reloaded.answers(Family::Turns) {
            let turns = Ask::Turns { session: None };
            assert_eq!(
                reloaded.view(&turns).expect("turns"),
                fresh.view(&turns).expect("turns"),
                "{what}: the same turns, or runs"
            );
        } else {
            assert_eq!(
                reloaded.view(&Ask::Requests).expect("requests"),
                fresh.view(&Ask::Requests).expect("requests"),
                "{what}: the same requests"
            );
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
    for demo in [
        Demo::named("iterate").expect("the iterate demo"),
        Demo::named("ag-ui").expect("the AG-UI demo"),
        Demo::named("agentskit").expect("the AgentsKit demo"),
    ] {
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
    let journal = open_demo(Demo::named("ag-ui").expect("the AG-UI demo"), &dir);
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
        let whole = journal.view(&step(seq)).expect("the step folds");
        let count = whole["messageCount"]
            .as_u64()
            .expect("a step counts its messages");
        let at = whole["at"].as_i64().expect("a step has an offset");
        let messages = |value: &serde_json::Value| -> Vec<serde_json::Value> {
            value["messages"].as_array().cloned().unwrap_or_default()
        };
        assert!(
            count > 14 && count < MessageWindow::MAX,
            "at {seq} the thread spans several small pages and fits one large one: {count}"
        );
        let small = |start, limit| MessageWindow { start, limit };
        let first = journal
            .view(&Ask::Step {
                seq,
                session: None,
                window: small(0, 7),
            })
            .expect("the step folds");
        let mut paged = Vec::new();
        while (paged.len() as u64) < count {
            let start = paged.len() as u64;
            let window = small(start, 7);
            let page = journal
                .view(&Ask::Messages { at, window })
                .expect("a page of messages");
            assert_eq!(page["start"], start, "at {seq} a page starts where asked");
            assert_eq!(
                page["total"], count,
                "at {seq} a page counts the thread as the step does"
            );
            let page = messages(&page);
            assert!(
                !page.is_empty() && page.len() <= 7,
                "at {seq} a page holds at most what was asked for, and something before the end"
            );
            paged.extend(page);
        }
        // Then the pages are the thread, and the step's own page is the first of them.
        assert_eq!(
            paged,
            messages(&whole),
            "at {seq} the pages add up to the thread"
        );
        assert_eq!(
            messages(&first),
            messages(&whole)[..7],
            "at {seq} a step carries the page its window asks for"
        );
        assert_eq!(
            first["messageCount"], count,
            "at {seq} a step counts every message, not just its page"
        );
        let window = small(u64::MAX, u64::MAX);
        let past = journal
            .view(&Ask::Messages { at, window })
            .expect("a window past the end still answers");
        assert!(
            messages(&past).is_empty() && past["start"] == count,
            "at {seq} a window past the end is an empty page at the end"
        );
    }
}
