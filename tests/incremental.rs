//! The incremental engine: an edit recomputes only what it touched, and any sequence of edits,
//! inserts, deletions and renames gives artifacts byte-identical to a clean build.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use askzico::BuildRequest;
use askzico::Config;
use askzico::Engine;
use common::*;
use proptest::prelude::*;

fn request(out: &Path) -> BuildRequest {
    BuildRequest {
        out: out.to_path_buf(),
        env: None,
        progress: false,
        // Edits may remove every source: incremental builds must still equal fresh ones.
        allow_empty: true,
    }
}

/// A clean build of the project into a fresh directory: (corpus version, artifact files).
fn clean_build(project: &Path) -> (String, Vec<(String, Vec<u8>)>) {
    let out = tempfile::tempdir().unwrap();
    let cfg = Config::load(&project.join("corpus.toml")).unwrap();
    let rep = Engine::new(cfg).build(&request(out.path()));
    let m = rep.manifest.unwrap_or_else(|| {
        panic!(
            "clean build failed: {:?}",
            rep.problems
                .0
                .iter()
                .map(|p| p.headline())
                .collect::<Vec<_>>()
        )
    });
    (
        m.corpus_version,
        out_files(out.path())
            .into_iter()
            .filter(|(p, _)| !p.starts_with("versions"))
            .collect(),
    )
}

fn a_one_file_edit_redoes_only_that_file() {
    let p = sample_project();
    let out = p.path().join("out");
    let cfg = Config::load(&p.path().join("corpus.toml")).unwrap();
    let mut engine = Engine::new(cfg);
    let first = engine.build(&request(&out));
    assert!(first.manifest.is_some());
    assert_eq!(first.run.docs_extracted, first.stats.docs);

    // No change: nothing is extracted, nothing written.
    let again = engine.build(&request(&out));
    assert_eq!(
        (again.run.docs_extracted, again.run.shards_written),
        (0, 0),
        "{:?}",
        again.run
    );
    assert_eq!(
        again.manifest.as_ref().unwrap().corpus_version,
        first.manifest.as_ref().unwrap().corpus_version
    );

    let file = p
        .path()
        .join("sources/articles/faq.md")
        .canonicalize()
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("أسئلة بتتكرر كتير", "أسئلة بتتكرر كتير جدا"),
    )
    .unwrap();
    let changed: BTreeSet<PathBuf> = [file].into();
    let rep = engine.build_from(&request(&out), Instant::now(), Some(&changed));
    let m = rep.manifest.expect("edit builds");
    assert_eq!(rep.run.files_read, 1);
    assert_eq!(rep.run.docs_extracted, 1);
    assert_eq!(rep.run.chunks_built, 1);
    assert_eq!(rep.run.vectors_embedded, 1);
    // One document shard (chunks, lookup, vectors) plus the lexical files of its domains.
    assert!(rep.run.shards_written >= 3, "{:?}", rep.run);
    let lexical_written = rep.run.shards_written - 3;
    println!(
        "one-file edit: {} files written ({lexical_written} lexical)",
        rep.run.shards_written
    );
    let (clean_version, clean_files) = clean_build(p.path());
    assert_eq!(
        m.corpus_version, clean_version,
        "incremental and clean builds differ"
    );
    let ours: Vec<_> = out_files(&out)
        .into_iter()
        .filter(|(path, _)| m.artifacts.iter().any(|a| &a.path == path))
        .collect();
    let theirs: Vec<_> = clean_files
        .into_iter()
        .filter(|(path, _)| m.artifacts.iter().any(|a| &a.path == path))
        .collect();
    assert!(ours == theirs, "artifact bytes differ from a clean build");
}

/// A book whose two pages each include a listing from `listings/`, outside the library's root.
fn book_project() -> tempfile::TempDir {
    let p = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = p.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "corpus.toml",
        "[corpus]\nname = \"book\"\n\n[[library]]\nid = \"book\"\nroot = \"src\"\ngenerator = \"mdbook\"\n",
    );
    let page = |title: &str, listing: &str| {
        format!(
            "# {title}\n\nيشرح هذا الفصل كيف يقرأ البرنامج مدخلات المستخدم ويطبعها على الشاشة.\n\n```rust\n{{{{#include ../listings/{listing}}}}}\n```\n"
        )
    };
    write("src/one.md", &page("الأول", "one.rs"));
    write("src/two.md", &page("الثاني", "two.rs"));
    write("listings/one.rs", "fn main() { println!(\"one\"); }\n");
    write("listings/two.rs", "fn main() { println!(\"two\"); }\n");
    p
}

/// A file an mdBook page includes is an input of that page, though it lies outside the
/// library's root: a watch engine told of an edit to it reads and compiles that page alone
/// again, and the build equals a clean one.
fn an_edit_to_an_included_file_builds_the_pages_that_include_it() {
    let p = book_project();
    let out = p.path().join("out");
    let mut engine = Engine::new(Config::load(&p.path().join("corpus.toml")).unwrap());
    let first = engine.build(&request(&out));
    let first = first.manifest.expect("builds").corpus_version;

    let listing = p.path().join("listings/one.rs").canonicalize().unwrap();
    std::fs::write(&listing, "fn main() { println!(\"edited\"); }\n").unwrap();
    let changed: BTreeSet<PathBuf> = [listing].into();
    let rep = engine.build_from(&request(&out), Instant::now(), Some(&changed));
    let m = rep.manifest.expect("edit builds");
    assert_eq!(
        (rep.run.files_read, rep.run.docs_extracted),
        (1, 1),
        "{:?}",
        rep.run
    );
    assert_ne!(m.corpus_version, first);
    assert_eq!(m.corpus_version, clean_build(p.path()).0);
    let chunks = chunk_records(&out, "manifest.json");
    assert!(
        chunks
            .iter()
            .any(|c| c["text"].as_str().unwrap().contains("println!(\"edited\")")),
        "{chunks:?}"
    );
}

/// `build --watch` watches the folders of included files too: saving a listing builds the page
/// that includes it, and only that page.
fn a_watch_builds_a_page_again_when_a_file_it_includes_is_saved() {
    let p = book_project();
    let (mut child, rx) = spawn_watch(p.path(), &[]);
    let next = || -> Option<serde_json::Value> {
        let line = rx.recv_timeout(Duration::from_secs(30)).ok()?;
        Some(serde_json::from_str(&line).unwrap())
    };
    let first = next().expect("the first build");
    std::fs::write(
        p.path().join("listings/two.rs"),
        "fn main() { println!(\"saved\"); }\n",
    )
    .unwrap();
    let second = next();
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let second = second.expect("a build after the save");
    assert_eq!(second["docs_extracted"], 1, "{second}");
    assert_ne!(second["corpus_version"], first["corpus_version"]);
    assert_eq!(
        second["corpus_version"].as_str().unwrap(),
        clean_build(p.path()).0
    );
}

/// The build-wide ID check reads each shard's IDs from a memo: in a long-lived engine, an edit
/// that makes a duplicate ID is refused, naming both sources, and undoing it builds again.
fn an_edit_that_duplicates_a_doc_id_is_refused_and_undoing_it_builds() {
    let p = sample_project();
    let out = p.path().join("out");
    let mut engine = Engine::new(Config::load(&p.path().join("corpus.toml")).unwrap());
    let first = engine
        .build(&request(&out))
        .manifest
        .expect("the sample builds")
        .corpus_version;
    let file = p
        .path()
        .join("sources/articles/faq.md")
        .canonicalize()
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let changed: BTreeSet<PathBuf> = [file.clone()].into();
    // faq.md now claims calligraphy.md's ID.
    std::fs::write(&file, text.replacen("---\n", "---\nid: calligraphy\n", 1)).unwrap();
    let rep = engine.build_from(&request(&out), Instant::now(), Some(&changed));
    assert!(rep.manifest.is_none(), "a duplicate ID fails the build");
    let dup: Vec<String> = rep
        .problems
        .0
        .iter()
        .filter(|p| p.code == "duplicate-id")
        .map(|p| p.message.clone())
        .collect();
    assert_eq!(
        dup.len(),
        1,
        "{:?}",
        rep.problems
            .0
            .iter()
            .map(|p| p.headline())
            .collect::<Vec<_>>()
    );
    assert!(
        dup[0].contains(":calligraphy` is produced by 2 sources")
            && dup[0].contains("calligraphy.md")
            && dup[0].contains("faq.md"),
        "{}",
        dup[0]
    );
    std::fs::write(&file, &text).unwrap();
    let rep = engine.build_from(&request(&out), Instant::now(), Some(&changed));
    assert!(
        rep.problems.0.iter().all(|p| p.code != "duplicate-id"),
        "{:?}",
        rep.problems
            .0
            .iter()
            .map(|p| p.headline())
            .collect::<Vec<_>>()
    );
    assert_eq!(rep.manifest.expect("builds again").corpus_version, first);
}

fn a_fresh_process_reads_only_the_files_whose_stat_changed() {
    let p = sample_project();
    let out = p.path().join("out");
    let cfg = || Config::load(&p.path().join("corpus.toml")).unwrap();
    // Files written 2 s or more before the build that records their stat are not racy.
    std::thread::sleep(Duration::from_millis(2100));
    let first = Engine::one_shot(cfg()).build(&request(&out));
    let v1 = first.manifest.expect("first build").corpus_version;
    assert!(first.run.files_read > 1);
    let again = Engine::one_shot(cfg()).build(&request(&out));
    assert_eq!(again.run.files_read, 0, "a no-op reads no source");
    assert_eq!(again.manifest.expect("no-op").corpus_version, v1);

    // The same number of bytes, and the old mtime put back: the ctime still tells.
    let file = p
        .path()
        .join("sources/articles/faq.md")
        .canonicalize()
        .unwrap();
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen("أسئلة", "أجوبة", 1);
    assert!(edited != text && edited.len() == text.len());
    std::fs::write(&file, &edited).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let rep = Engine::one_shot(cfg()).build(&request(&out));
    assert_eq!(rep.run.files_read, 1, "{:?}", rep.run);
    let v2 = rep.manifest.expect("edit builds").corpus_version;
    assert!(v2 != v1);
    assert_eq!(v2, clean_build(p.path()).0, "the edit is in the output");
}

/// Real sites always have some warning (an empty section page, a title from the path): a no-op
/// still reads no source, and shows the warnings of the build it stands for.
fn a_no_op_of_a_build_with_warnings_reads_no_source_and_shows_them_again() {
    let p = sample_project();
    let out = p.path().join("out");
    std::fs::write(
        p.path().join("sources/articles/empty.md"),
        "---\ntitle: فارغة\n---\n",
    )
    .unwrap();
    let cfg = || Config::load(&p.path().join("corpus.toml")).unwrap();
    std::thread::sleep(Duration::from_millis(2100));
    let headlines = |rep: &askzico::BuildReport| -> Vec<(String, serde_json::Value)> {
        rep.problems
            .0
            .iter()
            .map(|p| (p.headline(), p.to_json()))
            .collect()
    };
    let first = Engine::one_shot(cfg()).build(&request(&out));
    let v1 = first
        .manifest
        .as_ref()
        .expect("first build")
        .corpus_version
        .clone();
    assert!(
        first
            .problems
            .0
            .iter()
            .any(|p| p.file.as_deref().is_some_and(|f| f.ends_with("empty.md"))),
        "the empty page gives a warning: {:?}",
        headlines(&first)
    );
    assert!(!first.problems.has_errors());
    let again = Engine::one_shot(cfg()).build(&request(&out));
    assert_eq!(again.run.files_read, 0, "a no-op reads no source");
    assert_eq!(again.stats.write.files_written, 0, "a no-op writes nothing");
    assert_eq!(headlines(&again), headlines(&first));
    assert_eq!(again.manifest.expect("no-op").corpus_version, v1);
}

fn a_lowered_size_limit_is_enforced_on_files_the_stat_cache_knows() {
    let p = sample_project();
    let out = p.path().join("out");
    let big = p.path().join("sources/articles/big.md");
    std::fs::write(
        &big,
        format!("# كبير\n\n{}\n", "نص طويل للاختبار. ".repeat(50_000)),
    )
    .unwrap();
    assert!(std::fs::metadata(&big).unwrap().len() > 1024 * 1024);
    std::thread::sleep(Duration::from_millis(2100));
    let toml = std::fs::read_to_string(p.path().join("corpus.toml")).unwrap();
    let with_limit = |mb: u32| {
        std::fs::write(
            p.path().join("corpus.toml"),
            toml.replacen("[corpus]\n", &format!("[corpus]\nmax_file_mb = {mb}\n"), 1),
        )
        .unwrap();
        Config::load(&p.path().join("corpus.toml")).unwrap()
    };
    let first = Engine::one_shot(with_limit(2)).build(&request(&out));
    assert!(
        first.manifest.is_some(),
        "{:?}",
        first
            .problems
            .0
            .iter()
            .map(|p| p.headline())
            .collect::<Vec<_>>()
    );
    let lowered = Engine::one_shot(with_limit(1)).build(&request(&out));
    assert!(
        lowered.problems.0.iter().any(|p| p.code == "too-large"),
        "{:?}",
        lowered
            .problems
            .0
            .iter()
            .map(|p| p.headline())
            .collect::<Vec<_>>()
    );
}

#[derive(Debug, Clone)]
enum Op {
    Edit(usize, String),
    Insert(String, String),
    Delete(usize),
    Rename(usize, String),
    MoveToOtherLibrary(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let word = prop::sample::select(vec![
        "النيل",
        "القاهرة",
        "الكنيسة",
        "مكتبة",
        "كتاب",
        "الشمس",
        "فيضان",
        "تقويم",
        "قبطي",
        "رحلة",
    ]);
    let sentence = prop::collection::vec(word, 3..12).prop_map(|w| format!("{}.", w.join(" ")));
    prop_oneof![
        (0usize..50, sentence.clone()).prop_map(|(i, s)| Op::Edit(i, s)),
        ("[a-z]{3,8}", sentence).prop_map(|(n, s)| Op::Insert(n, s)),
        (0usize..50).prop_map(Op::Delete),
        (0usize..50, "[a-z]{3,8}").prop_map(|(i, n)| Op::Rename(i, n)),
        (0usize..50).prop_map(Op::MoveToOtherLibrary),
    ]
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| e.into_path())
        .collect();
    v.sort();
    v
}

fn apply(root: &Path, op: &Op) {
    let a = root.join("a");
    let b = root.join("b");
    let files: Vec<PathBuf> = markdown_files(root);
    let pick = |i: usize| files.get(i % files.len().max(1)).cloned();
    match op {
        Op::Edit(i, s) => {
            if let Some(f) = pick(*i) {
                let t = std::fs::read_to_string(&f).unwrap();
                std::fs::write(&f, format!("{t}\n\n{s}\n")).unwrap();
            }
        }
        Op::Insert(n, s) => {
            std::fs::write(a.join(format!("{n}.md")), format!("# {n}\n\n{s}\n")).unwrap()
        }
        Op::Delete(i) => {
            if files.len() > 1 {
                std::fs::remove_file(pick(*i).unwrap()).unwrap();
            }
        }
        Op::Rename(i, n) => {
            if let Some(f) = pick(*i) {
                let _ = std::fs::rename(&f, f.with_file_name(format!("{n}.md")));
            }
        }
        Op::MoveToOtherLibrary(i) => {
            if let Some(f) = pick(*i) {
                let other = if f.starts_with(&a) { &b } else { &a };
                let _ = std::fs::rename(&f, other.join(f.file_name().unwrap()));
            }
        }
    }
}

/// Two libraries (domains x and x+y), six small Markdown documents.
fn two_library_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("a")).unwrap();
    std::fs::create_dir_all(root.join("b")).unwrap();
    std::fs::write(root.join("corpus.toml"), "[corpus]\nname = \"p\"\nout = \"out\"\n\n[chunking]\nmax_chars = 600\nmin_chars = 50\n\n[[library]]\nid = \"a\"\nroot = \"a\"\ndomains = [\"x\"]\n\n[[library]]\nid = \"b\"\nroot = \"b\"\ndomains = [\"x\", \"y\"]\n").unwrap();
    for i in 0..6 {
        let lib = if i % 2 == 0 { "a" } else { "b" };
        std::fs::write(root.join(format!("{lib}/doc{i}.md")), format!("# وثيقة {i}\n\nنص أول عن النيل والقاهرة رقم {i}.\n\n## قسم\n\nنص ثان عن الكتاب والمكتبة.\n")).unwrap();
    }
    dir
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]
    fn any_edit_sequence_equals_a_clean_build(ops in prop::collection::vec(op(), 1..7)) {
        let dir = two_library_project();
        let root = dir.path();
        let out = root.join("out");
        let mut engine = Engine::new(Config::load(&root.join("corpus.toml")).unwrap());
        prop_assert!(engine.build(&request(&out)).manifest.is_some());
        for op in &ops {
            apply(root, op);
            let rep = engine.build(&request(&out));
            let m = rep.manifest.expect("incremental build");
            let (clean_version, _) = clean_build(root);
            prop_assert_eq!(&m.corpus_version, &clean_version, "after {:?}", op);
        }
    }

    /// Every step in a fresh engine (a new `askzico build` process): content edits are patched
    /// into the build in place (`engine::resume`), everything else is built in full, and either
    /// way the result equals a clean build byte for byte.
    fn any_edit_sequence_in_fresh_processes_equals_a_clean_build(ops in prop::collection::vec(prop_oneof![3 => edit_op(), 1 => op()], 1..8)) {
        let dir = two_library_project();
        let root = dir.path();
        let out = root.join("out");
        let load = || Config::load(&root.join("corpus.toml")).unwrap();
        // One-shot engines, as `askzico build` runs them (the clean builds use a memoizing one).
        prop_assert!(Engine::one_shot(load()).build(&request(&out)).manifest.is_some());
        for op in &ops {
            apply(root, op);
            let rep = Engine::one_shot(load()).build(&request(&out));
            let m = rep.manifest.expect("build in a fresh engine");
            if matches!(op, Op::Edit(..)) {
                prop_assert!(rep.run.resumed, "a content edit was not patched in: {:?}", op);
            }
            let (clean_version, clean_files) = clean_build(root);
            prop_assert_eq!(&m.corpus_version, &clean_version, "after {:?}", op);
            let ours: Vec<_> = out_files(&out).into_iter().filter(|(path, _)| m.artifacts.iter().any(|a| &a.path == path)).collect();
            let theirs: Vec<_> = clean_files.into_iter().filter(|(path, _)| m.artifacts.iter().any(|a| &a.path == path)).collect();
            prop_assert!(ours == theirs, "artifact bytes differ from a clean build after {:?}", op);
        }
    }
}

fn edit_op() -> impl Strategy<Value = Op> {
    let word = prop::sample::select(vec![
        "النيل",
        "القاهرة",
        "الكنيسة",
        "مكتبة",
        "كتاب",
        "الشمس",
        "فيضان",
        "تقويم",
        "قبطي",
        "رحلة",
        "جديد",
    ]);
    let sentence = prop::collection::vec(word, 1..40).prop_map(|w| format!("{}.", w.join(" ")));
    (0usize..50, sentence).prop_map(|(i, s)| Op::Edit(i, s))
}

fn watch_rebuilds_on_save_and_stops_cleanly() {
    let p = sample_project();
    let (mut child, rx) = spawn_watch(p.path(), &[]);
    let next = |what: &str| -> serde_json::Value {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no stats line for {what}"));
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout holds only stats lines: {line}: {e}"))
    };
    let first = next("the first build");
    assert!(first["corpus_version"].is_string());
    let manifest = p.path().join("out/manifest.json");
    let v1 = std::fs::read(&manifest).unwrap();

    // An editor's save: write a temp file, then rename it over the source.
    let src = p.path().join("sources/articles/faq.md");
    let text = std::fs::read_to_string(&src).unwrap();
    let tmp = p.path().join("sources/articles/.faq.md.swp");
    std::fs::write(&tmp, format!("{text}\n\nسطر جديد من المحرر.\n")).unwrap();
    std::fs::rename(&tmp, &src).unwrap();
    let second = next("the edit");
    assert_eq!(second["docs_extracted"], 1, "{second}");
    assert_ne!(second["corpus_version"], first["corpus_version"]);
    assert_ne!(std::fs::read(&manifest).unwrap(), v1);

    // A file created in a brand-new directory is found.
    std::fs::create_dir_all(p.path().join("sources/articles/new/deep")).unwrap();
    std::fs::write(
        p.path().join("sources/articles/new/deep/x.md"),
        "# جديد\n\nملف في مجلد جديد تماما.\n",
    )
    .unwrap();
    let third = next("the new directory");
    assert!(third["docs_extracted"].as_u64().unwrap() >= 1, "{third}");

    // A broken config keeps the last good build; the fix recovers.
    let cfg = p.path().join("corpus.toml");
    let good = std::fs::read_to_string(&cfg).unwrap();
    let before = std::fs::read(&manifest).unwrap();
    std::fs::write(&cfg, format!("{good}\nbroken = [\n")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        std::fs::read(&manifest).unwrap(),
        before,
        "a bad config must keep the last good build"
    );
    std::fs::write(&cfg, &good).unwrap();
    let fourth = next("the fixed config");
    assert!(fourth["corpus_version"].is_string());

    // Ctrl-C exits cleanly.
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!err.contains("panicked at"), "{err}");
    assert!(
        run(bin().current_dir(p.path()).arg("verify"))
            .status
            .success()
    );
}

/// A deterministic external embedder: 8 numbers from the text's bytes.
const EMBEDDER: &str = r#"
import sys, json
for line in sys.stdin:
    r = json.loads(line)
    b = r["text"].encode("utf-8")
    v = [float((sum(b[i::8]) % 97) + 1) for i in range(8)]
    print(json.dumps({"id": r["id"], "values": v}), flush=True)
"#;

fn a_rebuild_embeds_only_the_edited_document() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("SKIP a_rebuild_embeds_only_the_edited_document: python3 is not installed");
        return;
    }
    let p = sample_project();
    std::fs::write(p.path().join("embedder.py"), EMBEDDER).unwrap();
    let cfg = std::fs::read_to_string(p.path().join("corpus.toml")).unwrap().replace(
        "[embedding]\nprovider = \"hash\"\ndims = 256",
        "[embedding]\nprovider = \"command\"\nmodel = \"test-bytes-v1\"\ndims = 8\ncommand = [\"python3\", \"embedder.py\"]",
    );
    assert!(cfg.contains("provider = \"command\""));
    std::fs::write(p.path().join("corpus.toml"), cfg).unwrap();
    let stats = |o: &std::process::Output| -> serde_json::Value {
        serde_json::from_str(stdout(o).lines().last().unwrap()).unwrap()
    };
    let o = run(bin().current_dir(p.path()).args(["build", "--stats-json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let first = stats(&o);
    let chunks = first["chunks_built"].as_u64().unwrap();
    assert_eq!(first["vectors_embedded"].as_u64().unwrap(), chunks);
    assert!(
        run(bin().current_dir(p.path()).arg("verify"))
            .status
            .success()
    );

    // A fresh process after editing one single-chunk document: only its chunk is embedded.
    let f = p.path().join("sources/articles/faq.md");
    let t = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{t}\n\nجملة مضافة.\n")).unwrap();
    let o = run(bin().current_dir(p.path()).args(["build", "--stats-json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let second = stats(&o);
    assert_eq!(second["vectors_embedded"], 1, "{second}");
    assert_eq!(
        second["vectors_cached"].as_u64().unwrap(),
        chunks - 1,
        "{second}"
    );
    // Deleting the cache changes no output.
    let version = second["corpus_version"].clone();
    std::fs::remove_dir_all(p.path().join("out/cache")).unwrap();
    let o = run(bin().current_dir(p.path()).args(["build", "--stats-json"]));
    assert_eq!(stats(&o)["corpus_version"], version);
    // The query side uses the same provider.
    let o = run(bin()
        .current_dir(p.path())
        .args(["query", "--mode", "vector", "النيل"]));
    assert!(o.status.success(), "{}", stderr(&o));
}

fn a_fresh_process_recompiles_only_changed_files() {
    let p = sample_project();
    let stats = |o: &std::process::Output| -> serde_json::Value {
        serde_json::from_str(stdout(o).lines().last().unwrap()).unwrap()
    };
    let first = stats(&run(bin()
        .current_dir(p.path())
        .args(["build", "--stats-json"])));
    // A one-shot build embeds every chunk as it writes the vectors (the `hash` embedder).
    assert_eq!(first["vectors_embedded"], first["chunks_built"], "{first}");
    assert!(first["chunks_built"].as_u64().unwrap() > 0, "{first}");
    let again = stats(&run(bin()
        .current_dir(p.path())
        .args(["build", "--stats-json"])));
    assert_eq!(
        (
            again["docs_extracted"].as_u64(),
            again["shards_written"].as_u64()
        ),
        (Some(0), Some(0)),
        "{again}"
    );
    assert_eq!(again["corpus_version"], first["corpus_version"]);
    let f = p.path().join("sources/articles/faq.md");
    let t = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{t}\n\nجملة أخرى.\n")).unwrap();
    let edited = stats(&run(bin()
        .current_dir(p.path())
        .args(["build", "--stats-json"])));
    assert_eq!(edited["docs_extracted"], 1, "{edited}");
    // The cache never changes output: a clean build of the same tree agrees, and so does a build
    // after deleting the cache.
    let (clean, _) = clean_build(p.path());
    assert_eq!(edited["corpus_version"].as_str().unwrap(), clean);
    std::fs::remove_dir_all(p.path().join("out/cache")).unwrap();
    let rebuilt = stats(&run(bin()
        .current_dir(p.path())
        .args(["build", "--stats-json"])));
    assert_eq!(rebuilt["corpus_version"], edited["corpus_version"]);
    assert!(rebuilt["docs_extracted"].as_u64().unwrap() > 1);
}

/// A long-lived engine (a watch) whose `[embedding]` model changes embeds with the new one: its
/// build equals a clean build of the new config, vectors included.
fn a_watch_engine_embeds_with_the_model_its_new_config_names() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        println!(
            "SKIP a_watch_engine_embeds_with_the_model_its_new_config_names: python3 is not installed"
        );
        return;
    }
    let p = sample_project();
    // The model's vectors scaled by its argument: two models, two vector spaces.
    let script = EMBEDDER.replace(
        "v = [float((sum(b[i::8]) % 97) + 1) for i in range(8)]",
        "v = [float((sum(b[i::8]) % 97) + 1) * float(sys.argv[1]) for i in range(8)]",
    );
    assert_ne!(script, EMBEDDER);
    std::fs::write(p.path().join("embedder.py"), script).unwrap();
    let base = std::fs::read_to_string(p.path().join("corpus.toml")).unwrap();
    // In this process the command runs from the test's directory: the script by its full path.
    let script = p.path().join("embedder.py").display().to_string();
    let config = |model: &str, scale: &str| {
        let text = base.replace(
            "[embedding]\nprovider = \"hash\"\ndims = 256",
            &format!("[embedding]\nprovider = \"command\"\nmodel = \"{model}\"\ndims = 8\ncommand = [\"python3\", {script:?}, \"{scale}\"]"),
        );
        assert!(text.contains("provider = \"command\""));
        std::fs::write(p.path().join("corpus.toml"), text).unwrap();
        Config::load(&p.path().join("corpus.toml")).unwrap()
    };
    let out = p.path().join("out");
    let mut watch = Engine::new(config("scaled-v1", "1"));
    assert!(watch.build(&request(&out)).manifest.is_some());
    watch.set_config(config("scaled-v2", "2"));
    let rep = watch.build(&request(&out));
    let (clean, _) = clean_build(p.path());
    assert_eq!(rep.manifest.unwrap().corpus_version, clean);
}

/// A long-lived engine (a watch) patches from what it wrote last, kept in memory; when another
/// process built in between, it reads the build in place again instead.
fn a_watch_engine_notices_a_build_by_another_process() {
    let p = sample_project();
    let out = p.path().join("out");
    let load = || Config::load(&p.path().join("corpus.toml")).unwrap();
    let f = p.path().join("sources/articles/faq.md");
    let append = |s: &str| {
        let t = std::fs::read_to_string(&f).unwrap();
        std::fs::write(&f, format!("{t}\n\n{s}\n")).unwrap();
    };
    let mut watch = Engine::new(load());
    assert!(watch.build(&request(&out)).manifest.is_some());
    append("جملة أولى عن النيل.");
    assert!(watch.build(&request(&out)).run.resumed);
    // Another process edits and builds.
    append("جملة ثانية عن القاهرة.");
    let other = Engine::new(load()).build(&request(&out));
    assert!(other.run.resumed);
    append("جملة ثالثة عن الكتاب.");
    let rep = watch.build(&request(&out));
    assert!(rep.run.resumed);
    let (clean, _) = clean_build(p.path());
    assert_eq!(rep.manifest.unwrap().corpus_version, clean);
}

/// A project for changing config keys: two Markdown libraries and a JSON records library whose
/// IDs come from `id_match`, with one entry of every array of tables and every named table, so
/// each key can be changed on its own.
fn settings_project() -> tempfile::TempDir {
    let dir = two_library_project();
    let root = dir.path();
    std::fs::create_dir_all(root.join("r")).unwrap();
    std::fs::write(
        root.join("r/days.json"),
        r#"{"Tout": [
            {"url": "/s/1_2.html#1", "name": "القديس الأول", "text": "نص عن النيل والقاهرة في اليوم الأول.", "date": "2 Tout"},
            {"url": "/s/1_2.html#2", "name": "القديس الثاني", "text": "نص عن الكنيسة والمكتبة في اليوم نفسه.", "date": "2 Tout"},
            {"url": "/s/1_3.html#1", "name": "القديس الثالث", "text": "نص عن الفيضان والتقويم القبطي.", "date": "3 Tout"}
        ]}"#,
    )
    .unwrap();
    // Frontmatter text a page shows only when `frontmatter_text` names its key.
    std::fs::write(
        root.join("a/doc0.md"),
        "---\nsummary: ملخص الصفحة عن النيل والفيضان\nfaq:\n  - question: متى يفيض النيل؟\n    answer: في الصيف.\n---\n# وثيقة 0\n\nنص أول عن النيل والقاهرة رقم 0.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("corpus.toml"),
        toml::to_string(&base_settings()).unwrap(),
    )
    .unwrap();
    dir
}

/// The config of `settings_project`, as a TOML value.
fn base_settings() -> toml::Table {
    let text = r#"
[corpus]
name = "p"
out = "out"

[chunking]
max_chars = 600
min_chars = 50

[[library]]
id = "a"
root = "a"
domains = ["x"]

[[library]]
id = "b"
root = "b"
domains = ["x", "y"]

[[library]]
id = "r"
root = "r"
format = "json"

[library.records]
select = "*.*"
id = "{m}-{d}-{n}"
id_match = { field = "url", pattern = '/(?<m>\d+)_(?<d>\d+)\.html#(?<n>\d+)$' }
title = "name"
text = "text"
date = "date"
metadata = { day = "date" }

[[alias]]
from = ["نيل"]
to = ["النيل"]
direction = "both"
case = "c"

[[glossary]]
en = ["river"]
ar = ["النيل"]

[[collision]]
a = "نيل"
b = "النيل"
accept = true
why = "w"

[env.e]
libraries = ["a", "r"]

[inspect]
domains = ["x"]

[deploy.t]
indexes = ["i1", "i2"]
kv_namespace_id = "ns1"
"#;
    text.parse().unwrap()
}

/// Values a key of this kind may take in `settings_project` (some valid, some not: a config
/// error, or a build that fails, must fail the same way incrementally and clean).
fn candidates(key: &askzico::Key) -> Vec<toml::Value> {
    use askzico::KeyKind;
    use toml::Value as V;
    let s = |xs: &[&str]| {
        xs.iter()
            .map(|x| V::String(x.to_string()))
            .collect::<Vec<_>>()
    };
    let leaf = key.path.trim_end_matches("[]");
    let strings = match leaf {
        "corpus.name" => s(&["p", "q"]),
        "corpus.out" => s(&["out", "elsewhere"]),
        "library.id" => s(&["a", "b", "r", "z"]),
        "library.root" => s(&["a", "b", "r"]),
        "library.include" => s(&["**/*", "**/*.md", "doc[02]*", "*.json"]),
        "library.exclude" => s(&["doc1*", "nothing", "*.json"]),
        "library.domains" | "inspect.domains" => s(&["x", "y", "z"]),
        "library.url" => s(&["https://e.org/{path}", "/{slug}/", "/d/{dir}/{stem}"]),
        "library.frontmatter_metadata" => s(&["tags", "author"]),
        "library.frontmatter_text" => s(&["summary", "faq"]),
        "library.records.select" => s(&["*.*", "*", "Tout.*"]),
        "library.records.id" => s(&["{m}-{d}-{n}", "{n}-{m}", "{d}-{n}"]),
        "library.records.id_match.field" => s(&["url", "name"]),
        "library.records.id_match.pattern" => s(&[
            r"/(?<m>\d+)_(?<d>\d+)\.html#(?<n>\d+)$",
            r"/(?<d>\d+)_(?<m>\d+)\.html#(?<n>\d+)$",
            r"(?<m>\d)(?<d>\d*)_.*#(?<n>\d+)",
            r"^nothing matches this$",
        ]),
        "library.records.title" | "library.records.date" | "library.records.metadata.*" => {
            s(&["name", "text", "date", "url"])
        }
        "library.records.url" => s(&["{url}", "https://e.org/{m}/{d}#{n}"]),
        "library.records.sections.select"
        | "library.records.sections.title"
        | "library.records.sections.item_text"
        | "library.records.sections.item_label" => s(&["items", "name"]),
        "embedding.provider" => s(&["hash", "command"]),
        "embedding.model" | "embedding.account_id" | "embedding.command" => s(&["m1", "m2"]),
        "alias.from" | "alias.to" | "glossary.ar" | "collision.a" | "collision.b" => {
            s(&["النيل", "القاهرة", "نيل", "مكتبة"])
        }
        "alias.case" | "alias.note" | "collision.why" => s(&["c", "d"]),
        "glossary.en" => s(&["river", "city"]),
        "env.*.libraries" | "inspect.allow.*" => s(&["a", "b", "r"]),
        "deploy.*.indexes" => s(&["i1", "i2", "i3"]),
        "deploy.*.kv_namespace_id" | "deploy.*.account_id" => s(&["ns1", "ns2"]),
        "deploy.*.prefix" => s(&["", "p/"]),
        _ => Vec::new(),
    };
    let values = match &key.kind {
        KeyKind::Bool => vec![V::Boolean(false), V::Boolean(true)],
        KeyKind::Int => [2, 300, 1000].into_iter().map(V::Integer).collect(),
        KeyKind::Float => [0.0, 0.5, 2.0].into_iter().map(V::Float).collect(),
        KeyKind::Enum(names) => names.iter().map(|n| V::String(n.to_string())).collect(),
        KeyKind::Any => match leaf {
            "library.url_index" => {
                vec![V::Boolean(true), V::Boolean(false), V::Array(s(&["doc0"]))]
            }
            _ => vec![V::String("text".into()), V::Array(s(&["text", "name"]))],
        },
        KeyKind::Str if !strings.is_empty() => strings,
        KeyKind::Str => s(&["x", "y"]),
    };
    if key.path.ends_with("[]") {
        // A list: one value, or two.
        let mut lists: Vec<V> = values.iter().map(|v| V::Array(vec![v.clone()])).collect();
        if values.len() > 1 {
            lists.push(V::Array(values[..2].to_vec()));
        }
        lists
    } else {
        values
    }
}

/// Sets `key` (a path of `config::keys`) to `value` in `cfg`; `library` picks the library (and
/// array entry) it applies to. Names (`*`) are the ones `base_settings` uses.
fn set_key(cfg: &mut toml::Table, path: &str, library: usize, value: toml::Value) {
    let path = path.trim_end_matches("[]");
    let mut steps: Vec<&str> = path.split('.').collect();
    let last = steps.pop().unwrap();
    let mut at: &mut toml::Table = cfg;
    for (i, step) in steps.iter().enumerate() {
        let step = match (*step, i) {
            ("*", _) if path.starts_with("env.") => "e",
            ("*", _) if path.starts_with("deploy.") => "t",
            ("*", _) if path.starts_with("inspect.max") => "chunk-too-small",
            ("*", _) => "a",
            (s, _) => s,
        };
        let entry = at
            .entry(step.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        at = match entry {
            toml::Value::Array(items) => {
                let n = items.len();
                items[library % n].as_table_mut().unwrap()
            }
            toml::Value::Table(t) => t,
            other => {
                *other = toml::Value::Table(toml::Table::new());
                other.as_table_mut().unwrap()
            }
        };
    }
    let last = if last == "*" {
        if path.starts_with("inspect.max") {
            "chunk-too-small"
        } else if path.starts_with("inspect.allow") {
            "a"
        } else {
            "extra"
        }
    } else {
        last
    };
    at.insert(last.to_string(), value);
}

/// One step: the config changes to `cfg`; a fresh engine builds into `out` (which holds the
/// previous build and its caches) and another into a new directory. Both fail alike or both
/// succeed with the same manifest and artifacts, byte for byte. `false` when the config does
/// not load (the step is not taken).
fn incremental_equals_clean(root: &Path, out: &Path, cfg: &toml::Table, what: &str) -> bool {
    std::fs::write(root.join("corpus.toml"), toml::to_string(cfg).unwrap()).unwrap();
    let Ok(config) = Config::load(&root.join("corpus.toml")) else {
        return false;
    };
    let ours = Engine::one_shot(config.clone()).build(&request(out));
    let fresh = tempfile::tempdir().unwrap();
    let theirs = Engine::one_shot(config).build(&request(fresh.path()));
    let errors = |r: &askzico::BuildReport| -> Vec<String> {
        let mut v: Vec<String> = r
            .problems
            .0
            .iter()
            .filter(|p| p.is_error())
            .map(|p| p.code.to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(errors(&ours), errors(&theirs), "errors after {what}");
    match (&ours.manifest, &theirs.manifest) {
        (Some(m), Some(c)) => {
            assert_eq!(m.corpus_version, c.corpus_version, "after {what}");
            // Every file of the clean build (caches aside) is in `out`, byte for byte; `out`
            // also keeps the earlier builds' content-addressed files until `gc`.
            for (path, bytes) in out_files(fresh.path()) {
                assert!(
                    std::fs::read(out.join(&path)).ok().as_ref() == Some(&bytes),
                    "{path} differs from a clean build's after {what}"
                );
            }
        }
        (None, None) => {}
        (a, b) => panic!(
            "after {what}: the incremental build {} and the clean one {}",
            if a.is_some() { "succeeded" } else { "failed" },
            if b.is_some() { "succeeded" } else { "failed" }
        ),
    }
    true
}

/// Every key of `corpus.toml` (listed from the config's types, not by hand), changed on its own
/// to each of its candidate values: the build over the previous one equals a clean build.
fn every_config_key_changed_alone_builds_as_clean() {
    let keys = askzico::config_keys();
    assert!(keys.len() > 80, "{} keys", keys.len());
    let dir = settings_project();
    let root = dir.path();
    let out = root.join("out");
    let base = base_settings();
    assert!(incremental_equals_clean(
        root,
        &out,
        &base,
        "the base config"
    ));
    let mut changed = 0;
    for key in &keys {
        for value in candidates(key) {
            let mut cfg = base.clone();
            // The JSON library for its records' keys, else the first Markdown one.
            let library = if key.path.starts_with("library.records") {
                2
            } else {
                0
            };
            set_key(&mut cfg, &key.path, library, value.clone());
            let what = format!("{} = {value}", key.path);
            changed += usize::from(incremental_equals_clean(root, &out, &cfg, &what));
        }
    }
    assert!(changed > keys.len(), "only {changed} changes loaded");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]
    /// Random keys changed together, step after step, each step's build over the previous one
    /// equal to a clean build.
    fn random_config_changes_build_as_clean(steps in prop::collection::vec(prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0usize..3), 1..4), 1..4)) {
        let keys = askzico::config_keys();
        let dir = settings_project();
        let root = dir.path();
        let out = root.join("out");
        let mut cfg = base_settings();
        prop_assert!(incremental_equals_clean(root, &out, &cfg, "the base config"));
        for step in steps {
            let before = cfg.clone();
            let mut what = Vec::new();
            for (key, value, library) in step {
                let key = key.get(&keys);
                let values = candidates(key);
                let value = value.get(&values).clone();
                what.push(format!("{}[{library}] = {value}", key.path));
                set_key(&mut cfg, &key.path, library, value);
            }
            if !incremental_equals_clean(root, &out, &cfg, &what.join(", ")) {
                cfg = before; // a config that does not load: the next step starts from the last one that did
            }
        }
    }
}

/// `[library.records] id_match` shapes IDs: changing its pattern or field rebuilds with the new
/// IDs, a pattern that matches nothing fails the build over a good one as it fails a clean one,
/// and the manifest's settings record it.
fn changing_id_match_rebuilds_with_new_ids() {
    let dir = settings_project();
    let root = dir.path();
    let out = root.join("out");
    let ids = |out: &Path| -> Vec<String> {
        chunk_records(out, "manifest.json")
            .iter()
            .filter(|r| r["library"] == "r")
            .map(|r| r["doc_id"].as_str().unwrap().to_string())
            .collect()
    };
    let mut cfg = base_settings();
    assert!(incremental_equals_clean(
        root,
        &out,
        &cfg,
        "the base config"
    ));
    assert_eq!(ids(&out), ["r:1-2-1", "r:1-2-2", "r:1-3-1"]);
    let pattern = "library.records.id_match.pattern";
    set_key(
        &mut cfg,
        pattern,
        2,
        r"/(?<d>\d+)_(?<m>\d+)\.html#(?<n>\d+)$".into(),
    );
    assert!(incremental_equals_clean(root, &out, &cfg, "a new pattern"));
    assert_eq!(ids(&out), ["r:2-1-1", "r:2-1-2", "r:3-1-1"]);
    let m = manifest(&out);
    let libs = m["settings"]["libraries"].as_array().unwrap();
    assert_eq!(
        libs[2]["records"]["id_match"],
        serde_json::json!({"field": "url", "pattern": r"/(?<d>\d+)_(?<m>\d+)\.html#(?<n>\d+)$"})
    );
    // Deleting the stamp and the compile cache changes nothing either.
    let _ = std::fs::remove_file(out.join("cache/stamp.json"));
    let _ = std::fs::remove_dir_all(out.join("cache/compiled"));
    set_key(&mut cfg, "library.records.id_match.field", 2, "name".into());
    set_key(&mut cfg, pattern, 2, r"(?<m>\S+) (?<d>\S+)$".into());
    set_key(&mut cfg, "library.records.id", 2, "{d}".into());
    assert!(incremental_equals_clean(root, &out, &cfg, "a new field"));
    set_key(&mut cfg, pattern, 2, "^nothing matches this$".into());
    let before = std::fs::read(out.join("manifest.json")).unwrap();
    assert!(incremental_equals_clean(
        root,
        &out,
        &cfg,
        "a pattern that matches nothing"
    ));
    assert_eq!(std::fs::read(out.join("manifest.json")).unwrap(), before);
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "a_one_file_edit_redoes_only_that_file",
            a_one_file_edit_redoes_only_that_file,
        ),
        test(
            "an_edit_to_an_included_file_builds_the_pages_that_include_it",
            an_edit_to_an_included_file_builds_the_pages_that_include_it,
        ),
        test(
            "a_watch_builds_a_page_again_when_a_file_it_includes_is_saved",
            a_watch_builds_a_page_again_when_a_file_it_includes_is_saved,
        ),
        test(
            "an_edit_that_duplicates_a_doc_id_is_refused_and_undoing_it_builds",
            an_edit_that_duplicates_a_doc_id_is_refused_and_undoing_it_builds,
        ),
        test(
            "a_fresh_process_reads_only_the_files_whose_stat_changed",
            a_fresh_process_reads_only_the_files_whose_stat_changed,
        ),
        test(
            "a_no_op_of_a_build_with_warnings_reads_no_source_and_shows_them_again",
            a_no_op_of_a_build_with_warnings_reads_no_source_and_shows_them_again,
        ),
        test(
            "a_lowered_size_limit_is_enforced_on_files_the_stat_cache_knows",
            a_lowered_size_limit_is_enforced_on_files_the_stat_cache_knows,
        ),
        test(
            "any_edit_sequence_equals_a_clean_build",
            any_edit_sequence_equals_a_clean_build,
        ),
        test(
            "any_edit_sequence_in_fresh_processes_equals_a_clean_build",
            any_edit_sequence_in_fresh_processes_equals_a_clean_build,
        ),
        test(
            "watch_rebuilds_on_save_and_stops_cleanly",
            watch_rebuilds_on_save_and_stops_cleanly,
        ),
        test(
            "a_rebuild_embeds_only_the_edited_document",
            a_rebuild_embeds_only_the_edited_document,
        )
        .needs(common::harness::python3),
        test(
            "a_fresh_process_recompiles_only_changed_files",
            a_fresh_process_recompiles_only_changed_files,
        ),
        test(
            "a_watch_engine_embeds_with_the_model_its_new_config_names",
            a_watch_engine_embeds_with_the_model_its_new_config_names,
        )
        .needs(common::harness::python3),
        test(
            "a_watch_engine_notices_a_build_by_another_process",
            a_watch_engine_notices_a_build_by_another_process,
        ),
        test(
            "every_config_key_changed_alone_builds_as_clean",
            every_config_key_changed_alone_builds_as_clean,
        ),
        test(
            "random_config_changes_build_as_clean",
            random_config_changes_build_as_clean,
        ),
        test(
            "changing_id_match_rebuilds_with_new_ids",
            changing_id_match_rebuilds_with_new_ids,
        ),
    ])
}
