//! Dialects: which system wrote a journal. Each is one implementation of the seam in
//! `interpreter`; detection picks the implementation, and this module is the one place that
//! names them all.

use serde_json::Value;

use crate::store::{Store, StoreError, StoredEvent};
use crate::{agentskit, agui, iterate};

pub use crate::derived::{
    Analysis, CheckpointCover, Dialect, FoldWatch, Mark, ReadEvent, TipRow, WATCH_EVERY,
};
pub use crate::interpreter::{fold_all, Fold, FoldRecord, Interpreter, RecordReader};

/// Every dialect, in the order detection asks them: iterate last, as the fallback.
const INTERPRETERS: [&dyn Interpreter; 3] = [
    &agentskit::INTERPRETER,
    &agui::INTERPRETER,
    &iterate::INTERPRETER,
];

/// The implementation of `dialect`.
pub fn interpreter(dialect: Dialect) -> &'static dyn Interpreter {
    INTERPRETERS
        .into_iter()
        .find(|interpreter| interpreter.dialect() == dialect)
        .unwrap_or(&iterate::INTERPRETER)
}

impl Dialect {
    /// Decides from the first events that parse: the first of them that a dialect recognises
    /// names it; a journal nobody recognises is read as iterate.
    pub fn detect<'a>(values: impl IntoIterator<Item = &'a Value>) -> Dialect {
        for value in values.into_iter().take(64) {
            if let Some(found) = INTERPRETERS
                .into_iter()
                .find(|interpreter| interpreter.looks_like(value))
            {
                return found.dialect();
            }
        }
        Dialect::Iterate
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

/// Folds stored records from a journal's first, for tests and tools that hold them already:
/// everything a fold derives, as an import would store it.
pub fn analyse(dialect: Dialect, events: &[StoredEvent]) -> Analysis {
    fold_all(interpreter(dialect), events)
}
