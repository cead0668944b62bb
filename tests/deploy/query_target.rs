//! `askzico query --target NAME`: the retrieval of `query` over the live version of a deploy
//! target, read through the API of the stand-in server (KV values and bulk reads, Vectorize
//! query), answers exactly as `query` over the local build of that version, and hydrates each hit
//! with one KV read of its record.

use super::*;

/// Questions over the sample corpus: topic words of each library, an interrogative, a Coptic
/// date (its documents are brought in by the date table), an English word.
const QUESTIONS: [&str; 6] = [
    "فيضان النيل",
    "ما هو عيد النيروز",
    "ماذا نذكر يوم 1 توت",
    "كيف أكتب إجابة جيدة عن سؤال",
    "القهوة في مصر",
    "search",
];

fn query(dir: &Path, mock: Option<&Mock>, args: &[&str]) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir).arg("query").args(args);
    cmd.env_remove("CLOUDFLARE_API_TOKEN")
        .env_remove("CLOUDFLARE_ACCOUNT_ID");
    if let Some(m) = mock {
        cmd.env("CLOUDFLARE_API_TOKEN", TOKEN)
            .env("ASKZICO_CF_API_BASE", &m.base)
            .env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "2")
            .env("ASKZICO_DEPLOY_RETRY_MS", "1");
    }
    let o = run(&mut cmd);
    assert!(
        !stdout(&o).contains(TOKEN) && !stderr(&o).contains(TOKEN),
        "the token leaked"
    );
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    o
}

/// An answer as the two stores can agree on it: with `--json`, each page's vector score left
/// out. The score of a vector is its store's own (Vectorize computes the cosine in single
/// precision, the local build in double), so it matches in its first digits only; its rank, and
/// so every fused score, must match bit for bit.
fn comparable(out: &str) -> String {
    out.lines()
        .map(|line| match serde_json::from_str::<Value>(line) {
            Ok(mut v) if v.get("hits").is_some() => {
                for h in v["hits"].as_array_mut().unwrap() {
                    if let Some(score) = h["vector"].get_mut("score") {
                        *score = Value::Null;
                    }
                }
                v.to_string()
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The local answer and the deployed one, both successful (as [`comparable`]); the record keys
/// the deployed one read.
fn both(dir: &Path, m: &Mock, args: &[&str]) -> (String, String, Vec<String>) {
    let local = query(dir, None, args);
    assert!(local.status.success(), "{}", stderr(&local));
    m.state.lock().unwrap().reads.clear();
    let mut remote_args = vec!["--target", "prod"];
    remote_args.extend_from_slice(args);
    let remote = query(dir, Some(m), &remote_args);
    assert!(remote.status.success(), "{}", stderr(&remote));
    let s = m.state.lock().unwrap();
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    let records = s
        .reads
        .iter()
        .filter(|k| k.starts_with("zico/r/"))
        .cloned()
        .collect();
    (
        comparable(&stdout(&local)),
        comparable(&stdout(&remote)),
        records,
    )
}

/// The record key of each page and section of a `--json` answer, from the live version's record
/// tables.
fn hit_record_keys(kv: &BTreeMap<String, String>, v: &str, answer: &Value) -> Vec<String> {
    let t: Value = serde_json::from_str(&kv[&format!("zico/{v}/tables")]).unwrap();
    let mut record: BTreeMap<String, String> = BTreeMap::new();
    for h in t["records"].as_object().unwrap().values() {
        let table: BTreeMap<String, String> =
            serde_json::from_str(&kv[&format!("zico/t/{}", h.as_str().unwrap())]).unwrap();
        record.extend(table);
    }
    answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| std::iter::once(h).chain(h["sections"].as_array().unwrap()))
        .map(|h| format!("zico/r/{}", record[h["chunk_id"].as_str().unwrap()]))
        .collect()
}

fn assert_read_once(records: &[String], what: &str) {
    let distinct: BTreeSet<&String> = records.iter().collect();
    assert_eq!(distinct.len(), records.len(), "{what}: a record read twice");
}

pub(crate) fn a_query_of_the_deployed_version_answers_as_the_local_build_does() {
    let p = project();
    let m = mock();
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = version(p.path());
    let mut hits = 0;
    for q in QUESTIONS {
        for args in [
            vec!["--json", q],
            vec![q],
            vec!["--json", "--k", "8", q],
            vec!["--json", "--mode", "lexical", q],
            vec!["--json", "--mode", "vector", q],
            vec!["--json", "--domain", "faith", q],
            vec!["--json", "--domain", "culture", "--domain", "tech", q],
        ] {
            let (local, remote, records) = both(p.path(), &m, &args);
            assert_eq!(local, remote, "{args:?}");
            assert_read_once(&records, q);
            if args[0] == "--json" {
                let answer: Value = serde_json::from_str(&remote).unwrap();
                assert_eq!(answer["corpus_version"], v.as_str());
                let kv = m.state.lock().unwrap().store.kv.clone();
                let want = hit_record_keys(&kv, &v, &answer);
                hits += want.len();
                for k in &want {
                    assert!(
                        records.contains(k),
                        "{args:?}: the record of a hit, {k}, was not read"
                    );
                }
                // The second stage reads its candidates' evidence; nothing else reads a record.
                assert!(
                    records.len() <= 50 + want.len(),
                    "{args:?}: {} records read",
                    records.len()
                );
            }
        }
    }
    assert!(hits > 30, "the questions find something ({hits} hits)");
    // A question without a word: no candidate, in both.
    let (local, remote, records) = both(p.path(), &m, &["--json", "؟"]);
    assert_eq!(local, remote);
    assert!(records.is_empty());
    // The date question brings in the commemorations of 1 Tout, in both.
    let (_, remote, _) = both(p.path(), &m, &["--json", QUESTIONS[2]]);
    let answer: Value = serde_json::from_str(&remote).unwrap();
    assert_eq!(answer["hits"][0]["date_match"], true, "{answer}");
    assert!(
        answer["hits"][0]["source"]
            .as_str()
            .unwrap()
            .starts_with("seneksar/"),
        "{answer}"
    );
    // A query reads only: nothing written.
    assert!(
        m.state
            .lock()
            .unwrap()
            .log
            .iter()
            .rev()
            .take_while(|l| !l.starts_with("kv-put"))
            .all(|l| !l.starts_with("kv-bulk ") && !l.starts_with("upsert")),
        "a query writes nothing"
    );
}

/// Without the second stage (`rerank_depth = 0`) the only records a question reads are its
/// hits': one KV read of `<prefix>r/<h>` each.
pub(crate) fn each_hit_is_hydrated_by_one_kv_read_of_its_record() {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let mut s = std::fs::read_to_string(&cfg).unwrap();
    s.push_str("\n[retrieval]\nrerank_depth = 0\n");
    s.push_str(TARGET);
    std::fs::write(&cfg, s).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let v = version(p.path());
    for q in QUESTIONS {
        for k in ["1", "5"] {
            let (local, remote, records) = both(p.path(), &m, &["--json", "--k", k, q]);
            assert_eq!(local, remote, "{q}");
            let answer: Value = serde_json::from_str(&remote).unwrap();
            let kv = m.state.lock().unwrap().store.kv.clone();
            let mut want = hit_record_keys(&kv, &v, &answer);
            assert!(!want.is_empty(), "{q}: no hits");
            let mut got = records.clone();
            got.sort();
            want.sort();
            assert_eq!(
                got, want,
                "{q} (k {k}): one read per page and section, of its record"
            );
        }
    }
}

/// Each way the live version can be absent or unreadable is a diagnostic naming the target and
/// what to do, with exit code 1 (2 for a missing token or an unknown target: usage errors), never
/// a panic.
pub(crate) fn a_target_that_cannot_be_read_is_a_clear_diagnostic() {
    let p = project();
    let m = mock();
    let q = QUESTIONS[0];
    let fails = |m: &Mock, wants: &[&str]| {
        let o = query(p.path(), Some(m), &["--target", "prod", q]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("target `prod`"), "{err}");
        for w in wants {
            assert!(err.contains(w), "wanted {w:?} in:\n{err}");
        }
    };
    // Nothing deployed: no pointer.
    fails(&m, &["nothing is deployed", "askzico deploy --target prod"]);
    // No token (a usage error, as for `deploy`); an unknown target.
    let o = query(p.path(), None, &["--target", "prod", q]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("CLOUDFLARE_API_TOKEN"),
        "{}",
        stderr(&o)
    );
    let o = query(p.path(), Some(&m), &["--target", "nope", q]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no deploy target `nope`"),
        "{}",
        stderr(&o)
    );

    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let v = version(p.path());
    let good = m.state.lock().unwrap().store.clone();
    let with = |change: &dyn Fn(&mut BTreeMap<String, String>)| {
        let mut s = m.state.lock().unwrap();
        s.store = good.clone();
        change(&mut s.store.kv);
    };
    let first = |kv: &BTreeMap<String, String>, prefix: &str| {
        kv.keys().find(|k| k.starts_with(prefix)).unwrap().clone()
    };
    // The pointer gone, or not JSON.
    with(&|kv| {
        kv.remove(POINTER);
    });
    fails(&m, &["nothing is deployed"]);
    with(&|kv| {
        kv.insert(POINTER.into(), json!(["corpus-blue"]).to_string());
    });
    fails(
        &m,
        &[
            "the pointer `zico/current` is not",
            "askzico deploy --target prod",
        ],
    );
    // A pointer naming a version whose keys are gone, or an index the target does not have.
    with(&|kv| {
        kv.insert(
            POINTER.into(),
            json!({"version": "0".repeat(32), "index": "corpus-blue", "layout": 2}).to_string(),
        );
    });
    fails(&m, &["manifest` is missing", "--check"]);
    with(&|kv| {
        kv.insert(
            POINTER.into(),
            json!({"version": v, "index": "corpus-red", "layout": 2}).to_string(),
        );
    });
    fails(&m, &["index `corpus-red`"]);
    // The key table missing; a record table missing; a document table changed after the deploy.
    with(&|kv| {
        kv.remove(&format!("zico/{v}/tables"));
    });
    fails(&m, &[&format!("`zico/{v}/tables` is missing")]);
    with(&|kv| {
        let k = first(kv, "zico/t/");
        kv.remove(&k);
    });
    fails(&m, &["zico/t/", "is missing", "--check"]);
    with(&|kv| {
        let k = first(kv, "zico/d/");
        kv.insert(k, "{}".into());
    });
    fails(&m, &["does not hash to its key"]);
    // A lexical shard or a record changed or gone: found when a question reads it.
    with(&|kv| {
        let keys: Vec<String> = kv
            .keys()
            .filter(|k| k.starts_with("zico/r/"))
            .cloned()
            .collect();
        for k in keys {
            kv.insert(k, "{\"title\": 1}".into());
        }
    });
    fails(&m, &["zico/r/", "does not hash to its key"]);
    // A key table of a version deployed before document tables.
    with(&|kv| {
        let key = format!("zico/{v}/tables");
        let mut t: Value = serde_json::from_str(&kv[&key]).unwrap();
        t.as_object_mut().unwrap().remove("docs");
        kv.insert(key, t.to_string());
    });
    fails(
        &m,
        &[
            "deployed without document tables",
            "askzico deploy --target prod",
        ],
    );
    // A newer layout than this askzico reads.
    with(&|kv| {
        kv.insert(
            POINTER.into(),
            json!({"version": v, "index": "corpus-blue", "layout": 6}).to_string(),
        );
    });
    fails(&m, &["layout 6"]);
    // Query settings of a format this askzico does not read.
    with(&|kv| {
        let key = format!("zico/{v}/tables");
        let mut t: Value = serde_json::from_str(&kv[&key]).unwrap();
        let value = r#"{"format": 99}"#;
        let h = blake3::hash(value.as_bytes()).to_hex()[..32].to_string();
        kv.insert(format!("zico/s/{h}"), value.into());
        t["settings"] = json!(h);
        kv.insert(key, t.to_string());
    });
    fails(&m, &["format 99", "update the runtime"]);
    // Back to the deployed state: it answers.
    with(&|_| {});
    let o = query(p.path(), Some(&m), &["--target", "prod", q]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A target whose live version is of layout 1 (deployed before layout 2) is refused with what to
/// do; once a deploy upgrades it, the query answers as the local build.
pub(crate) fn a_layout_1_target_is_refused_until_a_deploy_upgrades_it() {
    let p = project();
    let m = mock();
    let old = "0ld0ld0ld0ld0ld0ld0ld0ld0ld0ld00";
    {
        let mut s = m.state.lock().unwrap();
        let mut manifest = manifest(&p.path().join("out"));
        manifest["corpus_version"] = json!(old);
        s.store
            .kv
            .insert(format!("zico/{old}/manifest"), manifest.to_string());
        s.store.kv.insert(
            POINTER.into(),
            json!({"version": old, "index": "corpus-blue"}).to_string(),
        );
        s.store.kv.insert(
            "zico/versions".into(),
            json!({"versions": [old], "indexes": {"corpus-blue": old}}).to_string(),
        );
    }
    let q = QUESTIONS[1];
    let o = query(p.path(), Some(&m), &["--target", "prod", q]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("target `prod`")
            && err.contains("layout 1")
            && err.contains("askzico deploy --target prod"),
        "{err}"
    );
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let (local, remote, _) = both(p.path(), &m, &["--json", q]);
    assert_eq!(local, remote);
}

/// `--where` on a filterable field answers from the deployed version's document tables as the
/// local build answers from its chunk records.
pub(crate) fn a_field_filter_answers_as_the_local_build_does() {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let s = std::fs::read_to_string(&cfg).unwrap().replace(
        "id = \"seneksar\"\n",
        "id = \"seneksar\"\nfilterable = [\"coptic_day\"]\n",
    );
    assert!(s.contains("filterable"));
    std::fs::write(&cfg, format!("{s}{TARGET}")).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    for q in QUESTIONS {
        let (local, remote, _) = both(
            p.path(),
            &m,
            &[
                "--json",
                "--where",
                "coptic_day=1 Tout",
                "--where",
                "coptic_day=12 Hator",
                q,
            ],
        );
        assert_eq!(local, remote, "{q}");
        let v: Value = serde_json::from_str(&local).unwrap();
        for h in v["hits"].as_array().unwrap() {
            assert!(h["library"] == "seneksar", "{q}: {h}");
        }
    }
    let (local, _, _) = both(
        p.path(),
        &m,
        &["--json", "--where", "coptic_day=1 Tout", QUESTIONS[1]],
    );
    let v: Value = serde_json::from_str(&local).unwrap();
    assert!(!v["hits"].as_array().unwrap().is_empty(), "{v}");
}

/// A version deployed in layout 2 (the keys of layout 3, its pointer and key table saying 2) is
/// still read: `query --target` answers from it as the local build does and `--check` resolves
/// it as layout 2. A pointer whose layout is not its version's is named by `--check`, and the
/// next deploy's plan says it upgrades the target to layout 5.
pub(crate) fn a_layout_2_version_is_read_and_the_next_deploy_upgrades_it() {
    let p = project();
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let v = version(p.path());
    let set_layout = |key: &str, layout: u64| {
        let mut s = m.state.lock().unwrap();
        let mut value: Value = serde_json::from_str(&s.store.kv[key]).unwrap();
        value["layout"] = json!(layout);
        s.store.kv.insert(key.to_string(), value.to_string());
    };
    let table = format!("zico/{v}/tables");
    set_layout(&table, 2);
    set_layout(POINTER, 2);
    let (local, remote, _) = both(p.path(), &m, &["--json", QUESTIONS[1]]);
    assert_eq!(local, remote);
    let o = deploy(p.path(), Some(&m), &["--check"]);
    assert!(
        o.status.success() && stdout(&o).contains("(layout 2) resolves"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    set_layout(POINTER, 3);
    let o = deploy(p.path(), Some(&m), &["--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!(
            "names layout 3, but version {v} is stored in layout 2"
        )),
        "{}",
        stderr(&o)
    );
    set_layout(POINTER, 2);
    let page = p.path().join("sources/articles/nile-flood.md");
    let mut text = std::fs::read_to_string(&page).unwrap();
    text.push_str("\n\nفقرة أضيفت بعد النشر.\n");
    std::fs::write(&page, text).unwrap();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let o = deploy(p.path(), Some(&m), &["--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("upgrade: layout 2 -> 5"),
        "{}",
        stdout(&o)
    );
}

/// A version served in layout 3 (JSON shards, no query settings) is deployed again in place:
/// the dry run says so, the deploy writes its shards in the line format, its query settings and
/// its key table, then the pointer in layout 5, and it answers as the local build.
pub(crate) fn a_version_served_in_layout_3_is_upgraded_in_place() {
    let p = project();
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let v = version(p.path());
    let table = format!("zico/{v}/tables");
    {
        let mut s = m.state.lock().unwrap();
        let mut t: Value = serde_json::from_str(&s.store.kv[&table]).unwrap();
        t["layout"] = json!(3);
        t.as_object_mut().unwrap().remove("settings");
        s.store.kv.insert(table.clone(), t.to_string());
        let mut ptr: Value = serde_json::from_str(&s.store.kv[POINTER]).unwrap();
        ptr["layout"] = json!(3);
        s.store.kv.insert(POINTER.to_string(), ptr.to_string());
    }
    let o = deploy(p.path(), Some(&m), &["--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("upgrade: layout 3 -> 5"),
        "{}",
        stdout(&o)
    );
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("in layout 5 now (it was layout 3)"),
        "{}",
        stderr(&o)
    );
    {
        let s = m.state.lock().unwrap();
        let ptr: Value = serde_json::from_str(&s.store.kv[POINTER]).unwrap();
        assert_eq!(ptr["layout"], 5);
        let t: Value = serde_json::from_str(&s.store.kv[&table]).unwrap();
        assert_eq!(t["layout"], 5);
        let settings = t["settings"].as_str().unwrap();
        assert!(s.store.kv.contains_key(&format!("zico/s/{settings}")));
        let shard = t["lexical"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|l| l["shards"].as_array().unwrap())
            .next()
            .unwrap();
        let value = &s.store.kv[&format!("zico/l/{}", shard.as_str().unwrap())];
        assert!(value.starts_with("askzico-lexical-lines 1\t"), "{value}");
    }
    let (local, remote, _) = both(p.path(), &m, &["--json", QUESTIONS[1]]);
    assert_eq!(local, remote);
    assert!(deploy(p.path(), Some(&m), &["--check"]).status.success());
}

/// `deploy --check` confirms the live version's document tables are in KV, and names one that
/// is not.
pub(crate) fn a_check_names_a_missing_document_table() {
    let p = project();
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    assert!(deploy(p.path(), Some(&m), &["--check"]).status.success());
    let gone = remove_first_kv(&m, "zico/d/");
    let o = deploy(p.path(), Some(&m), &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("document table {gone} is missing")),
        "{}",
        stderr(&o)
    );
}

/// What Vectorize cannot do is said, never silent: a `depth` above its 100 vectors a query, and
/// vectors of other domains taking places among the nearest when `--domain` filters.
pub(crate) fn the_limits_of_a_vectorize_query_are_noted() {
    for (depth, args, note) in [
        (
            "150",
            vec!["--mode", "vector"],
            "Vectorize returns at most 100 vectors a query",
        ),
        (
            "3",
            vec!["--mode", "vector", "--domain", "tech"],
            "of the index's 3 nearest vectors are of other domains",
        ),
    ] {
        let p = sample_project();
        let cfg = p.path().join("corpus.toml");
        let mut s = std::fs::read_to_string(&cfg).unwrap();
        s.push_str(&format!("\n[retrieval]\ndepth = {depth}\n{TARGET}"));
        std::fs::write(&cfg, s).unwrap();
        let o = run(bin().current_dir(p.path()).arg("build"));
        assert!(o.status.success(), "{}", stderr(&o));
        let m = mock();
        assert!(deploy(p.path(), Some(&m), &[]).status.success());
        let mut a = vec!["--target", "prod"];
        a.extend(args);
        a.push("القهوة والنيل والتقويم القبطي");
        let o = query(p.path(), Some(&m), &a);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains(note), "{depth}: {}", stderr(&o));
        let s = m.state.lock().unwrap();
        let top = depth.parse::<usize>().unwrap().min(100);
        assert!(
            s.log.contains(&format!("query corpus-blue {top}")),
            "{:?}",
            s.log
        );
    }
}

/// The shared corpora (copied), deployed: questions of several sites, a Coptic date, a domain,
/// answer from the deployed version as from the build (hundreds of vectors, lexical shards by
/// the dozen).
pub(crate) fn the_deployed_shared_corpora_answer_as_their_build() {
    let Some(corpora) = shared_corpora("the_deployed_shared_corpora_answer_as_their_build") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&corpora, &tmp.path().join("shared/corpora"));
    let dir = tmp.path().join("repo/examples/shared-corpora");
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = std::fs::read_to_string(repo().join("examples/shared-corpora/corpus.toml")).unwrap();
    std::fs::write(dir.join("corpus.toml"), format!("{cfg}{TARGET}")).unwrap();
    let o = run(bin().current_dir(&dir).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let m = mock();
    let o = deploy(&dir, Some(&m), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Every question of the repo's fixture sets, in each mode: the same bytes from the
    // deployed version as from the build.
    for f in ["fixtures.toml", "fixtures-blind.toml"] {
        std::fs::copy(repo().join("examples/shared-corpora").join(f), dir.join(f)).unwrap();
    }
    for mode in ["fused", "lexical", "vector"] {
        let args = [
            "--json",
            "--mode",
            mode,
            "--fixtures",
            "fixtures.toml",
            "fixtures-blind.toml",
        ];
        let (local, remote, _) = both(&dir, &m, &args);
        assert_eq!(
            local.lines().count(),
            430,
            "{mode}: one answer per fixture question"
        );
        for (l, r) in local.lines().zip(remote.lines()) {
            assert_eq!(l, r, "{mode}");
        }
        assert_eq!(local, remote, "{mode}");
    }
    for q in [
        "ازاي استخدم computed في vue",
        "ما هو الـ hook في react",
        "عيد النيروز",
        "ماذا نذكر يوم 15 هاتور",
        "كيف أعمل middleware في gin",
        "سورة الإخلاص",
    ] {
        for args in [
            vec!["--json", q],
            vec!["--json", "--mode", "lexical", "--domain", "seneksar", q],
        ] {
            let (local, remote, records) = both(&dir, &m, &args);
            assert_eq!(local, remote, "{args:?}");
            assert_read_once(&records, q);
        }
        // With a domain, the index's 100 nearest may hold other domains' vectors: the same
        // answer, or a note saying why not.
        let args = ["--json", "--domain", "seneksar", q];
        let local = comparable(&stdout(&query(&dir, None, &args)));
        let mut remote_args = vec!["--target", "prod"];
        remote_args.extend(args);
        let remote = query(&dir, Some(&m), &remote_args);
        assert!(remote.status.success(), "{}", stderr(&remote));
        assert!(
            comparable(&stdout(&remote)) == local
                || stderr(&remote).contains("are of other domains"),
            "{q}: {}",
            stderr(&remote)
        );
    }
}

/// A vector in the live index that the live version does not name (written there outside
/// askzico) is left out of the answer and named with the way to remove it; the question is
/// still answered from the rest of the index, as the local build answers it.
pub(crate) fn a_stale_vector_in_the_live_index_is_named_and_left_out_not_fatal() {
    let p = project();
    let m = mock();
    assert!(deploy(p.path(), Some(&m), &[]).status.success());
    let args = ["--json", "--mode", "vector", QUESTIONS[0]];
    let (local, clean, _) = both(p.path(), &m, &args);
    assert_eq!(local, clean);
    {
        // A copy of every stored vector under an ID no version names: each is as near the
        // question as its original, so the index's nearest include them.
        let mut s = m.state.lock().unwrap();
        for held in s.store.indexes.values_mut() {
            let copies: Vec<(String, Value)> = held
                .iter()
                .map(|(id, v)| {
                    let mut v = v.clone();
                    v["id"] = json!(format!("zz-stale-{id}"));
                    (format!("zz-stale-{id}"), v)
                })
                .collect();
            held.extend(copies);
        }
    }
    let mut remote_args = vec!["--target", "prod"];
    remote_args.extend_from_slice(&args);
    let o = query(p.path(), Some(&m), &remote_args);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("does not name")
            && err.contains("zz-stale-")
            && err.contains("delete-vectors"),
        "{err}"
    );
    assert!(!stdout(&o).contains("zz-stale-"), "{}", stdout(&o));
}
