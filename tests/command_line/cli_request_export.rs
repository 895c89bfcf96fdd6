//! `journalscope request -o` and `--format curl`: redacted by default, exact on request, the
//! user's JSON paths, and a `curl` command that a POSIX shell runs without executing anything
//! the journal wrote, sending the body byte for byte with the key read from the environment.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::support::cli;
use cli::Cli;

const SECRETS: &[&str] = &["sk-proj-HOSTILEsecretKEY0123456789", "hostile-cookie-42"];

fn hostile() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/hostile-iterate.jsonl")
}

/// `request ... -o FILE`: the file's bytes and what the command said.
fn export(cli: &Cli, journal: &Path, args: &[&str]) -> (Vec<u8>, String) {
    let out = cli.cache.path().join("export.out");
    let _ = std::fs::remove_file(&out);
    let journal = journal.to_string_lossy();
    let mut all = vec!["request", journal.as_ref()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", out.to_str().expect("utf-8 path")]);
    let said = String::from_utf8_lossy(&cli.ok_bytes(&all)).into_owned();
    (std::fs::read(&out).expect("the export was written"), said)
}

fn has(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

#[test]
fn request_exports_are_redacted_by_default_and_exact_on_request() {
    let cli = Cli::new();
    let (redacted, said) = export(&cli, &hostile(), &["--at", "5"]);
    for secret in SECRETS {
        assert!(!has(&redacted, secret), "{secret} is redacted by default");
        assert!(!said.contains(secret), "{secret} is not printed either");
    }
    assert!(
        said.contains("secrets redacted"),
        "-o says it redacted: {said}"
    );
    let body: Value = serde_json::from_slice(&redacted).expect("a redacted body is still JSON");
    let text = body.to_string();
    assert!(
        text.contains("Authorization: Bearer [REDACTED:") && text.contains("Cookie: [REDACTED:"),
        "markers say what was there: {text:.400}"
    );

    let (exact, said) = export(&cli, &hostile(), &["--at", "5", "--exact"]);
    assert!(
        said.contains("exact bytes"),
        "-o says the bytes are exact: {said}"
    );
    assert!(
        SECRETS.iter().all(|s| has(&exact, s)),
        "--exact keeps the body as sent"
    );
    let view: Value = serde_json::from_slice(&cli.ok_bytes(&[
        "request",
        hostile().to_str().expect("utf-8"),
        "--at",
        "5",
        "--json",
    ]))
    .expect("--json");
    let expected = cli::body_of(&view);
    assert_eq!(
        exact, expected,
        "--exact writes the snapshot's body byte for byte"
    );

    let (pathed, _) = export(
        &cli,
        &hostile(),
        &[
            "--at",
            "5",
            "--redact-path",
            "/model",
            "--redact-path",
            "messages[1].content",
        ],
    );
    let body: Value = serde_json::from_slice(&pathed).expect("JSON");
    assert!(
        body["model"]
            .as_str()
            .is_some_and(|m| m.starts_with("[REDACTED:"))
            && body["messages"][1]["content"]
                .as_str()
                .is_some_and(|m| m.starts_with("[REDACTED:")),
        "both user paths are redacted: {body:.300}"
    );
}

#[test]
fn without_secrets_the_redacted_export_is_the_exact_one() {
    let cli = Cli::new();
    for transport in ["openai", "workers-ai"] {
        let (redacted, _) = export(
            &cli,
            Path::new("demo"),
            &["--at", "21", "--transport", transport],
        );
        let (exact, _) = export(
            &cli,
            Path::new("demo"),
            &["--at", "21", "--transport", transport, "--exact"],
        );
        assert_eq!(
            redacted, exact,
            "{transport}: the demo holds no secret, so the bytes are equal"
        );
    }
}

#[test]
fn bad_redaction_options_are_refused() {
    let cli = Cli::new();
    let j = hostile();
    let j = j.to_str().expect("utf-8");
    let output = cli.run(&[
        "request",
        j,
        "--at",
        "5",
        "--exact",
        "--redact-path",
        "/model",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "--exact with --redact-path is a usage error"
    );
    let output = cli.run(&[
        "request",
        j,
        "--at",
        "5",
        "--redact-path",
        "a[1",
        "-o",
        "/dev/null",
    ]);
    assert!(!output.status.success(), "a malformed path fails");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("a[1"), "the error names the path: {stderr}");
}

/// A journal whose content, model and key try to break out of shell quoting.
fn quoting_journal(dir: &Path) -> PathBuf {
    let hostile = "it's \"quoted\" $(touch PWNED1) `touch PWNED2` '; touch PWNED3; ' \\' \n$HOME ${HOME} !! * ?";
    let lines = [
        json!({"offset": 1, "type": "events.iterate.com/agent/context-added",
            "payload": {"role": "system", "content": hostile}, "createdAt": "2026-11-20T09:00:01.000Z"}),
        json!({"offset": 2, "type": "events.iterate.com/agent/context-added",
            "payload": {"role": "user", "key": "k'; touch PWNED4; '", "content": "Authorization: Bearer sk-proj-QUOTEsecret0123456789"},
            "createdAt": "2026-11-20T09:00:02.000Z"}),
        json!({"offset": 3, "type": "events.iterate.com/agent/llm-request-requested",
            "payload": {"model": "@cf/m'; touch PWNED5; echo '$(touch PWNED6)\"`touch PWNED7`"},
            "createdAt": "2026-11-20T09:00:03.000Z"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = dir.join("quoting.jsonl");
    std::fs::write(&path, text).expect("write the journal");
    path
}

/// Runs a curl command with `curl` replaced by a shell function that records its arguments
/// (one a line) and its stdin, in `dir`.
fn run_curl_command(command: &str, dir: &Path) -> (Vec<String>, Vec<u8>) {
    let script = format!(
        "curl() {{ for a in \"$@\"; do printf '%s\\n' \"$a\"; done > args; cat > body; }}\n{command}"
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env("OPENAI_API_KEY", "test-openai-key")
        .env("CLOUDFLARE_API_TOKEN", "test-cf-token")
        .env("CLOUDFLARE_ACCOUNT_ID", "acct-1")
        .status()
        .expect("sh runs");
    assert!(status.success(), "the command runs in sh");
    let args = std::fs::read_to_string(dir.join("args")).expect("args recorded");
    let body = std::fs::read(dir.join("body")).expect("body recorded");
    (args.lines().map(str::to_string).collect(), body)
}

#[test]
fn curl_commands_quote_hostile_text_and_read_the_key_from_the_environment() {
    let cli = Cli::new();
    let work = tempfile::tempdir().expect("work dir");
    let journal = quoting_journal(cli.cache.path());
    let j = journal.to_str().expect("utf-8");
    for (transport, url, key) in [
        ("openai", "https://api.openai.com/v1/chat/completions".to_string(), "test-openai-key"),
        (
            "workers-ai",
            "https://api.cloudflare.com/client/v4/accounts/acct-1/ai/run/@cf/m'; touch PWNED5; echo '$(touch PWNED6)\"`touch PWNED7`".to_string(),
            "test-cf-token",
        ),
    ] {
        let command = String::from_utf8(cli.ok_bytes(&["request", j, "--at", "3", "--transport", transport, "--format", "curl"]))
            .expect("a UTF-8 command");
        assert!(
            !command.contains("sk-proj-QUOTEsecret") && !command.contains(key),
            "{transport}: no secret and no key value in the command:\n{command}"
        );
        let (body, _) = export(&cli, &journal, &["--at", "3", "--transport", transport]);
        let (args, sent) = run_curl_command(&command, work.path());
        assert_eq!(sent, body, "{transport}: curl receives the redacted body byte for byte");
        assert!(args.contains(&url), "{transport}: the URL is {url}: {args:?}");
        assert!(
            args.contains(&format!("Authorization: Bearer {key}")),
            "{transport}: the key comes from the environment: {args:?}"
        );
        let pwned: Vec<_> = std::fs::read_dir(work.path())
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("PWNED"))
            .collect();
        assert!(pwned.is_empty(), "{transport}: journal text ran as shell: {pwned:?}");
    }
    let exact = String::from_utf8(
        cli.ok_bytes(&["request", j, "--at", "3", "--format", "curl", "--exact"]),
    )
    .expect("UTF-8");
    let (_, sent) = run_curl_command(&exact, work.path());
    assert!(
        has(&sent, "sk-proj-QUOTEsecret0123456789"),
        "--exact sends the body as journaled"
    );
}

#[test]
fn format_body_prints_the_redacted_body_to_stdout() {
    let cli = Cli::new();
    let j = hostile();
    let j = j.to_str().expect("utf-8");
    let printed = cli.ok_bytes(&["request", j, "--at", "5", "--format", "body"]);
    let (written, _) = export(&cli, &hostile(), &["--at", "5"]);
    assert_eq!(printed, written, "stdout and -o carry the same bytes");
}
