//! A deploy that verifies what it flips to: the stand-in lies (drops stored values, answers a
//! bulk write with a short count, never applies a mutation, loses vectors, is emptied and
//! recreated), and the pointer still names only a version KV and the index hold whole.

use super::*;

const EDIT: &str = "فقرة ثانية عن جمع المخلفات.";

/// The pointer's version and index, if any.
fn live(m: &Mock) -> Option<(String, String)> {
    let s = m.state.lock().unwrap();
    s.pointer().map(|p| {
        (
            p["version"].as_str().unwrap().to_string(),
            p["index"].as_str().unwrap().to_string(),
        )
    })
}

/// Runs a deploy that must succeed, and returns its stderr.
fn deployed(dir: &Path, m: &Mock, extra: &[&str], env: &[(&str, &str)]) -> String {
    let o = deploy_with(dir, Some(m), extra, env);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    stderr(&o)
}

/// Whether the store's index holds every vector of the version, as `e` has it.
fn holds(m: &Mock, index: &str, e: &Expected) -> bool {
    let s = m.state.lock().unwrap();
    let held = s.store.indexes.get(index).cloned().unwrap_or_default();
    e.vectors
        .iter()
        .all(|(id, rec)| held.get(id).is_some_and(|h| content(h) == content(rec)))
}

/// The test removed a value of the live version: the stand-in saw the live version lack it
/// until the deploy wrote it back, and nothing else (no flip onto an incomplete version).
fn only_while_it_was_gone(m: &Mock) {
    let mut s = m.state.lock().unwrap();
    assert!(
        s.problems
            .iter()
            .all(|p| p.contains(": the live version lacks vector ")),
        "{:?}",
        s.problems
    );
    s.problems.clear();
}

pub(crate) fn a_value_the_registry_names_but_kv_lacks_is_sent_again() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    let v2 = rebuild_changed(p.path(), "sources/articles/faq.md", EDIT);
    let e2 = expected(p.path(), None);
    // A record v1 stored and v2 shares disappears from KV.
    let gone = {
        let mut s = m.state.lock().unwrap();
        let k = e2
            .kv
            .keys()
            .find(|k| k.starts_with("zico/r/") && s.store.kv.contains_key(*k))
            .unwrap()
            .clone();
        s.store.kv.remove(&k);
        s.expect.insert(v2.clone(), e2.clone());
        k
    };
    let err = deployed(p.path(), &m, &[], &[]);
    assert!(
        err.contains("KV lacks 1 of the ") && err.contains(&gone),
        "{err}"
    );
    only_while_it_was_gone(&m);
    assert_consistent(&m);
    assert_eq!(live(&m).unwrap().0, v2);
    assert!(m.state.lock().unwrap().store.kv.contains_key(&gone));
    // The target serves v2; a value of it goes missing: deploying v2 again writes it back.
    m.state.lock().unwrap().store.kv.remove(&gone);
    let o = deploy(p.path(), Some(&m), &[]);
    only_while_it_was_gone(&m);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("target prod serves {v2}, but KV lacks 1 of the "))
            && stderr(&o).contains("writing them again"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("already serves"), "{}", stdout(&o));
    assert!(m.state.lock().unwrap().store.kv.contains_key(&gone));
    assert_consistent(&m);
}

pub(crate) fn a_bulk_write_answered_with_a_short_count_confirms_nothing() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().short_count = true;
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("KV answered success for 0 of ")
            && stderr(&o).contains("nothing of the batch is taken as stored"),
        "{}",
        stderr(&o)
    );
    assert!(live(&m).is_none());
    deployed(p.path(), &m, &[], &[]);
    assert_consistent(&m);
}

pub(crate) fn values_kv_drops_are_written_again_and_a_store_that_keeps_dropping_them_stops_the_flip()
 {
    let p = project();
    let m = mock();
    let v1 = version(p.path());
    {
        let mut s = m.state.lock().unwrap();
        s.lose_kv = 3;
        s.expect.insert(v1.clone(), expected(p.path(), None));
    }
    let err = deployed(p.path(), &m, &[], &[]);
    assert!(
        err.contains("KV does not hold 3 of the ")
            && err.contains("pairs (e.g. zico/")
            && err.contains("this deploy wrote: writing them again"),
        "{err}"
    );
    assert_consistent(&m);
    let v2 = rebuild_changed(p.path(), "sources/articles/faq.md", EDIT);
    m.state.lock().unwrap().lose_kv = usize::MAX;
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("even after writing them again; the pointer still names")
            && stderr(&o).contains("nothing else deletes from it"),
        "{}",
        stderr(&o)
    );
    assert_eq!(live(&m).unwrap().0, v1);
    m.state.lock().unwrap().lose_kv = 0;
    m.state
        .lock()
        .unwrap()
        .expect
        .insert(v2.clone(), expected(p.path(), None));
    deployed(p.path(), &m, &[], &[]);
    assert_eq!(live(&m).unwrap().0, v2);
    assert_consistent(&m);
}

pub(crate) fn vectors_deleted_from_the_inactive_index_are_upserted_again() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    rebuild_changed(p.path(), "sources/articles/faq.md", EDIT);
    deployed(p.path(), &m, &[], &[]);
    // Blue (inactive, holding v1) loses three vectors outside askzico.
    {
        let mut s = m.state.lock().unwrap();
        let blue = s.store.indexes.get_mut("corpus-blue").unwrap();
        let ids: Vec<String> = blue.keys().take(3).cloned().collect();
        for id in ids {
            blue.remove(&id);
        }
    }
    let v3 = rebuild_changed(p.path(), "sources/articles/nile-flood.md", EDIT);
    let e3 = expected(p.path(), None);
    m.state
        .lock()
        .unwrap()
        .expect
        .insert(v3.clone(), e3.clone());
    let err = deployed(p.path(), &m, &[], &[]);
    assert!(
        err.contains("the journal's record of index corpus-blue disagrees with the index (listed): 3 vectors it records are not there and are upserted again"),
        "{err}"
    );
    assert_eq!(live(&m).unwrap(), (v3, "corpus-blue".to_string()));
    assert!(holds(&m, "corpus-blue", &e3));
    assert_consistent(&m);
}

pub(crate) fn vectors_lost_during_a_deploy_are_upserted_again_before_the_flip() {
    let p = project();
    let m = mock();
    let v1 = version(p.path());
    let e1 = expected(p.path(), None);
    m.state.lock().unwrap().expect.insert(v1, e1.clone());
    // Vectorize reports the upsert processed, yet two of its vectors never arrive.
    m.state.lock().unwrap().drop_vectors = 2;
    let err = deployed(p.path(), &m, &[], &[]);
    assert!(
        err.contains("Vectorize index corpus-blue does not hold 2 of the ")
            && err.contains("as this deploy wrote them: upserting them again"),
        "{err}"
    );
    assert!(holds(&m, "corpus-blue", &e1));
    assert_consistent(&m);
}

pub(crate) fn an_emptied_and_recreated_target_recovers_on_rerun() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    let v1 = version(p.path());
    let e1 = expected(p.path(), None);
    {
        let mut s = m.state.lock().unwrap();
        s.store = Store::default();
        s.expect.insert(v1.clone(), e1.clone());
    }
    deployed(p.path(), &m, &[], &[]);
    assert_eq!(live(&m).unwrap().0, v1);
    let index = live(&m).unwrap().1;
    assert!(holds(&m, &index, &e1));
    assert_consistent(&m);
}

pub(crate) fn a_mutation_never_reported_processed_is_sent_again_by_the_rerun() {
    let p = project();
    let m = mock();
    let wait = [("ASKZICO_DEPLOY_WAIT_SECS", "1")];
    let v1 = version(p.path());
    {
        let mut s = m.state.lock().unwrap();
        s.lose_mutations = 1;
        s.expect.insert(v1.clone(), expected(p.path(), None));
    }
    let o = deploy_with(p.path(), Some(&m), &[], &wait);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the pointer was not written. Run `askzico deploy --target prod` again: it asks the index once more and, if the mutation is still not applied, sends the vector batches again"),
        "{}",
        stderr(&o)
    );
    let err = deployed(p.path(), &m, &[], &wait);
    assert!(
        err.contains("never reported mutation mut-0001 processed: the vector batches of the unfinished deploy are sent again"),
        "{err}"
    );
    assert_eq!(live(&m).unwrap().0, v1);
    assert_consistent(&m);
}

pub(crate) fn a_live_index_that_lost_vectors_gets_the_version_deployed_again_into_the_other() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    let v1 = version(p.path());
    let e1 = expected(p.path(), None);
    {
        let mut s = m.state.lock().unwrap();
        let blue = s.store.indexes.get_mut("corpus-blue").unwrap();
        let id = blue.keys().next().unwrap().clone();
        blue.remove(&id);
        s.expect.insert(v1.clone(), e1.clone());
    }
    let err = deployed(p.path(), &m, &[], &[]);
    assert!(
        err.contains(&format!(
            "index corpus-blue that serves {v1} does not hold 1 of the "
        )) && err.contains("the version is deployed again into corpus-green"),
        "{err}"
    );
    assert_eq!(live(&m).unwrap(), (v1, "corpus-green".to_string()));
    assert!(holds(&m, "corpus-green", &e1));
    assert_consistent(&m);
}

pub(crate) fn a_check_verifies_hashes_the_version_of_its_tables_and_the_pointer_layout() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    let v1 = version(p.path());
    let v2 = rebuild_changed(p.path(), "sources/articles/faq.md", EDIT);
    deployed(p.path(), &m, &[], &[]);
    let check = || deploy(p.path(), Some(&m), &["--check"]);
    let o = check();
    assert!(o.status.success(), "{}", stderr(&o));
    let set = |k: &str, v: String| {
        m.state
            .lock()
            .unwrap()
            .store
            .kv
            .insert(k.to_string(), v)
            .unwrap()
    };
    let failed = |o: std::process::Output, want: &str| {
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(
            stderr(&o).contains(&format!("check of prod: version {v2}"))
                && stderr(&o).contains(want),
            "{want}: {}",
            stderr(&o)
        );
    };
    // v1's key table under v2's name: every value hashes, but the live index's vectors name
    // other records.
    let tables = format!("zico/{v2}/tables");
    let v1_tables = m.state.lock().unwrap().store.kv[&format!("zico/{v1}/tables")].clone();
    let kept = set(&tables, v1_tables);
    failed(check(), "Vectorize index corpus-green: vector ");
    set(&tables, kept);
    // A record changed outside askzico.
    let record = {
        let s = m.state.lock().unwrap();
        named_keys(&s.store.kv, &v2)
            .into_iter()
            .find(|k| k.starts_with("zico/r/"))
            .unwrap()
    };
    let kept = set(&record, "{\"title\":\"forged\"}".into());
    failed(
        check(),
        &format!("`{record}` holds a value that does not hash to its key"),
    );
    set(&record, kept);
    // A pointer that names no layout over a version of layout 2.
    let kept = set(
        POINTER,
        json!({"version": v2, "index": "corpus-green"}).to_string(),
    );
    failed(check(), "names no layout (layout 1), but version");
    set(POINTER, kept);
    assert!(check().status.success());
}

pub(crate) fn a_rollback_reads_back_the_index_it_moves_to() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    let v1 = version(p.path());
    let v2 = rebuild_changed(p.path(), "sources/articles/faq.md", EDIT);
    deployed(p.path(), &m, &[], &[]);
    {
        let mut s = m.state.lock().unwrap();
        let blue = s.store.indexes.get_mut("corpus-blue").unwrap();
        let id = blue.keys().next().unwrap().clone();
        blue.remove(&id);
    }
    let o = deploy(p.path(), Some(&m), &["--rollback"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!(
            "index corpus-blue no longer holds version {v1} whole: 1 problem, e.g. Vectorize index corpus-blue: vector "
        )) && stderr(&o).contains("deploy that version's build instead"),
        "{}",
        stderr(&o)
    );
    assert_eq!(live(&m).unwrap().0, v2);
}

pub(crate) fn a_second_deploy_of_a_target_is_refused_while_the_first_runs() {
    use std::io::Write;
    let p = project();
    let m = mock();
    // Another deploy of prod holds the journal's lock, as a running one does.
    let lock = p.path().join("out/cache/deploy/prod.lock");
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let mut held = std::fs::File::create(&lock).unwrap();
    held.try_lock().unwrap();
    write!(held, "process 4242 (askzico deploy --target prod)").unwrap();
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "another deploy of target prod is running (process 4242 (askzico deploy --target prod)); nothing was sent"
        ) && stderr(&o).contains("prod.lock is released when that process ends"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        m.state.lock().unwrap().requests,
        0,
        "the second deploy sent nothing"
    );
    let o = deploy(p.path(), Some(&m), &["--rollback"]);
    assert!(
        stderr(&o).contains("another deploy of target prod is running"),
        "{}",
        stderr(&o)
    );
    // Once the first is gone, a deploy runs.
    drop(held);
    deployed(p.path(), &m, &[], &[]);
    assert_consistent(&m);
}

pub(crate) fn a_prefix_that_pushes_keys_past_kv_limit_is_named_not_the_chunking() {
    let p = project();
    let cfg = p.path().join("corpus.toml");
    let long = "p".repeat(480) + "/";
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("prefix = \"zico/\"", &format!("prefix = \"{long}\""));
    std::fs::write(&cfg, text).unwrap();
    let o = deploy(p.path(), None, &["--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("with the 481-byte prefix of target prod, KV keys such as ")
            && err.contains("over KV's 512-byte key limit; nothing was sent")
            && err.contains("shorten `prefix` in [deploy.prod] to at most ")
            && !err.contains("chunking"),
        "{err}"
    );
}

pub(crate) fn a_target_whose_indexes_were_renamed_says_how_to_move_to_the_new_ones() {
    let p = project();
    let m = mock();
    deployed(p.path(), &m, &[], &[]);
    let cfg = p.path().join("corpus.toml");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "indexes = [\"corpus-blue\", \"corpus-green\"]",
        "indexes = [\"site-a\", \"site-b\"]",
    );
    std::fs::write(&cfg, text).unwrap();
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "the pointer names index corpus-blue, which is not one of this target's indexes"
        ) && err.contains(
            "indexes = [\"corpus-blue\", \"site-b\"]: the next deploy of a new build writes site-b"
        ) && !err.contains("deploying a build again writes its keys anew"),
        "{err}"
    );
    // Following the help moves the target onto the new index.
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "indexes = [\"site-a\", \"site-b\"]",
        "indexes = [\"corpus-blue\", \"site-b\"]",
    );
    std::fs::write(&cfg, text).unwrap();
    let v = rebuild_changed(p.path(), "sources/articles/faq.md", EDIT);
    m.state
        .lock()
        .unwrap()
        .expect
        .insert(v.clone(), expected(p.path(), None));
    deployed(p.path(), &m, &[], &[]);
    assert_eq!(live(&m).unwrap().1, "site-b");
}

/// A deploy uploads the build of the config it runs with: an `out/` that another config's build
/// fills (another corpus name) or that this config's settings no longer describe (edited since
/// the build) is refused before any request, with the build that fixes it; `query` and `verify`
/// refuse the other corpus's build too.
pub(crate) fn a_build_of_another_config_or_of_other_settings_is_not_deployed() {
    let p = project();
    let cfg = p.path().join("corpus.toml");
    let ours = std::fs::read_to_string(&cfg).unwrap();
    let name_line = ours
        .lines()
        .find(|l| l.starts_with("name"))
        .expect("the sample config names its corpus");
    let other = ours.replacen(name_line, "name = \"another-site\"", 1);
    std::fs::write(p.path().join("other.toml"), &other).unwrap();

    let m = mock();
    let o = run(bin().current_dir(p.path()).args([
        "deploy",
        "--config",
        "other.toml",
        "--target",
        "prod",
        "--dry-run",
    ]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds the build of corpus"),
        "{}",
        stderr(&o)
    );
    for cmd in [
        &["query", "--config", "other.toml", "نهر"][..],
        &["verify", "--config", "other.toml"],
    ] {
        let o = run(bin().current_dir(p.path()).args(cmd));
        assert!(
            !o.status.success(),
            "{cmd:?} answered from another corpus's build"
        );
        assert!(
            stderr(&o).contains("holds the build of corpus"),
            "{}",
            stderr(&o)
        );
    }

    // The config edited after the build: its settings are not the build's.
    let edited = ours.replacen("max_chars = 7000", "max_chars = 6000", 1);
    assert_ne!(edited, ours, "the sample config sets max_chars");
    std::fs::write(&cfg, &edited).unwrap();
    let o = deploy(p.path(), Some(&m), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("made with other settings"),
        "{}",
        stderr(&o)
    );
    assert!(live(&m).is_none(), "nothing may be flipped");
    // Built again, it deploys.
    assert!(
        run(bin().current_dir(p.path()).arg("build"))
            .status
            .success()
    );
    deployed(p.path(), &m, &[], &[]);
}

/// An index that keeps losing a version's vectors stops the deploy before the flip, and the
/// registry never calls that version complete: the registry's word follows the read-back.
pub(crate) fn a_version_whose_vectors_cannot_be_read_back_is_never_registered_complete() {
    let p = project();
    let m = mock();
    m.state.lock().unwrap().drop_vectors = usize::MAX;
    let o = deploy(p.path(), Some(&m), &[]);
    assert!(!o.status.success(), "{}", stderr(&o));
    assert!(live(&m).is_none(), "nothing may be flipped");
    let v = version(p.path());
    let s = m.state.lock().unwrap();
    let reg = s
        .store
        .kv
        .get("zico/versions")
        .expect("the deploy claimed its index in the registry");
    let reg: Value = serde_json::from_str(reg).unwrap();
    let complete = reg["complete"].as_array().cloned().unwrap_or_default();
    assert!(
        !complete.iter().any(|c| c.as_str() == Some(v.as_str())),
        "the registry calls {v} complete: {reg}"
    );
}
