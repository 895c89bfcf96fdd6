//! The lineage of one session's turns: a forest where a submit is a root and a retry, edit or
//! regenerate hangs under the turn its `parentTurnId` names. Ancestry that names an unknown
//! turn or message, loops back on itself, or changes between snapshots of one turn is a
//! warning; such a turn still appears, as a root when its parent cannot be placed.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::decoder::{Lineage, Operation, TurnBody};
use super::{AgentsKitJournal, Line};
use journalscope_shapes::diagnostic::Diagnostic;

/// One turn in the lineage tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
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
#[derive(Debug, Clone, Copy)]
struct Place {
    seq: u64,
    line: u64,
    offset: i64,
}

/// One turn as the builder keeps it. A checkpoint writes it as one row,
/// `[id, operation, parent, source, seq, line, offset]` (the last six null when the turn never
/// declared its lineage): a session holds hundreds of thousands of turns, and field names would
/// be most of the bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "TurnRow", into = "TurnRow")]
struct Turn {
    id: Box<str>,
    /// The first declared lineage and the line that declared it.
    lineage: Option<(Lineage, Place)>,
}

type TurnRow = (
    Box<str>,
    Option<Operation>,
    Option<String>,
    Option<String>,
    Option<u64>,
    Option<u64>,
    Option<i64>,
);

impl From<Turn> for TurnRow {
    fn from(turn: Turn) -> TurnRow {
        match turn.lineage {
            Some((lineage, place)) => (
                turn.id,
                Some(lineage.operation),
                lineage.parent_turn_id,
                lineage.source_message_id,
                Some(place.seq),
                Some(place.line),
                Some(place.offset),
            ),
            None => (turn.id, None, None, None, None, None, None),
        }
    }
}

impl From<TurnRow> for Turn {
    fn from((id, operation, parent, source, seq, line, offset): TurnRow) -> Turn {
        let lineage = operation.map(|operation| {
            (
                Lineage {
                    operation,
                    parent_turn_id: parent,
                    source_message_id: source,
                },
                Place {
                    seq: seq.unwrap_or_default(),
                    line: line.unwrap_or_default(),
                    offset: offset.unwrap_or_default(),
                },
            )
        });
        Turn { id, lineage }
    }
}

pub fn lineage(journal: &AgentsKitJournal, session: &str) -> LineageTree {
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
    // Boxed ids: a session holds hundreds of thousands of turns and messages, and a `String`'s
    // spare capacity and third word would be a third of what the builder keeps.
    index: HashMap<Box<str>, usize>,
    messages: HashSet<Box<str>>,
    diagnostics: Vec<(u64, Diagnostic)>,
    /// Each turn's snapshot offsets, by slot, which only the tree shows: `None` in a builder
    /// kept for the diagnostics alone.
    offsets: Option<Vec<Vec<i64>>>,
}

/// What a builder knows, for an analysis to resume from: the turns and the message ids.
#[derive(Debug, Clone, Deserialize)]
pub struct LineageState {
    session: String,
    turns: Vec<Turn>,
    messages: Vec<Box<str>>,
}

/// A builder's [`LineageState`] as it is written, borrowed from the builder: a checkpoint of a
/// long session is written without a second copy of its turns and ids.
#[derive(Serialize)]
pub struct LineageStateRef<'a> {
    session: &'a str,
    turns: &'a [Turn],
    messages: Vec<&'a str>,
}

impl LineageStateRef<'_> {
    pub fn session(&self) -> &str {
        self.session
    }
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
            offsets: Some(Vec::new()),
        }
    }

    /// A builder for the diagnostics alone: turns keep no snapshot offsets.
    pub fn for_diagnostics(session: &str) -> LineageBuilder {
        LineageBuilder {
            offsets: None,
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
            offsets: None,
        }
    }

    /// The session whose lineage it builds.
    pub fn session(&self) -> &str {
        &self.session
    }

    pub fn state(&self) -> LineageStateRef<'_> {
        let mut messages: Vec<&str> = self.messages.iter().map(|id| &**id).collect();
        // The same bytes however the set is laid out.
        messages.sort_unstable();
        LineageStateRef {
            session: &self.session,
            turns: &self.turns,
            messages,
        }
    }

    pub fn add(&mut self, line: &Line) {
        let Ok(event) = &line.decoded else { return };
        if event.session_id != self.session || matches!(event.body, TurnBody::Diagnostic(_)) {
            return;
        }
        let turns = &mut self.turns;
        let slot = match self.index.get(event.turn_id.as_str()) {
            Some(&slot) => slot,
            None => {
                let id: Box<str> = event.turn_id.as_str().into();
                turns.push(Turn {
                    id: id.clone(),
                    lineage: None,
                });
                if let Some(offsets) = &mut self.offsets {
                    offsets.push(Vec::new());
                }
                self.index.insert(id, turns.len() - 1);
                turns.len() - 1
            }
        };
        let TurnBody::Snapshot(snapshot) = &event.body else {
            return;
        };
        let turn = &mut self.turns[slot];
        if let Some(offsets) = &mut self.offsets {
            offsets[slot].push(line.offset);
        }
        for message in &snapshot.messages {
            if !self.messages.contains(message.id.as_str()) {
                self.messages.insert(message.id.as_str().into());
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
    pub fn finish(&self) -> LineageTree {
        let (parent, diagnostics) = self.placed();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.turns.len()];
        let mut roots = Vec::new();
        for (slot, p) in parent.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(slot),
                None => roots.push(slot),
            }
        }
        let roots = roots
            .into_iter()
            .map(|slot| node(slot, &self.turns, self.offsets.as_deref(), &children))
            .collect();
        LineageTree { roots, diagnostics }
    }

    /// What was wrong with the lineage so far, without building the forest: a fold says the
    /// session's provisional warnings at every end and goes on adding lines, and a session of
    /// submits alone is as many roots as turns.
    pub fn diagnostics(&self) -> Vec<(u64, Diagnostic)> {
        self.placed().1
    }

    /// Where each turn hangs, once unknown parents, cycles and depth are cut away, and the
    /// warnings, in journal order.
    fn placed(&self) -> (Vec<Option<usize>>, Vec<(u64, Diagnostic)>) {
        let LineageBuilder {
            session,
            turns,
            index,
            messages,
            diagnostics,
            ..
        } = self;
        let mut diagnostics = diagnostics.clone();

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
            match index.get(parent_id.as_str()) {
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

        diagnostics.sort_by_key(|(seq, _)| *seq);
        (parent, diagnostics)
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

fn node(
    slot: usize,
    turns: &[Turn],
    offsets: Option<&[Vec<i64>]>,
    children: &[Vec<usize>],
) -> LineageNode {
    let turn = &turns[slot];
    // A turn that never declared lineage predates ADR-0010's field: a plain submit.
    let declared = turn.lineage.as_ref().map(|(l, _)| l);
    LineageNode {
        turn_id: turn.id.to_string(),
        operation: declared.map_or(Operation::Submit, |l| l.operation),
        parent_turn_id: declared.and_then(|l| l.parent_turn_id.clone()),
        source_message_id: declared.and_then(|l| l.source_message_id.clone()),
        children: children[slot]
            .iter()
            .map(|&child| node(child, turns, offsets, children))
            .collect(),
        snapshot_offsets: offsets
            .and_then(|offsets| offsets.get(slot))
            .cloned()
            .unwrap_or_default(),
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

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn snapshot(seq: u64, turn: &str, message: &str, lineage: Option<Value>) -> Line {
        let mut payload = json!({
            "messages": [{"id": message, "role": "user", "content": "hi", "status": "complete",
                          "createdAt": "2026-07-11T10:00:00.000Z"}],
            "status": "complete",
            "usage": {"promptTokens": 1, "completionTokens": 1, "totalTokens": 2},
        });
        if let Some(lineage) = lineage {
            payload["lineage"] = lineage;
        }
        let value = json!({
            "protocol": "agentskit.chat.turn", "version": 1, "eventId": format!("e-{seq}"),
            "sessionId": "s", "turnId": turn, "sequence": seq,
            "emittedAt": "2026-07-11T10:00:00.000Z", "event": "server.turn.snapshot",
            "payload": payload,
        });
        Line::of(seq, seq + 1, None, Some(&value))
    }

    fn codes(diagnostics: &[(u64, Diagnostic)]) -> Vec<(u64, String)> {
        diagnostics
            .iter()
            .map(|(seq, d)| (*seq, d.code.clone()))
            .collect()
    }

    #[test]
    fn given_turns_with_and_without_lineage_when_written_as_rows_and_read_back_then_the_builder_goes_on_alike(
    ) {
        // Given a session whose first turn declares nothing, whose second names the first and
        // its message, and whose third names a turn and a message not seen yet
        let mut whole = LineageBuilder::for_diagnostics("s");
        whole.add(&snapshot(0, "t1", "m1", None));
        whole.add(&snapshot(
            1,
            "t2",
            "m2",
            Some(json!({"operation": "retry", "parentTurnId": "t1", "sourceMessageId": "m1"})),
        ));
        whole.add(&snapshot(
            2,
            "t3",
            "m3",
            Some(json!({"operation": "edit", "parentTurnId": "t9", "sourceMessageId": "m9"})),
        ));

        // When its state is written as a checkpoint writes it and a builder resumes from it
        let bytes = serde_json::to_vec(&whole.state()).expect("the state is written");
        let state: LineageState = serde_json::from_slice(&bytes).expect("the state reads back");
        let mut resumed = LineageBuilder::resume(state);

        // Then each turn is one row, with nulls for the turn that declared nothing
        let written: Value = serde_json::from_slice(&bytes).expect("the state is JSON");
        assert_eq!(
            written["turns"][0],
            json!(["t1", null, null, null, null, null, null]),
            "a turn that never declared lineage is its id and six nulls"
        );
        assert_eq!(
            written["turns"][1],
            json!(["t2", "retry", "t1", "m1", 1, 2, 2]),
            "a declared turn keeps its operation, parent, source and the line that declared it"
        );
        // And the resumed builder warns as the whole one does, at the same lines
        assert_eq!(
            codes(&whole.diagnostics()),
            vec![
                (2, "lineage-unknown-message".to_string()),
                (2, "lineage-unknown-turn".to_string())
            ],
            "the third turn names a message and a turn the session does not hold yet"
        );
        assert_eq!(
            codes(&resumed.diagnostics()),
            codes(&whole.diagnostics()),
            "a resumed builder says what the builder it was written from says"
        );
        // And a later line bringing the named turn and message settles both warnings in each
        let later = snapshot(3, "t9", "m9", None);
        whole.add(&later);
        resumed.add(&later);
        assert_eq!(
            codes(&resumed.diagnostics()),
            Vec::<(u64, String)>::new(),
            "the resumed builder knows the turns and messages written before"
        );
        assert_eq!(
            codes(&whole.diagnostics()),
            codes(&resumed.diagnostics()),
            "both builders agree after the append"
        );
    }
}
