//! What the event list's text filter matches: the text anywhere in an event's summary or
//! bytes, ignoring the case of ASCII letters only, as the filter's `instr(lower(..), lower(..))`
//! did (SQLite's `lower` folds nothing else). That expression copied and folded every event's
//! bytes for every row it tested: three seconds at a million events, where this takes a
//! fraction.

use aho_corasick::AhoCorasick;

/// A filter's text, ready to test many haystacks.
pub struct TextMatch(Option<AhoCorasick>);

impl TextMatch {
    pub fn new(needle: &str) -> TextMatch {
        // A needle the searcher cannot be built for (none is, short of memory) matches nothing.
        TextMatch(
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build([needle])
                .ok(),
        )
    }

    /// Whether the needle occurs in `haystack` (bytes that need not be UTF-8). An empty needle
    /// occurs in anything.
    pub fn is_in(&self, haystack: &[u8]) -> bool {
        self.0
            .as_ref()
            .is_some_and(|searcher| searcher.is_match(haystack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rusqlite::Connection;

    fn matches(haystack: &[u8], needle: &str) -> bool {
        TextMatch::new(needle).is_in(haystack)
    }

    #[test]
    fn finds_the_text_ignoring_ascii_case_only() {
        assert!(
            matches(b"Hello Octo-Bot!", "octo-bot"),
            "ASCII case is ignored"
        );
        assert!(matches(b"abc", ""), "an empty needle occurs everywhere");
        assert!(!matches(b"octo", "octo-bot"), "the whole needle must occur");
        assert!(
            !matches("ÉTÉ".as_bytes(), "été"),
            "other letters keep their case, as SQLite's lower() left them"
        );
        assert!(
            matches(&[0x00, 0xff, 0x41], "a"),
            "bytes that are not UTF-8 are searched as they are"
        );
    }

    proptest! {
        #[test]
        fn agrees_with_the_instr_of_lower_it_replaced(
            haystack in "[a-cA-C\u{e9}\u{c9} ]{0,12}",
            needle in "[a-cA-C\u{e9}\u{c9}]{0,3}",
        ) {
            let conn = Connection::open_in_memory().expect("in-memory database");
            let before: bool = conn
                .query_row(
                    "SELECT instr(lower(?1), lower(?2)) > 0",
                    [&haystack, &needle],
                    |r| r.get(0),
                )
                .expect("query");
            prop_assert_eq!(matches(haystack.as_bytes(), &needle), before, "{:?} in {:?}", needle, haystack);
        }
    }
}
