//! The event list: pages of rows under a filter of types and text, a row's detail, and the
//! types a journal holds, each read from the store as it is asked.

use serde::Serialize;
use ts_rs::TS;

use journalscope_registry::dialect::Mark;
use journalscope_shapes::diagnostic::{Diagnostic, Severity};
use journalscope_store::store::{EventFilter, Store, StoreError, StoredEvent};

/// Events from which a text filter scans on two threads: below it, opening the second
/// connection costs more than it saves.
const PARALLEL_FILTER_FROM: u64 = 50_000;

use super::{Journal, JournalError};

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventQuery {
    /// Only these types (empty: all).
    #[serde(default)]
    pub types: Vec<String>,
    /// Case-insensitive text found in the summary or the raw record.
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    #[ts(type = "number")]
    pub start: u64,
    #[serde(default = "default_limit")]
    #[ts(type = "number")]
    pub limit: u64,
}

fn default_limit() -> u64 {
    200
}

impl EventQuery {
    /// Whether the query leaves events out (a type or text filter).
    pub fn is_filtered(&self) -> bool {
        !self.types.is_empty() || self.text.as_ref().is_some_and(|t| !t.is_empty())
    }
}

impl Default for EventQuery {
    fn default() -> Self {
        EventQuery {
            types: Vec::new(),
            text: None,
            start: 0,
            limit: default_limit(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventRow {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub created_at: Option<String>,
    pub summary: String,
    pub marks: Vec<String>,
    pub severity: Option<Severity>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct EventPage {
    #[ts(type = "number")]
    pub total: u64,
    #[ts(type = "number")]
    pub start: u64,
    pub rows: Vec<EventRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct TypeCount {
    #[serde(rename = "type")]
    pub kind: String,
    #[ts(type = "number")]
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EventDetail {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number")]
    pub line: u64,
    #[ts(type = "number")]
    pub byte_start: u64,
    #[ts(type = "number")]
    pub byte_len: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub created_at: Option<String>,
    /// The record exactly as it was in the file.
    pub raw: String,
    /// The record pretty-printed, when it is JSON.
    pub pretty: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub marks: Vec<Mark>,
}

/// The seqs a filter of the event list keeps, found by one scan and kept for the pages, the
/// total and the row lookups that follow: each of those was a scan of every event, about a
/// second apiece at a million events with a text filter.
#[derive(Default)]
pub(super) struct FilteredSeqs {
    journal_id: i64,
    types: Vec<String>,
    text: Option<String>,
    /// How many events were scanned: a journal that grew since scans only its new ones.
    scanned: u64,
    seqs: Vec<u64>,
}

impl Journal {
    pub fn event_types(&self) -> Result<Vec<TypeCount>, JournalError> {
        Ok(self
            .store
            .type_counts(self.row.id)?
            .into_iter()
            .map(|(kind, count)| TypeCount { kind, count })
            .collect())
    }

    /// Answers `answer` from the seqs `query` keeps, in order, scanning only the events not
    /// scanned for the same filter before.
    fn with_filtered<T>(
        &self,
        query: &EventQuery,
        answer: impl FnOnce(&[u64]) -> T,
    ) -> Result<T, JournalError> {
        let text = query.text.clone().filter(|t| !t.is_empty());
        // Seqs and `scanned` change together, after a scan succeeds, so a poisoned lock still
        // holds a consistent filter.
        let mut kept = self.filtered.lock().unwrap_or_else(|e| e.into_inner());
        let same = kept.journal_id == self.row.id
            && kept.types == query.types
            && kept.text == text
            && kept.scanned <= self.event_count;
        if !same {
            *kept = FilteredSeqs {
                journal_id: self.row.id,
                types: query.types.clone(),
                text,
                scanned: 0,
                seqs: Vec::new(),
            };
        }
        if kept.scanned < self.event_count {
            // Up to the count this journal knows: a follower may have stored more already, which
            // the next reload takes in (and this scan then extends over).
            let filter = EventFilter {
                types: &query.types,
                text: query.text.as_deref(),
            };
            let found = self.filter_scan(&filter, kept.scanned, self.event_count)?;
            kept.seqs.extend(found);
            kept.scanned = self.event_count;
        }
        Ok(answer(&kept.seqs))
    }

    /// The seqs in `from..to` that `filter` keeps. A text filter tests every record's bytes,
    /// which is most of its time: over a long range, the second half is scanned on a thread
    /// and a connection of its own, as a search is.
    fn filter_scan(
        &self,
        filter: &EventFilter<'_>,
        from: u64,
        to: u64,
    ) -> Result<Vec<u64>, JournalError> {
        let id = self.row.id;
        if filter.text.is_none_or(str::is_empty) || to.saturating_sub(from) < PARALLEL_FILTER_FROM {
            return Ok(self.store.filtered_seqs(id, filter, from, to)?);
        }
        let half = from + (to - from) / 2;
        let db = self.db_path();
        let (first, second) = std::thread::scope(|threads| {
            let second = threads.spawn(|| -> Result<Vec<u64>, StoreError> {
                Store::open_existing(db)?.filtered_seqs(id, filter, half, to)
            });
            let first = self.store.filtered_seqs(id, filter, from, half);
            let second = second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (first, second)
        });
        let mut found = first?;
        found.extend(second?);
        Ok(found)
    }

    /// One page of the (filtered) event list, read from SQLite.
    pub fn events_page(&self, query: &EventQuery) -> Result<EventPage, JournalError> {
        let limit = query.limit.min(10_000);
        // Seqs are dense, so an unfiltered page is a range of them.
        let (total, seqs): (u64, Vec<u64>) = if query.is_filtered() {
            self.with_filtered(query, |seqs| {
                let start = (query.start as usize).min(seqs.len());
                let end = start.saturating_add(limit as usize).min(seqs.len());
                (seqs.len() as u64, seqs[start..end].to_vec())
            })?
        } else {
            let end = query.start.saturating_add(limit).min(self.event_count);
            (self.event_count, (query.start.min(end)..end).collect())
        };
        let mut rows: Vec<EventRow> = self
            .store
            .listed_events(self.row.id, &seqs)?
            .into_iter()
            .map(|e| EventRow {
                seq: e.seq,
                offset: e.offset,
                kind: e.kind,
                created_at: e.created_at,
                summary: e.summary,
                marks: Vec::new(),
                severity: None,
            })
            .collect();
        // A dense page reads its marks and diagnostics in one range each; a sparse one (a
        // filter's rows, far apart) by each row's seq.
        let id = self.row.id;
        let dense = rows
            .first()
            .zip(rows.last())
            .is_some_and(|(first, last)| last.seq - first.seq + 1 == rows.len() as u64);
        let (mut marks, mut diagnostics) = match (dense, rows.first(), rows.last()) {
            (true, Some(first), Some(last)) => (
                self.store.marks_between(id, first.seq, last.seq + 1)?,
                self.store
                    .diagnostics_between(id, first.seq, last.seq + 1)?,
            ),
            _ => (Vec::new(), Vec::new()),
        };
        for row in &mut rows {
            if !dense {
                marks = self.store.marks_between(id, row.seq, row.seq + 1)?;
                diagnostics = self.store.diagnostics_between(id, row.seq, row.seq + 1)?;
            }
            let start = marks.partition_point(|m| m.seq < row.seq);
            for mark in marks[start..].iter().take_while(|m| m.seq == row.seq) {
                if !row.marks.contains(&mark.kind) {
                    row.marks.push(mark.kind.clone());
                }
            }
            let start = diagnostics.partition_point(|(seq, _)| *seq < row.seq);
            row.severity = diagnostics[start..]
                .iter()
                .take_while(|(seq, _)| *seq == row.seq)
                .map(|(_, d)| d.severity)
                .min();
            // Advice is listed in the detail pane but wears no alarm badge in the list.
            if row
                .severity
                .is_some_and(|s| matches!(s, Severity::Error | Severity::Warning))
            {
                row.marks.push("diagnostic".to_string());
            }
        }
        Ok(EventPage {
            total,
            start: query.start,
            rows,
        })
    }

    /// Every event with an offset in `from..=to` (events without one are listed when no range
    /// is given), optionally of one type: its full name or its last path segment.
    pub fn list_events(
        &self,
        from: Option<i64>,
        to: Option<i64>,
        kind: Option<&str>,
    ) -> Result<Vec<EventRow>, JournalError> {
        let mut rows = self
            .events_page(&EventQuery {
                limit: u64::MAX,
                ..EventQuery::default()
            })?
            .rows;
        while (rows.len() as u64) < self.event_count {
            let page = self.events_page(&EventQuery {
                start: rows.len() as u64,
                limit: u64::MAX,
                ..EventQuery::default()
            })?;
            if page.rows.is_empty() {
                break;
            }
            rows.extend(page.rows);
        }
        rows.retain(|row| {
            let in_range = match (from, to, row.offset) {
                (None, None, _) => true,
                (_, _, None) => false,
                (from, to, Some(offset)) => {
                    from.is_none_or(|f| offset >= f) && to.is_none_or(|t| offset <= t)
                }
            };
            let of_kind = kind.is_none_or(|wanted| {
                row.kind
                    .as_deref()
                    .is_some_and(|k| k == wanted || k.rsplit('/').next() == Some(wanted))
            });
            in_range && of_kind
        });
        Ok(rows)
    }

    /// Where `seq` sits in the filtered list, if the filter keeps it.
    pub fn row_of_seq(&self, query: &EventQuery, seq: u64) -> Result<Option<u64>, JournalError> {
        // Seqs are dense, so without a filter the row is the seq: counting the rows before it
        // read the whole table up to there, 145 ms a step at 100,000 events.
        if !query.is_filtered() {
            return Ok((seq < self.event_count).then_some(seq));
        }
        self.with_filtered(query, |seqs| {
            seqs.binary_search(&seq).ok().map(|row| row as u64)
        })
    }

    pub fn event(&self, seq: u64) -> Result<StoredEvent, JournalError> {
        self.store
            .event(self.row.id, seq)?
            .ok_or(JournalError::NoSuchEvent(seq))
    }

    pub fn event_detail(&self, seq: u64) -> Result<EventDetail, JournalError> {
        let event = self.event(seq)?;
        let pretty = event
            .json()
            .and_then(|v| serde_json::to_string_pretty(&v).ok());
        // A step seeks its event's entries by seq instead of scanning every mark and
        // diagnostic of the journal.
        let mut diagnostics: Vec<Diagnostic> = self
            .store
            .diagnostics_between(self.row.id, seq, seq + 1)?
            .into_iter()
            .map(|(_, d)| d)
            .collect();
        diagnostics.dedup();
        Ok(EventDetail {
            seq,
            line: event.line,
            byte_start: event.byte_start,
            byte_len: event.byte_len,
            offset: event.offset,
            kind: event.kind.clone(),
            created_at: event.created_at.clone(),
            raw: event.raw_text(),
            pretty,
            diagnostics,
            marks: self.store.marks_between(self.row.id, seq, seq + 1)?,
        })
    }
}
