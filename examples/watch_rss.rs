//! Benchmark (not a test): does `askzico build --watch` keep its memory bounded over many edits?
//!
//! Generates a synthetic corpus (`askzico-bench corpus`, which reads ../shared/corpora), starts
//! `askzico build --watch --stats-json` on it, makes many rapid edits (each rewrites one source
//! with a new paragraph, so every edit is a new revision of the file; the file's size stays
//! bounded) and samples the watch process's RSS (`VmRSS` in /proc/PID/status) as it goes.
//!
//! ```text
//! cargo build --release --workspace && cargo run --release --example watch_rss -- [--docs 1000] [--edits 10000] [--pause-us 2000] [--files N]
//! ```
//!
//! `--files N` spreads the edits over the first N sources only (default: all of them).
//! Prints one line per sample: edits made, builds finished, RSS and peak RSS (MiB). Linux only.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `VmRSS` and `VmHWM` of a process, in MiB.
fn rss(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The askzico binary next to this example's directory (`target/release/askzico`).
fn askzico() -> PathBuf {
    beside("askzico")
}

/// A binary of the workspace's release build.
fn beside(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .and_then(Path::parent)
        .map(|d| d.join(name))
        .filter(|p| p.is_file())
        .expect("build the binaries first: cargo build --release --workspace")
}

/// Waits until no build has finished for `quiet`, returning the build count.
fn settle(builds: &AtomicUsize, quiet: Duration) -> usize {
    let mut last = builds.load(Ordering::SeqCst);
    let mut since = Instant::now();
    while since.elapsed() < quiet {
        std::thread::sleep(Duration::from_millis(50));
        let now = builds.load(Ordering::SeqCst);
        if now != last {
            last = now;
            since = Instant::now();
        }
    }
    last
}

fn main() {
    let (docs, edits, pause) = (
        arg("--docs", 1000),
        arg("--edits", 10_000),
        Duration::from_micros(arg("--pause-us", 2000)),
    );
    let tmp = std::env::temp_dir().join(format!("askzico-watch-rss-{}", std::process::id()));
    let corpus = tmp.join("corpus");
    let st = Command::new(beside("askzico-bench"))
        .args(["corpus", "--docs", &docs.to_string(), "--dest"])
        .arg(&corpus)
        .status()
        .unwrap();
    assert!(
        st.success(),
        "askzico-bench corpus failed (it needs ../shared/corpora)"
    );

    let mut files: Vec<(PathBuf, String)> = walk(&corpus.join("sources"))
        .into_iter()
        .map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    files.sort();
    files.truncate(arg("--files", files.len() as u64).max(1) as usize);
    let mut child = Command::new(askzico())
        .args(["build", "--watch", "--stats-json"])
        .current_dir(&corpus)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let builds = Arc::new(AtomicUsize::new(0));
    let counter = builds.clone();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for _ in BufReader::new(stdout).lines() {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    while builds.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let sample = |edits: u64, builds: usize| {
        let (r, hwm) = rss(pid);
        println!("edits {edits:>6}  builds {builds:>6}  rss {r:>8.1} MiB  peak {hwm:>8.1} MiB");
    };
    println!(
        "{} sources edited, {edits} edits, {pause:?} between edits",
        files.len()
    );
    sample(0, builds.load(Ordering::SeqCst));
    let start = Instant::now();
    for i in 1..=edits {
        let (path, original) = &files[(i as usize * 7919) % files.len()];
        let para = format!("تعديل رقم {i} لقياس الذاكرة في وضع المراقبة.");
        let text = if path.extension().is_some_and(|x| x == "html") {
            original.replacen("</body>", &format!("<p>{para}</p></body>"), 1)
        } else {
            format!("{original}\n\n{para}\n")
        };
        std::fs::write(path, text).unwrap();
        std::thread::sleep(pause);
        if i % 1000 == 0 {
            sample(i, builds.load(Ordering::SeqCst));
        }
    }
    let settled = settle(&builds, Duration::from_secs(3));
    println!(
        "edits done in {:.1?}; settled after {settled} builds",
        start.elapsed()
    );
    sample(edits, settled);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&tmp);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
