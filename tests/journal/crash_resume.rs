//! Killing the CLI with SIGKILL at random moments (from a seeded generator) while it imports or
//! tails a journal leaves a database that opens, passes `PRAGMA integrity_check` and holds a
//! prefix of the journal's records with no half-written event; running the same command again
//! resumes from there and ends with the whole journal, exactly once.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use journalscope::store::{Store, StoredEvent};
use journalscope_gen::Rng;

const BIN: &str = env!("CARGO_BIN_EXE_journalscope");
const PREFIX: &str = "events.iterate.com/agent/";

fn line(offset: u64) -> String {
    if offset == 1 {
        return format!(
            r#"{{"offset":1,"type":"{PREFIX}context-added","payload":{{"role":"system","key":"agent/system-prompt","content":"Be brief."}}}}"#
        );
    }
    if offset.is_multiple_of(10) {
        return format!(
            r#"{{"offset":{offset},"type":"{PREFIX}llm-request-requested","payload":{{"model":"m"}}}}"#
        );
    }
    format!(
        r#"{{"offset":{offset},"type":"{PREFIX}context-added","payload":{{"role":"user","content":"message {offset}: the quick brown fox jumps over the lazy dog"}}}}"#
    )
}

fn lines(count: u64) -> Vec<String> {
    (1..=count).map(line).collect()
}

/// Opens the database as a later run would and checks it: integrity, and every generation's
/// events are the journal's first records, whole. Returns the newest generation's count.
fn check(db: &Path, expected: &[String], moment: &str) -> usize {
    if !db.exists() {
        return 0;
    }
    let store = Store::open(db).unwrap_or_else(|e| panic!("{moment}: the database opens: {e}"));
    let integrity: String = store
        .inspection_connection()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("integrity_check runs");
    assert_eq!(integrity, "ok", "{moment}: the database is intact");
    let ids: Vec<i64> = {
        let mut stmt = store
            .inspection_connection()
            .prepare("SELECT id FROM journals ORDER BY id")
            .expect("prepare");
        let rows = stmt
            .query_map([], |row| row.get(0))
            .expect("query journals");
        rows.collect::<Result<_, _>>().expect("journal ids")
    };
    for id in &ids {
        let events: Vec<StoredEvent> = store.events(*id).expect("read events");
        for (i, event) in events.iter().enumerate() {
            assert_eq!(event.seq, i as u64, "{moment}: no gap in generation {id}");
            assert_eq!(
                event.raw_text(),
                expected[i],
                "{moment}: event {i} of generation {id} is the journal's record {i}, whole"
            );
        }
    }
    store
        .latest_journal()
        .expect("latest journal")
        .map_or(0, |j| store.event_count(j.id).expect("count") as usize)
}

/// Records the newest generation of `db` holds, as a reader beside the running import sees
/// them: read-only, so that nothing (no migration, no index rebuild) writes under the import.
/// 0 while the database cannot be read yet.
fn held_by_a_reader(db: &Path) -> u64 {
    use rusqlite::{Connection, OpenFlags};
    let Ok(conn) = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY) else {
        return 0;
    };
    let _ = conn.busy_timeout(Duration::from_millis(20));
    conn.query_row(
        "SELECT count(*) FROM events WHERE journal_id = (SELECT max(id) FROM journals)",
        [],
        |row| row.get::<_, i64>(0),
    )
    .map_or(0, |n| n as u64)
}

fn spawn(args: &[&str], cache: &Path) -> Child {
    Command::new(BIN)
        .args(args)
        .env("JOURNALSCOPE_CACHE_DIR", cache)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the CLI starts")
}

fn kill(mut child: Child) {
    // SIGKILL: no destructor, no rollback, no flush runs in the child.
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_import_killed_at_random_moments_resumes_to_the_whole_journal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let expected = lines(60_000);
    let file = dir.path().join("journal.jsonl");
    std::fs::write(&file, expected.join("\n") + "\n").expect("write journal");
    let file_text = file.to_string_lossy().into_owned();

    // How long a whole import takes here decides the window kills fall in.
    let reference = dir.path().join("reference.sqlite");
    let began = Instant::now();
    let status = Command::new(BIN)
        .args(["import", &file_text, "--db", &reference.to_string_lossy()])
        .env("JOURNALSCOPE_CACHE_DIR", dir.path())
        .stdout(Stdio::null())
        .status()
        .expect("reference import");
    assert!(status.success(), "an uninterrupted import succeeds");
    let whole = began.elapsed().as_millis() as u64;

    let mut moments = Rng::new(0x5EED_1DEA);
    let mut kills = 0;
    let mut partial = 0;
    for round in 0..4 {
        let db = dir.path().join(format!("killed-{round}.sqlite"));
        let db_text = db.to_string_lossy().into_owned();
        let mut held = 0;
        for attempt in 0..5 {
            let mut child = spawn(&["import", &file_text, "--db", &db_text], dir.path());
            if round == 0 && attempt == 0 {
                // A moment drawn from the first half of an import's time: an early kill, before
                // or between the first commits. Only once: the load is a small part of an
                // import's time, so on CI such kills in every round all fell after it.
                std::thread::sleep(Duration::from_millis(moments.range(0, whole / 2)));
            } else {
                // A moment drawn by progress: once the database shows a random number of
                // records past what it held, plus a random few milliseconds. A faster build
                // left time-drawn kills all before the load or after it (0 mid-import of 20).
                // The target lies in the first half of what is still to load, so that a kill
                // lands mid-import however far the earlier ones got: a span measured from the
                // start let CI aim every kill after a round's second at the journal's end.
                let span = (expected.len() as u64).saturating_sub(held as u64) / 2;
                let target = held as u64 + 1 + moments.range(0, span);
                let deadline = Instant::now() + Duration::from_millis(whole * 3);
                while Instant::now() < deadline
                    && held_by_a_reader(&db) < target
                    && child.try_wait().ok().flatten().is_none()
                {
                    std::thread::sleep(Duration::from_millis(2));
                }
                std::thread::sleep(Duration::from_millis(moments.range(0, 20)));
            }
            kill(child);
            kills += 1;
            let moment = format!("round {round}, kill {attempt}");
            let now = check(&db, &expected, &moment);
            assert!(
                now >= held,
                "{moment}: a resumed import never loses what an earlier run stored"
            );
            if now > 0 && now < expected.len() {
                partial += 1;
            }
            eprintln!("{moment}: {now} events held");
            held = now;
        }
        let status = Command::new(BIN)
            .args(["import", &file_text, "--db", &db_text])
            .env("JOURNALSCOPE_CACHE_DIR", dir.path())
            .stdout(Stdio::null())
            .status()
            .expect("final import");
        assert!(status.success(), "round {round}: the last run finishes");
        let count = check(&db, &expected, &format!("round {round}, finished"));
        assert_eq!(
            count,
            expected.len(),
            "round {round}: the resumed import holds the whole journal, once"
        );
        let diagnostics = |db: &Path| {
            Command::new(BIN)
                .args(["diagnostics", &db.to_string_lossy(), "--json"])
                .output()
                .expect("diagnostics")
                .stdout
        };
        assert_eq!(
            diagnostics(&db),
            diagnostics(&reference),
            "round {round}: a resumed import reports what an uninterrupted one does"
        );
    }
    assert!(kills >= 20, "at least 20 kills");
    assert!(
        partial >= 3,
        "kills landed mid-import and later runs resumed from there ({partial} times)"
    );
}

#[test]
fn a_tail_killed_at_random_moments_resumes_without_gaps_or_duplicates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let expected = lines(1_500);
    let file = dir.path().join("growing.jsonl");
    std::fs::write(&file, "").expect("create journal");
    let file_text = file.to_string_lossy().into_owned();
    let db = dir.path().join("tail.sqlite");
    let db_text = db.to_string_lossy().into_owned();

    // The writer appends in uneven pieces, often stopping mid-line, while tails come and go.
    let writer = {
        let file = file.clone();
        let text = expected.join("\n") + "\n";
        std::thread::spawn(move || {
            let mut moments = Rng::new(0xF11E);
            let mut out = std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .expect("open for append");
            let bytes = text.as_bytes();
            let mut at = 0;
            while at < bytes.len() {
                let piece = (1 + moments.range(0, 500) as usize).min(bytes.len() - at);
                out.write_all(&bytes[at..at + piece]).expect("append");
                out.flush().expect("flush");
                at += piece;
                std::thread::sleep(Duration::from_millis(moments.range(0, 12)));
            }
        })
    };

    let mut moments = Rng::new(0x7A11);
    let mut held = 0;
    let mut partial = 0;
    for kill_no in 0..20 {
        let child = spawn(&["tail", &file_text, "--db", &db_text], dir.path());
        std::thread::sleep(Duration::from_millis(50 + moments.range(0, 400)));
        kill(child);
        let moment = format!("tail kill {kill_no}");
        let now = check(&db, &expected, &moment);
        assert!(
            now >= held,
            "{moment}: a resumed tail never loses what an earlier run stored"
        );
        eprintln!("{moment}: {now} events held");
        if now > 0 && now < expected.len() {
            partial += 1;
        }
        held = now;
    }
    assert!(
        partial >= 10,
        "most kills landed while the file grew ({partial} of 20)"
    );
    writer.join().expect("writer finishes");

    // A last tail catches up with the finished file.
    let child = spawn(&["tail", &file_text, "--db", &db_text], dir.path());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let count = check(&db, &expected, "catching up");
        if count == expected.len() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the last tail catches up ({count} of {} so far)",
            expected.len()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    kill(child);
    let store = Store::open(&db).expect("open");
    let generations: i64 = store
        .inspection_connection()
        .query_row(
            "SELECT count(*) FROM journals WHERE id IN (SELECT journal_id FROM events)",
            [],
            |row| row.get(0),
        )
        .expect("count generations");
    assert_eq!(
        generations, 1,
        "restarts resume the same generation rather than starting over"
    );
}
