//! `askzico query`: the runtime's retrieval, locally, over the current build, or with `--target`
//! over the live version of a deploy target (KV and Vectorize, read through the API).

use super::{BuildLocation, Failure, Outcome};
use crate::retrieve::{Mode, Searcher};
use crate::term;

#[derive(clap::Args, Debug)]
pub(super) struct QueryArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// Pages to show, 1 to 20; each with its best section and up to 3 further matching sections.
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_K))]
    pub k: usize,
    /// Only these domains (repeatable).
    #[arg(long = "domain")]
    pub domains: Vec<String>,
    /// Only these libraries (repeatable).
    #[arg(long = "library")]
    pub libraries: Vec<String>,
    /// Only documents whose filterable field KEY (`[[library]] filterable`) is VALUE
    /// (repeatable: one of a key's values, every key).
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = field_filter)]
    pub fields: Vec<(String, String)>,
    /// Which rankings to use: both fused, or one of them alone.
    #[arg(long, value_enum, default_value = "fused")]
    pub mode: crate::retrieve::ModeArg,
    /// Print the answer as one JSON line (the Worker's `/search` body) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also show why each page ranked: its best section's lexical and vector ranks and scores.
    #[arg(long)]
    pub explain: bool,
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

/// The most pages one answer shows: what a reader scans, and a bound on what one question reads.
const MAX_K: u64 = 20;

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
    let mut live = match q.target.as_deref() {
        Some(name) => {
            let t = at.deploy_target(&cfg, name)?;
            // Credentials are part of the invocation, as for `deploy`: a usage error.
            let client = credentials(t, name).map_err(|p| Failure::usage(p, q.json))?;
            Some(
                crate::deploy::live::open(client, t, name)
                    .map_err(|p| Failure::errors(p, q.json))?,
            )
        }
        None => None,
    };
    // A deployed version answers with the query settings deployed with it (those of the
    // local config for a version deployed before they travelled with it).
    let deployed = live.as_mut().and_then(|l| l.settings.take());
    let settings = crate::retrieve::SearchSettings {
        ranking: deployed
            .as_ref()
            .map_or(cfg.search_settings().ranking, |d| d.settings()),
        embedding: &cfg.embedding,
    };
    let opened = match live {
        Some(l) => Ok(Searcher::new(
            settings,
            l.manifest,
            l.chunks,
            l.lex_meta,
            Box::new(l.store),
        )),
        None => {
            let out = cfg.out_dir_or(at.out.as_deref());
            at.read_manifest(&out)
                .and_then(|m| Searcher::open_indexed(settings, &out, m))
        }
    };
    let searcher = opened.map_err(|p| Failure::errors(p, q.json))?;
    for (id, question, domains) in &asked {
        known_domains(&searcher, domains).map_err(|p| Failure::usage(p, q.json))?;
        known_libraries(&searcher, &q.libraries).map_err(|p| Failure::usage(p, q.json))?;
        known_fields(&searcher, &q.fields).map_err(|p| Failure::usage(p, q.json))?;
        let filters = crate::retrieve::Filters {
            domains: domains.clone(),
            libraries: q.libraries.clone(),
            fields: q.fields.clone(),
        };
        let hits = searcher
            .search(question, &filters, q.k, mode)
            .map_err(|p| Failure::errors(p, q.json))?;
        let how = Shown {
            json: q.json,
            explain: q.explain,
            marks: Marks::for_stdout(),
        };
        show(&searcher, id.as_deref(), domains, question, &hits, how);
    }
    Ok(())
}

/// How an answer is printed.
#[derive(Clone, Copy)]
struct Shown {
    json: bool,
    explain: bool,
    marks: Marks,
}

/// How a matched word of an excerpt is shown: bold on a terminal, between «» otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Marks {
    Bold,
    Quotes,
}

impl Marks {
    fn for_stdout() -> Marks {
        if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            Marks::Bold
        } else {
            Marks::Quotes
        }
    }

    fn around(self) -> (&'static str, &'static str) {
        match self {
            Marks::Bold => ("\x1b[1m", "\x1b[0m"),
            Marks::Quotes => ("«", "»"),
        }
    }
}

/// An excerpt (HTML with `<mark>`) for the terminal: unescaped, control characters shown
/// escaped, runs of white space as one space, the marks shown as `marks` says, and, given the
/// `text` it was cut from, `…` where it starts or ends inside it.
fn excerpt_line(excerpt: &str, text: Option<&str>, marks: Marks) -> String {
    let (open, close) = marks.around();
    let mut out = String::new();
    for (i, part) in excerpt.split("<mark>").enumerate() {
        let (marked, rest) = match part.split_once("</mark>") {
            Some((m, r)) if i > 0 => (Some(m), r),
            _ => (None, part),
        };
        // One line: white space runs become one space before control characters are escaped.
        let plain = |s: &str| {
            let s = askzico_core::search::excerpt::unmarked(s);
            let spaced: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
            let edge = |b: bool| if b { " " } else { "" };
            let (lead, trail) = (
                s.starts_with(char::is_whitespace),
                s.ends_with(char::is_whitespace),
            );
            format!(
                "{}{}{}",
                edge(lead && !spaced.is_empty()),
                term::line(&spaced),
                edge(trail)
            )
        };
        if let Some(m) = marked {
            out.push_str(open);
            out.push_str(&plain(m));
            out.push_str(close);
        }
        out.push_str(&plain(rest));
    }
    let out = out.trim().to_string();
    let Some(text) = text else {
        return out;
    };
    let plain = askzico_core::search::excerpt::unmarked(excerpt);
    let plain = plain.trim();
    let before = if text.trim_start().starts_with(plain) {
        ""
    } else {
        "… "
    };
    let after = if text.trim_end().ends_with(plain) {
        ""
    } else {
        " …"
    };
    format!("{before}{out}{after}")
}

/// One answer: a JSON line, or the question, its search form, the version and each page with
/// its excerpt and its further sections.
fn show(
    searcher: &Searcher,
    id: Option<&str>,
    domains: &[String],
    question: &str,
    hits: &[crate::retrieve::Hit],
    how: Shown,
) {
    let search = crate::normalize::query_text(question, searcher.settings().normalize);
    if how.json {
        let mut v = serde_json::to_value(askzico_core::search::Answer {
            question,
            search_text: search.as_str(),
            corpus_version: &searcher.manifest.corpus_version,
            hits,
        })
        .expect("serializes");
        if let Some(id) = id {
            // A fixture case's answer names the case and the domains it searched.
            let o = v.as_object_mut().expect("an object");
            o.insert("id".into(), id.into());
            o.insert("domains".into(), domains.into());
        }
        println!("{v}");
        return;
    }
    if let Some(id) = id {
        println!("case:     {}", term::line(id));
    }
    println!(
        "question: {}\nsearch:   {}\nversion:  {}\nembedder: {}\n",
        term::line(question),
        term::line(search.as_str()),
        term::line(&searcher.manifest.corpus_version),
        term::line(&searcher.manifest.embedder())
    );
    if hits.is_empty() {
        println!("no results");
    }
    // The heading a chunk starts under, when it is not the page's title.
    let section = |title: &str, path: &[String]| match path.last() {
        Some(h) if h != title => format!(" › {}", term::line(h)),
        _ => String::new(),
    };
    for h in hits {
        println!(
            "{}. [{:.4}] {}{}{}",
            h.rank,
            h.score,
            term::line(&h.title),
            section(&h.title, &h.heading_path),
            if h.date_match { "  (date match)" } else { "" }
        );
        println!(
            "   {}  ({})",
            term::line(&h.section_url),
            term::line(&h.chunk_id)
        );
        if how.explain {
            let at = |r: Option<askzico_core::search::RankedBy>| {
                r.map_or("-".to_string(), |r| format!("#{} [{:.4}]", r.rank, r.score))
            };
            println!(
                "   why: lexical {}, vector {}, fused [{:.4}]",
                at(h.lexical),
                at(h.vector),
                h.score
            );
        }
        println!(
            "   │ {}",
            excerpt_line(&h.excerpt, Some(&h.text), how.marks)
        );
        for s in &h.sections {
            let heading = match s.heading_path.last() {
                Some(h) if *h != s.title => format!(" {} ·", term::line(h)),
                _ => String::new(),
            };
            println!(
                "   ├ [{:.4}]{heading} {}  ({})",
                s.score,
                term::line(&s.section_url),
                term::line(&s.chunk_id)
            );
            println!("   │   {}", excerpt_line(&s.excerpt, None, how.marks));
        }
        println!();
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

/// `--where KEY=VALUE`.
fn field_filter(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!(
            "`{s}` is not KEY=VALUE (a filterable field of `[[library]] filterable` and its value)"
        )),
    }
}

/// Every `--where` key is a filterable field of one of the build's libraries; else the problem
/// naming them.
fn known_fields(
    searcher: &Searcher,
    asked: &[(String, String)],
) -> Result<(), crate::diag::Problem> {
    let known: std::collections::BTreeSet<&str> = searcher
        .manifest
        .libraries
        .iter()
        .flat_map(|l| l.filterable.iter().map(String::as_str))
        .collect();
    let known: Vec<&str> = known.into_iter().collect();
    let asked: Vec<&str> = asked.iter().map(|(k, _)| k.as_str()).collect();
    let help = if known.is_empty() {
        "no library of this build declares filterable fields: add `filterable = [\"KEY\"]` to a `[[library]]` of corpus.toml (top-level metadata fields) and build again".to_string()
    } else {
        format!(
            "pass --where one of the build's filterable fields: {}",
            known.join(", ")
        )
    };
    all_known(
        searcher,
        "unknown-field",
        "filterable field",
        &known,
        &asked,
        help,
    )
}

/// Every `--library` asked is one of the build's; else the problem naming them.
fn known_libraries(searcher: &Searcher, asked: &[String]) -> Result<(), crate::diag::Problem> {
    let known: Vec<&str> = searcher
        .manifest
        .libraries
        .iter()
        .map(|l| l.id.as_str())
        .collect();
    let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
    let help = format!(
        "pass --library one of the build's libraries: {}",
        known.join(", ")
    );
    all_known(searcher, "unknown-library", "library", &known, &asked, help)
}

/// Every `--domain` asked is one of the build's; else the problem naming them.
fn known_domains(searcher: &Searcher, asked: &[String]) -> Result<(), crate::diag::Problem> {
    let known: std::collections::BTreeSet<&str> = searcher
        .manifest
        .libraries
        .iter()
        .flat_map(|l| l.domains.iter().map(String::as_str))
        .collect();
    let known: Vec<&str> = known.into_iter().collect();
    let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
    let help = format!(
        "pass --domain one of the build's domains: {}",
        known.join(", ")
    );
    all_known(searcher, "unknown-domain", "domain", &known, &asked, help)
}

/// Every name asked (a `what` of the build) is `known`; else the problem `code` naming the
/// unknown ones, with `help`.
fn all_known(
    searcher: &Searcher,
    code: &'static str,
    what: &str,
    known: &[&str],
    asked: &[&str],
    help: String,
) -> Result<(), crate::diag::Problem> {
    let unknown: Vec<&str> = asked
        .iter()
        .copied()
        .filter(|a| !known.contains(a))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(crate::diag::Problem::error(
        code,
        format!(
            "no {what} `{}` in version {}",
            unknown.join("`, `"),
            searcher.manifest.corpus_version
        ),
    )
    .help(help))
}

#[cfg(test)]
mod tests {
    use super::{Marks, excerpt_line};

    #[test]
    fn an_excerpt_line_shows_its_marks_and_where_it_was_cut() {
        let text = "أول\nقال: «الصَّلاة» &\u{1b}[2J عماد الدين آخر";
        let e = "قال: «<mark>الصَّلاة</mark>» &amp;\u{1b}[2J عماد";
        assert_eq!(
            excerpt_line(e, Some(text), Marks::Quotes),
            "… قال: ««الصَّلاة»» &\\u{1b}[2J عماد …"
        );
        assert_eq!(
            excerpt_line(e, None, Marks::Bold),
            "قال: «\u{1b}[1mالصَّلاة\u{1b}[0m» &\\u{1b}[2J عماد"
        );
    }
}
