//! A run's lifecycle in the AG-UI fold: a run's start and its id, the steps inside it, and the
//! order events must come in, each break reported as a diagnostic.

use super::*;

impl Thread {
    pub(super) fn check_order(&mut self, at: At, kind: &str, report: &mut Outcome) {
        let first = !self.seen_event;
        self.seen_event = true;
        if kind == "RUN_STARTED" {
            return;
        }
        if first {
            Self::warn(
                report,
                at,
                "first-event-not-run-started",
                format!("the stream opens with {kind}, not RUN_STARTED"),
            );
        } else if !self.halted_by_patch
            && matches!(
                (self.run.status, kind),
                (RunStatus::Finished | RunStatus::Interrupted, "RUN_ERROR")
                    | (RunStatus::Error, "RUN_FINISHED")
            )
        {
            Self::warn(
                report,
                at,
                "run-finished-and-failed",
                format!(
                    "{kind} after the run already ended ({}): a run ends with RUN_FINISHED or RUN_ERROR, not both",
                    status_word(self.run.status)
                ),
            );
        } else if !self.halted_by_patch
            && matches!(
                self.run.status,
                RunStatus::Finished | RunStatus::Interrupted | RunStatus::Error
            )
        {
            Self::warn(
                report,
                at,
                "event-after-run-end",
                format!(
                    "{kind} after the run ended ({}) and before a new RUN_STARTED",
                    status_word(self.run.status)
                ),
            );
        }
    }

    pub(super) fn run_started(&mut self, at: At, event: &Value, report: &mut Outcome) {
        if self.run.status == RunStatus::Running {
            self.check_open(at, report);
            Self::warn(
                report,
                at,
                "run-not-finished",
                format!(
                    "RUN_STARTED while run {:?} is still running",
                    self.run.run_id.as_deref().unwrap_or("")
                ),
            );
        }
        self.open_messages.clear();
        self.open_tool_calls.clear();
        self.steps.clear();
        self.run = started_run(event);
        self.runs_started += 1;
        self.halted_by_patch = false;
        self.deltas_since_snapshot = 0;
        let input = event.field("input");
        if let Some(baseline) = input.and_then(|i| i.field("state")) {
            self.state_established = true;
            self.state_only_from_deltas = false;
            if self.runs_started > 1 && *baseline != self.state {
                Self::warn(
                    report,
                    at,
                    "baseline-differs",
                    "the run's input.state differs from the state carried over from the previous run: the input wins",
                );
            }
            self.state = baseline.clone();
        }
        if let Some(messages) = input
            .and_then(|i| i.field("messages"))
            .and_then(Value::as_array)
        {
            for message in messages {
                let seen = id_of(message).is_some_and(|id| self.messages.position(id).is_some());
                if !seen {
                    self.messages.push(message.clone());
                }
            }
        }
        report.marks.push((
            "run-start".into(),
            format!("run {}", self.run.run_id.as_deref().unwrap_or("")),
        ));
    }

    /// A run ends under the id it started with (LangGraph finishes under another: a warning).
    pub(super) fn check_run_id(&self, at: At, event: &Value, kind: &str, report: &mut Outcome) {
        let (Some(ended), Some(started)) = (str_field(event, "runId"), self.run.run_id.as_deref())
        else {
            return;
        };
        if self.run.status == RunStatus::Running && ended != started {
            Self::warn(
                report,
                at,
                "run-id-changed",
                format!("{kind} names run {ended:?}, but run {started:?} is the one running"),
            );
        }
    }

    pub(super) fn check_steps(&self, at: At, report: &mut Outcome) {
        if !self.steps.is_empty() {
            Self::warn(
                report,
                at,
                "step-not-finished",
                format!(
                    "the run ends while steps are still open: {}",
                    self.steps.join(", ")
                ),
            );
        }
    }

    pub(super) fn check_open(&mut self, at: At, report: &mut Outcome) {
        if !self.open_messages.is_empty() {
            let ids: Vec<&str> = self.open_messages.iter().map(String::as_str).collect();
            Self::warn(
                report,
                at,
                "run-ends-with-open-messages",
                format!(
                    "the run ends while messages are still open: {}",
                    ids.join(", ")
                ),
            );
        }
        if !self.open_tool_calls.is_empty() {
            let ids: Vec<&str> = self.open_tool_calls.iter().map(String::as_str).collect();
            Self::warn(
                report,
                at,
                "run-ends-with-open-tool-calls",
                format!(
                    "the run ends while tool calls are still open: {}",
                    ids.join(", ")
                ),
            );
        }
        self.open_messages.clear();
        self.open_tool_calls.clear();
    }
}
