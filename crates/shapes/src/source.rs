//! Source framing: turns the bytes of a journal file (JSONL, a JSON array, or a captured
//! Server-Sent Events body, optionally gzip-compressed) into raw records, each keeping its
//! verbatim bytes and its position in the file. No JSON is interpreted beyond finding record
//! boundaries: what a record means is the dialect's business.

use std::io::Read;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use ts_rs::TS;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How records are laid out in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Framing {
    Jsonl,
    JsonArray,
    Sse,
}

impl Framing {
    pub fn as_str(self) -> &'static str {
        match self {
            Framing::Jsonl => "jsonl",
            Framing::JsonArray => "json-array",
            Framing::Sse => "sse",
        }
    }

    pub fn parse(text: &str) -> Option<Framing> {
        match text {
            "jsonl" => Some(Framing::Jsonl),
            "json-array" => Some(Framing::JsonArray),
            "sse" => Some(Framing::Sse),
            _ => None,
        }
    }
}

/// One record of a journal: the verbatim text of one event and where it sat in the file.
/// For SSE, `bytes` is the frame's data (its `data:` lines joined) and the span is the frame's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    /// 0-based position of the record in the file.
    pub seq: u64,
    /// 1-based line on which the record starts.
    pub line: u64,
    pub byte_start: u64,
    pub byte_len: u64,
    pub bytes: Vec<u8>,
}

/// Records cut from a prefix of the input, and how many bytes of it they covered. In follow
/// mode a trailing partial record is left out of `consumed` so that it is read again, whole,
/// once the writer finishes it.
#[derive(Debug, Default)]
pub struct Split {
    pub records: Vec<RawRecord>,
    pub consumed: usize,
    /// Lines seen in `consumed`, so that a later split of the rest can number its lines.
    pub lines: u64,
}

/// Where a split starts inside the whole file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Position {
    pub byte: u64,
    pub line: u64,
    pub seq: u64,
}

pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Decompresses gzip input; other input is returned as it is.
pub fn decode(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if !is_gzip(&bytes) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() * 4);
    flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out)?;
    Ok(out)
}

fn skip_bom(bytes: &[u8]) -> usize {
    if bytes.starts_with(UTF8_BOM) {
        UTF8_BOM.len()
    } else {
        0
    }
}

/// How much of a file's head decides whether it is text at all.
const BINARY_PROBE: usize = 64 * 1024;

/// Whether `bytes` (already decompressed) are not a journal at all: the head holds NUL bytes,
/// which no JSON text or SSE body contains, and no line of the head is a JSON value. A journal
/// with one corrupted line still has lines that parse, so it is imported, not refused.
pub fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_PROBE)];
    if !head.contains(&0) {
        return false;
    }
    !head
        .split(|b| *b == b'\n')
        .map(trim_ascii)
        .filter(|line| !line.is_empty())
        .any(|line| serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok())
}

/// Guesses the framing from the first meaningful bytes: `[` opens an array, an SSE field name
/// (`data:`, `event:`, `id:`, `retry:`) or comment opens an SSE body, anything else is JSONL.
pub fn detect_framing(bytes: &[u8]) -> Framing {
    let start = skip_bom(bytes);
    for line in bytes[start..].split(|b| *b == b'\n') {
        let trimmed = trim_ascii(line);
        if trimmed.is_empty() {
            continue;
        }
        if trimmed[0] == b'[' {
            return Framing::JsonArray;
        }
        if trimmed[0] == b'{' {
            return Framing::Jsonl;
        }
        if trimmed[0] == b':'
            || [&b"data:"[..], b"event:", b"id:", b"retry:"]
                .iter()
                .any(|field| trimmed.starts_with(field))
        {
            return if sse_plausible(&bytes[start..]) {
                Framing::Sse
            } else {
                Framing::Jsonl
            };
        }
        // A heading or other text before the first frame (as captured SSE files often have)
        // says nothing yet; keep looking.
        if trimmed.starts_with(b"#") {
            continue;
        }
        return Framing::Jsonl;
    }
    Framing::Jsonl
}

/// SSE framing drops every line that is not a field, so it is only chosen when the head holds
/// a `data:` line and no line that is itself a JSON object: a JSONL journal whose first line
/// happens to start with a colon keeps all its lines.
fn sse_plausible(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_PROBE)];
    let mut has_data = false;
    for line in head.split(|b| *b == b'\n').map(trim_ascii) {
        if line.starts_with(b"{") {
            return false;
        }
        has_data |= line.starts_with(b"data:");
    }
    has_data
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |p| p + 1);
    &bytes[start..end.max(start)]
}

/// Splits `bytes` (starting at `at` in the file) with the given framing. `complete` says the
/// input ends here for good; when false a trailing record without its terminator is left for
/// later.
pub fn split(bytes: &[u8], framing: Framing, at: Position, complete: bool) -> Split {
    match framing {
        Framing::Jsonl => split_jsonl(bytes, at, complete),
        Framing::Sse => split_sse(bytes, at, complete),
        Framing::JsonArray => split_json_array(bytes, at, complete),
    }
}

fn split_jsonl(bytes: &[u8], at: Position, complete: bool) -> Split {
    let mut out = Split::default();
    let mut pos = if at.byte == 0 { skip_bom(bytes) } else { 0 };
    let mut line = at.line;
    let mut seq = at.seq;
    while pos < bytes.len() {
        let (end, next) = match memchr::memchr(b'\n', &bytes[pos..]) {
            Some(nl) => (pos + nl, pos + nl + 1),
            None if complete => (bytes.len(), bytes.len()),
            None => break,
        };
        line += 1;
        let mut text = &bytes[pos..end];
        if text.ends_with(b"\r") {
            text = &text[..text.len() - 1];
        }
        if !trim_ascii(text).is_empty() {
            out.records.push(RawRecord {
                seq,
                line,
                byte_start: at.byte + pos as u64,
                byte_len: text.len() as u64,
                bytes: text.to_vec(),
            });
            seq += 1;
        }
        pos = next;
        out.consumed = next;
        out.lines = line - at.line;
    }
    out
}

fn line_of(bytes: &[u8], index: usize, first_line: u64) -> u64 {
    first_line + 1 + bytes[..index].iter().filter(|b| **b == b'\n').count() as u64
}

/// A JSON array is only complete once its closing bracket is there, so it is split whole.
/// When the array itself is not valid JSON, the whole text becomes one record: it is stored
/// and reported rather than dropped.
fn split_json_array(bytes: &[u8], at: Position, complete: bool) -> Split {
    let start = skip_bom(bytes);
    let body = &bytes[start..];
    let parsed: Result<Vec<&RawValue>, _> = serde_json::from_slice(body);
    match parsed {
        Ok(values) => {
            let base = body.as_ptr() as usize;
            let records = values
                .iter()
                .enumerate()
                .map(|(i, raw)| {
                    let text = raw.get();
                    // RawValue borrows from `body`, so its address locates it in the file.
                    let index = text.as_ptr() as usize - base + start;
                    RawRecord {
                        seq: at.seq + i as u64,
                        line: line_of(bytes, index, at.line),
                        byte_start: at.byte + index as u64,
                        byte_len: text.len() as u64,
                        bytes: text.as_bytes().to_vec(),
                    }
                })
                .collect();
            Split {
                records,
                consumed: bytes.len(),
                lines: bytes.iter().filter(|b| **b == b'\n').count() as u64,
            }
        }
        Err(_) if !complete => Split::default(),
        Err(_) => {
            let text = trim_ascii(body);
            if text.is_empty() {
                return Split {
                    consumed: bytes.len(),
                    ..Split::default()
                };
            }
            let index = text.as_ptr() as usize - bytes.as_ptr() as usize;
            Split {
                records: vec![RawRecord {
                    seq: at.seq,
                    line: line_of(bytes, index, at.line),
                    byte_start: at.byte + index as u64,
                    byte_len: text.len() as u64,
                    bytes: text.to_vec(),
                }],
                consumed: bytes.len(),
                lines: bytes.iter().filter(|b| **b == b'\n').count() as u64,
            }
        }
    }
}

/// One dispatched Server-Sent Events frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    pub data: String,
    /// Whether the frame had a `data:` field. One without dispatches no event, but its `id:`
    /// still moves the resume point.
    pub has_data: bool,
    pub event: Option<String>,
    pub id: Option<String>,
    pub retry: Option<u64>,
    /// Byte span of the frame in the input, from its first line to its terminating blank line.
    pub start: usize,
    pub end: usize,
    /// 0-based index of the frame's first line in the input.
    pub first_line: u64,
}

/// Incremental SSE parsing as the WHATWG standard says: lines end with CRLF, LF or CR; a blank
/// line dispatches; `data` values are joined with LF; a line starting with `:` is a comment;
/// a field without a colon has an empty value; unknown fields are ignored; a frame whose data
/// buffer is empty is not dispatched.
pub fn sse_frames(bytes: &[u8], complete: bool) -> (Vec<SseFrame>, usize, u64) {
    if !complete {
        return sse_frames_open(bytes);
    }
    // A capture that ends without its final blank line still holds its last event: a file cut
    // short should lose nothing the producer wrote, so the end of input dispatches.
    let mut padded = Vec::with_capacity(bytes.len() + 2);
    padded.extend_from_slice(bytes);
    padded.extend_from_slice(b"\n\n");
    let (mut frames, _, _) = sse_frames_open(&padded);
    for frame in &mut frames {
        frame.end = frame.end.min(bytes.len());
    }
    let lines = bytes.iter().filter(|b| **b == b'\n').count() as u64
        + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    (frames, bytes.len(), lines)
}

fn sse_frames_open(bytes: &[u8]) -> (Vec<SseFrame>, usize, u64) {
    let mut frames = Vec::new();
    let mut pos = 0usize;
    let mut line_no = 0u64;
    let mut consumed = 0usize;
    let mut consumed_lines = 0u64;
    let mut data: Option<String> = None;
    let mut current = SseFrame::default();
    let mut frame_open = false;
    // A block of comments alone is a keep-alive, not a frame.
    let mut has_field = false;
    if bytes.starts_with(UTF8_BOM) {
        pos = UTF8_BOM.len();
    }
    loop {
        let rest = &bytes[pos..];
        let Some(eol) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') else {
            break;
        };
        // A CR at the very end of what we have may be the first half of a CRLF.
        if rest[eol] == b'\r' && eol + 1 == rest.len() {
            break;
        }
        let line = &rest[..eol];
        let mut next = pos + eol + 1;
        if rest[eol] == b'\r' && rest.get(eol + 1) == Some(&b'\n') {
            next += 1;
        }
        if !frame_open {
            current = SseFrame {
                start: pos,
                first_line: line_no,
                ..SseFrame::default()
            };
            frame_open = true;
        }
        line_no += 1;
        if line.is_empty() {
            if let Some(mut buffer) = data.take() {
                if buffer.ends_with('\n') {
                    buffer.pop();
                }
                current.data = buffer;
                current.has_data = true;
                current.end = next;
                frames.push(std::mem::take(&mut current));
            } else if has_field {
                current.end = next;
                frames.push(std::mem::take(&mut current));
            }
            has_field = false;
            frame_open = false;
            current = SseFrame::default();
            consumed = next;
            consumed_lines = line_no;
        } else if line[0] != b':' {
            has_field = true;
            let text = String::from_utf8_lossy(line);
            let (field, value) = match text.find(':') {
                Some(colon) => {
                    let value = &text[colon + 1..];
                    (&text[..colon], value.strip_prefix(' ').unwrap_or(value))
                }
                None => (&text[..], ""),
            };
            match field {
                "data" => {
                    let buffer = data.get_or_insert_with(String::new);
                    buffer.push_str(value);
                    buffer.push('\n');
                }
                "event" => current.event = Some(value.to_string()),
                "id" if !value.contains('\0') => current.id = Some(value.to_string()),
                "retry" => {
                    if let Ok(ms) = value.parse() {
                        current.retry = Some(ms);
                    }
                }
                _ => {}
            }
        }
        pos = next;
    }
    (frames, consumed, consumed_lines)
}

fn split_sse(bytes: &[u8], at: Position, complete: bool) -> Split {
    let (frames, consumed, lines) = sse_frames(bytes, complete);
    let records = frames
        .into_iter()
        .filter(|frame| frame.has_data)
        .enumerate()
        .map(|(i, frame)| RawRecord {
            seq: at.seq + i as u64,
            line: at.line + frame.first_line + 1,
            byte_start: at.byte + frame.start as u64,
            byte_len: (frame.end - frame.start) as u64,
            bytes: frame.data.into_bytes(),
        })
        .collect();
    Split {
        records,
        consumed,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(split: &Split) -> Vec<String> {
        split
            .records
            .iter()
            .map(|r| String::from_utf8_lossy(&r.bytes).into_owned())
            .collect()
    }

    #[test]
    fn jsonl_keeps_line_numbers_and_byte_spans_across_blank_lines() {
        let input = b"{\"a\":1}\n\n{\"b\":2}\r\n";
        let split = split(input, Framing::Jsonl, Position::default(), true);
        assert_eq!(
            texts(&split),
            ["{\"a\":1}", "{\"b\":2}"],
            "CR is not part of a line"
        );
        assert_eq!(split.records[1].line, 3, "blank lines still count as lines");
        assert_eq!(
            split.records[1].byte_start, 9,
            "byte start points at the record"
        );
        assert_eq!(split.records[1].seq, 1, "blank lines are not records");
    }

    #[test]
    fn jsonl_in_follow_mode_leaves_a_partial_last_line_for_later() {
        let input = b"{\"a\":1}\n{\"b\"";
        let open = split(input, Framing::Jsonl, Position::default(), false);
        assert_eq!(
            texts(&open),
            ["{\"a\":1}"],
            "a half-written line is never stored"
        );
        assert_eq!(open.consumed, 8, "the partial line is read again later");
        let closed = split(input, Framing::Jsonl, Position::default(), true);
        assert_eq!(
            closed.records.len(),
            2,
            "at end of file the last line counts"
        );
    }

    #[test]
    fn json_array_records_point_into_the_file() {
        let input = "\u{feff}[\n  {\"a\": 1},\n  {\"b\": [2]}\n]".as_bytes();
        let split = split(input, Framing::JsonArray, Position::default(), true);
        assert_eq!(
            texts(&split),
            ["{\"a\": 1}", "{\"b\": [2]}"],
            "elements verbatim"
        );
        assert_eq!(split.records[1].line, 3, "line of the second element");
        let start = split.records[1].byte_start as usize;
        assert_eq!(
            &input[start..start + 10],
            b"{\"b\": [2]}",
            "byte span is exact"
        );
    }

    #[test]
    fn broken_json_array_is_kept_whole_as_one_record() {
        let split = split(
            b"[{\"a\":1},",
            Framing::JsonArray,
            Position::default(),
            true,
        );
        assert_eq!(split.records.len(), 1, "nothing the user gave is dropped");
    }

    #[test]
    fn sse_joins_data_lines_and_ignores_comments_and_unknown_fields() {
        let input = b"## heading\n: ping\n\nid: 7\ndata: {\"a\":\ndata: 1}\n\ndata: x\r\n\r\n";
        let (frames, consumed, _) = sse_frames(input, false);
        let frames: Vec<SseFrame> = frames.into_iter().filter(|f| f.has_data).collect();
        assert_eq!(frames.len(), 2, "a frame without data dispatches nothing");
        assert_eq!(frames[0].data, "{\"a\":\n1}", "data lines join with LF");
        assert_eq!(frames[0].id.as_deref(), Some("7"), "id is kept");
        assert_eq!(frames[1].data, "x", "CRLF line ends");
        assert_eq!(consumed, input.len(), "everything was consumed");
    }

    #[test]
    fn sse_reports_frames_without_data_and_their_ids_but_not_comment_blocks() {
        let input = b": keep-alive\n\nid: 9\n\nevent: tick\n\ndata: {}\n\n";
        let (frames, _, _) = sse_frames(input, false);
        let shown: Vec<(bool, Option<&str>, Option<&str>)> = frames
            .iter()
            .map(|f| (f.has_data, f.id.as_deref(), f.event.as_deref()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (false, Some("9"), None),
                (false, None, Some("tick")),
                (true, None, None)
            ],
            "an id-only frame still carries its id (the resume point); comments are no frame"
        );
        let split = split_sse(input, Position::default(), true);
        assert_eq!(
            split.records.len(),
            1,
            "only the frame with data is a record"
        );
    }

    #[test]
    fn sse_without_final_blank_line_dispatches_at_end_of_file_only() {
        let input = b"data: {\"a\":1}\n\ndata: {\"b\":2}\n";
        let (open, consumed, _) = sse_frames(input, false);
        assert_eq!(open.len(), 1, "an unterminated frame waits in follow mode");
        assert_eq!(consumed, 15, "the open frame is read again later");
        let (closed, _, _) = sse_frames(input, true);
        assert_eq!(closed.len(), 2, "a finished file loses no event");
    }

    #[test]
    fn empty_data_field_still_dispatches_an_empty_frame() {
        let (frames, _, _) = sse_frames(b"data: \n\n", true);
        assert_eq!(
            frames.len(),
            1,
            "the standard dispatches data that is one empty line"
        );
        assert_eq!(frames[0].data, "", "and its data is empty");
    }

    #[test]
    fn detects_framing_from_first_meaningful_line() {
        assert_eq!(
            detect_framing(b"\xEF\xBB\xBF[{}]"),
            Framing::JsonArray,
            "BOM then array"
        );
        assert_eq!(
            detect_framing(b"\n{\"offset\":1}"),
            Framing::Jsonl,
            "object line"
        );
        assert_eq!(
            detect_framing(b"## cap\ndata: {}"),
            Framing::Sse,
            "heading then data"
        );
        assert_eq!(
            detect_framing(b": hi\ndata: {}\n"),
            Framing::Sse,
            "comment then data"
        );
        assert_eq!(
            detect_framing(b": not a comment\n{\"offset\":1}\n"),
            Framing::Jsonl,
            "a colon line before JSON objects is JSONL, so no line is dropped"
        );
        assert_eq!(
            detect_framing(b"not json"),
            Framing::Jsonl,
            "text is JSONL with errors"
        );
    }

    #[test]
    fn binary_is_told_from_a_journal_with_one_corrupted_line() {
        assert!(
            looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
            "an image is not a journal"
        );
        assert!(
            !looks_binary(b"{\"offset\":1}\n\x00garbage\n"),
            "one NUL-damaged line does not refuse the journal"
        );
        assert!(!looks_binary(b""), "an empty file is an empty journal");
        assert!(
            !looks_binary(b"not json\n"),
            "text without NULs is a journal with errors"
        );
    }

    #[test]
    fn gzip_round_trip() {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(b"{\"a\":1}\n").expect("write to memory");
        let packed = encoder.finish().expect("finish gzip");
        assert_eq!(
            decode(packed).expect("valid gzip"),
            b"{\"a\":1}\n",
            "gzip is undone"
        );
        assert_eq!(
            decode(b"plain".to_vec()).expect("plain"),
            b"plain",
            "plain passes through"
        );
    }
}
