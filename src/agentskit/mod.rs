//! Placeholder for the agentskit dialect: detection, reading and analysis arrive with its issue.

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

/// The CLI's `state --at N` answer on this dialect.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SnapshotAt {
    pub at: i64,
}

pub fn state_at(_events: &[StoredEvent], at: i64, _session: Option<&str>) -> SnapshotAt {
    SnapshotAt { at }
}

pub fn render_state_text(state: &SnapshotAt) -> String {
    format!("@{}\n", state.at)
}

/// The CLI's `turns` answer.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct TurnsReport {}

pub fn turns(_events: &[StoredEvent], _session: Option<&str>) -> TurnsReport {
    TurnsReport::default()
}

pub fn render_turns_text(_report: &TurnsReport) -> String {
    String::new()
}
