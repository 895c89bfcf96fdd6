//! The subagents a session ran: each Task (or Agent) call, the result the session got back,
//! and where the subagent's own lines are: inline in the session (1.0.x), or in an agent file
//! beside it (`agent-<id>.jsonl`, 2.0.x) or under it (`<session>/subagents/`, 2.1.x).

use std::path::Path;

use serde_json::Value;

use super::fold::{RESULT, SPAWNED};
use super::line::Line;
use journalscope_shapes::record_json::Field;
use journalscope_store::store::{JournalRow, Store, StoreError};
pub use journalscope_transcript::transcript::{SpawnedBy, Subagent};

/// The mark on a line whose tool result names the agent that produced it.
pub const SUBAGENT: &str = "subagent";

/// Every subagent of the session in file order of its call (or result, when the call is not in
/// the file). Reads only the lines the fold marked or linked, never the whole session.
pub fn subagents(store: &Store, journal: &JournalRow) -> Result<Vec<Subagent>, StoreError> {
    let mut found = Vec::new();
    for (mark, bytes) in store.marked_records(journal.id, &[SUBAGENT])? {
        let Some(value) = journalscope_shapes::record_json::value(&bytes) else {
            continue;
        };
        let Some(line) = Line::of(&value) else {
            continue;
        };
        let Some(agent) = line.spawned_agent() else {
            continue;
        };
        let tool_use_id = line.tool_results().next().map(str::to_string);
        let mut call = None;
        for seq in store.links_to(journal.id, RESULT, mark.seq)? {
            if let Some(found) = call_in(store, journal.id, seq, tool_use_id.as_deref())? {
                call = Some(found);
                break;
            }
        }
        found.push(Subagent {
            call_offset: call.as_ref().map(|c| c.0),
            tool_use_id,
            description: call.and_then(|c| c.1),
            result_offset: offset(store, journal.id, mark.seq)?,
            agent_id: Some(agent.to_string()),
            path: agent_file(&journal.source_path, agent),
            root_offset: None,
        });
    }
    for (task, root) in store.links_of_kind(journal.id, SPAWNED)? {
        let call = call_in(store, journal.id, task, None)?;
        let result = store
            .links_from(journal.id, RESULT, task)?
            .into_iter()
            .next();
        found.push(Subagent {
            call_offset: call.as_ref().map(|c| c.0),
            tool_use_id: None,
            description: call.and_then(|c| c.1),
            result_offset: match result {
                Some(seq) => offset(store, journal.id, seq)?,
                None => None,
            },
            agent_id: None,
            path: None,
            root_offset: offset(store, journal.id, root)?,
        });
    }
    found.sort_by_key(|s| (s.call_offset.or(s.result_offset), s.result_offset));
    Ok(found)
}

fn offset(store: &Store, journal_id: i64, seq: u64) -> Result<Option<i64>, StoreError> {
    Ok(store.event(journal_id, seq)?.and_then(|e| e.offset))
}

/// The offset of the line at `seq` and the description of its Task call `id` (any Task call
/// when `id` is `None`); `None` when the line makes no such call.
fn call_in(
    store: &Store,
    journal_id: i64,
    seq: u64,
    id: Option<&str>,
) -> Result<Option<(i64, Option<String>)>, StoreError> {
    let Some(event) = store.event(journal_id, seq)? else {
        return Ok(None);
    };
    let Some(value) = event.json() else {
        return Ok(None);
    };
    let Some(line) = Line::of(&value) else {
        return Ok(None);
    };
    let call = line.tool_calls().find(|call| {
        let task = matches!(
            call.field("name").and_then(Value::as_str),
            Some("Task" | "Agent")
        );
        task && id.is_none_or(|id| call.field("id").and_then(Value::as_str) == Some(id))
    });
    Ok(call.and_then(|call| {
        let description = call
            .field("input")
            .and_then(|i| i.field("description"))
            .and_then(Value::as_str)
            .map(str::to_string);
        event.offset.map(|offset| (offset, description))
    }))
}

/// The agent's file: beside the session (2.0.x) or in the session's `subagents` directory
/// (2.1.x), whichever exists.
fn agent_file(session: &str, agent: &str) -> Option<String> {
    let session = Path::new(session);
    let dir = session.parent()?;
    let name = format!("agent-{agent}.jsonl");
    let stem = session.file_stem()?;
    [
        dir.join(&name),
        dir.join(stem).join("subagents").join(&name),
    ]
    .into_iter()
    .find(|path| path.is_file())
    .map(|path| path.to_string_lossy().into_owned())
}

/// The session that ran this subagent's transcript: the session file its agent file sits
/// under (`<session>/subagents/`, 2.1.x) or beside (2.0.x, named by the lines' `sessionId`).
pub fn spawned_by(store: &Store, journal: &JournalRow) -> Result<Option<SpawnedBy>, StoreError> {
    let path = Path::new(&journal.source_path);
    let Some(agent) = path
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.strip_prefix("agent-"))
    else {
        return Ok(None);
    };
    let Some(folder) = path.parent() else {
        return Ok(None);
    };
    let first = store.event(journal.id, 0)?.and_then(|r| r.json());
    let session = first
        .as_ref()
        .and_then(|v| v.field("sessionId"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let under = folder
        .file_name()
        .is_some_and(|n| n == "subagents")
        .then(|| folder.parent())
        .flatten();
    let candidate = match (under, &session) {
        (Some(session_folder), _) => session_folder
            .parent()
            .zip(session_folder.file_name())
            .map(|(dir, name)| dir.join(format!("{}.jsonl", name.to_string_lossy()))),
        (None, Some(session)) => Some(folder.join(format!("{session}.jsonl"))),
        (None, None) => None,
    };
    Ok(Some(SpawnedBy {
        path: candidate
            .filter(|p| p.is_file())
            .map(|p| p.to_string_lossy().into_owned()),
        parent_id: session,
        agent_id: Some(agent.to_string()),
    }))
}
