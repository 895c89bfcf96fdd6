//! The installed package's window, started the way the desktop starts it: the `Exec` line of
//! the installed desktop entry, with a journal path in place of its file code. It must open
//! that journal, list its events, and name this build's version in its About box. Ignored by
//! a plain `cargo test`; scripts/package-check.sh runs it after installing the `.deb`, and it
//! leaves target/e2e-screenshots/installed-app.png.

use std::path::{Path, PathBuf};

mod common;
use common::*;

const DESKTOP_ENTRY: &str = "/usr/share/applications/Journalscope.desktop";

/// The program and arguments the desktop runs to open `journal` with the app.
fn desktop_command(journal: &Path) -> Result<(PathBuf, Vec<String>), String> {
    let entry = std::fs::read_to_string(DESKTOP_ENTRY)
        .map_err(|e| format!("read {DESKTOP_ENTRY} (is the package installed?): {e}"))?;
    let exec = entry
        .lines()
        .find_map(|l| l.strip_prefix("Exec="))
        .ok_or_else(|| format!("{DESKTOP_ENTRY} has no Exec line"))?;
    let mut words = exec.split_whitespace();
    let program = words.next().ok_or("an empty Exec line")?;
    let mut file_code = false;
    let args: Vec<String> = words
        .map(|w| match w {
            "%f" | "%F" | "%u" | "%U" => {
                file_code = true;
                journal.to_string_lossy().into_owned()
            }
            other => other.to_string(),
        })
        .collect();
    check(
        file_code,
        &format!("the Exec line passes the opened file on (`{exec}`)"),
    )?;
    // The desktop finds a bare program name on PATH, as a shell would.
    let program = if program.contains('/') {
        PathBuf::from(program)
    } else {
        std::env::var_os("PATH")
            .map(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join(program))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
            .into_iter()
            .find(|p| p.is_file())
            .ok_or_else(|| format!("`{program}` from the Exec line is not on PATH"))?
    };
    Ok((program, args))
}

async fn opens_the_journal_it_is_given(port: u16, journal: &Path) -> Outcome {
    let (program, args) = desktop_command(journal)?;
    check(
        program.starts_with("/usr/bin"),
        &format!(
            "the desktop entry starts the installed app, not {}",
            program.display()
        ),
    )?;
    let c = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        connect_app(port, &program, &args),
    )
    .await
    .map_err(|_| "no session with the installed app within 60 s".to_string())??;
    let outcome = async {
        let name = journal
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        wait_until(
            &c,
            &format!("{name} to open"),
            &format!(
                "const f = document.querySelector('[data-testid=file-name]'); \
                 return !!f && f.textContent === '{name}' && \
                 document.querySelectorAll('[data-testid=event-row]').length > 0 && \
                 !document.querySelector('[data-testid=import-progress]');"
            ),
        )
        .await?;
        screenshot(&c, "installed-app").await?;
        keys(&c, "?").await?;
        let about = text_of(&c, "[data-testid=about-version]").await?;
        check(
            about.contains(journalscope_document::release::DESCRIPTION),
            &format!(
                "the About box names this build ({}), not `{about}`",
                journalscope_document::release::DESCRIPTION
            ),
        )?;
        screenshot(&c, "installed-app-about").await
    }
    .await;
    let _ = c.close().await;
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the installed package; scripts/package-check.sh runs it"]
async fn the_installed_app_opens_a_journal_from_its_desktop_entry() {
    let harness = Harness::start(&[]);
    let journal = harness.home.path().join("iterate-demo.jsonl");
    std::fs::copy(workspace().join("demo/iterate-demo.jsonl"), &journal).expect("copy the demo");
    assert_all(
        vec![opens_the_journal_it_is_given(harness.port, &journal).await],
        "the installed app",
    );
}
