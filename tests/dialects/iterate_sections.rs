//! Given/when/then tests of every rule of the sections contract (`iterate-sections-contract.md`
//! §3 to §6), on small journals written in code, and the proof that its fold from the store's
//! checkpoints equals a fold from the start.

use crate::support::iterate_lines;

use iterate_lines::*;
use journalscope_iterate::iterate::event::Role;
use journalscope_iterate::iterate::projection::{Item, Projection, Rules};
use journalscope_iterate::iterate::section_text::SECTIONS_PROTOCOL_MESSAGE;
use journalscope_iterate::iterate::view::IterateError;
use journalscope_iterate::iterate::{IterateJournal, Transport};
use serde_json::json;

/// The list as `(offset, what)`: `s:key`, `s:key^N` (supersedes @N), `stamp` or `m:role`.
fn list(projection: &Projection) -> Vec<(i64, String)> {
    projection
        .history
        .iter()
        .map(|item: &Item| {
            let what = if item.stamp {
                "stamp".to_string()
            } else if let Some(key) = item.key.as_deref().filter(|_| item.is_section()) {
                match item.updates_offset {
                    Some(n) => format!("s:{key}^{n}"),
                    None => format!("s:{key}"),
                }
            } else {
                format!("m:{}", item.role.as_str())
            };
            (item.offset, what)
        })
        .collect()
}

fn entries(pairs: &[(i64, &str)]) -> Vec<(i64, String)> {
    pairs.iter().map(|(o, w)| (*o, w.to_string())).collect()
}

fn contents(journal: &IterateJournal, request: i64) -> Vec<(Role, String)> {
    journal
        .request(request, Transport::Openai)
        .expect("the request was sent")
        .messages
        .into_iter()
        .map(|m| (m.role, m.content))
        .collect()
}

// ── the list: keyed items before and after a send ───────────────────────────────────────

#[test]
fn given_a_section_updated_before_any_send_when_folded_then_it_is_replaced_in_place() {
    let journal = journal(&[
        section(1, "a", "first"),
        section(2, "b", "other"),
        section(3, "a", "second"),
    ]);
    let p = journal.projection_at(3);
    assert_eq!(
        p.rules,
        Rules::Sections,
        "a section payload shows the contract"
    );
    assert_eq!(
        list(&p),
        entries(&[(3, "s:a"), (2, "s:b")]),
        "an unsent section keeps its position and takes the new offset"
    );
    assert_eq!(p.history[0].content.as_ref(), "second", "the new content");
    assert_eq!(
        p.history[0].coalesced,
        vec![1],
        "the replaced offset is kept"
    );
}

#[test]
fn given_a_section_updated_after_a_send_when_folded_then_a_superseding_section_is_appended() {
    let journal = journal(&[
        section(1, "a", "first"),
        said(2, "user", "go"),
        stamped_request(3, "8.0.0"),
        section(4, "a", "second"),
    ]);
    assert_eq!(
        list(&journal.projection_at(4)),
        entries(&[(1, "s:a"), (2, "m:user"), (3, "stamp"), (4, "s:a^1")]),
        "the sent section stays, the update goes at the end naming what it supersedes"
    );
}

#[test]
fn given_updates_after_each_of_several_sends_when_folded_then_each_supersedes_the_one_before() {
    let journal = journal(&[
        section(1, "a", "v1"),
        said(2, "user", "one"),
        stamped_request(3, "8.0.0"),
        settled(4, 3, "succeeded"),
        section(5, "a", "v2"),
        section(6, "a", "v3"),
        said(7, "user", "two"),
        stamped_request(8, "8.0.0"),
        settled(9, 8, "succeeded"),
        section(10, "a", "v4"),
    ]);
    assert_eq!(
        list(&journal.projection_at(10)),
        entries(&[
            (1, "s:a"),
            (2, "m:user"),
            (3, "stamp"),
            (6, "s:a^1"),
            (7, "m:user"),
            (8, "stamp"),
            (10, "s:a^6"),
        ]),
        "v3 replaced the unsent v2 in place (keeping its supersedes), v4 supersedes v3"
    );
}

#[test]
fn given_the_seed_contracts_prompt_key_when_folded_then_it_is_one_section_like_any_other() {
    let lines = [
        section(1, "agent/system-prompt", "p"),
        said(2, "user", "go"),
        stamped_request(3, "8.0.0"),
    ];
    let journal = journal(&lines);
    let diagnostics = diagnostics(&lines);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.code != "request-before-system-prompt"),
        "no prompt gate: {diagnostics:?}"
    );
    assert_eq!(
        contents(&journal, 3)[1].1,
        "<section key=\"agent/system-prompt\">\np\n</section>",
        "the key is rendered as any other"
    );
}

// ── context-rewritten ───────────────────────────────────────────────────────────────────

#[test]
fn given_a_replace_of_a_key_with_several_sections_when_folded_then_the_first_slot_gets_a_fresh_one()
{
    let journal = journal(&[
        section(1, "a", "v1"),
        said(2, "user", "go"),
        stamped_request(3, "8.0.0"),
        section(4, "a", "v2"),
        rewrite(5, json!({"op": "replace", "key": "a", "content": "v3"})),
    ]);
    let p = journal.projection_at(5);
    assert_eq!(
        list(&p),
        entries(&[(5, "s:a"), (2, "m:user"), (3, "stamp")]),
        "the first occurrence's slot holds a fresh section, the later one is gone"
    );
    assert_eq!(
        p.history[0].actor,
        Some(json!({"type": "platform"})),
        "a rewritten section is the platform's"
    );
}

#[test]
fn given_a_replace_of_a_missing_key_when_folded_then_a_section_is_appended() {
    let journal = journal(&[
        said(1, "user", "go"),
        rewrite(2, json!({"op": "replace", "key": "new", "content": "text"})),
    ]);
    assert_eq!(
        list(&journal.projection_at(2)),
        entries(&[(1, "m:user"), (2, "s:new")]),
        "appended at the end"
    );
}

#[test]
fn given_deletes_when_folded_then_a_key_loses_its_sections_and_star_empties_the_list() {
    let lines = [
        section(1, "a", "a"),
        section(2, "b", "b"),
        said(3, "user", "go"),
        stamped_request(4, "8.0.0"),
        section(5, "a", "a2"),
        rewrite(6, json!({"op": "delete", "key": "a"})),
        rewrite(7, json!({"op": "delete", "key": "*"})),
    ];
    let journal = journal(&lines);
    assert_eq!(
        list(&journal.projection_at(6)),
        entries(&[(2, "s:b"), (3, "m:user"), (4, "stamp")]),
        "every section of the key goes; messages and stamps stay"
    );
    assert!(
        journal.projection_at(7).history.is_empty(),
        "\"*\" empties sections, messages and stamps"
    );
}

#[test]
fn given_invalid_rewrites_when_folded_then_each_is_skipped_and_reported() {
    let lines = [
        section(1, "a", "a"),
        rewrite(2, json!({"op": "replace", "key": "*", "content": "all"})),
        rewrite(3, json!({"op": "delete", "key": "a", "content": "x"})),
        rewrite(4, json!({"op": "replace", "key": "a"})),
        rewrite(5, json!({"op": "rename", "key": "a"})),
        rewrite(6, json!({"op": "delete"})),
    ];
    let journal = journal(&lines);
    assert_eq!(
        list(&journal.projection_at(6)),
        entries(&[(1, "s:a")]),
        "nothing changed"
    );
    let diagnostics = diagnostics(&lines);
    for offset in 2..=6 {
        assert_eq!(
            codes_at(&diagnostics, offset),
            vec!["invalid-rewrite"],
            "@{offset} is reported"
        );
    }
}

// ── roles ───────────────────────────────────────────────────────────────────────────────

#[test]
fn given_roleless_payloads_when_folded_then_roles_come_from_key_summary_and_actor() {
    let lines = [
        section(1, "a", "a"),
        said(2, "platform", "p"),
        said(3, "agent", "g"),
        said(4, "script", "s"),
        said(5, "worker", "w"),
        said(6, "model", "m"),
        said(7, "slack", "k"),
        said(8, "github", "h"),
        said(9, "user", "u"),
        ctx(10, json!({"content": "no actor"})),
    ];
    let p = journal(&lines).projection_at(10);
    let roles: Vec<Role> = p.history.iter().map(|i| i.role).collect();
    use Role::*;
    assert_eq!(
        roles,
        vec![System, Developer, Developer, Developer, Developer, Assistant, User, User, User, User],
        "§4's order: key, then actor (script stays developer), then user"
    );
    assert!(
        diagnostics(&lines).iter().all(|d| d.code != "invalid-role"),
        "a payload without a role is not an error under this contract"
    );
}

#[test]
fn given_a_seven_journal_with_stated_roles_when_folded_then_keyed_items_are_sections() {
    let journal = journal(&[
        keyed(1, "system", "style", "terse"),
        user(2, "hi"),
        stamped_request(3, "7.0.0"),
    ]);
    let p = journal.projection_at(3);
    assert_eq!(
        list(&p),
        entries(&[(1, "s:style"), (2, "m:user"), (3, "stamp")]),
        "the items read before the stamped request are moved onto the sections list"
    );
    let messages = contents(&journal, 3);
    assert_eq!(
        messages[0].1, SECTIONS_PROTOCOL_MESSAGE,
        "the protocol first"
    );
    assert_eq!(
        messages[1],
        (
            Role::System,
            "<section key=\"style\">\nterse\n</section>".to_string()
        ),
        "then the standing document"
    );
}

// ── requests ────────────────────────────────────────────────────────────────────────────

#[test]
fn given_a_request_with_no_trigger_when_folded_then_it_opens_nothing_and_sends_nothing() {
    let lines = [section(1, "a", "a"), stamped_request(2, "8.0.0")];
    let journal = journal(&lines);
    assert_eq!(
        list(&journal.projection_at(2)),
        entries(&[(1, "s:a")]),
        "no stamp"
    );
    assert!(
        matches!(
            journal.request(2, Transport::Openai),
            Err(IterateError::NotSent(2, _))
        ),
        "the request has no body"
    );
    assert_eq!(
        codes_at(&diagnostics(&lines), 2),
        vec!["request-not-opened"],
        "and that is said"
    );
}

#[test]
fn given_a_request_while_one_is_open_or_paused_when_folded_then_it_is_a_no_op() {
    let lines = [
        said(1, "user", "one"),
        stamped_request(2, "8.0.0"),
        said(3, "user", "two"),
        stamped_request(4, "8.0.0"),
        settled(5, 2, "succeeded"),
        event(6, "paused", json!({})),
        stamped_request(7, "8.0.0"),
        event(8, "resumed", json!({})),
        stamped_request(9, "8.0.0"),
    ];
    let journal = journal(&lines);
    let diagnostics = diagnostics(&lines);
    for offset in [4, 7] {
        assert_eq!(
            codes_at(&diagnostics, offset),
            vec!["request-not-opened"],
            "@{offset} opens nothing"
        );
    }
    assert_eq!(
        list(&journal.projection_at(9)),
        entries(&[(1, "m:user"), (2, "stamp"), (3, "m:user"), (9, "stamp")]),
        "the trigger of @3 waited through the open request and the pause"
    );
}

#[test]
fn given_failed_requests_when_settled_then_each_retries_until_the_cap() {
    let mut lines = vec![said(1, "user", "go"), stamped_request(2, "8.0.0")];
    let mut request = 2;
    for n in 0..3 {
        let at = 3 + n * 2;
        lines.push(settled(at, request, "failed"));
        lines.push(stamped_request(at + 1, "8.0.0"));
        request = at + 1;
    }
    let journal = journal(&lines);
    let sent: Vec<i64> = journal
        .projection_at(request)
        .history
        .iter()
        .filter(|i| i.stamp)
        .map(|i| i.offset)
        .collect();
    assert_eq!(
        sent,
        vec![2, 4, 6],
        "two failures retry; the third gives up, so the request after it opens nothing"
    );
}

#[test]
fn given_model_output_for_a_request_that_is_not_open_when_folded_then_it_is_dropped() {
    let lines = [
        said(1, "user", "go"),
        stamped_request(2, "8.0.0"),
        model_reply(3, 99, "for nobody"),
        model_reply(4, 2, "the answer"),
        settled(5, 2, "succeeded"),
        model_reply(6, 2, "too late"),
    ];
    let journal = journal(&lines);
    assert_eq!(
        list(&journal.projection_at(6)),
        entries(&[(1, "m:user"), (2, "stamp"), (4, "m:assistant")]),
        "only the open request's output stays"
    );
    let diagnostics = diagnostics(&lines);
    for offset in [3, 6] {
        assert_eq!(
            codes_at(&diagnostics, offset),
            vec!["stale-model-output"],
            "@{offset} is reported"
        );
    }
}

// ── compaction ──────────────────────────────────────────────────────────────────────────

#[test]
fn given_a_compaction_when_folded_then_the_list_is_rebuilt_newest_key_first() {
    let journal = journal(&[
        section(1, "a", "a1"),
        ctx(2, json!({"role": "system", "content": "rule"})),
        said(3, "user", "one"),
        stamped_request(4, "8.0.0"),
        model_reply(5, 4, "r1"),
        settled(6, 4, "succeeded"),
        section(7, "a", "a2"),
        said(8, "user", "two"),
        stamped_request(9, "8.0.0"),
        model_reply(10, 9, "r2"),
        settled(11, 9, "succeeded"),
        compaction(12, json!(8), "summary"),
        section(13, "a", "a3"),
    ]);
    let p = journal.projection_at(12);
    assert_eq!(
        list(&p),
        entries(&[
            (7, "s:a"),
            (2, "m:system"),
            (12, "m:user"),
            (9, "stamp"),
            (10, "m:assistant"),
        ]),
        "newest of each key without supersedes, unkeyed system, summary, then what is after @8"
    );
    assert_eq!(
        p.published_through,
        Some(9),
        "sent through stays at the newer request"
    );
    let compaction = p
        .last_compaction
        .as_ref()
        .expect("the compaction took effect");
    assert_eq!(
        compaction.collapsed,
        vec![1],
        "the older occurrence of a collapsed"
    );
    assert_eq!(
        compaction.dropped,
        vec![3, 4, 5, 8],
        "what the cutoff removed"
    );
    assert_eq!(
        list(&journal.projection_at(13)),
        entries(&[
            (7, "s:a"),
            (2, "m:system"),
            (12, "m:user"),
            (9, "stamp"),
            (10, "m:assistant"),
            (13, "s:a^7"),
        ]),
        "a section after the compaction supersedes the sent one"
    );
}

#[test]
fn given_a_compaction_whose_cutoff_is_not_before_it_when_folded_then_it_is_ignored() {
    let lines = [said(1, "user", "go"), compaction(2, json!(5), "summary")];
    assert_eq!(
        list(&journal(&lines).projection_at(2)),
        entries(&[(1, "m:user")]),
        "nothing rebuilt"
    );
    assert_eq!(
        codes_at(&diagnostics(&lines), 2),
        vec!["compaction-cutoff-not-before-item"],
        "and it is said"
    );
}

// ── rendering ───────────────────────────────────────────────────────────────────────────

#[test]
fn given_a_sent_request_when_rendered_then_each_later_request_starts_with_its_text() {
    let journal = journal(&[
        section(1, "a", "rules"),
        said(2, "user", "one"),
        stamped_request(3, "8.0.0"),
        model_reply(4, 3, "r1"),
        settled(5, 3, "succeeded"),
        said(6, "github", "two"),
        stamped_request(7, "8.0.0"),
    ]);
    let first = contents(&journal, 3);
    let second = contents(&journal, 7);
    assert_eq!(
        second[..first.len()],
        first[..],
        "the stamp stays, so the earlier request is a prefix of the later one"
    );
    assert_eq!(
        first.last().cloned(),
        Some((Role::Developer, format!("Requested at: {}", time_of(3)))),
        "the stamp is the request's createdAt, verbatim"
    );
    assert_eq!(
        second[second.len() - 2],
        (Role::User, "@6 actor=github:\"unknown\"\ntwo".to_string()),
        "an external actor's message has a header naming it"
    );
    assert_eq!(
        first[2],
        (Role::User, "one".to_string()),
        "a plain human turn has none"
    );
}

// ── telling the contracts apart ─────────────────────────────────────────────────────────

#[test]
fn given_the_agents_app_loop_when_folded_then_its_own_rules_apply_and_not_the_lanes() {
    let journal = journal(&[
        keyed(1, "system", "agent/system-prompt", "p"),
        user(2, "go"),
        event(3, "llm-request-requested", json!({"triggerOffset": 2})),
        event(
            4,
            "llm-request-requested",
            json!({"triggerOffset": 2, "model": "m", "expiresAt": "later"}),
        ),
    ]);
    let p = journal.projection_at(4);
    assert_eq!(p.rules, Rules::AgentLoop, "the loop is told apart");
    assert!(
        p.system.is_empty() && p.history.is_empty(),
        "no seed or sections lanes: the loop keeps its own items"
    );
    assert!(
        matches!(
            journal.request(3, Transport::Openai),
            Err(IterateError::NotSent(3, _))
        ),
        "a request without its model and expiry is skipped and sends nothing"
    );
    let sent = journal
        .request(4, Transport::Openai)
        .expect("the request on the pending trigger opens");
    assert!(
        sent.responses_body.is_some(),
        "and is rendered as a Responses-API body"
    );
}

#[test]
fn given_a_seed_journal_when_folded_then_the_seed_rules_apply() {
    let journal = journal(&[
        keyed(1, "system", "agent/system-prompt", "p"),
        user(2, "go"),
        request(3),
    ]);
    let p = journal.projection_at(3);
    assert_eq!(
        p.rules,
        Rules::Seed,
        "roles everywhere and no version: seed"
    );
    assert_eq!(p.system.len(), 1, "the system lane");
}

// ── the store's checkpoints ─────────────────────────────────────────────────────────────

/// A long sections journal: every rule, again and again, so that checkpoints fall between
/// sends, inside rewrites and after compactions.
fn long_journal(cycles: i64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut o = 0;
    let mut next = || {
        o += 1;
        o
    };
    let mut last_request = 0;
    for cycle in 0..cycles {
        let key = format!("k{}", cycle % 7);
        lines.push(section(next(), &key, &format!("section {cycle}")));
        lines.push(said(next(), "user", &format!("question {cycle}")));
        let request = next();
        lines.push(stamped_request(request, "8.0.0"));
        lines.push(model_reply(next(), request, &format!("answer {cycle}")));
        let status = if cycle % 5 == 0 {
            "failed"
        } else {
            "succeeded"
        };
        lines.push(settled(next(), request, status));
        if cycle % 11 == 3 {
            lines.push(rewrite(
                next(),
                json!({"op": "replace", "key": key, "content": format!("rewritten {cycle}")}),
            ));
        }
        if cycle % 13 == 4 {
            lines.push(rewrite(next(), json!({"op": "delete", "key": "k1"})));
        }
        if cycle % 17 == 9 {
            let at = next();
            lines.push(compaction(
                at,
                json!(last_request),
                &format!("summary {cycle}"),
            ));
        }
        if cycle % 19 == 6 {
            lines.push(stamped_request(next(), "8.0.0"));
        }
        last_request = request;
    }
    lines
}

#[test]
fn given_a_long_sections_journal_when_read_from_the_stores_checkpoints_then_views_equal_a_fold_from_the_start(
) {
    use journalscope_iterate::iterate::checkpoint;
    use journalscope_iterate::iterate::projection::fold_through;
    let lines = long_journal(400);
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("journal.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write the journal");
    let store =
        journalscope::store::Store::open(&dir.path().join("journal.sqlite")).expect("store");
    let mut quiet = |_| {};
    journalscope::import::import_file(
        &store,
        &file,
        &mut journalscope::import::ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("import");
    let id = store.latest_journal().expect("journal").expect("one").id;
    assert!(
        store.checkpoint_cover(id).expect("cover").is_some(),
        "the import kept checkpoints"
    );
    let loaded = journal(&lines);
    let last = loaded.events.last().map_or(0, |e| e.offset);
    for at in (1..=last).step_by(37).chain([511, 512, 513, 1024, last]) {
        let stored = checkpoint::view_at(&store, id, at).expect("read");
        assert_eq!(
            stored,
            loaded.projection_view(at),
            "the view from a checkpoint equals the loaded one at @{at}"
        );
        assert_eq!(
            loaded.projection_at(at),
            fold_through(&loaded.events, at),
            "and the loaded one a fold from the start at @{at}"
        );
    }
    for request in loaded.requests().into_iter().map(|r| r.offset).step_by(13) {
        let stored = checkpoint::request_at(&store, id, request, Transport::Openai).expect("read");
        match (stored, loaded.request(request, Transport::Openai)) {
            (Ok(a), Ok(b)) => assert_eq!(a.body(), b.body(), "request @{request}: same bytes"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "@{request}: same error"),
            (a, b) => panic!("@{request}: the store says {a:?}, the fold {b:?}"),
        }
    }
    let stored = journalscope_iterate::iterate::diff::cache_report_stored(
        &store,
        id,
        Transport::Openai,
        (None, None),
    )
    .expect("read");
    let whole = loaded.cache_report(Transport::Openai).expect("a report");
    assert_eq!(
        stored, whole,
        "the cache report from the store equals the loaded one"
    );
    assert!(
        whole.breaks > 0 && whole.unexpected_breaks == 0,
        "rewrites and compactions break the prefix, and each break is explained: {} break(s), {} unexpected",
        whole.breaks,
        whole.unexpected_breaks
    );
}

// ── prefix cache ────────────────────────────────────────────────────────────────────────

#[test]
fn given_sections_superseded_after_sends_when_the_cache_is_reported_then_no_prefix_breaks() {
    let journal = journal(&[
        section(1, "a", "v1"),
        said(2, "user", "one"),
        stamped_request(3, "8.0.0"),
        settled(4, 3, "succeeded"),
        section(5, "a", "v2"),
        said(6, "user", "two"),
        stamped_request(7, "8.0.0"),
        stamped_request(8, "8.0.0"),
    ]);
    let report = journal.cache_report(Transport::Openai).expect("a report");
    assert_eq!(
        report.requests.len(),
        2,
        "the request that sent nothing has no prefix to compare"
    );
    assert_eq!(report.breaks, 0, "an appended supersedes keeps the prefix");
    assert_eq!(
        report.total_reused_bytes, report.total_ideal_bytes,
        "the whole earlier request, stamp included, is reused"
    );
}

#[test]
fn given_a_rewrite_of_a_sent_section_when_the_cache_is_reported_then_the_break_names_it() {
    let journal = journal(&[
        section(1, "a", "v1"),
        said(2, "user", "one"),
        stamped_request(3, "8.0.0"),
        settled(4, 3, "succeeded"),
        rewrite(5, json!({"op": "replace", "key": "a", "content": "v2"})),
        said(6, "user", "two"),
        stamped_request(7, "8.0.0"),
    ]);
    let report = journal.cache_report(Transport::Openai).expect("a report");
    let broke = report.requests[1]
        .prefix_break
        .as_ref()
        .expect("the standing document changed");
    assert_eq!(broke.at_message, 1, "at the standing document");
    assert!(
        broke.expected,
        "the journal explains it: {}",
        broke.explanation
    );
    assert!(
        matches!(
            &broke.causes[0],
            journalscope_iterate::iterate::diff::BreakCause::ContextRewritten { offset: 5, removed, .. }
                if removed == &vec![1]
        ),
        "the rewrite at @5 that replaced @1: {:?}",
        broke.causes
    );
}
