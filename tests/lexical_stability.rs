//! Lexical shards do not move when nothing in them changed: adding, editing or removing one
//! page rewrites only the shards of that page's terms (and the domain's meta), so a deploy of
//! the new version sends those shards and no other.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use askzico::normalize::loanword::latin_key;
use askzico::shard_of;
use common::*;

const CONFIG: &str = r#"
[corpus]
name = "lex-stability"
out = "out"

[embedding]
provider = "hash"
dims = 16

[[library]]
id = "pages"
root = "pages"
include = ["*.md"]
domains = ["d"]
url = "https://example.org/{slug}"
"#;

/// A page: its title word, then its body words.
fn page(title: &str, words: &[String]) -> String {
    format!("---\ntitle: {title}\n---\n\n{}.\n", words.join(" "))
}

/// 300 pages of 120 words each over a vocabulary of 4,000: several shards.
fn project() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("corpus.toml"), CONFIG).unwrap();
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    let mut x: u64 = 7;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let vocab: Vec<String> = (0..4000)
        .map(|_| {
            let s: String = (0..6)
                .map(|_| (b'a' + (next() % 16) as u8) as char)
                .collect();
            format!("w{s}")
        })
        .collect();
    for i in 0..300 {
        let words: Vec<String> = (0..120)
            .map(|_| vocab[next() % vocab.len()].clone())
            .collect();
        std::fs::write(
            dir.path().join(format!("pages/p{i:03}.md")),
            page(&vocab[i], &words),
        )
        .unwrap();
    }
    (dir, vocab)
}

/// Builds and returns the domain's term shards (by number) and its shard count.
fn shards(dir: &Path) -> (BTreeMap<usize, Vec<u8>>, usize) {
    let o = run(bin().current_dir(dir).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.join("out");
    let m = manifest(&out);
    let mut shards = BTreeMap::new();
    let mut count = 0;
    for a in m["artifacts"].as_array().unwrap() {
        let path = a["path"].as_str().unwrap();
        if a["kind"] != "lexical" {
            continue;
        }
        let name = path.rsplit('/').next().unwrap().split('.').next().unwrap();
        let bytes = std::fs::read(out.join(path)).unwrap();
        match name.parse::<usize>() {
            Ok(k) => {
                shards.insert(k, bytes);
            }
            Err(_) => {
                let meta: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                count = meta["shards"].as_u64().unwrap() as usize;
            }
        }
    }
    assert_eq!(shards.len(), count);
    (shards, count)
}

fn changed(a: &BTreeMap<usize, Vec<u8>>, b: &BTreeMap<usize, Vec<u8>>) -> BTreeSet<usize> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(k) != b.get(k))
        .copied()
        .collect()
}

/// The shards of the page's terms: each word and its loanword key (an additive term of a Latin
/// word, `normalize::loanword`).
fn own_shards(words: &[&str], n: usize) -> BTreeSet<usize> {
    words
        .iter()
        .flat_map(|w| std::iter::once(w.to_string()).chain(latin_key(w)))
        .map(|t| shard_of(&t, n))
        .collect()
}

#[test]
fn one_page_added_edited_or_removed_rewrites_only_its_own_terms_shards() {
    let (p, vocab) = project();
    let (base, n) = shards(p.path());
    assert!(n >= 4, "{n} shards: too few to tell");

    // Added: two words, one of them also its title.
    let added = [vocab[10].clone(), vocab[3999].clone()];
    std::fs::write(p.path().join("pages/new.md"), page(&added[0], &added)).unwrap();
    let (after_add, n2) = shards(p.path());
    assert_eq!(n2, n);
    let c = changed(&base, &after_add);
    let own = own_shards(&[&added[0], &added[1]], n);
    assert!(
        !c.is_empty() && c.is_subset(&own),
        "added: {c:?}, own {own:?}"
    );
    println!("added page: {} of {n} shards rewritten", c.len());

    // Edited: one word of a page replaced by another.
    let path = p.path().join("pages/p005.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, body) = text.split_at(text.rfind("---\n").unwrap() + 4);
    let first = body.split_whitespace().next().unwrap().to_string();
    let fresh = "wzzzzzz";
    std::fs::write(&path, format!("{head}{}", body.replacen(&first, fresh, 1))).unwrap();
    let (after_edit, _) = shards(p.path());
    let c = changed(&after_add, &after_edit);
    let own = own_shards(&[&first, fresh], n);
    assert!(
        !c.is_empty() && c.is_subset(&own),
        "edited: {c:?}, own {own:?}"
    );
    println!("edited page: {} of {n} shards rewritten", c.len());

    // Removed: back to the shards before the page was added.
    std::fs::remove_file(p.path().join("pages/new.md")).unwrap();
    let (after_remove, _) = shards(p.path());
    let c = changed(&after_edit, &after_remove);
    let own = own_shards(&[&added[0], &added[1]], n);
    assert!(
        !c.is_empty() && c.is_subset(&own),
        "removed: {c:?}, own {own:?}"
    );
}
