//! A hand-edited manifest must not lead `query`, `show`, `verify` or `export` out of `out/`.

use super::*;

/// Rewrites the first artifact path of `out/manifest.json`.
fn repoint(p: &Path, to: &str) -> Result<(), String> {
    let path = p.join("out/manifest.json");
    let mut m: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    if m["artifacts"][0]["path"].as_str().is_some_and(|x| x == to) {
        return Ok(()); // already done (the human run)
    }
    put(p, "secret.jsonl", "{\"chunk_id\":\"x\"}\n")?;
    m["artifacts"][0]["path"] = Value::from(to);
    std::fs::write(path, serde_json::to_vec_pretty(&m).unwrap()).map_err(|e| e.to_string())
}

const MSG: &str = "which leaves the output directory";

pub const CASES: &[Case] = &[
    Case::new(
        "query refuses a `..` artifact path",
        |p| repoint(p, "../secret.jsonl"),
        1,
        err("out/manifest.json", None, MSG),
    )
    .cmd(&["query", "سؤال"]),
    Case::new(
        "show refuses an absolute artifact path",
        |p| {
            let abs = format!("{}/secret.jsonl", p.display());
            repoint(p, &abs)
        },
        1,
        err("out/manifest.json", None, MSG),
    )
    .cmd(&["show", "docs:good"]),
    Case::new(
        "verify refuses a `..` artifact path",
        |p| repoint(p, "chunks/../../secret.jsonl"),
        1,
        err("out/manifest.json", None, MSG),
    )
    .cmd(&["verify"]),
];

pub(crate) fn hand_edited_manifests() {
    run_table(CASES);
}
