//! `askzico normalize [--aliases] [--explain] TEXT`: the search form of a text. Line 1 is the
//! primary search form alone; variants, alias expansions and explanations follow on labelled
//! lines.

use super::Outcome;
use crate::config::Config;
use crate::normalize::aliases::{AliasTable, article_stem, shipped};
use crate::normalize::glossary::Glossary;
use crate::normalize::{Rules, explain, normalize_with_variants};

#[derive(clap::Args, Debug)]
pub(super) struct NormalizeArgs {
    /// The corpus config whose rules and aliases apply (defaults when absent).
    #[arg(long, default_value = "corpus.toml")]
    pub config: std::path::PathBuf,
    /// Show alias expansions, glossary terms and article stems.
    #[arg(long)]
    pub aliases: bool,
    /// Name the rule that changed each character.
    #[arg(long)]
    pub explain: bool,
    pub text: String,
}

pub(super) fn run(args: NormalizeArgs) -> Outcome {
    let NormalizeArgs {
        ref config,
        aliases: show_aliases,
        explain: show_explain,
        ref text,
    } = args;
    // The corpus's rules and aliases when a config is at hand; the defaults otherwise.
    let (rules, table, stems, glossary) = match Config::load(config) {
        Ok(c) => (
            c.normalize.clone(),
            c.aliases.clone(),
            c.article_stems,
            c.glossary.clone(),
        ),
        Err(_) => {
            let r = Rules::default();
            let t = AliasTable::new(shipped(), &r);
            let g = Glossary::shipped(&r);
            (r, t, true, g)
        }
    };
    let (primary, variants) = normalize_with_variants(text, &rules);
    println!("{primary}");
    for v in &variants {
        println!("variant: {v}");
    }
    if show_aliases {
        for (to, from, i) in table.expand_query(primary.split(' ')) {
            let a = &table.aliases[i];
            let shown =
                a.to.iter()
                    .find(|t| {
                        crate::normalize::normalize(t, &rules)
                            .split(' ')
                            .any(|x| x == to)
                    })
                    .cloned()
                    .unwrap_or_else(|| to.clone());
            let why = match a.source.as_deref() {
                Some(source) if a.case.is_empty() => format!("source {source}"),
                _ => format!("case {}", a.case),
            };
            println!(
                "alias: {from} → {shown} (search form {to}; direction {}; {why})",
                a.direction
            );
        }
        let tokens: Vec<&str> = primary.split(' ').filter(|t| !t.is_empty()).collect();
        let classes = crate::normalize::query_words::WordClasses::shipped(&rules);
        for (i, key) in crate::normalize::loanword::question_compounds(&tokens, &classes) {
            println!(
                "loanword (two words as one): {} {} → {key} (Latin words with these consonants)",
                tokens[i],
                tokens[i + 1]
            );
        }
        for t in primary.split(' ') {
            let other = glossary.expand(t);
            if !other.is_empty() {
                println!("glossary: {t} → {}", other.join(", "));
            }
            let bases = crate::normalize::dialect::verb_bases(t);
            if !bases.is_empty() {
                println!(
                    "dialect verb: {t} → {} (without its present, future, negation or mediopassive affix)",
                    bases.join(", ")
                );
            }
            if crate::normalize::native_words::could_be_native(t) {
                continue;
            }
            let keys = crate::normalize::loanword::arabic_keys(t);
            if !keys.is_empty() {
                println!(
                    "loanword: {t} → {} (Latin words with these consonants)",
                    keys.join(", ")
                );
            }
            let keyed = glossary.expand_by_key(t);
            if !keyed.is_empty() {
                println!("glossary (by loanword key): {t} → {}", keyed.join(", "));
            }
        }
        if stems {
            for t in primary.split(' ') {
                if let Some(s) = article_stem(t) {
                    println!("stem: {t} → {s}");
                }
            }
        }
    }
    if show_explain {
        for c in explain(text, &rules) {
            let shown = if c.replacement.is_empty() {
                "(dropped)".to_string()
            } else {
                format!("→ {:?}", c.replacement)
            };
            println!(
                "explain: byte {:>4}  U+{:04X} {:?}  {}  {shown}",
                c.offset, c.ch as u32, c.ch, c.rule
            );
        }
    }
    Ok(())
}
