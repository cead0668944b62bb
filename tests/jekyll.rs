//! Jekyll sites as Jekyll publishes them: Liquid template code is not evidence (`liquid`).

mod common;

use std::path::Path;

use common::*;

const PROSE: &str = "الصوم في الكنيسة القبطية فترة طويلة من الصلاة والتأمل، يتدرب فيها المؤمن على ضبط النفس ومحبة القريب.";

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A Jekyll post: Liquid output and tags, a highlight block, kramdown attribute lists.
fn liquid_post() -> String {
    format!(
        "---\ntitle: منشور\n---\n{PROSE}\n{{:style=\"direction:ltr;\"}}\n{{% highlight ruby %}}\ndef hi\n  puts 1\nend\n{{% endhighlight %}}\n\nالكاتب {{{{ site.author }}}} راجع [الصفحة]({{{{ \"/about\" | relative_url }}}}).\n\n`cp {{{{path/to/file}}}}`\n"
    )
}

/// The texts of a build's chunks, by source.
fn texts(out: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = chunk_records(out, "manifest.json")
        .iter()
        .map(|r| {
            (
                r["source"].as_str().unwrap().to_string(),
                r["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_liquid_library_drops_template_code_and_keeps_code() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "site/_posts/2024-01-01-a.md", &liquid_post());
    let config = |liquid: &str| {
        format!("[corpus]\nname = \"j\"\n\n[[library]]\nid = \"blog\"\nroot = \"site\"\n{liquid}")
    };
    write(t.path(), "corpus.toml", &config("liquid = true\n"));
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let got = texts(&t.path().join("out"));
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].1,
        format!(
            "منشور\n\n{PROSE}\n\n```ruby\ndef hi\n  puts 1\nend\n```\n\nالكاتب راجع الصفحة.\n\n`cp {{{{path/to/file}}}}`"
        )
    );
    // Without the switch the page is read as plain Markdown: the template code stays.
    write(t.path(), "corpus.toml", &config(""));
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let got = texts(&t.path().join("out"));
    assert!(got[0].1.contains("{{ site.author }}"), "{}", got[0].1);
}
