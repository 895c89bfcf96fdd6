//! The SSE frame parser never panics on any bytes, keeps its spans inside the input, and a
//! capture read in two pieces (as a live stream arrives) yields the frames of reading it whole.
#![no_main]

use journalscope::source::sse_frames;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let (whole, consumed, _) = sse_frames(bytes, true);
    assert_eq!(
        consumed,
        bytes.len(),
        "a complete capture is consumed whole"
    );
    for frame in &whole {
        assert!(
            frame.start <= frame.end && frame.end <= bytes.len(),
            "a frame lies inside"
        );
    }
    let at = (cut as usize * bytes.len()) / 255;
    let (first, used, _) = sse_frames(&bytes[..at], false);
    assert!(used <= at, "an open read consumes no more than it has");
    let (rest, _, _) = sse_frames(&bytes[used..], true);
    let data: Vec<&str> = first.iter().chain(&rest).map(|f| f.data.as_str()).collect();
    let expected: Vec<&str> = whole.iter().map(|f| f.data.as_str()).collect();
    // A BOM is only skipped at the very start of a capture, so a piece that happens to begin
    // with one is not the same text as the middle of the whole.
    if used == 0 || !bytes[used..].starts_with(b"\xEF\xBB\xBF") {
        assert_eq!(data, expected, "reading in two pieces is reading whole");
    }
});
