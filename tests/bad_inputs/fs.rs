//! The file system: two libraries claiming a file, symlink loops, symlinks and `..` roots that
//! leave the corpus (refused unless allowed), unreadable files and directories, a dangling
//! symlink, a file deleted between discovery and read, missing roots.

use std::os::unix::fs::{PermissionsExt, symlink};

use super::*;

fn link(target: &Path, at: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(at);
    symlink(target, at).map_err(|e| e.to_string())
}

/// An outside directory holding one Markdown file.
fn outside_dir(p: &Path) -> Result<std::path::PathBuf, String> {
    let o = outside(p);
    put(&o, "x.md", "# خارج\n\nنص من خارج المشروع.\n")?;
    Ok(o)
}

/// Makes `rel` unreadable; an error when this user can read it anyway (root: the harness runs
/// these cases only for a user whom permission bits bind).
fn unreadable(p: &Path, rel: &str, dir: bool) -> Result<(), String> {
    let path = p.join(rel);
    if path.exists() {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
    }
    if dir {
        put(p, &format!("{rel}/in.md"), "# t\n\nنص\n")?;
    } else {
        put(p, rel, "# t\n\nنص\n")?;
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000))
        .map_err(|e| e.to_string())?;
    let readable = if dir {
        std::fs::read_dir(&path).is_ok()
    } else {
        std::fs::read(&path).is_ok()
    };
    if readable {
        return Err(
            "permission bits do not stop this user (running as root?): nothing to check".into(),
        );
    }
    Ok(())
}

fn restore(p: &Path, rel: &str) -> Result<(), String> {
    std::fs::set_permissions(p.join(rel), std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())
}

const TWO_LIBS: &str = "\n[[library]]\nid = \"more\"\nroot = \"src\"\ninclude = [\"good.md\"]\n";

pub const CASES: &[Case] = &[
    Case::new("two libraries claiming one file", |p| set_config(p, &format!("{CONFIG}{TWO_LIBS}")), 1, err("src/good.md", None, "src/good.md is claimed by two libraries: `docs` and `more`")),
    Case::new("a file linked twice in one library is read once, with a warning", |p| {
        std::fs::create_dir_all(p.join("src/zz")).map_err(|e| e.to_string())?;
        link(Path::new("../good.md"), &p.join("src/zz/again.md"))
    }, 0, warn("src/zz/again.md", None, "src/zz/again.md is the same file as src/good.md (one of them through a symbolic link): read once, as src/good.md")),
    Case::new("an editor's lock file (a dangling `.#` link) is not a source", |p| {
        link(Path::new("root@host.12345:1700000000"), &p.join("src/.#good.md"))
    }, 0, None),
    Case::new("a symlink loop is skipped with a warning", |p| {
        std::fs::create_dir_all(p.join("src/sub")).map_err(|e| e.to_string())?;
        link(Path::new(".."), &p.join("src/sub/loop"))
    }, 0, warn("src/sub/loop", None, "symlink loop")),
    Case::new("a symlink leaving the library root is refused", |p| {
        put(p, "elsewhere/x.md", "# خارج\n\nنص.\n")?;
        link(&p.join("elsewhere/x.md"), &p.join("src/esc.md"))
    }, 1, err("src/esc.md", None, "resolves outside the library root")),
    Case::new("a symlink leaving the root is read when allowed", |p| {
        put(p, "elsewhere/x.md", "# خارج\n\nنص من خارج الجذر.\n")?;
        link(&p.join("elsewhere/x.md"), &p.join("src/esc.md"))?;
        set_config(p, &format!("{CONFIG}allow_outside_root = true\n"))
    }, 0, None).check(|p, _| if evidence(p).contains("نص من خارج الجذر") { Ok(()) } else { Err("the allowed file is missing".into()) }),
    Case::new("a `..` root leaving the corpus directory is refused", |p| {
        let o = outside_dir(p)?;
        set_config(p, &format!("{CONFIG}\n[[library]]\nid = \"out\"\nroot = \"../{}\"\n", o.file_name().unwrap().to_string_lossy()))
    }, 2, cfg_err(10, "leaves the corpus directory")),
    Case::new("a symlinked root leaving the corpus directory is refused", |p| {
        let o = outside_dir(p)?;
        link(&o, &p.join("linked"))?;
        set_config(p, &format!("{CONFIG}\n[[library]]\nid = \"out\"\nroot = \"linked\"\n"))
    }, 2, cfg_err(10, "leaves the corpus directory")),
    Case::new("a root outside the corpus is read when allowed explicitly", |p| {
        let o = outside_dir(p)?;
        set_config(p, &format!("{CONFIG}\n[[library]]\nid = \"out\"\nroot = \"../{}\"\nallow_outside_root = true\n", o.file_name().unwrap().to_string_lossy()))
    }, 0, None).check(|p, _| if records(p).iter().any(|r| r["doc_id"] == "out:x") { Ok(()) } else { Err("the allowed library is missing".into()) }),
    Case::new("a dangling symlink may hide a source", |p| link(Path::new("/nonexistent/x.md"), &p.join("src/dangle.md")), 1, err("src/dangle.md", None, "cannot read")),
    Case::new("a file deleted between discovery and read", |p| put(p, "src/vanish.md", "# t\n\nنص\n"), 1, err("src/vanish.md", None, "cannot read"))
        .env(&[("ASKZICO_TEST_DELETE_BEFORE_READ", "docs/vanish.md")]),
    Case::new("a missing library root", |p| set_config(p, &CONFIG.replace("root = \"src\"", "root = \"nowhere\"")), 2, cfg_err(6, "root `nowhere` is not a directory")),
    Case::new("a library root that is a file", |p| set_config(p, &CONFIG.replace("root = \"src\"", "root = \"src/good.md\"")), 2, cfg_err(6, "is not a directory")),
];

/// Sources the build cannot read: these need a user whom permission bits bind (not root).
pub const PERMISSION_CASES: &[Case] = &[
    Case::new(
        "an unreadable file",
        |p| unreadable(p, "src/locked.md", false),
        1,
        err("src/locked.md", None, "cannot read"),
    )
    .check(|p, _| restore(p, "src/locked.md")),
    Case::new(
        "an unreadable directory",
        |p| unreadable(p, "src/locked", true),
        1,
        err("src/locked", None, "cannot read"),
    )
    .check(|p, _| restore(p, "src/locked")),
];

pub(crate) fn unreadable_sources() {
    run_table(PERMISSION_CASES);
}

pub(crate) fn file_system() {
    run_table(CASES);
}
