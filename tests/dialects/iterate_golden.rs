//! Golden outputs of `journalscope project --json` and `request --json` on the small journals in
//! tests/fixtures/iterate/. Each expected file was reviewed by hand against interpretation.md
//! §1 (seed journals) or iterate-sections-contract.md (those under `sections/`) before it was
//! committed.
//!
//! To rewrite the expectations after an intended change, run
//! `JOURNALSCOPE_BLESS=1 cargo test --test dialects iterate_golden` and review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (fixture, command, offset, transport): project cases have no transport.
const CASES: &[(&str, &str, i64, Option<&str>)] = &[
    ("basic", "project", 3, None),
    ("basic", "project", 8, None),
    ("basic", "request", 4, Some("openai")),
    ("basic", "request", 4, Some("workers-ai")),
    ("keyed", "project", 4, None),
    ("keyed", "project", 10, None),
    ("keyed", "request", 5, Some("openai")),
    ("keyed", "request", 9, Some("openai")),
    ("keyed", "request", 9, Some("workers-ai")),
    ("compaction", "project", 9, None),
    ("compaction", "project", 10, None),
    ("compaction", "request", 12, Some("openai")),
    ("compaction", "request", 12, Some("workers-ai")),
    ("roles", "project", 14, None),
    ("roles", "request", 14, Some("openai")),
    ("roles", "request", 14, Some("workers-ai")),
    ("birth", "project", 4, None),
    ("birth", "project", 6, None),
    ("birth", "request", 5, Some("openai")),
    ("birth", "request", 7, Some("workers-ai")),
    // The sections contract, reviewed against iterate-sections-contract.md §3 to §5.
    ("sections/keyed", "project", 7, None),
    ("sections/keyed", "request", 9, Some("openai")),
    ("sections/keyed", "request", 13, Some("openai")),
    ("sections/rewrite", "project", 12, None),
    ("sections/rewrite", "request", 14, Some("openai")),
    ("sections/rewrite", "request", 18, Some("openai")),
    ("sections/roleless", "request", 12, Some("openai")),
    ("sections/roleless", "request", 12, Some("workers-ai")),
    ("sections/loop", "project", 15, None),
    ("sections/loop", "request", 9, Some("openai")),
    ("sections/loop", "request", 15, Some("openai")),
    ("sections/compaction", "project", 12, None),
    ("sections/compaction", "request", 14, Some("openai")),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iterate")
}

fn expected_name(fixture: &str, command: &str, at: i64, transport: Option<&str>) -> String {
    match transport {
        Some(transport) => format!("{fixture}.{command}.{at}.{transport}.json"),
        None => format!("{fixture}.{command}.{at}.json"),
    }
}

fn run(cache: &Path, fixture: &str, command: &str, at: i64, transport: Option<&str>) -> String {
    let journal = fixtures().join(format!("{fixture}.jsonl"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_journalscope"));
    cmd.env("JOURNALSCOPE_CACHE_DIR", cache)
        .arg(command)
        .arg(&journal)
        .arg("--at")
        .arg(at.to_string())
        .arg("--json");
    if let Some(transport) = transport {
        cmd.arg("--transport").arg(transport);
    }
    let output = cmd.output().expect("the binary runs");
    assert!(
        output.status.success(),
        "{command} {fixture} --at {at} succeeds: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn golden_outputs_match_the_committed_expectations() {
    let cache = tempfile::tempdir().expect("temp cache dir");
    let bless = std::env::var_os("JOURNALSCOPE_BLESS").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for &(fixture, command, at, transport) in CASES {
        let actual = run(cache.path(), fixture, command, at, transport);
        let path = fixtures()
            .join("expected")
            .join(expected_name(fixture, command, at, transport));
        if bless {
            std::fs::write(&path, &actual).expect("write expectation");
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{} is readable ({e}); bless with JOURNALSCOPE_BLESS=1",
                path.display()
            )
        });
        if expected != actual {
            mismatches.push(path.display().to_string());
        }
    }
    assert!(
        mismatches.is_empty(),
        "outputs differ from the committed expectations (JOURNALSCOPE_BLESS=1 rewrites them): {mismatches:?}"
    );
}
