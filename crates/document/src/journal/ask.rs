//! Views asked for by their family: an opened journal hands the question to the dialect that
//! wrote it, through the registry, and says which dialects would answer one it cannot.

use journalscope_registry::dialect::{self, Ask, AskError, Family, Reply};

use super::{Journal, JournalError};

impl Journal {
    /// Whether the journal's dialect answers questions of `family`.
    pub fn answers(&self, family: Family) -> bool {
        dialect::interpreter(self.row.dialect).answers(family)
    }

    /// The JSON of the view `ask` asks for, as the window shows it; a body question gives the
    /// request the body is of.
    pub fn view(&self, ask: &Ask) -> Result<serde_json::Value, JournalError> {
        Ok(match self.answer(ask)? {
            Reply::View(answer) => answer.json,
            Reply::Body(body) => body.request.json,
        })
    }

    /// The answer to `ask`: the view's JSON and its dialect's text, or a request's body.
    pub fn answer(&self, ask: &Ask) -> Result<Reply, JournalError> {
        dialect::answer(&self.store, &self.row, ask).map_err(|err| match err {
            AskError::Store(err) => JournalError::Store(err),
            AskError::NotOffered(family) => JournalError::NotOffered {
                view: family.as_str(),
                found: self.row.dialect,
                offered_by: dialect::answering(family),
            },
            AskError::Refused { code, message } => JournalError::Refused { code, message },
        })
    }
}
