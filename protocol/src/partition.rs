//! Partitions of a suite, for sharded CI runs: `--partition count:K/N`, `hash:K/N` and
//! `slice:K/N`, with nextest's meaning of each (shards numbered from 1, `1 ≤ K ≤ N`).
//!
//! # Units
//!
//! A partition never splits what one run must measure together. It assigns **units** to
//! shards, never single cases:
//!
//! * a **comparison group** is one unit (every member and its baseline): a member is measured
//!   interleaved with its baseline, in one process;
//! * a **benchmark function** outside any group is one unit with all its `args` cases: the
//!   scaling analysis needs every size of one run.
//!
//! Each unit has a key ([`partition_unit`]): the benchmark's id, or for a group
//! `<crate>::(group <name>)`. Two units that happened to share a key would land in the same
//! shard, which still runs every case exactly once.
//!
//! # Kinds
//!
//! * `count:K/N`: the units of one bench binary, after the filters, sorted by key; the i-th
//!   (from 0) is in shard `i mod N + 1`. Balanced, but adding a unit can move others.
//! * `hash:K/N`: a unit is in shard `h mod N + 1`, where `h` is [`unit_hash`] of its key. A
//!   unit stays in its shard whatever is added, removed or filtered around it.
//! * `slice:K/N`: like `count`, over the units of every bench binary of a run, so a suite of
//!   many small binaries is spread too. Only a tool that sees every binary can apply it
//!   (`knotmeter run`); a bench binary alone refuses it.
//!
//! The engine and the daemon both partition with [`Partition::shard_units`], so `cargo bench
//! -- --partition hash:2/4` and `knotmeter run --partition hash:2/4` choose the same cases.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

/// How units are assigned to shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartitionKind {
    /// Round robin over the sorted units of one bench binary.
    Count,
    /// By a stable hash of each unit's key.
    Hash,
    /// Round robin over the sorted units of every bench binary of a run.
    Slice,
}

impl PartitionKind {
    /// The word on the command line: `count`, `hash` or `slice`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Count => "count",
            Self::Hash => "hash",
            Self::Slice => "slice",
        }
    }
}

/// One shard of a partition: `--partition KIND:SHARD/TOTAL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Partition {
    /// How units are assigned.
    pub kind: PartitionKind,
    /// This shard, from 1 to [`total`](Self::total).
    pub shard: u64,
    /// The number of shards, at least 1.
    pub total: u64,
}

impl FromStr for Partition {
    type Err = String;

    /// Parses `count:K/N`, `hash:K/N` or `slice:K/N`; the error says what was expected.
    fn from_str(text: &str) -> Result<Self, String> {
        let expected = "expected count:K/N, hash:K/N or slice:K/N, shard K from 1 to N (hash:1/4)";
        let (kind, shards) = text
            .split_once(':')
            .ok_or_else(|| format!("`{text}` is not a partition: {expected}"))?;
        let kind = match kind.trim() {
            "count" => PartitionKind::Count,
            "hash" => PartitionKind::Hash,
            "slice" => PartitionKind::Slice,
            other => return Err(format!("`{other}` is not a kind of partition: {expected}")),
        };
        let (shard, total) = shards
            .split_once('/')
            .ok_or_else(|| format!("`{text}` lacks the `/N`: {expected}"))?;
        let number = |what: &str, digits: &str| {
            digits
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("the {what} in `{text}` is not a whole number: {expected}"))
        };
        let (shard, total) = (number("shard", shard)?, number("number of shards", total)?);
        if total == 0 {
            return Err(format!(
                "`{text}` has no shards: N is at least 1 ({expected})"
            ));
        }
        if !(1..=total).contains(&shard) {
            return Err(format!(
                "shard {shard} of `{text}` does not exist: shards are numbered from 1 to {total}"
            ));
        }
        Ok(Self { kind, shard, total })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}/{}", self.kind.as_str(), self.shard, self.total)
    }
}

impl Partition {
    /// The keys of the units in this shard, out of `units` (the key of every selected case,
    /// repeats allowed, from [`partition_unit`]; for `slice`, keys that sort in run order
    /// across binaries).
    pub fn shard_units<'k>(&self, units: impl IntoIterator<Item = &'k str>) -> HashSet<&'k str> {
        let mut keys: Vec<&str> = units.into_iter().collect();
        keys.sort_unstable();
        keys.dedup();
        let shard = self.shard - 1;
        keys.into_iter()
            .enumerate()
            .filter(|(index, key)| {
                let at = match self.kind {
                    PartitionKind::Count | PartitionKind::Slice => *index as u64,
                    PartitionKind::Hash => unit_hash(key),
                };
                at % self.total == shard
            })
            .map(|(_, key)| key)
            .collect()
    }
}

/// The partition unit of a case: its comparison group (`<crate>::(group <name>)`, the crate
/// being the first segment of the benchmark id), or else its benchmark.
pub fn partition_unit(bench_id: &str, group: Option<&str>) -> String {
    match group {
        Some(group) => {
            let krate = bench_id.split_once("::").map_or(bench_id, |(k, _)| k);
            format!("{krate}::(group {group})")
        }
        None => bench_id.to_owned(),
    }
}

/// The stable hash of a unit key that `hash:K/N` uses: 64-bit FNV-1a of its UTF-8 bytes,
/// then MurmurHash3's 64-bit finaliser so that every bit counts in `h mod N`. Part of the
/// format: it never changes, so a unit stays in its shard across knotmeter versions.
pub fn unit_hash(key: &str) -> u64 {
    let mut h = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Partition {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn specs_parse_as_nextest_writes_them() {
        assert_eq!(
            p("hash:2/4"),
            Partition {
                kind: PartitionKind::Hash,
                shard: 2,
                total: 4
            }
        );
        assert_eq!(p("count:1/1").to_string(), "count:1/1");
        assert_eq!(p("slice:3/3").kind, PartitionKind::Slice);
        for bad in [
            "",
            "hash",
            "hash:",
            "hash:1",
            "hash:1/",
            "hash:0/2",
            "hash:3/2",
            "hash:m/2",
            "hash:1/n",
            "hash:1/2/3",
            "hash:1/0",
            "modulo:1/2",
            "hash:-1/2",
        ] {
            let err = bad.parse::<Partition>().expect_err(bad);
            assert!(
                err.contains("count:K/N") || err.contains("from 1 to"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn every_unit_is_in_exactly_one_shard_of_every_kind() {
        let keys: Vec<String> = (0..200).map(|i| format!("demo::bench_{i}")).collect();
        for kind in ["count", "hash", "slice"] {
            for total in 1..=7 {
                let mut seen = HashSet::new();
                for shard in 1..=total {
                    let part = p(&format!("{kind}:{shard}/{total}"));
                    for key in part.shard_units(keys.iter().map(String::as_str)) {
                        assert!(seen.insert(key), "{key} twice in {kind} of {total}");
                    }
                }
                assert_eq!(seen.len(), keys.len(), "{kind} of {total}");
            }
        }
    }

    #[test]
    fn count_is_round_robin_over_sorted_units_and_ignores_repeats() {
        let cases = ["d::c/1", "d::a", "d::c/1", "d::b", "d::a"];
        let first = p("count:1/2").shard_units(cases);
        assert_eq!(first, HashSet::from(["d::a", "d::c/1"]));
        assert_eq!(p("count:2/2").shard_units(cases), HashSet::from(["d::b"]));
    }

    #[test]
    fn hash_shards_stay_put_when_units_are_added() {
        let before: Vec<String> = (0..100).map(|i| format!("demo::b{i}")).collect();
        let mut after = before.clone();
        after.extend((100..150).map(|i| format!("demo::b{i}")));
        for shard in 1..=4 {
            let part = p(&format!("hash:{shard}/4"));
            let old = part.shard_units(before.iter().map(String::as_str));
            let new = part.shard_units(after.iter().map(String::as_str));
            assert!(old.is_subset(&new), "shard {shard} lost units");
        }
    }

    #[test]
    fn hash_spreads_units_evenly_enough() {
        let keys: Vec<String> = (0..4000).map(|i| format!("suite::case_{i}")).collect();
        for shard in 1..=4 {
            let n = p(&format!("hash:{shard}/4"))
                .shard_units(keys.iter().map(String::as_str))
                .len();
            assert!(
                (850..=1150).contains(&n),
                "shard {shard} of 4 holds {n} of 4000"
            );
        }
    }

    #[test]
    fn the_hash_is_fixed_forever() {
        // A unit's shard must not move between knotmeter versions: these values are the format.
        assert_eq!(unit_hash(""), 0xefd0_1f60_ba99_2926);
        assert_eq!(unit_hash("quickstart::chain_n"), 0xc9be_9c3f_1547_4ac5);
        assert_ne!(unit_hash("a::b"), unit_hash("a::c"));
    }

    #[test]
    fn groups_are_one_unit_named_by_crate_and_group() {
        assert_eq!(
            partition_unit("demo::sorting::std_sort", Some("sort")),
            "demo::(group sort)"
        );
        assert_eq!(partition_unit("demo::chain_n", None), "demo::chain_n");
    }
}
