//! `rules check`: every normalization rule and alias is judged by (a) the focused fixture cases
//! it serves — their rank with and without it — and (b) its collisions over the built corpus
//! vocabulary: the distinct surface words that become equal because of it. A `[[collision]]`
//! pair that a rule merges without `accept = true` fails the check.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::config::Config;
use crate::normalize::{ALL_RULE_NAMES, LOSSY_RULE_NAMES, Rules, explain, normalize};

/// A rule switched on or off by name; `None` for rules that are always on.
pub(crate) fn with_rule(rules: &Rules, name: &str, on: bool) -> Option<Rules> {
    let mut r = rules.clone();
    let field = match name {
        "fold_alef_hamza" => &mut r.fold_alef_hamza,
        "fold_alef_maksura" => &mut r.fold_alef_maksura,
        "fold_teh_marbuta" => &mut r.fold_teh_marbuta,
        "fold_hamza_carriers" => &mut r.fold_hamza_carriers,
        "digits" => &mut r.digits,
        "punctuation" => &mut r.punctuation,
        "lowercase_latin" => &mut r.lowercase_latin,
        _ => return None,
    };
    *field = on;
    Some(r)
}

/// Whether a rule is on in `rules` (always-on rules are on).
pub(crate) fn is_on(rules: &Rules, name: &str) -> bool {
    rules.active_rule_names().contains(&name)
}

/// The focused case id prefix of a rule: `rule-` + its name without `fold_`, `_` → `-`.
pub(crate) fn case_prefix(rule: &str) -> String {
    format!(
        "rule-{}",
        rule.trim_start_matches("fold_").replace('_', "-")
    )
}

/// Distinct surface words of evidence texts with their counts.
pub(crate) fn vocabulary<'a>(texts: impl Iterator<Item = &'a str>) -> BTreeMap<String, usize> {
    let mut v = BTreeMap::new();
    for t in texts {
        for w in t.split(|c: char| !(c.is_alphanumeric() || is_mark(c))) {
            if !w.is_empty() && w.chars().any(char::is_alphabetic) {
                *v.entry(w.to_string()).or_insert(0) += 1;
            }
        }
    }
    v
}

fn is_mark(c: char) -> bool {
    matches!(c, '\u{0610}'..='\u{061A}' | '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{06D6}'..='\u{06ED}' | '\u{0640}' | '\u{200C}' | '\u{200D}')
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Collisions {
    /// Groups of distinct surface words merged into one search form by this rule.
    pub groups: usize,
    pub words: usize,
    /// The most frequent groups: (search form, [(surface, count)]).
    pub examples: Vec<(String, Vec<(String, usize)>)>,
}

/// Collisions of each rule over a vocabulary. Switchable rules are measured exactly (groups
/// that split when the rule is flipped); always-on rules through `explain` (groups whose words
/// the rule changed in some but not all of them).
pub(crate) fn collisions(
    vocab: &BTreeMap<String, usize>,
    rules: &Rules,
    examples: usize,
) -> BTreeMap<&'static str, Collisions> {
    let groups = group_by_form(vocab, rules);
    let mut out: BTreeMap<&'static str, Merges> = BTreeMap::new();
    for rule in ALL_RULE_NAMES {
        let rule: &'static str = rule;
        let merges = match with_rule(rules, rule, !is_on(rules, rule)) {
            Some(flipped) if is_on(rules, rule) => split_when_off(&groups, &flipped),
            // An off rule: what it would merge if switched on.
            Some(flipped) => split_when_off(&group_by_form(vocab, &flipped), rules),
            None => always_on_merges(&groups, rules, rule),
        };
        out.entry(rule).or_default().extend(merges);
    }
    out.into_iter()
        .map(|(rule, gs)| (rule, summarize(gs, examples)))
        .collect()
}

/// Per rule: (normalized form, the distinct words it merges with their counts).
type Merges = Vec<(String, Vec<(String, usize)>)>;

/// The words of a vocabulary by their search form under `rules`, with their counts.
fn group_by_form<'a>(
    vocab: &'a BTreeMap<String, usize>,
    rules: &Rules,
) -> BTreeMap<String, Vec<(&'a str, usize)>> {
    let mut groups: BTreeMap<String, Vec<(&str, usize)>> = BTreeMap::new();
    for (w, n) in vocab {
        groups.entry(normalize(w, rules)).or_default().push((w, *n));
    }
    groups
}

/// The groups of several words that `apart` (the rules with the rule flipped) would split.
fn split_when_off(groups: &BTreeMap<String, Vec<(&str, usize)>>, apart: &Rules) -> Merges {
    let mut merged = Merges::new();
    for (key, ws) in groups.iter().filter(|(_, ws)| ws.len() > 1) {
        let forms: BTreeSet<String> = ws.iter().map(|(w, _)| normalize(w, apart)).collect();
        if forms.len() > 1 {
            merged.push((
                key.clone(),
                ws.iter().map(|(w, n)| (w.to_string(), *n)).collect(),
            ));
        }
    }
    merged
}

/// An always-on rule: each merge attributed to it when its firing differs between a word and
/// the group's most frequent spelling.
fn always_on_merges(
    groups: &BTreeMap<String, Vec<(&str, usize)>>,
    rules: &Rules,
    rule: &str,
) -> Merges {
    let mut merged = Merges::new();
    for (key, ws) in groups.iter().filter(|(_, ws)| ws.len() > 1) {
        let (canon, canon_n) = *ws
            .iter()
            .max_by_key(|(w, n)| (*n, std::cmp::Reverse(*w)))
            .expect("non-empty group");
        let fired_in = |w: &str| explain(w, rules).iter().any(|c| c.rule == rule);
        let canon_fired = fired_in(canon);
        let joined: Vec<(String, usize)> = ws
            .iter()
            .filter(|(w, _)| *w != canon && fired_in(w) != canon_fired)
            .map(|(w, n)| (w.to_string(), *n))
            .collect();
        if !joined.is_empty() {
            let mut all = vec![(canon.to_string(), canon_n)];
            all.extend(joined);
            merged.push((key.clone(), all));
        }
    }
    merged
}

/// A rule's merges counted, the `examples` most frequent groups kept.
fn summarize(mut gs: Merges, examples: usize) -> Collisions {
    let words = gs.iter().map(|(_, ws)| ws.len()).sum();
    let n = gs.len();
    gs.sort_by_key(|(k, ws)| {
        (
            std::cmp::Reverse(ws.iter().map(|(_, c)| c).sum::<usize>()),
            k.clone(),
        )
    });
    gs.truncate(examples);
    Collisions {
        groups: n,
        words,
        examples: gs,
    }
}

/// The stemmer's merges over a vocabulary (`normalize::stem`, the keys of the `stem_terms` field).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StemCollisions {
    /// Stem keys that two or more distinct search forms share.
    pub groups: usize,
    /// Distinct search forms in those groups.
    pub words: usize,
    /// The worst groups, most distinct search forms first: (key, [(search form, count)], its
    /// surface words' counts summed per search form, most frequent first).
    pub examples: Vec<(String, Vec<(String, usize)>)>,
}

/// What the stemmer merges: the vocabulary's surface words are normalized (the rules' own merges
/// are reported per rule), and each distinct search form is keyed by `normalize::stem`; a key
/// that two or more search forms share is a collision of the stemmer. Words without a key (Latin,
/// digits) are left out. The worst groups are those merging the most distinct forms.
pub(crate) fn stem_collisions(
    vocab: &BTreeMap<String, usize>,
    rules: &Rules,
    examples: usize,
) -> StemCollisions {
    let mut forms: BTreeMap<String, usize> = BTreeMap::new();
    for (w, n) in vocab {
        for t in normalize(w, rules).split(' ').filter(|t| !t.is_empty()) {
            *forms.entry(t.to_string()).or_insert(0) += n;
        }
    }
    let mut by_key: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    for (form, n) in forms {
        if let Some(key) = crate::normalize::stem::stem(&form) {
            by_key.entry(key).or_default().push((form, n));
        }
    }
    let mut groups: Vec<(String, Vec<(String, usize)>)> =
        by_key.into_iter().filter(|(_, fs)| fs.len() > 1).collect();
    let words = groups.iter().map(|(_, fs)| fs.len()).sum();
    let n = groups.len();
    for (_, fs) in &mut groups {
        fs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    }
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    groups.truncate(examples);
    StemCollisions {
        groups: n,
        words,
        examples: groups,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PairVerdict {
    pub a: String,
    pub b: String,
    pub merged: bool,
    /// The switchable rules that, flipped alone, keep the pair apart.
    pub by: Vec<String>,
    pub accept: bool,
    pub why: String,
    pub violation: bool,
}

/// The verdict on every `[[collision]]` pair of the config.
pub(crate) fn pairs(cfg: &Config) -> Vec<PairVerdict> {
    let rules = &cfg.normalize;
    cfg.collisions
        .iter()
        .map(|c| {
            let merged = normalize(&c.a, rules) == normalize(&c.b, rules);
            let by = if merged {
                LOSSY_RULE_NAMES
                    .iter()
                    .chain(["digits", "punctuation", "lowercase_latin"].iter())
                    .filter(|r| is_on(rules, r))
                    .filter(|r| {
                        with_rule(rules, r, false)
                            .is_some_and(|off| normalize(&c.a, &off) != normalize(&c.b, &off))
                    })
                    .map(|r| r.to_string())
                    .collect()
            } else {
                Vec::new()
            };
            PairVerdict {
                a: c.a.clone(),
                b: c.b.clone(),
                merged,
                by,
                accept: c.accept,
                why: c.why.clone(),
                violation: merged && !c.accept,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maksura_fold_merges_ala_and_ali() {
        let vocab: BTreeMap<String, usize> =
            [("على", 10), ("علي", 3), ("عِلْم", 1), ("علم", 2), ("كتاب", 1)]
                .iter()
                .map(|(w, n)| (w.to_string(), *n))
                .collect();
        let c = collisions(&vocab, &Rules::default(), 3);
        assert_eq!(c["fold_alef_maksura"].groups, 1);
        assert_eq!(c["fold_alef_maksura"].examples[0].1.len(), 2);
        assert_eq!(c["harakat"].groups, 1);
        assert_eq!(c["fold_teh_marbuta"].groups, 0);
        // An off rule reports what it would merge.
        let vocab: BTreeMap<String, usize> = [("رؤية", 1), ("روية", 1)]
            .iter()
            .map(|(w, n)| (w.to_string(), *n))
            .collect();
        assert_eq!(
            collisions(&vocab, &Rules::default(), 3)["fold_hamza_carriers"].groups,
            1
        );
        assert_eq!(case_prefix("fold_alef_hamza"), "rule-alef-hamza");
    }

    #[test]
    fn stemmer_collisions_are_distinct_search_forms_sharing_a_key() {
        let vocab: BTreeMap<String, usize> = [
            ("ميلاد", 5),
            ("الميلاد", 3),
            ("مولد", 2),
            ("اتولد", 1),
            ("مِيلاد", 1),
            ("كتاب", 4),
            ("الكتاب", 2),
            ("بيت", 9),
            ("react", 3),
        ]
        .iter()
        .map(|(w, n)| (w.to_string(), *n))
        .collect();
        let c = stem_collisions(&vocab, &Rules::default(), 1);
        // ولد ← ميلاد، الميلاد، مولد، اتولد (مِيلاد is ميلاد once normalized: a rule's merge, not
        // the stemmer's); كتاب ← كتاب، الكتاب; بيت and react merge nothing.
        assert_eq!(c.groups, 2);
        assert_eq!(c.words, 6);
        assert_eq!(c.examples.len(), 1);
        let (key, forms) = &c.examples[0];
        assert_eq!(key, "ولد");
        assert_eq!(forms[0], ("ميلاد".to_string(), 6));
        assert_eq!(forms.len(), 4);
    }
}
