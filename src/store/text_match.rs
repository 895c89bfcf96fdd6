//! What the event list's text filter matches: the text anywhere in a value, ignoring the case
//! of ASCII letters only, as the filter's `instr(lower(..), lower(..))` did (SQLite's `lower`
//! folds nothing else). It is the SQL function `contains_text(haystack, needle)`, registered
//! on every store connection, because that expression copied and folded every event's bytes
//! for every row it tested: three seconds at a million events, where this takes a fraction.

use aho_corasick::AhoCorasick;
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;
use rusqlite::Connection;

/// The SQL name of the function.
pub const FUNCTION: &str = "contains_text";

/// Registers `contains_text` on `conn`: true when `needle` occurs in `haystack` (text or
/// bytes), false when either is NULL or a number. An empty needle occurs in anything.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        FUNCTION,
        2,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        contains_text,
    )
}

fn contains_text(ctx: &mut Context<'_>) -> rusqlite::Result<bool> {
    // The needle is the same for every row a statement tests: its searcher is built once and
    // kept with the statement.
    let searcher = ctx.get_or_create_aux(1, |needle| -> Result<_, aho_corasick::BuildError> {
        match bytes_of(needle) {
            Some(needle) => AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build([needle])
                .map(Some),
            None => Ok(None),
        }
    })?;
    let Some(searcher) = searcher.as_ref() else {
        return Ok(false);
    };
    Ok(bytes_of(ctx.get_raw(0)).is_some_and(|haystack| searcher.is_match(haystack)))
}

fn bytes_of(value: ValueRef<'_>) -> Option<&[u8]> {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => Some(bytes),
        // The filter searches the summary (text) and the original bytes (a blob); a number
        // is neither, and is not searched.
        ValueRef::Integer(_) | ValueRef::Real(_) | ValueRef::Null => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn connection() -> Connection {
        let conn = Connection::open_in_memory().expect("in-memory database");
        register(&conn).expect("register");
        conn
    }

    fn matches(conn: &Connection, haystack: &str, needle: &str) -> bool {
        conn.query_row("SELECT contains_text(?1, ?2)", [haystack, needle], |r| {
            r.get(0)
        })
        .expect("query")
    }

    #[test]
    fn finds_the_text_ignoring_ascii_case_only() {
        let conn = connection();
        assert!(
            matches(&conn, "Hello Octo-Bot!", "octo-bot"),
            "ASCII case is ignored"
        );
        assert!(
            matches(&conn, "abc", ""),
            "an empty needle occurs everywhere"
        );
        assert!(
            !matches(&conn, "octo", "octo-bot"),
            "the whole needle must occur"
        );
        assert!(
            !matches(&conn, "ÉTÉ", "été"),
            "other letters keep their case, as SQLite's lower() left them"
        );
        let null: bool = conn
            .query_row("SELECT contains_text(NULL, 'a')", [], |r| r.get(0))
            .expect("query");
        assert!(!null, "a missing value matches nothing");
        let bytes: bool = conn
            .query_row("SELECT contains_text(x'00ff41', 'a')", [], |r| r.get(0))
            .expect("query");
        assert!(bytes, "bytes that are not UTF-8 are searched as they are");
    }

    proptest! {
        #[test]
        fn agrees_with_the_instr_of_lower_it_replaced(
            haystack in "[a-cA-C\u{e9}\u{c9} ]{0,12}",
            needle in "[a-cA-C\u{e9}\u{c9}]{0,3}",
        ) {
            let conn = connection();
            let before: bool = conn
                .query_row(
                    "SELECT instr(lower(?1), lower(?2)) > 0",
                    [&haystack, &needle],
                    |r| r.get(0),
                )
                .expect("query");
            prop_assert_eq!(matches(&conn, &haystack, &needle), before, "{:?} in {:?}", needle, haystack);
        }
    }
}
