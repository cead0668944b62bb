//! `askzico query`: the runtime's retrieval, locally, over the current build, or with `--target`
//! over the live version of a deploy target (KV and Vectorize, read through the API).

use super::{BuildLocation, EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report};
use crate::diag::Problems;
use crate::retrieve::{Mode, Searcher};
use crate::term;

pub struct QueryArgs<'a> {
    /// One question; `None` with `fixtures`.
    pub question: Option<&'a str>,
    /// Every question of these fixture files instead.
    pub fixtures: &'a [std::path::PathBuf],
    pub k: usize,
    pub domains: &'a [String],
    pub mode: Mode,
    pub json: bool,
    /// Ask the live version of this `[deploy.NAME]` target instead of the local build.
    pub target: Option<&'a str>,
}

pub fn run(at: &BuildLocation, q: QueryArgs<'_>) -> i32 {
    let Some(cfg) = at.load(q.json) else {
        return EXIT_USAGE;
    };
    // An environment the config does not name is a usage error, with the ones it does.
    if let Err(p) = cfg.libraries_for(at.env.as_deref()) {
        report(&Problems(vec![p]), q.json);
        return EXIT_USAGE;
    }
    // One question, or each case of the fixtures with its own domains.
    let asked: Vec<(Option<String>, String, Vec<String>)> = match q.question {
        Some(question) => vec![(None, question.to_string(), q.domains.to_vec())],
        None => match crate::eval::load_fixtures(q.fixtures) {
            Ok(cases) => cases
                .into_iter()
                .map(|c| (Some(c.id), c.question, c.domains))
                .collect(),
            Err(ps) => {
                report(&Problems(ps), q.json);
                return EXIT_USAGE;
            }
        },
    };
    let opened = match q.target {
        Some(name) => {
            let Some(t) = at.deploy_target(&cfg, name) else {
                return EXIT_USAGE;
            };
            // Credentials are part of the invocation, as for `deploy`: a usage error.
            let client = match credentials(t, name) {
                Ok(c) => c,
                Err(p) => {
                    report(&Problems(vec![p]), q.json);
                    return EXIT_USAGE;
                }
            };
            live_searcher(&cfg, t, name, client)
        }
        None => {
            let out = cfg.out_dir_or(at.out.as_deref());
            at.read_manifest(&out)
                .and_then(|m| Searcher::open(cfg.search_settings(), &out, m))
        }
    };
    let searcher = match opened {
        Ok(s) => s,
        Err(p) => {
            report(&Problems(vec![p]), q.json);
            return EXIT_ERRORS;
        }
    };
    for (id, question, domains) in &asked {
        if let Err(p) = known_domains(&searcher, domains) {
            report(&Problems(vec![p]), q.json);
            return EXIT_USAGE;
        }
        let hits = match searcher.search(question, domains, q.k, q.mode) {
            Ok(h) => h,
            Err(p) => {
                report(&Problems(vec![p]), q.json);
                return EXIT_ERRORS;
            }
        };
        show(&cfg, &searcher, id.as_deref(), question, &hits, q.json);
    }
    EXIT_OK
}

/// One answer: a JSON line, or the question, its search form, the version and each hit.
fn show(
    cfg: &crate::config::Config,
    searcher: &Searcher,
    id: Option<&str>,
    question: &str,
    hits: &[crate::retrieve::Hit],
    json: bool,
) {
    let search = crate::normalize::query_text(question, &cfg.normalize);
    if json {
        let mut v = serde_json::json!({
            "question": question,
            "search_text": search.as_str(),
            "corpus_version": searcher.manifest.corpus_version,
            "hits": hits,
        });
        if let Some(id) = id {
            v.as_object_mut()
                .expect("an object")
                .insert("id".into(), id.into());
        }
        println!("{v}");
        return;
    }
    if let Some(id) = id {
        println!("case:     {}", term::line(id));
    }
    println!(
        "question: {}\nsearch:   {}\nversion:  {}\n",
        term::line(question),
        term::line(search.as_str()),
        term::line(&searcher.manifest.corpus_version)
    );
    if hits.is_empty() {
        println!("no results");
    }
    for h in hits {
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
            term::line(&h.title),
            if h.date_match { "  (date match)" } else { "" }
        );
        println!("   {}  ({})", term::line(&h.url), term::line(&h.chunk_id));
        for line in excerpt.lines().filter(|l| !l.trim().is_empty()) {
            println!("   │ {}", term::line(line));
        }
        println!("   │{more}\n");
    }
}

/// The API client a query of deploy target `name` reads with: the token must be set and valid.
fn credentials(
    t: &crate::config::DeployTarget,
    name: &str,
) -> Result<crate::deploy::client::Client, crate::diag::Problem> {
    crate::deploy::client::Client::from_env(t.account_id.as_deref())
        .map_err(|e| crate::diag::Problem::error("deployed", format!("target `{name}`: {e}")))?
        .ok_or_else(|| {
            crate::diag::Problem::error(
                "deployed",
                format!("target `{name}`: a query of the deployed version needs CLOUDFLARE_API_TOKEN"),
            )
            .help("export CLOUDFLARE_API_TOKEN (a token that may read the target's KV namespace and Vectorize indexes)")
        })
}

/// A searcher over the live version of deploy target `name`.
fn live_searcher<'a>(
    cfg: &'a crate::config::Config,
    t: &crate::config::DeployTarget,
    name: &str,
    client: crate::deploy::client::Client,
) -> Result<Searcher<'a>, crate::diag::Problem> {
    let live = crate::deploy::live::open(client, t, name)?;
    Ok(Searcher::new(
        cfg.search_settings(),
        live.manifest,
        live.chunks,
        live.lex_meta,
        Box::new(live.store),
    ))
}

/// Every `--domain` asked is one of the build's; else the problem naming them.
fn known_domains(searcher: &Searcher, asked: &[String]) -> Result<(), crate::diag::Problem> {
    let known: std::collections::BTreeSet<&str> = searcher
        .manifest
        .libraries
        .iter()
        .flat_map(|l| l.domains.iter().map(String::as_str))
        .collect();
    let unknown: Vec<&str> = asked
        .iter()
        .map(String::as_str)
        .filter(|d| !known.contains(d))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(crate::diag::Problem::error(
        "unknown-domain",
        format!(
            "no domain `{}` in version {}",
            unknown.join("`, `"),
            searcher.manifest.corpus_version
        ),
    )
    .help(format!(
        "pass --domain one of the build's domains: {}",
        known.into_iter().collect::<Vec<_>>().join(", ")
    )))
}
