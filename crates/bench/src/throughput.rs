//! `journalscope bench --imports`: every dialect's import throughput at one size, each beside
//! the floors measured in the same run on the same file (reading it, storing each line's bytes
//! in SQLite with nothing parsed, and `jq -c .`), so that a figure says how far the import is
//! from what the machine allows rather than a number from another day.

use std::path::Path;

use serde::Serialize;

use journalscope_gen::ContractName;
use journalscope_registry::dialect::Dialect;

use crate::{BenchError, BenchOptions, Check};

/// The journals an `--imports` run measures: every dialect, and iterate's agent loop beside its
/// seed contract.
const KINDS: [(Dialect, ContractName); 6] = [
    (Dialect::Iterate, ContractName::Seed),
    (Dialect::Iterate, ContractName::AgentLoop),
    (Dialect::AgUi, ContractName::Seed),
    (Dialect::AgentsKit, ContractName::Seed),
    (Dialect::ClaudeCode, ContractName::Seed),
    (Dialect::Codex, ContractName::Seed),
];

/// The largest `import / store floor` every dialect is held to.
const STORE_FLOOR_RATIO: f64 = 2.0;
/// How many times faster than `jq -c .` an iterate journal's import is held to be.
const JQ_RATIO: f64 = 5.0;
/// The most memory an import may hold at its peak.
const PEAK_RSS_MIB: f64 = 256.0;

/// One journal's import and the floors under it, from one run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportRow {
    /// `iterate`, `iterate-agent-loop`, `ag-ui`, …: the generated journal's kind.
    pub kind: String,
    pub events: u64,
    pub file_bytes: u64,
    /// The import as a whole process, and its CPU time over every thread.
    pub import_ms: f64,
    pub import_cpu_ms: f64,
    pub peak_rss_bytes: u64,
    /// Reading the file from the page cache with nothing done to its bytes.
    pub read_floor_ms: f64,
    /// Each line's bytes into SQLite in one transaction, nothing parsed.
    pub store_floor_ms: f64,
    /// `jq -c . FILE > /dev/null`; `None` when `jq` is not installed.
    pub jq_ms: Option<f64>,
}

impl ImportRow {
    fn mb_per_second(&self, ms: f64) -> f64 {
        self.file_bytes as f64 / 1e6 / (ms / 1000.0)
    }

    pub fn vs_store_floor(&self) -> f64 {
        self.import_ms / self.store_floor_ms
    }

    /// How many times faster than `jq` the import was.
    pub fn vs_jq(&self) -> Option<f64> {
        self.jq_ms.map(|jq| jq / self.import_ms)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportsReport {
    pub events: u64,
    pub seed: u64,
    pub rows: Vec<ImportRow>,
    pub checks: Vec<Check>,
}

/// Generates (or reuses) each kind's journal of `options.events` events in `options.dir`, and
/// measures its import against the floors. Each measurement starts once the kernel has written
/// out what the one before it wrote.
pub fn run(options: &BenchOptions) -> Result<ImportsReport, BenchError> {
    let mut rows = Vec::new();
    for (dialect, contract) in KINDS {
        let kind = BenchOptions {
            dialect,
            contract,
            ..options.clone()
        };
        rows.push(measure(&kind)?);
    }
    let checks = checks(&rows);
    Ok(ImportsReport {
        events: options.events,
        seed: options.seed,
        rows,
        checks,
    })
}

fn measure(options: &BenchOptions) -> Result<ImportRow, BenchError> {
    let (journal, _) = crate::generated(options, options.events)?;
    let file_bytes = std::fs::metadata(&journal).map(|m| m.len()).unwrap_or(0);
    let kind = crate::journal_kind(options);
    let db = options.dir.join(format!("bench-imports-{kind}.sqlite"));
    // The first read brings the file into the page cache, so that every figure after it reads
    // it warm, as the floors are defined.
    crate::read_floor(&journal)?;
    let (import_ms, child) = crate::import_in_child(options, &journal, &db)?;
    crate::remove_database(&db);
    let jq_ms = jq(&journal);
    crate::settle();
    let store_floor_ms = crate::store_floor(&journal, &options.dir.join("bench-store-floor.db"))?;
    crate::settle();
    let read_floor_ms = crate::read_floor(&journal)?;
    Ok(ImportRow {
        kind,
        events: child.events,
        file_bytes,
        import_ms,
        import_cpu_ms: child.cpu_ms,
        peak_rss_bytes: child.peak_rss_bytes,
        read_floor_ms,
        store_floor_ms,
        jq_ms,
    })
}

fn jq(journal: &Path) -> Option<f64> {
    crate::settle();
    let args = vec![
        "-c".to_string(),
        ".".to_string(),
        journal.to_string_lossy().into_owned(),
    ];
    crate::time_peer("jq", &args, true)
}

fn check(figure: String, value: Option<f64>, unit: &str, target: String, pass: bool) -> Check {
    Check {
        figure,
        value: value.unwrap_or(f64::NAN),
        unit: unit.to_string(),
        target,
        // A figure that could not be measured (no `jq`) is neither met nor failed.
        pass: value.map(|_| pass),
    }
}

fn checks(rows: &[ImportRow]) -> Vec<Check> {
    let mut checks = Vec::new();
    for row in rows {
        let floor = row.vs_store_floor();
        checks.push(check(
            format!("{} import vs store floor", row.kind),
            Some(floor),
            "x",
            format!("<= {STORE_FLOOR_RATIO}x"),
            floor <= STORE_FLOOR_RATIO,
        ));
        let rss = row.peak_rss_bytes as f64 / 1048576.0;
        checks.push(check(
            format!("{} import peak RSS", row.kind),
            Some(rss),
            "MiB",
            format!("<= {PEAK_RSS_MIB} MiB"),
            rss <= PEAK_RSS_MIB,
        ));
        // The iterate journal's records are large JSON objects, which `jq` parses and prints
        // as an import parses and stores them.
        if row.kind == Dialect::Iterate.as_str() {
            let faster = row.vs_jq();
            checks.push(check(
                format!("{} import vs jq -c .", row.kind),
                faster,
                "x faster",
                format!(">= {JQ_RATIO}x"),
                faster.is_some_and(|v| v >= JQ_RATIO),
            ));
        }
    }
    checks
}

/// The report as the table `bench --imports` prints: throughput in MB/s of the file, then the
/// checks.
pub fn render_text(report: &ImportsReport) -> String {
    let mut out = format!(
        "imports of {} events (seed {}), throughput in MB/s of the journal file\n\n",
        report.events, report.seed
    );
    out.push_str(&format!(
        "{:<20} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8}\n",
        "journal", "MB", "import", "read", "store", "jq", "wall s", "CPU s", "RSS MiB", "/floor"
    ));
    for row in &report.rows {
        let jq = row.jq_ms.map_or("n/a".to_string(), |ms| {
            format!("{:.0}", row.mb_per_second(ms))
        });
        out.push_str(&format!(
            "{:<20} {:>9.0} {:>8.0} {:>8.0} {:>8.0} {:>8} {:>8.2} {:>9.2} {:>8.0} {:>7.2}x\n",
            row.kind,
            row.file_bytes as f64 / 1e6,
            row.mb_per_second(row.import_ms),
            row.mb_per_second(row.read_floor_ms),
            row.mb_per_second(row.store_floor_ms),
            jq,
            row.import_ms / 1000.0,
            row.import_cpu_ms / 1000.0,
            row.peak_rss_bytes as f64 / 1048576.0,
            row.vs_store_floor(),
        ));
    }
    out.push('\n');
    out.push_str(&crate::render_checks(&report.checks));
    out
}

/// The report as a dated section of the figures' record (`bench --imports --record FILE`), in
/// Markdown: a heading with when and what was measured, then a row per journal with the floors
/// of the same run and each target's verdict. `when` is the run's end and `build` the binary's
/// version and commit, both passed in.
pub fn render_record(report: &ImportsReport, when: std::time::SystemTime, build: &str) -> String {
    let mut out = format!(
        "\n### {} · {build} · `bench --imports --events {} --seed {}`\n\n",
        utc_minute(when),
        report.events,
        report.seed
    );
    out.push_str(
        "| journal | MB | import MB/s | wall s | CPU s | peak RSS MiB | read MB/s | store floor \
         MB/s | `jq -c .` MB/s | import / store floor | import vs `jq` |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    let verdict = |figure: &str| match report
        .checks
        .iter()
        .find(|c| c.figure == figure)
        .and_then(|c| c.pass)
    {
        Some(false) => " **fail**",
        _ => "",
    };
    for row in &report.rows {
        let jq = row.jq_ms.map_or("n/a".to_string(), |ms| {
            format!("{:.0}", row.mb_per_second(ms))
        });
        let vs_jq = row.vs_jq().map_or("n/a".to_string(), |ratio| {
            format!(
                "{ratio:.1}x faster{}",
                verdict(&format!("{} import vs jq -c .", row.kind))
            )
        });
        out.push_str(&format!(
            "| {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0}{} | {:.0} | {:.0} | {jq} | {:.1}x{} | {vs_jq} |\n",
            row.kind,
            row.file_bytes as f64 / 1e6,
            row.mb_per_second(row.import_ms),
            row.import_ms / 1000.0,
            row.import_cpu_ms / 1000.0,
            row.peak_rss_bytes as f64 / 1048576.0,
            verdict(&format!("{} import peak RSS", row.kind)),
            row.mb_per_second(row.read_floor_ms),
            row.mb_per_second(row.store_floor_ms),
            row.vs_store_floor(),
            verdict(&format!("{} import vs store floor", row.kind)),
        ));
    }
    let passed = report
        .checks
        .iter()
        .filter(|c| c.pass == Some(true))
        .count();
    out.push_str(&format!(
        "\n{passed} of {} targets met (import at most {STORE_FLOOR_RATIO}x the store floor, peak \
         RSS at most {PEAK_RSS_MIB} MiB, iterate at least {JQ_RATIO}x faster than `jq`).\n",
        report.checks.len()
    ));
    out
}

/// `2026-12-07 18:40 UTC`: a time to the minute, in UTC.
fn utc_minute(when: std::time::SystemTime) -> String {
    let seconds = when
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // The civil date of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3_600,
        rest % 3_600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(import_ms: f64, store_floor_ms: f64, jq_ms: Option<f64>) -> ImportRow {
        ImportRow {
            kind: "iterate".to_string(),
            events: 10,
            file_bytes: 2_000_000,
            import_ms,
            import_cpu_ms: import_ms,
            peak_rss_bytes: 100 << 20,
            read_floor_ms: 100.0,
            store_floor_ms,
            jq_ms,
        }
    }

    #[test]
    fn given_an_iterate_import_when_checked_then_the_floor_and_jq_ratios_are_judged() {
        // Given an import twice as slow as the store floor and 6 times faster than jq.
        let rows = [row(1000.0, 500.0, Some(6000.0))];
        // When it is checked.
        let checks = checks(&rows);
        // Then the floor ratio passes at its bound, and so does the jq ratio.
        let figures: Vec<(&str, Option<bool>)> =
            checks.iter().map(|c| (c.figure.as_str(), c.pass)).collect();
        assert_eq!(
            figures,
            [
                ("iterate import vs store floor", Some(true)),
                ("iterate import peak RSS", Some(true)),
                ("iterate import vs jq -c .", Some(true)),
            ],
            "every row is held to the store floor and RSS, iterate also to jq"
        );
        assert_eq!(
            rows[0].mb_per_second(1000.0),
            2.0,
            "MB of the file per second"
        );
    }

    #[test]
    fn given_a_run_when_recorded_then_its_section_is_dated_and_says_each_verdict() {
        // Given an import three times the store floor and 4 times faster than jq.
        let rows = vec![row(1500.0, 500.0, Some(6000.0))];
        let report = ImportsReport {
            events: 10,
            seed: 1,
            checks: checks(&rows),
            rows,
        };
        // When it is recorded as ending at 2026-12-07 18:40:59 UTC.
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_668_859);
        let record = render_record(&report, when, "journalscope 0.1.0 (abc1234)");
        // Then the heading dates it and names the build, and the row says what failed.
        assert!(
            record.starts_with(
                "\n### 2026-12-07 18:40 UTC · journalscope 0.1.0 (abc1234) · \
                 `bench --imports --events 10 --seed 1`\n"
            ),
            "the section is dated to the minute in UTC and names what ran: {record}"
        );
        assert!(
            record.contains("| iterate | 2 | 1 | 1.50 | 1.50 | 100 | 20 | 4 | 0 | 3.0x **fail** | 4.0x faster **fail** |"),
            "each figure beside the floors of the same run, each missed target marked: {record}"
        );
        assert!(
            record.contains("1 of 3 targets met"),
            "the section ends with how many targets held: {record}"
        );
    }

    #[test]
    fn given_the_first_day_of_a_leap_year_when_dated_then_the_civil_date_is_right() {
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_709_164_800);
        assert_eq!(
            utc_minute(when),
            "2024-02-29 00:00 UTC",
            "a leap day, where a day count is easiest to get wrong"
        );
    }

    #[test]
    fn given_no_jq_when_checked_then_the_jq_ratio_is_not_measured() {
        let checks = checks(&[row(1500.0, 500.0, None)]);
        assert_eq!(
            checks[0].pass,
            Some(false),
            "three times the store floor fails the floor check"
        );
        assert_eq!(
            checks[2].pass, None,
            "without jq the ratio is not measured rather than failed"
        );
    }
}
