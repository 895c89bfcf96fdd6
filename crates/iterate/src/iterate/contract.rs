//! Which of iterate's contracts a journal follows: the seed contract, the later "sections"
//! contract (7.0.0, 8.0.0), or the agents-app loop that neither describes. Each event says what
//! it shows of its contract ([`signal`]); the fold carries what the events so far showed
//! ([`ContractSeen`]) and takes the first rule that matches, as the sections contract's
//! "telling the contracts apart" says: the loop's marks first, then any sign of sections, and
//! seed when there is none.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::event::IterateEvent;
use journalscope_shapes::diagnostic::Diagnostic;
use journalscope_shapes::record_json::Node;

/// The contract's family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ContractName {
    Seed,
    Sections,
    AgentLoop,
}

impl ContractName {
    pub fn as_str(self) -> &'static str {
        match self {
            ContractName::Seed => "seed",
            ContractName::Sections => "sections",
            ContractName::AgentLoop => "agent-loop",
        }
    }
}

/// A journal's contract, with the version its requests were stamped with (sections), or `8`
/// when only the 8.0.0 payloads (no role, platform, worker or model actors) show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Contract {
    pub name: ContractName,
    pub version: Option<String>,
}

impl Contract {
    pub fn seed() -> Contract {
        Contract {
            name: ContractName::Seed,
            version: None,
        }
    }

    /// `seed`, `sections 8.0.0`, `agent-loop`: the form a mark's note keeps.
    pub fn label(&self) -> String {
        match &self.version {
            Some(version) => format!("{} {version}", self.name.as_str()),
            None => self.name.as_str().to_string(),
        }
    }

    /// Reads a [`Contract::label`] back.
    pub fn from_label(label: &str) -> Option<Contract> {
        let (name, version) = match label.split_once(' ') {
            Some((name, version)) => (name, Some(version.to_string())),
            None => (label, None),
        };
        let name = match name {
            "seed" => ContractName::Seed,
            "sections" => ContractName::Sections,
            "agent-loop" => ContractName::AgentLoop,
            _ => return None,
        };
        Some(Contract { name, version })
    }
}

/// What one event shows of its contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// `agent/create-requested`, `itx/run-requested`, or a request with `triggerOffset`.
    AgentLoop,
    /// A request stamped 7.0.0 or later, a `context-rewritten`, a section payload, a payload
    /// without a role, or a platform, worker or model actor.
    Sections {
        /// The request's `contractVersion`, when it is 7 or later.
        version: Option<String>,
        /// A sign of 8.0.0 itself: a payload without a role, or an 8.0.0 actor.
        v8: bool,
    },
}

/// The major number of a `contractVersion` such as `"8.0.0"`.
fn major(version: &str) -> Option<u64> {
    version.split('.').next()?.trim().parse().ok()
}

/// Whether `kind` is `name` as a whole path segment at its end (`…/agent/create-requested`).
fn names(kind: &str, name: &str) -> bool {
    kind.strip_suffix(name)
        .is_some_and(|rest| rest.is_empty() || rest.ends_with('/') || rest.ends_with('.'))
}

/// What the record `value` shows of its contract, if anything.
pub fn signal<J: Node>(value: &J) -> Option<Signal> {
    let kind = value.field("type").and_then(J::as_str)?;
    let payload = value.field("payload");
    if names(kind, "agent/create-requested") || names(kind, "itx/run-requested") {
        return Some(Signal::AgentLoop);
    }
    // The loop's surest mark: its processor stamps what it writes.
    let processor = value.field("source").and_then(|s| s.field("processor"));
    if processor.and_then(|p| p.field("slug")).and_then(J::as_str) == Some("agent") {
        return Some(Signal::AgentLoop);
    }
    let last = kind.rsplit('/').next().unwrap_or(kind);
    match last {
        "llm-request-requested" => {
            let payload = payload?;
            if payload.field("triggerOffset").is_some() {
                return Some(Signal::AgentLoop);
            }
            let version = payload
                .field("contractVersion")
                .and_then(|v| match v.as_str() {
                    Some(text) => Some(text.to_string()),
                    None => v.as_number().map(ToString::to_string),
                })?;
            let major = major(&version)?;
            (major >= 7).then_some(Signal::Sections {
                v8: major >= 8,
                version: Some(version),
            })
        }
        "context-rewritten" => Some(Signal::Sections {
            version: None,
            v8: false,
        }),
        "context-added" => {
            let payload = payload.filter(|p| p.is_object())?;
            if ["call", "providerItems", "sections"]
                .iter()
                .any(|field| payload.field(field).is_some_and(|v| !v.is_null()))
            {
                return Some(Signal::AgentLoop);
            }
            let actor_v8 = payload
                .field("actor")
                .and_then(|a| a.field("type"))
                .and_then(J::as_str)
                .is_some_and(|t| matches!(t, "platform" | "worker" | "model"));
            let roleless = payload.field("role").is_none();
            let section = payload.field("kind").and_then(J::as_str) == Some("section");
            (actor_v8 || roleless || section).then_some(Signal::Sections {
                version: None,
                v8: actor_v8 || roleless,
            })
        }
        _ => None,
    }
}

/// What a journal's events have shown of its contract so far, as the fold carries it and a
/// checkpoint keeps it.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractSeen {
    agent_loop: bool,
    sections: bool,
    v8: bool,
    /// The highest `contractVersion` 7 or later seen on a request.
    version: Option<String>,
    /// The contract the last request followed.
    last_request: Option<Contract>,
    /// The version the agent processor stamped on the latest event it stamped.
    #[serde(default)]
    agent_version: Option<String>,
    /// Where the first sign of each family showed: the agent loop's, then sections'.
    #[serde(default)]
    first_signs: (Option<i64>, Option<i64>),
    /// A request was folded under the agent loop (its version is judged there).
    #[serde(default)]
    agent_request: bool,
}

/// What taking one event in changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ContractOutcome {
    /// The journal's contract before the event and after it, when the event changed it.
    pub now: Option<(Contract, Contract)>,
    /// This request follows another contract than the request before it: (before, now).
    pub changed: Option<(Contract, Contract)>,
    /// The event shows one family where an earlier event showed the other: where the agent
    /// loop showed first, and where sections did.
    pub disagree: Option<(i64, i64)>,
}

impl ContractSeen {
    /// The first rule that matches the events so far.
    pub fn contract(&self) -> Contract {
        if self.agent_loop {
            return Contract {
                name: ContractName::AgentLoop,
                version: self.agent_version.clone(),
            };
        }
        if self.sections {
            return Contract {
                name: ContractName::Sections,
                version: self
                    .version
                    .clone()
                    .or_else(|| self.v8.then(|| "8".to_string())),
            };
        }
        Contract::seed()
    }

    /// Whether a request was folded under the agent loop.
    pub fn agent_request_seen(&self) -> bool {
        self.agent_request
    }

    /// Notes that a request was folded under the agent loop.
    pub fn see_agent_request(&mut self) {
        self.agent_request = true;
    }

    /// Takes one event's signal in; `request` says whether the event is a request.
    pub fn note(&mut self, signal: Option<&Signal>, request: bool) -> ContractOutcome {
        self.note_at(signal, request, None, None)
    }

    /// [`ContractSeen::note`] of the event at `offset`, with the version the agent processor
    /// stamped on it, if it did.
    pub fn note_at(
        &mut self,
        signal: Option<&Signal>,
        request: bool,
        offset: Option<i64>,
        agent_version: Option<&str>,
    ) -> ContractOutcome {
        // Most events show nothing and are no request: nothing can change.
        if signal.is_none() && !request {
            return ContractOutcome::default();
        }
        let before = self.contract();
        let signs = self.first_signs;
        if let Some(version) = agent_version {
            self.agent_version = Some(version.to_string());
        }
        if let Some(offset) = offset {
            match signal {
                Some(Signal::AgentLoop) => {
                    self.first_signs.0.get_or_insert(offset);
                }
                Some(Signal::Sections { .. }) => {
                    self.first_signs.1.get_or_insert(offset);
                }
                None => {}
            }
        }
        match signal {
            Some(Signal::AgentLoop) => self.agent_loop = true,
            Some(Signal::Sections { version, v8 }) => {
                self.sections = true;
                self.v8 |= *v8;
                if let Some(version) = version {
                    let higher = self
                        .version
                        .as_deref()
                        .is_none_or(|seen| major(version) > major(seen));
                    if higher {
                        self.version = Some(version.clone());
                    }
                }
            }
            None => {}
        }
        let now = self.contract();
        let mut step = ContractOutcome::default();
        if let (Some(agent), Some(sections)) = self.first_signs {
            if signs.0.is_none() || signs.1.is_none() {
                step.disagree = Some((agent, sections));
            }
        }
        if now != before {
            step.now = Some((before, now.clone()));
        }
        if request {
            if let Some(last) = self.last_request.take().filter(|last| *last != now) {
                step.changed = Some((last, now.clone()));
            }
            self.last_request = Some(now);
        }
        step
    }
}

/// Said where a journal turns out to follow a contract other than seed: the fold goes on from
/// there by that contract's rules.
pub fn folding_diagnostic(event: &IterateEvent, contract: &Contract) -> Option<Diagnostic> {
    match contract.name {
        ContractName::Seed => None,
        ContractName::Sections => Some(Diagnostic::info(
            event.line,
            Some(event.offset),
            "sections-contract",
            format!(
                "this journal follows iterate's sections contract ({}): from here it is folded \
                 by that contract's rules (one list of sections, messages and request stamps)",
                contract.version.as_deref().unwrap_or("no version stamped")
            ),
        )),
        ContractName::AgentLoop => Some(Diagnostic::info(
            event.line,
            Some(event.offset),
            "agent-loop-contract",
            format!(
                "this journal follows iterate's agent loop ({}): it is folded by the rules of \
                 contract \"agent\" v16 (context items, sections, runs, triggers), and its \
                 requests are rendered as Responses-API bodies",
                signal_name(event)
            ),
        )),
    }
}

/// The versions of the agent loop's contract that are normative; others fold as v16 reads them.
const AGENT_VERSIONS: &[&str] = &["15", "16"];

/// Said of an agent-loop journal whose processor stamps `version` (`None`: no stamp at all),
/// when that is not a normative version.
pub fn agent_version_diagnostic(event: &IterateEvent, version: Option<&str>) -> Option<Diagnostic> {
    let said = match version {
        Some(version) if AGENT_VERSIONS.contains(&version) => return None,
        Some(version) => format!("the agent processor stamps version {version:?}, not 15 or 16"),
        None => "no event is stamped with the agent processor's version".to_string(),
    };
    Some(Diagnostic::warning(
        event.line,
        Some(event.offset),
        "agent-loop-version",
        format!("{said}: folded as v16 reads it"),
    ))
}

/// Said where the events show both the agent loop and the sections contract.
pub fn disagreement_diagnostic(event: &IterateEvent, agent: i64, sections: i64) -> Diagnostic {
    Diagnostic::warning(
        event.line,
        Some(event.offset),
        "contract-signs-disagree",
        format!(
            "the events disagree on their contract: @{agent} shows iterate's agent loop and \
             @{sections} shows the sections contract; the agent loop's rules win, as its marks \
             come first"
        ),
    )
}

/// What showed the agents-app loop at `event`.
fn signal_name(event: &IterateEvent) -> String {
    match &event.kind {
        super::event::EventKind::RequestRequested { .. } => {
            format!("a request with triggerOffset at @{}", event.offset)
        }
        _ if event
            .agent
            .as_ref()
            .and_then(|e| e.processor.as_ref())
            .is_some_and(|p| p.slug.as_deref() == Some("agent")) =>
        {
            format!("an event the agent processor stamped at @{}", event.offset)
        }
        _ => format!("an agents-app event at @{}", event.offset),
    }
}

/// Said at a request that follows another contract than the request before it.
pub fn change_diagnostic(event: &IterateEvent, before: &Contract, now: &Contract) -> Diagnostic {
    Diagnostic::warning(
        event.line,
        Some(event.offset),
        "contract-changed",
        format!(
            "the journal changes contract at this request: the requests before it followed {}, \
             this one follows {}",
            before.label(),
            now.label()
        ),
    )
}

/// The contract a stored journal follows, from the last `contract` mark its fold left (each
/// marks where the contract the events show changed); seed when there is none.
pub fn of_journal(
    store: &journalscope_store::store::Store,
    journal_id: i64,
) -> Result<Contract, journalscope_store::store::StoreError> {
    let Some(seq) = store.next_mark(journal_id, "contract", None, false)? else {
        return Ok(Contract::seed());
    };
    let marked = store.marks_between(journal_id, seq, seq + 1)?;
    Ok(marked
        .iter()
        .rev()
        .filter(|m| m.kind == "contract")
        .find_map(|m| Contract::from_label(&m.note))
        .unwrap_or_else(Contract::seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn request(payload: Value) -> Value {
        json!({"offset": 1, "type": "https://events.iterate.com/agent/llm-request-requested", "payload": payload})
    }

    #[test]
    fn given_each_sign_of_a_contract_when_read_then_the_event_shows_it() {
        let cases = [
            (
                json!({"type": "agent/create-requested"}),
                Some(Signal::AgentLoop),
            ),
            (
                json!({"type": "https://x/itx/run-requested"}),
                Some(Signal::AgentLoop),
            ),
            (
                request(json!({"triggerOffset": 3})),
                Some(Signal::AgentLoop),
            ),
            (
                request(json!({"contractVersion": "8.0.0"})),
                Some(Signal::Sections {
                    version: Some("8.0.0".into()),
                    v8: true,
                }),
            ),
            (
                request(json!({"contractVersion": "7.0.0"})),
                Some(Signal::Sections {
                    version: Some("7.0.0".into()),
                    v8: false,
                }),
            ),
            (request(json!({"contractVersion": "6.1.0"})), None),
            (request(json!({"model": "gpt-5"})), None),
            (
                json!({"type": "agent/context-rewritten", "payload": {"op": "delete", "key": "*"}}),
                Some(Signal::Sections {
                    version: None,
                    v8: false,
                }),
            ),
            (
                json!({"type": "context-added", "payload": {"content": "hi", "actor": {"type": "user"}}}),
                Some(Signal::Sections {
                    version: None,
                    v8: true,
                }),
            ),
            (
                json!({"type": "context-added", "payload": {"role": "system", "kind": "section", "key": "k"}}),
                Some(Signal::Sections {
                    version: None,
                    v8: false,
                }),
            ),
            (
                json!({"type": "context-added", "payload": {"role": "assistant", "actor": {"type": "model"}}}),
                Some(Signal::Sections {
                    version: None,
                    v8: true,
                }),
            ),
            (
                json!({"type": "context-added", "payload": {"role": "user", "actor": {"type": "github"}}}),
                None,
            ),
            (json!({"type": "agent/created-requested"}), None),
        ];
        for (value, expected) in cases {
            assert_eq!(
                signal(&value),
                expected,
                "what {value} shows of its contract"
            );
        }
    }

    #[test]
    fn given_events_of_several_contracts_then_the_first_rule_that_matches_wins() {
        let mut seen = ContractSeen::default();
        assert_eq!(seen.contract(), Contract::seed(), "no sign is seed");
        let sections = Signal::Sections {
            version: Some("7.0.0".into()),
            v8: false,
        };
        let step = seen.note(Some(&sections), true);
        assert_eq!(
            step.now.map(|(_, c)| c.label()),
            Some("sections 7.0.0".to_string()),
            "a stamped request makes the journal sections"
        );
        assert_eq!(step.changed, None, "the first request changes nothing");
        let later = Signal::Sections {
            version: Some("8.0.0".into()),
            v8: true,
        };
        let step = seen.note(Some(&later), true);
        assert_eq!(
            step.changed.map(|(a, b)| (a.label(), b.label())),
            Some(("sections 7.0.0".to_string(), "sections 8.0.0".to_string())),
            "a request of another version than the one before changes contract"
        );
        let older = Signal::Sections {
            version: Some("7.0.0".into()),
            v8: false,
        };
        assert_eq!(
            seen.note(Some(&older), false).now,
            None,
            "the highest version seen stays"
        );
        let step = seen.note(Some(&Signal::AgentLoop), false);
        assert_eq!(
            step.now.map(|(_, c)| c.name),
            Some(ContractName::AgentLoop),
            "the agents-app loop wins over sections, wherever it shows"
        );
        for contract in [
            seen.contract(),
            Contract::seed(),
            Contract {
                name: ContractName::Sections,
                version: Some("8.0.0".into()),
            },
        ] {
            assert_eq!(
                Contract::from_label(&contract.label()),
                Some(contract.clone()),
                "a label reads back"
            );
        }
    }

    #[test]
    fn given_the_agent_loops_other_marks_when_read_then_each_shows_the_loop() {
        let stamped = json!({"type": "events.iterate.com/agent/context-added",
            "source": {"origin": "/agents/a", "processor": {"slug": "agent", "version": 16}},
            "payload": {"role": "user", "content": "hi"}});
        let other_processor = json!({"type": "events.iterate.com/agent/context-added",
            "source": {"processor": {"slug": "router"}},
            "payload": {"role": "user", "content": "hi"}});
        let cases = [
            (
                stamped,
                Some(Signal::AgentLoop),
                "a stamp of the agent processor",
            ),
            (other_processor, None, "another processor's stamp"),
            (
                json!({"type": "agent/context-added", "payload": {"role": "assistant", "content": "x", "call": {"callId": "c"}}}),
                Some(Signal::AgentLoop),
                "a call payload",
            ),
            (
                json!({"type": "agent/context-added", "payload": {"role": "assistant", "content": "x", "providerItems": []}}),
                Some(Signal::AgentLoop),
                "provider items",
            ),
            (
                json!({"type": "agent/context-added", "payload": {"role": "system", "content": "", "sections": {"a": "1"}}}),
                Some(Signal::AgentLoop),
                "a sections payload",
            ),
            (
                json!({"type": "agent/context-added", "payload": {"content": "no role", "sections": {}}}),
                Some(Signal::AgentLoop),
                "the loop's marks come before sections' roleless payload",
            ),
        ];
        for (value, expected, what) in cases {
            assert_eq!(signal(&value), expected, "{what}: {value}");
        }
    }

    #[test]
    fn given_the_loop_and_sections_both_shown_when_noted_then_the_disagreement_names_both() {
        let mut seen = ContractSeen::default();
        let sections = Signal::Sections {
            version: None,
            v8: true,
        };
        assert_eq!(
            seen.note_at(Some(&sections), false, Some(3), None).disagree,
            None,
            "one family alone agrees with itself"
        );
        let step = seen.note_at(Some(&Signal::AgentLoop), true, Some(7), Some("16"));
        assert_eq!(
            step.disagree,
            Some((7, 3)),
            "where the loop showed, and where sections did"
        );
        assert_eq!(
            seen.contract().label(),
            "agent-loop 16",
            "the loop wins, with its processor's version"
        );
        assert_eq!(
            seen.note_at(Some(&Signal::AgentLoop), false, Some(9), Some("16"))
                .disagree,
            None,
            "the disagreement is said once"
        );
    }

    #[test]
    fn given_processor_versions_when_judged_then_only_15_and_16_are_normative() {
        let value = json!({"offset": 4, "type": "agent/llm-request-requested", "payload": {}});
        let (Some(event), _) = super::super::event::parse(1, 1, &value) else {
            panic!("the event parses");
        };
        for version in ["15", "16"] {
            assert_eq!(
                agent_version_diagnostic(&event, Some(version)),
                None,
                "{version} is normative"
            );
        }
        let said = agent_version_diagnostic(&event, Some("17")).expect("17 is not");
        assert!(
            said.message.contains("\"17\"") && said.message.contains("as v16 reads it"),
            "the warning names the version and how it is folded: {}",
            said.message
        );
        let none = agent_version_diagnostic(&event, None).expect("no stamp is not");
        assert_eq!(
            none.code, "agent-loop-version",
            "a missing version is said too"
        );
    }

    #[test]
    fn given_a_seed_request_then_a_sections_one_when_noted_then_the_change_is_told() {
        let mut seen = ContractSeen::default();
        assert_eq!(
            seen.note(None, true),
            ContractOutcome::default(),
            "a seed request"
        );
        let step = seen.note(
            Some(&Signal::Sections {
                version: Some("8.0.0".into()),
                v8: true,
            }),
            true,
        );
        assert_eq!(
            step.changed.map(|(a, b)| (a.label(), b.label())),
            Some(("seed".to_string(), "sections 8.0.0".to_string())),
            "requests that followed seed, then one stamped 8.0.0"
        );
    }
}
