//! The bench's report as text: every figure beside its target, and each check passed or failed.

use super::*;

/// The report as the text table `bench` prints.
pub fn render_text(report: &BenchReport) -> String {
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(format!(
        "journal              {} ({} events, {:.1} MiB{})",
        report.journal_path,
        report.events,
        mib(report.file_bytes),
        if report.generated {
            ", generated"
        } else {
            ", reused"
        }
    ));
    line(format!(
        "database             {:.1} MiB",
        mib(report.database_bytes)
    ));
    line(format!(
        "import               {:.0} ms (CPU {:.0} ms)  {:.1} MB/s  {:.0} events/s  peak RSS {:.0} MiB",
        report.import.ms,
        report.import.cpu_ms,
        report.import.mb_per_second,
        report.import.events_per_second,
        mib(report.import.peak_rss_bytes)
    ));
    if let Some(loaded) = &report.loaded {
        line(format!(
            "reopen (unchanged)   {:.0} ms  peak RSS {:.0} MiB",
            loaded.reopen_ms,
            mib(loaded.reopen_peak_rss_bytes)
        ));
        line(format!(
            "first view           {:.0} ms (last projection and first page)",
            loaded.first_view_ms
        ));
        line(format!(
            "seek ({} offsets)  p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
            loaded.seek.samples, loaded.seek.p50_ms, loaded.seek.p99_ms, loaded.seek.max_ms
        ));
        line(format!(
            "render last request  {:.1} ms",
            loaded.request_render_ms
        ));
        line(format!(
            "event page (middle)  {:.1} ms",
            loaded.event_page_ms
        ));
        line(format!(
            "filtered event page  {:.1} ms",
            loaded.filtered_event_page_ms
        ));
    }
    let scale = &report.scale;
    line(format!(
        "import of a tenth    {:.0} ms ({} events); cost per event {:.2}x the tenth's",
        scale.small_import_ms, scale.small_events, scale.cost_per_event_ratio
    ));
    line(format!(
        "view, whole process  p50 {:.1} ms  p99 {:.1} ms over {} offsets ({})",
        scale.view_p50_ms, scale.view_p99_ms, scale.view_samples, scale.view_command
    ));
    line(format!(
        "reopen the database  {:.0} ms (event list and the view at the middle)",
        scale.reopen_ms
    ));
    line(format!(
        "database at import   {:.1} MiB, {:.2}x the journal; checkpoints {:.1} MiB ({:.1}%)",
        mib(scale.database_bytes),
        scale.database_to_journal,
        mib(scale.checkpoint_bytes),
        scale.checkpoint_share * 100.0
    ));
    line(format!(
        "append {} events    {:.0} ms (import of the grown file, whole process)",
        scale.append_events, scale.append_ms
    ));
    line(format!(
        "search {:?}  {} hits: first page {:.0} ms, every hit {:.0} ms (whole process, no index)",
        scale.search_text, scale.search_hits, scale.search_page_ms, scale.search_all_ms
    ));
    for peer in &report.peers {
        line(format!(
            "peer {:<15} {:.0} ms ({:.2}x the import)",
            peer.tool, peer.ms, peer.ratio_to_import
        ));
    }
    if let Some(floor) = report.store_floor_ms {
        line(format!(
            "store floor          {floor:.0} ms (each line's bytes into SQLite, nothing parsed)"
        ));
    }
    let throughput = |what: &str, ms: f64| {
        format!(
            "{what} {:.0} MB/s",
            report.file_bytes as f64 / 1e6 / (ms / 1000.0)
        )
    };
    let mut rates = vec![throughput("import", report.import.ms)];
    if let Some(read) = report.read_floor_ms {
        rates.push(throughput("read the file", read));
    }
    if let Some(floor) = report.store_floor_ms {
        rates.push(throughput("store floor", floor));
    }
    if let Some(jq) = report.peers.iter().find(|p| p.tool == "jq") {
        rates.push(throughput("jq", jq.ms));
    }
    if rates.len() > 1 {
        line(format!("throughput           {}", rates.join(" | ")));
    }
    if let Some(ceiling) = report.sqlite3_ratio_ceiling {
        line(format!(
            "vs sqlite3 at best   {ceiling:.2}x (sqlite3 .import over the store floor: no import that keeps the bytes in SQLite gets past it)"
        ));
    }
    line(String::new());
    out.push_str(&render_checks(&report.checks));
    out
}

/// The checks as a table: each figure, its value, its target and whether this run met it.
pub fn render_checks(checks: &[Check]) -> String {
    let width = checks
        .iter()
        .map(|check| check.figure.len())
        .max()
        .unwrap_or(0)
        .max(28);
    let mut out = format!(
        "{:<width$} {:>14}  {:<12} result\n",
        "figure", "value", "target"
    );
    for check in checks {
        let value = if check.value.is_nan() {
            "n/a".to_string()
        } else {
            format!("{:.2} {}", check.value, check.unit)
        };
        let result = match check.pass {
            Some(true) => "pass",
            Some(false) => "FAIL",
            None => "not measured",
        };
        out.push_str(&format!(
            "{:<width$} {:>14}  {:<12} {result}\n",
            check.figure, value, check.target
        ));
    }
    out
}
