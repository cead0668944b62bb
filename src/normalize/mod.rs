//! normalize: Arabic `search_text`, a separate normalized form of the evidence used only for
//! lexical matching and as embedding input. `rules` is the ordered, named rule pipeline (pure,
//! no I/O); `aliases` the isolated, additive recall aliases. Evidence `Text` is never changed.

pub mod aliases;
pub mod latin;
mod memo;
pub mod query_words;
mod rules;
pub mod stem;

pub use rules::{
    ALL_RULE_NAMES, Change, LOSSY_RULE_NAMES, NORMALIZATION_UNICODE_VERSION, RULES_VERSION, Rules, explain, normalize, normalize_into, normalize_with_variants, tokens, variants,
};

use crate::text::{SearchText, Text, Tokens};

/// The search form of one evidence text. Reads the `Text` alone.
pub fn search_text(text: &Text, rules: &Rules) -> SearchText {
    SearchText::from_normalized(normalize(text.as_str(), rules))
}

/// The search form and its additive variants (e.g. Uthmani dagger alef read as ا).
pub fn search_text_with_variants(text: &Text, rules: &Rules) -> (SearchText, Vec<String>) {
    let (primary, vars) = normalize_with_variants(text.as_str(), rules);
    (SearchText::from_normalized(primary), vars)
}

/// Normalizes a question the same way as the corpus.
pub fn query_text(q: &str, rules: &Rules) -> SearchText {
    SearchText::from_normalized(normalize(q, rules))
}

/// The search fields of one chunk, as the build indexes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkFields {
    pub search_text: SearchText,
    /// Additive recall tokens: dagger-alef variants, `both` aliases, article and light stems,
    /// Uthmani madda variants.
    pub extra_tokens: Tokens,
    /// The document title and the chunk's headings: their words, light stems and stem keys.
    pub context_tokens: Tokens,
}

/// Everything the build derives from one chunk's text for lexical search (the `normalize`
/// stage; `askzico bench --micro` measures this function). `title` and `headings` give the
/// context tokens; `article_stems` adds article and light stems (`[aliases] article_stems`).
pub fn chunk_fields(text: &Text, title: Option<&str>, headings: &[String], rules: &Rules, aliases: &aliases::AliasTable, article_stems: bool) -> ChunkFields {
    let (search, variants) = search_text_with_variants(text, rules);
    // Uthmani madda variants: most texts have no ءا at all.
    let madda = aliases::madda_variants(search.as_str());
    // Borrowed: aliases and stems are slices of a word or of the alias table. The result is
    // sorted and deduplicated, so a word seen recently is skipped (a chunk repeats its words).
    let mut extra: Vec<&str> = Vec::with_capacity(search.as_str().len() / 8 + variants.len() + madda.len());
    extra.extend(variants.iter().map(String::as_str));
    extra.extend(madda.iter().map(String::as_str));
    // Whether every token is known to hold no newline: words of a search text without one and
    // slices of them (madda variants are such words, rewritten); the others are looked at.
    let mut no_newline = memchr::memchr(b'\n', search.as_str().as_bytes()).is_none() && variants.iter().all(|v| !v.contains('\n'));
    // Each word once (this thread's memo remembers the words of this chunk, and the stems of
    // words from earlier ones), and recent stems (a stem repeats across the forms of a word).
    let mut stems = Recent::new();
    memo::with_new_chunk(|memo| {
        let mut words = words_of(search.as_str()).map(|t| (t, rules::word_hash(t))).peekable();
        while let Some((t, hash)) = words.next() {
            if let Some(&(_, next)) = words.peek() {
                memo.warm(next);
            }
            let Some((article, light)) = memo.new_word(t, hash) else {
                continue;
            };
            for target in aliases.index_targets(t) {
                no_newline &= !target.contains('\n');
                extra.push(target);
            }
            if article_stems {
                if let Some(a) = article
                    && !stems.seen(a)
                {
                    extra.push(a);
                }
                // Often the same slice as the article stem (الكتاب → كتاب, كتاب).
                if let Some(l) = light
                    && article.is_none_or(|a| a.len() != l.len() || a.as_ptr() != l.as_ptr())
                    && !stems.seen(l)
                {
                    extra.push(l);
                }
            }
        }
    });
    let extra_tokens = if no_newline { Tokens::from_words(extra) } else { Tokens::from_strs(extra) };

    let mut path = String::from(title.unwrap_or_default());
    for h in headings {
        path.push(' ');
        path.push_str(h);
    }
    let context = normalize(&path, rules);
    let stems: Vec<stem::StemKey> = if article_stems { words_of(&context).filter_map(stem::stem_key).collect() } else { Vec::new() };
    let mut ctx: Vec<&str> = Vec::new();
    for t in words_of(&context) {
        ctx.push(t);
        if article_stems && let Some(st) = aliases::light_stem_str(t) {
            ctx.push(st);
        }
    }
    // The stem keys too, so a question's stem key matches a title (عيد الميلاد ↔ اتولد).
    ctx.extend(stems.iter().map(|k| k.as_str()));
    // Words of the context, slices of them and pattern roots of their letters.
    let context_tokens = if memchr::memchr(b'\n', context.as_bytes()).is_none() { Tokens::from_words(ctx) } else { Tokens::from_strs(ctx) };
    ChunkFields { search_text: search, extra_tokens, context_tokens }
}

/// The words of a normalized text (split on ASCII space, empty pieces skipped).
fn words_of(s: &str) -> impl Iterator<Item = &str> {
    tokens(s)
}

/// Recently seen words, direct-mapped (one word per slot, chosen by a hash of the word): says
/// "seen" only for a word seen before, but may forget one when another took its slot. Enough
/// to skip most repeats of a chunk's words without a growing set or an allocation per word.
struct Recent<'a> {
    slots: [&'a str; RECENT_SLOTS],
}

const RECENT_SLOTS: usize = 512;

impl<'a> Recent<'a> {
    fn new() -> Self {
        Recent { slots: [""; RECENT_SLOTS] }
    }

    /// Whether `w` (not empty) is in its slot; if not, it takes the slot.
    #[inline]
    fn seen(&mut self, w: &'a str) -> bool {
        let slot = &mut self.slots[(rules::word_hash(w) >> (64 - RECENT_SLOTS.trailing_zeros())) as usize];
        if same_word(slot, w) {
            return true;
        }
        *slot = w;
        false
    }
}

/// `a == b`, comparing a word of 8 to 16 bytes (most Arabic words) as two numbers rather than
/// with a `memcmp` call.
#[inline]
fn same_word(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    match (a.first_chunk::<8>(), a.last_chunk::<8>(), b.first_chunk::<8>(), b.last_chunk::<8>()) {
        (Some(ah), Some(at), Some(bh), Some(bt)) if a.len() <= 16 => ah == bh && at == bt,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `chunk_fields` as first written: every word occurrence looked up and stemmed, no word
    /// skipped (the reference for the skipping of recent words and stems).
    fn chunk_fields_reference(text: &Text, title: Option<&str>, headings: &[String], rules: &Rules, aliases: &aliases::AliasTable, article_stems: bool) -> ChunkFields {
        let (search, variants) = search_text_with_variants(text, rules);
        let words = || search.as_str().split(' ').filter(|w| !w.is_empty());
        let madda: Vec<String> = words().filter_map(aliases::madda_variant).collect();
        let mut extra: Vec<String> = variants.clone();
        extra.extend(madda);
        for t in words() {
            extra.extend(aliases.index_tokens(std::iter::once(t)));
            if article_stems {
                extra.extend(aliases::article_stem(t).map(str::to_string));
                extra.extend(aliases::light_stem(t));
            }
        }
        let mut path = String::from(title.unwrap_or_default());
        for h in headings {
            path.push(' ');
            path.push_str(h);
        }
        let context = normalize(&path, rules);
        let mut ctx: Vec<String> = Vec::new();
        for t in context.split(' ').filter(|w| !w.is_empty()) {
            ctx.push(t.to_string());
            if article_stems {
                ctx.extend(aliases::light_stem(t));
                ctx.extend(stem::stem(t));
            }
        }
        ChunkFields { search_text: search, extra_tokens: Tokens::new(extra), context_tokens: Tokens::new(ctx) }
    }

    /// Text of few distinct words that repeat (so that words and stems meet again, after other
    /// words took their slots), with the shipped aliases' words, ءا, dagger alef and harakat.
    fn repetitive_text() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            prop::sample::select(vec![
                "الكتاب", "والكتاب", "كتابه", "كتابها", "فين", "اتولد", "الميلاد", "ميلاد", "القرءان", "ٱلرَّحۡمَٰنِ",
                "ٱلصَّلَوٰةَ", "إِبۡرَٰهِـۧمَ", "react", "2024", "ليه", "بالبيت", "للعالم", "المعلمين", "والمعلمون", "ه",
            ])
            .prop_map(str::to_string),
            prop::collection::vec(prop::sample::select(vec!['ا', 'ل', 'ت', 'ن', 'ه', 'و', 'ي', 'ك', 'ب', 'ء', 'م', 'ة']), 1..9)
                .prop_map(|v| v.into_iter().collect::<String>()),
        ];
        prop::collection::vec(word, 0..1200).prop_map(|v| v.join(" "))
    }

    /// Texts of a whole number of 64-byte blocks end with their last word.
    #[test]
    fn tokens_of_whole_blocks() {
        for n in [63, 64, 65, 127, 128, 129] {
            let s = format!("{} {}", "a".repeat(n - 2), "b");
            assert_eq!(tokens(&s).collect::<Vec<_>>(), s.split(' ').collect::<Vec<_>>(), "{n}");
            let spaced = format!("{s} ");
            assert_eq!(tokens(&spaced).collect::<Vec<_>>(), s.split(' ').collect::<Vec<_>>(), "{n} and a space");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
        ))]

        #[test]
        fn chunk_fields_as_the_reference(s in repetitive_text(), title in repetitive_text(), stems in any::<bool>()) {
            let rules = Rules::default();
            let table = aliases::AliasTable::new(aliases::shipped(), &rules);
            let title: String = title.chars().take(200).collect();
            let headings = vec![s.chars().take(60).collect::<String>()];
            let text = Text::new(&s);
            prop_assert_eq!(
                chunk_fields(&text, Some(&title), &headings, &rules, &table, stems),
                chunk_fields_reference(&text, Some(&title), &headings, &rules, &table, stems)
            );
        }

        /// The block-at-a-time word splitter splits like `str::split`, across blocks of 64
        /// bytes and at their edges.
        #[test]
        fn tokens_as_split(s in prop_oneof!["[ اب!a\n]{0,60}", "[ اب!a\n]{0,300}", "[ ا]{0,200}", "[ a]{60,70}", "[ a]{126,130}"]) {
            prop_assert_eq!(tokens(&s).collect::<Vec<_>>(), s.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>());
        }
    }
}
