//! Reports and sharing: the context size of every request (what the plot and the report
//! chart draw, measured by `journalscope_iterate::iterate::sizes`), a self-contained HTML
//! report of a journal or an offset range (`html`), and a verbatim JSONL slice of an offset
//! range (`slice`).

pub mod html;
pub mod slice;

use journalscope_registry::dialect::Registered as _;
use serde::Serialize;
use ts_rs::TS;

use crate::journal::{Journal, JournalError};
use journalscope_iterate::iterate::render::RequestSnapshot;
use journalscope_iterate::iterate::roles::Rule;
pub use journalscope_iterate::iterate::sizes::ContextSizes;
use journalscope_iterate::iterate::view::RequestSummary;
use journalscope_iterate::iterate::Transport;
use journalscope_registry::dialect::{Dialect, Mark, View};
use journalscope_shapes::diagnostic::{Diagnostic, Severity};

/// An offset range, both ends inclusive; a missing end is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[ts(export)]
pub struct OffsetRange {
    #[ts(type = "number | null")]
    pub from: Option<i64>,
    #[ts(type = "number | null")]
    pub to: Option<i64>,
}

impl OffsetRange {
    pub fn all() -> OffsetRange {
        OffsetRange::default()
    }

    pub fn contains(&self, offset: i64) -> bool {
        self.from.is_none_or(|f| offset >= f) && self.to.is_none_or(|t| offset <= t)
    }

    pub fn is_all(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

    /// `@3 … @21`, `@3 … end`, `whole journal`.
    pub fn label(&self) -> String {
        match (self.from, self.to) {
            (None, None) => "whole journal".to_string(),
            (from, to) => format!(
                "{} … {}",
                from.map_or_else(|| "start".to_string(), |f| format!("@{f}")),
                to.map_or_else(|| "end".to_string(), |t| format!("@{t}"))
            ),
        }
    }

    /// The events a range selects, in file order: those whose offset lies in the range, and
    /// those without an offset (unreadable lines) that sit between two selected ones, or
    /// before the first / after the last when that end of the range is open.
    pub fn seqs(&self, journal: &Journal) -> Result<Vec<u64>, JournalError> {
        let rows = journal.store().seq_offsets(journal.row().id)?;
        let inside = |o: &Option<i64>| o.is_some_and(|o| self.contains(o));
        let first = match self.from {
            None => Some(0),
            Some(_) => rows.iter().position(|(_, o)| inside(o)),
        };
        let last = match self.to {
            None => rows.len().checked_sub(1),
            Some(_) => rows.iter().rposition(|(_, o)| inside(o)),
        };
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(Vec::new());
        };
        if last < first {
            return Ok(Vec::new());
        }
        Ok(rows[first..=last]
            .iter()
            .filter(|(_, o)| o.is_none() || inside(o))
            .map(|(seq, _)| *seq)
            .collect())
    }
}

/// The context sizes of every request in `range`, measured on `transport`: iterate's
/// measure, read from the store. Each request is compared with the one before it in the
/// journal, even when that one is outside the range.
pub fn context_sizes(
    journal: &Journal,
    range: OffsetRange,
    transport: Transport,
) -> Result<Vec<ContextSizes>, JournalError> {
    journal.offer(View::Requests)?;
    Ok(journalscope_iterate::iterate::sizes::context_sizes(
        journal.store(),
        journal.row().id,
        (range.from, range.to),
        transport,
    )?)
}

/// One request row of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportRequest {
    pub summary: RequestSummary,
    pub sizes: ContextSizes,
}

/// One compaction of the report.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportCompaction {
    #[ts(type = "number")]
    pub offset: i64,
    #[ts(type = "number | null")]
    pub cutoff: Option<i64>,
    pub valid: bool,
    pub invalid_reason: Option<String>,
    #[ts(type = "number")]
    pub dropped: u64,
    #[ts(type = "number")]
    pub kept: u64,
    #[ts(type = "number")]
    pub collapsed: u64,
    /// The summary's first characters.
    pub summary_excerpt: Option<String>,
    /// The request whose input crossed the threshold, the tokens the compaction left, and
    /// what its summary costs.
    pub tokens: journalscope_iterate::iterate::view::CompactionTokens,
}

/// An item sent with a provider role other than its product role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportDowngrade {
    #[ts(type = "number")]
    pub offset: i64,
    pub product_role: String,
    pub provider_role: String,
    pub rule: Rule,
    pub explanation: String,
    /// The first request in the range that sent it so.
    #[ts(type = "number")]
    pub first_request: i64,
    /// How many requests in the range sent it.
    #[ts(type = "number")]
    pub requests: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TransportDowngrades {
    pub transport: Transport,
    pub downgrades: Vec<ReportDowngrade>,
}

/// A mark with the offset of its event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ReportMark {
    #[ts(type = "number")]
    pub seq: u64,
    #[ts(type = "number | null")]
    pub offset: Option<i64>,
    pub kind: String,
    pub note: String,
}

/// Everything a report shows, also what `report --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Report {
    pub file_name: String,
    pub dialect: Dialect,
    pub framing: String,
    pub range: OffsetRange,
    /// Events the range selects.
    #[ts(type = "number")]
    pub events: u64,
    #[ts(type = "number")]
    pub journal_events: u64,
    #[ts(type = "number | null")]
    pub first_offset: Option<i64>,
    #[ts(type = "number | null")]
    pub last_offset: Option<i64>,
    #[ts(type = "number")]
    pub errors: u64,
    #[ts(type = "number")]
    pub warnings: u64,
    pub diagnostics: Vec<Diagnostic>,
    /// Marks of the selected events.
    pub marks: Vec<ReportMark>,
    /// Selected seqs carrying a diagnostic.
    #[ts(type = "number[]")]
    pub diagnostic_seqs: Vec<u64>,
    /// The first selected seq: timeline positions are `seq - first_seq`.
    #[ts(type = "number")]
    pub first_seq: u64,
    pub requests: Vec<ReportRequest>,
    pub compactions: Vec<ReportCompaction>,
    pub downgrades: Vec<TransportDowngrades>,
    /// A transcript's requests with their reported usage and prompt-cache misses.
    #[ts(type = "import(\"./TranscriptCacheReport\").TranscriptCacheReport | null")]
    pub prompt_cache: Option<journalscope_transcript::transcript::cache::CacheReport>,
}

const EXCERPT_CHARS: usize = 240;

fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(EXCERPT_CHARS).collect();
    if text.chars().count() > EXCERPT_CHARS {
        out.push('…');
    }
    out
}

/// Gathers a report of `range` (sizes measured on the `openai` transport; downgrades on both).
pub fn build(journal: &Journal, range: OffsetRange) -> Result<Report, JournalError> {
    let info = journal.info()?;
    let seqs = range.seqs(journal)?;
    let selected = |seq: u64| seqs.binary_search(&seq).is_ok();
    let mut diagnostics = Vec::new();
    let mut diagnostic_seqs = Vec::new();
    for (seq, d) in journal.diagnostics_with_seq()? {
        if selected(seq) {
            diagnostics.push(d);
            if diagnostic_seqs.last() != Some(&seq) {
                diagnostic_seqs.push(seq);
            }
        }
    }
    diagnostics.dedup();
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count() as u64
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let offsets: std::collections::HashMap<u64, i64> = {
        let rows = journal.store().seq_offsets(journal.row().id)?;
        rows.into_iter()
            .filter_map(|(seq, offset)| Some((seq, offset?)))
            .filter(|(seq, _)| selected(*seq))
            .collect()
    };
    let marks: Vec<ReportMark> = journal
        .marks()?
        .iter()
        .filter(|m| selected(m.seq))
        .map(|m: &Mark| ReportMark {
            seq: m.seq,
            offset: offsets.get(&m.seq).copied(),
            kind: m.kind.clone(),
            note: m.note.clone(),
        })
        .collect();
    let (mut requests, mut compactions, mut downgrades) = (Vec::new(), Vec::new(), Vec::new());
    if journal.dialect().offers(View::Requests) {
        let summaries: Vec<RequestSummary> = journal
            .requests()?
            .into_iter()
            .filter(|r| range.contains(r.offset))
            .collect();
        let sizes = context_sizes(journal, range, Transport::Openai)?;
        requests = summaries
            .iter()
            .cloned()
            .zip(sizes)
            .map(|(summary, sizes)| ReportRequest { summary, sizes })
            .collect();
        for mark in marks.iter().filter(|m| m.kind == "compaction") {
            let Some(offset) = mark.offset else {
                continue;
            };
            let view = journal.compaction(offset)?;
            compactions.push(ReportCompaction {
                offset,
                cutoff: view.cutoff,
                valid: view.valid,
                invalid_reason: view.invalid_reason.clone(),
                dropped: view.dropped.len() as u64,
                kept: view.kept.len() as u64,
                collapsed: view.collapsed.len() as u64,
                summary_excerpt: view.summary.as_ref().map(|s| excerpt(&s.content)),
                tokens: view.tokens.clone(),
            });
        }
        let mut found: Vec<Vec<ReportDowngrade>> =
            Transport::ALL.iter().map(|_| Vec::new()).collect();
        let mut note = |offset: i64, snapshots: Vec<RequestSnapshot>| {
            if !range.contains(offset) {
                return;
            }
            for (found, snapshot) in found.iter_mut().zip(&snapshots) {
                note_downgrades(found, offset, snapshot);
            }
        };
        journal.walk_requests((range.from, range.to), &Transport::ALL, &mut note)?;
        for (transport, mut found) in Transport::ALL.into_iter().zip(found) {
            found.sort_by_key(|d| d.offset);
            downgrades.push(TransportDowngrades {
                transport,
                downgrades: found,
            });
        }
    }
    let prompt_cache = if journal.dialect().offers(View::Conversation) {
        Some(journal.transcript_cache((range.from, range.to))?)
    } else {
        None
    };
    Ok(Report {
        prompt_cache,
        file_name: info.file_name,
        dialect: info.dialect,
        framing: info.framing,
        range,
        events: seqs.len() as u64,
        journal_events: info.event_count,
        first_offset: offsets.values().min().copied(),
        last_offset: offsets.values().max().copied(),
        errors,
        warnings,
        diagnostics,
        marks,
        diagnostic_seqs,
        first_seq: seqs.first().copied().unwrap_or(0),
        requests,
        compactions,
        downgrades,
    })
}

/// The downgrades of the request at `offset`, counted into `found`: one row per item and
/// rule, with the first request that sent it and how many did.
fn note_downgrades(found: &mut Vec<ReportDowngrade>, offset: i64, snapshot: &RequestSnapshot) {
    for item in snapshot.items.iter().filter(|i| i.rule.is_downgrade()) {
        if let Some(known) = found
            .iter_mut()
            .find(|d| d.offset == item.offset && d.rule == item.rule)
        {
            known.requests += 1;
            continue;
        }
        found.push(ReportDowngrade {
            offset: item.offset,
            product_role: item.product_role.as_str().to_string(),
            provider_role: item.provider_role.as_str().to_string(),
            rule: item.rule,
            explanation: item.rule.explain().to_string(),
            first_request: offset,
            requests: 1,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_ranges_when_asked_then_contains_and_labels_follow_the_open_ends() {
        let range = OffsetRange {
            from: Some(3),
            to: None,
        };
        assert!(
            range.contains(3) && range.contains(99),
            "from is inclusive, to open"
        );
        assert!(!range.contains(2), "below from is outside");
        assert_eq!(range.label(), "@3 … end", "an open end is named");
        assert_eq!(
            OffsetRange::all().label(),
            "whole journal",
            "no ends: everything"
        );
    }

    #[test]
    fn given_long_text_when_excerpted_then_it_is_cut_with_an_ellipsis() {
        let long = "é".repeat(EXCERPT_CHARS + 5);
        let cut = excerpt(&long);
        assert_eq!(
            cut.chars().count(),
            EXCERPT_CHARS + 1,
            "cut on characters, not bytes"
        );
        assert!(cut.ends_with('…'), "a cut excerpt says so");
        assert_eq!(excerpt("short"), "short", "short text is whole");
    }
}
