//! Search, the SQL console, breakpoints and bookmarks on the bundled iterate demo: full-text
//! hits and item filters, read-only console views that refuse every write, breakpoint runs
//! forward and backward, and bookmarks that persist in the journal's database.

use std::path::{Path, PathBuf};

use journalscope::breakpoint::Breakpoint;
use journalscope::console::{ConsoleError, ConsoleQuery};
use journalscope::import::ImportControl;
use journalscope::journal::{Demo, Journal};
use journalscope::search::text::record_values;
use journalscope::search::SearchQuery;
use journalscope_iterate::iterate::Transport;
use proptest::prelude::*;

fn open(path: &Path, db: &Path) -> Journal {
    let mut quiet = |_| {};
    Journal::open(
        path,
        Some(db),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the journal opens")
}

fn demo(dir: &tempfile::TempDir) -> (Journal, PathBuf, PathBuf) {
    let path = dir.path().join("iterate-demo.jsonl");
    std::fs::write(
        &path,
        Demo::named("iterate").expect("the iterate demo").bytes(),
    )
    .expect("write the demo journal");
    let db = dir.path().join("journal.sqlite");
    (open(&path, &db), path, db)
}

fn offsets(journal: &Journal, query: &SearchQuery) -> Vec<Option<i64>> {
    journal
        .search(query)
        .expect("search")
        .hits
        .iter()
        .map(|h| h.offset)
        .collect()
}

fn text(t: &str) -> SearchQuery {
    SearchQuery {
        text: Some(t.to_string()),
        ..SearchQuery::default()
    }
}

#[test]
fn given_the_demo_when_searching_a_word_then_every_event_whose_text_holds_it_is_a_hit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    assert_eq!(
        offsets(&journal, &text("APPROVE")),
        [
            Some(4),
            Some(15),
            Some(19),
            Some(22),
            Some(23),
            Some(25),
            Some(28)
        ],
        "case-insensitive substring hits in file order"
    );
    let result = journal.search(&text("approve")).expect("search");
    assert_eq!(result.total, 7, "the total counts every hit");
    let snippet = result.hits[1].snippet.as_deref().unwrap_or_default();
    assert!(
        snippet.contains("[approve]"),
        "the snippet marks the match: {snippet}"
    );
}

#[test]
fn given_the_demo_when_searching_a_json_key_then_only_the_broken_line_has_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    assert_eq!(
        offsets(&journal, &text("createdAt")),
        [],
        "keys are not indexed"
    );
    assert_eq!(
        journal
            .search(&text(r#""role":"user""#))
            .expect("search")
            .hits
            .iter()
            .map(|h| h.seq)
            .collect::<Vec<_>>(),
        [23],
        "the line that is not JSON is searched by its bytes"
    );
    assert_eq!(
        offsets(&journal, &text("#1")),
        [Some(3), Some(6), Some(7), Some(17), Some(18), Some(25)],
        "text shorter than a trigram still finds its events"
    );
}

#[test]
fn given_item_filters_then_only_items_with_those_facts_are_hits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let github = SearchQuery {
        role: Some("developer".to_string()),
        actor: Some("github".to_string()),
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &github),
        [Some(6), Some(7), Some(17), Some(18)],
        "developer items from the github actor"
    );
    let keyed = SearchQuery {
        text: Some("pull request".to_string()),
        key: Some("github/review-task".to_string()),
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &keyed),
        [Some(6), Some(7), Some(17), Some(18)],
        "text and key together"
    );
    let system = SearchQuery {
        lane: Some("system".to_string()),
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &system),
        [Some(4), Some(19)],
        "the system lane"
    );
    let requests = SearchQuery {
        types: vec!["llm-request-requested".to_string()],
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &requests),
        [Some(8), Some(21), Some(29)],
        "a type by its last segment"
    );
}

#[test]
fn given_the_published_filter_then_it_is_judged_at_the_offset_asked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let unpublished_at_end = SearchQuery {
        published: Some(false),
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &unpublished_at_end),
        [Some(30), Some(32), Some(33)],
        "items after the last request @29 are unpublished at the end"
    );
    let unpublished_at_7 = SearchQuery {
        published: Some(false),
        at: Some(7),
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &unpublished_at_7),
        [Some(3), Some(4), Some(5), Some(6), Some(7)],
        "before the first request nothing is published (and later items do not exist yet)"
    );
    let published_at_8 = SearchQuery {
        published: Some(true),
        at: Some(8),
        ..SearchQuery::default()
    };
    assert_eq!(
        offsets(&journal, &published_at_8),
        [Some(3), Some(4), Some(5), Some(6), Some(7)],
        "request @8 publishes everything before it, @6 included though @7 replaced it"
    );
}

#[test]
fn given_a_journal_that_grows_when_reopened_then_a_search_finds_the_new_events() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, path, db) = demo(&dir);
    assert!(
        offsets(&journal, &text("kumquat")).is_empty(),
        "nothing yet"
    );
    drop(journal);
    let line = r#"{"offset":34,"type":"events.iterate.com/agent/context-added","payload":{"role":"user","content":"A kumquat appears."},"createdAt":"2026-11-20T09:03:30.000Z"}"#;
    let mut bytes = std::fs::read(&path).expect("read");
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    std::fs::write(&path, bytes).expect("append");
    let journal = open(&path, &db);
    assert_eq!(
        offsets(&journal, &text("kumquat")),
        [Some(34)],
        "the appended tail is searchable as soon as it is stored"
    );
}

#[test]
fn given_a_type_filter_and_text_then_only_events_of_that_type_holding_it_are_hits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let all = journal.search(&text("approve")).expect("search").hits;
    let typed = journal
        .search(&SearchQuery {
            types: vec!["context-added".to_string()],
            ..text("approve")
        })
        .expect("search")
        .hits;
    assert!(
        !typed.is_empty() && typed.len() < all.len(),
        "the type narrows the text's hits: {typed:?} of {all:?}"
    );
    assert!(
        typed.iter().all(|h| h
            .kind
            .as_deref()
            .is_some_and(|k| k.ends_with("/context-added"))),
        "every hit is of the type asked for, named by its last segment: {typed:?}"
    );
    let limited = journal
        .search(&SearchQuery {
            limit: Some(2),
            ..text("approve")
        })
        .expect("search");
    assert_eq!(
        (limited.hits.len(), limited.total, limited.truncated),
        (2, all.len() as u64, true),
        "a limit keeps the first hits and still counts them all"
    );
}

fn sql(
    journal: &Journal,
    text: &str,
) -> Result<journalscope::console::ConsoleResult, ConsoleError> {
    journal.sql(&ConsoleQuery {
        sql: text.to_string(),
        ..ConsoleQuery::default()
    })
}

#[test]
fn given_the_console_then_its_views_answer_for_this_journal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let count = sql(&journal, "SELECT count(*) AS n FROM events").expect("count");
    assert_eq!(count.columns, ["n"], "column names come back");
    assert_eq!(
        count.rows,
        [[serde_json::json!(30)]],
        "every event of the demo"
    );
    let requests = sql(
        &journal,
        "SELECT offset, published_through FROM requests ORDER BY offset",
    )
    .expect("requests");
    assert_eq!(
        requests.rows,
        [
            [serde_json::json!(8), serde_json::json!(8)],
            [serde_json::json!(21), serde_json::json!(21)],
            [serde_json::json!(29), serde_json::json!(29)]
        ],
        "the requests view"
    );
    let every_column = sql(
        &journal,
        "SELECT seq, offset, model, created_at, published_through, newly_published, items, \
         compactions_before FROM requests ORDER BY seq",
    )
    .expect("every column of the requests view");
    let expected: Vec<Vec<serde_json::Value>> = journal
        .requests()
        .expect("requests")
        .into_iter()
        .map(|r| {
            vec![
                serde_json::json!(journal.seq_of_offset(r.offset).expect("seq")),
                serde_json::json!(r.offset),
                serde_json::json!(r.model),
                serde_json::json!(r.created_at),
                serde_json::json!(r.published_through),
                serde_json::json!(r.newly_published),
                serde_json::json!(r.items),
                serde_json::json!(r.compactions_before),
            ]
        })
        .collect();
    assert_eq!(
        every_column.rows, expected,
        "the requests view reads the analysis's rows and gives what the request list gives, \
         column by column"
    );
    let items = journal
        .sql(&ConsoleQuery {
            sql: "SELECT lane, offset FROM items ORDER BY lane DESC, position".to_string(),
            at: Some(8),
            ..ConsoleQuery::default()
        })
        .expect("items");
    assert_eq!(
        items.rows,
        [
            [serde_json::json!("system"), serde_json::json!(4)],
            [serde_json::json!("history"), serde_json::json!(3)],
            [serde_json::json!("history"), serde_json::json!(5)],
            [serde_json::json!("history"), serde_json::json!(7)]
        ],
        "items hold the projection at the offset asked"
    );
    let compactions = sql(&journal, "SELECT offset, cutoff FROM compactions").expect("compactions");
    assert_eq!(
        compactions.rows,
        [[serde_json::json!(25), serde_json::json!(21)]],
        "the compaction and its cutoff"
    );
    let errors = sql(
        &journal,
        "SELECT seq, offset, code FROM diagnostics WHERE severity = 'error'",
    )
    .expect("diagnostics");
    assert_eq!(
        errors.rows,
        [[
            serde_json::json!(23),
            serde_json::Value::Null,
            serde_json::json!("invalid-json")
        ]],
        "the diagnostics view"
    );
}

#[test]
fn given_the_console_when_a_statement_would_write_then_it_is_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, db) = demo(&dir);
    let attached = dir.path().join("other.sqlite");
    let attach = format!("ATTACH DATABASE '{}' AS other", attached.display());
    let schema_version = |journal: &journalscope::journal::Journal| -> i64 {
        journal
            .store()
            .inspection_connection()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version")
    };
    let version_before = schema_version(&journal);
    let writes = [
        "INSERT INTO main.events (journal_id, seq, line, byte_start, byte_len, summary) VALUES (1, 99, 1, 0, 0, '')",
        "INSERT INTO main.event_bytes (id, raw) VALUES (99, x'00')",
        "DELETE FROM main.events",
        "UPDATE main.journals SET source_path = 'x'",
        "DROP TABLE main.marks",
        "CREATE TABLE t (x)",
        "CREATE TEMP TABLE t (x)",
        "DELETE FROM items",
        attach.as_str(),
        "PRAGMA query_only = 0",
        "PRAGMA user_version = 99",
        "BEGIN IMMEDIATE",
        "VACUUM",
        "SELECT 1; DELETE FROM main.events",
    ];
    for statement in writes {
        match sql(&journal, statement) {
            Err(ConsoleError::Refused(_)) => {}
            other => panic!("{statement:?} must be refused, got {other:?}"),
        }
    }
    assert!(!attached.exists(), "ATTACH created no file");
    assert_eq!(
        schema_version(&journal),
        version_before,
        "the schema version is untouched"
    );
    assert_eq!(
        journal
            .store()
            .event_count(journal.row().id)
            .expect("count"),
        30,
        "no event was removed"
    );
    assert!(db.exists(), "the database is still there");
}

#[test]
fn given_the_console_when_a_query_runs_away_then_rows_are_capped_and_time_is_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let many = sql(
        &journal,
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 5000) SELECT n FROM r",
    )
    .expect("capped");
    assert_eq!(many.rows.len(), 1000, "at most 1,000 rows by default");
    assert!(many.truncated, "and it says it cut them");
    let endless = journal.sql(&ConsoleQuery {
        sql:
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
                .to_string(),
        timeout_ms: Some(50),
        ..ConsoleQuery::default()
    });
    assert!(
        matches!(endless, Err(ConsoleError::Interrupted(50))),
        "an endless query is interrupted: {endless:?}"
    );
    let bad = sql(&journal, "SELECT nope FROM events");
    assert_eq!(
        bad.as_ref().err().map(ConsoleError::code),
        Some("sql"),
        "a mistake is an sql error: {bad:?}"
    );
}

fn run(journal: &Journal, on: &str, from: Option<i64>, forward: bool) -> Option<i64> {
    let breakpoint = Breakpoint::parse(on).expect("breakpoint");
    let start = from.map(|o| journal.seq_of_offset(o).expect("seq").expect("an event"));
    breakpoint
        .run(journal, start, forward)
        .expect("run")
        .and_then(|hit| hit.offset)
}

/// Every stop of a breakpoint running forward from the start: offsets, `None` for an event
/// that has none.
fn walk(journal: &Journal, on: &str) -> Vec<Option<i64>> {
    let breakpoint = Breakpoint::parse(on).expect("breakpoint");
    let mut stops = Vec::new();
    let mut at = None;
    while let Some(hit) = breakpoint.run(journal, at, true).expect("run") {
        stops.push(hit.offset);
        at = Some(hit.seq);
    }
    stops
}

fn some(offsets: &[i64]) -> Vec<Option<i64>> {
    offsets.iter().copied().map(Some).collect()
}

#[test]
fn given_breakpoints_when_run_forward_and_backward_then_they_stop_at_each_hit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    assert_eq!(walk(&journal, "request"), some(&[8, 21, 29]), "requests");
    assert_eq!(walk(&journal, "compaction"), some(&[25]), "compactions");
    assert_eq!(
        walk(&journal, "diagnostic"),
        [Some(22), Some(26), None],
        "diagnostics, the line that is not JSON (no offset) included"
    );
    assert_eq!(
        walk(&journal, "key:github/review-task"),
        some(&[6, 7, 17, 18]),
        "every change of a keyed slot"
    );
    assert_eq!(
        walk(&journal, "sql:type LIKE '%settled'"),
        some(&[13, 23, 31]),
        "a SQL predicate over events"
    );
    assert_eq!(
        run(&journal, "request", Some(21), false),
        Some(8),
        "backward"
    );
    assert_eq!(
        run(&journal, "request", Some(20), false),
        Some(8),
        "backward from between"
    );
    assert_eq!(
        run(&journal, "request", Some(29), true),
        None,
        "nothing after the last"
    );
    assert_eq!(
        run(&journal, "request", None, false),
        Some(29),
        "backward from the end"
    );
    assert_eq!(
        run(&journal, "sql:type LIKE '%settled'", Some(23), false),
        Some(13),
        "a SQL predicate backward"
    );
}

#[test]
fn given_downgrade_breakpoints_then_every_transport_stops_at_the_downgrade_marks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let openai = walk(&journal, "downgrade:openai");
    let workers = walk(&journal, "downgrade:workers-ai");
    let any = walk(&journal, "downgrade");
    assert_eq!(
        openai,
        some(&[6, 7, 15, 17, 18, 25, 32]),
        "external actors and the compaction summary are downgraded on openai"
    );
    assert_eq!(
        workers, openai,
        "both downgrades give the same role on every transport, so they stop alike"
    );
    assert_eq!(any, openai, "a transport's stops are the downgrade marks");
}

#[test]
fn given_prefix_breakpoints_then_they_stop_where_the_shared_prefix_shrinks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, _, _) = demo(&dir);
    let bodies: Vec<Vec<u8>> = [8, 21, 29]
        .iter()
        .map(|o| journal.request_body(*o, Transport::Openai).expect("body"))
        .collect();
    let first = journalscope::breakpoint::common_prefix(&bodies[0], &bodies[1]);
    let second = journalscope::breakpoint::common_prefix(&bodies[1], &bodies[2]);
    assert!(
        second < first,
        "the compaction cut the shared prefix: {first} then {second}"
    );
    assert_eq!(
        walk(&journal, "prefix-shrinks:openai"),
        some(&[29]),
        "the cached prefix of @29 ({second} bytes) against @21's ({first} bytes)"
    );
}

#[test]
fn given_bookmarks_then_they_are_kept_in_the_journal_database_and_can_be_stepped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (journal, path, db) = demo(&dir);
    let at7 = journal.seq_of_offset(7).expect("seq").expect("@7");
    let at21 = journal.seq_of_offset(21).expect("seq").expect("@21");
    journal.set_bookmark(at21, "second request").expect("add");
    journal.set_bookmark(at7, "coalesced here").expect("add");
    journal.set_bookmark(at7, "coalesced @6").expect("edit");
    let marks = journal.bookmarks().expect("list");
    let notes: Vec<(Option<i64>, &str)> =
        marks.iter().map(|b| (b.offset, b.note.as_str())).collect();
    assert_eq!(
        notes,
        [(Some(7), "coalesced @6"), (Some(21), "second request")],
        "one bookmark per event, edited in place, in file order"
    );
    assert_eq!(
        journal
            .step_bookmark(Some(at7), true)
            .expect("step")
            .map(|b| b.seq),
        Some(at21),
        "u goes to the next bookmark"
    );
    assert_eq!(
        journal.step_bookmark(Some(at7), false).expect("step"),
        None,
        "U finds nothing before the first"
    );
    drop(journal);
    let journal = open(&path, &db);
    assert_eq!(
        journal.bookmarks().expect("list").len(),
        2,
        "bookmarks are saved with the journal's database"
    );
    assert!(journal.remove_bookmark(at21).expect("remove"), "removed");
    assert!(!journal.remove_bookmark(at21).expect("remove"), "only once");
    let seen = sql(&journal, "SELECT offset, note FROM bookmarks").expect("view");
    assert_eq!(
        seen.rows,
        [[serde_json::json!(7), serde_json::json!("coalesced @6")]],
        "the console sees bookmarks"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Search finds exactly the events one of whose values holds the needle, whatever its case.
    #[test]
    fn search_hits_are_exactly_the_events_whose_values_hold_the_needle(
        event in 0usize..30,
        value in 0usize..8,
        start in 0usize..200,
        len in 1usize..9,
        upper in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let (journal, _, _) = demo(&dir);
        let values: Vec<Vec<String>> = journal
            .store()
            .events(journal.row().id)
            .expect("events")
            .iter()
            .map(|e| record_values(&e.raw))
            .collect();
        let of_event = &values[event];
        prop_assume!(!of_event.is_empty());
        let chars: Vec<char> = of_event[value % of_event.len()].chars().collect();
        prop_assume!(!chars.is_empty());
        let from = start % chars.len();
        let needle: String = chars[from..(from + len).min(chars.len())].iter().collect();
        prop_assume!(needle.is_ascii() && !needle.trim().is_empty() && needle.trim() == needle);
        let needle = if upper { needle.to_ascii_uppercase() } else { needle };
        let lower = needle.to_ascii_lowercase();
        let expected: Vec<u64> = values
            .iter()
            .enumerate()
            .filter(|(_, vs)| vs.iter().any(|v| v.to_ascii_lowercase().contains(&lower)))
            .map(|(i, _)| i as u64)
            .collect();
        let found: Vec<u64> = journal
            .search(&text(&needle))
            .expect("search")
            .hits
            .iter()
            .map(|h| h.seq)
            .collect();
        prop_assert_eq!(found, expected, "needle {:?}", needle);
    }
}
