//! excerpt: the window of a chunk's unaltered `text` that shows why it matched, with the words
//! the question matched marked.
//!
//! The ranking matches in search text, which normalization made from the evidence (diacritics,
//! tatweel and invisible characters dropped, letter variants, presentation forms and Latin case
//! folded, punctuation turned to spaces), so an offset in search text is no offset in `text`.
//! The excerpt never maps one to the other: it splits `text` itself into words as written
//! ([`words`]: runs of letters, digits and the marks and joiners attached to them), normalizes
//! each word on its own and marks it when one of its index terms (its search tokens, spelling
//! variants, index-side aliases and stems, loanword key or stem key) is a term of a topic word of
//! the question. A mark therefore always covers whole words as written, with their diacritics,
//! and the excerpt with its marks removed and its HTML unescaped is a substring of `text`.

use rustc_hash::FxHashMap;

use super::QueryWord;
use crate::normalize::{Rules, WordExtras};

/// The question's topic words, as what a word of the evidence is matched against: each surface
/// term and each stem key with the set of question words (a bit each, the first 64) it stands for.
pub struct Marker<'a> {
    surface: FxHashMap<&'a str, u64>,
    stems: FxHashMap<&'a str, u64>,
    rules: &'a Rules,
    extras: WordExtras<'a>,
}

impl<'a> Marker<'a> {
    /// A marker of `words` (the question's topic words, or all its words when it has no topic
    /// word): their terms of positive weight.
    pub fn new(words: &[&'a QueryWord], rules: &'a Rules, extras: WordExtras<'a>) -> Self {
        let mut surface: FxHashMap<&str, u64> = FxHashMap::default();
        let mut stems: FxHashMap<&str, u64> = FxHashMap::default();
        for (i, w) in words.iter().take(64).enumerate() {
            for t in w.terms.iter().filter(|t| t.weight > 0.0) {
                let set = if t.is_stem { &mut stems } else { &mut surface };
                *set.entry(t.term.as_str()).or_default() |= 1 << i;
            }
        }
        Marker {
            surface,
            stems,
            rules,
            extras,
        }
    }

    /// The question words a word of the evidence (as written) matches, a bit each; 0 when it
    /// matches none.
    pub fn words_of(&self, word: &str) -> u64 {
        if self.surface.is_empty() && self.stems.is_empty() {
            return 0;
        }
        let (search, variants) = crate::normalize::normalize_with_variants(word, self.rules);
        let of = |t: &str| self.surface.get(t).copied().unwrap_or(0);
        let mut m = 0;
        for tok in crate::normalize::tokens(&search) {
            m |= of(tok);
            if let Some(v) = crate::normalize::aliases::madda_variant(tok) {
                m |= of(&v);
            }
            self.extras.each(tok, |t| m |= of(t));
            if !self.stems.is_empty()
                && let Some(k) = crate::normalize::stem::stem(tok)
            {
                m |= self.stems.get(k.as_str()).copied().unwrap_or(0);
            }
        }
        for v in &variants {
            m |= of(v);
        }
        m
    }
}

/// The words of `text` as written, as byte ranges: maximal runs of letters, digits, combining
/// marks, tatweel and the zero-width joiners. Everything else (spaces, punctuation, symbols)
/// separates words, so a word never starts or ends inside a grapheme cluster.
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (in_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

fn in_word(c: char) -> bool {
    // The common cases first, without the Unicode tables: ASCII, and the Arabic block's letters,
    // tatweel and harakat (U+0620–U+065F, all letters or combining marks).
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    if ('\u{0620}'..='\u{065f}').contains(&c) {
        return true;
    }
    c.is_alphanumeric()
        || unicode_normalization::char::is_combining_mark(c)
        || matches!(c, '\u{0640}' | '\u{200c}' | '\u{200d}')
}

/// The excerpt of `text`: the window of `size` words holding the most distinct question words
/// (then the most matched words; the earliest of equals), moved to put its matches in its
/// middle, HTML-escaped, each matched word in
/// `<mark>…</mark>`. With no match, the first `size` words. `seen` caches what each word as
/// written matched, across the excerpts of one answer.
pub fn excerpt<'t>(
    text: &'t str,
    marker: &Marker<'_>,
    size: usize,
    seen: &mut FxHashMap<&'t str, u64>,
) -> Excerpt {
    let spans = words(text);
    if spans.is_empty() {
        return Excerpt::default();
    }
    let masks: Vec<u64> = spans
        .iter()
        .map(|&(s, e)| {
            let w = &text[s..e];
            *seen.entry(w).or_insert_with(|| marker.words_of(w))
        })
        .collect();
    let size = size.max(1).min(spans.len());
    let mut best = (0, (0u32, 0usize));
    for start in 0..=spans.len() - size {
        let window = &masks[start..start + size];
        let distinct = window.iter().fold(0u64, |a, m| a | m).count_ones();
        let matched = window.iter().filter(|m| **m != 0).count();
        if (distinct, matched) > best.1 {
            best = (start, (distinct, matched));
        }
    }
    // The matches in the middle of the window, so the reader sees words on both sides of them.
    let mut start = best.0;
    let matched: Vec<usize> = (start..start + size).filter(|&i| masks[i] != 0).collect();
    if let (Some(&first), Some(&last)) = (matched.first(), matched.last()) {
        let centred = ((first + last) / 2).saturating_sub(size / 2);
        start = centred
            .min(first)
            .min(spans.len() - size)
            .max(last + 1 - size.min(last + 1));
    }
    let mut out = String::new();
    let mut at = spans[start].0;
    let shown = densest(&masks, &matched).map_or(at, |i| spans[i].0);
    for i in start..start + size {
        let (s, e) = spans[i];
        escape_into(&text[at..s], &mut out);
        if masks[i] != 0 {
            out.push_str("<mark>");
            escape_into(&text[s..e], &mut out);
            out.push_str("</mark>");
        } else {
            escape_into(&text[s..e], &mut out);
        }
        at = e;
    }
    Excerpt {
        html: out,
        at: shown,
    }
}

/// How many words after a marked word still count as near it, for [`densest`].
const NEAR: usize = 12;

/// The marked word (an index into `masks`, one of `matched`) that begins the run of `NEAR`
/// words matching the most distinct question words, the first such: where what answers begins
/// (a word matched alone earlier, by its stem, does not take the link from the sentence that
/// holds the question's words together).
fn densest(masks: &[u64], matched: &[usize]) -> Option<usize> {
    let mut best: Option<(usize, u32)> = None;
    for (k, &i) in matched.iter().enumerate() {
        let distinct = matched[k..]
            .iter()
            .take_while(|&&j| j < i + NEAR)
            .fold(0u64, |a, &j| a | masks[j])
            .count_ones();
        if best.is_none_or(|(_, d)| distinct > d) {
            best = Some((i, distinct));
        }
    }
    best.map(|(i, _)| i)
}

/// An excerpt and where in `text` what it shows begins: the marked word that begins its
/// densest run of matches ([`densest`]), or its first word when nothing is marked (a UTF-8 byte
/// offset).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Excerpt {
    pub html: String,
    pub at: usize,
}

/// `s` with `&`, `<`, `>`, `"` and `'` as HTML character references, appended to `out`: safe
/// in element content and quoted attribute values.
pub fn escape_into(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// An excerpt as plain text: its marks removed and its character references decoded (the
/// substring of `text` it shows).
pub fn unmarked(excerpt: &str) -> String {
    excerpt
        .replace("<mark>", "")
        .replace("</mark>", "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests;
