//! retrieve: the runtime's retrieval over one version — a build's files, or through a
//! [`VersionStore`] a deployed version — normalize the question, score lexical shards (BM25) and
//! vectors, fuse the candidate IDs (weighted RRF), prefer documents whose structured date the
//! question names, then hydrate from lookup. An ID that cannot be hydrated is an invariant
//! failure, never a silent skip.

pub mod bm25;
pub mod dates;
pub(crate) mod local;
pub mod rerank;
mod settings;

pub use settings::RetrievalSettings;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::artifacts::LookupRecord;
use crate::artifacts::lexical::{LexMeta, LexShard, shard_of};
use crate::artifacts::manifest::Manifest;
use crate::diag::Problem;
use crate::normalize::query_text;
use crate::normalize::query_words::{WordClass, WordClasses};

/// Which rankings a search uses (the eval compares them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Fused,
    Lexical,
    Vector,
}

/// What a chunk is, for matching and filtering (no evidence text).
#[derive(Debug, Clone, Serialize)]
pub struct ChunkInfo {
    pub chunk_id: String,
    pub doc_id: String,
    pub url: String,
    pub source: String,
    pub library: String,
    pub domains: Vec<String>,
    pub date: Option<(u8, u8)>,
}

/// The settings a query reads, borrowed from the corpus's (`Config::search_settings`).
#[derive(Debug, Clone, Copy)]
pub struct SearchSettings<'a> {
    pub retrieval: &'a RetrievalSettings,
    pub normalize: &'a crate::normalize::Rules,
    pub aliases: &'a crate::normalize::aliases::AliasTable,
    /// `[aliases] article_stems`: article and light stems as additive query terms.
    pub article_stems: bool,
    /// The bilingual glossary (shipped terms and `[[glossary]]`).
    pub glossary: &'a crate::normalize::glossary::Glossary,
    pub embedding: &'a crate::embed::EmbedSettings,
}

/// A chunk's structured date (`metadata.date` `{month, day}`), what a question's date matches.
pub fn chunk_date(metadata: &Map<String, Value>) -> Option<(u8, u8)> {
    date_of(metadata.get("date")?)
}

/// (month, day) of a structured `date` value.
pub(crate) fn date_of(d: &Value) -> Option<(u8, u8)> {
    Some((
        d.get("month")?.as_u64()? as u8,
        d.get("day")?.as_u64()? as u8,
    ))
}

/// Where a [`Searcher`] reads what it does not hold: a domain's lexical term shards, the vectors
/// nearest a question, and a hit's lookup record. A build's output directory
/// ([`Searcher::open`]) or a deployed version in Workers KV and Vectorize (`deploy::live`): the
/// ranking is the same code over either.
pub trait VersionStore {
    /// Term shard `shard` of `domain`'s lexical index.
    fn lex_shard(&self, domain: &str, shard: usize) -> Result<LexShard, Problem>;
    /// The `k` chunks nearest the question's embedding `q` among those `keep` accepts, with a
    /// score above 0, best first (score, then chunk ID).
    fn nearest(&self, q: &[f32], keep: &dyn Fn(&str) -> bool, k: usize)
    -> Result<Ranking, Problem>;
    /// The lookup records of retrieved chunks, in `ids` order, each read once (a store may read
    /// several in one request); `None` for a chunk the version has no record of.
    fn records(&self, ids: &[&str]) -> Result<Vec<Option<LookupRecord>>, Problem>;
}

/// The lookup records one question has read (the second stage's candidates, then the hits), so
/// no record is read twice.
type Records = HashMap<String, Option<LookupRecord>>;

/// One version, loaded for querying: what ranking reads for every question (each chunk's
/// [`ChunkInfo`], each domain's lexical meta), and the store of the rest.
pub struct Searcher<'a> {
    cfg: SearchSettings<'a>,
    pub manifest: Manifest,
    pub chunks: BTreeMap<String, ChunkInfo>,
    lex_meta: BTreeMap<String, LexMeta>,
    store: Box<dyn VersionStore + 'a>,
    lex_cache: std::cell::RefCell<HashMap<(String, usize), LexShard>>,
    classes: WordClasses,
}

#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub rank: usize,
    pub score: f64,
    pub chunk_id: String,
    pub doc_id: String,
    pub title: String,
    pub url: String,
    pub source: String,
    pub library: String,
    pub text: String,
    pub date_match: bool,
}

impl<'a> Searcher<'a> {
    /// The build in `out` that `manifest` names, read from its files.
    pub fn open(cfg: SearchSettings<'a>, out: &Path, manifest: Manifest) -> Result<Self, Problem> {
        let ((chunks, lex_meta), store) = local::open(out, &manifest)?;
        Ok(Searcher::new(
            cfg,
            manifest,
            chunks,
            lex_meta,
            Box::new(store),
        ))
    }

    /// A version from its chunks, its domains' lexical metas and the store of the rest.
    pub fn new(
        cfg: SearchSettings<'a>,
        manifest: Manifest,
        chunks: BTreeMap<String, ChunkInfo>,
        lex_meta: BTreeMap<String, LexMeta>,
        store: Box<dyn VersionStore + 'a>,
    ) -> Self {
        Searcher {
            cfg,
            manifest,
            chunks,
            lex_meta,
            store,
            lex_cache: Default::default(),
            classes: WordClasses::shipped(cfg.normalize),
        }
    }

    pub fn domains(&self) -> impl Iterator<Item = &str> {
        self.lex_meta.keys().map(String::as_str)
    }

    /// BM25 ranking over the domains (all when empty), best first, with statistics pooled over
    /// the domains searched so scores from different domains compare. Each question word counts
    /// once: its expansions' field contributions are combined by [`word_score`] (DisMax with a
    /// `word_tie` fraction of the rest), then the words' scores are summed.
    pub fn lexical(
        &self,
        words: &[QueryWord],
        domains: &[String],
    ) -> Result<Vec<(String, f64)>, Problem> {
        Ok(self.lexical_with_idf(words, domains)?.0)
    }

    /// [`Searcher::lexical`] and, per question word, the idf of its rarest surface term in the
    /// body field (what the second stage weighs proximity and URL matches by).
    fn lexical_with_idf(
        &self,
        words: &[QueryWord],
        domains: &[String],
    ) -> Result<(Ranking, Vec<f64>), Problem> {
        let s = &self.cfg.retrieval;
        let metas: Vec<(&String, &LexMeta)> = self
            .lex_meta
            .iter()
            .filter(|(d, _)| domains.is_empty() || domains.contains(d))
            .collect();
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
        let mut scores: HashMap<String, (f64, usize)> = HashMap::new();
        let has_content = words
            .iter()
            .any(|w| self.classes.class(&w.token) == WordClass::Content);
        let mut idfs = Vec::with_capacity(words.len());
        for word in words {
            // Per chunk: the contributions of this word's expansions, body fields and context apart.
            let mut parts: HashMap<String, (Vec<f64>, Vec<f64>)> = HashMap::new();
            let mut word_idf: f64 = 0.0;
            for t in &word.terms {
                let fields = self.postings(&t.term, t.is_stem, &metas)?;
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
                    let idf = bm25::idf(n, fields[i].len());
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
            .map(|(id, (score, matched))| (id, score * (matched as f64 / total).powf(s.coord)))
            .collect();
        Ok((sorted(scores), idfs))
    }

    /// The second stage ([`rerank`]) over the best `rerank_depth` lexical candidates: proximity
    /// of neighbouring topic words in the chunk's title and text, and topic words in its URL path,
    /// added to the lexical score; the candidates are then sorted again (the rest keep their order
    /// below them).
    fn rerank(
        &self,
        mut lex: Ranking,
        words: &[QueryWord],
        idfs: &[f64],
        recs: &mut Records,
    ) -> Result<Ranking, Problem> {
        let s = &self.cfg.retrieval;
        let depth = s.rerank_depth.min(lex.len());
        if depth == 0 || (s.proximity_weight <= 0.0 && s.url_weight <= 0.0) {
            return Ok(lex);
        }
        let ids: Vec<&str> = lex.iter().take(depth).map(|(id, _)| id.as_str()).collect();
        self.read_records(&ids, recs)?;
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
            let search = crate::normalize::normalize(
                &format!("{}\n{}", rec.title, rec.text),
                self.cfg.normalize,
            );
            let tokens: Vec<&str> = crate::normalize::tokens(&search).collect();
            let pos = rerank::positions(&tokens, &topic_words);
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
        Ok(lex)
    }

    /// Reads the records of `ids` this question has not read yet, in one call of the store.
    fn read_records(&self, ids: &[&str], recs: &mut Records) -> Result<(), Problem> {
        let mut todo: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !recs.contains_key(*id))
            .collect();
        todo.sort_unstable();
        todo.dedup();
        if todo.is_empty() {
            return Ok(());
        }
        let got = self.store.records(&todo)?;
        recs.extend(todo.iter().map(|id| id.to_string()).zip(got));
        Ok(())
    }

    /// Postings of one term in every searched domain, per field (terms, alias, context, stem);
    /// a chunk in several domains appears once. Stem keys are looked up in the stem field and in
    /// titles and headings, other terms everywhere else.
    fn postings(
        &self,
        term: &str,
        is_stem: bool,
        metas: &[(&String, &LexMeta)],
    ) -> Result<FieldPostings, Problem> {
        let mut cache = self.lex_cache.borrow_mut();
        let mut fields: FieldPostings = Default::default();
        for (domain, meta) in metas {
            let k = shard_of(term, meta.shards);
            let key = ((*domain).clone(), k);
            if !cache.contains_key(&key) {
                let shard = self.store.lex_shard(domain, k)?;
                cache.insert(key.clone(), shard);
            }
            let shard = &cache[&key];
            for (i, field) in fields.iter_mut().enumerate() {
                if (i == 3 && !is_stem) || (is_stem && i < 2) {
                    continue;
                }
                let postings = shard.field(i, term).map_err(|e| {
                    Problem::error(
                        "invariant",
                        format!("lexical shard {k} of domain `{domain}`: term {term}: {e}"),
                    )
                    .help("run `askzico verify`; rebuild if it fails")
                })?;
                for p in postings {
                    let unknown = || {
                        Problem::error("invariant", format!("lexical shard {k} of domain `{domain}` names chunk {} of document #{}, which its meta does not list", p.chunk.index, p.chunk.ord)).help("run `askzico verify`; rebuild if it fails")
                    };
                    let id = meta.chunk_id(p.chunk).ok_or_else(unknown)?;
                    let dl = meta.len_of(p.chunk).ok_or_else(unknown)?;
                    field.insert(id, (p.tf, dl));
                }
            }
        }
        Ok(fields)
    }

    /// Cosine ranking of the question's embedding against the version's vectors: the best
    /// `depth` (`[retrieval]`), best first.
    pub fn vector(
        &self,
        question_search: &crate::text::SearchText,
        domains: &[String],
    ) -> Result<Vec<(String, f64)>, Problem> {
        let fail = |e: crate::embed::EmbedError| {
            Problem::error(
                "embed",
                format!("embedding the question failed: {}", e.message),
            )
            .help(e.help)
        };
        let q = match crate::embed::inline_hash(self.cfg.embedding) {
            Some(h) => h.embed(question_search.as_str()),
            None => crate::embed::provider(self.cfg.embedding)
                .and_then(|p| p.embed_batch(&[question_search.as_str()]))
                .map_err(fail)?
                .pop()
                .unwrap_or_default(),
        };
        let keep = |id: &str| {
            domains.is_empty()
                || self
                    .chunks
                    .get(id)
                    .is_some_and(|c| c.domains.iter().any(|d| domains.contains(d)))
        };
        self.store.nearest(&q, &keep, self.cfg.retrieval.depth)
    }

    /// The question's words, each with what it expands to: its search token (weight 1), its
    /// spelling variants (1), what query-side aliases add (`alias_weight`), article and light
    /// stems (`article_stem_weight`, `stem_weight` times the term's weight), the stem keys of
    /// the token and its aliases (`normalize::stem`, matched in `stem_terms`), loanword keys and
    /// English inflections, the glossary's terms in the other language (`glossary_weight`) and
    /// a topic word's siblings: its broken plurals (`broken_plural_weight`), its derivational
    /// family (`derivation_weight`) and its MSA spellings of ث and ذ (`interdental_weight`). A
    /// word repeated in the question counts once.
    pub fn query_words(&self, question: &str) -> Vec<QueryWord> {
        let s = &self.cfg.retrieval;
        let primary = crate::normalize::normalize(question, self.cfg.normalize);
        let stems = s.stem_field_weight > 0.0;
        let mut words: Vec<QueryWord> = Vec::new();
        for t in primary.split(' ').filter(|t| !t.is_empty()) {
            if !words.iter().any(|w| w.token == t) {
                let mut w = QueryWord {
                    token: t.to_string(),
                    terms: Vec::new(),
                };
                w.add(t, 1.0, false);
                w.add_stem_key(t, 1.0, stems);
                words.push(w);
            }
        }
        // Variants, per raw word, go to the word whose search token that raw word makes.
        for raw in question.split_whitespace() {
            let (p, vars) = crate::normalize::normalize_with_variants(raw, self.cfg.normalize);
            for v in vars {
                word_for(&mut words, p.split(' ').next().unwrap_or("")).add(&v, 1.0, false);
            }
        }
        for (to, from, _) in self.cfg.aliases.expand_query(primary.split(' ')) {
            let w = word_for(&mut words, &from);
            w.add(&to, s.alias_weight, false);
            w.add_stem_key(&to, s.alias_weight, stems);
        }
        if s.latin_inflection_weight > 0.0 {
            for w in &mut words {
                for form in crate::normalize::latin::inflections(&w.token.clone()) {
                    w.add(&form, s.latin_inflection_weight, false);
                }
            }
        }
        if s.loanword_weight > 0.0 {
            for w in &mut words {
                for key in crate::normalize::loanword::arabic_keys(&w.token.clone()) {
                    w.add(&key, s.loanword_weight, false);
                }
            }
        }
        if s.glossary_weight > 0.0 {
            for w in &mut words {
                for t in self.cfg.glossary.expand(&w.token) {
                    w.add(&t, s.glossary_weight, false);
                }
            }
        }
        // Siblings of a topic word: its broken plurals, its derivational family and its MSA
        // spellings of a dialect's stops, each at its own weight.
        let siblings: [(f64, Siblings); 3] = [
            (
                s.broken_plural_weight,
                crate::normalize::stem::broken_plural_siblings,
            ),
            (
                s.derivation_weight,
                crate::normalize::stem::derivation_siblings,
            ),
            (
                s.interdental_weight,
                crate::normalize::stem::interdental_spellings,
            ),
        ];
        for (weight, expand) in siblings {
            if weight <= 0.0 {
                continue;
            }
            for w in &mut words {
                if self.classes.class(&w.token) != WordClass::Content {
                    continue;
                }
                for f in expand(&w.token) {
                    w.add(&f, weight, false);
                }
            }
        }
        if self.cfg.article_stems {
            for w in &mut words {
                let surface: Vec<(String, f64)> = w
                    .terms
                    .iter()
                    .filter(|t| !t.is_stem)
                    .map(|t| (t.term.clone(), t.weight))
                    .collect();
                for (t, weight) in surface {
                    if let Some(stem) = crate::normalize::aliases::article_stem(&t) {
                        w.add(stem, weight * s.article_stem_weight, false);
                    }
                    if let Some(stem) = crate::normalize::aliases::light_stem(&t) {
                        w.add(&stem, weight * s.stem_weight, false);
                    }
                }
            }
        }
        words
    }

    /// Ranked chunk IDs with scores for a question.
    pub fn rank(
        &self,
        question: &str,
        domains: &[String],
        mode: Mode,
    ) -> Result<Vec<(String, f64, bool)>, Problem> {
        self.rank_reading(question, domains, mode, &mut Records::new())
    }

    /// [`Searcher::rank`], keeping the records the second stage read in `recs`.
    fn rank_reading(
        &self,
        question: &str,
        domains: &[String],
        mode: Mode,
        recs: &mut Records,
    ) -> Result<Vec<(String, f64, bool)>, Problem> {
        let s = &self.cfg.retrieval;
        let q = query_text(question, self.cfg.normalize);
        let words = self.query_words(question);
        let lex = if mode == Mode::Vector {
            Vec::new()
        } else {
            let (lex, idfs) = self.lexical_with_idf(&words, domains)?;
            self.rerank(lex, &words, &idfs, recs)?
        };
        let vec = if mode == Mode::Lexical || (mode == Mode::Fused && s.vector_weight <= 0.0) {
            Vec::new()
        } else {
            self.vector(&q, domains)?
        };
        let mut fused: HashMap<String, f64> = HashMap::new();
        for (rank, (id, _)) in lex.iter().take(s.depth).enumerate() {
            *fused.entry(id.clone()).or_default() +=
                s.lexical_weight / (s.rrf_k + rank as f64 + 1.0);
        }
        let vw = if mode == Mode::Vector {
            1.0
        } else {
            s.vector_weight
        };
        if vw > 0.0 {
            for (rank, (id, _)) in vec.iter().take(s.depth).enumerate() {
                *fused.entry(id.clone()).or_default() += vw / (s.rrf_k + rank as f64 + 1.0);
            }
        }
        let dates = dates::dates_in(question);
        let mut out: Vec<(String, f64, bool)> = fused
            .into_iter()
            .map(|(id, score)| {
                let hit = !dates.is_empty()
                    && self
                        .chunks
                        .get(&id)
                        .and_then(|c| c.date)
                        .is_some_and(|(m, d)| dates.iter().any(|x| x.month == m && x.day == d));
                (id, score + if hit { s.date_boost } else { 0.0 }, hit)
            })
            .collect();
        // A date the question names also brings in its documents when no term matched them.
        if !dates.is_empty() {
            for c in self.chunks.values() {
                if c.date
                    .is_some_and(|(m, d)| dates.iter().any(|x| x.month == m && x.day == d))
                    && (domains.is_empty() || c.domains.iter().any(|d| domains.contains(d)))
                    && !out.iter().any(|(id, _, _)| id == &c.chunk_id)
                {
                    out.push((c.chunk_id.clone(), s.date_boost, true));
                }
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(out)
    }

    /// The top `k` hits, hydrated from lookup. An unhydratable ID is an invariant failure.
    pub fn search(
        &self,
        question: &str,
        domains: &[String],
        k: usize,
        mode: Mode,
    ) -> Result<Vec<Hit>, Problem> {
        let mut recs = Records::new();
        let mut ranked = self.rank_reading(question, domains, mode, &mut recs)?;
        ranked.truncate(k);
        let ids: Vec<&str> = ranked.iter().map(|(id, _, _)| id.as_str()).collect();
        self.read_records(&ids, &mut recs)?;
        let mut hits = Vec::new();
        for (i, (id, score, date_match)) in ranked.into_iter().enumerate() {
            let rec = recs.remove(&id).flatten().ok_or_else(|| {
                Problem::error("invariant", format!("chunk {id} was retrieved but cannot be hydrated in version {}", self.manifest.corpus_version))
                    .help("the lexical/vector artifacts and the lookup records come from different builds: rebuild and run `askzico verify`")
            })?;
            let info = self.chunks.get(&id);
            hits.push(Hit {
                rank: i + 1,
                score,
                chunk_id: id.clone(),
                doc_id: info.map(|c| c.doc_id.clone()).unwrap_or_default(),
                title: rec.title,
                url: rec.url,
                source: info.map(|c| c.source.clone()).unwrap_or_default(),
                library: rec.library,
                text: rec.text,
                date_match,
            });
        }
        Ok(hits)
    }
}

/// A question word's sibling forms of one kind (`normalize::stem`).
type Siblings = fn(&str) -> Vec<String>;

/// Chunk IDs with scores, best first.
pub type Ranking = Vec<(String, f64)>;

/// Per lexical field (terms, alias, context, stem): chunk ID → (tf, chunk length).
type FieldPostings = [HashMap<String, (u32, u32)>; 4];

/// One question word and the weighted terms it expands to.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryWord {
    /// The search token the word normalizes to.
    pub token: String,
    pub terms: Vec<QueryTerm>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
    /// A stem key, matched in `stem_terms` (and titles), not in the other fields.
    pub is_stem: bool,
}

impl QueryWord {
    /// Adds a term, keeping the higher weight when it is already there.
    fn add(&mut self, term: &str, weight: f64, is_stem: bool) {
        if term.is_empty() {
            return;
        }
        match self
            .terms
            .iter_mut()
            .find(|t| t.term == term && t.is_stem == is_stem)
        {
            Some(t) => t.weight = t.weight.max(weight),
            None => self.terms.push(QueryTerm {
                term: term.to_string(),
                weight,
                is_stem,
            }),
        }
    }

    /// Adds the stem key of `token` (`normalize::stem`), when `enabled` and it has one.
    fn add_stem_key(&mut self, token: &str, weight: f64, enabled: bool) {
        if enabled && let Some(k) = crate::normalize::stem::stem(token) {
            self.add(&k, weight, true);
        }
    }
}

/// The word whose token is `token`, added when the question has none (a variant or alias of a
/// token normalization split differently).
fn word_for<'w>(words: &'w mut Vec<QueryWord>, token: &str) -> &'w mut QueryWord {
    match words.iter().position(|w| w.token == token) {
        Some(i) => &mut words[i],
        None => {
            words.push(QueryWord {
                token: token.to_string(),
                terms: Vec::new(),
            });
            words.last_mut().unwrap()
        }
    }
}

/// One word's score in one chunk from its expansions' contributions: the best one plus `tie`
/// times the rest (DisMax; `tie` 1 sums them all, 0 keeps only the best).
pub fn word_score(contributions: &[f64], tie: f64) -> f64 {
    let best = contributions.iter().copied().fold(0.0, f64::max);
    let sum: f64 = contributions.iter().sum();
    best + tie * (sum - best)
}

fn sorted(m: HashMap<String, f64>) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_counts_its_best_expansion_plus_a_tie_fraction_of_the_rest() {
        let parts = [1.0, 3.0, 2.0];
        assert!((word_score(&parts, 1.0) - 6.0).abs() < 1e-12);
        assert!((word_score(&parts, 0.0) - 3.0).abs() < 1e-12);
        assert!((word_score(&parts, 0.5) - 4.5).abs() < 1e-12);
        assert_eq!(word_score(&[], 0.5), 0.0);
        // Ten weak expansions of one word do not outweigh one strong match when tie is 0.
        assert!(word_score(&[0.5; 10], 0.0) < word_score(&[2.0], 0.0));
    }

    #[test]
    fn query_terms_merge_by_term_and_kind_keeping_the_higher_weight() {
        let mut w = QueryWord {
            token: "ميلاد".into(),
            terms: Vec::new(),
        };
        w.add("ميلاد", 0.4, false);
        w.add("ميلاد", 1.0, false);
        w.add("ولد", 0.8, true);
        w.add("", 1.0, false);
        assert_eq!(w.terms.len(), 2);
        assert_eq!(w.terms[0].weight, 1.0);
        assert!(w.terms[1].is_stem);
    }
}
