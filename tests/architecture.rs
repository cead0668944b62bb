//! ARCHITECTURE.md held against the code, in the manner of rust-analyzer's architecture
//! invariants: the crates and modules it describes are the workspace's, the module graph it
//! draws is the one the code has, every item path it names exists, the pure core names no I/O
//! and depends on nothing that does, and the dependency rules it states hold. Test code
//! (`#[cfg(test)]` modules, `tests.rs` files) is left out: a test may do anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap()
}

/// The crates of the workspace: name → source directory.
const CRATES: [(&str, &str); 4] = [
    ("askzico-core", "crates/core/src"),
    ("askzico", "src"),
    ("askzico-bench", "crates/bench/src"),
    ("askzico-wasm", "crates/wasm/src"),
];

/// Paths into other crates, which the map may name without their items being checked.
const EXTERNAL: [&str; 8] = [
    "std",
    "core",
    "alloc",
    "libm",
    "salsa",
    "rayon",
    "serde_json",
    "clap",
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// A file's code without its test module.
fn non_test_code(f: &Path) -> Option<String> {
    if f.ends_with("tests.rs") {
        return None;
    }
    let text = std::fs::read_to_string(f).unwrap();
    Some(
        text.split("#[cfg(test)]\nmod ")
            .next()
            .unwrap_or_default()
            .to_string(),
    )
}

/// A crate's top-level modules (files and folders of its `src`, but `lib` and `main`).
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| m != "lib" && m != "main")
        .collect()
}

/// The names a use of `prefix` brings in: `prefix::x` or `prefix::{x, y::z}` → x (and y).
fn named_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        let rest = &code[i + prefix.len()..];
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
        out.extend(
            names
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(String::from),
        );
    }
    out
}

/// Per crate, top-level module → the modules its non-test code names: `crate::x` for its own,
/// `core` for the core crate (`askzico_core::…`, or one of its modules the CLI re-exports).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules(src);
    let core = modules(&root().join(CRATES[0].1));
    let mut g: BTreeMap<String, BTreeSet<String>> =
        mods.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for f in rust_files(src) {
        let rel = f.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        let Some(code) = non_test_code(&f) else {
            continue;
        };
        let Some(uses) = g.get_mut(&module) else {
            continue;
        };
        for n in named_after(&code, "crate::") {
            if n != module && mods.contains(&n) {
                uses.insert(n);
            } else if !mods.contains(&n) && core.contains(&n) {
                uses.insert("core".into());
            }
        }
        if code.contains("askzico_core::") {
            uses.insert("core".into());
        }
        if src.ends_with(CRATES[2].1) && code.contains("askzico::") {
            uses.insert("askzico".into());
        }
    }
    g
}

/// The module graph as ARCHITECTURE.md draws it.
fn drawn_graph() -> String {
    let mut out = String::new();
    for (name, src) in CRATES {
        out.push_str(&format!("{name}\n"));
        for (m, uses) in graph(&root().join(src)) {
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            let line = format!("  {m:<10} -> {}", uses.join(", "));
            out.push_str(line.trim_end_matches(" -> ").trim_end());
            out.push('\n');
        }
    }
    out
}

/// The fenced block after `## Module graph`.
fn graph_block(doc: &str) -> String {
    let at = doc
        .find("## Module graph")
        .expect("a `## Module graph` section");
    let rest = &doc[at..];
    let start = rest.find("```text\n").expect("a ```text block") + "```text\n".len();
    let end = rest[start..].find("```").unwrap();
    rest[start..start + end].to_string()
}

#[test]
fn the_module_graph_drawn_is_the_codes() {
    let drawn = graph_block(&architecture());
    let actual = drawn_graph();
    assert!(
        drawn.trim_end() == actual.trim_end(),
        "ARCHITECTURE.md's module graph is not the code's; the code's is:\n\n{actual}"
    );
}

/// The modules a crate's section lists: lines `- `name`…` under `### <crate>`.
fn described(doc: &str, krate: &str) -> BTreeSet<String> {
    let head = format!("### `{krate}`");
    let at = doc
        .find(&head)
        .unwrap_or_else(|| panic!("no `{head}` section"));
    let rest = &doc[at + head.len()..];
    let section = &rest[..rest.find("\n#").unwrap_or(rest.len())];
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .map(|l| l.split('`').next().unwrap().to_string())
        .collect()
}

#[test]
fn every_crate_and_module_is_described_and_nothing_else() {
    let doc = architecture();
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for (name, src) in CRATES {
        let dir = Path::new(src).parent().unwrap();
        if dir != Path::new("") {
            assert!(
                workspace.contains(&format!("\"{}\"", dir.display())),
                "{name} is not a workspace member"
            );
        }
        assert_eq!(
            described(&doc, name),
            modules(&root().join(src)),
            "the modules ARCHITECTURE.md describes under `{name}` are not the crate's"
        );
    }
}

/// Where module path `segments` of a crate lives: its file, or its folder's files.
fn module_files(src: &Path, segments: &[&str]) -> Option<Vec<PathBuf>> {
    let mut dir = src.to_path_buf();
    for (i, s) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if dir.join(s).is_dir() {
            dir = dir.join(s);
            if last {
                return Some(rust_files(&dir));
            }
        } else if dir.join(format!("{s}.rs")).is_file() && last {
            return Some(vec![dir.join(format!("{s}.rs"))]);
        } else {
            return None;
        }
    }
    None
}

/// Whether an item named `name` is defined (or re-exported) in `files`.
fn defines(files: &[PathBuf], name: &str) -> bool {
    let kinds = [
        "fn", "struct", "enum", "trait", "type", "const", "static", "mod",
    ];
    files.iter().any(|f| {
        let text = std::fs::read_to_string(f).unwrap();
        kinds.iter().any(|k| {
            text.contains(&format!("{k} {name}("))
                || text.contains(&format!("{k} {name} "))
                || text.contains(&format!("{k} {name}<"))
                || text.contains(&format!("{k} {name};"))
                || text.contains(&format!("{k} {name}:"))
        }) || text.lines().any(|l| {
            l.trim_start().starts_with("pub use") && {
                let tail = l.rsplit("::").next().unwrap_or_default();
                tail.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == name)
                    || l.contains(&format!(" {name},"))
                    || l.contains(&format!("{{{name}"))
            }
        })
    })
}

/// Every `module::item` path in backticks resolves: its modules exist and define the item (an
/// item's method, `Type::method`, is looked for as a `fn` of the module).
#[test]
fn every_item_path_it_names_exists() {
    let doc = architecture();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (i, chunk) in doc.split('`').enumerate() {
        if i % 2 == 0 || !chunk.contains("::") || chunk.contains(' ') {
            continue;
        }
        let path: Vec<&str> = chunk.trim_end_matches("()").split("::").collect();
        if path
            .iter()
            .any(|s| s.is_empty() || !s.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            continue;
        }
        if EXTERNAL.contains(&path[0]) {
            continue;
        }
        let (src, path) = match path[0] {
            "askzico_core" => (root().join(CRATES[0].1), &path[1..]),
            _ => (root().join(CRATES[1].1), &path[..]),
        };
        // The longest prefix that is a module, in the CLI crate or the core.
        let resolve = |src: &Path| {
            (1..=path.len())
                .rev()
                .find_map(|n| module_files(src, &path[..n]).map(|f| (n, f)))
        };
        let found = resolve(&src).or_else(|| resolve(&root().join(CRATES[0].1)));
        let Some((n, files)) = found else {
            missing.push(chunk.to_string());
            continue;
        };
        checked += 1;
        let items = &path[n..];
        if let Some(last) = items.last()
            && !defines(&files, last)
        {
            missing.push(chunk.to_string());
        }
    }
    assert!(checked > 20, "only {checked} paths checked");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what the code does not have: {missing:?}"
    );
}

/// What the pure core must not name: I/O, the environment, clocks and threads.
const IO: [&str; 9] = [
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "std::time",
    "std::thread",
    "std::io",
    "Instant",
    "SystemTime",
];

#[test]
fn the_core_names_no_io_and_depends_on_nothing_that_does() {
    let src = root().join(CRATES[0].1);
    for f in rust_files(&src) {
        let Some(code) = non_test_code(&f) else {
            continue;
        };
        for word in IO {
            assert!(!code.contains(word), "{} names {word}", f.display());
        }
    }
    // Its dependencies, each a pure computation that builds for wasm32.
    let manifest = std::fs::read_to_string(root().join("crates/core/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    let names: BTreeSet<&str> = deps
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(n, _)| n.trim()))
        .collect();
    let pure: BTreeSet<&str> = [
        "blake3",
        "libm",
        "memchr",
        "rustc-hash",
        "serde",
        "serde_json",
        "toml",
        "unicode-normalization",
    ]
    .into();
    assert!(
        names.is_subset(&pure),
        "the core depends on {:?}, beyond the pure crates {pure:?}",
        names.difference(&pure).collect::<Vec<_>>()
    );
    assert!(
        manifest.contains("blake3 = { version = \"1.8\", default-features = false }"),
        "blake3 without its std feature"
    );
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
fn modules_form_no_circle() {
    for (name, src) in CRATES {
        let g = graph(&root().join(src));
        let circles: Vec<&String> = g.keys().filter(|m| reach(&g, m).contains(*m)).collect();
        assert!(
            circles.is_empty(),
            "{name}: modules on a circle: {circles:?}"
        );
    }
}

/// The CLI's modules that hold settings types `config` builds, or are leaves: they never name
/// `config`.
const BELOW_CONFIG: [&str; 12] = [
    "chunk", "extract", "compile", "template", "retrieve", "inspect", "embed", "identity", "diag",
    "fsio", "walk", "http",
];

/// The pipeline stages: each owns its settings type, which `config` builds; none depends on
/// `config`, directly or through another module.
const STAGES: [&str; 6] = [
    "chunk", "extract", "retrieve", "inspect", "embed", "compile",
];

#[test]
fn settings_owners_and_stages_do_not_depend_on_config() {
    let g = graph(&root().join("src"));
    for m in BELOW_CONFIG {
        let uses = g.get(m).unwrap_or_else(|| panic!("no module {m}"));
        assert!(!uses.contains("config"), "{m} names config: {uses:?}");
    }
    for m in STAGES {
        let below = reach(&g, m);
        assert!(
            !below.contains("config"),
            "{m} depends on config (it reaches {below:?}): a stage takes its settings type"
        );
    }
    // The pure compile knows nothing of the engine that drives it; watch nothing of the CLI.
    assert!(!g["compile"].contains("engine") && !g["compile"].contains("db"));
    assert!(!g["watch"].contains("cli"));
}

/// A file over 800 lines holds more than one concern: split along its seams. Test files
/// (`tests.rs`) are left out.
#[test]
fn no_source_file_is_over_800_lines() {
    let mut long = Vec::new();
    for (_, src) in CRATES {
        for f in rust_files(&root().join(src)) {
            if f.ends_with("tests.rs") {
                continue;
            }
            let lines = std::fs::read_to_string(&f).unwrap().lines().count();
            if lines > 800 {
                long.push(format!("{} ({lines} lines)", f.display()));
            }
        }
    }
    assert!(long.is_empty(), "files over 800 lines: {long:?}");
}

/// The test targets whose `Cargo.toml` entry sets `harness = false` (they list their tests in
/// `main`, tests/common/harness.rs): a `#[test]` there would compile to nothing and never run,
/// so none of their files may hold one.
#[test]
fn no_test_attribute_where_the_harness_lists_the_tests() {
    let mut offenders = Vec::new();
    for manifest in ["Cargo.toml", "crates/bench/Cargo.toml"] {
        let dir = root().join(manifest);
        let dir = dir.parent().unwrap();
        let toml: toml::Table = std::fs::read_to_string(root().join(manifest))
            .unwrap()
            .parse()
            .unwrap();
        let targets = toml
            .get("test")
            .and_then(|t| t.as_array())
            .cloned()
            .unwrap_or_default();
        for t in targets
            .iter()
            .filter(|t| t.get("harness").and_then(|h| h.as_bool()) == Some(false))
        {
            let name = t["name"].as_str().unwrap();
            let path = t
                .get("path")
                .and_then(|p| p.as_str())
                .map_or_else(|| format!("tests/{name}.rs"), str::to_string);
            let main = dir.join(&path);
            // The target's own folder (`tests/deploy/` beside `tests/deploy.rs`, or the folder of
            // a `main.rs`) holds its modules.
            let folder = if main.file_name().unwrap() == "main.rs" {
                main.parent().unwrap().to_path_buf()
            } else {
                main.with_extension("")
            };
            let mut files = vec![main.clone()];
            if folder.is_dir() {
                files.extend(rust_files(&folder));
            }
            for f in files {
                let text = std::fs::read_to_string(&f).unwrap();
                if text.lines().any(|l| l.trim() == "#[test]") {
                    offenders.push(f.display().to_string());
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "#[test] in a harness = false target (list the test in its main instead): {offenders:?}"
    );
}
