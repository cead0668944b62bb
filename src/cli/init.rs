//! `askzico init`: a commented corpus.toml and one sample source, ready to build.

use std::path::Path;

use super::{Failure, Outcome};
use crate::diag::Problem;

#[derive(clap::Args, Debug)]
pub(super) struct InitArgs {
    /// Directory to create the project in.
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
provider = "hash"       # offline feature hashing of character n-grams
dims = 256

[[library]]
id = "articles"         # ASCII; prefixes every doc_id
root = "sources/articles"
include = ["**/*.md"]
# exclude = ["drafts/**"]
# format = "markdown"   # markdown | mdx | html | json (default: by extension)
domains = ["general"]
url = "https://example.org/{slug}"   # {slug}, {library} or a frontmatter field

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
# libraries = ["articles"]
"#;

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
    let sample = dir.join("sources/articles/welcome.md");
    let sample_there = std::fs::symlink_metadata(&sample).is_ok();
    // Never into the sources or the output of the project in the current directory, nor into
    // any askzico output directory.
    let here = Path::new("corpus.toml");
    let project = here
        .is_file()
        .then(|| crate::config::Config::load(here).ok())
        .flatten();
    let out = project.as_ref().map(|c| c.out_dir.clone());
    let new_files = std::iter::once(&config).chain((!sample_there).then_some(&sample));
    for path in new_files {
        if let Err(p) = crate::paths::guard_output(
            path,
            crate::paths::Output::Init,
            project.as_ref(),
            out.as_deref(),
        ) {
            return Err(Failure::usage(p, false));
        }
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
    if let Err(e) = create(&config, CONFIG) {
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
