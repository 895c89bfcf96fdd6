//! The journals bundled with Journalscope, and where cached databases and demo files live.

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use super::JournalError;
use journalscope_ingest::import::cache_dir;
use journalscope_registry::dialect::{demos, DemoJournal, Dialect};

/// A journal bundled with Journalscope, embedded in the binary: the demo of one dialect.
#[derive(Debug, Clone, Copy)]
pub struct Demo {
    dialect: Dialect,
    journal: &'static DemoJournal,
}

/// A bundled demo as a list of them shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct DemoListing {
    /// The name of its dialect: what opening it takes.
    pub name: String,
    pub title: String,
    /// What it shows, in a phrase.
    pub about: String,
}

impl Demo {
    /// Every bundled demo, the default dialect's first.
    pub fn all() -> Vec<Demo> {
        demos()
            .into_iter()
            .map(|(dialect, journal)| Demo { dialect, journal })
            .collect()
    }

    /// The demo of the dialect named `name` (`ag-ui`, or without its hyphen `agui`).
    pub fn named(name: &str) -> Option<Demo> {
        let bare = |text: &str| text.replace('-', "");
        Demo::all()
            .into_iter()
            .find(|demo| demo.name() == name || bare(demo.name()) == bare(name))
    }

    /// `demo` (the default dialect's) or `demo:NAME` on the command line.
    pub fn from_argument(text: &str) -> Option<Demo> {
        match text.strip_prefix("demo") {
            Some("") => Demo::all().into_iter().next(),
            Some(rest) => Demo::named(rest.strip_prefix(':')?),
            None => None,
        }
    }

    pub fn name(self) -> &'static str {
        self.dialect.as_str()
    }

    pub fn file_name(self) -> &'static str {
        self.journal.file_name
    }

    pub fn bytes(self) -> &'static [u8] {
        self.journal.bytes
    }

    pub fn listing(self) -> DemoListing {
        DemoListing {
            name: self.name().to_string(),
            title: self.journal.title.to_string(),
            about: self.journal.about.to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_demo_argument_names_a_dialect_with_or_without_its_hyphen() {
        // Given the bundled demos; when the command line names them; then `demo` alone is the
        // default dialect's, a name finds its own, and anything else is a path, not a demo.
        let name = |text: &str| Demo::from_argument(text).map(Demo::name);
        assert_eq!(
            name("demo"),
            Some(Dialect::default().as_str()),
            "bare `demo` is the default"
        );
        assert_eq!(name("demo:ag-ui"), Some("ag-ui"), "a dialect's own name");
        assert_eq!(
            name("demo:agui"),
            Some("ag-ui"),
            "the same name without its hyphen"
        );
        assert_eq!(name("demo:nothing"), None, "a dialect with no demo");
        assert_eq!(
            name("demonstration.jsonl"),
            None,
            "a file whose name starts with demo"
        );
    }

    #[test]
    fn every_demo_is_listed_once_under_its_dialect_s_name() {
        let names: Vec<String> = Demo::all().into_iter().map(|d| d.listing().name).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            names.len(),
            "no dialect has two demos: {names:?}"
        );
        assert!(names.len() >= 3, "the bundled demos are listed: {names:?}");
    }
}
