//! walk: how a site directory's files are listed for zero config (`--sources DIR`), the way its
//! generator would publish them. A leaf: `config` surveys a directory with it, `discover` lists
//! a zero-config library's files with it.

use std::path::Path;

/// The files of a site directory as its generator would publish them, the way ripgrep walks
/// (the `ignore` crate): `.gitignore` and `.ignore` files honoured, hidden files and folders and
/// `node_modules` skipped. Pinned so the result never depends on the machine: no global
/// excludes file, no `.git/info/exclude`, no ignore file above `dir`, and `.gitignore` read
/// whether or not `dir` is a git checkout. Only entries under `root` (`dir` or a folder in it)
/// are listed, with the ignore files of `dir` and the folders between applied. `skip` (the build's
/// output directory, as the walk names it) is not entered: a build never reads its own output.
pub fn site_walk(dir: &Path, root: &Path, skip: Option<&Path>) -> ignore::Walk {
    let root = root.to_path_buf();
    let skip = skip.map(Path::to_path_buf);
    ignore::WalkBuilder::new(dir)
        .hidden(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .parents(false)
        .require_git(false)
        .ignore_case_insensitive(false)
        .follow_links(true)
        .same_file_system(false)
        .max_filesize(None)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            e.file_name() != "node_modules"
                && (e.depth() == 0 || skip.as_deref() != Some(e.path()))
                && (e.path().starts_with(&root) || root.starts_with(e.path()))
        })
        .build()
}
