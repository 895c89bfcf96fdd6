//! What a tail notices about the connection itself, which no record of the journal shows: a
//! content type that is not a stream's, frames without data, a silence longer than the
//! keep-alive interval, a response held back and released in one burst at its end, a drop in
//! the middle of a run. Each becomes a diagnostic of the stream, attached to the record where it
//! was seen; these are kept with the records' own read-time diagnostics, so no refresh of the
//! derived tables loses them.

use std::time::{Duration, Instant};

use journalscope_shapes::diagnostic::{Diagnostic, Severity};

use super::target::Transport;

/// One kind of thing a connection can do wrong, and the code its diagnostics carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportRule {
    pub code: &'static str,
    pub severity: Severity,
    /// What the connection did.
    pub seen_when: &'static str,
}

/// Every transport diagnostic a tail raises.
pub const TRANSPORT_RULES: &[TransportRule] = &[
    TransportRule {
        code: "unexpected-content-type",
        severity: Severity::Warning,
        seen_when: "the response's Content-Type is not text/event-stream (application/x-ndjson for an NDJSON endpoint)",
    },
    TransportRule {
        code: "event-without-data",
        severity: Severity::Warning,
        seen_when: "an SSE frame names an event but has no data: field, so no client dispatches it",
    },
    TransportRule {
        code: "frame-without-data",
        severity: Severity::Info,
        seen_when: "an SSE frame carries only id: or retry:, which moves the resume point and dispatches nothing",
    },
    TransportRule {
        code: "keep-alive-gap",
        severity: Severity::Warning,
        seen_when: "nothing, not even a keep-alive comment or ping, arrived for longer than the keep-alive interval",
    },
    TransportRule {
        code: "buffered-response",
        severity: Severity::Warning,
        seen_when: "a response's events all arrived in one burst at its end, long after it began: something between the server and here buffers the stream",
    },
    TransportRule {
        code: "dropped-during-run",
        severity: Severity::Warning,
        seen_when: "the connection ended while a run the stream started had not finished",
    },
];

/// The keep-alive interval assumed when none is given: servers commonly send a comment every
/// 15 s so that proxies do not cut a quiet stream.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Events closer together than this arrived in one burst.
const BURST: Duration = Duration::from_millis(100);
/// A burst is a buffered response when at least this many events waited at least this long.
const BURST_EVENTS: u64 = 3;
const BURST_WAIT: Duration = Duration::from_secs(1);

/// Which record a diagnostic belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attach {
    /// The next record to land: what the connection did before it.
    Next,
    /// The last record stored: what the connection did after it.
    Last,
}

/// A transport diagnostic waiting for its record's line and offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Observation {
    pub attach: Attach,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

impl Observation {
    fn new(attach: Attach, severity: Severity, code: &'static str, message: String) -> Self {
        Observation {
            attach,
            severity,
            code,
            message,
        }
    }

    pub fn diagnostic(&self, line: u64, offset: Option<i64>) -> Diagnostic {
        Diagnostic {
            offset,
            line,
            severity: self.severity,
            code: self.code.to_string(),
            message: self.message.clone(),
        }
    }
}

/// A content type that is not the one a stream of `expected` is served with, or `None` when
/// it is. `read_as` is how the body is read all the same.
pub(crate) fn content_type(
    content_type: &str,
    expected: Transport,
    read_as: Transport,
) -> Option<Observation> {
    let essence = essence(content_type);
    let canonical = match expected {
        Transport::Sse => essence == "text/event-stream",
        _ => matches!(
            essence.as_str(),
            "application/x-ndjson" | "application/ndjson" | "application/jsonl"
        ),
    };
    if canonical {
        return None;
    }
    let wanted = match expected {
        Transport::Sse => "text/event-stream",
        _ => "application/x-ndjson",
    };
    let sent = if content_type.trim().is_empty() {
        "no Content-Type".to_string()
    } else {
        format!("Content-Type {:?}", content_type.trim())
    };
    Some(Observation::new(
        Attach::Next,
        Severity::Warning,
        "unexpected-content-type",
        format!(
            "the server sent {sent}, not {wanted}: read as {}, but a browser or proxy may treat it as a document and buffer it",
            read_as.describe()
        ),
    ))
}

/// The media type of a Content-Type value, without parameters, lower-cased.
pub(crate) fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The connection ended while `unfinished` (an AG-UI run) was still open: cut for `reason`,
/// or ended by the server when `reason` is `None`. `resumes` when the tail reconnects.
pub(crate) fn dropped_during(unfinished: &str, reason: Option<&str>, resumes: bool) -> Observation {
    let how = match reason {
        Some(reason) => format!("the connection was cut while {unfinished} was running ({reason})"),
        None => format!("the server ended the response while {unfinished} was running"),
    };
    let after = if resumes {
        "the tail reconnects and resumes after the last stored record"
    } else {
        "nothing the run sent after this was received"
    };
    Observation::new(
        Attach::Last,
        Severity::Warning,
        "dropped-during-run",
        format!("{how}: {after}"),
    )
}

/// An SSE frame that dispatched nothing: whether it named an event, and its id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DatalessFrame {
    pub event: Option<String>,
    pub id: Option<String>,
}

/// When things arrived on one connection, for the diagnostics that depend on timing.
pub(crate) struct Arrivals {
    keep_alive: Duration,
    requested_at: Instant,
    last_arrival: Instant,
    first_event_at: Option<Instant>,
    last_event_at: Option<Instant>,
    events: u64,
    dataless: u64,
    dataless_named: Option<String>,
    dataless_last_id: Option<String>,
}

impl Arrivals {
    /// A connection whose request went out at `requested_at` and was answered at `now`.
    pub fn new(keep_alive: Duration, requested_at: Instant, now: Instant) -> Arrivals {
        Arrivals {
            keep_alive,
            requested_at,
            last_arrival: now,
            first_event_at: None,
            last_event_at: None,
            events: 0,
            dataless: 0,
            dataless_named: None,
            dataless_last_id: None,
        }
    }

    /// Something arrived at `now` (bytes, a keep-alive comment, a ping), carrying `events`
    /// events and the frames in `dataless` that dispatched none. Returns what this says:
    /// a silence that ended here, and frames without data held until an event carries them.
    pub fn arrived(
        &mut self,
        now: Instant,
        events: u64,
        dataless: &[DatalessFrame],
    ) -> Vec<Observation> {
        let mut out = Vec::new();
        let silence = now.saturating_duration_since(self.last_arrival);
        if silence > self.keep_alive {
            out.push(self.silence(Attach::Next, silence, "before this record"));
        }
        self.last_arrival = now;
        for frame in dataless {
            self.dataless += 1;
            if self.dataless_named.is_none() {
                self.dataless_named.clone_from(&frame.event);
            }
            if frame.id.is_some() {
                self.dataless_last_id.clone_from(&frame.id);
            }
        }
        if events > 0 {
            self.first_event_at.get_or_insert(now);
            self.last_event_at = Some(now);
            self.events += events;
            out.extend(self.take_dataless(Attach::Next));
        }
        out
    }

    /// The connection ended at `now`; `by_server` when the response ended normally rather
    /// than being cut.
    pub fn ended(&mut self, now: Instant, by_server: bool) -> Vec<Observation> {
        let mut out: Vec<Observation> = self.take_dataless(Attach::Last).into_iter().collect();
        let silence = now.saturating_duration_since(self.last_arrival);
        if silence > self.keep_alive {
            out.push(self.silence(Attach::Last, silence, "before the connection ended"));
        }
        if let (true, Some(first), Some(last)) =
            (by_server, self.first_event_at, self.last_event_at)
        {
            let waited = first.saturating_duration_since(self.requested_at);
            let span = last.saturating_duration_since(first);
            let tail = now.saturating_duration_since(last);
            if self.events >= BURST_EVENTS && span <= BURST && tail <= BURST && waited >= BURST_WAIT
            {
                out.push(Observation::new(
                    Attach::Last,
                    Severity::Warning,
                    "buffered-response",
                    format!(
                        "all {} events of this response arrived within {} ms at its end, {:.1} s after the request: something between the server and here (a proxy, compression) buffers the stream",
                        self.events,
                        span.as_millis(),
                        waited.as_secs_f64()
                    ),
                ));
            }
        }
        out
    }

    fn silence(&self, attach: Attach, silence: Duration, when: &str) -> Observation {
        Observation::new(
            attach,
            Severity::Warning,
            "keep-alive-gap",
            format!(
                "nothing arrived for {:.1} s {when}, longer than the keep-alive interval of {} s: a proxy may cut a connection this quiet",
                silence.as_secs_f64(),
                self.keep_alive.as_secs_f64()
            ),
        )
    }

    fn take_dataless(&mut self, attach: Attach) -> Option<Observation> {
        if self.dataless == 0 {
            return None;
        }
        let count = std::mem::take(&mut self.dataless);
        let named = self.dataless_named.take();
        let id = self.dataless_last_id.take();
        let frames = if count == 1 {
            "a frame".to_string()
        } else {
            format!("{count} frames")
        };
        let (severity, code, what) = match &named {
            Some(event) => (
                Severity::Warning,
                "event-without-data",
                format!(
                    "{frames} without a data: field (event {event:?}): no client dispatches it"
                ),
            ),
            None => (
                Severity::Info,
                "frame-without-data",
                format!("{frames} without a data: field: nothing dispatched"),
            ),
        };
        let resume = id.map_or_else(String::new, |id| {
            format!("; its id {id:?} still moves the resume point")
        });
        Some(Observation::new(
            attach,
            severity,
            code,
            format!("{what}{resume}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    #[test]
    fn given_a_silence_longer_than_the_keep_alive_when_something_arrives_then_it_is_a_gap() {
        let base = Instant::now();
        let mut arrivals = Arrivals::new(Duration::from_secs(1), base, base);
        assert!(
            arrivals.arrived(at(base, 900), 1, &[]).is_empty(),
            "under the interval is quiet, not a gap"
        );
        let seen = arrivals.arrived(at(base, 2_500), 1, &[]);
        assert_eq!(
            seen.iter().map(|o| (o.code, o.attach)).collect::<Vec<_>>(),
            vec![("keep-alive-gap", Attach::Next)],
            "the silence is told at the record that ended it: {seen:?}"
        );
        assert!(seen[0].message.contains("1.6 s"), "{}", seen[0].message);
    }

    #[test]
    fn given_frames_without_data_when_an_event_follows_then_one_diagnostic_counts_them() {
        let base = Instant::now();
        let mut arrivals = Arrivals::new(DEFAULT_KEEP_ALIVE, base, base);
        let heartbeat = DatalessFrame {
            event: None,
            id: Some("7".into()),
        };
        assert!(
            arrivals
                .arrived(at(base, 1), 0, std::slice::from_ref(&heartbeat))
                .is_empty(),
            "held until a record can carry it"
        );
        let seen = arrivals.arrived(at(base, 2), 1, &[heartbeat]);
        assert_eq!(seen.len(), 1, "coalesced: {seen:?}");
        assert_eq!(
            seen[0].severity,
            Severity::Info,
            "an id-only frame is advice"
        );
        assert!(
            seen[0].message.starts_with("2 frames") && seen[0].message.contains("\"7\""),
            "{}",
            seen[0].message
        );
        let named = DatalessFrame {
            event: Some("tick".into()),
            id: None,
        };
        arrivals.arrived(at(base, 3), 0, &[named]);
        let end = arrivals.ended(at(base, 4), false);
        assert_eq!(
            end.iter()
                .map(|o| (o.severity, o.attach))
                .collect::<Vec<_>>(),
            vec![(Severity::Warning, Attach::Last)],
            "a named event without data is a fault, told at the last record when none follows"
        );
    }

    #[test]
    fn given_a_response_released_at_once_at_its_end_when_it_ends_then_it_was_buffered() {
        let base = Instant::now();
        let mut arrivals = Arrivals::new(DEFAULT_KEEP_ALIVE, base, at(base, 5));
        arrivals.arrived(at(base, 2_000), 5, &[]);
        arrivals.arrived(at(base, 2_010), 4, &[]);
        let seen = arrivals.ended(at(base, 2_020), true);
        assert_eq!(
            seen.iter().map(|o| o.code).collect::<Vec<_>>(),
            vec!["buffered-response"],
            "nine events in 10 ms after 2 s of nothing"
        );
        let mut streamed = Arrivals::new(DEFAULT_KEEP_ALIVE, base, at(base, 5));
        for ms in [2_000, 2_300, 2_600] {
            streamed.arrived(at(base, ms), 1, &[]);
        }
        assert!(
            streamed.ended(at(base, 2_610), true).is_empty(),
            "events spread over time were streamed"
        );
        let mut fast = Arrivals::new(DEFAULT_KEEP_ALIVE, base, at(base, 5));
        fast.arrived(at(base, 20), 9, &[]);
        assert!(
            fast.ended(at(base, 25), true).is_empty(),
            "a quick answer sent at once is not held back"
        );
    }

    #[test]
    fn content_types_other_than_the_streams_own_are_told() {
        assert_eq!(
            content_type(
                "text/event-stream; charset=utf-8",
                Transport::Sse,
                Transport::Sse
            ),
            None,
            "SSE as it should be"
        );
        assert_eq!(
            content_type("application/x-ndjson", Transport::Ndjson, Transport::Ndjson),
            None,
            "NDJSON at an NDJSON endpoint"
        );
        let json =
            content_type("application/json", Transport::Sse, Transport::Ndjson).map(|o| o.message);
        assert!(
            json.as_deref()
                .is_some_and(|m| m.contains("\"application/json\"") && m.contains("NDJSON")),
            "names what came and how it was read: {json:?}"
        );
        assert!(
            content_type("", Transport::Sse, Transport::Sse)
                .is_some_and(|o| o.message.contains("no Content-Type")),
            "a missing type is told"
        );
    }
}
