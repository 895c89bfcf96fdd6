//! What a `thread_rolled_back {num_turns}` line does to the model's input, as Codex rebuilds
//! its history (0.117 to 0.150, `drop_last_n_user_turns`): the input loses the last
//! `num_turns` user turns, cut at the boundary that many turns from the end (at the first one
//! when there are fewer), with the run of context messages just above the cut.

use serde_json::Value;

use journalscope_shapes::record_json::Field;

/// Context a user message carries rather than what the user said: a part whose trimmed text
/// starts and ends with one of these pairs, in any case.
const USER_CONTEXT: &[(&str, &str)] = &[
    ("# AGENTS.md instructions", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<goal_context>", "</goal_context>"),
    ("<codex_internal_context", "</codex_internal_context>"),
    ("<recommended_plugins>", "</recommended_plugins>"),
    ("<hook_prompt", "</hook_prompt>"),
    ("<external_", ">"),
];

/// Context a developer message carries: its trimmed text starts with one of these, in any case.
const DEVELOPER_CONTEXT: &[&str] = &[
    "<permissions instructions>",
    "<model_switch>",
    "<collaboration_mode>",
    "<realtime_conversation>",
    "<personality_spec>",
    "<managed_developer_instructions>",
    "<apps_instructions>",
    "<multi_agent_role>",
    "<multi_agent_mode>",
    "<environments_instructions>",
    "<git_attribution>",
    "<plugins_instructions>",
    "<skills_instructions>",
    "<tools>",
    "<token_budget>",
    "<context_window>",
    "<context_window_guidance>",
    "<rollout_budget>",
];

fn starts_with_any_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

fn ends_with_any_case(text: &str, suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text
            .get(text.len() - suffix.len()..)
            .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
}

/// The texts of a message item's parts.
fn texts(item: &Value) -> Vec<&str> {
    match item.field("content") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.field("text").and_then(Value::as_str))
            .collect(),
        Some(Value::String(text)) => vec![text.as_str()],
        _ => Vec::new(),
    }
}

fn role(item: &Value) -> Option<&str> {
    (item
        .field("type")
        .and_then(Value::as_str)
        .unwrap_or("message")
        == "message")
        .then(|| item.field("role").and_then(Value::as_str))
        .flatten()
}

fn user_context(item: &Value) -> bool {
    role(item) == Some("user")
        && texts(item).iter().any(|text| {
            let text = text.trim();
            USER_CONTEXT.iter().any(|(start, end)| {
                starts_with_any_case(text, start) && ends_with_any_case(text, end)
            })
        })
}

fn developer_context(item: &Value) -> bool {
    role(item) == Some("developer")
        && texts(item).iter().any(|text| {
            let text = text.trim();
            DEVELOPER_CONTEXT
                .iter()
                .any(|prefix| starts_with_any_case(text, prefix))
        })
}

/// Whether an item opens a user turn: a user message that is not context, or a message one
/// agent sent another.
fn opens_a_turn(item: &Value) -> bool {
    if item.field("type").and_then(Value::as_str) == Some("agent_message") {
        return true;
    }
    match role(item) {
        Some("user") => !user_context(item),
        Some("assistant") => match texts(item).as_slice() {
            [only] => serde_json::from_str::<Value>(only).is_ok_and(|v| {
                ["author", "recipient", "content"]
                    .iter()
                    .all(|k| v.get(k).is_some())
            }),
            _ => false,
        },
        _ => false,
    }
}

/// Takes the last `turns` user turns off `input`.
pub(super) fn roll_back<T>(input: &mut Vec<(T, Value)>, turns: usize) {
    if turns == 0 {
        return;
    }
    let boundaries: Vec<usize> = input
        .iter()
        .enumerate()
        .filter(|(_, (_, item))| opens_a_turn(item))
        .map(|(at, _)| at)
        .collect();
    let Some(&first) = boundaries.first() else {
        return;
    };
    let mut cut = if turns >= boundaries.len() {
        first
    } else {
        boundaries[boundaries.len() - turns]
    };
    while cut > first {
        let above = &input[cut - 1].1;
        if developer_context(above) || user_context(above) {
            cut -= 1;
        } else {
            break;
        }
    }
    input.truncate(cut);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(role: &str, text: &str) -> ((), Value) {
        (
            (),
            json!({"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}),
        )
    }

    fn texts_of(input: &[((), Value)]) -> Vec<String> {
        input.iter().map(|(_, item)| texts(item).join("")).collect()
    }

    #[test]
    fn given_two_turns_when_one_is_rolled_back_then_the_last_goes_with_the_context_above_it() {
        // Given the session's context, a first turn, the context of a second turn, an aborted
        // marker, and the second turn with its answer
        let mut input = vec![
            message(
                "developer",
                "<permissions instructions>sandboxed</permissions instructions>",
            ),
            message("user", "<environment_context>cwd</environment_context>"),
            message("user", "first question"),
            message("assistant", "first answer"),
            message("user", "<TURN_ABORTED>interrupted</turn_aborted>"),
            message("developer", "<model_switch>to gpt-5</model_switch>"),
            message("user", "second question"),
            message("assistant", "second answer"),
        ];
        // When one turn is rolled back
        roll_back(&mut input, 1);
        // Then the second turn goes, and the context messages right above it
        assert_eq!(
            texts_of(&input),
            [
                "<permissions instructions>sandboxed</permissions instructions>",
                "<environment_context>cwd</environment_context>",
                "first question",
                "first answer",
            ],
            "the input as Codex rebuilds it"
        );
    }

    #[test]
    fn given_fewer_turns_than_asked_when_rolled_back_then_the_session_context_stays() {
        let mut input = vec![
            message("user", "<environment_context>cwd</environment_context>"),
            message("user", "only question"),
            message("assistant", "only answer"),
        ];
        roll_back(&mut input, 5);
        assert_eq!(
            texts_of(&input),
            ["<environment_context>cwd</environment_context>"],
            "the cut is at the first turn; what came before it stays"
        );
    }

    #[test]
    fn context_must_close_as_it_opens_to_count_as_context() {
        let open_only = message("user", "<environment_context> and then the user typed more");
        assert!(
            opens_a_turn(&open_only.1),
            "a message that only starts like context is the user's"
        );
        assert!(
            !opens_a_turn(&message("developer", "anything").1),
            "a developer message opens no turn"
        );
    }
}
