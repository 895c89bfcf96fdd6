//! The answers every transcript dialect gives alike (the conversation at a line, its requests,
//! one request and its body, two side by side, the prompt cache, the context sizes, a
//! compaction and the subagents): a transcript dialect says how to read its conversation, its
//! requests, its cache report and its lineage, and the rest follows here once for all of them.

use journalscope_store::store::{JournalRow, Store, StoreError};
use journalscope_transcript::transcript::cache::{CacheReport, Range};
use journalscope_transcript::transcript::requests::{self, SentRequest, Unanswered};
use journalscope_transcript::transcript::{
    text, ConversationView, SpawnedBy, Subagent, TranscriptCompaction,
};

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

    /// The row whose conversation is the one the transcript went on with after the compaction
    /// at row `seq`; `None` when there is none yet.
    fn compaction_continues(
        &self,
        store: &Store,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<u64>, StoreError>;

    /// The subagents the transcript ran, each with the call that spawned it.
    fn subagents(&self, store: &Store, journal: &JournalRow) -> Result<Vec<Subagent>, StoreError>;

    /// The session that ran this transcript, when it is a subagent's.
    fn spawned_by(
        &self,
        store: &Store,
        journal: &JournalRow,
    ) -> Result<Option<SpawnedBy>, StoreError>;
}

/// The families a transcript answers: all but the turns of a session, which it has none of.
pub fn answers(family: Family) -> bool {
    match family {
        Family::Projection
        | Family::Request
        | Family::Diff
        | Family::Cache
        | Family::Sizes
        | Family::State
        | Family::Compaction
        | Family::Lineage => true,
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
        // The window steps by row; the conversation there is the one at the row's offset.
        Ask::Step { seq, .. } => Answer::of(
            &conversation_at_row(dialect, store, id, *seq)?,
            text::conversation,
        ),
        // A request recorded as sent has nothing more to show in full than itself.
        Ask::Request { at, transports } | Ask::Detail { at, transports } => {
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
        Ask::Compaction { at } => Answer::of(&compaction(dialect, store, id, *at)?, |out, c| {
            text::compaction(out, c)
        }),
        Ask::Subagents => {
            let subagents = dialect.subagents(store, journal)?;
            let spawned_by = dialect.spawned_by(store, journal)?;
            Answer::of(&subagents, |out, subagents| {
                text::spawned_by(out, spawned_by.as_ref())?;
                text::subagents(out, subagents)
            })
        }
        Ask::SpawnedBy => Answer::of(&dialect.spawned_by(store, journal)?, |out, parent| {
            text::spawned_by(out, parent.as_ref())
        }),
        Ask::Messages { .. } => {
            return Err(AskError::refused(
                requests::NOT_PAGED_CODE,
                requests::NOT_PAGED,
            ))
        }
        Ask::CacheAround { .. } => {
            return Err(AskError::refused(
                requests::NOT_PAGED_CODE,
                requests::CACHE_BY_RANGE,
            ))
        }
        Ask::Turns { .. } => return Err(AskError::NotOffered(ask.family())),
    };
    Ok(Reply::View(answer))
}

/// The conversation at the stored row `seq`: the one at the offset of that row, or of the row
/// with an offset before it (a row without one, a line the agent wrote no offset for, shows
/// what the line before it did).
fn conversation_at_row<T: Transcript>(
    dialect: &T,
    store: &Store,
    id: i64,
    seq: u64,
) -> Result<ConversationView, StoreError> {
    let at = store.offset_at_or_before_seq(id, seq)?.unwrap_or(0);
    dialect.conversation(store, id, at)
}

/// The compaction at offset `at`, before | after: the conversation at the row just before the
/// compaction's line (a Codex compaction line already holds its replacement), and at the row
/// the transcript goes on with after it.
fn compaction<T: Transcript>(
    dialect: &T,
    store: &Store,
    id: i64,
    at: i64,
) -> Result<TranscriptCompaction, AskError> {
    let not_one = || {
        AskError::refused(
            requests::NOT_A_COMPACTION_CODE,
            requests::not_a_compaction(at),
        )
    };
    let seq = store.seq_at_offset(id, at)?.ok_or_else(not_one)?;
    let note = store
        .marks_between(id, seq, seq + 1)?
        .into_iter()
        .find(|mark| mark.kind == "compaction")
        .ok_or_else(not_one)?
        .note;
    let before = match seq.checked_sub(1) {
        Some(previous) => conversation_at_row(dialect, store, id, previous)?,
        None => ConversationView {
            at,
            system_known: false,
            system: Vec::new(),
            history: Vec::new(),
        },
    };
    let after = match dialect.compaction_continues(store, id, seq)? {
        Some(next) => Some(conversation_at_row(dialect, store, id, next)?),
        None => None,
    };
    Ok(TranscriptCompaction {
        offset: at,
        note,
        before,
        after,
    })
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
