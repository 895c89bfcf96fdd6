//! IPC commands for search, the SQL console, breakpoints and bookmarks: thin adapters over the
//! core (`Journal::search`, `Journal::sql`, `Breakpoint::run`, bookmarks),
//! each error mapped to `{code, message}`. Kept apart from `commands.rs` so the views other
//! branches add there do not collide with these.

use journalscope_document::bookmark::Bookmark;
use journalscope_document::breakpoint::{Breakpoint, BreakpointHit};
use journalscope_document::console::{ConsoleQuery, ConsoleResult};
use journalscope_document::search::{SearchQuery, SearchResult};
use tauri::State;

use crate::commands::Session;
use crate::ipc::IpcError;

#[tauri::command]
pub async fn search(
    session: State<'_, Session>,
    query: SearchQuery,
) -> Result<SearchResult, IpcError> {
    session.with(|j| j.search(&query))
}

#[tauri::command]
pub async fn sql_query(
    session: State<'_, Session>,
    query: ConsoleQuery,
) -> Result<ConsoleResult, IpcError> {
    let guard = session.lock();
    let journal = guard.as_ref().ok_or_else(IpcError::no_journal)?;
    journal
        .sql(&query)
        .map_err(|e| IpcError::new(e.code(), e.to_string()))
}

/// Runs from the selected event (`from`, a seq; none: from an end) to the breakpoint's next or
/// previous hit.
#[tauri::command]
pub async fn run_breakpoint(
    session: State<'_, Session>,
    breakpoint: Breakpoint,
    from: Option<u64>,
    forward: bool,
) -> Result<Option<BreakpointHit>, IpcError> {
    let guard = session.lock();
    let journal = guard.as_ref().ok_or_else(IpcError::no_journal)?;
    breakpoint
        .run(journal, from, forward)
        .map_err(|e| IpcError::new(e.code(), e.to_string()))
}

#[tauri::command]
pub async fn bookmarks(session: State<'_, Session>) -> Result<Vec<Bookmark>, IpcError> {
    session.with(|j| j.bookmarks())
}

#[tauri::command]
pub async fn set_bookmark(
    session: State<'_, Session>,
    seq: u64,
    note: String,
) -> Result<Bookmark, IpcError> {
    session.with(|j| j.set_bookmark(seq, &note))
}

#[tauri::command]
pub async fn remove_bookmark(session: State<'_, Session>, seq: u64) -> Result<bool, IpcError> {
    session.with(|j| j.remove_bookmark(seq))
}
