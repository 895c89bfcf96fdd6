//! The shapes a transcript's views share, whatever wrote it (Claude Code, Codex): a request as
//! the list shows it, the conversation at a line, and a session found on disk. Each transcript
//! dialect fills them.

pub mod cache;
pub mod diff;
pub mod requests;
pub mod text;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use journalscope_store::derived::Dialect;

/// One subagent of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Subagent {
    /// The assistant line with the call that spawned it.
    #[ts(type = "number | null")]
    pub call_offset: Option<i64>,
    pub tool_use_id: Option<String>,
    /// What the call asked for, as its `description` says.
    pub description: Option<String>,
    /// The line holding the result the session got back.
    #[ts(type = "number | null")]
    pub result_offset: Option<i64>,
    pub agent_id: Option<String>,
    /// The agent's own transcript, when it is a file that exists.
    pub path: Option<String>,
    /// The first line of a subagent written into the session itself.
    #[ts(type = "number | null")]
    pub root_offset: Option<i64>,
}

/// The session or thread that spawned a subagent's own transcript or rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SpawnedBy {
    /// The parent's file, when it is where its writer keeps it.
    pub path: Option<String>,
    /// The parent's session or thread id.
    pub parent_id: Option<String>,
    /// This subagent's id.
    pub agent_id: Option<String>,
}

/// One request as `requests` lists it: its first line, ids, model, thread and the usage its
/// last line reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "TranscriptRequestRow")]
pub struct RequestRow {
    #[ts(type = "number")]
    pub offset: i64,
    pub request_id: Option<String>,
    pub message_id: Option<String>,
    pub model: Option<String>,
    pub sidechain: bool,
    #[ts(type = "Record<string, number> | null")]
    pub usage: Option<Value>,
    /// When the response's first line was written, as the transcript says.
    #[serde(default)]
    pub created_at: Option<String>,
    /// Where the transcript records the request itself: the lines its body is rebuilt from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub recorded: Option<RecordedRequest>,
    /// Why the provider says the prompt cache missed, where the response carries its reason
    /// (`message.diagnostics.cache_miss_reason`, Claude Code 2.1.17x and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cache_miss_reason: Option<String>,
}

/// The lines a recorded request's body is rebuilt from (Claude Code's own request record): the
/// line holding its system prompt and tools, the request it extends and how many of that one's
/// messages it keeps, the lines of each message it adds, and, every few requests, the lines of
/// all its messages, so that rebuilding one walks back a few requests at most.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// The seq of the line holding the system prompt and tools.
    #[serde(rename = "s", default)]
    pub shape: Option<u64>,
    /// That line's offset.
    #[serde(rename = "so", default, skip_serializing_if = "Option::is_none")]
    pub shape_offset: Option<i64>,
    /// The seq of the request this one extends.
    #[serde(rename = "b", default)]
    pub base: Option<u64>,
    #[serde(rename = "k", default)]
    pub keep: u32,
    #[serde(rename = "t", default)]
    pub tail: Vec<MessageLines>,
    /// Every message's lines, where the fold had them.
    #[serde(rename = "a", default, skip_serializing_if = "Option::is_none")]
    pub all: Option<Vec<MessageLines>>,
    /// How many messages the request has (its base's kept ones and its tail), where known.
    #[serde(rename = "n", default)]
    pub messages: Option<u32>,
    /// How the client was started (`sdk-cli`, `cli`), as its lines say.
    #[serde(rename = "e", default, skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<String>,
    /// The characters of the conversation's first prompt that the client's billing block is
    /// derived from.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub prompt_chars: Option<String>,
}

/// Where one message of a recorded request is written: one line that holds it whole (`first`
/// alone), or the run of user or assistant lines from `first` to `last` that make it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageLines {
    #[serde(rename = "f")]
    pub first: u64,
    #[serde(rename = "l")]
    pub last: u64,
    /// A line that holds a message whole (a blob), rather than a run of conversation lines.
    #[serde(rename = "w", default, skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
    /// Its one text block went as a plain string (a user or system message written while it
    /// carried a cache mark, which makes it a block).
    #[serde(rename = "p", default, skip_serializing_if = "std::ops::Not::not")]
    pub plain: bool,
}

/// One line of the conversation, as the projection shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationItem {
    #[ts(type = "number")]
    pub offset: i64,
    pub uuid: Option<String>,
    pub role: String,
    #[ts(type = "Array<unknown>")]
    pub content: Vec<Value>,
    pub timestamp: Option<String>,
    /// The request (or message) id of the response an assistant line belongs to.
    pub response: Option<String>,
}

/// What the model could see at an offset: the system lane is not recorded in a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationView {
    #[ts(type = "number")]
    pub at: i64,
    pub system_known: bool,
    #[ts(type = "Array<unknown>")]
    pub system: Vec<Value>,
    pub history: Vec<ConversationItem>,
}

/// A transcript's compaction, before | after: the conversation the model had when the
/// compaction began, and the one it went on with (the summary, for Claude Code; the replacement
/// history, for Codex).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TranscriptCompaction {
    #[ts(type = "number")]
    pub offset: i64,
    /// What the transcript says of it: the trigger and the size, where recorded.
    pub note: String,
    pub before: ConversationView,
    /// `None` while the transcript has nothing after the compaction yet.
    pub after: Option<ConversationView>,
}

/// Where an agent keeps its sessions: the folder a session list looks in for them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct SessionPlace {
    /// The agent, as people call it.
    pub agent: String,
    pub folder: String,
}

/// Where an agent keeps its sessions: `inside` the folder its own variable names (`set`), else
/// `under_home` in the home folder. A variable set to nothing is not set, as a shell's
/// `CODEX_HOME= codex` means.
pub fn agent_folder(
    set: Option<OsString>,
    home: Option<OsString>,
    inside: &str,
    under_home: &str,
) -> Option<PathBuf> {
    let given = |value: Option<OsString>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
    match given(set) {
        Some(dir) => Some(dir.join(inside)),
        None => given(home).map(|home| home.join(under_home)),
    }
}

/// One session on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgentSession")]
pub struct Session {
    /// The session's id: what `sessions` lists and any command takes instead of a path.
    pub id: String,
    pub dialect: Dialect,
    /// The agent that wrote it, as people call it.
    pub agent: String,
    pub path: String,
    /// The directory the agent worked in, as the session records it.
    pub project: Option<String>,
    /// The first thing the user asked, cut to a line.
    pub first_prompt: Option<String>,
    #[ts(type = "number")]
    pub bytes: u64,
    /// When the file last changed, in milliseconds since the epoch.
    #[ts(type = "number")]
    pub modified_ms: u64,
    /// Whether the file changed in the last two minutes: the agent is likely still writing it.
    pub live: bool,
}

/// A session written less long ago than this is still being written.
const LIVE_WITHIN: Duration = Duration::from_secs(120);

impl Session {
    /// A session of `dialect` in the file at `path`, described by its size and age; the
    /// dialect reads what it records from its first lines.
    pub fn of_file(
        path: &Path,
        place: &SessionPlace,
        dialect: Dialect,
        id: String,
        now: SystemTime,
    ) -> Option<Session> {
        let meta = std::fs::metadata(path).ok()?;
        let modified = meta.modified().ok()?;
        Some(Session {
            id,
            dialect,
            agent: place.agent.to_string(),
            path: path.to_string_lossy().into_owned(),
            project: None,
            first_prompt: None,
            bytes: meta.len(),
            modified_ms: modified
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            live: now
                .duration_since(modified)
                .is_ok_and(|since| since < LIVE_WITHIN),
        })
    }

    /// Reads the first lines of the session's file as JSON, handing each to `read` until it
    /// says it has what it needs.
    pub fn read_head(&mut self, mut read: impl FnMut(&mut Session, &Value) -> bool) {
        use std::io::BufRead;
        let Ok(file) = std::fs::File::open(&self.path) else {
            return;
        };
        for line in std::io::BufReader::new(file).lines().take(HEAD_LINES) {
            let Ok(line) = line else { break };
            let Ok(value) = serde_json::from_str::<Value>(line.trim_start_matches('\u{feff}'))
            else {
                continue;
            };
            if read(self, &value) {
                break;
            }
        }
    }
}

/// Lines of a session read to describe it.
const HEAD_LINES: usize = 200;

/// Collapses whitespace and cuts at `max` characters, marking the cut.
pub fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() > max {
        let cut: String = joined.chars().take(max).collect();
        return format!("{cut}…");
    }
    joined
}
