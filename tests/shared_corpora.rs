//! The compiler on the real Arabic corpora in ../shared/corpora (read at test time, never
//! copied). Skips with a printed reason where they are absent; CI has them.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;
use regex::Regex;

struct Built {
    _dir: tempfile::TempDir,
    out: PathBuf,
    stderr: String,
    records: Vec<serde_json::Value>,
}

fn config() -> PathBuf {
    repo().join("examples/shared-corpora/corpus.toml")
}

/// One build of the shared corpora for every test in this file.
fn built(test: &str) -> Option<&'static Built> {
    shared_corpora(test)?;
    static BUILT: OnceLock<Built> = OnceLock::new();
    Some(BUILT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        // `--verbose`: every warning in full, so tests can look for one by its file.
        let o = run(bin()
            .args(["build", "--verbose", "--config"])
            .arg(config())
            .arg("--out")
            .arg(&out));
        assert!(
            o.status.success(),
            "shared-corpora build failed:\n{}",
            stderr(&o)
        );
        let records = chunk_records(&out, "manifest.json");
        Built {
            stderr: stderr(&o),
            records,
            out,
            _dir: dir,
        }
    }))
}

fn docs_of<'a>(b: &'a Built, lib: &str) -> BTreeSet<&'a str> {
    b.records
        .iter()
        .filter(|r| r["library"] == lib)
        .map(|r| r["doc_id"].as_str().unwrap())
        .collect()
}

fn builds_and_verifies() {
    let Some(b) = built("builds_and_verifies") else {
        return;
    };
    let o = run(bin()
        .args(["verify", "--config"])
        .arg(config())
        .arg("--out")
        .arg(&b.out));
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&b.out);
    let libs: Vec<&str> = m["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    for lib in [
        "seneksar", "react-ar", "vue-ar", "redis-ar", "eis1600", "fahdlabs", "quran", "agpeya",
        "liturgy", "tasbeha", "incense",
    ] {
        assert!(libs.contains(&lib), "library {lib} missing");
        assert!(
            !docs_of(b, lib).is_empty(),
            "library {lib} has no documents"
        );
    }
}

fn every_synaxarium_record_and_quran_chapter_is_a_document() {
    let Some(b) = built("every_synaxarium_record_and_quran_chapter_is_a_document") else {
        return;
    };
    let seneksar = docs_of(b, "seneksar");
    assert_eq!(
        seneksar.len(),
        856,
        "all 856 records, none dropped or merged"
    );
    let nativity = b
        .records
        .iter()
        .find(|r| {
            r["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("4_29.html?lang=ar#1"))
        })
        .expect("29 Kiahk #1");
    assert_eq!(nativity["doc_id"], "seneksar:4-29-1");
    assert_eq!(
        nativity["metadata"]["date"],
        serde_json::json!({"calendar": "coptic", "month": 4, "day": 29})
    );
    let months: BTreeSet<u64> = b
        .records
        .iter()
        .filter(|r| r["library"] == "seneksar")
        .map(|r| r["metadata"]["date"]["month"].as_u64().unwrap())
        .collect();
    assert_eq!(months, (1..=13).collect());
    let quran = docs_of(b, "quran");
    let expected: BTreeSet<String> = [1, 12, 18, 19, 36, 55, 67, 112, 113, 114]
        .iter()
        .map(|n| format!("quran:{n}"))
        .collect();
    assert_eq!(
        quran.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        expected
    );
    let q112 = b
        .records
        .iter()
        .find(|r| r["doc_id"] == "quran:112")
        .unwrap();
    assert_eq!(q112["source"], "quran/chapters/112.json");
}

/// Letters of prose in a Markdown/MDX source, outside frontmatter, code, tags and ESM lines.
fn prose_letters(src: &str) -> usize {
    let mut s = src.replace("\r\n", "\n");
    if s.starts_with("---\n")
        && let Some(end) = s[4..].find("\n---")
    {
        s = s[4 + end + 4..].to_string();
    }
    let fences = Regex::new(r"(?ms)^\s*(```|~~~).*?^\s*(```|~~~)").unwrap();
    let blocks = Regex::new(r"(?is)<(script|style)\b.*?</(script|style)>").unwrap();
    let tags = Regex::new(r"<[^>\n]*>").unwrap();
    let esm = Regex::new(r"(?m)^(import|export)\s.*$").unwrap();
    let inline = Regex::new(r"`[^`\n]*`").unwrap();
    let s = fences.replace_all(&s, "");
    let s = blocks.replace_all(&s, "");
    let s = esm.replace_all(&s, "");
    let s = tags.replace_all(&s, "");
    let s = inline.replace_all(&s, "");
    s.chars().filter(|c| c.is_alphabetic()).count()
}

fn every_page_with_prose_yields_chunks_and_layout_pages_warn() {
    let Some(b) = built("every_page_with_prose_yields_chunks_and_layout_pages_warn") else {
        return;
    };
    let corpora = shared_corpora("").unwrap();
    let sources: BTreeSet<&str> = b
        .records
        .iter()
        .map(|r| r["source"].as_str().unwrap())
        .collect();
    for (lib, root) in [
        ("react-ar", "react-dev-ar/src/content"),
        ("vue-ar", "vue-docs-ar/src"),
    ] {
        let root = corpora.join(root);
        let mut checked = 0;
        for e in walkdir::WalkDir::new(&root)
            .into_iter()
            .filter_map(Result::ok)
        {
            if e.path().extension().is_none_or(|x| x != "md") {
                continue;
            }
            let rel = e
                .path()
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let src = std::fs::read_to_string(e.path()).unwrap();
            let source = format!("{lib}/{rel}");
            if prose_letters(&src) >= 200 {
                checked += 1;
                assert!(
                    sources.contains(source.as_str()),
                    "{source} has prose but yields no chunk"
                );
            } else if !sources.contains(source.as_str()) {
                let name = e.path().file_name().unwrap().to_string_lossy().into_owned();
                assert!(
                    b.stderr
                        .lines()
                        .any(|l| l.contains(&name) && l.contains("nothing to index")),
                    "{source}: no document and no warning"
                );
            }
        }
        assert!(checked > 30, "{lib}: only {checked} files checked");
    }
}

fn evidence_holds_no_markup_entities_or_frontmatter() {
    let Some(b) = built("evidence_holds_no_markup_entities_or_frontmatter") else {
        return;
    };
    let entity = Regex::new(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]{1,31});").unwrap();
    let inline = Regex::new(r"``.+?``|`[^`\n]+`").unwrap();
    let esm = Regex::new(r#"(?m)^\s*(import\s.*\sfrom\s+['"]|import\s+['"]|export\s+(const|default|function|let)\b)"#).unwrap();
    let tag = Regex::new(r"</?[A-Za-z][A-Za-z0-9.:-]*(\s+[A-Za-z:@#_.-]+(=(\x22[^\x22]*\x22|'[^']*'|\{[^}]*\}|[^\s>]+))?)*\s*/?>").unwrap();
    let mut failures = Vec::new();
    // A code block longer than the limit continues into the next chunk of its document.
    let mut in_code: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    for r in &b.records {
        let id = r["chunk_id"].as_str().unwrap();
        let text = r["text"].as_str().unwrap();
        let state = in_code.entry(r["doc_id"].as_str().unwrap()).or_insert(None);
        let prose = outside_fences(text, state);
        if let Some(m) = entity.find(&prose) {
            failures.push(format!("{id}: entity {}", m.as_str()));
        }
        if prose.starts_with("---\n") || prose.contains("\n---\ntitle:") {
            failures.push(format!("{id}: frontmatter"));
        }
        let prose = inline.replace_all(&prose, "");
        if let Some(m) = esm.find(&prose) {
            failures.push(format!("{id}: ESM line `{}`", m.as_str()));
        }
        if let Some(m) = tag.find(&prose) {
            failures.push(format!("{id}: tag `{}`", m.as_str()));
        }
        for remnant in [":::", "{#", "{/*", "{{<", "{{%", "<!--"] {
            if prose.contains(remnant) {
                failures.push(format!("{id}: syntax remnant `{remnant}`"));
            }
        }
        assert_eq!(
            r["search_text"].as_str().unwrap(),
            askzico::normalize::normalize(text, &askzico::normalize::Rules::default()),
            "{id}: search_text is not the normalized form of its own text"
        );
    }
    assert!(
        failures.is_empty(),
        "{} chunks hold markup:\n{}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The text outside fenced code, with CommonMark fence rules (a closing fence has no info
/// string); `open` carries an unclosed fence (its backtick count) across a document's chunks.
fn outside_fences(text: &str, open: &mut Option<usize>) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        let ticks = t.chars().take_while(|&c| c == '`').count();
        match *open {
            Some(n) => {
                if ticks >= n && t[ticks..].trim().is_empty() {
                    *open = None;
                }
            }
            None if ticks >= 3 => *open = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

fn shared_build_is_byte_identical_across_directories_and_threads() {
    let Some(b) = built("shared_build_is_byte_identical_across_directories_and_threads") else {
        return;
    };
    let a = out_files(&b.out);
    // Another working directory, another output directory, another thread count than the
    // default (a one-shot build cuts each domain's lexical postings into one part per thread).
    for threads in ["1", "3"] {
        let other = tempfile::tempdir().unwrap();
        let out = other.path().join("elsewhere/out");
        let o = run(bin()
            .current_dir(other.path())
            .env("RAYON_NUM_THREADS", threads)
            .args(["build", "--config"])
            .arg(config())
            .arg("--out")
            .arg(&out));
        assert!(o.status.success(), "{}", stderr(&o));
        let c = out_files(&out);
        assert_eq!(a.len(), c.len());
        for ((pa, ba), (pc, bc)) in a.iter().zip(&c) {
            assert_eq!(pa, pc);
            assert!(ba == bc, "{pa} differs with {threads} threads");
        }
    }
}

fn ids_are_ascii_short_and_unique() {
    let Some(b) = built("ids_are_ascii_short_and_unique") else {
        return;
    };
    let mut seen = BTreeMap::new();
    for r in &b.records {
        let id = r["chunk_id"].as_str().unwrap();
        assert!(id.is_ascii() && id.len() <= 64, "{id}");
        assert!(seen.insert(id.to_string(), ()).is_none(), "duplicate {id}");
        let src = r["source"].as_str().unwrap();
        assert!(
            !Path::new(src).is_absolute() && !src.split('/').any(|seg| seg == ".."),
            "{src}"
        );
    }
}

/// IDs are a promise to whatever holds them (deployed vectors, fixtures, citations): mapping
/// slugs that are not IDs must leave every valid one as it was. The chunk IDs of the libraries
/// the baseline was recorded on are pinned by a hash.
fn valid_slugs_keep_their_ids_and_command_names_are_mapped() {
    let Some(b) = built("valid_slugs_keep_their_ids_and_command_names_are_mapped") else {
        return;
    };
    let baseline = [
        "seneksar", "agpeya", "liturgy", "tasbeha", "incense", "quran", "react-ar", "vue-ar",
        "redis-ar", "eis1600", "fahdlabs",
    ];
    let ids: BTreeSet<&str> = b
        .records
        .iter()
        .filter(|r| baseline.contains(&r["library"].as_str().unwrap()))
        .map(|r| r["chunk_id"].as_str().unwrap())
        .collect();
    let joined = ids.iter().copied().collect::<Vec<_>>().join("\n");
    assert_eq!(
        (
            ids.len(),
            blake3::hash(joined.as_bytes()).to_hex().to_string()
        ),
        (
            1201,
            "d3e03e876d55b74c6830881e6752fd231f3adb8fd0d1b47710770650c42e411b".to_string()
        ),
        "the chunk IDs of the baseline libraries changed"
    );
    // tldr's pages named after their commands: escaped IDs, readable URLs.
    let tldr: BTreeMap<&str, (&str, &str)> = b
        .records
        .iter()
        .filter(|r| r["library"] == "tldr")
        .map(|r| {
            let s = r["source"].as_str().unwrap();
            (
                s,
                (r["doc_id"].as_str().unwrap(), r["url"].as_str().unwrap()),
            )
        })
        .collect();
    for (source, id, url) in [
        (
            "tldr/common/c++.md",
            "tldr:common/c~2B~2B",
            "/tldr/common/c++",
        ),
        ("tldr/common/$.md", "tldr:common/~24", "/tldr/common/$"),
        ("tldr/common/%.md", "tldr:common/~25", "/tldr/common/%25"),
        ("tldr/common/((.md", "tldr:common/~28~28", "/tldr/common/(("),
        ("tldr/common/..md", "tldr:common/~2E", "/tldr/common/%2E"),
        ("tldr/common/tar.md", "tldr:common/tar", "/tldr/common/tar"),
    ] {
        assert_eq!(tldr.get(source), Some(&(id, url)), "{source}");
    }
    let m = manifest(&b.out);
    let mapped: u64 = m["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["mapped_ids"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(mapped, 7);
    assert!(b.stderr.is_empty() || !b.stderr.contains("over the 64-byte"));
}

fn eval_gate_holds_against_the_committed_baseline() {
    if built("eval_gate_holds_against_the_committed_baseline").is_none() {
        return;
    }
    let ex = repo().join("examples/shared-corpora");
    // The gate judges the libraries the baseline was recorded on (`[env.baseline]`), built
    // into an output directory of its own (the shared one is compared file by file).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(bin()
        .args(["build", "--env", "baseline", "--config"])
        .arg(config())
        .arg("--out")
        .arg(&out));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(bin()
        .args(["eval", "--json", "--env", "baseline", "--config"])
        .arg(config())
        .arg("--out")
        .arg(&out)
        .arg("--fixtures")
        .arg(ex.join("fixtures.toml"))
        .arg("--baseline")
        .arg(ex.join("baseline.json")));
    assert!(
        o.status.success(),
        "retrieval regressed against baseline.json:\n{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["overall"]["cases"].as_u64().unwrap() >= 80);
    // Every dated case finds its commemoration in the top 5.
    for c in v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["set"] == "dated")
    {
        assert!(
            c["rank"].as_u64().is_some_and(|r| r <= 5),
            "dated case {} missed: {c}",
            c["id"]
        );
    }
    // The default fusion never scores below lexical-only on the fixture sets.
    let o = run(bin()
        .args([
            "eval", "--json", "--mode", "lexical", "--env", "baseline", "--config",
        ])
        .arg(config())
        .arg("--out")
        .arg(&out)
        .arg("--fixtures")
        .arg(ex.join("fixtures.toml")));
    let lex: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for m in ["hit@1", "hit@5", "mrr@10"] {
        assert!(
            v["overall"][m].as_f64().unwrap() >= lex["overall"][m].as_f64().unwrap(),
            "fused {m} below lexical-only"
        );
    }
}

fn deploy_dry_run_plan_respects_every_limit() {
    let Some(b) = built("deploy_dry_run_plan_respects_every_limit") else {
        return;
    };
    let o = run(bin()
        .env_remove("CLOUDFLARE_API_TOKEN")
        .args([
            "deploy",
            "--target",
            "staging",
            "--dry-run",
            "--json",
            "--config",
        ])
        .arg(config())
        .arg("--out")
        .arg(&b.out));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let chunks: u64 = manifest(&b.out)["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["chunks"].as_u64().unwrap())
        .sum();
    assert_eq!(
        v["vectors"]["upsert"].as_u64(),
        Some(chunks),
        "a first deploy upserts every vector"
    );
    // reference/cloudflare.md: ≤ 1000 vectors and < 100 MB per upsert request here; KV bulk ≤ 10,000 pairs and ≤ 100 MB.
    for batch in v["vectors"]["upsert_batches"].as_array().unwrap() {
        assert!(
            batch["vectors"].as_u64().unwrap() <= 1000
                && batch["bytes"].as_u64().unwrap() < 100 * 1024 * 1024,
            "{batch}"
        );
    }
    for batch in v["kv"]["batches"].as_array().unwrap() {
        assert!(
            batch["pairs"].as_u64().unwrap() <= 10_000
                && batch["bytes"].as_u64().unwrap() <= 100 * 1024 * 1024,
            "{batch}"
        );
    }
    assert!(
        v["kv"]["writes"].as_u64().unwrap() > chunks,
        "lookup records plus lexical shards and the manifest"
    );
}

/// Every eval scores the stock baseline beside askzico, per set and per library, in `--json`
/// as on the terminal: on the full build (tldr and gin included) with the blind fixtures.
fn eval_reports_the_stock_baseline_beside_askzico() {
    let Some(b) = built("eval_reports_the_stock_baseline_beside_askzico") else {
        return;
    };
    let blind = repo().join("examples/shared-corpora/fixtures-blind.toml");
    let o = run(bin()
        .args(["eval", "--json", "--config"])
        .arg(config())
        .arg("--out")
        .arg(&b.out)
        .arg("--fixtures")
        .arg(&blind));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let stock = &v["stock"];
    assert_eq!(stock["overall"]["cases"], v["overall"]["cases"]);
    assert!(v["overall"]["cases"].as_u64().unwrap() >= 300);
    for key in ["sets", "libraries"] {
        let ours: Vec<&String> = v[key].as_object().unwrap().keys().collect();
        let theirs: Vec<&String> = stock[key].as_object().unwrap().keys().collect();
        assert_eq!(ours, theirs, "{key}");
    }
    // The paired comparison counts, question by question, what each ranks first alone.
    let (mut wins, mut losses) = (0, 0);
    for c in v["cases"].as_array().unwrap() {
        let ours = c["rank"].as_u64() == Some(1);
        let theirs = stock["ranks"][c["id"].as_str().unwrap()].as_u64() == Some(1);
        wins += u64::from(ours && !theirs);
        losses += u64::from(theirs && !ours);
    }
    let hit1 = &stock["paired"]["hit1"];
    assert_eq!(
        (hit1["wins"].as_u64(), hit1["losses"].as_u64()),
        (Some(wins), Some(losses))
    );
    assert!(hit1["low"].as_f64().unwrap() <= hit1["gain"].as_f64().unwrap());
    assert!(hit1["p"].as_f64().unwrap() <= 1.0);
    for lib in ["tldr", "gin"] {
        assert!(
            v["libraries"][lib]["cases"].as_u64().unwrap() >= 30,
            "{lib}"
        );
        assert!(
            stock["libraries"][lib]["hit@5"].as_f64().unwrap() > 0.0,
            "{lib}"
        );
    }
    let o = run(bin()
        .args(["eval", "--config"])
        .arg(config())
        .arg("--out")
        .arg(&b.out)
        .arg("--fixtures")
        .arg(&blind));
    assert!(stdout(&o).contains("stock:"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!(
            "hit@1 against stock: {wins} answered by askzico alone, {losses} by stock alone"
        )),
        "{}",
        stdout(&o)
    );
}

/// Whether an `expect` entry names a hit, as `eval` matches them.
fn expected(entry: &str, hit: &serde_json::Value) -> bool {
    let s = |k: &str| hit[k].as_str().unwrap_or_default();
    if [s("chunk_id"), s("doc_id"), s("url")].contains(&entry) {
        return true;
    }
    s("source").strip_suffix(entry).is_some_and(|head| {
        head.is_empty() || head.ends_with(['/', '#']) || entry.starts_with(['#', '/'])
    })
}

/// An excerpt (HTML) as the text it shows, after checking its markup: only balanced `<mark>`
/// tags and the five character references `&amp; &lt; &gt; &quot; &#39;`.
fn excerpt_text(excerpt: &str) -> String {
    let tags = Regex::new(r"<mark>[^<]*</mark>").unwrap();
    let bare = tags.replace_all(excerpt, |c: &regex::Captures| {
        c[0].trim_start_matches("<mark>")
            .trim_end_matches("</mark>")
            .to_string()
    });
    assert!(
        !bare.contains(['<', '>']),
        "markup other than balanced <mark> tags in {excerpt:?}"
    );
    let entity = Regex::new(r"&(amp|lt|gt|quot|#39);").unwrap();
    assert!(
        !entity.replace_all(&bare, "").contains('&'),
        "a bare or broken character reference in {excerpt:?}"
    );
    entity
        .replace_all(&bare, |c: &regex::Captures| match &c[1] {
            "amp" => "&",
            "lt" => "<",
            "gt" => ">",
            "quot" => "\"",
            _ => "'",
        })
        .into_owned()
}

/// A character that continues the grapheme before it (Arabic marks, tatweel, joiners, Latin
/// combining marks): an excerpt never starts or ends in front of one.
fn continues_a_grapheme(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{06D6}'..='\u{06ED}' | '\u{0640}' | '\u{200C}' | '\u{200D}')
}

/// Every fixture question, answered as the runtime answers it: pages, never one twice, each
/// with at most 3 further sections of the same document; every excerpt a piece of its chunk's
/// unaltered text cut between graphemes, with balanced marks and whole character references;
/// and the expected page at rank 1 shows a marked word in at least 95% of answers.
fn answers_are_pages_with_excerpts_marked_in_the_evidence() {
    let Some(b) = built("answers_are_pages_with_excerpts_marked_in_the_evidence") else {
        return;
    };
    let dir = repo().join("examples/shared-corpora");
    let fixtures = [dir.join("fixtures.toml"), dir.join("fixtures-blind.toml")];
    let o = run(bin()
        .args(["query", "--json", "--k", "20", "--config"])
        .arg(config())
        .arg("--out")
        .arg(&b.out)
        .arg("--fixtures")
        .args(&fixtures));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut expect: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &fixtures {
        let t: toml::Table = std::fs::read_to_string(f).unwrap().parse().unwrap();
        for c in t["case"].as_array().unwrap() {
            let list = c["expect"].as_array().unwrap();
            expect.insert(
                c["id"].as_str().unwrap().to_string(),
                list.iter()
                    .map(|e| e.as_str().unwrap().to_string())
                    .collect(),
            );
        }
    }
    let text: BTreeMap<&str, &str> = b
        .records
        .iter()
        .map(|r| (r["chunk_id"].as_str().unwrap(), r["text"].as_str().unwrap()))
        .collect();
    let (mut answers, mut first, mut marked, mut sections) = (0, 0, 0, 0);
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let hits = v["hits"].as_array().unwrap();
        answers += 1;
        assert!(hits.len() <= 20);
        let docs: BTreeSet<&str> = hits.iter().map(|h| h["doc_id"].as_str().unwrap()).collect();
        assert_eq!(docs.len(), hits.len(), "a page shown twice for {}", v["id"]);
        for h in hits {
            let doc = h["doc_id"].as_str().unwrap();
            let shown = h["sections"].as_array().unwrap();
            assert!(shown.len() <= 3);
            sections += shown.len();
            for piece in std::iter::once(h).chain(shown) {
                let id = piece["chunk_id"].as_str().unwrap();
                assert!(
                    id.starts_with(&format!("{doc}:")),
                    "{id} is not a chunk of {doc}"
                );
                let evidence = text[id];
                let plain = excerpt_text(piece["excerpt"].as_str().unwrap());
                let at = evidence.find(&plain);
                assert!(
                    at.is_some(),
                    "the excerpt of {id} is not in its text: {plain:?}"
                );
                let end = at.unwrap() + plain.len();
                for edge in [&plain, &evidence[end..]] {
                    assert!(
                        !edge.chars().next().is_some_and(continues_a_grapheme),
                        "the excerpt of {id} is cut inside a grapheme: {plain:?}"
                    );
                }
            }
        }
        let wanted = &expect[v["id"].as_str().unwrap()];
        if let Some(h) = hits.first()
            && wanted.iter().any(|e| expected(e, h))
        {
            first += 1;
            marked += usize::from(h["excerpt"].as_str().unwrap().contains("<mark>"));
        }
    }
    assert!(answers >= 400, "{answers} answers");
    assert!(sections > 0, "no page showed a further section");
    assert!(
        marked * 100 >= first * 95,
        "{marked} of the {first} expected pages at rank 1 show a marked word"
    );
    eprintln!(
        "{marked} of {first} expected pages at rank 1 show a marked word; {sections} sections shown"
    );
}

/// Every section anchor of a chunk is an id written in its source (`{#id}` in Vue's Markdown,
/// `{/*id*/}` in react.dev's MDX), and its offset starts a line of the chunk's
/// text (where its section's heading is); Vue and react.dev pages link hundreds of sections.
fn section_anchors_are_the_ids_their_sources_write() {
    let Some(b) = built("section_anchors_are_the_ids_their_sources_write") else {
        return;
    };
    let cfg_dir = config().parent().unwrap().to_path_buf();
    let cfg: toml::Table = std::fs::read_to_string(config()).unwrap().parse().unwrap();
    let roots: BTreeMap<&str, PathBuf> = cfg["library"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let root = l["root"].as_str().unwrap();
            (l["id"].as_str().unwrap(), cfg_dir.join(root))
        })
        .collect();
    let mut sources: BTreeMap<String, String> = BTreeMap::new();
    let mut linked: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &b.records {
        let lib = r["library"].as_str().unwrap();
        let text = r["text"].as_str().unwrap();
        let anchors = r["anchors"].as_array().unwrap();
        assert_eq!(
            anchors.first().map(|a| a[0].as_u64().unwrap()),
            Some(0),
            "{}",
            r["chunk_id"]
        );
        for a in anchors {
            let (at, id) = (a[0].as_u64().unwrap() as usize, a[1].as_str().unwrap());
            assert!(
                at == 0 || text[..at].ends_with('\n'),
                "{}: anchor {id:?} at {at} does not start a line",
                r["chunk_id"]
            );
            if id.is_empty() {
                continue;
            }
            let source = r["source"].as_str().unwrap();
            let path = source.split('#').next().unwrap();
            let file = roots[lib].join(path.strip_prefix(&format!("{lib}/")).unwrap());
            let body = sources
                .entry(file.display().to_string())
                .or_insert_with(|| std::fs::read_to_string(&file).unwrap());
            assert!(
                [format!("{{#{id}}}"), format!("{{/*{id}*/}}")]
                    .iter()
                    .any(|w| body.contains(w.as_str())),
                "{}: anchor {id:?} is not written in {}",
                r["chunk_id"],
                file.display()
            );
            *linked.entry(lib).or_default() += 1;
        }
    }
    for lib in ["vue-ar", "react-ar"] {
        assert!(
            linked.get(lib).copied().unwrap_or(0) >= 100,
            "{lib}: {linked:?}"
        );
    }
    eprintln!("section anchors written in their sources: {linked:?}");
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test("builds_and_verifies", builds_and_verifies).needs(common::harness::shared_corpora),
        test(
            "every_synaxarium_record_and_quran_chapter_is_a_document",
            every_synaxarium_record_and_quran_chapter_is_a_document,
        )
        .needs(common::harness::shared_corpora),
        test(
            "every_page_with_prose_yields_chunks_and_layout_pages_warn",
            every_page_with_prose_yields_chunks_and_layout_pages_warn,
        )
        .needs(common::harness::shared_corpora),
        test(
            "evidence_holds_no_markup_entities_or_frontmatter",
            evidence_holds_no_markup_entities_or_frontmatter,
        )
        .needs(common::harness::shared_corpora),
        test(
            "shared_build_is_byte_identical_across_directories_and_threads",
            shared_build_is_byte_identical_across_directories_and_threads,
        )
        .needs(common::harness::shared_corpora),
        test(
            "ids_are_ascii_short_and_unique",
            ids_are_ascii_short_and_unique,
        )
        .needs(common::harness::shared_corpora),
        test(
            "valid_slugs_keep_their_ids_and_command_names_are_mapped",
            valid_slugs_keep_their_ids_and_command_names_are_mapped,
        )
        .needs(common::harness::shared_corpora),
        test(
            "eval_gate_holds_against_the_committed_baseline",
            eval_gate_holds_against_the_committed_baseline,
        )
        .needs(common::harness::shared_corpora),
        test(
            "deploy_dry_run_plan_respects_every_limit",
            deploy_dry_run_plan_respects_every_limit,
        )
        .needs(common::harness::shared_corpora),
        test(
            "eval_reports_the_stock_baseline_beside_askzico",
            eval_reports_the_stock_baseline_beside_askzico,
        )
        .needs(common::harness::shared_corpora),
        test(
            "answers_are_pages_with_excerpts_marked_in_the_evidence",
            answers_are_pages_with_excerpts_marked_in_the_evidence,
        )
        .needs(common::harness::shared_corpora),
        test(
            "section_anchors_are_the_ids_their_sources_write",
            section_anchors_are_the_ids_their_sources_write,
        )
        .needs(common::harness::shared_corpora),
    ])
}
