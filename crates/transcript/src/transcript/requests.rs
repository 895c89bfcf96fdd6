//! A transcript's requests as the views ask for them, whichever dialect wrote it: the list, the
//! last, two side by side, a body as it leaves the program, and the words that refuse what does
//! not apply to requests recorded as their provider got them.

use serde_json::Value;

use journalscope_shapes::redact::{export_body, RedactError, Redacted};
use journalscope_store::store::{Store, StoreError};

use super::cache::{CacheReport, Range};
use super::diff::{diff, Side, TranscriptDiff};
use super::RequestRow;

/// Why a transcript refuses `--transport`: its requests are what its provider got, rendered on
/// no other transport.
pub const NO_TRANSPORT: &str =
    "a transcript's requests are shown as their provider got them: --transport does not apply";

/// Why a transcript refuses a diff's transports.
pub const NO_DIFF_TRANSPORTS: &str = "a transcript's requests are diffed as their provider got \
                                      them: --from-transport and --to-transport do not apply";

/// Why a transcript gives no curl command: what it leaves out would make another request.
pub const NO_CURL: &str = "a transcript does not record the system prompt or the tools, so no \
                           curl command would send its request again: export the body with -o";

/// Why a diff with no later request named has nothing to show.
pub const NOTHING_TO_DIFF: &str = "the transcript has no requests to diff";

/// Why a transcript's conversation comes whole: it is no thread of messages paged through.
pub const NOT_PAGED: &str = "a transcript's conversation is read whole, not a page at a time";

/// Why a transcript's cache report needs a range: its requests are not numbered around one.
pub const CACHE_BY_RANGE: &str =
    "a transcript's prompt-cache report is asked for by a range of offsets";

/// Why the line at `at` has no compaction to show.
pub fn not_a_compaction(at: i64) -> String {
    format!("offset {at} is not a compaction (a line where the agent compacted its context)")
}

/// The code of a refused transport, of a refused curl command, of a diff with no requests, of
/// a question the transcript answers another way, and of a line that is no compaction.
pub const NO_TRANSPORT_CODE: &str = "transport-not-applicable";
pub const NO_CURL_CODE: &str = "curl-not-applicable";
pub const NOTHING_TO_DIFF_CODE: &str = "no-requests";
pub const NOT_PAGED_CODE: &str = "not-applicable";
pub const NOT_A_COMPACTION_CODE: &str = "not-a-compaction";

/// Every request of the transcript, by its first line: the rows its fold stored.
pub fn rows(store: &Store, journal_id: i64) -> Result<Vec<RequestRow>, StoreError> {
    Ok(store
        .request_rows(journal_id)?
        .into_iter()
        .filter_map(|(_, row)| serde_json::from_str(&row).ok())
        .collect())
}

/// The first line of the transcript's last request; `None` when it has none.
pub fn last(store: &Store, journal_id: i64) -> Result<Option<i64>, StoreError> {
    Ok(store
        .last_request_row(journal_id)?
        .and_then(|row| serde_json::from_str::<RequestRow>(&row).ok())
        .map(|row| row.offset))
}

/// A request as one side of a diff: its first line, its model, and its messages (or items) as
/// JSON.
pub type Messages = (i64, Option<String>, Vec<Value>);

/// A request as its provider got it, as a transcript records it: what the views of requests
/// ask of one, whichever dialect wrote it.
pub trait SentRequest: serde::Serialize {
    /// The body its provider got, as far as the transcript records it.
    fn body(&self) -> Value;

    /// The request as one side of a diff.
    fn messages(&self) -> Messages;

    /// The request as the command line prints it.
    fn text(&self, out: &mut String) -> std::fmt::Result;

    /// The body as it leaves the program: redacted (the built-in rules, and `redact_paths`)
    /// unless `exact`.
    fn export(&self, exact: bool, redact_paths: &[String]) -> Result<Redacted, RedactError> {
        export(&self.body(), exact, redact_paths)
    }
}

/// Why two requests give no diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// No request starts at this offset.
    NotARequest(i64),
    /// The request at this offset has none before it in its thread to diff against.
    NoEarlierRequest(i64),
}

impl Unanswered {
    /// The stable code tools and the window see.
    pub fn code(self) -> &'static str {
        match self {
            Unanswered::NotARequest(_) => "not-a-request",
            Unanswered::NoEarlierRequest(_) => "no-earlier-request",
        }
    }

    pub fn message(self) -> String {
        match self {
            Unanswered::NotARequest(at) => not_a_request(at),
            Unanswered::NoEarlierRequest(at) => format!(
                "request @{at} is the first request: there is no earlier one to diff against"
            ),
        }
    }
}

/// Why there is no request at `at`.
pub fn not_a_request(at: i64) -> String {
    format!("offset {at} is not the first line of a request")
}

/// The request at `to` against the one at `from` (the request before it in its thread when
/// `None`), with the later one's cache entry when it measured against the earlier. The
/// dialect gives each request's messages (`None` where no request starts) and the cache
/// report of a range.
pub fn diff_between<E>(
    from: Option<i64>,
    to: i64,
    mut messages_of: impl FnMut(i64) -> Result<Option<Messages>, E>,
    cache_of: impl FnOnce(Range) -> Result<CacheReport, E>,
) -> Result<Result<TranscriptDiff, Unanswered>, E> {
    // The later request first, so that a bad offset says so rather than "no earlier request".
    let Some((to_offset, to_model, to_messages)) = messages_of(to)? else {
        return Ok(Err(Unanswered::NotARequest(to)));
    };
    let cache = cache_of((Some(to), Some(to)))?
        .requests
        .into_iter()
        .find(|entry| entry.request_offset == to);
    let Some(from) = from.or(cache.as_ref().and_then(|e| e.previous_request)) else {
        return Ok(Err(Unanswered::NoEarlierRequest(to)));
    };
    let Some((from_offset, from_model, from_messages)) = messages_of(from)? else {
        return Ok(Err(Unanswered::NotARequest(from)));
    };
    Ok(Ok(diff(
        Side {
            request_offset: from_offset,
            model: from_model,
            messages: &from_messages,
        },
        Side {
            request_offset: to_offset,
            model: to_model,
            messages: &to_messages,
        },
        cache,
    )))
}

/// A request's body as it leaves the program: redacted (the built-in rules, and
/// `redact_paths`) unless `exact`. A transcript holds code, paths and sometimes pasted
/// credentials.
pub fn export(body: &Value, exact: bool, redact_paths: &[String]) -> Result<Redacted, RedactError> {
    // Serialising plain data does not fail.
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    export_body(bytes, exact, redact_paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::cache::CacheEntry;

    fn messages_of(at: i64) -> Result<Option<Messages>, StoreError> {
        Ok([2, 5].contains(&at).then(|| {
            (
                at,
                None,
                vec![serde_json::json!({"role": "user", "content": "hi"})],
            )
        }))
    }

    fn cache_after(previous: Option<i64>) -> CacheReport {
        CacheReport {
            requests: vec![CacheEntry {
                request_offset: 5,
                previous_request: previous,
                thread: "main".to_string(),
                model: None,
                input_tokens: 0,
                cache_read_tokens: 0,
                cache_write_tokens: 0,
                expected_read_tokens: 0,
                missed_tokens: 0,
                broke: false,
                causes: Vec::new(),
                explanation: String::new(),
                reported_reason: None,
            }],
            total_input_tokens: 0,
            total_read_tokens: 0,
            total_write_tokens: 0,
            total_missed_tokens: 0,
            breaks: 0,
            unexplained_breaks: 0,
        }
    }

    #[test]
    fn a_diff_goes_back_to_the_request_the_cache_measured_against() {
        // Given requests at 2 and 5, the cache measuring 5 against 2
        // When 5 is diffed with no earlier request named
        let diff = diff_between(None, 5, messages_of, |_| Ok(cache_after(Some(2))))
            .expect("no store error")
            .expect("a diff");
        // Then it is set against 2, with the cache entry
        assert_eq!(diff.from.request_offset, 2, "the request before it");
        assert!(diff.cache.is_some(), "the cache measured 5 against 2");
    }

    #[test]
    fn a_diff_says_which_end_is_missing() {
        let first = diff_between(None, 5, messages_of, |_| Ok(cache_after(None)));
        assert_eq!(
            first.expect("no store error").err(),
            Some(Unanswered::NoEarlierRequest(5)),
            "a first request has nothing before it"
        );
        let later = diff_between(Some(2), 4, messages_of, |_| Ok(cache_after(None)));
        assert_eq!(
            later.expect("no store error").err(),
            Some(Unanswered::NotARequest(4)),
            "the later end is checked first"
        );
        let earlier = diff_between(Some(3), 5, messages_of, |_| Ok(cache_after(None)));
        let refused = earlier.expect("no store error").err();
        assert_eq!(
            refused,
            Some(Unanswered::NotARequest(3)),
            "a named earlier end must be a request"
        );
        assert_eq!(
            refused.map(Unanswered::code),
            Some("not-a-request"),
            "the code tools see"
        );
    }
}
