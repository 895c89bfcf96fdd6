//! Dialects: which system wrote a journal. Each is one implementation of the seam in
//! `interpreter`; detection picks the implementation, and this module is the one place that
//! names them all.

use serde::Serialize;
use serde_json::Value;

use journalscope_agentskit::agentskit;
use journalscope_agui::agui;
use journalscope_claude::claude;
use journalscope_codex::codex;
use journalscope_iterate::iterate;
use journalscope_store::store::{JournalRow, Store, StoreError, StoredEvent};

pub use journalscope_seam::family::{
    Answer, Ask, AskError, Body, BodyFormat, Family, MessageWindow, Reply, Transports,
};
pub use journalscope_seam::interpreter::{
    fold_all, Controls, DemoJournal, Fold, FoldRecord, Interpreter, RecordReader, View,
};
pub use journalscope_store::derived::{
    Analysis, CheckpointCover, Dialect, FoldWatch, Mark, ReadEvent, TipRow, WATCH_EVERY,
};
pub use journalscope_transcript::transcript::{Session as AgentSession, SessionPlace};

/// Every dialect, in the order detection asks them: iterate last, as the fallback.
const INTERPRETERS: [&dyn Interpreter; 5] = [
    &agentskit::INTERPRETER,
    &agui::INTERPRETER,
    &claude::INTERPRETER,
    &codex::INTERPRETER,
    &iterate::INTERPRETER,
];

/// The implementation of `dialect`.
pub fn interpreter(dialect: Dialect) -> &'static dyn Interpreter {
    INTERPRETERS
        .into_iter()
        .find(|interpreter| interpreter.dialect() == dialect)
        .unwrap_or(&iterate::INTERPRETER)
}

/// The name of every dialect, as the command line and the database spell them.
pub fn names() -> Vec<&'static str> {
    INTERPRETERS
        .into_iter()
        .map(|interpreter| interpreter.dialect().as_str())
        .collect()
}

/// Every dialect, the one a journal nobody recognises is read as first: the order lists of
/// dialects are shown in.
fn listed() -> impl Iterator<Item = &'static dyn Interpreter> {
    let default = interpreter(Dialect::default());
    std::iter::once(default).chain(
        INTERPRETERS
            .into_iter()
            .filter(move |interpreter| interpreter.dialect() != default.dialect()),
    )
}

/// What Journalscope reads, a phrase a dialect ("iterate agent streams").
pub fn described() -> Vec<&'static str> {
    listed()
        .map(|interpreter| interpreter.describes())
        .collect()
}

/// The bundled demo journals, each with the dialect it shows.
pub fn demos() -> Vec<(Dialect, &'static DemoJournal)> {
    listed()
        .filter_map(|interpreter| Some((interpreter.dialect(), interpreter.demo()?)))
        .collect()
}

/// Where `sessions` looks for agents' sessions on this machine.
pub fn session_places() -> Vec<SessionPlace> {
    listed()
        .filter_map(|interpreter| interpreter.session_place())
        .collect()
}

/// The key of the journal a stream answering the POSTed `body` is kept in, from the dialect
/// whose streams answer POSTed requests; why not, when the body is none it takes.
pub fn posted(body: &Value) -> Result<String, String> {
    INTERPRETERS
        .into_iter()
        .find_map(|interpreter| interpreter.posted(body))
        .unwrap_or_else(|| Err("no dialect's stream answers a POSTed body".to_string()))
}

/// The dialects whose journals offer `view`.
pub fn offering(view: View) -> Vec<Dialect> {
    INTERPRETERS
        .into_iter()
        .filter(|interpreter| interpreter.offers().contains(&view))
        .map(|interpreter| interpreter.dialect())
        .collect()
}

/// The dialects whose journals answer questions of `family`.
pub fn answering(family: Family) -> Vec<Dialect> {
    INTERPRETERS
        .into_iter()
        .filter(|interpreter| interpreter.answers(family))
        .map(|interpreter| interpreter.dialect())
        .collect()
}

/// The answer to `ask` about `journal`, from the dialect that wrote it.
pub fn answer(store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
    interpreter(journal.dialect).answer(store, journal, ask)
}

/// A dialect as the registry knows it: what its journals offer, and which one a journal is.
/// (`Dialect` is the store's shape, so what the registry adds to it is a trait.)
pub trait Registered {
    /// Whether its journals offer `view`.
    fn offers(self, view: View) -> bool;

    /// Decides from the first events that parse: the first of them that a dialect recognises
    /// names it; a journal nobody recognises is read as iterate.
    fn detect<'a>(values: impl IntoIterator<Item = &'a Value>) -> Dialect;
}

impl Registered for Dialect {
    fn offers(self, view: View) -> bool {
        interpreter(self).offers().contains(&view)
    }

    fn detect<'a>(values: impl IntoIterator<Item = &'a Value>) -> Dialect {
        for value in values.into_iter().take(64) {
            if let Some(found) = INTERPRETERS
                .into_iter()
                .find(|interpreter| interpreter.looks_like(value))
            {
                return found.dialect();
            }
        }
        Dialect::default()
    }
}

/// Whether a journal's derived tables are those this version derives, for every record: a
/// database written before a dialect kept checkpoints (or in an older encoding of them), or
/// one whose follower stopped before folding what it stored, needs a refresh.
pub fn is_current(store: &Store, journal_id: i64, dialect: Dialect) -> Result<bool, StoreError> {
    let records = store.event_count(journal_id)?;
    let format = interpreter(dialect).checkpoint_format();
    Ok(store
        .checkpoint_cover(journal_id)?
        .is_some_and(|cover| cover.format == format && cover.records == records))
}

/// Whether a journal's derived tables were written by another version (or none were): then its
/// views would fold from the first record, and it is folded once again. A journal whose
/// checkpoints are only behind its records (a follower that has not said its end yet) is not:
/// its views fold on from the latest checkpoint.
pub fn needs_refold(store: &Store, journal_id: i64, dialect: Dialect) -> Result<bool, StoreError> {
    let format = interpreter(dialect).checkpoint_format();
    Ok(store
        .checkpoint_cover(journal_id)?
        .is_none_or(|cover| cover.format != format))
}

/// Folds stored records from a journal's first, for tests and tools that hold them already:
/// everything a fold derives, as an import would store it.
pub fn analyse(dialect: Dialect, events: &[StoredEvent]) -> Analysis {
    fold_all(interpreter(dialect), events)
}

/// The contract a journal follows, where its dialect has contracts (iterate's seed and
/// sections contracts).
pub fn contract(
    store: &Store,
    journal: &JournalRow,
) -> Result<Option<iterate::contract::Contract>, StoreError> {
    match journal.dialect {
        Dialect::Iterate => Ok(Some(iterate::contract::of_journal(store, journal.id)?)),
        Dialect::AgUi | Dialect::AgentsKit | Dialect::ClaudeCode | Dialect::Codex => Ok(None),
    }
}

/// The controls the window shows for one journal: its dialect's, less the transport switch
/// where its contract renders every request one way (the agent loop's Responses-API bodies).
pub fn controls(store: &Store, journal: &JournalRow) -> Result<Controls, StoreError> {
    let controls = journalscope_seam::interpreter::controls_of(interpreter(journal.dialect));
    Ok(match contract(store, journal)? {
        Some(contract) if contract.name == iterate::contract::ContractName::AgentLoop => {
            controls.one_transport()
        }
        _ => controls,
    })
}

/// A transcript's request as its provider got it, in the shape the window reads it: Claude
/// Code's as Messages API messages, Codex's as Responses API input items.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(untagged)]
#[ts(export)]
pub enum TranscriptRequest {
    Messages(claude::ConversationRequest),
    Items(codex::RolloutRequest),
}

/// Why each request of a transcript read less from the prompt cache than the one before it
/// left; `None` when the journal is no transcript.
pub fn transcript_cache(
    store: &Store,
    journal: &JournalRow,
    range: journalscope_transcript::transcript::cache::Range,
) -> Result<Option<journalscope_transcript::transcript::cache::CacheReport>, StoreError> {
    Ok(match journal.dialect {
        Dialect::ClaudeCode => Some(claude::cache::cache_report(store, journal.id, range)?),
        Dialect::Codex => Some(codex::cache_report(store, journal.id, range)?),
        Dialect::Iterate | Dialect::AgUi | Dialect::AgentsKit => None,
    })
}

/// Every agent session on disk that a dialect knows where to find, newest first.
pub fn sessions() -> Vec<journalscope_transcript::transcript::Session> {
    let now = std::time::SystemTime::now();
    let mut found: Vec<_> = INTERPRETERS
        .into_iter()
        .flat_map(|interpreter| interpreter.sessions(now))
        .collect();
    found.sort_by(|a, b| {
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.path.cmp(&b.path))
    });
    found
}

/// The file of the session `sessions` lists under `id`.
pub fn session_file(id: &str) -> Option<std::path::PathBuf> {
    sessions()
        .into_iter()
        .find(|session| session.id == id)
        .map(|session| std::path::PathBuf::from(session.path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_dialects_start_with_the_default_and_name_each_once() {
        // Given the registered dialects; when they are listed (for help, demos, sessions);
        // then the default comes first and none is left out or said twice.
        let dialects: Vec<Dialect> = listed().map(|interpreter| interpreter.dialect()).collect();
        assert_eq!(
            dialects.first(),
            Some(&Dialect::default()),
            "the default leads"
        );
        let mut unique = dialects.clone();
        unique.sort_by_key(|dialect| dialect.as_str());
        unique.dedup();
        assert_eq!(
            unique.len(),
            INTERPRETERS.len(),
            "each dialect once: {dialects:?}"
        );
        assert_eq!(
            described().len(),
            INTERPRETERS.len(),
            "each says what it reads"
        );
        assert!(
            described().iter().all(|phrase| !phrase.is_empty()),
            "no dialect describes itself with nothing"
        );
    }

    #[test]
    fn a_posted_body_is_refused_with_what_it_lacks() {
        // Given bodies to POST; when the registry asks which dialect's stream answers them;
        // then a run input names its thread, and a body without one says what is missing.
        assert_eq!(
            posted(&serde_json::json!({"threadId": "t1", "runId": "r1"})),
            Ok("thread=t1".to_string()),
            "a run input is kept by its thread"
        );
        let refused = posted(&serde_json::json!({"threadId": "t1"})).expect_err("no run id");
        assert!(
            refused.contains("runId"),
            "the refusal names the field: {refused}"
        );
    }
}
