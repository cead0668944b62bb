//! Crash consistency: a build killed with SIGKILL at any point leaves the previous build
//! verifiable and byte-identical (or, killed after its manifest's rename, its own complete
//! build), and the next build succeeds and equals a clean build.
//!
//! The project is the shared corpora (config and sources copied to a temp dir, so sources can be
//! edited; the config names the corpora relative to itself), or the repo's own sample project
//! when ../shared/corpora is absent. After a first build some sources change; the changed build
//! is then killed at write N (`ASKZICO_KILL_AFTER_WRITES=N`: SIGKILL after the temp file of the
//! (N+1)-th write, before its rename) for N over the whole range of its writes (a spread of
//! points when there are many), and at a few random moments from outside. Each kill starts from
//! the same state: a hard-linked copy of the previous build's `out/` (files under `out/` are only
//! ever replaced by rename, never changed in place, so the links cannot leak writes).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

const MAX_HOOK_POINTS: usize = 20;
const OUTSIDE_KILLS: usize = 4;

struct Project {
    _tmp: tempfile::TempDir,
    /// The directory of corpus.toml (commands run here; `out/` is beside it).
    dir: PathBuf,
    /// The sources that get edited.
    sources: PathBuf,
}

/// The shared corpora laid out as in the repo (`<tmp>/repo/examples/shared-corpora/corpus.toml`
/// names `../../../shared/corpora`), or the sample project.
fn project() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    if let Some(corpora) =
        shared_corpora("crash_consistency (using the repo's sample project instead)")
    {
        let dir = tmp.path().join("repo/examples/shared-corpora");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            repo().join("examples/shared-corpora/corpus.toml"),
            dir.join("corpus.toml"),
        )
        .unwrap();
        let sources = tmp.path().join("shared/corpora");
        copy_tree(&corpora, &sources);
        Project {
            _tmp: tmp,
            dir,
            sources,
        }
    } else {
        let dir = tmp.path().to_path_buf();
        std::fs::copy(repo().join("corpus.toml"), dir.join("corpus.toml")).unwrap();
        copy_tree(&repo().join("sources"), &dir.join("sources"));
        Project {
            _tmp: tmp,
            dir: dir.clone(),
            sources: dir.join("sources"),
        }
    }
}

fn askzico(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_askzico"));
    c.current_dir(dir)
        .env_remove("ASKZICO_KILL_AFTER_WRITES")
        .env_remove("ASKZICO_FAIL_AFTER_WRITES");
    c
}

fn ok(c: &mut Command, what: &str) {
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked at"), "{what} panicked:\n{err}");
    assert!(
        o.status.success(),
        "{what} failed ({:?}):\n{err}",
        o.status.code()
    );
}

/// Appends a paragraph to a spread of Markdown/MDX/HTML sources and deletes one, so the next
/// build writes new chunk, lookup, vector and lexical files.
fn edit_sources(sources: &Path) {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(sources)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "md" || x == "mdx" || x == "html")
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 4,
        "too few sources to edit under {}",
        sources.display()
    );
    let step = files.len() / 4;
    for (i, f) in files.iter().step_by(step.max(1)).take(7).enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        let para = format!("فقرة رقم {i} أضيفت لاختبار بناء يتوقف فجأة، ثم يعاد من جديد.");
        let new = if f.extension().is_some_and(|x| x == "html") {
            match text.rfind("</p>") {
                Some(at) => format!("{}</p><p>{para}{}", &text[..at], &text[at..]),
                None => format!("{text}<p>{para}</p>"),
            }
        } else {
            format!("{text}\n\n{para}\n")
        };
        std::fs::write(f, new).unwrap();
    }
    std::fs::remove_file(&files[1]).unwrap();
}

/// Hard-links every file of `from` into a fresh `to`.
fn link_tree(from: &Path, to: &Path) {
    if to.exists() {
        std::fs::remove_dir_all(to).unwrap();
    }
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::hard_link(e.path(), &dest).unwrap();
        }
    }
}

/// (path, inode) of every file under `dir`.
fn inodes(dir: &Path) -> HashMap<PathBuf, u64> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                e.metadata().unwrap().ino(),
            )
        })
        .collect()
}

/// A build as its manifest names it: the manifest and every file it names, with their bytes.
fn named_files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let bytes = std::fs::read(out.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let mut files = BTreeMap::new();
    for a in m["artifacts"].as_array().unwrap() {
        let p = a["path"].as_str().unwrap();
        files.insert(
            p.to_string(),
            std::fs::read(out.join(p)).unwrap_or_else(|e| panic!("{p}: {e}")),
        );
    }
    files.insert("manifest.json".into(), bytes);
    files
}

fn assert_same(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>, what: &str) {
    let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: not the same files; missing {missing:?}, extra {extra:?}"
    );
    for (p, b) in want {
        assert!(&got[p] == b, "{what}: {p} differs");
    }
}

/// The checks after a kill: the build in place verifies and is byte-identical to the previous
/// build, or, when the kill came after the manifest's rename (the caches are written after it),
/// to the complete new one; the next build succeeds and equals the clean build.
fn check_after_kill(
    dir: &Path,
    out: &Path,
    prev: &BTreeMap<String, Vec<u8>>,
    clean: &BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    ok(askzico(dir).arg("verify"), &format!("verify after {what}"));
    let in_place = named_files(out);
    if &in_place != clean {
        assert_same(&in_place, prev, &format!("previous build after {what}"));
    }
    ok(askzico(dir).arg("build"), &format!("build after {what}"));
    let stray: Vec<_> = inodes(out)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(
        stray.is_empty(),
        "temp files of the killed build left after {what}: {stray:?}"
    );
    // Byte-identical to the clean build, which verifies.
    assert_same(
        &named_files(out),
        clean,
        &format!("build after {what} vs a clean build"),
    );
}

#[test]
fn a_build_killed_at_any_write_leaves_the_previous_build_and_the_next_build_is_clean() {
    common::test_hooks();
    let started = Instant::now();
    let p = project();
    let (dir, out) = (p.dir.clone(), p.dir.join("out"));
    ok(askzico(&dir).arg("build"), "first build");
    let prev = named_files(&out);
    let snapshot = p.dir.join("out.prev");
    link_tree(&out, &snapshot);
    edit_sources(&p.sources);

    // The clean build of the edited sources (its own out dir, no cache).
    let clean_out = p.dir.join("out.clean");
    ok(
        askzico(&dir).arg("build").arg("--out").arg(&clean_out),
        "clean build",
    );
    ok(
        askzico(&dir).arg("verify").arg("--out").arg(&clean_out),
        "verify of the clean build",
    );
    let clean = named_files(&clean_out);
    assert!(clean != prev, "the edits changed nothing");

    // How many files the changed build writes: those with a new inode after it completes.
    link_tree(&snapshot, &out);
    let before = inodes(&out);
    let t = Instant::now();
    ok(askzico(&dir).arg("build"), "changed build");
    let build_time = t.elapsed();
    let writes = inodes(&out)
        .into_iter()
        .filter(|(p, ino)| before.get(p) != Some(ino))
        .count();
    assert!(writes >= 3, "the changed build wrote only {writes} files");
    assert_same(&named_files(&out), &clean, "changed build vs a clean build");

    // Kill points: every write, or a spread over them.
    let points: Vec<usize> = if writes <= MAX_HOOK_POINTS {
        (0..writes).collect()
    } else {
        (0..MAX_HOOK_POINTS)
            .map(|i| i * (writes - 1) / (MAX_HOOK_POINTS - 1))
            .collect()
    };
    for &n in &points {
        link_tree(&snapshot, &out);
        let o = askzico(&dir)
            .arg("build")
            .env("ASKZICO_KILL_AFTER_WRITES", n.to_string())
            .output()
            .unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&o.status),
            Some(9),
            "build with kill at write {n} was not killed: {:?}",
            o.status
        );
        check_after_kill(
            &dir,
            &out,
            &prev,
            &clean,
            &format!("a kill at write {n} of {writes}"),
        );
    }

    // Kills from outside at random moments of the build.
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("outside kills: seed {seed}, changed build took {build_time:?}");
    for _ in 0..OUTSIDE_KILLS {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % (build_time.as_micros() as u64).max(1));
        link_tree(&snapshot, &out);
        let mut child = askzico(&dir)
            .arg("build")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL (a no-op when the build has already exited)
        let status = child.wait().unwrap();
        if status.success() {
            // Finished before the kill: that is the changed build, complete.
            assert_same(
                &named_files(&out),
                &clean,
                "a build that finished before its kill",
            );
            continue;
        }
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9),
            "build neither finished nor was killed: {status:?}"
        );
        check_after_kill(
            &dir,
            &out,
            &prev,
            &clean,
            &format!("an outside kill after {delay:?}"),
        );
    }
    println!(
        "{} kill points over {writes} writes, {OUTSIDE_KILLS} outside kills, in {:?}",
        points.len(),
        started.elapsed()
    );
}

/// An artifact damaged in place after its build (same name, same size, other bytes) is not
/// trusted by the next build, with or without the caches: the build rewrites it and `verify`
/// passes again. Files no one touched are reused without being read.
#[test]
fn an_artifact_damaged_in_place_is_rewritten_by_the_next_build() {
    let p = sample_project();
    let build = || {
        let o = run(bin().current_dir(p.path()).args(["build", "--json"]));
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(stdout(&o).lines().last().unwrap()).unwrap()
    };
    let verify = || {
        run(bin().current_dir(p.path()).arg("verify"))
            .status
            .success()
    };
    let first = build();
    let out = p.path().join("out");
    let m = manifest(&out);
    let lookup = m["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "lookup")
        .unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let path = out.join(&lookup);
    let good = std::fs::read(&path).unwrap();
    for drop_caches in [false, true] {
        // One byte changed: the same size, so only the content tells.
        let mut bad = good.clone();
        let at = bad.iter().position(|b| b.is_ascii_lowercase()).unwrap();
        bad[at] = if bad[at] == b'a' { b'b' } else { b'a' };
        std::fs::write(&path, &bad).unwrap();
        // Damaged within the clock tick that stamped the manifest: a file system's coarse
        // times give it the manifest's very time, and only its content can tell.
        let sealed = std::fs::metadata(out.join("manifest.json"))
            .unwrap()
            .modified()
            .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(sealed)
            .unwrap();
        assert!(!verify(), "verify misses the damage");
        if drop_caches {
            std::fs::remove_dir_all(out.join("cache")).unwrap();
        }
        let again = build();
        assert_eq!(again["corpus_version"], first["corpus_version"]);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            good,
            "caches dropped: {drop_caches}"
        );
        assert!(verify(), "caches dropped: {drop_caches}");
    }
    // Nothing damaged: a rebuild writes nothing.
    assert_eq!(build()["files_written"], 0);
}
