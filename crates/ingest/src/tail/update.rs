//! What a running tail tells its watcher: its status (always one, always current), each event
//! as it lands in the store, offset gaps, and the start of a new journal generation. These
//! cross to the UI, so they serialize and have TypeScript twins.

use serde::Serialize;

use journalscope_shapes::diagnostic::Diagnostic;
use ts_rs::TS;

/// Where a tail stands. Exactly one is current at any time.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "state",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum TailStatus {
    /// Opening the connection (or the file); `attempt` is 0 for the first try.
    Connecting { attempt: u32 },
    /// Receiving; the rate is over the last second.
    Live {
        events_per_second: f64,
        #[ts(type = "number")]
        events: u64,
    },
    /// Waiting before the next attempt.
    Reconnecting {
        #[ts(type = "number")]
        in_ms: u64,
        attempt: u32,
        reason: String,
    },
    /// The window's view is frozen; arrivals are still stored. `behind`: events stored since
    /// the pause, which the view shows when resumed.
    Paused {
        #[ts(type = "number")]
        behind: u64,
    },
    /// Gave up; nothing more will arrive.
    Failed { reason: String },
    /// Ended on request (or after the requested number of events).
    Stopped {
        #[ts(type = "number")]
        events: u64,
    },
}

impl TailStatus {
    /// One line for a terminal or a status bar.
    pub fn describe(&self) -> String {
        match self {
            TailStatus::Connecting { attempt: 0 } => "connecting".to_string(),
            TailStatus::Connecting { attempt } => format!("connecting (attempt {attempt})"),
            TailStatus::Live {
                events_per_second, ..
            } => format!("live ({events_per_second:.1} events/s)"),
            TailStatus::Reconnecting {
                in_ms,
                attempt,
                reason,
            } => format!(
                "reconnecting in {:.1} s (attempt {attempt}): {reason}",
                *in_ms as f64 / 1000.0
            ),
            TailStatus::Paused { behind } => format!("paused ({behind} stored since)"),
            TailStatus::Failed { reason } => format!("failed: {reason}"),
            TailStatus::Stopped { events } => format!("stopped after {events} events"),
        }
    }

    /// Whether this status is a different state, not just a new rate or count.
    pub fn same_state(&self, other: &TailStatus) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// One event that just landed in the store.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TailedEvent {
    #[ts(type = "number")]
    pub journal_id: i64,
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub summary: String,
    /// The event's verbatim text.
    pub raw: String,
}

/// Why a new journal generation was started instead of appending to the current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum GenerationReason {
    /// Nothing of this source was in the store yet.
    First,
    /// The source announced a different stream id: the stream was recreated.
    StreamChanged,
    /// An offset came again with different content: the stream started over.
    OffsetsRestarted,
    /// The followed file became shorter than what was imported.
    FileTruncated,
    /// The followed file's imported part changed (rewritten or rotated).
    FileReplaced,
}

/// Everything a tail reports, in the order it happened.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum TailUpdate {
    Status {
        status: TailStatus,
    },
    Event {
        event: TailedEvent,
    },
    /// Offsets between `after` and `next` never arrived; ephemeral events consume offsets, so
    /// this is shown, not an error.
    Gap {
        #[ts(type = "number")]
        after: i64,
        #[ts(type = "number")]
        next: i64,
    },
    /// Later events land in a new journal generation; the old one is kept.
    Generation {
        #[ts(type = "number")]
        journal_id: i64,
        reason: GenerationReason,
    },
    /// What the connection did (a wrong content type, a silence, a drop during a run), stored
    /// as a diagnostic of the record `seq`.
    Diagnostic {
        #[ts(type = "number")]
        journal_id: i64,
        #[ts(type = "number")]
        seq: u64,
        diagnostic: Diagnostic,
    },
}
