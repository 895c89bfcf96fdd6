//! The SQL console: questions the UI does not ask, answered by SQLite over read-only views of
//! one journal.
//!
//! Each query runs on its own connection opened `SQLITE_OPEN_READ_ONLY`, with `PRAGMA
//! query_only` on and an authorizer that allows reading and nothing else (no writes, no
//! `ATTACH`, no `PRAGMA`, no transactions), so a console query can never change the journal's
//! database. Views, all scoped to the journal shown: `events`, `requests`, `compactions`,
//! `diagnostics`, `marks`, `bookmarks`, and `items`, the projection at the offset asked for
//! (a temporary table filled before the query runs). Rows are capped and a query that runs
//! too long is interrupted.

use journalscope_registry::dialect::Registered as _;
use std::time::{Duration, Instant};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, ErrorCode, OpenFlags};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::journal::{Journal, JournalError};

pub const DEFAULT_MAX_ROWS: u64 = 1_000;
pub const DEFAULT_TIMEOUT_MS: u64 = 2_000;

/// The tables and views a console query can read, with their columns, for the help text.
pub const VIEWS: &[(&str, &str)] = &[
    ("events", "seq, offset, type, created_at, summary, raw, line, byte_start, byte_len"),
    ("requests", "seq, offset, model, created_at, published_through, newly_published, items, compactions_before"),
    ("compactions", "seq, offset, cutoff, note"),
    ("diagnostics", "seq, offset, line, severity, code, message, stage"),
    ("marks", "seq, kind, note"),
    ("bookmarks", "seq, offset, note, created_at"),
    ("items", "lane, position, offset, seq, role, actor, key, updates_offset, published, openai_role, workers_ai_role, header, content"),
];

#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    #[error("refused: the console only reads ({0})")]
    Refused(String),
    #[error("interrupted after {0} ms")]
    Interrupted(u64),
    #[error("{0}")]
    Sql(String),
    #[error("cannot open the database read-only: {0}")]
    Open(String),
    #[error(transparent)]
    Journal(#[from] JournalError),
}

impl ConsoleError {
    pub fn code(&self) -> &'static str {
        match self {
            ConsoleError::Refused(_) => "refused",
            ConsoleError::Interrupted(_) => "interrupted",
            ConsoleError::Sql(_) => "sql",
            ConsoleError::Open(_) => "database",
            ConsoleError::Journal(e) => e.code(),
        }
    }

    fn from_sql(error: rusqlite::Error, timeout_ms: u64) -> ConsoleError {
        match error.sqlite_error_code() {
            Some(ErrorCode::AuthorizationForStatementDenied) | Some(ErrorCode::ReadOnly) => {
                ConsoleError::Refused(error.to_string())
            }
            Some(ErrorCode::OperationInterrupted) => ConsoleError::Interrupted(timeout_ms),
            _ => match error {
                rusqlite::Error::MultipleStatement => {
                    ConsoleError::Refused("one statement at a time".to_string())
                }
                // A write through a view fails before the authorizer is asked.
                e if e.to_string().contains("cannot modify") => {
                    ConsoleError::Refused(e.to_string())
                }
                e => ConsoleError::Sql(e.to_string()),
            },
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConsoleQuery {
    pub sql: String,
    /// The offset whose projection fills `items`; the end of the journal when absent.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub at: Option<i64>,
    #[serde(default)]
    #[ts(type = "number | null")]
    pub max_rows: Option<u64>,
    #[serde(default)]
    #[ts(type = "number | null")]
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConsoleResult {
    pub columns: Vec<String>,
    #[ts(type = "unknown[][]")]
    pub rows: Vec<Vec<Value>>,
    /// More rows matched than `maxRows`.
    pub truncated: bool,
}

/// A read-only connection with the journal's views in place.
pub struct Console {
    conn: Connection,
}

fn sql_err(e: rusqlite::Error) -> ConsoleError {
    ConsoleError::Sql(e.to_string())
}

fn reading_only(context: AuthContext<'_>) -> Authorization {
    match context.action {
        AuthAction::Select
        | AuthAction::Read { .. }
        | AuthAction::Function { .. }
        | AuthAction::Recursive => Authorization::Allow,
        _ => Authorization::Deny,
    }
}

impl Console {
    /// Opens the journal's database read-only and sets up its views, with `items` holding the
    /// projection at `at`.
    pub fn open(journal: &Journal, at: Option<i64>) -> Result<Console, ConsoleError> {
        let conn = Connection::open_with_flags(
            journal.db_path(),
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| ConsoleError::Open(e.to_string()))?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(sql_err)?;
        // The records' bytes and summaries are stored compressed; `raw` and `summary` read
        // them through these functions.
        journalscope_store::store::register_record_functions(&conn, journal.db_path())
            .map_err(|e| ConsoleError::Open(e.to_string()))?;
        let id = journal.row().id;
        conn.execute_batch(&format!(
            "CREATE TEMP VIEW events AS
               SELECT seq, offset, type, created_at, summary, CAST(raw AS TEXT) AS raw, line,
                      byte_start, byte_len
               FROM main.event_records WHERE journal_id = {id};
             CREATE TEMP VIEW diagnostics AS
               SELECT seq, offset, line, severity, code, message, 'read' AS stage
                 FROM main.read_diagnostics WHERE journal_id = {id}
               UNION ALL
               SELECT seq, offset, line, severity, code, message, 'fold' AS stage
                 FROM main.fold_diagnostics WHERE journal_id = {id};
             CREATE TEMP VIEW marks AS
               SELECT seq, kind, note FROM main.marks WHERE journal_id = {id};
             CREATE TEMP VIEW compactions AS
               SELECT m.seq, e.offset,
                      json_extract(CAST(e.raw AS TEXT), '$.payload.compaction.replacesHistoryThrough') AS cutoff,
                      m.note
               FROM main.marks m
               JOIN main.event_records e ON e.journal_id = m.journal_id AND e.seq = m.seq
               WHERE m.journal_id = {id} AND m.kind = 'compaction';
             CREATE TEMP VIEW bookmarks AS
               SELECT seq, offset, note, created_at FROM main.bookmarks WHERE journal_id = {id};
             CREATE TEMP TABLE items (lane TEXT, position INTEGER, offset INTEGER, seq INTEGER,
               role TEXT, actor TEXT, key TEXT, updates_offset INTEGER, published INTEGER,
               openai_role TEXT, workers_ai_role TEXT, header TEXT, content TEXT);"
        ))
        .map_err(sql_err)?;
        let dialect = journal.dialect();
        if dialect.offers(journalscope_registry::dialect::View::Requests) {
            // The analysis keeps a row per request: the view reads them where they are, where
            // copying them took seconds at a million events before any statement ran.
            conn.execute_batch(&format!(
                "CREATE TEMP VIEW requests AS
                   SELECT seq, json_extract(row, '$.offset') AS offset,
                          json_extract(row, '$.model') AS model,
                          json_extract(row, '$.createdAt') AS created_at,
                          json_extract(row, '$.publishedThrough') AS published_through,
                          json_extract(row, '$.newlyPublished') AS newly_published,
                          json_extract(row, '$.items') AS items,
                          json_extract(row, '$.compactionsBefore') AS compactions_before
                   FROM main.request_rows WHERE journal_id = {id};"
            ))
            .map_err(sql_err)?;
        } else {
            conn.execute_batch(
                "CREATE TEMP TABLE requests (seq INTEGER, offset INTEGER, model TEXT,
                   created_at TEXT, published_through INTEGER, newly_published INTEGER,
                   items INTEGER, compactions_before INTEGER);",
            )
            .map_err(sql_err)?;
        }
        if dialect.offers(journalscope_registry::dialect::View::Projection) {
            let view = journal.projection(at.unwrap_or(i64::MAX))?;
            let mut insert = conn
                .prepare(
                    "INSERT INTO temp.items VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                )
                .map_err(sql_err)?;
            for (lane, items) in [("system", &view.system), ("history", &view.history)] {
                for (position, item) in items.iter().enumerate() {
                    insert
                        .execute(params![
                            lane,
                            position as i64,
                            item.offset,
                            journal.seq_of_offset(item.offset)?.map(|s| s as i64),
                            item.role.as_str(),
                            item.actor.as_ref().map(Value::to_string),
                            item.key,
                            item.updates_offset,
                            item.published,
                            item.provider_roles.openai.role.as_str(),
                            item.provider_roles.workers_ai.role.as_str(),
                            item.header,
                            item.content,
                        ])
                        .map_err(sql_err)?;
                }
            }
        }
        conn.pragma_update(None, "query_only", true)
            .map_err(sql_err)?;
        Ok(Console { conn })
    }

    /// Runs one read-only statement, returning at most `max_rows` rows.
    pub fn query(
        &mut self,
        sql: &str,
        bind: &[&dyn rusqlite::ToSql],
        max_rows: u64,
        timeout_ms: u64,
    ) -> Result<ConsoleResult, ConsoleError> {
        // The authorizer judges a statement while it is prepared: installed only now, it
        // guards exactly the user's statement and not the views set up in `open`.
        self.conn.authorizer(Some(reading_only)).map_err(sql_err)?;
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        self.conn
            .progress_handler(1_000, Some(move || Instant::now() > deadline))
            .map_err(sql_err)?;
        let outcome = run_statement(&self.conn, sql, bind, max_rows, timeout_ms);
        self.conn
            .progress_handler(0, None::<fn() -> bool>)
            .map_err(sql_err)?;
        self.conn
            .authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
            .map_err(sql_err)?;
        outcome
    }
}

fn run_statement(
    conn: &Connection,
    sql: &str,
    bind: &[&dyn rusqlite::ToSql],
    max_rows: u64,
    timeout_ms: u64,
) -> Result<ConsoleResult, ConsoleError> {
    let failed = |e| ConsoleError::from_sql(e, timeout_ms);
    let keyword = first_keyword(sql).to_ascii_uppercase();
    if !["SELECT", "WITH", "VALUES", "EXPLAIN"].contains(&keyword.as_str()) {
        return Err(ConsoleError::Refused(format!(
            "{} is not a query: use SELECT, WITH, VALUES or EXPLAIN",
            if keyword.is_empty() {
                "nothing"
            } else {
                &keyword
            }
        )));
    }
    let mut stmt = conn.prepare(sql).map_err(failed)?;
    if !stmt.readonly() {
        return Err(ConsoleError::Refused(
            "the statement would write".to_string(),
        ));
    }
    let columns: Vec<String> = stmt.column_names().map(|c| c.to_string()).collect();
    let width = columns.len();
    let mut result = ConsoleResult {
        columns,
        rows: Vec::new(),
        truncated: false,
    };
    let mut rows = stmt.query(bind).map_err(failed)?;
    while let Some(row) = rows.next().map_err(failed)? {
        if result.rows.len() as u64 >= max_rows {
            result.truncated = true;
            break;
        }
        let mut cells = Vec::with_capacity(width);
        for i in 0..width {
            cells.push(cell(row.get_ref(i).map_err(failed)?));
        }
        result.rows.push(cells);
    }
    Ok(result)
}

/// The statement's first word, after whitespace and comments.
fn first_keyword(sql: &str) -> &str {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, tail)| tail);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, tail)| tail);
        } else {
            break;
        }
    }
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    &rest[..end]
}

fn cell(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::String(String::from_utf8_lossy(t).into_owned())
        }
    }
}

impl Journal {
    /// Runs a console query over this journal's read-only views.
    pub fn sql(&self, query: &ConsoleQuery) -> Result<ConsoleResult, ConsoleError> {
        let mut console = Console::open(self, query.at)?;
        console.query(
            &query.sql,
            &[],
            query.max_rows.unwrap_or(DEFAULT_MAX_ROWS),
            query.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
        )
    }
}

/// The result as a plain text table (cells on one line, long ones cut), for the CLI.
pub fn render_table(result: &ConsoleResult) -> String {
    const WIDEST: usize = 60;
    let text = |v: &Value| -> String {
        let full = match v {
            Value::Null => "NULL".to_string(),
            Value::String(s) => s.replace('\n', "⏎"),
            other => other.to_string(),
        };
        if full.chars().count() > WIDEST {
            let cut: String = full.chars().take(WIDEST - 1).collect();
            format!("{cut}…")
        } else {
            full
        }
    };
    let cells: Vec<Vec<String>> = result
        .rows
        .iter()
        .map(|row| row.iter().map(text).collect())
        .collect();
    let mut widths: Vec<usize> = result.columns.iter().map(|c| c.chars().count()).collect();
    for row in &cells {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |row: &[String]| -> String {
        let padded: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
            .collect();
        padded.join(" | ").trim_end().to_string()
    };
    let mut out = line(&result.columns);
    out.push('\n');
    out.push_str(
        &widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("-+-"),
    );
    out.push('\n');
    for row in &cells {
        out.push_str(&line(row));
        out.push('\n');
    }
    let plural = if cells.len() == 1 { "" } else { "s" };
    out.push_str(&format!(
        "({} row{plural}{})\n",
        cells.len(),
        if result.truncated { ", truncated" } else { "" }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_keyword_skips_whitespace_and_comments() {
        assert_eq!(first_keyword("  select 1"), "select", "leading space");
        assert_eq!(
            first_keyword("-- note\n/* x */ WITH r AS (SELECT 1) SELECT * FROM r"),
            "WITH",
            "comments"
        );
        assert_eq!(first_keyword("-- only a comment"), "", "nothing left");
        assert_eq!(
            first_keyword("DELETE FROM events"),
            "DELETE",
            "a write is seen as one"
        );
    }
}
