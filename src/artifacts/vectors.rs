//! The vectors artifact: a compact binary file of (chunk_id, f32 values) records.
//!
//! Layout (little-endian): magic `AZVEC001`, u32 dims, u32 count, then per record:
//! u8 id length, the id's ASCII bytes, `dims` f32 values. `askzico export --format vectorize`
//! turns it into Vectorize NDJSON.

const MAGIC: &[u8; 8] = b"AZVEC001";

/// Encodes the records into one buffer, sized up front from the iterator's lower bound.
pub(crate) fn encode<'a>(
    dims: usize,
    items: impl Iterator<Item = (&'a str, &'a [f32])>,
) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(16 + items.size_hint().0 * (1 + 64 + dims * 4));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(dims as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // the count, written below
    let mut n = 0u32;
    for (id, values) in items {
        debug_assert_eq!(values.len(), dims);
        out.push(id.len() as u8);
        out.extend_from_slice(id.as_bytes());
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        n += 1;
    }
    out[12..16].copy_from_slice(&n.to_le_bytes());
    (out, n as usize)
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VectorRecord {
    pub id: String,
    pub values: Vec<f32>,
}

/// What is malformed in a vectors file (`record` counts from 0).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecodeError {
    #[error("not an askzico vectors file (bad magic)")]
    BadMagic,
    #[error("truncated at record {record}")]
    Truncated { record: usize },
    #[error("truncated id at record {record}")]
    TruncatedId { record: usize },
    #[error("record {record}: id is not UTF-8")]
    IdNotUtf8 { record: usize },
    #[error("truncated values at record {record}")]
    TruncatedValues { record: usize },
    #[error("{trailing} trailing bytes after {records} records")]
    Trailing { trailing: usize, records: usize },
}

/// Decodes a vectors file into its dimensions and records; `Err` says what is malformed.
pub(crate) fn decode(bytes: &[u8]) -> Result<(usize, Vec<VectorRecord>), DecodeError> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let dims = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let count = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut pos = 16;
    let mut out = Vec::with_capacity(count.min(1 << 20));
    for i in 0..count {
        let len = *bytes.get(pos).ok_or(DecodeError::Truncated { record: i })? as usize;
        pos += 1;
        let id = bytes
            .get(pos..pos + len)
            .ok_or(DecodeError::TruncatedId { record: i })?;
        let id = std::str::from_utf8(id)
            .map_err(|_| DecodeError::IdNotUtf8 { record: i })?
            .to_string();
        pos += len;
        let need = dims * 4;
        let raw = bytes
            .get(pos..pos + need)
            .ok_or(DecodeError::TruncatedValues { record: i })?;
        let values = raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        pos += need;
        out.push(VectorRecord { id, values });
    }
    if pos != bytes.len() {
        return Err(DecodeError::Trailing {
            trailing: bytes.len() - pos,
            records: count,
        });
    }
    Ok((dims, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let v = [0.5f32, -1.0];
        let (bytes, n) = encode(2, [("a:000", &v[..]), ("b:001", &v[..])].into_iter());
        assert_eq!(n, 2);
        let (dims, recs) = decode(&bytes).unwrap();
        assert_eq!(dims, 2);
        assert_eq!(recs[1].id, "b:001");
        assert_eq!(recs[1].values, v);
        assert_eq!(
            decode(&bytes[..bytes.len() - 1]),
            Err(DecodeError::TruncatedValues { record: 1 })
        );
        assert_eq!(
            decode(&[bytes.as_slice(), b"x"].concat())
                .unwrap_err()
                .to_string(),
            "1 trailing bytes after 2 records"
        );
    }
}
