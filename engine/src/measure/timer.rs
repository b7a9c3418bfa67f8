//! The clock: which one, how fine it is, and what one read costs.
//!
//! The timed loop reads the clock exactly twice per sample, so the clock's kind is decided
//! outside the loop. [`Timer::calibrate`] measures the precision (the smallest non-zero step
//! between two reads) and the cost of one read; tuning uses both to make every sample long
//! enough that neither matters (see `tune.rs`).

use std::time::{Duration, Instant};

/// Which clock to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimerKind {
    /// The OS monotonic clock through [`std::time::Instant`].
    Instant,
    /// The x86_64 time-stamp counter; only offered where it is invariant.
    Tsc,
}

impl TimerKind {
    /// The name used in the manifest and on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            TimerKind::Instant => "instant",
            TimerKind::Tsc => "tsc",
        }
    }
}

/// A calibrated clock. Cheap to copy; every case of a run shares one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timer {
    kind: TimerKind,
    epoch: Instant,
    /// Nanoseconds per tick: 1 for `Instant`, the calibrated period for the TSC.
    ns_per_tick: f64,
    /// Smallest non-zero difference between two reads, in nanoseconds.
    pub(crate) precision_ns: f64,
    /// Cost of one read, in nanoseconds.
    pub(crate) read_cost_ns: f64,
}

/// Why the requested timer cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TimerUnavailable(pub(crate) &'static str);

impl Timer {
    /// Calibrates the requested clock. The TSC is refused where it is not invariant.
    pub(crate) fn calibrate(kind: TimerKind) -> Result<Self, TimerUnavailable> {
        let mut timer = Timer {
            kind,
            epoch: Instant::now(),
            ns_per_tick: 1.0,
            precision_ns: 0.0,
            read_cost_ns: 0.0,
        };
        if kind == TimerKind::Tsc {
            timer.ns_per_tick = tsc::ns_per_tick()?;
        }
        timer.precision_ns = timer.measure_precision();
        timer.read_cost_ns = timer.measure_read_cost();
        Ok(timer)
    }

    /// The clock `kind` with a calibration measured elsewhere: a worker process measures with
    /// its coordinator's (the TSC's period and the clock's costs are the machine's, not the
    /// process's), so no round pays for calibrating again.
    pub(crate) fn calibrated(
        kind: TimerKind,
        ns_per_tick: f64,
        precision_ns: f64,
        read_cost_ns: f64,
    ) -> Self {
        Timer {
            kind,
            epoch: Instant::now(),
            ns_per_tick: if kind == TimerKind::Instant {
                1.0
            } else {
                ns_per_tick
            },
            precision_ns,
            read_cost_ns,
        }
    }

    /// Nanoseconds per tick.
    pub(crate) fn ns_per_tick(&self) -> f64 {
        self.ns_per_tick
    }

    /// The clock in use.
    pub(crate) fn kind(&self) -> TimerKind {
        self.kind
    }

    /// Reads the clock, in ticks.
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        match self.kind {
            TimerKind::Instant => self.epoch.elapsed().as_nanos() as u64,
            TimerKind::Tsc => tsc::read(),
        }
    }

    /// Converts a tick difference to nanoseconds.
    #[inline]
    pub(crate) fn ticks_to_ns(&self, ticks: u64) -> f64 {
        ticks as f64 * self.ns_per_tick
    }

    fn measure_precision(&self) -> f64 {
        let mut smallest = u64::MAX;
        for _ in 0..1_000 {
            let start = self.now();
            let mut next = self.now();
            while next == start {
                next = self.now();
            }
            smallest = smallest.min(next.wrapping_sub(start));
        }
        self.ticks_to_ns(smallest)
    }

    fn measure_read_cost(&self) -> f64 {
        const READS: u64 = 10_000;
        let mut best = f64::INFINITY;
        for _ in 0..20 {
            let start = self.now();
            for _ in 0..READS {
                std::hint::black_box(self.now());
            }
            let end = self.now();
            best = best.min(self.ticks_to_ns(end - start) / READS as f64);
        }
        best
    }
}

#[cfg(target_arch = "x86_64")]
mod tsc {
    //! The x86_64 time-stamp counter, fenced so that reads do not drift into the timed code.

    use super::{Duration, Instant, TimerUnavailable};
    use std::arch::x86_64::{__cpuid, _mm_lfence, _rdtsc};

    /// True when CPUID reports an invariant TSC (leaf 0x8000_0007, EDX bit 8): it ticks at a
    /// constant rate whatever the core's frequency and power state.
    fn invariant() -> bool {
        let max_extended = __cpuid(0x8000_0000).eax;
        max_extended >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
    }

    /// Reads the counter between load fences.
    #[inline(always)]
    pub(super) fn read() -> u64 {
        // SAFETY: lfence and rdtsc are part of the x86_64 baseline (SSE2, TSC).
        unsafe {
            _mm_lfence();
            let ticks = _rdtsc();
            _mm_lfence();
            ticks
        }
    }

    /// Calibrates the counter's period against the OS clock over 20 ms.
    pub(super) fn ns_per_tick() -> Result<f64, TimerUnavailable> {
        if !invariant() {
            return Err(TimerUnavailable(
                "this CPU does not report an invariant TSC; use --timer instant",
            ));
        }
        let wall = Instant::now();
        let start = read();
        while wall.elapsed() < Duration::from_millis(20) {}
        let ticks = read() - start;
        let ns = wall.elapsed().as_nanos() as f64;
        if ticks == 0 {
            return Err(TimerUnavailable(
                "the TSC did not advance during calibration",
            ));
        }
        Ok(ns / ticks as f64)
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod tsc {
    //! Stand-in where there is no TSC: the timer is refused at calibration.

    use super::TimerUnavailable;

    pub(super) fn read() -> u64 {
        0
    }

    pub(super) fn ns_per_tick() -> Result<f64, TimerUnavailable> {
        Err(TimerUnavailable(
            "the TSC timer exists only on x86_64; use --timer instant",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instant_calibration_is_plausible() {
        let timer = Timer::calibrate(TimerKind::Instant).unwrap();
        assert!(timer.precision_ns >= 1.0, "{timer:?}");
        assert!(timer.precision_ns < 1_000_000.0, "{timer:?}");
        assert!(
            timer.read_cost_ns > 0.0 && timer.read_cost_ns < 10_000.0,
            "{timer:?}"
        );
    }

    #[test]
    fn ticks_follow_wall_time() {
        for kind in [TimerKind::Instant, TimerKind::Tsc] {
            let Ok(timer) = Timer::calibrate(kind) else {
                continue;
            };
            let wall = Instant::now();
            let start = timer.now();
            std::thread::sleep(Duration::from_millis(30));
            let measured = timer.ticks_to_ns(timer.now() - start);
            let actual = wall.elapsed().as_nanos() as f64;
            assert!(
                (measured / actual - 1.0).abs() < 0.05,
                "{kind:?}: {measured} vs {actual}"
            );
        }
    }
}
