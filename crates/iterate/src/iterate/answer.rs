//! The questions the command line asks an iterate journal by family (its projection, its
//! requests, one request and its body, a diff, the prompt cache and the context sizes), each
//! read from the store and answered with its JSON and iterate's text of it.

use journalscope_seam::family::{Answer, Ask, AskError, Body, BodyFormat, Reply, Transports};
use journalscope_shapes::redact::RedactError;
use journalscope_store::store::{JournalRow, Store, StoreError};

use super::checkpoint::request_at;
use super::diff::{self, CacheReport, RequestDiff};
use super::render::{ExportFormat, ExportOptions, RequestSnapshot};
use super::view::{IterateError, RequestSummary, RequestView};
use super::{sizes, stored, text, Transport};

impl From<IterateError> for AskError {
    fn from(err: IterateError) -> AskError {
        AskError::Refused {
            code: err.code(),
            message: err.to_string(),
        }
    }
}

/// Every request with what it published: the rows the analysis stored, in file order.
pub fn requests(store: &Store, journal_id: i64) -> Result<Vec<RequestSummary>, StoreError> {
    Ok(store
        .request_rows(journal_id)?
        .into_iter()
        .filter_map(|(_, row)| serde_json::from_str(&row).ok())
        .collect())
}

/// The offset of the journal's last request, from the request marks.
pub fn last_request(store: &Store, journal_id: i64) -> Result<Option<i64>, StoreError> {
    match store.next_mark(journal_id, "request", None, false)? {
        Some(seq) => store.offset_at_or_before_seq(journal_id, seq),
        None => Ok(None),
    }
}

/// Two requests compared, each rendered on its own transport (`from`, `to`); `from` defaults
/// to the request before `to`.
pub fn request_diff(
    store: &Store,
    journal_id: i64,
    from: Option<i64>,
    to: i64,
    (from_transport, to_transport): (Transport, Transport),
) -> Result<Result<RequestDiff, IterateError>, StoreError> {
    let from = match from {
        Some(from) => from,
        None => {
            // Validates `to` first, so a bad offset says so rather than "no earlier request".
            if let Err(error) = request_at(store, journal_id, to, to_transport)? {
                return Ok(Err(error));
            }
            match diff::request_before_stored(store, journal_id, to)? {
                Some(before) => before,
                None => return Ok(Err(IterateError::NoEarlierRequest(to))),
            }
        }
    };
    diff::request_diff_stored(
        store,
        journal_id,
        (from, from_transport),
        (to, to_transport),
    )
}

/// The cache report of the requests with an offset in `range` (either end open), the first of
/// them still set against the request before it, with the cached input the journal reports.
pub fn cache_report(
    store: &Store,
    journal_id: i64,
    transport: Transport,
    range: (Option<i64>, Option<i64>),
) -> Result<CacheReport, StoreError> {
    let report = diff::cache_report_stored(store, journal_id, transport, range)?;
    let reported = stored::reported_usage(store, journal_id, range)?;
    Ok(report.with_reported(&reported))
}

/// The transport a question names, openai when it names none.
fn transport_named(name: Option<&str>) -> Result<Transport, AskError> {
    match name {
        None => Ok(Transport::Openai),
        Some(name) => Transport::parse(name).ok_or_else(|| {
            AskError::refused(
                "unknown-transport",
                format!(
                    "no transport {name:?}: an iterate journal's requests are rendered on {}",
                    Transport::ALL.map(Transport::as_str).join(" or ")
                ),
            )
        }),
    }
}

/// The transports of a diff: each end's own, else the one both share, else openai.
fn diff_transports(transports: &Transports) -> Result<(Transport, Transport), AskError> {
    let both = transport_named(transports.both.as_deref())?;
    let end = |name: &Option<String>| match name {
        Some(name) => transport_named(Some(name)),
        None => Ok(both),
    };
    Ok((end(&transports.from)?, end(&transports.to)?))
}

/// The request at `at` on the transport `transports` names.
fn request(
    store: &Store,
    journal_id: i64,
    at: i64,
    transports: &Transports,
) -> Result<RequestSnapshot, AskError> {
    let transport = transport_named(transports.both.as_deref())?;
    Ok(request_at(store, journal_id, at, transport)??)
}

/// The request at `at` in full, as the window's request pane shows it: its blocks from the
/// checkpoints, with what the provider reported of it and how that agrees with the count.
fn request_detail(
    store: &Store,
    journal_id: i64,
    at: i64,
    transport: Transport,
) -> Result<RequestView, AskError> {
    let mut view = stored::request_view_at(store, journal_id, at, transport)??;
    let row = stored::request_summaries_in(store, journal_id, (Some(at), Some(at)))?
        .into_iter()
        .find(|row| row.offset == at);
    if let Some(row) = row {
        view.reported = row.reported;
        view.reconciliation = row.reconciliation();
    }
    Ok(view)
}

/// A request's answer: the snapshot with each message's count, and its text.
pub fn request_answer(snapshot: &RequestSnapshot) -> Answer {
    Answer::of(&text::request_json(snapshot), |out, _| {
        text::request(out, snapshot)
    })
}

/// Why a body cannot leave the program: a path to redact that is no JSON path.
fn unredactable(err: RedactError) -> AskError {
    AskError::refused(err.code(), err.to_string())
}

/// The answer to `ask` about the stored iterate journal `journal`.
pub fn answer(store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
    let id = journal.id;
    let view = match ask {
        // Iterate's state at an offset is its projection; it has no sessions to pick.
        Ask::Projection { at } | Ask::State { at, .. } => {
            let view = stored::projection(store, id, *at)?;
            Answer::of(&view, |out, view| text::projection(out, view))
        }
        // The window steps by row: the projection at the row's offset, an empty one before the
        // first record with an offset.
        Ask::Step { seq, .. } => {
            let at = store.offset_at_or_before_seq(id, *seq)?;
            let mut view = stored::projection(store, id, at.unwrap_or(i64::MIN))?;
            if at.is_none() {
                view.at = 0;
            }
            Answer::of(&view, |out, view| text::projection(out, view))
        }
        Ask::Requests => Answer::of(&requests(store, id)?, |out, rows| text::requests(out, rows)),
        Ask::Request { at, transports } => request_answer(&request(store, id, *at, transports)?),
        Ask::Detail { at, transports } => {
            let transport = transport_named(transports.both.as_deref())?;
            Answer::view(&request_detail(store, id, *at, transport)?)
        }
        Ask::Compaction { at } => Answer::view(&stored::compaction_at(store, id, *at)??),
        Ask::Body {
            at,
            transports,
            format,
            exact,
            redact_paths,
        } => {
            let snapshot = request(store, id, *at, transports)?;
            let options = ExportOptions {
                format: match format {
                    BodyFormat::Body => ExportFormat::Body,
                    BodyFormat::Curl => ExportFormat::Curl,
                },
                exact: *exact,
                redact_paths: redact_paths.clone(),
            };
            let export = snapshot.export(&options).map_err(unredactable)?;
            let what = match options.format {
                ExportFormat::Body => "body",
                ExportFormat::Curl => "curl command",
            };
            return Ok(Reply::Body(Body {
                bytes: export.bytes,
                what: format!("{} {what}", snapshot.transport.as_str()),
                secrets: export.secrets,
                redacted: export.redacted,
                request: request_answer(&snapshot),
            }));
        }
        Ask::Diff {
            from,
            to,
            transports,
        } => {
            let transports = diff_transports(transports)?;
            let to = match to {
                Some(to) => *to,
                None => last_request(store, id)?.ok_or_else(|| {
                    AskError::refused("no-requests", "the journal has no requests to diff")
                })?,
            };
            let diff = request_diff(store, id, *from, to, transports)??;
            Answer::of(&diff, |out, diff| text::prefix::diff(out, diff))
        }
        Ask::Cache { range, transports } => {
            let transport = transport_named(transports.both.as_deref())?;
            let report = cache_report(store, id, transport, *range)?;
            Answer::of(&report, |out, report| text::prefix::cache(out, report))
        }
        Ask::CacheAround {
            at,
            before,
            after,
            transports,
        } => {
            let transport = transport_named(transports.both.as_deref())?;
            let range = stored::requests_around(store, id, *at, (*before, *after))?;
            let report = cache_report(store, id, transport, range)?;
            Answer::of(&report, |out, report| text::prefix::cache(out, report))
        }
        Ask::Sizes { range, transports } => {
            let transport = transport_named(transports.both.as_deref())?;
            let sizes = sizes::context_sizes(store, id, *range, transport)?;
            Answer::of(&sizes, |out, sizes| text::sizes(out, sizes))
        }
        // The turns of a session are AgentsKit's family, an iterate journal's lineage no one's,
        // and its projection comes whole.
        Ask::Turns { .. } | Ask::Subagents | Ask::SpawnedBy | Ask::Messages { .. } => {
            return Err(AskError::NotOffered(ask.family()))
        }
    };
    Ok(Reply::View(view))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterate::INTERPRETER;
    use journalscope_seam::interpreter::{fold_all, read_record, Interpreter};
    use journalscope_shapes::source::{Framing, RawRecord};
    use journalscope_store::derived::Dialect;
    use journalscope_store::store::NewJournal;

    /// Three requests of the seed contract, a compaction between the second and the third.
    const JOURNAL: &[&str] = &[
        r#"{"offset":1,"type":"events.iterate.com/agent/created","payload":{},"createdAt":"2026-11-20T10:00:01.000Z"}"#,
        r#"{"offset":2,"type":"events.iterate.com/agent/context-added","payload":{"role":"system","content":"You review pull requests.","key":"agent/system-prompt"},"createdAt":"2026-11-20T10:00:02.000Z"}"#,
        r#"{"offset":3,"type":"events.iterate.com/agent/context-added","payload":{"role":"user","content":"Please review PR #9. My key is sk-abcdefghijklmnopqrstuvwxyz0123456789.","actor":{"type":"user","userId":"u_1"}},"createdAt":"2026-11-20T10:00:03.000Z"}"#,
        r#"{"offset":4,"type":"events.iterate.com/agent/llm-request-requested","payload":{"model":"gpt-5.1"},"createdAt":"2026-11-20T10:00:04.000Z"}"#,
        r#"{"offset":5,"type":"events.iterate.com/agent/context-added","payload":{"role":"assistant","content":"Reading the diff now.","llmRequestOffset":4},"createdAt":"2026-11-20T10:00:05.000Z"}"#,
        r#"{"offset":6,"type":"events.iterate.com/agent/context-added","payload":{"role":"user","content":"Also check the tests.","actor":{"type":"user","userId":"u_1"}},"createdAt":"2026-11-20T10:00:06.000Z"}"#,
        r#"{"offset":7,"type":"events.iterate.com/agent/llm-request-requested","payload":{"model":"gpt-5.1"},"createdAt":"2026-11-20T10:00:07.000Z"}"#,
        r#"{"offset":8,"type":"events.iterate.com/agent/context-added","payload":{"role":"assistant","content":"Tests pass.","llmRequestOffset":7},"createdAt":"2026-11-20T10:00:08.000Z"}"#,
        r#"{"offset":9,"type":"events.iterate.com/agent/context-added","payload":{"role":"developer","content":"Summary: a review of PR #9.","compaction":{"replacesHistoryThrough":5}},"createdAt":"2026-11-20T10:00:09.000Z"}"#,
        r#"{"offset":10,"type":"events.iterate.com/agent/context-added","payload":{"role":"user","content":"So, approve?","actor":{"type":"user","userId":"u_1"}},"createdAt":"2026-11-20T10:00:10.000Z"}"#,
        r#"{"offset":11,"type":"events.iterate.com/agent/llm-request-requested","payload":{"model":"gpt-5.1"},"createdAt":"2026-11-20T10:00:11.000Z"}"#,
    ];

    /// `lines` imported into an in-memory store and folded, as an import leaves them.
    fn stored(lines: &[&str]) -> (Store, JournalRow) {
        let store = Store::in_memory().expect("an in-memory store opens");
        let id = store
            .create_journal(&NewJournal {
                source_path: "answer.jsonl",
                dialect: Dialect::Iterate,
                framing: Framing::Jsonl,
            })
            .expect("a journal is created");
        let mut reader = INTERPRETER.reader(None);
        let mut byte_start = 0;
        let records: Vec<_> = lines
            .iter()
            .enumerate()
            .map(|(seq, line)| {
                let record = RawRecord {
                    seq: seq as u64,
                    line: seq as u64 + 1,
                    byte_start,
                    byte_len: line.len() as u64,
                    bytes: line.as_bytes().to_vec(),
                };
                byte_start += line.len() as u64 + 1;
                let (read, _) = read_record(reader.as_mut(), &record, false);
                (record, read)
            })
            .collect();
        store.append(id, &records).expect("the records are stored");
        let events = store.events(id).expect("the records read back");
        let analysis = fold_all(&INTERPRETER, &events);
        store
            .replace_analysis(id, &analysis)
            .expect("the analysis is stored");
        let journal = store
            .journal(id)
            .expect("the journal reads back")
            .expect("the journal exists");
        (store, journal)
    }

    fn view(store: &Store, journal: &JournalRow, ask: Ask) -> Answer {
        match INTERPRETER.answer(store, journal, &ask) {
            Ok(Reply::View(answer)) => answer,
            other => panic!("{ask:?} is answered with a view: {other:?}"),
        }
    }

    fn refusal(store: &Store, journal: &JournalRow, ask: Ask) -> (&'static str, String) {
        match INTERPRETER.answer(store, journal, &ask) {
            Err(AskError::Refused { code, message }) => (code, message),
            other => panic!("{ask:?} is refused: {other:?}"),
        }
    }

    fn rendered<T: ?Sized>(
        value: &T,
        render: impl FnOnce(&mut dyn std::fmt::Write, &T) -> std::fmt::Result,
    ) -> String {
        let mut text = String::new();
        render(&mut text, value).expect("text is written to a string");
        text
    }

    fn openai() -> Transports {
        Transports::default()
    }

    #[test]
    fn given_a_journal_when_its_projection_is_asked_then_it_is_the_stored_view() {
        // Given a stored journal
        let (store, journal) = stored(JOURNAL);
        // When the projection at @10 is asked for
        let answer = view(&store, &journal, Ask::Projection { at: 10 });
        // Then the answer is the stored view, in JSON and in iterate's text
        let projection = stored::projection(&store, journal.id, 10).expect("the view reads");
        assert_eq!(
            answer.json,
            serde_json::to_value(&projection).expect("a view serialises"),
            "--json prints the projection view itself"
        );
        assert_eq!(
            answer.text,
            rendered(&projection, text::projection),
            "the text is the projection's rendering"
        );
        assert!(
            answer
                .text
                .starts_with("projection @10 · published through @7 · 1 system, 4 history\n"),
            "the head line counts the lanes: {}",
            answer.text
        );
    }

    #[test]
    fn given_a_journal_when_its_requests_are_asked_then_each_stored_row_is_listed() {
        let (store, journal) = stored(JOURNAL);
        let answer = view(&store, &journal, Ask::Requests);
        let rows = requests(&store, journal.id).expect("the rows read");
        assert_eq!(
            rows.iter().map(|r| r.offset).collect::<Vec<_>>(),
            vec![4, 7, 11],
            "every request the fold stored, in file order"
        );
        assert_eq!(
            answer.json,
            serde_json::to_value(&rows).expect("rows serialise"),
            "--json prints the request rows"
        );
        assert_eq!(
            answer.text,
            rendered(rows.as_slice(), text::requests),
            "the text is the request table"
        );
        assert_eq!(answer.text.lines().count(), 4, "a header and one row each");
    }

    #[test]
    fn given_a_request_when_asked_then_its_messages_carry_their_counts() {
        let (store, journal) = stored(JOURNAL);
        // When the request at @7 is asked for on workers-ai
        let ask = Ask::Request {
            at: 7,
            transports: Transports::one(Some("workers-ai".to_string())),
        };
        let answer = view(&store, &journal, ask);
        // Then it is the snapshot on that transport, each message with its tokens
        let snapshot = request_at(&store, journal.id, 7, Transport::WorkersAi)
            .expect("the store answers")
            .expect("@7 is a request");
        assert_eq!(
            answer.json,
            text::request_json(&snapshot),
            "--json prints the snapshot with each message's count"
        );
        assert_eq!(
            answer.json["messages"][1]["tokens"],
            serde_json::json!(snapshot.tokens.messages[1]),
            "a message's count sits beside it"
        );
        assert_eq!(
            answer.text,
            rendered(&snapshot, text::request),
            "the text is the request's rendering"
        );
        assert!(
            answer.text.contains("transport workers-ai"),
            "the transport asked for is the one rendered"
        );
    }

    #[test]
    fn given_a_bad_question_about_a_request_when_asked_then_it_is_refused_with_a_code() {
        let (store, journal) = stored(JOURNAL);
        let (code, message) = refusal(
            &store,
            &journal,
            Ask::Request {
                at: 7,
                transports: Transports::one(Some("anthropic".to_string())),
            },
        );
        assert_eq!(code, "unknown-transport", "an unknown transport is refused");
        assert!(
            message.contains("openai or workers-ai"),
            "the refusal names the transports there are: {message}"
        );
        let (code, message) = refusal(
            &store,
            &journal,
            Ask::Request {
                at: 5,
                transports: openai(),
            },
        );
        assert_eq!(
            code, "not-a-request",
            "an offset with no request keeps its code"
        );
        assert_eq!(
            message,
            IterateError::NotARequest(5).to_string(),
            "and its message"
        );
    }

    #[test]
    fn given_a_request_when_its_body_is_asked_then_it_leaves_redacted_as_the_export_writes_it() {
        let (store, journal) = stored(JOURNAL);
        let ask = |format, exact| Ask::Body {
            at: 4,
            transports: openai(),
            format,
            exact,
            redact_paths: Vec::new(),
        };
        let snapshot = request_at(&store, journal.id, 4, Transport::Openai)
            .expect("the store answers")
            .expect("@4 is a request");
        for (format, exact, what) in [
            (BodyFormat::Body, false, "openai body"),
            (BodyFormat::Curl, true, "openai curl command"),
        ] {
            let Ok(Reply::Body(body)) = INTERPRETER.answer(&store, &journal, &ask(format, exact))
            else {
                panic!("a body is answered with its bytes");
            };
            let export_format = match format {
                BodyFormat::Body => ExportFormat::Body,
                BodyFormat::Curl => ExportFormat::Curl,
            };
            let export = snapshot
                .export(&ExportOptions {
                    format: export_format,
                    exact,
                    redact_paths: Vec::new(),
                })
                .expect("the body exports");
            assert_eq!(body.bytes, export.bytes, "{what}: the export's bytes");
            assert_eq!(body.what, what, "{what}: named as the confirmation says");
            assert_eq!(
                (body.secrets, body.redacted),
                (export.secrets, !exact),
                "{what}: what was redacted"
            );
            assert_eq!(
                body.request,
                request_answer(&snapshot),
                "{what}: the request beside it"
            );
        }
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Body {
                at: 4,
                transports: openai(),
                format: BodyFormat::Body,
                exact: false,
                redact_paths: vec!["messages[".to_string()],
            },
        );
        assert_eq!(
            code, "bad-redact-path",
            "a path that is no JSON path is refused"
        );
    }

    #[test]
    fn given_no_ends_when_a_diff_is_asked_then_the_last_request_is_set_against_the_one_before() {
        let (store, journal) = stored(JOURNAL);
        let ask = Ask::Diff {
            from: None,
            to: None,
            transports: Transports {
                both: None,
                from: Some("workers-ai".to_string()),
                to: None,
            },
        };
        let answer = view(&store, &journal, ask);
        let diff = request_diff(
            &store,
            journal.id,
            Some(7),
            11,
            (Transport::WorkersAi, Transport::Openai),
        )
        .expect("the store answers")
        .expect("both are requests");
        assert_eq!(
            answer.json,
            serde_json::to_value(&diff).expect("a diff serialises"),
            "--json prints the diff of @7 (on workers-ai) against @11 (on openai)"
        );
        assert_eq!(
            answer.text,
            rendered(&diff, text::prefix::diff),
            "the text is the diff's rendering"
        );
        assert!(
            answer
                .text
                .starts_with("diff request @7 (gpt-5.1, workers-ai) → @11"),
            "each end on its transport: {}",
            answer.text
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Diff {
                from: None,
                to: Some(4),
                transports: openai(),
            },
        );
        assert_eq!(
            code, "no-earlier-request",
            "the first request has nothing before it"
        );
        let (empty, empty_journal) = stored(&JOURNAL[..3]);
        let (code, message) = refusal(
            &empty,
            &empty_journal,
            Ask::Diff {
                from: None,
                to: None,
                transports: openai(),
            },
        );
        assert_eq!(
            (code, message.as_str()),
            ("no-requests", "the journal has no requests to diff"),
            "a journal without requests says so"
        );
    }

    #[test]
    fn given_a_range_when_the_cache_is_asked_then_each_request_is_set_against_the_one_before() {
        let (store, journal) = stored(JOURNAL);
        let range = (Some(7), None);
        let answer = view(
            &store,
            &journal,
            Ask::Cache {
                range,
                transports: openai(),
            },
        );
        let report =
            cache_report(&store, journal.id, Transport::Openai, range).expect("the store answers");
        assert_eq!(
            report.requests.len(),
            2,
            "the requests in the range, the first against the one before"
        );
        assert_eq!(
            answer.json,
            serde_json::to_value(&report).expect("a report serialises"),
            "--json prints the cache report"
        );
        assert_eq!(
            answer.text,
            rendered(&report, text::prefix::cache),
            "the text is the cache report's rendering"
        );
    }

    #[test]
    fn given_a_range_when_sizes_are_asked_then_each_request_is_measured() {
        let (store, journal) = stored(JOURNAL);
        let answer = view(
            &store,
            &journal,
            Ask::Sizes {
                range: (None, Some(7)),
                transports: openai(),
            },
        );
        let sizes = sizes::context_sizes(&store, journal.id, (None, Some(7)), Transport::Openai)
            .expect("the store answers");
        assert_eq!(
            sizes.iter().map(|s| s.request_offset).collect::<Vec<_>>(),
            vec![4, 7],
            "the requests through @7"
        );
        assert_eq!(
            sizes[1].previous_request,
            Some(4),
            "each is measured against the one before"
        );
        assert_eq!(
            answer.json,
            serde_json::to_value(&sizes).expect("sizes serialise"),
            "--json prints the sizes"
        );
        assert_eq!(
            answer.text,
            rendered(sizes.as_slice(), text::sizes),
            "the text is the sizes table"
        );
    }

    #[test]
    fn the_dialect_answers_the_families_it_has_views_of() {
        use journalscope_seam::family::Family;
        for family in [
            Family::Projection,
            Family::Request,
            Family::Diff,
            Family::Cache,
            Family::Sizes,
        ] {
            assert!(INTERPRETER.answers(family), "{family:?} is answered");
        }
    }
}
