//! Command definitions and dispatch. Every command takes `<JOURNAL>`: a journal file (imported
//! into its cached database on first use), a database written by `import`, or `demo`.

mod args;
mod output;
mod tail;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
pub use args::Cli;
use args::{Command, ContractArg, FormatArg, TransportArg};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use journalscope_bench::{self as bench, throughput};

use journalscope::dialect::{Ask, BodyFormat, Dialect, Reply, Transports};
use journalscope::import::{ImportControl, ImportError, ImportProgress, ImportStage};
use journalscope::journal::{demo_path, Demo, Journal, JournalError};
use journalscope::report::{self, OffsetRange};
use journalscope::store::StoreError;

/// A transport as the dialects name it: the name `--transport` takes.
fn transport_name(transport: Option<TransportArg>) -> Option<String> {
    transport
        .and_then(|transport| transport.to_possible_value())
        .map(|value| value.get_name().to_string())
}

/// Adds `bytes` at the end of `file`, creating it if need be: a record the user keeps is only
/// ever added to.
fn append(file: &Path, bytes: &[u8]) -> Result<()> {
    let mut handle = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .with_context(|| format!("cannot open {} to append to it", file.display()))?;
    handle
        .write_all(bytes)
        .with_context(|| format!("cannot append to {}", file.display()))
}

/// A view as asked: its JSON with `--json`, else the text its dialect wrote.
fn print_view(out: &mut dyn Write, reply: Reply, json: bool) -> Result<()> {
    let Reply::View(answer) = reply else {
        bail!("the journal answered with a body, not a view");
    };
    if json {
        output::json(out, &answer.json)
    } else {
        out.write_all(answer.text.as_bytes())?;
        Ok(())
    }
}

/// The contract a generated journal follows: what `--contract` names, where the dialect has
/// contracts.
fn generated_contract(
    dialect: Dialect,
    contract: Option<ContractArg>,
) -> Result<journalscope_gen::ContractName> {
    use journalscope_gen::ContractName;
    let asked = contract.map(|contract| match contract {
        ContractArg::Seed => ContractName::Seed,
        ContractArg::AgentLoop => ContractName::AgentLoop,
    });
    journalscope_gen::contract_for(dialect, asked).map_err(anyhow::Error::msg)
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
            let answer = journal.answer(&Ask::Projection { at })?;
            print_view(&mut out, answer, json)?;
        }
        Command::Requests { journal, json } => {
            let journal = open(&journal, None)?;
            print_view(&mut out, journal.answer(&Ask::Requests)?, json)?;
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
            let transports = Transports::one(transport_name(transport));
            if file.is_none() && format.is_none() {
                let answer = journal.answer(&Ask::Request { at, transports })?;
                print_view(&mut out, answer, json)?;
                out.flush()?;
                return Ok(());
            }
            let ask = Ask::Body {
                at,
                transports,
                format: match format {
                    Some(FormatArg::Curl) => BodyFormat::Curl,
                    Some(FormatArg::Body) | None => BodyFormat::Body,
                },
                exact,
                redact_paths,
            };
            let body = match journal.answer(&ask)? {
                Reply::Body(body) => body,
                Reply::View(_) => bail!("the journal answered with a view, not a body"),
            };
            let Some(file) = file else {
                out.write_all(&body.bytes)?;
                out.flush()?;
                return Ok(());
            };
            std::fs::write(&file, &body.bytes)
                .with_context(|| format!("cannot write {}", file.display()))?;
            if json {
                output::json(&mut out, &body.request.json)?;
            } else {
                writeln!(
                    out,
                    "wrote the {} of request @{at} to {} ({})",
                    body.what,
                    file.display(),
                    body.redaction_note()
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
            output::sessions(
                &mut out,
                &journalscope::dialect::sessions(),
                &journalscope::dialect::session_places(),
                json,
            )?;
        }
        Command::Subagents { journal, json } => {
            let journal = open(&journal, None)?;
            print_view(&mut out, journal.answer(&Ask::Subagents)?, json)?;
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
            let answer = journal.answer(&Ask::State { at, session })?;
            print_view(&mut out, answer, json)?;
        }
        Command::Bench {
            dialect,
            events,
            seed,
            contract,
            dir,
            compare,
            imports,
            record,
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
                if let Some(file) = &record {
                    let section = throughput::render_record(
                        &report,
                        std::time::SystemTime::now(),
                        &format!("journalscope {}", journalscope::release::DESCRIPTION),
                    );
                    append(file, section.as_bytes())?;
                }
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
            let transports = Transports {
                both: transport_name(transport),
                from: transport_name(from_transport),
                to: transport_name(to_transport),
            };
            let answer = journal.answer(&Ask::Diff {
                from,
                to,
                transports,
            })?;
            print_view(&mut out, answer, json)?;
        }
        Command::Cache {
            from,
            to,
            journal,
            transport,
            json,
        } => {
            let journal = open(&journal, None)?;
            let answer = journal.answer(&Ask::Cache {
                range: (from, to),
                transports: Transports::one(transport_name(transport)),
            })?;
            print_view(&mut out, answer, json)?;
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
            let answer = journal.answer(&Ask::Sizes {
                range: (from, to),
                transports: Transports::one(transport_name(transport)),
            })?;
            print_view(&mut out, answer, json)?;
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
            let answer = journal.answer(&Ask::Turns { session })?;
            print_view(&mut out, answer, json)?;
        }
    }
    out.flush()?;
    Ok(())
}
