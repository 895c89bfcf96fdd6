//! Finding Claude Code's sessions: `~/.claude/projects/<project>/<session>.jsonl` (or
//! `$CLAUDE_CONFIG_DIR/projects`), each described from its first lines: the directory the agent
//! worked in and the first thing the user asked. Subagents' transcripts beside them belong to
//! their sessions and are not listed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use journalscope_shapes::record_json::Field;
use journalscope_store::derived::Dialect;
use journalscope_transcript::transcript::{agent_folder, one_line, Session, SessionPlace};

/// Where Claude Code keeps its projects' transcripts.
pub fn root() -> Option<PathBuf> {
    root_in(
        std::env::var_os("CLAUDE_CONFIG_DIR"),
        std::env::var_os("HOME"),
    )
}

/// The projects' folder under `CLAUDE_CONFIG_DIR`, else under the home folder.
fn root_in(config_dir: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    agent_folder(config_dir, home, "projects", ".claude/projects")
}

/// Where the sessions `list` finds are kept, and by which agent.
pub fn place() -> Option<SessionPlace> {
    root().map(|folder| SessionPlace {
        agent: "Claude Code".to_string(),
        folder: folder.to_string_lossy().into_owned(),
    })
}

/// Every session under the root.
pub fn list(now: SystemTime) -> Vec<Session> {
    let Some(place) = place() else {
        return Vec::new();
    };
    let root = PathBuf::from(&place.folder);
    let mut found = Vec::new();
    for project in entries(&root).into_iter().filter(|p| p.is_dir()) {
        for file in entries(&project) {
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let Some(id) = name.strip_suffix(".jsonl") else {
                continue;
            };
            if id.starts_with("agent-") {
                continue;
            }
            if let Some(mut session) =
                Session::of_file(&file, &place, Dialect::ClaudeCode, id.into(), now)
            {
                session.read_head(read_line);
                found.push(session);
            }
        }
    }
    found
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
}

/// Takes what a line says of its session; true once the project and the first prompt are known.
fn read_line(session: &mut Session, value: &Value) -> bool {
    if session.project.is_none() {
        session.project = value
            .field("cwd")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let prompt = value.field("type").and_then(Value::as_str) == Some("user")
        && value.field("isMeta").and_then(Value::as_bool) != Some(true)
        && value.field("isSidechain").and_then(Value::as_bool) != Some(true);
    if session.first_prompt.is_none() && prompt {
        let text = match value.field("message").and_then(|m| m.field("content")) {
            Some(Value::String(text)) => Some(text.as_str()),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .find(|b| b.field("type").and_then(Value::as_str) == Some("text"))
                .and_then(|b| b.field("text"))
                .and_then(Value::as_str),
            _ => None,
        };
        session.first_prompt = text.map(|text| one_line(text, 100));
    }
    session.project.is_some() && session.first_prompt.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_claude_config_dir_is_not_set() {
        // Given `CLAUDE_CONFIG_DIR=` (set to nothing) and a home folder; when the sessions' folder is
        // found; then it is under the home folder, not a relative `projects`.
        let found = root_in(Some(OsString::new()), Some(OsString::from("/home/me")));
        assert_eq!(
            found,
            Some(PathBuf::from("/home/me/.claude/projects")),
            "an empty variable falls back to the home folder"
        );
        assert_eq!(
            root_in(Some(OsString::from("/cfg")), None),
            Some(PathBuf::from("/cfg/projects")),
            "a set variable is where the agent keeps them"
        );
        assert_eq!(
            root_in(None, Some(OsString::new())),
            None,
            "no folder at all when neither is set"
        );
    }
}
