//! The journals bundled with Journalscope, and where cached databases and demo files live.

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use super::JournalError;
use journalscope_ingest::import::cache_dir;

/// The journals bundled with Journalscope, embedded in the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Demo {
    Iterate,
    AgUi,
    AgentsKit,
}

impl Demo {
    pub fn file_name(self) -> &'static str {
        match self {
            Demo::Iterate => "iterate-demo.jsonl",
            Demo::AgUi => "agui-demo.sse",
            Demo::AgentsKit => "agentskit-demo.ndjson",
        }
    }

    pub fn bytes(self) -> &'static [u8] {
        match self {
            Demo::Iterate => include_bytes!("../../../../demo/iterate-demo.jsonl"),
            Demo::AgUi => include_bytes!("../../../../demo/agui-demo.sse"),
            Demo::AgentsKit => include_bytes!("../../../../demo/agentskit-demo.ndjson"),
        }
    }

    /// `demo`, `demo:ag-ui`, `demo:agentskit` on the command line.
    pub fn from_argument(text: &str) -> Option<Demo> {
        match text {
            "demo" | "demo:iterate" => Some(Demo::Iterate),
            "demo:ag-ui" | "demo:agui" => Some(Demo::AgUi),
            "demo:agentskit" => Some(Demo::AgentsKit),
            _ => None,
        }
    }
}

pub fn is_database(path: &Path) -> bool {
    std::fs::File::open(path)
        .and_then(|mut f| {
            let mut magic = [0u8; 16];
            std::io::Read::read_exact(&mut f, &mut magic).map(|_| magic)
        })
        .is_ok_and(|magic| &magic == b"SQLite format 3\0")
}

/// Writes a demo journal to the cache directory, leaving an identical copy untouched so its
/// cached database stays valid.
pub fn demo_path(demo: Demo) -> Result<PathBuf, JournalError> {
    let dir = cache_dir().join("demo");
    let path = dir.join(demo.file_name());
    let wrap = |source| JournalError::Demo {
        path: path.clone(),
        source,
    };
    if std::fs::read(&path).ok().as_deref() != Some(demo.bytes()) {
        std::fs::create_dir_all(&dir).map_err(wrap)?;
        std::fs::write(&path, demo.bytes()).map_err(wrap)?;
    }
    Ok(path)
}
