//! The marker that makes a directory askzico's output directory (`out/.askzico`): written by
//! `paths::claim`, required by `gc` before it deletes anything.

use std::io::Read;
use std::path::Path;

/// The marker that makes a directory askzico's output directory (`out/.askzico`).
pub const MARKER: &str = ".askzico";

/// The marker's fixed content: a directory is askzico's only when the file holds exactly this.
pub const MARKER_TEXT: &str = "askzico output directory\n\nEverything here was written by `askzico build`. `askzico gc` deletes only in a\ndirectory holding this file, and only files a manifest of the directory names.\n";

/// Whether `dir` holds askzico's marker.
pub fn is_marked(dir: &Path) -> bool {
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
