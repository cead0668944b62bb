//! corpus: a deterministic synthetic corpus for benchmarks — N documents of Markdown, MDX and
//! some HTML, with frontmatter, headings, paragraphs, lists and code, built from Arabic text of
//! the licensed shared corpora (the Synaxarium, the Agpeya, the Quran: with and without
//! diacritics) read at run time. The same seed gives the same bytes. Nothing generated is
//! committed.

use std::path::{Path, PathBuf};

/// Why a benchmark or the corpus generator stopped; the message follows `bench: `.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BenchError {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A source file could not be read within its limit.
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: askzico::ReadError,
    },
    /// The source an edit run changed could not be put back.
    #[error("cannot restore {}: {source}", path.display())]
    Restore {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot delete {}: {source}", path.display())]
    Delete {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start {}: {source}", exe.display())]
    Start {
        exe: PathBuf,
        source: std::io::Error,
    },
    #[error("wait4: {0}")]
    Wait(std::io::Error),
    #[error("build of {} failed (status {status}):\n{stderr}", config.display())]
    BuildFailed {
        config: PathBuf,
        status: i32,
        stderr: String,
    },
    /// A measured process did not give what the benchmark reads, or there was nothing to
    /// measure.
    #[error("{0}")]
    Missing(&'static str),
    #[error("watch stats: {0}")]
    WatchStats(serde_json::Error),
    #[error("{} holds no file to edit", .0.display())]
    NothingToEdit(PathBuf),
    #[error("{0}")]
    Walk(walkdir::Error),
    /// A shared corpus file is not the JSON the generator reads.
    #[error("{0}")]
    Json(serde_json::Error),
    #[error("no paragraphs found in the shared corpora")]
    NoParagraphs,
    #[error("no component {name:?} (the components: {known})")]
    UnknownComponent { name: String, known: String },
    /// The config's libraries or sources are in error (their problems' headlines).
    #[error("{0}")]
    Config(String),
    #[error("{} yields no documents", .0.display())]
    NoDocuments(PathBuf),
    /// The generator's destination holds something it did not make: nothing is written.
    #[error("{}: {why}", path.display())]
    NotOurs { path: PathBuf, why: &'static str },
}

impl BenchError {
    pub(crate) fn file(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
        move |source| BenchError::File {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn restore(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
        move |source| BenchError::Restore {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn start(exe: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
        move |source| BenchError::Start {
            exe: exe.to_path_buf(),
            source,
        }
    }
}

/// xorshift64*: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Paragraphs of Arabic text from the licensed shared corpora.
pub(crate) fn paragraph_pool(corpora: &Path) -> Result<Vec<String>, BenchError> {
    let mut pool = Vec::new();
    let read = |p: &Path| std::fs::read_to_string(p).map_err(BenchError::file(p));
    let syn: serde_json::Value = serde_json::from_str(&read(
        &corpora.join("coptic-io-ar/packages/data/src/ar/synaxarium/canonical.json"),
    )?)
    .map_err(BenchError::Json)?;
    for entries in syn.as_object().into_iter().flat_map(|m| m.values()) {
        for e in entries.as_array().into_iter().flatten() {
            if let Some(t) = e.get("text").and_then(|t| t.as_str()) {
                pool.extend(
                    t.split("\n\n")
                        .map(|p| askzico::decode_entities(p.trim()).into_owned())
                        .filter(|p| p.chars().count() > 80),
                );
            }
        }
    }
    let quran: serde_json::Value =
        serde_json::from_str(&read(&corpora.join("quran-json/dist/quran.json"))?)
            .map_err(BenchError::Json)?;
    for s in quran.as_array().into_iter().flatten() {
        let verses: Vec<&str> = s["verses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["text"].as_str())
            .collect();
        for group in verses.chunks(4) {
            pool.push(group.join(" "));
        }
    }
    if pool.is_empty() {
        return Err(BenchError::NoParagraphs);
    }
    Ok(pool)
}

/// The generator's version: any change to what `generate` writes for a seed bumps it, so a
/// corpus kept from an older generator (`askzico-bench builds` keeps them by size and seed) is made
/// again instead of being measured as if it were today's. Each section has one to three
/// paragraphs, so 10k documents are about 110 MB, the size the performance figures are
/// quoted at.
pub(crate) const GENERATOR_VERSION: u32 = 2;

/// Writes `docs` documents and a corpus.toml into `dest`: a new or empty folder, or one it
/// generated before (`CORPUS_MARKER`); any other is refused before anything is written, and
/// no write follows a link out of `dest`.
pub(crate) fn generate(
    corpora: &Path,
    dest: &Path,
    docs: usize,
    seed: u64,
) -> Result<u64, BenchError> {
    claim_corpus_dir(dest)?;
    for dir in ["md", "mdx", "html"] {
        askzico::real_dirs_under(dest, &Path::new("sources").join(dir)).map_err(
            |path| BenchError::NotOurs {
                path,
                why: "is not a real folder (a symbolic link or a file): the generator writes only into real folders of its corpus",
            },
        )?;
    }
    let pool = paragraph_pool(corpora)?;
    let mut g = Generator {
        pool: &pool,
        rng: Rng(seed.max(1) ^ 0x9E3779B97F4A7C15),
    };
    let mut bytes = 0u64;
    for i in 0..docs {
        let kind = match g.rng.below(20) {
            0 => "html",
            1..=5 => "mdx",
            _ => "md",
        };
        let title = g.words(5);
        let mut body = String::new();
        let sections = 3 + g.rng.below(5);
        for s in 0..sections {
            g.section(kind, s, &mut body);
        }
        let (path, content) = document(kind, i, &title, &body);
        bytes += content.len() as u64;
        write_file(&dest.join(path), content.as_bytes())?;
    }
    let cfg = "[corpus]\nname = \"bench\"\nout = \"out\"\n\n[[library]]\nid = \"md\"\nroot = \"sources/md\"\ndomains = [\"md\"]\n\n[[library]]\nid = \"mdx\"\nroot = \"sources/mdx\"\nformat = \"mdx\"\ndomains = [\"mdx\"]\n\n[[library]]\nid = \"html\"\nroot = \"sources/html\"\ndomains = [\"html\"]\n";
    write_file(&dest.join("corpus.toml"), cfg.as_bytes())?;
    Ok(bytes)
}

/// Writes `records` small JSON records (`{"n", "title", "text"}`: a few words of the paragraph
/// pool each) in files of 10,000 under `sources/records/`, and a corpus.toml mapping them, into
/// `dest` (claimed as `generate` claims it). Returns the sources' bytes.
pub(crate) fn generate_records(
    corpora: &Path,
    dest: &Path,
    records: usize,
    seed: u64,
) -> Result<u64, BenchError> {
    const PER_FILE: usize = 10_000;
    claim_corpus_dir(dest)?;
    askzico::real_dirs_under(dest, &Path::new("sources").join("records")).map_err(|path| {
        BenchError::NotOurs {
            path,
            why: "is not a real folder (a symbolic link or a file): the generator writes only into real folders of its corpus",
        }
    })?;
    let pool = paragraph_pool(corpora)?;
    let mut g = Generator {
        pool: &pool,
        rng: Rng(seed.max(1) ^ 0x9E3779B97F4A7C15),
    };
    let mut bytes = 0u64;
    for (f, start) in (0..records).step_by(PER_FILE).enumerate() {
        let list: Vec<serde_json::Value> = (start..records.min(start + PER_FILE))
            .map(|n| {
                let words = 2 + g.rng.below(6);
                serde_json::json!({"n": n, "title": g.words(2), "text": g.words(words)})
            })
            .collect();
        let content = serde_json::to_vec(&list)
            .map_err(std::io::Error::other)
            .map_err(BenchError::file(dest))?;
        bytes += content.len() as u64;
        write_file(&dest.join(format!("sources/records/{f:04}.json")), &content)?;
    }
    let cfg = "[corpus]\nname = \"bench-records\"\nout = \"out\"\n\n[[library]]\nid = \"records\"\nroot = \"sources/records\"\nformat = \"json\"\ndomains = [\"records\"]\n\n[library.records]\nselect = \"*\"\nid = \"r{n}\"\ntitle = \"title\"\ntext = \"text\"\n";
    write_file(&dest.join("corpus.toml"), cfg.as_bytes())?;
    Ok(bytes)
}

/// The file that makes a folder a generated corpus: `generate` writes there only when the
/// folder is new, empty or holds this file with this text.
pub(crate) const CORPUS_MARKER: &str = ".askzico-bench-corpus";
const CORPUS_MARKER_TEXT: &str = "askzico bench corpus\n\nEverything here was written by `askzico-bench corpus` and is made again by it.\n";

/// Makes `dest` the generator's: a new or empty folder is marked before the first file is
/// written; a marked one is taken as it is; any other is refused, naming a file in it.
fn claim_corpus_dir(dest: &Path) -> Result<(), BenchError> {
    let marker = dest.join(CORPUS_MARKER);
    let marked = std::fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file())
        && askzico::read_capped(&marker, CORPUS_MARKER_TEXT.len() as u64 + 1)
            .is_ok_and(|b| b == CORPUS_MARKER_TEXT.as_bytes());
    if marked {
        return Ok(());
    }
    if std::fs::metadata(dest).is_ok_and(|m| !m.is_dir()) {
        return Err(BenchError::NotOurs {
            path: dest.to_path_buf(),
            why: "is a file, not a folder",
        });
    }
    let foreign = askzico::first_foreign_entry(dest, |_| false).map_err(BenchError::file(dest))?;
    if let Some(path) = foreign {
        return Err(BenchError::NotOurs {
            path,
            why: "was not written by the generator (the folder holds no `.askzico-bench-corpus` marker), so nothing is written there",
        });
    }
    std::fs::create_dir_all(dest).map_err(BenchError::file(dest))?;
    write_file(&marker, CORPUS_MARKER_TEXT.as_bytes())
}

/// One file of the corpus: a temp file renamed over the name, so a link at the name is
/// replaced, never followed.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), BenchError> {
    askzico::write_atomic(path, bytes).map_err(BenchError::file(path))
}

/// The generator's state: the paragraph pool and the random sequence every choice draws from,
/// in a fixed order (the same seed gives the same bytes).
struct Generator<'a> {
    pool: &'a [String],
    rng: Rng,
}

impl Generator<'_> {
    /// The first `n` words of a random paragraph.
    fn words(&mut self, n: usize) -> String {
        let p = &self.pool[self.rng.below(self.pool.len())];
        p.split_whitespace().take(n).collect::<Vec<_>>().join(" ")
    }

    /// Section `s` of a document of `kind` (`html`, `mdx` or `md`): a heading, one to three
    /// paragraphs, sometimes a list and a code block.
    fn section(&mut self, kind: &str, s: usize, body: &mut String) {
        let heading = self.words(4);
        let paras = 1 + self.rng.below(3);
        let mut text = String::new();
        for _ in 0..paras {
            text.push_str(&self.pool[self.rng.below(self.pool.len())]);
            text.push_str("\n\n");
        }
        if self.rng.below(4) == 0 {
            for _ in 0..3 {
                text.push_str(&format!("- {}\n", self.words(8)));
            }
            text.push('\n');
        }
        if self.rng.below(6) == 0 {
            text.push_str(&format!(
                "```js\nconst item{s} = \"{}\";\nconsole.log(item{s});\n```\n\n",
                self.words(3)
            ));
        }
        match kind {
            "html" => body.push_str(&format!(
                "<h2>{heading}</h2>\n{}\n",
                text.split("\n\n")
                    .filter(|p| !p.trim().is_empty())
                    .map(|p| format!("<p>{}</p>", p.trim()))
                    .collect::<Vec<_>>()
                    .join("\n")
            )),
            "mdx" if s == 0 => body.push_str(&format!(
                "## {heading} {{/*s{s}*/}}\n\n<Note type=\"tip\">\n\n{text}</Note>\n\n"
            )),
            _ => body.push_str(&format!("## {heading}\n\n{text}")),
        }
    }
}

/// Document `i` of `kind` with its title and body: its path under the corpus and its bytes.
fn document(kind: &str, i: usize, title: &str, body: &str) -> (String, String) {
    match kind {
        "html" => (
            format!("sources/html/doc{i:06}.html"),
            format!(
                "<!doctype html><html lang=\"ar\" dir=\"rtl\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body><nav><a href=\"/\">الرئيسية</a> <a href=\"/a\">المقالات</a></nav><main><article><h1>{title}</h1>\n{body}</article></main><footer>© موقع تجريبي</footer></body></html>\n"
            ),
        ),
        "mdx" => (
            format!("sources/mdx/doc{i:06}.mdx"),
            format!(
                "---\ntitle: \"{}\"\n---\nimport Note from '../components/Note.astro';\n\n# {title}\n\n{body}",
                title.replace('"', "")
            ),
        ),
        _ => (
            format!("sources/md/doc{i:06}.md"),
            format!(
                "---\ntitle: \"{}\"\n---\n\n# {title}\n\n{body}",
                title.replace('"', "")
            ),
        ),
    }
}
