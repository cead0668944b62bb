//! The dependency direction between the crate's top-level modules (ARCHITECTURE.md, "Dependency
//! direction"): read from the source, the modules that name each other form no circle, the
//! pure modules do not name `config`, and the pipeline stages do not depend on it, even through
//! another module. Test code (`#[cfg(test)]` modules, `tests.rs` files) is
//! left out: a test may build a config.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Circles still in the tree, each a set of modules allowed to stay in one (none).
const KNOWN: [&[&str]; 0] = [];

/// Modules that hold settings types `config` builds, or pure stages: they never name `config`.
const BELOW_CONFIG: [&str; 15] = [
    "chunk",
    "extract",
    "compile",
    "template",
    "normalize",
    "retrieve",
    "inspect",
    "embed",
    "text",
    "identity",
    "diag",
    "fsio",
    "walk",
    "coptic",
    "http",
];

/// The pipeline stages: each owns its settings type, which `config` builds; none depends on
/// `config`, directly or through another module.
const STAGES: [&str; 8] = [
    "chunk",
    "extract",
    "normalize",
    "retrieve",
    "inspect",
    "embed",
    "text",
    "compile",
];

/// Top-level module → the top-level modules its non-test code names (`crate::x`).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if ["lib", "main"].contains(&module.as_str()) || f.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
        let uses = g.entry(module.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group
                    .split('}')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|s| s.trim().split("::").next().unwrap_or_default())
                    .collect(),
                None => vec![
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap(),
                ],
            };
            for n in names {
                if !n.is_empty() && n != module {
                    uses.insert(n.to_string());
                }
            }
        }
    }
    g
}

/// The modules reachable from `from`.
fn reach(g: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(m) = todo.pop() {
        for n in g.get(&m).into_iter().flatten() {
            if seen.insert(n.clone()) {
                todo.push(n.clone());
            }
        }
    }
    seen
}

#[test]
fn modules_form_no_circle_but_the_known_ones() {
    let g = graph();
    assert!(
        g.contains_key("config") && g.contains_key("engine"),
        "{g:?}"
    );
    let mut circles = Vec::new();
    for m in g.keys() {
        let from_m = reach(&g, m);
        if !from_m.contains(m) {
            continue;
        }
        // The modules on a circle through `m`.
        let with: BTreeSet<&str> = from_m
            .iter()
            .filter(|n| reach(&g, n).contains(m))
            .map(String::as_str)
            .collect();
        if !KNOWN.iter().any(|k| with.iter().all(|n| k.contains(n))) {
            circles.push(format!("{m}: {with:?}"));
        }
    }
    assert!(circles.is_empty(), "modules on a circle: {circles:#?}");
}

#[test]
fn settings_owners_and_pure_modules_do_not_name_config() {
    let g = graph();
    for m in BELOW_CONFIG {
        let uses = g.get(m).unwrap_or_else(|| panic!("no module {m}"));
        assert!(!uses.contains("config"), "{m} names config: {uses:?}");
    }
    // The pure compile knows nothing of the engine that drives it; watch nothing of the CLI.
    assert!(!g["compile"].contains("engine") && !g["compile"].contains("db"));
    assert!(!g["watch"].contains("cli"));
}

#[test]
fn pipeline_stages_do_not_depend_on_config() {
    let g = graph();
    for m in STAGES {
        assert!(g.contains_key(m), "no module {m}");
        let below = reach(&g, m);
        assert!(
            !below.contains("config"),
            "{m} depends on config (it reaches {below:?}): a stage takes its settings type, \
             which config builds"
        );
    }
}
