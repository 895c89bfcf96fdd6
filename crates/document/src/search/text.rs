//! What a search's text matches in a record: a substring of one of its JSON string values
//! (never an object key), or of its bytes when the record is not JSON, ignoring the case of
//! ASCII letters only, as the event list's filter does.
//!
//! A search reads every stored record, so the common answer ("not here") must cost no more
//! than a SIMD scan of the bytes. A value holds the needle only if the bytes do, unless the
//! writer escaped a character of it: `\uXXXX` can stand for any character, `\/` for `/`, and
//! the short escapes for quotes, backslashes and control characters. Only a record that passes
//! that test is parsed, and its values searched.

use std::fmt;

use aho_corasick::AhoCorasick;
use memchr::memmem;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Characters either side of the match that a snippet keeps.
const SNIPPET_CONTEXT: usize = 40;

/// A search text, ready to test records against.
pub struct Needle {
    searcher: AhoCorasick,
    /// The needle holds a character a JSON writer must escape (a quote, a backslash, a control
    /// character): a record with any backslash may then hold it in escaped form.
    needs_escape: bool,
    has_slash: bool,
    unicode_escape: memmem::Finder<'static>,
    slash_escape: memmem::Finder<'static>,
}

/// Where a record holds the needle: the text around the first match, the match in `[` `]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMatch {
    pub snippet: String,
}

impl Needle {
    /// `None` for an empty needle, which every record holds.
    pub fn new(text: &str) -> Option<Needle> {
        if text.is_empty() {
            return None;
        }
        let searcher = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build([text])
            .ok()?;
        Some(Needle {
            searcher,
            needs_escape: text
                .chars()
                .any(|c| c == '"' || c == '\\' || c.is_control()),
            has_slash: text.contains('/'),
            unicode_escape: memmem::Finder::new(b"\\u").into_owned(),
            slash_escape: memmem::Finder::new(b"\\/").into_owned(),
        })
    }

    /// The first match in the record `raw`, if it holds the needle.
    pub fn find(&self, raw: &[u8]) -> Option<TextMatch> {
        if !self.may_hold(raw) {
            return None;
        }
        let mut found = None;
        let parsed = {
            let mut visit = |value: &str| {
                found = self.find_in(value);
                found.is_some()
            };
            let mut deserializer = serde_json::Deserializer::from_slice(raw);
            StringValues { visit: &mut visit }
                .deserialize(&mut deserializer)
                .and_then(|()| deserializer.end())
        };
        match (parsed, found) {
            // The parse stops at the first match: the rest of a large record is not read.
            (_, Some(found)) => Some(found),
            (Ok(()), None) => None,
            // A record that is not JSON is searched by its bytes.
            (Err(_), None) => self.find_in(&String::from_utf8_lossy(raw)),
        }
    }

    /// False only when no value of `raw` can hold the needle: the bytes do not, and nothing in
    /// them is an escape that could stand for a character of it.
    fn may_hold(&self, raw: &[u8]) -> bool {
        self.searcher.is_match(raw)
            || (self.needs_escape && memchr::memchr(b'\\', raw).is_some())
            || (self.has_slash && self.slash_escape.find(raw).is_some())
            || self.unicode_escape.find(raw).is_some()
    }

    fn find_in(&self, text: &str) -> Option<TextMatch> {
        let found = self.searcher.find(text)?;
        Some(TextMatch {
            snippet: snippet(text, found.start(), found.end()),
        })
    }
}

/// `text` around `start..end` (a match of an ASCII-case-insensitive needle, so on character
/// boundaries), on one line, cut with `…` past [`SNIPPET_CONTEXT`] characters either side.
fn snippet(text: &str, start: usize, end: usize) -> String {
    let before = &text[..start];
    let after = &text[end..];
    let kept_before = before
        .char_indices()
        .rev()
        .nth(SNIPPET_CONTEXT - 1)
        .map_or(0, |(i, _)| i);
    let kept_after = after
        .char_indices()
        .nth(SNIPPET_CONTEXT)
        .map_or(after.len(), |(i, _)| i);
    let mut out = String::new();
    if kept_before > 0 {
        out.push('…');
    }
    out.push_str(&before[kept_before..]);
    out.push('[');
    out.push_str(&text[start..end]);
    out.push(']');
    out.push_str(&after[..kept_after]);
    if kept_after < after.len() {
        out.push('…');
    }
    out.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Every string value of a record, handed to `visit` in record order (borrowed from the bytes
/// where the value has no escape), while the deserializer checks that the record is JSON.
/// When `visit` returns true the walk stops there, with an error.
struct StringValues<'f, F: FnMut(&str) -> bool> {
    visit: &'f mut F,
}

impl<'de, F: FnMut(&str) -> bool> DeserializeSeed<'de> for StringValues<'_, F> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, F: FnMut(&str) -> bool> Visitor<'de> for StringValues<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<(), E> {
        if (self.visit)(value) {
            return Err(E::custom("stopped at a match"));
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items
            .next_element_seed(StringValues {
                visit: &mut *self.visit,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        while entries.next_key::<IgnoredAny>()?.is_some() {
            entries.next_value_seed(StringValues {
                visit: &mut *self.visit,
            })?;
        }
        Ok(())
    }
}

/// Every string value of a record, or its bytes when it is not JSON: what a search's text is
/// matched against, for tests and tools that state it.
pub fn record_values(raw: &[u8]) -> Vec<String> {
    let mut values = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(raw);
    let parsed = StringValues {
        visit: &mut |value: &str| {
            values.push(value.to_string());
            false
        },
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    match parsed {
        Ok(()) => values,
        Err(_) => vec![String::from_utf8_lossy(raw).into_owned()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn snippet_of(needle: &str, raw: &[u8]) -> Option<String> {
        Needle::new(needle)
            .and_then(|n| n.find(raw))
            .map(|m| m.snippet)
    }

    #[test]
    fn a_value_matches_whatever_the_case_of_its_ascii_letters() {
        assert_eq!(
            snippet_of(
                "APPROVE",
                br#"{"type":"a","payload":{"content":"please approve it"}}"#
            )
            .as_deref(),
            Some("please [approve] it"),
            "the snippet is the value with the match marked"
        );
    }

    #[test]
    fn keys_are_not_searched() {
        assert_eq!(
            snippet_of("content", br#"{"content":"x"}"#),
            None,
            "an object key is structure, not text"
        );
    }

    #[test]
    fn a_record_that_is_not_json_is_searched_by_its_bytes() {
        assert_eq!(
            snippet_of(r#""role":"user""#, br#"{"role":"user","content":"trunc"#).as_deref(),
            Some(r#"{["role":"user"],"content":"trunc"#),
            "a broken record stays searchable by its bytes"
        );
        assert_eq!(
            snippet_of(r#""role":"user""#, br#"{"role":"user","content":"whole"}"#),
            None,
            "a whole record is searched by its values, which hold no quotes here"
        );
    }

    #[test]
    fn escaped_characters_are_matched_as_the_values_hold_them() {
        assert!(
            snippet_of("é/ü", br#"{"a":"x\u00e9\/\u00fc"}"#).is_some(),
            "\\u and \\/ escapes stand for the characters they name"
        );
        assert!(
            snippet_of("say \"hi\"", br#"{"a":"they say \"hi\""}"#).is_some(),
            "an escaped quote is a quote"
        );
        assert!(
            snippet_of("line\nnext", br#"{"a":"line\nnext"}"#).is_some(),
            "an escaped newline is a newline"
        );
    }

    #[test]
    fn a_long_value_is_cut_around_the_match() {
        let value = format!("{}needle{}", "a".repeat(100), "b".repeat(100));
        let raw = serde_json::to_vec(&serde_json::json!({ "v": value })).expect("json");
        assert_eq!(
            snippet_of("NEEDLE", &raw).as_deref(),
            Some(format!("…{}[needle]{}…", "a".repeat(40), "b".repeat(40)).as_str()),
            "40 characters either side, marked where cut"
        );
    }

    proptest! {
        /// The byte test never turns away a record whose values hold the needle.
        #[test]
        fn the_scan_finds_exactly_what_the_values_hold(
            values in proptest::collection::vec("[a-cA-C/\"\\\\\n é]{0,12}", 1..4),
            needle in "[a-cA-C/\"\\\\\n é]{1,3}",
        ) {
            let raw = serde_json::to_vec(&values).expect("json");
            // The same record as an escaping writer (Python's default) would write it.
            let escaped: String = String::from_utf8(raw.clone()).expect("utf-8")
                .chars()
                .map(|c| match c {
                    '/' => "\\/".to_string(),
                    c if !c.is_ascii() => format!("\\u{:04x}", c as u32),
                    c => c.to_string(),
                })
                .collect();
            let lower = needle.to_ascii_lowercase();
            let expected = values.iter().any(|v| v.to_ascii_lowercase().contains(&lower));
            let finder = Needle::new(&needle).expect("a needle");
            prop_assert_eq!(finder.find(&raw).is_some(), expected, "plain {:?}", raw);
            prop_assert_eq!(finder.find(escaped.as_bytes()).is_some(), expected, "escaped {}", escaped);
        }
    }
}
