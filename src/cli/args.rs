//! The command line's arguments: every command and its options as clap parses them, and the
//! values they take.

use super::*;

/// What the command line reads, from the dialects it knows and the demos they bundle.
fn long_about() -> String {
    let read = journalscope::dialect::described();
    let read = match read.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => read.join(""),
    };
    let demos: Vec<String> = journalscope::journal::Demo::all()
        .into_iter()
        .skip(1)
        .map(|demo| format!("`demo:{}`", demo.name()))
        .collect();
    format!(
        "Inspect agent journals ({read}). <JOURNAL> is a journal file (JSONL, JSON array or \
captured SSE body, optionally gzip-compressed), a database written by `journalscope import`, a \
session id that `journalscope sessions` lists, or `demo` (also {}) for a bundled demo journal.",
        demos.join(", ")
    )
}

#[derive(Parser, Debug)]
#[command(
    name = "journalscope",
    version = journalscope::release::DESCRIPTION,
    about = "Inspect agent journals: replay what the model saw at any offset",
    long_about = long_about()
)]
pub struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
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
        #[arg(long, default_value = Dialect::default().as_str(), value_parser = dialect_arg())]
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
        /// With --imports: append the figures, dated and with this build's version, to FILE as
        /// a Markdown section (the record docs/performance.md keeps); FILE is only appended to.
        #[arg(long, value_name = "FILE", requires = "imports")]
        record: Option<PathBuf>,
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
        #[arg(long, default_value = Dialect::default().as_str(), value_parser = dialect_arg())]
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
    /// The agents' sessions on this machine, newest first: any command takes a listed id in
    /// place of a journal file.
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
    /// A session's turns: AgentsKit's cursor verdict for every line and the lineage tree, or an
    /// AG-UI thread's runs, each with where it started and how it ended.
    Turns {
        journal: String,
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum FormatArg {
    Body,
    Curl,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum TransportArg {
    Openai,
    WorkersAi,
}

/// The iterate contracts `gen` and `bench` write journals of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ContractArg {
    Seed,
    AgentLoop,
}

/// A dialect named on the command line, with the names every dialect answers to.
pub(super) fn dialect_arg() -> impl clap::builder::TypedValueParser<Value = Dialect> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(journalscope::dialect::names())
        .try_map(|name: String| Dialect::parse(&name).ok_or("not a dialect"))
}

pub(super) fn parse_breakpoint(text: &str) -> Result<journalscope::breakpoint::Breakpoint, String> {
    journalscope::breakpoint::Breakpoint::parse(text).map_err(|e| e.to_string())
}
