//! Placeholder for the agui dialect: detection, reading and analysis arrive with its issue.

use serde_json::Value;

use crate::dialect::{Analysis, ReadEvent};
use crate::source::RawRecord;
use crate::store::StoredEvent;

pub fn looks_like(_value: &Value) -> bool {
    false
}

#[derive(Debug, Default)]
pub struct Reader {
    _read: u64,
}

impl Reader {
    pub fn read(&mut self, record: &RawRecord, _value: Option<&Value>) -> ReadEvent {
        ReadEvent {
            offset: Some(record.seq as i64 + 1),
            ..ReadEvent::default()
        }
    }
}

pub fn analyse(_events: &[StoredEvent]) -> Analysis {
    Analysis::default()
}

/// The CLI's `state --at N` answer: `{"at", "state", "messages", "run", "diagnostics"}`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StateAt {
    pub at: i64,
}

pub fn state_at(_events: &[StoredEvent], at: i64) -> StateAt {
    StateAt { at }
}

pub fn render_state_text(state: &StateAt) -> String {
    format!("@{}\n", state.at)
}
