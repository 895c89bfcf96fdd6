//! The views as the user pays for them: at random offsets and reopened, each as a whole process;
//! search; an append taken in; and for iterate journals, its views in one process as the window
//! asks for them.

use super::*;

/// Samples the view command takes at most, and the time it may take for them: a dialect whose
/// view folds from the start is measured on fewer offsets instead of for minutes.
const VIEW_SAMPLES: usize = 100;
const VIEW_BUDGET: std::time::Duration = std::time::Duration::from_secs(60);

/// Events appended for the append figure.
const APPEND_EVENTS: u64 = 1_000;

/// Collects what a writer writes after its first `skip` bytes.
struct After {
    skip: u64,
    kept: Vec<u8>,
}

impl std::io::Write for After {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let dropped = self.skip.min(buf.len() as u64) as usize;
        self.skip -= dropped as u64;
        self.kept.extend_from_slice(&buf[dropped..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What every dialect is held to: import cost at a tenth of the size, the view at random
/// offsets as a whole process, reopening, the database's size and its checkpoints' share, and
/// an append. The append is measured last: it grows the journal file for the time it takes,
/// then cuts it back to what it was.
pub(crate) fn scale_figures(
    options: &BenchOptions,
    journal_path: &Path,
    db_path: &Path,
    import_ms: f64,
    file_bytes: u64,
    database_bytes: u64,
) -> Result<ScaleFigures, BenchError> {
    let small_events = (options.events / 10).max(1);
    let (small_path, _) = generated(options, small_events)?;
    let small_db = options.dir.join("bench-small.sqlite");
    let (small_import_ms, _) = import_in_child(options, &small_path, &small_db)?;
    remove_database(&small_db);
    let cost_per_event_ratio =
        (import_ms / options.events.max(1) as f64) / (small_import_ms / small_events as f64);

    let mut quiet = |_| {};
    let start = Instant::now();
    let journal = Journal::open(
        db_path,
        None,
        &mut ImportControl {
            progress: &mut quiet,
            cancel: None,
        },
    )?;
    let _ = journal.events_page(&EventQuery::default())?;
    let middle = journal.event_count() / 2;
    let at = journal.offset_at_seq(middle)?.unwrap_or(0);
    drop(journal.answer(&Ask::State { at, session: None })?);
    // The window shows a thread's runs, or a session's turns, as it opens.
    if journal.answers(Family::Turns) {
        drop(journal.answer(&Ask::Turns { session: None })?);
    }
    let reopen_ms = ms(start);
    let info = journal.info()?;
    let checkpoint_bytes = journal
        .store()
        .checkpoint_bytes(journal.row().id)
        .map_err(JournalError::from)?;
    drop(journal);

    let (first, last) = (
        info.first_offset.unwrap_or(0),
        info.last_offset.unwrap_or(0),
    );
    let command = "state";
    let mut rng = Rng::new(options.seed ^ 0x5eed);
    let mut samples = Vec::with_capacity(VIEW_SAMPLES);
    let budget = Instant::now();
    while samples.len() < VIEW_SAMPLES && budget.elapsed() < VIEW_BUDGET {
        let at = first + rng.range(0, (last - first + 1).max(1) as u64) as i64;
        let start = Instant::now();
        let status = Command::new(&options.exe)
            .arg(command)
            .arg(db_path)
            .arg("--at")
            .arg(at.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|source| BenchError::Spawn {
                exe: options.exe.clone(),
                source,
            })?;
        if !status.success() {
            return Err(BenchError::Child(format!("{command} --at {at} failed")));
        }
        samples.push(ms(start));
    }
    samples.sort_by(f64::total_cmp);

    let needle = gen::search_text(options.dialect, options.contract);
    settle();
    let (search_page_ms, search_hits) = time_search(options, db_path, needle, SEARCH_PAGE)?;
    let (search_all_ms, _) = time_search(options, db_path, needle, u64::MAX)?;

    // The events that follow the journal: the generator cuts one stream, so the longer
    // journal's bytes after this one's are its continuation.
    let mut after = After {
        skip: file_bytes,
        kept: Vec::new(),
    };
    gen::write_journal(
        &mut after,
        &GenOptions {
            dialect: options.dialect,
            events: options.events + APPEND_EVENTS,
            seed: options.seed,
            contract: options.contract,
        },
    )
    .map_err(|source| BenchError::Write {
        path: journal_path.to_path_buf(),
        source,
    })?;
    let grow = |bytes: &[u8], len: Option<u64>| -> Result<(), BenchError> {
        let write = |source| BenchError::Write {
            path: journal_path.to_path_buf(),
            source,
        };
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(journal_path)
            .map_err(write)?;
        match len {
            Some(len) => file.set_len(len).map_err(write),
            None => std::io::Write::write_all(&mut file, bytes).map_err(write),
        }
    };
    grow(&after.kept, None)?;
    settle();
    let start = Instant::now();
    let appended = Command::new(&options.exe)
        .arg("import")
        .arg(journal_path)
        .arg("--db")
        .arg(db_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let append_ms = ms(start);
    // The generated journal is reused by later runs: it goes back to its own length whatever
    // the import did.
    grow(&[], Some(file_bytes))?;
    let appended = appended.map_err(|source| BenchError::Spawn {
        exe: options.exe.clone(),
        source,
    })?;
    if !appended.status.success() {
        return Err(BenchError::Child(
            String::from_utf8_lossy(&appended.stderr).into_owned(),
        ));
    }

    Ok(ScaleFigures {
        small_events,
        small_import_ms,
        cost_per_event_ratio,
        view_command: format!("journalscope {command} DB --at OFFSET"),
        view_samples: samples.len() as u64,
        view_p50_ms: percentile(&samples, 50.0),
        view_p99_ms: percentile(&samples, 99.0),
        reopen_ms,
        database_bytes,
        database_to_journal: database_bytes as f64 / file_bytes.max(1) as f64,
        checkpoint_bytes,
        checkpoint_share: checkpoint_bytes as f64 / database_bytes.max(1) as f64,
        append_events: APPEND_EVENTS,
        append_ms,
        search_text: needle.to_string(),
        search_hits,
        search_page_ms,
        search_all_ms,
    })
}

/// Hits a window's first page of search results lists.
const SEARCH_PAGE: u64 = 100;

/// `journalscope search DB TEXT --json --limit N` as a whole process, its output read and
/// dropped: how long it took, and how many hits it counted.
pub(crate) fn time_search(
    options: &BenchOptions,
    db_path: &Path,
    needle: &str,
    limit: u64,
) -> Result<(f64, u64), BenchError> {
    let start = Instant::now();
    let output = Command::new(&options.exe)
        .arg("search")
        .arg(db_path)
        .arg(needle)
        .arg("--json")
        .arg("--limit")
        .arg(limit.to_string())
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|source| BenchError::Spawn {
            exe: options.exe.clone(),
            source,
        })?;
    let took = ms(start);
    if !output.status.success() {
        return Err(BenchError::Child(format!("search {needle} failed")));
    }
    let total = serde_json::from_slice::<serde_json::Value>(&output.stdout)
        .ok()
        .and_then(|result| result.get("total").and_then(serde_json::Value::as_u64))
        .unwrap_or(0);
    Ok((took, total))
}

/// An iterate journal's views in one process: the journal file opened again, then the views
/// the app asks for while it steps.
pub(crate) fn loaded_figures(
    options: &BenchOptions,
    journal_path: &Path,
    db_path: &Path,
) -> Result<LoadedFigures, BenchError> {
    let mut quiet = |_| {};
    let start = Instant::now();
    let journal = Journal::open(
        journal_path,
        Some(db_path),
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
    let seek = SeekFigures {
        samples: samples.len() as u64,
        p50_ms: percentile(&samples, 50.0),
        p99_ms: percentile(&samples, 99.0),
        max_ms: samples.last().copied().unwrap_or(0.0),
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
        text: Some(gen::search_text(options.dialect, options.contract).to_string()),
        start: 0,
        limit: 200,
        ..EventQuery::default()
    })?;
    let filtered_event_page_ms = ms(start);
    drop(journal);

    Ok(LoadedFigures {
        reopen_ms,
        reopen_peak_rss_bytes,
        first_view_ms,
        seek,
        request_render_ms,
        event_page_ms,
        filtered_event_page_ms,
    })
}
