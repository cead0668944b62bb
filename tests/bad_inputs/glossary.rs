//! `[[glossary]]`: a term of the corpus's own for the bilingual glossary of questions. Each bad
//! entry is a config error naming its line, every one of them in one run; nothing is built.

use super::*;

/// `CONFIG` (six lines) then a blank line: a glossary table appended starts at line 8.
fn with_glossary(p: &Path, table: &str) -> Result<(), String> {
    set_config(p, &format!("{CONFIG}\n[[glossary]]\n{table}"))
}

pub const CASES: &[Case] = &[
    Case::new(
        "a glossary term without Arabic forms",
        |p| with_glossary(p, "en = [\"invoice\"]\nar = []\n"),
        2,
        cfg_err(10, "empty `ar`"),
    ),
    Case::new(
        "an English entry of two words and an Arabic entry of two words, both reported",
        |p| {
            with_glossary(
                p,
                "en = [\"sales order\"]\nar = [\"أمر بيع\", \"فاتورة\"]\n",
            )
        },
        2,
        cfg_err(9, "`sales order` is not one English word"),
    )
    .check(|_, d| {
        diags_at(
            d,
            "corpus.toml",
            &[
                (9, "`sales order` is not one English word"),
                (10, "`أمر بيع` is not one Arabic word"),
            ],
        )
    }),
    Case::new(
        "an Arabic entry in Latin letters",
        |p| with_glossary(p, "en = [\"invoice\"]\nar = [\"fatura\"]\n"),
        2,
        cfg_err(10, "`fatura` is not one Arabic word"),
    ),
    Case::new(
        "an unknown key in a glossary term",
        |p| with_glossary(p, "en = [\"invoice\"]\nar = [\"فاتورة\"]\nnote = \"x\"\n"),
        2,
        cfg_err(11, "unknown field `note`"),
    ),
];

pub(crate) fn glossary_terms() {
    run_table(CASES);
}
