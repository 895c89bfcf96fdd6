//! Command definitions and dispatch. Every command takes `<JOURNAL>`: a journal file (imported
//! into its cached database on first use), a database written by `import`, or `demo`.

mod output;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use journalscope::dialect::Dialect;
use journalscope::import::{ImportControl, ImportProgress};
use journalscope::iterate::Transport;
use journalscope::journal::{Demo, Journal};
use journalscope::report::{self, OffsetRange};
use journalscope::{agentskit, agui};

#[derive(Parser, Debug)]
#[command(
    name = "journalscope",
    version,
    about = "Inspect agent journals: replay what the model saw at any offset",
    long_about = "Inspect agent journals (iterate agent streams, AG-UI event streams, AgentsKit turn \
snapshots). <JOURNAL> is a journal file (JSONL, JSON array or captured SSE body, optionally \
gzip-compressed), a database written by `journalscope import`, or `demo` (also `demo:ag-ui`, \
`demo:agentskit`) for a bundled demo journal."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Import a journal into a database; print counts, offsets, dialect and diagnostics.
    Import {
        file: PathBuf,
        /// Database to write (default: the cached database of FILE).
        #[arg(long)]
        db: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// List events, one a line.
    Events {
        journal: String,
        #[arg(long)]
        from: Option<i64>,
        #[arg(long)]
        to: Option<i64>,
        /// Only events of this type (full type or its last segment).
        #[arg(long = "type")]
        kind: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The projection (what the model can see) at an offset.
    Project {
        journal: String,
        #[arg(long)]
        at: i64,
        #[arg(long)]
        json: bool,
    },
    /// Every request with what it published.
    Requests {
        journal: String,
        #[arg(long)]
        json: bool,
    },
    /// The request snapshot sent at a request offset.
    Request {
        journal: String,
        #[arg(long)]
        at: i64,
        #[arg(long, value_enum, default_value_t = TransportArg::Openai)]
        transport: TransportArg,
        #[arg(long)]
        json: bool,
        /// Write exactly the provider body to this file.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
    },
    /// Every diagnostic, in file order.
    Diagnostics {
        journal: String,
        #[arg(long)]
        json: bool,
    },
    /// AG-UI: state and messages after folding events 1..=N; AgentsKit: the accepted snapshot.
    State {
        journal: String,
        #[arg(long)]
        at: i64,
        /// AgentsKit: fix the cursor to this session.
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Time import, folding and paging on a generated journal (speed targets live here).
    Bench {
        /// Events in the generated journal.
        #[arg(long, default_value_t = 100_000)]
        events: u64,
        /// Directory for the generated journal and its database (default: a temporary one).
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Follow a growing journal file or a remote stream, printing events as they land.
    Tail(journalscope::tail::TailArgs),
    /// Context size of every request by lane (system, history, compaction summary), with
    /// compactions and prefix breaks.
    Sizes {
        journal: String,
        #[arg(long)]
        from: Option<i64>,
        #[arg(long)]
        to: Option<i64>,
        #[arg(long, value_enum, default_value_t = TransportArg::Openai)]
        transport: TransportArg,
        #[arg(long)]
        json: bool,
    },
    /// A self-contained HTML report (no script, no network) of the journal or an offset range.
    Report {
        journal: String,
        #[arg(long)]
        from: Option<i64>,
        #[arg(long)]
        to: Option<i64>,
        /// Write the HTML here (default: standard output).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Print what the report shows as JSON instead of HTML.
        #[arg(long)]
        json: bool,
    },
    /// The original bytes of the events in an offset range, one a line (JSONL).
    Slice {
        journal: String,
        #[arg(long)]
        from: Option<i64>,
        #[arg(long)]
        to: Option<i64>,
        /// Write the slice here (default: standard output).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// AgentsKit: every line's cursor verdict and the lineage tree.
    Turns {
        journal: String,
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TransportArg {
    Openai,
    WorkersAi,
}

impl From<TransportArg> for Transport {
    fn from(value: TransportArg) -> Self {
        match value {
            TransportArg::Openai => Transport::Openai,
            TransportArg::WorkersAi => Transport::WorkersAi,
        }
    }
}

/// A progress bar on a terminal, nothing otherwise (so pipes and tests stay clean).
fn progress_bar() -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("importing {bar:40} {bytes}/{total_bytes} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

fn open(journal: &str, db: Option<&Path>) -> Result<Journal> {
    let bar = progress_bar();
    let mut report = |p: ImportProgress| {
        if let Some(bar) = &bar {
            bar.set_length(p.total_bytes);
            bar.set_position(p.done_bytes);
            bar.set_message(format!("{} events", p.events));
        }
    };
    let mut control = ImportControl {
        progress: &mut report,
        cancel: None,
    };
    let opened = match Demo::from_argument(journal) {
        Some(demo) if !Path::new(journal).is_file() => Journal::open_demo(demo, &mut control),
        _ => Journal::open(Path::new(journal), db, &mut control),
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    opened.with_context(|| format!("cannot open {journal}"))
}

fn require(journal: &Journal, dialect: Dialect, command: &str) -> Result<()> {
    if journal.dialect() != dialect {
        bail!(
            "`{command}` works on {} journals; this one is {}",
            dialect.as_str(),
            journal.dialect().as_str()
        );
    }
    Ok(())
}

pub fn run(cli: Cli) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Import { file, db, json } => {
            let journal = open(&file.to_string_lossy(), db.as_deref())?;
            output::import(&mut out, &journal, json)?;
        }
        Command::Events {
            journal,
            from,
            to,
            kind,
            json,
        } => {
            let journal = open(&journal, None)?;
            output::events(&mut out, &journal, from, to, kind.as_deref(), json)?;
        }
        Command::Project { journal, at, json } => {
            let journal = open(&journal, None)?;
            require(&journal, Dialect::Iterate, "project")?;
            let view = journal.projection(at)?;
            output::projection(&mut out, &view, json)?;
        }
        Command::Requests { journal, json } => {
            let journal = open(&journal, None)?;
            require(&journal, Dialect::Iterate, "requests")?;
            output::requests(&mut out, &journal.requests()?, json)?;
        }
        Command::Request {
            journal,
            at,
            transport,
            json,
            output: file,
        } => {
            let journal = open(&journal, None)?;
            require(&journal, Dialect::Iterate, "request")?;
            let snapshot = journal.request(at, transport.into())?;
            if let Some(file) = file {
                std::fs::write(&file, snapshot.body())
                    .with_context(|| format!("cannot write {}", file.display()))?;
                if !json {
                    writeln!(
                        out,
                        "wrote the {} body of request @{at} to {}",
                        snapshot.transport.as_str(),
                        file.display()
                    )?;
                    return Ok(());
                }
            }
            output::request(&mut out, &snapshot, json)?;
        }
        Command::Tail(args) => journalscope::tail::run_cli(args, &mut out)?,
        Command::Diagnostics { journal, json } => {
            let journal = open(&journal, None)?;
            output::diagnostics(&mut out, &journal.diagnostics(), json)?;
        }
        Command::State {
            journal,
            at,
            session,
            json,
        } => {
            let journal = open(&journal, None)?;
            match journal.dialect() {
                Dialect::AgUi => {
                    let state = agui::state_at(journal.stored_events(), at);
                    if json {
                        output::json(&mut out, &state)?;
                    } else {
                        write!(out, "{}", agui::render_state_text(&state))?;
                    }
                }
                Dialect::AgentsKit => {
                    let state =
                        agentskit::state_at(journal.stored_events(), at, session.as_deref());
                    if json {
                        output::json(&mut out, &state)?;
                    } else {
                        write!(out, "{}", agentskit::render_state_text(&state))?;
                    }
                }
                Dialect::Iterate => bail!(
                    "`state` works on AG-UI and AgentsKit journals; for iterate use `project --at {at}`"
                ),
            }
        }
        Command::Bench { events, dir, json } => {
            let dir = dir.unwrap_or_else(|| std::env::temp_dir().join("journalscope-bench"));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let report = journalscope::bench::run(&dir, events)?;
            if json {
                output::json(&mut out, &report)?;
            } else {
                writeln!(out, "events               {}", report.events)?;
                writeln!(
                    out,
                    "journal size         {:.1} MiB",
                    report.file_bytes as f64 / 1048576.0
                )?;
                writeln!(
                    out,
                    "database size        {:.1} MiB",
                    report.database_bytes as f64 / 1048576.0
                )?;
                writeln!(
                    out,
                    "import               {:.0} ms ({:.0} events/s)",
                    report.import_ms, report.import_events_per_second
                )?;
                writeln!(out, "reopen (unchanged)   {:.0} ms", report.reopen_ms)?;
                writeln!(
                    out,
                    "projection at end    {:.1} ms",
                    report.projection_at_end_ms
                )?;
                writeln!(
                    out,
                    "render last request  {:.1} ms",
                    report.request_render_ms
                )?;
                writeln!(out, "event page (middle)  {:.1} ms", report.event_page_ms)?;
                writeln!(
                    out,
                    "filtered event page  {:.1} ms",
                    report.filtered_event_page_ms
                )?;
            }
        }
        Command::Sizes {
            journal,
            from,
            to,
            transport,
            json,
        } => {
            let journal = open(&journal, None)?;
            require(&journal, Dialect::Iterate, "sizes")?;
            let sizes =
                report::context_sizes(&journal, OffsetRange { from, to }, transport.into())?;
            output::sizes(&mut out, &sizes, json)?;
        }
        Command::Report {
            journal,
            from,
            to,
            output: file,
            json,
        } => {
            let journal = open(&journal, None)?;
            let model = report::build(&journal, OffsetRange { from, to })?;
            if json {
                output::json(&mut out, &model)?;
            } else {
                let html = report::html::render(&model);
                match file {
                    Some(file) => {
                        std::fs::write(&file, &html)
                            .with_context(|| format!("cannot write {}", file.display()))?;
                        writeln!(
                            out,
                            "wrote the report of {} ({}, {} events, {} requests) to {} ({} bytes)",
                            model.file_name,
                            model.range.label(),
                            model.events,
                            model.requests.len(),
                            file.display(),
                            html.len()
                        )?;
                    }
                    None => out.write_all(html.as_bytes())?,
                }
            }
        }
        Command::Slice {
            journal,
            from,
            to,
            output: file,
            json,
        } => {
            let journal = open(&journal, None)?;
            let range = OffsetRange { from, to };
            match file {
                Some(file) => {
                    let handle = std::fs::File::create(&file)
                        .with_context(|| format!("cannot write {}", file.display()))?;
                    let mut writer = std::io::BufWriter::new(handle);
                    let outcome = report::slice::write_slice(&journal, range, &mut writer)?;
                    if json {
                        output::json(&mut out, &outcome)?;
                    } else {
                        writeln!(
                            out,
                            "wrote {} events ({} bytes) of {} to {}",
                            outcome.events,
                            outcome.bytes,
                            range.label(),
                            file.display()
                        )?;
                    }
                }
                None if json => bail!("--json describes a slice written with -o FILE"),
                None => {
                    report::slice::write_slice(&journal, range, &mut out)?;
                }
            }
        }
        Command::Turns {
            journal,
            session,
            json,
        } => {
            let journal = open(&journal, None)?;
            require(&journal, Dialect::AgentsKit, "turns")?;
            let report = agentskit::turns(journal.stored_events(), session.as_deref());
            if json {
                output::json(&mut out, &report)?;
            } else {
                write!(out, "{}", agentskit::render_turns_text(&report))?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
