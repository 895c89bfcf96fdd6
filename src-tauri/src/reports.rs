//! IPC commands for sharing: the two exports (the HTML report and the JSONL slice), which write
//! exactly what the CLI's `report -o` and `slice -o` write. Thin adapters over
//! `journalscope_document::report`.

use std::path::PathBuf;

use journalscope_document::report::{self, OffsetRange};
use tauri::{AppHandle, Manager};

use crate::commands::{write_export, Session, EXPORT_PATH_ENV};
use crate::ipc::{Exported, IpcError};

/// What an export writes: the HTML report or the JSONL slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ExportKind {
    Report,
    Slice,
}

impl ExportKind {
    fn file_name(self, range: OffsetRange) -> String {
        let span = match (range.from, range.to) {
            (None, None) => String::new(),
            (from, to) => format!(
                "-{}-{}",
                from.map_or_else(|| "start".to_string(), |f| f.to_string()),
                to.map_or_else(|| "end".to_string(), |t| t.to_string())
            ),
        };
        match self {
            ExportKind::Report => format!("report{span}.html"),
            ExportKind::Slice => format!("slice{span}.jsonl"),
        }
    }
}

/// Builds the export on a blocking thread (a report renders every request), then writes it
/// where the save dialog says, or where `JOURNALSCOPE_EXPORT_PATH` says in the tests; like
/// `export_request`, the window cannot name the path.
#[tauri::command]
pub async fn export_journal(
    app: AppHandle,
    kind: ExportKind,
    range: OffsetRange,
) -> Result<Exported, IpcError> {
    let target = match std::env::var(EXPORT_PATH_ENV).ok() {
        Some(p) => Some(PathBuf::from(p)),
        None => ask_save_path(&app, kind, range).await?,
    };
    let Some(target) = target else {
        return Ok(Exported {
            path: None,
            bytes: 0,
            secrets: 0,
            redacted: false,
        });
    };
    let worker = app.clone();
    let bytes = tauri::async_runtime::spawn_blocking(move || {
        worker.state::<Session>().with(|j| match kind {
            ExportKind::Report => Ok(report::html::render(&report::build(j, range)?).into_bytes()),
            ExportKind::Slice => report::slice::slice_bytes(j, range),
        })
    })
    .await
    .map_err(|e| IpcError::new("internal", e.to_string()))??;
    write_export(&target, &bytes)?;
    // A report or slice carries the journal's own bytes: nothing in it is redacted.
    Ok(Exported {
        path: Some(target.to_string_lossy().into_owned()),
        bytes: bytes.len() as u64,
        secrets: 0,
        redacted: false,
    })
}

async fn ask_save_path(
    app: &AppHandle,
    kind: ExportKind,
    range: OffsetRange,
) -> Result<Option<PathBuf>, IpcError> {
    use tauri_plugin_dialog::DialogExt;
    let (filter, extension) = match kind {
        ExportKind::Report => ("HTML", "html"),
        ExportKind::Slice => ("JSON Lines", "jsonl"),
    };
    let dialog = app
        .dialog()
        .file()
        .set_file_name(kind.file_name(range))
        .add_filter(filter, &[extension]);
    let picked = tauri::async_runtime::spawn_blocking(move || dialog.blocking_save_file())
        .await
        .map_err(|e| IpcError::new("internal", e.to_string()))?;
    Ok(picked.and_then(|p| p.into_path().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_a_range_when_naming_the_export_then_the_name_carries_it() {
        let range = OffsetRange {
            from: Some(3),
            to: None,
        };
        assert_eq!(
            ExportKind::Report.file_name(range),
            "report-3-end.html",
            "the suggested name says which range"
        );
        assert_eq!(
            ExportKind::Slice.file_name(OffsetRange::all()),
            "slice.jsonl",
            "a whole-journal slice has a plain name"
        );
    }
}
