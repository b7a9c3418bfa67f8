//! Reading callgrind's counts as it dumps them: the one place that knows callgrind's output.
//!
//! The bench binary runs under `valgrind --tool=callgrind --combine-dumps=yes
//! --callgrind-out-file=FILE`: each dump (one after every counted batch, see
//! `measure::region`) appends a part to FILE, which ends with its `totals:` line, the part's
//! count of each event in the order of its `events:` line (`Ir` first: instructions
//! executed). The dump is written before the client request returns, so the part of a batch
//! is in the file when the engine reads it, right after the batch.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

/// One dumped part's counts: the events callgrind collected, in its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Counts {
    /// The events' names (`Ir`, and with `--cache-sim=yes` `Dr Dw I1mr D1mr D1mw ILmr DLmr
    /// DLmw`).
    pub(crate) events: Vec<String>,
    /// Each event's count, in the same order.
    pub(crate) totals: Vec<u64>,
}

impl Counts {
    /// Instructions executed (`Ir`).
    pub(crate) fn instructions(&self) -> u64 {
        self.get("Ir").unwrap_or(0)
    }

    /// The count of the event `name`, if collected.
    pub(crate) fn get(&self, name: &str) -> Option<u64> {
        let at = self.events.iter().position(|e| e == name)?;
        self.totals.get(at).copied()
    }

    /// With the cache simulation (`--cache-sim=yes`): memory accesses (instruction fetches,
    /// data reads and writes), first-level misses and last-level misses; `None` without it.
    pub(crate) fn cache(&self) -> Option<[u64; 3]> {
        let sum = |names: [&str; 3]| -> Option<u64> {
            names.iter().map(|n| self.get(n)).sum::<Option<u64>>()
        };
        Some([
            sum(["Ir", "Dr", "Dw"])?,
            sum(["I1mr", "D1mr", "D1mw"])?,
            sum(["ILmr", "DLmr", "DLmw"])?,
        ])
    }
}

/// The output file, read from where the last part ended.
#[derive(Debug)]
pub(crate) struct Dumps {
    path: PathBuf,
    offset: u64,
    /// The events of the parts read so far (a part may leave its `events:` line to the first).
    events: Vec<String>,
}

impl Dumps {
    /// Reads `path` as callgrind appends parts to it.
    pub(crate) fn new(path: PathBuf) -> Self {
        Dumps {
            path,
            offset: 0,
            events: Vec::new(),
        }
    }

    /// Removes the file (at the end of the run).
    pub(crate) fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// The counts of the part dumped since the last call: the last `totals:` in what was
    /// appended. An error when nothing was appended or it holds no total (the dump did not
    /// happen: the process is not under callgrind).
    pub(crate) fn next(&mut self) -> Result<Counts, String> {
        let mut file = File::open(&self.path).map_err(|e| {
            format!(
                "cannot read callgrind's counts in {}: {e}",
                self.path.display()
            )
        })?;
        file.seek(SeekFrom::Start(self.offset))
            .map_err(|e| format!("cannot read {}: {e}", self.path.display()))?;
        let mut appended = String::new();
        file.read_to_string(&mut appended)
            .map_err(|e| format!("cannot read {}: {e}", self.path.display()))?;
        self.offset += appended.len() as u64;
        let part = last_part(&appended, &mut self.events).ok_or_else(|| {
            format!(
                "callgrind dumped no count to {} (is the bench binary running under \
                 `valgrind --tool=callgrind`?)",
                self.path.display()
            )
        })?;
        Ok(part)
    }
}

/// The counts of the last part in `text` (what was appended since the last read): its
/// `totals:` line (or, failing that, its `summary:`), with the events of the last `events:`
/// line seen, kept in `events` for parts that leave it out.
pub(crate) fn last_part(text: &str, events: &mut Vec<String>) -> Option<Counts> {
    let mut totals = None;
    for line in text.lines() {
        if let Some(names) = line.strip_prefix("events:") {
            *events = names.split_whitespace().map(str::to_owned).collect();
        } else if let Some(numbers) = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:"))
        {
            let parsed: Option<Vec<u64>> =
                numbers.split_whitespace().map(|n| n.parse().ok()).collect();
            if let Some(parsed) = parsed.filter(|p| !p.is_empty()) {
                totals = Some(parsed);
            }
        }
    }
    let mut totals = totals?;
    // Trailing events with no count are zero (callgrind leaves zeros out at the end).
    totals.resize(events.len().max(totals.len()), 0);
    Some(Counts {
        events: events.clone(),
        totals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_simulation_sums_accesses_and_misses_by_level() {
        let counts = Counts {
            events: "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw"
                .split(' ')
                .map(str::to_owned)
                .collect(),
            totals: vec![100, 30, 20, 2, 3, 1, 1, 1, 0],
        };
        assert_eq!(counts.cache(), Some([150, 6, 2]));
        let plain = Counts {
            events: vec!["Ir".to_owned()],
            totals: vec![100],
        };
        assert_eq!(plain.cache(), None, "no simulation, no cache figures");
    }

    /// Two parts as callgrind 3.19 appends them with `--combine-dumps=yes`.
    const TWO_PARTS: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /t/bench --bench

part: 1
desc: Trigger: Client Request: Dump
positions: line
events: Ir
summary: 1234
fl= (1) src/lib.rs
fn= (1) lib::body
5 1234
totals: 1234

part: 2
desc: Trigger: Client Request: Dump
positions: line
events: Ir
fl= (1)
fn= (1)
5 2468
totals: 2468
";

    #[test]
    fn the_last_parts_total_is_its_count() {
        let mut events = Vec::new();
        let counts = last_part(TWO_PARTS, &mut events).unwrap();
        assert_eq!(counts.instructions(), 2468);
        assert_eq!(events, ["Ir"]);
        assert_eq!(last_part("", &mut events), None);
        assert_eq!(last_part("part: 3\n", &mut events), None);
    }

    #[test]
    fn cache_simulation_counts_every_event_and_leaves_trailing_zeros_out() {
        let mut events = Vec::new();
        let text = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\ntotals: 100 40 20 3 2 1\n";
        let counts = last_part(text, &mut events).unwrap();
        assert_eq!(counts.totals, [100, 40, 20, 3, 2, 1, 0, 0, 0]);
        assert_eq!(counts.get("D1mr"), Some(2));
        assert_eq!(counts.get("DLmw"), Some(0));
        // A part that does not repeat the events keeps the earlier ones.
        let counts = last_part("totals: 7\n", &mut events).unwrap();
        assert_eq!(counts.get("Ir"), Some(7));
    }

    #[test]
    fn the_file_is_read_from_where_the_last_part_ended() {
        let path = std::env::temp_dir().join(format!("knotmeter-dumps-{}", std::process::id()));
        let (first, second) = TWO_PARTS.split_at(TWO_PARTS.find("part: 2").unwrap());
        std::fs::write(&path, first).unwrap();
        let mut dumps = Dumps::new(path.clone());
        assert_eq!(dumps.next().unwrap().instructions(), 1234);
        assert!(dumps.next().unwrap_err().contains("dumped no count"));
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, second.as_bytes()).unwrap();
        assert_eq!(dumps.next().unwrap().instructions(), 2468);
        std::fs::remove_file(&path).unwrap();
    }
}
