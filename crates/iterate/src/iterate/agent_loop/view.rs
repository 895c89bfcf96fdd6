//! The agent loop's state as the projection pane shows it: its context items in list order,
//! and beside them its runs, trigger, open request, owed answer, pause and counters.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::fold::{AgentLoop, ContextItem, OwedAnswer, TriggerSource};
use crate::iterate::event::Role;
use crate::iterate::roles::{ProviderRole, Rule};
use crate::iterate::view::{ItemView, ProviderRoles};
use journalscope_shapes::record_json::Field;
use journalscope_shapes::tokens::Encoding;

/// One run: the call it runs, whether it settled, and where its result stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunView {
    /// The run's offset (its `itx/run-requested`).
    #[ts(type = "number")]
    pub run: i64,
    pub call_id: String,
    pub settled: bool,
    /// The script item that carries its result, if one is in the list.
    #[ts(type = "number | null")]
    pub result: Option<i64>,
    /// Whether that result reached the model in time, as its call's output; a result that
    /// came back after the next request opened goes as a late message of its own.
    pub in_time: Option<bool>,
}

/// The loop beside its items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AgentLoopView {
    pub runs: Vec<RunView>,
    /// The item the next request opens on, and whether it came from outside the loop.
    #[ts(type = "number | null")]
    pub pending_trigger: Option<i64>,
    pub pending_external: bool,
    /// Words from other contexts waiting at the input gate.
    #[ts(type = "number[]")]
    pub gate: Vec<i64>,
    #[ts(type = "number | null")]
    pub open_request: Option<i64>,
    /// The item an answer is owed to, why, and whether the agent was reminded.
    #[ts(type = "number | null")]
    pub owed_answer: Option<i64>,
    pub owed_why: Option<String>,
    pub reminded: bool,
    pub paused: bool,
    pub consecutive_llm_failures: u32,
    pub autonomous_turn_count: u32,
}

impl AgentLoopView {
    pub fn of(state: &AgentLoop) -> AgentLoopView {
        let trigger = state.pending_trigger.as_ref();
        let OwedAnswer {
            offset,
            why,
            reminded,
        } = state.owed_answer.clone().unwrap_or(OwedAnswer {
            offset: i64::MIN,
            why: String::new(),
            reminded: false,
        });
        let owed = state.owed_answer.is_some();
        let placed = super::responses::placed(state);
        AgentLoopView {
            runs: state
                .runs
                .iter()
                .map(|(run, call)| {
                    let result = state
                        .items
                        .iter()
                        .rposition(|item| item.script_run() == Some(*run));
                    RunView {
                        run: *run,
                        call_id: call.clone(),
                        settled: !state.pending_runs.contains(run),
                        result: result.map(|at| state.items[at].offset),
                        in_time: result.map(|at| placed.contains(&at)),
                    }
                })
                .collect(),
            pending_trigger: trigger.map(|t| t.offset),
            pending_external: trigger.is_some_and(|t| t.source == TriggerSource::External),
            gate: trigger.and_then(|t| t.gate.clone()).unwrap_or_default(),
            open_request: state.open_request.as_ref().map(|o| o.requested_at_offset),
            owed_answer: owed.then_some(offset),
            owed_why: owed.then_some(why),
            reminded: owed && reminded,
            paused: state.paused,
            consecutive_llm_failures: state.consecutive_llm_failures,
            autonomous_turn_count: state.autonomous_turn_count,
        }
    }
}

/// The role an item's input items take, as §4 renders it.
fn sent_as(item: &ContextItem) -> (Role, Rule) {
    match (item.role, item.actor_type()) {
        (Role::System, _) => (Role::Developer, Rule::TrustedDeveloper),
        (Role::Assistant, _) => (Role::Assistant, Rule::Assistant),
        (Role::Developer, Some("script")) => (Role::User, Rule::ExternalActorDowngrade),
        (Role::Developer, actor) if item.compaction.is_none() && actor != Some("user") => {
            (Role::Developer, Rule::TrustedDeveloper)
        }
        (Role::Developer, _) if item.compaction.is_some() => {
            (Role::User, Rule::CompactionSummaryDowngrade)
        }
        (Role::Developer, _) => (Role::User, Rule::ExternalActorDowngrade),
        (Role::User, _) => (Role::User, Rule::User),
    }
}

/// The first line the pane shows for an item: its offset and what it carries.
fn header(item: &ContextItem) -> String {
    let mut header = format!("@{}", item.offset);
    if item.stamp {
        header.push_str(" stamp");
    }
    if let Some(Value::Object(sections)) = &item.sections {
        let names: Vec<&str> = sections.keys().map(String::as_str).collect();
        let kind = if item.snapshot { "head" } else { "sections" };
        header.push_str(&format!(" {kind}={}", names.join(",")));
    }
    if let Some(call) = item.call.as_ref().and_then(|c| c.field("callId")) {
        header.push_str(&format!(" call={}", call.as_str().unwrap_or("")));
    }
    if let Some(run) = item.script_run() {
        header.push_str(&format!(" result-of=@{run}"));
    }
    if let Some(from) = &item.from {
        header.push_str(&format!(" from={from}"));
    }
    header
}

/// The variant under which the store keeps the count of a loop item's record: the two lowest
/// bits of a seed or sections item's variant name its rules (0 to 2), never 3.
pub const TOKEN_VARIANT: i64 = 3;

/// An item's o200k_base tokens: none for no text, else its memo's, else counted now (which
/// loads the encoding).
pub fn counted(item: &ContextItem) -> u32 {
    if item.content.is_empty() {
        return 0;
    }
    item.tokens
        .get_or_count(|| Encoding::O200kBase.count(&item.content))
}

/// The item with text the record at `seq` put in the list, when it put one: at the end, or a
/// compaction's summary (the head a compaction writes has no text of its own).
pub fn added_by(state: &AgentLoop, seq: u64, compacted: bool) -> Option<&ContextItem> {
    let item = match state.items.last() {
        Some(last) if last.seq == seq => Some(last),
        _ if compacted => state
            .items
            .iter()
            .rev()
            .find(|item| item.seq == seq && item.compaction.is_some()),
        _ => None,
    }?;
    (!item.content.is_empty()).then_some(item)
}

/// Each item of the loop's list as the pane shows it.
pub fn items(state: &AgentLoop, published_through: Option<i64>) -> Vec<ItemView> {
    state
        .items
        .iter()
        .map(|item| {
            let (role, rule) = sent_as(item);
            let provider = ProviderRole { role, rule };
            ItemView {
                offset: item.offset,
                role: item.role,
                actor: item.actor.clone(),
                key: None,
                updates_offset: None,
                refs: Vec::new(),
                files: item.files.clone(),
                content: item.content.clone(),
                published: published_through.is_some_and(|p| item.offset <= p),
                compaction: item.compaction.clone(),
                llm_request_offset: item.llm_request_offset,
                provider_roles: ProviderRoles {
                    openai: provider,
                    workers_ai: provider,
                },
                header: header(item),
                coalesced: Vec::new(),
                tokens: counted(item),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterate::agent_loop::fold::tests::{added, event, folded, request, said};
    use serde_json::json;

    #[test]
    fn given_a_loop_with_a_run_and_a_gate_when_viewed_then_items_runs_and_waits_are_shown() {
        let (state, _) = folded(&[
            said(1, "go"),
            request(2, 1),
            added(
                3,
                json!({"role": "assistant", "content": "x", "llmRequestOffset": 2, "call": {"callId": "c1", "status": "", "script": "s"}}),
            ),
            event(4, "itx/run-requested", json!({"code": "s"}), None),
            added(
                5,
                json!({"role": "developer", "content": "done", "actor": {"type": "script", "requestOffset": 4}}),
            ),
            event(
                6,
                "agent/context-added",
                json!({"role": "user", "content": "ping", "answerOwed": true}),
                Some(json!({"origin": "/agents/b"})),
            ),
        ]);
        let view = AgentLoopView::of(&state);
        assert_eq!(
            view.runs,
            vec![RunView {
                run: 4,
                call_id: "c1".to_string(),
                settled: false,
                result: Some(5),
                in_time: Some(true),
            }],
            "the run, its call, not settled, its result in the list"
        );
        assert_eq!(
            (view.open_request, view.pending_trigger, view.gate.clone()),
            (Some(2), Some(6), Vec::new()),
            "the request is open; the words behind the script's trigger are not gated"
        );
        assert_eq!(
            view.owed_why.as_deref(),
            Some("the message"),
            "an answer is owed"
        );
        let shown = items(&state, Some(2));
        assert_eq!(
            shown.iter().map(|i| i.header.as_str()).collect::<Vec<_>>(),
            vec![
                "@1",
                "@2 stamp",
                "@3 call=c1",
                "@5 result-of=@4",
                "@6 from=/agents/b"
            ],
            "each item's header says what it carries"
        );
        assert_eq!(
            shown.iter().map(|i| i.published).collect::<Vec<_>>(),
            vec![true, true, false, false, false],
            "items up to the request are published"
        );
        assert_eq!(
            shown[3].provider_roles.openai.role,
            Role::User,
            "a script's result goes as user words"
        );
    }
}
