//! How the store compresses what it keeps in bulk (record blocks, checkpoint states): LZ4,
//! with the decompressed length in front, and a damaged value reported, never trusted for an
//! allocation.

/// `bytes` compressed.
pub(super) fn compress(bytes: &[u8]) -> Vec<u8> {
    lz4_flex::compress_prepend_size(bytes)
}

/// The bytes `compressed` was made from, or why it cannot be read.
pub(super) fn decompress(compressed: &[u8]) -> Result<Vec<u8>, String> {
    // LZ4 expands at most 255 times: a length beyond that is damage, not a reason to
    // allocate it.
    let claimed = compressed
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or("shorter than its length")?;
    if claimed > compressed.len().saturating_mul(255) {
        return Err("claims more than it can hold".to_string());
    }
    lz4_flex::decompress_size_prepended(compressed).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_compressed_comes_back_and_damage_is_an_error() {
        for bytes in [&b""[..], b"a", &[7u8; 10_000][..], "é€😀".as_bytes()] {
            assert_eq!(
                decompress(&compress(bytes)).as_deref(),
                Ok(bytes),
                "round trip"
            );
        }
        let good = compress(b"some bytes some bytes");
        let mut huge = good.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decompress(&huge).is_err(), "a length it cannot hold");
        assert!(decompress(&good[..good.len() - 3]).is_err(), "cut short");
        assert!(decompress(&[]).is_err(), "empty");
    }
}
