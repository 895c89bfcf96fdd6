//! The subagents a Codex thread spawned and the thread a subagent's rollout was spawned by:
//! each `spawn_agent` call, the output that names the child's thread (`{"agent_id": …}`, 0.1xx
//! multi-agent v1) or a `collab_agent_spawn_end` event (`new_thread_id`, 0.102 to 0.128), and the
//! child's rollout file, found by its thread id where Codex keeps its sessions; the other way, a
//! child's `session_meta.parent_thread_id`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use journalscope_shapes::record_json::Field;
use journalscope_store::derived::Mark;
use journalscope_store::store::{JournalRow, Store, StoreError};
use journalscope_transcript::transcript::{SpawnedBy, Subagent};

/// The mark on a line that names a thread this one spawned.
pub const SUBAGENT: &str = "subagent";
/// The mark on a `spawn_agent` call.
pub const SPAWN: &str = "spawn";

/// Rollout files looked at, at most, while finding a thread's file.
const FILES_LOOKED_AT: usize = 50_000;

/// The marks a rollout line gets for the spawning of subagents: a `spawn_agent` call, or the
/// line that names the spawned thread.
pub fn marks(seq: u64, value: &Value) -> Option<Mark> {
    let payload = value.field("payload")?;
    let kind = payload.field("type").and_then(Value::as_str)?;
    match kind {
        "function_call" if payload.field("name").and_then(Value::as_str) == Some("spawn_agent") => {
            Some(Mark {
                seq,
                kind: SPAWN.to_string(),
                note: format!(
                    "spawn_agent {}",
                    payload
                        .field("call_id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                ),
            })
        }
        "function_call_output" => {
            let output = payload.field("output").and_then(Value::as_str)?;
            if !output.contains("\"agent_id\"") {
                return None;
            }
            let parsed: Value = serde_json::from_str(output).ok()?;
            let agent = parsed.field("agent_id").and_then(Value::as_str)?;
            Some(Mark {
                seq,
                kind: SUBAGENT.to_string(),
                note: format!("subagent {agent}"),
            })
        }
        "collab_agent_spawn_end" => {
            let agent = payload.field("new_thread_id").and_then(Value::as_str)?;
            Some(Mark {
                seq,
                kind: SUBAGENT.to_string(),
                note: format!("subagent {agent}"),
            })
        }
        _ => None,
    }
}

/// The child thread a marked line names, its nickname and the call it answers.
fn spawned(value: &Value) -> Option<(String, Option<String>, Option<String>)> {
    let payload = value.field("payload")?;
    let call = payload
        .field("call_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    if payload.field("type").and_then(Value::as_str) == Some("collab_agent_spawn_end") {
        let agent = payload.field("new_thread_id")?.as_str()?.to_string();
        let nickname = payload
            .field("new_agent_nickname")
            .and_then(Value::as_str)
            .map(str::to_string);
        return Some((agent, nickname, call));
    }
    let output: Value = serde_json::from_str(payload.field("output")?.as_str()?).ok()?;
    let agent = output.field("agent_id")?.as_str()?.to_string();
    let nickname = output
        .field("nickname")
        .and_then(Value::as_str)
        .map(str::to_string);
    Some((agent, nickname, call))
}

/// Every subagent the thread spawned, in the order of the lines naming them. Reads only the
/// marked lines.
pub fn subagents(store: &Store, journal: &JournalRow) -> Result<Vec<Subagent>, StoreError> {
    let mut calls = Vec::new();
    for (mark, bytes) in store.marked_records(journal.id, &[SPAWN])? {
        let Some(value) = journalscope_shapes::record_json::value(&bytes) else {
            continue;
        };
        let payload = value.field("payload").unwrap_or(&Value::Null);
        let id = payload
            .field("call_id")
            .and_then(Value::as_str)
            .map(str::to_string);
        let message = payload
            .field("arguments")
            .and_then(Value::as_str)
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
            .and_then(|a| {
                a.field("message")
                    .or_else(|| a.field("task_name"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
        calls.push((mark.seq, id, message));
    }
    let mut found = Vec::new();
    for (mark, bytes) in store.marked_records(journal.id, &[SUBAGENT])? {
        let Some(value) = journalscope_shapes::record_json::value(&bytes) else {
            continue;
        };
        let Some((agent, nickname, call_id)) = spawned(&value) else {
            continue;
        };
        // The newest spawn call before the line with its call id.
        let call = calls
            .iter()
            .filter(|(seq, id, _)| *seq < mark.seq && *id == call_id)
            .max_by_key(|(seq, ..)| *seq);
        let description = match (nickname, call.and_then(|c| c.2.clone())) {
            (Some(name), Some(message)) => Some(format!("{name}: {message}")),
            (name, message) => name.or(message),
        };
        found.push(Subagent {
            call_offset: match call {
                Some((seq, ..)) => offset(store, journal.id, *seq)?,
                None => None,
            },
            tool_use_id: call_id,
            description,
            result_offset: offset(store, journal.id, mark.seq)?,
            path: thread_file(&journal.source_path, &agent),
            agent_id: Some(agent),
            root_offset: None,
        });
    }
    found.sort_by_key(|s| (s.call_offset.or(s.result_offset), s.result_offset));
    Ok(found)
}

/// The thread that spawned this rollout's, as its first `session_meta` line names it.
pub fn spawned_by(store: &Store, journal: &JournalRow) -> Result<Option<SpawnedBy>, StoreError> {
    let Some((_, bytes)) = store
        .marked_records(journal.id, &[super::SESSION])?
        .into_iter()
        .min_by_key(|(mark, _)| mark.seq)
    else {
        return Ok(None);
    };
    let Some(value) = journalscope_shapes::record_json::value(&bytes) else {
        return Ok(None);
    };
    let payload = value.field("payload").unwrap_or(&Value::Null);
    let Some(parent) = payload.field("parent_thread_id").and_then(Value::as_str) else {
        return Ok(None);
    };
    let own = payload
        .field("id")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Some(SpawnedBy {
        path: thread_file(&journal.source_path, parent),
        parent_id: Some(parent.to_string()),
        agent_id: own,
    }))
}

fn offset(store: &Store, journal_id: i64, seq: u64) -> Result<Option<i64>, StoreError> {
    Ok(store.event(journal_id, seq)?.and_then(|e| e.offset))
}

/// The rollout of thread `id`: a `rollout-<time>-<id>.jsonl` beside `beside`, else anywhere
/// under the sessions folder it sits in (`sessions/YYYY/MM/DD/`).
pub fn thread_file(beside: &str, id: &str) -> Option<String> {
    let suffix = format!("-{id}.jsonl");
    let folder = Path::new(beside).parent()?;
    let matches = |path: &Path| {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&suffix))
    };
    let beside_files = std::fs::read_dir(folder).into_iter().flatten().flatten();
    if let Some(found) = beside_files.map(|e| e.path()).find(|p| matches(p)) {
        return Some(found.to_string_lossy().into_owned());
    }
    // Up to the sessions folder: three levels when the file sits in a dated folder.
    let dated = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let mut root: PathBuf = folder.to_path_buf();
    for _ in 0..3 {
        if !dated(&root) {
            break;
        }
        root = root.parent()?.to_path_buf();
    }
    if root == folder {
        return None;
    }
    let mut pending = vec![root];
    let mut looked = 0;
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            looked += 1;
            if looked > FILES_LOOKED_AT {
                return None;
            }
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if matches(&path) {
                return Some(path.to_string_lossy().into_owned());
            }
        }
    }
    None
}
