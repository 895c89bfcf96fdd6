//! The recent-files list: at most `LIMIT` distinct paths, newest first, kept as JSON in the
//! app's config directory. A missing or unreadable list is an empty one, never an error: losing
//! history must not stop a journal from opening.

use std::fs;
use std::path::Path;

use crate::ipc::RecentFile;

pub const LIMIT: usize = 12;
pub const FILE_NAME: &str = "recent-files.json";

/// Puts `path` first, dropping an older entry for the same path and anything past the limit.
pub fn remember(list: &[RecentFile], path: &str, now_ms: u64) -> Vec<RecentFile> {
    let file_name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string());
    let mut next = vec![RecentFile {
        path: path.to_string(),
        file_name,
        opened_at_ms: now_ms,
    }];
    next.extend(list.iter().filter(|r| r.path != path).cloned());
    next.truncate(LIMIT);
    next
}

pub fn load(dir: &Path) -> Vec<RecentFile> {
    fs::read(dir.join(FILE_NAME))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Vec<RecentFile>>(&bytes).ok())
        .unwrap_or_default()
}

pub fn save(dir: &Path, list: &[RecentFile]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let json = serde_json::to_vec_pretty(list).map_err(std::io::Error::other)?;
    // Write then rename so a crash never leaves half a list behind.
    let tmp = dir.join(format!("{FILE_NAME}.tmp"));
    fs::write(&tmp, json)?;
    fs::rename(tmp, dir.join(FILE_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_a_path_already_listed_when_remembered_then_it_moves_first_without_duplicate() {
        let list = remember(&remember(&[], "/a/one.jsonl", 1), "/b/two.jsonl", 2);
        let list = remember(&list, "/a/one.jsonl", 3);
        let paths: Vec<&str> = list.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            paths,
            ["/a/one.jsonl", "/b/two.jsonl"],
            "reopening moves the file to the top once"
        );
        assert_eq!(list[0].file_name, "one.jsonl", "the label is the file name");
        assert_eq!(list[0].opened_at_ms, 3, "the time is the latest open");
    }

    #[test]
    fn given_more_than_the_limit_when_remembered_then_the_oldest_fall_off() {
        let mut list = Vec::new();
        for i in 0..(LIMIT + 5) {
            list = remember(&list, &format!("/f{i}"), i as u64);
        }
        assert_eq!(list.len(), LIMIT, "the list is bounded");
        assert_eq!(list[0].path, format!("/f{}", LIMIT + 4), "newest first");
    }

    #[test]
    fn given_a_saved_list_when_loaded_then_it_round_trips_and_garbage_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).is_empty(), "no file means no history");
        let list = remember(&[], "/x/y.jsonl", 7);
        save(dir.path(), &list).unwrap();
        assert_eq!(load(dir.path()), list, "a saved list loads back unchanged");
        fs::write(dir.path().join(FILE_NAME), b"{not json").unwrap();
        assert!(
            load(dir.path()).is_empty(),
            "a corrupt list is treated as empty, not an error"
        );
    }
}
