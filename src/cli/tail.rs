//! `journalscope tail`: the command-line face of a tail. Prints each event as it lands (text or
//! one JSON update per line) until interrupted, or until a hidden event count for tests.

use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context;

use journalscope::tail::{
    default_db, start, Backoff, Header, Source, StartAt, TailError, TailOptions, TailStatus,
    TailUpdate,
};

/// Follow a journal file or a remote stream into the database, printing events as they land.
#[derive(Debug, Clone, clap::Args)]
pub struct TailArgs {
    /// A journal file, or an http(s)/ws(s) URL of a stream (SSE, NDJSON or WebSocket).
    pub target: String,
    /// Database to write to (default: the cached database of FILE, as `import` uses, or one
    /// per stream URL in the same cache directory).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Where to start a remote stream: oldest, latest or an offset. Default: after what the
    /// database already holds of this stream, else oldest.
    #[arg(long)]
    pub from: Option<String>,
    /// A request header, 'Name: value' (repeatable). Never stored or printed.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Also trust the CA certificates in this PEM file for https:// and wss:// (repeatable).
    /// The system's roots are always trusted; verification cannot be turned off.
    #[arg(long = "cacert", value_name = "FILE")]
    pub ca_files: Vec<PathBuf>,
    /// POST this AG-UI run input (a RunAgentInput JSON file) to the URL and record the run it
    /// answers with, until the response ends. The run is never POSTed again on its own.
    #[arg(long, value_name = "FILE", conflicts_with = "from")]
    pub post: Option<PathBuf>,
    /// Seconds a remote stream may be silent (not even a keep-alive comment or ping) before the
    /// silence is a keep-alive-gap diagnostic.
    #[arg(long, value_name = "SECONDS", default_value_t = 15.0)]
    pub keep_alive: f64,
    /// Print one JSON object per line: every event, status change, gap, transport diagnostic
    /// and new generation.
    #[arg(long)]
    pub json: bool,
    /// Stop after this many events have landed.
    #[arg(long, hide = true)]
    pub max_events: Option<u64>,
    /// First reconnect delay in milliseconds.
    #[arg(long, hide = true, default_value_t = 500)]
    pub retry_initial_ms: u64,
    /// Longest reconnect delay in milliseconds.
    #[arg(long, hide = true, default_value_t = 30_000)]
    pub retry_max_ms: u64,
}

impl TailArgs {
    fn options(&self) -> Result<TailOptions, TailError> {
        let start = match &self.from {
            Some(text) => text.parse()?,
            None => StartAt::Stored,
        };
        Ok(TailOptions {
            start,
            backoff: Backoff {
                initial: Duration::from_millis(self.retry_initial_ms),
                max: Duration::from_millis(self.retry_max_ms.max(self.retry_initial_ms)),
                ..Backoff::default()
            },
            stop_after: self.max_events,
            ca_files: self.ca_files.clone(),
            keep_alive: Duration::try_from_secs_f64(self.keep_alive)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    TailError::InvalidTarget(format!(
                        "--keep-alive takes a positive number of seconds, not {}",
                        self.keep_alive
                    ))
                })?,
            ..TailOptions::default()
        })
    }
}

/// Runs `journalscope tail`: events go to `out`, status lines (in text mode) to stderr.
pub fn run_cli(args: TailArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let headers = args
        .headers
        .iter()
        .map(|text| Header::parse(text))
        .collect::<Result<Vec<_>, _>>()?;
    let source = match &args.post {
        Some(file) => {
            let text = std::fs::read(file)
                .with_context(|| format!("reading the run input {}", file.display()))?;
            let input: serde_json::Value = serde_json::from_slice(&text)
                .with_context(|| format!("{} is not JSON", file.display()))?;
            Source::posted(&args.target, headers, input)?
        }
        None => Source::parse(&args.target, headers)?,
    };
    if matches!(source, Source::File(_)) && args.from.is_some() {
        anyhow::bail!(
            "--from applies to remote streams; a file is followed from what the database holds"
        );
    }
    let options = args.options()?;
    let db = match &args.db {
        Some(db) => db.clone(),
        None => default_db(&source),
    };
    if let Some(parent) = db.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let (send, updates) = mpsc::channel();
    let handle = start(&db, source, options, move |update| {
        // The receiver only goes away when printing failed; the tail is stopped then anyway.
        let _ = send.send(update);
    })?;
    let mut stderr = std::io::stderr();
    let mut last_state: Option<TailStatus> = None;
    // The channel closes when the tail's thread ends, whatever the reason.
    for update in updates {
        if args.json {
            serde_json::to_writer(&mut *out, &update)?;
            writeln!(out)?;
            out.flush()?;
            continue;
        }
        match &update {
            TailUpdate::Event { event } => {
                let offset = event
                    .offset
                    .map_or_else(|| "-".to_string(), |o| o.to_string());
                let kind = event.kind.as_deref().unwrap_or("-");
                writeln!(out, "@{offset}\t{kind}\t{}", event.summary)?;
                out.flush()?;
            }
            TailUpdate::Gap { after, next } => {
                writeln!(
                    stderr,
                    "gap: offsets {}..{} did not arrive",
                    after + 1,
                    next - 1
                )?;
            }
            TailUpdate::Diagnostic { diagnostic, .. } => {
                let at = diagnostic
                    .offset
                    .map_or_else(|| format!("line {}", diagnostic.line), |o| format!("@{o}"));
                writeln!(
                    stderr,
                    "{} {} at {at}: {}",
                    diagnostic.severity.as_str(),
                    diagnostic.code,
                    diagnostic.message
                )?;
            }
            TailUpdate::Generation { journal_id, reason } => {
                let reason = serde_json::to_value(reason)?;
                let reason = reason.as_str().unwrap_or("new");
                writeln!(stderr, "journal {journal_id} ({reason})")?;
            }
            TailUpdate::Status { status } => {
                if last_state.as_ref().is_none_or(|s| !s.same_state(status)) {
                    writeln!(stderr, "{}", status.describe())?;
                }
                last_state = Some(status.clone());
            }
        }
    }
    handle.wait()?;
    Ok(())
}
