//! `askzico query`: the runtime's retrieval, locally, over the current build.

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report};
use crate::artifacts::store::read_manifest;
use crate::diag::Problems;
use crate::retrieve::{Mode, Searcher};

pub struct QueryArgs<'a> {
    pub question: &'a str,
    pub k: usize,
    pub domains: &'a [String],
    pub mode: Mode,
    pub json: bool,
}

pub fn run(at: &BuildLocation, q: QueryArgs<'_>) -> i32 {
    let Some(cfg) = at.load(q.json) else {
        return EXIT_USAGE;
    };
    let out = cfg.out_dir_or(at.out.as_deref());
    let searcher = match read_manifest(&out, at.env.as_deref())
        .and_then(|m| Searcher::open(cfg.search_settings(), &out, m))
    {
        Ok(s) => s,
        Err(p) => {
            report(&Problems(vec![p]), q.json);
            return EXIT_ERRORS;
        }
    };
    let hits = match searcher.search(q.question, q.domains, q.k, q.mode) {
        Ok(h) => h,
        Err(p) => {
            report(&Problems(vec![p]), q.json);
            return EXIT_ERRORS;
        }
    };
    if q.json {
        let v = serde_json::json!({
            "question": q.question,
            "search_text": crate::normalize::query_text(q.question, &cfg.normalize).as_str(),
            "corpus_version": searcher.manifest.corpus_version,
            "hits": hits,
        });
        println!("{v}");
        return EXIT_OK;
    }
    println!(
        "question: {}\nsearch:   {}\nversion:  {}\n",
        q.question,
        crate::normalize::query_text(q.question, &cfg.normalize).as_str(),
        searcher.manifest.corpus_version
    );
    if hits.is_empty() {
        println!("no results");
    }
    for h in &hits {
        let excerpt: String = h.text.chars().take(400).collect();
        let more = if h.text.chars().count() > 400 {
            " …"
        } else {
            ""
        };
        println!(
            "{}. [{:.4}] {}{}",
            h.rank,
            h.score,
            h.title,
            if h.date_match { "  (date match)" } else { "" }
        );
        println!("   {}  ({})", h.url, h.chunk_id);
        for line in excerpt.lines().filter(|l| !l.trim().is_empty()) {
            println!("   │ {line}");
        }
        println!("   │{more}\n");
    }
    EXIT_OK
}
