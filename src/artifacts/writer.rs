//! writer: large files written off the worker threads, straight to the disk (`O_DIRECT`).
//!
//! Why: a build writes about six times its sources' size. A buffered write costs the core that
//! makes it a copy into the page cache and a fresh page per 4 KB, which on VMs whose memory the
//! hypervisor backs lazily is the largest single cost of a large build. A direct write is a DMA
//! from an aligned buffer: the core only copies into that buffer, and the wait for the device
//! happens on a writer thread while the workers go on rendering.
//!
//! - Files of at least `DIRECT_MIN` bytes, on Linux, on a filesystem that takes `O_DIRECT`
//!   and has a disk behind it (tmpfs and ramfs have none: the first direct write tried there,
//!   as on a filesystem that refuses `O_DIRECT`, turns direct writes off for the process, and
//!   that file is written buffered). Smaller files are written by their caller, buffered.
//! - At most `PENDING_MAX` bytes wait in the queue; past that the caller writes the file itself
//!   (buffered), so a disk slower than the build costs no more than buffered writes.
//! - Files appear exactly as `disk` makes them appear (`write_new`: linked whole under their
//!   name; `write_atomic`: renamed over the old one); only the moment moves. Each job belongs
//!   to a `Tally` (a build's is in its `store::Known`): `Tally::finish` waits for that tally's
//!   files and returns their failures. The engine calls it before the manifest, so a manifest
//!   never names a file still being written, and a failed write fails the build before its
//!   manifest is written.
//! - The compile cache's packs are rendered on the writer threads too (`submit_render`), while
//!   the build renders its artifacts; reading a pack back waits for them (`caches_written`).
//! - `ASKZICO_DIRECT_WRITES=0` turns all this off: every file is written by its caller, buffered.

use std::io;
use std::path::PathBuf;

use super::disk;
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, OnceLock, mpsc};

/// Files this large or larger are queued for a direct write.
pub(crate) const DIRECT_MIN: usize = 64 << 10;

/// Queued bytes beyond which callers write their files themselves. Counts toward peak memory:
/// at 10k documents the queue holds up to this much of the ~700 MB a build writes.
const PENDING_MAX: usize = 128 << 20;

/// Writer threads. Two keep the device busier than one (a large build finishes sooner), and
/// they mostly wait, so they take little from the workers.
const THREADS: usize = 2;

/// How a queued file is made to appear (see `disk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A content-addressed artifact: `disk::write_new`.
    New,
    /// A cache file replaced in place: `disk::write_atomic`.
    Replace,
}

/// A file's bytes, or the work that makes them (`None`: nothing to write).
pub(crate) type Render = Box<dyn FnOnce() -> Option<Vec<u8>> + Send>;

enum Body {
    Bytes(Vec<u8>),
    /// Rendered on a writer thread: bytes that need not exist before they are written (the
    /// compile cache's packs, made from documents the database holds anyway).
    Render(Render),
}

struct Job {
    path: PathBuf,
    body: Body,
    mode: Mode,
    /// The artifact's key in `store::Known`, reported if its write fails.
    key: Option<String>,
    tally: Arc<Tally>,
}

/// The files queued by one owner (a build's `store::Known`, or the caches): how many are not
/// written yet, and the failures not yet collected.
#[derive(Default)]
pub(crate) struct Tally {
    state: Mutex<TallyState>,
    idle: Condvar,
    /// Whether failures are collected (artifacts) or only cost time later (caches).
    quiet: bool,
}

#[derive(Default)]
struct TallyState {
    jobs: usize,
    failed: Vec<(Option<String>, io::Error)>,
}

impl Tally {
    fn lock(&self) -> MutexGuard<'_, TallyState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until every file of this tally is written; returns the `Known` keys of those that
    /// failed and the first failure (one is enough to fail the build, and the next build writes
    /// them again).
    pub(crate) fn finish(&self) -> (Vec<String>, Option<io::Error>) {
        let mut s = self.lock();
        while s.jobs > 0 {
            s = self.idle.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        let mut keys = Vec::new();
        let mut first = None;
        for (key, e) in std::mem::take(&mut s.failed) {
            keys.extend(key);
            first.get_or_insert(e);
        }
        (keys, first)
    }

    fn done(&self, failed: Option<(Option<String>, io::Error)>) {
        let mut s = self.lock();
        s.jobs -= 1;
        if !self.quiet {
            s.failed.extend(failed);
        }
        if s.jobs == 0 {
            self.idle.notify_all();
        }
    }
}

/// The caches' tally (best effort: their failures are not collected).
static CACHES: LazyLock<Arc<Tally>> = LazyLock::new(|| {
    Arc::new(Tally {
        quiet: true,
        ..Tally::default()
    })
});

/// Bytes queued and not yet written, against `PENDING_MAX`.
static QUEUED: Mutex<usize> = Mutex::new(0);
/// Jobs not yet done, over every tally (the process waits for them before it exits).
static JOBS: Mutex<usize> = Mutex::new(0);
static NO_JOBS: Condvar = Condvar::new();
static QUEUE: OnceLock<Option<Mutex<mpsc::Sender<Job>>>> = OnceLock::new();

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The queue to the writer threads, started on first use; `None` when direct writes are off.
fn queue() -> Option<&'static Mutex<mpsc::Sender<Job>>> {
    QUEUE
        .get_or_init(|| {
            if !cfg!(target_os = "linux")
                || crate::knobs::switch(crate::knobs::DIRECT_WRITES) == Some(false)
            {
                return None;
            }
            let (tx, rx) = mpsc::channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            for _ in 0..THREADS {
                let rx = rx.clone();
                std::thread::Builder::new()
                    .name("askzico-writer".into())
                    .spawn(move || run(&rx))
                    .ok()?;
            }
            Some(Mutex::new(tx))
        })
        .as_ref()
}

/// Sends a job whose bytes are already counted in `QUEUED` (`len`), or gives it back.
fn send(job: Job, len: usize) -> Result<(), Job> {
    let Some(queue) = queue() else {
        *lock(&QUEUED) -= len;
        return Err(job);
    };
    *lock(&JOBS) += 1;
    job.tally.lock().jobs += 1;
    let tally = job.tally.clone();
    lock(queue).send(job).map_err(|mpsc::SendError(job)| {
        *lock(&QUEUED) -= len;
        tally.done(None);
        job_done();
        job
    })
}

fn job_done() {
    let mut jobs = lock(&JOBS);
    *jobs -= 1;
    if *jobs == 0 {
        NO_JOBS.notify_all();
    }
}

/// Queues `bytes` for `path` under `tally`, or hands them back when the caller should write
/// them itself: too small, direct writes off, or the queue full.
pub(super) fn submit(
    path: PathBuf,
    bytes: Vec<u8>,
    mode: Mode,
    key: Option<String>,
    tally: &Arc<Tally>,
) -> Result<(), (PathBuf, Vec<u8>)> {
    let len = bytes.len();
    if len < DIRECT_MIN || !disk::direct_enabled() {
        return Err((path, bytes));
    }
    {
        let mut queued = lock(&QUEUED);
        if *queued > 0 && *queued + len > PENDING_MAX {
            return Err((path, bytes));
        }
        *queued += len;
    }
    send(
        Job {
            path,
            body: Body::Bytes(bytes),
            mode,
            key,
            tally: tally.clone(),
        },
        len,
    )
    .map_err(|job| match job.body {
        Body::Bytes(b) => (job.path, b),
        Body::Render(_) => unreachable!("sent as bytes"),
    })
}

/// Queues a cache file (`Mode::Replace`, best effort) whose bytes `render` makes on a writer
/// thread, or hands `render` back when direct writes are off. Not counted against
/// `PENDING_MAX`: its inputs are held elsewhere anyway, and its bytes exist only while written.
pub(super) fn submit_render(path: PathBuf, render: Render) -> Result<(), (PathBuf, Render)> {
    send(
        Job {
            path,
            body: Body::Render(render),
            mode: Mode::Replace,
            key: None,
            tally: CACHES.clone(),
        },
        0,
    )
    .map_err(|job| match job.body {
        Body::Render(r) => (job.path, r),
        Body::Bytes(_) => unreachable!("sent as a render"),
    })
}

/// A writer thread: takes the next job, writes it, counts it done.
fn run(rx: &Mutex<mpsc::Receiver<Job>>) {
    let mut buf = disk::Aligned::new();
    loop {
        let Ok(job) = lock(rx).recv() else { return };
        let queued = match &job.body {
            Body::Bytes(b) => b.len(),
            Body::Render(_) => 0,
        };
        // A panic fails this file, not the thread: its tally is still counted down, so nobody
        // waits for it forever.
        let (path, mode) = (job.path.clone(), job.mode);
        let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let bytes = match job.body {
                Body::Bytes(b) => Some(b),
                Body::Render(render) => render(),
            };
            match &bytes {
                None => Ok(()),
                Some(b) if !disk::direct_enabled() => match mode {
                    Mode::New => disk::write_new(&path, b),
                    Mode::Replace => disk::write_atomic(&path, b),
                },
                Some(b) => match mode {
                    Mode::New => disk::write_new_direct(&path, b, &mut buf),
                    Mode::Replace => disk::write_atomic_direct(&path, b, &mut buf),
                },
            }
        }))
        .unwrap_or_else(|_| {
            Err(io::Error::other(
                "the writer thread panicked while writing it",
            ))
        });
        *lock(&QUEUED) -= queued;
        let failed = written.err().map(|e| {
            (
                job.key,
                io::Error::new(e.kind(), format!("{}: {e}", job.path.display())),
            )
        });
        job.tally.done(failed);
        job_done();
    }
}

/// Waits until the caches queued so far are written (a pack is read back after it is saved).
pub(crate) fn caches_written() {
    let _ = CACHES.finish();
}

/// Waits until every queued file, of every tally, is written: before the process exits.
pub(crate) fn all_written() {
    let mut jobs = lock(&JOBS);
    while *jobs > 0 {
        jobs = NO_JOBS.wait(jobs).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally() -> Arc<Tally> {
        Arc::new(Tally::default())
    }

    /// Sizes around the direct threshold, the block and the 1 MiB piece.
    fn sizes() -> Vec<usize> {
        let piece = 1 << 20;
        vec![
            DIRECT_MIN,
            DIRECT_MIN + 1,
            DIRECT_MIN + 4095,
            piece - 1,
            piece,
            piece + 1,
            3 * piece + 4097,
        ]
    }

    fn bytes_of(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn queued_files_appear_whole_once_their_tally_is_finished() {
        let t = tempfile::tempdir().unwrap();
        let mine = tally();
        let mut expected = Vec::new();
        for (i, len) in sizes().into_iter().enumerate() {
            let path = t.path().join(format!("chunks/lib/{i:03}.jsonl"));
            let bytes = bytes_of(len, i as u8);
            if let Err((path, bytes)) = submit(
                path.clone(),
                bytes.clone(),
                Mode::New,
                Some(format!("k{i}")),
                &mine,
            ) {
                // Handed back (the queue full, or direct writes off): the caller's write.
                super::disk::write_new(&path, &bytes).unwrap();
            }
            expected.push((path, bytes));
        }
        let (failed, first) = mine.finish();
        assert!(failed.is_empty() && first.is_none(), "{first:?}");
        for (path, bytes) in &expected {
            assert_eq!(std::fs::read(path).unwrap(), *bytes, "{}", path.display());
        }
        let names: Vec<String> = std::fs::read_dir(t.path().join("chunks/lib"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), expected.len(), "no temp files left: {names:?}");
    }

    #[test]
    fn a_failed_write_is_reported_to_its_own_tally_with_its_path_and_key() {
        let t = tempfile::tempdir().unwrap();
        // A regular file where a directory should be: the write cannot succeed.
        std::fs::write(t.path().join("blocked"), b"").unwrap();
        let path = t.path().join("blocked/000.jsonl");
        let (mine, other) = (tally(), tally());
        let queued = submit(
            path.clone(),
            bytes_of(DIRECT_MIN * 2, 7),
            Mode::New,
            Some("the-key".into()),
            &mine,
        )
        .is_ok();
        let (failed, first) = mine.finish();
        assert!(other.finish().1.is_none(), "another tally sees none of it");
        if queued {
            assert_eq!(failed, ["the-key"]);
            let e = first.expect("the failure is returned");
            assert!(e.to_string().contains(&path.display().to_string()), "{e}");
            assert!(mine.finish().1.is_none(), "collected once");
        } else {
            // Direct writes are off in this environment (`ASKZICO_DIRECT_WRITES=0`, or a
            // filesystem refused them earlier): nothing was queued.
            assert!(failed.is_empty() && first.is_none());
        }
    }
}
