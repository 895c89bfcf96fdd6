//! The AG-UI event protocol's rules as this reader checks them: every diagnostic code the
//! AG-UI reader and reducer raise, with its severity and the part of the AG-UI documentation
//! (docs.ag-ui.com) it comes from. What the protocol says a producer must do is an error; what
//! it says one should do, or what the official client only tolerates, is a warning; what is
//! allowed but easy to misread is advice (info).

use journalscope_shapes::diagnostic::Severity;

/// The version of these rules. A database whose AG-UI diagnostics an older version derived
/// (recorded in its checkpoint cover, as the encoding of the state it describes) is refreshed
/// when opened, so that it shows what this version finds.
pub const RULES_VERSION: u32 = 7;

/// One rule of the protocol and the code its violations carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub severity: Severity,
    /// Where the AG-UI documentation states it: page, then section.
    pub section: &'static str,
    /// What a journal does that breaks it.
    pub broken_when: &'static str,
}

const fn rule(
    code: &'static str,
    severity: Severity,
    section: &'static str,
    broken_when: &'static str,
) -> Rule {
    Rule {
        code,
        severity,
        section,
        broken_when,
    }
}

const EVENTS: &str = "concepts/events";
const LIFECYCLE: &str = "concepts/events: Lifecycle Events";
const TEXT: &str = "concepts/events: Text Message Events";
const TOOLS: &str = "concepts/events: Tool Call Events";
const STATE: &str = "concepts/events: State Management Events";
const ACTIVITY: &str = "concepts/events: Activity Events";
const REASONING: &str = "concepts/events: Reasoning Events";

use Severity::{Error, Info, Warning};

/// Every rule, grouped as the documentation groups them.
pub const RULES: &[Rule] = &[
    // The wire: each record is one event object of a known type with well-typed fields.
    rule("invalid-json", Error, EVENTS, "a record is not JSON"),
    rule(
        "not-an-object",
        Error,
        EVENTS,
        "a record is JSON but not an event object",
    ),
    rule(
        "missing-type",
        Error,
        "concepts/events: Base Event Properties",
        "an event has no string `type`",
    ),
    rule(
        "unknown-type",
        Warning,
        "concepts/events: Event Types Overview",
        "an event's type is not one the protocol defines",
    ),
    rule(
        "missing-field",
        Error,
        EVENTS,
        "an event lacks a field its type requires",
    ),
    rule(
        "invalid-field",
        Error,
        EVENTS,
        "an event's field has the wrong JSON type",
    ),
    rule(
        "invalid-timestamp",
        Warning,
        "concepts/events: Base Event Properties",
        "`timestamp` is not a number",
    ),
    rule(
        "metadata-null",
        Error,
        EVENTS,
        "`metadata` is null instead of absent or an object",
    ),
    // Runs and steps.
    rule(
        "first-event-not-run-started",
        Warning,
        LIFECYCLE,
        "the stream opens with another event than RUN_STARTED",
    ),
    rule(
        "run-not-finished",
        Warning,
        LIFECYCLE,
        "a RUN_STARTED arrives while a run is still running",
    ),
    rule(
        "event-after-run-end",
        Warning,
        LIFECYCLE,
        "an event arrives after RUN_FINISHED or RUN_ERROR, before the next RUN_STARTED",
    ),
    rule(
        "run-never-finished",
        Warning,
        LIFECYCLE,
        "the journal ends while a run is running",
    ),
    rule(
        "run-id-changed",
        Warning,
        LIFECYCLE,
        "a run finishes or fails under another runId than it started with",
    ),
    rule(
        "run-finished-and-failed",
        Warning,
        LIFECYCLE,
        "a run that finished gets a RUN_ERROR, or one that failed a RUN_FINISHED",
    ),
    rule(
        "run-ends-with-open-messages",
        Warning,
        LIFECYCLE,
        "a run ends while text or reasoning messages are still open",
    ),
    rule(
        "run-ends-with-open-tool-calls",
        Warning,
        LIFECYCLE,
        "a run ends while tool calls are still open",
    ),
    rule(
        "step-not-started",
        Warning,
        LIFECYCLE,
        "STEP_FINISHED names a step that never started",
    ),
    rule(
        "step-not-finished",
        Warning,
        LIFECYCLE,
        "a run finishes while a step is still open",
    ),
    rule(
        "baseline-differs",
        Warning,
        "concepts/state: State Synchronization",
        "a later run's input.state differs from the state the thread holds",
    ),
    // Text messages.
    rule(
        "message-not-started",
        Warning,
        TEXT,
        "content or an end arrives for a message that never started",
    ),
    rule(
        "message-id-reused",
        Error,
        TEXT,
        "a message starts under an id that is still open",
    ),
    rule(
        "message-id-reused-after-end",
        Error,
        TEXT,
        "a message starts under the id of a message that already ended",
    ),
    rule(
        "message-already-ended",
        Warning,
        TEXT,
        "content or another end arrives for a message that already ended",
    ),
    rule(
        "empty-delta",
        Error,
        TEXT,
        "a content delta is the empty string",
    ),
    rule(
        "chunk-without-id",
        Error,
        TEXT,
        "a chunk that opens a message or tool call carries no id",
    ),
    rule(
        "message-without-id",
        Warning,
        STATE,
        "a MESSAGES_SNAPSHOT holds a message without an id",
    ),
    // Tool calls.
    rule(
        "tool-call-not-started",
        Warning,
        TOOLS,
        "arguments or an end arrive for a tool call that never started",
    ),
    rule(
        "tool-result-unknown-call",
        Warning,
        TOOLS,
        "a tool result answers a call no assistant message holds",
    ),
    rule(
        "tool-call-id-reused",
        Warning,
        TOOLS,
        "a tool call starts under an id started before in the thread",
    ),
    rule(
        "tool-call-args-not-json",
        Warning,
        TOOLS,
        "a tool call ends with arguments that are not JSON",
    ),
    rule(
        "tool-call-unknown-parent",
        Info,
        TOOLS,
        "TOOL_CALL_START names a parentMessageId the thread does not hold",
    ),
    rule(
        "tool-result-before-call-ended",
        Warning,
        TOOLS,
        "a tool result arrives before its call's TOOL_CALL_END",
    ),
    // Shared state.
    rule(
        "state-delta-before-snapshot",
        Warning,
        STATE,
        "a STATE_DELTA arrives before any snapshot or run input said what the state is",
    ),
    rule(
        "state-deltas-superseded",
        Info,
        STATE,
        "a STATE_SNAPSHOT mid-run replaces what the run's STATE_DELTAs built",
    ),
    rule(
        "state-never-established",
        Info,
        STATE,
        "the journal ends with a state only STATE_DELTAs on `{}` built",
    ),
    rule(
        "patch-failed",
        Warning,
        STATE,
        "a STATE_DELTA does not apply to the state",
    ),
    rule(
        "malformed-patch",
        Error,
        STATE,
        "a STATE_DELTA is not a JSON Patch document",
    ),
    // Activities.
    rule(
        "activity-not-started",
        Warning,
        ACTIVITY,
        "an ACTIVITY_DELTA names no activity an ACTIVITY_SNAPSHOT created",
    ),
    rule(
        "activity-patch-failed",
        Warning,
        ACTIVITY,
        "an ACTIVITY_DELTA's patch does not apply",
    ),
    // Reasoning.
    rule(
        "reasoning-never-ended",
        Warning,
        REASONING,
        "the journal ends while a REASONING_START has had no REASONING_END",
    ),
];

/// The rule behind an AG-UI diagnostic code.
pub fn rule_of(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_names_one_rule() {
        // A code that named two rules could not be matched on by tools.
        let mut codes: Vec<&str> = RULES.iter().map(|r| r.code).collect();
        codes.sort_unstable();
        let before = codes.len();
        codes.dedup();
        assert_eq!(before, codes.len(), "codes are unique");
        assert_eq!(rule_of("run-id-changed").map(|r| r.severity), Some(Warning));
    }
}
