//! Command definitions and dispatch. Every command takes `<JOURNAL>`: a journal file (imported
//! into its cached database on first use), a database written by `import`, or `demo`.

mod output;
mod prefix;
mod tail;

use journalscope::dialect::Registered as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use journalscope_bench::{self as bench, throughput};

use journalscope::dialect::{Dialect, Step, View};
use journalscope::import::{ImportControl, ImportError, ImportProgress, ImportStage};
use journalscope::iterate::render::{ExportFormat, ExportOptions};
use journalscope::iterate::Transport;
use journalscope::journal::{demo_path, Demo, Journal, JournalError};
use journalscope::report::{self, OffsetRange};
use journalscope::store::StoreError;
use journalscope::{agentskit, agui};

#[derive(Parser, Debug)]
#[command(
    name = "journalscope",
    version = journalscope::release::DESCRIPTION,
    about = "Inspect agent journals: replay what the model saw at any offset",
    long_about = "Inspect agent journals (iterate agent streams, AG-UI event streams, AgentsKit turn \
snapshots, Claude Code sessions and Codex rollouts). <JOURNAL> is a journal file (JSONL, JSON \
array or captured SSE body, optionally gzip-compressed), a database written by `journalscope \
import`, a session id that `journalscope sessions` lists, or `demo` (also `demo:ag-ui`, \
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
        /// The transport whose request shape is rendered (default: openai); a transcript's
        /// requests are shown as their provider got them, and take none.
        #[arg(long, value_enum)]
        transport: Option<TransportArg>,
        #[arg(long)]
        json: bool,
        /// Write the provider body (or, with `--format curl`, the command) to this file.
        /// Secrets in it are redacted unless `--exact`.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Export the provider body or a `curl` command for the transport's endpoint (to
        /// stdout without `-o`). The command reads the API key from an environment variable.
        #[arg(long, value_enum)]
        format: Option<FormatArg>,
        /// Export the body exactly as sent, secrets included.
        #[arg(long, conflicts_with = "redact_paths")]
        exact: bool,
        /// Also redact the value at this JSON path (`/messages/2/content`,
        /// `messages[*].content`); repeatable.
        #[arg(long = "redact-path", value_name = "PATH")]
        redact_paths: Vec<String>,
    },
    /// Every diagnostic, in file order.
    Diagnostics {
        journal: String,
        #[arg(long)]
        json: bool,
    },
    /// The view at offset N in the journal's own shape: an iterate projection, an AG-UI
    /// thread's state and messages after events 1..=N, the snapshot an AgentsKit cursor holds.
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
    /// Time import, views, reopening and appends on a generated journal of any dialect against
    /// the targets in docs/performance.md.
    Bench {
        /// The dialect of the generated journal.
        #[arg(long, default_value = "iterate", value_parser = dialect_arg())]
        dialect: Dialect,
        /// Events in the generated journal.
        #[arg(long, default_value_t = 100_000)]
        events: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The contract a generated iterate journal follows: `seed`, or `agent-loop` (iterate's
        /// agent loop, contract "agent" v16). Iterate only.
        #[arg(long, value_enum)]
        contract: Option<ContractArg>,
        /// Directory for the generated journal and its database (default: a temporary one).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Also time `jq -c .` and the `sqlite3` shell's `.import` on the same file.
        #[arg(long)]
        compare: bool,
        /// Time only the import of every dialect's journal, each beside the floors measured in
        /// the same run: reading the file, storing its lines in SQLite unparsed, and `jq -c .`.
        #[arg(long, conflicts_with_all = ["dialect", "contract", "compare"])]
        imports: bool,
        #[arg(long)]
        json: bool,
    },
    /// `bench` runs the import in this child so the peak memory it reads is the import's own.
    #[command(hide = true)]
    BenchImport {
        file: PathBuf,
        #[arg(long)]
        db: PathBuf,
    },
    /// Write a deterministic, realistic journal (same seed, same bytes) for benchmarks and demos.
    Gen {
        /// Events to write.
        #[arg(long, default_value_t = 100_000)]
        events: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "iterate", value_parser = dialect_arg())]
        dialect: Dialect,
        /// The contract an iterate journal follows: `seed` (keyed slots, request stamps,
        /// compactions), or `agent-loop` (iterate's agent loop, contract "agent" v16: sections,
        /// model responses with `run` calls, their scripts' results, idle summaries). Iterate
        /// only.
        #[arg(long, value_enum)]
        contract: Option<ContractArg>,
        /// File to write (`-` for standard output).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Context size of every request by lane (system, history, compaction summary), with
    /// compactions and prefix breaks. For a Claude Code or Codex transcript: the context each
    /// response reported (input, cache write and cache read tokens), with cache breaks.
    Sizes {
        journal: String,
        #[arg(long)]
        from: Option<i64>,
        #[arg(long)]
        to: Option<i64>,
        /// The transport whose request shape is rendered (default: openai); a transcript's
        /// requests are shown as their provider got them, and take none.
        #[arg(long, value_enum)]
        transport: Option<TransportArg>,
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
    /// Follow a growing journal file or a remote stream, printing events as they land.
    Tail(tail::TailArgs),
    /// Print the completion script for a shell (`journalscope completions bash > …`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (journalscope.1 and one page per command) into a directory.
    #[command(hide = true)]
    Manpages { dir: PathBuf },
    /// Two requests side by side: common prefix, first difference, why the prefix broke. For an
    /// iterate agent-loop journal: the Responses-API input items and the body's other fields,
    /// the field that differs and where the cache breakpoint sits. For a Claude Code or Codex
    /// transcript: the messages as the provider got them, and why the later request missed the
    /// prompt cache.
    Diff {
        journal: String,
        /// The earlier request (default: the request before --to).
        #[arg(long)]
        from: Option<i64>,
        /// The later request (default: the last request).
        #[arg(long)]
        to: Option<i64>,
        /// The transport whose request shape is rendered (default: openai); a transcript's
        /// requests are shown as their provider got them, and take none.
        #[arg(long, value_enum)]
        transport: Option<TransportArg>,
        /// Render --from on this transport instead of --transport.
        #[arg(long, value_enum)]
        from_transport: Option<TransportArg>,
        /// Render --to on this transport instead of --transport.
        #[arg(long, value_enum)]
        to_transport: Option<TransportArg>,
        #[arg(long)]
        json: bool,
    },
    /// Prefix stability: each request's cached prefix against the ideal, breaks explained (an
    /// iterate agent-loop journal's by its input items, the ideal being every item of the
    /// request before). For a Claude Code or Codex transcript: each request's reported cache
    /// reads against what the request before it left, each miss explained (compaction, rewind,
    /// model change, expiry).
    Cache {
        journal: String,
        /// Only the requests at or after this offset (the first is still set against the
        /// request before it).
        #[arg(long)]
        from: Option<i64>,
        /// Only the requests at or before this offset.
        #[arg(long)]
        to: Option<i64>,
        /// The transport whose request shape is rendered (default: openai); a transcript's
        /// requests are shown as their provider got them, and take none.
        #[arg(long, value_enum)]
        transport: Option<TransportArg>,
        #[arg(long)]
        json: bool,
    },
    /// Search event text (any substring of a JSON string value, or of a line that is not
    /// JSON), with filters.
    Search {
        journal: String,
        /// Text to find (ignoring the case of ASCII letters); "" to list everything the
        /// filters keep.
        query: String,
        /// Only events of this type (full type or its last segment); repeatable.
        #[arg(long = "type")]
        kind: Vec<String>,
        #[arg(long, value_parser = ["system", "developer", "user", "assistant"])]
        role: Option<String>,
        /// The actor's type: user, github, script, agent, …
        #[arg(long)]
        actor: Option<String>,
        #[arg(long)]
        key: Option<String>,
        #[arg(long, value_parser = ["system", "history"])]
        lane: Option<String>,
        /// Items published (or not) by the end of the journal, or by --at.
        #[arg(long, value_parser = ["yes", "no"])]
        published: Option<String>,
        #[arg(long)]
        at: Option<i64>,
        /// Hits to list (all of them are counted).
        #[arg(long, default_value_t = journalscope::search::DEFAULT_HIT_LIMIT)]
        limit: u64,
        #[arg(long)]
        json: bool,
    },
    /// Run one read-only SQL query over the journal's views (events, requests, compactions,
    /// diagnostics, marks, bookmarks, items).
    Sql {
        journal: String,
        query: String,
        /// The offset whose projection fills `items` (default: the end).
        #[arg(long)]
        at: Option<i64>,
        #[arg(long, default_value_t = journalscope::console::DEFAULT_MAX_ROWS)]
        max_rows: u64,
        #[arg(long)]
        json: bool,
    },
    /// Run from an offset to the next (or previous) event a breakpoint stops at.
    Break {
        journal: String,
        /// Start here (the event at or before this offset); default: the start, or the end
        /// with --backward.
        #[arg(long)]
        from: Option<i64>,
        /// request | compaction | downgrade[:TRANSPORT] | key:KEY | diagnostic |
        /// prefix-shrinks[:TRANSPORT] | sql:PREDICATE
        #[arg(long, value_parser = parse_breakpoint)]
        on: journalscope::breakpoint::Breakpoint,
        #[arg(long)]
        backward: bool,
        #[arg(long)]
        json: bool,
    },
    /// List bookmarks, or add (or edit) one at an offset.
    Bookmarks {
        journal: String,
        #[arg(long, requires = "note")]
        add: Option<i64>,
        #[arg(long)]
        note: Option<String>,
        #[arg(long, conflicts_with = "add")]
        remove: Option<i64>,
        #[arg(long)]
        json: bool,
    },
    /// The Claude Code and Codex sessions on this machine, newest first: any command takes a
    /// listed id in place of a journal file.
    Sessions {
        #[arg(long)]
        json: bool,
    },
    /// The subagents a session ran: the call that spawned each, the result the session got
    /// back, and the agent's own transcript (a file any command opens, or the line where an
    /// inline one starts); for a subagent's own transcript, the session that ran it.
    Subagents {
        journal: String,
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
enum FormatArg {
    Body,
    Curl,
}

impl From<FormatArg> for ExportFormat {
    fn from(value: FormatArg) -> Self {
        match value {
            FormatArg::Body => ExportFormat::Body,
            FormatArg::Curl => ExportFormat::Curl,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TransportArg {
    Openai,
    WorkersAi,
}

/// What an export did to secrets, for the line that confirms it.
fn redaction_note(export: &journalscope::iterate::render::RequestExport) -> String {
    match (export.redacted, export.secrets) {
        (false, _) => "exact bytes".to_string(),
        (true, 1) => "1 secret redacted".to_string(),
        (true, n) => format!("{n} secrets redacted"),
    }
}

/// A transcript's requests are what its provider got: a transport named for one is refused
/// rather than ignored.
fn no_transport(transport: Option<TransportArg>) -> Result<()> {
    if transport.is_some() {
        bail!("a transcript's requests are shown as their provider got them: --transport does not apply");
    }
    Ok(())
}

/// A dialect named on the command line, with the names every dialect answers to.
/// The iterate contracts `gen` and `bench` write journals of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ContractArg {
    Seed,
    AgentLoop,
}

/// The contract a generated journal follows: what `--contract` names, for iterate only.
fn generated_contract(
    dialect: Dialect,
    contract: Option<ContractArg>,
) -> Result<journalscope_gen::ContractName> {
    use journalscope_gen::ContractName;
    let asked = contract.map(|contract| match contract {
        ContractArg::Seed => ContractName::Seed,
        ContractArg::AgentLoop => ContractName::AgentLoop,
    });
    journalscope_gen::contract_for(dialect, asked).with_context(|| {
        format!(
            "--contract chooses one of iterate's contracts; {} journals have one shape",
            dialect.as_str()
        )
    })
}

fn dialect_arg() -> impl clap::builder::TypedValueParser<Value = Dialect> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(journalscope::dialect::names())
        .try_map(|name: String| Dialect::parse(&name).ok_or("not a dialect"))
}

impl From<TransportArg> for Transport {
    fn from(value: TransportArg) -> Self {
        match value {
            TransportArg::Openai => Transport::Openai,
            TransportArg::WorkersAi => Transport::WorkersAi,
        }
    }
}

fn parse_breakpoint(text: &str) -> Result<journalscope::breakpoint::Breakpoint, String> {
    journalscope::breakpoint::Breakpoint::parse(text).map_err(|e| e.to_string())
}

/// The event with exactly this offset.
fn seq_at(journal: &Journal, offset: i64) -> Result<u64> {
    match journal.seq_of_offset(offset)? {
        Some(seq) if journal.event(seq)?.offset == Some(offset) => Ok(seq),
        _ => bail!("no event at @{offset}"),
    }
}

/// A progress bar on a terminal, nothing otherwise (so pipes and tests stay clean).
fn progress_bar(template: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// Opens a journal (importing it first when it is a journal file): every command answers from
/// the store.
fn open(journal: &str, db: Option<&Path>) -> Result<Journal> {
    let bar = progress_bar("importing {bar:40} {bytes}/{total_bytes} {msg}");
    let mut report = |p: ImportProgress| {
        if let Some(bar) = &bar {
            bar.set_length(p.total_bytes);
            bar.set_position(p.done_bytes);
            bar.set_message(match p.stage {
                ImportStage::Storing => format!("{} events", p.events),
                ImportStage::Folding => {
                    format!("analysing {} of {} events", p.analysed, p.events)
                }
                ImportStage::Saving => format!("saving the analysis of {} events", p.events),
            });
        }
    };
    let mut control = ImportControl {
        progress: &mut report,
        cancel: None,
    };
    let opened = match Demo::from_argument(journal) {
        Some(demo) if !Path::new(journal).is_file() => {
            demo_path(demo).and_then(|path| Journal::open(&path, None, &mut control))
        }
        // A session id that `sessions` lists.
        _ if !Path::new(journal).exists() => match journalscope::dialect::session_file(journal) {
            Some(path) => Journal::open(&path, db, &mut control),
            None => Journal::open(Path::new(journal), db, &mut control),
        },
        _ => Journal::open(Path::new(journal), db, &mut control),
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    opened.with_context(|| format!("cannot open {journal}"))
}

/// The exit status of a failed command, as docs/guarantees.md documents it: 3 for a file
/// that is not a journal at all, 4 for a database written by a newer Journalscope, 1 otherwise
/// (clap itself exits 2 for a bad argument).
pub fn exit_code(err: &anyhow::Error) -> u8 {
    // `#[error(transparent)]` wrappers hide their inner error from the source chain, so each
    // layer is looked at by type.
    for cause in err.chain() {
        let code = match cause.downcast_ref::<JournalError>() {
            Some(JournalError::Import(inner)) => Some(import_exit_code(inner)),
            Some(JournalError::Store(inner)) => Some(store_exit_code(inner)),
            Some(_) => Some(1),
            None => cause
                .downcast_ref::<ImportError>()
                .map(import_exit_code)
                .or_else(|| cause.downcast_ref::<StoreError>().map(store_exit_code)),
        };
        if let Some(code) = code {
            return code;
        }
    }
    1
}

fn import_exit_code(err: &ImportError) -> u8 {
    match err {
        ImportError::NotAJournal { .. } => 3,
        ImportError::Store(inner) => store_exit_code(inner),
        _ => 1,
    }
}

fn store_exit_code(err: &StoreError) -> u8 {
    match err {
        StoreError::TooNew { .. } => 4,
        _ => 1,
    }
}

/// The command tree without its hidden commands, which some shells' completion generators
/// would offer anyway: they are for the binary itself, not for people to type.
fn typed_commands() -> clap::Command {
    let full = <Cli as clap::CommandFactory>::command();
    let visible: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    clap::Command::new("journalscope")
        .version(journalscope::release::DESCRIPTION)
        .about(full.get_about().cloned().unwrap_or_default())
        .args(full.get_arguments().cloned())
        .subcommands(visible)
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
            if journal.dialect().offers(View::Conversation) {
                match journal.step_at(at, None)? {
                    Step::Conversation(view) => output::conversation(&mut out, &view, json)?,
                    _ => bail!("the journal's view at @{at} is no conversation"),
                }
            } else {
                let view = journal.projection(at)?;
                output::projection(&mut out, &view, json)?;
            }
        }
        Command::Requests { journal, json } => {
            let journal = open(&journal, None)?;
            if journal.dialect().offers(View::Conversation) {
                let requests = journal.conversation_requests()?;
                output::conversation_requests(&mut out, &requests, json)?;
            } else {
                let requests = journal.requests()?;
                output::requests(&mut out, &requests, json)?;
            }
        }
        Command::Request {
            journal,
            at,
            transport,
            json,
            output: file,
            format,
            exact,
            redact_paths,
        } => {
            let journal = open(&journal, None)?;
            if journal.dialect().offers(View::Conversation) {
                no_transport(transport)?;
                if matches!(format, Some(FormatArg::Curl)) {
                    bail!(
                        "a transcript does not record the system prompt or the tools, so no curl \
                         command would send its request again: export the body with -o"
                    );
                }
                let request = journal.conversation_request(at)?;
                if file.is_none() && format.is_none() {
                    output::conversation_request(&mut out, &request, json)?;
                    out.flush()?;
                    return Ok(());
                }
                let export = request.export(exact, &redact_paths)?;
                let Some(file) = file else {
                    out.write_all(&export.bytes)?;
                    out.flush()?;
                    return Ok(());
                };
                std::fs::write(&file, &export.bytes)
                    .with_context(|| format!("cannot write {}", file.display()))?;
                writeln!(
                    out,
                    "wrote the body of request @{at} to {} ({})",
                    file.display(),
                    redaction_note(&export)
                )?;
                out.flush()?;
                return Ok(());
            }
            let transport = transport.unwrap_or(TransportArg::Openai).into();
            let snapshot = journal.request(at, transport)?;
            if file.is_none() && format.is_none() {
                output::request(&mut out, &snapshot, json)?;
                out.flush()?;
                return Ok(());
            }
            let options = ExportOptions {
                format: format.map(ExportFormat::from).unwrap_or_default(),
                exact,
                redact_paths,
            };
            let export = snapshot.export(&options)?;
            let Some(file) = file else {
                out.write_all(&export.bytes)?;
                out.flush()?;
                return Ok(());
            };
            std::fs::write(&file, &export.bytes)
                .with_context(|| format!("cannot write {}", file.display()))?;
            if json {
                output::request(&mut out, &snapshot, json)?;
            } else {
                let what = match options.format {
                    ExportFormat::Body => "body",
                    ExportFormat::Curl => "curl command",
                };
                writeln!(
                    out,
                    "wrote the {} {what} of request @{at} to {} ({})",
                    snapshot.transport.as_str(),
                    file.display(),
                    redaction_note(&export)
                )?;
            }
        }
        Command::Gen {
            events,
            seed,
            dialect,
            contract,
            output: file,
        } => {
            let options = journalscope_gen::GenOptions {
                dialect,
                events,
                seed,
                contract: generated_contract(dialect, contract)?,
            };
            if file.as_os_str() == "-" {
                journalscope_gen::write_journal(&mut out, &options)?;
            } else {
                let handle = std::fs::File::create(&file)
                    .with_context(|| format!("cannot create {}", file.display()))?;
                let mut writer = std::io::BufWriter::with_capacity(1 << 20, handle);
                let summary = journalscope_gen::write_journal(&mut writer, &options)
                    .and_then(|summary| writer.flush().map(|()| summary))
                    .with_context(|| format!("cannot write {}", file.display()))?;
                writeln!(
                    out,
                    "wrote {} {} events ({:.1} MiB, {} requests, {} compactions) to {}",
                    summary.events,
                    options.dialect.as_str(),
                    summary.bytes as f64 / 1048576.0,
                    summary.requests,
                    summary.compactions,
                    file.display()
                )?;
            }
        }
        Command::Tail(args) => tail::run_cli(args, &mut out)?,
        Command::Completions { shell } => {
            let mut command = typed_commands();
            clap_complete::generate(shell, &mut command, "journalscope", &mut out);
        }
        Command::Manpages { dir } => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            let command = <Cli as clap::CommandFactory>::command();
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("writing manual pages into {}", dir.display()))?;
        }
        Command::Sessions { json } => {
            output::sessions(&mut out, &journalscope::dialect::sessions(), json)?;
        }
        Command::Subagents { journal, json } => {
            let journal = open(&journal, None)?;
            let subagents = journal.subagents()?;
            if json {
                output::json(&mut out, &subagents)?;
            } else {
                output::spawned_by(&mut out, journal.spawned_by()?.as_ref())?;
                output::subagents(&mut out, &subagents)?;
            }
        }
        Command::Diagnostics { journal, json } => {
            let journal = open(&journal, None)?;
            output::diagnostics(&mut out, &journal.diagnostics()?, json)?;
        }
        Command::State {
            journal,
            at,
            session,
            json,
        } => {
            let journal = open(&journal, None)?;
            let step = journal.step_at(at, session.as_deref())?;
            if json {
                output::json(&mut out, &step)?;
            } else {
                match &step {
                    Step::Projection(view) => output::projection(&mut out, view, false)?,
                    Step::Conversation(view) => output::conversation(&mut out, view, false)?,
                    Step::Thread(state) => write!(out, "{}", agui::render_state_text(state))?,
                    Step::Snapshot(state) => {
                        write!(out, "{}", agentskit::render_state_text(state))?
                    }
                }
            }
        }
        Command::Bench {
            dialect,
            events,
            seed,
            contract,
            dir,
            compare,
            imports,
            json,
        } => {
            let dir = dir.unwrap_or_else(|| std::env::temp_dir().join("journalscope-bench"));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let exe = std::env::current_exe().context("cannot find the journalscope binary")?;
            let options = bench::BenchOptions {
                dialect,
                events,
                seed,
                contract: generated_contract(dialect, contract)?,
                dir,
                compare,
                exe,
            };
            if imports {
                let report = throughput::run(&options)?;
                if json {
                    output::json(&mut out, &report)?;
                } else {
                    write!(out, "{}", throughput::render_text(&report))?;
                }
            } else {
                let report = bench::run(&options)?;
                if json {
                    output::json(&mut out, &report)?;
                } else {
                    write!(out, "{}", bench::render_text(&report))?;
                }
            }
        }
        Command::Diff {
            journal,
            from,
            to,
            transport,
            from_transport,
            to_transport,
            json,
        } => {
            let journal = open(&journal, None)?;
            if journal.dialect().offers(View::Conversation) {
                if from_transport.is_some() || to_transport.is_some() {
                    bail!(
                        "a transcript's requests are diffed as their provider got them: \
                         --from-transport and --to-transport do not apply"
                    );
                }
                no_transport(transport)?;
                let to = match to {
                    Some(to) => to,
                    None => match journal.last_conversation_request()? {
                        Some(last) => last,
                        None => bail!("the transcript has no requests to diff"),
                    },
                };
                let diff = journal.transcript_diff(from, to)?;
                if json {
                    output::json(&mut out, &diff)?;
                } else {
                    prefix::transcript_diff(&mut out, &diff)?;
                }
                out.flush()?;
                return Ok(());
            }
            let to = match to {
                Some(to) => to,
                None => match journal.last_request()? {
                    Some(last) => last,
                    None => bail!("the journal has no requests to diff"),
                },
            };
            let transport = transport.unwrap_or(TransportArg::Openai);
            let from_transport: Transport = from_transport.unwrap_or(transport).into();
            let to_transport: Transport = to_transport.unwrap_or(transport).into();
            let diff = journal.request_diff(from, to, (from_transport, to_transport))?;
            if json {
                output::json(&mut out, &diff)?;
            } else {
                prefix::diff(&mut out, &diff)?;
            }
        }
        Command::Cache {
            from,
            to,
            journal,
            transport,
            json,
        } => {
            let journal = open(&journal, None)?;
            if journal.dialect().offers(View::Conversation) {
                no_transport(transport)?;
                let report = journal.transcript_cache((from, to))?;
                if json {
                    output::json(&mut out, &report)?;
                } else {
                    prefix::transcript_cache(&mut out, &report)?;
                }
            } else {
                let transport = transport.unwrap_or(TransportArg::Openai).into();
                let report = journal.cache_report_range(transport, (from, to))?;
                if json {
                    output::json(&mut out, &report)?;
                } else {
                    prefix::cache(&mut out, &report)?;
                }
            }
        }
        Command::Search {
            journal,
            query,
            kind,
            role,
            actor,
            key,
            lane,
            published,
            at,
            limit,
            json,
        } => {
            let journal = open(&journal, None)?;
            let search = journalscope::search::SearchQuery {
                text: Some(query),
                types: kind,
                role,
                actor,
                key,
                lane,
                published: published.map(|p| p == "yes"),
                at,
                limit: Some(limit),
            };
            let result = journal.search(&search)?;
            output::search(&mut out, &result, json)?;
        }
        Command::Sql {
            journal,
            query,
            at,
            max_rows,
            json,
        } => {
            let journal = open(&journal, None)?;
            let console = journalscope::console::ConsoleQuery {
                sql: query,
                at,
                max_rows: Some(max_rows),
                timeout_ms: None,
            };
            let result = journal.sql(&console)?;
            if json {
                output::json(&mut out, &result)?;
            } else {
                write!(out, "{}", journalscope::console::render_table(&result))?;
            }
        }
        Command::Break {
            journal,
            from,
            on,
            backward,
            json,
        } => {
            let journal = open(&journal, None)?;
            let start = match from {
                Some(offset) => journal.seq_of_offset(offset)?,
                None => None,
            };
            let hit = on.run(&journal, start, !backward)?;
            output::breakpoint(&mut out, &on, from, !backward, hit.as_ref(), json)?;
        }
        Command::Bookmarks {
            journal,
            add,
            note,
            remove,
            json,
        } => {
            let journal = open(&journal, None)?;
            if let (Some(offset), Some(note)) = (add, note.as_deref()) {
                journal.set_bookmark(seq_at(&journal, offset)?, note)?;
            }
            if let Some(offset) = remove {
                if !journal.remove_bookmark(seq_at(&journal, offset)?)? {
                    bail!("no bookmark at @{offset}");
                }
            }
            output::bookmarks(&mut out, &journal.bookmarks()?, json)?;
        }
        Command::BenchImport { file, db } => {
            let report = bench::child_import(&file, &db)
                .with_context(|| format!("cannot import {}", file.display()))?;
            output::json(&mut out, &report)?;
        }
        Command::Sizes {
            journal,
            from,
            to,
            transport,
            json,
        } => {
            let journal = open(&journal, None)?;
            if journal.dialect().offers(View::Conversation) {
                no_transport(transport)?;
                let report = journal.transcript_cache((from, to))?;
                if json {
                    output::json(&mut out, &report)?;
                } else {
                    prefix::transcript_sizes(&mut out, &report)?;
                }
                out.flush()?;
                return Ok(());
            }
            let range = OffsetRange { from, to };
            let transport = transport.unwrap_or(TransportArg::Openai).into();
            let sizes = report::context_sizes(&journal, range, transport)?;
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
            let range = OffsetRange { from, to };
            let model = report::build(&journal, range)?;
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
                            model
                                .prompt_cache
                                .as_ref()
                                .map_or(model.requests.len(), |c| c.requests.len()),
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
            let report = journal.agentskit_turns(session.as_deref())?;
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
