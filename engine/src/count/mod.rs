//! `--measure instructions`: each case's instructions per operation, counted by Valgrind's
//! callgrind, through the same sampler, timed loop and empty body as a time.
//!
//! The bench binary runs itself under callgrind ([`exec`]), collecting nothing at first. Each
//! counted batch turns collection on around itself and dumps its count at once
//! (`measure::region`, its counting phase); [`dumps`] reads that count back. A case is counted
//! in a fixed schedule ([`measure`]): the cold call alone, a pilot that sets the operations per
//! batch `N` from the count itself (never from a clock, so the same build counts the same
//! batches), then [`REPETITIONS`] times a batch of `N` and of `2N` operations, of the workload
//! and of its empty body. A batch's own fixed cost (two clock reads, turning collection on and
//! off, entering the loop) is in both batches of a size pair and cancels in `2N − N`; the
//! loop's cost per operation is in the empty body's and is subtracted, as for time. Per
//! operation, a repetition gives the workload's `(W(2N) − W(N)) / N` and the empty body's
//! `(B(2N) − B(N)) / N`: what the analysis reads as one sample of each. A deterministic body
//! gives the same count in every repetition; one that is not (a hash map seeded at random, a
//! branch on the time) shows its spread.

pub(crate) mod analysis;
pub(crate) mod dumps;
pub(crate) mod exec;

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use crate::alloc;
use crate::measure::{region, MeasureConfig, Measurement, Progress, Sampler};
use dumps::{Counts, Dumps};

/// callgrind's output of this process, once it counts ([`start`]).
static COUNTS: OnceLock<Mutex<Dumps>> = OnceLock::new();

/// Makes this process count: it runs under callgrind (see [`exec`]), whose dumps go to the
/// file [`exec::COUNTS_ENV`] names. An error when it does not.
pub(crate) fn start() -> Result<(), String> {
    if !region::under_valgrind() {
        return Err("counting needs the bench binary to run under callgrind".to_owned());
    }
    let path = std::env::var_os(exec::COUNTS_ENV)
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!(
                "{} does not name callgrind's output file (run with --measure instructions, which \
             starts callgrind itself)",
                exec::COUNTS_ENV
            )
        })?;
    COUNTS
        .set(Mutex::new(Dumps::new(path)))
        .map_err(|_| "counting started twice".to_owned())
}

/// Whether this process counts instructions instead of timing.
pub(crate) fn active() -> bool {
    COUNTS.get().is_some()
}

/// The counts of the batch that just ran (its dump).
pub(crate) fn last_batch() -> Result<Counts, String> {
    let counts = COUNTS
        .get()
        .ok_or_else(|| "this process does not count instructions".to_owned())?;
    let mut dumps = counts.lock().unwrap_or_else(|e| e.into_inner());
    dumps.next()
}

/// Removes callgrind's output file at the end of the run (callgrind appends its last dump as
/// the process exits: a file of a few lines may stay behind).
pub(crate) fn finish() {
    if let Some(counts) = COUNTS.get() {
        let dumps = counts.lock().unwrap_or_else(|e| e.into_inner());
        dumps.remove();
    }
}

/// Pairs of batches (`N` and `2N` operations, workload and empty body) counted per case.
pub(crate) const REPETITIONS: usize = 5;

/// The instructions a batch of `N` operations aims at: enough that the count per operation
/// is exact to a small fraction of an instruction, few enough that a 10 µs body (about 30 000
/// instructions) counts in well under a second of callgrind's time.
const TARGET_PER_BATCH: u64 = 2_000_000;

/// The most operations in a batch: a batch holds every input it runs, made before it.
const MAX_OPS: u64 = 4096;

/// Counts `sampler`'s case: the schedule above. `read` gives the counts of the batch that just
/// ran (its instructions, and the cache simulation's events when there is one). An error when
/// a count cannot be read (the process is not under callgrind).
pub(crate) fn measure(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(&Progress),
    sampler: &mut dyn Sampler,
    read: &mut dyn FnMut() -> Result<Counts, String>,
) -> Result<Measurement, String> {
    let started = Instant::now();
    let mut m = Measurement {
        self_timed: sampler.self_timed(),
        ..Measurement::default()
    };
    let _counting = region::counting();
    let mut count = |batch: &mut dyn FnMut()| -> Result<Counts, String> {
        batch();
        read()
    };
    let instructions = |c: &Counts| c.instructions() as f64;
    let cold = instructions(&count(&mut || {
        sampler.workload(1);
    })?);
    let cold_base = instructions(&count(&mut || {
        sampler.baseline(1);
    })?);
    m.cold_ns = (cold - cold_base).max(0.0);
    let pilot = instructions(&count(&mut || {
        sampler.workload(1);
    })?) - instructions(&count(&mut || {
        sampler.baseline(1);
    })?);
    let ops = ops_per_batch(pilot);
    m.ops_per_sample = ops;
    let mut longest = 0.0f64;
    for repetition in 0..REPETITIONS {
        if cfg.cancelled() {
            m.partial = true;
            break;
        }
        let step = Instant::now();
        let w1 = count(&mut || {
            sampler.workload(ops);
        })?;
        let w2 = count(&mut || {
            sampler.workload(2 * ops);
        })?;
        let b1 = count(&mut || {
            sampler.baseline(ops);
        })?;
        let b2 = count(&mut || {
            sampler.baseline(2 * ops);
        })?;
        let per_op = |big: u64, small: u64| (big as f64 - small as f64) / ops as f64;
        m.workload_ns
            .push(per_op(w2.instructions(), w1.instructions()));
        m.baseline_ns
            .push(per_op(b2.instructions(), b1.instructions()));
        if let (Some(w1), Some(w2), Some(b1), Some(b2)) =
            (w1.cache(), w2.cache(), b1.cache(), b2.cache())
        {
            m.cache.push(std::array::from_fn(|i| {
                per_op(w2[i], w1[i]) - per_op(b2[i], b1[i])
            }));
        }
        longest = longest.max(step.elapsed().as_nanos() as f64);
        progress(&Progress {
            samples: repetition as u64 + 1,
            fraction: (repetition + 1) as f64 / (REPETITIONS + 1) as f64,
            longest_step_ns: longest,
        });
    }
    drop(_counting);
    if cfg.count_allocations && alloc::installed() && !m.partial {
        m.allocations = Some(sampler.allocations(ops));
    }
    m.wall_ns = started.elapsed().as_nanos() as f64;
    Ok(m)
}

/// The operations per batch for a body that counted `per_op` instructions once warm: the power
/// of two nearest [`TARGET_PER_BATCH`]` / per_op`, from 1 to [`MAX_OPS`].
fn ops_per_batch(per_op: f64) -> u64 {
    let wanted = TARGET_PER_BATCH as f64 / per_op.max(1.0);
    let exponent = wanted.log2().round().clamp(0.0, MAX_OPS.ilog2() as f64);
    1u64 << exponent as u32
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use super::*;
    use crate::measure::{Timer, TimerKind};

    static NEVER: AtomicBool = AtomicBool::new(false);

    /// A sampler whose batches "count" `fixed + ops × per_op` instructions (the empty body's
    /// `per_op` is `loop_per_op`), the count left in `last` for the reader.
    struct Fake {
        per_op: Box<dyn FnMut() -> u64>,
        loop_per_op: u64,
        fixed: u64,
        last: Rc<Cell<u64>>,
    }

    impl Sampler for Fake {
        fn cold(&mut self) -> f64 {
            unreachable!("counting takes the first call as a batch of one")
        }
        fn workload(&mut self, ops: u64) -> f64 {
            let work: u64 = (0..ops).map(|_| (self.per_op)() + self.loop_per_op).sum();
            self.last.set(self.fixed + work);
            0.0
        }
        fn baseline(&mut self, ops: u64) -> f64 {
            self.last.set(self.fixed + ops * self.loop_per_op);
            0.0
        }
        fn allocations(&mut self, _: u64) -> (f64, f64) {
            (0.0, 0.0)
        }
    }

    fn config() -> MeasureConfig {
        let timer = Timer::calibrate(TimerKind::Instant).unwrap();
        MeasureConfig::new(timer, Duration::from_secs(1), 0.01, 1, &NEVER)
    }

    fn counted(per_op: impl FnMut() -> u64 + 'static) -> Measurement {
        let last = Rc::new(Cell::new(0));
        let mut fake = Fake {
            per_op: Box::new(per_op),
            loop_per_op: 3,
            fixed: 1_000,
            last: last.clone(),
        };
        let mut read = || {
            Ok(Counts {
                events: vec!["Ir".to_owned()],
                totals: vec![last.get()],
            })
        };
        measure(&config(), &mut |_| {}, &mut fake, &mut read).unwrap()
    }

    #[test]
    fn the_batches_fixed_cost_cancels_and_the_loops_is_the_empty_bodys() {
        let m = counted(|| 250);
        assert_eq!(m.workload_ns, [253.0; REPETITIONS]);
        assert_eq!(m.baseline_ns, [3.0; REPETITIONS]);
        assert_eq!(m.cold_ns, 250.0, "the first call less the empty body's");
        assert_eq!(m.ops_per_sample, 8192u64.min(MAX_OPS));
    }

    #[test]
    fn a_body_that_is_not_deterministic_shows_its_spread() {
        let mut n = 0u64;
        let m = counted(move || {
            n += 1;
            100 + n % 7
        });
        let spread = m.workload_ns.iter().copied().fold(f64::MIN, f64::max)
            - m.workload_ns.iter().copied().fold(f64::MAX, f64::min);
        assert!(spread > 0.0, "{:?}", m.workload_ns);
    }

    #[test]
    fn the_operations_per_batch_follow_the_count_in_powers_of_two() {
        assert_eq!(ops_per_batch(2_000_000.0), 1);
        assert_eq!(ops_per_batch(30_000.0), 64);
        assert_eq!(ops_per_batch(1_000.0), 2048);
        assert_eq!(ops_per_batch(1.0), MAX_OPS);
        assert_eq!(ops_per_batch(0.0), MAX_OPS, "an empty body");
        assert_eq!(ops_per_batch(1e12), 1);
    }

    #[test]
    fn a_count_that_cannot_be_read_is_an_error() {
        let last = Rc::new(Cell::new(0));
        let mut fake = Fake {
            per_op: Box::new(|| 1),
            loop_per_op: 1,
            fixed: 1,
            last,
        };
        let mut read = || Err("callgrind dumped no count".to_owned());
        let error = measure(&config(), &mut |_| {}, &mut fake, &mut read).unwrap_err();
        assert!(error.contains("no count"), "{error}");
    }
}
