//! Builds that would silently publish less than the sources hold: a build with no document
//! (refused unless `--allow-empty`), include/exclude patterns that leave the root, a library whose
//! globs match nothing, special files in a root (FIFO, socket, a link to `/dev/zero`), a JSON key
//! repeated in one object, an MDX file read as Markdown that must keep every word, and a
//! pseudo filesystem given as the sources.

use std::os::unix::fs::symlink;

use super::*;

/// `CONFIG` with one more line in the `docs` library (line 7 of corpus.toml).
fn docs_with(p: &Path, line: &str) -> Result<(), String> {
    set_config(p, &format!("{CONFIG}{line}\n"))
}

fn link(target: &Path, at: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(at);
    symlink(target, at).map_err(|e| e.to_string())
}

fn fifo(at: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(at);
    let made = std::process::Command::new("mkfifo")
        .arg(at)
        .status()
        .map_err(|e| format!("no mkfifo: {e}"))?;
    if made.success() {
        Ok(())
    } else {
        Err("mkfifo failed".into())
    }
}

/// The error and warnings of a `--json` run, by level and a part of the message.
fn has(diags: &[Value], level: &str, part: &str) -> bool {
    diags
        .iter()
        .any(|d| d["level"] == level && d["message"].as_str().is_some_and(|m| m.contains(part)))
}

/// Every Arabic word of `src` is in the build's evidence.
fn keeps_words(p: &Path, src: &str) -> Result<(), String> {
    let text = evidence(p);
    let lost: Vec<&str> = src
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().any(|c| ('\u{600}'..='\u{6ff}').contains(&c)))
        .filter(|w| !text.contains(w))
        .collect();
    if lost.is_empty() {
        Ok(())
    } else {
        Err(format!("words lost: {lost:?} (evidence: {text:?})"))
    }
}

const BRACE: &str =
    "# قوس مفتوح\n\nكلمة أولى {غير مغلق كلمة ثانية\nسطر ثالث بعده\n\nفقرة أخيرة كاملة\n";
const JSX: &str = "# وسم مفتوح\n\n<Callout type=\"note\">\nداخل المكون كلام\n\nبعد الفراغ كلام آخر\n";
const STRAY: &str =
    "# علامة أصغر\n\nأ < ب وكلام\n\nفقرة <ب كلمة\n\n<Note>\nنص < بلا إغلاق <x كلمة أخيرة\n";

const NO_TXT: &str = "include = [\"**/*.txt\"]";

pub const CASES: &[Case] = &[
    Case::new("an include climbing out of the root", |p| docs_with(p, "include = [\"../**\"]"), 2, cfg_err(7, "include pattern `../**` climbs out of the root")),
    Case::new("an absolute include", |p| docs_with(p, "include = [\"/**\"]"), 2, cfg_err(7, "include pattern `/**` is absolute")),
    Case::new("an include whose alternative is absolute", |p| docs_with(p, "include = [\"{/etc/**,*.md}\"]"), 2, cfg_err(7, "is absolute")),
    Case::new("an exclude climbing out in an alternative", |p| docs_with(p, "exclude = [\"{..,x}/**\"]"), 2, cfg_err(7, "exclude pattern `{..,x}/**` climbs out")),
    Case::new("`include = []`", |p| docs_with(p, "include = []"), 2, cfg_err(7, "`include = []`: it would read no file")),
    Case::new("a build without any document is refused and says why", |p| docs_with(p, NO_TXT), 1,
        err("corpus.toml", None, "no document to publish: library `docs` has no source file (include [\"**/*.txt\"] under `src`)"))
        .check(|_, d| {
            if !has(d, "error", "--allow-empty") {
                return Err("the error does not mention --allow-empty".into());
            }
            if !has(d, "warning", "library `docs` matches no file: include [\"**/*.txt\"] under root `src`") {
                return Err("no warning naming the library and its patterns".into());
            }
            Ok(())
        }),
    Case::new("--allow-empty publishes a build without documents", |p| docs_with(p, NO_TXT), 0, warn("corpus.toml", None, "library `docs` matches no file"))
        .cmd(&["build", "--allow-empty"])
        .check(|p, _| {
            let docs: u64 = manifest(&p.join("out"))["libraries"].as_array().unwrap().iter().map(|l| l["docs"].as_u64().unwrap()).sum();
            if docs == 0 { Ok(()) } else { Err(format!("{docs} documents")) }
        }),
    Case::new("a build whose only file has nothing to index is refused", |p| put(p, "src/good.md", "---\ntitle: فارغ\n---\n"), 1,
        err("corpus.toml", None, "library `docs`: its one file has nothing to index")),
    Case::new("an environment without libraries builds nothing and is refused", |p| set_config(p, &format!("{CONFIG}\n[env.none]\nlibraries = []\n")), 1, err("corpus.toml", None, "environment `none` enables no library"))
        .cmd(&["build", "--env", "none"]),
    Case::new("an empty build made with --allow-empty is not reused without it", |p| {
        set_config(p, &format!("{CONFIG}\n[env.none]\nlibraries = []\n"))?;
        let o = run(bin().current_dir(p).args(["build", "--env", "none", "--allow-empty"]));
        if o.status.success() { Ok(()) } else { Err(format!("the --allow-empty build failed: {}", stderr(&o))) }
    }, 1, err("corpus.toml", None, "enables no library"))
        .cmd(&["build", "--env", "none"]),
    Case::new("a library matching nothing beside one with documents", |p| set_config(p, &format!("{CONFIG}\n[[library]]\nid = \"more\"\nroot = \"src\"\n{NO_TXT}\nexclude = [\"tmp/**\"]\n")), 0,
        warn("corpus.toml", None, "library `more` matches no file: include [\"**/*.txt\"] minus exclude [\"tmp/**\"] under root `src`"))
        .check(|p, _| if evidence(p).contains("هذا نص عربي سليم") { Ok(()) } else { Err("the good document is missing".into()) }),
    Case::new("a FIFO in a root is named and skipped", |p| fifo(&p.join("src/pipe.md")), 0, warn("src/pipe.md", None, "src/pipe.md is a FIFO (named pipe), not a regular file: skipped")),
    Case::new("a socket in a root is named and skipped", |p| {
        let at = p.join("src/sock.md");
        let _ = std::fs::remove_file(&at);
        std::os::unix::net::UnixListener::bind(&at).map(drop).map_err(|e| e.to_string())
    }, 0, warn("src/sock.md", None, "is a socket, not a regular file")),
    Case::new("a link to /dev/zero leaves the root", |p| link(Path::new("/dev/zero"), &p.join("src/zero.md")), 1,
        err("src/zero.md", None, "src/zero.md resolves outside the library root (to /dev/zero)")),
    Case::new("a link to /dev/zero, allowed outside the root, is skipped unread", |p| {
        link(Path::new("/dev/zero"), &p.join("src/zero.md"))?;
        docs_with(p, "allow_outside_root = true")
    }, 0, warn("src/zero.md", None, "src/zero.md is a character device, not a regular file: skipped")),
    Case::new("a JSON key repeated in one object names the key and its line", |p| put(p, "data/dup.json", "{\"1 Tout\": [\n  {\"slug\": \"a\", \"name\": \"n\",\n   \"text\": \"نص أول\", \"text\": \"نص ثان\"}\n]}"), 1,
        err("data/dup.json", Some(3), "duplicate key `text` at line 3")).base(RECORDS),
    Case::new("a JSON top-level key repeated keeps no value silently", |p| put(p, "data/dup.json", "{\"1 Tout\": [{\"slug\": \"a\", \"name\": \"n\", \"text\": \"أول\"}],\n\"1 Tout\": [{\"slug\": \"b\", \"name\": \"n\", \"text\": \"ثان\"}]}"), 1,
        err("data/dup.json", Some(2), "duplicate key `1 Tout`")).base(RECORDS),
    Case::new("an MDX file with an unclosed `{` keeps every word", |p| put(p, "src/brace.mdx", BRACE), 0, warn("src/brace.mdx", None, "read as plain Markdown"))
        .check(|p, _| keeps_words(p, BRACE)),
    Case::new("an MDX file with an unclosed JSX tag keeps every word", |p| put(p, "src/jsx.mdx", JSX), 0, warn("src/jsx.mdx", None, "read as plain Markdown"))
        .check(|p, _| keeps_words(p, JSX)),
    Case::new("an MDX file with stray `<` keeps every word", |p| put(p, "src/stray.mdx", STRAY), 0, warn("src/stray.mdx", None, "read as plain Markdown"))
        .check(|p, _| keeps_words(p, STRAY)),
    Case::new("--sources /proc names the root and says what to do", |_| {
        if Path::new("/proc/self/status").is_file() { Ok(()) } else { Err("no /proc here".into()) }
    }, 1, Some(Diag { level: "error", file: Some("--sources /proc"), line: None, message: "root /proc is on the kernel's `proc` filesystem, not a directory of sources" }))
        .cmd(&["build", "--sources", "/proc"]),
];

pub(crate) fn builds_that_would_lose_sources() {
    run_table(CASES);
}
