//! The `journalscope` binary as the CLI tests run it: each `Cli` has a cache directory of its
//! own, so tests never share imported databases, and says which command failed and why.
#![allow(dead_code)]

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
