//! What a transcript's responses reported, summed per model, held against Claude Code's own
//! account of the session (`cost-state` lines, 2.1.3xx: the tokens and cost it counted per
//! model). The two differ where the client sent requests the transcript does not hold (a
//! compaction's summary, a session title) or a subagent's usage sits in its own transcript.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fold::ClaudeFold;
use super::line::Line;
use journalscope_seam::interpreter::FoldRecord;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Field;
use journalscope_store::derived::Mark;

/// The reported fields summed, and the names Claude Code's account gives them.
const FIELDS: [(&str, &str); 4] = [
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("cache_read_input_tokens", "cacheReadInputTokens"),
    ("cache_creation_input_tokens", "cacheCreationInputTokens"),
];

/// The tokens the responses reported so far, per model.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Ledger {
    by_model: BTreeMap<String, [u64; 4]>,
}

fn field(usage: Option<&Value>, name: &str) -> u64 {
    usage
        .and_then(|u| u.field(name))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

impl Ledger {
    /// A response of `model` now reports `now` where it reported `before` (a response written
    /// over several lines repeats its usage, counted once).
    pub(super) fn account(
        &mut self,
        model: Option<&str>,
        before: Option<&Value>,
        now: Option<&Value>,
    ) {
        let Some(model) = model else { return };
        // Looked up before inserting: a new key is made once per model, not once per line.
        if !self.by_model.contains_key(model) {
            self.by_model.insert(model.to_string(), [0; 4]);
        }
        let Some(sums) = self.by_model.get_mut(model) else {
            return;
        };
        for (i, (name, _)) in FIELDS.iter().enumerate() {
            sums[i] = sums[i].saturating_sub(field(before, name)) + field(now, name);
        }
    }
}

impl ClaudeFold {
    /// Holds a `cost-state` line against what the transcript's responses reported: a mark
    /// with Claude Code's figures, and a note where the two differ.
    pub(super) fn feed_cost_state(&mut self, record: FoldRecord<'_>, line: &Line<'_>) {
        let value = line.value;
        let cost = value.field("totalCostUSD").and_then(Value::as_f64);
        let mut differences = Vec::new();
        let mut counted = Vec::new();
        for (model, usage) in value
            .field("modelUsage")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let ours = self.ledger.by_model.get(model).copied().unwrap_or_default();
            for (i, (name, theirs)) in FIELDS.iter().enumerate() {
                let claimed = field(Some(usage), theirs);
                if claimed != ours[i] {
                    differences.push(format!(
                        "{model} {name}: {claimed} by Claude Code, {} by the responses here",
                        ours[i]
                    ));
                }
            }
            counted.push(format!(
                "{model}: {} in, {} out",
                field(Some(usage), "inputTokens"),
                field(Some(usage), "outputTokens")
            ));
        }
        self.found.marks.push(Mark {
            seq: record.seq,
            kind: "cost".to_string(),
            note: format!(
                "Claude Code's own account: {}{}",
                cost.map_or_else(|| "cost not given".to_string(), |c| format!("${c:.4}")),
                if counted.is_empty() {
                    String::new()
                } else {
                    format!(" · {}", counted.join("; "))
                }
            ),
        });
        if !differences.is_empty() {
            self.found.diagnostics.push((
                record.seq,
                Diagnostic::info(
                    record.line,
                    record.offset,
                    "cost-state-differs",
                    format!(
                        "Claude Code's own count differs from the usage this transcript's \
                         responses report ({}): requests no line holds (a compaction's summary, a \
                         title) or a subagent's own transcript account for such a difference",
                        differences.join("; ")
                    ),
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn given_a_response_written_over_lines_when_accounted_then_it_counts_once() {
        let mut ledger = Ledger::default();
        let first = json!({"input_tokens": 10, "output_tokens": 1});
        let later = json!({"input_tokens": 10, "output_tokens": 7});
        ledger.account(Some("m"), None, Some(&first));
        ledger.account(Some("m"), Some(&first), Some(&later));
        assert_eq!(
            ledger.by_model["m"],
            [10, 7, 0, 0],
            "the response's last report, once"
        );
    }
}
