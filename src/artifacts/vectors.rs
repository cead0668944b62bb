//! The vectors artifact: a compact binary file of (chunk_id, f32 values) records.
//!
//! Layout (little-endian): magic `AZVEC001`, u32 dims, u32 count, then per record:
//! u8 id length, the id's ASCII bytes, `dims` f32 values. `askzico export --format vectorize`
//! turns it into Vectorize NDJSON.

use std::borrow::Cow;
use std::io::Read;

const MAGIC: &[u8; 8] = b"AZVEC001";

/// Encodes the records into one buffer.
#[cfg(test)]
pub(crate) fn encode<'a>(
    dims: usize,
    items: impl Iterator<Item = (&'a str, &'a [f32])>,
) -> (Vec<u8>, usize) {
    let items: Vec<(&str, &[f32])> = items.collect();
    let mut out = Vec::with_capacity(encoded_len(dims, items.iter().map(|(id, _)| id.len())));
    let n = items.len();
    let mut records = items.into_iter();
    encode_into(&mut out, dims, n, |_| {
        records.next().map(|(id, v)| (id, Cow::Borrowed(v)))
    })
    .expect("writing to memory cannot fail");
    (out, n)
}

/// The length of the encoding of records with these ID lengths.
pub(crate) fn encoded_len(dims: usize, id_lens: impl Iterator<Item = usize>) -> usize {
    16 + id_lens.map(|l| 1 + l + dims * 4).sum::<usize>()
}

/// Writes `count` records to `out` as they are made: the count is known up front, so the bytes
/// stream in order (nothing is written back), and a large file need never be in memory.
/// `next(i)` gives record `i`.
pub(crate) fn encode_into<'a>(
    out: &mut impl std::io::Write,
    dims: usize,
    count: usize,
    mut next: impl FnMut(usize) -> Option<(&'a str, Cow<'a, [f32]>)>,
) -> std::io::Result<()> {
    let count32 = u32::try_from(count).map_err(std::io::Error::other)?;
    out.write_all(MAGIC)?;
    out.write_all(&(dims as u32).to_le_bytes())?;
    out.write_all(&count32.to_le_bytes())?;
    let mut record = Vec::with_capacity(1 + 64 + dims * 4);
    for i in 0..count {
        let (id, values) =
            next(i).ok_or_else(|| std::io::Error::other("fewer records than counted"))?;
        debug_assert_eq!(values.len(), dims);
        record.clear();
        record.push(id.len() as u8);
        record.extend_from_slice(id.as_bytes());
        for v in values.iter() {
            record.extend_from_slice(&v.to_le_bytes());
        }
        out.write_all(&record)?;
    }
    Ok(())
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
    let mut out = Vec::new();
    let dims = visit(bytes, bytes.len() as u64, |id, values| {
        out.push(VectorRecord {
            id: id.to_string(),
            values: values.to_vec(),
        })
    })?;
    Ok((dims, out))
}

/// Reads a vectors file of `len` bytes from `r` record by record, handing each one's ID and
/// values to `each`, so a large file is never in memory whole; its dimensions, or what is
/// malformed (as [`decode`] says it).
pub(crate) fn visit(
    r: impl std::io::Read,
    len: u64,
    mut each: impl FnMut(&str, &[f32]),
) -> Result<usize, DecodeError> {
    let mut r = std::io::BufReader::with_capacity(1 << 16, r);
    let mut head = [0u8; 16];
    if len < 16 || r.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let dims = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes")) as usize;
    let count = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes")) as usize;
    // A record's values must fit in the file: a damaged `dims` never sizes a buffer.
    if count > 0 && dims as u64 * 4 > len {
        return Err(DecodeError::TruncatedValues { record: 0 });
    }
    let dims_read = if count > 0 { dims } else { 0 };
    let mut pos = 16u64;
    let mut id = [0u8; 255];
    let mut raw = vec![0u8; dims_read * 4];
    let mut values = vec![0f32; dims_read];
    for i in 0..count {
        let mut n = [0u8; 1];
        r.read_exact(&mut n)
            .map_err(|_| DecodeError::Truncated { record: i })?;
        let n = n[0] as usize;
        r.read_exact(&mut id[..n])
            .map_err(|_| DecodeError::TruncatedId { record: i })?;
        let id = std::str::from_utf8(&id[..n]).map_err(|_| DecodeError::IdNotUtf8 { record: i })?;
        r.read_exact(&mut raw)
            .map_err(|_| DecodeError::TruncatedValues { record: i })?;
        for (v, b) in values.iter_mut().zip(raw.chunks_exact(4)) {
            *v = f32::from_le_bytes(b.try_into().expect("4 bytes"));
        }
        pos += (1 + n + raw.len()) as u64;
        each(id, &values);
    }
    if pos != len {
        return Err(DecodeError::Trailing {
            trailing: len.saturating_sub(pos) as usize,
            records: count,
        });
    }
    Ok(dims)
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
        // A damaged dimension count larger than the file is an error, not a buffer that size.
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            decode(&huge),
            Err(DecodeError::TruncatedValues { record: 0 })
        );
        assert_eq!(
            decode(&[bytes.as_slice(), b"x"].concat())
                .unwrap_err()
                .to_string(),
            "1 trailing bytes after 2 records"
        );
    }
}
