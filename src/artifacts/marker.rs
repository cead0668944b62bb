//! The marker that makes a directory askzico's output directory (`out/.askzico`): written by
//! `paths::claim`, required by `gc` before it deletes anything.

use std::io::Read;
use std::path::Path;

/// The marker that makes a directory askzico's output directory (`out/.askzico`).
pub(crate) const MARKER: &str = ".askzico";

/// The marker's fixed content: a directory is askzico's only when the file holds exactly this.
pub(crate) const MARKER_TEXT: &str = "askzico output directory\n\nEverything here was written by `askzico build`. `askzico gc` deletes only in a\ndirectory holding this file, and only files a manifest of the directory names.\n";

/// Whether `dir` holds askzico's marker.
pub(crate) fn is_marked(dir: &Path) -> bool {
    let path = dir.join(MARKER);
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(MARKER_TEXT.len() as u64 + 1).read_to_end(&mut bytes))
        .is_ok()
        && bytes == MARKER_TEXT.as_bytes()
}

/// The first entry of `dir` (in name order) that `ours` does not claim, or `None` when every
/// entry is claimed (an empty or missing directory has none): an output flag writes into a
/// folder only when nothing in it is someone else's.
pub fn first_foreign_entry(
    dir: &Path,
    ours: impl Fn(&str) -> bool,
) -> std::io::Result<Option<std::path::PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut foreign = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if !name.to_str().is_some_and(&ours) {
            foreign.push(entry.path());
        }
    }
    foreign.sort();
    Ok(foreign.into_iter().next())
}

/// Makes the folders `rel` names under `root` as real directories and returns the deepest, or
/// the first that is not a real directory (a symbolic link, a file), so that nothing written
/// there can be led out of `root`. `root` itself is the user's choice and may be a link.
pub fn real_dirs_under(root: &Path, rel: &Path) -> Result<std::path::PathBuf, std::path::PathBuf> {
    let mut dir = root.to_path_buf();
    for part in rel.components() {
        dir.push(part);
        if std::fs::symlink_metadata(&dir).is_err() {
            // Made here; a race that puts a link there instead is caught just below.
            let _ = std::fs::create_dir(&dir);
        }
        if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            return Err(dir);
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_under_a_root_are_made_real_and_a_link_among_them_is_named() {
        let t = std::env::temp_dir().join(format!("askzico-marker-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&t);
        std::fs::create_dir_all(t.join("root")).unwrap();
        std::fs::create_dir_all(t.join("elsewhere")).unwrap();
        let root = t.join("root");
        assert_eq!(
            real_dirs_under(&root, Path::new("a/b")).unwrap(),
            root.join("a/b")
        );
        std::os::unix::fs::symlink(t.join("elsewhere"), root.join("link")).unwrap();
        assert_eq!(
            real_dirs_under(&root, Path::new("link/x")).unwrap_err(),
            root.join("link")
        );
        assert!(!t.join("elsewhere/x").exists());
        std::fs::write(root.join("b"), "mine").unwrap();
        assert_eq!(
            first_foreign_entry(&root, |n| n == "a" || n == "link").unwrap(),
            Some(root.join("b"))
        );
        assert_eq!(first_foreign_entry(&root, |_| true).unwrap(), None);
        assert_eq!(
            first_foreign_entry(&t.join("none"), |_| false).unwrap(),
            None
        );
        std::fs::remove_dir_all(&t).unwrap();
    }
}
