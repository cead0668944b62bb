//! Query-side scoring end to end on small projects written for the test: interrogatives scored
//! below topic words, and the second stage (URL words) — each checked against the same project
//! with the knob off, so the test fails if the knob stops mattering.

mod common;

use common::*;

/// Top doc_ids of `question` in a fresh build of `files` with `retrieval` settings.
fn top(retrieval: &str, files: &[(&str, &str)], question: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[corpus]\nname = \"t\"\n\n[retrieval]\nvector_weight = 0.0\n{retrieval}\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\nurl = \"https://docs.test/{{slug}}\"\n"
    );
    std::fs::write(dir.path().join("corpus.toml"), cfg).unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join("src").join(name), body).unwrap();
    }
    assert!(
        run(bin().current_dir(dir.path()).arg("build"))
            .status
            .success()
    );
    let o = run(bin()
        .current_dir(dir.path())
        .args(["query", "--json", question]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["doc_id"].as_str().unwrap().to_string())
        .collect()
}

/// The first doc of `question` with `knob` at 0 is `without`, and with `knob` at `on` is `with`:
/// the knob alone decides.
fn knob_decides(
    knob: &str,
    on: f64,
    files: &[(&str, &str)],
    question: &str,
    [without, with]: [&str; 2],
) {
    assert_eq!(
        top(&format!("{knob} = 0.0"), files, question)[0],
        without,
        "{knob} off"
    );
    assert_eq!(
        top(&format!("{knob} = {on:?}"), files, question)[0],
        with,
        "{knob} {on}"
    );
}

/// "Where was John born?": a story that says أين twice outranks the record of the birth while the
/// interrogative weighs like a topic word, and not once it is scored as intent.
#[test]
fn an_interrogative_is_intent_not_topic() {
    let files = [
        (
            "trip.md",
            "# رحلة\n\nسأل الرجل أين الطريق؟ ثم قال أين نذهب الآن؟ وكان يوحنا معهم في الطريق الطويل.\n",
        ),
        (
            "life.md",
            "# سيرة\n\nولد يوحنا في قرية صغيرة بجوار النهر وعاش فيها سنين كثيرة مع أهله.\n",
        ),
        (
            "nile.md",
            "# النيل\n\nيجري النهر من الجنوب إلى الشمال ويمر بمدن كثيرة.\n",
        ),
    ];
    let q = "فين اتولد يوحنا؟";
    // Plain BM25 otherwise, so that only the interrogative's weight differs.
    let plain = "bm25_b = 0.75\ncoord = 0.0\nproximity_weight = 0.0\nurl_weight = 0.0";
    assert_eq!(
        top(&format!("{plain}\nquestion_word_weight = 1.0"), &files, q)[0],
        "docs:trip"
    );
    assert_eq!(
        top(&format!("{plain}\nquestion_word_weight = 0.3"), &files, q)[0],
        "docs:life"
    );
}

/// "How do I keep the session (الـ session) from expiring?": a chatty post full of مش and الـ
/// outranks the page about sessions while those words weigh like topic words, and not once they
/// are scored as fillers.
#[test]
fn colloquial_function_words_and_a_bare_article_are_not_topic() {
    let files = [
        (
            "chat.md",
            "# يوميات\n\nالـ server مش شغال والـ cache مش نافع والـ build مش راضي، وجلسة العمل طالت.\n",
        ),
        (
            "session.md",
            "# الجلسة\n\nتنتهي الجلسة بعد مدة، ويمكن تمديد الجلسة من إعدادات session في الخادم.\n",
        ),
        ("disk.md", "# القرص\n\nالقرص يحفظ الملفات والبيانات.\n"),
    ];
    let q = "ازاي الـ session مش تخلص بسرعة";
    let plain = "bm25_b = 0.75\ncoord = 0.0\nproximity_weight = 0.0\nurl_weight = 0.0";
    assert_eq!(
        top(&format!("{plain}\nfiller_weight = 1.0"), &files, q)[0],
        "docs:chat"
    );
    assert_eq!(
        top(&format!("{plain}\nfiller_weight = 0.1"), &files, q)[0],
        "docs:session"
    );
}

/// A page named after what the question asks (`invalid-hook-call`) outranks a page that only
/// repeats one of its words once the URL words count; `hooks` answers `hook` (English inflection).
#[test]
fn url_words_and_english_inflections_find_the_page_named_after_the_question() {
    let files = [
        (
            "invalid-hook-call.md",
            "# تحذير\n\nتظهر هذه الرسالة عندما تستدعي hooks خارج دالة المكون، أو عند call من مكان آخر.\n",
        ),
        (
            "state.md",
            "# الحالة\n\nكل hook يحفظ قيمة، وكل hook يعيد دالة للتحديث داخل المكون.\n",
        ),
        (
            "nile.md",
            "# النيل\n\nيجري النهر من الجنوب إلى الشمال ويمر بمدن كثيرة.\n",
        ),
    ];
    let q = "ليه بيطلعلي Invalid hook call؟";
    assert_eq!(
        top("url_weight = 0.0\nlatin_inflection_weight = 0.0", &files, q)[0],
        "docs:state"
    );
    assert_eq!(
        top("url_weight = 0.5\nlatin_inflection_weight = 0.5", &files, q)[0],
        "docs:invalid-hook-call"
    );
}

/// A question that writes English terms in Arabic letters (ميدلوير، الريكوستات) finds the page that
/// keeps them in Latin letters once loanword keys count, and not without them.
#[test]
fn loanword_keys_bridge_arabic_spellings_of_english_terms() {
    let files = [
        (
            "timeout.md",
            "# المهلة\n\nاستخدم middleware يحدد timeout لكل request قبل أن يصل إلى الدالة.\n",
        ),
        (
            "cache.md",
            "# التخزين المؤقت\n\nيمكنك تخزين النتائج لكل مستخدم حتى لا تحسبها مرة أخرى في كل مرة.\n",
        ),
    ];
    let q = "عايز اعمل ميدلوير يقفل الريكوستات لكل مستخدم";
    knob_decides(
        "loanword_weight",
        1.0,
        &files,
        q,
        ["docs:cache", "docs:timeout"],
    );
}

/// An everyday Arabic word whose consonants spell an English word (نفسه and "invoice") never
/// reaches the English page by its loanword key, while a loanword of the same consonants does.
#[test]
fn an_everyday_word_gets_no_loanword_key_and_a_loanword_does() {
    let files = [
        (
            "invoice.md",
            "# Invoices\n\nCreate an invoice for each order and send the invoice by email.\n",
        ),
        (
            "self.md",
            "# الاعتماد على النفس\n\nيعتمد المتعلم على نفسه في تعلم البرمجة خطوة بخطوة.\n",
        ),
    ];
    let native = top("", &files, "يعتمد على نفسه");
    assert_eq!(native[0], "docs:self");
    assert!(!native.contains(&"docs:invoice".to_string()), "{native:?}");
    let loanword = top("", &files, "ازاي اعمل انفويس");
    assert_eq!(loanword[0], "docs:invoice", "{loanword:?}");
}

/// A word the site uses at least as often as what its loanword key reaches is the site's own
/// word and is matched only as itself; one the site uses less often keeps its bridge.
#[test]
fn a_word_the_site_uses_as_its_own_keeps_no_loanword_key() {
    let fruit = "# الحديقة\n\nتنضج ثمار الشجر في الصيف.\n";
    let timer = "# Timers\n\nSet a timer before the request starts.\n";
    let own = top(
        "",
        &[
            ("fruit1.md", fruit),
            ("fruit2.md", fruit),
            ("timer.md", timer),
        ],
        "ثمار",
    );
    assert!(!own.contains(&"docs:timer".to_string()), "{own:?}");
    let bridged = top(
        "",
        &[
            ("fruit1.md", fruit),
            ("timer.md", timer),
            ("timer2.md", timer),
        ],
        "ثمار",
    );
    assert!(bridged.contains(&"docs:timer".to_string()), "{bridged:?}");
}

/// Arabic pages translate technical terms (function → الدالة, server → الخادم) while a visitor types
/// the English word or writes it in Arabic letters (السيرفر): the glossary bridges both, and without
/// it the page that shares only the question's other words wins.
#[test]
fn the_glossary_finds_the_arabic_term_of_an_english_word() {
    let files = [
        (
            "functions.md",
            "# الدوال\n\nنكتب الدالة مرة واحدة ثم نستدعيها من أي مكان في البرنامج كلما احتجنا إليها.\n",
        ),
        ("loops.md", "# الحلقات\n\nنكتب الحلقة في البرنامج.\n"),
    ];
    let q = "ازاي اكتب function في البرنامج";
    knob_decides(
        "glossary_weight",
        0.6,
        &files,
        q,
        ["docs:loops", "docs:functions"],
    );

    let files = [
        (
            "server.md",
            "# الخادم\n\nشغل الخادم على المنفذ 8080 ثم تابع السجل.\n",
        ),
        ("browser.md", "# المتصفح\n\nشغل المتصفح على جهازك.\n"),
    ];
    let q = "ازاي اشغل السيرفر على جهازي";
    knob_decides(
        "glossary_weight",
        0.6,
        &files,
        q,
        ["docs:browser", "docs:server"],
    );
}

/// A site's own term in `[[glossary]]` bridges like a shipped one: without it the English word
/// finds nothing in the Arabic page that answers.
#[test]
fn a_glossary_term_of_the_config_bridges_its_own_vocabulary() {
    let files = [
        (
            "ledger.md",
            "# الميزان\n\nيعرض الميزان أرصدة كل الحسابات في نهاية الشهر.\n",
        ),
        ("close.md", "# الإقفال\n\nيقفل الشهر بعد مراجعة الحسابات.\n"),
    ];
    let q = "ازاي اطلع trialbalance للحسابات";
    assert_eq!(top("", &files, q)[0], "docs:close");
    let term = "\n[[glossary]]\nen = [\"trialbalance\"]\nar = [\"ميزان\"]\n";
    assert_eq!(top(term, &files, q)[0], "docs:ledger");
}

/// A question in one broken plural (السطور) finds the page written with another (الأسطر) once
/// broken-plural siblings count, and not without them.
#[test]
fn a_broken_plural_finds_its_other_plural() {
    let files = [
        ("wc.md", "# عد الأسطر\n\nيعد wc الأسطر في ملف.\n"),
        ("tail.md", "# آخر ملف\n\nيعرض tail آخر ملف في الطرفية.\n"),
    ];
    let q = "عدد السطور في ملف";
    // The derivational family holds the plural shapes too: off, so that the plurals alone decide.
    let plurals = "derivation_weight = 0.0\nbroken_plural_weight";
    knob_decides(plurals, 0.6, &files, q, ["docs:tail", "docs:wc"]);
}

/// A participle of the question (مفصول) finds the page written with another member of its
/// family (فاصل) once derivational siblings count, and not without them.
#[test]
fn a_participle_finds_its_derivational_sibling() {
    let files = [
        ("cut.md", "# cut\n\nيطبع cut كل سطر بحسب فاصل.\n"),
        ("cat.md", "# cat\n\nيطبع cat كل سطر من ملف، سطر بعد سطر.\n"),
    ];
    let q = "سطر مفصول";
    knob_decides(
        "derivation_weight",
        0.6,
        &files,
        q,
        ["docs:cat", "docs:cut"],
    );
}

/// A question that spells ث as a dialect's ت (تلات for ثلاث) finds the page written in MSA
/// once those spellings count, and not without them.
#[test]
fn a_dialect_spelling_finds_the_msa_interdental() {
    let files = [
        ("youths.md", "# حكاية\n\nحكاية ثلاث فتية في الأتون.\n"),
        ("other.md", "# حكاية\n\nحكاية أخرى، حكاية الأتون.\n"),
    ];
    let q = "حكاية تلات";
    knob_decides(
        "interdental_weight",
        0.6,
        &files,
        q,
        ["docs:other", "docs:youths"],
    );
}

/// A colloquial future (هيشتغل "will it run") finds the page that writes the written language's
/// imperfect (يشتغل) once colloquial verb forms count, and not without them.
#[test]
fn a_colloquial_verb_finds_the_written_form() {
    let files = [
        (
            "runs.md",
            "# المنصات\n\nيشتغل الخادم على لينكس وعلى أنظمة أخرى كثيرة يعرفها الناس ويستعملونها كل يوم في أعمالهم.\n",
        ),
        (
            "list.md",
            "# المنصات\n\nقائمة المنصات على الموقع: لينكس، ونسخ لينكس المختلفة، وتوزيعات لينكس.\n",
        ),
        (
            "prices.md",
            "# الأسعار\n\nالأسعار الشهرية للخطة المجانية والخطة المدفوعة.\n",
        ),
        (
            "support.md",
            "# الدعم\n\nراسل فريق الدعم بالبريد في أي وقت.\n",
        ),
    ];
    let q = "هيشتغل على لينكس؟";
    knob_decides(
        "dialect_verb_weight",
        0.6,
        &files,
        q,
        ["docs:list", "docs:runs"],
    );
}

/// A translated site keeps the original heading as the heading's id (`{#static-hoisting}`): a
/// question naming the English term finds that section, and does not once the id is gone.
#[test]
fn a_heading_id_names_its_section_in_english() {
    let hoisting = "# التحسينات\n\n## الرفع الثابت {#static-hoisting}\n\nيرفع المصرف العقد الثابتة خارج دالة التصيير.\n";
    let sites = "# مقدمة\n\nصفحة عن static sites: كيف تبنى وتنشر على الخوادم وتحدث مع كل تغيير في المحتوى.\n";
    let q = "يعني ايه static hoisting";
    assert_eq!(
        top("", &[("compiler.md", hoisting), ("sites.md", sites)], q)[0],
        "docs:compiler"
    );
    let without = hoisting.replace(" {#static-hoisting}", "");
    assert_eq!(
        top("", &[("compiler.md", &without), ("sites.md", sites)], q)[0],
        "docs:sites"
    );
}

#[test]
fn an_unknown_domain_or_no_results_asked_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\ndomains = [\"faith\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/a.md"),
        "# الصلاة\n\nالصلاة عماد الدين.\n",
    )
    .unwrap();
    assert!(
        run(bin().current_dir(dir.path()).arg("build"))
            .status
            .success()
    );
    let o = run(bin()
        .current_dir(dir.path())
        .args(["query", "--domain", "nope", "الصلاة"]));
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("no domain `nope`"), "{}", stderr(&o));
    assert!(stderr(&o).contains("faith"), "{}", stderr(&o));
    for k in ["0", "21"] {
        let o = run(bin()
            .current_dir(dir.path())
            .args(["query", "--k", k, "الصلاة"]));
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(stderr(&o).contains("1..=20"), "{}", stderr(&o));
    }
    let o = run(bin()
        .current_dir(dir.path())
        .args(["query", "--library", "nope", "الصلاة"]));
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("no library `nope`"), "{}", stderr(&o));
    assert!(stderr(&o).contains("docs"), "{}", stderr(&o));
    let o = run(bin().current_dir(dir.path()).args([
        "query",
        "--domain",
        "faith",
        "--k",
        "20",
        "الصلاة",
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A long page that matches in several sections is one result with its further sections, so
/// `--k 3` shows the three pages; each excerpt marks the question's word as written (diacritics and
/// all) where it stands in the page, not at its start; `--explain` and `--json` say which
/// rankings returned the best section; `--library` keeps one library's pages.
#[test]
fn results_are_pages_with_sections_and_marked_excerpts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[corpus]\nname = \"t\"\n\n[chunking]\nmax_chars = 500\n\n[[library]]\nid = \"long\"\nroot = \"long\"\n\n[[library]]\nid = \"short\"\nroot = \"short\"\n",
    )
    .unwrap();
    let filler = "كلام عام عن موضوعات شتى لا صلة لها بالسؤال. ".repeat(6);
    let mut long = String::from("# دليل طويل\n\n");
    for i in 0..6 {
        long.push_str(&format!(
            "## قسم {i}\n\n{filler}وهنا ذِكْرُ الـمِـحْرَابِ في القسم {i}. {filler}\n\n"
        ));
    }
    for (lib, name, body) in [
        ("long", "guide.md", long.as_str()),
        ("short", "a.md", "# صفحة أولى\n\nالمحراب في صدر المسجد.\n"),
        ("short", "b.md", "# صفحة ثانية\n\nعن المحراب وتاريخه.\n"),
    ] {
        std::fs::create_dir_all(dir.path().join(lib)).unwrap();
        std::fs::write(dir.path().join(lib).join(name), body).unwrap();
    }
    let b = run(bin().current_dir(dir.path()).arg("build"));
    assert!(b.status.success(), "{}", stderr(&b));
    let ask = |args: &[&str]| {
        let o = run(bin()
            .current_dir(dir.path())
            .args(["query", "--json", "--mode", "lexical"])
            .args(args)
            .arg("المحراب"));
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let v = ask(&["--k", "3"]);
    let hits = v["hits"].as_array().unwrap();
    let docs: std::collections::BTreeSet<&str> =
        hits.iter().map(|h| h["doc_id"].as_str().unwrap()).collect();
    assert_eq!(docs.len(), 3, "{v}");
    let guide = hits
        .iter()
        .find(|h| h["doc_id"] == "long:guide")
        .expect("the long page is a result");
    let sections = guide["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 3, "{guide}");
    for piece in std::iter::once(guide).chain(sections) {
        let e = piece["excerpt"].as_str().unwrap();
        assert!(e.contains("<mark>الـمِـحْرَابِ</mark>"), "{e}");
        assert!(
            piece["chunk_id"]
                .as_str()
                .unwrap()
                .starts_with("long:guide:")
        );
        assert_eq!(piece["heading_path"][0], "دليل طويل", "{piece}");
    }
    assert!(guide["lexical"]["rank"].as_u64().unwrap() >= 1);
    assert!(
        guide["vector"].is_null(),
        "a lexical search has no vector rank"
    );
    let v = ask(&["--library", "short", "--k", "20"]);
    let docs: Vec<&str> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["doc_id"].as_str().unwrap())
        .collect();
    assert_eq!(docs.len(), 2, "{v}");
    assert!(docs.iter().all(|d| d.starts_with("short:")), "{docs:?}");
    let o = run(bin()
        .current_dir(dir.path())
        .args(["query", "--explain", "--k", "1", "المحراب"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("why: lexical #1"), "{out}");
    assert!(
        out.contains("«المحراب»") || out.contains("«الـمِـحْرَابِ»"),
        "{out}"
    );
}

/// A query whose version is replaced under it (a new build, then `gc --keep 0` removing the
/// older version's files, after the query read its manifest) says the build changed and to run
/// again, instead of failing on a bare I/O error; run again, it answers from the new build.
/// The hook pauses the query between its manifest and its first artifact read, so the race is
/// met every time.
#[test]
fn a_query_whose_build_is_collected_under_it_says_the_build_changed() {
    common::test_hooks();
    let p = sample_project();
    let flag = p.path().join("paused");
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let mut query = std::process::Command::new(assert_cmd::cargo::cargo_bin("askzico"))
        .current_dir(p.path())
        .args(["query", "--json", "الصلاة"])
        .env("ASKZICO_TEST_PAUSE_BEFORE_LOAD", &flag)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A guard against a hang, not a timing check: a query that never pauses fails the test.
    for waited in 0.. {
        if flag.exists() {
            break;
        }
        assert!(waited < 6000, "the query never paused");
        assert!(
            query.try_wait().unwrap().is_none(),
            "the query ended before pausing"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let faq = p.path().join("sources/articles/faq.md");
    let text = std::fs::read_to_string(&faq).unwrap();
    std::fs::write(&faq, format!("{text}\n\nفقرة جديدة عن الصلاة في الصباح.\n")).unwrap();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let gc = run(bin().current_dir(p.path()).args(["gc", "--keep", "0"]));
    assert!(gc.status.success(), "{}", stderr(&gc));
    std::fs::remove_file(&flag).unwrap();
    let o = query.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}{}", stdout(&o));
    assert!(!err.contains("No such file"), "{err}");
    assert!(
        err.contains("the build changed while this command read it"),
        "{err}"
    );
    assert!(err.contains("run the command again"), "{err}");
    let again = run(bin()
        .current_dir(p.path())
        .args(["query", "--json", "الصلاة"]));
    assert!(again.status.success(), "{}", stderr(&again));
}

/// `query --fixtures`: each case's question answered as `query` answers it alone, one JSON line
/// a case with its id; a fixture file in error is a usage error naming it.
#[test]
fn query_answers_every_question_of_a_fixture_file() {
    let p = sample_project();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let cases = [
        ("nile", "فيضان النيل"),
        ("coffee", "القهوة في مصر"),
        ("tout", "ماذا نذكر يوم 1 توت"),
    ];
    let mut toml = String::new();
    for (id, q) in cases {
        toml.push_str(&format!(
            "[[case]]\nid = \"{id}\"\nquestion = \"{q}\"\nexpect = [\"x\"]\n\n"
        ));
    }
    std::fs::write(p.path().join("f.toml"), toml).unwrap();
    let o = run(bin().current_dir(p.path()).args([
        "query",
        "--json",
        "--k",
        "3",
        "--fixtures",
        "f.toml",
    ]));
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), cases.len());
    for ((id, q), mut got) in cases.into_iter().zip(lines) {
        assert_eq!(got["id"], id);
        assert!(
            got["domains"].is_array(),
            "{id}: the line names its domains"
        );
        got.as_object_mut().unwrap().remove("id");
        got.as_object_mut().unwrap().remove("domains");
        let one = run(bin()
            .current_dir(p.path())
            .args(["query", "--json", "--k", "3", q]));
        let want: serde_json::Value = serde_json::from_str(&stdout(&one)).unwrap();
        assert_eq!(got, want, "{id}");
        assert!(
            !want["hits"].as_array().unwrap().is_empty(),
            "{id}: no hits"
        );
    }
    std::fs::write(p.path().join("bad.toml"), "[[case]]\nid = 1\n").unwrap();
    let o = run(bin()
        .current_dir(p.path())
        .args(["query", "--fixtures", "bad.toml"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.toml"), "{}", stderr(&o));
    let o = run(bin().current_dir(p.path()).arg("query"));
    assert_eq!(o.status.code(), Some(2), "a question or --fixtures");
}

/// `--where KEY=VALUE` keeps the documents whose filterable field has that value (one of a
/// key's values when repeated), from the version's tables; a key no library declares
/// filterable is a usage error that says how to declare one.
#[test]
fn where_filters_on_declared_fields() {
    let dir = tempfile::tempdir().unwrap();
    let write_cfg = |filterable: &str| {
        std::fs::write(
            dir.path().join("corpus.toml"),
            format!("[corpus]\nname = \"t\"\n\n[[library]]\nid = \"docs\"\nroot = \"src\"\nfrontmatter_metadata = [\"category\", \"year\"]\n{filterable}"),
        )
        .unwrap();
    };
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for (name, category, year) in [
        ("a", "news", 2024),
        ("b", "guide", 2024),
        ("c", "news", 2025),
    ] {
        std::fs::write(
            dir.path().join("src").join(format!("{name}.md")),
            format!("---\ncategory: {category}\nyear: {year}\n---\n# صفحة {name}\n\nالمحراب في صدر المسجد.\n"),
        )
        .unwrap();
    }
    let build = || {
        let o = run(bin().current_dir(dir.path()).arg("build"));
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let ask = |args: &[&str]| {
        run(bin()
            .current_dir(dir.path())
            .args(["query", "--json", "--k", "20"])
            .args(args)
            .arg("المحراب"))
    };
    let docs = |o: &std::process::Output| -> Vec<String> {
        assert!(o.status.success(), "{}", stderr(o));
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        let mut d: Vec<String> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["doc_id"].as_str().unwrap().to_string())
            .collect();
        d.sort();
        d
    };
    write_cfg("");
    build();
    let o = ask(&["--where", "category=news"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("add `filterable = ["), "{}", stderr(&o));
    write_cfg("filterable = [\"category\", \"year\"]\n");
    build();
    assert_eq!(
        docs(&ask(&["--where", "category=news"])),
        ["docs:a", "docs:c"]
    );
    assert_eq!(
        docs(&ask(&["--where", "category=news", "--where", "year=2024"])),
        ["docs:a"]
    );
    assert_eq!(
        docs(&ask(&["--where", "year=2024", "--where", "year=2025"])),
        ["docs:a", "docs:b", "docs:c"]
    );
    assert!(docs(&ask(&["--where", "category=none"])).is_empty());
    let o = ask(&["--where", "author=x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no filterable field `author`"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("category, year"), "{}", stderr(&o));
    let o = ask(&["--where", "category"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
