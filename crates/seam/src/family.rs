//! Views asked for by their family: the questions the command line puts to any journal, and
//! the dialect-neutral answer each dialect gives (its JSON and its own text), so that nothing
//! above the seam forks on which dialect wrote a journal.

use journalscope_store::store::StoreError;

/// A family of views, as a journal is asked for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// A session's turns, each with what the agent held.
    Turns,
}

impl Family {
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
        }
    }
}

/// Offsets from `from` to `to`, either end open.
pub type Range = (Option<i64>, Option<i64>);

/// The provider renderings a question names, where a dialect renders its requests on several
/// (`--transport`, and a diff's `--from-transport` and `--to-transport`); a dialect that
/// records its requests as sent refuses any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BodyFormat {
    /// The body bytes.
    #[default]
    Body,
    /// A `curl` command that sends it again.
    Curl,
}

/// A question for a journal, by family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The projection at offset `at`.
    Projection { at: i64 },
    /// Every request, one row each.
    Requests,
    /// The request at offset `at`.
    Request { at: i64, transports: Transports },
    /// The request at `at` as it leaves the program: redacted unless `exact`.
    Body {
        at: i64,
        transports: Transports,
        format: BodyFormat,
        exact: bool,
        redact_paths: Vec<String>,
    },
    /// The request at `to` (the journal's last when `None`) against the one at `from` (the
    /// request before it when `None`).
    Diff {
        from: Option<i64>,
        to: Option<i64>,
        transports: Transports,
    },
    /// The prompt cache of the requests in a range.
    Cache {
        range: Range,
        transports: Transports,
    },
    /// The context sizes of the requests in a range.
    Sizes {
        range: Range,
        transports: Transports,
    },
    /// The fold's state at offset `at`; `session` picks the session a snapshot cursor follows
    /// where the dialect has sessions.
    State { at: i64, session: Option<String> },
    /// The turns of `session` (the journal's only or first session when `None`).
    Turns { session: Option<String> },
}

impl Ask {
    pub fn family(&self) -> Family {
        match self {
            Ask::Projection { .. } => Family::Projection,
            Ask::Requests | Ask::Request { .. } | Ask::Body { .. } => Family::Request,
            Ask::Diff { .. } => Family::Diff,
            Ask::Cache { .. } => Family::Cache,
            Ask::Sizes { .. } => Family::Sizes,
            Ask::State { .. } => Family::State,
            Ask::Turns { .. } => Family::Turns,
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
