//! Eval fixtures that cannot measure anything: a file without a case, and an `expect` entry that
//! names nothing in the build (a typo'd source path would only lower the figures).

use super::*;

pub const CASES: &[Case] = &[
    Case::new(
        "fixtures without a case are refused",
        |p| put(p, "fixtures.toml", "# no case yet\n"),
        2,
        err(
            "fixtures.toml",
            None,
            "the fixtures hold no case: nothing would be measured",
        ),
    )
    .cmd(&["eval", "--fixtures", "fixtures.toml"]),
    Case::new(
        "an expect entry that names nothing in the build is refused, with its case's line",
        |p| {
            put(
                p,
                "fixtures.toml",
                "[[case]]\nid = \"good\"\nquestion = \"صفحة سليمة\"\nexpect = [\"docs:good\"]\n\n[[case]]\nid = \"typo\"\nquestion = \"صفحة سليمة\"\nexpect = [\"src/goood.md\"]\n",
            )
        },
        2,
        err(
            "fixtures.toml",
            Some(7),
            "case `typo` expects `src/goood.md`, which names no chunk, document, URL or source",
        ),
    )
    .cmd(&["eval", "--fixtures", "fixtures.toml"]),
];

pub(crate) fn fixtures_that_measure_nothing() {
    run_table(CASES);
}
