//! The core compiler driven as a user drives it: build, verify, export, environments,
//! determinism, and the guarantee that a failed build leaves the previous one intact.

mod common;

use common::*;

#[test]
fn builds_and_verifies_the_repo_corpus() {
    let p = sample_project();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("built "), "{}", stdout(&o));
    let o = run(bin().current_dir(p.path()).arg("verify"));
    assert!(o.status.success(), "{}", stderr(&o));

    let m = manifest(&p.path().join("out"));
    let libs: Vec<&str> = m["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(libs, ["articles", "guides", "site", "seneksar"]);
    assert_eq!(m["environment"], "default");
    for kind in ["chunks", "lookup", "lexical", "vectors"] {
        assert!(
            m["artifacts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["kind"] == kind),
            "no {kind} artifact"
        );
    }
    let recs = chunk_records(&p.path().join("out"), "manifest.json");
    assert!(recs.len() >= 12);
    for r in &recs {
        for field in [
            "doc_id",
            "chunk_id",
            "library",
            "source",
            "title",
            "url",
            "chunk_index",
            "domains",
            "text",
            "search_text",
            "metadata",
        ] {
            assert!(r.get(field).is_some(), "missing {field} in {r}");
        }
        let id = r["chunk_id"].as_str().unwrap();
        assert!(id.len() <= 64 && id.is_ascii());
        assert!(!r["title"].as_str().unwrap().is_empty());
    }
    // The Coptic date key becomes structured metadata.
    let nativity = recs
        .iter()
        .find(|r| r["doc_id"] == "seneksar:4-29-1")
        .expect("29 Kiahk record");
    assert_eq!(
        nativity["metadata"]["date"],
        serde_json::json!({"calendar": "coptic", "month": 4, "day": 29})
    );
    assert_eq!(nativity["source"], "seneksar/commemorations.json#4-29-1");
    // The long article is split, and each piece starts at a heading.
    let cal: Vec<_> = recs
        .iter()
        .filter(|r| r["doc_id"] == "articles:calendar")
        .collect();
    assert!(
        cal.len() >= 2,
        "the >7000-char article should have several chunks"
    );
    for c in &cal {
        assert!(c["text"].as_str().unwrap().chars().count() <= 7000);
    }
    // A frontmatter id overrides the path slug.
    assert!(recs.iter().any(|r| r["doc_id"] == "articles:cairo-guide"));
}

#[test]
fn same_inputs_give_identical_bytes_across_directories_and_thread_counts() {
    let a = sample_project();
    let b = sample_project();
    let oa = run(bin()
        .current_dir(a.path())
        .env("RAYON_NUM_THREADS", "1")
        .arg("build"));
    let ob = run(bin()
        .current_dir(b.path())
        .env("RAYON_NUM_THREADS", "2")
        .args(["build", "--config"])
        .arg(b.path().join("corpus.toml")));
    assert!(
        oa.status.success() && ob.status.success(),
        "{}{}",
        stderr(&oa),
        stderr(&ob)
    );
    let fa = out_files(&a.path().join("out"));
    let fb = out_files(&b.path().join("out"));
    assert_eq!(
        fa.iter().map(|f| &f.0).collect::<Vec<_>>(),
        fb.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(fa == fb, "artifact bytes differ between the two builds");
    assert_eq!(
        manifest(&a.path().join("out"))["corpus_version"],
        manifest(&b.path().join("out"))["corpus_version"]
    );
    // No absolute path of either build leaks into an artifact.
    let root = a.path().to_string_lossy().into_owned();
    for (path, bytes) in &fa {
        assert!(
            !String::from_utf8_lossy(bytes).contains(&root),
            "{path} contains the build directory"
        );
    }
}

#[test]
fn search_text_is_computed_from_its_own_text() {
    let p = sample_project();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    for r in chunk_records(&p.path().join("out"), "manifest.json") {
        let text = r["text"].as_str().unwrap();
        let search = r["search_text"].as_str().unwrap();
        assert_eq!(
            search,
            askzico::normalize::normalize(text, &askzico::normalize::Rules::default())
        );
        assert!(!search.contains('\u{064E}'), "harakat left in search_text");
    }
}

#[test]
fn verify_names_a_corrupted_artifact() {
    let p = sample_project();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let out = p.path().join("out");
    let m = manifest(&out);
    let victim = m["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "lookup")
        .unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let mut bytes = std::fs::read(out.join(&victim)).unwrap();
    let i = bytes.len() / 2;
    bytes[i] ^= 0x01;
    std::fs::write(out.join(&victim), bytes).unwrap();
    let o = run(bin().current_dir(p.path()).args(["verify", "--json"]));
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["ok"], false);
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(
        diags.iter().any(|d| d["file"] == victim.as_str()),
        "verify did not name {victim}: {diags:?}"
    );
}

#[test]
fn verify_catches_an_unhydratable_vector_id() {
    let p = sample_project();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let out = p.path().join("out");
    // Drop the last lookup record and re-seal the manifest so only the invariant can catch it.
    let mut m = manifest(&out);
    let arts = m["artifacts"].as_array_mut().unwrap();
    let a = arts.iter_mut().find(|a| a["kind"] == "lookup").unwrap();
    let path = a["path"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(out.join(&path)).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let dropped: serde_json::Value = serde_json::from_str(lines.pop().unwrap()).unwrap();
    let new = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    std::fs::write(out.join(&path), &new).unwrap();
    a["blake3"] = blake3::hash(new.as_bytes()).to_hex().to_string().into();
    a["bytes"] = (new.len() as u64).into();
    a["records"] = (lines.len() as u64).into();
    let entries: Vec<askzico::ArtifactEntry> =
        serde_json::from_value(serde_json::Value::Array(arts.clone())).unwrap();
    let fp = m["settings"]["fingerprint"].as_str().unwrap().to_string();
    m["corpus_version"] = askzico::corpus_version(&fp, &entries).into();
    std::fs::write(
        out.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    let o = run(bin().current_dir(p.path()).arg("verify"));
    assert_eq!(o.status.code(), Some(1));
    let id = dropped["chunk_id"].as_str().unwrap();
    assert!(
        stderr(&o).contains(&format!("vector ID {id} cannot be hydrated")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_build_failing_midway_leaves_the_previous_build_intact() {
    common::test_hooks();
    let p = sample_project();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let out = p.path().join("out");
    let before = out_files(&out);
    // Change a source so the next build must write new files, then fail after a few writes.
    let f = p.path().join("sources/articles/faq.md");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}\n\nفقرة جديدة أضيفت للتجربة.\n")).unwrap();
    for n in [0, 1, 3] {
        let o = run(bin()
            .current_dir(p.path())
            .env("ASKZICO_FAIL_AFTER_WRITES", n.to_string())
            .arg("build"));
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("injected write failure"),
            "{}",
            stderr(&o)
        );
        assert_eq!(
            manifest(&out),
            serde_json::from_slice::<serde_json::Value>(
                &before.iter().find(|f| f.0 == "manifest.json").unwrap().1
            )
            .unwrap()
        );
        let o = run(bin().current_dir(p.path()).arg("verify"));
        assert!(
            o.status.success(),
            "previous build no longer verifies after failure at write {n}: {}",
            stderr(&o)
        );
        // Every file of the previous build is byte-identical.
        let now = out_files(&out);
        for (path, bytes) in &before {
            let cur = now
                .iter()
                .find(|f| &f.0 == path)
                .unwrap_or_else(|| panic!("{path} vanished"));
            assert_eq!(&cur.1, bytes, "{path} changed");
        }
    }
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success());
    assert!(
        run(bin().current_dir(p.path()).arg("verify"))
            .status
            .success()
    );
}

#[test]
fn environments_build_only_their_libraries() {
    let p = sample_project();
    let o = run(bin()
        .current_dir(p.path())
        .args(["build", "--env", "public", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["environment"], "public");
    let out = p.path().join("out");
    assert!(!out.join("manifest.json").exists());
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.public.json")).unwrap()).unwrap();
    assert_eq!(m["environment"], "public");
    let libs: Vec<&str> = m["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(libs, ["articles", "guides", "site"]);
    assert!(
        run(bin()
            .current_dir(p.path())
            .args(["verify", "--env", "public"]))
        .status
        .success()
    );
    let o = run(bin().current_dir(p.path()).args(["build", "--env", "nope"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no environment `nope`"));
}

#[test]
fn export_writes_vectorize_ndjson_and_kv_bulk_json() {
    let p = sample_project();
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    let dest = p.path().join("upload");
    let o = run(bin()
        .current_dir(p.path())
        .args(["export", "--format", "vectorize", "--dest"])
        .arg(&dest));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(bin()
        .current_dir(p.path())
        .args(["export", "--format", "kv", "--prefix", "az/", "--dest"])
        .arg(&dest));
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&p.path().join("out"));
    let version = m["corpus_version"].as_str().unwrap();
    let kv: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dest.join("kv.json")).unwrap()).unwrap();
    let keys: std::collections::BTreeSet<&str> =
        kv.iter().map(|p| p["key"].as_str().unwrap()).collect();
    assert!(keys.contains(format!("az/{version}/manifest").as_str()));
    let mut vectors = 0;
    let mut records = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(&dest).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "ndjson") {
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let id = v["id"].as_str().unwrap();
                assert_eq!(v["values"].as_array().unwrap().len(), 256);
                assert!(
                    v["metadata"].get("text").is_none(),
                    "vector metadata must hold no full text"
                );
                let record = v["metadata"]["record"].as_str().unwrap();
                assert!(
                    keys.contains(format!("az/r/{record}").as_str()),
                    "vector {id} has no KV lookup record"
                );
                records.insert(id.to_string(), record.to_string());
                vectors += 1;
            }
        }
    }
    assert_eq!(
        vectors,
        m["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["chunks"].as_u64().unwrap())
            .sum::<u64>()
    );
    let value_of = |key: &str| {
        kv.iter()
            .find(|p| p["key"] == key)
            .map(|p| p["value"].as_str().unwrap().to_string())
            .unwrap()
    };
    let tables: serde_json::Value =
        serde_json::from_str(&value_of(&format!("az/{version}/tables"))).unwrap();
    let faith = &tables["lexical"]["faith"]["meta"];
    assert!(keys.contains(format!("az/l/{}", faith.as_str().unwrap()).as_str()));
    let record = &records["seneksar:4-29-1:000"];
    let lookup = serde_json::json!({"value": value_of(&format!("az/r/{record}"))});
    let value: serde_json::Value = serde_json::from_str(lookup["value"].as_str().unwrap()).unwrap();
    assert!(value["text"].as_str().unwrap().contains("بيت لحم"));
}

#[test]
fn init_scaffolds_a_project_that_builds() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(bin().arg("init").arg(dir.path()));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.path().join("sources/articles/welcome.md").is_file());
    // The template says what the default embedder is and how to deploy.
    let config = std::fs::read_to_string(dir.path().join("corpus.toml")).unwrap();
    for said in [
        "lexical stand-in",
        "provider = \"workers-ai\"",
        "# [deploy.prod]",
    ] {
        assert!(config.contains(said), "{said}:\n{config}");
    }
    let o = run(bin().current_dir(dir.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        run(bin().current_dir(dir.path()).arg("verify"))
            .status
            .success()
    );
    // A second init refuses to overwrite: a usage error.
    assert_eq!(
        run(bin().arg("init").arg(dir.path())).status.code(),
        Some(2)
    );
}

/// `init` in a folder that holds a site writes the config alone, its library reading the
/// site's content folder with its generator's heading ids, and the config builds the site.
#[test]
fn init_in_a_site_points_the_library_at_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("docs/.vitepress")).unwrap();
    std::fs::create_dir_all(site.join("docs/guide")).unwrap();
    std::fs::write(
        site.join("docs/guide/start.md"),
        "# البداية {#start}\n\nكيف تبدأ مع الموقع.\n",
    )
    .unwrap();
    std::fs::write(site.join("docs/index.md"), "# الرئيسية\n\nأهلا بك.\n").unwrap();
    std::fs::write(site.join("package.json"), "{}").unwrap();
    // What the site does not publish: an ignored page and a package's README.
    std::fs::write(site.join(".gitignore"), "docs/scratch.md\n").unwrap();
    std::fs::write(site.join("docs/scratch.md"), "# مسودة\n\nلا تنشر.\n").unwrap();
    std::fs::create_dir_all(site.join("docs/node_modules/pkg")).unwrap();
    std::fs::write(
        site.join("docs/node_modules/pkg/README.md"),
        "# pkg\n\ntext\n",
    )
    .unwrap();
    let o = run(bin().arg("init").arg(&site));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!site.join("sources").exists(), "no sample in a site");
    let config = std::fs::read_to_string(site.join("corpus.toml")).unwrap();
    assert!(config.contains("root = \"docs\""), "{config}");
    assert!(config.contains("anchors = \"vitepress\""), "{config}");
    assert!(config.contains("\"scratch.md\""), "{config}");
    assert!(config.contains("\"**/node_modules/**\""), "{config}");
    let o = run(bin().current_dir(&site).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("2 docs"), "{}", stdout(&o));
}

/// `verify` checks lexical postings against the domain's document table: a shard whose bytes
/// and manifest entry agree (a forged, self-consistent manifest) but whose posting names a
/// document the meta does not list is an invariant failure, and so is a malformed list.
#[test]
fn verify_rejects_lexical_postings_outside_the_document_table() {
    use askzico::LexShard;
    use askzico::corpus_version;
    let p = sample_project();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = p.path().join("out");
    for (case, want) in [
        ("ordinal", "does not list"),
        ("malformed", "not a multiple"),
    ] {
        let mut m = askzico::read_manifest(&out, None).unwrap();
        let i = m
            .artifacts
            .iter()
            .position(|a| a.kind == askzico::ArtifactKind::Lexical && !a.path.contains("/meta."))
            .expect("a term shard");
        let path = out.join(&m.artifacts[i].path);
        let original = std::fs::read(&path).unwrap();
        let mut shard: LexShard = serde_json::from_slice(&original).unwrap();
        let (_, list) = shard.terms.iter_mut().next().expect("a term");
        match case {
            "ordinal" => list[0] += 1_000_000,
            _ => {
                list.pop();
            }
        }
        let bytes = serde_json::to_vec(&shard).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        m.artifacts[i].blake3 = blake3::hash(&bytes).to_hex().to_string();
        m.artifacts[i].bytes = bytes.len() as u64;
        m.corpus_version = corpus_version(m.fingerprint(), &m.artifacts);
        std::fs::write(out.join("manifest.json"), m.to_pretty_json()).unwrap();
        let o = run(bin().current_dir(p.path()).arg("verify"));
        assert!(!o.status.success(), "{case}: verify passed a forged shard");
        assert!(stderr(&o).contains(want), "{case}: {}", stderr(&o));
        // Put the build back for the next case.
        std::fs::write(&path, &original).unwrap();
        let o = run(bin().current_dir(p.path()).arg("build"));
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

/// A page whose text lives in its frontmatter (a fatwa's question and answer, as a Hugo layout
/// shows them): without `frontmatter_text` it is empty, and the warning names the keys that
/// hold text; with them, their text is the page's evidence, before its body and in the order
/// listed, and a question finds the page by it.
#[test]
fn frontmatter_text_is_evidence_when_the_library_names_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/fatwa.md"),
        "---\ntitle: حكم الصيام\nanswer: |\n  <p>يجوز للمسافر أن يفطر في رمضان ويقضي الأيام بعده.</p>\nquestion: هل يجوز للمسافر الفطر في شهر رمضان إذا طال سفره؟\n---\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/other.md"),
        "# صفحة أخرى\n\nنص عن الصلاة في السفر وأحكام القصر.\n",
    )
    .unwrap();
    let config = |text: &str| {
        std::fs::write(
            root.join("corpus.toml"),
            format!("[corpus]\nname = \"t\"\n\n[[library]]\nid = \"f\"\nroot = \"src\"\n{text}"),
        )
        .unwrap();
    };
    config("");
    let o = run(bin().current_dir(root).args(["build", "--verbose"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("fatwa.md") && err.contains("`answer`, `question`"),
        "{err}"
    );
    assert!(err.contains("frontmatter_text"), "{err}");
    assert_eq!(chunk_records(&root.join("out"), "manifest.json").len(), 1);

    config("frontmatter_text = [\"question\", \"answer\"]\n");
    let o = run(bin().current_dir(root).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let chunks = chunk_records(&root.join("out"), "manifest.json");
    let fatwa = chunks
        .iter()
        .find(|c| c["doc_id"] == "f:fatwa")
        .expect("the page is a document");
    let text = fatwa["text"].as_str().unwrap();
    let q = text.find("هل يجوز للمسافر").expect("question");
    let a = text.find("يجوز للمسافر أن يفطر").expect("answer");
    assert!(q < a, "listed order: {text}");
    assert!(!text.contains("<p>"), "markup is not evidence: {text}");
    let o = run(bin()
        .current_dir(root)
        .args(["query", "--json", "ممكن افطر وانا مسافر في رمضان"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["hits"][0]["doc_id"], "f:fatwa", "{v}");
}
