//! normalize: Arabic `search_text`, a separate normalized form of the evidence used only for
//! lexical matching and as embedding input. `rules` is the ordered, named rule pipeline (pure,
//! no I/O); `aliases` the isolated, additive recall aliases. Evidence `Text` is never changed.

pub mod aliases;
pub mod dialect;
pub mod glossary;
pub mod latin;
pub mod loanword;
pub mod native_words;
pub mod query_words;
mod rules;
pub mod stem;

pub use rules::{
    ALL_RULE_NAMES, Change, LOSSY_RULE_NAMES, NORMALIZATION_UNICODE_VERSION, RULES_VERSION, Rules,
    explain, normalize, normalize_into, normalize_with_variants, tokens, variants,
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

/// The words of a heading's explicit id (`props-vs-state` → `props vs state`): in a translated
/// site the original heading, so a question that names a term in English meets the section
/// that translates it. Context only, never evidence.
pub fn anchor_words(id: &str) -> String {
    id.replace(['-', '_', '.'], " ")
}

/// The search fields of one chunk, as the build indexes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkFields {
    pub search_text: SearchText,
    /// Additive recall tokens of the text as a whole: dagger-alef variants and Uthmani madda
    /// variants. The tokens of each search word (its `both` aliases, article and light stems)
    /// are added by the index ([`WordExtras`]), once per distinct term.
    pub extra_tokens: Tokens,
    /// The document title and the chunk's headings (with the words of their explicit ids):
    /// their words, light stems and stem keys.
    pub context_tokens: Tokens,
}

/// Everything the build derives from one chunk's text for lexical search (the `normalize`
/// stage; `askzico-bench micro` measures this function). `title` and `headings` give the
/// context tokens; `article_stems` adds their light stems and stem keys (`[aliases]
/// article_stems`).
pub fn chunk_fields(
    text: &Text,
    title: Option<&str>,
    headings: &[String],
    rules: &Rules,
    article_stems: bool,
) -> ChunkFields {
    let (search, variants) = search_text_with_variants(text, rules);
    // Uthmani madda variants: most texts have no ءا at all.
    let madda = aliases::madda_variants(search.as_str());
    let mut extra: Vec<&str> = Vec::with_capacity(variants.len() + madda.len());
    extra.extend(variants.iter().map(String::as_str));
    extra.extend(madda.iter().map(String::as_str));
    let extra_tokens = Tokens::from_strs(extra);

    let mut path = String::from(title.unwrap_or_default());
    for h in headings {
        path.push(' ');
        path.push_str(h);
    }
    let context = normalize(&path, rules);
    let stems: Vec<stem::StemKey> = if article_stems {
        words_of(&context).filter_map(stem::stem_key).collect()
    } else {
        Vec::new()
    };
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
    let context_tokens = if memchr::memchr(b'\n', context.as_bytes()).is_none() {
        Tokens::from_words(ctx)
    } else {
        Tokens::from_strs(ctx)
    };
    ChunkFields {
        search_text: search,
        extra_tokens,
        context_tokens,
    }
}

/// The additive tokens of one search word, which the index adds to the alias field of every
/// chunk holding the word: its `both` alias targets and, with `[aliases] article_stems`, its
/// article and light stems. Functions of the word alone, so the index computes them once per
/// distinct term of a part of the index, not once per occurrence.
#[derive(Debug, Clone, Copy)]
pub struct WordExtras<'a> {
    aliases: Option<&'a aliases::AliasTable>,
    article_stems: bool,
}

impl<'a> WordExtras<'a> {
    /// No word tokens at all.
    pub const NONE: WordExtras<'static> = WordExtras {
        aliases: None,
        article_stems: false,
    };

    pub fn new(aliases: &'a aliases::AliasTable, article_stems: bool) -> Self {
        WordExtras {
            aliases: Some(aliases),
            article_stems,
        }
    }

    /// Whether a word's `both` alias targets are added (what the tests expect of a part).
    pub fn aliases_on(&self) -> bool {
        self.aliases.is_some_and(|a| !a.is_empty())
    }

    /// Calls `f` on each token of search word `word` (a token may come twice; none is empty or
    /// holds a newline, as in a [`Tokens`] set).
    #[inline]
    pub fn each(&self, word: &str, mut f: impl FnMut(&str)) {
        let mut keep = |t: &str| {
            if !t.is_empty() && memchr::memchr(b'\n', t.as_bytes()).is_none() {
                f(t);
            }
        };
        if let Some(table) = self.aliases {
            for t in table.index_targets(word) {
                keep(t);
            }
            // The loanword key of a Latin word (request → ~RKST), which a question's ريكوست meets.
            if let Some(k) = loanword::latin_key(word) {
                keep(&k);
            }
        }
        if self.article_stems {
            let (article, light) = aliases::word_stems(word);
            if let Some(a) = article {
                keep(a);
            }
            // Often the same slice as the article stem (الكتاب → كتاب, كتاب).
            if let Some(l) = light
                && article.is_none_or(|a| a.len() != l.len() || a.as_ptr() != l.as_ptr())
            {
                keep(l);
            }
        }
    }
}

/// The words of a normalized text (split on ASCII space, empty pieces skipped).
fn words_of(s: &str) -> impl Iterator<Item = &str> {
    tokens(s)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `chunk_fields` written plainly (allocating).
    fn chunk_fields_reference(
        text: &Text,
        title: Option<&str>,
        headings: &[String],
        rules: &Rules,
        article_stems: bool,
    ) -> ChunkFields {
        let (search, variants) = search_text_with_variants(text, rules);
        let words = || search.as_str().split(' ').filter(|w| !w.is_empty());
        let madda: Vec<String> = words().filter_map(aliases::madda_variant).collect();
        let mut extra: Vec<String> = variants.clone();
        extra.extend(madda);
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
        ChunkFields {
            search_text: search,
            extra_tokens: Tokens::new(extra),
            context_tokens: Tokens::new(ctx),
        }
    }

    /// Text of few distinct words that repeat (so that words and stems meet again, after other
    /// words took their slots), with the shipped aliases' words, ءا, dagger alef and harakat.
    fn repetitive_text() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            prop::sample::select(vec![
                "الكتاب",
                "والكتاب",
                "كتابه",
                "كتابها",
                "فين",
                "اتولد",
                "الميلاد",
                "ميلاد",
                "القرءان",
                "ٱلرَّحۡمَٰنِ",
                "ٱلصَّلَوٰةَ",
                "إِبۡرَٰهِـۧمَ",
                "react",
                "2024",
                "ليه",
                "بالبيت",
                "للعالم",
                "المعلمين",
                "والمعلمون",
                "ه",
            ])
            .prop_map(str::to_string),
            prop::collection::vec(
                prop::sample::select(vec![
                    'ا', 'ل', 'ت', 'ن', 'ه', 'و', 'ي', 'ك', 'ب', 'ء', 'م', 'ة'
                ]),
                1..9
            )
            .prop_map(|v| v.into_iter().collect::<String>()),
        ];
        prop::collection::vec(word, 0..1200).prop_map(|v| v.join(" "))
    }

    /// Texts of a whole number of 64-byte blocks end with their last word.
    #[test]
    fn tokens_of_whole_blocks() {
        for n in [63, 64, 65, 127, 128, 129] {
            let s = format!("{} {}", "a".repeat(n - 2), "b");
            assert_eq!(
                tokens(&s).collect::<Vec<_>>(),
                s.split(' ').collect::<Vec<_>>(),
                "{n}"
            );
            let spaced = format!("{s} ");
            assert_eq!(
                tokens(&spaced).collect::<Vec<_>>(),
                s.split(' ').collect::<Vec<_>>(),
                "{n} and a space"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
        ))]

        #[test]
        fn chunk_fields_as_the_reference(s in repetitive_text(), title in repetitive_text(), stems in any::<bool>()) {
            let rules = Rules::default();
            let title: String = title.chars().take(200).collect();
            let headings = vec![s.chars().take(60).collect::<String>()];
            let text = Text::new(&s);
            prop_assert_eq!(
                chunk_fields(&text, Some(&title), &headings, &rules, stems),
                chunk_fields_reference(&text, Some(&title), &headings, &rules, stems)
            );
        }

        /// A word's tokens are its `both` alias targets, the loanword key of a Latin word and,
        /// with article stems, its article and light stems (the plain form: allocating, stem by
        /// stem).
        #[test]
        fn word_extras_as_the_reference(s in repetitive_text(), stems in any::<bool>()) {
            let rules = Rules::default();
            let table = aliases::AliasTable::new(aliases::shipped(), &rules);
            let extras = WordExtras::new(&table, stems);
            for w in normalize(&s, &rules).split(' ').filter(|w| !w.is_empty()) {
                let mut expected: Vec<String> = table.index_tokens(std::iter::once(w));
                expected.extend(loanword::latin_key(w));
                if stems {
                    expected.extend(aliases::article_stem(w).map(str::to_string));
                    expected.extend(aliases::light_stem(w));
                }
                let mut got: Vec<String> = Vec::new();
                extras.each(w, |t| got.push(t.to_string()));
                prop_assert!(got.iter().all(|t| !t.is_empty() && !t.contains('\n')));
                prop_assert_eq!(Tokens::new(got), Tokens::new(expected), "{}", w);
                let mut none = 0;
                WordExtras::NONE.each(w, |_| none += 1);
                prop_assert_eq!(none, 0);
            }
        }

        /// The block-at-a-time word splitter splits like `str::split`, across blocks of 64
        /// bytes and at their edges.
        #[test]
        fn tokens_as_split(s in prop_oneof!["[ اب!a\n]{0,60}", "[ اب!a\n]{0,300}", "[ ا]{0,200}", "[ a]{60,70}", "[ a]{126,130}"]) {
            prop_assert_eq!(tokens(&s).collect::<Vec<_>>(), s.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>());
        }
    }
}
