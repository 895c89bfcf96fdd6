//! Framing any bytes never panics, every record lies inside the input, and reading the input
//! in two pieces (as a follower does) gives the records of reading it whole.
#![no_main]

use journalscope::source::{split, Framing, Position};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    for framing in [Framing::Jsonl, Framing::JsonArray, Framing::Sse] {
        let whole = split(bytes, framing, Position::default(), true);
        assert!(whole.consumed <= bytes.len(), "consumed stays inside");
        for record in &whole.records {
            assert!(
                (record.byte_start + record.byte_len) as usize <= bytes.len(),
                "a record lies inside the input"
            );
            if framing == Framing::Jsonl {
                let start = record.byte_start as usize;
                assert_eq!(
                    &bytes[start..start + record.byte_len as usize],
                    &record.bytes[..],
                    "a JSONL record is its bytes, verbatim"
                );
            }
        }
        if framing == Framing::Jsonl {
            let at = (cut as usize * bytes.len()) / 255;
            let first = split(&bytes[..at], framing, Position::default(), false);
            let rest = split(
                &bytes[first.consumed..],
                framing,
                Position {
                    byte: first.consumed as u64,
                    line: first.lines,
                    seq: first.records.len() as u64,
                },
                true,
            );
            let pieces: Vec<_> = first.records.iter().chain(&rest.records).collect();
            let whole: Vec<_> = whole.records.iter().collect();
            assert_eq!(pieces, whole, "reading in two pieces is reading whole");
        }
    }
});
