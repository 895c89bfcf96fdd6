//! Provider roles: how a product item's role maps onto each transport's wire role, and which
//! rule of `interpretation.md` §1 decided it. External data never gains instruction precedence.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::event::Role;
use super::projection::Item;

use journalscope_shapes::record_json::Field;

/// A provider transport with its own role vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[ts(export)]
pub enum Transport {
    /// OpenAI's API: has a native `developer` role.
    #[serde(rename = "openai")]
    Openai,
    /// Workers AI's unified interface: no confirmed developer role.
    #[serde(rename = "workers-ai")]
    WorkersAi,
}

impl Transport {
    pub const ALL: [Transport; 2] = [Transport::Openai, Transport::WorkersAi];

    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Openai => "openai",
            Transport::WorkersAi => "workers-ai",
        }
    }

    pub fn parse(text: &str) -> Option<Transport> {
        match text {
            "openai" => Some(Transport::Openai),
            "workers-ai" => Some(Transport::WorkersAi),
            _ => None,
        }
    }

    /// The role trusted developer context travels in on this transport.
    pub fn trusted_developer_role(self) -> Role {
        match self {
            Transport::Openai => Role::Developer,
            Transport::WorkersAi => Role::System,
        }
    }
}

/// The rule that decided an item's provider role. The serialized names are stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Rule {
    /// System items stay system everywhere.
    System,
    /// An actorless (platform-authored) developer item, on a transport with a developer role.
    TrustedDeveloper,
    /// An agent-authored developer item, on a transport with a developer role.
    AgentDeveloper,
    /// Trusted developer context mapped to system: the transport has no developer role.
    TrustedDeveloperAsSystem,
    /// Agent-authored developer context mapped to system: the transport has no developer role.
    AgentDeveloperAsSystem,
    /// Developer context supplied by an external actor (Slack, GitHub, a script, ...) is
    /// downgraded to user so it cannot acquire instruction precedence.
    ExternalActorDowngrade,
    /// Compaction summaries can quote untrusted text, so they travel as user.
    CompactionSummaryDowngrade,
    User,
    Assistant,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::System => "system",
            Rule::TrustedDeveloper => "trusted-developer",
            Rule::AgentDeveloper => "agent-developer",
            Rule::TrustedDeveloperAsSystem => "trusted-developer-as-system",
            Rule::AgentDeveloperAsSystem => "agent-developer-as-system",
            Rule::ExternalActorDowngrade => "external-actor-downgrade",
            Rule::CompactionSummaryDowngrade => "compaction-summary-downgrade",
            Rule::User => "user",
            Rule::Assistant => "assistant",
        }
    }

    /// One sentence for people.
    pub fn explain(self) -> &'static str {
        match self {
            Rule::System => "system items keep the system role",
            Rule::TrustedDeveloper => "actorless developer context is trusted: native developer role",
            Rule::AgentDeveloper => "agent-authored developer context is trusted: native developer role",
            Rule::TrustedDeveloperAsSystem => "no developer role on this transport: trusted developer context maps to system",
            Rule::AgentDeveloperAsSystem => "no developer role on this transport: agent-authored developer context maps to system",
            Rule::ExternalActorDowngrade => "developer context from an external actor is downgraded to user: it must not gain instruction precedence",
            Rule::CompactionSummaryDowngrade => "a compaction summary may quote untrusted text: it travels as user",
            Rule::User => "user items keep the user role",
            Rule::Assistant => "assistant items keep the assistant role",
        }
    }

    /// Whether the rule changes the product role into another provider role.
    pub fn is_downgrade(self) -> bool {
        matches!(
            self,
            Rule::ExternalActorDowngrade | Rule::CompactionSummaryDowngrade
        )
    }
}

/// An item's provider role on one transport and the rule behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ProviderRole {
    pub role: Role,
    pub rule: Rule,
}

/// The actor type of an item, `None` when it has no actor.
pub fn actor_type(actor: Option<&Value>) -> Option<&str> {
    let actor = actor?;
    Some(
        actor
            .field("type")
            .and_then(Value::as_str)
            .unwrap_or("unknown"),
    )
}

pub fn provider_role(item: &Item, transport: Transport) -> ProviderRole {
    let (role, rule) = match item.role {
        Role::System => (Role::System, Rule::System),
        Role::User => (Role::User, Rule::User),
        Role::Assistant => (Role::Assistant, Rule::Assistant),
        Role::Developer if item.compaction.is_some() => {
            (Role::User, Rule::CompactionSummaryDowngrade)
        }
        Role::Developer => match (actor_type(item.actor.as_ref()), transport) {
            (None, Transport::Openai) => (Role::Developer, Rule::TrustedDeveloper),
            (None, Transport::WorkersAi) => (Role::System, Rule::TrustedDeveloperAsSystem),
            (Some("agent"), Transport::Openai) => (Role::Developer, Rule::AgentDeveloper),
            (Some("agent"), Transport::WorkersAi) => (Role::System, Rule::AgentDeveloperAsSystem),
            (Some(_), _) => (Role::User, Rule::ExternalActorDowngrade),
        },
    };
    ProviderRole { role, rule }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_downgrade_is_one_on_every_transport_or_on_none() {
        // Protects the downgrade breakpoint of one transport, which lists the analysis's
        // `downgrade` marks (one per item, whichever transport it names).
        let actors = [
            None,
            Some(json!({"type": "agent"})),
            Some(json!({"type": "github"})),
            Some(json!({})),
        ];
        for role in [Role::System, Role::User, Role::Assistant, Role::Developer] {
            for actor in &actors {
                for compaction in [None, Some(json!({"cutoffOffset": 3}))] {
                    let item = Item {
                        offset: 1,
                        seq: 1,
                        role,
                        actor: actor.clone(),
                        key: None,
                        updates_offset: None,
                        refs: Vec::new(),
                        files: Vec::new(),
                        content: "x".into(),
                        compaction,
                        llm_request_offset: None,
                        coalesced: Vec::new(),
                        stamp: false,
                        tokens: Default::default(),
                    };
                    let downgraded: Vec<bool> = Transport::ALL
                        .iter()
                        .map(|t| provider_role(&item, *t).rule.is_downgrade())
                        .collect();
                    assert!(
                        downgraded.iter().all(|d| *d == downgraded[0]),
                        "{role:?} by {actor:?}: a downgrade on one transport only: {downgraded:?}"
                    );
                }
            }
        }
    }
}
