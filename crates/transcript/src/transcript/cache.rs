//! Why a transcript's request missed the prompt cache. Each request's reported cache reads are
//! set against what the request before it in the same thread left in the cache, and each
//! shortfall is explained from the journal: a compaction, a rewind or fork, a model change, or
//! a gap longer than the cache's lifetime. A dialect says how two of its requests relate; the
//! arithmetic and the wording are shared.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::RequestRow;

use journalscope_shapes::record_json::Field;

/// How long a cache entry lives unless the request asked for longer (Anthropic and OpenAI).
pub const DEFAULT_TTL_SECONDS: i64 = 5 * 60;
/// The lifetime a request gets when it writes with a one-hour `cache_control`.
pub const LONG_TTL_SECONDS: i64 = 60 * 60;
/// Reads this far short of the expected prefix are not a break: OpenAI caches in steps of
/// 128 tokens, so an unbroken prefix can read up to 127 fewer than the previous prompt held.
pub const TOLERANCE_TOKENS: u64 = 128;

/// What a dialect knows of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheFacts {
    pub seq: u64,
    pub offset: i64,
    /// Requests share a cache only within a thread: the main conversation, or a subagent's.
    pub thread: String,
    pub model: Option<String>,
    /// When the request was sent, in milliseconds since the epoch, when the journal says.
    pub at_ms: Option<i64>,
    pub usage: Option<Value>,
    /// The record of the system prompt and tools the request was sent with, where the
    /// transcript records them.
    pub shape: Option<u64>,
    pub shape_offset: Option<i64>,
    /// The provider's own reason for a miss, where the response gives one.
    pub reported_reason: Option<String>,
}

/// How a request's conversation relates to the previous request's in its thread.
#[derive(Debug, Clone, PartialEq)]
pub enum Lineage {
    /// The previous request's conversation and response are a prefix of this one.
    Extends,
    /// A compaction at `offset` replaced the history in between.
    Compacted { offset: i64 },
    /// The conversation went back: it continues from the line at `from`, before the previous
    /// request (`None`: it starts a new root).
    Rewound { from: Option<i64> },
}

/// Why a request read less from the cache than the request before it left there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[ts(export, rename = "TranscriptCacheCause")]
pub enum CacheCause {
    #[serde(rename_all = "camelCase")]
    Compaction {
        #[ts(type = "number")]
        offset: i64,
    },
    #[serde(rename_all = "camelCase")]
    Rewind {
        #[ts(type = "number | null")]
        from: Option<i64>,
    },
    #[serde(rename_all = "camelCase")]
    ModelChange {
        from: Option<String>,
        to: Option<String>,
    },
    /// The system prompt or the tools changed: they open every request, so nothing after
    /// them could be read from the cache.
    #[serde(rename_all = "camelCase")]
    SystemOrTools {
        #[ts(type = "number | null")]
        from: Option<i64>,
        #[ts(type = "number | null")]
        to: Option<i64>,
    },
    #[serde(rename_all = "camelCase")]
    Expired {
        #[ts(type = "number")]
        gap_seconds: i64,
        #[ts(type = "number")]
        ttl_seconds: i64,
    },
}

impl CacheCause {
    pub fn describe(&self) -> String {
        match self {
            CacheCause::Compaction { offset } => {
                format!("the compaction at @{offset} replaced the history")
            }
            CacheCause::Rewind { from: Some(from) } => {
                format!("the conversation was rewound: it continues from @{from}")
            }
            CacheCause::Rewind { from: None } => "the conversation started over".to_string(),
            CacheCause::ModelChange { from, to } => format!(
                "the model changed from {} to {}: each model has its own cache",
                from.as_deref().unwrap_or("?"),
                to.as_deref().unwrap_or("?")
            ),
            CacheCause::SystemOrTools { from, to } => format!(
                "the system prompt or the tools changed (their record at {} differs from the one \
                 at {}): they come first in every request",
                to.map_or_else(|| "?".to_string(), |o| format!("@{o}")),
                from.map_or_else(|| "?".to_string(), |o| format!("@{o}")),
            ),
            CacheCause::Expired {
                gap_seconds,
                ttl_seconds,
            } => format!(
                "{} since the previous request, longer than the cache's {}",
                duration(*gap_seconds),
                duration(*ttl_seconds)
            ),
        }
    }
}

fn duration(seconds: i64) -> String {
    match seconds {
        s if s < 60 => format!("{s} s"),
        s if s < 3_600 => format!("{} min {} s", s / 60, s % 60),
        s => format!("{} h {} min", s / 3_600, (s % 3_600) / 60),
    }
}

/// One request in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "TranscriptCacheEntry")]
pub struct CacheEntry {
    #[ts(type = "number")]
    pub request_offset: i64,
    #[ts(type = "number | null")]
    pub previous_request: Option<i64>,
    pub thread: String,
    pub model: Option<String>,
    /// Input tokens neither read from nor written to the cache.
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub cache_read_tokens: u64,
    #[ts(type = "number")]
    pub cache_write_tokens: u64,
    /// What the previous request in the thread left in the cache for this one.
    #[ts(type = "number")]
    pub expected_read_tokens: u64,
    /// Expected tokens the cache did not give back, processed again at full price.
    #[ts(type = "number")]
    pub missed_tokens: u64,
    pub broke: bool,
    pub causes: Vec<CacheCause>,
    /// The causes in words, or why none was found.
    pub explanation: String,
    /// The provider's own reason for the miss, as the response gives it (Claude Code writes
    /// the Messages API's `cache_miss_reason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reported_reason: Option<String>,
}

/// Every request of a transcript against the one before it in its thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "TranscriptCacheReport")]
pub struct CacheReport {
    pub requests: Vec<CacheEntry>,
    #[ts(type = "number")]
    pub total_input_tokens: u64,
    #[ts(type = "number")]
    pub total_read_tokens: u64,
    #[ts(type = "number")]
    pub total_write_tokens: u64,
    #[ts(type = "number")]
    pub total_missed_tokens: u64,
    pub breaks: usize,
    /// Breaks the journal explains nothing of.
    pub unexplained_breaks: usize,
}

/// A request's usage in one vocabulary: Anthropic reports cache reads and writes beside the
/// uncached input; OpenAI counts cached tokens inside `input_tokens` and reports no writes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Tokens {
    input: u64,
    read: u64,
    write: u64,
    /// What this request leaves in the cache for the next one.
    leaves: u64,
    one_hour: bool,
}

fn count(usage: &Value, field: &str) -> u64 {
    usage.get(field).and_then(Value::as_u64).unwrap_or(0)
}

impl Tokens {
    fn of(usage: Option<&Value>) -> Tokens {
        let Some(usage) = usage else {
            return Tokens::default();
        };
        if usage.field("cached_input_tokens").is_some() {
            let read = count(usage, "cached_input_tokens");
            let input = count(usage, "input_tokens");
            // The whole prompt is cached for the next request; the provider caches nothing
            // shorter than 1,024 tokens.
            let leaves = if input >= 1_024 { input } else { 0 };
            return Tokens {
                input: input.saturating_sub(read),
                read,
                write: 0,
                leaves,
                one_hour: false,
            };
        }
        let read = count(usage, "cache_read_input_tokens");
        let write = count(usage, "cache_creation_input_tokens");
        let one_hour = usage
            .field("cache_creation")
            .is_some_and(|c| count(c, "ephemeral_1h_input_tokens") > 0);
        Tokens {
            input: count(usage, "input_tokens"),
            read,
            write,
            leaves: read + write,
            one_hour,
        }
    }
}

/// Requests by first-line offset, both ends included; `None` leaves that end open.
pub type Range = (Option<i64>, Option<i64>);

/// The report over the requests in `range` of `requests` (in file order), each still measured
/// against the request before it even when that one lies before the range;
/// `lineage(previous, current)` relates two requests of one thread.
pub fn report<E>(
    requests: impl IntoIterator<Item = Result<CacheFacts, E>>,
    range: Range,
    mut lineage: impl FnMut(&CacheFacts, &CacheFacts) -> Result<Lineage, E>,
) -> Result<CacheReport, E> {
    let mut previous: std::collections::HashMap<String, (CacheFacts, Tokens)> =
        std::collections::HashMap::new();
    let mut report = CacheReport {
        requests: Vec::new(),
        total_input_tokens: 0,
        total_read_tokens: 0,
        total_write_tokens: 0,
        total_missed_tokens: 0,
        breaks: 0,
        unexplained_breaks: 0,
    };
    let within = |offset: i64| {
        range.0.is_none_or(|from| offset >= from) && range.1.is_none_or(|to| offset <= to)
    };
    for facts in requests {
        let facts = facts?;
        if range.1.is_some_and(|to| facts.offset > to) {
            break;
        }
        let tokens = Tokens::of(facts.usage.as_ref());
        if !within(facts.offset) {
            previous.insert(facts.thread.clone(), (facts, tokens));
            continue;
        }
        let entry = match previous.get(&facts.thread) {
            None => entry(&facts, tokens, None, 0, Vec::new()),
            Some((before, left)) => {
                let missed = left.leaves.saturating_sub(tokens.read);
                let causes = if missed > TOLERANCE_TOKENS {
                    causes(before, left, &facts, lineage(before, &facts)?)
                } else {
                    Vec::new()
                };
                let mut e = entry(&facts, tokens, Some(before.offset), left.leaves, causes);
                e.missed_tokens = missed;
                e.broke = missed > TOLERANCE_TOKENS;
                if e.broke {
                    report.breaks += 1;
                    if e.causes.is_empty() {
                        report.unexplained_breaks += 1;
                        e.explanation = match &facts.reported_reason {
                            Some(reason) => format!(
                                "the cache gave back less than the previous request left; the \
                                 transcript records no change that explains it, and the provider \
                                 gave its reason: {reason}"
                            ),
                            None => "the cache gave back less than the previous request left, \
                                     and the transcript records no reason: the system prompt or \
                                     the tools may have changed (a transcript does not record \
                                     them), or the provider evicted the entry early"
                                .to_string(),
                        };
                    }
                }
                e
            }
        };
        report.total_input_tokens += entry.input_tokens;
        report.total_read_tokens += entry.cache_read_tokens;
        report.total_write_tokens += entry.cache_write_tokens;
        report.total_missed_tokens += entry.missed_tokens;
        report.requests.push(entry);
        previous.insert(facts.thread.clone(), (facts, tokens));
    }
    Ok(report)
}

fn entry(
    facts: &CacheFacts,
    tokens: Tokens,
    previous: Option<i64>,
    expected: u64,
    causes: Vec<CacheCause>,
) -> CacheEntry {
    let explanation = causes
        .iter()
        .map(CacheCause::describe)
        .collect::<Vec<_>>()
        .join("; ");
    CacheEntry {
        request_offset: facts.offset,
        previous_request: previous,
        thread: facts.thread.clone(),
        model: facts.model.clone(),
        input_tokens: tokens.input,
        cache_read_tokens: tokens.read,
        cache_write_tokens: tokens.write,
        expected_read_tokens: expected,
        missed_tokens: 0,
        broke: false,
        causes,
        explanation,
        reported_reason: facts.reported_reason.clone(),
    }
}

/// Every recorded reason the cache could not serve `current` what `before` left, the one that
/// changed the conversation first.
fn causes(
    before: &CacheFacts,
    left: &Tokens,
    current: &CacheFacts,
    lineage: Lineage,
) -> Vec<CacheCause> {
    let mut causes = Vec::new();
    match lineage {
        Lineage::Extends => {}
        Lineage::Compacted { offset } => causes.push(CacheCause::Compaction { offset }),
        Lineage::Rewound { from } => causes.push(CacheCause::Rewind { from }),
    }
    if let (Some(then), Some(now)) = (before.shape, current.shape) {
        if then != now {
            causes.push(CacheCause::SystemOrTools {
                from: before.shape_offset,
                to: current.shape_offset,
            });
        }
    }
    if before.model != current.model {
        causes.push(CacheCause::ModelChange {
            from: before.model.clone(),
            to: current.model.clone(),
        });
    }
    if let (Some(then), Some(now)) = (before.at_ms, current.at_ms) {
        let ttl_seconds = if left.one_hour {
            LONG_TTL_SECONDS
        } else {
            DEFAULT_TTL_SECONDS
        };
        let gap_seconds = (now - then) / 1_000;
        if gap_seconds > ttl_seconds {
            causes.push(CacheCause::Expired {
                gap_seconds,
                ttl_seconds,
            });
        }
    }
    causes
}

/// The facts of a request from its stored row (`(seq, row)`); `None` for a row this version
/// cannot read.
fn facts_of((seq, row): (u64, String)) -> Option<CacheFacts> {
    let row: RequestRow = serde_json::from_str(&row).ok()?;
    Some(CacheFacts {
        seq,
        offset: row.offset,
        thread: if row.sidechain { "sidechain" } else { "main" }.to_string(),
        model: row.model,
        at_ms: row.created_at.as_deref().and_then(epoch_ms),
        shape: row.recorded.as_ref().and_then(|r| r.shape),
        shape_offset: row.recorded.as_ref().and_then(|r| r.shape_offset),
        reported_reason: row.cache_miss_reason,
        usage: row.usage,
    })
}

/// Request rows read back at a time while looking for the request before a range.
const ROWS_BACK: u64 = 256;

/// What [`report`] needs of a range: the facts of its requests (`rows`, the stored rows the
/// range covers, in file order), and before them the latest request of each of their threads
/// that comes earlier, found by reading back from the first through `before(seq, count)` (up
/// to `count` rows before record `seq`, the nearest first). A range open at its start is read
/// whole.
pub fn facts_for<E>(
    range: Range,
    rows: Vec<(u64, String)>,
    mut before: impl FnMut(u64, u64) -> Result<Vec<(u64, String)>, E>,
) -> Result<Vec<Result<CacheFacts, E>>, E> {
    let facts: Vec<CacheFacts> = rows.into_iter().filter_map(facts_of).collect();
    let mut earlier: Vec<CacheFacts> = Vec::new();
    if range.0.is_some() {
        let mut wanted: Vec<String> = Vec::new();
        for f in &facts {
            if !wanted.contains(&f.thread) {
                wanted.push(f.thread.clone());
            }
        }
        let mut from = facts.first().map_or(0, |f| f.seq);
        while !wanted.is_empty() && from > 0 {
            let page = before(from, ROWS_BACK)?;
            let Some(last) = page.last().map(|(seq, _)| *seq) else {
                break;
            };
            for f in page.into_iter().filter_map(facts_of) {
                if let Some(at) = wanted.iter().position(|t| *t == f.thread) {
                    wanted.remove(at);
                    earlier.push(f);
                }
            }
            from = last;
        }
        earlier.sort_by_key(|f| f.seq);
    }
    Ok(earlier.into_iter().chain(facts).map(Ok).collect())
}

/// An RFC 3339 timestamp (`2026-02-12T14:48:36.922Z`, or with a `+hh:mm` offset) in
/// milliseconds since the epoch; `None` when it is not one.
pub fn epoch_ms(timestamp: &str) -> Option<i64> {
    let b = timestamp.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = timestamp.get(from..from + len)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    let mut rest = &timestamp[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let first3 = &fraction[..digits.min(3)];
        millis = first3.parse::<i64>().ok()? * 10_i64.pow(3 - first3.len() as u32);
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(&rest[..1], "+" | "-") && &rest[3..4] == ":" => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (rest[1..3].parse::<i64>().ok()? * 60 + rest[4..6].parse::<i64>().ok()?)
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1_000 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(seq: u64, model: &str, at: &str, usage: Value) -> CacheFacts {
        CacheFacts {
            seq,
            offset: seq as i64 + 1,
            thread: "main".to_string(),
            model: Some(model.to_string()),
            at_ms: epoch_ms(at),
            usage: Some(usage),
            shape: None,
            shape_offset: None,
            reported_reason: None,
        }
    }

    fn anthropic(input: u64, write: u64, read: u64) -> Value {
        json!({"input_tokens": input, "cache_creation_input_tokens": write, "cache_read_input_tokens": read})
    }

    #[test]
    fn timestamps_read_as_rfc_3339() {
        assert_eq!(epoch_ms("1970-01-01T00:00:00Z"), Some(0), "the epoch");
        assert_eq!(
            epoch_ms("2026-02-12T14:48:36.922Z"),
            Some(1_770_907_716_922),
            "Claude Code's form, milliseconds kept"
        );
        assert_eq!(
            epoch_ms("2026-02-12T15:48:36.922+01:00"),
            epoch_ms("2026-02-12T14:48:36.922Z"),
            "an offset names the same instant"
        );
        assert_eq!(
            epoch_ms("2025-09-14T10:00:00.123456Z"),
            Some(1_757_844_000_123),
            "Codex's microseconds are cut to milliseconds"
        );
        assert_eq!(epoch_ms("yesterday"), None, "not a timestamp");
        assert_eq!(
            epoch_ms("2026-13-01T00:00:00Z"),
            None,
            "no thirteenth month"
        );
    }

    #[test]
    fn given_requests_that_extend_each_other_when_reported_then_nothing_breaks() {
        let requests = [
            facts(
                0,
                "opus",
                "2026-01-01T00:00:00Z",
                anthropic(3, 8_165, 17_842),
            ),
            facts(
                5,
                "opus",
                "2026-01-01T00:00:10Z",
                anthropic(1, 1_531, 26_007),
            ),
        ];
        let report = report(
            requests.map(Ok::<_, std::convert::Infallible>),
            (None, None),
            |_, _| Ok(Lineage::Extends),
        )
        .expect("report");
        let second = &report.requests[1];
        assert_eq!(
            second.expected_read_tokens, 26_007,
            "what the first request read and wrote is what the second can read"
        );
        assert!(!second.broke && second.causes.is_empty(), "{second:?}");
        assert_eq!(report.breaks, 0, "no break");
        assert_eq!(report.total_read_tokens, 17_842 + 26_007, "reads add up");
    }

    #[test]
    fn given_a_compaction_and_a_model_change_when_the_read_falls_short_then_both_explain_it() {
        let requests = [
            facts(
                0,
                "opus",
                "2026-01-01T00:00:00Z",
                anthropic(3, 1_000, 90_000),
            ),
            facts(9, "haiku", "2026-01-01T00:01:00Z", anthropic(3, 20_000, 0)),
        ];
        let report = report(
            requests.map(Ok::<_, std::convert::Infallible>),
            (None, None),
            |_, _| Ok(Lineage::Compacted { offset: 7 }),
        )
        .expect("report");
        let second = &report.requests[1];
        assert!(second.broke, "91,000 expected, none read");
        assert_eq!(second.missed_tokens, 91_000, "the whole prefix was missed");
        assert_eq!(
            second.causes,
            [
                CacheCause::Compaction { offset: 7 },
                CacheCause::ModelChange {
                    from: Some("opus".into()),
                    to: Some("haiku".into())
                }
            ],
            "the compaction first, then every other recorded reason"
        );
        assert_eq!(report.unexplained_breaks, 0, "both explained");
    }

    #[test]
    fn given_a_gap_longer_than_the_lifetime_then_it_expired_unless_the_write_asked_for_an_hour() {
        let short = anthropic(3, 5_000, 10_000);
        let mut long = short.clone();
        long["cache_creation"] = json!({"ephemeral_1h_input_tokens": 5_000});
        for (usage, expired) in [(short, true), (long, false)] {
            let requests = [
                facts(0, "opus", "2026-01-01T00:00:00Z", usage),
                facts(3, "opus", "2026-01-01T00:06:40Z", anthropic(2, 15_000, 0)),
            ];
            let report = report(
                requests.map(Ok::<_, std::convert::Infallible>),
                (None, None),
                |_, _| Ok(Lineage::Extends),
            )
            .expect("report");
            let second = &report.requests[1];
            assert!(second.broke, "the read fell short either way");
            assert_eq!(
                second.causes.iter().any(|c| matches!(
                    c,
                    CacheCause::Expired {
                        gap_seconds: 400,
                        ttl_seconds: 300
                    }
                )),
                expired,
                "6 min 40 s outlives the 5-minute cache but not the hour: {second:?}"
            );
            assert_eq!(
                report.unexplained_breaks,
                usize::from(!expired),
                "no cause is unexplained"
            );
        }
    }

    #[test]
    fn given_openai_usage_then_cached_tokens_are_inside_the_input_and_small_prompts_are_not_cached()
    {
        let openai =
            |input: u64, cached: u64| json!({"input_tokens": input, "cached_input_tokens": cached});
        let requests = [
            facts(0, "gpt-5", "2026-01-01T00:00:00Z", openai(900, 0)),
            facts(2, "gpt-5", "2026-01-01T00:00:05Z", openai(5_000, 0)),
            facts(4, "gpt-5", "2026-01-01T00:00:09Z", openai(6_000, 4_992)),
        ];
        let report = report(
            requests.map(Ok::<_, std::convert::Infallible>),
            (None, None),
            |_, _| Ok(Lineage::Extends),
        )
        .expect("report");
        assert!(
            !report.requests[1].broke,
            "900 tokens are below the provider's minimum: nothing was left to read"
        );
        let third = &report.requests[2];
        assert_eq!(
            third.input_tokens, 1_008,
            "uncached input is the input less what was cached"
        );
        assert_eq!(third.missed_tokens, 8, "5,000 left, 4,992 read");
        assert!(!third.broke, "within the provider's 128-token steps");
    }

    #[test]
    fn threads_are_compared_within_themselves() {
        let mut sidechain = facts(1, "haiku", "2026-01-01T00:00:01Z", anthropic(3, 2_000, 0));
        sidechain.thread = "sidechain".to_string();
        let requests = [
            facts(
                0,
                "opus",
                "2026-01-01T00:00:00Z",
                anthropic(3, 1_000, 20_000),
            ),
            sidechain,
            facts(4, "opus", "2026-01-01T00:00:30Z", anthropic(3, 500, 21_000)),
        ];
        let report = report(
            requests.map(Ok::<_, std::convert::Infallible>),
            (None, None),
            |_, _| Ok(Lineage::Extends),
        )
        .expect("report");
        assert_eq!(
            report.requests[1].previous_request, None,
            "a subagent's first request"
        );
        assert_eq!(
            report.requests[2].previous_request,
            Some(1),
            "the main thread's next request follows the main thread's last"
        );
        assert_eq!(report.breaks, 0, "no break in either thread");
    }

    /// A stored request row at `seq` (offset `seq + 1`) of one thread.
    fn row(seq: u64, sidechain: bool) -> (u64, String) {
        let row = RequestRow {
            offset: seq as i64 + 1,
            request_id: None,
            message_id: None,
            model: Some("opus".to_string()),
            sidechain,
            usage: Some(anthropic(3, 100, 1_000)),
            created_at: Some("2026-01-01T00:00:00Z".to_string()),
            recorded: None,
            cache_miss_reason: None,
        };
        (seq, serde_json::to_string(&row).expect("row"))
    }

    #[test]
    fn given_a_range_then_only_the_latest_earlier_request_of_each_of_its_threads_is_read_back() {
        // Given a subagent's request at 0, 600 main-thread requests, then the range: one
        // subagent request at 700
        let stored: Vec<(u64, String)> = std::iter::once(row(0, true))
            .chain((1..=600).map(|seq| row(seq, false)))
            .collect();
        let mut pages = 0;
        let before = |seq: u64, count: u64| {
            pages += 1;
            Ok::<_, std::convert::Infallible>(
                stored
                    .iter()
                    .rev()
                    .filter(|(s, _)| *s < seq)
                    .take(count as usize)
                    .cloned()
                    .collect::<Vec<_>>(),
            )
        };
        // When the facts of the range are gathered
        let facts: Vec<CacheFacts> =
            facts_for((Some(701), Some(701)), vec![row(700, true)], before)
                .expect("facts")
                .into_iter()
                .map(|f| f.expect("fact"))
                .collect();
        // Then the subagent's earlier request is found past the main thread's, and nothing else
        let seqs: Vec<u64> = facts.iter().map(|f| f.seq).collect();
        assert_eq!(
            seqs,
            vec![0, 700],
            "the thread's request before, then the range"
        );
        assert_eq!(
            pages, 3,
            "read back a page at a time until the thread's request is found"
        );
        assert_eq!(
            facts[0].at_ms,
            epoch_ms("2026-01-01T00:00:00Z"),
            "the row's time is read"
        );
    }

    #[test]
    fn given_a_range_open_at_its_start_then_nothing_is_read_back() {
        let facts = facts_for((None, Some(3)), vec![row(2, false)], |_, _| {
            Err::<Vec<(u64, String)>, &str>("a range from the first request reads nothing back")
        })
        .expect("facts");
        assert_eq!(facts.len(), 1, "only the range");
    }
}
