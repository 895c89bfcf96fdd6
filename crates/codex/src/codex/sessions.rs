//! Finding Codex's sessions: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (or
//! `$CODEX_HOME/sessions`), each described from its first lines: the directory it worked in
//! and the first thing the user asked. The uuid in the name is the session's id.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::SystemTime;

use serde_json::Value;

use journalscope_shapes::record_json::Field;
use journalscope_store::derived::Dialect;
use journalscope_transcript::transcript::{agent_folder, one_line, Session, SessionPlace};

/// Where Codex keeps its rollouts.
pub fn root() -> Option<PathBuf> {
    root_in(std::env::var_os("CODEX_HOME"), std::env::var_os("HOME"))
}

/// The rollouts' folder under `CODEX_HOME`, else under the home folder.
fn root_in(codex_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    agent_folder(codex_home, home, "sessions", ".codex/sessions")
}

/// Where the sessions `list` finds are kept, and by which agent.
pub fn place() -> Option<SessionPlace> {
    root().map(|folder| SessionPlace {
        agent: "Codex".to_string(),
        folder: folder.to_string_lossy().into_owned(),
    })
}

/// Every rollout under the root, in any folder below it.
pub fn list(now: SystemTime) -> Vec<Session> {
    let Some(place) = place() else {
        return Vec::new();
    };
    let root = PathBuf::from(&place.folder);
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let Some(stem) = name
                .strip_prefix("rollout-")
                .and_then(|rest| rest.strip_suffix(".jsonl"))
            else {
                continue;
            };
            let id = stem
                .get(stem.len().saturating_sub(36)..)
                .filter(|uuid| uuid.len() == 36 && uuid.matches('-').count() == 4)
                .unwrap_or(stem)
                .to_string();
            if let Some(mut session) = Session::of_file(&path, &place, Dialect::Codex, id, now) {
                session.read_head(read_line);
                found.push(session);
            }
        }
    }
    found
}

/// Takes what a line says of its session; true once the project and the first prompt are known.
fn read_line(session: &mut Session, value: &Value) -> bool {
    let Some(payload) = value.field("payload") else {
        return false;
    };
    match value.field("type").and_then(Value::as_str) {
        Some("session_meta") => {
            session.project = payload
                .field("cwd")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        Some("event_msg")
            if session.first_prompt.is_none()
                && payload.field("type").and_then(Value::as_str) == Some("user_message") =>
        {
            session.first_prompt = payload
                .field("message")
                .and_then(Value::as_str)
                .map(|text| one_line(text, 100));
        }
        _ => {}
    }
    session.project.is_some() && session.first_prompt.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_codex_home_is_not_set() {
        // Given `CODEX_HOME=` (set to nothing) and a home folder; when the sessions' folder is
        // found; then it is under the home folder, not a relative `sessions`.
        let found = root_in(Some(OsString::new()), Some(OsString::from("/home/me")));
        assert_eq!(
            found,
            Some(PathBuf::from("/home/me/.codex/sessions")),
            "an empty variable falls back to the home folder"
        );
        assert_eq!(
            root_in(Some(OsString::from("/cfg")), None),
            Some(PathBuf::from("/cfg/sessions")),
            "a set variable is where the agent keeps them"
        );
        assert_eq!(
            root_in(None, Some(OsString::new())),
            None,
            "no folder at all when neither is set"
        );
    }
}
