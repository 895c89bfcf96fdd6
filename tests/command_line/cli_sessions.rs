//! `journalscope sessions` lists the Claude Code and Codex sessions where those tools keep them,
//! newest first with their project, first prompt, size and whether they are live; any command
//! then takes a listed id in place of a file.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_journalscope");

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code")
        .join(name)
}

/// Copies a fixture into `to`, last written `age` ago.
fn place(name: &str, to: &Path, age: Duration) {
    std::fs::create_dir_all(to.parent().expect("a folder")).expect("make the folder");
    std::fs::copy(fixture(name), to).expect("copy the session");
    let file = std::fs::File::options()
        .write(true)
        .open(to)
        .expect("open the copy");
    file.set_modified(SystemTime::now() - age)
        .expect("age the copy");
}

fn run(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env("JOURNALSCOPE_CACHE_DIR", home.join("cache"))
        .output()
        .expect("run journalscope")
}

#[test]
fn sessions_lists_claude_code_and_codex_sessions_newest_first_and_any_command_takes_their_id() {
    let home = tempfile::tempdir().expect("a home");
    let claude = home.path().join(".claude/projects/-work-demo");
    place(
        "compaction.jsonl",
        &claude.join("d1000000-0000-4000-8000-000000000000.jsonl"),
        Duration::from_secs(3_600),
    );
    // A subagent's transcript beside its session belongs to the session, not the list.
    place(
        "subagents-2.0/agent-5a6b7c8d.jsonl",
        &claude.join("agent-5a6b7c8d.jsonl"),
        Duration::from_secs(3_600),
    );
    place(
        "codex-compaction.jsonl",
        &home.path().join(
            ".codex/sessions/2026/03/02/rollout-2026-03-02T11-00-02-019c0000-0000-7000-8000-000000000104.jsonl",
        ),
        Duration::from_secs(5),
    );

    let out = run(home.path(), &["sessions", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let listed = listed.as_array().expect("a list");
    let ids: Vec<&str> = listed.iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "019c0000-0000-7000-8000-000000000104",
            "d1000000-0000-4000-8000-000000000000"
        ],
        "both sessions, the one written last first, and no subagent"
    );
    assert_eq!(
        listed[0]["dialect"], "codex",
        "the rollout is a Codex session"
    );
    assert_eq!(listed[0]["live"], true, "written seconds ago: live");
    assert_eq!(
        listed[0]["firstPrompt"], "List the files.",
        "its first prompt"
    );
    assert_eq!(
        listed[0]["project"], "/work/demo",
        "the folder it worked in"
    );
    assert_eq!(
        listed[1]["dialect"], "claude-code",
        "the transcript is Claude Code's"
    );
    assert_eq!(listed[1]["live"], false, "an hour old: not live");
    assert!(
        listed[1]["bytes"].as_u64().is_some_and(|b| b > 1_000),
        "its size: {}",
        listed[1]["bytes"]
    );

    let text = run(home.path(), &["sessions"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("019c0000-0000-7000-8000-000000000104  codex") && text.contains("live"),
        "the text lists ids, dialects and which are live:\n{text}"
    );

    let out = run(
        home.path(),
        &["requests", "d1000000-0000-4000-8000-000000000000", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("expected/compaction.requests.json")).expect("read"),
    )
    .expect("JSON");
    assert_eq!(requests, want, "a listed id opens its session");
}
