//! Where o200k_base's pieces start in plain ASCII prose, a window of 64 bytes at a time.
//!
//! In prose made of letters, digits, single spaces, line breaks and punctuation, whether a
//! piece starts at a byte depends only on the two bytes before it (and, in a run of digits, on
//! where the run began), so a whole window's starts come out of a few masks. Cutting byte by
//! byte stops at every piece to find where it ends, and those stops, which no branch predictor
//! guesses, were most of what counting a text cost. Anything else (apostrophes, a slash after
//! a line break, runs of white space, tabs, control bytes) ends the stretch the masks answer
//! for, and the byte-at-a-time cut takes over there.

/// The piece starts of a window: bit `i` is set when a piece starts at the window's byte `i`.
/// Only the bits below `determined` are set; what starts from there on is not known here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Starts {
    pub bits: u64,
    pub determined: usize,
}

/// Which bytes of a window are in each class, a bit per byte.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Classes {
    lower: u64,
    upper: u64,
    digit: u64,
    space: u64,
    newline: u64,
    /// Printable punctuation and symbols other than the apostrophe, which may open a
    /// contraction.
    punct: u64,
    /// The slash: punctuation, but after line breaks that follow punctuation it ends that
    /// piece (`[\r\n/]*`).
    slash: u64,
}

/// Bytes a window holds at most.
pub(super) const WINDOW: usize = 64;

/// The starts of `window`, which begins where a piece starts and holds ASCII only; `ends_text`
/// when the text ends with it.
pub(super) fn o200k(window: &[u8], ends_text: bool) -> Starts {
    let len = window.len().min(WINDOW);
    let within = below(len);
    let c = classes(&window[..len]);
    let letter = c.lower | c.upper;
    let punct = c.punct | c.slash;
    let plain = letter | c.digit | c.space | c.newline | punct;
    // Bytes the rules below do not cover: anything not plain, a space beside another or
    // beside a line break (a run of white space ends where later bytes say), and a slash
    // after a line break. A space's neighbour after it is only known inside the window, so
    // its last byte is left out.
    let crowded = c.space & ((c.space | c.newline) >> 1 | (c.space | c.newline) << 1);
    let bad = (!plain | crowded | c.slash & c.newline << 1) & within;
    let mut determined = if bad == 0 {
        len
    } else {
        bad.trailing_zeros() as usize
    };
    if !ends_text {
        determined = determined.min(len.saturating_sub(1));
    }
    // The window opens a piece: to what follows, its start is like a line break before it.
    let after_break = c.newline << 1 | 1;
    let word = letter | c.digit;
    // Punctuation opens a piece after a letter, a digit or a line break; after a space it
    // joins the space (` ?[^\s\p{L}\p{N}]+`), and within a run it goes on.
    let punct_starts = punct & (word << 1 | after_break);
    // A letter opens a piece after a line break or a digit, after punctuation that did not
    // open one (what opens a piece and is followed by a letter leads its word), and where a
    // capital follows a small letter; a space before it leads its word.
    let letter_starts = letter
        & (after_break | c.digit << 1 | (punct & !punct_starts) << 1 | (c.lower << 1 & c.upper));
    // Digits go in pieces of three (`\p{N}{1,3}`) from where their run starts: after anything
    // else, or at the window's start, which starts a piece.
    let run_starts = c.digit & !(c.digit << 1);
    let fourth = c.digit & c.digit << 1 & c.digit << 2 & c.digit << 3;
    let mut digit_starts = run_starts;
    let mut third = run_starts;
    while third != 0 {
        third = third << 3 & fourth;
        digit_starts |= third;
    }
    // A line break opens a piece after a letter or a digit (`\s*[\r\n]+`); after punctuation
    // it ends that piece (`[\r\n/]*`), after another it goes on.
    let newline_starts = c.newline & (word << 1 | 1);
    let all = punct_starts | letter_starts | digit_starts | newline_starts | c.space | 1;
    Starts {
        bits: all & below(determined),
        determined,
    }
}

/// The bits of the window's first `n` bytes.
fn below(n: usize) -> u64 {
    if n >= WINDOW {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(target_arch = "x86_64")]
fn classes(window: &[u8]) -> Classes {
    if std::arch::is_x86_feature_detected!("avx512bw") {
        // SAFETY: the processor has AVX-512BW, checked just above.
        unsafe { classes_avx512(window) }
    } else {
        // SAFETY: SSE2 is part of every x86_64 processor; the build's target has it.
        unsafe { classes_sse2(window) }
    }
}

/// [`classes`] with the whole window in one register, each class a compare that gives its
/// bits at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn classes_avx512(window: &[u8]) -> Classes {
    use std::arch::x86_64::{
        _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_maskz_loadu_epi8, _mm512_set1_epi8,
        _mm512_sub_epi8,
    };
    let len = window.len().min(WINDOW);
    // SAFETY: the mask selects the window's first `len` bytes, all within the slice; a masked
    // load reads nothing else.
    let v = unsafe { _mm512_maskz_loadu_epi8(below(len), window.as_ptr().cast()) };
    let within = |low: u8, high: u8| -> u64 {
        _mm512_cmplt_epu8_mask(
            _mm512_sub_epi8(v, _mm512_set1_epi8(low as i8)),
            _mm512_set1_epi8((high - low + 1) as i8),
        )
    };
    let is = |b: u8| -> u64 { _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8)) };
    let lower = within(b'a', b'z');
    let upper = within(b'A', b'Z');
    let digit = within(b'0', b'9');
    let slash = is(b'/');
    let not_punct = lower | upper | digit | is(b'\'') | slash;
    Classes {
        lower,
        upper,
        digit,
        space: is(b' '),
        newline: is(b'\n'),
        punct: within(b'!', b'~') & !not_punct,
        slash,
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn classes_sse2(window: &[u8]) -> Classes {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_set_epi64x,
    };
    let mut padded = [0u8; WINDOW];
    // A whole window is read where it is; only a short one is copied out first.
    let window: &[u8; WINDOW] = match window.first_chunk() {
        Some(whole) => whole,
        None => {
            padded[..window.len()].copy_from_slice(window);
            &padded
        }
    };
    let mut out = Classes::default();
    for (chunk, bytes) in window.chunks_exact(16).enumerate() {
        let mut word = [0u8; 16];
        word.copy_from_slice(bytes);
        let word = u128::from_le_bytes(word);
        let v = _mm_set_epi64x((word >> 64) as i64, word as i64);
        // Every byte is ASCII, so comparing as signed bytes compares the values.
        let within = |low: u8, high: u8| -> __m128i {
            _mm_and_si128(
                _mm_cmpgt_epi8(v, _mm_set1_epi8(low as i8 - 1)),
                _mm_cmplt_epi8(v, _mm_set1_epi8(high as i8 + 1)),
            )
        };
        let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * chunk);
        let lower = within(b'a', b'z');
        let upper = within(b'A', b'Z');
        let digit = within(b'0', b'9');
        let apostrophe = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\'' as i8));
        let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'/' as i8));
        let printable = within(b'!', b'~');
        let not_punct = _mm_or_si128(
            _mm_or_si128(lower, upper),
            _mm_or_si128(digit, _mm_or_si128(apostrophe, slash)),
        );
        out.lower |= bits(lower);
        out.upper |= bits(upper);
        out.digit |= bits(digit);
        out.slash |= bits(slash);
        out.space |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8)));
        out.newline |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8)));
        out.punct |= bits(_mm_andnot_si128(not_punct, printable));
    }
    out
}

#[cfg(not(target_arch = "x86_64"))]
fn classes(window: &[u8]) -> Classes {
    classes_bytewise(window)
}

/// [`classes`] a byte at a time: the plain way, which the vector one agrees with.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn classes_bytewise(window: &[u8]) -> Classes {
    let mut out = Classes::default();
    for (i, &b) in window.iter().enumerate().take(WINDOW) {
        let bit = 1u64 << i;
        match b {
            b'a'..=b'z' => out.lower |= bit,
            b'A'..=b'Z' => out.upper |= bit,
            b'0'..=b'9' => out.digit |= bit,
            b'/' => out.slash |= bit,
            b' ' => out.space |= bit,
            b'\n' => out.newline |= bit,
            b'\'' => {}
            b'!'..=b'~' => out.punct |= bit,
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Prose of the bytes the masks answer for, with now and then one they leave to the
    /// byte-at-a-time cut.
    fn prose(rng: &mut Rng, len: usize) -> Vec<u8> {
        const PLAIN: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ .,;:!?()[]{}<>\"-_=+*&^%$#@`~|\\\n/";
        const DIGITS: &[u8] = b"0123456789";
        const OTHER: &[u8] = b"'\t\r\x0b\x0c\x01\x7f";
        (0..len)
            .map(|_| match rng.range(0, 100) {
                0..=2 => *rng.pick(OTHER),
                3..=17 => b' ',
                18..=22 => b'\n',
                23..=37 => *rng.pick(DIGITS),
                _ => *rng.pick(PLAIN),
            })
            .collect()
    }

    #[test]
    fn the_vector_classes_equal_the_bytewise_ones() {
        // Protects the vector classification: a byte put in the wrong class cuts pieces where
        // the encoding does not.
        let mut rng = Rng::new(7);
        let mut windows: Vec<Vec<u8>> = (0..=WINDOW)
            .map(|len| (0..len).map(|_| rng.range(0, 128) as u8).collect())
            .collect();
        let every: Vec<u8> = (0u8..128).collect();
        windows.extend(every.chunks(WINDOW).map(<[u8]>::to_vec));
        for window in &windows {
            let expected = classes_bytewise(window);
            assert_eq!(classes(window), expected, "{window:?}");
            // Each vector implementation this processor has, whichever `classes` picks.
            #[cfg(target_arch = "x86_64")]
            {
                // SAFETY: SSE2 is part of every x86_64 processor.
                assert_eq!(unsafe { classes_sse2(window) }, expected, "{window:?}");
                if std::arch::is_x86_feature_detected!("avx512bw") {
                    // SAFETY: checked just above.
                    assert_eq!(unsafe { classes_avx512(window) }, expected, "{window:?}");
                }
            }
        }
        // A short window read from a longer text must not see the bytes after it.
        let text = b"abc;DEF ghi\n".repeat(8);
        for len in 0..WINDOW {
            assert_eq!(
                classes(&text[..len]),
                classes_bytewise(&text[..len]),
                "{len}"
            );
        }
    }

    #[test]
    fn starts_below_determined_are_the_starts_of_the_encodings_pattern() {
        // Protects the masks' rules: every start they report, and no other below where they
        // stop answering, is a start of o200k_base's own pattern on the window's text.
        let tokenizer = bpe_openai::o200k_base();
        let mut rng = Rng::new(11);
        let (mut bytes, mut answered) = (0, 0);
        for round in 0..20_000 {
            let len = rng.range(1, WINDOW as u64 + 1) as usize;
            let window = prose(&mut rng, len);
            let text = std::str::from_utf8(&window).expect("ASCII");
            let mut expected = 0u64;
            let mut at = 0;
            for piece in tokenizer.split(text) {
                expected |= 1 << at;
                at += piece.len();
            }
            for ends_text in [true, false] {
                let starts = o200k(&window, ends_text);
                assert_eq!(
                    starts.bits,
                    expected & below(starts.determined),
                    "round {round}, ends_text {ends_text}: {text:?} determined {}",
                    starts.determined
                );
                if !ends_text {
                    assert!(starts.determined < len, "the last byte waits for the next");
                }
                bytes += len;
                answered += starts.determined;
            }
        }
        // Else the windows would pass by answering for nothing.
        assert!(
            answered * 4 > bytes,
            "the windows answered for {answered} of {bytes} bytes"
        );
    }
}
