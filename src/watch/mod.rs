//! watch: `askzico build --watch`. Recompiles on every save with a short debounce, through the
//! engine so only what an edit touched is recomputed. Watches library roots recursively and the
//! config; handles editor saves (temp + rename), new directories (files in them are found by
//! listing the libraries again), deletes, renames, config edits (a bad config keeps the last good
//! build), unreadable files and inotify overflow (full rescan). Ignores its own output directory.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::event::ModifyKind;
use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, new_debouncer};

use crate::config::Config;
use crate::engine::BuildRequest;
use crate::engine::Engine;

/// Debounce window: an event leaves the debouncer between `DEBOUNCE` and `DEBOUNCE + TICK` after
/// it happened, and the build then reads the file as it is. Short enough for "saved → rebuilt"
/// to feel instant; long enough that an editor's write-temp + rename (well under a millisecond
/// apart) and a save written in bursts within it (a truncate, then the text; a program flushing
/// as it goes) are built once, whole, instead of a build of the half-written file first.
const DEBOUNCE: Duration = Duration::from_millis(50);
const TICK: Duration = Duration::from_millis(2);

pub(crate) struct WatchOptions {
    pub config: PathBuf,
    /// `--sources DIR` instead of a config file (there is then no config to watch).
    pub sources: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub env: Option<String>,
    /// `--allow-empty`: a build without documents replaces the last one.
    pub allow_empty: bool,
    /// Say on stderr what is watched (not with `--json`).
    pub announce: bool,
    /// When the first build counts from (the process start).
    pub started: Instant,
}

/// Why a watch could not go on. Ctrl-C ends it with `Ok`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    /// The file watcher could not start.
    #[error("cannot watch files: {0}")]
    Start(notify::Error),
    /// The config's directory cannot be watched.
    #[error("cannot watch {}: {source}", path.display())]
    ConfigDir {
        path: PathBuf,
        source: notify::Error,
    },
    /// The output directory is refused before the first build, so there is no build to keep.
    #[error("{}", .0.message)]
    OutDir(crate::diag::Problem),
}

enum Msg {
    Fs(DebounceEventResult),
    Stop,
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// What a watch build answers: the start, a config edit, a lost event (everything listed
/// again), or saves of these files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trigger {
    Start,
    Config,
    Rescan,
    Files(Vec<PathBuf>),
}

impl Trigger {
    /// What changed, for the status line of its build: `sources/a.md changed`, with paths
    /// relative to the working directory when they lie under it; `None` for the first build.
    pub(crate) fn describe(&self) -> Option<String> {
        match self {
            Trigger::Start => None,
            Trigger::Config => Some("config changed".to_string()),
            Trigger::Rescan => Some("files changed (listed again)".to_string()),
            Trigger::Files(paths) => {
                let cwd = std::env::current_dir().map(|d| canonical(&d)).ok();
                let shown: Vec<String> = paths
                    .iter()
                    .take(3)
                    .map(|p| {
                        let rel = cwd.as_deref().and_then(|d| p.strip_prefix(d).ok());
                        crate::term::line(&rel.unwrap_or(p).display().to_string()).into_owned()
                    })
                    .collect();
                let more = match paths.len() {
                    0..=3 => String::new(),
                    n => format!(" and {} more", n - 3),
                };
                Some(format!("{}{more} changed", shown.join(", ")))
            }
        }
    }
}

/// The local time of day, `HH:MM:SS`, for watch status lines.
pub(crate) fn clock() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let t = libc::time_t::try_from(now).unwrap_or_default();
    // SAFETY: `localtime_r` writes into the `tm` it is given and reads only `t`.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = !unsafe { libc::localtime_r(&t, &mut tm) }.is_null();
    if ok {
        format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
    } else {
        let s = now % 86_400;
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// Runs until Ctrl-C; `report` shows each build with what it answers. Problems of a config
/// edit are printed here, and the last good build is kept.
pub(crate) fn run(
    opts: &WatchOptions,
    report: impl Fn(&crate::engine::BuildReport, &Trigger),
) -> Result<(), WatchError> {
    let (tx, rx) = mpsc::channel::<Msg>();
    let stop = tx.clone();
    let _ = ctrlc::set_handler(move || {
        let _ = stop.send(Msg::Stop);
    });
    let fs_tx = tx.clone();
    let mut debouncer = match new_debouncer(DEBOUNCE, Some(TICK), move |r: DebounceEventResult| {
        let _ = fs_tx.send(Msg::Fs(r));
    }) {
        Ok(d) => d,
        Err(e) => return Err(WatchError::Start(e)),
    };
    // The config file and its directory; with `--sources` there is no config file to watch.
    let config_path = opts.sources.is_none().then(|| canonical(&opts.config));
    let config_dir = config_path.as_ref().map(|c| {
        c.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    });
    if let Some(dir) = &config_dir
        && let Err(e) = debouncer.watch(dir, RecursiveMode::NonRecursive)
    {
        return Err(WatchError::ConfigDir {
            path: dir.clone(),
            source: e,
        });
    }

    let mut state = State {
        engine: None,
        watched: BTreeSet::new(),
        included: BTreeSet::new(),
        out_dir: PathBuf::new(),
        // The first build counts from process start.
        pending: Some(Pending {
            started: opts.started,
            changed: None,
            trigger: Trigger::Start,
        }),
        reload_config: true,
        edits_only: false,
    };
    loop {
        if state.reload_config {
            state.reload(opts, &mut debouncer)?;
        }
        state.build(opts, &report, &mut debouncer);
        // Wait for the next change, then coalesce everything that arrived meanwhile.
        let first = match rx.recv() {
            Ok(m) => m,
            Err(_) => return Ok(()),
        };
        let mut msgs = vec![first];
        while let Ok(m) = rx.recv_timeout(Duration::from_millis(2)) {
            msgs.push(m);
        }
        let places = Places {
            config_path: config_path.as_deref(),
            config_dir: config_dir.as_deref(),
            watched: &state.watched,
            included: &state.included,
            out_dir: &state.out_dir,
        };
        let Some(batch) = batch(msgs, &places) else {
            eprintln!("watch stopped");
            return Ok(());
        };
        state.take(batch);
    }
}

/// The line that says what a watch watches and how it stops: the library roots and the
/// config (none with `--sources`), as given.
fn announce(cfg: &Config, opts: &WatchOptions) {
    let roots: Vec<String> = cfg
        .libraries
        .iter()
        .map(|l| crate::term::line(&l.root_display).into_owned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let config = match &opts.sources {
        Some(_) => String::new(),
        None => format!(
            " and {}",
            crate::term::line(&opts.config.display().to_string())
        ),
    };
    eprintln!(
        "[watch] watching {}{config}; saves rebuild what they touch; press Ctrl-C to stop",
        roots.join(", ")
    );
}

type Watcher = notify_debouncer_full::Debouncer<
    notify::RecommendedWatcher,
    notify_debouncer_full::RecommendedCache,
>;

/// A watch between builds: the engine (once a config loaded), the roots watched, the output
/// directory ignored, and the build the last batch asks for.
struct State {
    engine: Option<Engine>,
    watched: BTreeSet<PathBuf>,
    /// The folders of included files outside `watched`, watched one level deep.
    included: BTreeSet<PathBuf>,
    out_dir: PathBuf,
    pending: Option<Pending>,
    /// The config changed (or was never loaded): load it before the next build.
    reload_config: bool,
    /// The pending build only changed the contents of known files.
    edits_only: bool,
}

/// A build to run: when its time counts from, and the paths that changed (`None`: list
/// everything again).
struct Pending {
    started: Instant,
    changed: Option<BTreeSet<PathBuf>>,
    trigger: Trigger,
}

impl State {
    /// Loads the config: a good one is watched (its library roots) and handed to the engine, and
    /// everything is listed again; a bad one is reported and the last good build kept. Only an
    /// output directory refused before the first build ends the watch.
    fn reload(&mut self, opts: &WatchOptions, debouncer: &mut Watcher) -> Result<(), WatchError> {
        let loaded =
            Config::load_or_sources(&opts.config, opts.sources.as_deref(), opts.out.as_deref())
                .map(|cfg| {
                    let out = cfg.out_dir_for_writing(opts.out.as_deref());
                    (cfg, out)
                });
        match loaded {
            Ok((_, Err(p))) => {
                if self.engine.is_none() {
                    return Err(WatchError::OutDir(p));
                }
                crate::diag::Problems(vec![p]).report();
                eprintln!("keeping the last good build; fix --out or the config to continue");
                self.pending = None;
            }
            Ok((cfg, Ok(_))) => {
                self.out_dir = canonical(&cfg.out_dir_or(opts.out.as_deref()));
                let roots: BTreeSet<PathBuf> =
                    cfg.libraries.iter().map(|l| canonical(&l.root)).collect();
                for r in self.watched.difference(&roots) {
                    let _ = debouncer.unwatch(r);
                }
                for r in roots.difference(&self.watched) {
                    if let Err(e) = debouncer.watch(r, RecursiveMode::Recursive) {
                        eprintln!("cannot watch {}: {e}", r.display());
                    }
                }
                if opts.announce && roots != self.watched {
                    announce(&cfg, opts);
                }
                self.watched = roots;
                match &mut self.engine {
                    Some(e) => e.set_config(cfg),
                    None => self.engine = Some(Engine::new(cfg)),
                }
                // A new config can change everything: rescan.
                let (started, trigger) = match self.pending.take() {
                    Some(p) => (p.started, p.trigger),
                    None => (Instant::now(), Trigger::Config),
                };
                self.pending = Some(Pending {
                    started,
                    changed: None,
                    trigger,
                });
            }
            Err(problems) => {
                problems.report();
                eprintln!(
                    "config has errors: keeping the last good build; fix {} to continue",
                    opts.sources.as_ref().unwrap_or(&opts.config).display()
                );
                self.pending = None;
            }
        }
        Ok(())
    }

    /// Runs the pending build, if any (and once a config loaded), watches the folders of the
    /// files it included, and reports it.
    fn build(
        &mut self,
        opts: &WatchOptions,
        report: &impl Fn(&crate::engine::BuildReport, &Trigger),
        debouncer: &mut Watcher,
    ) {
        let (
            Some(Pending {
                started,
                changed,
                trigger,
            }),
            Some(eng),
        ) = (self.pending.take(), self.engine.as_mut())
        else {
            return;
        };
        let req = BuildRequest {
            out: eng.config().out_dir_or(opts.out.as_deref()),
            env: opts.env.clone(),
            progress: false,
            allow_empty: opts.allow_empty,
        };
        let rep = match (&changed, self.edits_only) {
            (Some(c), true) => eng.build_contents(&req, started, c),
            _ => eng.build_from(&req, started, changed.as_ref()),
        };
        // Before the report: an edit made once the build is reported is seen.
        self.watch_included(debouncer);
        report(&rep, &trigger);
    }

    /// Watches the folders of the files the sources include that no library root holds, and
    /// stops watching those no source includes any more.
    fn watch_included(&mut self, debouncer: &mut Watcher) {
        let Some(eng) = &self.engine else { return };
        let dirs: BTreeSet<PathBuf> = eng
            .include_dirs()
            .into_iter()
            .filter(|d| !self.watched.iter().any(|r| d.starts_with(r)))
            .collect();
        for d in self.included.difference(&dirs) {
            let _ = debouncer.unwatch(d);
        }
        for d in dirs.difference(&self.included) {
            if let Err(e) = debouncer.watch(d, RecursiveMode::NonRecursive) {
                eprintln!("cannot watch {}: {e}", d.display());
            }
        }
        self.included = dirs;
    }

    /// What a batch of messages asks for: a config reload, a build of the changed paths, or a
    /// rescan; nothing when it changed nothing.
    fn take(&mut self, batch: Batch) {
        self.reload_config = batch.reload_config;
        if batch.changed.is_empty() && !batch.rescan && !self.reload_config {
            return;
        }
        let started = batch.earliest.unwrap_or_else(Instant::now);
        self.edits_only = batch.contents_only && !batch.rescan && !self.reload_config;
        let trigger = if self.reload_config {
            Trigger::Config
        } else if batch.rescan {
            Trigger::Rescan
        } else {
            Trigger::Files(batch.changed.iter().cloned().collect())
        };
        self.pending = Some(Pending {
            started,
            changed: if batch.rescan || self.reload_config {
                None
            } else {
                Some(batch.changed)
            },
            trigger,
        });
    }
}

/// What a batch of watcher messages asks for.
struct Batch {
    /// The paths that changed (outside the output directory and other files beside the config).
    changed: BTreeSet<PathBuf>,
    /// Whether every event only changed the contents of a file (no create, remove or rename):
    /// then the file set is unchanged and the libraries need not be listed again.
    contents_only: bool,
    /// The watcher lost events (or said so): list everything again.
    rescan: bool,
    /// The config file changed.
    reload_config: bool,
    /// When the earliest event happened (a build's time counts from it).
    earliest: Option<Instant>,
}

/// Where events are placed: the config file and its folder (none with `--sources`), the
/// watched library roots, the output directory.
struct Places<'a> {
    config_path: Option<&'a Path>,
    config_dir: Option<&'a Path>,
    watched: &'a BTreeSet<PathBuf>,
    included: &'a BTreeSet<PathBuf>,
    out_dir: &'a Path,
}

/// The batch `msgs` make, or `None` when one of them is the stop (Ctrl-C).
fn batch(msgs: Vec<Msg>, at: &Places) -> Option<Batch> {
    let mut b = Batch {
        changed: BTreeSet::new(),
        contents_only: true,
        rescan: false,
        reload_config: false,
        earliest: None,
    };
    for m in msgs {
        let events = match m {
            Msg::Stop => return None,
            Msg::Fs(Ok(events)) => events,
            Msg::Fs(Err(errors)) => {
                for e in errors {
                    eprintln!("watch error: {e}; rescanning");
                }
                b.rescan = true;
                continue;
            }
        };
        for ev in events {
            if matches!(ev.event.kind, EventKind::Access(_)) {
                continue; // our own reads
            }
            if ev.event.need_rescan() {
                b.rescan = true;
            }
            let edit = matches!(
                ev.event.kind,
                EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any | ModifyKind::Metadata(_))
            );
            for p in &ev.event.paths {
                let p = canonical(p);
                if p.starts_with(at.out_dir) {
                    continue;
                }
                if at.config_path == Some(p.as_path()) {
                    b.reload_config = true;
                } else if at.config_dir.is_some()
                    && p.parent() == at.config_dir
                    && !at.watched.iter().any(|r| p.starts_with(r))
                    && !p.parent().is_some_and(|d| at.included.contains(d))
                {
                    continue; // another file beside the config
                }
                b.contents_only &= edit;
                b.earliest = Some(b.earliest.map_or(ev.time, |e: Instant| e.min(ev.time)));
                b.changed.insert(p);
            }
        }
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An output directory refused before the first build ends the watch with the problem, for
    /// the CLI to report and map to its exit code; nothing is built.
    #[test]
    fn a_refused_out_dir_at_start_is_returned_not_printed() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("corpus.toml");
        std::fs::write(
            &config,
            "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"lib\"\nroot = \"sources\"\n",
        )
        .unwrap();
        let sources = dir.path().join("sources");
        std::fs::create_dir(&sources).unwrap();
        std::fs::write(sources.join("a.md"), "# A\n\nText.\n").unwrap();
        let opts = WatchOptions {
            config,
            sources: None,
            out: Some(sources.clone()),
            env: None,
            allow_empty: false,
            announce: false,
            started: Instant::now(),
        };
        let built = std::cell::Cell::new(0);
        let ended = run(&opts, |_, _| built.set(built.get() + 1));
        match ended {
            Err(WatchError::OutDir(p)) => assert_eq!(p.code, "out-dir"),
            other => panic!("expected the out-dir problem, got {other:?}"),
        }
        assert_eq!(built.get(), 0);
        assert!(!sources.join(".askzico").exists());
    }

    fn event(kind: EventKind, path: &Path, time: Instant) -> notify_debouncer_full::DebouncedEvent {
        notify_debouncer_full::DebouncedEvent::new(
            notify::Event::new(kind).add_path(path.to_path_buf()),
            time,
        )
    }

    /// A batch keeps the changed sources with the time of the earliest, leaves out the output
    /// directory and other files beside the config, says whether only contents changed, reloads
    /// on a config edit, and ends the watch on Ctrl-C.
    #[test]
    fn a_batch_says_what_the_events_ask_for() {
        let dir = tempfile::tempdir().unwrap();
        let base = canonical(dir.path());
        let (config, root, out) = (base.join("corpus.toml"), base.join("src"), base.join("out"));
        let watched: BTreeSet<PathBuf> = [root.clone()].into();
        let at = Places {
            config_path: Some(&config),
            config_dir: Some(&base),
            watched: &watched,
            included: &BTreeSet::new(),
            out_dir: &out,
        };
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(5);
        let data = EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Content));
        let create = EventKind::Create(notify::event::CreateKind::File);
        let b = batch(
            vec![Msg::Fs(Ok(vec![
                event(data, &root.join("a.md"), t1),
                event(data, &out.join("chunks/x.jsonl"), t0),
                event(data, &base.join("notes.txt"), t0),
                event(
                    EventKind::Access(notify::event::AccessKind::Any),
                    &root.join("b.md"),
                    t0,
                ),
            ]))],
            &at,
        )
        .unwrap();
        assert_eq!(b.changed, [root.join("a.md")].into());
        assert!(b.contents_only && !b.rescan && !b.reload_config);
        assert_eq!(b.earliest, Some(t1));

        let b = batch(
            vec![Msg::Fs(Ok(vec![
                event(create, &root.join("new.md"), t1),
                event(data, &config, t0),
            ]))],
            &at,
        )
        .unwrap();
        assert!(!b.contents_only && b.reload_config);
        assert_eq!(b.earliest, Some(t0));

        assert!(batch(vec![Msg::Fs(Ok(Vec::new())), Msg::Stop], &at).is_none());
    }
}
