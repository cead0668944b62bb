//! The benchmark harness behind `askzico-bench builds`: per corpus size, cold builds, a no-op rebuild
//! and one-file edits, each in a fresh process (this executable, `build --stats-json`), measured
//! from outside (wall time; peak RSS and user+sys CPU from `wait4`) and from inside (stage
//! thread-times, `ASKZICO_STAGE_TIMES=1`, see `timings`). Reports medians with min and max.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::corpus::{self, BenchError};
use askzico::{TIMING_STAGES, TIMINGS_ENV};

/// What to run.
pub(crate) struct BenchOptions {
    pub sizes: Vec<usize>,
    pub runs: usize,
    pub seed: u64,
    pub corpora: PathBuf,
    pub dir: PathBuf,
    /// The `askzico` binary measured.
    pub askzico: PathBuf,
}

/// Median, min and max of a series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// `None` for an empty series; the median of an even count is the mean of the middle two.
    pub(crate) fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Summary {
            median,
            min: v[0],
            max: v[n - 1],
        })
    }
}

/// One build in a fresh process, measured.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Run {
    pub wall_ms: f64,
    pub user_ms: f64,
    pub sys_ms: f64,
    pub max_rss_mb: f64,
    /// Thread-time per stage (ms), summed over threads: may exceed the wall time.
    pub stages_ms: Vec<(String, f64)>,
    /// The build's own `--stats-json` line.
    pub stats: serde_json::Value,
}

/// The summaries of several runs of one kind.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Series {
    pub runs: usize,
    pub wall_ms: Summary,
    pub cpu_ms: Summary,
    pub max_rss_mb: Summary,
    /// Source megabytes per wall second.
    pub mb_per_s: Summary,
    pub stages_ms: serde_json::Map<String, serde_json::Value>,
    pub files_read: Summary,
    pub docs_extracted: Summary,
    pub files_written: Summary,
}

impl Series {
    pub(crate) fn of(runs: &[Run], source_bytes: u64) -> Option<Series> {
        let col = |f: &dyn Fn(&Run) -> f64| Summary::of(&runs.iter().map(f).collect::<Vec<_>>());
        let stat = |k: &str| col(&|r: &Run| r.stats[k].as_f64().unwrap_or(0.0));
        let mut stages = serde_json::Map::new();
        for s in TIMING_STAGES {
            let v: Vec<f64> = runs
                .iter()
                .filter_map(|r| {
                    r.stages_ms
                        .iter()
                        .find(|(n, _)| n == s.name())
                        .map(|(_, ms)| *ms)
                })
                .collect();
            if let Some(sum) = Summary::of(&v) {
                stages.insert(
                    s.name().to_string(),
                    serde_json::to_value(sum).expect("serializes"),
                );
            }
        }
        Some(Series {
            runs: runs.len(),
            wall_ms: col(&|r| r.wall_ms)?,
            cpu_ms: col(&|r| r.user_ms + r.sys_ms)?,
            max_rss_mb: col(&|r| r.max_rss_mb)?,
            mb_per_s: col(&|r| source_bytes as f64 / 1e6 / (r.wall_ms / 1e3).max(1e-9))?,
            stages_ms: stages,
            files_read: stat("files_read")?,
            docs_extracted: stat("docs_extracted")?,
            files_written: stat("shards_written")?,
        })
    }
}

/// The report of one corpus size.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SizeReport {
    pub docs: usize,
    pub seed: u64,
    pub files: usize,
    pub source_bytes: u64,
    pub load_average_before: String,
    pub load_average_after: String,
    pub cold: Series,
    pub noop: Series,
    pub edit: Series,
    /// `build --watch`: edit → new manifest, per save.
    pub watch: WatchSeries,
}

/// What `build --watch` reported (`--stats-json`) for a series of saves of one file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WatchSeries {
    pub saves: usize,
    /// `ms` of each save's stats line: from the first change event to the manifest rename.
    pub ms: Summary,
    pub files_written: Summary,
    pub bytes_written_mb: Summary,
}

/// Saves per watch measurement.
const WATCH_SAVES: usize = 10;

/// The whole report (`--json`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    pub cpus: usize,
    pub note: &'static str,
    pub sizes: Vec<SizeReport>,
}

pub(crate) const NOTE: &str = "each build is a fresh process; cold = a new, empty out dir and caches (sources may be in the OS page cache; \
outputs are deleted after the last size's last build; dirty pages are flushed and earlier runs' outputs dropped from \
the page cache before each cold build); \
stage times are thread-time summed over threads (they can exceed the wall time); cpu = user + sys";

/// Runs the benchmark; `progress` receives one line per step.
pub(crate) fn run(
    opts: &BenchOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, BenchError> {
    let exe = opts.askzico.clone();
    let mut sizes = Vec::new();
    let result = opts
        .sizes
        .iter()
        .try_for_each(|&docs| bench_size(&exe, opts, docs, progress).map(|r| sizes.push(r)));
    // Every size's outputs go only now: deleting thousands of files makes ext4 (without a
    // journal) create files several times slower for minutes, which would charge one size's
    // cleanup to the next size's cold builds.
    for &docs in &opts.sizes {
        remove_dir(&opts.dir.join(format!("out-{docs}")))?;
    }
    result?;
    Ok(Report {
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        note: NOTE,
        sizes,
    })
}

fn bench_size(
    exe: &Path,
    opts: &BenchOptions,
    docs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<SizeReport, BenchError> {
    let corpus = corpus_dir(opts, docs, progress)?;
    let (files, source_bytes) = source_size(&corpus.join("sources"))?;
    let load_before = load_average();
    let size = Size {
        exe,
        opts,
        docs,
        config: corpus.join("corpus.toml"),
    };
    let (cold, out) = size.cold_builds(progress)?;
    let mut noop = Vec::new();
    for i in 0..opts.runs {
        let r = build(exe, &size.config, &out)?;
        progress(&format!(
            "{docs} docs: no-op rebuild {}/{}: {:.0} ms",
            i + 1,
            opts.runs,
            r.wall_ms
        ));
        noop.push(r);
    }
    let (edit, watch) = size.edits(&corpus, &out, progress)?;
    let series = |runs: &[Run]| {
        Series::of(runs, source_bytes).ok_or(BenchError::Missing("no runs (--runs 0)"))
    };
    Ok(SizeReport {
        docs,
        seed: opts.seed,
        files,
        source_bytes,
        load_average_before: load_before,
        load_average_after: load_average(),
        cold: series(&cold)?,
        noop: series(&noop)?,
        edit: series(&edit)?,
        watch,
    })
}

/// The builds of one corpus size: the binary, the options, the size and its config.
struct Size<'a> {
    exe: &'a Path,
    opts: &'a BenchOptions,
    docs: usize,
    config: PathBuf,
}

impl Size<'_> {
    /// `runs` cold builds, each into a new output directory; the last one's directory is
    /// returned for the builds that follow.
    fn cold_builds(
        &self,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(Vec<Run>, PathBuf), BenchError> {
        let (opts, docs) = (self.opts, self.docs);
        let outs = opts.dir.join(format!("out-{docs}"));
        let mut cold = Vec::new();
        let mut out = PathBuf::new();
        remove_dir(&outs)?;
        for i in 0..opts.runs {
            // A new out dir per run, and the earlier runs' outputs deleted only after the last
            // size's last build (`run`): for minutes after thousands of deletes, ext4 without a
            // journal creates files several times slower (it skips recently freed inodes), which
            // would charge the bench's own cleanup to the next build.
            // The previous build's dirty pages are flushed first (untimed), so a build does not
            // wait for the writeback of the one before it (at 100k a cold build writes ~7.5 GB).
            // SAFETY: sync(2) has no preconditions.
            unsafe { libc::sync() };
            // Every earlier run's outputs, of any size (clean after the sync), leave the page
            // cache too: at 100k each run adds ~7.5 GB, and a third run on this 23 GB machine
            // otherwise reclaims the first two runs' pages while it writes (its write stage took
            // ~4× the first run's).
            for entry in std::fs::read_dir(&opts.dir).into_iter().flatten().flatten() {
                if entry.file_name().to_string_lossy().starts_with("out-") {
                    evict_from_page_cache(&entry.path());
                }
            }
            std::thread::sleep(Duration::from_millis(500));
            out = outs.join(format!("run{i}"));
            let r = build(self.exe, &self.config, &out)?;
            progress(&format!(
                "{docs} docs: cold build {}/{}: {:.0} ms, {:.0} MB peak RSS",
                i + 1,
                opts.runs,
                r.wall_ms,
                r.max_rss_mb
            ));
            cold.push(r);
        }
        Ok((cold, out))
    }

    /// The one-file edit builds, then the watch series, on the build in `out`; the edited
    /// source is restored after each, and its saved original removed at the end.
    fn edits(
        &self,
        corpus: &Path,
        out: &Path,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(Vec<Run>, WatchSeries), BenchError> {
        let edited = first_source(&corpus.join("sources/md"))?;
        let original = std::fs::read(&edited).map_err(BenchError::file(&edited))?;
        // Saved before the first edit (temp file + rename: a partial copy is never taken for the
        // original), deleted after the last restore.
        let saved = corpus.join(EDIT_ORIGINAL);
        let temp = corpus.join(format!("{EDIT_ORIGINAL}.tmp"));
        std::fs::write(&temp, &original)
            .and_then(|()| std::fs::rename(&temp, &saved))
            .map_err(BenchError::file(&saved))?;
        let restore = || std::fs::write(&edited, &original).map_err(BenchError::restore(&edited));
        let edit = self.edit_builds(&edited, &original, out, progress);
        restore()?;
        let edit = edit?;
        let watch = watch(self.exe, &self.config, out, &edited, &original, progress);
        restore()?;
        std::fs::remove_file(&saved).map_err(BenchError::file(&saved))?;
        Ok((edit, watch?))
    }

    /// `runs` builds, each after appending a different sentence to `edited`.
    fn edit_builds(
        &self,
        edited: &Path,
        original: &[u8],
        out: &Path,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Vec<Run>, BenchError> {
        let (opts, docs) = (self.opts, self.docs);
        let mut edit = Vec::new();
        for i in 0..opts.runs {
            // A different sentence each run, so each build sees one changed file.
            let mut bytes = original.to_vec();
            bytes.extend_from_slice(format!("\n\nجملة مضافة للقياس رقم {i}.\n").as_bytes());
            std::fs::write(edited, bytes).map_err(BenchError::file(edited))?;
            let r = build(self.exe, &self.config, out)?;
            progress(&format!(
                "{docs} docs: one-file edit {}/{}: {:.0} ms",
                i + 1,
                opts.runs,
                r.wall_ms
            ));
            edit.push(r);
        }
        Ok(edit)
    }
}

/// `build --watch --stats-json` on the built output: after its first (no-op) build, `WATCH_SAVES`
/// saves of `edited`, each a different appended sentence, 300 ms apart; each save's stats line.
fn watch(
    exe: &Path,
    config: &Path,
    out: &Path,
    edited: &Path,
    original: &[u8],
    progress: &mut dyn FnMut(&str),
) -> Result<WatchSeries, BenchError> {
    use std::io::BufRead;
    let mut child = Command::new(exe)
        .args(["build", "--watch", "--stats-json", "--config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(BenchError::start(exe))?;
    let stdout = child
        .stdout
        .take()
        .ok_or(BenchError::Missing("no stdout"))?;
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        rx.recv_timeout(Duration::from_secs(120))
            .map_err(|_| BenchError::Missing("build --watch printed no stats line within 120 s"))
    };
    let result = (|| {
        next()?; // the first build
        let mut stats = Vec::new();
        for i in 0..WATCH_SAVES {
            std::thread::sleep(Duration::from_millis(300));
            let mut bytes = original.to_vec();
            bytes.extend_from_slice(format!("\n\nجملة مضافة أثناء المراقبة رقم {i}.\n").as_bytes());
            std::fs::write(edited, bytes).map_err(BenchError::file(edited))?;
            let v: serde_json::Value =
                serde_json::from_str(&next()?).map_err(BenchError::WatchStats)?;
            progress(&format!(
                "watch save {}/{WATCH_SAVES}: {} ms",
                i + 1,
                v["ms"]
            ));
            stats.push(v);
        }
        Ok::<_, BenchError>(stats)
    })();
    // SAFETY: kill(2) with a pid we spawned; SIGINT is the Ctrl-C the watch handles.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let _ = child.wait();
    let stats = result?;
    let field = |name: &str, scale: f64| {
        Summary::of(
            &stats
                .iter()
                .map(|v| v[name].as_f64().unwrap_or(0.0) / scale)
                .collect::<Vec<_>>(),
        )
        .ok_or(BenchError::Missing("no saves"))
    };
    Ok(WatchSeries {
        saves: stats.len(),
        ms: field("ms", 1.0)?,
        files_written: field("shards_written", 1.0)?,
        bytes_written_mb: field("bytes_written", 1e6)?,
    })
}

/// The generated corpus of this size and seed, generated once and kept in `dir`.
fn corpus_dir(
    opts: &BenchOptions,
    docs: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<PathBuf, BenchError> {
    let dir = opts.dir.join(format!("corpus-{docs}-seed{}", opts.seed));
    // `.complete` names the generator version that wrote the corpus; it is written last.
    let done = dir.join(".complete");
    let version = format!("generator {}\n", corpus::GENERATOR_VERSION);
    let marker = askzico::read_capped_string(&done, askzico::cap::STAMP).ok();
    if marker.as_deref() != Some(version.as_str()) {
        progress(&format!(
            "{docs} docs: generating the corpus in {}",
            dir.display()
        ));
        remove_dir(&dir)?;
        corpus::generate(&opts.corpora, &dir, docs, opts.seed)?;
        std::fs::write(&done, version).map_err(BenchError::file(&done))?;
    }
    // A bench stopped during its edit or watch runs (Ctrl-C, a kill) left its last edit in the
    // corpus: the saved original goes back before anything is measured.
    let saved = dir.join(EDIT_ORIGINAL);
    if let Ok(original) = std::fs::read(&saved) {
        let edited = first_source(&dir.join("sources/md"))?;
        progress(&format!(
            "{docs} docs: restoring {} (an earlier bench stopped while it was edited)",
            edited.display()
        ));
        std::fs::write(&edited, original).map_err(BenchError::restore(&edited))?;
        std::fs::remove_file(&saved).map_err(BenchError::file(&saved))?;
    }
    Ok(dir)
}

/// The original bytes of the source the edit and watch runs change, kept in the corpus directory
/// (outside `sources/`) while they run.
pub(crate) const EDIT_ORIGINAL: &str = "edited-source.orig";

/// Drops every file under `dir` from the page cache (best effort: `POSIX_FADV_DONTNEED`, which
/// drops clean pages only; the files stay on disk).
fn evict_from_page_cache(dir: &Path) {
    use std::os::fd::AsRawFd;
    for entry in walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
    {
        if let Ok(f) = std::fs::File::open(entry.path()) {
            // SAFETY: a valid open descriptor; the advice only concerns the page cache.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
}

fn remove_dir(dir: &Path) -> Result<(), BenchError> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(BenchError::Delete {
            path: dir.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Files and bytes under `dir`.
fn source_size(dir: &Path) -> Result<(usize, u64), BenchError> {
    let mut files = 0;
    let mut bytes = 0;
    for e in walkdir::WalkDir::new(dir) {
        let e = e.map_err(BenchError::Walk)?;
        if e.file_type().is_file() {
            files += 1;
            bytes += e.metadata().map_err(BenchError::Walk)?.len();
        }
    }
    Ok((files, bytes))
}

/// The first file (by name) of a directory: the one the edit runs change.
fn first_source(dir: &Path) -> Result<PathBuf, BenchError> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(BenchError::file(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    names
        .into_iter()
        .next()
        .ok_or_else(|| BenchError::NothingToEdit(dir.to_path_buf()))
}

/// `/proc/loadavg`'s three averages, or `?` where there is none.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "?".into(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

/// One `build --stats-json` in a fresh process, measured by `wait4`.
fn build(exe: &Path, config: &Path, out: &Path) -> Result<Run, BenchError> {
    let started = Instant::now();
    let mut child = Command::new(exe)
        .args(["build", "--stats-json", "--config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .env(TIMINGS_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(BenchError::start(exe))?;
    let read = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut s);
            }
            s
        })
    };
    let stdout = read(child.stdout.take().map(|s| Box::new(s) as _));
    let stderr = read(child.stderr.take().map(|s| Box::new(s) as _));
    let Exited { status, usage } = wait4(child.id())?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    if status != 0 {
        return Err(BenchError::BuildFailed {
            config: config.to_path_buf(),
            status,
            stderr,
        });
    }
    let stats = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .ok_or(BenchError::Missing(
            "the build printed no --stats-json line",
        ))?;
    let stages = stderr
        .lines()
        .rev()
        .find_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .filter(|v| v["stage_ns"].is_object())
        })
        .ok_or(BenchError::Missing("the build printed no stage times"))?;
    let stages_ms = TIMING_STAGES
        .iter()
        .map(|s| {
            (
                s.name().to_string(),
                stages["stage_ns"][s.name()].as_f64().unwrap_or(0.0) / 1e6,
            )
        })
        .collect();
    Ok(Run {
        wall_ms,
        user_ms: usage.user_ms,
        sys_ms: usage.sys_ms,
        max_rss_mb: usage.max_rss_mb,
        stages_ms,
        stats,
    })
}

/// How a process ended: its exit status (or 128 + signal) and what it used.
struct Exited {
    status: i32,
    usage: Usage,
}

/// A process's CPU time and peak memory.
struct Usage {
    user_ms: f64,
    sys_ms: f64,
    max_rss_mb: f64,
}

/// Waits for `pid`.
fn wait4(pid: u32) -> Result<Exited, BenchError> {
    let mut status = 0;
    // SAFETY: rusage is plain data, zeroed is a valid value; wait4 only writes to the two pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    if got < 0 {
        return Err(BenchError::Wait(std::io::Error::last_os_error()));
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    Ok(Exited {
        status: code,
        usage: Usage {
            user_ms: ms(usage.ru_utime),
            sys_ms: ms(usage.ru_stime),
            // ru_maxrss is in kilobytes on Linux.
            max_rss_mb: usage.ru_maxrss as f64 / 1024.0,
        },
    })
}

/// The human report: one table per size.
pub(crate) fn render_table(r: &Report) -> String {
    let mut s = String::new();
    for z in &r.sizes {
        s.push_str(&format!(
            "\n{} docs ({} files, {:.1} MB of source, seed {}); {} cpus; load average {} before, {} after\n",
            z.docs,
            z.files,
            z.source_bytes as f64 / 1e6,
            z.seed,
            r.cpus,
            z.load_average_before,
            z.load_average_after
        ));
        s.push_str("median [min–max] over fresh processes\n\n");
        s.push_str("| | wall | user+sys CPU | peak RSS | source MB/s | files read | docs extracted | files written |\n|---|---|---|---|---|---|---|---|\n");
        for (name, x) in [
            ("cold build", &z.cold),
            ("no-op rebuild", &z.noop),
            ("one-file edit", &z.edit),
        ] {
            s.push_str(&format!(
                "| {name} ({} runs) | {} | {} | {} | {} | {} | {} | {} |\n",
                x.runs,
                fmt(&x.wall_ms, " ms"),
                fmt(&x.cpu_ms, " ms"),
                fmt(&x.max_rss_mb, " MB"),
                fmt(&x.mb_per_s, ""),
                x.files_read.median,
                x.docs_extracted.median,
                x.files_written.median
            ));
        }
        let w = &z.watch;
        s.push_str(&format!(
            "| `build --watch`, edit → new manifest ({} saves) | {} | | | | 1 | 1 | {} ({} written) |\n",
            w.saves,
            fmt(&w.ms, " ms"),
            fmt(&w.files_written, ""),
            fmt(&w.bytes_written_mb, " MB")
        ));
        s.push_str("\ncold build by stage (thread-time summed over threads, so it can exceed the wall time):\n\n| stage | ms |\n|---|---|\n");
        for (name, v) in &z.cold.stages_ms {
            if let Ok(sum) = serde_json::from_value::<SummaryIn>(v.clone()) {
                s.push_str(&format!(
                    "| {name} | {} |\n",
                    fmt(
                        &Summary {
                            median: sum.median,
                            min: sum.min,
                            max: sum.max
                        },
                        ""
                    )
                ));
            }
        }
    }
    s
}

#[derive(serde::Deserialize)]
struct SummaryIn {
    median: f64,
    min: f64,
    max: f64,
}

/// `median [min–max]unit`, or just `median unit` when all runs agree; whole numbers from 100 up.
pub(crate) fn fmt(s: &Summary, unit: &str) -> String {
    let n = |x: f64| {
        if x.abs() >= 100.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.1}")
        }
    };
    if n(s.min) == n(s.max) {
        format!("{}{unit}", n(s.median))
    } else {
        format!("{}{unit} [{}–{}]", n(s.median), n(s.min), n(s.max))
    }
}

#[cfg(test)]
mod tests;
