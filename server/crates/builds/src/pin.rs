//! Both bench binaries on one CPU: the one that was idlest while the last case ran.
//!
//! Two processes never sample at the same moment, but each runs wherever the scheduler puts
//! it, and on a shared machine two CPUs are not equally fast: one shares its core with a busy
//! hyperthread, or its host thread with another guest. A process that keeps landing on the
//! slower one makes every round of its side slower, and pairing cannot cancel that (on this
//! project's 2-core test machine, unpinned pairs of identical code measured up to 11% apart,
//! pinned ones within 0.3%: docs/compare.md). So before each case both processes are moved to
//! the same CPU, the one with the most idle time since the last look.
//!
//! A benchmark that starts threads would then run them all on that CPU: after each case the
//! processes' thread counts are read (the harness's own, which wait on input, left out), so the
//! report can say so (`--no-pin` turns pinning off). Only on Linux; elsewhere nothing is pinned.

use knotmeter_protocol::HARNESS_THREAD_PREFIX;

#[cfg(target_os = "linux")]
mod imp {
    use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
    use nix::unistd::Pid;

    /// The CPUs this process may use, and their idle times at the last look.
    pub struct Pinning {
        cpus: Vec<usize>,
        idle: Vec<u64>,
    }

    impl Pinning {
        /// `None` when there is at most one CPU to choose from.
        pub fn new() -> Option<Pinning> {
            let mask = sched_getaffinity(Pid::from_raw(0)).ok()?;
            let cpus: Vec<usize> = (0..CpuSet::count())
                .filter(|&cpu| mask.is_set(cpu).unwrap_or(false))
                .collect();
            (cpus.len() > 1).then(|| Pinning {
                idle: idle_times(&cpus),
                cpus,
            })
        }

        /// Moves every process in `pids` to the CPU that was idlest since the last call.
        pub fn pin(&mut self, pids: &[u32]) -> Option<usize> {
            let now = idle_times(&self.cpus);
            let best = self
                .cpus
                .iter()
                .zip(now.iter().zip(&self.idle))
                .max_by_key(|(_, (now, before))| now.saturating_sub(**before))
                .map(|(cpu, _)| *cpu)?;
            self.idle = now;
            let mut set = CpuSet::new();
            set.set(best).ok()?;
            for &pid in pids {
                let pid = Pid::from_raw(i32::try_from(pid).ok()?);
                if let Err(e) = sched_setaffinity(pid, &set) {
                    tracing::warn!("cannot pin process {pid} to CPU {best}: {e}");
                    return None;
                }
            }
            Some(best)
        }
    }

    /// Idle plus I/O-wait time of each of `cpus`, in clock ticks, from /proc/stat.
    fn idle_times(cpus: &[usize]) -> Vec<u64> {
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        cpus.iter()
            .map(|cpu| {
                let name = format!("cpu{cpu} ");
                stat.lines()
                    .find(|line| line.starts_with(&name))
                    .map_or(0, |line| {
                        let fields: Vec<u64> = line
                            .split_whitespace()
                            .skip(1)
                            .filter_map(|f| f.parse().ok())
                            .collect();
                        fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0)
                    })
            })
            .collect()
    }

    /// How many threads the benchmark in process `pid` runs: its threads but the harness's
    /// own, which wait on input (at least one, the main thread).
    pub fn threads(pid: u32) -> usize {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return 1;
        };
        let names = tasks.filter_map(|task| {
            let comm = task.ok()?.path().join("comm");
            // A thread that ended since the listing has no name left: not counted.
            std::fs::read_to_string(comm).ok()
        });
        super::benchmark_threads(names)
    }
}

/// How many of the threads named `names` (as `/proc` gives them, newline included) are the
/// benchmark's: all but the harness's own, named with [`HARNESS_THREAD_PREFIX`]; at least one.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn benchmark_threads(names: impl Iterator<Item = String>) -> usize {
    names
        .filter(|name| !name.trim_end().starts_with(HARNESS_THREAD_PREFIX))
        .count()
        .max(1)
}

#[cfg(not(target_os = "linux"))]
mod imp {
    /// Pinning is only done on Linux.
    pub struct Pinning;

    impl Pinning {
        /// Always `None` here.
        pub fn new() -> Option<Pinning> {
            None
        }

        /// Never called.
        pub fn pin(&mut self, _pids: &[u32]) -> Option<usize> {
            None
        }
    }

    /// Unknown here: one.
    pub fn threads(_pid: u32) -> usize {
        1
    }
}

pub use imp::{threads, Pinning};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every compare of single-threaded code said "the head build's benchmark ran 2 threads":
    /// the count took in the bench binary's own reader of driven-mode commands.
    #[test]
    fn the_harness_threads_are_not_the_benchmarks() {
        let names = |list: &[&str]| -> Vec<String> {
            list.iter().map(|name| format!("{name}\n")).collect()
        };
        let single = names(&["two-3f2a9c", "knotmeter-comma", "knotmeter-stdin"]);
        assert_eq!(benchmark_threads(single.into_iter()), 1);
        let spawned = names(&["two-3f2a9c", "knotmeter-comma", "rayon-worker-0", "worker"]);
        assert_eq!(benchmark_threads(spawned.into_iter()), 3);
        assert_eq!(benchmark_threads(std::iter::empty()), 1);
    }
}
