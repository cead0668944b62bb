//! `askzico gc --keep N`: removes exactly the files no kept manifest names.

mod common;

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use common::*;

fn build(project: &Path) -> String {
    let o = run(bin().current_dir(project).args(["build", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    manifest(&project.join("out"))["corpus_version"]
        .as_str()
        .unwrap()
        .to_string()
}

fn named(version_file: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(version_file).unwrap()).unwrap();
    m["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap().to_string())
        .collect()
}

fn artifact_files(out: &Path) -> Vec<String> {
    out_files(out)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| {
            ["chunks/", "lookup/", "lexical/", "vectors/"]
                .iter()
                .any(|d| p.starts_with(d))
        })
        .collect()
}

#[test]
fn gc_keeps_the_current_and_newest_versions_and_removes_the_rest() {
    let p = sample_project();
    let out = p.path().join("out");
    let faq = p.path().join("sources/articles/faq.md");
    let original = std::fs::read_to_string(&faq).unwrap();
    let v1 = build(p.path());
    std::fs::write(
        &faq,
        format!("{original}\n\nفقرة جديدة عن مواعيد الزيارة في الصيف.\n"),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let v2 = build(p.path());
    std::fs::write(
        &faq,
        format!("{original}\n\nفقرة أخرى عن مواعيد الزيارة في الشتاء.\n"),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let v3 = build(p.path());
    assert!(v1 != v2 && v2 != v3);
    let before = artifact_files(&out);

    // A dry run removes nothing.
    let o = run(bin()
        .current_dir(p.path())
        .args(["gc", "--keep", "1", "--dry-run", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(r["versions_removed"], 1, "{r}");
    assert!(r["files_removed"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(artifact_files(&out), before);

    // --keep 1: the current version (v3) and the newest other one (v2) stay; v1's own files go.
    let o = run(bin()
        .current_dir(p.path())
        .args(["gc", "--keep", "1", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.join(format!("versions/{v1}.json")).exists());
    let kept: std::collections::BTreeSet<String> = [&v2, &v3]
        .iter()
        .flat_map(|v| named(&out.join(format!("versions/{v}.json"))))
        .collect();
    let after: std::collections::BTreeSet<String> = artifact_files(&out).into_iter().collect();
    assert_eq!(
        after, kept,
        "exactly the files of the kept manifests remain"
    );
    assert!(after.len() < before.len());
    let o = run(bin().current_dir(p.path()).args(["verify"]));
    assert!(o.status.success(), "{}", stderr(&o));

    // --keep 0: only the current manifest's files; the next build of the first state rebuilds it.
    let o = run(bin().current_dir(p.path()).args(["gc", "--keep", "0"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let after: std::collections::BTreeSet<String> = artifact_files(&out).into_iter().collect();
    assert_eq!(
        after,
        named(&out.join("manifest.json")).into_iter().collect()
    );
    std::fs::write(&faq, &original).unwrap();
    assert_eq!(build(p.path()), v1);
    let o = run(bin().current_dir(p.path()).args(["verify"]));
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A FIFO where the output lock belongs is refused at once, by name, by both commands that take
/// the lock; nothing waits for a reader that never comes. (The timeout only stops a regression
/// from hanging the suite; the assertions are on the exit and the message.)
#[test]
fn a_fifo_at_the_lock_path_is_refused_not_waited_on() {
    let p = sample_project();
    let out = p.path().join("out");
    build(p.path());
    let lock = out.join(".askzico.lock");
    std::fs::remove_file(&lock).unwrap();
    let c = std::ffi::CString::new(lock.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path this test owns.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::fs::write(
        p.path().join("sources/articles/faq.md"),
        "# سؤال\n\nنص جديد يغير البناء.\n",
    )
    .unwrap();
    for args in [&["build"][..], &["gc", "--keep", "0"][..]] {
        let o = run(bin()
            .current_dir(p.path())
            .args(args)
            .timeout(std::time::Duration::from_secs(60)));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(".askzico.lock") && err.contains("a FIFO"),
            "{args:?}: {err}"
        );
        assert!(err.contains("remove"), "{args:?}: {err}");
    }
    assert!(
        std::fs::symlink_metadata(&lock)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}
