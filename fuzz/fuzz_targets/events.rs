//! Turning fuzz input into stored events the way an import does (framing, the dialect's
//! reader, read-time diagnostics), without a database.

use journalscope::dialect::{Dialect, Reader};
use journalscope::import::read_record;
use journalscope::source::{detect_framing, split, Position};
use journalscope::store::StoredEvent;

pub fn stored(bytes: &[u8], dialect: Dialect) -> Vec<StoredEvent> {
    let framing = detect_framing(bytes);
    let records = split(bytes, framing, Position::default(), true).records;
    let mut reader = Reader::new(dialect);
    records
        .into_iter()
        .map(|record| {
            let read = read_record(&mut reader, &record);
            StoredEvent {
                seq: record.seq,
                line: record.line,
                byte_start: record.byte_start,
                byte_len: record.byte_len,
                raw: record.bytes,
                offset: read.offset,
                kind: read.kind,
                created_at: read.created_at,
                summary: read.summary,
                diagnostics: read.diagnostics,
            }
        })
        .collect()
}
