//! `askzico show ID|SOURCE`: a document's or chunk's records as built, with chunk boundaries,
//! for manual review.

use super::{BuildLocation, Failure, Outcome};
use crate::artifacts::{ChunkRecord, Kind};
use crate::diag::Problem;

#[derive(clap::Args, Debug)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    pub at: BuildLocation,
    /// A chunk_id, doc_id, url, or source path (suffix at a `/` or `#` boundary).
    pub key: String,
    /// Print the document or chunk as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}
use crate::term;

/// Whether a record answers to `key`: its chunk_id, doc_id, url, or a source suffix at a
/// `/` or `#` boundary.
pub(crate) fn matches(r: &ChunkRecord, key: &str) -> bool {
    if r.chunk_id == key || r.doc_id == key || r.url == key {
        return true;
    }
    match r.source.strip_suffix(key) {
        Some(head) => {
            head.is_empty() || head.ends_with('/') || key.starts_with('#') || head.ends_with('#')
        }
        None => r
            .source
            .split('#')
            .next()
            .and_then(|path| path.strip_suffix(key))
            .is_some_and(|h| h.is_empty() || h.ends_with('/')),
    }
}

/// The error of a key that names nothing, with each kind of key as `example` (a chunk of this
/// build) spells it.
fn not_found(key: &str, version: &str, example: Option<&ChunkRecord>) -> Problem {
    let help = match example {
        Some(r) => format!(
            "pass a chunk_id (`{}`), a doc_id (`{}`), a url (`{}`), or a source as the build names it: the library, then the path under its root (`{}`, or its end `{}`)",
            r.chunk_id,
            r.doc_id,
            r.url,
            r.source,
            r.source.split_once('/').map_or(r.source.as_str(), |(_, rest)| rest)
        ),
        None => "pass a chunk_id (lib:slug:000), a doc_id (lib:slug), a url, or a source path (library/path under its root)".to_string(),
    };
    Problem::error(
        "not-found",
        format!("no chunk, document, url or source `{key}` in {version}"),
    )
    .help(help)
}

/// The error of a source key that names the end of several files' paths (`faq.md` of two
/// folders), listing them: showing one of them would answer for the other in silence. A key that
/// is a chunk_id, doc_id or url is exact, never ambiguous.
fn ambiguous(key: &str, hits: &[ChunkRecord]) -> Option<Problem> {
    if hits
        .iter()
        .any(|r| r.chunk_id == key || r.doc_id == key || r.url == key)
    {
        return None;
    }
    let files: std::collections::BTreeSet<&str> = hits
        .iter()
        .map(|r| r.source.split('#').next().unwrap_or_default())
        .collect();
    if files.len() < 2 {
        return None;
    }
    let list: Vec<&str> = files.iter().copied().collect();
    Some(
        Problem::error(
            "ambiguous",
            format!("`{key}` names {} sources: {}", list.len(), list.join(", ")),
        )
        .help(format!(
            "pass one of them as the build names it (such as `{}`), or a doc_id",
            list[0]
        )),
    )
}

pub(crate) fn run(args: ShowArgs) -> Outcome {
    let ShowArgs {
        ref at,
        ref key,
        json,
    } = args;
    let key = key.as_str();
    let out = super::verify::out_dir(at, json)?;
    let manifest = at
        .read_manifest(&out)
        .map_err(|p| Failure::errors(p, json))?;
    let mut hits: Vec<ChunkRecord> = Vec::new();
    // A chunk of this build, to show what each kind of key looks like when nothing matches.
    let mut example: Option<ChunkRecord> = None;
    for a in manifest.artifacts_of(Kind::Chunks) {
        let Ok(text) = crate::artifacts::store::read_artifact_text(&out, a) else {
            continue;
        };
        for line in text.lines() {
            let Ok(r) = serde_json::from_str::<ChunkRecord>(line) else {
                continue;
            };
            if matches(&r, key) {
                hits.push(r);
            } else if example.is_none() {
                example = Some(r);
            }
        }
    }
    if hits.is_empty() {
        let p = not_found(key, &manifest.corpus_version, example.as_ref());
        return Err(Failure::errors(p, json));
    }
    if let Some(p) = ambiguous(key, &hits) {
        return Err(Failure::usage(p, json));
    }
    if json {
        for h in &hits {
            println!("{}", serde_json::to_string(h).expect("serializes"));
        }
        return Ok(());
    }
    let mut last_doc = String::new();
    for r in &hits {
        if r.doc_id != last_doc {
            println!(
                "━━ doc {}  ({})",
                term::line(&r.doc_id),
                term::line(&r.source)
            );
            println!("   title: {}", term::line(&r.title));
            println!("   url:   {}", term::line(&r.url));
            println!("   domains: {}", term::line(&r.domains.join(", ")));
            let mut meta = r.metadata.clone();
            meta.remove("span");
            meta.remove("heading_path");
            if !meta.is_empty() {
                println!("   metadata: {}", serde_json::Value::Object(meta));
            }
            last_doc = r.doc_id.clone();
        }
        let span = r
            .metadata
            .get("span")
            .map(|s| s.to_string())
            .unwrap_or_default();
        let path = r
            .metadata
            .get("heading_path")
            .and_then(|p| p.as_array())
            .map(|p| {
                p.iter()
                    .filter_map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(" › ")
            })
            .unwrap_or_default();
        println!(
            "── chunk {}  bytes {span}  {} chars  [{}]",
            term::line(&r.chunk_id),
            r.text.chars().count(),
            term::line(&path)
        );
        println!("{}", term::text(&r.text));
        println!("── search_text:");
        println!("{}", term::text(&r.search_text));
        println!("── end {}\n", term::line(&r.chunk_id));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(source: &str) -> ChunkRecord {
        ChunkRecord {
            doc_id: "react-ar:learn/x".into(),
            chunk_id: "react-ar:learn/x:000".into(),
            library: "react-ar".into(),
            source: source.into(),
            title: String::new(),
            url: "https://u/x".into(),
            chunk_index: 0,
            domains: vec![],
            text: String::new(),
            anchors: Vec::new(),
            search_text: String::new(),
            metadata: Default::default(),
        }
    }

    #[test]
    fn a_file_name_of_two_folders_is_ambiguous() {
        let hits = [rec("site/a/faq.md"), rec("site/b/faq.md")];
        let p = ambiguous("faq.md", &hits).expect("ambiguous");
        assert!(
            p.message.contains("site/a/faq.md, site/b/faq.md"),
            "{}",
            p.message
        );
        assert!(ambiguous("a/faq.md", &hits[..1]).is_none());
        let records = [rec("s/c.json#1"), rec("s/c.json#2")];
        assert!(ambiguous("c.json", &records).is_none());
    }

    #[test]
    fn matching_rules() {
        let r = rec("react-ar/learn/x.md");
        assert!(matches(&r, "learn/x.md"));
        assert!(matches(&r, "x.md"));
        assert!(!matches(&r, "n/x.md"));
        assert!(matches(&r, "react-ar:learn/x"));
        assert!(matches(&r, "https://u/x"));
        let r = rec("seneksar/canonical.json#3-15-1");
        assert!(matches(&r, "canonical.json#3-15-1"));
        assert!(matches(&r, "#3-15-1"));
        assert!(matches(&r, "canonical.json"));
    }
}
