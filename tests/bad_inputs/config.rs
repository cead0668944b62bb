//! `corpus.toml`: unknown keys, wrong types (every one of them in one run, also several in one
//! table), missing fields, syntax, out-of-range limits. Config errors exit 2.

use super::*;

fn all_of(d: &[Value], wanted: &[(u64, &str)]) -> Result<(), String> {
    diags_at(d, "corpus.toml", wanted)
}

pub const CASES: &[Case] = &[
    Case::new(
        "an unknown top-level key",
        |p| set_config(p, &format!("colour = 1\n{CONFIG}")),
        2,
        cfg_err(1, "unknown key `colour`"),
    ),
    Case::new(
        "an unknown key in [corpus]",
        |p| {
            set_config(
                p,
                &CONFIG.replace("name = \"bad\"", "name = \"bad\"\ncolour = 1"),
            )
        },
        2,
        cfg_err(3, "unknown field `colour`"),
    ),
    Case::new(
        "an unknown key in a library",
        |p| set_config(p, &format!("{CONFIG}globs = [\"*\"]\n")),
        2,
        cfg_err(7, "unknown field `globs`"),
    ),
    Case::new(
        "two wrong types in one table are both reported",
        |p| {
            set_config(
                p,
                &CONFIG.replace(
                    "name = \"bad\"",
                    "name = \"bad\"\nid_width = \"three\"\nmax_file_mb = \"big\"",
                ),
            )
        },
        2,
        cfg_err(3, "invalid type"),
    )
    .check(|_, d| all_of(d, &[(3, "invalid type"), (4, "invalid type")])),
    Case::new(
        "a wrong type, an unknown key and a bad value in one library",
        |p| {
            set_config(
                p,
                &format!("{CONFIG}include = \"*.md\"\ncolour = 1\nformat = \"pdf\"\n"),
            )
        },
        2,
        cfg_err(7, "invalid type"),
    )
    .check(|_, d| {
        all_of(
            d,
            &[
                (7, "invalid type"),
                (8, "unknown field `colour`"),
                (9, "pdf"),
            ],
        )
    }),
    Case::new(
        "wrong types in several tables",
        |p| {
            set_config(
                p,
                &format!("{CONFIG}\n[chunking]\nmax_chars = \"many\"\n\n[embedding]\ndims = -1\n"),
            )
        },
        2,
        cfg_err(9, "invalid type"),
    )
    .check(|_, d| all_of(d, &[(9, "invalid type"), (12, "invalid value")])),
    Case::new(
        "a library without its root",
        |p| set_config(p, "[[library]]\nid = \"docs\"\n"),
        2,
        Some(Diag {
            level: "error",
            file: Some("corpus.toml"),
            line: None,
            message: "missing field `root`",
        }),
    ),
    Case::new(
        "a library whose root has the wrong type reports no phantom missing field",
        |p| set_config(p, &CONFIG.replace("root = \"src\"", "root = 5")),
        2,
        cfg_err(6, "invalid type"),
    )
    .check(|_, d| {
        if d.iter().any(|x| {
            x["message"]
                .as_str()
                .unwrap_or("")
                .contains("missing field")
        }) {
            Err("a phantom missing-field error".into())
        } else {
            Ok(())
        }
    }),
    Case::new(
        "invalid TOML syntax",
        |p| set_config(p, "[corpus\nname = 1\n"),
        2,
        cfg_err(1, "invalid TOML"),
    ),
    Case::new(
        "a config that is not UTF-8",
        |p| put(p, "corpus.toml", b"[corpus]\nname = \"\xff\"\n"),
        2,
        Some(Diag {
            level: "error",
            file: Some("corpus.toml"),
            line: None,
            message: "cannot read config",
        }),
    ),
    Case::new(
        "a config with no library",
        |p| set_config(p, "[corpus]\nname = \"x\"\n"),
        2,
        cfg_err(1, "declares no [[library]]"),
    ),
    Case::new(
        "max_chunks = 0",
        |p| set_config(p, &format!("{CONFIG}\n[chunking]\nmax_chunks = 0\n")),
        2,
        cfg_err(9, "max_chunks must be between 1 and 1000000"),
    ),
    Case::new(
        "max_file_mb = 0",
        |p| {
            set_config(
                p,
                &CONFIG.replace("name = \"bad\"", "name = \"bad\"\nmax_file_mb = 0"),
            )
        },
        2,
        cfg_err(3, "max_file_mb must be between 1 and 4096"),
    ),
    Case::new(
        "a non-ASCII library id",
        |p| set_config(p, &CONFIG.replace("id = \"docs\"", "id = \"وثائق\"")),
        2,
        cfg_err(5, "must be ASCII"),
    ),
    Case::new(
        "a bad glob",
        |p| set_config(p, &format!("{CONFIG}include = [\"[\"]\n")),
        2,
        cfg_err(7, "bad glob"),
    ),
    Case::new(
        "retrieval values out of their range, both reported",
        |p| {
            set_config(
                p,
                &format!("{CONFIG}\n[retrieval]\nbm25_b = 1.5\ncoord = -1.0\ndepth = 0\n"),
            )
        },
        2,
        cfg_err(9, "`[retrieval] bm25_b` must be between 0 and 1"),
    )
    .check(|_, d| {
        diags_at(
            d,
            "corpus.toml",
            &[
                (9, "`[retrieval] bm25_b` must be between 0 and 1"),
                (10, "`[retrieval] coord` must be a finite number"),
                (11, "`[retrieval] depth` must be 1 or more"),
            ],
        )
    }),
    Case::new(
        "a retrieval weight that is not a number",
        |p| set_config(p, &format!("{CONFIG}\n[retrieval]\nurl_weight = nan\n")),
        2,
        cfg_err(9, "`[retrieval] url_weight` must be a finite number"),
    ),
    Case::new(
        "an unknown environment",
        |p| set_config(p, CONFIG),
        2,
        Some(Diag {
            level: "error",
            file: None,
            line: None,
            message: "no environment `nope`",
        }),
    )
    .cmd(&["build", "--env", "nope"]),
];

pub(crate) fn config() {
    run_table(CASES);
}
