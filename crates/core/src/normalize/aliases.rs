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

impl std::fmt::Display for Direction {
    /// As `direction` is written in `aliases.toml` and `corpus.toml`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::Query => "query",
            Direction::Both => "both",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alias {
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub direction: Direction,
    /// The focused fixture case that justifies this alias (empty for one taken from a
    /// published lexicon or grammar, which names its `source`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub case: String,
    /// The published lexicon, grammar or reference list the alias comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Deserialize)]
struct AliasFile {
    alias: Vec<Alias>,
}

/// The shipped default table.
pub fn shipped() -> Vec<Alias> {
    toml::from_str::<AliasFile>(include_str!("aliases.toml"))
        .expect("shipped alias table parses")
        .alias
}

/// Aliases keyed by the normalized form of each `from` word.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AliasTable {
    by_from: BTreeMap<String, Vec<(String, Direction, usize)>>,
    /// The `both` targets of each `from` form (the index side), hashed: the build looks up
    /// every token of every chunk.
    index: rustc_hash::FxHashMap<String, Vec<String>>,
    /// A prefilter of `index`, so that most tokens are not hashed: the byte lengths of its keys
    /// (bit `min(len, 63)`) and their last bytes (bit per byte value).
    index_lens: u64,
    index_last: [u64; 4],
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
                let both: Vec<String> = targets
                    .iter()
                    .filter(|(_, d, _)| *d == Direction::Both)
                    .map(|(to, _, _)| to.clone())
                    .collect();
                (!both.is_empty()).then(|| (from.clone(), both))
            })
            .collect::<rustc_hash::FxHashMap<String, Vec<String>>>();
        let (mut index_lens, mut index_last) = (0u64, [0u64; 4]);
        for k in index.keys() {
            index_lens |= 1 << k.len().min(63);
            if let Some(&b) = k.as_bytes().last() {
                index_last[(b >> 6) as usize] |= 1 << (b & 63);
            }
        }
        AliasTable {
            by_from,
            index,
            index_lens,
            index_last,
            aliases,
        }
    }

    /// The `both` alias targets of one search token (unsorted; empty for most tokens).
    #[inline]
    pub fn index_targets(&self, token: &str) -> &[String] {
        // Both bits looked at before one branch (whether a token passes is hard to predict).
        let Some(&last) = token.as_bytes().last() else {
            return self.index.get(token).map_or(&[], Vec::as_slice);
        };
        let pass = (self.index_lens >> token.len().min(63))
            & (self.index_last[(last >> 6) as usize] >> (last & 63))
            & 1;
        if pass == 0 {
            return &[];
        }
        self.index.get(token).map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.by_from.is_empty()
    }

    /// Query-side expansions of search tokens: `(added term, the token it came from, alias index)`.
    pub fn expand_query<'a>(
        &'a self,
        tokens: impl Iterator<Item = &'a str>,
    ) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        for t in tokens {
            if let Some(targets) = self.by_from.get(t) {
                for (to, _, i) in targets {
                    if !out
                        .iter()
                        .any(|(x, _, _): &(String, String, usize)| x == to)
                    {
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
    // Each prefix starts with another letter (ا ب ف ك ل و: UTF-8 D8 A7, D8 A8, D9 81, D9 83,
    // D9 84, D9 88), so the first letter names the only one that can fit.
    let p = match token.as_bytes() {
        [0xD8, 0xA7, ..] => ARTICLE_PREFIXES[5],
        [0xD8, 0xA8, ..] => ARTICLE_PREFIXES[1],
        [0xD9, 0x81, ..] => ARTICLE_PREFIXES[3],
        [0xD9, 0x83, ..] => ARTICLE_PREFIXES[2],
        [0xD9, 0x84, ..] => ARTICLE_PREFIXES[4],
        [0xD9, 0x88, ..] => ARTICLE_PREFIXES[0],
        _ => return None,
    };
    strip_prefix(token, p).filter(|rest| rest.len() >= 3 && rest.chars().count() >= 3)
}

/// The article with its clitics (بال كال فال لل ال) that a light stem takes off `s`: the only
/// one that starts with `s`'s first letter (ب ك ف ل ا), if it fits.
pub(super) fn light_article(s: &str) -> Option<&'static str> {
    Some(match s.as_bytes() {
        [0xD8, 0xA8, ..] => "بال",
        [0xD9, 0x83, ..] => "كال",
        [0xD9, 0x81, ..] => "فال",
        [0xD9, 0x84, ..] => "لل",
        [0xD8, 0xA7, ..] => "ال",
        _ => return None,
    })
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
    // The first of بال كال فال لل ال that fits (only one can: each starts with another letter).
    if let Some(rest) = light_article(s).and_then(|p| strip_prefix(s, p))
        && n(rest) >= 3
    {
        s = rest;
    }
    s = strip_light_suffixes(s);
    (s != token).then_some(s)
}

/// [`article_stem`] and [`light_stem_str`] of one token at once (the build asks for both of
/// every word of a chunk): the letter check and the letter count are done once, and most words
/// are decided by their first and last letters.
pub fn word_stems(token: &str) -> (Option<&str>, Option<&str>) {
    if !is_arabic_letters(token) {
        // Not Arabic letters: no light stem; the article stem counts characters.
        return (article_stem(token), None);
    }
    let b = token.as_bytes();
    let len = b.len();
    // Under four letters nothing comes off: a prefix or a suffix needs three letters left.
    let Some(head) = b.first_chunk::<8>() else {
        return (None, None);
    };
    // The decisions below are arithmetic on the first eight bytes rather than branches (which
    // letter a word starts with is hard to predict).
    let x = u64::from_le_bytes(*head);
    let (six, four) = (x & 0xFFFF_FFFF_FFFF, x & 0xFFFF_FFFF);
    // The article stem: one of ARTICLE_PREFIXES, at least three letters left.
    let article_len = 6 * usize::from((six == WAL) | (six == BAL) | (six == KAL) | (six == FAL))
        + 4 * usize::from((four == LL) | (four == AL));
    let article = (article_len > 0 && len - article_len >= 6).then(|| &token[article_len..]);
    // The light stem: و (four letters or more), then بال كال فال لل ال (three letters left).
    let waw = 2 * usize::from(x & 0xFFFF == WAW);
    let s = x >> (8 * waw);
    let (six, four) = (s & 0xFFFF_FFFF_FFFF, s & 0xFFFF_FFFF);
    let prefix = 6 * usize::from((six == BAL) | (six == KAL) | (six == FAL))
        + 4 * usize::from((four == LL) | (four == AL));
    let start = waw + prefix * usize::from(len - waw - prefix >= 6);
    let mut end = len;
    // Most words lose at most two suffixes.
    end -= suffix_step(b, start, end);
    end -= suffix_step(b, start, end);
    loop {
        let step = suffix_step(b, start, end);
        if step == 0 {
            break;
        }
        end -= step;
    }
    (article, (end - start != len).then(|| &token[start..end]))
}

/// The affixes [`word_stems`] compares with the first bytes of a word, as little-endian numbers
/// of their UTF-8 bytes.
const fn le(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut k = 0u64;
    let mut i = b.len();
    while i > 0 {
        i -= 1;
        k = (k << 8) | b[i] as u64;
    }
    k
}
const WAW: u64 = le("و");
const WAL: u64 = le("وال");
const BAL: u64 = le("بال");
const KAL: u64 = le("كال");
const FAL: u64 = le("فال");
const LL: u64 = le("لل");
const AL: u64 = le("ال");

/// Letters of the light suffixes as the second UTF-8 byte with the lead's low bit: ا 0x0A7,
/// ت 0x0AA, ن 0x186, ه 0x187, و 0x188, ي 0x18A (U+0621–U+064A are D8 A1–BF and D9 80–8A).
mod suffix_letter {
    pub(super) const ALEF: u16 = 0x0A7;
    pub(super) const TEH: u16 = 0x0AA;
    pub(super) const NOON: u16 = 0x186;
    pub(super) const HEH: u16 = 0x187;
    pub(super) const WAW: u16 = 0x188;
    pub(super) const YEH: u16 = 0x18A;
}

/// How many bytes [`strip_light_suffixes`] takes off `b[start..end]` in one step (0, 2 or 4),
/// computed without branches. `b` is an Arabic-letters word, `end - start` at least six bytes.
#[inline(always)]
fn suffix_step(b: &[u8], start: usize, end: usize) -> usize {
    use suffix_letter::{ALEF, HEH, NOON, TEH, WAW, YEH};
    let letter = |i: usize| (((b[i] & 1) as u16) << 8) | b[i + 1] as u16;
    let n = (end - start) / 2;
    let (before, last) = (letter(end - 4), letter(end - 2));
    let two = ((before == HEH) & (last == ALEF))
        | ((before == ALEF) & ((last == NOON) | (last == TEH)))
        | (((before == WAW) | (before == YEH)) & (last == NOON))
        | ((before == YEH) & (last == HEH));
    let one = (last == HEH) | (last == YEH);
    let two = two & (n >= 5);
    usize::from(n >= 4) * (4 * usize::from(two) + 2 * usize::from(!two & one))
}

/// Light10's suffixes (ها ان ات ون ين يه ه ي, in this order) off an Arabic-letters slice, one at
/// a time, each only when at least three letters remain, until none comes off. The first suffix
/// of the list that fits is decided by the last two letters: the two-letter suffixes all differ
/// in them, and the one-letter suffixes come after them (يه before ه).
pub(super) fn strip_light_suffixes(mut s: &str) -> &str {
    use suffix_letter::{ALEF, HEH, NOON, TEH, WAW, YEH};
    let letter = |b: &[u8], i: usize| (((b[i] & 1) as u16) << 8) | b[i + 1] as u16;
    loop {
        let b = s.as_bytes();
        let n = b.len() / 2;
        if n < 4 {
            return s;
        }
        let last = letter(b, b.len() - 2);
        let before = letter(b, b.len() - 4);
        let two = matches!(
            (before, last),
            (HEH, ALEF) | (ALEF, NOON) | (ALEF, TEH) | (WAW, NOON) | (YEH, NOON) | (YEH, HEH)
        );
        if two && n >= 5 {
            s = &s[..b.len() - 4];
        } else if matches!(last, HEH | YEH) {
            s = &s[..b.len() - 2];
        } else {
            return s;
        }
    }
}

/// Every character is U+0621–U+064A (UTF-8 D8 A1–D8 BF or D9 80–D9 8A).
pub(super) fn is_arabic_letters(t: &str) -> bool {
    let b = t.as_bytes();
    if !b.len().is_multiple_of(2) {
        return false;
    }
    // Four letters at a time (most words take one or two steps), the last step overlapping the
    // one before it; a word shorter than eight bytes as two overlapping halves.
    let le8 = |at: usize| {
        b.get(at..at + 8)
            .and_then(|c| c.first_chunk::<8>())
            .map_or(0, |c| u64::from_le_bytes(*c))
    };
    let le4 = |at: usize| {
        b.get(at..at + 4)
            .and_then(|c| c.first_chunk::<4>())
            .map_or(0, |c| u32::from_le_bytes(*c) as u64)
    };
    match b.len() {
        0 => true,
        2 => four_arabic_letters((b[0] as u64 | (b[1] as u64) << 8) * 0x0001_0001_0001_0001),
        4 | 6 => four_arabic_letters(le4(0) | le4(b.len() - 4) << 32),
        n => {
            let mut ok = true;
            let mut at = 0;
            while at + 8 < n {
                ok &= four_arabic_letters(le8(at));
                at += 8;
            }
            ok & four_arabic_letters(le8(n - 8))
        }
    }
}

/// Whether eight bytes (little-endian, at an even offset of a UTF-8 string) are four letters
/// U+0621–U+064A, each two-byte pair a 16-bit lane: its lead (low byte) D8 or D9, its
/// continuation (high byte) 80–BF, and the letter's number `(lead & 1) << 6 | cont & 3F`
/// (D8 A1 → 0x21 … D9 8A → 0x4A) in 0x21..=0x4A, checked by adding to each lane so that bit
/// 15 says which side of a bound it is on (a lane's sum stays below 0x10000: no carry).
#[inline]
fn four_arabic_letters(x: u64) -> bool {
    const LOW: u64 = 0x00FF_00FF_00FF_00FF;
    const ONES: u64 = 0x0001_0001_0001_0001;
    const TOP: u64 = 0x8000_8000_8000_8000;
    let (lead, cont) = (x & LOW, (x >> 8) & LOW);
    let lead_ok = (lead | ONES) == 0x00D9_00D9_00D9_00D9;
    let cont_ok = (cont & 0x00C0_00C0_00C0_00C0) == 0x0080_0080_0080_0080;
    let n = ((lead & ONES) << 6) | (cont & 0x003F_003F_003F_003F);
    // n >= 0x21 ⇔ n + 0x7FDF >= 0x8000; n <= 0x4A ⇔ n + 0x7FB5 < 0x8000.
    let at_least = (n + 0x7FDF_7FDF_7FDF_7FDF) & TOP == TOP;
    let at_most = (n + 0x7FB5_7FB5_7FB5_7FB5) & TOP == 0;
    lead_ok & cont_ok & at_least & at_most
}

/// `str::strip_prefix` for short constant affixes, compared byte by byte (no `memcmp` call).
#[inline]
pub(super) fn strip_prefix<'a>(s: &'a str, p: &str) -> Option<&'a str> {
    let (sb, pb) = (s.as_bytes(), p.as_bytes());
    (sb.len() >= pb.len() && sb.iter().zip(pb).all(|(a, b)| a == b)).then(|| &s[pb.len()..])
}

/// Uthmani spelling writes a hamza on the line before alef where modern spelling has alef madda
/// (ٱلۡقُرۡءَانِ → القرءان for القرآن → القران): the variant without the hamza.
pub fn madda_variant(token: &str) -> Option<String> {
    token.contains("ءا").then(|| token.replace("ءا", "ا"))
}

/// The [`madda_variant`]s of the words of a search text, a word's once per occurrence, in text
/// order; only the words around an ءا are looked at.
pub fn madda_variants(search: &str) -> Vec<String> {
    let b = search.as_bytes();
    let mut out = Vec::new();
    let mut word_end = 0;
    for at in memchr::memmem::find_iter(b, "ءا".as_bytes()) {
        if at < word_end {
            continue; // the same word
        }
        let start = b[..at]
            .iter()
            .rposition(|&x| x == b' ')
            .map_or(0, |p| p + 1);
        word_end = b[at..]
            .iter()
            .position(|&x| x == b' ')
            .map_or(b.len(), |p| at + p);
        out.extend(madda_variant(&search[start..word_end]));
    }
    out
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
        let added: Vec<String> = t
            .expand_query(q.split(' '))
            .into_iter()
            .map(|(to, _, _)| to)
            .collect();
        assert!(added.contains(&"اين".to_string()), "{added:?}");
        assert!(added.contains(&"ولد".to_string()), "{added:?}");
        assert!(
            q.contains("فين"),
            "the dialect word stays in the search form"
        );
        // `query` aliases never reach the index.
        assert!(t.index_tokens(["ليه"].into_iter()).is_empty());
        assert_eq!(
            t.index_tokens(["فين", "فين"].into_iter()),
            vec!["اين".to_string()]
        );
    }

    #[test]
    fn every_shipped_alias_names_a_case_or_a_published_source() {
        for a in shipped() {
            assert!(
                a.case.starts_with("alias-") || a.source.as_deref().is_some_and(|s| s.len() > 10),
                "{a:?}"
            );
            assert!(!a.from.is_empty() && !a.to.is_empty());
        }
    }

    #[test]
    fn every_shipped_alias_target_is_one_search_word_and_no_from_word_is_everyday_arabic() {
        let rules = Rules::default();
        for a in shipped() {
            for t in &a.to {
                let n = normalize(t, &rules);
                assert!(!n.is_empty() && !n.contains(' '), "{a:?}");
            }
            // A dialect word that is also an everyday word of the written language with
            // another sense (the loanword keys' collision check) is only a query-side alias.
            for f in &a.from {
                let n = normalize(f, &rules);
                if super::super::native_words::is_native(&n) {
                    assert_eq!(
                        a.direction,
                        Direction::Query,
                        "{f} is everyday Arabic: {a:?}"
                    );
                }
            }
        }
    }

    use proptest::prelude::*;

    /// Light10's suffix loop in its plain form (the list in order, restarted after each strip):
    /// the reference for `strip_light_suffixes`.
    fn strip_suffixes_reference(mut s: &str) -> &str {
        let mut changed = true;
        while changed {
            changed = false;
            for suf in ["ها", "ان", "ات", "ون", "ين", "يه", "ه", "ي"] {
                if let Some(rest) = s.strip_suffix(suf)
                    && rest.chars().count() >= 3
                {
                    s = rest;
                    changed = true;
                    break;
                }
            }
        }
        s
    }

    /// Words of Arabic letters, mostly the ones the affixes are made of, with spaces and the odd
    /// Latin letter or hamza.
    fn affix_words() -> impl Strategy<Value = String> {
        let ch = prop_oneof![
            6 => prop::sample::select(vec!['ا', 'ت', 'ن', 'ه', 'و', 'ي', 'ل', 'ب', 'ك', 'ف', 'ء']),
            3 => (0x0621u32..0x064B).prop_map(|u| char::from_u32(u).unwrap_or('ا')),
            2 => Just(' '),
            1 => Just('a'),
        ];
        prop::collection::vec(ch, 0..24).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
        ))]

        /// The last-two-letters decision strips what the suffix-list loop strips.
        #[test]
        fn suffixes_as_the_list_loop(s in affix_words()) {
            for w in s.split(' ').filter(|w| is_arabic_letters(w)) {
                prop_assert_eq!(strip_light_suffixes(w), strip_suffixes_reference(w), "{}", w);
            }
        }

        /// The first-letter dispatch strips what the prefix-list loops strip.
        #[test]
        fn stems_as_the_prefix_loops(s in affix_words()) {
            for w in s.split(' ').filter(|w| !w.is_empty()) {
                let mut article = None;
                for p in ARTICLE_PREFIXES {
                    if let Some(rest) = w.strip_prefix(p)
                        && rest.chars().count() >= 3
                    {
                        article = Some(rest);
                        break;
                    }
                }
                prop_assert_eq!(article_stem(w), article, "{}", w);
                let light = is_arabic_letters(w).then(|| {
                    let mut t = w;
                    if let Some(rest) = t.strip_prefix('و')
                        && rest.chars().count() >= 3
                    {
                        t = rest;
                    }
                    for p in ["بال", "كال", "فال", "لل", "ال"] {
                        if let Some(rest) = t.strip_prefix(p)
                            && rest.chars().count() >= 3
                        {
                            t = rest;
                            break;
                        }
                    }
                    strip_suffixes_reference(t)
                });
                prop_assert_eq!(light_stem_str(w), light.filter(|l| *l != w), "{}", w);
            }
        }

        /// Both stems at once are the two stems one by one.
        #[test]
        fn word_stems_as_each_stem(s in affix_words()) {
            for w in s.split(' ') {
                prop_assert_eq!(word_stems(w), (article_stem(w), light_stem_str(w)), "{}", w);
            }
        }

        /// The madda variants found around each ءا are those of every word.
        #[test]
        fn madda_variants_as_per_word(s in affix_words()) {
            let per_word: Vec<String> = s.split(' ').filter(|w| !w.is_empty()).filter_map(madda_variant).collect();
            prop_assert_eq!(madda_variants(&s), per_word);
        }

        /// The four-letters-at-a-time check is the per-character one, near the bounds of the
        /// range too (U+0620, U+064B, other two-byte letters, ASCII).
        #[test]
        fn arabic_letters_near_the_bounds(v in prop::collection::vec(prop_oneof![
            (0x05F0u32..0x0700).prop_map(|u| char::from_u32(u).unwrap_or('ا')),
            (0x0080u32..0x0800).prop_map(|u| char::from_u32(u).unwrap_or('ا')),
            Just('a'), Just(' '), Just('ا'),
        ], 0..20)) {
            let s: String = v.into_iter().collect();
            let per_char = s.len().is_multiple_of(2) && s.chars().all(|c| ('\u{0621}'..='\u{064A}').contains(&c));
            prop_assert_eq!(is_arabic_letters(&s), per_char, "{:?}", s);
        }

        /// The branch-free letter check is the per-character one.
        #[test]
        fn arabic_letters_as_per_char(s in affix_words()) {
            let per_char = s.len() % 2 == 0 && s.chars().all(|c| ('\u{0621}'..='\u{064A}').contains(&c));
            prop_assert_eq!(is_arabic_letters(&s), per_char);
        }
    }
}
