//! Bounded reads: every file a command opens besides sources (the config, fixtures, manifests,
//! caches) is read no further than its cap, and a device or FIFO in its place is refused
//! without blocking. Oversized or damaged caches are rebuilt, never an error. Diagnostics stay
//! small however long the line they point into.

use std::time::Duration;

use super::*;

/// A file of `len` bytes that takes no disk space (a sparse file): the cap is checked before
/// anything is read.
fn sparse(root: &Path, rel: &str, len: u64) -> Result<(), String> {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
    let f = std::fs::File::create(&p).map_err(|e| e.to_string())?;
    f.set_len(len).map_err(|e| e.to_string())
}

/// A named pipe at `rel` (replacing whatever is there); nothing ever writes to it.
fn fifo(root: &Path, rel: &str) -> Result<(), String> {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&p);
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(format!("mkfifo: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

fn dev_zero() -> Result<(), String> {
    if Path::new("/dev/zero").exists() {
        Ok(())
    } else {
        Err("no /dev/zero here".into())
    }
}

const MIB: u64 = 1024 * 1024;

/// A YAML "billion laughs": nine levels of nine aliases each.
fn alias_bomb() -> String {
    let mut y = String::from(
        "---\ntitle: قنبلة\na0: &a0 [\"ها\", \"ها\", \"ها\", \"ها\", \"ها\", \"ها\", \"ها\", \"ها\", \"ها\"]\n",
    );
    for i in 1..10 {
        let p = i - 1;
        y.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{p}"); 9].join(", ")
        ));
    }
    y.push_str("---\n\n# قنبلة\n\nنص.\n");
    y
}

/// The cache files of the good build, damaged every way a cache can be: garbage, far over its
/// cap, a FIFO (a plain read would block forever) and a link to `/dev/zero`.
fn damage_caches(p: &Path) -> Result<(), String> {
    let cache = p.join("out/cache");
    let packs: Vec<_> = std::fs::read_dir(cache.join("compiled"))
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    if packs.is_empty() {
        return Err("the good build wrote no compile cache".into());
    }
    for pack in packs {
        let rel = pack.strip_prefix(p).unwrap().to_string_lossy().into_owned();
        sparse(p, &rel, 1024 * MIB + 1)?;
    }
    put(p, "out/cache/stat.mp", vec![0xc1u8; 4096])?;
    fifo(p, "out/cache/resume.mp")?;
    let stamp = cache.join("stamp.json");
    let _ = std::fs::remove_file(&stamp);
    std::os::unix::fs::symlink("/dev/zero", &stamp).map_err(|e| e.to_string())?;
    // A source edit, so the build compiles (and reads the compile cache).
    put(p, "src/good.md", GOOD.replace("سليم يبنى", "سليم جدا يبنى"))
}

/// The build went through the damaged caches and replaced them with good ones.
fn caches_rebuilt(p: &Path, _: &[Value]) -> Result<(), String> {
    if !evidence(p).contains("سليم جدا") {
        return Err("the edit is not in the build".into());
    }
    for f in ["stat.mp", "resume.mp", "stamp.json"] {
        let m =
            std::fs::symlink_metadata(p.join("out/cache").join(f)).map_err(|e| e.to_string())?;
        if !m.is_file() || m.len() > MIB {
            return Err(format!("out/cache/{f} was not rebuilt: {m:?}"));
        }
    }
    Ok(())
}

pub const CASES: &[Case] = &[
    Case::new(
        "a device as the config is refused without reading it",
        |_| dev_zero(),
        2,
        err(
            "/dev/zero",
            None,
            "it is a character device, not a regular file",
        ),
    )
    .cmd(&["build", "--config", "/dev/zero"]),
    Case::new(
        "a config over 16 MiB is refused before it is read",
        |p| sparse(p, "big.toml", 16 * MIB + 1),
        2,
        err("big.toml", None, "it is larger than 16 MiB"),
    )
    .cmd(&["build", "--config", "big.toml"]),
    Case::new(
        "a FIFO as the config is refused without blocking",
        |p| fifo(p, "pipe.toml"),
        2,
        err(
            "pipe.toml",
            None,
            "it is a named pipe (FIFO), not a regular file",
        ),
    )
    .cmd(&["build", "--config", "pipe.toml"]),
    Case::new(
        "eval fixtures over 64 MiB are refused before they are read",
        |p| sparse(p, "fixtures.toml", 64 * MIB + 1),
        2,
        err(
            "fixtures.toml",
            None,
            "cannot read fixtures: it is larger than 64 MiB",
        ),
    )
    .cmd(&["eval", "--fixtures", "fixtures.toml"]),
    Case::new(
        "a device as eval fixtures is refused",
        |_| dev_zero(),
        2,
        err(
            "/dev/zero",
            None,
            "cannot read fixtures: it is a character device",
        ),
    )
    .cmd(&["eval", "--fixtures", "/dev/zero"]),
    Case::new(
        "inspect --against a device is refused",
        |_| dev_zero(),
        2,
        err(
            "/dev/zero",
            None,
            "it is a character device, not a regular file",
        ),
    )
    .cmd(&["inspect", "--against", "/dev/zero"]),
    Case::new(
        "a manifest over 256 MiB is refused before it is read",
        |p| sparse(p, "other/manifest.json", 256 * MIB + 1),
        2,
        err("other/manifest.json", None, "it is larger than 256 MiB"),
    )
    .cmd(&["inspect", "--against", "other/manifest.json"]),
    Case::new(
        "verify refuses an oversized manifest",
        |p| sparse(p, "big-out/manifest.json", 256 * MIB + 1),
        1,
        err("big-out/manifest.json", None, "it is larger than 256 MiB"),
    )
    .cmd(&["verify", "--out", "big-out"]),
    Case::new(
        "an artifact longer than its manifest says is reported, not loaded",
        |p| {
            let m = manifest(&p.join("out"));
            let a = m["artifacts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["kind"] == "chunks")
                .unwrap();
            let path = p.join("out").join(a["path"].as_str().unwrap());
            let len = a["bytes"].as_u64().unwrap();
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| e.to_string())?;
            f.set_len(len + 1024 * MIB).map_err(|e| e.to_string())
        },
        1,
        Some(Diag {
            level: "error",
            file: None,
            line: None,
            message: "larger than the manifest's",
        }),
    )
    .cmd(&["verify"]),
    Case::new(
        "damaged, oversized, FIFO and device caches are rebuilt",
        damage_caches,
        0,
        None,
    )
    .check(caches_rebuilt),
    Case::new(
        "a checkpoint is not recorded over a history that cannot be read",
        fixtures_and_fifo_history,
        1,
        err("checkpoints.jsonl", None, "it is a named pipe (FIFO)"),
    )
    .cmd(&["eval", "--fixtures", "fixtures.toml", "--record", "x"])
    .check(|p, _| {
        let t =
            std::fs::symlink_metadata(p.join("checkpoints.jsonl")).map_err(|e| e.to_string())?;
        if t.is_file() {
            return Err("the history was replaced".into());
        }
        Ok(())
    }),
    Case::new(
        "eval --history of a history that cannot be read says so",
        fixtures_and_fifo_history,
        1,
        err("checkpoints.jsonl", None, "it is a named pipe (FIFO)"),
    )
    .cmd(&["eval", "--history"]),
    Case::new(
        "a baseline over 64 MiB is refused before it is read",
        |p| {
            put(p, "fixtures.toml", FIXTURES)?;
            sparse(p, "baseline.json", 64 * MIB + 1)
        },
        1,
        err(
            "baseline.json",
            None,
            "cannot read baseline baseline.json: it is larger than 64 MiB",
        ),
    )
    .cmd(&[
        "eval",
        "--fixtures",
        "fixtures.toml",
        "--baseline",
        "baseline.json",
    ]),
    Case::new(
        "a YAML alias bomb in frontmatter says so, with its line",
        |p| put(p, "src/bomb.md", alias_bomb()),
        1,
        err("src/bomb.md", Some(3), "uses too many aliases or anchors"),
    ),
    Case::new(
        "a 5 MB line in the config with an error at its end",
        |p| set_config(p, &long_line_config()),
        2,
        cfg_err(7, "invalid TOML"),
    ),
];

/// A fixture file with one good case, and `checkpoints.jsonl` as a FIFO.
fn fixtures_and_fifo_history(p: &Path) -> Result<(), String> {
    put(p, "fixtures.toml", FIXTURES)?;
    fifo(p, "checkpoints.jsonl")
}

const FIXTURES: &str =
    "[[case]]\nid = \"good\"\nquestion = \"صفحة سليمة\"\nexpect = [\"docs:good\"]\n";

/// `CONFIG` plus a library description of 5 MB on one line, with junk after it.
fn long_line_config() -> String {
    format!(
        "{CONFIG}description = \"{}\" junk\n",
        "ت".repeat(5 * 1024 * 1024 / 2)
    )
}

pub(crate) fn bounded_reads() {
    run_table(CASES);
}

/// A FIFO as the config fails fast, with no writer on the other end.
pub(crate) fn a_fifo_config_never_hangs() {
    let dir = tempfile::tempdir().unwrap();
    fifo(dir.path(), "corpus.toml").unwrap();
    let started = std::time::Instant::now();
    let o = run(bin()
        .current_dir(dir.path())
        .timeout(Duration::from_secs(20))
        .args(["build"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("named pipe"), "{}", stderr(&o));
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// The snippet of a 5 MB line is a window around the error, with the file's line and column.
pub(crate) fn a_long_config_line_gives_a_short_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("corpus.toml"), long_line_config()).unwrap();
    for json in [false, true] {
        let mut c = bin();
        c.current_dir(dir.path()).arg("build");
        if json {
            c.arg("--json");
        }
        let o = run(&mut c);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.len() < 20_000, "{} bytes of stderr", err.len());
        assert!(!err.contains("panicked"), "{err}");
        if !json {
            assert!(err.contains("corpus.toml:7:"), "{err}");
            assert!(err.contains('…'), "{err}");
            assert!(err.contains("junk"), "{err}");
        }
    }
}
