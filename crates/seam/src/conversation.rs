//! The answers every transcript dialect gives alike (the conversation at a line, its requests,
//! one request and its body, two side by side, the prompt cache and the context sizes): a
//! transcript dialect says how to read its conversation, its requests and its cache report,
//! and the rest follows here once for all of them.

use journalscope_store::store::{JournalRow, Store, StoreError};
use journalscope_transcript::transcript::cache::{CacheReport, Range};
use journalscope_transcript::transcript::requests::{self, SentRequest, Unanswered};
use journalscope_transcript::transcript::{text, ConversationView};

use crate::family::{Answer, Ask, AskError, Body, BodyFormat, Family, Reply};

/// A dialect whose journals are transcripts: what it reads from the store.
pub trait Transcript {
    /// A request as its provider got it.
    type Request: SentRequest;

    /// The conversation the model saw at the line at offset `at`.
    fn conversation(
        &self,
        store: &Store,
        journal_id: i64,
        at: i64,
    ) -> Result<ConversationView, StoreError>;

    /// The request whose first line is at `at`; `None` when none starts there.
    fn request(
        &self,
        store: &Store,
        journal_id: i64,
        at: i64,
    ) -> Result<Option<Self::Request>, StoreError>;

    /// What each request whose first line is in `range` read from the prompt cache.
    fn cache_report(
        &self,
        store: &Store,
        journal_id: i64,
        range: Range,
    ) -> Result<CacheReport, StoreError>;
}

/// The families a transcript answers: all but the turns of a session, which it has none of.
pub fn answers(family: Family) -> bool {
    match family {
        Family::Projection
        | Family::Request
        | Family::Diff
        | Family::Cache
        | Family::Sizes
        | Family::State => true,
        Family::Turns => false,
    }
}

/// The answer to `ask` about the stored transcript `journal`, which `dialect` wrote.
pub fn answer<T: Transcript>(
    dialect: &T,
    store: &Store,
    journal: &JournalRow,
    ask: &Ask,
) -> Result<Reply, AskError> {
    let id = journal.id;
    let answer = match ask {
        // A transcript's state at a line is the conversation there: it has one session.
        Ask::Projection { at } | Ask::State { at, .. } => {
            Answer::of(&dialect.conversation(store, id, *at)?, text::conversation)
        }
        Ask::Requests => Answer::of(&requests::rows(store, id)?, |out, rows| {
            text::requests(out, rows)
        }),
        Ask::Request { at, transports } => {
            no_transport(transports.is_empty())?;
            request_answer(&request_at(dialect, store, id, *at)?)
        }
        Ask::Body {
            at,
            transports,
            format,
            exact,
            redact_paths,
        } => {
            no_transport(transports.is_empty())?;
            if *format == BodyFormat::Curl {
                return Err(AskError::refused(requests::NO_CURL_CODE, requests::NO_CURL));
            }
            let request = request_at(dialect, store, id, *at)?;
            let exported = request
                .export(*exact, redact_paths)
                .map_err(|err| AskError::refused(err.code(), err.to_string()))?;
            return Ok(Reply::Body(Body {
                bytes: exported.bytes,
                what: "body".to_string(),
                secrets: exported.secrets,
                redacted: !exact,
                request: request_answer(&request),
            }));
        }
        Ask::Diff {
            from,
            to,
            transports,
        } => {
            if transports.from.is_some() || transports.to.is_some() {
                return Err(AskError::refused(
                    requests::NO_TRANSPORT_CODE,
                    requests::NO_DIFF_TRANSPORTS,
                ));
            }
            no_transport(transports.both.is_none())?;
            let to = match to {
                Some(to) => *to,
                None => requests::last(store, id)?.ok_or_else(|| {
                    AskError::refused(requests::NOTHING_TO_DIFF_CODE, requests::NOTHING_TO_DIFF)
                })?,
            };
            let diff = requests::diff_between(
                *from,
                to,
                |at| {
                    Ok(dialect
                        .request(store, id, at)?
                        .map(|request| request.messages()))
                },
                |range| dialect.cache_report(store, id, range),
            )?
            .map_err(refused)?;
            Answer::of(&diff, text::diff)
        }
        Ask::Cache { range, transports } => {
            no_transport(transports.is_empty())?;
            Answer::of(&dialect.cache_report(store, id, *range)?, text::cache)
        }
        Ask::Sizes { range, transports } => {
            no_transport(transports.is_empty())?;
            Answer::of(&dialect.cache_report(store, id, *range)?, text::sizes)
        }
        Ask::Turns { .. } => return Err(AskError::NotOffered(ask.family())),
    };
    Ok(Reply::View(answer))
}

/// A transcript's requests are what its provider got: a transport named for one is refused
/// rather than ignored.
fn no_transport(none: bool) -> Result<(), AskError> {
    if none {
        Ok(())
    } else {
        Err(AskError::refused(
            requests::NO_TRANSPORT_CODE,
            requests::NO_TRANSPORT,
        ))
    }
}

fn refused(why: Unanswered) -> AskError {
    AskError::refused(why.code(), why.message())
}

/// The request whose first line is at `at`, or the refusal that says none starts there.
fn request_at<T: Transcript>(
    dialect: &T,
    store: &Store,
    id: i64,
    at: i64,
) -> Result<T::Request, AskError> {
    dialect
        .request(store, id, at)?
        .ok_or_else(|| refused(Unanswered::NotARequest(at)))
}

/// A request's answer: the request itself, and the text its dialect writes of it.
pub fn request_answer<R: SentRequest>(request: &R) -> Answer {
    Answer::of(request, |out, request| request.text(out))
}
