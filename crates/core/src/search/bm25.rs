//! BM25 (Robertson/Spärck Jones idf with the +1 that keeps it positive, as Lucene does). The
//! logarithm is `libm`'s, so the CLI and the wasm32 runtime compute the same bits.

/// Inverse document frequency of a term found in `df` of `n` chunks.
pub fn idf(n: usize, df: usize) -> f64 {
    let (n, df) = (n as f64, df as f64);
    libm::log(1.0 + (n - df + 0.5) / (df + 0.5))
}

/// The term-frequency part: saturating in `tf`, normalized by chunk length.
pub fn tf_part(tf: f64, dl: f64, avgdl: f64, k1: f64, b: f64) -> f64 {
    let norm = if avgdl > 0.0 { dl / avgdl } else { 1.0 };
    tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * norm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_terms_weigh_more_and_tf_saturates() {
        assert!(idf(1000, 1) > idf(1000, 100));
        assert!(idf(1000, 1000) > 0.0);
        let one = tf_part(1.0, 100.0, 100.0, 1.2, 0.75);
        let ten = tf_part(10.0, 100.0, 100.0, 1.2, 0.75);
        assert!(ten > one && ten < 2.2 * 1.0 + 0.01);
        // Longer chunks score lower for the same tf.
        assert!(tf_part(1.0, 50.0, 100.0, 1.2, 0.75) > tf_part(1.0, 200.0, 100.0, 1.2, 0.75));
        assert!((tf_part(1.0, 100.0, 100.0, 1.2, 0.75) - 1.0).abs() < 1e-9);
    }
}
