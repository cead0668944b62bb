//! A Jekyll site's `_config.yml` in zero config (`build --sources`): whatever it holds, the
//! site builds; what cannot be read of it is a warning naming it, never an error.

use super::*;

const SOURCES: &[&str] = &["build", "--sources", "src"];

/// A Jekyll site in `src`: a post beside the good page, and `_config.yml` holding `config`.
fn site(root: &Path, config: &[u8]) -> Result<(), String> {
    put(root, "src/_posts/2024-01-01-a.md", GOOD)?;
    put(root, "src/_layouts/post.html", "<html>{{ content }}</html>")?;
    put(root, "src/_config.yml", config)
}

fn post_built(root: &Path, _: &[Value]) -> Result<(), String> {
    let sources: Vec<String> = records(root)
        .iter()
        .map(|r| r["source"].as_str().unwrap_or_default().to_string())
        .collect();
    if sources
        .iter()
        .any(|s| s.ends_with("_posts/2024-01-01-a.md"))
        && !sources.iter().any(|s| s.contains("_layouts"))
    {
        Ok(())
    } else {
        Err(format!("not built as a Jekyll site: {sources:?}"))
    }
}

const NOT_READ: &str = "_config.yml could not be read";

pub const CASES: &[Case] = &[
    Case::new(
        "jekyll config not YAML",
        |p| site(p, b"exclude: [sandbox\n"),
        0,
        warn("_config.yml", None, NOT_READ),
    )
    .cmd(SOURCES)
    .check(post_built),
    Case::new(
        "jekyll config an alias bomb",
        |p| {
            let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
            for i in 1..10 {
                let refs = vec![format!("*a{}", i - 1); 9].join(", ");
                y.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
            }
            site(p, y.as_bytes())
        },
        0,
        warn("_config.yml", None, NOT_READ),
    )
    .cmd(SOURCES)
    .check(post_built),
    Case::new(
        "jekyll config over the config cap",
        |p| {
            site(p, b"")?;
            let f = std::fs::File::create(p.join("src/_config.yml")).map_err(|e| e.to_string())?;
            f.set_len(17 * 1024 * 1024).map_err(|e| e.to_string())
        },
        0,
        warn("_config.yml", None, NOT_READ),
    )
    .cmd(SOURCES)
    .check(post_built),
    Case::new(
        "jekyll config not UTF-8",
        |p| site(p, b"title: \xff\xfe\n"),
        0,
        warn("_config.yml", None, NOT_READ),
    )
    .cmd(SOURCES)
    .check(post_built),
    // Entries that are no paths of the site, keys of the wrong type: ignored, no glob error.
    Case::new(
        "jekyll excludes that are no paths",
        |p| {
            site(
                p,
                b"exclude: [\"[abc\", \"../x\", \"/\", \"\", \"{a,\", 5, [1]]\ninclude: 7\ncollections: [a, b]\ncollections_dir: 3\n",
            )
        },
        0,
        None,
    )
    .cmd(SOURCES)
    .check(post_built),
    Case::new(
        "jekyll exclude not a list",
        |p| site(p, b"exclude: 5\n"),
        0,
        None,
    )
    .cmd(SOURCES)
    .check(post_built),
];

pub(crate) fn jekyll_configs() {
    run_table(CASES);
}
