//! Moving through a journal: the scrubber's picture of it, the next event of a kind, and the
//! offsets the views fold through for a selected event.

use std::ops::RangeInclusive;

use serde::Serialize;
use ts_rs::TS;

use journalscope_registry::dialect::Mark;

use super::{Journal, JournalError};

/// The mark kinds the timeline draws; the others (downgrades, verdicts, ...) are badges in
/// the event list.
pub const TIMELINE_MARK_KINDS: &[&str] = &[
    "request",
    "compaction",
    "diagnostic",
    "error",
    "run-start",
    "run-end",
];

/// Spans the timeline's marks are thinned to: finer than any screen's pixels.
pub const TIMELINE_MARK_BINS: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Timeline {
    #[ts(type = "number")]
    pub event_count: u64,
    /// The events the picture spans: the whole journal, or the part a zoomed scrubber shows.
    #[ts(type = "number")]
    pub first_seq: u64,
    #[ts(type = "number")]
    pub last_seq: u64,
    pub marks: Vec<Mark>,
    /// Events per bucket across the span; every bucket spans the same number of events.
    pub density: Vec<u32>,
    /// Seqs that carry an error or warning diagnostic.
    #[ts(type = "number[]")]
    pub diagnostic_seqs: Vec<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum StepTarget {
    Event,
    Request,
    Compaction,
    Diagnostic,
    /// The start of an AG-UI run.
    Run,
}

impl Journal {
    /// The scrubber's picture of the journal: density in `buckets`, and the marks it draws
    /// (`TIMELINE_MARK_KINDS`), at most one per kind in each of `TIMELINE_MARK_BINS` equal
    /// spans of the journal. Sending every mark made opening a 200,000-event journal ship
    /// 4.5 MB to the window for a strip a few hundred pixels wide.
    pub fn timeline(&self, buckets: u32) -> Result<Timeline, JournalError> {
        self.timeline_of(buckets, None)
    }

    /// The same picture of the events `seqs` spans (clamped to the journal), for a scrubber
    /// zoomed into part of it; the whole journal when `None`. The marks are thinned to bins of
    /// the span, so a zoomed strip shows the marks the whole one merged.
    pub fn timeline_of(
        &self,
        buckets: u32,
        seqs: Option<RangeInclusive<u64>>,
    ) -> Result<Timeline, JournalError> {
        let count = self.event_count;
        let last = count.saturating_sub(1);
        let (first, last) = match seqs {
            Some(r) => {
                let first = (*r.start()).min(last);
                (first, (*r.end()).clamp(first, last))
            }
            None => (0, last),
        };
        let spanned = if count == 0 { 0 } else { last - first + 1 };
        let buckets = buckets.clamp(1, 4096) as u64;
        let mut density = vec![0u32; buckets.min(spanned.max(1)) as usize];
        let width = spanned.div_ceil(density.len() as u64).max(1);
        for (bucket, slot) in density.iter_mut().enumerate() {
            let start = bucket as u64 * width;
            *slot = spanned.saturating_sub(start).min(width) as u32;
        }
        let bin_width = spanned.div_ceil(TIMELINE_MARK_BINS).max(1);
        let id = self.row.id;
        Ok(Timeline {
            event_count: count,
            first_seq: first,
            last_seq: last,
            marks: self
                .store
                .thinned_marks(id, TIMELINE_MARK_KINDS, first..=last, bin_width)?,
            density,
            diagnostic_seqs: self
                .store
                .thinned_diagnostic_seqs(id, first..=last, bin_width)?,
        })
    }

    /// The next (or previous) event of a kind from `from`.
    pub fn step(
        &self,
        from: u64,
        target: StepTarget,
        forward: bool,
    ) -> Result<Option<u64>, JournalError> {
        let id = self.row.id;
        Ok(match target {
            StepTarget::Event => {
                if forward {
                    (from + 1 < self.event_count).then_some(from + 1)
                } else {
                    from.checked_sub(1)
                }
            }
            StepTarget::Request => self.store.next_mark(id, "request", Some(from), forward)?,
            StepTarget::Compaction => {
                self.store
                    .next_mark(id, "compaction", Some(from), forward)?
            }
            StepTarget::Diagnostic => self.store.next_diagnostic(id, Some(from), forward)?,
            StepTarget::Run => self.store.next_mark(id, "run-start", Some(from), forward)?,
        })
    }

    /// The event at `offset`, or the last one before it.
    pub fn seq_of_offset(&self, offset: i64) -> Result<Option<u64>, JournalError> {
        Ok(self.store.seq_at_or_before_offset(self.row.id, offset)?)
    }

    /// The offset the views fold through when `seq` is selected: its own, or the nearest
    /// earlier one when the event has none.
    pub fn offset_at_seq(&self, seq: u64) -> Result<Option<i64>, JournalError> {
        Ok(self.store.offset_at_or_before_seq(self.row.id, seq)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use journalscope_registry::dialect::{Analysis, Dialect, Family, View};
    use journalscope_store::store::Store;

    fn mark(seq: u64, kind: &str) -> Mark {
        Mark {
            seq,
            kind: kind.to_string(),
            note: String::new(),
        }
    }

    #[test]
    fn regression_the_timeline_shipped_every_mark_to_the_window() {
        // Given a request every 7 events and a downgrade on each of 200,000 events
        let events = 200_000u64;
        let marks: Vec<Mark> = (0..events)
            .flat_map(|seq| {
                let mut here = vec![mark(seq, "downgrade")];
                if seq % 7 == 0 {
                    here.push(mark(seq, "request"));
                }
                here
            })
            .collect();
        let store = Store::in_memory().expect("store");
        let analysis = Analysis {
            marks,
            ..Analysis::default()
        };
        store.append_analysis(1, &analysis).expect("keep the marks");
        // When the timeline thins them to its bins
        let width = events.div_ceil(TIMELINE_MARK_BINS);
        let drawn = store
            .thinned_marks(1, TIMELINE_MARK_KINDS, 0..=events - 1, width)
            .expect("thinned");
        // Then it keeps requests only, one a bin, and every bin holding one keeps one
        assert!(
            drawn.iter().all(|m| m.kind == "request"),
            "kinds the timeline does not draw are left out"
        );
        assert_eq!(
            drawn.len() as u64,
            TIMELINE_MARK_BINS.min(events.div_ceil(width)),
            "one request mark in each bin"
        );
        assert_eq!(drawn[0].seq, 0, "a bin keeps its first mark");
        let few = Analysis {
            marks: vec![
                mark(3, "request"),
                mark(3, "compaction"),
                mark(4, "request"),
            ],
            ..Analysis::default()
        };
        store.append_analysis(2, &few).expect("keep the marks");
        assert_eq!(
            store
                .thinned_marks(2, TIMELINE_MARK_KINDS, 0..=4, 1)
                .expect("thinned")
                .len(),
            3,
            "a short journal keeps every mark it draws"
        );
    }

    /// What the window may offer for a journal, whatever its dialect.
    const BREAKPOINTS: &[&str] = &[
        "request",
        "compaction",
        "downgrade",
        "key",
        "diagnostic",
        "prefix-shrinks",
        "sql",
    ];

    #[test]
    fn every_dialect_describes_only_controls_its_journals_answer() {
        for name in journalscope_registry::dialect::names() {
            let dialect = Dialect::parse(name).expect("the registry names dialects it knows");
            let interpreter = journalscope_registry::dialect::interpreter(dialect);
            let controls = journalscope_seam::interpreter::controls_of(interpreter);
            assert_eq!(
                controls.views,
                interpreter.offers(),
                "{dialect:?}: the window is told every view the fold builds"
            );
            let answered: Vec<Family> = Family::ALL
                .into_iter()
                .filter(|family| interpreter.answers(*family))
                .collect();
            assert_eq!(
                controls.families, answered,
                "{dialect:?}: the window is told every family the dialect answers, and no other"
            );
            assert!(
                controls.families.contains(&Family::State),
                "{dialect:?}: every journal has a state at each row for the window to step through"
            );
            assert_eq!(
                controls.item_filters,
                interpreter.offers().contains(&View::ItemFilters),
                "{dialect:?}: the item filters show exactly where the fold keeps item facts"
            );
            assert!(
                controls
                    .breakpoints
                    .iter()
                    .all(|b| BREAKPOINTS.contains(&b.as_str())),
                "{dialect:?}: every breakpoint is one the core runs: {:?}",
                controls.breakpoints
            );
            let breaks_at_requests = controls.breakpoints.iter().any(|b| b == "request");
            let has_requests = interpreter.offers().contains(&View::Requests)
                || interpreter.offers().contains(&View::Conversation);
            assert_eq!(
                breaks_at_requests, has_requests,
                "{dialect:?}: a break at the next request only where the dialect has requests"
            );
            assert_eq!(
                controls.transports,
                interpreter.offers().contains(&View::Requests),
                "{dialect:?}: the transport switch and size plot only where requests are rendered per transport"
            );
            for unit in &controls.steps {
                let target: StepTarget = serde_json::from_value(serde_json::json!(unit))
                    .unwrap_or_else(|e| {
                        panic!("{dialect:?}: {unit} is a unit the core steps by: {e}")
                    });
                let marked = match target {
                    StepTarget::Request => has_requests,
                    StepTarget::Compaction => {
                        interpreter.offers().contains(&View::Compactions)
                            || interpreter.offers().contains(&View::Conversation)
                    }
                    StepTarget::Run => interpreter.offers().contains(&View::Thread),
                    StepTarget::Event | StepTarget::Diagnostic => false,
                };
                assert!(
                    marked,
                    "{dialect:?}: J/K or c/C step by {unit}, which its journals mark"
                );
            }
            assert!(
                controls.breakpoints.iter().any(|b| b == "diagnostic")
                    && controls.breakpoints.iter().any(|b| b == "sql"),
                "{dialect:?}: every journal has diagnostics and answers SQL"
            );
        }
    }
}
