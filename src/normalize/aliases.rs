//! Recall aliases: lossy, recall-oriented word pairs (Egyptian → MSA), kept isolated and
//! additive. They never touch `text` or replace `search_text` tokens: on the query side they add
//! terms; for `both` aliases the build also records, per chunk, the MSA forms of colloquial words
//! it contains, in the lexical artifact's separate alias token set.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Rules, normalize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Expand questions only.
    Query,
    /// Expand questions and index the MSA forms of colloquial words in chunks.
    Both,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alias {
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub direction: Direction,
    /// The focused fixture case that justifies this alias.
    pub case: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Deserialize)]
struct AliasFile {
    alias: Vec<Alias>,
}

/// The shipped default table.
pub fn shipped() -> Vec<Alias> {
    toml::from_str::<AliasFile>(include_str!("aliases.toml")).expect("shipped alias table parses").alias
}

/// Aliases keyed by the normalized form of each `from` word.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AliasTable {
    by_from: BTreeMap<String, Vec<(String, Direction, usize)>>,
    /// The `both` targets of each `from` form (the index side), hashed: the build looks up
    /// every token of every chunk.
    index: rustc_hash::FxHashMap<String, Vec<String>>,
    pub aliases: Vec<Alias>,
}

impl AliasTable {
    pub fn new(aliases: Vec<Alias>, rules: &Rules) -> Self {
        let mut by_from: BTreeMap<String, Vec<(String, Direction, usize)>> = BTreeMap::new();
        for (i, a) in aliases.iter().enumerate() {
            for f in &a.from {
                let key = normalize(f, rules);
                for t in &a.to {
                    for tok in normalize(t, rules).split(' ').filter(|s| !s.is_empty()) {
                        let e = by_from.entry(key.clone()).or_default();
                        if !e.iter().any(|(x, _, _)| x == tok) {
                            e.push((tok.to_string(), a.direction, i));
                        }
                    }
                }
            }
        }
        let index = by_from
            .iter()
            .filter_map(|(from, targets)| {
                let both: Vec<String> = targets.iter().filter(|(_, d, _)| *d == Direction::Both).map(|(to, _, _)| to.clone()).collect();
                (!both.is_empty()).then(|| (from.clone(), both))
            })
            .collect();
        AliasTable { by_from, index, aliases }
    }

    /// The `both` alias targets of one search token (unsorted; empty for most tokens).
    #[inline]
    pub fn index_targets(&self, token: &str) -> &[String] {
        if self.index.is_empty() {
            return &[];
        }
        self.index.get(token).map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.by_from.is_empty()
    }

    /// Query-side expansions of search tokens: `(added term, the token it came from, alias index)`.
    pub fn expand_query<'a>(&'a self, tokens: impl Iterator<Item = &'a str>) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        for t in tokens {
            if let Some(targets) = self.by_from.get(t) {
                for (to, _, i) in targets {
                    if !out.iter().any(|(x, _, _): &(String, String, usize)| x == to) {
                        out.push((to.clone(), t.to_string(), *i));
                    }
                }
            }
        }
        out
    }

    /// Index-side alias tokens of a chunk's search tokens (`both` aliases only), sorted, unique.
    pub fn index_tokens<'a>(&self, tokens: impl Iterator<Item = &'a str>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in tokens {
            out.extend(self.index_targets(t).iter().cloned());
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Clitic + definite-article prefixes stripped for the additive article-stem tokens, longest first.
const ARTICLE_PREFIXES: [&str; 6] = ["وال", "بال", "كال", "فال", "لل", "ال"];

/// The article stem of a search token (`الميلاد` → `ميلاد`, `والكنيسه` → `كنيسه`), when at
/// least three letters remain. Only the article and a clitic before it: single-letter
/// prefixes (و، ب، ل) are left alone, since stripping them breaks words like بيت and ولد.
pub fn article_stem(token: &str) -> Option<&str> {
    for p in ARTICLE_PREFIXES {
        if let Some(rest) = token.strip_prefix(p) {
            if rest.chars().count() >= 3 {
                return Some(rest);
            }
        }
    }
    None
}

/// A light stem in the spirit of Light10 (Larkey et al.), over search forms (ة already ه, ى
/// already ي): a leading و, the article with its clitics, then common suffixes, each only when
/// at least three letters remain. Used only as an additive, lower-weight token — never in
/// `search_text` — because stems merge words (arabic.md §3 rows 32–33).
pub fn light_stem(token: &str) -> Option<String> {
    light_stem_str(token).map(str::to_string)
}

/// [`light_stem`] without the allocation: the stem is a slice of the token.
pub fn light_stem_str(token: &str) -> Option<&str> {
    // Every character is U+0621–U+064A (two UTF-8 bytes), so a slice's letters are its bytes / 2.
    let n = |s: &str| s.len() / 2;
    if token.is_empty() || !is_arabic_letters(token) {
        return None;
    }
    let mut s = token;
    if let Some(rest) = strip_prefix(s, "و")
        && n(rest) >= 3
    {
        s = rest;
    }
    for p in ["بال", "كال", "فال", "لل", "ال"] {
        if let Some(rest) = strip_prefix(s, p)
            && n(rest) >= 3
        {
            s = rest;
            break;
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for suf in ["ها", "ان", "ات", "ون", "ين", "يه", "ه", "ي"] {
            if let Some(rest) = strip_suffix(s, suf)
                && n(rest) >= 3
            {
                s = rest;
                changed = true;
                break;
            }
        }
    }
    (s != token).then_some(s)
}

/// Every character is U+0621–U+064A (UTF-8 D8 A1–D8 BF or D9 80–D9 8A).
fn is_arabic_letters(t: &str) -> bool {
    let b = t.as_bytes();
    b.len().is_multiple_of(2) && b.chunks_exact(2).all(|p| matches!((p[0], p[1]), (0xD8, 0xA1..=0xBF) | (0xD9, 0x80..=0x8A)))
}

/// `str::strip_prefix` for short constant affixes, compared byte by byte (no `memcmp` call).
#[inline]
pub(super) fn strip_prefix<'a>(s: &'a str, p: &str) -> Option<&'a str> {
    let (sb, pb) = (s.as_bytes(), p.as_bytes());
    (sb.len() >= pb.len() && sb.iter().zip(pb).all(|(a, b)| a == b)).then(|| &s[pb.len()..])
}

/// `str::strip_suffix`, byte by byte from the end (the last byte tells most Arabic letters apart).
#[inline]
pub(super) fn strip_suffix<'a>(s: &'a str, p: &str) -> Option<&'a str> {
    let (sb, pb) = (s.as_bytes(), p.as_bytes());
    let k = sb.len().checked_sub(pb.len())?;
    sb[k..].iter().rev().zip(pb.iter().rev()).all(|(a, b)| a == b).then(|| &s[..k])
}

/// Uthmani spelling writes a hamza on the line before alef where modern spelling has alef madda
/// (ٱلۡقُرۡءَانِ → القرءان for القرآن → القران): the variant without the hamza.
pub fn madda_variant(token: &str) -> Option<String> {
    token.contains("ءا").then(|| token.replace("ءا", "ا"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn light_stems_and_madda() {
        assert_eq!(super::light_stem("والمعلمين").as_deref(), Some("معلم"));
        assert_eq!(super::light_stem("الميلاد").as_deref(), Some("ميلاد"));
        assert_eq!(super::light_stem("كتاب"), None);
        assert_eq!(super::light_stem("ولد"), None);
        assert_eq!(super::light_stem("react"), None);
        assert_eq!(super::madda_variant("والقرءان").as_deref(), Some("والقران"));
    }

    #[test]
    fn article_stems() {
        assert_eq!(super::article_stem("الميلاد"), Some("ميلاد"));
        assert_eq!(super::article_stem("والكنيسه"), Some("كنيسه"));
        assert_eq!(super::article_stem("للعالم"), Some("عالم"));
        assert_eq!(super::article_stem("الله"), None);
        assert_eq!(super::article_stem("بيت"), None);
        assert_eq!(super::article_stem("ولد"), None);
    }

    use super::*;

    #[test]
    fn shipped_table_expands_fein_and_keeps_the_dialect_word() {
        let rules = Rules::default();
        let t = AliasTable::new(shipped(), &rules);
        let q = normalize("فين اتولد السيد المسيح؟", &rules);
        let added: Vec<String> = t.expand_query(q.split(' ')).into_iter().map(|(to, _, _)| to).collect();
        assert!(added.contains(&"اين".to_string()), "{added:?}");
        assert!(added.contains(&"ولد".to_string()), "{added:?}");
        assert!(q.contains("فين"), "the dialect word stays in the search form");
        // `query` aliases never reach the index.
        assert!(t.index_tokens(["ليه"].into_iter()).is_empty());
        assert_eq!(t.index_tokens(["فين", "فين"].into_iter()), vec!["اين".to_string()]);
    }

    #[test]
    fn every_shipped_alias_names_a_case() {
        for a in shipped() {
            assert!(a.case.starts_with("alias-"), "{a:?}");
            assert!(!a.from.is_empty() && !a.to.is_empty());
        }
    }
}
