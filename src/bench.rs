//! Synthetic journals and timings for `journalscope bench`: speed targets live here, measured
//! on demand, never in timed unit tests.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::iterate::Transport;
use crate::journal::{EventQuery, Journal, JournalError};

/// Writes an iterate journal of `events` events: a system prompt, then a repeating turn of user
/// input, keyed integration updates, a request and an answer, with a compaction every
/// `compact_every` requests.
pub fn write_synthetic(
    out: &mut dyn Write,
    events: u64,
    compact_every: u64,
) -> std::io::Result<()> {
    let mut offset = 0i64;
    let mut written = 0u64;
    let mut requests = 0u64;
    let mut last_request = None;
    let line = |out: &mut dyn Write, offset: i64, body: String| -> std::io::Result<()> {
        writeln!(
            out,
            r#"{{"offset":{offset},"type":"events.iterate.com/agent/{body},"createdAt":"2026-11-20T09:00:00.000Z","path":"/agents/bench"}}"#
        )
    };
    while written < events {
        offset += 1;
        let body = match (written, written % 6) {
            (0, _) => r#"context-added","payload":{"role":"system","key":"agent/system-prompt","content":"You are a benchmark agent."}"#.to_string(),
            (_, 1) => format!(r#"context-added","payload":{{"role":"user","actor":{{"type":"user","origin":"web"}},"content":"Question number {offset}: what changed?"}}"#),
            (_, 2) | (_, 3) => format!(r#"context-added","payload":{{"role":"developer","actor":{{"type":"github","login":"bot"}},"key":"github/task-{}","content":"Status update {offset} for the running task."}}"#, offset % 7),
            (_, 4) => {
                requests += 1;
                last_request = Some(offset);
                r#"llm-request-requested","payload":{"model":"bench-model"}"#.to_string()
            }
            (_, 5) => {
                let request = last_request.unwrap_or(offset - 1);
                format!(r#"context-added","payload":{{"role":"assistant","llmRequestOffset":{request},"content":"Answer to request {request}."}}"#)
            }
            _ if compact_every > 0 && requests > 0 && requests.is_multiple_of(compact_every) => {
                let cutoff = last_request.unwrap_or(offset - 1);
                requests += 1;
                format!(r#"context-added","payload":{{"role":"developer","content":"Summary through {cutoff}.","compaction":{{"replacesHistoryThrough":{cutoff},"usage":{{"inputTokens":1000,"outputTokens":100}}}}}}"#)
            }
            _ => r#"token-usage-reported","payload":{"llmRequestOffset":1,"model":"bench-model","maxContextTokens":128000,"inputTokens":1000,"outputTokens":10}"#.to_string(),
        };
        line(out, offset, body)?;
        written += 1;
        // Ephemeral chunks consume offsets without appearing in the journal.
        if written.is_multiple_of(50) {
            offset += 3;
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchReport {
    pub events: u64,
    pub file_bytes: u64,
    pub import_ms: f64,
    pub import_events_per_second: f64,
    pub reopen_ms: f64,
    pub projection_at_end_ms: f64,
    pub request_render_ms: f64,
    pub event_page_ms: f64,
    pub filtered_event_page_ms: f64,
    pub database_bytes: u64,
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// Generates a journal of `events` events in `dir`, imports it and times the common views.
pub fn run(dir: &Path, events: u64) -> Result<BenchReport, JournalError> {
    let journal_path = dir.join(format!("bench-{events}.jsonl"));
    let db_path = dir.join(format!("bench-{events}.sqlite"));
    let io = |source| JournalError::Demo {
        path: journal_path.clone(),
        source,
    };
    {
        let file = std::fs::File::create(&journal_path).map_err(io)?;
        let mut out = std::io::BufWriter::new(file);
        write_synthetic(&mut out, events, 40).map_err(io)?;
        out.flush().map_err(io)?;
    }
    let _ = std::fs::remove_file(&db_path);
    let file_bytes = std::fs::metadata(&journal_path).map_err(io)?.len();

    let mut quiet = |_| {};
    let start = Instant::now();
    let journal = Journal::open(
        &journal_path,
        Some(&db_path),
        &mut crate::import::ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )?;
    let import_ms = ms(start);
    drop(journal);

    let start = Instant::now();
    let journal = Journal::open(
        &journal_path,
        Some(&db_path),
        &mut crate::import::ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )?;
    let reopen_ms = ms(start);

    let last = journal.info()?.last_offset.unwrap_or(0);
    let start = Instant::now();
    let _ = journal.projection(last)?;
    let projection_at_end_ms = ms(start);

    let last_request = journal.requests()?.last().map(|r| r.offset);
    let start = Instant::now();
    if let Some(request) = last_request {
        let _ = journal.request_body(request, Transport::Openai)?;
    }
    let request_render_ms = ms(start);

    let middle = journal.info()?.event_count / 2;
    let start = Instant::now();
    let _ = journal.events_page(&EventQuery {
        start: middle,
        limit: 200,
        ..EventQuery::default()
    })?;
    let event_page_ms = ms(start);

    let start = Instant::now();
    let _ = journal.events_page(&EventQuery {
        text: Some("question number 4".to_string()),
        start: 0,
        limit: 200,
        ..EventQuery::default()
    })?;
    let filtered_event_page_ms = ms(start);

    let database_bytes = std::fs::metadata(&db_path).map(|m| m.len()).unwrap_or(0);
    Ok(BenchReport {
        events,
        file_bytes,
        import_ms,
        import_events_per_second: events as f64 / (import_ms / 1000.0),
        reopen_ms,
        projection_at_end_ms,
        request_render_ms,
        event_page_ms,
        filtered_event_page_ms,
        database_bytes,
    })
}
