use super::*;

/// The repository's project built in a temp dir: its output directory and manifest.
fn built() -> (tempfile::TempDir, PathBuf, Manifest) {
    built_with(&[])
}

/// As [`built`], with these further source files (path under the project, text).
fn built_with(extra: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, Manifest) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = tempfile::tempdir().unwrap();
    std::fs::copy(repo.join("corpus.toml"), t.path().join("corpus.toml")).unwrap();
    for e in walkdir::WalkDir::new(repo.join("sources"))
        .into_iter()
        .map(Result::unwrap)
    {
        let to = t.path().join(e.path().strip_prefix(repo).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    for (path, text) in extra {
        std::fs::write(t.path().join(path), text).unwrap();
    }
    let out = t.path().join("out");
    let req = crate::engine::BuildRequest {
        out: out.clone(),
        env: None,
        progress: false,
        allow_empty: false,
    };
    let cfg = crate::config::Config::load(&t.path().join("corpus.toml")).unwrap();
    let m = crate::engine::Engine::one_shot(cfg)
        .build(&req)
        .manifest
        .expect("builds");
    (t, out, m)
}

/// Opening a version holds no record and no vector: each record is read from where the
/// index says it lies, the same record a full read of the lookup files gives, and the
/// vectors only when a vector ranking asks for them.
#[test]
fn records_are_read_where_they_lie_and_vectors_only_when_asked() {
    let (_t, out, m) = built();
    let ((chunks, _), store) = open(&out, &m).unwrap();
    assert!(store.vectors.get().is_none());
    let mut all: Vec<LookupRecord> = Vec::new();
    for a in m.artifacts.iter().filter(|a| a.kind == Kind::Lookup) {
        let text = read_artifact_text(&out, a).unwrap();
        all.extend(text.lines().map(|l| serde_json::from_str(l).unwrap()));
    }
    assert_eq!(all.len(), chunks.len());
    let ids: Vec<&str> = all.iter().map(|r| r.chunk_id.as_str()).collect();
    let read = store.records(&ids).unwrap();
    assert_eq!(read, all.into_iter().map(Some).collect::<Vec<_>>());
    assert_eq!(store.records(&["no:such:000"]).unwrap(), [None]);
    assert!(store.vectors.get().is_none());
    // Longer than any vector: the dot product stops at the shorter.
    let q = vec![1.0; 4096];
    store.nearest(&q, &|_| true, 3).unwrap();
    assert!(store.vectors.get().is_some());
}

/// The config of a project [`built`] in `dir`.
fn config(dir: &Path) -> crate::config::Config {
    crate::config::Config::load(&dir.join("corpus.toml")).unwrap()
}

/// Every fixture question of the repository, as it is and with the filters a visitor can
/// set, in every mode: a searcher over the query index answers byte for byte as one that
/// reads the version whole, whether the index was made by this query or an earlier one.
#[test]
fn the_query_index_answers_as_the_whole_version() {
    use super::super::{Filters, Mode, Searcher};
    let (t, out, m) = built();
    let cfg = config(t.path());
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = std::fs::read_to_string(repo.join("fixtures.toml")).unwrap();
    let mut questions: Vec<String> = fixtures
        .lines()
        .filter_map(|l| l.strip_prefix("question = "))
        .map(|q| q.trim_matches('"').to_string())
        .collect();
    // A date (the whole tables) and a word of no page.
    questions.push("ماذا حدث في 15 هاتور".to_string());
    questions.push("قطعةلاوجودلها".to_string());
    assert!(questions.len() > 10);
    let filters = [
        Filters::default(),
        Filters::domains(&["culture".to_string()]),
        Filters {
            libraries: vec!["articles".to_string()],
            ..Filters::default()
        },
    ];
    let index = super::super::index::path_of(&out, &m.corpus_version);
    assert!(!index.exists());
    let whole = Searcher::open(cfg.search_settings(), &out, m.clone()).unwrap();
    for round in 0..2 {
        let indexed = Searcher::open_indexed(cfg.search_settings(), &out, m.clone()).unwrap();
        assert!(indexed.rows.is_some() && index.exists());
        for q in &questions {
            for f in &filters {
                for mode in [Mode::Fused, Mode::Lexical, Mode::Vector] {
                    let want = whole.search(q, f, 5, mode).unwrap();
                    let got = indexed.search(q, f, 5, mode).unwrap();
                    assert_eq!(
                        serde_json::to_string(&got).unwrap(),
                        serde_json::to_string(&want).unwrap(),
                        "round {round}, {q}, {f:?}, {mode:?}"
                    );
                }
            }
        }
    }
}

/// A question over the query index reads its terms' shards, the index and the lines of the
/// records it shows: with every other line of the chunks and lookup files blanked and the
/// lexical metas gone, a rare word's answer is the one the intact version gives, where the
/// whole read fails.
#[test]
fn a_rare_word_reads_only_its_own_lines() {
    use super::super::{Filters, Mode, Searcher};
    let rare = "زبرجديات";
    let page = format!("---\ntitle: حجر\n---\n\nفي هذه الصفحة وحدها كلمة {rare} النادرة.\n");
    let (t, out, m) = built_with(&[("sources/articles/rare.md", &page)]);
    let cfg = config(t.path());
    let ask = |s: &Searcher| s.search(rare, &Filters::default(), 5, Mode::Lexical);
    let intact =
        ask(&Searcher::open_indexed(cfg.search_settings(), &out, m.clone()).unwrap()).unwrap();
    assert_eq!(intact.len(), 1);
    let hit = intact[0].chunk_id.clone();
    for a in &m.artifacts {
        let path = out.join(&a.path);
        match a.kind {
            Kind::Chunks | Kind::Lookup => {
                let text = std::fs::read_to_string(&path).unwrap();
                let blanked: String = text
                    .split_inclusive('\n')
                    .map(|l| {
                        if l.contains(&format!("\"chunk_id\":\"{hit}\"")) {
                            l.to_string()
                        } else {
                            let body = l.trim_end_matches('\n');
                            " ".repeat(body.len()) + &l[body.len()..]
                        }
                    })
                    .collect();
                std::fs::write(&path, blanked).unwrap();
            }
            Kind::Lexical if crate::artifacts::artifact_name(&a.path) == "meta" => {
                std::fs::remove_file(&path).unwrap();
            }
            _ => {}
        }
    }
    let again =
        ask(&Searcher::open_indexed(cfg.search_settings(), &out, m.clone()).unwrap()).unwrap();
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        serde_json::to_string(&intact).unwrap()
    );
    assert!(Searcher::open(cfg.search_settings(), &out, m).is_err());
}

/// Where the index cannot be written (its folder a symbolic link, which askzico never
/// writes through), a query reads the version whole and answers the same.
#[test]
fn a_query_that_cannot_write_its_index_reads_the_version_whole() {
    use super::super::{Filters, Mode, Searcher};
    let (t, out, m) = built();
    let cfg = config(t.path());
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(out.join("cache")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), out.join("cache/query")).unwrap();
    let indexed = Searcher::open_indexed(cfg.search_settings(), &out, m.clone()).unwrap();
    assert!(indexed.rows.is_none());
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    let whole = Searcher::open(cfg.search_settings(), &out, m).unwrap();
    let q = "ازاي اتطور الخط الكوفي";
    let (got, want) = (
        indexed
            .search(q, &Filters::default(), 5, Mode::Fused)
            .unwrap(),
        whole
            .search(q, &Filters::default(), 5, Mode::Fused)
            .unwrap(),
    );
    assert!(!got.is_empty());
    assert_eq!(
        serde_json::to_string(&got).unwrap(),
        serde_json::to_string(&want).unwrap()
    );
}

/// A damaged query index (its tables overwritten, its header intact) is a clear problem
/// naming the cache to remove, never a crash; removed, the next query makes it again.
#[test]
fn a_damaged_query_index_is_named_and_made_again() {
    use super::super::{Filters, Mode, Searcher};
    let (t, out, m) = built();
    let cfg = config(t.path());
    let q = "ازاي اتطور الخط الكوفي";
    let ask = || {
        Searcher::open_indexed(cfg.search_settings(), &out, m.clone())
            .and_then(|s| s.search(q, &Filters::default(), 5, Mode::Lexical))
    };
    let intact = ask().unwrap();
    let path = super::super::index::path_of(&out, &m.corpus_version);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    let head = u64::from_le_bytes(bytes[n - 8..].try_into().unwrap()) as usize;
    let magic = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
    bytes[magic..n - 8 - head].fill(0xff);
    std::fs::write(&path, bytes).unwrap();
    let e = ask().unwrap_err();
    let shown = format!("{e:?}");
    assert!(shown.contains("not a query index"), "{shown}");
    assert!(shown.contains(&path.display().to_string()), "{shown}");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        serde_json::to_string(&ask().unwrap()).unwrap(),
        serde_json::to_string(&intact).unwrap()
    );
}
