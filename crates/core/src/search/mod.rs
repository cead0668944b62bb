//! search: one question over one version, in three steps a store that is read over the network
//! can batch, one bulk read between each:
//!
//! 1. [`Ranker::plan`] analyses the question (its words and what each expands to, its dates) and
//!    names the lexical term shards it needs ([`Plan::shards`]) and the text to embed, if the
//!    mode ranks by vectors ([`Plan::embedding_input`]).
//! 2. [`Ranker::rank`] scores the shards (BM25 per field, DisMax per word, coordination) and
//!    takes the vector candidates; [`Ranked::needs`] names the lookup records the second stage
//!    and the top `k` results can need.
//! 3. [`Ranker::answer`] reranks the best lexical candidates by proximity and URL words, fuses
//!    both rankings (weighted RRF), prefers chunks whose date the question names, and builds the
//!    hits from the records ([`Ranker::finish`] stops before the hits: the eval's full ranking).
//!
//! An ID that cannot be hydrated is an invariant failure, never a silent skip.

mod answer;
pub mod bm25;
pub mod dates;
pub mod excerpt;
mod needs;
mod question;
pub mod rerank;
mod settings;

pub use answer::{Answer, Hit, RankedBy, SECTIONS, Section, section_url};
pub use question::{QueryTerm, QueryWord};
pub use settings::RetrievalSettings;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use rustc_hash::FxHashMap;

use serde::Serialize;

use crate::Error;
use crate::coptic::CopticDate;
use crate::lexical::{LexMeta, ShardData, shard_of};
use crate::normalize::query_words::{WordClass, WordClasses};
use crate::tables::{ChunkInfo, LookupRecord, Tables};
use crate::text::SearchText;

/// Which rankings a search uses (the eval compares them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Fused,
    Lexical,
    Vector,
}

/// The settings a question reads, borrowed from the corpus's.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    pub retrieval: &'a RetrievalSettings,
    pub normalize: &'a crate::normalize::Rules,
    pub aliases: &'a crate::normalize::aliases::AliasTable,
    /// `[aliases] article_stems`: article and light stems as additive query terms.
    pub article_stems: bool,
    /// The bilingual glossary (shipped terms and `[[glossary]]`).
    pub glossary: &'a crate::normalize::glossary::Glossary,
}

/// Chunk IDs with scores, best first.
pub type Ranking = Vec<(String, f64)>;

/// A term shard of a domain: `(domain, shard)`.
pub type ShardKey = (String, usize);

/// The term shards a plan named, as read.
pub type Shards = HashMap<ShardKey, ShardData>;

/// The lookup records a question has read: `None` for a chunk the version has no record of.
/// Shared: a runtime keeps the records it read for later questions.
pub type Records = HashMap<String, Option<std::sync::Arc<LookupRecord>>>;

/// A ranked chunk: its ID, its score and whether its date is one the question names.
pub type Ranked = Vec<(String, f64, bool)>;

/// One version loaded for questions: the settings, the tables every question reads, and the
/// question word classes.
pub struct Ranker<'a> {
    cfg: Settings<'a>,
    /// Owned by a ranker the CLI keeps for a command's life; borrowed by one a runtime makes
    /// for each step of a question over a version it holds.
    pub tables: Cow<'a, Tables>,
    classes: Cow<'a, WordClasses>,
}

/// A question analysed: what it needs read before it can be ranked.
#[derive(Debug, Clone)]
pub struct Plan {
    question: String,
    domains: Vec<String>,
    /// The libraries searched (all when empty).
    libraries: Vec<String>,
    /// `KEY=VALUE` filters on documents' filterable fields: a chunk passes when, for each key,
    /// its document's value is one of that key's values.
    fields: Vec<(String, String)>,
    mode: Mode,
    words: Vec<QueryWord>,
    search: SearchText,
    shards: Vec<ShardKey>,
    vector: bool,
}

impl Plan {
    /// The term shards to read, each once, in order.
    pub fn shards(&self) -> &[ShardKey] {
        &self.shards
    }

    /// The question's search text, to embed for the vector ranking; `None` when the mode does
    /// not rank by vectors.
    pub fn embedding_input(&self) -> Option<&SearchText> {
        self.vector.then_some(&self.search)
    }

    /// The question's words and what each expands to.
    pub fn words(&self) -> &[QueryWord] {
        &self.words
    }

    /// The plan searching only chunks of `libraries` (all when empty). The ranking's statistics
    /// stay those of the domains searched, so a library's scores are the ones it has among them.
    pub fn in_libraries(mut self, libraries: &[String]) -> Plan {
        self.libraries = libraries.to_vec();
        self
    }

    /// The plan searching only documents whose filterable fields match `fields` (`KEY=VALUE`:
    /// for each key, one of its values).
    pub fn with_fields(mut self, fields: &[(String, String)]) -> Plan {
        self.fields = fields.to_vec();
        self
    }

    /// Whether chunk `info` is in the searched domains and libraries and matches the field
    /// filters; a chunk the tables do not know is kept only when nothing filters.
    fn keeps(&self, info: Option<&ChunkInfo>) -> bool {
        let unfiltered =
            self.domains.is_empty() && self.libraries.is_empty() && self.fields.is_empty();
        info.map_or(unfiltered, |c| {
            (self.domains.is_empty() || c.domains.iter().any(|d| self.domains.contains(d)))
                && (self.libraries.is_empty() || self.libraries.contains(&c.library))
                && self.fields.iter().all(|(key, _)| {
                    self.fields
                        .iter()
                        .filter(|(k, _)| k == key)
                        .any(|(_, v)| c.fields.iter().any(|(ck, cv)| ck == key && cv == v))
                })
        })
    }

    /// Whether a filter other than the domains applies (the lexical ranking then drops what it
    /// does not keep).
    pub fn narrows(&self) -> bool {
        !self.libraries.is_empty() || !self.fields.is_empty()
    }

    /// Whether the plan searches only some domains, libraries or documents.
    pub fn filters(&self) -> bool {
        !self.domains.is_empty() || self.narrows()
    }
}

/// A question scored: its lexical ranking before the second stage, and the vector ranking.
#[derive(Debug, Clone)]
pub struct Scored {
    plan: Plan,
    lex: Ranking,
    idfs: Vec<f64>,
    vec: Ranking,
    /// How many of the best lexical candidates the second stage reorders.
    rerank: usize,
    /// The dates the question names.
    dates: Vec<CopticDate>,
    /// Chunks whose date the question names, in the searched domains and libraries, in ID order.
    dated: Vec<String>,
}

impl<'a> Ranker<'a> {
    pub fn new(cfg: Settings<'a>, tables: Tables) -> Self {
        Ranker {
            cfg,
            tables: Cow::Owned(tables),
            classes: Cow::Owned(WordClasses::shipped(cfg.normalize)),
        }
    }

    /// A ranker over `tables` held elsewhere, with the question word classes of `cfg`'s rules
    /// ([`Ranker::classes`] of an earlier ranker of the same settings).
    pub fn borrowing(cfg: Settings<'a>, tables: &'a Tables, classes: &'a WordClasses) -> Self {
        Ranker {
            cfg,
            tables: Cow::Borrowed(tables),
            classes: Cow::Borrowed(classes),
        }
    }

    /// The question word classes of `cfg`'s normalization rules, for [`Ranker::borrowing`].
    pub fn classes(cfg: &Settings<'_>) -> WordClasses {
        WordClasses::shipped(cfg.normalize)
    }

    /// The settings this ranker reads.
    pub fn settings(&self) -> &Settings<'a> {
        &self.cfg
    }

    pub fn domains(&self) -> impl Iterator<Item = &str> {
        self.tables.lex_meta.keys().map(String::as_str)
    }

    /// Step 1: the question's words and the shards and embedding its ranking needs.
    pub fn plan(&self, question: &str, domains: &[String], mode: Mode) -> Plan {
        let s = &self.cfg.retrieval;
        let words = self.query_words(question);
        let mut shards = Vec::new();
        if mode != Mode::Vector {
            let mut seen = BTreeSet::new();
            for (domain, meta) in self.metas(domains) {
                for t in words.iter().flat_map(|w| &w.terms) {
                    let key = (domain.clone(), shard_of(&t.term, meta.shards));
                    if seen.insert(key.clone()) {
                        shards.push(key);
                    }
                }
            }
        }
        let vector = !(mode == Mode::Lexical || (mode == Mode::Fused && s.vector_weight <= 0.0));
        Plan {
            question: question.to_string(),
            domains: domains.to_vec(),
            libraries: Vec::new(),
            fields: Vec::new(),
            mode,
            search: crate::normalize::query_text(question, self.cfg.normalize),
            words,
            shards,
            vector,
        }
    }

    /// Whether a chunk is in the plan's domains and libraries (all when none is named): what
    /// a vector search keeps.
    pub fn keeps<'s>(&'s self, plan: &'s Plan) -> impl Fn(&str) -> bool + 's {
        move |id: &str| plan.keeps(self.tables.chunks.get(id))
    }

    /// Step 2: the lexical ranking from the shards the plan named, and the vector ranking
    /// (the `depth` nearest chunks among those [`Ranker::keeps`] accepts; empty when the plan
    /// embeds nothing).
    pub fn rank(&self, mut plan: Plan, shards: &Shards, vector: Ranking) -> Result<Scored, Error> {
        let (lex, idfs) = if plan.mode == Mode::Vector {
            (Vec::new(), Vec::new())
        } else {
            self.drop_keys_of_site_words(&mut plan.words, &plan.domains, shards)?;
            let (mut lex, idfs) = self.lexical(&plan.words, &plan.domains, shards)?;
            if plan.narrows() {
                lex.retain(|(id, _)| plan.keeps(self.tables.chunks.get(id)));
            }
            (lex, idfs)
        };
        let s = &self.cfg.retrieval;
        let rerank = if s.proximity_weight <= 0.0 && s.url_weight <= 0.0 {
            0
        } else {
            s.rerank_depth.min(lex.len())
        };
        let dates = dates::dates_in(&plan.question);
        let dated = if dates.is_empty() {
            Vec::new()
        } else {
            self.tables
                .chunks
                .values()
                .filter(|c| {
                    c.date
                        .is_some_and(|(m, d)| dates.iter().any(|x| x.month == m && x.day == d))
                        && plan.keeps(Some(c))
                })
                .map(|c| c.chunk_id.clone())
                .collect()
        };
        let vec = if plan.vector { vector } else { Vec::new() };
        Ok(Scored {
            plan,
            lex,
            idfs,
            vec,
            rerank,
            dates,
            dated,
        })
    }

    /// Step 3 without the hits: every candidate ranked (the second stage reads the records of
    /// [`Scored::needs`]`(None)`).
    pub fn finish(&self, mut scored: Scored, records: &Records) -> Ranked {
        self.reranked(&mut scored, records).0
    }

    /// The second stage over `scored`'s lexical candidates, then fusion: the fused ranking, and
    /// the lexical ranking after the second stage.
    fn reranked(&self, scored: &mut Scored, records: &Records) -> (Ranked, Ranking) {
        let lex = self.rerank(
            std::mem::take(&mut scored.lex),
            &scored.plan.words,
            &scored.idfs,
            scored.rerank,
            records,
        );
        (self.fuse(scored, &lex), lex)
    }

    /// The lexical ranking after the second stage, fused with the vector ranking, with the
    /// date boost and the chunks only a date brings in.
    fn fuse(&self, scored: &Scored, lex: &Ranking) -> Ranked {
        let s = &self.cfg.retrieval;
        let mut fused: FxHashMap<String, f64> = FxHashMap::default();
        for (rank, (id, _)) in lex.iter().take(s.depth).enumerate() {
            *fused.entry(id.clone()).or_default() += rrf(s.lexical_weight, s.rrf_k, rank);
        }
        let vw = vector_weight(s, scored.plan.mode);
        if vw > 0.0 {
            for (rank, (id, _)) in scored.vec.iter().take(s.depth).enumerate() {
                *fused.entry(id.clone()).or_default() += rrf(vw, s.rrf_k, rank);
            }
        }
        let mut out: Ranked = fused
            .into_iter()
            .map(|(id, score)| {
                let hit = self.date_matches(&id, &scored.dates);
                (id, score + if hit { s.date_boost } else { 0.0 }, hit)
            })
            .collect();
        // A date the question names also brings in its documents when no term matched them.
        for id in &scored.dated {
            if !out.iter().any(|(o, _, _)| o == id) {
                out.push((id.clone(), s.date_boost, true));
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// The documents the postings of `plan`'s terms name in `shards`, per searched domain: the
    /// slots of the lexical metas' document tables a ranking reads ([`Ranker::rank`]), so a
    /// store can hold only those rows of a large version's tables.
    pub fn slots(
        &self,
        plan: &Plan,
        shards: &Shards,
    ) -> Result<BTreeMap<String, BTreeSet<u32>>, Error> {
        let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        if plan.mode == Mode::Vector {
            return Ok(out);
        }
        for (domain, meta) in self.metas(&plan.domains) {
            let slots = out.entry(domain.clone()).or_default();
            for t in plan.words.iter().flat_map(|w| &w.terms) {
                let k = shard_of(&t.term, meta.shards);
                let Some(shard) = shards.get(&(domain.clone(), k)) else {
                    continue;
                };
                for i in fields_of(t.is_stem) {
                    let postings = shard.field(i, &t.term).map_err(|e| {
                        Error::invariant(
                            format!(
                                "lexical shard {k} of domain `{domain}`: term {}: {e}",
                                t.term
                            ),
                            "run `askzico verify`; rebuild if it fails",
                        )
                    })?;
                    slots.extend(postings.iter().map(|p| p.chunk.ord));
                }
            }
        }
        Ok(out)
    }

    /// Whether chunk `id`'s date is one of `dates`.
    fn date_matches(&self, id: &str, dates: &[CopticDate]) -> bool {
        !dates.is_empty()
            && self
                .tables
                .chunks
                .get(id)
                .and_then(|c| c.date)
                .is_some_and(|(m, d)| dates.iter().any(|x| x.month == m && x.day == d))
    }

    /// The lexical metas of the searched domains (all when none is named).
    fn metas<'t>(&'t self, domains: &[String]) -> Vec<(&'t String, &'t LexMeta)> {
        self.tables
            .lex_meta
            .iter()
            .filter(|(d, _)| domains.is_empty() || domains.contains(d))
            .collect()
    }

    /// Drops the terms a question word reached through a loanword key ([`QueryTerm::keyed`]) when
    /// the site uses the word itself as an ordinary word: in at least as many chunks (texts,
    /// titles or headings of the searched domains, the word, the word without its article or,
    /// for a colloquial verb, its written form: `normalize::dialect`) as the most frequent of
    /// its keyed terms. A word the site writes more often than what its
    /// consonants could stand for is the site's own word, found by itself (نفسه on a site that
    /// names an invoice once); a loanword the site writes now and then in Arabic letters, and
    /// mostly in Latin ones (السيرفر beside "server"), keeps its bridge.
    fn drop_keys_of_site_words(
        &self,
        words: &mut [QueryWord],
        domains: &[String],
        shards: &Shards,
    ) -> Result<(), Error> {
        let metas = self.metas(domains);
        let chunks = |term: &str, is_stem: bool| -> Result<usize, Error> {
            let fields = postings(term, is_stem, &metas, shards)?;
            Ok(fields.iter().map(|f| f.len()).max().unwrap_or(0))
        };
        for w in words.iter_mut().filter(|w| w.terms.iter().any(|t| t.keyed)) {
            let token = w.token.clone();
            let bases = crate::normalize::dialect::verb_bases(&token);
            let forms = std::iter::once(token.as_str())
                .chain(crate::normalize::aliases::article_stem(&token))
                .chain(bases.iter().map(String::as_str));
            let mut own = 0;
            for form in forms {
                // Only a form the plan looked up has its shard read.
                if w.terms
                    .iter()
                    .any(|t| t.term == form && !t.is_stem && !t.keyed)
                {
                    own = own.max(chunks(form, false)?);
                }
            }
            if own == 0 {
                continue;
            }
            let mut keyed = 0;
            for t in w.terms.iter().filter(|t| t.keyed) {
                keyed = keyed.max(chunks(&t.term, t.is_stem)?);
            }
            if own >= keyed {
                w.terms.retain(|t| !t.keyed);
            }
        }
        Ok(())
    }

    /// BM25 ranking over the domains (all when empty), best first, with statistics pooled over
    /// the domains searched so scores from different domains compare. Each question word counts
    /// once: its expansions' field contributions are combined by [`word_score`] (DisMax with a
    /// `word_tie` fraction of the rest), then the words' scores are summed. Also, per question
    /// word, the idf of its rarest surface term in the body field (what the second stage weighs
    /// proximity and URL matches by).
    fn lexical(
        &self,
        words: &[QueryWord],
        domains: &[String],
        shards: &Shards,
    ) -> Result<(Ranking, Vec<f64>), Error> {
        let s = &self.cfg.retrieval;
        let metas = self.metas(domains);
        let n: usize = metas.iter().map(|(_, m)| m.chunks).sum();
        let avgdl = if n == 0 {
            0.0
        } else {
            metas
                .iter()
                .map(|(_, m)| m.avgdl * m.chunks as f64)
                .sum::<f64>()
                / n as f64
        };
        // Per chunk: the summed word scores and how many words matched.
        let mut scores: FxHashMap<String, (f64, usize)> = FxHashMap::default();
        let has_content = words
            .iter()
            .any(|w| self.classes.class(&w.token) == WordClass::Content);
        let mut idfs = Vec::with_capacity(words.len());
        for word in words {
            // Per chunk: the contributions of this word's expansions, body fields and context apart.
            let mut parts: FxHashMap<String, (Vec<f64>, Vec<f64>)> = FxHashMap::default();
            let mut word_idf: f64 = 0.0;
            for t in &word.terms {
                let fields = postings(&t.term, t.is_stem, &metas, shards)?;
                if !t.is_stem && !fields[0].is_empty() {
                    word_idf = word_idf.max(bm25::idf(n, fields[0].len()));
                }
                let context_weight = if t.is_stem {
                    s.context_weight * s.stem_field_weight
                } else {
                    s.context_weight
                };
                for (i, field_weight) in [
                    1.0,
                    s.alias_field_weight,
                    context_weight,
                    s.stem_field_weight,
                ]
                .into_iter()
                .enumerate()
                {
                    if field_weight <= 0.0 || t.weight <= 0.0 {
                        continue;
                    }
                    // A title or heading word weighs by its idf among titles and over the
                    // texts alike (their mean): a frequent word that one title holds is still
                    // a frequent word, and wins no unrelated question by that title alone.
                    let idf = if i == 2 {
                        (bm25::idf(n, fields[2].len()) + bm25::idf(n, fields[0].len())) / 2.0
                    } else {
                        bm25::idf(n, fields[i].len())
                    };
                    // A title does not grow with its chunk: the context field has its own `b`.
                    let b = if i == 2 { s.context_b } else { s.bm25_b };
                    for (id, (tf, dl)) in &fields[i] {
                        let c = t.weight
                            * field_weight
                            * idf
                            * bm25::tf_part(*tf as f64, *dl as f64, avgdl, s.bm25_k1, b);
                        let e = parts.entry(id.clone()).or_default();
                        if i == 2 && s.context_apart {
                            e.1.push(c)
                        } else {
                            e.0.push(c)
                        }
                    }
                }
            }
            idfs.push(word_idf);
            let class = self.classes.class(&word.token);
            let word_weight = match class {
                WordClass::Content => 1.0,
                WordClass::Interrogative => s.question_word_weight,
                WordClass::Filler => s.filler_weight,
            };
            for (id, (body, context)) in parts {
                let e = scores.entry(id).or_default();
                e.0 += word_weight
                    * (word_score(&body, s.word_tie) + word_score(&context, s.word_tie));
                e.1 += usize::from(class == WordClass::Content || !has_content);
            }
        }
        // Coordination: a chunk matching more of the question's topic words ranks higher
        // (interrogatives and fillers count only in a question made of nothing else).
        let total = if has_content {
            words
                .iter()
                .filter(|w| self.classes.class(&w.token) == WordClass::Content)
                .count()
        } else {
            words.len()
        }
        .max(1) as f64;
        let scores = scores
            .into_iter()
            .map(|(id, (score, matched))| (id, score * libm::pow(matched as f64 / total, s.coord)))
            .collect();
        Ok((sorted(scores), idfs))
    }

    /// The second stage ([`rerank`]) over the best `depth` lexical candidates: proximity of
    /// neighbouring topic words in the chunk's title and text, and topic words in its URL path,
    /// added to the lexical score; the candidates are then sorted again (the rest keep their
    /// order below them). A candidate without a record adds nothing.
    fn rerank(
        &self,
        mut lex: Ranking,
        words: &[QueryWord],
        idfs: &[f64],
        depth: usize,
        recs: &Records,
    ) -> Ranking {
        let s = &self.cfg.retrieval;
        if depth == 0 {
            return lex;
        }
        // Topic words in question order, with their idf.
        let topic: Vec<(&QueryWord, f64)> = words
            .iter()
            .zip(idfs)
            .filter(|(w, _)| self.classes.class(&w.token) == WordClass::Content)
            .map(|(w, i)| (w, *i))
            .collect();
        let topic_words: Vec<&QueryWord> = topic.iter().map(|(w, _)| *w).collect();
        // Every pair of topic words (the question's word order says little in Arabic).
        let pairs: Vec<(usize, usize)> = (0..topic.len())
            .flat_map(|a| (a + 1..topic.len()).map(move |b| (a, b)))
            .collect();
        // Per candidate: the closeness of each pair of topic words, and the idf of
        // its URL words.
        let mut near: Vec<Vec<f64>> = Vec::with_capacity(depth);
        let mut in_url: Vec<f64> = Vec::with_capacity(depth);
        for (id, _) in lex.iter().take(depth) {
            let Some(Some(rec)) = recs.get(id.as_str()) else {
                near.push(vec![0.0; pairs.len()]);
                in_url.push(0.0);
                continue;
            };
            let pos = rerank::positions(rec, &topic_words, self.cfg.normalize);
            near.push(
                pairs
                    .iter()
                    .map(|&(a, b)| rerank::closeness(&pos[a], &pos[b], s.proximity_window))
                    .collect(),
            );
            let url = rerank::UrlWords::of(&rec.url);
            in_url.push(
                topic
                    .iter()
                    .filter(|(w, _)| rerank::in_url(w, &url))
                    .map(|(_, idf)| idf)
                    .sum(),
            );
        }
        // A pair found together in most candidates is a formula of the corpus (السيد المسيح in
        // every Synaxarium record), not evidence: each pair is weighed by its idf among the candidates.
        let pair_idf: Vec<f64> = (0..pairs.len())
            .map(|i| bm25::idf(depth, near.iter().filter(|n| n[i] > 0.0).count()))
            .collect();
        for (k, (_, score)) in lex.iter_mut().take(depth).enumerate() {
            let proximity: f64 = near[k].iter().zip(&pair_idf).map(|(c, w)| c * w).sum();
            *score += s.proximity_weight * proximity + s.url_weight * in_url[k];
        }
        lex[..depth].sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        lex
    }
}

/// A ranking's reciprocal-rank part: `weight / (k + rank + 1)`.
fn rrf(weight: f64, k: f64, rank: usize) -> f64 {
    weight / (k + rank as f64 + 1.0)
}

/// The vector ranking's weight in fusion (1 when it ranks alone).
fn vector_weight(s: &RetrievalSettings, mode: Mode) -> f64 {
    if mode == Mode::Vector {
        1.0
    } else {
        s.vector_weight
    }
}

/// Postings of one term in every searched domain, per field (terms, alias, context, stem); a
/// chunk in several domains appears once. Stem keys are looked up in the stem field and in
/// titles and headings, other terms everywhere else.
fn postings(
    term: &str,
    is_stem: bool,
    metas: &[(&String, &LexMeta)],
    shards: &Shards,
) -> Result<FieldPostings, Error> {
    const HELP: &str = "run `askzico verify`; rebuild if it fails";
    let mut fields: FieldPostings = Default::default();
    for (domain, meta) in metas {
        let k = shard_of(term, meta.shards);
        let shard = shards.get(&((*domain).clone(), k)).ok_or_else(|| {
            Error::invariant(
                format!("lexical shard {k} of domain `{domain}` was not read for term {term}"),
                "the store must read every shard the plan names",
            )
        })?;
        for i in fields_of(is_stem) {
            let field = &mut fields[i];
            let postings = shard.field(i, term).map_err(|e| {
                Error::invariant(
                    format!("lexical shard {k} of domain `{domain}`: term {term}: {e}"),
                    HELP,
                )
            })?;
            for p in postings {
                let unknown = || {
                    Error::invariant(
                        format!(
                            "lexical shard {k} of domain `{domain}` names chunk {} of document #{}, which its meta does not list",
                            p.chunk.index, p.chunk.ord
                        ),
                        HELP,
                    )
                };
                let id = meta.chunk_id(p.chunk).ok_or_else(unknown)?;
                let dl = meta.len_of(p.chunk).ok_or_else(unknown)?;
                field.insert(id, (p.tf, dl));
            }
        }
    }
    Ok(fields)
}

/// The lexical fields a term is looked up in (terms, alias, context, stem): a stem key in the
/// stem field and in titles and headings, other terms everywhere else.
fn fields_of(is_stem: bool) -> impl Iterator<Item = usize> {
    (0..4).filter(move |&i| if is_stem { i >= 2 } else { i != 3 })
}

/// Per lexical field (terms, alias, context, stem): chunk ID → (tf, chunk length).
type FieldPostings = [FxHashMap<String, (u32, u32)>; 4];

/// One word's score in one chunk from its expansions' contributions: the best one plus `tie`
/// times the rest (DisMax; `tie` 1 sums them all, 0 keeps only the best).
pub fn word_score(contributions: &[f64], tie: f64) -> f64 {
    let best = contributions.iter().copied().fold(0.0, f64::max);
    let sum: f64 = contributions.iter().sum();
    best + tie * (sum - best)
}

fn sorted(m: FxHashMap<String, f64>) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod tests;
