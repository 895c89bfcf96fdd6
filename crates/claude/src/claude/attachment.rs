//! What an `attachment` line of a Claude Code transcript says to the model: the reminder texts
//! the client renders it to, per attachment type, as releases 2.1.177 to 2.1.220 render them
//! (their attachment renderer, read in the published bundles and checked against the requests
//! the clients sent). Each text reaches the model inside `<system-reminder>` tags.

use serde_json::Value;

use journalscope_shapes::record_json::{js_truthy, Field};

/// Attachment types that render to nothing: bookkeeping for the client's own screen.
const SILENT: &[&str] = &[
    "already_read_file",
    "command_permissions",
    "edited_image_file",
    "hook_cancelled",
    "hook_error_during_execution",
    "hook_non_blocking_error",
    "hook_system_message",
    "hook_permission_decision",
    "hook_deferred_tool",
    "goal_status",
    "structured_output",
    "max_turns_reached",
    "teammate_shutdown_batch",
    "autocheckpointing",
    "background_task_status",
    "todo",
    "task_progress",
    "ultramemory",
    "compaction_reminder",
    "current_session_memory",
    "thinking_reminder",
    "companion_intro",
    "pen_mode_enter",
    "pen_mode_exit",
    "ultrawork_request",
    "echo_activities",
    "verify_plan_reminder",
    "fold_nudge",
    "context_tip",
    "context_efficiency",
];

const TASK_REMINDER: &str = "The task tools haven't been used recently. If you're working on \
tasks that would benefit from tracking progress, consider using TaskCreate to add new tasks and \
TaskUpdate to update task status (set to in_progress when starting, completed when done). Also \
consider cleaning up the task list if it has become stale. Only use these if relevant to the \
current work. This is just a gentle reminder - ignore if not applicable.\n";

const TODO_REMINDER: &str = "The TodoWrite tool hasn't been used recently. If you're working on \
tasks that would benefit from tracking progress, consider using the TodoWrite tool to track \
progress. Also consider cleaning up the todo list if has become stale and no longer matches what \
you are working on. Only use it if it's relevant to the current work. This is just a gentle \
reminder - ignore if not applicable.\n";

const CONCURRENCY_NOTE: &str = "When you launch multiple agents for independent work, send them \
in a single message with multiple tool uses so they run concurrently.";

const DEFERRED_TOOLS: &str = "The following deferred tools are now available via ToolSearch. \
Their schemas are NOT loaded \u{2014} calling them directly will fail with InputValidationError. \
Use ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them:\n";

/// Wraps a text as the client marks the context it adds.
pub fn reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// The texts an attachment renders to (each to be wrapped by `reminder`), or the attachment's
/// type when its rendering is not known here.
pub fn texts(attachment: &Value) -> Result<Vec<String>, String> {
    let kind = str_of(attachment, "type").unwrap_or("");
    let unknown = || Err(kind.to_string());
    if SILENT.contains(&kind) {
        return Ok(Vec::new());
    }
    Ok(match kind {
        "file" => {
            let content = attachment.field("content").unwrap_or(&Value::Null);
            if str_of(content, "type") != Some("text") || js_truthy(attachment.field("truncated")) {
                return unknown();
            }
            let file = content.field("file").unwrap_or(&Value::Null);
            let input =
                serde_json::json!({"file_path": str_of(attachment, "filename").unwrap_or("")});
            vec![
                format!("Called the Read tool with the following input: {input}"),
                format!("Result of calling the Read tool:\n{}", numbered(file)),
            ]
        }
        "agent_listing_delta" => {
            let added_lines = strings(attachment.field("addedLines"));
            let added = strings(attachment.field("addedTypes"));
            if !strings(attachment.field("removedTypes")).is_empty() {
                return unknown();
            }
            let initial = js_truthy(attachment.field("isInitial"));
            let mut parts = Vec::new();
            if !added_lines.is_empty() && !added.is_empty() {
                let head = if initial {
                    "Available agent types for the Agent tool:"
                } else {
                    "New agent types are now available for the Agent tool:"
                };
                parts.push(format!("{head}\n{}", added_lines.join("\n")));
                if initial && js_truthy(attachment.field("showConcurrencyNote")) {
                    parts.push(CONCURRENCY_NOTE.to_string());
                }
            }
            if parts.is_empty() {
                Vec::new()
            } else {
                vec![parts.join("\n\n")]
            }
        }
        "deferred_tools_delta" => {
            let added_lines = strings(attachment.field("addedLines"));
            let added = strings(attachment.field("addedNames"));
            let others = [
                "removedNames",
                "readdedNames",
                "needsAuthMcpServers",
                "failedMcpServers",
                "pendingMcpServers",
            ];
            if others.iter().any(|name| {
                attachment
                    .get(name)
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            }) {
                return unknown();
            }
            if added_lines.is_empty() || added.is_empty() {
                Vec::new()
            } else {
                vec![format!("{DEFERRED_TOOLS}{}", added_lines.join("\n"))]
            }
        }
        "skill_listing" => match str_of(attachment, "content").filter(|c| !c.is_empty()) {
            Some(content) => vec![format!(
                "The following skills are available for use with the Skill tool:\n\n{content}"
            )],
            None => Vec::new(),
        },
        "task_reminder" => {
            let items: Vec<String> = list(attachment.field("content"))
                .iter()
                .map(|task| {
                    format!(
                        "#{}. [{}] {}",
                        text_of(task.field("id")),
                        text_of(task.field("status")),
                        text_of(task.field("subject"))
                    )
                })
                .collect();
            let mut text = TASK_REMINDER.to_string();
            if !items.is_empty() {
                text.push_str("\n\nHere are the existing tasks:\n\n");
                text.push_str(&items.join("\n"));
            }
            vec![text]
        }
        "todo_reminder" => {
            let items: Vec<String> = list(attachment.field("content"))
                .iter()
                .enumerate()
                .map(|(at, todo)| {
                    format!(
                        "{}. [{}] {}",
                        at + 1,
                        text_of(todo.field("status")),
                        text_of(todo.field("content"))
                    )
                })
                .collect();
            let mut text = TODO_REMINDER.to_string();
            if !items.is_empty() {
                text.push_str("\n\nHere are the existing contents of your todo list:\n\n[");
                text.push_str(&items.join("\n"));
                text.push(']');
            }
            vec![text]
        }
        "hook_success" => {
            let event = str_of(attachment, "hookEvent").unwrap_or("");
            let content = str_of(attachment, "content").unwrap_or("");
            if !matches!(
                event,
                "SessionStart" | "UserPromptSubmit" | "UserPromptExpansion"
            ) || content.is_empty()
            {
                Vec::new()
            } else {
                vec![format!(
                    "{} hook success: {content}",
                    str_of(attachment, "hookName").unwrap_or("")
                )]
            }
        }
        "hook_additional_context" => {
            let lines = strings(attachment.field("content"));
            if lines.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "{} hook additional context: {}",
                    str_of(attachment, "hookName").unwrap_or(""),
                    lines.join("\n")
                )]
            }
        }
        "compact_file_reference" => vec![format!(
            "Note: {} was read before the last conversation was summarized, but the contents are \
             too large to include. Use Read tool if you need to access it.",
            str_of(attachment, "filename").unwrap_or("")
        )],
        "date_change" => vec![format!(
            "The date has changed. Today's date is now {}. DO NOT mention this to the user \
             explicitly because they are already aware.",
            str_of(attachment, "newDate").unwrap_or("")
        )],
        "plan_mode_exit" => {
            let place = match str_of(attachment, "planFilePath") {
                Some(path) if js_truthy(attachment.field("planExists")) => {
                    format!(" The plan file is located at {path} if you need to reference it.")
                }
                _ => String::new(),
            };
            vec![format!(
                "## Exited Plan Mode\n\nYou have exited plan mode. You can now make edits, run \
                 tools, and take actions.{place}"
            )]
        }
        "critical_system_reminder" => vec![str_of(attachment, "content").unwrap_or("").to_string()],
        "nested_memory" => {
            let content = attachment.field("content").unwrap_or(&Value::Null);
            vec![format!(
                "Contents of {}:\n\n{}",
                str_of(content, "path").unwrap_or(""),
                str_of(content, "content").unwrap_or("")
            )]
        }
        "opened_file_in_ide" => vec![format!(
            "The user opened the file {} in the IDE. This may or may not be related to the \
             current task.",
            str_of(attachment, "filename").unwrap_or("")
        )],
        _ => return unknown(),
    })
}

/// A file's lines as the Read tool numbers them: the line number, a tab, the line.
fn numbered(file: &Value) -> String {
    let start = file
        .field("startLine")
        .and_then(Value::as_u64)
        .filter(|&n| n > 0)
        .unwrap_or(1);
    str_of(file, "content")
        .unwrap_or("")
        .split('\n')
        .enumerate()
        .map(|(at, line)| format!("{}\t{line}", start + at as u64))
        .collect::<Vec<_>>()
        .join("\n")
}

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key)?.as_str()
}

fn list(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The strings of a list, its other entries left out, as the client filters them.
fn strings(value: Option<&Value>) -> Vec<&str> {
    list(value).iter().filter_map(Value::as_str).collect()
}

/// A field as JavaScript's template strings print it.
fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => "null".to_string(),
        None => "undefined".to_string(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_file_attachment_renders_as_a_read_call_and_its_numbered_result() {
        // given an @-mentioned file of two lines
        let attachment = json!({"type": "file", "filename": "/p/notes.txt",
            "content": {"type": "text", "file": {"filePath": "/p/notes.txt", "content": "a\nb", "startLine": 1}}});
        // when it is rendered
        let texts = texts(&attachment).expect("a known type");
        // then the model reads the client's Read call and its numbered lines
        assert_eq!(
            texts,
            [
                "Called the Read tool with the following input: {\"file_path\":\"/p/notes.txt\"}",
                "Result of calling the Read tool:\n1\ta\n2\tb"
            ],
            "the client's own wording for a file it read on the model's behalf"
        );
    }

    #[test]
    fn an_unknown_attachment_type_is_named_rather_than_guessed() {
        let found = texts(&json!({"type": "selected_lines_in_ide"}));
        assert_eq!(
            found,
            Err("selected_lines_in_ide".to_string()),
            "a type whose rendering is not known is reported, never rendered by guess"
        );
    }

    #[test]
    fn a_hook_system_message_renders_to_nothing() {
        assert_eq!(
            texts(&json!({"type": "hook_system_message", "content": "shown to the user"})),
            Ok(Vec::new()),
            "a hook's message to the user never reaches the model"
        );
    }
}
