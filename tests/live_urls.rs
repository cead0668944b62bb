//! The URLs askzico gives pages of the shared corpora (../shared/corpora, read at test time, never
//! copied) with examples/shared-corpora/corpus.toml, against the URLs of their live pages as the
//! corpora themselves show them (links between pages, canonical URLs, the site's address).
//! Skips with a printed reason where the corpora are absent.

mod common;

use askzico::compile_file;
use askzico::{Config, Format};
use common::*;

/// (library, source path in its root, live URL, where the live URL is established).
const CASES: &[(&str, &str, &str, &str)] = &[
    // Astro Starlight: pages link `/ar/docs/binding/…/` and `https://gin-gonic.com/ar/docs/quickstart/`;
    // the root `index.mdx` is the site's Arabic home.
    (
        "gin",
        "index.mdx",
        "https://gin-gonic.com/ar/",
        "root index",
    ),
    (
        "gin",
        "docs/quickstart/index.md",
        "https://gin-gonic.com/ar/docs/quickstart/",
        "absolute link between pages",
    ),
    (
        "gin",
        "docs/binding/index.md",
        "https://gin-gonic.com/ar/docs/binding/",
        "link `/ar/docs/binding/`",
    ),
    (
        "gin",
        "docs/binding/bind-default-values.md",
        "https://gin-gonic.com/ar/docs/binding/bind-default-values/",
        "link `/ar/docs/binding/bind-default-values/`",
    ),
    // VitePress: pages link `/api/application`.
    (
        "vue-ar",
        "api/application.md",
        "https://ar.vuejs.org/api/application",
        "link `/api/application`",
    ),
    // react.dev: pages link `/learn/adding-interactivity`.
    (
        "react-ar",
        "learn/adding-interactivity.md",
        "https://ar.react.dev/learn/adding-interactivity",
        "link `/learn/adding-interactivity`",
    ),
    // Hugo bundles: a post's frontmatter `slug` names its URL, as the posts' links show.
    (
        "fahdlabs",
        "post/v1-raspberry-pi-5-setup-ssh-docker/index.md",
        "https://fahdlabs.github.io/post/raspberry-pi-5-setup-ssh-docker/",
        "link `/post/raspberry-pi-5-setup-ssh-docker/`",
    ),
    (
        "fahdlabs",
        "post/v4-adguard-home-network-wide-adblock/index.md",
        "https://fahdlabs.github.io/post/adguard-home-network-wide-adblock/",
        "link `/post/adguard-home-network-wide-adblock/`",
    ),
    // Hugo output: each page's `og:url`.
    (
        "eis1600",
        "p/description-of-the-project/index.html",
        "https://eis1600.github.io/ar/p/description-of-the-project/",
        "the page's og:url",
    ),
];

fn shared_corpora_urls_are_the_live_pages() {
    if shared_corpora("shared_corpora_urls_are_the_live_pages").is_none() {
        return;
    }
    let cfg = Config::load(&repo().join("examples/shared-corpora/corpus.toml"))
        .unwrap_or_else(|p| panic!("the shared-corpora config loads: {p:?}"));
    let mut wrong = Vec::new();
    for &(lib_id, rel, live, evidence) in CASES {
        let lib = cfg.library(lib_id).expect("library in corpus.toml");
        let path = lib.root.join(rel);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let format = lib
            .format
            .or_else(|| Format::from_extension(&path))
            .expect("a known format");
        let (docs, problems) = compile_file(
            &cfg.compile_settings(),
            &lib.compile_settings(),
            rel,
            &bytes,
            format,
            &askzico::Includes::default(),
            None,
        );
        let errors: Vec<_> = problems.iter().filter(|p| p.is_error()).collect();
        assert!(errors.is_empty(), "{lib_id}/{rel}: {errors:?}");
        assert_eq!(docs.len(), 1, "{lib_id}/{rel}: one document");
        if docs[0].url != live {
            wrong.push(format!(
                "{lib_id}/{rel}: {} (live: {live}, from {evidence})",
                docs[0].url
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "URLs that are not the live page:\n{}",
        wrong.join("\n")
    );
}

fn main() -> std::process::ExitCode {
    use common::harness::test;
    common::harness::run(vec![
        test(
            "shared_corpora_urls_are_the_live_pages",
            shared_corpora_urls_are_the_live_pages,
        )
        .needs(common::harness::shared_corpora),
    ])
}
