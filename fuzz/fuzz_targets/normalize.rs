//! Any string through the normalizer with any rule toggles: no panic, and the documented
//! properties hold (idempotent, NFC, single ASCII spaces, trimmed; `normalize_with_variants`
//! and `normalize_into` agree with `normalize`; variants are normalized and distinct from the
//! primary words; `explain` offsets are char boundaries of the input).
#![no_main]

use askzico::normalize::{Rules, explain, normalize, normalize_into, normalize_with_variants, tokens, variants};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, &str)| {
    let (bits, s) = input;
    let bit = |i: u8| bits & (1 << i) != 0;
    let r = Rules {
        fold_alef_hamza: bit(0),
        fold_alef_maksura: bit(1),
        fold_teh_marbuta: bit(2),
        fold_hamza_carriers: bit(3),
        digits: bit(4),
        punctuation: bit(5),
        lowercase_latin: bit(6),
    };
    let out = normalize(s, &r);
    assert_eq!(normalize(&out, &r), out, "not idempotent");
    assert!(unicode_normalization::is_nfc(&out), "not NFC");
    assert_eq!(out.trim_matches(' '), out, "not trimmed");
    assert!(!out.contains("  "), "double space");
    assert!(!out.chars().any(|c| (c.is_whitespace() || c.is_control()) && c != ' '), "whitespace other than ' ': {out:?}");
    let (p, vars) = normalize_with_variants(s, &r);
    assert_eq!(p, out);
    assert_eq!(vars, variants(s, &r));
    for v in &vars {
        assert_eq!(&normalize(v, &r), v, "variant not normalized");
        assert!(!tokens(&out).any(|t| t == v), "variant {v:?} is a primary word");
    }
    for c in explain(s, &r) {
        assert!(s.is_char_boundary(c.offset), "explain offset {} off a char boundary", c.offset);
    }
    let mut buf = String::from("junk");
    normalize_into(s, &r, &mut buf);
    assert_eq!(buf, out);
});
