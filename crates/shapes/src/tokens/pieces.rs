//! Counting a text: cutting it into the pieces the encoding's pattern cuts (byte-pair merges
//! never cross a piece), and counting each piece once per thread.
//!
//! The patterns' regular expression is most of a count's cost, and almost every message is
//! ASCII, where the patterns' Unicode classes reduce to a few byte tests. So ASCII text is cut
//! here, by the same rules (in o200k_base, plain prose a window of bytes at a time: see
//! `starts`), and any other text by the encoding's own expression. Pieces repeat (words,
//! indentation, punctuation), so each thread keeps the counts of the pieces it met.

use std::cell::RefCell;

use bpe_openai::Tokenizer;

use super::Encoding;

/// Pieces up to this long are packed into a key and kept; longer ones are rare enough to
/// count each time.
const LONGEST_KEPT: usize = 15;

/// Slots of a thread's piece counts per encoding, a power of two: 16,384 slots of 16 bytes
/// stay in a core's cache.
const SLOT_BITS: u32 = 14;

/// Slots of a table, a power of two.
const SLOTS: usize = 1 << SLOT_BITS;

/// Counts of the pieces a thread met, in slots chosen by a hash of the piece, each holding the
/// latest piece that landed there: a lookup is one hash, one load and one compare, and a piece
/// pushed out is counted again when it comes back.
struct PieceCounts {
    /// The piece's bytes, its length and its count packed into one number (see
    /// [`PieceCounts::key`] and [`COUNT_SHIFT`]): half the cache a separate count took, which
    /// an import's fold, sharing the core, kept evicting. A key of zero is an empty piece,
    /// which counts no tokens: zeroed slots are empty, and hold its count.
    slots: Box<[u128]>,
}

/// Where a slot's count starts, above its key: a piece of at most [`LONGEST_KEPT`] bytes is at
/// most that many tokens, since every byte is one, so four bits hold it.
const COUNT_SHIFT: u32 = 124;

/// The bytes of a piece of each length within the 16 bytes loaded from its start.
const MASKS: [u128; 16] = {
    let mut masks = [0u128; 16];
    let mut len = 0;
    while len < 16 {
        masks[len] = (1u128 << (8 * len)) - 1;
        len += 1;
    }
    masks
};

impl PieceCounts {
    fn new() -> PieceCounts {
        PieceCounts {
            slots: vec![0; SLOTS].into_boxed_slice(),
        }
    }

    /// The key of `text[at..end]`, a piece of at most [`LONGEST_KEPT`] bytes: its bytes, and
    /// its length in the four bits above them.
    #[inline(always)]
    fn key(text: &[u8], at: usize, end: usize) -> u128 {
        let len = end - at;
        let packed = match text.get(at..at + 16) {
            // Most pieces have 16 bytes of text after their start: load them and mask.
            Some(window) => {
                let mut word = [0u8; 16];
                word.copy_from_slice(window);
                u128::from_le_bytes(word) & MASKS[len & 15]
            }
            None => {
                let mut word = [0u8; 16];
                word[..len].copy_from_slice(&text[at..end]);
                u128::from_le_bytes(word)
            }
        };
        packed | ((len as u128) << 120)
    }

    #[inline(always)]
    fn slot(key: u128) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOT_BITS)) as usize
    }
}

thread_local! {
    static KEPT: RefCell<[PieceCounts; 2]> = RefCell::new([PieceCounts::new(), PieceCounts::new()]);
}

/// The vocabulary and expression of `encoding`.
fn tokenizer(encoding: Encoding) -> &'static Tokenizer {
    match encoding {
        Encoding::O200kBase => bpe_openai::o200k_base(),
        Encoding::Cl100kBase => bpe_openai::cl100k_base(),
    }
}

/// Tokens of `text` in `encoding`.
pub(super) fn count(encoding: Encoding, text: &str) -> usize {
    if cfg!(feature = "uncounted") {
        return 0;
    }
    let tokenizer = tokenizer(encoding);
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let kept = &mut kept[encoding as usize];
        let bytes = text.as_bytes();
        let mut tokens = 0;
        if text.is_ascii() && encoding == Encoding::O200kBase {
            tokens = count_o200k_ascii(tokenizer, kept, bytes);
        } else if text.is_ascii() {
            let mut at = 0;
            while at < bytes.len() {
                let end = ascii_piece_end(encoding, bytes, at);
                tokens += piece_tokens(tokenizer, kept, bytes, at, end);
                at = end;
            }
        } else {
            for piece in tokenizer.split(text) {
                let at = piece.as_ptr() as usize - text.as_ptr() as usize;
                tokens += piece_tokens(tokenizer, kept, bytes, at, at + piece.len());
            }
        }
        tokens
    })
}

/// Tokens of ASCII `bytes` in o200k_base: the pieces of plain prose found a window at a time
/// (see [`super::starts`]), the rest cut a byte at a time.
fn count_o200k_ascii(tokenizer: &Tokenizer, kept: &mut PieceCounts, bytes: &[u8]) -> usize {
    let mut tokens = 0;
    let mut at = 0;
    // Where the windows start again after one that found little: in code, numbers or
    // indentation a window would mostly be cut short, and cost more than it saves.
    let mut bytewise_until = 0;
    while at < bytes.len() {
        if at < bytewise_until {
            let end = ascii_piece_end(Encoding::O200kBase, bytes, at);
            tokens += piece_tokens(tokenizer, kept, bytes, at, end);
            at = end;
            continue;
        }
        let window = &bytes[at..bytes.len().min(at + super::starts::WINDOW)];
        let ends_text = at + window.len() == bytes.len();
        let starts = super::starts::o200k(window, ends_text);
        // Each start after the first ends the piece before it.
        let mut rest = starts.bits & !1;
        let mut from = 0;
        let mut pieces = 0;
        while rest != 0 {
            let next = rest.trailing_zeros() as usize;
            tokens += piece_tokens(tokenizer, kept, bytes, at + from, at + next);
            from = next;
            pieces += 1;
            rest &= rest - 1;
        }
        if ends_text && starts.determined == window.len() {
            tokens += piece_tokens(tokenizer, kept, bytes, at + from, bytes.len());
            break;
        }
        at += from;
        if pieces < 4 {
            bytewise_until = at + super::starts::WINDOW;
        }
    }
    tokens
}

/// Tokens of the piece `text[at..end]`.
#[inline(always)]
fn piece_tokens(
    tokenizer: &Tokenizer,
    kept: &mut PieceCounts,
    text: &[u8],
    at: usize,
    end: usize,
) -> usize {
    let len = end - at;
    if len > LONGEST_KEPT {
        return tokenizer.bpe.count(&text[at..end]);
    }
    let key = PieceCounts::key(text, at, end);
    let slot = &mut kept.slots[PieceCounts::slot(key)];
    if *slot & ((1 << COUNT_SHIFT) - 1) == key {
        return (*slot >> COUNT_SHIFT) as usize;
    }
    count_and_keep(tokenizer, slot, key, &text[at..end])
}

/// Counts a piece not kept, and keeps it in `slot` under `key`: out of the way of the kept
/// pieces' path, which is most of them.
#[cold]
#[inline(never)]
fn count_and_keep(tokenizer: &Tokenizer, slot: &mut u128, key: u128, piece: &[u8]) -> usize {
    let tokens = tokenizer.bpe.count(piece);
    *slot = key | ((tokens.min(LONGEST_KEPT) as u128) << COUNT_SHIFT);
    tokens
}

/// Whether, after a line break, `text` starts a piece of its own, in both encodings: the
/// patterns have no look-behind, and a line break ends its piece unless line breaks follow it
/// across white space, or (after symbols) a slash does.
pub(super) fn starts_a_piece_after_line_break(text: &str) -> bool {
    match text.chars().next() {
        None => true,
        Some('\r' | '\n' | '/') => false,
        Some(first) if first.is_whitespace() => !text
            .chars()
            .take_while(|c| c.is_whitespace())
            .any(|c| c == '\r' || c == '\n'),
        Some(_) => true,
    }
}

/// `\s` of the patterns, within ASCII.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

fn is_newline(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// `[^\s\p{L}\p{N}]` within ASCII: punctuation, symbols and the control characters that are not
/// white space.
fn is_other(b: u8) -> bool {
    !b.is_ascii_alphanumeric() && !is_space(b)
}

/// `[^\r\n\p{L}\p{N}]`: what may lead a word.
fn may_lead_word(b: u8) -> bool {
    !b.is_ascii_alphanumeric() && !is_newline(b)
}

fn run(bytes: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    bytes[from..].iter().take_while(|&&b| class(b)).count()
}

/// The run of bytes in `low..=high` from `from`, in ASCII text, eight bytes a step: words
/// are most of a text, and a step tests every byte of one at once. `fold_case` takes
/// capitals as their small letters.
fn run_within(bytes: &[u8], from: usize, low: u8, high: u8, fold_case: bool) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let case: u8 = if fold_case { 0x20 } else { 0 };
    let rest = &bytes[from..];
    let mut done = 0;
    while let Some(window) = rest.get(done..done + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(window);
        let word = u64::from_le_bytes(word) | (ONES * u64::from(case));
        // Each byte is below 0x80, so no sum carries into the next byte: the top bit of
        // each says "at least `low`" and "above `high`".
        let at_least = word.wrapping_add(ONES * u64::from(0x80 - low)) & HIGH;
        let above = word.wrapping_add(ONES * u64::from(0x7f - high)) & HIGH;
        let outside = !(at_least & !above) & HIGH;
        if outside != 0 {
            return done + (outside.trailing_zeros() / 8) as usize;
        }
        done += 8;
    }
    done + run(rest, done, |b| (low..=high).contains(&(b | case)))
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `at`: its length, or 0.
fn contraction(bytes: &[u8], at: usize) -> usize {
    if bytes.get(at) != Some(&b'\'') {
        return 0;
    }
    let next = |i: usize| bytes.get(at + i).map(u8::to_ascii_lowercase);
    match (next(1), next(2)) {
        (Some(b's' | b't' | b'm' | b'd'), _) => 2,
        (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => 3,
        _ => 0,
    }
}

/// Where the piece that starts at `at` ends, as the encoding's pattern cuts ASCII text: the
/// first alternative that matches wins, each taking as much as it can.
fn ascii_piece_end(encoding: Encoding, bytes: &[u8], at: usize) -> usize {
    let first = bytes[at];
    let lead = usize::from(may_lead_word(first));
    let word_at = at + lead;
    match encoding {
        Encoding::O200kBase => {
            // [^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+('s…)? then [^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*('s…)?
            if bytes.get(word_at).is_some_and(u8::is_ascii_alphabetic) {
                let upper = run_within(bytes, word_at, b'A', b'Z', false);
                let lower = run_within(bytes, word_at + upper, b'a', b'z', false);
                let end = word_at + upper + lower;
                return end + contraction(bytes, end);
            }
        }
        Encoding::Cl100kBase => {
            let contracted = contraction(bytes, at);
            if contracted > 0 {
                return at + contracted;
            }
            // [^\r\n\p{L}\p{N}]?\p{L}+
            if bytes.get(word_at).is_some_and(u8::is_ascii_alphabetic) {
                return word_at + run_within(bytes, word_at, b'a', b'z', true);
            }
        }
    }
    // \p{N}{1,3}
    if first.is_ascii_digit() {
        return at + run(bytes, at, |b| b.is_ascii_digit()).min(3);
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (o200k_base) or `…[\r\n]*` (cl100k_base)
    let symbols_at = if first == b' ' { at + 1 } else { at };
    if bytes.get(symbols_at).is_some_and(|&b| is_other(b)) {
        let end = symbols_at + run(bytes, symbols_at, is_other);
        let trailing = match encoding {
            Encoding::O200kBase => run(bytes, end, |b| is_newline(b) || b == b'/'),
            Encoding::Cl100kBase => run(bytes, end, is_newline),
        };
        return end + trailing;
    }
    // What is left starts with white space.
    let space = run(bytes, at, is_space);
    let end = at + space;
    // \s*[\r\n]+ : up to the last line break of the run.
    if let Some(last_break) = bytes[at..end].iter().rposition(|&b| is_newline(b)) {
        return at + last_break + 1;
    }
    // \s+$ , then \s+(?!\S) : the run to the end, or all of it but the space before the next
    // word, which leads that word.
    if end == bytes.len() || space == 1 {
        end
    } else {
        end - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn pieces(encoding: Encoding, text: &str) -> Vec<String> {
        let mut cut = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = ascii_piece_end(encoding, text.as_bytes(), at);
            cut.push(text[at..end].to_string());
            at = end;
        }
        cut
    }

    fn regex_pieces(encoding: Encoding, text: &str) -> Vec<String> {
        tokenizer(encoding)
            .split(text)
            .map(str::to_string)
            .collect()
    }

    /// Text made of the fragments the patterns treat differently, so every alternative and
    /// every boundary between two of them comes up.
    fn ascii_text(rng: &mut Rng) -> String {
        const FRAGMENTS: &[&str] = &[
            " ",
            "  ",
            "   ",
            "\t",
            "\n",
            "\r\n",
            "\n\n",
            " \n",
            "\x0b",
            "\x0c",
            "a",
            "hello",
            "World",
            "HTTP",
            "HTTPServer",
            "camelCase",
            "x",
            "Z",
            "'s",
            "'S",
            "'re",
            "'LL",
            "'d",
            "'ve",
            "'m",
            "'t",
            "'",
            "''",
            "0",
            "12",
            "1234567",
            "3.14",
            ".",
            "...",
            "/",
            "//",
            "/usr/bin",
            "{",
            "}",
            "()",
            "=>",
            "#",
            "!",
            "?",
            "-",
            "_",
            "__init__",
            "\"",
            "<|",
            "|>",
            "<|endoftext|>",
            "\x00",
            "\x01",
            "\x1f",
            "\x7f",
            "~",
            "@",
            "$",
            "%",
            "^",
            "&",
            "*",
            ";",
            ":",
            ",",
            "`",
            "\\",
            "[",
            "]",
        ];
        let len = rng.range(0, 40) as usize;
        (0..len).map(|_| *rng.pick(FRAGMENTS)).collect()
    }

    #[test]
    fn ascii_text_is_cut_as_the_encodings_expression_cuts_it() {
        // Protects exactness: the hand-written cut must equal the regular expression's on
        // every arrangement of the classes the patterns distinguish.
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for case in 0..20_000 {
            let text = ascii_text(&mut rng);
            for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                assert_eq!(
                    pieces(encoding, &text),
                    regex_pieces(encoding, &text),
                    "case {case} in {}: {text:?}",
                    encoding.as_str()
                );
            }
        }
    }

    #[test]
    fn every_ascii_byte_pair_and_triple_is_cut_as_the_expression_cuts_it() {
        // Protects the classes: each byte lands in the same class as the expression puts it.
        for a in 0u8..128 {
            for b in 0u8..128 {
                let text = String::from_utf8(vec![a, b, b' ', a]).expect("ASCII");
                for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                    assert_eq!(
                        pieces(encoding, &text),
                        regex_pieces(encoding, &text),
                        "{text:?} in {}",
                        encoding.as_str()
                    );
                }
            }
        }
    }

    #[test]
    fn a_text_after_a_line_break_counts_apart_only_when_it_starts_a_piece() {
        // Protects counting an item's header and content apart: the sum must be the count of
        // the two put together whenever the content is taken to start a piece.
        let mut rng = Rng::new(11);
        let mut apart = 0;
        for _ in 0..20_000 {
            let head = ascii_text(&mut rng) + "\n";
            let tail = ascii_text(&mut rng)
                + *rng.pick(&["", " ünï", "\u{2028}x", "\u{a0}\n", "\u{301}a"]);
            if !starts_a_piece_after_line_break(&tail) {
                continue;
            }
            apart += 1;
            for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                let joined = format!("{head}{tail}");
                assert_eq!(
                    count(encoding, &head) + count(encoding, &tail),
                    count(encoding, &joined),
                    "{joined:?} in {}",
                    encoding.as_str()
                );
            }
        }
        assert!(apart > 10_000, "most texts count apart: {apart}");
    }

    /// Prose long enough for many windows, broken now and then by the fragments the windows
    /// leave to the byte-at-a-time cut.
    fn long_ascii_text(rng: &mut Rng) -> String {
        const WORDS: &[&str] = &[
            "the",
            "merge",
            "Deploy",
            "schema",
            "fooBar",
            "HTTPServer",
            "x",
            "a",
            "I",
            "review",
            "CamelCaseWord",
            "ALLCAPS",
            "supercalifragilisticexpialidocious",
            // Item headers and request times: digits and slashes in the windows.
            "@1234567",
            "key=\"linear/status\"",
            "2026-11-02T00:00:55.885Z",
            "42",
            "v1.2.3",
            "a1b2c3",
            "/usr/bin",
        ];
        const BETWEEN: &[&str] = &[
            " ", " ", " ", ", ", ". ", ".\n", "\n", "\n\n", "(", ") ", " \"", "-", "; ", "!", "?\n",
        ];
        let mut text = String::new();
        for _ in 0..rng.range(1, 300) {
            if rng.range(0, 12) == 0 {
                text.push_str(&ascii_text(rng));
            } else {
                let (word, between): (&&str, &&str) = (rng.pick(WORDS), rng.pick(BETWEEN));
                text.push_str(word);
                text.push_str(between);
            }
        }
        text
    }

    #[test]
    fn long_ascii_counts_equal_the_encodings_own() {
        // Protects the window cut of o200k_base (and the byte-at-a-time cut of both): a long
        // ASCII text, prose with odd stretches, counts as the encoding counts it, and so does
        // every cut of it where a window may start or end mid-piece.
        let mut rng = Rng::new(19);
        for _ in 0..400 {
            let text = long_ascii_text(&mut rng);
            for end in [text.len(), text.len() / 2, text.len() / 3 + 1] {
                let text = &text[..end.min(text.len())];
                for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                    assert_eq!(
                        count(encoding, text),
                        tokenizer(encoding).count(text),
                        "{} {text:?}",
                        encoding.as_str()
                    );
                }
            }
        }
    }

    #[test]
    fn kept_piece_counts_equal_counting_afresh() {
        // Protects the per-thread counts: a count taken from them equals the encoding's own.
        let mut rng = Rng::new(7);
        for _ in 0..2_000 {
            let text = ascii_text(&mut rng) + "héllo wörld 数字 🙂";
            for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                let own = tokenizer(encoding).count(text.as_str());
                assert_eq!(count(encoding, &text), own, "{text:?}");
                let ascii_part = &text[..text.len() - 4];
                assert_eq!(
                    count(encoding, ascii_part),
                    tokenizer(encoding).count(ascii_part)
                );
            }
        }
    }
}
