//! What a Claude Code transcript answers when asked by family: the conversation at a line, its
//! requests as the Messages API got them (one, its body, the list), two of them side by side,
//! and the prompt cache and context size of each, as JSON and as the text the command line
//! prints.

use std::fmt::{self, Write};

use serde_json::Value;

use journalscope_seam::conversation::{self, Transcript};
use journalscope_seam::family::{Ask, AskError, Family, Reply};
use journalscope_store::store::{JournalRow, Store, StoreError};
use journalscope_transcript::transcript::cache::{CacheReport, Range};
use journalscope_transcript::transcript::{text, ConversationView, SpawnedBy, Subagent};

use super::view::{self, ConversationRequest};

/// Claude Code as the transcript family reads it.
pub struct Claude;

impl Transcript for Claude {
    type Request = ConversationRequest;

    fn conversation(
        &self,
        store: &Store,
        journal_id: i64,
        at: i64,
    ) -> Result<ConversationView, StoreError> {
        view::projection(store, journal_id, at)
    }

    fn request(
        &self,
        store: &Store,
        journal_id: i64,
        at: i64,
    ) -> Result<Option<ConversationRequest>, StoreError> {
        view::request(store, journal_id, at)
    }

    fn cache_report(
        &self,
        store: &Store,
        journal_id: i64,
        range: Range,
    ) -> Result<CacheReport, StoreError> {
        super::cache::cache_report(store, journal_id, range)
    }

    fn compaction_continues(
        &self,
        store: &Store,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<u64>, StoreError> {
        Ok(store
            .links_to(journal_id, super::fold::PARENT, seq)?
            .first()
            .copied())
    }

    fn subagents(&self, store: &Store, journal: &JournalRow) -> Result<Vec<Subagent>, StoreError> {
        super::subagent::subagents(store, journal)
    }

    fn spawned_by(
        &self,
        store: &Store,
        journal: &JournalRow,
    ) -> Result<Option<SpawnedBy>, StoreError> {
        super::subagent::spawned_by(store, journal)
    }
}

/// The families a Claude Code transcript answers: the transcript family's.
pub fn answers(family: Family) -> bool {
    conversation::answers(family)
}

/// The answer to `ask` about the stored transcript `journal`.
pub fn answer(store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
    conversation::answer(&Claude, store, journal, ask)
}

/// A request as the Messages API got it: each message's blocks a line each, what the
/// transcript does not record, and what is wrong with it.
pub fn request_text(out: &mut impl Write, request: &ConversationRequest) -> fmt::Result {
    // The messages as the client sends them where its rendering is known, as the window shows.
    let messages: Vec<(String, Vec<Value>)> = match &request.sent {
        Some(sent) => sent
            .iter()
            .map(|m| {
                let role = m.get("role").and_then(Value::as_str);
                let content = m.get("content").unwrap_or(&Value::Null);
                (
                    role.unwrap_or("?").to_string(),
                    super::hash::content_blocks(content),
                )
            })
            .collect(),
        None => request
            .messages
            .iter()
            .map(|m| (m.role.clone(), m.content.clone()))
            .collect(),
    };
    writeln!(
        out,
        "request @{} · model {} · {} message{}{}",
        request.request_offset,
        request.model.as_deref().unwrap_or("-"),
        messages.len(),
        if messages.len() == 1 { "" } else { "s" },
        if request.sent.is_some() {
            " as the client sends them"
        } else {
            ""
        }
    )?;
    for (role, content) in &messages {
        writeln!(out, "{role}")?;
        for block in content {
            writeln!(out, "    {}", text::block_line(block))?;
        }
    }
    if !request.not_recorded.is_empty() {
        writeln!(out, "not recorded: {}", request.not_recorded.join("; "))?;
    }
    for d in &request.diagnostics {
        writeln!(out, "{} {}: {}", d.severity.as_str(), d.code, d.message)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use journalscope_seam::conversation::request_answer;
    use journalscope_seam::family::{Answer, BodyFormat, Transports};
    use journalscope_seam::interpreter::{fold_all, read_record, Interpreter};
    use journalscope_shapes::source::{Framing, RawRecord};
    use journalscope_store::store::NewJournal;
    use journalscope_transcript::transcript::requests::SentRequest as _;

    /// A transcript of five requests: a tool call and its result, a break in the cache, a
    /// response with no usage.
    const TRANSCRIPT: &str = include_str!("../../../../tests/fixtures/claude-code/usage.jsonl");

    /// The transcript stored and folded as an import leaves it.
    fn stored() -> (Store, JournalRow) {
        stored_of(TRANSCRIPT)
    }

    /// `transcript` stored and folded as an import leaves it.
    fn stored_of(transcript: &str) -> (Store, JournalRow) {
        let interpreter = &super::super::INTERPRETER;
        let store = Store::in_memory().expect("an in-memory store");
        let id = store
            .create_journal(&NewJournal {
                source_path: "usage.jsonl",
                dialect: interpreter.dialect(),
                framing: Framing::Jsonl,
            })
            .expect("a journal");
        let mut reader = interpreter.reader(None);
        let mut start = 0;
        let records: Vec<_> = transcript
            .lines()
            .enumerate()
            .map(|(seq, line)| {
                let record = RawRecord {
                    seq: seq as u64,
                    line: seq as u64 + 1,
                    byte_start: start,
                    byte_len: line.len() as u64,
                    bytes: line.as_bytes().to_vec(),
                };
                start += line.len() as u64 + 1;
                let (read, _) = read_record(reader.as_mut(), &record, false);
                (record, read)
            })
            .collect();
        store.append(id, &records).expect("the records");
        let events = store.events(id).expect("the stored records");
        store
            .replace_analysis(id, &fold_all(interpreter, &events))
            .expect("the analysis");
        let journal = store.journal(id).expect("read").expect("the journal");
        (store, journal)
    }

    fn view(store: &Store, journal: &JournalRow, ask: Ask) -> Answer {
        match answer(store, journal, &ask) {
            Ok(Reply::View(answer)) => answer,
            other => panic!("{ask:?} gives a view, not {other:?}"),
        }
    }

    fn refusal(store: &Store, journal: &JournalRow, ask: Ask) -> (&'static str, String) {
        match answer(store, journal, &ask) {
            Err(AskError::Refused { code, message }) => (code, message),
            other => panic!("{ask:?} is refused, not answered with {other:?}"),
        }
    }

    fn transport() -> Transports {
        Transports::one(Some("anthropic".to_string()))
    }

    #[test]
    fn a_transcript_answers_every_family_but_turns() {
        let interpreter = &super::super::INTERPRETER;
        for family in [
            Family::Projection,
            Family::Request,
            Family::Diff,
            Family::Cache,
            Family::Sizes,
            Family::State,
        ] {
            assert!(
                interpreter.answers(family),
                "the command line asks a transcript for {family:?}"
            );
        }
        assert!(
            !interpreter.answers(Family::Turns),
            "a transcript has no session turns to offer"
        );
    }

    #[test]
    fn the_projection_is_the_conversation_at_the_line() {
        // Given the stored transcript
        let (store, journal) = stored();
        // When asked for the projection at the second request's first line
        let answer = view(&store, &journal, Ask::Projection { at: 5 });
        // Then the JSON is the conversation there, and the text lists its lines
        let conversation = view::projection(&store, journal.id, 5).expect("the conversation");
        assert_eq!(
            answer.json,
            serde_json::to_value(&conversation).expect("JSON"),
            "--json prints the conversation itself"
        );
        assert!(
            answer.text.starts_with(
                "conversation at @5 · 5 lines · system prompt and tools are not recorded\n\
                 @1 user\n    [text] Q1: list the files.\n@2 assistant\n    [text] Listing.\n"
            ),
            "the text heads the lines, each with its blocks: {}",
            answer.text
        );
        let state = view(
            &store,
            &journal,
            Ask::State {
                at: 5,
                session: None,
            },
        );
        assert_eq!(state, answer, "a transcript's state is its conversation");
    }

    #[test]
    fn the_requests_list_one_row_each() {
        let (store, journal) = stored();
        let answer = view(&store, &journal, Ask::Requests);
        assert_eq!(
            answer.text,
            " request  model                    input  cache write   cache read   output  thread\n\
             \x20     @2  claude-opus-4-6             10          100            0       25  main\n\
             \x20     @5  claude-opus-4-6             12            0          140        3  main\n\
             \x20     @8  claude-opus-4-6              4            0          150       20  main\n\
             \x20    @11  claude-opus-4-6              -            -            -        -  main\n\
             \x20    @13  claude-opus-4-6              7            -            -        2  main\n",
            "the table the command line prints"
        );
        assert_eq!(
            answer.json.as_array().map(Vec::len),
            Some(5),
            "--json prints every row"
        );
        assert_eq!(answer.json[0]["offset"], 2, "rows keep their first line");
    }

    #[test]
    fn a_request_is_the_messages_the_provider_got() {
        let (store, journal) = stored();
        let answer = view(
            &store,
            &journal,
            Ask::Request {
                at: 5,
                transports: Transports::default(),
            },
        );
        let request = view::request(&store, journal.id, 5)
            .expect("read")
            .expect("a request at @5");
        assert_eq!(
            answer.json,
            serde_json::to_value(&request).expect("JSON"),
            "--json prints the request itself"
        );
        assert!(
            answer
                .text
                .starts_with("request @5 · model claude-opus-4-6 · "),
            "the text heads the request with its line and model: {}",
            answer.text
        );
        assert!(
            answer.text.contains("\nnot recorded: system; tools;"),
            "the text says what the transcript leaves out: {}",
            answer.text
        );
    }

    #[test]
    fn a_request_refuses_what_does_not_apply() {
        let (store, journal) = stored();
        let (code, message) = refusal(
            &store,
            &journal,
            Ask::Request {
                at: 5,
                transports: transport(),
            },
        );
        assert_eq!(code, "transport-not-applicable", "a transport is refused");
        assert_eq!(
            message,
            "a transcript's requests are shown as their provider got them: --transport does not \
             apply",
            "in the command line's words"
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Request {
                at: 3,
                transports: Transports::default(),
            },
        );
        assert_eq!(code, "not-a-request", "no request starts at @3");
        let (code, message) = refusal(
            &store,
            &journal,
            Ask::Body {
                at: 5,
                transports: Transports::default(),
                format: BodyFormat::Curl,
                exact: false,
                redact_paths: Vec::new(),
            },
        );
        assert_eq!(code, "curl-not-applicable", "no curl command is offered");
        assert!(
            message.ends_with("export the body with -o"),
            "the refusal says what to do instead: {message}"
        );
    }

    #[test]
    fn a_body_is_the_request_as_it_leaves_the_program() {
        let (store, journal) = stored();
        let ask = |exact| Ask::Body {
            at: 5,
            transports: Transports::default(),
            format: BodyFormat::Body,
            exact,
            redact_paths: Vec::new(),
        };
        let Ok(Reply::Body(body)) = answer(&store, &journal, &ask(true)) else {
            panic!("an exact body");
        };
        let request = view::request(&store, journal.id, 5)
            .expect("read")
            .expect("a request at @5");
        assert_eq!(
            body.bytes,
            serde_json::to_vec(&request.body()).expect("JSON"),
            "exact bytes are the body as recorded"
        );
        assert_eq!(body.what, "body", "the file is a body");
        assert_eq!(body.redaction_note(), "exact bytes", "nothing is redacted");
        assert_eq!(
            body.request,
            request_answer(&request),
            "--json prints the request beside the file"
        );
        let Ok(Reply::Body(redacted)) = answer(&store, &journal, &ask(false)) else {
            panic!("a redacted body");
        };
        assert!(redacted.redacted, "a body is redacted unless exact");
    }

    #[test]
    fn a_diff_defaults_to_the_last_request_against_the_one_before() {
        let (store, journal) = stored();
        let answer = view(
            &store,
            &journal,
            Ask::Diff {
                from: None,
                to: None,
                transports: Transports::default(),
            },
        );
        assert_eq!(
            answer.text,
            "diff request @11 (claude-opus-4-6, 7 message(s)) → @13 (claude-opus-4-6, 9 \
             message(s))\n\
             common prefix  7 message(s)\n\
             no cache break: read 0 tokens (0 expected), wrote 0\n\
             \n\
             ── from message 7 on ── (the 7 common message(s) before are not shown)\n\
             + (none)                                                       │ [7] assistant: \
             You're welcome.\n\
             + (none)                                                       │ [8] user: Q4: \
             bye.\n",
            "the diff the command line prints"
        );
        assert_eq!(answer.json["to"]["requestOffset"], 13, "the last request");
        assert_eq!(
            answer.json["from"]["requestOffset"], 11,
            "the one before it"
        );
    }

    #[test]
    fn a_diff_refuses_transports_and_a_first_request() {
        let (store, journal) = stored();
        let diff = |to, transports| Ask::Diff {
            from: None,
            to: Some(to),
            transports,
        };
        let one_side = Transports {
            from: Some("openai".to_string()),
            ..Transports::default()
        };
        let (code, message) = refusal(&store, &journal, diff(13, one_side));
        assert_eq!(code, "transport-not-applicable", "a side's transport");
        assert!(
            message.contains("--from-transport and --to-transport do not apply"),
            "in the command line's words: {message}"
        );
        let (code, _) = refusal(&store, &journal, diff(13, transport()));
        assert_eq!(code, "transport-not-applicable", "a transport for both");
        let (code, message) = refusal(&store, &journal, diff(2, Transports::default()));
        assert_eq!(
            code, "no-earlier-request",
            "the first request has none before"
        );
        assert_eq!(
            message, "request @2 is the first request: there is no earlier one to diff against",
            "the refusal names the request"
        );
        let (code, _) = refusal(&store, &journal, diff(4, Transports::default()));
        assert_eq!(code, "not-a-request", "no request starts at @4");
    }

    #[test]
    fn the_cache_and_the_sizes_are_one_report() {
        let (store, journal) = stored();
        let range = (None, None);
        let cache = view(
            &store,
            &journal,
            Ask::Cache {
                range,
                transports: Transports::default(),
            },
        );
        let sizes = view(
            &store,
            &journal,
            Ask::Sizes {
                range,
                transports: Transports::default(),
            },
        );
        assert_eq!(cache.json, sizes.json, "--json prints the one report");
        assert_eq!(cache.json["breaks"], 1, "one break");
        assert!(
            cache.text.starts_with(
                "prompt cache · 5 request(s) · each against the one before it in its thread · \
                 tokens as reported\n"
            ),
            "the cache report's heading: {}",
            cache.text
        );
        assert!(
            cache.text.contains(
                "\n     @11        @8  main             0         0         0       150       \
                 150  claude-opus-4-6  ✗ UNEXPLAINED\n"
            ),
            "a break nothing explains is marked: {}",
            cache.text
        );
        assert!(
            sizes.text.starts_with(
                "context size · 5 request(s) · tokens as each response reported them\n"
            ),
            "the sizes' heading: {}",
            sizes.text
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Sizes {
                range,
                transports: transport(),
            },
        );
        assert_eq!(code, "transport-not-applicable", "sizes take no transport");
    }

    #[test]
    fn a_transcript_has_no_turns() {
        let (store, journal) = stored();
        assert!(
            matches!(
                answer(&store, &journal, &Ask::Turns { session: None }),
                Err(AskError::NotOffered(Family::Turns))
            ),
            "turns are not a transcript's"
        );
    }
}
