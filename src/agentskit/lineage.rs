//! The lineage of one session's turns: a forest where a submit is a root and a retry, edit or
//! regenerate hangs under the turn its `parentTurnId` names. Ancestry that names an unknown
//! turn or message, loops back on itself, or changes between snapshots of one turn is a
//! warning; such a turn still appears, as a root when its parent cannot be placed.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::decoder::{Lineage, Operation, TurnBody};
use super::{Journal, Line};
use crate::diagnostic::Diagnostic;

/// One turn in the lineage tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "AgentsKitLineageNode")]
pub struct LineageNode {
    pub turn_id: String,
    pub operation: Operation,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent_turn_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source_message_id: Option<String>,
    pub children: Vec<LineageNode>,
    /// Offsets of this turn's snapshot lines in the session, whatever the cursor made of them,
    /// so a view can jump from a turn to its snapshots.
    #[ts(type = "Array<number>")]
    pub snapshot_offsets: Vec<i64>,
}

/// The session's lineage forest and what was wrong with it, as `(seq, diagnostic)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineageTree {
    pub roots: Vec<LineageNode>,
    pub diagnostics: Vec<(u64, Diagnostic)>,
}

/// The codes `finish` derives from the whole session (a parent or message that may still
/// appear, a cycle, a depth): an append replaces all of them.
pub const PROVISIONAL_CODES: &[&str] = &[
    "lineage-unknown-message",
    "lineage-unknown-turn",
    "lineage-cycle",
    "lineage-too-deep",
];

/// Where a line sits, for the diagnostics about it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Place {
    seq: u64,
    line: u64,
    offset: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Turn {
    id: String,
    /// The first declared lineage and the line that declared it.
    lineage: Option<(Lineage, Place)>,
    snapshot_offsets: Vec<i64>,
}

pub fn lineage(journal: &Journal, session: &str) -> LineageTree {
    let mut builder = LineageBuilder::new(session);
    for line in &journal.lines {
        builder.add(line);
    }
    builder.finish()
}

/// The lineage of one session, built from its lines in journal order, one line at a time: it
/// keeps the turns and the message ids, never the lines.
#[derive(Clone)]
pub struct LineageBuilder {
    session: String,
    turns: Vec<Turn>,
    index: HashMap<String, usize>,
    messages: HashSet<String>,
    diagnostics: Vec<(u64, Diagnostic)>,
    /// Whether each turn keeps the offsets of its snapshots, which only the tree shows.
    keep_offsets: bool,
}

/// What a builder knows, for an analysis to resume from: the turns and the message ids.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LineageState {
    session: String,
    turns: Vec<Turn>,
    messages: Vec<String>,
}

impl LineageState {
    pub fn session(&self) -> &str {
        &self.session
    }
}

impl LineageBuilder {
    pub fn new(session: &str) -> LineageBuilder {
        LineageBuilder {
            session: session.to_string(),
            turns: Vec::new(),
            index: HashMap::new(),
            messages: HashSet::new(),
            diagnostics: Vec::new(),
            keep_offsets: true,
        }
    }

    /// A builder for the diagnostics alone: turns keep no snapshot offsets.
    pub fn for_diagnostics(session: &str) -> LineageBuilder {
        LineageBuilder {
            keep_offsets: false,
            ..LineageBuilder::new(session)
        }
    }

    /// A diagnostics builder that goes on from `state`; what it said before is not said again.
    pub fn resume(state: LineageState) -> LineageBuilder {
        let index = state
            .turns
            .iter()
            .enumerate()
            .map(|(slot, turn)| (turn.id.clone(), slot))
            .collect();
        LineageBuilder {
            session: state.session,
            turns: state.turns,
            index,
            messages: state.messages.into_iter().collect(),
            diagnostics: Vec::new(),
            keep_offsets: false,
        }
    }

    /// The session whose lineage it builds.
    pub fn session(&self) -> &str {
        &self.session
    }

    pub fn state(&self) -> LineageState {
        let mut messages: Vec<String> = self.messages.iter().cloned().collect();
        messages.sort_unstable();
        LineageState {
            session: self.session.clone(),
            turns: self.turns.clone(),
            messages,
        }
    }

    pub fn add(&mut self, line: &Line) {
        let Ok(event) = &line.decoded else { return };
        if event.session_id != self.session || matches!(event.body, TurnBody::Diagnostic(_)) {
            return;
        }
        let turns = &mut self.turns;
        let slot = *self.index.entry(event.turn_id.clone()).or_insert_with(|| {
            turns.push(Turn {
                id: event.turn_id.clone(),
                lineage: None,
                snapshot_offsets: Vec::new(),
            });
            turns.len() - 1
        });
        let TurnBody::Snapshot(snapshot) = &event.body else {
            return;
        };
        let turn = &mut self.turns[slot];
        if self.keep_offsets {
            turn.snapshot_offsets.push(line.offset);
        }
        for message in &snapshot.messages {
            if !self.messages.contains(&message.id) {
                self.messages.insert(message.id.clone());
            }
        }
        let place = Place {
            seq: line.seq,
            line: line.line,
            offset: line.offset,
        };
        match (&turn.lineage, &snapshot.lineage) {
            (None, Some(declared)) => turn.lineage = Some((declared.clone(), place)),
            (Some((first, _)), Some(declared)) if first != declared => {
                self.diagnostics.push((
                    line.seq,
                    Diagnostic::warning(
                        line.line,
                        Some(line.offset),
                        "lineage-conflict",
                        format!(
                            "turn {} declares {} here but {} before; the first declaration is kept",
                            turn.id,
                            describe(declared),
                            describe(first)
                        ),
                    ),
                ));
            }
            _ => {}
        }
    }

    /// The forest, once every line was added.
    pub fn finish(self) -> LineageTree {
        let LineageBuilder {
            session,
            turns,
            index,
            messages,
            mut diagnostics,
            ..
        } = self;

        // Where each turn hangs, once unknown parents and cycles are cut away.
        let mut parent: Vec<Option<usize>> = vec![None; turns.len()];
        for (slot, turn) in turns.iter().enumerate() {
            let Some((declared, line)) = &turn.lineage else {
                continue;
            };
            let warn = |code: &str, message: String| {
                (
                    line.seq,
                    Diagnostic::warning(line.line, Some(line.offset), code, message),
                )
            };
            if let Some(source) = &declared.source_message_id {
                if !messages.contains(source.as_str()) {
                    diagnostics.push(warn(
                    "lineage-unknown-message",
                    format!(
                        "turn {} ({}) names source message {source}, which no snapshot of session {session} holds",
                        turn.id,
                        declared.operation.as_str()
                    ),
                ));
                }
            }
            let Some(parent_id) = &declared.parent_turn_id else {
                continue;
            };
            match index.get(parent_id) {
            None => diagnostics.push(warn(
                "lineage-unknown-turn",
                format!(
                    "turn {} ({}) names parent turn {parent_id}, which session {session} does not have; shown as a root",
                    turn.id,
                    declared.operation.as_str()
                ),
            )),
            Some(&p) if leads_to(&parent, p, slot) => diagnostics.push(warn(
                "lineage-cycle",
                if p == slot {
                    format!(
                        "turn {} ({}) names itself as its parent; shown as a root",
                        turn.id,
                        declared.operation.as_str()
                    )
                } else {
                    format!(
                        "turn {} ({}) names parent turn {parent_id}, which descends from it; shown as a root",
                        turn.id,
                        declared.operation.as_str()
                    )
                },
            )),
            Some(&p) => parent[slot] = Some(p),
        }
        }

        // A chain of turns as long as the journal would make every recursive walk of the tree
        // (building, rendering, serialising, the desktop's view) exhaust the stack: past the cap a
        // turn starts a new root, and says so.
        for (slot, depth) in depths(&parent).into_iter().enumerate() {
            if depth == 0 || depth % MAX_LINEAGE_DEPTH != 0 {
                continue;
            }
            parent[slot] = None;
            if let Some((declared, line)) = &turns[slot].lineage {
                diagnostics.push((
                    line.seq,
                    Diagnostic::warning(
                        line.line,
                        Some(line.offset),
                        "lineage-too-deep",
                        format!(
                            "turn {} ({}) is {depth} turns below its root; shown as a new root",
                            turns[slot].id,
                            declared.operation.as_str()
                        ),
                    ),
                ));
            }
        }

        let mut children: Vec<Vec<usize>> = vec![Vec::new(); turns.len()];
        let mut roots = Vec::new();
        for (slot, p) in parent.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(slot),
                None => roots.push(slot),
            }
        }
        let roots = roots
            .into_iter()
            .map(|slot| node(slot, &turns, &children))
            .collect();
        diagnostics.sort_by_key(|(seq, _)| *seq);
        LineageTree { roots, diagnostics }
    }
}

/// How many turns deep the lineage tree may nest before a turn is shown as a new root.
pub const MAX_LINEAGE_DEPTH: usize = 200;

/// Each turn's distance from its root (0 for a root), found without recursion; parents never
/// form a cycle.
fn depths(parent: &[Option<usize>]) -> Vec<usize> {
    let mut depth: Vec<Option<usize>> = vec![None; parent.len()];
    for start in 0..parent.len() {
        let mut chain = Vec::new();
        let mut at = Some(start);
        let mut base = 0;
        while let Some(slot) = at {
            if let Some(known) = depth[slot] {
                base = known + 1;
                break;
            }
            chain.push(slot);
            at = parent[slot];
        }
        for (above, slot) in chain.iter().rev().enumerate() {
            depth[*slot] = Some(base + above);
        }
    }
    depth.into_iter().map(|d| d.unwrap_or(0)).collect()
}

/// Whether following parents from `from` reaches `target`; parents placed so far never form a
/// cycle, so the walk ends.
fn leads_to(parent: &[Option<usize>], from: usize, target: usize) -> bool {
    let mut at = Some(from);
    while let Some(slot) = at {
        if slot == target {
            return true;
        }
        at = parent[slot];
    }
    false
}

fn node(slot: usize, turns: &[Turn], children: &[Vec<usize>]) -> LineageNode {
    let turn = &turns[slot];
    // A turn that never declared lineage predates ADR-0010's field: a plain submit.
    let declared = turn.lineage.as_ref().map(|(l, _)| l);
    LineageNode {
        turn_id: turn.id.clone(),
        operation: declared.map_or(Operation::Submit, |l| l.operation),
        parent_turn_id: declared.and_then(|l| l.parent_turn_id.clone()),
        source_message_id: declared.and_then(|l| l.source_message_id.clone()),
        children: children[slot]
            .iter()
            .map(|&child| node(child, turns, children))
            .collect(),
        snapshot_offsets: turn.snapshot_offsets.clone(),
    }
}

fn describe(lineage: &Lineage) -> String {
    match (&lineage.parent_turn_id, &lineage.source_message_id) {
        (Some(parent), Some(source)) => {
            format!("{} of {parent} from {source}", lineage.operation.as_str())
        }
        _ => lineage.operation.as_str().to_string(),
    }
}
