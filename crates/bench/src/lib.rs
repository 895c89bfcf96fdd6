//! `journalscope bench`: generates (or reuses) a journal of one dialect with `gen`, imports it
//! in a child process, and measures what docs/performance.md sets targets for, each as the user
//! pays it: import time and peak memory (against `jq` and the `sqlite3` shell on the same file),
//! how import cost grows with size, the view at random offsets as a whole process, reopening,
//! the database's size, an append, and for iterate journals its views in one process. Speed
//! figures live here, never in timed unit tests.

mod render;
pub mod throughput;
mod views;

pub use render::{render_checks, render_text};
use views::{loaded_figures, scale_figures};

use journalscope_registry::dialect::Registered as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde::Serialize;

use journalscope_document::journal::{EventQuery, Journal, JournalError};
use journalscope_gen::{self as gen, ContractName, GenOptions, Rng};
use journalscope_ingest::import::ImportControl;
use journalscope_iterate::iterate::Transport;
use journalscope_registry::dialect::{Ask, Dialect, Family, View};

#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub dialect: Dialect,
    pub events: u64,
    pub seed: u64,
    /// The contract a generated iterate journal follows.
    pub contract: ContractName,
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
}

/// An iterate journal's views in one process, as the app asks for them while it steps.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedFigures {
    /// Opening the journal file again: the file's ends are hashed to find it unchanged.
    pub reopen_ms: f64,
    pub reopen_peak_rss_bytes: u64,
    /// The projection at the last offset and the first page of the event list, what the app
    /// shows first.
    pub first_view_ms: f64,
    /// The projection at random offsets, each from the checkpoint before it.
    pub seek: SeekFigures,
    pub request_render_ms: f64,
    pub event_page_ms: f64,
    pub filtered_event_page_ms: f64,
}

/// What every dialect is held to at scale, each measured as the user pays it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleFigures {
    /// The same journal cut to a tenth, imported the same way.
    pub small_events: u64,
    pub small_import_ms: f64,
    /// Import time per event at the full size over that at a tenth of it: 1 is linear.
    pub cost_per_event_ratio: f64,
    /// The command timed as a whole process at random offsets.
    pub view_command: String,
    pub view_samples: u64,
    pub view_p50_ms: f64,
    pub view_p99_ms: f64,
    /// Opening the imported database, the first page of the event list and the view at the
    /// journal's middle.
    pub reopen_ms: f64,
    /// The database right after the import.
    pub database_bytes: u64,
    pub database_to_journal: f64,
    pub checkpoint_bytes: u64,
    /// Checkpoints over the database.
    pub checkpoint_share: f64,
    /// Events appended to the journal file, then taken in by `import` as a whole process.
    pub append_events: u64,
    pub append_ms: f64,
    /// `search DB TEXT` as a whole process: with the first page of hits listed (and every hit
    /// counted), and with every hit listed. A search reads the stored bytes and keeps no index.
    pub search_text: String,
    pub search_hits: u64,
    pub search_page_ms: f64,
    pub search_all_ms: f64,
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

/// One target and whether this run met it.
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
    pub dialect: Dialect,
    /// The contract of a generated iterate journal (`seed` for the other dialects).
    pub contract: ContractName,
    pub events: u64,
    pub seed: u64,
    pub journal_path: String,
    pub file_bytes: u64,
    pub database_bytes: u64,
    pub generated: bool,
    pub import: ImportFigures,
    /// An iterate journal's views once its events are loaded, as the app steps through them.
    #[serde(flatten)]
    pub loaded: Option<LoadedFigures>,
    pub scale: ScaleFigures,
    pub peers: Vec<PeerTiming>,
    /// With `--compare`: the least an import that keeps every record's bytes in SQLite can
    /// take here, measured in the same run (see [`store_floor`]).
    pub store_floor_ms: Option<f64>,
    /// `sqlite3 .import` over the store floor: the most "times faster than `sqlite3`" any such
    /// import could reach in this run, even one that parsed nothing.
    pub sqlite3_ratio_ceiling: Option<f64>,
    /// With `--compare`: reading the file once from the page cache, in this process, with
    /// nothing done to its bytes (see [`read_floor`]).
    pub read_floor_ms: Option<f64>,
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
    generated(options, options.events)
}

/// The generated journal of `events` events of the bench's dialect and seed. A shorter one is
/// a prefix of a longer one: the generator cuts the same stream.
pub(crate) fn generated(
    options: &BenchOptions,
    events: u64,
) -> Result<(PathBuf, bool), BenchError> {
    let name = format!(
        "bench-{}-{events}-s{}.jsonl",
        journal_kind(options),
        options.seed
    );
    let path = options.dir.join(name);
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
            dialect: options.dialect,
            events,
            seed: options.seed,
            contract: options.contract,
        },
    )
    .map_err(write)?;
    std::io::Write::flush(&mut out).map_err(write)?;
    drop(out);
    std::fs::rename(&partial, &path).map_err(write)?;
    Ok((path, true))
}

/// The dialect, and an iterate journal's contract when it is not the seed's, as file names
/// and the report give it: `iterate`, `iterate-agent-loop`, `ag-ui`.
pub(crate) fn journal_kind(options: &BenchOptions) -> String {
    if options.dialect == Dialect::Iterate && options.contract != ContractName::Seed {
        format!("iterate-{}", options.contract.as_str())
    } else {
        options.dialect.as_str().to_string()
    }
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
    let store = journalscope_store::store::Store::open(db)?;
    let outcome = journalscope_ingest::import::import_file(
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
/// for the generator, and `jq` for the import. Best effort: without `sync`, phases are
/// timed as they come.
pub(crate) fn settle() {
    let _ = Command::new("sync")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

pub(crate) fn remove_database(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

pub(crate) fn time_peer(tool: &str, args: &[String], stdout_null: bool) -> Option<f64> {
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
/// documentation asserting it.
pub(crate) fn store_floor(file: &Path, db: &Path) -> Result<f64, BenchError> {
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
        let read =
            journalscope_ingest::import::read_full(&mut source, &mut buf[held..held + chunk])
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
    let db_path = options.dir.join(format!(
        "bench-{}-{}-s{}.sqlite",
        journal_kind(options),
        options.events,
        options.seed
    ));
    let file_bytes = std::fs::metadata(&journal_path)
        .map(|m| m.len())
        .unwrap_or(0);

    let (import_ms, child) = import_in_child(options, &journal_path, &db_path)?;
    let seconds = import_ms / 1000.0;
    let import = ImportFigures {
        ms: import_ms,
        mb_per_second: file_bytes as f64 / 1e6 / seconds,
        events_per_second: child.events as f64 / seconds,
        peak_rss_bytes: child.peak_rss_bytes,
        cpu_ms: child.cpu_ms,
    };

    let database_bytes = std::fs::metadata(&db_path).map(|m| m.len()).unwrap_or(0);
    let loaded = if options.dialect.offers(View::Projection) {
        Some(loaded_figures(options, &journal_path, &db_path)?)
    } else {
        None
    };
    let scale = scale_figures(
        options,
        &journal_path,
        &db_path,
        import_ms,
        file_bytes,
        database_bytes,
    )?;

    let mut peers = Vec::new();
    let mut store_floor_ms = None;
    let mut read_floor_ms = None;
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
        read_floor_ms = Some(read_floor(&journal_path)?);
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
    let mut checks = vec![
        check(
            "import cost per event, N vs N/10",
            Some(scale.cost_per_event_ratio),
            "x",
            "<= 1.3x",
            |v| v <= 1.3,
        ),
        check(
            "import peak RSS",
            Some(import.peak_rss_bytes as f64 / 1048576.0),
            "MiB",
            "<= 256 MiB",
            |v| v <= 256.0,
        ),
        check(
            "view at an offset, median",
            Some(scale.view_p50_ms),
            "ms",
            "<= 50 ms",
            |v| v <= 50.0,
        ),
        check(
            "view at an offset, p99",
            Some(scale.view_p99_ms),
            "ms",
            "<= 150 ms",
            |v| v <= 150.0,
        ),
        check(
            "reopen, list and middle",
            Some(scale.reopen_ms),
            "ms",
            "<= 300 ms",
            |v| v <= 300.0,
        ),
        check(
            "database / journal",
            Some(scale.database_to_journal),
            "x",
            "<= 1.5x",
            |v| v <= 1.5,
        ),
        check(
            "checkpoints / database",
            Some(scale.checkpoint_share),
            "x",
            "<= 0.2x",
            |v| v <= 0.2,
        ),
        check(
            "append 1,000 events",
            Some(scale.append_ms),
            "ms",
            "<= 200 ms",
            |v| v <= 200.0,
        ),
        check(
            "search, first page of hits",
            Some(scale.search_page_ms / 1000.0),
            "s",
            "<= 1 s",
            |v| v <= 1.0,
        ),
        check(
            "search, every hit",
            Some(scale.search_all_ms / 1000.0),
            "s",
            "<= 3 s",
            |v| v <= 3.0,
        ),
    ];
    // What an import adds to storing the bytes: parsing, reading and folding each record, and
    // storing what the fold derives. Every dialect is held to it.
    checks.push(check(
        "import vs store floor",
        store_floor_ms.map(|floor| import_ms / floor),
        "x",
        "<= 2x",
        |v| v <= 2.0,
    ));
    // The target the iterate journal is held to: its records are large JSON objects, which
    // `jq` parses and prints as an import parses and stores them.
    if options.dialect == Dialect::Iterate {
        checks.push(check(
            "import vs jq -c .",
            peer_ratio("jq"),
            "x faster",
            ">= 5x",
            |v| v >= 5.0,
        ));
    }
    if let Some(loaded) = &loaded {
        checks.extend([
            check(
                "import time",
                Some(import_ms / 1000.0),
                "s",
                "<= 5 s",
                |v| v <= 5.0,
            ),
            check(
                "seek p99 (in process)",
                Some(loaded.seek.p99_ms),
                "ms",
                "<= 10 ms",
                |v| v <= 10.0,
            ),
        ]);
    }

    Ok(BenchReport {
        dialect: options.dialect,
        contract: options.contract,
        events: options.events,
        seed: options.seed,
        journal_path: journal_path.to_string_lossy().into_owned(),
        file_bytes,
        database_bytes,
        generated,
        import,
        loaded,
        scale,
        peers,
        store_floor_ms,
        sqlite3_ratio_ceiling,
        read_floor_ms,
        checks,
    })
}

/// Reads `file` once, in 8 MiB chunks, and does nothing with its bytes: the floor under any
/// import, measured warm (the import and the peers have just read it).
pub(crate) fn read_floor(file: &Path) -> Result<f64, BenchError> {
    let fail = |err: std::io::Error| BenchError::Floor {
        path: file.to_path_buf(),
        message: err.to_string(),
    };
    let start = Instant::now();
    let mut source = std::fs::File::open(file).map_err(fail)?;
    let mut buf = vec![0u8; 8 << 20];
    while journalscope_ingest::import::read_full(&mut source, &mut buf).map_err(fail)? > 0 {}
    Ok(ms(start))
}

/// Imports `file` into a fresh database at `db` in a child, so that the peak memory it reports
/// is the import's alone: the wall time of the whole process, and the child's report.
pub(crate) fn import_in_child(
    options: &BenchOptions,
    file: &Path,
    db: &Path,
) -> Result<(f64, ChildImport), BenchError> {
    remove_database(db);
    settle();
    let start = Instant::now();
    let output = Command::new(&options.exe)
        .arg("bench-import")
        .arg(file)
        .arg("--db")
        .arg(db)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| BenchError::Spawn {
            exe: options.exe.clone(),
            source,
        })?;
    let took = ms(start);
    if !output.status.success() {
        return Err(BenchError::Child(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    let child = serde_json::from_slice(&output.stdout)
        .map_err(|err| BenchError::Child(format!("unreadable report: {err}")))?;
    Ok((took, child))
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
