//! `askzico worker init --target NAME [DIR]`: writes the Worker that answers a site's visitors
//! (the TypeScript sources and the retrieval core's WebAssembly this askzico ships, built from
//! `worker/` and `crates/wasm`) and a `wrangler.jsonc` with the `[deploy.NAME]` target's KV
//! namespace, both Vectorize indexes and prefix, and Workers AI for a `workers-ai` embedder.
//! `npx wrangler deploy` in DIR then deploys it. Running it again updates the Worker in place.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{BuildLocation, Failure, Outcome};
use crate::diag::Problem;

#[derive(clap::Args, Debug)]
pub(super) struct WorkerArgs {
    #[command(subcommand)]
    command: WorkerCommand,
}

#[derive(clap::Subcommand, Debug)]
enum WorkerCommand {
    /// Write the Worker and its wrangler.jsonc for a `[deploy.NAME]` target into DIR.
    Init(InitArgs),
}

#[derive(clap::Args, Debug)]
struct InitArgs {
    #[command(flatten)]
    at: BuildLocation,
    /// The `[deploy.NAME]` table of the config whose KV namespace and indexes the Worker reads.
    #[arg(long, value_parser = crate::paths::name_arg)]
    target: String,
    /// Where to write the Worker (default: `worker-<target>` beside the config).
    dir: Option<PathBuf>,
    /// Serve the Worker on this route (`example.org/search*`, a zone route) as well.
    #[arg(long)]
    route: Option<String>,
    /// Serve the Worker on this custom domain (`search.example.org`) as well.
    #[arg(long)]
    domain: Option<String>,
    /// Origins a browser may call `/search` from (the sites embedding the search box); by
    /// default the origins of the build's absolute page URLs.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
}

/// The Worker's files, as this askzico ships them.
const FILES: [(&str, &[u8]); 5] = [
    ("src/index.ts", include_bytes!("../../worker/src/index.ts")),
    ("src/core.ts", include_bytes!("../../worker/src/core.ts")),
    ("src/cache.ts", include_bytes!("../../worker/src/cache.ts")),
    ("src/page.ts", include_bytes!("../../worker/src/page.ts")),
    ("askzico.wasm", include_bytes!("../../worker/askzico.wasm")),
];

/// The first line of every wrangler.jsonc this command writes: what it may overwrite.
const MARK: &str = "// Written by `askzico worker init`";

/// The wrangler version the written package.json pins (the one the Worker's tests run).
const WRANGLER: &str = "4.164.0";

pub(super) fn run(args: WorkerArgs) -> Outcome {
    let WorkerCommand::Init(a) = args.command;
    let cfg = a.at.load(false)?;
    let t = a.at.deploy_target(&cfg, &a.target)?;
    let dir = a
        .dir
        .clone()
        .unwrap_or_else(|| cfg.base_dir.join(format!("worker-{}", a.target)));
    let config_path = dir.join("wrangler.jsonc");
    if let Ok(existing) = std::fs::read_to_string(&config_path)
        && !existing.starts_with(MARK)
    {
        return Err(Failure::usage(
            Problem::error(
                "exists",
                format!("{} exists and was not written by askzico", config_path.display()),
            )
            .in_file(config_path.display().to_string())
            .help("choose another DIR, or move that file away: `askzico worker init` only overwrites a Worker it wrote"),
            false,
        ));
    }
    let origins = if a.allow_origins.is_empty() {
        site_origins(&cfg)
    } else {
        a.allow_origins.clone()
    };
    let config = wrangler_config(&cfg, t, &a, &origins);
    let write = |rel: &str, bytes: &[u8]| -> Result<(), Failure> {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(&dir))
            .and_then(|()| crate::write_atomic(&path, bytes))
            .map_err(|e| {
                Failure::errors(
                    Problem::error("write", format!("cannot write {}: {e}", path.display()))
                        .help("check that the directory is writable"),
                    false,
                )
            })
    };
    for (rel, bytes) in FILES {
        write(rel, bytes)?;
    }
    let package = json!({
        "name": worker_name(&cfg.name, &a.target),
        "private": true,
        "devDependencies": {"wrangler": WRANGLER},
    });
    write("package.json", format!("{package:#}\n").as_bytes())?;
    write("wrangler.jsonc", config.as_bytes())?;
    println!(
        "wrote the Worker for target `{}` into {}",
        a.target,
        dir.display()
    );
    if cfg.embedding.provider == "command" {
        println!(
            "note: the build's embedder (`command`) cannot run in a Worker: questions are answered lexically, with `degraded: true`"
        );
    }
    if origins.is_empty() {
        println!(
            "note: no origin may call /search from another site yet: list your site's origins in ALLOWED_ORIGINS of wrangler.jsonc (or pass --allow-origin) to embed the search box"
        );
    }
    println!(
        "deploy it: cd {} && npx wrangler deploy   (after `askzico deploy --target {}`)",
        shell_path(&dir),
        a.target
    );
    Ok(())
}

fn worker_name(corpus: &str, target: &str) -> String {
    let raw = if corpus.starts_with("askzico") {
        format!("{corpus}-{target}")
    } else {
        format!("askzico-{corpus}-{target}")
    };
    let name: String = raw
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.trim_matches('-').chars().take(63).collect()
}

/// The origins (`https://host[:port]`) of the build's absolute page URLs, from the libraries'
/// URL templates.
fn site_origins(cfg: &crate::config::Config) -> Vec<String> {
    let mut out: Vec<String> = cfg
        .libraries
        .iter()
        .filter_map(|l| l.url.as_ref().map(crate::template::Template::source))
        .filter_map(|u| {
            let rest = u
                .strip_prefix("https://")
                .map(|r| ("https", r))
                .or_else(|| u.strip_prefix("http://").map(|r| ("http", r)))?;
            let host = rest.1.split(['/', '?', '#']).next()?;
            (!host.is_empty() && !host.contains('{')).then(|| format!("{}://{host}", rest.0))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn wrangler_config(
    cfg: &crate::config::Config,
    t: &crate::config::DeployTarget,
    a: &InitArgs,
    origins: &[String],
) -> String {
    let bindings: Vec<(String, &String)> = t
        .indexes
        .iter()
        .enumerate()
        .map(|(i, name)| (format!("VECTORIZE_{i}"), name))
        .collect();
    let mut c = json!({
        "name": worker_name(&cfg.name, &a.target),
        "main": "src/index.ts",
        "compatibility_date": "2026-11-01",
        "kv_namespaces": [{"binding": "KV", "id": t.kv_namespace_id}],
        "vectorize": bindings.iter().map(|(b, name)| json!({"binding": b, "index_name": name})).collect::<Vec<_>>(),
        "ratelimits": [{"name": "RATE_LIMITER", "namespace_id": "1001", "simple": {"limit": 120, "period": 60}}],
        "vars": {
            "PREFIX": t.prefix,
            "INDEXES": bindings.iter().map(|(b, name)| ((*name).clone(), Value::from(b.clone()))).collect::<serde_json::Map<_, _>>(),
            "ALLOWED_ORIGINS": origins.join(","),
            "POINTER_TTL_SECONDS": "30",
            "CACHE_MB": "64",
            "CACHE_SECONDS": "60",
        },
    });
    if let Some(account) = &t.account_id {
        c["account_id"] = account.clone().into();
    }
    if cfg.embedding.provider == "workers-ai" {
        c["ai"] = json!({"binding": "AI"});
    }
    let mut routes = Vec::new();
    if let Some(r) = &a.route {
        routes.push(json!({"pattern": r}));
    }
    if let Some(d) = &a.domain {
        routes.push(json!({"pattern": d, "custom_domain": true}));
    }
    if !routes.is_empty() {
        c["routes"] = routes.into();
    }
    format!(
        "{MARK} for target `{}`: running it again rewrites this file.\n\
         // KV namespace, both Vectorize indexes and prefix from [deploy.{}] of the config; the pointer's\n\
         // `index` chooses the binding through INDEXES. ALLOWED_ORIGINS: the sites that may embed the\n\
         // search box (`*` for any). RATE_LIMITER: searches per client a minute.\n{c:#}\n",
        a.target, a.target
    )
}

/// A path as a shell command would take it.
fn shell_path(p: &Path) -> String {
    let s = p.display().to_string();
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
