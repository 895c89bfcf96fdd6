//! Views asked for by their family: the questions the command line and the window put to any
//! journal, and the dialect-neutral answer each dialect gives (its JSON and its own text), so
//! that nothing above the seam forks on which dialect wrote a journal.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use journalscope_store::store::StoreError;

/// A family of views, as a journal is asked for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum Family {
    /// What the model could see at an offset.
    Projection,
    /// The requests sent: the list, one request, and its exported body.
    Request,
    /// Two requests side by side.
    Diff,
    /// What each request read from the prompt cache, and why the cache broke.
    Cache,
    /// How large each request's context was.
    Sizes,
    /// The fold's state at an offset, whatever it holds: a projection, a thread, a snapshot,
    /// a conversation.
    State,
    /// A session's turns, each with what the agent held, or a thread's runs.
    Turns,
    /// A compaction: what the model saw before it and after it.
    Compaction,
    /// The subagents a session ran, and the session that ran it.
    Lineage,
}

impl Family {
    /// Every family, as the window lists what a journal answers.
    pub const ALL: [Family; 9] = [
        Family::Projection,
        Family::Request,
        Family::Diff,
        Family::Cache,
        Family::Sizes,
        Family::State,
        Family::Turns,
        Family::Compaction,
        Family::Lineage,
    ];

    /// How a refusal names it: "this is an ag-ui journal, which has no {name}".
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Projection => "projection",
            Family::Request => "requests",
            Family::Diff => "request diffs",
            Family::Cache => "prompt-cache report",
            Family::Sizes => "context sizes",
            Family::State => "state",
            Family::Turns => "turns",
            Family::Compaction => "compactions",
            Family::Lineage => "subagents",
        }
    }
}

/// Offsets from `from` to `to`, either end open.
pub type Range = (Option<i64>, Option<i64>);

/// The part of a long list one answer carries: `limit` items from position `start`. A long
/// thread holds tens of thousands of messages, so the window asks for a page at a time rather
/// than the whole list with every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct MessageWindow {
    #[ts(type = "number")]
    pub start: u64,
    #[ts(type = "number")]
    pub limit: u64,
}

impl MessageWindow {
    /// Items one answer carries at most, whatever the window asks for, so that an answer
    /// stays small however long the list grows.
    pub const MAX: u64 = 1_000;

    /// The first page as large as an answer may be.
    pub const FIRST: MessageWindow = MessageWindow {
        start: 0,
        limit: MessageWindow::MAX,
    };

    /// The positions it covers in a list of `len` items.
    pub fn range(self, len: usize) -> std::ops::Range<usize> {
        let start = usize::try_from(self.start).unwrap_or(usize::MAX).min(len);
        let limit = usize::try_from(self.limit.min(Self::MAX)).unwrap_or(0);
        start..start.saturating_add(limit).min(len)
    }
}

/// The provider renderings a question names, where a dialect renders its requests on several
/// (`--transport`, and a diff's `--from-transport` and `--to-transport`); a dialect that
/// records its requests as sent refuses any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, TS)]
#[ts(export)]
pub struct Transports {
    pub both: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
}

impl Transports {
    /// One transport, for the questions about one request or one range.
    pub fn one(transport: Option<String>) -> Transports {
        Transports {
            both: transport,
            ..Transports::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.both.is_none() && self.from.is_none() && self.to.is_none()
    }
}

/// How a request's body leaves the program.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum BodyFormat {
    /// The body bytes.
    #[default]
    Body,
    /// A `curl` command that sends it again.
    Curl,
}

/// A question for a journal, by family: the command line's, and the window's (which steps by
/// journal row and pages what it shows).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(tag = "ask", rename_all = "camelCase", rename_all_fields = "camelCase")]
#[ts(export)]
pub enum Ask {
    /// The projection at offset `at`.
    Projection {
        #[ts(type = "number")]
        at: i64,
    },
    /// Every request, one row each.
    Requests,
    /// The request at offset `at`.
    Request {
        #[ts(type = "number")]
        at: i64,
        transports: Transports,
    },
    /// The request at offset `at` in full, as the window shows it: with what the provider
    /// reported of it where the dialect renders requests from its fold.
    Detail {
        #[ts(type = "number")]
        at: i64,
        transports: Transports,
    },
    /// The request at `at` as it leaves the program: redacted unless `exact`.
    Body {
        #[ts(type = "number")]
        at: i64,
        transports: Transports,
        format: BodyFormat,
        exact: bool,
        redact_paths: Vec<String>,
    },
    /// The request at `to` (the journal's last when `None`) against the one at `from` (the
    /// request before it when `None`).
    Diff {
        #[ts(type = "number | null")]
        from: Option<i64>,
        #[ts(type = "number | null")]
        to: Option<i64>,
        transports: Transports,
    },
    /// The prompt cache of the requests in a range.
    Cache {
        #[ts(type = "[number | null, number | null]")]
        range: Range,
        transports: Transports,
    },
    /// The prompt cache of the `before` requests before the one at `at`, it, and the `after`
    /// after it: as much of a journal of any size as a pane draws.
    CacheAround {
        #[ts(type = "number")]
        at: i64,
        #[ts(type = "number")]
        before: u64,
        #[ts(type = "number")]
        after: u64,
        transports: Transports,
    },
    /// The context sizes of the requests in a range.
    Sizes {
        #[ts(type = "[number | null, number | null]")]
        range: Range,
        transports: Transports,
    },
    /// The fold's state at offset `at`; `session` picks the session a snapshot cursor follows
    /// where the dialect has sessions.
    State {
        #[ts(type = "number")]
        at: i64,
        session: Option<String>,
    },
    /// The fold's state after the journal's row `seq`, as the window steps through it, with
    /// the part of a thread's messages `window` covers.
    Step {
        #[ts(type = "number")]
        seq: u64,
        session: Option<String>,
        window: MessageWindow,
    },
    /// The part `window` covers of a thread's messages after the step at offset `at`.
    Messages {
        #[ts(type = "number")]
        at: i64,
        window: MessageWindow,
    },
    /// The turns of `session` (the journal's only or first session when `None`), or a
    /// thread's runs.
    Turns { session: Option<String> },
    /// The compaction at offset `at`: what the model saw before it and after it.
    Compaction {
        #[ts(type = "number")]
        at: i64,
    },
    /// The subagents the journal's session ran, by the call that spawned each.
    Subagents,
    /// The session that ran the journal's, when it is a subagent's.
    SpawnedBy,
}

impl Ask {
    pub fn family(&self) -> Family {
        match self {
            Ask::Projection { .. } => Family::Projection,
            Ask::Requests | Ask::Request { .. } | Ask::Detail { .. } | Ask::Body { .. } => {
                Family::Request
            }
            Ask::Diff { .. } => Family::Diff,
            Ask::Cache { .. } | Ask::CacheAround { .. } => Family::Cache,
            Ask::Sizes { .. } => Family::Sizes,
            Ask::State { .. } | Ask::Step { .. } | Ask::Messages { .. } => Family::State,
            Ask::Turns { .. } => Family::Turns,
            Ask::Compaction { .. } => Family::Compaction,
            Ask::Subagents | Ask::SpawnedBy => Family::Lineage,
        }
    }
}

/// A view as the command line prints it: its JSON (`--json`) and its text, each in the shape
/// its dialect gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub json: serde_json::Value,
    pub text: String,
}

impl Answer {
    /// The answer whose JSON is `value` serialised and whose text `render` writes.
    pub fn of<T: serde::Serialize>(
        value: &T,
        render: impl FnOnce(&mut String, &T) -> std::fmt::Result,
    ) -> Answer {
        let mut text = String::new();
        // Writing to a String does not fail, nor does serialising plain data.
        let _ = render(&mut text, value);
        Answer {
            json: serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
            text,
        }
    }

    /// A view only the window asks for: its JSON, and no text.
    pub fn view<T: serde::Serialize>(value: &T) -> Answer {
        Answer::of(value, |_, _| Ok(()))
    }
}

/// A request's body as it leaves the program.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub bytes: Vec<u8>,
    /// What the bytes are, as "wrote the {what} of request @…" says: "body", "openai body",
    /// "anthropic curl command".
    pub what: String,
    /// How many secrets were replaced by markers (0 for an exact export).
    pub secrets: usize,
    pub redacted: bool,
    /// The request itself, which `--json` prints beside a written file.
    pub request: Answer,
}

impl Body {
    /// "exact bytes", "1 secret redacted", "3 secrets redacted".
    pub fn redaction_note(&self) -> String {
        match (self.redacted, self.secrets) {
            (false, _) => "exact bytes".to_string(),
            (true, 1) => "1 secret redacted".to_string(),
            (true, n) => format!("{n} secrets redacted"),
        }
    }
}

/// What a dialect answers: a view, or a body.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    View(Answer),
    Body(Body),
}

/// Why a journal gives no answer.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The journal's dialect has no view of the question's family.
    #[error("the journal has no {}", .0.as_str())]
    NotOffered(Family),
    /// The dialect's own refusal, with the stable code tools and the window see (an offset
    /// with no request, say, or an option that does not apply to its requests).
    #[error("{message}")]
    Refused { code: &'static str, message: String },
}

impl AskError {
    /// A refusal with code `code`.
    pub fn refused(code: &'static str, message: impl Into<String>) -> AskError {
        AskError::Refused {
            code,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_carries_the_json_and_the_text_of_one_value() {
        // Given a value and the text its dialect writes of it
        let value = serde_json::json!({"at": 3});
        // When it becomes an answer
        let answer = Answer::of(&value, |out, v| {
            use std::fmt::Write as _;
            writeln!(out, "at @{}", v["at"])
        });
        // Then --json and the text come from the same value
        assert_eq!(answer.json, value, "--json prints the value itself");
        assert_eq!(answer.text, "at @3\n", "the text is what the dialect wrote");
    }

    #[test]
    fn the_window_s_questions_read_as_the_generated_types_write_them() {
        // Given questions as the window sends them, in the shape of the generated `Ask`
        let step = serde_json::json!({
            "ask": "step", "seq": 3, "session": null, "window": {"start": 0, "limit": 7}
        });
        let around = serde_json::json!({
            "ask": "cacheAround", "at": 21, "before": 150, "after": 50,
            "transports": {"both": "openai", "from": null, "to": null}
        });
        let body = serde_json::json!({
            "ask": "body", "at": 21, "transports": {"both": null, "from": null, "to": null},
            "format": "curl", "exact": false, "redactPaths": ["$.metadata"]
        });
        // When the shell reads them
        let read = |value| serde_json::from_value::<Ask>(value).expect("a question the UI sends");
        // Then each is the question the core answers, its fields named as the window names them
        assert_eq!(
            read(step),
            Ask::Step {
                seq: 3,
                session: None,
                window: MessageWindow { start: 0, limit: 7 },
            },
            "a step names its row and the page of a thread it carries"
        );
        assert_eq!(
            read(around),
            Ask::CacheAround {
                at: 21,
                before: 150,
                after: 50,
                transports: Transports::one(Some("openai".into())),
            },
            "a pane's window of requests, in camel case"
        );
        assert_eq!(
            read(body),
            Ask::Body {
                at: 21,
                transports: Transports::default(),
                format: BodyFormat::Curl,
                exact: false,
                redact_paths: vec!["$.metadata".into()],
            },
            "a body's format and redaction"
        );
        assert!(
            serde_json::from_value::<Ask>(serde_json::json!({"ask": "everything"})).is_err(),
            "a question no journal is asked is refused as it is read"
        );
    }

    #[test]
    fn every_question_names_the_family_a_refusal_speaks_of() {
        let body = Ask::Body {
            at: 1,
            transports: Transports::default(),
            format: BodyFormat::Curl,
            exact: false,
            redact_paths: Vec::new(),
        };
        assert_eq!(
            body.family(),
            Family::Request,
            "a body is one more view of a request"
        );
        assert_eq!(
            AskError::NotOffered(Family::Cache).to_string(),
            "the journal has no prompt-cache report",
            "a refusal names what was asked for"
        );
    }
}
