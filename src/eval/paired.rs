//! askzico against the stock baseline, question by question: at a depth (hit@1, hit@5), how
//! many questions each answers that the other does not, whether that difference could be
//! chance (the exact two-sided sign test over those questions, McNemar's exact test), and a
//! 95 % interval of the gain in hit rate (the Wald interval of a difference of paired
//! proportions). A gain whose interval lies above zero is one a site's own questions show, not
//! luck of the draw. Pure: ranks in, figures out.

use serde::{Deserialize, Serialize};

use super::round4;

/// One depth's paired comparison.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Paired {
    /// Questions compared.
    pub cases: usize,
    /// Answered within the depth by askzico and not by the stock baseline.
    pub wins: usize,
    /// Answered within the depth by the stock baseline and not by askzico.
    pub losses: usize,
    /// askzico's hit rate minus the stock baseline's: `(wins - losses) / cases`.
    pub gain: f64,
    /// Two-sided exact sign test over `wins + losses` questions (1 when there are none), not
    /// rounded: a strong result is a very small number, not 0.
    pub p: f64,
    /// The gain's 95 % interval.
    pub low: f64,
    pub high: f64,
}

/// hit@1 and hit@5, compared.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Versus {
    pub hit1: Paired,
    pub hit5: Paired,
}

impl Versus {
    /// From each question's rank by askzico and by the stock baseline (`None`: not in the top
    /// 10).
    pub(crate) fn of(ranks: &[(Option<usize>, Option<usize>)]) -> Versus {
        Versus {
            hit1: paired(ranks, 1),
            hit5: paired(ranks, 5),
        }
    }
}

fn paired(ranks: &[(Option<usize>, Option<usize>)], depth: usize) -> Paired {
    let hit = |r: &Option<usize>| r.is_some_and(|r| r <= depth);
    let wins = ranks.iter().filter(|(a, s)| hit(a) && !hit(s)).count();
    let losses = ranks.iter().filter(|(a, s)| hit(s) && !hit(a)).count();
    let n = ranks.len();
    let (gain, half) = if n == 0 {
        (0.0, 0.0)
    } else {
        let nf = n as f64;
        let d = wins as f64 - losses as f64;
        let var = ((wins + losses) as f64 - d * d / nf).max(0.0);
        (d / nf, 1.959_964 * var.sqrt() / nf)
    };
    Paired {
        cases: n,
        wins,
        losses,
        gain: round4(gain),
        p: sign_test(wins, losses),
        low: round4(gain - half),
        high: round4(gain + half),
    }
}

/// The two-sided p-value of `a` against `b` successes in `a + b` fair coin tosses: twice the
/// probability of a split at least as uneven, at most 1. Summed in logarithms, so it holds for
/// thousands of questions.
fn sign_test(a: usize, b: usize) -> f64 {
    let n = a + b;
    if n == 0 {
        return 1.0;
    }
    let k = a.min(b);
    let ln2n = n as f64 * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose - ln2n).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(
        both: usize,
        ours: usize,
        theirs: usize,
        neither: usize,
    ) -> Vec<(Option<usize>, Option<usize>)> {
        let mut v = Vec::new();
        v.extend(std::iter::repeat_n((Some(1), Some(1)), both));
        v.extend(std::iter::repeat_n((Some(1), Some(7)), ours));
        v.extend(std::iter::repeat_n((None, Some(1)), theirs));
        v.extend(std::iter::repeat_n((Some(6), None), neither));
        v
    }

    #[test]
    fn the_sign_test_matches_the_binomial_tail() {
        // 2 · P(X ≤ 1), X ~ Bin(10, ½) = 2 · 11 / 1024.
        assert!((sign_test(9, 1) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((sign_test(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(5, 5), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // Far past where 0.5^n underflows, the tail is still a probability.
        let p = sign_test(1200, 1000);
        assert!(p > 0.0 && p < 1e-3, "{p}");
    }

    #[test]
    fn wins_and_losses_count_each_depth_apart() {
        // 38 answered first only by askzico, 17 only by the stock baseline, 225 by both or
        // neither: a gain of 0.075, p ≈ 0.0065, the interval above zero.
        let v = Versus::of(&ranks(100, 38, 17, 125));
        assert_eq!((v.hit1.wins, v.hit1.losses, v.hit1.cases), (38, 17, 280));
        assert_eq!(v.hit1.gain, 0.075);
        assert!((v.hit1.p - 0.006456).abs() < 1e-5, "{}", v.hit1.p);
        assert!(v.hit1.low > 0.02 && v.hit1.low < 0.03, "{}", v.hit1.low);
        assert!(v.hit1.high > 0.12 && v.hit1.high < 0.13, "{}", v.hit1.high);
        assert_eq!((v.hit5.wins, v.hit5.losses), (38, 17));
    }

    #[test]
    fn each_depth_counts_apart() {
        // Second for askzico and first for the stock baseline: a loss at hit@1, a tie at hit@5;
        // sixth against not in the top 10: a miss for both at hit@5.
        let v = Versus::of(&[(Some(2), Some(1)), (Some(6), None), (Some(4), None)]);
        assert_eq!((v.hit1.wins, v.hit1.losses), (0, 1));
        assert_eq!((v.hit5.wins, v.hit5.losses), (1, 0));
    }

    #[test]
    fn no_difference_is_no_evidence() {
        let v = Versus::of(&ranks(10, 0, 0, 10));
        assert_eq!(v.hit1.gain, 0.0);
        assert_eq!(v.hit1.p, 1.0);
        assert_eq!((v.hit1.low, v.hit1.high), (0.0, 0.0));
        let none = Versus::of(&[]);
        assert_eq!(none.hit5.cases, 0);
        assert_eq!(none.hit5.p, 1.0);
    }
}
