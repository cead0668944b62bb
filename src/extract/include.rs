//! include: mdBook's `{{#include}}`, `{{#rustdoc_include}}` and `{{#playground}}`, replaced by
//! the text they name, as mdBook replaces them before it renders a page: a path relative to the
//! page that holds the directive, then a line range (`:2`, `:2:`, `::10`, `:2:10`, counted
//! from one) or an anchor (`:name`, the lines between `ANCHOR: name` and `ANCHOR_END: name`;
//! anchor lines themselves never show). `rustdoc_include` keeps the lines outside its range as
//! hidden Rust lines (`# `), which the page does not show (`generator::rewrite` drops them);
//! `playground` puts the whole file in a Rust code block. Included text is expanded in turn, up
//! to `MAX_DEPTH` files deep. A `\{{#…}}` is mdBook's escape and is left as written.
//!
//! Pure: the included files' texts come in an `Includes`, read by the build beforehand
//! (`sources::read_page`), which makes them inputs of the page that includes them. A directive
//! whose file is not there is named to the caller (an `include` warning) and left for
//! `generator::rewrite` to leave out.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many files deep includes are expanded (mdBook's own limit).
pub(crate) const MAX_DEPTH: usize = 10;

/// The texts of the files a page includes, by their path relative to the library's root
/// (`join`); a file that could not be read is not there.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Includes {
    files: BTreeMap<String, Arc<str>>,
}

impl Includes {
    pub(crate) fn insert(&mut self, key: String, text: Arc<str>) {
        self.files.insert(key, text);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The content hash of a page that includes these files: its own bytes' hash (`own`) when it
    /// includes none, else one over that and every included file's path and text.
    pub(crate) fn digest(&self, own: [u8; 32]) -> [u8; 32] {
        if self.files.is_empty() {
            return own;
        }
        let mut h = blake3::Hasher::new();
        h.update(b"askzico-includes-1\0");
        h.update(&own);
        for (key, text) in &self.files {
            h.update(&(key.len() as u64).to_le_bytes());
            h.update(key.as_bytes());
            h.update(blake3::hash(text.as_bytes()).as_bytes());
        }
        *h.finalize().as_bytes()
    }
}

/// The directives mdBook replaces with a file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Include,
    RustdocInclude,
    Playground,
}

/// One directive of a text: its byte range, kind and arguments.
struct Directive<'a> {
    start: usize,
    end: usize,
    kind: Kind,
    args: &'a str,
}

/// The include directives of `text`, in order (escaped ones and `{{#title}}` are not).
fn directives(text: &str) -> Vec<Directive<'_>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("{{") {
        let start = from + k;
        from = start + 2;
        if text[..start].ends_with('\\') {
            continue;
        }
        let inner = text[start + 2..].trim_start();
        let Some(inner) = inner.strip_prefix('#') else {
            continue;
        };
        let name_len = inner
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
            .unwrap_or(inner.len());
        let kind = match &inner[..name_len] {
            "include" => Kind::Include,
            "rustdoc_include" => Kind::RustdocInclude,
            "playground" => Kind::Playground,
            _ => continue,
        };
        let after = &inner[name_len..];
        if !after.starts_with(char::is_whitespace) {
            continue;
        }
        // Arguments run to the first `}`: `}}` must follow them.
        let Some(close) = after.find('}') else {
            continue;
        };
        if !after[close..].starts_with("}}") {
            continue;
        }
        let args = after[..close].trim();
        if args.is_empty() {
            continue;
        }
        let end = text.len() - after.len() + close + 2;
        out.push(Directive {
            start,
            end,
            kind,
            args,
        });
        from = end;
    }
    out
}

/// The file a directive names and what it takes of it.
fn target<'a>(d: &Directive<'a>) -> (&'a str, &'a str) {
    match d.kind {
        Kind::Playground => (d.args.split_whitespace().next().unwrap_or(""), ""),
        Kind::Include | Kind::RustdocInclude => match d.args.split_once(':') {
            Some((path, sel)) => (path.trim(), sel.trim()),
            None => (d.args, ""),
        },
    }
}

/// `target` taken from the folder `dir` (both relative to the library's root, `/`-separated),
/// with `.` and `..` resolved: `None` for an absolute path, or one that leaves the folder that
/// holds the library's root (a book's `src/` includes from `../listings/`, never further out).
pub(crate) fn join(dir: &str, target: &str) -> Option<String> {
    if target.is_empty() || target.starts_with('/') || target.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let ups = parts.iter().filter(|p| **p == "..").count();
    (ups <= 1 && parts.last().is_some_and(|p| *p != "..")).then(|| parts.join("/"))
}

/// The folder of a path relative to the library's root (`""` at the root).
pub(crate) fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The files `text` (in the folder `dir`) includes, as `join` names them.
pub(crate) fn wanted(text: &str, dir: &str) -> Vec<String> {
    if !text.contains("{{") {
        return Vec::new();
    }
    directives(text)
        .iter()
        .filter_map(|d| join(dir, target(d).0))
        .collect()
}

/// `text` (the page at `rel`) with every include directive whose file `inc` holds replaced by
/// what mdBook shows in its place; the paths of those it does not hold go to `missing`, with
/// the byte offset of their directive in `text`.
pub(crate) fn expand<'a>(
    text: &'a str,
    rel: &str,
    inc: &Includes,
    missing: &mut Vec<(usize, String)>,
) -> Cow<'a, str> {
    if !text.contains("{{") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let done = expand_into(
        &mut out,
        text,
        dir_of(rel),
        inc,
        None,
        0,
        &mut |at, path| missing.push((at, path)),
    );
    if !done {
        return Cow::Borrowed(text);
    }
    Cow::Owned(out)
}

/// Writes `text` expanded into `out`; false (and nothing written) when it has no directive.
/// `origin`: where the page's own directive that led here starts (`None` on the page itself).
fn expand_into(
    out: &mut String,
    text: &str,
    dir: &str,
    inc: &Includes,
    origin: Option<usize>,
    depth: usize,
    missing: &mut dyn FnMut(usize, String),
) -> bool {
    let found = directives(text);
    if found.is_empty() {
        return false;
    }
    let mut last = 0;
    for d in found {
        let (path, sel) = target(&d);
        let key = join(dir, path);
        let Some((key, file)) = key.and_then(|k| inc.files.get(&k).map(|f| (k, f))) else {
            missing(origin.unwrap_or(d.start), path.to_string());
            continue;
        };
        out.push_str(&text[last..d.start]);
        last = d.end;
        let taken = match d.kind {
            Kind::Include => select(file, sel),
            Kind::RustdocInclude => hide_outside(file, sel),
            Kind::Playground => {
                let attrs: Vec<&str> = d.args.split_whitespace().skip(1).collect();
                let info = match attrs.is_empty() {
                    true => "rust".to_string(),
                    false => format!("rust,{}", attrs.join(",")),
                };
                format!("```{info}\n{}\n```\n", file.trim_end_matches('\n'))
            }
        };
        let origin = Some(origin.unwrap_or(d.start));
        if depth + 1 >= MAX_DEPTH
            || !expand_into(out, &taken, dir_of(&key), inc, origin, depth + 1, missing)
        {
            out.push_str(&taken);
        }
    }
    out.push_str(&text[last..]);
    true
}

/// A line range `first..=last` (counted from 1, `last` `None` to the end), or an anchor.
enum Selection<'a> {
    Lines(usize, Option<usize>),
    Anchor(&'a str),
}

fn selection(sel: &str) -> Selection<'_> {
    if sel.is_empty() {
        return Selection::Lines(1, None);
    }
    let number = |s: &str| s.trim().parse::<usize>().ok();
    match sel.split_once(':') {
        None => match number(sel) {
            Some(n) => Selection::Lines(n, Some(n)),
            None => Selection::Anchor(sel),
        },
        Some((a, b)) => {
            let first = if a.trim().is_empty() {
                Some(1)
            } else {
                number(a)
            };
            let last = if b.trim().is_empty() {
                Some(None)
            } else {
                number(b).map(Some)
            };
            match (first, last) {
                (Some(f), Some(l)) => Selection::Lines(f.max(1), l),
                _ => Selection::Anchor(sel),
            }
        }
    }
}

/// The anchor a line opens (`ANCHOR: name`) or closes (`ANCHOR_END: name`), in any comment.
fn anchor_mark(line: &str) -> Option<(bool, &str)> {
    for (mark, opens) in [("ANCHOR_END:", false), ("ANCHOR:", true)] {
        if let Some(at) = line.find(mark) {
            let rest = line[at + mark.len()..].trim_start();
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len());
            if len > 0 {
                return Some((opens, &rest[..len]));
            }
        }
    }
    None
}

/// Whether each line of `file` is selected by `sel`, anchor lines never.
fn selected<'a>(file: &'a str, sel: &str) -> Vec<(bool, &'a str)> {
    let lines: Vec<&str> = file.lines().collect();
    match selection(sel) {
        Selection::Lines(first, last) => lines
            .iter()
            .enumerate()
            .filter(|(_, l)| anchor_mark(l).is_none())
            .map(|(i, l)| {
                let n = i + 1;
                (n >= first && last.is_none_or(|last| n <= last), *l)
            })
            .collect(),
        Selection::Anchor(name) => {
            let mut inside = false;
            let mut out = Vec::with_capacity(lines.len());
            for l in lines {
                match anchor_mark(l) {
                    Some((opens, n)) if n == name => inside = opens,
                    Some(_) => {}
                    None => out.push((inside, l)),
                }
            }
            out
        }
    }
}

/// `{{#include}}`: the selected lines.
fn select(file: &str, sel: &str) -> String {
    let kept: Vec<&str> = selected(file, sel)
        .into_iter()
        .filter_map(|(k, l)| k.then_some(l))
        .collect();
    kept.join("\n")
}

/// `{{#rustdoc_include}}`: every line, those not selected hidden (`# `).
fn hide_outside(file: &str, sel: &str) -> String {
    let lines: Vec<String> = selected(file, sel)
        .into_iter()
        .map(|(k, l)| if k { l.to_string() } else { format!("# {l}") })
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inc(files: &[(&str, &str)]) -> Includes {
        let mut i = Includes::default();
        for (k, v) in files {
            i.insert((*k).to_string(), Arc::from(*v));
        }
        i
    }

    fn run(text: &str, rel: &str, i: &Includes) -> (String, Vec<String>) {
        let mut missing = Vec::new();
        let out = expand(text, rel, i, &mut missing).into_owned();
        (out, missing.into_iter().map(|(_, p)| p).collect())
    }

    #[test]
    fn paths_resolve_from_the_page_and_stay_near_the_book() {
        assert_eq!(
            join("ch01", "../listings/a.rs").as_deref(),
            Some("listings/a.rs")
        );
        assert_eq!(
            join("", "../listings/a.rs").as_deref(),
            Some("../listings/a.rs")
        );
        assert_eq!(join("a/b", "./c/../d.md").as_deref(), Some("a/b/d.md"));
        assert_eq!(join("", "../../etc/passwd"), None);
        assert_eq!(join("", "/etc/passwd"), None);
        assert_eq!(join("", "x/.."), None);
        assert_eq!(dir_of("ch01/intro.md"), "ch01");
        assert_eq!(dir_of("intro.md"), "");
    }

    #[test]
    fn ranges_anchors_and_hidden_lines_as_mdbook_shows_them() {
        let rs = "use std::io;\n// ANCHOR: main\nfn main() {\n    // ANCHOR: inner\n    let x = 1;\n    // ANCHOR_END: inner\n}\n// ANCHOR_END: main\n";
        let i = inc(&[("../listings/m.rs", rs)]);
        let (t, m) = run(
            "```rust\n{{#include ../listings/m.rs:main}}\n```\n",
            "p.md",
            &i,
        );
        assert_eq!(t, "```rust\nfn main() {\n    let x = 1;\n}\n```\n");
        assert!(m.is_empty());
        let (t, _) = run("{{#include ../listings/m.rs:1}}", "p.md", &i);
        assert_eq!(t, "use std::io;");
        let (t, _) = run("{{#include ../listings/m.rs::1}}", "p.md", &i);
        assert_eq!(t, "use std::io;");
        let (t, _) = run("{{#include ../listings/m.rs:3:5}}", "p.md", &i);
        assert_eq!(t, "fn main() {\n    let x = 1;");
        let (t, _) = run("{{#include ../listings/m.rs:7:}}", "p.md", &i);
        assert_eq!(t, "}");
        // The whole file: its anchor lines never show.
        let (t, _) = run("{{#include ../listings/m.rs}}", "p.md", &i);
        assert_eq!(t, "use std::io;\nfn main() {\n    let x = 1;\n}");
        let (t, _) = run("{{#rustdoc_include ../listings/m.rs:inner}}", "p.md", &i);
        assert_eq!(t, "# use std::io;\n# fn main() {\n    let x = 1;\n# }");
        let (t, _) = run("{{#playground ../listings/m.rs editable}}", "p.md", &i);
        assert!(t.starts_with("```rust,editable\nuse std::io;\n"), "{t}");
        assert!(t.ends_with("// ANCHOR_END: main\n```\n"), "{t}");
    }

    #[test]
    fn includes_nest_from_their_own_folder_and_missing_files_are_named() {
        let i = inc(&[("parts/a.md", "أ {{#include b.md}}"), ("parts/b.md", "ب")]);
        let (t, m) = run("قبل {{#include parts/a.md}} بعد", "p.md", &i);
        assert_eq!(t, "قبل أ ب بعد");
        assert!(m.is_empty());
        let (t, m) = run(
            "x {{#include nope.rs}} \\{{#include parts/b.md}}",
            "p.md",
            &i,
        );
        assert_eq!(t, "x {{#include nope.rs}} \\{{#include parts/b.md}}");
        assert_eq!(m, ["nope.rs"]);
        // `{{#title}}` and text that only looks like a directive are not includes.
        assert_eq!(
            run("{{#title t}} {{#includes a}} {{ #include }}", "p.md", &i).0,
            "{{#title t}} {{#includes a}} {{ #include }}"
        );
        // A file that includes itself stops at the depth limit.
        let i = inc(&[("loop.md", "x{{#include loop.md}}")]);
        let (t, _) = run("{{#include loop.md}}", "p.md", &i);
        assert_eq!(t.matches('x').count(), MAX_DEPTH);
        assert_eq!(
            wanted("{{#include a.rs:2}} {{#playground ../b.rs x}}", "ch"),
            ["ch/a.rs", "b.rs"]
        );
    }

    #[test]
    fn the_digest_covers_every_included_file() {
        let own = *blake3::hash(b"page").as_bytes();
        assert_eq!(Includes::default().digest(own), own);
        let a = inc(&[("a.rs", "1")]).digest(own);
        assert_ne!(a, own);
        assert_ne!(a, inc(&[("a.rs", "2")]).digest(own));
        assert_ne!(a, inc(&[("b.rs", "1")]).digest(own));
    }
}
