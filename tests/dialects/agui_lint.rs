//! The AG-UI lint: every rule of `agui::lint::RULES` has a fixture under
//! tests/fixtures/agui/lint/ (`<code>.jsonl`, or `<code>--<case>.jsonl` for another way to break
//! it) that raises it, with every diagnostic the fixture raises committed beside it
//! (`.expected.json`). Real recordings raise no error, and every code the reader and reducer can
//! raise is a catalogued rule with one severity.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use journalscope::diagnostic::{Diagnostic, Severity};
use journalscope_agui::agui::lint::{rule_of, RULES};
use journalscope_agui::agui::{analyse, read_bytes};
use serde_json::{json, Value};

use crate::support::agui_recordings;

fn fixtures_dir() -> PathBuf {
    agui_recordings::fixtures("")
}

/// Read-time and fold-time diagnostics together, in journal order.
fn diagnostics_of(bytes: &[u8]) -> Vec<Diagnostic> {
    let events = read_bytes(bytes);
    let mut all: Vec<Diagnostic> = events
        .iter()
        .flat_map(|e| e.diagnostics.iter().cloned())
        .collect();
    all.extend(analyse(&events).diagnostics.into_iter().map(|(_, d)| d));
    all.sort_by_key(|d| (d.line, d.offset));
    all
}

fn lint_fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join("lint"))
        .expect("the lint fixtures are committed")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn rule_code_of(fixture: &Path) -> String {
    let stem = fixture
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a fixture name");
    stem.split("--").next().unwrap_or(stem).to_string()
}

#[test]
fn every_rule_has_a_fixture_that_raises_it_and_exactly_the_committed_diagnostics() {
    let fixtures = lint_fixtures();
    let covered: BTreeSet<String> = fixtures.iter().map(|f| rule_code_of(f)).collect();
    for rule in RULES {
        assert!(
            covered.contains(rule.code),
            "{} has a fixture under tests/fixtures/agui/lint/",
            rule.code
        );
    }
    for fixture in fixtures {
        let name = fixture.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let code = rule_code_of(&fixture);
        let rule = rule_of(&code).unwrap_or_else(|| panic!("{name} names a catalogued rule"));
        let found = diagnostics_of(&std::fs::read(&fixture).expect("fixture readable"));
        assert!(
            found.iter().any(|d| d.code == rule.code),
            "{name} raises {}: {found:?}",
            rule.code
        );
        let shown: Vec<Value> = found
            .iter()
            .map(|d| json!({"offset": d.offset, "severity": d.severity.as_str(), "code": d.code}))
            .collect();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(fixture.with_extension("expected.json"))
                .unwrap_or_else(|e| panic!("{name}: expected diagnostics committed: {e}")),
        )
        .expect("expected JSON");
        assert_eq!(
            Value::Array(shown),
            expected,
            "{name}: the committed diagnostics"
        );
    }
}

#[test]
fn each_code_raised_has_the_severity_its_rule_gives() {
    // Over the fixtures and the demo: a code that came with two severities could not be
    // filtered on, and an uncatalogued code would be a rule nobody documented.
    let mut inputs: Vec<Vec<u8>> = lint_fixtures()
        .iter()
        .map(|f| std::fs::read(f).expect("fixture readable"))
        .collect();
    inputs.push(std::fs::read(fixtures_dir().join("../../../demo/agui-demo.sse")).expect("demo"));
    for bytes in inputs {
        for d in diagnostics_of(&bytes) {
            let rule =
                rule_of(&d.code).unwrap_or_else(|| panic!("{} is a catalogued rule", d.code));
            assert_eq!(
                d.severity, rule.severity,
                "{} is raised as its rule says",
                d.code
            );
        }
    }
}

#[test]
fn every_code_in_the_reader_and_reducer_is_catalogued() {
    // The codes are the string literals passed to the diagnostic constructors.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crates/agui/src/agui");
    let mut codes = BTreeSet::new();
    let mut files: Vec<PathBuf> = ["reader.rs", "mod.rs"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    for entry in std::fs::read_dir(dir.join("reducer")).expect("the reducer's folder") {
        files.push(entry.expect("entry").path());
    }
    for file in files {
        let text = std::fs::read_to_string(&file).expect("source readable");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for marker in [
            "Diagnostic::error(",
            "Diagnostic::warning(",
            "Self::warn(",
            "Self::error(",
        ] {
            for (at, _) in code.match_indices(marker) {
                let call = &code[at..code.len().min(at + 300)];
                if let Some(literal) = call.split('"').nth(1) {
                    if literal.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                        && literal.contains('-')
                    {
                        codes.insert(literal.to_string());
                    }
                }
            }
        }
    }
    assert!(codes.len() >= 25, "the scan finds the codes: {codes:?}");
    for code in codes {
        assert!(rule_of(&code).is_some(), "{code} is in agui::lint::RULES");
    }
}

#[test]
fn real_recordings_raise_no_error_and_langgraph_run_ids_are_a_warning() {
    let mut files = agui_recordings::recordings("corpus");
    files.extend(agui_recordings::recordings("dojo"));
    assert_eq!(files.len(), 22, "20 .NET baselines and 2 Dojo journeys");
    let mut run_ids_changed = 0;
    for path in files {
        let found = diagnostics_of(&std::fs::read(&path).expect("recording readable"));
        let errors: Vec<&Diagnostic> = found
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert!(
            errors.is_empty(),
            "{}: no error-level lint: {errors:?}",
            path.display()
        );
        run_ids_changed += found.iter().filter(|d| d.code == "run-id-changed").count();
    }
    assert!(
        run_ids_changed >= 9,
        "LangGraph's finishes under new run ids are flagged: {run_ids_changed}"
    );
}

#[test]
fn the_guarantees_document_every_rule() {
    let guarantees = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/guarantees.md"),
    )
    .expect("docs/guarantees.md readable");
    for rule in RULES {
        assert!(
            guarantees.contains(&format!("| `{}` | {} |", rule.code, rule.severity.as_str())),
            "the AG-UI lint table of docs/guarantees.md lists {} as {}",
            rule.code,
            rule.severity.as_str()
        );
    }
}
