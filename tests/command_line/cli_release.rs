//! What the command line says of itself for a package to ship: its version line, its shell
//! completions and its manual pages, all generated from the same argument definitions.

use crate::support::cli;
use cli::Cli;

#[test]
fn given_the_binary_when_asked_its_version_then_it_names_the_cargo_version_and_the_commit() {
    let cli = Cli::new();
    let line = String::from_utf8(cli.ok_bytes(&["--version"])).expect("utf-8");
    // Bug reports quote this line; it must say which build, down to the commit.
    assert_eq!(
        line.trim_end(),
        format!("journalscope {}", journalscope::release::DESCRIPTION)
    );
    assert!(line.contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn given_each_shell_when_completions_are_asked_then_the_script_completes_every_command() {
    let cli = Cli::new();
    for (shell, marker) in [
        ("bash", "_journalscope()"),
        ("zsh", "#compdef journalscope"),
        ("fish", "complete -c journalscope"),
    ] {
        let script = String::from_utf8(cli.ok_bytes(&["completions", shell])).expect("utf-8");
        assert!(
            script.contains(marker),
            "{shell}: the script declares journalscope"
        );
        // A command missing from the script would not complete: check a few across the tree.
        for command in ["import", "project", "request", "tail", "search"] {
            assert!(script.contains(command), "{shell} completes `{command}`");
        }
        // The child `bench` runs for its peak-memory reading is not for users to type.
        assert!(
            !script.contains("bench-import"),
            "{shell} hides bench-import"
        );
    }
}

#[test]
fn given_a_directory_when_manual_pages_are_written_then_there_is_one_per_command() {
    let cli = Cli::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("man1");
    cli.ok_bytes(&["manpages", out.to_str().expect("utf-8 path")]);
    let main = std::fs::read_to_string(out.join("journalscope.1")).expect("journalscope.1");
    // `man journalscope` shows this NAME line and lists the commands' own pages.
    assert!(main.contains(".SH NAME"));
    assert!(
        main.contains("journalscope\\-import(1)"),
        "the main page points at the import page"
    );
    for command in ["import", "project", "request", "tail", "completions"] {
        let page = out.join(format!("journalscope-{command}.1"));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(
            text.contains(".SH SYNOPSIS"),
            "{command}'s page has a synopsis"
        );
    }
    assert!(
        !out.join("journalscope-bench-import.1").exists(),
        "no page for the hidden child command"
    );
}

#[test]
fn given_an_unknown_shell_when_completions_are_asked_then_the_error_names_the_choices() {
    let cli = Cli::new();
    let output = cli.run(&["completions", "tcsh"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bash") && stderr.contains("fish"),
        "{stderr}"
    );
}
