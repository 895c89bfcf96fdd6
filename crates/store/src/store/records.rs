//! A journal's records: appending their bytes, offsets and types as a reader read them, and
//! reading them back by seq, offset or type, one at a time, whole or in slices.

use super::diagnostics::diagnostic_from_row;
use super::*;

/// What the event list shows of an event, read without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventHead {
    pub seq: u64,
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub summary: String,
}

/// Stored records read a slice at a time: see [`Store::slices`].
pub struct Slices<'a> {
    store: &'a Store,
    journal_id: i64,
    next: u64,
    to: u64,
    slice: u64,
}

impl Iterator for Slices<'_> {
    type Item = Result<Vec<StoredEvent>, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.to {
            return None;
        }
        let end = self.next.saturating_add(self.slice).min(self.to);
        let read = self.store.events_between(self.journal_id, self.next, end);
        self.next = match &read {
            Ok(events) if !events.is_empty() => end,
            _ => self.to,
        };
        match read {
            Ok(events) if events.is_empty() => None,
            other => Some(other),
        }
    }
}

/// One stored event: the record as it was in the file, and its indexed columns.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub seq: u64,
    pub line: u64,
    pub byte_start: u64,
    pub byte_len: u64,
    pub raw: Vec<u8>,
    pub offset: Option<i64>,
    pub kind: Option<String>,
    pub created_at: Option<String>,
    pub summary: String,
    /// Diagnostics found when the record was read (not those of folding).
    pub diagnostics: Vec<Diagnostic>,
}

impl StoredEvent {
    /// The record parsed as JSON, or `None` when it is not JSON.
    pub fn json(&self) -> Option<Value> {
        journalscope_shapes::record_json::value(&self.raw)
    }

    /// The record parsed as the import parses it, for a fold to take what it keeps.
    pub fn parsed(&self) -> Option<journalscope_shapes::record_json::Parsed<'_>> {
        journalscope_shapes::record_json::parse_tree(&self.raw)
            .ok()
            .map(|(parsed, _)| parsed)
    }

    pub fn raw_text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }
}

impl Store {
    /// Appends records with what their dialect read of them. Callers batch inside
    /// [`Store::transaction`] for speed.
    pub fn append(
        &self,
        journal_id: i64,
        events: &[(RawRecord, ReadEvent)],
    ) -> Result<(), StoreError> {
        let mut insert = self.conn.prepare_cached(
            "INSERT INTO events (journal_id, seq, line, byte_start, byte_len, offset, type,
                                 created_at, summary)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        let mut diagnose = self.conn.prepare_cached(
            "INSERT INTO read_diagnostics (journal_id, seq, offset, line, severity, code, message)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut typed: Vec<(&str, i64)> = Vec::new();
        for (record, read) in events {
            // A journal has a few dozen types: a scan beats hashing each event's.
            let kind = read.kind.as_deref().unwrap_or(UNTYPED);
            match typed.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => typed.push((kind, 1)),
            }
            insert.execute(params![
                journal_id,
                record.seq as i64,
                record.line as i64,
                record.byte_start as i64,
                record.byte_len as i64,
                read.offset,
                read.kind,
                read.created_at,
                "",
            ])?;
            for d in &read.diagnostics {
                diagnose.execute(params![
                    journal_id,
                    record.seq as i64,
                    d.offset,
                    d.line as i64,
                    d.severity.as_str(),
                    d.code,
                    d.message,
                ])?;
            }
        }
        let mut count = self.conn.prepare_cached(
            "INSERT INTO event_type_counts (journal_id, type, events) VALUES (?1, ?2, ?3)
             ON CONFLICT (journal_id, type) DO UPDATE SET events = events + excluded.events",
        )?;
        for (kind, n) in typed {
            count.execute(params![journal_id, kind, n])?;
        }
        self.note_late_records(journal_id, events)?;
        let kept: Vec<(u64, record_blocks::Kept<'_>)> = events
            .iter()
            .map(|(record, read)| (record.seq, (record.bytes.as_slice(), read.summary.as_str())))
            .collect();
        record_blocks::keep_records(&self.conn, journal_id, &kept)
    }

    /// How many events of each type a journal holds, the most frequent first.
    pub fn type_counts(&self, journal_id: i64) -> Result<Vec<(String, u64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT type, events FROM event_type_counts WHERE journal_id = ?1
             ORDER BY events DESC, type",
        )?;
        let rows = stmt.query_map([journal_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many events a journal holds. Its events are numbered 0, 1, … in file order without
    /// gaps (a follower numbers the next one by this count), so the highest seq answers
    /// through the primary key: `count(*)` scanned an index for a quarter of a second per call
    /// at a million events, and opening a journal asks more than once.
    pub fn event_count(&self, journal_id: i64) -> Result<u64, StoreError> {
        Ok(self.conn.query_row(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE journal_id = ?1",
            [journal_id],
            |row| row.get::<_, i64>(0),
        )? as u64)
    }

    /// The lowest and the highest offset a journal holds.
    pub fn offset_span(&self, journal_id: i64) -> Result<(Option<i64>, Option<i64>), StoreError> {
        // Two subqueries: each is one seek of the offset index, where `min` and `max` in one
        // select scanned all of it (a tenth of a second at a million events).
        Ok(self.conn.query_row(
            "SELECT (SELECT min(offset) FROM events WHERE journal_id = ?1),
                    (SELECT max(offset) FROM events WHERE journal_id = ?1)",
            [journal_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    }

    /// Every event's seq and offset (`None` for a record without one), in file order.
    pub fn seq_offsets(&self, journal_id: i64) -> Result<Vec<(u64, Option<i64>)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT seq, offset FROM events WHERE journal_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([journal_id], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, Option<i64>>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether an event at or before `offset` lies at seq `from` or later.
    pub fn any_at_or_before_offset_from(
        &self,
        journal_id: i64,
        offset: i64,
        from: u64,
    ) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM events
              WHERE journal_id = ?1 AND offset <= ?2 AND seq >= ?3)",
            params![journal_id, offset, clamp(from)],
            |r| r.get(0),
        )?)
    }

    /// The highest offset a journal holds, for resuming its reader.
    pub fn highest_offset(&self, journal_id: i64) -> Result<Option<i64>, StoreError> {
        Ok(self.conn.query_row(
            "SELECT max(offset) FROM events WHERE journal_id = ?1",
            [journal_id],
            |row| row.get(0),
        )?)
    }

    pub fn last_event(&self, journal_id: i64) -> Result<Option<StoredEvent>, StoreError> {
        Ok(self
            .events_where(
                journal_id,
                "seq = (SELECT max(seq) FROM events WHERE journal_id = ?1)",
            )?
            .pop())
    }

    /// The latest event of any of `types`, found through the type index whatever the
    /// journal's length.
    pub fn last_event_of_types(
        &self,
        journal_id: i64,
        types: &[&str],
    ) -> Result<Option<StoredEvent>, StoreError> {
        self.last_event_of_types_before(journal_id, types, u64::MAX)
    }

    /// The latest event of any of `types` before record `before`, through the type index.
    pub fn last_event_of_types_before(
        &self,
        journal_id: i64,
        types: &[&str],
        before: u64,
    ) -> Result<Option<StoredEvent>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT max(seq) FROM events WHERE journal_id = ?1 AND type = ?2 AND seq < ?3",
        )?;
        let mut latest: Option<i64> = None;
        for kind in types {
            let seq: Option<i64> =
                stmt.query_row(params![journal_id, kind, clamp(before)], |row| row.get(0))?;
            latest = latest.max(seq);
        }
        match latest {
            Some(seq) => self.event(journal_id, seq as u64),
            None => Ok(None),
        }
    }

    /// Every event of a journal in file order, with its read-time diagnostics.
    pub fn events(&self, journal_id: i64) -> Result<Vec<StoredEvent>, StoreError> {
        self.events_where(journal_id, "1 = 1")
    }

    /// The events with `from <= seq < to`: what an import reads back in slices, so that it can
    /// report progress and be cancelled between them.
    pub fn events_between(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.events_where(journal_id, &format!("seq >= {from} AND seq < {to}"))
    }

    /// The stored records `from <= seq < to` in order, at most `slice` of them at a time: how
    /// a fold reads a journal of any length with one slice in memory. It ends early where the
    /// records do.
    pub fn slices(&self, journal_id: i64, from: u64, to: u64, slice: u64) -> Slices<'_> {
        Slices {
            store: self,
            journal_id,
            next: from,
            to,
            slice: slice.max(1),
        }
    }

    /// Lends `visit` the original bytes of each stored record `from <= seq < to`, in order,
    /// without copying them, until it returns false: how a scan of every record's text (a
    /// search) reads a journal of any size with one record in hand.
    pub fn visit_bytes(
        &self,
        journal_id: i64,
        from: u64,
        to: u64,
        mut visit: impl FnMut(u64, &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        if from >= to {
            return Ok(());
        }
        record_blocks::visit_records(&self.conn, journal_id, from, to, &mut |seq, raw, _| {
            visit(seq, raw)
        })
    }

    /// The seqs of the events whose type is one of `types`, in order.
    pub fn seqs_of_types(&self, journal_id: i64, types: &[String]) -> Result<Vec<u64>, StoreError> {
        if types.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; types.len()].join(", ");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT seq FROM events WHERE journal_id = ? AND type IN ({marks}) ORDER BY seq"
        ))?;
        let values = std::iter::once(rusqlite::types::Value::Integer(journal_id)).chain(
            types
                .iter()
                .map(|t| rusqlite::types::Value::Text(t.clone())),
        );
        let rows = stmt.query_map(rusqlite::params_from_iter(values), |r| {
            Ok(r.get::<_, i64>(0)? as u64)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The event list's columns of the event at `seq`, without its bytes.
    pub fn event_head(&self, journal_id: i64, seq: u64) -> Result<Option<EventHead>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT offset, type, summary FROM events WHERE journal_id = ?1 AND seq = ?2",
        )?;
        let head = stmt
            .query_row(params![journal_id, seq as i64], |r| {
                Ok(EventHead {
                    seq,
                    offset: r.get(0)?,
                    kind: r.get(1)?,
                    summary: r.get(2)?,
                })
            })
            .optional()?;
        let Some(mut head) = head else {
            return Ok(None);
        };
        if let Some((_, Some(summary))) = self.kept_record(journal_id, seq)? {
            head.summary = summary;
        }
        Ok(Some(head))
    }

    pub fn event(&self, journal_id: i64, seq: u64) -> Result<Option<StoredEvent>, StoreError> {
        let mut events = self.events_where(journal_id, &format!("seq = {seq}"))?;
        Ok(events.pop())
    }

    /// The events at or before `offset` (those with none excluded), in file order.
    pub fn events_through_offset(
        &self,
        journal_id: i64,
        offset: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.events_where(journal_id, &format!("offset <= {offset}"))
    }

    pub(super) fn events_where(
        &self,
        journal_id: i64,
        clause: &str,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let sql = format!(
            "SELECT seq, line, byte_start, byte_len, offset, type, created_at, summary
             FROM events WHERE journal_id = ?1 AND {clause} ORDER BY seq"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut events: Vec<StoredEvent> = stmt
            .query_map([journal_id], |row| {
                Ok(StoredEvent {
                    seq: row.get::<_, i64>(0)? as u64,
                    line: row.get::<_, i64>(1)? as u64,
                    byte_start: row.get::<_, i64>(2)? as u64,
                    byte_len: row.get::<_, i64>(3)? as u64,
                    raw: Vec::new(),
                    offset: row.get(4)?,
                    kind: row.get(5)?,
                    created_at: row.get(6)?,
                    summary: row.get(7)?,
                    diagnostics: Vec::new(),
                })
            })?
            .collect::<Result<_, _>>()?;
        if events.is_empty() {
            return Ok(events);
        }
        let first = events[0].seq;
        let last = events[events.len() - 1].seq;
        // The bytes of the seq range in one pass, where they lie in order; a clause that
        // skips seqs skips their bytes here.
        let mut next = 0;
        record_blocks::visit_records(
            &self.conn,
            journal_id,
            first,
            last + 1,
            &mut |seq, raw, summary| {
                while next < events.len() && events[next].seq < seq {
                    next += 1;
                }
                if let Some(event) = events.get_mut(next).filter(|e| e.seq == seq) {
                    event.raw = raw.to_vec();
                    if let Some(summary) = summary {
                        event.summary = summary.to_string();
                    }
                }
                true
            },
        )?;
        let mut stmt = self.conn.prepare(
            "SELECT seq, offset, line, severity, code, message FROM read_diagnostics
             WHERE journal_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY rowid",
        )?;
        let rows = stmt.query_map(params![journal_id, first as i64, last as i64], |row| {
            Ok((row.get::<_, i64>(0)? as u64, diagnostic_from_row(row, 1)?))
        })?;
        // Events are sorted by seq, so each diagnostic finds its event by binary search.
        for row in rows {
            let (seq, diagnostic) = row?;
            if let Ok(index) = events.binary_search_by_key(&seq, |e| e.seq) {
                events[index].diagnostics.push(diagnostic);
            }
        }
        Ok(events)
    }

    /// How many records come before the first whose offset is above `offset`: in a journal
    /// whose offsets increase, the records at or before `offset` (an offset-index seek).
    pub fn records_through_offset(&self, journal_id: i64, offset: i64) -> Result<u64, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset > ?2
             ORDER BY offset LIMIT 1",
        )?;
        match stmt
            .query_row(params![journal_id, offset], |row| row.get::<_, i64>(0))
            .optional()?
        {
            Some(seq) => Ok(seq as u64),
            None => self.event_count(journal_id),
        }
    }

    /// The first record with exactly `offset` (an offset-index seek).
    pub fn seq_at_offset(&self, journal_id: i64, offset: i64) -> Result<Option<u64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT min(seq) FROM events WHERE journal_id = ?1 AND offset = ?2")?;
        let seq: Option<i64> = stmt.query_row(params![journal_id, offset], |row| row.get(0))?;
        Ok(seq.map(|s| s as u64))
    }

    /// The event at `offset`, or the last one before it (the latest in the file among equals).
    pub fn seq_at_or_before_offset(
        &self,
        journal_id: i64,
        offset: i64,
    ) -> Result<Option<u64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM events WHERE journal_id = ?1 AND offset <= ?2
             ORDER BY offset DESC, seq DESC LIMIT 1",
        )?;
        Ok(stmt
            .query_row(params![journal_id, offset], |row| row.get::<_, i64>(0))
            .optional()?
            .map(|seq| seq as u64))
    }

    /// The offset of the event at `seq`, or of the nearest event before it that has one.
    pub fn offset_at_or_before_seq(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<i64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT offset FROM events WHERE journal_id = ?1 AND seq <= ?2 AND offset IS NOT NULL
             ORDER BY seq DESC LIMIT 1",
        )?;
        Ok(stmt
            .query_row(params![journal_id, clamp(seq)], |row| row.get(0))
            .optional()?)
    }

    /// One record's line and original bytes, looked up by its seq alone: what a checkpoint
    /// that names items by the records they came from reads back.
    pub fn record_bytes(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT line FROM events WHERE journal_id = ?1 AND seq = ?2")?;
        let Some(line) = stmt
            .query_row(params![journal_id, clamp(seq)], |row| row.get::<_, i64>(0))
            .optional()?
        else {
            return Ok(None);
        };
        Ok(self
            .kept_record(journal_id, seq)?
            .map(|(raw, _)| (line as u64, raw)))
    }

    /// One record's original bytes by its seq, without its line: what a checkpoint that names
    /// items by their records reads back when the items keep no line.
    pub fn record_raw(&self, journal_id: i64, seq: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.kept_record(journal_id, seq)?.map(|(raw, _)| raw))
    }

    /// One record's original bytes and its summary where `events` does not hold it.
    pub(super) fn kept_record(
        &self,
        journal_id: i64,
        seq: u64,
    ) -> Result<Option<record_blocks::Record>, StoreError> {
        record_blocks::record_at(&self.conn, &mut self.blocks.borrow_mut(), journal_id, seq)
    }
}
