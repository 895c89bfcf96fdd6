//! The real agent clients, pinned releases installed from npm by `scripts/clients.sh`, run
//! offline against the scripted provider on 127.0.0.1, each in a home and project of its own:
//! every request the provider received is what Journalscope exports for the line that records
//! it. Ignored in the core tests; `make clients` (part of `make test`) runs them.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use support::cli::Cli;
use support::provider::{Provider, Received, SUMMARY_ASKED};

/// The pinned clients' binaries, as the install script prints them (installing what is missing).
fn clients() -> BTreeMap<String, PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/clients.sh");
    let output = Command::new("bash")
        .arg(&script)
        .output()
        .expect("the client install script runs");
    assert!(
        output.status.success(),
        "the pinned clients install: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(key, path)| (key.to_string(), PathBuf::from(path)))
        .collect()
}

/// One Claude Code session: a home and a project folder of its own, and the provider.
struct ClaudeSession {
    binary: PathBuf,
    home: tempfile::TempDir,
    project: PathBuf,
    provider: Provider,
}

impl ClaudeSession {
    fn new(binary: &Path) -> ClaudeSession {
        let home = tempfile::tempdir().expect("a home");
        let project = home.path().join("project");
        std::fs::create_dir_all(&project).expect("a project folder");
        ClaudeSession {
            binary: binary.to_path_buf(),
            home,
            project,
            provider: Provider::start().expect("the scripted provider starts"),
        }
    }

    /// Runs `claude -p PROMPT` (resuming `resume`), offline, and returns its session id.
    fn prompt(&self, prompt: &str, resume: Option<&str>) -> String {
        let mut command = Command::new("timeout");
        command
            .arg("180")
            .arg(&self.binary)
            .arg("-p")
            .arg(prompt)
            .args(["--dangerously-skip-permissions", "--output-format", "json"]);
        if let Some(session) = resume {
            command.args(["--resume", session]);
        }
        let output = command
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", self.home.path())
            .env("TERM", "dumb")
            .env("LANG", "C.UTF-8")
            // The client refuses to skip permissions as root outside a sandbox.
            .env("IS_SANDBOX", "1")
            .env("ANTHROPIC_BASE_URL", self.provider.url())
            .env("ANTHROPIC_API_KEY", "sk-ant-test-fake")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .current_dir(&self.project)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the client runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "claude -p {prompt:?} succeeds: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let result: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("the client prints its result as JSON ({e}): {stdout}"));
        result["session_id"]
            .as_str()
            .expect("the result names its session")
            .to_string()
    }

    /// Every transcript the sessions wrote: the sessions' own and their subagents'.
    fn transcripts(&self) -> Vec<PathBuf> {
        logs_under(&self.home.path().join(".claude/projects"))
    }
}

/// Every `.jsonl` file under `root`, at any depth, in path order: the logs a client wrote.
fn logs_under(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The number the provider gave a request, from the `request-id` it answered with.
fn number_of(request_id: &str) -> Option<u64> {
    request_id.strip_prefix("req_scripted_")?.parse().ok()
}

/// The body less the fields a transcript does not record, as compact JSON in the order sent.
fn recorded_part(body: &Value, not_recorded: &[String]) -> String {
    let mut body = body.clone();
    if let Some(object) = body.as_object_mut() {
        for name in not_recorded {
            object.shift_remove(name);
        }
    }
    serde_json::to_string(&body).expect("JSON")
}

/// Imports a client's log into a database of its own, which must give no error diagnostic and
/// know every line type; returns the database's path.
fn import_cleanly(cli: &Cli, log: &Path) -> String {
    let path = log.to_string_lossy().to_string();
    let name = format!(
        "{}.db",
        log.file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().to_string())
    );
    let db = cli.cache.path().join(name).to_string_lossy().to_string();
    cli.ok(&["import", &path, "--db", &db]);
    for d in cli
        .json(&["diagnostics", &db, "--json"])
        .as_array()
        .into_iter()
        .flatten()
    {
        assert_ne!(
            d["severity"], "error",
            "{path}: imports without an error: {d}"
        );
        assert_ne!(
            d["code"], "unknown-line-type",
            "{path}: every line type is known: {d}"
        );
    }
    db
}

/// The model requests the provider received, by their number.
fn model_requests(session: &ClaudeSession) -> BTreeMap<u64, Received> {
    session
        .provider
        .received()
        .into_iter()
        .filter(Received::is_model_request)
        .map(|r| (r.number, r))
        .collect()
}

/// Every request not compared must be a compaction's summary request: the one request a
/// transcript neither records nor answers.
fn only_summaries_left(received: &BTreeMap<u64, Received>, compared: &BTreeMap<u64, String>) {
    for (number, request) in received {
        if compared.contains_key(number) {
            continue;
        }
        let body = String::from_utf8_lossy(&request.body);
        assert!(
            body.contains(SUMMARY_ASKED),
            "request {number} is in no transcript, and only a compaction's summary request may \
             be: {}",
            &body[..body.len().min(400)]
        );
    }
}

/// Holds every request the provider received against the export of the transcript line that
/// records it; returns how many were compared. The requests no line records must be the
/// client's compaction summaries.
fn hold_against_exports(session: &ClaudeSession, cli: &Cli) -> usize {
    let received = model_requests(session);
    let mut compared = BTreeMap::new();
    for transcript in session.transcripts() {
        let path = transcript.to_string_lossy().to_string();
        let db = import_cleanly(cli, &transcript);
        let text = std::fs::read_to_string(&transcript).expect("the transcript reads");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect();
        for (index, line) in lines.iter().enumerate() {
            if line["type"] != "api-request" {
                continue;
            }
            let at = (index + 1).to_string();
            let number = lines
                .iter()
                .filter(|l| l["type"] == "assistant" && l["requestRef"] == line["id"])
                .find_map(|l| l["requestId"].as_str().and_then(number_of))
                .unwrap_or_else(|| panic!("{path}:{at}: the request has a response"));
            let sent = received
                .get(&number)
                .unwrap_or_else(|| panic!("{path}:{at}: the provider received request {number}"));
            let view = cli.json(&["request", &db, "--at", &at, "--json"]);
            let not_recorded: Vec<String> = view["notRecorded"]
                .as_array()
                .expect("the fields not recorded are named")
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect();
            assert_eq!(
                not_recorded,
                ["metadata", "stream"],
                "{path}:{at}: the request names what its line does not record"
            );
            assert_eq!(
                view["recorded"]["digestVerified"], true,
                "{path}:{at}: the rebuilt body gives the digest the client recorded"
            );
            let out = cli.cache.path().join("body.json");
            let out_text = out.to_string_lossy().to_string();
            cli.ok(&[
                "request", &db, "--at", &at, "--format", "body", "--exact", "-o", &out_text,
            ]);
            let exported = std::fs::read(&out).expect("the export is written");
            let sent_body: Value = serde_json::from_slice(&sent.body).expect("a JSON body");
            assert_eq!(
                serde_json::to_vec(&sent_body).expect("JSON"),
                sent.body,
                "{path}:{at}: the body as sent reads back to its own bytes, so what is compared \
                 below is the bytes"
            );
            assert_eq!(
                String::from_utf8_lossy(&exported),
                recorded_part(&sent_body, &not_recorded),
                "{path}:{at}: the export is the body the provider received, byte for byte, \
                 less the fields named as not recorded"
            );
            compared.insert(number, path.clone());
        }
    }
    only_summaries_left(&received, &compared);
    compared.len()
}

/// A tool call, `/compact` on the resumed session, and one more prompt after it.
fn compact_then_prompt(session: &ClaudeSession) {
    let id = session.prompt(
        r#"Say hi with bash. #steps [["Bash", {"command": "echo hi", "description": "Print hi"}]]"#,
        None,
    );
    session.prompt("/compact", Some(&id));
    session.prompt("one more prompt after the compaction", Some(&id));
}

fn claude_code() -> PathBuf {
    clients()
        .remove("CLAUDE_CODE")
        .expect("the install script names Claude Code")
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_a_tool_call_is_exported_as_sent() {
    let session = ClaudeSession::new(&claude_code());
    session.prompt(
        r#"Say hi with bash. #steps [["Bash", {"command": "echo hi", "description": "Print hi"}]]"#,
        None,
    );
    let compared = hold_against_exports(&session, &Cli::new());
    assert_eq!(compared, 2, "the call's request and the answer's");
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_a_session_resumed_twice_is_exported_as_sent() {
    let session = ClaudeSession::new(&claude_code());
    let id = session.prompt("first prompt: hello there", None);
    session.prompt("second prompt", Some(&id));
    session.prompt("third prompt", Some(&id));
    let compared = hold_against_exports(&session, &Cli::new());
    assert_eq!(compared, 3, "one request a prompt");
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_a_file_read_and_write_is_exported_as_sent() {
    let session = ClaudeSession::new(&claude_code());
    let notes = session.project.join("notes.txt");
    std::fs::write(&notes, "first line\nsecond line\n").expect("a file to read");
    let out = session.project.join("out.txt");
    let steps = serde_json::json!([
        ["Read", {"file_path": notes}],
        ["Write", {"file_path": out, "content": "FIRST LINE\n"}],
    ]);
    session.prompt(
        &format!("Copy the first line of notes.txt to out.txt in capitals. #steps {steps}"),
        None,
    );
    assert_eq!(
        std::fs::read_to_string(&out).ok().as_deref(),
        Some("FIRST LINE\n"),
        "the client wrote the file"
    );
    let compared = hold_against_exports(&session, &Cli::new());
    assert_eq!(
        compared, 3,
        "the read's request, the write's and the answer's"
    );
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_a_compaction_then_a_prompt_is_exported_as_sent() {
    let session = ClaudeSession::new(&claude_code());
    compact_then_prompt(&session);
    let summaries = session
        .provider
        .received()
        .iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains(SUMMARY_ASKED))
        .count();
    assert_eq!(summaries, 1, "the compaction asked the model for a summary");
    let cli = Cli::new();
    let compared = hold_against_exports(&session, &cli);
    assert_eq!(
        compared, 3,
        "the call's request, the answer's, and the one after the compaction"
    );
    let listed = session.transcripts().iter().any(|transcript| {
        let db = import_cleanly(&cli, transcript);
        cli.json(&["diagnostics", &db, "--json"])
            .to_string()
            .contains("summary-request-not-recorded")
    });
    assert!(
        listed,
        "the compaction's summary request, which no line records, is named as not recorded"
    );
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_a_subagent_is_exported_as_sent() {
    let session = ClaudeSession::new(&claude_code());
    let task = serde_json::json!([["Bash", {"command": "echo sub", "description": "Print sub"}]]);
    let steps = serde_json::json!([["Agent", {
        "description": "Print sub",
        "prompt": format!("Print sub with bash. #steps {task}"),
        "subagent_type": "general-purpose",
        "run_in_background": false,
    }]]);
    session.prompt(
        &format!("Use a subagent to print sub. #steps {steps}"),
        None,
    );
    let transcripts = session.transcripts();
    assert!(
        transcripts
            .iter()
            .any(|t| t.to_string_lossy().contains("/subagents/")),
        "the subagent wrote its own transcript: {transcripts:?}"
    );
    let compared = hold_against_exports(&session, &Cli::new());
    assert!(
        compared >= 4,
        "the main thread's two requests and the subagent's two: {compared}"
    );
}

/// One Codex session: its own CODEX_HOME (under the target folder: Codex refuses to place its
/// helper binaries under /tmp), a project folder, and the provider as a custom model provider.
struct CodexSession {
    binary: PathBuf,
    home: PathBuf,
    project: PathBuf,
    provider: Provider,
}

impl CodexSession {
    fn new(binary: &Path, name: &str) -> CodexSession {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("codex-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("codex-home");
        let project = root.join("project");
        std::fs::create_dir_all(&home).expect("a CODEX_HOME");
        std::fs::create_dir_all(&project).expect("a project folder");
        let provider = Provider::start().expect("the scripted provider starts");
        std::fs::write(
            home.join("config.toml"),
            format!(
                "model = \"gpt-test\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\n\
                 sandbox_mode = \"danger-full-access\"\n\n[model_providers.scripted]\n\
                 name = \"Scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
                 env_key = \"SCRIPTED_API_KEY\"\n",
                provider.url()
            ),
        )
        .expect("the client's configuration");
        CodexSession {
            binary: binary.to_path_buf(),
            home,
            project,
            provider,
        }
    }

    /// Runs `codex exec PROMPT`, or `codex exec resume --last PROMPT`.
    fn prompt(&self, prompt: &str, resume: bool) {
        let mut command = Command::new("timeout");
        command.arg("180").arg(&self.binary).arg("exec");
        if resume {
            command.args(["resume", "--last"]);
        }
        command.args(["--skip-git-repo-check", prompt]);
        let output = command
            .env("CODEX_HOME", &self.home)
            .env("SCRIPTED_API_KEY", "sk-scripted-test-fake")
            .env_remove("OPENAI_API_KEY")
            .current_dir(&self.project)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the client runs");
        assert!(
            output.status.success(),
            "codex exec {prompt:?} succeeds: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn rollouts(&self) -> Vec<PathBuf> {
        logs_under(&self.home.join("sessions"))
    }
}

/// Holds every request the provider received against the rollout's requests, in order: the
/// input after the base-instructions item is what Journalscope exports, and what the rollout
/// does not record is named. Returns how many were compared.
fn hold_codex_against_exports(session: &CodexSession, cli: &Cli) -> usize {
    let received: Vec<Value> = session
        .provider
        .received()
        .iter()
        .filter(|r| r.is_model_request())
        .map(|r| r.json().expect("a JSON body"))
        .collect();
    let rollouts = session.rollouts();
    assert_eq!(rollouts.len(), 1, "one rollout: {rollouts:?}");
    let path = rollouts[0].to_string_lossy().to_string();
    let db = import_cleanly(cli, &rollouts[0]);
    let text = std::fs::read_to_string(&rollouts[0]).expect("the rollout reads");
    let instructions = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["type"] == "session_meta")
        .and_then(|l| {
            l["payload"]["base_instructions"]["text"]
                .as_str()
                .map(str::to_string)
        })
        .expect("the session records its base instructions");
    let requests = cli.json(&["requests", &db, "--json"]);
    let offsets: Vec<i64> = requests
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|r| r["offset"].as_i64())
        .collect();
    assert_eq!(
        offsets.len(),
        received.len(),
        "{path}: a request for each the provider received"
    );
    for (at, sent) in offsets.iter().zip(&received) {
        let view = cli.json(&["request", &db, "--at", &at.to_string(), "--json"]);
        let input = sent["input"].as_array().expect("the input items");
        let head = &input[0];
        assert_eq!(
            (head["type"].as_str(), head["role"].as_str()),
            (Some("message"), Some("developer")),
            "{path}@{at}: the base instructions head the input"
        );
        let first_line = instructions.lines().next().unwrap_or_default();
        assert!(
            head["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with(first_line)),
            "{path}@{at}: they are the session's, as session_meta holds them"
        );
        assert_eq!(
            serde_json::to_string(&view["input"]).expect("JSON"),
            serde_json::to_string(&input[1..]).expect("JSON"),
            "{path}@{at}: every other input item is exported as sent"
        );
        let missing = view["notRecorded"].to_string();
        assert!(
            missing.contains("base-instructions") && missing.contains("tools"),
            "{path}@{at}: the instructions item and the tools are named as not recorded: {missing}"
        );
        assert_eq!(
            view["model"], sent["model"],
            "{path}@{at}: the model is the one sent"
        );
    }
    offsets.len()
}

fn codex() -> PathBuf {
    clients()
        .remove("CODEX")
        .expect("the install script names Codex")
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn codex_a_tool_call_and_a_resumed_turn_are_exported_as_sent() {
    let session = CodexSession::new(&codex(), "tool-and-resume");
    session.prompt(
        r#"Run echo hi. #steps [["exec_command", {"cmd": "echo hi"}]]"#,
        false,
    );
    session.prompt("and once more, in a word", true);
    let compared = hold_codex_against_exports(&session, &Cli::new());
    assert_eq!(
        compared, 3,
        "the call's request, the answer's, and the resumed turn's"
    );
}

/// Holds the messages of every request the provider received from a release that does not
/// record its requests against the `messages` Journalscope exports for the response line that
/// answers it; returns how many were compared. The requests no line answers must be the
/// client's compaction summaries.
fn hold_messages_against_exports(session: &ClaudeSession, cli: &Cli) -> usize {
    let received = model_requests(session);
    let mut compared = BTreeMap::new();
    for transcript in session.transcripts() {
        let path = transcript.to_string_lossy().to_string();
        let db = import_cleanly(cli, &transcript);
        for row in cli
            .json(&["requests", &db, "--json"])
            .as_array()
            .into_iter()
            .flatten()
        {
            let at = row["offset"].to_string();
            let Some(number) = row["requestId"].as_str().and_then(number_of) else {
                panic!("{path}:{at}: the response names the provider's request: {row}");
            };
            let sent = received
                .get(&number)
                .unwrap_or_else(|| panic!("{path}:{at}: the provider received request {number}"));
            let view = cli.json(&["request", &db, "--at", &at, "--json"]);
            let missing = view["notRecorded"].to_string();
            assert!(
                missing.contains("\"system\"") && missing.contains("\"tools\""),
                "{path}:{at}: the request names the system prompt and tools as not recorded: \
                 {missing}"
            );
            assert!(
                view.get("recorded").is_none(),
                "{path}:{at}: nothing is presented as the body the client recorded"
            );
            let out = cli.cache.path().join("body.json");
            let out_text = out.to_string_lossy().to_string();
            cli.ok(&[
                "request", &db, "--at", &at, "--format", "body", "--exact", "-o", &out_text,
            ]);
            let exported: Value =
                serde_json::from_slice(&std::fs::read(&out).expect("the export is written"))
                    .expect("the export is JSON");
            let sent_body: Value = serde_json::from_slice(&sent.body).expect("a JSON body");
            assert_eq!(
                serde_json::to_string(&exported["messages"]).expect("JSON"),
                serde_json::to_string(&sent_body["messages"]).expect("JSON"),
                "{path}:{at}: the exported messages are the ones the provider received, in \
                 order, with the client's context, reminders and cache breakpoint"
            );
            compared.insert(number, path.clone());
        }
    }
    only_summaries_left(&received, &compared);
    compared.len()
}

fn claude_code_old() -> PathBuf {
    clients()
        .remove("CLAUDE_CODE_OLD")
        .expect("the install script names the older Claude Code")
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_before_the_request_record_a_compacted_session_is_exported_as_sent() {
    // A release from before the transcript recorded its requests: its messages are rendered
    // from the conversation by the client's own rules.
    let session = ClaudeSession::new(&claude_code_old());
    compact_then_prompt(&session);
    let text: String = session
        .transcripts()
        .iter()
        .map(|t| std::fs::read_to_string(t).expect("the transcript reads"))
        .collect();
    assert!(
        text.contains("\"compact_boundary\""),
        "the session was compacted"
    );
    let compared = hold_messages_against_exports(&session, &Cli::new());
    assert_eq!(
        compared, 3,
        "the call's request, the answer's, and the one after the compaction"
    );
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_before_the_request_record_a_session_resumed_twice_with_files_is_exported_as_sent() {
    let session = ClaudeSession::new(&claude_code_old());
    let notes = session.project.join("notes.txt");
    std::fs::write(&notes, "first line\nsecond line\n").expect("a file to read");
    let out = session.project.join("out.txt");
    let steps = serde_json::json!([
        ["Read", {"file_path": notes}],
        ["Write", {"file_path": out, "content": "FIRST LINE\n"}],
    ]);
    let id = session.prompt(
        &format!("Copy the first line of notes.txt to out.txt in capitals. #steps {steps}"),
        None,
    );
    session.prompt("And now, a second turn.", Some(&id));
    session.prompt("A third turn, with @notes.txt mentioned.", Some(&id));
    let compared = hold_messages_against_exports(&session, &Cli::new());
    assert_eq!(
        compared, 5,
        "the read's request, the write's, the answer's, and one per resumed turn"
    );
}

#[test]
#[ignore = "runs the real clients: `make clients`"]
fn claude_code_before_the_request_record_a_subagent_is_exported_as_sent() {
    // The subagent answers at once: a later request of a subagent can carry an agent listing
    // its transcript never records (see the format notes), and is not compared here.
    let session = ClaudeSession::new(&claude_code_old());
    let steps = serde_json::json!([["Agent", {
        "description": "Say sub",
        "prompt": "Say sub.",
        "subagent_type": "general-purpose",
        "run_in_background": false,
    }]]);
    session.prompt(&format!("Use a subagent to say sub. #steps {steps}"), None);
    let transcripts = session.transcripts();
    assert!(
        transcripts
            .iter()
            .any(|t| t.to_string_lossy().contains("/subagents/")),
        "the subagent wrote its own transcript: {transcripts:?}"
    );
    let compared = hold_messages_against_exports(&session, &Cli::new());
    assert_eq!(
        compared, 3,
        "the main thread's two requests and the subagent's one"
    );
}

#[test]
fn the_scripted_provider_takes_its_steps_in_turn_as_calls_are_answered() {
    // Protects the scenarios' scripts: a prompt's `#steps` are answered one a turn.
    use serde_json::json;
    use support::provider::{next_reply, Conversation, Reply};

    let body = |answered: usize| {
        let mut messages = vec![json!({"role": "user", "content":
            "go #steps [[\"Read\", {\"file_path\": \"a\"}], [\"Write\", {\"file_path\": \"b\"}]]"})];
        for _ in 0..answered {
            messages.push(json!({"role": "assistant", "content": [{"type": "tool_use"}]}));
            messages.push(json!({"role": "user", "content": [{"type": "tool_result"}]}));
        }
        json!({ "messages": messages })
    };
    assert_eq!(
        next_reply(&Conversation::messages(&body(0))),
        Reply::Call("Read".into(), json!({"file_path": "a"})),
        "the first step answers the prompt"
    );
    assert_eq!(
        next_reply(&Conversation::messages(&body(1))),
        Reply::Call("Write".into(), json!({"file_path": "b"})),
        "the second step answers the first call's result"
    );
    assert!(
        matches!(
            next_reply(&Conversation::messages(&body(2))),
            Reply::Text(_)
        ),
        "spent steps end in a text"
    );
}
