//! The normalizer and its rules as a reviewer uses them: `normalize`, `rules check`, and an eval
//! baseline that catches a rule change a focused case depends on.

mod common;

use common::*;

fn normalize(args: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let o = run(bin().current_dir(dir.path()).arg("normalize").args(args));
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o).lines().map(str::to_string).collect()
}

#[test]
fn normalize_prints_the_search_form_first() {
    assert_eq!(
        normalize(&["وُلِدَ السيد المسيح في بيت لحم."])[0],
        "ولد السيد المسيح في بيت لحم"
    );
    let lines = normalize(&["--aliases", "فين اتولد السيد المسيح؟"]);
    assert_eq!(
        lines[0], "فين اتولد السيد المسيح",
        "the dialect word is kept in the search form"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("alias: فين → أين") && l.contains("; direction both;")),
        "{lines:?}"
    );
    let glossary = normalize(&["--aliases", "ازاي اشغل السيرفر"]);
    assert!(
        glossary
            .iter()
            .any(|l| l.starts_with("glossary (by loanword key): السيرفر → ") && l.contains("خادم")),
        "{glossary:?}"
    );
    assert!(
        glossary
            .iter()
            .any(|l| l.starts_with("loanword: السيرفر → ~SRFR")),
        "{glossary:?}"
    );
    // An everyday word gets no loanword key, whatever English word its consonants spell.
    let native = normalize(&["--aliases", "نفسه"]);
    assert!(
        !native
            .iter()
            .any(|l| l.starts_with("loanword:") || l.starts_with("glossary")),
        "{native:?}"
    );
    // A colloquial verb shows the written forms a question also looks for; an everyday word
    // that begins with the same letters shows none.
    let verbs = normalize(&["--aliases", "مبيشتغلش هيفتح بيان"]);
    assert!(
        verbs
            .iter()
            .any(|l| l.starts_with("dialect verb: مبيشتغلش → بيشتغل, يشتغل ")),
        "{verbs:?}"
    );
    assert!(
        verbs
            .iter()
            .any(|l| l.starts_with("dialect verb: هيفتح → يفتح ")),
        "{verbs:?}"
    );
    assert!(
        !verbs.iter().any(|l| l.starts_with("dialect verb: بيان")),
        "{verbs:?}"
    );
    let uthmani = normalize(&["تَبَٰرَكَ"]);
    assert!(uthmani.iter().any(|l| l == "variant: تبارك"), "{uthmani:?}");
    let explained = normalize(&["--explain", "كـتاب"]);
    assert!(
        explained.iter().any(|l| l.contains("tatweel")),
        "{explained:?}"
    );
}

#[test]
fn spelling_variants_reach_the_plain_search_form() {
    for (variant, plain) in [
        ("ﻣﺮﺣﺒﺎ", "مرحبا"),
        ("سلا\u{200F}م", "سلام"),
        ("مر\u{200C}حبا", "مرحبا"),
        ("كـــتاب", "كتاب"),
        ("١٦٠٠", "1600"),
        ("ٱلرَّحۡمَٰنِ", "الرحمن"),
    ] {
        assert_eq!(
            normalize(&[variant])[0],
            normalize(&[plain])[0],
            "{variant:?} vs {plain:?}"
        );
    }
}

fn project(fold: bool, collision_accept: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[corpus]\nname = \"t\"\n\n[normalize]\nfold_alef_hamza = {fold}\n\n[retrieval]\nvector_weight = 0.0\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n\n[[collision]]\na = \"على\"\nb = \"علي\"\naccept = {collision_accept}\nwhy = \"test\"\n"
    );
    std::fs::write(dir.path().join("corpus.toml"), cfg).unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/ahmad.md"),
        "# سيرة أحمد\n\nوُلد أحمد في الإسكندرية وسافر على مركب إلى القاهرة، وقابل علي هناك.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/other.md"),
        "# النيل\n\nيجري النهر من الجنوب إلى الشمال ويمر بمدن كثيرة على ضفتيه.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("fixtures.toml"),
        "[[case]]\nid = \"rule-alef-hamza\"\nset = \"focused\"\nquestion = \"احمد\"\nexpect = [\"docs:ahmad\"]\n",
    )
    .unwrap();
    dir
}

#[test]
fn rules_check_fails_on_a_merged_pair_that_is_not_accepted() {
    let p = project(true, false);
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let o = run(bin().current_dir(p.path()).args(["rules", "check"]));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("collision على / علي: MERGED BUT NOT ACCEPTED by fold_alef_maksura"),
        "{out}"
    );
    // Every rule is listed with its collisions, and the focused case with its rank with and without.
    for rule in askzico::normalize::ALL_RULE_NAMES {
        assert!(
            out.lines().any(|l| l.starts_with(rule)),
            "{rule} missing:\n{out}"
        );
    }
    assert!(out.contains("case rule-alef-hamza"), "{out}");
    assert!(
        out.lines().any(|l| l.contains("case rule-alef-hamza")
            && l.contains("rank with     1")
            && l.contains("without miss")),
        "{out}"
    );
    let p = project(true, true);
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    assert_eq!(
        run(bin()
            .current_dir(p.path())
            .args(["rules", "check", "--no-rebuild"]))
        .status
        .code(),
        Some(0)
    );
}

#[test]
fn eval_baseline_catches_a_rule_change() {
    let p = project(true, true);
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let o = run(bin().current_dir(p.path()).args([
        "eval",
        "--fixtures",
        "fixtures.toml",
        "--write-baseline",
        "baseline.json",
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        run(bin().current_dir(p.path()).args([
            "eval",
            "--fixtures",
            "fixtures.toml",
            "--baseline",
            "baseline.json"
        ]))
        .status
        .success()
    );
    // Switch off the rule the focused case depends on.
    let cfg = std::fs::read_to_string(p.path().join("corpus.toml"))
        .unwrap()
        .replace("fold_alef_hamza = true", "fold_alef_hamza = false");
    std::fs::write(p.path().join("corpus.toml"), cfg).unwrap();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let o = run(bin().current_dir(p.path()).args([
        "eval",
        "--fixtures",
        "fixtures.toml",
        "--baseline",
        "baseline.json",
    ]));
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("case `rule-alef-hamza` flipped"),
        "{}",
        stderr(&o)
    );
}

/// A question and a page that share only a stem key (يولد / المولود → ولد): found through the
/// `stem_terms` field, and not at all when that field's weight is 0.
#[test]
fn a_verb_finds_its_verbal_noun_through_the_stem_field_only() {
    let ids = |stem_field_weight: &str| {
        let dir = tempfile::tempdir().unwrap();
        let cfg = format!(
            "[corpus]\nname = \"t\"\n\n[retrieval]\nvector_weight = 0.0\nstem_field_weight = {stem_field_weight}\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n"
        );
        std::fs::write(dir.path().join("corpus.toml"), cfg).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/birth.md"),
            "# القرية\n\nالطفل المولود في القرية كبر بين الحقول.\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("src/river.md"),
            "# النيل\n\nيجري النهر من الجنوب إلى الشمال.\n",
        )
        .unwrap();
        assert!(
            run(bin().current_dir(dir.path()).arg("build"))
                .status
                .success()
        );
        let o = run(bin()
            .current_dir(dir.path())
            .args(["query", "--json", "متى يولد"]));
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["doc_id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids("0.5"), vec!["docs:birth".to_string()]);
    assert!(ids("0.0").is_empty());
}

/// `rules check` lists the stemmer like a rule: its focused `stem-` case with and without the
/// stem field, and the distinct words it merges per stem key.
#[test]
fn rules_check_lists_the_stemmer_with_its_case_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("corpus.toml"), "[corpus]\nname = \"t\"\n\n[retrieval]\nvector_weight = 0.0\nstem_field_weight = 0.5\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\n").unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/birth.md"),
        "# القرية\n\nالطفل المولود في القرية كبر بين الحقول، ويوم ميلاده عيد.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/river.md"),
        "# النيل\n\nيجري النهر من الجنوب إلى الشمال.\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("fixtures.toml"), "[[case]]\nid = \"stem-birth\"\nset = \"focused\"\nquestion = \"متى يولد\"\nexpect = [\"docs:birth\"]\n").unwrap();
    assert!(
        run(bin().current_dir(dir.path()).arg("build"))
            .status
            .success()
    );
    let o = run(bin()
        .current_dir(dir.path())
        .args(["rules", "check", "--no-rebuild"]));
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("stemmer") && l.contains("on, stem_field_weight 0.5")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.contains("case stem-birth")
            && l.contains("rank with     1")
            && l.contains("without miss")),
        "{out}"
    );
    assert!(
        out.contains("merges 1 stem keys of several distinct words (2 words)"),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("ولد")
            && l.contains("المولود×1")
            && l.contains("ميلاده×1")),
        "{out}"
    );
}
