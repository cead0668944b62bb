//! The heading ids a site generator gives headings that have no explicit one, so a citation can
//! link the section its evidence lies in (`[[library]] anchors`). Pure.
//!
//! Each rule is the generator's own, with its way of telling repeated headings apart:
//! - `github`: github-slugger (GitHub, Starlight and Astro, Docusaurus, Hugo's `github` ids):
//!   lower case, every character but letters, marks, digits, `_`, `-` and spaces dropped, spaces
//!   as `-`; a repeat gets `-1`, `-2`, ….
//! - `vitepress`: VitePress's `slugify`: NFKD with Latin combining marks dropped, runs of spaces
//!   and ASCII punctuation as one `-`, no `-` at either end, `_` before a leading digit, lower
//!   case; a repeat gets `-1`, `-2`, ….
//! - `mkdocs`: Python-Markdown's `toc` slugify: NFKD, non-ASCII dropped, then word characters,
//!   spaces and `-` kept, lower case, runs of spaces and `-` as one `-`; a repeat (or an empty id,
//!   which an Arabic heading makes) gets `_1`, `_2`, ….
//! - `mdbook`: mdBook's `normalize_id`: letters, digits, `_` and `-` kept (ASCII lower-cased),
//!   white space as `-`; a repeat gets `-1`, `-2`, ….
//!
//! `explicit` (the default) generates nothing: only ids written in the source link. An explicit
//! id always wins, and takes its place among the ids a repeat is told apart from.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization;

/// How a library's site names headings that have no explicit id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnchorRule {
    #[default]
    Explicit,
    Github,
    Vitepress,
    Mkdocs,
    Mdbook,
}

/// The ids of a page's headings in order, as its generator gives them: `explicit` where the
/// source wrote one, else the rule's slug of `text`, told apart from the ids before it.
/// `None` for a heading the rule gives no id (`explicit`, or a slug left empty).
pub(crate) struct Slugger {
    rule: AnchorRule,
    seen: HashSet<String>,
}

impl Slugger {
    pub(crate) fn new(rule: AnchorRule) -> Self {
        Slugger {
            rule,
            seen: HashSet::new(),
        }
    }

    /// The id of the next heading of the page.
    pub(crate) fn next(&mut self, text: &str, explicit: Option<&str>) -> Option<String> {
        if let Some(id) = explicit {
            self.seen.insert(id.to_string());
            return Some(id.to_string());
        }
        let base = match self.rule {
            AnchorRule::Explicit => return None,
            AnchorRule::Github => github(text),
            AnchorRule::Vitepress => vitepress(text),
            AnchorRule::Mkdocs => mkdocs(text),
            AnchorRule::Mdbook => mdbook(text),
        };
        let sep = if self.rule == AnchorRule::Mkdocs {
            '_'
        } else {
            '-'
        };
        // Python-Markdown numbers an empty id too; the others leave such a heading without one.
        if base.is_empty() && sep == '-' {
            return None;
        }
        let mut id = base.clone();
        let mut n = 1;
        while id.is_empty() || self.seen.contains(&id) {
            id = format!("{base}{sep}{n}");
            n += 1;
        }
        self.seen.insert(id.clone());
        Some(id)
    }
}

fn github(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|&c| {
            c.is_alphanumeric()
                || unicode_normalization::char::is_combining_mark(c)
                || matches!(c, '_' | '-' | ' ')
        })
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn vitepress(text: &str) -> String {
    const SPECIAL: &str = "~`!@#$%^&*()-_+=[]{}|\\;:\"'“”‘’<>,.?/";
    let mut out = String::new();
    let mut dash = false;
    for c in text.nfkd() {
        if ('\u{0300}'..='\u{036f}').contains(&c) || c.is_control() {
            continue;
        }
        if c.is_whitespace() || SPECIAL.contains(c) {
            dash = true;
            continue;
        }
        if dash && !out.is_empty() {
            out.push('-');
        }
        dash = false;
        out.push(c);
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out.to_lowercase()
}

fn mkdocs(text: &str) -> String {
    let ascii: String = text.nfkd().filter(char::is_ascii).collect();
    let kept: String = ascii
        .chars()
        .filter(|&c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-') || c.is_whitespace())
        .collect();
    let mut out = String::new();
    for (i, part) in kept
        .trim()
        .to_lowercase()
        .split(|c: char| c == '-' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        if i > 0 {
            out.push('-');
        }
        out.push_str(part);
    }
    // A leading or trailing `-` of the heading itself is kept by Python-Markdown's strip of
    // spaces only; headings rarely have one, and joining the parts drops it.
    out
}

fn mdbook(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '-') {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(rule: AnchorRule, headings: &[(&str, Option<&str>)]) -> Vec<Option<String>> {
        let mut s = Slugger::new(rule);
        headings.iter().map(|(t, e)| s.next(t, *e)).collect()
    }

    fn some(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some(s.to_string())).collect()
    }

    /// Ids written by hand from each generator's output on the same headings.
    #[test]
    fn each_rule_names_headings_as_its_generator_does() {
        let headings = [
            ("Getting Started", None),
            ("التثبيت والإعداد", None),
            ("Getting Started", None),
            ("API: `useState()` & friends", None),
            ("2. الخطوة الثانية", None),
            ("Custom", Some("my-id")),
            ("my id", None),
        ];
        assert_eq!(
            ids(AnchorRule::Github, &headings),
            some(&[
                "getting-started",
                "التثبيت-والإعداد",
                "getting-started-1",
                "api-usestate--friends",
                "2-الخطوة-الثانية",
                "my-id",
                "my-id-1",
            ])
        );
        // VitePress slugs the NFKD form: إ is ا and a combining hamza below in its ids.
        let nfkd = |s: &str| s.nfkd().collect::<String>();
        assert_eq!(
            ids(AnchorRule::Vitepress, &headings),
            some(&[
                "getting-started",
                &nfkd("التثبيت-والإعداد"),
                "getting-started-1",
                "api-usestate-friends",
                "_2-الخطوة-الثانية",
                "my-id",
                "my-id-1",
            ])
        );
        assert_eq!(
            ids(AnchorRule::Mkdocs, &headings),
            some(&[
                "getting-started",
                "_1",
                "getting-started_1",
                "api-usestate-friends",
                "2",
                "my-id",
                "my-id_1",
            ])
        );
        assert_eq!(
            ids(AnchorRule::Mdbook, &headings),
            some(&[
                "getting-started",
                "التثبيت-والإعداد",
                "getting-started-1",
                "api-usestate--friends",
                "2-الخطوة-الثانية",
                "my-id",
                "my-id-1",
            ])
        );
        assert_eq!(
            ids(AnchorRule::Explicit, &headings),
            [
                None,
                None,
                None,
                None,
                None,
                Some("my-id".to_string()),
                None
            ]
        );
    }

    #[test]
    fn diacritics_stay_in_github_and_vitepress_ids() {
        assert_eq!(github("الصَّلاة"), "الصَّلاة");
        assert_eq!(vitepress("الصَّلاة"), "الصَّلاة");
        assert_eq!(vitepress("Café déjà"), "cafe-deja");
    }
}
