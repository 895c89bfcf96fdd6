//! The `journalscope` binary as the CLI tests run it: each `Cli` has a cache directory of its
//! own, so tests never share imported databases, and says which command failed and why.

use std::process::{Command, Output};

use serde_json::Value;

pub struct Cli {
    pub cache: tempfile::TempDir,
}

impl Cli {
    pub fn new() -> Cli {
        Cli {
            cache: tempfile::tempdir().expect("temp cache dir"),
        }
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_journalscope"));
        cmd.env("JOURNALSCOPE_CACHE_DIR", self.cache.path())
            .args(args);
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("the binary runs")
    }

    /// Runs a command that must succeed; returns its stdout as bytes.
    pub fn ok_bytes(&self, args: &[&str]) -> Vec<u8> {
        let output = self.run(args);
        assert!(
            output.status.success(),
            "`{}` succeeds: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    }

    /// Runs a command that must succeed; returns its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        String::from_utf8(self.ok_bytes(args)).expect("UTF-8 stdout")
    }

    /// Runs a command that must succeed and print JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        let text = self.ok(args);
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("`{}` prints JSON ({e}): {text}", args.join(" ")))
    }
}

/// The provider body `request --json` describes: its model and each message's role and
/// content, compact, as `request -o` writes it (`--json` adds each message's `tokens`).
pub fn body_of(view: &serde_json::Value) -> Vec<u8> {
    let messages: Vec<serde_json::Value> = view["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            assert!(
                m["tokens"].as_u64().is_some(),
                "every --json message has tokens"
            );
            serde_json::json!({"role": m["role"], "content": m["content"]})
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"model": view["model"], "messages": messages}))
        .expect("serialise")
}
