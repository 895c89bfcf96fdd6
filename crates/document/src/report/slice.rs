//! A JSONL slice of a journal: the original bytes of the events an offset range selects, one
//! a line, so a slice can be shared and re-imported as a journal of its own.

use std::io::Write;

use super::OffsetRange;
use crate::journal::{Journal, JournalError};

/// What `slice` wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SliceOutcome {
    #[ts(type = "number")]
    pub events: u64,
    #[ts(type = "number")]
    pub bytes: u64,
}

/// Writes the events `range` selects (see `OffsetRange::seqs`), each record's stored bytes and
/// a newline. A record read from JSONL is written byte for byte. A record that spans lines
/// (a pretty-printed element of a JSON array) has its line breaks turned into spaces: in JSON
/// text a raw line break can only be whitespace, so the record means the same, keeps its
/// length, and fits on one line.
pub fn write_slice(
    journal: &Journal,
    range: OffsetRange,
    out: &mut dyn Write,
) -> Result<SliceOutcome, JournalError> {
    let seqs = range.seqs(journal)?;
    let mut outcome = SliceOutcome {
        events: 0,
        bytes: 0,
    };
    let io = |source: std::io::Error| JournalError::Write {
        what: "the slice".to_string(),
        source,
    };
    // One event at a time: a slice of a large journal never holds it all in memory.
    for seq in seqs {
        let event = journal.event(seq)?;
        let mut raw = event.raw;
        if raw.iter().any(|b| *b == b'\n' || *b == b'\r') {
            for b in &mut raw {
                if *b == b'\n' || *b == b'\r' {
                    *b = b' ';
                }
            }
        }
        raw.push(b'\n');
        out.write_all(&raw).map_err(io)?;
        outcome.events += 1;
        outcome.bytes += raw.len() as u64;
    }
    out.flush().map_err(io)?;
    Ok(outcome)
}

/// The slice as bytes.
pub fn slice_bytes(journal: &Journal, range: OffsetRange) -> Result<Vec<u8>, JournalError> {
    let mut out = Vec::new();
    write_slice(journal, range, &mut out)?;
    Ok(out)
}
