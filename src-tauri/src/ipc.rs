//! The shapes that only the desktop shell sends over IPC (the journal's own views come from the
//! core): the error every command maps to, import progress, and what the welcome screen lists.

use journalscope_ingest::import::ImportStage;
use serde::Serialize;
use ts_rs::TS;

/// Every failing command answers with this: a stable code the UI can branch on and a message
/// it shows as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[ts(export)]
#[error("{code}: {message}")]
pub struct IpcError {
    pub code: String,
    pub message: String,
}

impl IpcError {
    pub fn new(code: &str, message: impl Into<String>) -> IpcError {
        IpcError {
            code: code.to_string(),
            message: message.into(),
        }
    }

    pub fn no_journal() -> IpcError {
        IpcError::new("no-journal", "no journal is open")
    }
}

/// A file the user opened before, newest first in the welcome screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RecentFile {
    pub path: String,
    pub file_name: String,
    /// Milliseconds since the Unix epoch of the last open.
    #[ts(type = "number")]
    pub opened_at_ms: u64,
}

/// Streamed to the webview as the `import-progress` event while a journal is imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportStatus {
    /// What is being imported, as the user would name it (file name or demo name).
    pub source: String,
    #[ts(type = "number")]
    pub done_bytes: u64,
    #[ts(type = "number")]
    pub total_bytes: u64,
    #[ts(type = "number")]
    pub events: u64,
    pub stage: ImportStage,
    /// Events the current analysis stage has done, of `events`.
    #[ts(type = "number")]
    pub analysed: u64,
}

/// What the window needs before the first journal is open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Startup {
    /// The path given on the command line, opened at once when present.
    pub launch_path: Option<String>,
    /// The demo to open when no path was given (`make run` without FILE): the default
    /// dialect's.
    pub open_demo: Option<String>,
    pub recent: Vec<RecentFile>,
    /// The version and the commit of this build, for the About box.
    pub version: String,
}

/// Result of exporting a request snapshot to a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Exported {
    /// None when the user dismissed the save dialog.
    pub path: Option<String>,
    #[ts(type = "number")]
    pub bytes: u64,
    /// Secrets replaced by markers; 0 for an exact export.
    #[ts(type = "number")]
    pub secrets: u64,
    pub redacted: bool,
}

/// A request export returned as text (for the clipboard) instead of written to a file.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ExportedText {
    pub text: String,
    #[ts(type = "number")]
    pub secrets: u64,
    pub redacted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_an_error_when_serialized_then_it_is_code_and_message_only() {
        let json = serde_json::to_value(IpcError::new("not-found", "no such file")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"code": "not-found", "message": "no such file"}),
            "the UI branches on `code` and shows `message`; nothing else may leak"
        );
    }
}
