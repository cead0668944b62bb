//! `askzico query`: the runtime's retrieval, locally, over the current build, or with `--target`
//! over the live version of a deploy target (KV and Vectorize, read through the API).

use super::{BuildLocation, Failure, Outcome};
use crate::retrieve::{Mode, Searcher};
use crate::term;

#[derive(clap::Args, Debug)]
pub(super) struct QueryArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Results to show (at least 1).
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub k: usize,
    /// Only these domains (repeatable).
    #[arg(long = "domain")]
    pub domains: Vec<String>,
    #[arg(long, value_enum, default_value = "fused")]
    pub mode: crate::retrieve::ModeArg,
    #[arg(long)]
    pub json: bool,
    /// Ask the version live on this `[deploy.NAME]` target (KV and Vectorize, read through
    /// the API) instead of the local build.
    #[arg(long, value_parser = crate::paths::name_arg, conflicts_with_all = ["out", "env"])]
    pub target: Option<String>,
    /// Instead of one question, every question of these fixture files (as `eval` reads
    /// them), each with its case's domains; with `--json`, one answer a line.
    #[arg(long, num_args = 1.., conflicts_with_all = ["question", "domains"])]
    pub fixtures: Vec<std::path::PathBuf>,
    #[arg(required_unless_present = "fixtures")]
    pub question: Option<String>,
}

pub(super) fn run(q: QueryArgs) -> Outcome {
    let at = &q.at;
    let mode: Mode = q.mode.into();
    let cfg = at.load(q.json)?;
    // An environment the config does not name is a usage error, with the ones it does.
    cfg.libraries_for(at.env.as_deref())
        .map_err(|p| Failure::usage(p, q.json))?;
    // One question, or each case of the fixtures with its own domains.
    let asked: Vec<(Option<String>, String, Vec<String>)> = match &q.question {
        Some(question) => vec![(None, question.clone(), q.domains.clone())],
        None => crate::eval::load_fixtures(&q.fixtures)
            .map_err(|ps| Failure::usage(ps, q.json))?
            .into_iter()
            .map(|c| (Some(c.id), c.question, c.domains))
            .collect(),
    };
    let opened = match q.target.as_deref() {
        Some(name) => {
            let t = at.deploy_target(&cfg, name)?;
            // Credentials are part of the invocation, as for `deploy`: a usage error.
            let client = credentials(t, name).map_err(|p| Failure::usage(p, q.json))?;
            live_searcher(&cfg, t, name, client)
        }
        None => {
            let out = cfg.out_dir_or(at.out.as_deref());
            at.read_manifest(&out)
                .and_then(|m| Searcher::open(cfg.search_settings(), &out, m))
        }
    };
    let searcher = opened.map_err(|p| Failure::errors(p, q.json))?;
    for (id, question, domains) in &asked {
        known_domains(&searcher, domains).map_err(|p| Failure::usage(p, q.json))?;
        let hits = searcher
            .search(question, domains, q.k, mode)
            .map_err(|p| Failure::errors(p, q.json))?;
        show(&cfg, &searcher, id.as_deref(), question, &hits, q.json);
    }
    Ok(())
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
