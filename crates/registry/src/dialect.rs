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
    fold_all, Controls, Fold, FoldRecord, Interpreter, RecordReader, View,
};
pub use journalscope_store::derived::{
    Analysis, CheckpointCover, Dialect, FoldWatch, Mark, ReadEvent, TipRow, WATCH_EVERY,
};
pub use journalscope_transcript::transcript::Session as AgentSession;

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
