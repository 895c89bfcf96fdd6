//! Turning fuzz input into stored events the way an import does (framing, the dialect's
//! reader, read-time diagnostics), without a database.

use journalscope::dialect::Dialect;
use journalscope::ingest::read_records;
use journalscope::source::{detect_framing, split, Position};
use journalscope::store::StoredEvent;

pub fn stored(bytes: &[u8], dialect: Dialect) -> Vec<StoredEvent> {
    let framing = detect_framing(bytes);
    let records = split(bytes, framing, Position::default(), true).records;
    read_records(dialect, records)
}
