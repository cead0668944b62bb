//! Root choice: the dominant `<article>`, else `itemprop=articleBody`, else `<main>`/`role=main`,
//! else a readability-style score.

use super::MIN_PROSE_CHARS;
use super::chrome::Analysis;
use super::tags::is_block;
use super::tree::*;

pub(super) enum Choice {
    /// the roots to walk
    Roots {
        roots: Vec<u32>,
        /// a semantic root: no block-level link filtering
        strict: bool,
    },
    /// several comparable `<article>` elements: a listing of cards
    Cards(usize),
}

fn contains_h1(t: &Tree, an: &Analysis, root: u32) -> bool {
    let mut found = false;
    traverse(t, root, |n, enter| {
        if !enter || found || an.removed[n as usize] {
            return false;
        }
        if t.name(n) == "h1" && an.total[n as usize] > 0 {
            found = true;
            return false;
        }
        true
    });
    found
}

/// `a` is `b` or an ancestor of `b`.
fn is_ancestor(t: &Tree, a: u32, b: u32) -> bool {
    let mut cur = b;
    while cur != NONE {
        if cur == a {
            return true;
        }
        cur = t.parent(cur);
    }
    false
}

pub(super) fn choose_root(t: &Tree, an: &Analysis) -> Choice {
    let n = t.nodes.len();
    // top-level <article> elements that survived chrome removal
    let mut articles: Vec<u32> = Vec::new();
    let mut in_article = vec![false; n];
    for i in 1..n {
        let p = t.nodes[i].parent as usize;
        in_article[i] = in_article[p];
        if an.removed[i] {
            continue;
        }
        if t.name(i as u32) == "article" && !in_article[i] {
            articles.push(i as u32);
            in_article[i] = true;
        }
    }
    if !articles.is_empty() {
        let mut sorted = articles.clone();
        sorted.sort_by(|&a, &b| {
            an.prose[b as usize]
                .cmp(&an.prose[a as usize])
                .then(a.cmp(&b))
        });
        let best = sorted[0];
        if sorted.len() == 1 {
            if (an.prose[best as usize] as usize) < MIN_PROSE_CHARS {
                // a lone small <article> (a card, a widget) while the prose lives elsewhere
                if let Some(alt) = prose_beside(t, an, &articles) {
                    return alt;
                }
            }
            return Choice::Roots {
                roots: vec![best],
                strict: true,
            };
        }
        let bp = an.prose[best as usize] as usize;
        let sp = an.prose[sorted[1] as usize] as usize;
        let dominant = bp >= MIN_PROSE_CHARS && bp >= 3 * sp;
        let only_h1 = bp >= MIN_PROSE_CHARS
            && contains_h1(t, an, best)
            && sorted[1..].iter().all(|&a| !contains_h1(t, an, a));
        if dominant || only_h1 {
            return Choice::Roots {
                roots: vec![best],
                strict: true,
            };
        }
        // cards of related posts beside an article not marked as one
        if let Some(alt) = prose_beside(t, an, &articles) {
            return alt;
        }
        return Choice::Cards(articles.len());
    }
    for i in 1..n as u32 {
        if !an.removed[i as usize] && t.flags(i) & F_ARTICLE_BODY != 0 {
            return Choice::Roots {
                roots: vec![i],
                strict: true,
            };
        }
    }
    for i in 1..n as u32 {
        if !an.removed[i as usize] && (t.name(i) == "main" || t.flags(i) & F_ROLE_MAIN != 0) {
            return Choice::Roots {
                roots: vec![i],
                strict: true,
            };
        }
    }
    Choice::Roots {
        roots: scored_roots(t, an),
        strict: false,
    }
}

/// The scored roots when the page's prose lives beside its `<article>` elements (cards or
/// widgets): roots that neither contain nor sit inside any of them, holding at least
/// [`MIN_PROSE_CHARS`] of prose and more than all of them together. A listing page's scored
/// root holds its cards, so it stays a listing.
fn prose_beside(t: &Tree, an: &Analysis, articles: &[u32]) -> Option<Choice> {
    let alt = scored_roots(t, an);
    let related = |r: u32| {
        articles
            .iter()
            .any(|&a| is_ancestor(t, r, a) || is_ancestor(t, a, r))
    };
    let alt_prose: usize = alt.iter().map(|&r| an.prose[r as usize] as usize).sum();
    let cards_prose: usize = articles
        .iter()
        .map(|&a| an.prose[a as usize] as usize)
        .sum();
    (alt_prose >= MIN_PROSE_CHARS
        && (articles.len() == 1 || alt_prose > cards_prose)
        && !alt.iter().any(|&r| related(r)))
    .then_some(Choice::Roots {
        roots: alt,
        strict: false,
    })
}

/// Readability-style scoring for pages without semantic containers.
fn scored_roots(t: &Tree, an: &Analysis) -> Vec<u32> {
    let mut scores = candidate_scores(t, an);
    let Some((best, best_score)) = best_candidate(an, &mut scores) else {
        return vec![0];
    };
    sibling_roots(t, an, &scores, best, best_score)
}

/// Readability scores: each paragraph-like element with prose adds to its parent, grandparent
/// and great-grandparent (the candidates), less with each level.
struct Scores {
    score: Vec<f64>,
    is_cand: Vec<bool>,
}

fn candidate_scores(t: &Tree, an: &Analysis) -> Scores {
    let n = t.nodes.len();
    let mut score = vec![0f64; n];
    let mut is_cand = vec![false; n];
    for i in 1..n {
        if an.removed[i] {
            continue;
        }
        let name = t.name(i as u32);
        let paragraph_like = matches!(name, "p" | "pre" | "td" | "blockquote" | "dd")
            || (matches!(name, "div" | "section" | "font" | "center" | "span")
                && !t.children(i as u32).any(|c| is_block(t.name(c))));
        if !paragraph_like {
            continue;
        }
        let len = an.prose[i] as f64;
        if len < 25.0 {
            continue;
        }
        let s = 1.0 + an.commas[i] as f64 + (len / 100.0).min(3.0);
        let mut anc = t.parent(i as u32);
        let mut level = 0;
        while anc != NONE && anc != 0 && level < 3 {
            if !is_cand[anc as usize] {
                is_cand[anc as usize] = true;
                score[anc as usize] = initial_score(t, anc);
            }
            let div = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f64 * 3.0,
            };
            score[anc as usize] += s / div;
            anc = t.parent(anc);
            level += 1;
        }
    }
    Scores { score, is_cand }
}

/// Weighs every candidate's score by its share of non-link text and returns the best one.
fn best_candidate(an: &Analysis, scores: &mut Scores) -> Option<(u32, f64)> {
    let mut best = NONE;
    let mut best_score = 0.0;
    for i in 1..scores.score.len() {
        if !scores.is_cand[i] {
            continue;
        }
        let total = an.total[i].max(1) as f64;
        let link_density = 1.0 - (an.prose[i] as f64 / total).min(1.0);
        scores.score[i] *= 1.0 - link_density;
        if scores.score[i] > best_score {
            best_score = scores.score[i];
            best = i as u32;
        }
    }
    (best != NONE).then_some((best, best_score))
}

/// The best candidate with its siblings that look like part of the same content.
fn sibling_roots(t: &Tree, an: &Analysis, scores: &Scores, best: u32, best_score: f64) -> Vec<u32> {
    let parent = t.parent(best);
    if parent == NONE {
        return vec![best];
    }
    let threshold = (best_score * 0.2).max(10.0);
    let mut roots = Vec::new();
    for c in t.children(parent) {
        if c == best {
            roots.push(c);
            continue;
        }
        if an.removed[c as usize] || t.elem(c).is_none() {
            continue;
        }
        let total = an.total[c as usize] as f64;
        let prose = an.prose[c as usize] as f64;
        let link_density = if total > 0.0 {
            1.0 - prose / total
        } else {
            1.0
        };
        let keep = (scores.is_cand[c as usize] && scores.score[c as usize] >= threshold)
            || (t.name(c) == "p" && prose > 80.0 && link_density < 0.25);
        if keep {
            roots.push(c);
        }
    }
    roots
}

fn initial_score(t: &Tree, i: u32) -> f64 {
    let mut s = match t.name(i) {
        "div" | "article" | "section" | "main" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    };
    let f = t.flags(i);
    if f & F_CLASS_CONTENT != 0 {
        s += 25.0;
    }
    if f & (F_CLASS_CHROME | F_CLASS_CHROME_TOKEN) != 0 {
        s -= 25.0;
    }
    s
}
