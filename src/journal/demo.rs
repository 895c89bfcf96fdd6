//! The journals bundled with Journalscope, and where cached databases and demo files live.

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use super::JournalError;
use crate::import;

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
            Demo::Iterate => include_bytes!("../../demo/iterate-demo.jsonl"),
            Demo::AgUi => include_bytes!("../../demo/agui-demo.sse"),
            Demo::AgentsKit => include_bytes!("../../demo/agentskit-demo.ndjson"),
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

/// Where cached databases and demo files live: `$JOURNALSCOPE_CACHE_DIR`, else the XDG cache
/// directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("JOURNALSCOPE_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("journalscope");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return PathBuf::from(home).join(".cache").join("journalscope");
    }
    std::env::temp_dir().join("journalscope")
}

/// The cached database of a journal file: one per canonical path.
pub fn cached_db_path(source: &Path) -> PathBuf {
    let name = import::source_name(source);
    let hash = blake3::hash(name.as_bytes()).to_hex();
    let stem = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "journal".to_string());
    cache_dir().join(format!("{stem}-{}.sqlite", &hash.as_str()[..16]))
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
