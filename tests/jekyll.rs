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

/// A Jekyll site in zero config: its own folders and `_config.yml`'s `exclude:` are left out
/// and named, `_posts` and output collections are pages, Liquid is dropped, and a warning's
/// help says how to leave a file out without a corpus.toml.
#[test]
fn zero_config_reads_a_jekyll_site_as_jekyll_publishes_it() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("blog");
    write(
        &site,
        "_config.yml",
        "title: مدونة\nexclude:\n  - sandbox\n  - Gemfile\ncollections:\n  pages:\n    output: true\n",
    );
    write(&site, "_posts/2024-01-01-a.md", &liquid_post());
    write(
        &site,
        "_pages/about.md",
        &format!("---\ntitle: عن\n---\n{PROSE}\n"),
    );
    write(
        &site,
        "_layouts/post.html",
        "<html><body>{{ content }}</body></html>",
    );
    write(
        &site,
        "_includes/footer.html",
        "<footer>{{ site.title }}</footer>",
    );
    write(&site, "_sass/x.md", "# x\n");
    write(
        &site,
        "theme/_layouts/page.html",
        "<div>{{ content }}</div>",
    );
    write(&site, "sandbox/index.md", &format!("# تجربة\n\n{PROSE}\n"));
    write(&site, "index.html", "---\nlayout: home\n---\n");
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "blog", "--verbose"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("left out: 5 sources Jekyll does not publish as pages"),
        "{err}"
    );
    assert!(!err.contains("_layouts/post.html: nothing"), "{err}");
    // The page with nothing to index is told how zero config leaves it out.
    assert!(err.contains("list its path in a .ignore file in"), "{err}");
    assert!(!err.contains("corpus.toml to silence"), "{err}");
    let got = texts(&t.path().join("out"));
    let sources: Vec<&str> = got.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        sources,
        ["blog/_pages/about.md", "blog/_posts/2024-01-01-a.md"]
    );
    assert!(got[1].1.contains("الكاتب راجع الصفحة."), "{}", got[1].1);

    // A `_config.yml` that is not YAML is a warning naming it; the build goes on.
    write(&site, "_config.yml", "exclude: [sandbox\n");
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "blog", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let warned = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "jekyll-config" && d["file"] == "_config.yml");
    assert!(warned, "{v}");
}

/// Drafts are not published, so they are not indexed: `draft: true` (YAML or TOML),
/// `published: false`, and Jekyll's `_drafts/` in zero config; the build counts them in one
/// line, and lists each as a note (not a warning) in `--json`.
#[test]
fn drafts_are_left_out_and_counted() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    write(
        &site,
        "kept.md",
        &format!("---\ntitle: منشور\ndraft: false\n---\n{PROSE}\n"),
    );
    write(
        &site,
        "hugo.md",
        &format!("+++\ntitle = \"مسودة\"\ndraft = true\n+++\n{PROSE}\n"),
    );
    write(
        &site,
        "yaml.md",
        &format!("---\ntitle: مسودة\ndraft: true\n---\n{PROSE}\n"),
    );
    write(
        &site,
        "jekyll.md",
        &format!("---\ntitle: مسودة\npublished: false\n---\n{PROSE}\n"),
    );
    write(
        t.path(),
        "corpus.toml",
        "[corpus]\nname = \"d\"\n\n[[library]]\nid = \"site\"\nroot = \"site\"\n",
    );
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("left out: 3 drafts (e.g. site/hugo.md, site/jekyll.md, site/yaml.md)"),
        "{err}"
    );
    assert!(!stdout(&o).contains("warning"), "{}", stdout(&o));
    let got = texts(&t.path().join("out"));
    let sources: Vec<&str> = got.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(sources, ["site/kept.md"]);
    let o = run(bin().current_dir(t.path()).args(["build", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["warnings"], 0, "{v}");
    let notes = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["level"] == "note" && d["code"] == "draft")
        .count();
    assert_eq!(notes, 3, "{v}");

    // Jekyll's `_drafts/` in zero config counts with them.
    write(&site, "_config.yml", "title: x\n");
    write(
        &site,
        "_posts/2024-01-01-a.md",
        &format!("---\ntitle: أ\n---\n{PROSE}\n"),
    );
    write(
        &site,
        "_drafts/b.md",
        &format!("---\ntitle: ب\n---\n{PROSE}\n"),
    );
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "site"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("left out: 4 drafts (e.g. _drafts/b.md, hugo.md, jekyll.md, …)"),
        "{}",
        stderr(&o)
    );
}

/// A frontmatter `permalink` that is a plain path is the page's URL, as `url` is; one with
/// `:placeholders` is left to the default, a library's template decides where it has one, and
/// a frontmatter `url` wins.
#[test]
fn a_plain_permalink_is_the_pages_url() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    let page = |fm: &str| format!("---\ntitle: صفحة\n{fm}---\n{PROSE}\n");
    write(&site, "_pages/about.md", &page("permalink: /about/\n"));
    write(
        &site,
        "_posts/2024-01-01-a.md",
        &page("permalink: /:year/:title/\n"),
    );
    write(&site, "both.md", &page("permalink: /p/\nurl: /u/\n"));
    let config = |url: &str| {
        format!("[corpus]\nname = \"p\"\n\n[[library]]\nid = \"blog\"\nroot = \"site\"\n{url}")
    };
    let urls = |t: &Path| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = chunk_records(&t.join("out"), "manifest.json")
            .iter()
            .map(|r| {
                (
                    r["source"].as_str().unwrap().to_string(),
                    r["url"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    write(t.path(), "corpus.toml", &config(""));
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        urls(t.path()),
        pairs(&[
            ("blog/_pages/about.md", "/about/"),
            ("blog/_posts/2024-01-01-a.md", "/blog/_posts/2024-01-01-a"),
            ("blog/both.md", "/u/"),
        ])
    );
    write(
        t.path(),
        "corpus.toml",
        &config("url = \"https://example.org/{slug}\"\n"),
    );
    let o = run(bin().current_dir(t.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(urls(t.path())[0].1, "https://example.org/_pages/about");
}

/// A Jekyll site's HTML page is a Liquid template too: its output and tags leave the evidence.
#[test]
fn a_jekyll_html_page_loses_its_liquid() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    write(&site, "_config.yml", "title: x\n");
    write(
        &site,
        "_posts/2024-01-01-a.md",
        &format!("---\ntitle: أ\n---\n{PROSE}\n"),
    );
    let long = format!("{PROSE} {PROSE}");
    write(
        &site,
        "about.html",
        &format!(
            "---\nlayout: default\n---\n<article><h1>عن الموقع</h1><p>{long} كاتبها {{{{ site.author }}}}.</p>{{% for p in site.posts %}}<p>{{{{ p.title }}}}</p>{{% endfor %}}<pre>{{{{ x }}}}</pre></article>\n"
        ),
    );
    let o = run(bin()
        .current_dir(t.path())
        .args(["build", "--sources", "site"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let got = texts(&t.path().join("out"));
    let about = &got
        .iter()
        .find(|(s, _)| s.ends_with("about.html"))
        .unwrap()
        .1;
    assert!(about.contains("كاتبها ."), "{about}");
    assert!(
        !about.contains("site.author") && !about.contains("{%"),
        "{about}"
    );
    assert!(about.contains("{{ x }}"), "{about}");
}
