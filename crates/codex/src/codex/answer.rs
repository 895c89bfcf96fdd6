//! What a Codex rollout answers when asked by family: the conversation at a line, its requests
//! as the Responses API got them (one, its body, the list), two of them side by side, and the
//! prompt cache and context size of each, as JSON and as the text the command line prints.

use std::fmt::{self, Write};

use serde_json::Value;

use journalscope_seam::conversation::{self, Transcript};
use journalscope_seam::family::{Ask, AskError, Family, Reply};
use journalscope_store::store::{JournalRow, Store, StoreError};
use journalscope_transcript::transcript::cache::{CacheReport, Range};
use journalscope_transcript::transcript::{text, ConversationView, SpawnedBy, Subagent};

use super::RolloutRequest;

/// Codex as the transcript family reads it.
pub struct Codex;

impl Transcript for Codex {
    type Request = RolloutRequest;

    fn conversation(
        &self,
        store: &Store,
        journal_id: i64,
        at: i64,
    ) -> Result<ConversationView, StoreError> {
        super::projection(store, journal_id, at)
    }

    fn request(
        &self,
        store: &Store,
        journal_id: i64,
        at: i64,
    ) -> Result<Option<RolloutRequest>, StoreError> {
        super::request(store, journal_id, at)
    }

    fn cache_report(
        &self,
        store: &Store,
        journal_id: i64,
        range: Range,
    ) -> Result<CacheReport, StoreError> {
        super::cache_report(store, journal_id, range)
    }

    /// A Codex compaction line holds the history the rollout went on with.
    fn compaction_continues(
        &self,
        _store: &Store,
        _journal_id: i64,
        seq: u64,
    ) -> Result<Option<u64>, StoreError> {
        Ok(Some(seq))
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

/// The families a Codex rollout answers: the transcript family's.
pub fn answers(family: Family) -> bool {
    conversation::answers(family)
}

/// The answer to `ask` about the stored rollout `journal`.
pub fn answer(store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
    conversation::answer(&Codex, store, journal, ask)
}

/// A request as the Responses API got it: its input items, each message's blocks a line each.
pub fn request_text(out: &mut impl Write, request: &RolloutRequest) -> fmt::Result {
    writeln!(
        out,
        "request @{} · model {} · {} input items",
        request.request_offset,
        request.model.as_deref().unwrap_or("-"),
        request.input.len()
    )?;
    for item in &request.input {
        let role = item
            .get("role")
            .or_else(|| item.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        let blocks = item
            .get("content")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| vec![item.clone()]);
        writeln!(out, "{role}")?;
        for block in &blocks {
            writeln!(out, "    {}", text::block_line(block))?;
        }
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

    /// A rollout of three requests, each token count written before the run it counts.
    const ROLLOUT: &str =
        include_str!("../../../../tests/fixtures/claude-code/codex-count-before.jsonl");

    /// The rollout stored and folded as an import leaves it.
    fn stored() -> (Store, JournalRow) {
        stored_of(ROLLOUT)
    }

    /// `rollout` stored and folded as an import leaves it.
    fn stored_of(rollout: &str) -> (Store, JournalRow) {
        let interpreter = &super::super::INTERPRETER;
        let store = Store::in_memory().expect("an in-memory store");
        let id = store
            .create_journal(&NewJournal {
                source_path: "rollout.jsonl",
                dialect: interpreter.dialect(),
                framing: Framing::Jsonl,
            })
            .expect("a journal");
        let mut reader = interpreter.reader(None);
        let mut start = 0;
        let records: Vec<_> = rollout
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
        Transports::one(Some("openai".to_string()))
    }

    #[test]
    fn a_rollout_answers_every_family_but_turns() {
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
                "the command line asks a rollout for {family:?}"
            );
        }
        assert!(
            !interpreter.answers(Family::Turns),
            "a rollout has no session turns to offer"
        );
        let (store, journal) = stored();
        assert!(
            matches!(
                answer(&store, &journal, &Ask::Turns { session: None }),
                Err(AskError::NotOffered(Family::Turns))
            ),
            "asked for turns anyway, it says it has none"
        );
    }

    #[test]
    fn the_projection_is_every_input_item_through_the_line() {
        // Given the stored rollout
        let (store, journal) = stored();
        // When asked for the projection at the second request's first item
        let answer = view(&store, &journal, Ask::Projection { at: 11 });
        // Then the JSON is the conversation there, and the text lists its items
        let conversation = super::super::projection(&store, journal.id, 11).expect("read");
        assert_eq!(
            answer.json,
            serde_json::to_value(&conversation).expect("JSON"),
            "--json prints the conversation itself"
        );
        assert_eq!(
            answer.text,
            "conversation at @11 · 6 lines · system prompt and tools are not recorded\n\
             @3 user\n    [message] \n@4 user\n    [message] \n@7 reasoning\n    [reasoning] \n\
             @8 function_call\n    [function_call] \n\
             @9 function_call_output\n    [function_call_output] \n\
             @11 assistant\n    [message] \n",
            "the text the command line prints"
        );
        let state = view(
            &store,
            &journal,
            Ask::State {
                at: 11,
                session: None,
            },
        );
        assert_eq!(state, answer, "a rollout's state is its conversation");
    }

    #[test]
    fn the_requests_list_one_row_each() {
        let (store, journal) = stored();
        let answer = view(&store, &journal, Ask::Requests);
        assert_eq!(
            answer.text,
            " request  model                    input  cache write   cache read   output  thread\n\
             \x20     @7  gpt-5-codex               3000            -         2800       25  main\n\
             \x20    @11  gpt-5-codex               3100            -         2944        9  main\n\
             \x20    @17  gpt-5-codex               3200            -         3072        8  main\n",
            "the table the command line prints, the cache's reads as Codex counts them"
        );
        assert_eq!(
            answer.json.as_array().map(Vec::len),
            Some(3),
            "--json prints every row"
        );
    }

    #[test]
    fn a_request_is_the_input_items_the_provider_got() {
        let (store, journal) = stored();
        let answer = view(
            &store,
            &journal,
            Ask::Request {
                at: 11,
                transports: Transports::default(),
            },
        );
        let request = super::super::request(&store, journal.id, 11)
            .expect("read")
            .expect("a request at @11");
        assert_eq!(
            answer.json,
            serde_json::to_value(&request).expect("JSON"),
            "--json prints the request itself"
        );
        assert_eq!(
            answer.text,
            "request @11 · model gpt-5-codex · 5 input items\n\
             user\n    [input_text] \nuser\n    [input_text] \nreasoning\n    [reasoning] \n\
             function_call\n    [function_call] \n\
             function_call_output\n    [function_call_output] \n",
            "the text the command line prints"
        );
    }

    #[test]
    fn a_request_refuses_what_does_not_apply() {
        let (store, journal) = stored();
        let (code, message) = refusal(
            &store,
            &journal,
            Ask::Request {
                at: 11,
                transports: transport(),
            },
        );
        assert_eq!(code, "transport-not-applicable", "a transport is refused");
        assert!(
            message.ends_with("--transport does not apply"),
            "in the command line's words: {message}"
        );
        let (code, message) = refusal(
            &store,
            &journal,
            Ask::Request {
                at: 8,
                transports: Transports::default(),
            },
        );
        assert_eq!(
            code, "not-a-request",
            "@8 is inside a run, not its first item"
        );
        assert_eq!(
            message, "offset 8 is not the first line of a request",
            "the refusal names the offset"
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Body {
                at: 11,
                transports: Transports::default(),
                format: BodyFormat::Curl,
                exact: true,
                redact_paths: Vec::new(),
            },
        );
        assert_eq!(code, "curl-not-applicable", "no curl command is offered");
    }

    #[test]
    fn a_body_is_the_model_and_the_input() {
        let (store, journal) = stored();
        let ask = |exact, redact_paths| Ask::Body {
            at: 11,
            transports: Transports::default(),
            format: BodyFormat::Body,
            exact,
            redact_paths,
        };
        let Ok(Reply::Body(body)) = answer(&store, &journal, &ask(true, Vec::new())) else {
            panic!("an exact body");
        };
        let request = super::super::request(&store, journal.id, 11)
            .expect("read")
            .expect("a request at @11");
        let sent: Value = serde_json::from_slice(&body.bytes).expect("a JSON body");
        assert_eq!(sent["model"], "gpt-5-codex", "the body names the model");
        assert_eq!(
            sent["input"].as_array().map(Vec::len),
            Some(5),
            "the body holds every input item"
        );
        assert_eq!(
            body.request,
            request_answer(&request),
            "--json prints the request beside the file"
        );
        assert!(
            !body.redacted && body.what == "body",
            "an exact body says so"
        );
        let (code, _) = refusal(&store, &journal, ask(true, vec!["$.model".to_string()]));
        assert_eq!(
            code, "bad-redact-path",
            "an exact body takes no path to redact"
        );
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
            "diff request @11 (gpt-5-codex, 5 message(s)) → @17 (gpt-5-codex, 7 message(s))\n\
             common prefix  5 message(s)\n\
             no cache break: read 3072 tokens (3100 expected), wrote 0\n\
             \n\
             ── from message 5 on ── (the 5 common message(s) before are not shown)\n\
             + (none)                                                       │ [5] assistant: \
             It printed `hello`.\n\
             + (none)                                                       │ [6] user: \
             Thanks.\n",
            "the diff the command line prints"
        );
        assert_eq!(
            answer.json["cache"]["cacheReadTokens"], 3072,
            "the cache entry"
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Diff {
                from: None,
                to: Some(7),
                transports: Transports::default(),
            },
        );
        assert_eq!(
            code, "no-earlier-request",
            "the first request has none before"
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Diff {
                from: None,
                to: None,
                transports: Transports {
                    to: Some("anthropic".to_string()),
                    ..Transports::default()
                },
            },
        );
        assert_eq!(code, "transport-not-applicable", "a side's transport");
    }

    #[test]
    fn the_cache_and_the_sizes_are_one_report() {
        let (store, journal) = stored();
        let range = (Some(11), None);
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
        assert_eq!(
            cache.text,
            "prompt cache · 2 request(s) · each against the one before it in its thread · \
             tokens as reported\n \
             request  previous  thread       input     write      read  expected    missed  \
             model\n     \
             @11        @7  main           156         0      2944      3000        56  \
             gpt-5-codex\n     \
             @17       @11  main           128         0      3072      3100        28  \
             gpt-5-codex\n\
             total    input 284 · write 0 · read 6016 · missed 84 · 0 break(s), 0 unexplained\n",
            "the cache report the command line prints"
        );
        assert!(
            sizes.text.contains(
                "\n     @17  main           3200  gpt-5-codex                   \
                 ███████████████████████████████████████░\n"
            ),
            "each request's context as a bar: {}",
            sizes.text
        );
        let (code, _) = refusal(
            &store,
            &journal,
            Ask::Cache {
                range,
                transports: transport(),
            },
        );
        assert_eq!(
            code, "transport-not-applicable",
            "the cache takes no transport"
        );
    }
}
