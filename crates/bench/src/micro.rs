//! `askzico-bench micro`: single-thread throughput of the per-document stages on real
//! extracted documents. The documents of a corpus (by default `examples/shared-corpora`, the
//! shared Arabic corpora read at run time) are discovered, read and extracted once, untimed; then
//! each component runs over all of them on this thread, several times, and reports source
//! megabytes (bytes of the text it was given) per second: median, min and max over the runs.
//!
//! Components, each the code the build runs:
//! - `chunk`: `chunk::chunk` on each document body (bytes: the body text);
//! - `normalize (build)`: `normalize::chunk_fields` on each chunk, what the build's `normalize`
//!   stage does (search text, dagger-alef and madda variants, title and heading tokens with
//!   their stems; bytes: the chunk text);
//! - `search_text`: `normalize::search_text_with_variants` alone, with the configured rules;
//! - `conservative`: `normalize::normalize` with `Rules::conservative()` (no lossy folds);
//! - `stem`: `normalize::stem::stem` on each distinct token of each chunk's search text, as the
//!   lexical postings call it (bytes: the chunk text the tokens came from);
//! - `word_extras`: `normalize::WordExtras::each` (a word's `both` aliases, article and light
//!   stems) on each distinct token of each chunk, as the lexical postings call it per distinct
//!   term of a part (an upper bound: a part's terms are fewer than its chunks' distinct tokens);
//! - `stem_key`: the same as `stem` with `normalize::stem::stem_key`, which does not allocate
//!   the key.
//!
//! Documents fall into sets by their letters: `diacritized` (at least one Arabic mark per three
//! Arabic letters: the Quran, most liturgy), `prose` (other text whose letters are mostly Arabic)
//! and `mixed` (Arabic with much Latin: technical docs with code); `all` is every document.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::corpus::BenchError;
use crate::harness::{Summary, fmt, load_average};
use askzico::Config;
use askzico::Document;
use askzico::normalize::{self, Rules};
use askzico::text::Text;

/// The components, in the table's order.
pub(crate) const COMPONENTS: [&str; 7] = [
    "chunk",
    "normalize (build)",
    "search_text",
    "conservative",
    "stem",
    "word_extras",
    "stem_key",
];

/// What to measure.
pub(crate) struct MicroOptions {
    pub config: PathBuf,
    pub runs: usize,
    /// Only these components (all when empty).
    pub components: Vec<String>,
}

/// One component on one set.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Measure {
    pub component: &'static str,
    /// Source megabytes per second of this thread's CPU time (bytes of text given to the
    /// component): the per-core figure.
    pub mb_per_s: Summary,
    /// The same per second of wall time (lower on a busy machine).
    pub wall_mb_per_s: Summary,
    /// Thread CPU milliseconds per run.
    pub ms: Summary,
}

/// One set of documents.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SetReport {
    pub set: &'static str,
    pub docs: usize,
    pub chunks: usize,
    pub body_bytes: u64,
    pub chunk_bytes: u64,
    pub measures: Vec<Measure>,
}

/// The whole report (`--json`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MicroReport {
    pub config: String,
    pub runs: usize,
    pub threads: usize,
    pub note: &'static str,
    pub load_average_before: String,
    pub load_average_after: String,
    pub sets: Vec<SetReport>,
}

pub(crate) const NOTE: &str = "single thread; MB/s = megabytes of source text given to the component per second of the thread's CPU time \
(wall MB/s: per second of wall time), median [min-max] over runs after one warm-up run; extraction is done once beforehand and not timed";

const SETS: [&str; 4] = ["diacritized", "prose", "mixed", "all"];

/// A document with its chunks (spans computed once, for the per-chunk components).
struct Doc {
    doc: Document,
    spans: Vec<askzico::ChunkSpan>,
    /// Distinct tokens of each chunk's search text (what the lexical postings stem).
    distinct: Vec<Vec<String>>,
}

/// Runs the micro-benchmark on the documents of `cfg` (loaded from `opts.config`); `progress`
/// receives one line per step.
pub(crate) fn run(
    opts: &MicroOptions,
    cfg: &Config,
    progress: &mut dyn FnMut(&str),
) -> Result<MicroReport, BenchError> {
    if let Some(unknown) = opts
        .components
        .iter()
        .find(|c| !COMPONENTS.contains(&c.as_str()))
    {
        return Err(BenchError::UnknownComponent {
            name: unknown.clone(),
            known: COMPONENTS.join(", "),
        });
    }
    progress(&format!(
        "extracting the documents of {}",
        opts.config.display()
    ));
    let docs = load(cfg)?;
    let load_before = load_average();
    let mut sets = Vec::new();
    for set in SETS {
        let chosen: Vec<&Doc> = docs
            .iter()
            .filter(|d| set == "all" || classify(&d.doc.body.text) == set)
            .collect();
        if chosen.is_empty() {
            continue;
        }
        progress(&format!("{set}: {} documents", chosen.len()));
        sets.push(measure_set(cfg, set, &chosen, opts.runs, &opts.components));
    }
    Ok(MicroReport {
        config: opts.config.display().to_string(),
        runs: opts.runs,
        threads: 1,
        note: NOTE,
        load_average_before: load_before,
        load_average_after: load_average(),
        sets,
    })
}

/// Every document of the config's libraries, extracted, with its chunk spans.
fn load(cfg: &Config) -> Result<Vec<Doc>, BenchError> {
    let libs = cfg
        .libraries_for(None)
        .map_err(|p| BenchError::Config(p.headline()))?;
    let out = cfg.out_dir_or(None);
    let (files, problems) = askzico::discover(cfg, &libs, &out);
    if problems.has_errors() {
        let lines: Vec<String> = problems
            .0
            .iter()
            .filter(|p| p.is_error())
            .map(|p| p.headline())
            .collect();
        return Err(BenchError::Config(lines.join("; ")));
    }
    let mut docs = Vec::new();
    for f in &files {
        let lib = &cfg.libraries[f.library];
        // Sources are read no further than the build reads them (`max_file_mb`).
        let bytes = askzico::read_capped(&f.path, cfg.max_file_bytes).map_err(|source| {
            BenchError::Read {
                path: f.path.clone(),
                source,
            }
        })?;
        let display = lib.display_name(&f.rel);
        let settings = lib.compile_settings();
        for doc in askzico::extract(
            &display,
            &f.rel,
            &bytes,
            f.format,
            &settings.extract,
            &askzico::Includes::default(),
        )
        .docs
        {
            let spans = askzico::chunk(&doc.body, &cfg.chunking);
            let distinct = spans
                .iter()
                .map(|s| {
                    let search = normalize::search_text(
                        &Text::new(&doc.body.text[s.start..s.end]),
                        &cfg.normalize,
                    );
                    let mut t: Vec<String> = search.tokens().map(str::to_string).collect();
                    t.sort_unstable();
                    t.dedup();
                    t
                })
                .collect();
            docs.push(Doc {
                doc,
                spans,
                distinct,
            });
        }
    }
    if docs.is_empty() {
        return Err(BenchError::NoDocuments(cfg.path.clone()));
    }
    Ok(docs)
}

/// `diacritized`, `prose` or `mixed` (see the module docs).
fn classify(text: &str) -> &'static str {
    let (mut arabic, mut marks, mut other) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        match c as u32 {
            0x0621..=0x064A | 0x0671..=0x06D3 => arabic += 1,
            0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED => marks += 1,
            _ if c.is_alphabetic() => other += 1,
            _ => {}
        }
    }
    if arabic > 0 && marks * 3 >= arabic {
        "diacritized"
    } else if arabic >= 4 * other {
        "prose"
    } else {
        "mixed"
    }
}

fn measure_set(
    cfg: &Config,
    set: &'static str,
    docs: &[&Doc],
    runs: usize,
    only: &[String],
) -> SetReport {
    let body_bytes: u64 = docs.iter().map(|d| d.doc.body.text.len() as u64).sum();
    let chunk_bytes: u64 = docs
        .iter()
        .flat_map(|d| d.spans.iter().map(|s| (s.end - s.start) as u64))
        .sum();
    let chunks = docs.iter().map(|d| d.spans.len()).sum();
    let conservative = Rules::conservative();
    let each_chunk = |f: &mut dyn FnMut(&Document, &askzico::ChunkSpan)| {
        for d in docs {
            for s in &d.spans {
                f(&d.doc, s);
            }
        }
    };
    let wanted = |c: &str| only.is_empty() || only.iter().any(|o| o == c);
    let measures = vec![
        wanted("chunk").then(|| {
            time("chunk", body_bytes, runs, &mut || {
                for d in docs {
                    black_box(askzico::chunk(black_box(&d.doc.body), &cfg.chunking));
                }
            })
        }),
        wanted("normalize (build)").then(|| {
            time("normalize (build)", chunk_bytes, runs, &mut || {
                each_chunk(&mut |doc, s| {
                    let text = Text::new(&doc.body.text[s.start..s.end]);
                    black_box(normalize::chunk_fields(
                        &text,
                        doc.title.as_deref(),
                        &s.heading_path,
                        &cfg.normalize,
                        cfg.article_stems,
                    ));
                })
            })
        }),
        wanted("search_text").then(|| {
            time("search_text", chunk_bytes, runs, &mut || {
                each_chunk(&mut |doc, s| {
                    black_box(normalize::normalize_with_variants(
                        black_box(&doc.body.text[s.start..s.end]),
                        &cfg.normalize,
                    ));
                })
            })
        }),
        wanted("conservative").then(|| {
            time("conservative", chunk_bytes, runs, &mut || {
                each_chunk(&mut |doc, s| {
                    black_box(normalize::normalize(
                        black_box(&doc.body.text[s.start..s.end]),
                        &conservative,
                    ));
                })
            })
        }),
        wanted("stem").then(|| {
            time("stem", chunk_bytes, runs, &mut || {
                for d in docs {
                    for t in d.distinct.iter().flatten() {
                        black_box(normalize::stem::stem(black_box(t)));
                    }
                }
            })
        }),
        wanted("word_extras").then(|| {
            time("word_extras", chunk_bytes, runs, &mut || {
                let extras = cfg.word_extras();
                for d in docs {
                    for t in d.distinct.iter().flatten() {
                        extras.each(black_box(t.as_str()), |x| {
                            black_box(x);
                        });
                    }
                }
            })
        }),
        wanted("stem_key").then(|| {
            time("stem_key", chunk_bytes, runs, &mut || {
                for d in docs {
                    for t in d.distinct.iter().flatten() {
                        black_box(normalize::stem::stem_key(black_box(t)).map(|k| k.len()));
                    }
                }
            })
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    SetReport {
        set,
        docs: docs.len(),
        chunks,
        body_bytes,
        chunk_bytes,
        measures,
    }
}

/// Runs `f` once to warm up, then `runs` times, timed by this thread's CPU time (time the
/// thread waited for a core on a busy machine does not count) and by the wall clock.
fn time(component: &'static str, bytes: u64, runs: usize, f: &mut dyn FnMut()) -> Measure {
    f();
    let (mut cpu, mut wall) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let (c, t) = (thread_cpu_secs(), Instant::now());
        f();
        wall.push(t.elapsed().as_secs_f64().max(1e-9));
        cpu.push((thread_cpu_secs() - c).max(1e-9));
    }
    let mbs = |secs: &[f64]| {
        Summary::of(
            &secs
                .iter()
                .map(|s| bytes as f64 / 1e6 / s)
                .collect::<Vec<_>>(),
        )
        .expect("runs >= 1")
    };
    let ms: Vec<f64> = cpu.iter().map(|s| s * 1e3).collect();
    Measure {
        component,
        mb_per_s: mbs(&cpu),
        wall_mb_per_s: mbs(&wall),
        ms: Summary::of(&ms).expect("runs >= 1"),
    }
}

/// CPU time of the calling thread, in seconds.
fn thread_cpu_secs() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes to it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// The human report: one table, a row per component and set.
pub(crate) fn render_table(r: &MicroReport) -> String {
    let mut s = format!(
        "\n{} — single thread, {} runs; load average {} before, {} after\n\n| set | docs | chunks | MB | component | MB/s (CPU) | wall MB/s | CPU ms |\n|---|---|---|---|---|---|---|---|\n",
        r.config, r.runs, r.load_average_before, r.load_average_after
    );
    for set in &r.sets {
        for m in &set.measures {
            let mb = if m.component == "chunk" {
                set.body_bytes
            } else {
                set.chunk_bytes
            } as f64
                / 1e6;
            s.push_str(&format!(
                "| {} | {} | {} | {mb:.2} | {} | {} | {} | {} |\n",
                set.set,
                set.docs,
                set.chunks,
                m.component,
                fmt(&m.mb_per_s, ""),
                fmt(&m.wall_mb_per_s, ""),
                fmt(&m.ms, "")
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{BenchError, MicroOptions, classify, run};

    /// An unknown component is refused by kind, before any document is read, and the message
    /// lists the components.
    #[test]
    fn an_unknown_component_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        let toml = "[corpus]\nname = \"t\"\n\n[[library]]\nid = \"lib\"\nroot = \"docs\"\n";
        let path = dir.path().join("corpus.toml");
        let cfg = askzico::Config::parse(toml, "corpus.toml", dir.path(), &path).unwrap();
        let opts = MicroOptions {
            config: path,
            runs: 1,
            components: vec!["chunk".into(), "nope".into()],
        };
        let e = run(&opts, &cfg, &mut |_| {}).expect_err("refused");
        assert!(
            matches!(&e, BenchError::UnknownComponent { name, .. } if name == "nope"),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("no component \"nope\" (the components: chunk, "),
            "{e}"
        );
    }

    #[test]
    fn documents_fall_into_sets_by_their_letters() {
        assert_eq!(classify("بِسۡمِ ٱللَّهِ ٱلرَّحۡمَٰنِ ٱلرَّحِيمِ"), "diacritized");
        assert_eq!(classify("ولد السيد المسيح في بيت لحم"), "prose");
        assert_eq!(
            classify("استخدم useState في React: const [a, setA] = useState(0)"),
            "mixed"
        );
        assert_eq!(classify("let x = 1;"), "mixed");
    }
}
