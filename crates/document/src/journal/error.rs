//! What goes wrong opening a journal or asking it for a view, with the stable code each error
//! crosses to the window with.

use std::path::PathBuf;

use journalscope_ingest::import::ImportError;
use journalscope_store::derived::Dialect;
use journalscope_store::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("no such file: {0}")]
    NotFound(PathBuf),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{}", not_offered(.view, *.found, .offered_by))]
    NotOffered {
        view: &'static str,
        found: Dialect,
        offered_by: Vec<Dialect>,
    },
    /// A dialect's refusal of a question, with its stable code.
    #[error("{message}")]
    Refused { code: &'static str, message: String },
    #[error("no event at position {0}")]
    NoSuchEvent(u64),
    #[error("cannot write {what}: {source}")]
    Write {
        what: String,
        source: std::io::Error,
    },
    #[error("no demo journal is named {0}")]
    NoSuchDemo(String),
    #[error("cannot write the demo journal to {path}: {source}")]
    Demo {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl JournalError {
    /// A stable code for tools and for the desktop's error display.
    pub fn code(&self) -> &'static str {
        match self {
            JournalError::NotFound(_) => "not-found",
            JournalError::Import(ImportError::Cancelled) => "cancelled",
            JournalError::Import(ImportError::Read { .. }) => "unreadable",
            JournalError::Import(ImportError::NotAJournal { .. }) => "not-a-journal",
            JournalError::Import(ImportError::Store(StoreError::TooNew { .. }))
            | JournalError::Store(StoreError::TooNew { .. }) => "database-too-new",
            JournalError::Import(ImportError::Store(
                StoreError::DamagedBlock { .. } | StoreError::DamagedCheckpoint { .. },
            ))
            | JournalError::Store(
                StoreError::DamagedBlock { .. } | StoreError::DamagedCheckpoint { .. },
            ) => "database-damaged",
            JournalError::Import(ImportError::Store(_)) | JournalError::Store(_) => "database",
            JournalError::NotOffered { .. } => "wrong-dialect",
            JournalError::Refused { code, .. } => code,
            JournalError::NoSuchEvent(_) => "no-such-event",
            JournalError::NoSuchDemo(_) => "no-such-demo",
            JournalError::Demo { .. } => "demo",
            JournalError::Write { .. } => "unwritable",
        }
    }
}

/// "an ag-ui journal has no requests: they are views of iterate journals".
fn not_offered(view: &str, found: Dialect, offered_by: &[Dialect]) -> String {
    let names: Vec<&str> = offered_by.iter().map(|d| d.as_str()).collect();
    let by = match names.as_slice() {
        [] => "no journal".to_string(),
        [one] => format!("{one} journals"),
        [rest @ .., last] => format!("{} and {last} journals", rest.join(", ")),
    };
    format!(
        "this is {} {} journal, which has no {view}: they are a view of {by}",
        article(found.as_str()),
        found.as_str()
    )
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_stored_data_has_its_own_code_and_says_what_to_do() {
        let damaged = JournalError::Store(StoreError::DamagedBlock {
            key: (3 << 40) | 512,
            reason: "cut short".to_string(),
        });
        assert_eq!(
            damaged.code(),
            "database-damaged",
            "a tool can tell damage from other database errors"
        );
        let message = damaged.to_string();
        assert!(
            message.contains("records 512..") && message.contains("import the journal again"),
            "the message names the records and the way out: {message}"
        );
        let checkpoint = JournalError::Import(ImportError::Store(StoreError::DamagedCheckpoint {
            reason: "garbage".to_string(),
        }));
        assert_eq!(
            checkpoint.code(),
            "database-damaged",
            "through an import too"
        );
    }
}
