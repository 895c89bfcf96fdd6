//! Diagnostics: problems found while reading or folding a journal, always attached to the line
//! (and offset, when known) where they arise. A journal is never refused as a whole.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Severity {
    Error,
    Warning,
    /// Advice: nothing is wrong, but what happened is easy to miss and worth knowing.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

/// One problem at one place in a journal. `code` is stable (tests and tools match on it);
/// `message` is for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Diagnostic {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub offset: Option<i64>,
    #[ts(type = "number")]
    pub line: u64,
    pub severity: Severity,
    pub code: String,
    pub message: String,
}

impl Diagnostic {
    pub fn error(line: u64, offset: Option<i64>, code: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            offset,
            line,
            severity: Severity::Error,
            code: code.to_string(),
            message: message.into(),
        }
    }

    pub fn warning(line: u64, offset: Option<i64>, code: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            offset,
            line,
            severity: Severity::Warning,
            code: code.to_string(),
            message: message.into(),
        }
    }

    pub fn info(line: u64, offset: Option<i64>, code: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            offset,
            line,
            severity: Severity::Info,
            code: code.to_string(),
            message: message.into(),
        }
    }
}
