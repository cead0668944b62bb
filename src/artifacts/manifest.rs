//! The manifest: the content-addressed description of one build. `corpus_version` is blake3 over
//! the settings fingerprint and every artifact's kind, path, hash, size and record count, so it
//! names exactly those artifacts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Kind;

pub(crate) const MANIFEST_FORMAT: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ArtifactEntry {
    pub kind: Kind,
    /// Relative to the output directory, `/`-separated.
    pub path: String,
    pub blake3: String,
    pub bytes: u64,
    pub records: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LibraryEntry {
    pub id: String,
    pub docs: usize,
    pub chunks: usize,
    pub domains: Vec<String>,
    /// Documents whose ID was mapped (escaped or shortened) because their slug was not an ID as
    /// it is (`identity::map_doc_id`); absent when none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub mapped_ids: usize,
    /// Of those, the ones `[[library]] slugs = "transliterate"` spelled in ASCII (each would
    /// have had another ID with `"escape"`); absent when none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transliterated_ids: usize,
    /// The top-level metadata fields a query may filter on (`[[library]] filterable`), which the
    /// version's tables hold per document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filterable: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub askzico_manifest: u32,
    pub corpus: String,
    pub corpus_version: String,
    pub environment: String,
    /// `fingerprint` plus the values that shape output (chunker, normalizer, embedder, identity, libraries).
    pub settings: Map<String, Value>,
    pub libraries: Vec<LibraryEntry>,
    pub artifacts: Vec<ArtifactEntry>,
}

/// blake3 over canonical JSON of the settings values (fingerprint excluded).
pub(crate) fn fingerprint(values: &Map<String, Value>) -> String {
    let mut v = values.clone();
    v.remove("fingerprint");
    let bytes = serde_json::to_vec(&Value::Object(v)).expect("settings serialize");
    blake3::hash(&bytes).to_hex().to_string()
}

/// The corpus version: names exactly these artifacts under these settings.
pub fn corpus_version(fingerprint: &str, artifacts: &[ArtifactEntry]) -> String {
    let mut sorted: Vec<&ArtifactEntry> = artifacts.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut h = blake3::Hasher::new();
    h.update(b"askzico-corpus-version-1\n");
    h.update(fingerprint.as_bytes());
    for a in sorted {
        h.update(
            format!(
                "\n{}\t{}\t{}\t{}\t{}",
                a.kind.as_str(),
                a.path,
                a.blake3,
                a.bytes,
                a.records
            )
            .as_bytes(),
        );
    }
    h.finalize().to_hex()[..32].to_string()
}

impl Manifest {
    pub fn fingerprint(&self) -> &str {
        self.settings
            .get("fingerprint")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The embedder the build's vectors come from, as a user reads it: `hash` says it is a
    /// lexical stand-in (character n-grams, no network), a model names itself.
    pub fn embedder(&self) -> String {
        let e = self.settings.get("embedder");
        let field = |k: &str| {
            e.and_then(|e| e.get(k))
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .unwrap_or_default()
        };
        let (provider, model, dims) = (field("provider"), field("model"), field("dims"));
        match provider.as_str() {
            "hash" => format!(
                "hash, {dims} dims (character n-grams: a lexical stand-in that matches spellings, not meaning; `[embedding] provider = \"workers-ai\"` embeds meaning)"
            ),
            "" => "unknown".to_string(),
            _ => format!("{provider} {model}, {dims} dims"),
        }
    }

    pub fn artifacts_of(&self, kind: Kind) -> impl Iterator<Item = &ArtifactEntry> {
        self.artifacts.iter().filter(move |a| a.kind == kind)
    }

    /// Whether this manifest is one askzico wrote and nobody changed since, as far as it can
    /// tell by itself: a format this askzico reads, artifact paths inside the output directory,
    /// and a fingerprint and corpus version that match its settings and artifacts. Checked
    /// before any file it names is opened; the reason it is not, otherwise.
    pub fn check_own(&self) -> Result<(), String> {
        if self.askzico_manifest != MANIFEST_FORMAT {
            return Err(format!(
                "its format is {}, and this askzico reads format {MANIFEST_FORMAT}",
                self.askzico_manifest
            ));
        }
        if let Some(a) = self
            .artifacts
            .iter()
            .find(|a| !super::store::is_safe_artifact_path(&a.path))
        {
            return Err(format!(
                "it names the artifact path `{}`, which leaves the output directory",
                a.path
            ));
        }
        if fingerprint(&self.settings) != self.fingerprint() {
            return Err("its settings do not match their fingerprint".into());
        }
        if corpus_version(self.fingerprint(), &self.artifacts) != self.corpus_version {
            return Err(format!(
                "its corpus_version {} does not match its artifacts and settings",
                self.corpus_version
            ));
        }
        Ok(())
    }

    pub fn to_pretty_json(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).expect("manifest serializes");
        v.push(b'\n');
        v
    }
}

/// File name of the manifest of an environment.
pub(crate) fn manifest_file_name(env: Option<&str>) -> String {
    match env {
        None => "manifest.json".into(),
        Some(e) => format!("manifest.{e}.json"),
    }
}
