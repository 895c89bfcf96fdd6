//! Command definitions and dispatch. Every command takes `<JOURNAL>`: a journal file (imported
//! into its cached database on first use), a database written by `import`, or `demo`.

mod args;
mod output;
mod prefix;
mod tail;

use journalscope::dialect::Registered as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
pub use args::Cli;
use args::{Command, ContractArg, FormatArg, TransportArg};
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
