//! The bad-input corpus, `tests/fixtures/bad/`: one file per case, its expected outcome in
//! `<case>.expected.json` beside it (exit status, dialect, event count and every diagnostic's
//! code, severity, line and offset). Each case goes through the real CLI: the import completes
//! (or a file that is not a journal at all is refused with one clear line), every record the
//! user gave is stored verbatim, and the views that read it back do not fail. A `.gen` file
//! describes an input too big to commit, written here at run time.
//!
//! `JOURNALSCOPE_BLESS=1 cargo test --test journal bad_input` rewrites the expected files; review the
//! diff before committing it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use journalscope::source::Framing;
use journalscope::store::{Store, StoredEvent};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_journalscope");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad")
}

fn run(args: &[&str], cache: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .output()
        .expect("the CLI binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes the input a `.gen` description asks for.
fn generate(description: &Path, into: &Path) -> PathBuf {
    let spec: Value = serde_json::from_slice(&std::fs::read(description).expect("read .gen"))
        .expect(".gen is JSON");
    let name = spec["generator"].as_str().expect("generator named");
    let prefix = "events.iterate.com/agent/";
    let head = format!(
        r#"{{"offset":1,"type":"{prefix}context-added","payload":{{"role":"system","key":"agent/system-prompt","content":"Be brief."}}}}"#
    );
    let tail = format!(
        r#"{{"offset":3,"type":"{prefix}llm-request-requested","payload":{{"model":"m"}}}}"#
    );
    let middle = match name {
        "huge-line" => {
            // 64 MiB of words, so summaries cut early and the line is still one JSON string.
            let words = "lorem ipsum ".repeat(64 * 1024 * 1024 / 12);
            format!(
                r#"{{"offset":2,"type":"{prefix}context-added","payload":{{"role":"user","content":"{words}"}}}}"#
            )
        }
        "deep-nesting" => format!(
            r#"{{"offset":2,"type":"{prefix}context-added","payload":{{"role":"user","content":{}{}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
        other => panic!("unknown generator {other}"),
    };
    let path = into.join(format!("{name}.jsonl"));
    std::fs::write(&path, format!("{head}\n{middle}\n{tail}\n")).expect("write generated input");
    path
}

/// Every record is the verbatim bytes of its span of the file (JSONL), or the joined `data:`
/// lines of its frame (SSE); every non-blank line of a JSONL file is one record.
fn check_verbatim(case: &str, file: &[u8], framing: Framing, events: &[StoredEvent]) {
    for event in events {
        let span = &file[event.byte_start as usize..(event.byte_start + event.byte_len) as usize];
        match framing {
            Framing::Jsonl => assert_eq!(
                span,
                &event.raw[..],
                "{case}: record {} is stored byte for byte",
                event.seq
            ),
            Framing::Sse => {
                let data: Vec<String> = text(span)
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|v| v.strip_prefix(' ').unwrap_or(v).to_string())
                    .collect();
                assert_eq!(
                    data.join("\n").into_bytes(),
                    event.raw,
                    "{case}: frame {} keeps its data verbatim",
                    event.seq
                );
            }
            Framing::JsonArray => {}
        }
    }
    if framing == Framing::Jsonl {
        let body = file.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file);
        let lines: Vec<&[u8]> = body
            .split(|b| *b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .collect();
        let raws: Vec<&[u8]> = events.iter().map(|e| &e.raw[..]).collect();
        assert_eq!(
            lines.len(),
            raws.len(),
            "{case}: every non-blank line is a record"
        );
        assert!(
            lines == raws,
            "{case}: the records are the file's lines, in order"
        );
    }
}

/// The views a user would open next must read what was stored without failing.
fn check_views(case: &str, db: &Path, dialect: &str, cache: &Path) {
    let db = db.to_string_lossy();
    let mut commands: Vec<Vec<&str>> = vec![vec!["events", &db, "--json"]];
    match dialect {
        "iterate" => commands.push(vec!["requests", &db, "--json"]),
        "ag-ui" => commands.push(vec!["state", &db, "--at", "1000", "--json"]),
        _ => commands.push(vec!["turns", &db, "--json"]),
    }
    for args in commands {
        let out = run(&args, cache);
        assert!(
            out.status.success(),
            "{case}: `{}` works on what was imported: {}",
            args.join(" "),
            text(&out.stderr)
        );
    }
}

fn outcome(case: &str, input: &Path, work: &Path) -> Value {
    let db = work.join("journal.sqlite");
    let input_text = input.to_string_lossy();
    let db_text = db.to_string_lossy();
    let out = run(&["import", &input_text, "--db", &db_text, "--json"], work);
    let code = out.status.code().expect("the CLI exits, it is not killed");
    let stderr = text(&out.stderr);
    if code != 0 {
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{case}: a refusal is one line on stderr: {stderr}"
        );
        return json!({
            "exit": code,
            "stderr": stderr.trim_end().replace(&*input_text, "<input>"),
        });
    }
    let report: Value = serde_json::from_slice(&out.stdout).expect("import --json is JSON");
    let dialect = report["dialect"].as_str().expect("dialect").to_string();
    let store = Store::open_existing(&db).expect("the database opens");
    let journal = store
        .latest_journal()
        .expect("read journals")
        .expect("a journal");
    let events = store.events(journal.id).expect("read events");
    let file = std::fs::read(input).expect("read input");
    check_verbatim(case, &file, journal.framing, &events);
    if !case.ends_with(".gen") {
        check_views(case, &db, &dialect, work);
    }
    let diagnostics = run(&["diagnostics", &db_text, "--json"], work);
    assert!(
        diagnostics.status.success(),
        "{case}: diagnostics are listed: {}",
        text(&diagnostics.stderr)
    );
    let diagnostics: Vec<Value> =
        serde_json::from_slice(&diagnostics.stdout).expect("diagnostics --json is JSON");
    let diagnostics: Vec<Value> = diagnostics
        .into_iter()
        .map(|d| {
            json!({
                "line": d["line"],
                "offset": d.get("offset").cloned().unwrap_or(Value::Null),
                "severity": d["severity"],
                "code": d["code"],
            })
        })
        .collect();
    json!({
        "exit": 0,
        "dialect": dialect,
        "framing": report["framing"],
        "events": report["events"],
        "diagnostics": diagnostics,
    })
}

#[test]
fn every_bad_input_imports_keeps_every_record_and_reports_the_expected_diagnostics() {
    let bless = std::env::var_os("JOURNALSCOPE_BLESS").is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/bad exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| !p.to_string_lossy().ends_with(".expected.json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "the corpus covers every listed case");
    let mut failures = Vec::new();
    for path in cases {
        let case = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        let work = tempfile::tempdir().expect("temp dir");
        let input = if case.ends_with(".gen") {
            generate(&path, work.path())
        } else {
            path.clone()
        };
        let actual = outcome(&case, &input, work.path());
        let stem = case.rsplit_once('.').map_or(&case[..], |(s, _)| s);
        let expected_path = fixtures().join(format!("{stem}.expected.json"));
        if bless {
            let mut pretty = serde_json::to_string_pretty(&actual).expect("serialise");
            pretty.push('\n');
            std::fs::write(&expected_path, pretty).expect("write expected");
            continue;
        }
        let expected: Value = serde_json::from_slice(
            &std::fs::read(&expected_path)
                .unwrap_or_else(|_| panic!("{case}: {} is committed", expected_path.display())),
        )
        .expect("expected file is JSON");
        if actual != expected {
            failures.push(format!(
                "{case}: expected\n{}\nactual\n{}",
                serde_json::to_string_pretty(&expected).unwrap_or_default(),
                serde_json::to_string_pretty(&actual).unwrap_or_default()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "every case gives its committed outcome:\n{}",
        failures.join("\n\n")
    );
}
