//! Frontmatter: a YAML (`---`) or TOML (`+++`) block at the very top of a Markdown/MDX file.

use serde_json::{Map, Value};

use crate::diag::Problem;

pub(super) struct Split<'a> {
    pub fields: Map<String, Value>,
    /// The text after the frontmatter.
    pub body: &'a str,
    /// Lines taken by the frontmatter (to map body lines back to file lines).
    pub lines: usize,
}

/// The kind of a frontmatter block, by its opening fence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fence {
    /// `---`, closed by `---` or `...`.
    Yaml,
    /// `+++`, closed by `+++`.
    Toml,
}

impl Fence {
    fn of(text: &str) -> Option<Fence> {
        if text.starts_with("---\n") || text == "---" {
            Some(Fence::Yaml)
        } else if text.starts_with("+++\n") {
            Some(Fence::Toml)
        } else {
            None
        }
    }

    fn marker(self) -> &'static str {
        match self {
            Fence::Yaml => "---",
            Fence::Toml => "+++",
        }
    }
}

/// Splits off and parses the frontmatter. An unterminated or invalid block is an error.
pub(super) fn split(text: &str) -> Result<Split<'_>, Problem> {
    let Some(fence) = Fence::of(text) else {
        return Ok(Split {
            fields: Map::new(),
            body: text,
            lines: 0,
        });
    };
    let marker = fence.marker();
    let inner_start = marker.len() + 1;
    let Some(close) = closing_line(text, fence, inner_start) else {
        return Err(Problem::error(
            "frontmatter",
            format!("unterminated frontmatter: no closing `{marker}` line"),
        )
        .at_line(1)
        .help(format!(
            "close the block with a line holding only `{marker}`"
        )));
    };
    let inner = &text[inner_start.min(close.start)..close.start];
    let lines = text[..close.body_start].matches('\n').count();
    let value: Value = if inner.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        match fence {
            Fence::Yaml => parse_yaml(inner)?,
            Fence::Toml => parse_toml(inner)?,
        }
    };
    let fields = match value {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        other => {
            return Err(Problem::error(
                "frontmatter",
                format!(
                    "frontmatter must be a mapping of keys, found {}",
                    kind(&other)
                ),
            )
            .at_line(2)
            .help("write `key: value` lines between the `---` lines"));
        }
    };
    Ok(Split {
        fields,
        body: &text[close.body_start..],
        lines,
    })
}

/// The closing line of a frontmatter block: where it starts, and where the body after it does.
struct Close {
    start: usize,
    body_start: usize,
}

/// The first line from `from` on that closes the block, if any.
fn closing_line(text: &str, fence: Fence, from: usize) -> Option<Close> {
    let mut pos = from.min(text.len());
    while pos <= text.len() {
        let line_end = text[pos..]
            .find('\n')
            .map(|i| pos + i)
            .unwrap_or(text.len());
        let line = text[pos..line_end].trim_end();
        if line == fence.marker() || (fence == Fence::Yaml && line == "...") {
            return Some(Close {
                start: pos,
                body_start: (line_end + 1).min(text.len()),
            });
        }
        if line_end >= text.len() {
            return None;
        }
        pos = line_end + 1;
    }
    None
}

/// The YAML of a block, or the problem at its file line (the block starts on line 2).
fn parse_yaml(inner: &str) -> Result<Value, Problem> {
    serde_saphyr::from_str::<Value>(inner).map_err(|e| {
        if let Some(p) = budget_problem(&e, inner) {
            return p;
        }
        let loc = e.location();
        let line = loc.map(|l| l.line() as usize + 1).unwrap_or(2);
        let msg = e.to_string();
        let first = msg.lines().next().unwrap_or("");
        // Drop the parser's own "error: line N column M:" (frontmatter-relative) prefix, and its
        // advice to programmers (", set DuplicateKeyPolicy in Options …"): the help says what
        // a writer can do.
        let reason = first
            .find("column")
            .and_then(|at| first[at..].split_once(": "))
            .map_or(first, |(_, r)| r);
        let reason = reason.split_once(", set ").map_or(reason, |(r, _)| r);
        let col = loc
            .map(|l| format!(" column {}", l.column()))
            .unwrap_or_default();
        Problem::error(
            "frontmatter",
            format!("invalid YAML frontmatter at line {line}{col}: {reason}"),
        )
        .at_line(line)
        .help("fix the YAML between the `---` lines (quote values that contain `:` or `#`)")
    })
}

/// The TOML of a block, or the problem at its file line.
fn parse_toml(inner: &str) -> Result<Value, Problem> {
    toml::from_str::<Value>(inner).map_err(|e| {
        let line = e
            .span()
            .map(|s| crate::diag::line_of(inner, s.start) + 1)
            .unwrap_or(2);
        Problem::error(
            "frontmatter",
            format!("invalid TOML frontmatter: {}", e.message()),
        )
        .at_line(line)
        .help("fix the TOML between the `+++` lines")
    })
}

/// A YAML block that breaks the parser's resource budget: most often anchors and aliases that
/// expand exponentially (a "billion laughs"), said in words, not as the parser's debug dump.
fn budget_problem(e: &serde_saphyr::Error, inner: &str) -> Option<Problem> {
    let (reason, line) = yaml_budget_reason(e, inner)?;
    Some(
        Problem::error("frontmatter", format!("the YAML frontmatter {reason}"))
            .at_line(line)
            .help(
                "frontmatter holds a few fields (title, url, domains…): write the values out \
                 instead of repeating anchors (`&name`) through aliases (`*name`)",
            ),
    )
}

/// Why a YAML text (`inner`) broke the parser's resource budget, in words (completing "the YAML
/// …": "uses too many aliases or anchors: expanded, …"), and the line to point at (1-based, the
/// text starting on line 2, after a frontmatter's `---`); `None` for any other error.
pub(crate) fn yaml_budget_reason(e: &serde_saphyr::Error, inner: &str) -> Option<(String, usize)> {
    use serde_saphyr::budget::BudgetBreach as B;
    // The breach, under the snippet and alias wrappers the parser puts around it.
    let mut e = e;
    while let serde_saphyr::Error::WithSnippet { error, .. }
    | serde_saphyr::Error::AliasError { error, .. } = e
    {
        e = error;
    }
    let serde_saphyr::Error::Budget { breach, location } = e else {
        return None;
    };
    // The budget's defaults (`serde_saphyr::Budget::default()`).
    let limits = serde_saphyr::Budget::default();
    let aliases = "uses too many aliases or anchors";
    let reason = match breach {
        B::Aliases { .. } => format!(
            "{aliases} (more than {} `*name` aliases)",
            limits.max_aliases
        ),
        B::Anchors { .. } => format!(
            "{aliases} (more than {} `&name` anchors)",
            limits.max_anchors
        ),
        B::AliasAnchorRatio {
            aliases: a,
            anchors,
        } => {
            format!("{aliases} ({a} `*name` aliases of {anchors} `&name` anchors)")
        }
        B::MergeKeys { .. } => format!(
            "{aliases} (more than {} `<<` merge keys)",
            limits.max_merge_keys
        ),
        B::RecordedAnchorEvents { .. } | B::RecordedAnchorBytes { .. } => {
            format!("{aliases} (the anchored values are too large to repeat)")
        }
        B::Nodes { .. } | B::Events { .. } if inner.contains('*') => format!(
            "{aliases}: expanded, they would make more than {} values",
            limits.max_nodes
        ),
        B::Nodes { .. } | B::Events { .. } => {
            format!("is too large: more than {} values", limits.max_nodes)
        }
        B::Depth { .. } => format!("nests deeper than {} levels", limits.max_depth),
        B::ScalarBytes { .. } => "holds too much text".to_string(),
        other => format!("is over a YAML parser limit ({other:?})"),
    };
    // Where the parser was, or else the first alias, or else the block's first line.
    let line = (location.line() > 0)
        .then(|| location.line() as usize + 1)
        .or_else(|| {
            inner
                .lines()
                .position(|l| l.contains(" *") || l.contains("[*") || l.contains(",*"))
                .map(|i| i + 2)
        })
        .unwrap_or(2);
    Some((reason, line))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// A string field of the frontmatter (numbers are accepted as strings).
pub(super) fn str_field(fields: &Map<String, Value>, key: &str) -> Option<String> {
    match fields.get(key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The frontmatter that marks a draft, which site generators do not publish: `draft: true`
/// (Hugo, Eleventy, Astro, Docusaurus…) or `published: false` (Jekyll); `true`/`false` as text too.
fn draft(fields: &Map<String, Value>) -> Option<&'static str> {
    let is = |key: &str, want: bool| match fields.get(key) {
        Some(Value::Bool(b)) => *b == want,
        Some(Value::String(s)) => {
            s.trim()
                .eq_ignore_ascii_case(if want { "true" } else { "false" })
        }
        _ => false,
    };
    if is("draft", true) {
        Some("draft: true")
    } else if is("published", false) {
        Some("published: false")
    } else {
        None
    }
}

/// The common frontmatter keys, applied to a document. A key of the wrong type is an error:
/// a silently ignored `id` or `domains` would change IDs or drop the document from retrieval.
pub(super) fn apply(
    doc: &mut super::Document,
    fields: Map<String, Value>,
    lib: &super::ExtractSettings,
) -> Result<(), Problem> {
    let wrong = |key: &str, what: &str| {
        Problem::error("frontmatter", format!("frontmatter `{key}` must be {what}"))
            .at_line(2)
            .help(format!("fix `{key}:` in the frontmatter, or remove it"))
    };
    for key in ["title", "id", "url"] {
        match fields.get(key) {
            None | Some(Value::String(_)) | Some(Value::Number(_)) => {}
            Some(_) => return Err(wrong(key, "text")),
        }
    }
    if fields
        .get("id")
        .is_some_and(|v| v.as_str().is_some_and(|s| s.trim().is_empty()))
    {
        return Err(wrong("id", "a non-empty ASCII slug"));
    }
    doc.title = str_field(&fields, "title").map(|t| super::decode_entities(&t).into_owned());
    doc.slug_override = str_field(&fields, "id");
    doc.url = str_field(&fields, "url");
    doc.draft = draft(&fields);
    match fields.get("domains") {
        None => {}
        Some(Value::Array(ds)) if !ds.is_empty() && ds.iter().all(Value::is_string) => {
            doc.domains = Some(
                ds.iter()
                    .filter_map(|d| d.as_str().map(str::to_string))
                    .collect(),
            );
        }
        Some(_) => {
            return Err(wrong(
                "domains",
                "a non-empty list of domain names, e.g. [history]",
            ));
        }
    }
    for key in lib.frontmatter_metadata {
        if let Some(v) = fields.get(key) {
            doc.metadata.insert(key.clone(), v.clone());
        }
    }
    doc.fields = fields;
    Ok(())
}

/// The text of the frontmatter values under `keys` (`[[library]] frontmatter_text`), in that
/// order, as Markdown for the page's renderer: a string as written; a list's strings, and the
/// string values of its maps in their order (a FAQ's `question` and `answer`), each as a
/// paragraph of its own. Other values (numbers, dates, nested lists) show nothing.
pub(super) fn text_of(fields: &Map<String, Value>, keys: &[String]) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for key in keys {
        match fields.get(key) {
            Some(Value::String(s)) => parts.push(s),
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(s) => parts.push(s),
                        Value::Object(m) => parts.extend(m.values().filter_map(Value::as_str)),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Frontmatter keys that hold prose a page may show (a string of eight words or more, or a list
/// with one), other than `title`: what the help of an empty page names.
pub(super) fn prose_keys(fields: &Map<String, Value>) -> Vec<String> {
    let prose = |s: &str| s.split_whitespace().count() >= 8;
    fields
        .iter()
        .filter(|(k, _)| k.as_str() != "title")
        .filter(|(_, v)| match v {
            Value::String(s) => prose(s),
            Value::Array(items) => items.iter().any(|i| match i {
                Value::String(s) => prose(s),
                Value::Object(m) => m.values().filter_map(Value::as_str).any(prose),
                _ => false,
            }),
            _ => false,
        })
        .map(|(k, _)| k.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_text_reads_strings_lists_and_maps_in_order() {
        let s = split("---\ntitle: t\nanswer: |\n  <p>الجواب هنا</p>\nquestion: ما السؤال؟\nfaq:\n  - question: س١\n    answer: ج١\n  - س٢\nweight: 3\n---\n").unwrap();
        let keys = ["question", "answer", "faq", "weight", "missing"].map(String::from);
        assert_eq!(
            text_of(&s.fields, &keys),
            "ما السؤال؟\n\n<p>الجواب هنا</p>\n\nس١\n\nج١\n\nس٢"
        );
        assert_eq!(text_of(&s.fields, &[]), "");
    }

    #[test]
    fn prose_keys_name_the_fields_that_hold_sentences() {
        let s = split("---\ntitle: عنوان طويل جدا من ثماني كلمات أو أكثر هنا\nanswer: هذا جواب طويل فيه ثماني كلمات على الأقل يا صديقي\ntags: [a, b]\nfaq:\n  - q: سؤال\n    a: جواب من كلمات كثيرة تكفي لأن يكون نصا يقرأ\n---\n").unwrap();
        assert_eq!(prose_keys(&s.fields), ["answer", "faq"]);
    }

    #[test]
    fn yaml_and_toml() {
        let s = split("---\ntitle: عنوان\n---\nbody").unwrap();
        assert_eq!(s.fields["title"], "عنوان");
        assert_eq!(s.body, "body");
        assert_eq!(s.lines, 3);
        let s = split("+++\ntitle = \"x\"\n+++\n\nbody").unwrap();
        assert_eq!(s.fields["title"], "x");
    }

    #[test]
    fn unterminated_and_invalid() {
        assert!(split("---\ntitle: x\nbody").is_err());
        let e = split("---\ntitle: [x\n---\n").err().unwrap();
        assert!(e.message.contains("invalid YAML"), "{}", e.message);
        assert!(split("no frontmatter").unwrap().fields.is_empty());
    }

    /// A "billion laughs" is named for what it is, at the line the parser stopped on.
    #[test]
    fn an_alias_bomb_says_so() {
        let mut y = String::from("---\ntitle: t\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 9].join(", ");
            y.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        y.push_str("---\nbody");
        let e = split(&y).err().unwrap();
        assert_eq!(
            e.message,
            "the YAML frontmatter uses too many aliases or anchors: expanded, they would make \
             more than 250000 values"
        );
        assert_eq!(e.line, Some(3));
        // Deep nesting is another limit, said as such.
        let deep = format!("---\nx: {}{}\n---\n", "[".repeat(100), "]".repeat(100));
        let e = split(&deep).err().unwrap();
        assert!(e.message.contains("nests deeper than"), "{}", e.message);
    }
}
