//! `askzico init`: a commented corpus.toml and one sample source, ready to build.

use std::path::Path;

use super::{EXIT_ERRORS, EXIT_OK};

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

pub fn run(dir: &Path) -> i32 {
    let config = dir.join("corpus.toml");
    if config.exists() {
        eprintln!("{} already exists: not overwritten", config.display());
        return EXIT_ERRORS;
    }
    let sample = dir.join("sources/articles/welcome.md");
    let result = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(sample.parent().expect("has a parent"))?;
        std::fs::write(&config, CONFIG)?;
        if !sample.exists() {
            std::fs::write(&sample, SAMPLE)?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            println!(
                "created {} and {}\nnext: askzico build --config {}",
                config.display(),
                sample.display(),
                config.display()
            );
            EXIT_OK
        }
        Err(e) => {
            eprintln!("init failed: {e}");
            EXIT_ERRORS
        }
    }
}
