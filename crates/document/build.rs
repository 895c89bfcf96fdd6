//! Stamps the commit a build came from into the binary, so `--version` and the app's About box
//! can name it. A build outside a git checkout (a source tarball) says "unknown" unless
//! `JOURNALSCOPE_COMMIT` names it.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=JOURNALSCOPE_COMMIT");
    let commit = std::env::var("JOURNALSCOPE_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=JOURNALSCOPE_COMMIT={commit}");
}

fn git_commit() -> Option<String> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let git_dir = Command::new("git")
        .args(["rev-parse", "--absolute-git-dir"])
        .current_dir(&manifest)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let git_dir = String::from_utf8(git_dir.stdout).ok()?;
    let git_dir = Path::new(git_dir.trim());
    // A new commit moves HEAD or the branch it names; either reruns this script.
    for watched in ["HEAD", "refs/heads", "packed-refs"] {
        let path = git_dir.join(watched);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&manifest)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let head = String::from_utf8(head.stdout).ok()?;
    Some(head.trim().to_string()).filter(|h| !h.is_empty())
}
