//! The committed TypeScript twins of the shell's IPC types (ui/src/generated/) must match what
//! ts-rs generates now: regenerate into a temporary directory and compare byte for byte.

use std::path::{Path, PathBuf};

use journalscope_app::ipc::{Exported, ExportedText, ImportStatus, IpcError, RecentFile, Startup};
use journalscope_app::live::{ConnectRequest, LiveChange, LiveSource, LiveState};
use journalscope_app::reports::ExportKind;
use ts_rs::{Config, TS};

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/generated")
}

fn check<T: TS + 'static>(out: &Path, drift: &mut Vec<String>) {
    let cfg = Config::new().with_out_dir(out);
    T::export_all(&cfg).expect("ts-rs export into the temp dir");
    let rel = T::output_path().expect("an exportable type has an output path");
    let fresh = std::fs::read_to_string(out.join(&rel)).expect("freshly generated file");
    let committed = std::fs::read_to_string(committed_dir().join(&rel)).unwrap_or_default();
    if fresh != committed {
        drift.push(rel.display().to_string());
    }
}

#[test]
fn given_the_ipc_types_when_regenerated_then_the_committed_typescript_matches() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut drift = Vec::new();
    check::<IpcError>(tmp.path(), &mut drift);
    check::<RecentFile>(tmp.path(), &mut drift);
    check::<ImportStatus>(tmp.path(), &mut drift);
    check::<Startup>(tmp.path(), &mut drift);
    check::<Exported>(tmp.path(), &mut drift);
    check::<ExportedText>(tmp.path(), &mut drift);
    check::<LiveState>(tmp.path(), &mut drift);
    check::<LiveSource>(tmp.path(), &mut drift);
    check::<LiveChange>(tmp.path(), &mut drift);
    check::<ConnectRequest>(tmp.path(), &mut drift);
    check::<ExportKind>(tmp.path(), &mut drift);
    assert!(
        drift.is_empty(),
        "ui/src/generated/ is stale for {drift:?}: run `cargo test -p journalscope-app` and commit the result"
    );
}
