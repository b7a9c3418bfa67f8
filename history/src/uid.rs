//! Run identities (`runs.uid`): what makes a run the same run in every file it is copied to.
//!
//! A new run gets 128 random bits, from the standard library's randomly keyed SipHash
//! (`RandomState`, seeded by the operating system), so no dependency is needed for them. A run
//! recorded before schema version 4 gets a digest of the columns that identify it, computed
//! the same way in every copy of the file.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A new run's uid: 32 lowercase hex digits, random.
pub(crate) fn new_uid() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let half = || {
        // Every `RandomState` has keys of its own; the inputs only add uniqueness.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u32(std::process::id());
        hasher.write_u64(count);
        hasher.finish()
    };
    format!("{:016x}{:016x}", half(), half())
}

/// The uid of a run recorded before runs had one: `legacy-` and a 128-bit digest (two 64-bit
/// FNV-1a hashes with different offsets) of `parts`, each followed by a 0 byte.
pub(crate) fn legacy_uid(parts: &[&str]) -> String {
    let digest = |offset: u64| {
        parts
            .iter()
            .flat_map(|part| part.bytes().chain(std::iter::once(0)))
            .fold(offset, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            })
    };
    format!(
        "legacy-{:016x}{:016x}",
        digest(0xcbf2_9ce4_8422_2325),
        digest(0x6c62_272e_07bb_0142)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_uids_differ() {
        let uids: std::collections::HashSet<String> = (0..1000).map(|_| new_uid()).collect();
        assert_eq!(uids.len(), 1000);
        assert!(uids.iter().all(|u| u.len() == 32));
    }

    #[test]
    fn legacy_uids_depend_on_every_part_and_on_where_parts_end() {
        let uid = legacy_uid(&["1760000000", "42", "key"]);
        assert_eq!(uid, legacy_uid(&["1760000000", "42", "key"]));
        assert_ne!(uid, legacy_uid(&["1760000000", "43", "key"]));
        assert_ne!(legacy_uid(&["ab", "c"]), legacy_uid(&["a", "bc"]));
        assert!(uid.starts_with("legacy-") && uid.len() == 39);
    }
}
