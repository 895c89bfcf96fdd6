//! Breakpoints: predicates over a journal's events that a run stops at, forward or backward
//! from the selected event.
//!
//! "The cache prefix shrinks" is judged on the exact request bytes: the cached prefix of a
//! request is the longest common byte prefix of its body and the previous request's body (on
//! one transport); it shrinks at a request whose cached prefix is shorter than the previous
//! request's. The first request caches nothing, so the second cannot shrink. This is a small,
//! self-contained computation over [`Journal::request_body`]; a richer request diff can replace
//! it without changing the breakpoint.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::console::{Console, ConsoleError, DEFAULT_TIMEOUT_MS};
use crate::journal::{Journal, JournalError};
use crate::search::text::Needle;
use journalscope_iterate::iterate::event::{self, EventKind, IterateEvent, Role};
use journalscope_iterate::iterate::Transport;
use journalscope_shapes::diagnostic::Diagnostic;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[ts(export)]
pub enum Breakpoint {
    #[serde(rename = "request")]
    NextRequest,
    #[serde(rename = "compaction")]
    NextCompaction,
    /// An item whose provider role is a downgrade on `transport` (on either when absent).
    #[serde(rename = "downgrade")]
    NextDowngrade { transport: Option<Transport> },
    /// An event that sets keyed slot `key`.
    #[serde(rename = "key")]
    KeyChanges { key: String },
    #[serde(rename = "diagnostic")]
    Diagnostic,
    #[serde(rename = "prefix-shrinks")]
    PrefixShrinks { transport: Transport },
    /// Any SQL predicate over the console's `events` view.
    #[serde(rename = "sql")]
    Sql { predicate: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct BreakpointHit {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    /// Why it stopped here.
    pub note: String,
}

#[derive(Debug, thiserror::Error)]
pub enum BreakpointError {
    #[error("unknown breakpoint {0:?}: use request, compaction, downgrade[:TRANSPORT], key:KEY, diagnostic, prefix-shrinks[:TRANSPORT] or sql:PREDICATE")]
    Unknown(String),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Console(#[from] ConsoleError),
}

impl BreakpointError {
    pub fn code(&self) -> &'static str {
        match self {
            BreakpointError::Unknown(_) => "bad-breakpoint",
            BreakpointError::Journal(e) => e.code(),
            BreakpointError::Console(e) => e.code(),
        }
    }
}

impl Breakpoint {
    /// Reads the command line's spelling: `request`, `compaction`, `downgrade`,
    /// `downgrade:openai`, `key:K`, `diagnostic`, `prefix-shrinks[:workers-ai]`, `sql:PRED`.
    pub fn parse(text: &str) -> Result<Breakpoint, BreakpointError> {
        let (name, argument) = match text.split_once(':') {
            Some((name, argument)) => (name, Some(argument)),
            None => (text, None),
        };
        let transport = |argument: &str| {
            Transport::parse(argument).ok_or_else(|| BreakpointError::Unknown(text.to_string()))
        };
        Ok(match (name, argument) {
            ("request", None) => Breakpoint::NextRequest,
            ("compaction", None) => Breakpoint::NextCompaction,
            ("diagnostic", None) => Breakpoint::Diagnostic,
            ("downgrade", None) => Breakpoint::NextDowngrade { transport: None },
            ("downgrade", Some(t)) => Breakpoint::NextDowngrade {
                transport: Some(transport(t)?),
            },
            ("key", Some(key)) if !key.is_empty() => Breakpoint::KeyChanges {
                key: key.to_string(),
            },
            ("prefix-shrinks", None) => Breakpoint::PrefixShrinks {
                transport: Transport::Openai,
            },
            ("prefix-shrinks", Some(t)) => Breakpoint::PrefixShrinks {
                transport: transport(t)?,
            },
            ("sql", Some(predicate)) if !predicate.trim().is_empty() => Breakpoint::Sql {
                predicate: predicate.to_string(),
            },
            _ => return Err(BreakpointError::Unknown(text.to_string())),
        })
    }

    /// Where a run from `from` (a seq; `None` is outside the journal, before its start when
    /// running forward and after its end when running backward) stops first.
    pub fn run(
        &self,
        journal: &Journal,
        from: Option<u64>,
        forward: bool,
    ) -> Result<Option<BreakpointHit>, BreakpointError> {
        let store = journal.store();
        let id = journal.row().id;
        let marked = |kind: &str| -> Result<Option<BreakpointHit>, BreakpointError> {
            let Some(seq) = store
                .next_mark(id, kind, from, forward)
                .map_err(JournalError::from)?
            else {
                return Ok(None);
            };
            let note = store
                .marks_between(id, seq, seq + 1)
                .map_err(JournalError::from)?
                .into_iter()
                .find(|m| m.kind == kind)
                .map(|m| m.note)
                .unwrap_or_default();
            Ok(Some(BreakpointHit {
                seq,
                offset: journal.event(seq)?.offset,
                note,
            }))
        };
        // The kinds the store keeps an index for seek their next hit instead of listing all.
        match self {
            Breakpoint::Sql { predicate } => return sql_hit(journal, predicate, from, forward),
            Breakpoint::NextRequest => return marked("request"),
            Breakpoint::NextCompaction => return marked("compaction"),
            Breakpoint::NextDowngrade { transport: None } => return marked("downgrade"),
            Breakpoint::NextDowngrade {
                transport: Some(transport),
            } => {
                journal.offer(journalscope_registry::dialect::View::Projection)?;
                return Ok(marked("downgrade")?.map(|hit| BreakpointHit {
                    note: on_transport(&hit.note, *transport),
                    ..hit
                }));
            }
            Breakpoint::Diagnostic => {
                let Some(seq) = store
                    .next_diagnostic(id, from, forward)
                    .map_err(JournalError::from)?
                else {
                    return Ok(None);
                };
                return Ok(store
                    .diagnostics_between(id, seq, seq + 1)
                    .map_err(JournalError::from)?
                    .into_iter()
                    .next()
                    .map(|(seq, d)| diagnostic_hit(journal, seq, &d)));
            }
            _ => {}
        }
        let hits = self.hits(journal)?;
        Ok(if forward {
            hits.into_iter().find(|h| from.is_none_or(|f| h.seq > f))
        } else {
            hits.into_iter()
                .rev()
                .find(|h| from.is_none_or(|f| h.seq < f))
        })
    }

    /// Every event this breakpoint stops at, in file order (a SQL predicate: the first 10,000).
    pub fn hits(&self, journal: &Journal) -> Result<Vec<BreakpointHit>, BreakpointError> {
        let offset_of = |seq: u64| journal.event(seq).ok().and_then(|e| e.offset);
        let from_marks = |kind: &str| -> Result<Vec<BreakpointHit>, BreakpointError> {
            Ok(journal
                .marks()?
                .into_iter()
                .filter(|m| m.kind == kind)
                .map(|m| BreakpointHit {
                    seq: m.seq,
                    offset: offset_of(m.seq),
                    note: m.note,
                })
                .collect())
        };
        let mut hits = match self {
            Breakpoint::NextRequest => from_marks("request")?,
            Breakpoint::NextCompaction => from_marks("compaction")?,
            Breakpoint::NextDowngrade { transport: None } => from_marks("downgrade")?,
            Breakpoint::NextDowngrade {
                transport: Some(transport),
            } => downgrades(journal, *transport)?,
            Breakpoint::KeyChanges { key } => key_changes(journal, key)?,
            Breakpoint::Diagnostic => journal
                .diagnostics_with_seq()?
                .iter()
                .map(|(seq, d)| diagnostic_hit(journal, *seq, d))
                .collect(),
            Breakpoint::PrefixShrinks { transport } => prefix_shrinks(journal, *transport)?,
            Breakpoint::Sql { predicate } => {
                let mut console = Console::open(journal, None)?;
                let sql = format!(
                    "SELECT seq, offset FROM events WHERE ({predicate}) ORDER BY seq LIMIT 10000"
                );
                let result = console.query(&sql, &[], 10_000, DEFAULT_TIMEOUT_MS)?;
                result
                    .rows
                    .iter()
                    .filter_map(|row| {
                        Some(BreakpointHit {
                            seq: row.first()?.as_u64()?,
                            offset: row.get(1).and_then(|o| o.as_i64()),
                            note: format!("sql: {predicate}"),
                        })
                    })
                    .collect()
            }
        };
        // One stop per event: a seq with several diagnostics or marks is one hit.
        hits.dedup_by_key(|h| h.seq);
        Ok(hits)
    }

    /// A short name for people: `next request`, `key github/review-task changes`, …
    pub fn describe(&self) -> String {
        match self {
            Breakpoint::NextRequest => "request".to_string(),
            Breakpoint::NextCompaction => "compaction".to_string(),
            Breakpoint::NextDowngrade { transport: None } => "downgrade".to_string(),
            Breakpoint::NextDowngrade { transport: Some(t) } => {
                format!("downgrade on {}", t.as_str())
            }
            Breakpoint::KeyChanges { key } => format!("key {key} changes"),
            Breakpoint::Diagnostic => "diagnostic".to_string(),
            Breakpoint::PrefixShrinks { transport } => {
                format!("cache prefix shrinks ({})", transport.as_str())
            }
            Breakpoint::Sql { predicate } => format!("sql {predicate}"),
        }
    }
}

/// A stop at a diagnostic: the first one of its event says why.
fn diagnostic_hit(journal: &Journal, seq: u64, d: &Diagnostic) -> BreakpointHit {
    BreakpointHit {
        seq,
        offset: d
            .offset
            .or_else(|| journal.event(seq).ok().and_then(|e| e.offset)),
        note: format!("{} {}: {}", d.severity.as_str(), d.code, d.message),
    }
}

fn sql_hit(
    journal: &Journal,
    predicate: &str,
    from: Option<u64>,
    forward: bool,
) -> Result<Option<BreakpointHit>, BreakpointError> {
    let mut console = Console::open(journal, None)?;
    let (compare, order) = if forward { (">", "ASC") } else { ("<", "DESC") };
    let bound = match (from, forward) {
        (Some(seq), _) => seq as i64,
        (None, true) => -1,
        (None, false) => i64::MAX,
    };
    let sql = format!(
        "SELECT seq, offset FROM events WHERE seq {compare} ?1 AND ({predicate})
         ORDER BY seq {order} LIMIT 1"
    );
    let result = console.query(&sql, &[&bound], 1, DEFAULT_TIMEOUT_MS)?;
    Ok(result.rows.first().and_then(|row| {
        Some(BreakpointHit {
            seq: row.first()?.as_u64()?,
            offset: row.get(1).and_then(|o| o.as_i64()),
            note: format!("sql: {predicate}"),
        })
    }))
}

/// Items whose provider role on `transport` is a downgrade, where they enter the projection.
/// Both downgrades (an external actor's developer item, a compaction summary) give the same
/// role on every transport, so the analysis's `downgrade` marks are the hits on each one.
fn downgrades(journal: &Journal, transport: Transport) -> Result<Vec<BreakpointHit>, JournalError> {
    journal.offer(journalscope_registry::dialect::View::Projection)?;
    Ok(journal
        .marks()?
        .into_iter()
        .filter(|mark| mark.kind == "downgrade")
        .map(|mark| BreakpointHit {
            seq: mark.seq,
            offset: journal.event(mark.seq).ok().and_then(|e| e.offset),
            note: on_transport(&mark.note, transport),
        })
        .collect())
}

/// A downgrade mark's note, said of one transport.
fn on_transport(note: &str, transport: Transport) -> String {
    format!("{note} on {}", transport.as_str())
}

/// Events that set keyed slot `key` (a compaction summary's key names no slot), read from the
/// stored bytes: only a record holding the key as text is parsed.
fn key_changes(journal: &Journal, key: &str) -> Result<Vec<BreakpointHit>, JournalError> {
    journal.offer(journalscope_registry::dialect::View::Projection)?;
    let Some(needle) = Needle::new(key) else {
        return Ok(Vec::new());
    };
    let store = journal.store();
    let id = journal.row().id;
    let mut hits = Vec::new();
    store.visit_bytes(id, 0, store.event_count(id)?, |seq, raw| {
        if needle.find(raw).is_none() {
            return true;
        }
        let event = journalscope_shapes::record_json::value(raw)
            .and_then(|value| event::parse(seq, 0, &value).0);
        if let Some(hit) = event.as_ref().and_then(|event| key_change(event, key)) {
            hits.push(hit);
        }
        true
    })?;
    Ok(hits)
}

/// The hit `event` is when it sets keyed slot `key`.
fn key_change(event: &IterateEvent, key: &str) -> Option<BreakpointHit> {
    match &event.kind {
        EventKind::ContextAdded(context)
            if context.key.as_deref() == Some(key)
                && !(context.role == Role::Developer && context.compaction.is_some()) =>
        {
            let preview: String = context.content.chars().take(60).collect();
            Some(BreakpointHit {
                seq: event.seq,
                offset: Some(event.offset),
                note: format!("{key} ← {}: {preview}", context.role.as_str()),
            })
        }
        _ => None,
    }
}

/// The longest common prefix of two byte strings, in bytes.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Requests whose cached prefix (shared with the previous request) is shorter than the
/// previous request's.
fn prefix_shrinks(
    journal: &Journal,
    transport: Transport,
) -> Result<Vec<BreakpointHit>, JournalError> {
    let mut hits = Vec::new();
    let mut previous: Option<Vec<u8>> = None;
    let mut cached = 0usize;
    for request in journal.requests()? {
        let body = journal.request_body(request.offset, transport)?;
        if let Some(previous) = &previous {
            let now = common_prefix(previous, &body);
            if now < cached {
                if let Some(seq) = journal.seq_of_offset(request.offset)? {
                    hits.push(BreakpointHit {
                        seq,
                        offset: Some(request.offset),
                        note: format!(
                            "cached prefix shrank from {cached} to {now} bytes ({})",
                            transport.as_str()
                        ),
                    });
                }
            }
            cached = now;
        }
        previous = Some(body);
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reads_every_command_line_spelling() {
        let cases = [
            ("request", Breakpoint::NextRequest),
            ("compaction", Breakpoint::NextCompaction),
            ("diagnostic", Breakpoint::Diagnostic),
            ("downgrade", Breakpoint::NextDowngrade { transport: None }),
            (
                "downgrade:workers-ai",
                Breakpoint::NextDowngrade {
                    transport: Some(Transport::WorkersAi),
                },
            ),
            (
                "key:a/b:c",
                Breakpoint::KeyChanges {
                    key: "a/b:c".to_string(),
                },
            ),
            (
                "prefix-shrinks",
                Breakpoint::PrefixShrinks {
                    transport: Transport::Openai,
                },
            ),
            (
                "sql:type LIKE '%settled'",
                Breakpoint::Sql {
                    predicate: "type LIKE '%settled'".to_string(),
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                Breakpoint::parse(text).ok(),
                Some(expected),
                "spelling {text:?}"
            );
        }
        for bad in ["", "key:", "downgrade:anthropic", "sql: ", "requests"] {
            assert!(Breakpoint::parse(bad).is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn common_prefix_counts_equal_leading_bytes() {
        assert_eq!(
            common_prefix(b"abcdef", b"abcxyz"),
            3,
            "stops at the first difference"
        );
        assert_eq!(
            common_prefix(b"abc", b"abcdef"),
            3,
            "a whole shorter string"
        );
        assert_eq!(common_prefix(b"", b"abc"), 0, "nothing shared");
    }
}
