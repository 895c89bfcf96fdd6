//! Landing remote events in the store: unwrapping webhook-style envelopes, dropping
//! redeliveries on `(streamId, offset)`, noticing gaps, and starting a new journal generation
//! when the stream is recreated or its offsets start over. Arrivals are held in memory until
//! the next flush, a few milliseconds later, paused or not.

use journalscope_registry::dialect::Registered as _;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::Value;

use crate::ingest::{self, Ingest};
use journalscope_registry::dialect::{self, Dialect};
use journalscope_shapes::source::{Framing, RawRecord};
use journalscope_shapes::source_ends::{StreamEnds, WINDOW};
use journalscope_store::store::{NewJournal, SourcePosition, Store, StoreError, StoredEvent};

use super::observation::{Attach, Observation};
use super::target::Transport;
use super::update::{GenerationReason, TailUpdate, TailedEvent};

/// Transport diagnostics waiting for a record beyond this many are dropped: a server that
/// answers every reconnect with no events cannot grow the queue without bound.
const MAX_HELD: usize = 32;

/// Folding a whole journal is linear in its size, so a fast stream is re-analysed at most this
/// often; the analysis catches up when the stream goes quiet or the tail stops.
const ANALYSIS_INTERVAL: Duration = Duration::from_secs(1);

enum Pending {
    Event {
        data: Vec<u8>,
        value: Option<Value>,
        offset: Option<i64>,
        /// The stream id known when it arrived, so the generation records where it came from.
        stream_id: Option<String>,
    },
    Gap {
        after: i64,
        next: i64,
    },
    Generation {
        reason: GenerationReason,
        stream_id: Option<String>,
    },
    /// What the connection did, for the record before or after it.
    Observation(Observation),
}

/// The journal generation events are currently appended to.
struct Generation {
    journal_id: i64,
    dialect: Dialect,
    /// The fold of what landed, resumed from the journal's checkpoints when the generation was
    /// stored before; `None` until the first flush needs it.
    ingest: Option<Ingest>,
    seq: u64,
    /// Events are laid out as if they were lines of a JSONL file, so byte spans and line
    /// numbers mean the same as for an imported file.
    bytes: u64,
    lines: u64,
    /// The ends of the stream laid out as a file, for the hash the journal keeps.
    ends: StreamEnds,
    stream_id: Option<String>,
    last_offset: Option<i64>,
    /// The last record stored: its seq, line and offset.
    last_record: Option<(u64, u64, Option<i64>)>,
}

/// What flushing needs, apart from the queue itself.
struct Landing {
    url: String,
    transport: Transport,
    current: Option<Generation>,
    next_reason: GenerationReason,
    next_stream_id: Option<String>,
    /// Transport diagnostics for the next record to land.
    held: Vec<Observation>,
}

pub(crate) struct StreamRecorder {
    store: Store,
    landing: Landing,
    pending: Vec<Pending>,
    /// Content hashes of queued events by offset, for spotting redeliveries before they land.
    pending_offsets: HashMap<i64, blake3::Hash>,
    pending_events: u64,
    /// Journal whose stored events a repeated offset is compared with; none while a new
    /// generation is queued but not yet created.
    lookup_journal: Option<i64>,
    stream_id: Option<String>,
    last_offset: Option<i64>,
    landed: u64,
    duplicates: u64,
    limit: Option<u64>,
    analysis_due: bool,
    analysed_at: Instant,
}

impl StreamRecorder {
    /// Picks up the newest generation already stored for `url`, if any, so that a tail
    /// resumes after what an earlier run stored.
    pub fn open(
        store: Store,
        url: String,
        transport: Transport,
        limit: Option<u64>,
    ) -> Result<StreamRecorder, StoreError> {
        let existing = store.current_journal_for(&url)?.map(|journal| journal.id);
        let current = match existing {
            Some(id) => Some(load_generation(&store, id)?),
            None => None,
        };
        let (stream_id, last_offset) = current
            .as_ref()
            .map_or((None, None), |g| (g.stream_id.clone(), g.last_offset));
        Ok(StreamRecorder {
            lookup_journal: current.as_ref().map(|g| g.journal_id),
            landing: Landing {
                url,
                transport,
                current,
                next_reason: GenerationReason::First,
                next_stream_id: None,
                held: Vec::new(),
            },
            store,
            pending: Vec::new(),
            pending_offsets: HashMap::new(),
            pending_events: 0,
            stream_id,
            last_offset,
            landed: 0,
            duplicates: 0,
            limit,
            analysis_due: false,
            analysed_at: Instant::now(),
        })
    }

    pub fn set_transport(&mut self, transport: Transport) {
        self.landing.transport = transport;
    }

    /// The newest offset received (stored or queued): where a reconnect resumes.
    pub fn last_offset(&self) -> Option<i64> {
        self.last_offset
    }

    pub fn landed(&self) -> u64 {
        self.landed
    }

    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    pub fn buffered(&self) -> u64 {
        self.pending_events
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Whether the requested number of events has been received.
    pub fn satisfied(&self) -> bool {
        self.limit
            .is_some_and(|limit| self.landed + self.pending_events >= limit)
    }

    /// Queues one event as the transport framed it.
    pub fn receive(&mut self, data: Vec<u8>) -> Result<(), StoreError> {
        if self.satisfied() || data.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let (data, wrapped_stream) = unwrap_delivery(data);
        let value: Option<Value> = journalscope_shapes::record_json::value(&data);
        let offset = value
            .as_ref()
            .and_then(|v| v.get("offset"))
            .and_then(Value::as_i64);
        if let Some(id) = wrapped_stream {
            match &self.stream_id {
                Some(known) if *known != id => {
                    self.start_generation(GenerationReason::StreamChanged, Some(id));
                }
                Some(_) => {}
                None => self.stream_id = Some(id),
            }
        }
        if let (Some(offset), Some(last)) = (offset, self.last_offset) {
            if offset <= last {
                if self.is_redelivery(offset, &data)? {
                    self.duplicates += 1;
                    return Ok(());
                }
                self.start_generation(GenerationReason::OffsetsRestarted, self.stream_id.clone());
            } else if offset > last + 1 {
                self.pending.push(Pending::Gap {
                    after: last,
                    next: offset,
                });
            }
        }
        if let Some(offset) = offset {
            self.pending_offsets.insert(offset, blake3::hash(&data));
            self.last_offset = Some(self.last_offset.map_or(offset, |l| l.max(offset)));
        }
        self.pending.push(Pending::Event {
            data,
            value,
            offset,
            stream_id: self.stream_id.clone(),
        });
        self.pending_events += 1;
        Ok(())
    }

    /// What the journal being recorded is in the middle of (an AG-UI run), as stored so far.
    pub fn unfinished(&self) -> Result<Option<String>, StoreError> {
        match &self.landing.current {
            Some(g) => dialect::interpreter(g.dialect).unfinished(&self.store, g.journal_id),
            None => Ok(None),
        }
    }

    /// Queues what the connection did, to be stored with the record it belongs to.
    pub fn observe(&mut self, observation: Observation) {
        self.pending.push(Pending::Observation(observation));
    }

    fn start_generation(&mut self, reason: GenerationReason, stream_id: Option<String>) {
        self.pending.push(Pending::Generation {
            reason,
            stream_id: stream_id.clone(),
        });
        self.stream_id = stream_id;
        self.last_offset = None;
        self.lookup_journal = None;
        self.pending_offsets.clear();
    }

    fn is_redelivery(&self, offset: i64, data: &[u8]) -> Result<bool, StoreError> {
        if let Some(hash) = self.pending_offsets.get(&offset) {
            return Ok(*hash == blake3::hash(data));
        }
        let Some(journal_id) = self.lookup_journal else {
            return Ok(false);
        };
        Ok(self
            .store
            .records_at_offset(journal_id, offset)?
            .iter()
            .any(|raw| raw == data))
    }

    /// Writes everything queued, in one transaction, and reports what landed.
    pub fn flush(&mut self, updates: &mut Vec<TailUpdate>) -> Result<(), StoreError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let items = std::mem::take(&mut self.pending);
        let landing = &mut self.landing;
        let landed = self
            .store
            .transaction(|store| land(store, landing, items, updates))?;
        self.landed += landed;
        self.pending_events = 0;
        self.pending_offsets.clear();
        self.lookup_journal = self.landing.current.as_ref().map(|g| g.journal_id);
        self.analysis_due |= landed > 0;
        Ok(())
    }

    /// Refreshes the derived tables when events landed since the last analysis and either
    /// `force` is set or the last analysis is old enough.
    pub fn analyse(&mut self, force: bool) -> Result<(), StoreError> {
        if !self.analysis_due || (!force && self.analysed_at.elapsed() < ANALYSIS_INTERVAL) {
            return Ok(());
        }
        if let Some(generation) = &mut self.landing.current {
            match &mut generation.ingest {
                Some(ingest) => crate::import::say_end(&self.store, ingest)?,
                None => {
                    let journal = self
                        .store
                        .journal(generation.journal_id)?
                        .ok_or(StoreError::Empty)?;
                    let mut unwatched = ingest::unwatched;
                    self.store
                        .transaction(|store| ingest::refresh(store, &journal, &mut unwatched))?;
                }
            }
        }
        self.analysis_due = false;
        self.analysed_at = Instant::now();
        Ok(())
    }

    /// When an analysis is owed, the moment it becomes due.
    pub fn analysis_deadline(&self) -> Option<Instant> {
        self.analysis_due
            .then(|| self.analysed_at + ANALYSIS_INTERVAL)
    }

    /// Records the tail's state (`live`, `stopped`, `failed: ...`) for the current generation.
    pub fn set_status(&self, status: &str) -> Result<(), StoreError> {
        if let Some(generation) = &self.landing.current {
            self.store
                .set_stream_status(generation.journal_id, status)?;
        }
        Ok(())
    }
}

/// Records read at a time from either end of a stored stream to rebuild its ends.
const ENDS_SLICE: u64 = 64;

/// The generation a tail goes on appending to, from its row, its last stored record and the
/// records at either end: a resume reads none of the middle, however long the stream ran.
fn load_generation(store: &Store, journal_id: i64) -> Result<Generation, StoreError> {
    let journal = store.journal(journal_id)?.ok_or(StoreError::Empty)?;
    let count = store.event_count(journal_id)?;
    let laid_out = |event: &StoredEvent, into: &mut Vec<u8>| {
        into.extend_from_slice(&event.raw);
        into.push(b'\n');
    };
    let mut head = Vec::new();
    for slice in store.slices(journal_id, 0, count, ENDS_SLICE) {
        for event in &slice? {
            laid_out(event, &mut head);
        }
        if head.len() as u64 >= WINDOW {
            break;
        }
    }
    let mut tail: Vec<u8> = Vec::new();
    let mut to = count;
    while to > 0 && (tail.len() as u64) < WINDOW {
        let from = to.saturating_sub(ENDS_SLICE);
        let mut slice = Vec::new();
        for event in &store.events_between(journal_id, from, to)? {
            laid_out(event, &mut slice);
        }
        slice.extend_from_slice(&tail);
        tail = slice;
        to = from;
    }
    let last = store.last_event(journal_id)?;
    let highest = store.highest_offset(journal_id)?;
    let stream_id = store.stream_id(journal_id)?;
    Ok(Generation {
        journal_id,
        dialect: journal.dialect,
        ingest: None,
        seq: count,
        bytes: journal.imported_bytes,
        lines: journal.imported_lines,
        ends: StreamEnds::resumed(head, tail, journal.imported_bytes),
        stream_id,
        last_offset: highest,
        last_record: last.map(|e| (e.seq, e.line, e.offset)),
    })
}

/// A webhook-style delivery `{streamId, path, event}` carries the event inside; the event's own
/// text is what gets stored.
fn unwrap_delivery(data: Vec<u8>) -> (Vec<u8>, Option<String>) {
    if !data.contains(&b'{') {
        return (data, None);
    }
    let Ok(fields) = serde_json::from_slice::<HashMap<String, Box<RawValue>>>(&data) else {
        return (data, None);
    };
    let (Some(stream_id), Some(event)) = (fields.get("streamId"), fields.get("event")) else {
        return (data, None);
    };
    if !event.get().trim_start().starts_with('{') {
        return (data, None);
    }
    let stream_id = match serde_json::from_str::<Value>(stream_id.get()) {
        Ok(Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(_) => return (data, None),
    };
    (event.get().as_bytes().to_vec(), Some(stream_id))
}

fn land(
    store: &Store,
    landing: &mut Landing,
    items: Vec<Pending>,
    updates: &mut Vec<TailUpdate>,
) -> Result<u64, StoreError> {
    let mut landed = 0u64;
    for item in items {
        match item {
            Pending::Gap { after, next } => updates.push(TailUpdate::Gap { after, next }),
            Pending::Observation(observation) => {
                let last = landing
                    .current
                    .as_ref()
                    .and_then(|g| Some((g.journal_id, g.last_record?)));
                match (observation.attach, last) {
                    (Attach::Last, Some((journal_id, (seq, line, offset)))) => {
                        let diagnostic = observation.diagnostic(line, offset);
                        store.attach_diagnostic(journal_id, seq, &diagnostic)?;
                        updates.push(TailUpdate::Diagnostic {
                            journal_id,
                            seq,
                            diagnostic,
                        });
                    }
                    // Nothing stored yet to say it of: the first record to land carries it.
                    _ if landing.held.len() < MAX_HELD => landing.held.push(observation),
                    _ => {}
                }
            }
            Pending::Generation { reason, stream_id } => {
                if let Some(current) = &landing.current {
                    record_position(store, landing, current)?;
                }
                landing.current = None;
                landing.next_reason = reason;
                landing.next_stream_id = stream_id;
            }
            Pending::Event {
                data,
                value,
                offset,
                stream_id,
            } => {
                if landing.current.is_none() {
                    let generation = create_generation(store, landing, value.as_ref())?;
                    updates.push(TailUpdate::Generation {
                        journal_id: generation.journal_id,
                        reason: landing.next_reason,
                    });
                    landing.current = Some(generation);
                }
                let Some(generation) = landing.current.as_mut() else {
                    continue;
                };
                if generation.stream_id.is_none() {
                    generation.stream_id = stream_id;
                }
                let record = RawRecord {
                    seq: generation.seq,
                    line: generation.lines + 1,
                    byte_start: generation.bytes,
                    byte_len: data.len() as u64,
                    bytes: data,
                };
                let ingest = match generation.ingest.as_mut() {
                    Some(ingest) => ingest,
                    None => generation
                        .ingest
                        .insert(resume(store, generation.journal_id)?),
                };
                let held = std::mem::take(&mut landing.held);
                let read = ingest.read_noting(&record, false, |offset| {
                    held.iter()
                        .map(|observation| observation.diagnostic(record.line, offset))
                        .collect()
                });
                let noted = read.diagnostics.len() - held.len();
                for diagnostic in &read.diagnostics[noted..] {
                    updates.push(TailUpdate::Diagnostic {
                        journal_id: generation.journal_id,
                        seq: record.seq,
                        diagnostic: diagnostic.clone(),
                    });
                }
                let event = TailedEvent {
                    journal_id: generation.journal_id,
                    seq: record.seq,
                    offset: read.offset,
                    kind: read.kind.clone(),
                    summary: read.summary.clone(),
                    raw: String::from_utf8_lossy(&record.bytes).into_owned(),
                };
                generation.last_record = Some((record.seq, record.line, read.offset));
                generation.ends.push(&record.bytes);
                generation.ends.push(b"\n");
                generation.seq += 1;
                generation.lines += 1;
                generation.bytes += record.byte_len + 1;
                if let Some(offset) = offset {
                    generation.last_offset =
                        Some(generation.last_offset.map_or(offset, |l| l.max(offset)));
                }
                store.append(generation.journal_id, &[(record, read)])?;
                updates.push(TailUpdate::Event { event });
                landed += 1;
            }
        }
    }
    if let Some(generation) = &mut landing.current {
        if let Some(ingest) = &mut generation.ingest {
            store.append_analysis(generation.journal_id, &ingest.take_found())?;
        }
    }
    if let Some(current) = &landing.current {
        record_position(store, landing, current)?;
    }
    Ok(landed)
}

fn create_generation(
    store: &Store,
    landing: &Landing,
    first: Option<&Value>,
) -> Result<Generation, StoreError> {
    let dialect = Dialect::detect(first);
    let journal_id = store.create_journal(&NewJournal {
        source_path: &landing.url,
        dialect,
        framing: Framing::Jsonl,
    })?;
    store.create_stream(
        journal_id,
        &landing.url,
        landing.next_stream_id.as_deref(),
        landing.transport.as_str(),
    )?;
    Ok(Generation {
        journal_id,
        dialect,
        ingest: None,
        seq: 0,
        bytes: 0,
        lines: 0,
        ends: StreamEnds::default(),
        stream_id: landing.next_stream_id.clone(),
        last_offset: None,
        last_record: None,
    })
}

fn record_position(
    store: &Store,
    landing: &Landing,
    generation: &Generation,
) -> Result<(), StoreError> {
    store.record_position(
        generation.journal_id,
        &SourcePosition {
            size: generation.bytes,
            mtime_ns: None,
            content_hash: generation.ends.hash(),
            imported_bytes: generation.bytes,
            imported_lines: generation.lines,
            ends_mid_line: false,
        },
    )?;
    store.record_stream_position(
        generation.journal_id,
        generation.stream_id.as_deref(),
        landing.transport.as_str(),
        generation.last_offset,
    )?;
    Ok(())
}

/// Reads one event's columns; an event that is not JSON is kept with an `invalid-json` error,
/// as an imported line would be.
/// The ingest that goes on after what the journal `journal_id` holds, in the caller's
/// transaction.
fn resume(store: &Store, journal_id: i64) -> Result<Ingest, StoreError> {
    let journal = store.journal(journal_id)?.ok_or(StoreError::Empty)?;
    let mut unwatched = ingest::unwatched;
    Ingest::resume(store, &journal, &mut unwatched)?.ok_or(StoreError::Empty)
}

#[cfg(test)]
mod tests;
