//! The questions an AG-UI journal answers by family: the thread at an offset, a step with the
//! part of the thread's messages a window covers, a page of those messages, and the runs.

use std::fmt::{self, Write};

use journalscope_seam::family::{Answer, Ask, AskError, Family, Reply};
use journalscope_store::store::{JournalRow, Store};

use super::reducer::status_text;
use super::view::{
    messages_stored, render_state_text, runs_stored, state_at_stored, step_view_stored, RunSpan,
};

/// The families an AG-UI journal answers: its thread's state, and its runs as its turns.
pub fn answers(family: Family) -> bool {
    matches!(family, Family::State | Family::Turns)
}

/// The answer to `ask` about the stored AG-UI journal `journal`. Its offsets are positions,
/// so the event at row `seq` has offset `seq + 1`.
pub fn answer(store: &Store, journal: &JournalRow, ask: &Ask) -> Result<Reply, AskError> {
    let id = journal.id;
    let answer = match ask {
        Ask::State { at, .. } => Answer::of(&state_at_stored(store, id, *at)?, |out, state| {
            out.push_str(&render_state_text(state));
            Ok(())
        }),
        Ask::Step { seq, window, .. } => {
            let at = i64::try_from(*seq).unwrap_or(i64::MAX).saturating_add(1);
            Answer::view(&step_view_stored(store, id, at)?.windowed(*window))
        }
        Ask::Messages { at, window } => Answer::view(&messages_stored(store, id, *at, *window)?),
        Ask::Turns { .. } => Answer::of(&runs_stored(store, id)?, |out, runs| runs_text(out, runs)),
        _ => return Err(AskError::NotOffered(ask.family())),
    };
    Ok(Reply::View(answer))
}

/// A run a line: its id, where it started and ended, and how.
fn runs_text(out: &mut String, runs: &[RunSpan]) -> fmt::Result {
    if runs.is_empty() {
        return writeln!(out, "no runs");
    }
    for run in runs {
        let end = run
            .end
            .map_or_else(|| "open".to_string(), |end| format!("@{end}"));
        writeln!(
            out,
            "run {}  thread {}  @{}..{end}  {}",
            run.run_id.as_deref().unwrap_or("-"),
            run.thread_id.as_deref().unwrap_or("-"),
            run.start,
            status_text(run.status)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_line_says_where_it_started_and_how_it_ended() {
        // Given one finished run and one still open
        let runs = [
            RunSpan {
                thread_id: Some("t1".into()),
                run_id: Some("r1".into()),
                start: 1,
                end: Some(4),
                status: super::super::RunStatus::Finished,
            },
            RunSpan {
                thread_id: None,
                run_id: None,
                start: 5,
                end: None,
                status: super::super::RunStatus::Running,
            },
        ];
        // When they are written as text
        let mut out = String::new();
        runs_text(&mut out, &runs).expect("writing to a String does not fail");
        // Then each line names the run, its span and its status
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "a line per run");
        assert!(lines[0].starts_with("run r1  thread t1  @1..@4  "), "{out}");
        assert!(lines[1].contains("@5..open"), "an open run says so: {out}");
    }
}
