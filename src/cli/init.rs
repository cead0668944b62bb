//! `askzico init`: a commented corpus.toml, ready to build. In an empty folder, with one sample
//! source; in a folder that holds a site already, with its library pointing at what is there
//! (the content root, files and heading ids `build --sources` would read), and no sample.

use std::path::Path;

use super::{Failure, Outcome};
use crate::diag::Problem;

#[derive(clap::Args, Debug)]
pub(super) struct InitArgs {
    /// Directory of the project: a new or empty one gets a sample source beside the config; one
    /// that holds a site gets only a config whose library reads that site.
    #[arg(default_value = ".")]
    pub dir: std::path::PathBuf,
}

const CONFIG: &str = r#"# askzico corpus config. Paths are relative to this file.

[corpus]
name = "my-corpus"
out = "out"             # build output; out/manifest.json names the latest build
id_width = 3            # chunk_id = <library>:<slug>:<NNN>
# max_file_mb = 64      # larger source files are an error

[chunking]
max_chars = 7000        # Unicode scalar values per chunk
min_chars = 200         # smaller chunks merge into a neighbour
# max_chunks = 10000    # a document making more chunks is an error

[normalize]             # search_text rules; evidence text is never changed
fold_alef_hamza = true  # أ إ آ → ا   (lossy)
fold_alef_maksura = true # ى → ي      (lossy)
fold_teh_marbuta = true # ة → ه       (lossy)
fold_hamza_carriers = false # ؤ → و, ئ → ي (lossy, off by default)

[embedding]
# `hash` (the default) hashes character n-grams: a lexical stand-in that needs no network and
# matches spellings, not meaning. For vectors that match meaning, embed with Workers AI:
#   provider = "workers-ai"
#   model = "@cf/baai/bge-m3"   # multilingual, Arabic included; 1024 dimensions
#   dims = 1024                 # the Vectorize indexes are created with these dimensions
# (it reads CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN at build time).
provider = "hash"
dims = 256

{library}
# JSON records: one document per selected record.
# [[library]]
# id = "seneksar"
# root = "sources/seneksar"
# include = ["*.json"]
# [library.records]
# select = "*.*"                 # every element of every value of the top object
# id_match = { field = "url", pattern = '(?<m>\d+)_(?<d>\d+)\.html#(?<n>\d+)$' }
# id = "{m}-{d}-{n}"             # variables: record fields, id_match groups, $key, $index
# title = "name"
# text = "text"
# url = "{url}"
# date = "$key"                  # "15 Hator" → {"calendar":"coptic","month":3,"day":15}
# metadata = { english_slug = "id" }

# [env.prod]
# libraries = ["{id}"]

# A deploy target: `askzico deploy --target prod` uploads the build to Workers KV and one of two
# Vectorize indexes (blue/green), then `askzico worker init --target prod` writes the Worker that
# answers from it. Create the indexes first with the embedder's dimensions:
#   npx wrangler vectorize create my-corpus-blue --dimensions 256 --metric cosine
# [deploy.prod]
# account_id = "0123456789abcdef0123456789abcdef"   # CLOUDFLARE_ACCOUNT_ID wins
# indexes = ["my-corpus-blue", "my-corpus-green"]
# kv_namespace_id = "0123456789abcdef0123456789abcdef"
# prefix = "askzico/"
"#;

/// The sample library of a new project.
const SAMPLE_LIBRARY: &str = r#"[[library]]
id = "articles"         # ASCII; prefixes every doc_id
root = "sources/articles"
include = ["**/*.md"]
# exclude = ["drafts/**"]
# format = "markdown"   # markdown | mdx | html | json (default: by extension)
domains = ["general"]
url = "https://example.org/{slug}"   # {slug}, {library} or a frontmatter field
"#;

/// The config text: `CONFIG` with its corpus name, its library block and that library's id.
fn config_text(name: &str, library: &str, id: &str) -> String {
    CONFIG
        .replacen(
            "name = \"my-corpus\"",
            &format!("name = {}", toml_string(name)),
            1,
        )
        .replacen("{library}", library, 1)
        .replacen("{id}", id, 1)
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The library block of a folder that holds a site: what `build --sources` reads of it (its
/// content root, files, left-out files and heading ids), written out, with the `url` template
/// still to fill in.
fn site_library(cfg: &crate::config::Config) -> (String, String) {
    let lib = &cfg.libraries[0];
    let list = |v: &[String]| {
        v.iter()
            .map(|g| toml_string(g))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut t = String::from("[[library]]\n");
    t.push_str(&format!(
        "id = {}         # ASCII; prefixes every doc_id\n",
        toml_string(&lib.id)
    ));
    let layout = lib
        .zero_config
        .as_ref()
        .and_then(|z| z.layout)
        .map(|l| format!("   # the {l} content folder"))
        .unwrap_or_default();
    t.push_str(&format!(
        "root = {}{layout}\n",
        toml_string(&lib.root_display)
    ));
    t.push_str(&format!("include = [{}]\n", list(&lib.include_patterns)));
    // A written config reads every file its globs select: what the site's generator would
    // not publish (ignore files, hidden folders, `node_modules`, Jekyll's own folders and
    // drafts), which zero config left out, is excluded by name.
    let (mut exclude, more) = left_out_globs(lib);
    exclude.splice(0..0, lib.exclude_patterns.iter().cloned());
    if exclude.is_empty() {
        t.push_str("# exclude = [\"drafts/**\"]\n");
    } else {
        t.push_str(&format!("exclude = [{}]\n", list(&exclude)));
    }
    if more > 0 {
        t.push_str(&format!(
            "# (and {more} more files its ignore files leave out: add them here to leave them out too)\n"
        ));
    }
    if lib.liquid {
        t.push_str("liquid = true          # Jekyll: Markdown read as the Liquid template it is\n");
    }
    if lib.generator != crate::extract::Generator::Plain {
        let g = serde_json::to_value(lib.generator).unwrap_or_default();
        t.push_str(&format!(
            "generator = {}   # its Markdown syntax read as the site shows it\n",
            toml_string(g.as_str().unwrap_or_default())
        ));
    }
    if lib.anchors != crate::chunk::AnchorRule::Explicit {
        let rule = serde_json::to_value(lib.anchors).unwrap_or_default();
        t.push_str(&format!(
            "anchors = {}      # how the site's generator gives headings ids\n",
            toml_string(rule.as_str().unwrap_or_default())
        ));
    }
    t.push_str(
        "# The address the site serves each page at, so citations link there, e.g.\n\
         # url = \"https://example.org/{page_dir}/{fm.slug|page_name}/\"\n\
         # (without it, links read /<library>/<page path>)\n",
    );
    (t, lib.id.clone())
}

/// At most this many files left out by name in a written config's `exclude`.
const MAX_NAMED_EXCLUDES: usize = 40;

/// The `exclude` globs (relative to the library's root) for what zero config left out of the
/// folder, and how many files were too many to name.
fn left_out_globs(lib: &crate::config::Library) -> (Vec<String>, usize) {
    let Some(zc) = &lib.zero_config else {
        return (Vec::new(), 0);
    };
    let root = match lib.root_display.as_str() {
        "." => String::new(),
        r => format!("{}/", r.trim_end_matches('/')),
    };
    let mut globs: Vec<String> = Vec::new();
    let mut named = 0;
    let mut more = 0;
    let add = |g: String, globs: &mut Vec<String>| {
        if !globs.contains(&g) {
            globs.push(g);
        }
    };
    for entry in zc.left_out.iter().chain(&zc.unpublished).chain(&zc.drafts) {
        let Some(rel) = entry.strip_prefix(root.as_str()) else {
            continue;
        };
        if rel.split('/').any(|part| part == "node_modules") {
            add("**/node_modules/**".to_string(), &mut globs);
        } else if rel.split('/').any(|part| part.starts_with('.')) {
            add("**/.*/**".to_string(), &mut globs);
            add("**/.*".to_string(), &mut globs);
        } else if named < MAX_NAMED_EXCLUDES {
            named += 1;
            let g = if rel.ends_with('/') {
                format!("{rel}**")
            } else {
                globset::escape(rel)
            };
            add(g, &mut globs);
        } else {
            more += 1;
        }
    }
    (globs, more)
}

/// Whether `dir` holds anything but hidden entries (a folder of a site, not a new project).
fn has_content(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| !e.file_name().to_string_lossy().starts_with('.'))
    })
}

const SAMPLE: &str = "---\ntitle: مرحبا بك\n---\n\n# مرحبا بك\n\nهذه أول مقالة في المدونة. اكتب هنا نصك العربي، ثم شغّل `askzico build`.\n";

/// What `init` says of `path`.
fn problem(path: &Path, msg: String, help: &str) -> Problem {
    Problem::error("init", msg)
        .in_file(path.display().to_string())
        .help(help.to_string())
}

/// A failure of `init` to write, naming the path it is about.
fn fail(path: &Path, msg: String, help: &str) -> Outcome {
    Err(Failure::errors(problem(path, msg, help), false))
}

/// A refusal of the directory `init` was given (a usage error, exit 2).
fn refuse(path: &Path, msg: String, help: &str) -> Outcome {
    Err(Failure::usage(problem(path, msg, help), false))
}

/// Creates `path` with `text`, never over anything already there.
fn create(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(text.as_bytes())
}

pub(super) fn run(args: InitArgs) -> Outcome {
    let dir = args.dir.as_path();
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return refuse(
            dir,
            format!("{} is a file, not a directory", dir.display()),
            "pass init the directory of the new project (a new one is made)",
        );
    }
    let config = dir.join("corpus.toml");
    if std::fs::symlink_metadata(&config).is_ok() {
        return refuse(
            &config,
            format!("{} already exists: not overwritten", config.display()),
            "init starts a new project: edit that config, or pass init another directory",
        );
    }
    // A folder that holds a site: only the config, its library reading what is there.
    if has_content(dir) {
        return init_site(dir, &config);
    }
    let sample = dir.join("sources/articles/welcome.md");
    let sample_there = std::fs::symlink_metadata(&sample).is_ok();
    let new_files = std::iter::once(&config).chain((!sample_there).then_some(&sample));
    for path in new_files {
        guard(path)?;
    }
    // The sample's folders are real directories of the project: a link there would lead the
    // write into another folder.
    let folders = Path::new("sources/articles");
    let mut below = dir.to_path_buf();
    for part in folders.components() {
        below.push(part);
        if std::fs::symlink_metadata(&below).is_ok_and(|m| !m.is_dir()) {
            return refuse(
                &below,
                format!(
                    "{} is not a directory (a symbolic link or a file): init writes only into real folders of the new project",
                    below.display()
                ),
                "remove it (init makes the folder), or pass init a new directory",
            );
        }
    }
    if let Err(e) = std::fs::create_dir_all(dir) {
        return fail(
            dir,
            format!("cannot create {}: {e}", dir.display()),
            "check that the directory is writable and no file stands where a folder is needed",
        );
    }
    if let Err(bad) = crate::artifacts::marker::real_dirs_under(dir, folders) {
        return fail(
            &bad,
            format!("cannot create the folder {}", bad.display()),
            "check that the directory is writable and no file or link stands where a folder is needed",
        );
    }
    if let Err(e) = create(
        &config,
        &config_text("my-corpus", SAMPLE_LIBRARY, "articles"),
    ) {
        return fail(
            &config,
            format!("cannot create {}: {e}", config.display()),
            "check that the directory is writable",
        );
    }
    println!("created {}", config.display());
    if sample_there {
        println!("left {} as it was (it already exists)", sample.display());
    } else {
        match create(&sample, SAMPLE) {
            Ok(()) => println!("created {}", sample.display()),
            Err(e) => {
                return fail(
                    &sample,
                    format!("cannot create {}: {e}", sample.display()),
                    "check that the directory is writable",
                );
            }
        }
    }
    println!("next: askzico build --config {}", config.display());
    Ok(())
}

/// Refuses a file `init` would write into the sources or the output of the project in the
/// current directory, or into any askzico output directory.
fn guard(path: &Path) -> Result<(), Failure> {
    let here = Path::new("corpus.toml");
    let project = here
        .is_file()
        .then(|| crate::config::Config::load(here).ok())
        .flatten();
    let out = project.as_ref().map(|c| c.out_dir.clone());
    crate::paths::guard_output(
        path,
        crate::paths::Output::Init,
        project.as_ref(),
        out.as_deref(),
    )
    .map_err(|p| Failure::usage(p, false))
}

/// `init` in a folder that holds a site: the config alone, beside the site, its library
/// surveyed as `build --sources` surveys the folder.
fn init_site(dir: &Path, config: &Path) -> Outcome {
    let cfg = match crate::config::Config::for_sources(dir, None) {
        Ok(cfg) => cfg,
        Err(ps) => return Err(Failure::usage(ps, false)),
    };
    guard(config)?;
    let (library, id) = site_library(&cfg);
    let text = config_text(&cfg.name, &library, &id);
    if let Err(e) = create(config, &text) {
        return fail(
            config,
            format!("cannot create {}: {e}", config.display()),
            "check that the directory is writable",
        );
    }
    let lib = &cfg.libraries[0];
    let root = match lib.root_display.as_str() {
        "." => dir.to_path_buf(),
        r => dir.join(r),
    };
    println!(
        "created {} for the site already there: library `{}` reads the Markdown, MDX and HTML under {}",
        config.display(),
        lib.id,
        crate::term::line(&root.display().to_string())
    );
    println!("set `url` in it to the address the site serves pages at, so citations link there");
    println!("next: askzico build --config {}", config.display());
    Ok(())
}
