//! `journalscope bench`: generates (or reuses) a journal with [`crate::gen`], imports it in a
//! child process, and measures what issue 7 sets targets for: import throughput and peak memory
//! against `jq` and the `sqlite3` shell on the same file, seek latency against a fold from the
//! start, and request rendering. Speed figures live here, never in timed unit tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde::Serialize;

use crate::dialect::Dialect;
use crate::gen::{self, GenOptions, Rng};
use crate::import::ImportControl;
use crate::iterate::projection::fold_through;
use crate::iterate::Transport;
use crate::journal::{EventQuery, Journal, JournalError};
use crate::search::SearchQuery;

/// Writes an iterate journal of `events` events for tests that need a long, valid journal.
/// `compact_every` is kept for callers written against the older generator; the generated
/// journal compacts every few dozen requests whatever it is.
pub fn write_synthetic(
    out: &mut dyn std::io::Write,
    events: u64,
    compact_every: u64,
) -> std::io::Result<()> {
    gen::write_journal(
        out,
        &GenOptions {
            dialect: Dialect::Iterate,
            events,
            seed: compact_every,
        },
    )
    .map(|_| ())
}

#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub events: u64,
    pub seed: u64,
    pub dir: PathBuf,
    /// Time `jq` and the `sqlite3` shell on the same file when they are installed.
    pub compare: bool,
    /// The `journalscope` binary, run as a child to import so that its peak memory is the
    /// import's own.
    pub exe: PathBuf,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportFigures {
    pub ms: f64,
    pub mb_per_second: f64,
    pub events_per_second: f64,
    pub peak_rss_bytes: u64,
    /// CPU time of the import child, user and system, all threads: on a busy machine the
    /// wall-clock figure includes time spent waiting for a core.
    pub cpu_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeekFigures {
    pub samples: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Folding every event from offset 0 to the end, from events already parsed in memory.
    pub full_fold_ms: f64,
    /// `full_fold_ms / p99_ms`.
    pub speedup_p99: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerTiming {
    pub tool: String,
    pub command: String,
    pub ms: f64,
    /// How many times slower the peer was than the import.
    pub ratio_to_import: f64,
}

/// One target of issue 7 and whether this run met it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub figure: String,
    pub value: f64,
    pub unit: String,
    pub target: String,
    /// `None` when the figure could not be measured (a peer is not installed).
    pub pass: Option<bool>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchReport {
    pub events: u64,
    pub seed: u64,
    pub journal_path: String,
    pub file_bytes: u64,
    pub database_bytes: u64,
    pub generated: bool,
    pub import: ImportFigures,
    /// From the import's end to the window showing the journal, as the app opens it: the
    /// journal's rows and derived tables read, the first page of the event list, and the
    /// projection at the last event (the analysis's tip); no event parsed yet.
    pub shown_ms: f64,
    /// Then loading every event for stepping anywhere, which the app does in the background
    /// while it shows the journal.
    pub load_ms: f64,
    /// Opening the journal file again: the file is hashed to find it unchanged, then loaded.
    pub reopen_ms: f64,
    pub reopen_peak_rss_bytes: u64,
    /// After the load: the projection at the last offset and the first page of the event
    /// list, what the app shows first.
    pub first_view_ms: f64,
    /// The first search after opening, which builds the full-text index (the app builds it in
    /// the background instead).
    pub search_index_ms: f64,
    pub seek: SeekFigures,
    pub request_render_ms: f64,
    pub event_page_ms: f64,
    pub filtered_event_page_ms: f64,
    pub peers: Vec<PeerTiming>,
    /// With `--compare`: the least an import that keeps every record's bytes in SQLite can
    /// take here, measured in the same run (see [`store_floor`]).
    pub store_floor_ms: Option<f64>,
    /// `sqlite3 .import` over the store floor: the most "times faster than `sqlite3`" any such
    /// import could reach in this run, even one that parsed nothing.
    pub sqlite3_ratio_ceiling: Option<f64>,
    pub checks: Vec<Check>,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot run the import child {exe}: {source}")]
    Spawn {
        exe: PathBuf,
        source: std::io::Error,
    },
    #[error("the import child failed: {0}")]
    Child(String),
    #[error("cannot measure the store floor in {path}: {message}")]
    Floor { path: PathBuf, message: String },
    #[error(transparent)]
    Journal(#[from] JournalError),
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// The peak resident set of this process so far (`VmHWM`), in bytes; 0 where `/proc` is
/// missing.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
        })
        .map_or(0, |kb| kb * 1024)
}

/// CPU time of this process so far (user and system, every thread), in milliseconds, from
/// `/proc/self/stat` at the usual 100 ticks a second; 0 where `/proc` is missing.
pub fn process_cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // Fields after the command name, which is in parentheses and may hold spaces.
            let rest = stat.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let utime: f64 = fields.get(11)?.parse().ok()?;
            let stime: f64 = fields.get(12)?.parse().ok()?;
            Some((utime + stime) * 10.0)
        })
        .unwrap_or(0.0)
}

/// Generates the journal unless an earlier run left it: generation is deterministic, and it is
/// written under a temporary name first so a cut-short run never leaves a partial file behind.
fn journal_file(options: &BenchOptions) -> Result<(PathBuf, bool), BenchError> {
    let path = options
        .dir
        .join(format!("bench-{}-s{}.jsonl", options.events, options.seed));
    if path.is_file() {
        return Ok((path, false));
    }
    let partial = path.with_extension("jsonl.partial");
    let write = |source| BenchError::Write {
        path: partial.clone(),
        source,
    };
    let file = std::fs::File::create(&partial).map_err(write)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    gen::write_journal(
        &mut out,
        &GenOptions {
            dialect: Dialect::Iterate,
            events: options.events,
            seed: options.seed,
        },
    )
    .map_err(write)?;
    std::io::Write::flush(&mut out).map_err(write)?;
    drop(out);
    std::fs::rename(&partial, &path).map_err(write)?;
    Ok((path, true))
}

/// What the hidden `bench-import` command prints: the child's own peak memory.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildImport {
    pub events: u64,
    pub peak_rss_bytes: u64,
    pub cpu_ms: f64,
}

/// The child side of the import measurement: open (import) the journal into `db`, then report.
pub fn child_import(file: &Path, db: &Path) -> Result<ChildImport, JournalError> {
    let mut quiet = |_| {};
    let store = crate::store::Store::open(db)?;
    let outcome = crate::import::import_file(
        &store,
        file,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )?;
    Ok(ChildImport {
        events: store.event_count(outcome.journal_id)?,
        peak_rss_bytes: peak_rss_bytes(),
        cpu_ms: process_cpu_ms(),
    })
}

/// Waits until the kernel has written every dirty page out. A phase that has just written a
/// gigabyte (the generated journal, the search index, a peer's database) leaves its writeback
/// running for seconds, on the same two cores as whatever is timed next: the import would pay
/// for the generator, and `jq` for the search index. Best effort: without `sync`, phases are
/// timed as they come.
fn settle() {
    let _ = Command::new("sync")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

fn remove_database(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

fn time_peer(tool: &str, args: &[String], stdout_null: bool) -> Option<f64> {
    let start = Instant::now();
    let status = Command::new(tool)
        .args(args)
        .stdin(Stdio::null())
        .stdout(if stdout_null {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then(|| ms(start))
}

/// Stores every line of `file` in a fresh database at `db` and nothing else: one table of
/// bytes, one transaction, no parse, no index, with the page size and rollback journal the
/// store's bulk load uses. The import's `sqlite3` target asks for a ratio that only an import
/// faster than this could reach, so the bench measures it beside the peers rather than the
/// README asserting it.
fn store_floor(file: &Path, db: &Path) -> Result<f64, BenchError> {
    let fail = |message: String| BenchError::Floor {
        path: db.to_path_buf(),
        message,
    };
    let sql = |err: rusqlite::Error| fail(err.to_string());
    remove_database(db);
    let start = Instant::now();
    let conn = rusqlite::Connection::open(db).map_err(sql)?;
    conn.execute_batch(
        "PRAGMA page_size = 16384; PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL;
         CREATE TABLE lines (id INTEGER PRIMARY KEY, raw BLOB NOT NULL); BEGIN;",
    )
    .map_err(sql)?;
    let mut insert = conn
        .prepare("INSERT INTO lines (id, raw) VALUES (?1, ?2)")
        .map_err(sql)?;
    let mut source = std::fs::File::open(file).map_err(|err| fail(err.to_string()))?;
    let chunk = 8 << 20;
    let mut buf = vec![0u8; chunk * 2];
    let (mut held, mut id) = (0usize, 0i64);
    loop {
        if buf.len() < held + chunk {
            buf.resize(held + chunk, 0);
        }
        let read = crate::import::read_full(&mut source, &mut buf[held..held + chunk])
            .map_err(|err| fail(err.to_string()))?;
        held += read;
        let end = read < chunk;
        let mut at = 0;
        while at < held {
            let line_end = match memchr::memchr(b'\n', &buf[at..held]) {
                Some(i) => at + i,
                None if end => held,
                None => break,
            };
            insert
                .execute(rusqlite::params![id, &buf[at..line_end]])
                .map_err(sql)?;
            id += 1;
            at = line_end + 1;
        }
        // Past `held` only after a last line without a newline, when the loop ends anyway.
        let at = at.min(held);
        buf.copy_within(at..held, 0);
        held -= at;
        if end {
            break;
        }
    }
    drop(insert);
    conn.execute_batch("COMMIT").map_err(sql)?;
    drop(conn);
    let took = ms(start);
    remove_database(db);
    Ok(took)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn run(options: &BenchOptions) -> Result<BenchReport, BenchError> {
    let (journal_path, generated) = journal_file(options)?;
    let db_path = options
        .dir
        .join(format!("bench-{}-s{}.sqlite", options.events, options.seed));
    let file_bytes = std::fs::metadata(&journal_path)
        .map(|m| m.len())
        .unwrap_or(0);

    // Import in a child, so its peak memory is the import's alone.
    remove_database(&db_path);
    settle();
    let start = Instant::now();
    let output = Command::new(&options.exe)
        .arg("bench-import")
        .arg(&journal_path)
        .arg("--db")
        .arg(&db_path)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| BenchError::Spawn {
            exe: options.exe.clone(),
            source,
        })?;
    let import_ms = ms(start);
    if !output.status.success() {
        return Err(BenchError::Child(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    let child: ChildImport = serde_json::from_slice(&output.stdout)
        .map_err(|err| BenchError::Child(format!("unreadable report: {err}")))?;
    let seconds = import_ms / 1000.0;
    let import = ImportFigures {
        ms: import_ms,
        mb_per_second: file_bytes as f64 / 1e6 / seconds,
        events_per_second: child.events as f64 / seconds,
        peak_rss_bytes: child.peak_rss_bytes,
        cpu_ms: child.cpu_ms,
    };

    let mut quiet = |_| {};
    let start = Instant::now();
    let mut shown = Journal::open_unloaded(
        &db_path,
        None,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )?;
    let _ = shown.events_page(&EventQuery::default())?;
    let _ = shown.projection_at_seq(shown.event_count().saturating_sub(1))?;
    let shown_ms = ms(start);
    let start = Instant::now();
    if let Some(load) = shown.views_load() {
        if let Some(views) = load.run(&mut |_| std::ops::ControlFlow::Continue(()))? {
            shown.install(views)?;
        }
    }
    let load_ms = ms(start);
    drop(shown);

    let start = Instant::now();
    let journal = Journal::open(
        &journal_path,
        Some(&db_path),
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )?;
    let reopen_ms = ms(start);
    let reopen_peak_rss_bytes = peak_rss_bytes();

    let info = journal.info()?;
    let first = info.first_offset.unwrap_or(0);
    let last = info.last_offset.unwrap_or(0);
    let start = Instant::now();
    let _ = journal.projection(last)?;
    let _ = journal.events_page(&EventQuery::default())?;
    let first_view_ms = ms(start);
    let mut rng = Rng::new(options.seed);
    let mut samples = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let at = first + rng.range(0, (last - first + 1).max(1) as u64) as i64;
        let start = Instant::now();
        let _ = journal.projection(at)?;
        samples.push(ms(start));
    }
    samples.sort_by(f64::total_cmp);
    let full_fold_ms = journal
        .iterate_events()
        .map(|events| {
            let mut runs: Vec<f64> = (0..3)
                .map(|_| {
                    let start = Instant::now();
                    let projection = fold_through(events, last);
                    let took = ms(start);
                    drop(projection);
                    took
                })
                .collect();
            runs.sort_by(f64::total_cmp);
            runs[1]
        })
        .unwrap_or(0.0);
    let p99 = percentile(&samples, 99.0);
    let seek = SeekFigures {
        samples: samples.len() as u64,
        p50_ms: percentile(&samples, 50.0),
        p99_ms: p99,
        max_ms: samples.last().copied().unwrap_or(0.0),
        full_fold_ms,
        speedup_p99: if p99 > 0.0 { full_fold_ms / p99 } else { 0.0 },
    };

    let last_request = journal.requests()?.last().map(|r| r.offset);
    let start = Instant::now();
    if let Some(request) = last_request {
        let _ = journal.request_body(request, Transport::Openai)?;
    }
    let request_render_ms = ms(start);

    let start = Instant::now();
    let _ = journal.events_page(&EventQuery {
        start: info.event_count / 2,
        limit: 200,
        ..EventQuery::default()
    })?;
    let event_page_ms = ms(start);

    let start = Instant::now();
    let _ = journal.events_page(&EventQuery {
        text: Some("octo-bot".to_string()),
        start: 0,
        limit: 200,
        ..EventQuery::default()
    })?;
    let filtered_event_page_ms = ms(start);

    let start = Instant::now();
    let _ = journal.search(&SearchQuery {
        text: Some("octo-bot".to_string()),
        ..SearchQuery::default()
    })?;
    let search_index_ms = ms(start);
    let database_bytes = std::fs::metadata(&db_path).map(|m| m.len()).unwrap_or(0);
    drop(journal);

    let mut peers = Vec::new();
    let mut store_floor_ms = None;
    if options.compare {
        let file = journal_path.to_string_lossy().into_owned();
        let jq_args = vec!["-c".to_string(), ".".to_string(), file.clone()];
        settle();
        if let Some(took) = time_peer("jq", &jq_args, true) {
            peers.push(PeerTiming {
                tool: "jq".to_string(),
                command: format!("jq -c . {file} > /dev/null"),
                ms: took,
                ratio_to_import: took / import_ms,
            });
        }
        let peer_db = options.dir.join("bench-sqlite3-import.db");
        remove_database(&peer_db);
        // ASCII mode with a unit-separator column separator reads each line whole: JSON text
        // never holds a raw control character.
        let sqlite_args = vec![
            peer_db.to_string_lossy().into_owned(),
            "CREATE TABLE lines(line TEXT);".to_string(),
            ".mode ascii".to_string(),
            ".separator \u{1f} \"\\n\"".to_string(),
            format!(".import {file} lines"),
        ];
        settle();
        if let Some(took) = time_peer("sqlite3", &sqlite_args, false) {
            peers.push(PeerTiming {
                tool: "sqlite3".to_string(),
                command: format!(
                    "sqlite3 DB '.mode ascii' '.separator \\x1f \\n' '.import {file} lines'"
                ),
                ms: took,
                ratio_to_import: took / import_ms,
            });
        }
        remove_database(&peer_db);
        settle();
        store_floor_ms = Some(store_floor(
            &journal_path,
            &options.dir.join("bench-store-floor.db"),
        )?);
    }
    let sqlite3_ratio_ceiling = peers
        .iter()
        .find(|p| p.tool == "sqlite3")
        .zip(store_floor_ms)
        .map(|(peer, floor)| peer.ms / floor);

    let peer_ratio = |tool: &str| {
        peers
            .iter()
            .find(|p| p.tool == tool)
            .map(|p| p.ratio_to_import)
    };
    let check =
        |figure: &str, value: Option<f64>, unit: &str, target: &str, pass: fn(f64) -> bool| Check {
            figure: figure.to_string(),
            value: value.unwrap_or(f64::NAN),
            unit: unit.to_string(),
            target: target.to_string(),
            pass: value.map(pass),
        };
    let checks = vec![
        check(
            "import time",
            Some(import_ms / 1000.0),
            "s",
            "<= 5 s",
            |v| v <= 5.0,
        ),
        check(
            "import vs jq -c .",
            peer_ratio("jq"),
            "x faster",
            ">= 5x",
            |v| v >= 5.0,
        ),
        check(
            "import vs sqlite3 .import",
            peer_ratio("sqlite3"),
            "x faster",
            ">= 4x",
            |v| v >= 4.0,
        ),
        check(
            "import peak RSS",
            Some(import.peak_rss_bytes as f64 / 1048576.0),
            "MiB",
            "<= 256 MiB",
            |v| v <= 256.0,
        ),
        check(
            "ready after import",
            Some(shown_ms / 1000.0),
            "s",
            "<= 2 s",
            |v| v <= 2.0,
        ),
        check("seek p99", Some(seek.p99_ms), "ms", "<= 10 ms", |v| {
            v <= 10.0
        }),
        check(
            "seek p99 vs fold from 0",
            Some(seek.speedup_p99),
            "x faster",
            ">= 100x",
            |v| v >= 100.0,
        ),
    ];

    Ok(BenchReport {
        events: options.events,
        seed: options.seed,
        journal_path: journal_path.to_string_lossy().into_owned(),
        file_bytes,
        database_bytes,
        generated,
        import,
        shown_ms,
        load_ms,
        reopen_ms,
        reopen_peak_rss_bytes,
        first_view_ms,
        search_index_ms,
        seek,
        request_render_ms,
        event_page_ms,
        filtered_event_page_ms,
        peers,
        store_floor_ms,
        sqlite3_ratio_ceiling,
        checks,
    })
}

/// The report as the text table `bench` prints.
pub fn render_text(report: &BenchReport) -> String {
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(format!(
        "journal              {} ({} events, {:.1} MiB{})",
        report.journal_path,
        report.events,
        mib(report.file_bytes),
        if report.generated {
            ", generated"
        } else {
            ", reused"
        }
    ));
    line(format!(
        "database             {:.1} MiB",
        mib(report.database_bytes)
    ));
    line(format!(
        "import               {:.0} ms (CPU {:.0} ms)  {:.1} MB/s  {:.0} events/s  peak RSS {:.0} MiB",
        report.import.ms,
        report.import.cpu_ms,
        report.import.mb_per_second,
        report.import.events_per_second,
        mib(report.import.peak_rss_bytes)
    ));
    line(format!(
        "shown after import   {:.0} ms (event list and last projection, before the events load)",
        report.shown_ms
    ));
    line(format!(
        "load after import    {:.0} ms (every event, for stepping anywhere; the app loads them in the background)",
        report.load_ms
    ));
    line(format!(
        "reopen (unchanged)   {:.0} ms  peak RSS {:.0} MiB",
        report.reopen_ms,
        mib(report.reopen_peak_rss_bytes)
    ));
    line(format!(
        "first view           {:.0} ms (last projection and first page, after the load)",
        report.first_view_ms
    ));
    line(format!(
        "search index         {:.0} ms (built by the first search; the app builds it in the background)",
        report.search_index_ms
    ));
    line(format!(
        "seek ({} offsets)  p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms; fold from 0: {:.1} ms",
        report.seek.samples,
        report.seek.p50_ms,
        report.seek.p99_ms,
        report.seek.max_ms,
        report.seek.full_fold_ms
    ));
    line(format!(
        "render last request  {:.1} ms",
        report.request_render_ms
    ));
    line(format!(
        "event page (middle)  {:.1} ms",
        report.event_page_ms
    ));
    line(format!(
        "filtered event page  {:.1} ms",
        report.filtered_event_page_ms
    ));
    for peer in &report.peers {
        line(format!(
            "peer {:<15} {:.0} ms ({:.2}x the import)",
            peer.tool, peer.ms, peer.ratio_to_import
        ));
    }
    if let Some(floor) = report.store_floor_ms {
        line(format!(
            "store floor          {floor:.0} ms (each line's bytes into SQLite, nothing parsed)"
        ));
    }
    if let Some(ceiling) = report.sqlite3_ratio_ceiling {
        line(format!(
            "vs sqlite3 at best   {ceiling:.2}x (sqlite3 .import over the store floor: no import that keeps the bytes in SQLite gets past it)"
        ));
    }
    line(String::new());
    line(format!(
        "{:<28} {:>12}  {:<12} {}",
        "figure", "value", "target", "result"
    ));
    for check in &report.checks {
        let value = if check.value.is_nan() {
            "n/a".to_string()
        } else {
            format!("{:.2} {}", check.value, check.unit)
        };
        let result = match check.pass {
            Some(true) => "pass",
            Some(false) => "FAIL",
            None => "not measured",
        };
        line(format!(
            "{:<28} {:>12}  {:<12} {result}",
            check.figure, value, check.target
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&samples, 50.0), 50.0, "median of 1..=100");
        assert_eq!(percentile(&samples, 99.0), 99.0, "p99 of 1..=100");
        assert_eq!(percentile(&[], 99.0), 0.0, "no samples, no latency");
    }

    #[test]
    fn peak_rss_is_read_from_proc_on_linux() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(peak_rss_bytes() > 0, "VmHWM is present on Linux");
        }
    }
}
