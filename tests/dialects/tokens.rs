//! Token counts: the same counts as an independent implementation of each encoding (the npm
//! package js-tiktoken, which `make test` installs with the UI's packages), reported usage
//! reconciled with what is counted, and the compaction threshold view.

use std::path::{Path, PathBuf};
use std::process::Command;

use journalscope::import::ImportControl;
use journalscope::journal::{Demo, Journal};
use journalscope::report::{context_sizes, OffsetRange};
use journalscope::tokens::{tolerance, Encoding};
use journalscope_gen::Rng;
use journalscope_iterate::iterate::tokens::count_messages;
use journalscope_iterate::iterate::Transport;
use serde_json::{json, Value};

use crate::support::iterate_lines;
use iterate_lines::{event, system_prompt, user};

/// The snapshot an AgentsKit journal's cursor holds after row `seq` (offset `seq + 1`).
fn held_snapshot(journal: &Journal, seq: i64) -> journalscope_agentskit::agentskit::SnapshotAt {
    journalscope_agentskit::agentskit::state_at_stored(
        journal.store(),
        journal.row().id,
        seq + 1,
        None,
    )
    .expect("the held snapshot reads")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn open(dir: &Path, name: &str, bytes: &[u8]) -> Journal {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write the journal");
    let mut quiet = |_| {};
    Journal::open(
        &path,
        Some(&dir.join(format!("{name}.sqlite"))),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )
    .expect("the journal opens")
}

/// Texts where tokenizers go wrong: every script, emoji with joiners and modifiers, combining
/// marks, code, whitespace runs, numbers, long repetitive runs, and strings that look like
/// special tokens (content, so never special).
fn random_texts(count: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "hello",
        " world",
        "Grüße",
        "naïve café",
        "日本語のテキスト",
        "中文分词",
        "한국어",
        "العربية",
        "עברית",
        "हिन्दी",
        "Ελληνικά",
        "кириллица",
        "👩‍👩‍👧‍👦",
        "👍🏽",
        "🇯🇵",
        "e\u{301}",
        "\u{200b}",
        "fn main() { println!(\"{}\", x); }",
        "for (let i = 0; i < n; i++) {}",
        "    indented\n\tand tabbed",
        "\r\n",
        "   ",
        "1234567890",
        "3.14159e-10",
        "<|endoftext|>",
        "<|im_start|>user",
        "<|fim_prefix|>",
        "<|endofprompt|>",
        "{\"key\": [1, 2, {\"nested\": null}]}",
        "https://example.com/a?b=c&d=e",
        "'s 't 're 've 'm 'll 'd",
        "ALLCAPS",
        "snake_case_identifier",
        "CamelCaseIdentifier",
        "\\n\\t\\\\",
    ];
    let mut rng = Rng::new(0x5eed_70c3_u64);
    let mut texts = Vec::with_capacity(count);
    for _ in 0..count {
        let mut text = String::new();
        match rng.range(0, 10) {
            // A run of one character, or of one piece, with no break: js-tiktoken's time grows
            // with the square of such a run, so they stay a few hundred bytes long.
            0 => {
                let piece = PIECES[rng.range(0, PIECES.len() as u64) as usize];
                let times = 1 + rng.range(0, 400) as usize / piece.len().max(1);
                text = piece.repeat(times);
            }
            1 => text = "a".repeat(1 + rng.range(0, 400) as usize),
            // A long line of words: thousands of characters.
            2 if rng.range(0, 2) == 0 => {
                while text.len() < 6_000 {
                    text.push_str(PIECES[rng.range(0, PIECES.len() as u64) as usize]);
                    text.push(' ');
                }
            }
            // Arbitrary code points, surrogates aside.
            2 => {
                for _ in 0..rng.range(0, 200) {
                    let c = char::from_u32(rng.range(0, 0x2_0000) as u32).unwrap_or('?');
                    text.push(c);
                }
            }
            _ => {
                for _ in 0..1 + rng.range(0, 60) {
                    text.push_str(PIECES[rng.range(0, PIECES.len() as u64) as usize]);
                    if rng.range(0, 3) == 0 {
                        text.push(' ');
                    }
                }
            }
        }
        texts.push(text);
    }
    texts
}

/// The texts of every bundled demo: each rendered message of every iterate request, and every
/// line of the other demos (their JSON is mostly text a model reads).
fn demo_texts(dir: &Path) -> Vec<String> {
    let journal = open(
        dir,
        "iterate-demo.jsonl",
        Demo::named("iterate").expect("the iterate demo").bytes(),
    );
    let mut texts = Vec::new();
    for request in journal.requests().expect("requests") {
        for transport in Transport::ALL {
            let snapshot = journal
                .request(request.offset, transport)
                .expect("the request renders");
            texts.extend(snapshot.messages.into_iter().map(|m| m.content));
        }
    }
    for demo in [
        Demo::named("ag-ui").expect("the AG-UI demo"),
        Demo::named("agentskit").expect("the AgentsKit demo"),
    ] {
        let text = String::from_utf8_lossy(demo.bytes()).into_owned();
        texts.extend(text.lines().map(str::to_string));
    }
    let claude = root().join("tests/fixtures/claude-code");
    for entry in std::fs::read_dir(&claude).expect("the Claude Code fixtures") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).expect("a fixture");
            texts.extend(text.lines().map(str::to_string));
        }
    }
    texts
}

/// Counts `texts` in each encoding with js-tiktoken, in one `node` process.
fn js_tiktoken(dir: &Path, texts: &[String]) -> Value {
    let input = dir.join("texts.json");
    let request = json!({"o200k_base": texts, "cl100k_base": texts});
    std::fs::write(&input, request.to_string()).expect("write the texts");
    let output = Command::new("node")
        .arg(root().join("tests/tokens/count.mjs"))
        .arg(&input)
        .output()
        .expect("node runs (make test installs it, with js-tiktoken under ui/node_modules)");
    assert!(
        output.status.success(),
        "js-tiktoken counted: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("js-tiktoken's counts are JSON")
}

#[test]
fn counts_equal_js_tiktoken_on_the_demos_and_on_random_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut texts = demo_texts(dir.path());
    let from_demos = texts.len();
    texts.extend(random_texts(1_500));
    let theirs = js_tiktoken(dir.path(), &texts);
    for (encoding, name) in [
        (Encoding::O200kBase, "o200k_base"),
        (Encoding::Cl100kBase, "cl100k_base"),
    ] {
        let counts = theirs[name].as_array().expect("a count per text");
        assert_eq!(counts.len(), texts.len(), "js-tiktoken counted every text");
        let mut total = 0u64;
        for (index, (text, count)) in texts.iter().zip(counts).enumerate() {
            let ours = encoding.count(text);
            total += u64::from(ours);
            assert_eq!(
                Some(u64::from(ours)),
                count.as_u64(),
                "{name}: text {index} ({} from the demos) counts the same in both \
                 implementations: {text:?}",
                if index < from_demos { "one" } else { "not one" }
            );
        }
        assert!(
            total > 100_000,
            "the texts are not trivially small ({total} tokens)"
        );
    }
}

const MODEL: &str = "gpt-5.1";

/// A journal of one request to an OpenAI model, and the count of that request.
fn one_request() -> (Vec<String>, u64) {
    let lines = vec![
        system_prompt(1, "You review pull requests. Say what you checked."),
        user(
            2,
            "Please review PR #7: it renames `ledger_rows` to `ledger_entries` 📒.",
        ),
        event(3, "llm-request-requested", json!({"model": MODEL})),
    ];
    let journal = iterate_lines::journal(&lines);
    let counted = journal.requests()[0]
        .tokens
        .expect("the request is counted");
    (lines, counted)
}

fn usage(offset: i64, input: u64) -> String {
    event(
        offset,
        "token-usage-reported",
        json!({"llmRequestOffset": 3, "model": MODEL, "maxContextTokens": 400000,
               "inputTokens": input, "outputTokens": 12, "cachedInputTokens": 0}),
    )
}

fn token_diagnostics(lines: &[String]) -> Vec<String> {
    iterate_lines::diagnostics(lines)
        .into_iter()
        .filter(|d| d.code == "token-count-differs")
        .map(|d| d.message)
        .collect()
}

#[test]
fn given_reported_usage_within_the_tolerance_then_it_is_shown_beside_the_count_and_nothing_is_said()
{
    let (mut lines, counted) = one_request();
    // A provider bills a few tokens of its own.
    lines.push(usage(4, counted + 3));
    assert_eq!(
        token_diagnostics(&lines),
        Vec::<String>::new(),
        "3 tokens apart is within the tolerance of {}",
        tolerance(counted + 3, true)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open(dir.path(), "match.jsonl", lines.join("\n").as_bytes());
    let sizes = context_sizes(&journal, OffsetRange::default(), Transport::Openai).expect("sizes");
    assert_eq!(
        sizes[0].total_tokens, counted,
        "sizes count as the fold did"
    );
    assert_eq!(
        sizes[0].reported_input,
        Some(counted + 3),
        "the reported input stands beside the count"
    );
    assert!(sizes[0].tokenizer.exact, "{MODEL} is counted exactly");
    let row = &journal.requests().expect("requests")[0];
    assert_eq!(
        row.reported.and_then(|u| u.input),
        Some(counted + 3),
        "the request's row holds its reported usage"
    );
}

#[test]
fn given_reported_usage_beyond_the_tolerance_then_a_diagnostic_names_both_figures() {
    let (mut lines, counted) = one_request();
    lines.push(usage(4, counted * 3));
    let said = token_diagnostics(&lines);
    assert_eq!(said.len(), 1, "one diagnostic for the one report: {said:?}");
    assert!(
        said[0].contains(&format!("counts {counted} input tokens (exact)"))
            && said[0].contains(&format!("reported {}", counted * 3)),
        "the diagnostic names the count and the report: {}",
        said[0]
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open(dir.path(), "differs.jsonl", lines.join("\n").as_bytes());
    let stored: Vec<_> = journal
        .diagnostics()
        .expect("diagnostics")
        .into_iter()
        .filter(|d| d.code == "token-count-differs")
        .collect();
    assert_eq!(stored.len(), 1, "the import stores the same diagnostic");
    assert_eq!(stored[0].offset, Some(4), "it sits on the usage report");
}

#[test]
fn given_no_reported_usage_then_the_count_stands_alone() {
    let (lines, counted) = one_request();
    assert_eq!(
        token_diagnostics(&lines),
        Vec::<String>::new(),
        "nothing to reconcile"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open(dir.path(), "none.jsonl", lines.join("\n").as_bytes());
    let sizes = context_sizes(&journal, OffsetRange::default(), Transport::Openai).expect("sizes");
    assert_eq!(sizes[0].total_tokens, counted);
    assert_eq!(sizes[0].reported_input, None, "no report, no figure");
}

#[test]
fn an_estimate_is_marked_and_held_to_the_wider_tolerance() {
    let lines = vec![
        user(1, "Bonjour, pouvez-vous résumer ce fichier ?"),
        event(
            2,
            "llm-request-requested",
            json!({"model": "claude-sonnet-4-5"}),
        ),
    ];
    let journal = iterate_lines::journal(&lines);
    let row = &journal.requests()[0];
    assert!(!row.tokens_exact, "no public tokenizer: an estimate");
    let counted = row.tokens.expect("counted");
    let mut within = lines.clone();
    within.push(event(
        3,
        "token-usage-reported",
        json!({"llmRequestOffset": 2, "inputTokens": counted + counted / 5}),
    ));
    assert_eq!(
        token_diagnostics(&within),
        Vec::<String>::new(),
        "20% over is within an estimate's 25%"
    );
}

#[test]
fn kept_counts_equal_counting_the_rendered_messages_afresh() {
    // Every fixture journal, seed and sections contracts, as written and with its requests
    // sent to a cl100k_base model: the counts the fold keeps per item and encoding (and in its
    // checkpoints) give the same request totals as counting each rendered message's text.
    let dir = tempfile::tempdir().expect("temp dir");
    let fixtures = root().join("tests/fixtures/iterate");
    let mut paths = Vec::new();
    for folder in [fixtures.clone(), fixtures.join("sections")] {
        for entry in std::fs::read_dir(&folder).expect("the fixtures") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                paths.push(path);
            }
        }
    }
    let mut checked = 0;
    let mut cl100k = 0;
    for path in paths {
        let name = path
            .strip_prefix(&fixtures)
            .expect("under the fixtures")
            .to_string_lossy()
            .replace('/', "-");
        let bytes = std::fs::read(&path).expect("a fixture");
        let as_gpt4 = String::from_utf8_lossy(&bytes)
            .replace("\"model\":\"gpt-5.1\"", "\"model\":\"gpt-4\"")
            .replace("\"model\":\"m-1\"", "\"model\":\"gpt-4\"");
        for (variant, bytes) in [("", bytes.clone()), ("gpt-4-", as_gpt4.into_bytes())] {
            let journal = open(dir.path(), &format!("{variant}{name}"), &bytes);
            let Ok(requests) = journal.requests() else {
                continue;
            };
            for request in requests {
                for transport in Transport::ALL {
                    let Ok(snapshot) = journal.request(request.offset, transport) else {
                        continue;
                    };
                    let afresh = count_messages(snapshot.model.as_deref(), &snapshot.messages);
                    assert_eq!(
                        snapshot.tokens,
                        afresh,
                        "{variant}{name} @{} on {}: kept counts and counting afresh agree",
                        request.offset,
                        transport.as_str()
                    );
                    checked += 1;
                    if snapshot.tokens.tokenizer.encoding == Encoding::Cl100kBase {
                        cl100k += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 40, "enough requests were checked: {checked}");
    assert!(
        cl100k > 10,
        "enough cl100k_base requests were checked: {cl100k}"
    );
}

#[test]
fn the_compaction_threshold_view_names_the_request_that_crossed_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = root().join("tests/fixtures/iterate/threshold.jsonl");
    let journal = open(
        dir.path(),
        "threshold.jsonl",
        &std::fs::read(&path).expect("the fixture"),
    );
    let view = journal.compaction(9).expect("the compaction at @9");
    let actual = serde_json::to_value(&view.tokens).expect("tokens serialise");
    let expected_path = root().join("tests/fixtures/iterate/expected/threshold.compaction.9.json");
    if std::env::var_os("JOURNALSCOPE_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&actual).expect("pretty") + "\n";
        std::fs::write(&expected_path, text).expect("bless");
    }
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&expected_path).expect("the expected view"))
            .expect("expected JSON");
    assert_eq!(
        actual, expected,
        "the threshold view of @9 (JOURNALSCOPE_BLESS=1 rewrites it)"
    );
    let tokens = &view.tokens;
    assert_eq!(tokens.threshold, Some(800), "0.8 of a 1,000-token window");
    assert_eq!(tokens.crossed, Some(true), "@6's reported input reached it");
    assert!(
        tokens.after < tokens.before_counted.expect("the request is counted"),
        "the compacted context costs less than the request that crossed"
    );
    assert!(
        tokens.summary.is_some_and(|s| s > 0),
        "the summary costs tokens too"
    );
    assert!(
        tokens
            .line()
            .starts_with("826 reported ≥ threshold 800 (0.8 × 1000) · "),
        "the one-line form names the report against the threshold: {}",
        tokens.line()
    );
    let report = journalscope::report::build(&journal, OffsetRange::default()).expect("report");
    assert_eq!(
        report
            .compactions
            .iter()
            .map(|c| &c.tokens)
            .collect::<Vec<_>>(),
        vec![tokens],
        "report --json carries each compaction's tokens as the pane shows them"
    );
}

/// An AgentsKit session of one turn: a submit, then `snapshots` streaming snapshots of the reply
/// to a short question, each reporting `prompt_tokens`.
fn kit_turn(prompt_tokens: u64, snapshots: u64) -> String {
    let envelope = |sequence: u64, event: &str, payload: Value| {
        json!({"protocol": "agentskit.chat.turn", "version": 1,
               "eventId": format!("e{sequence}"), "sessionId": "s1", "turnId": "t1",
               "sequence": sequence, "emittedAt": "2026-07-11T10:00:00.000Z",
               "event": event, "payload": payload})
        .to_string()
    };
    let mut lines = vec![envelope(
        0,
        "client.turn.submit",
        json!({"input": "Which port does the staging database listen on?"}),
    )];
    for sequence in 1..=snapshots {
        let reply = "It listens on 5433".repeat(sequence as usize);
        lines.push(envelope(
            sequence,
            "server.turn.snapshot",
            json!({"messages": [
                    {"id": "u1", "role": "user", "content": "Which port does the staging database listen on?",
                     "status": "complete", "createdAt": "2026-07-11T10:00:00.000Z"},
                    {"id": "a1", "role": "assistant", "content": reply,
                     "status": "streaming", "createdAt": "2026-07-11T10:00:00.000Z"}],
                   "status": "streaming",
                   "usage": {"promptTokens": prompt_tokens, "completionTokens": 4 * sequence,
                             "totalTokens": prompt_tokens + 4 * sequence}}),
        ));
    }
    lines.join("\n") + "\n"
}

/// The prompt of `kit_turn` as counted: the question's content, its framing and the reply's
/// priming.
fn kit_prompt() -> u64 {
    u64::from(Encoding::O200kBase.count("Which port does the staging database listen on?")) + 4 + 3
}

fn kit_token_diagnostics(journal: &Journal) -> Vec<journalscope::diagnostic::Diagnostic> {
    journal
        .diagnostics()
        .expect("diagnostics")
        .into_iter()
        .filter(|d| d.code == "token-count-differs")
        .collect()
}

#[test]
fn given_an_agentskit_prompt_reported_as_counted_then_the_snapshot_shows_both_and_nothing_is_said()
{
    let dir = tempfile::tempdir().expect("temp dir");
    let counted = kit_prompt();
    let journal = open(
        dir.path(),
        "kit-match.ndjson",
        kit_turn(counted + 2, 3).as_bytes(),
    );
    assert!(
        kit_token_diagnostics(&journal).is_empty(),
        "2 tokens apart is within the tolerance"
    );
    let state = held_snapshot(&journal, 4);
    let tokens = state.tokens.expect("the held snapshot's prompt is counted");
    assert_eq!(tokens.messages, 1, "the reply being streamed is not prompt");
    assert_eq!(
        tokens.counted.total, counted,
        "content, framing and priming"
    );
    assert!(
        !tokens.counted.tokenizer.exact,
        "AgentsKit names no model: an estimate"
    );
    let reconciliation = tokens.reconciliation.expect("reported");
    assert_eq!(
        (reconciliation.reported, reconciliation.difference),
        (counted + 2, -2)
    );
    assert!(reconciliation.within);
}

#[test]
fn given_an_agentskit_prompt_reported_far_above_its_count_then_one_warning_names_both() {
    let dir = tempfile::tempdir().expect("temp dir");
    let counted = kit_prompt();
    let journal = open(
        dir.path(),
        "kit-differs.ndjson",
        kit_turn(900, 3).as_bytes(),
    );
    let said = kit_token_diagnostics(&journal);
    assert_eq!(
        said.len(),
        1,
        "the turn's three snapshots repeat one report, which is said once: {said:?}"
    );
    assert_eq!(
        said[0].offset,
        Some(2),
        "on the first snapshot that reported it"
    );
    assert!(
        said[0]
            .message
            .contains(&format!("counts {counted} tokens"))
            && said[0].message.contains("reported 900"),
        "the warning names the count and the report: {}",
        said[0].message
    );
    let state = held_snapshot(&journal, 4);
    assert!(
        !state
            .tokens
            .and_then(|t| t.reconciliation)
            .expect("reported")
            .within,
        "the snapshot view marks it beyond the tolerance"
    );
}

#[test]
fn given_an_agentskit_snapshot_with_no_prompt_figure_then_the_count_stands_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open(dir.path(), "kit-none.ndjson", kit_turn(0, 2).as_bytes());
    assert!(
        kit_token_diagnostics(&journal).is_empty(),
        "nothing to reconcile"
    );
    let tokens = held_snapshot(&journal, 3)
        .tokens
        .expect("counted all the same");
    assert_eq!(tokens.counted.total, kit_prompt());
    assert_eq!(tokens.reported, None, "0 prompt tokens is no report");
}

#[test]
fn the_agentskit_demo_reports_what_its_prompts_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bytes = std::fs::read(root().join("demo/agentskit-demo.ndjson")).expect("the demo");
    let journal = open(dir.path(), "agentskit-demo.ndjson", &bytes);
    assert!(
        kit_token_diagnostics(&journal).is_empty(),
        "the demo's usage figures are what its prompts count"
    );
}

#[test]
fn given_items_replaced_in_place_compacted_and_rewritten_when_the_fold_keeps_a_running_total_then_each_request_row_is_its_rendered_total(
) {
    // Protects the fold's running total: it adds only what was appended since the request
    // before, so every other edit (an unpublished keyed item replaced in place, a compaction, a
    // section rewritten or deleted) must start it again.
    use iterate_lines::{
        compaction, keyed, model_reply, rewrite, section, settled, stamped_request,
    };
    let seed = vec![
        system_prompt(1, "You keep the ledger."),
        keyed(2, "developer", "plan", "Step one: read the rows."),
        event(3, "llm-request-requested", json!({"model": "gpt-4"})),
        keyed(
            4,
            "developer",
            "plan",
            "Step two: rename the column in every query.",
        ),
        keyed(
            5,
            "developer",
            "plan",
            "Step two, again: rename it and rerun the tests.",
        ),
        user(6, "Go on."),
        event(7, "llm-request-requested", json!({"model": "gpt-4"})),
        compaction(8, json!(6), "Renamed the column; the tests pass."),
        // More items after the compaction than it removed: the lanes grow past the total's
        // summed length, so only the edit count tells the total to start again.
        user(9, "And the docs?"),
        user(10, "And the changelog?"),
        user(11, "And the migration notes?"),
        event(12, "llm-request-requested", json!({"model": "gpt-4"})),
        user(13, "Thanks."),
        event(14, "llm-request-requested", json!({"model": "gpt-5.1"})),
    ];
    let sections = vec![
        section(
            1,
            "agent/instructions",
            "Answer questions about the ledger.",
        ),
        section(2, "agent/style", "Be brief."),
        iterate_lines::said(3, "user", "What changed?"),
        stamped_request(4, "8.0.0"),
        model_reply(5, 4, "The column name."),
        settled(6, 4, "succeeded"),
        section(7, "agent/style", "Be brief, and cite the rows."),
        iterate_lines::said(8, "user", "Which rows?"),
        stamped_request(9, "8.0.0"),
        model_reply(10, 9, "Rows 3 to 9."),
        settled(11, 9, "succeeded"),
        rewrite(
            12,
            json!({"op": "replace", "key": "agent/instructions", "content": "Answer in one line."}),
        ),
        iterate_lines::said(13, "user", "Why?"),
        stamped_request(14, "8.0.0"),
        model_reply(15, 14, "They held the old name."),
        settled(16, 14, "succeeded"),
        rewrite(17, json!({"op": "delete", "key": "agent/style"})),
        iterate_lines::said(18, "user", "Thanks."),
        stamped_request(19, "8.0.0"),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, lines) in [("seed.jsonl", seed), ("sections.jsonl", sections)] {
        let journal = open(dir.path(), name, (lines.join("\n") + "\n").as_bytes());
        let rows = journal.requests().expect("the request rows");
        assert_eq!(rows.len(), 4, "{name}: every request has a row");
        for row in rows {
            let rendered = journal
                .request(row.offset, Transport::Openai)
                .expect("the request renders");
            assert_eq!(
                row.tokens,
                Some(rendered.tokens.total),
                "{name} @{}: the row's running total is the rendered request's",
                row.offset
            );
        }
    }
}

#[test]
fn given_an_imported_journal_when_a_view_folds_its_records_again_then_it_takes_the_counts_the_import_stored(
) {
    // Protects a view in a process of its own from loading an encoding: the items it folds
    // again after its checkpoint take the counts the import stored for their records. A count
    // changed in the database shows, so the view read it rather than counting.
    let (mut lines, counted) = one_request();
    lines.push(user(4, "And the tests?"));
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = open(
        dir.path(),
        "stored.jsonl",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let step_tokens = |journal: &Journal| -> Vec<(i64, u32)> {
        let state = journalscope::dialect::Ask::State {
            at: 3,
            session: None,
        };
        let view = journal.view(&state).expect("the view at the request");
        let lane = |name: &str| view[name].as_array().cloned().unwrap_or_default();
        lane("system")
            .iter()
            .chain(&lane("history"))
            .map(|item| {
                let offset = item["offset"].as_i64().expect("an item has an offset");
                let tokens = item["tokens"].as_u64().expect("an item is counted");
                (offset, u32::try_from(tokens).expect("a count fits"))
            })
            .collect()
    };
    let before = step_tokens(&journal);
    assert_eq!(before.len(), 2, "the system prompt and the user's message");
    assert!(counted > before.iter().map(|(_, t)| u64::from(*t)).sum::<u64>());

    let db = rusqlite::Connection::open(dir.path().join("stored.jsonl.sqlite")).expect("the db");
    let changed = db
        .execute("UPDATE record_tokens SET tokens = 4242 WHERE seq = 0", [])
        .expect("the stored counts");
    assert_eq!(changed, 1, "the system prompt's count is stored once");
    let after = step_tokens(&journal);
    assert_eq!(after[0], (1, 4242), "the view took the stored count");
    assert_eq!(after[1], before[1], "the other item's count is as counted");
}
