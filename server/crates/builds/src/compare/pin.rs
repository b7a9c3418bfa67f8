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
//! processes' thread counts are read, so the report can say so (`--no-pin` turns pinning off).
//! Only on Linux; elsewhere nothing is pinned.

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

    /// How many threads process `pid` runs.
    pub fn threads(pid: u32) -> usize {
        std::fs::read_dir(format!("/proc/{pid}/task")).map_or(1, |dir| dir.count())
    }
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
