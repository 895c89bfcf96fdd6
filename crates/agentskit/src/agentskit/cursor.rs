//! The session-monotonic snapshot cursor of ADR-0010: fixed to one session, it accepts that
//! session's first valid snapshot and afterwards only a strictly greater sequence. Every other
//! line is inert and gets a verdict saying why. Accepted snapshots replace one another whole.

use serde::Serialize;
use ts_rs::TS;

use super::decoder::{DecodeError, TurnBody, TurnEvent};

/// What the cursor made of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Verdict {
    Accepted,
    Duplicate,
    Stale,
    ForeignSession,
    Malformed,
    NotASnapshot,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Accepted,
        Verdict::Duplicate,
        Verdict::Stale,
        Verdict::ForeignSession,
        Verdict::Malformed,
        Verdict::NotASnapshot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Duplicate => "duplicate",
            Verdict::Stale => "stale",
            Verdict::ForeignSession => "foreign-session",
            Verdict::Malformed => "malformed",
            Verdict::NotASnapshot => "not-a-snapshot",
        }
    }
}

/// The cursor's state: the session it trusts and the snapshot it holds. Accepted state is
/// borrowed, never copied or merged, so nothing can alter it after acceptance.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    session: Option<String>,
    current: Option<&'a TurnEvent>,
    /// The sequence of the held snapshot, which a resumed cursor knows without holding it.
    held: Option<u64>,
}

impl<'a> Cursor<'a> {
    /// A cursor fixed to `session`; `None` trusts no session (every snapshot is foreign).
    pub fn new(session: Option<&str>) -> Cursor<'a> {
        Cursor::resume(session, None)
    }

    /// A cursor fixed to `session` that already holds a snapshot of sequence `held` (read
    /// before), so a fold can go on slice by slice.
    pub fn resume(session: Option<&str>, held: Option<u64>) -> Cursor<'a> {
        Cursor {
            session: session.map(str::to_string),
            current: None,
            held,
        }
    }

    /// The sequence of the held snapshot, if any.
    pub fn held(&self) -> Option<u64> {
        self.held
    }

    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The accepted snapshot, if any.
    pub fn current(&self) -> Option<&'a TurnEvent> {
        self.current
    }

    /// Folds one decoded line. The checks run in the order of the protocol's cursor, so a
    /// submit from another session is `not-a-snapshot`, not `foreign-session`.
    pub fn apply(&mut self, line: &'a Result<TurnEvent, DecodeError>) -> Verdict {
        let event = match line {
            Err(_) => return Verdict::Malformed,
            Ok(event) => event,
        };
        if !matches!(event.body, TurnBody::Snapshot(_)) {
            return Verdict::NotASnapshot;
        }
        if self.session.as_deref() != Some(event.session_id.as_str()) {
            return Verdict::ForeignSession;
        }
        match self.held {
            Some(held) if event.sequence == held => Verdict::Duplicate,
            Some(held) if event.sequence < held => Verdict::Stale,
            _ => {
                self.current = Some(event);
                self.held = Some(event.sequence);
                Verdict::Accepted
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agentskit::decoder::{Snapshot, TurnStatus, Usage};

    fn snapshot(session: &str, sequence: u64) -> Result<TurnEvent, DecodeError> {
        Ok(TurnEvent {
            event_id: format!("e{sequence}"),
            session_id: session.to_string(),
            turn_id: "t1".to_string(),
            sequence,
            emitted_at: "2026-07-11T10:00:00Z".to_string(),
            body: TurnBody::Snapshot(Snapshot {
                messages: Vec::new(),
                status: TurnStatus::Streaming,
                usage: Usage {
                    prompt_tokens: 0,
                    completion_tokens: 0,
                    total_tokens: 0,
                },
                error: None,
                lineage: None,
            }),
        })
    }

    #[test]
    fn given_an_accepted_snapshot_when_a_higher_one_arrives_then_it_replaces_the_first() {
        let lines = [snapshot("s1", 3), snapshot("s1", 7)];
        let mut cursor = Cursor::new(Some("s1"));
        let verdicts: Vec<_> = lines.iter().map(|l| cursor.apply(l)).collect();
        assert_eq!(
            verdicts,
            [Verdict::Accepted, Verdict::Accepted],
            "a strictly greater sequence is accepted"
        );
        assert_eq!(
            cursor.current().map(|e| e.sequence),
            Some(7),
            "the accepted snapshot replaces the previous one whole"
        );
    }

    #[test]
    fn given_no_session_when_snapshots_arrive_then_all_are_foreign() {
        let lines = [snapshot("s1", 0)];
        let mut cursor = Cursor::new(None);
        assert_eq!(
            cursor.apply(&lines[0]),
            Verdict::ForeignSession,
            "a cursor that trusts no session accepts nothing"
        );
    }
}
