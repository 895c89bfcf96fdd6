//! Text and JSON renderings of each command's answer. Text is for people at a terminal;
//! JSON is the contract other tools and the tests rely on.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;
use serde_json::json;

use journalscope::diagnostic::{Diagnostic, Severity};
use journalscope::journal::Journal;
use journalscope_shapes::text::{diagnostic_line, offset_text};

pub fn json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    // As an io::Error, a closed pipe stays recognisable to `main`, which treats it as success.
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

pub fn import(out: &mut dyn Write, journal: &Journal, as_json: bool) -> Result<()> {
    let info = journal.info()?;
    let by_code: std::collections::BTreeMap<String, u64> =
        journal.diagnostic_codes()?.into_iter().collect();
    if as_json {
        return json(
            out,
            &json!({
                "journal": info.path,
                "db": info.db_path,
                "dialect": info.dialect,
                "framing": info.framing,
                "importKind": info.import_kind,
                "events": info.event_count,
                "firstOffset": info.first_offset,
                "lastOffset": info.last_offset,
                "contract": info.contract.as_ref().map(|c| c.name),
                "contractVersion": info.contract.as_ref().and_then(|c| c.version.clone()),
                "diagnostics": {"errors": info.errors, "warnings": info.warnings, "byCode": by_code},
            }),
        );
    }
    let kind = match info.import_kind {
        journalscope::import::ImportKind::New => "imported",
        journalscope::import::ImportKind::Unchanged => "unchanged, reused",
        journalscope::import::ImportKind::Appended => "grew, appended the new tail of",
        journalscope::import::ImportKind::Replaced => "changed, re-imported",
    };
    writeln!(out, "{kind} {}", info.path)?;
    writeln!(out, "  database   {}", info.db_path)?;
    writeln!(
        out,
        "  dialect    {} ({})",
        info.dialect.as_str(),
        info.framing
    )?;
    if let Some(contract) = &info.contract {
        writeln!(out, "  contract   {}", contract.label())?;
    }
    writeln!(out, "  events     {}", info.event_count)?;
    writeln!(
        out,
        "  offsets    {} … {}",
        offset_text(info.first_offset),
        offset_text(info.last_offset)
    )?;
    writeln!(
        out,
        "  diagnostics {} error(s), {} warning(s)",
        info.errors, info.warnings
    )?;
    for (code, count) in by_code {
        writeln!(out, "    {count:>5} {code}")?;
    }
    Ok(())
}

pub fn events(
    out: &mut dyn Write,
    journal: &Journal,
    from: Option<i64>,
    to: Option<i64>,
    kind: Option<&str>,
    as_json: bool,
) -> Result<()> {
    let rows = journal.list_events(from, to, kind)?;
    if as_json {
        return json(out, &rows);
    }
    for row in rows {
        let kind = row.kind.as_deref().unwrap_or("(no type)");
        let short = kind.rsplit('/').next().unwrap_or(kind);
        let badges = if row.marks.is_empty() {
            String::new()
        } else {
            format!(" [{}]", row.marks.join(","))
        };
        writeln!(
            out,
            "{:>8}  {:<22} {:<24} {}{badges}",
            offset_text(row.offset),
            short,
            row.created_at.as_deref().unwrap_or("-"),
            row.summary
        )?;
    }
    Ok(())
}

pub fn diagnostics(out: &mut dyn Write, diagnostics: &[Diagnostic], as_json: bool) -> Result<()> {
    if as_json {
        return json(out, &diagnostics);
    }
    if diagnostics.is_empty() {
        writeln!(out, "no diagnostics")?;
        return Ok(());
    }
    for d in diagnostics {
        writeln!(out, "{}", diagnostic_line(d))?;
    }
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let advice = match count(Severity::Info) {
        0 => String::new(),
        n => format!(", {n} info"),
    };
    writeln!(
        out,
        "{} error(s), {} warning(s){advice}",
        count(Severity::Error),
        count(Severity::Warning)
    )?;
    Ok(())
}

pub fn search(
    out: &mut dyn Write,
    result: &journalscope::search::SearchResult,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, result);
    }
    let plural = if result.total == 1 { "" } else { "s" };
    writeln!(out, "{} hit{plural}", result.total)?;
    for hit in &result.hits {
        let kind = hit.kind.as_deref().unwrap_or("(no type)");
        let short = kind.rsplit('/').next().unwrap_or(kind);
        let text = hit
            .snippet
            .as_deref()
            .unwrap_or(&hit.summary)
            .replace('\n', " ⏎ ");
        writeln!(
            out,
            "{:>8}  {:<22} {}",
            offset_text(hit.offset),
            short,
            text
        )?;
    }
    if result.truncated {
        writeln!(out, "… {} more", result.total - result.hits.len() as u64)?;
    }
    Ok(())
}

pub fn breakpoint(
    out: &mut dyn Write,
    on: &journalscope::breakpoint::Breakpoint,
    from: Option<i64>,
    forward: bool,
    hit: Option<&journalscope::breakpoint::BreakpointHit>,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(
            out,
            &json!({"breakpoint": on, "from": from, "forward": forward, "hit": hit}),
        );
    }
    let direction = if forward { "forward" } else { "backward" };
    let start = from.map_or_else(
        || {
            if forward {
                "the start".to_string()
            } else {
                "the end".to_string()
            }
        },
        |o| format!("@{o}"),
    );
    match hit {
        Some(hit) => writeln!(
            out,
            "{:>8}  {}  (running {direction} from {start} on {})",
            offset_text(hit.offset),
            hit.note,
            on.describe()
        )?,
        None => writeln!(out, "no {} running {direction} from {start}", on.describe())?,
    }
    Ok(())
}

pub fn bookmarks(
    out: &mut dyn Write,
    bookmarks: &[journalscope::bookmark::Bookmark],
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, &bookmarks);
    }
    if bookmarks.is_empty() {
        writeln!(out, "no bookmarks")?;
    }
    for b in bookmarks {
        writeln!(out, "{:>8}  {}", offset_text(b.offset), b.note)?;
    }
    Ok(())
}

/// The sessions on this machine, newest first.
pub fn sessions(
    out: &mut dyn Write,
    sessions: &[journalscope::transcript::Session],
    places: &[journalscope::transcript::SessionPlace],
    as_json: bool,
) -> Result<()> {
    if as_json {
        return json(out, &sessions);
    }
    if sessions.is_empty() {
        let looked: Vec<String> = places
            .iter()
            .map(|place| format!("{} for {}", place.folder, place.agent))
            .collect();
        writeln!(
            out,
            "no agent sessions found (looked in {})",
            looked.join(", ")
        )?;
        return Ok(());
    }
    for s in sessions {
        let size = if s.bytes >= 1 << 20 {
            format!("{:.1} MiB", s.bytes as f64 / 1048576.0)
        } else {
            format!("{:.0} KiB", s.bytes as f64 / 1024.0)
        };
        writeln!(
            out,
            "{}  {:<11} {:>9}{}  {}",
            s.id,
            s.dialect.as_str(),
            size,
            if s.live { "  live" } else { "" },
            s.project.as_deref().unwrap_or("-")
        )?;
        if let Some(prompt) = &s.first_prompt {
            writeln!(out, "    {prompt}")?;
        }
    }
    Ok(())
}
