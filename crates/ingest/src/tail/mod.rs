//! Live tail: following a journal while it is written, from a local file or a remote stream
//! (Server-Sent Events, NDJSON over HTTP, WebSocket), into the store. Owns resuming after
//! disconnects, deduplicating redeliveries, starting new journal generations when a source
//! starts over, pausing with buffering, and the status a watcher shows. The store is written
//! on a thread of the tail's own; watchers read it through their own connection.
//!
//! ```no_run
//! use journalscope_ingest::tail::{self, Source, TailOptions};
//! let source = Source::parse("http://127.0.0.1:8765/sse", vec![])?;
//! let handle = tail::start("journal.db".as_ref(), source, TailOptions::default(), |update| {
//!     println!("{update:?}");
//! })?;
//! handle.pause();
//! handle.resume();
//! let summary = handle.stop()?;
//! # Ok::<(), journalscope_ingest::tail::TailError>(())
//! ```

mod file;
mod observation;
mod recorder;
mod remote;
mod target;
mod tls;
mod update;

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::watch;

use crate::import;
use journalscope_store::store::{Store, StoreError};

pub use observation::{TransportRule, DEFAULT_KEEP_ALIVE, TRANSPORT_RULES};
pub use target::{Header, Source, StreamTarget, Transport};
pub use update::{GenerationReason, TailStatus, TailUpdate, TailedEvent};

#[derive(Debug, thiserror::Error)]
pub enum TailError {
    #[error("{0}")]
    InvalidTarget(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot watch {path}: {source}")]
    Watch {
        path: PathBuf,
        source: notify::Error,
    },
    #[error("cannot start the tail: {0}")]
    Runtime(std::io::Error),
    #[error("{0}")]
    Failed(String),
    #[error("the tail stopped unexpectedly")]
    Crashed,
}

impl From<crate::import::ImportError> for TailError {
    fn from(error: crate::import::ImportError) -> TailError {
        match error {
            crate::import::ImportError::Store(error) => TailError::Store(error),
            crate::import::ImportError::Read { path, source } => TailError::Read { path, source },
            other => TailError::Failed(other.to_string()),
        }
    }
}

/// Where a tail starts reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StartAt {
    /// After what the store already holds of this source; from the oldest event otherwise.
    #[default]
    Stored,
    Oldest,
    /// Only what is written from now on.
    Latest,
    /// From this offset, as the server understands `?offset=`.
    Offset(i64),
}

impl FromStr for StartAt {
    type Err = TailError;

    fn from_str(text: &str) -> Result<StartAt, TailError> {
        match text {
            "oldest" => Ok(StartAt::Oldest),
            "latest" => Ok(StartAt::Latest),
            "stored" => Ok(StartAt::Stored),
            other => other.parse().map(StartAt::Offset).map_err(|_| {
                TailError::InvalidTarget(format!(
                    "--from takes oldest, latest or an offset, not {other:?}"
                ))
            }),
        }
    }
}

/// How long to wait before reconnecting: exponential from `initial`, capped at `max`, with up
/// to `jitter` (a fraction) taken off at random so that many clients do not return together.
#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    pub initial: Duration,
    pub max: Duration,
    pub factor: f64,
    pub jitter: f64,
    /// Consecutive failed attempts after which the tail fails; `None` retries for ever.
    pub max_attempts: Option<u32>,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            initial: Duration::from_millis(500),
            max: Duration::from_secs(30),
            factor: 2.0,
            jitter: 0.3,
            max_attempts: None,
        }
    }
}

impl Backoff {
    /// The wait before attempt `attempt` (1 for the first retry). A server's SSE `retry:`
    /// replaces the initial delay, as the standard asks.
    pub fn delay(&self, attempt: u32, server_retry: Option<Duration>) -> Duration {
        let base = server_retry.unwrap_or(self.initial).as_secs_f64();
        let exponent = attempt.saturating_sub(1).min(64) as i32;
        let capped = (base * self.factor.powi(exponent)).min(self.max.as_secs_f64());
        let jitter = self.jitter.clamp(0.0, 1.0) * random_unit();
        Duration::from_secs_f64((capped * (1.0 - jitter)).max(0.0))
    }
}

/// A number in [0, 1) that differs between calls; jitter needs no more than that.
fn random_unit() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[derive(Debug, Clone)]
pub struct TailOptions {
    pub start: StartAt,
    pub backoff: Backoff,
    /// Stop by itself after this many events landed (for scripts and tests).
    pub stop_after: Option<u64>,
    /// How long arrivals may wait to be written together.
    pub flush_interval: Duration,
    /// How often a followed file is checked when no change notification came.
    pub poll_interval: Duration,
    /// PEM files of CA certificates trusted for `https://` and `wss://`, besides the system's.
    pub ca_files: Vec<PathBuf>,
    /// A remote stream silent for longer than this gets a `keep-alive-gap` diagnostic.
    pub keep_alive: Duration,
}

impl Default for TailOptions {
    fn default() -> TailOptions {
        TailOptions {
            start: StartAt::Stored,
            backoff: Backoff::default(),
            stop_after: None,
            flush_interval: Duration::from_millis(50),
            poll_interval: Duration::from_millis(100),
            ca_files: Vec::new(),
            keep_alive: DEFAULT_KEEP_ALIVE,
        }
    }
}

/// What a finished tail did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailSummary {
    pub events: u64,
    /// Redelivered events that were recognised and not stored again.
    pub duplicates: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    Run,
    Pause,
    Stop,
}

pub(crate) type Notify = Box<dyn FnMut(TailUpdate) + Send>;

/// A running tail. Dropping it stops the tail and waits for it.
pub struct TailHandle {
    commands: watch::Sender<Command>,
    thread: Option<JoinHandle<Result<TailSummary, TailError>>>,
}

impl TailHandle {
    /// Holds arrivals back (they keep being received) until [`TailHandle::resume`].
    pub fn pause(&self) {
        self.send(Command::Pause);
    }

    pub fn resume(&self) {
        self.send(Command::Run);
    }

    fn send(&self, command: Command) {
        self.commands.send_if_modified(|current| {
            let changed = *current != command && *current != Command::Stop;
            if changed {
                *current = command;
            }
            changed
        });
    }

    /// Whether the tail ended by itself (failed, or reached `stop_after`).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Stops the tail, landing everything received (buffered arrivals included).
    pub fn stop(mut self) -> Result<TailSummary, TailError> {
        self.send(Command::Stop);
        self.join()
    }

    /// Waits for the tail to end by itself.
    pub fn wait(mut self) -> Result<TailSummary, TailError> {
        self.join()
    }

    fn join(&mut self) -> Result<TailSummary, TailError> {
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or(Err(TailError::Crashed)),
            None => Err(TailError::Crashed),
        }
    }
}

impl Drop for TailHandle {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.send(Command::Stop);
            let _ = self.join();
        }
    }
}

/// Starts following `source` into the store at `db` on a thread of its own. `on_update` is
/// called from that thread with every status change, landed event, gap and new generation.
pub fn start(
    db: &Path,
    source: Source,
    options: TailOptions,
    on_update: impl FnMut(TailUpdate) + Send + 'static,
) -> Result<TailHandle, TailError> {
    let store = Store::open(db)?;
    let (commands, receiver) = watch::channel(Command::Run);
    let notify: Notify = Box::new(on_update);
    let work: Box<dyn FnOnce() -> Result<TailSummary, TailError> + Send> = match source {
        Source::File(path) => Box::new(move || file::run(&path, options, store, receiver, notify)),
        Source::Stream(target) => {
            Box::new(move || remote::run(target, None, options, store, receiver, notify))
        }
        Source::Posted { target, body, .. } => {
            let body = serde_json::to_vec(&body)
                .map_err(|err| TailError::InvalidTarget(format!("the body to POST: {err}")))?;
            Box::new(move || remote::run(target, Some(body), options, store, receiver, notify))
        }
    };
    let thread = std::thread::Builder::new()
        .name("journalscope-tail".to_string())
        .spawn(work)
        .map_err(TailError::Runtime)?;
    Ok(TailHandle {
        commands,
        thread: Some(thread),
    })
}

/// Where a tail writes when no `--db` is given: a file's cached database, so that the other
/// commands on the same file see what was tailed; a stream gets one per public URL.
pub fn default_db(source: &Source) -> PathBuf {
    match source {
        Source::File(path) => import::cached_db_path(path),
        Source::Stream(target) => {
            let hash = blake3::hash(target.public_url().as_bytes()).to_hex();
            import::cache_dir().join(format!("stream-{}.sqlite", &hash.as_str()[..16]))
        }
        // The dialect's key says which answers make one journal (the runs of one thread).
        Source::Posted { target, key, .. } => {
            let key = format!("{}#{key}", target.public_url());
            let hash = blake3::hash(key.as_bytes()).to_hex();
            import::cache_dir().join(format!("run-{}.sqlite", &hash.as_str()[..16]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_is_capped_and_jittered_downwards_only() {
        let backoff = Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(1000),
            factor: 2.0,
            jitter: 0.5,
            max_attempts: None,
        };
        for _ in 0..50 {
            let first = backoff.delay(1, None);
            assert!(
                first <= Duration::from_millis(100) && first >= Duration::from_millis(50),
                "first retry within jitter of initial: {first:?}"
            );
            let late = backoff.delay(30, None);
            assert!(late <= Duration::from_millis(1000), "capped: {late:?}");
            assert!(
                late >= Duration::from_millis(500),
                "jitter at most half: {late:?}"
            );
        }
        let server = backoff.delay(1, Some(Duration::from_millis(10)));
        assert!(
            server <= Duration::from_millis(10),
            "SSE retry sets the base: {server:?}"
        );
    }

    #[test]
    fn a_posted_run_is_kept_in_one_database_a_thread_under_the_key_it_always_had() {
        // Given two runs of one thread and one of another, POSTed to the same endpoint;
        // when their databases are chosen; then a thread's runs share one, named by the URL
        // and the thread as databases written before were, and another thread gets its own.
        let run = |thread: &str, run: &str| {
            let body = serde_json::json!({"threadId": thread, "runId": run});
            Source::posted("http://127.0.0.1:9/agent", Vec::new(), body).expect("a run input")
        };
        let first = default_db(&run("t1", "r1"));
        assert_eq!(
            first,
            default_db(&run("t1", "r2")),
            "one thread, one journal"
        );
        assert_ne!(
            first,
            default_db(&run("t2", "r1")),
            "another thread, another"
        );
        let key = blake3::hash(b"http://127.0.0.1:9/agent#thread=t1").to_hex();
        let name = format!("run-{}.sqlite", &key.as_str()[..16]);
        assert_eq!(
            first.file_name().and_then(|n| n.to_str()),
            Some(name.as_str()),
            "the name a thread's database had before keeps its runs together"
        );
    }

    #[test]
    fn from_parses_positions() {
        assert_eq!(
            "oldest".parse::<StartAt>().ok(),
            Some(StartAt::Oldest),
            "oldest"
        );
        assert_eq!(
            "latest".parse::<StartAt>().ok(),
            Some(StartAt::Latest),
            "latest"
        );
        assert_eq!(
            "42".parse::<StartAt>().ok(),
            Some(StartAt::Offset(42)),
            "offset"
        );
        assert!(
            "soon".parse::<StartAt>().is_err(),
            "anything else is refused"
        );
    }
}
