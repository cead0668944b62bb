//! `[retrieval]`: the weights and depths of the runtime's ranking, and their defaults.

use serde::Serialize;

/// Fusion weights and depths, from `[retrieval]` in corpus.toml.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RetrievalSettings {
    /// Weight of the lexical (BM25) ranking in reciprocal-rank fusion.
    pub lexical_weight: f64,
    /// Weight of the vector ranking. The offline `hash` embedder is a weak lexical signal: on the
    /// shared-corpora fixtures any weight above ~0.1 lowers hit@1 and MRR, so the eval chose
    /// 0.02 — a tie-breaker that also surfaces vector-only candidates when no term matches.
    /// Re-run `askzico eval --compare` after switching to a real embedding model.
    pub vector_weight: f64,
    /// RRF constant `k` in `w / (k + rank)`.
    pub rrf_k: f64,
    /// Candidates taken from each ranking before fusion.
    pub depth: usize,
    /// Added to the fused score of a chunk whose date the question names.
    pub date_boost: f64,
    pub bm25_k1: f64,
    pub bm25_b: f64,
    /// Weight of a term a query-side alias added (the dialect word itself keeps weight 1).
    pub alias_weight: f64,
    /// Weight of matches in a chunk's additive token set (variants, index-side aliases).
    pub alias_field_weight: f64,
    /// Weight of a question term's light stem (matched in the additive token set).
    pub stem_weight: f64,
    /// Weight of a question term's article stem (السيد → سيد), matched in every field.
    pub article_stem_weight: f64,
    /// Weight of a question token's stem key matched in the chunks' `stem_terms` field
    /// (`normalize::stem`: light stem plus verb/verbal-noun patterns, with real tf).
    pub stem_field_weight: f64,
    /// Weight of matches in a chunk's title and heading tokens.
    pub context_weight: f64,
    /// BM25 length normalization of the title-and-heading field (its postings carry the chunk's
    /// length, which a title does not grow with).
    pub context_b: f64,
    /// How much a question word's weaker expansions add to its best one in a chunk (DisMax
    /// tie-break): each word then counts about once however many variants, stems and aliases it
    /// has. 1 sums every expansion (each one adds its full score), 0 keeps the best only.
    pub word_tie: f64,
    /// Score a word's title/heading matches apart from its body matches (each DisMax'd, then
    /// added), so a word in the title and in the text counts for both.
    pub context_apart: bool,
    /// Coordination exponent: a chunk's lexical score is multiplied by (matched question words /
    /// question words)^coord. 0 turns it off.
    pub coord: f64,
    /// Weight of an interrogative of the question (فين، ازاي، ايه، امتى … in search form, with all
    /// its expansions: فين → اين). Such words are rare in the corpora, so BM25 gives them a high
    /// idf, and اين/كيف inside any narrative then outranks the answer.
    pub question_word_weight: f64,
    /// Weight of a colloquial filler of the question (عايز، بيطلعلي، هي …: `query_words.toml`),
    /// with all its expansions. Like interrogatives, fillers do not count in coordination.
    pub filler_weight: f64,
    /// Lexical candidates the second stage (`rerank`: proximity and URL words, read from the
    /// hydrated evidence) rescores.
    pub rerank_depth: usize,
    /// Weight of the proximity of neighbouring topic words of the question in a chunk.
    pub proximity_weight: f64,
    /// Two question words further apart than this many tokens are not near each other.
    pub proximity_window: usize,
    /// Weight of a topic word of the question that is a word of the chunk's URL path.
    pub url_weight: f64,
    /// Weight of the regular English inflections of a Latin question word (hook → hooks, call →
    /// called: `normalize::latin`), matched in the body fields.
    pub latin_inflection_weight: f64,
    /// Weight of the loanword keys of a question's Arabic words (ريكوست → `~RKST`, matched in
    /// the alias field, where the index puts the keys of Latin words: `normalize::loanword`).
    pub loanword_weight: f64,
    /// Weight of a question word's terms in the other language from the shipped bilingual
    /// glossary (function ↔ دالة, السيرفر ↔ خادم: `normalize::glossary`), matched in every field.
    pub glossary_weight: f64,
    /// Weight of a question word's siblings in the commonest broken-plural patterns (سطور ↔ سطر،
    /// أسطر: `normalize::stem::broken_plural_siblings`), matched in every field.
    pub broken_plural_weight: f64,
    /// Weight of a question word's derivational siblings (مفصول ↔ فاصل، فصل:
    /// `normalize::stem::derivation_siblings`).
    pub derivation_weight: f64,
    /// Weight of a question word spelled back from a dialect's stops to MSA's interdentals (تلات
    /// → ثلاث: `normalize::stem::interdental_spellings`).
    pub interdental_weight: f64,
    /// Weight of a question word's colloquial verb read without its present, future or negation
    /// affixes or its mediopassive prefix (بيشتغل → يشتغل: `normalize::dialect::verb_bases`).
    pub dialect_verb_weight: f64,
    /// Words of a result's evidence its excerpt shows, around the densest match
    /// (`search::excerpt`).
    pub excerpt_words: usize,
}

/// The defaults were chosen by leave-one-corpus-out on the blind fixtures of the nine shared
/// corpus folders (docs/retrieval.md#how-the-defaults-were-chosen): settings picked on eight
/// folders, scored on the ninth.
impl Default for RetrievalSettings {
    fn default() -> Self {
        RetrievalSettings {
            lexical_weight: 1.0,
            vector_weight: 0.02,
            rrf_k: 10.0,
            depth: 100,
            date_boost: 1.0,
            bm25_k1: 0.8,
            bm25_b: 0.75,
            alias_weight: 1.0,
            alias_field_weight: 0.7,
            stem_weight: 0.0,
            article_stem_weight: 0.4,
            stem_field_weight: 0.9,
            context_weight: 0.45,
            context_b: 0.0,
            word_tie: 0.5,
            context_apart: true,
            coord: 0.25,
            question_word_weight: 0.3,
            filler_weight: 0.1,
            rerank_depth: 50,
            proximity_weight: 0.25,
            proximity_window: 4,
            url_weight: 0.5,
            latin_inflection_weight: 0.5,
            loanword_weight: 1.0,
            glossary_weight: 0.6,
            broken_plural_weight: 0.6,
            derivation_weight: 0.6,
            interdental_weight: 0.6,
            dialect_verb_weight: 0.6,
            excerpt_words: 30,
        }
    }
}

impl RetrievalSettings {
    /// The keys whose values are outside their range, with the range: weights, `k1` and the
    /// RRF constant finite and not negative, `b` and `word_tie` fractions, at least one
    /// candidate from each ranking.
    pub fn out_of_range(&self) -> Vec<(&'static str, &'static str)> {
        let mut out = Vec::new();
        let fractions = [
            ("bm25_b", self.bm25_b),
            ("context_b", self.context_b),
            ("word_tie", self.word_tie),
        ];
        for (key, v) in fractions {
            if !(0.0..=1.0).contains(&v) {
                out.push((key, "between 0 and 1"));
            }
        }
        let non_negative = [
            ("lexical_weight", self.lexical_weight),
            ("vector_weight", self.vector_weight),
            ("rrf_k", self.rrf_k),
            ("date_boost", self.date_boost),
            ("bm25_k1", self.bm25_k1),
            ("alias_weight", self.alias_weight),
            ("alias_field_weight", self.alias_field_weight),
            ("stem_weight", self.stem_weight),
            ("article_stem_weight", self.article_stem_weight),
            ("stem_field_weight", self.stem_field_weight),
            ("context_weight", self.context_weight),
            ("coord", self.coord),
            ("question_word_weight", self.question_word_weight),
            ("filler_weight", self.filler_weight),
            ("proximity_weight", self.proximity_weight),
            ("url_weight", self.url_weight),
            ("latin_inflection_weight", self.latin_inflection_weight),
            ("loanword_weight", self.loanword_weight),
            ("glossary_weight", self.glossary_weight),
            ("broken_plural_weight", self.broken_plural_weight),
            ("derivation_weight", self.derivation_weight),
            ("interdental_weight", self.interdental_weight),
            ("dialect_verb_weight", self.dialect_verb_weight),
        ];
        for (key, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                out.push((key, "a finite number, 0 or more"));
            }
        }
        if self.depth == 0 {
            out.push(("depth", "1 or more"));
        }
        if self.excerpt_words == 0 {
            out.push(("excerpt_words", "1 or more"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::RetrievalSettings;

    #[test]
    fn the_defaults_are_in_range() {
        assert_eq!(RetrievalSettings::default().out_of_range(), []);
    }

    /// Every number of the settings is checked: each one set to -1 is reported by its key.
    #[test]
    fn every_number_below_zero_is_out_of_range() {
        let defaults = serde_json::to_value(RetrievalSettings::default()).unwrap();
        for (key, value) in defaults.as_object().unwrap() {
            if !value.is_number() || key == "rerank_depth" || key == "proximity_window" {
                continue;
            }
            let mut v = defaults.clone();
            v[key] = if value.is_f64() {
                (-1.0).into()
            } else {
                0.into()
            };
            let s: RetrievalSettings = serde_json::from_value(v).unwrap();
            let keys: Vec<&str> = s.out_of_range().into_iter().map(|(k, _)| k).collect();
            assert_eq!(keys, [key.as_str()], "{key}");
        }
    }
}
