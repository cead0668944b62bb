use super::*;
use crate::embed::HashEmbedder;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The hash embedder, counting what reaches it.
struct Counting {
    inner: HashEmbedder,
    calls: AtomicUsize,
    texts: AtomicUsize,
    batch: usize,
}

impl Counting {
    fn new(dims: usize, batch: usize) -> Self {
        Counting {
            inner: HashEmbedder::new(dims),
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
            batch,
        }
    }
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    fn texts(&self) -> usize {
        self.texts.load(Ordering::SeqCst)
    }
}

impl Embedder for Counting {
    fn dims(&self) -> usize {
        self.inner.dims()
    }
    fn describe(&self) -> serde_json::Value {
        self.inner.describe()
    }
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed_batch(texts)
    }
    fn batch_hint(&self) -> usize {
        self.batch
    }
}

fn corpus(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("مقطع رقم {i} من النص في بيت لحم"))
        .collect()
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(|s| s.as_str()).collect()
}

fn bits(vs: &[Vec<f32>]) -> Vec<Vec<u32>> {
    vs.iter()
        .map(|v| v.iter().map(|x| x.to_bits()).collect())
        .collect()
}

fn shard_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(FORMAT_DIR))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn second_call_is_all_hits_and_inner_is_not_called() {
    let tmp = tempfile::tempdir().unwrap();
    let texts = corpus(10);
    let cache = CachedEmbedder::open(Counting::new(32, 4), tmp.path()).unwrap();
    let (first, stats) = cache.embed_all(&refs(&texts)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 0,
            misses: 10
        }
    );
    assert_eq!(cache.inner().calls(), 3, "10 misses in batches of 4");
    assert_eq!(
        first,
        cache.inner().inner.embed_batch(&refs(&texts)).unwrap()
    );

    let (second, stats) = cache.embed_all(&refs(&texts)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 10,
            misses: 0
        }
    );
    assert_eq!(cache.inner().calls(), 3);
    assert_eq!(bits(&first), bits(&second));
    cache.flush().unwrap();
    drop(cache);

    // A new process (a new instance) reads them from disk.
    let cache = CachedEmbedder::open(Counting::new(32, 4), tmp.path()).unwrap();
    let (third, stats) = cache.embed_all(&refs(&texts)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 10,
            misses: 0
        }
    );
    assert_eq!(cache.inner().calls(), 0);
    assert_eq!(bits(&first), bits(&third));

    // A mix: only the new texts reach the provider.
    let mut more = texts.clone();
    more.extend(corpus(13).into_iter().skip(10));
    let (_, stats) = cache.embed_all(&refs(&more)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 10,
            misses: 3
        }
    );
    assert_eq!(cache.inner().texts(), 3);
}

#[test]
fn repeated_texts_are_embedded_once() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = CachedEmbedder::open(Counting::new(16, 100), tmp.path()).unwrap();
    let (v, stats) = cache.embed_all(&["أ ب", "ج", "أ ب", "أ ب", "ج"]).unwrap();
    assert_eq!(stats, CacheStats { hits: 3, misses: 2 });
    assert_eq!(cache.inner().texts(), 2);
    assert_eq!(v[0], v[2]);
    assert_eq!(v[1], v[4]);
    assert_eq!(
        cache.embed_all(&[]).unwrap(),
        (vec![], CacheStats::default())
    );
}

#[test]
fn torn_record_appended_by_hand_is_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let texts = corpus(40);
    let expected = {
        let cache = CachedEmbedder::open(Counting::new(24, 64), tmp.path()).unwrap();
        let (v, _) = cache.embed_all(&refs(&texts)).unwrap();
        cache.flush().unwrap();
        v
    };
    // A killed writer: half a record (magic, key, dims, some values) at the end of every shard.
    let mut torn = Vec::new();
    encode_record(&mut torn, &[7u8; 32], &[0.5f32; 24]);
    torn.truncate(HEADER + 10);
    let files = shard_files(tmp.path());
    let before: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .collect();
    for f in &files {
        OpenOptions::new()
            .append(true)
            .open(f)
            .unwrap()
            .write_all(&torn)
            .unwrap();
    }
    let cache = CachedEmbedder::open(Counting::new(24, 64), tmp.path()).unwrap();
    let (got, stats) = cache.embed_all(&refs(&texts)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 40,
            misses: 0
        }
    );
    assert_eq!(bits(&got), bits(&expected));
    // The torn tails were trimmed, so new records start on a clean boundary...
    let after: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .collect();
    assert_eq!(before, after);
    let new = corpus(80);
    let (_, stats) = cache.embed_all(&refs(&new)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 40,
            misses: 40
        }
    );
    drop(cache);
    // ...and are all found by the next load.
    let cache = CachedEmbedder::open(Counting::new(24, 64), tmp.path()).unwrap();
    assert_eq!(
        cache.embed_all(&refs(&new)).unwrap().1,
        CacheStats {
            hits: 80,
            misses: 0
        }
    );
}

#[test]
fn a_cut_last_record_is_a_miss_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = CachedEmbedder::open(HashEmbedder::new(24), tmp.path()).unwrap();
    let (expected, _) = cache.embed_all(&["واحد", "اثنان"]).unwrap();
    let victim = shard_path(&tmp.path().join(FORMAT_DIR), cache.key("اثنان")[0]);
    drop(cache);
    let len = std::fs::metadata(&victim).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&victim)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let cache = CachedEmbedder::open(HashEmbedder::new(24), tmp.path()).unwrap();
    let (got, stats) = cache.embed_all(&["واحد", "اثنان"]).unwrap();
    assert_eq!(bits(&got), bits(&expected));
    assert_eq!(stats, CacheStats { hits: 1, misses: 1 });
}

#[test]
fn scanner_skips_damage_anywhere() {
    let mut bytes = Vec::new();
    encode_record(&mut bytes, &[1u8; 32], &[1.0, 2.0]);
    bytes.extend_from_slice(b"garbage with AZE1 inside it");
    let second = bytes.len();
    encode_record(&mut bytes, &[2u8; 32], &[3.0, 4.0]);
    // A record with a bad check (a flipped value bit).
    let mut bad = Vec::new();
    encode_record(&mut bad, &[3u8; 32], &[5.0, 6.0]);
    bad[HEADER] ^= 1;
    bytes.extend_from_slice(&bad);
    let fourth = bytes.len();
    encode_record(&mut bytes, &[4u8; 32], &[]);
    let end = bytes.len();
    // A torn tail that claims absurd dims.
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&[9u8; 32]);
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    let (found, valid_end) = scan_records(&bytes);
    assert_eq!(
        found,
        vec![
            ([1u8; 32], 0),
            ([2u8; 32], second as u64),
            ([4u8; 32], fourth as u64)
        ]
    );
    assert_eq!(valid_end, end);
    assert_eq!(scan_records(&[]), (vec![], 0));
    assert_eq!(scan_records(&MAGIC), (vec![], 0));
    let (k, v, len) = decode_record(&bytes[second..]).unwrap();
    assert_eq!((k, v, len), ([2u8; 32], vec![3.0, 4.0], record_len(2)));
}

#[test]
fn deleting_the_cache_changes_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let texts = corpus(25);
    let direct = HashEmbedder::new(48).embed_batch(&refs(&texts)).unwrap();
    let cold = CachedEmbedder::open(HashEmbedder::new(48), tmp.path()).unwrap();
    let (a, _) = cold.embed_all(&refs(&texts)).unwrap();
    let (b, stats) = cold.embed_all(&refs(&texts)).unwrap();
    assert_eq!(stats.hits, 25);
    drop(cold);
    std::fs::remove_dir_all(tmp.path()).unwrap();
    let fresh = CachedEmbedder::open(HashEmbedder::new(48), tmp.path()).unwrap();
    let (c, stats) = fresh.embed_all(&refs(&texts)).unwrap();
    assert_eq!(stats.misses, 25);
    assert_eq!(bits(&a), bits(&direct));
    assert_eq!(bits(&b), bits(&direct));
    assert_eq!(bits(&c), bits(&direct));
}

#[test]
fn different_describe_means_different_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let a = CachedEmbedder::open(Counting::new(16, 10), tmp.path()).unwrap();
    let b = CachedEmbedder::open(Counting::new(32, 10), tmp.path()).unwrap();
    let c = CachedEmbedder::open(
        crate::embed::CommandEmbedder::new(vec!["true".into()], 16, "other-model".into()).unwrap(),
        tmp.path(),
    )
    .unwrap();
    let d = CachedEmbedder::open(
        crate::embed::CommandEmbedder::new(vec!["true".into()], 16, "other-model-v2".into())
            .unwrap(),
        tmp.path(),
    )
    .unwrap();
    let keys = [a.key("نص"), b.key("نص"), c.key("نص"), d.key("نص")];
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            assert_ne!(keys[i], keys[j], "{i} vs {j}");
        }
    }
    assert_ne!(a.key("نص"), a.key("نص "));
    // The key is exactly blake3(canonical describe, 0x00, text).
    let mut h = blake3::Hasher::new();
    h.update(br#"{"dims":16,"model":"fnv1a-char-3-4-grams+words","provider":"hash"}"#);
    h.update(&[0]);
    h.update("نص".as_bytes());
    assert_eq!(a.key("نص"), *h.finalize().as_bytes());
    // Same dir, other settings: nothing is shared.
    a.embed_all(&["أ", "ب"]).unwrap();
    assert_eq!(
        b.embed_all(&["أ", "ب"]).unwrap().1,
        CacheStats { hits: 0, misses: 2 }
    );
}

#[test]
fn two_instances_sharing_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let texts = corpus(60);
    let a = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    let b = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| a.embed_all(&refs(&texts[..40])).unwrap());
        s.spawn(|| b.embed_all(&refs(&texts[20..])).unwrap());
    });
    drop((a, b));
    let c = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    let (v, stats) = c.embed_all(&refs(&texts)).unwrap();
    assert_eq!(
        stats,
        CacheStats {
            hits: 60,
            misses: 0
        }
    );
    assert_eq!(
        bits(&v),
        bits(&HashEmbedder::new(8).embed_batch(&refs(&texts)).unwrap())
    );
}

#[test]
fn a_bad_provider_answer_is_an_error() {
    struct Short;
    impl Embedder for Short {
        fn dims(&self) -> usize {
            4
        }
        fn describe(&self) -> serde_json::Value {
            serde_json::json!({"provider": "short"})
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            Ok(texts.iter().skip(1).map(|_| vec![0.0; 4]).collect())
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let cache = CachedEmbedder::open(Short, tmp.path()).unwrap();
    let err = cache.embed_all(&["a", "b"]).unwrap_err();
    assert!(
        err.message.contains("1 vectors for 2 texts"),
        "{}",
        err.message
    );
}

#[test]
fn an_unwritable_cache_still_gives_vectors_and_flush_reports_it() {
    // A directory where the shard file should be: no write can succeed, even as root.
    let tmp = tempfile::tempdir().unwrap();
    let cache = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    let (a, b) = (cache.key("أ")[0], cache.key("ب")[0]);
    for byte in [a, b] {
        std::fs::create_dir_all(shard_path(&tmp.path().join(FORMAT_DIR), byte)).unwrap();
    }
    let (v, stats) = cache.embed_all(&["أ", "ب"]).unwrap();
    assert_eq!(stats.misses, 2);
    assert_eq!(v, HashEmbedder::new(8).embed_batch(&["أ", "ب"]).unwrap());
    let err = cache.flush().unwrap_err();
    assert!(
        err.message.starts_with("embedding cache") && err.help.contains("unaffected"),
        "{err:?}"
    );
    // Reported once; the cache keeps answering (without writing).
    cache.flush().unwrap();
    assert_eq!(cache.embed_all(&["أ"]).unwrap().0, vec![v[0].clone()]);
}

/// A FIFO or a device where a shard should be is never read (a plain read would block or never
/// end): the vectors are still right and `flush` says the cache was not used.
#[test]
fn a_fifo_or_device_in_place_of_a_shard_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    let dir = tmp.path().join(FORMAT_DIR);
    let (a, b) = (cache.key("أ")[0], cache.key("ب")[0]);
    let fifo =
        std::ffi::CString::new(shard_path(&dir, a).into_os_string().into_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink("/dev/zero", shard_path(&dir, b)).unwrap();
    let (v, stats) = cache.embed_all(&["أ", "ب"]).unwrap();
    assert_eq!(stats.misses, 2);
    assert_eq!(v, HashEmbedder::new(8).embed_batch(&["أ", "ب"]).unwrap());
    let err = cache.flush().unwrap_err();
    assert!(err.message.contains("not a regular file"), "{err:?}");
}

/// A shard far over the cap is damage: started over, not read into memory.
#[test]
fn an_oversized_shard_is_started_over() {
    let tmp = tempfile::tempdir().unwrap();
    let texts = corpus(4);
    let cache = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    let first = cache.embed_all(&refs(&texts)).unwrap().0;
    cache.flush().unwrap();
    drop(cache);
    let shard = shard_files(tmp.path())[0].clone();
    let f = OpenOptions::new().write(true).open(&shard).unwrap();
    f.set_len(crate::fsio::cap::CORPUS_STATE + 1).unwrap(); // sparse: no disk used
    drop(f);
    let cache = CachedEmbedder::open(HashEmbedder::new(8), tmp.path()).unwrap();
    let (again, stats) = cache.embed_all(&refs(&texts)).unwrap();
    assert_eq!(bits(&first), bits(&again));
    assert!(stats.misses >= 1, "{stats:?}");
    cache.flush().unwrap();
    assert!(std::fs::metadata(&shard).unwrap().len() < 4096);
}
