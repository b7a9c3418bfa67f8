//! The busy scenario's load: one thread of this process that computes without pause, so one
//! core is kept busy for as long as the guard lives. It is stopped when the guard drops, on
//! every way out of the scenario (a failed run returns an error through it, a panic unwinds
//! through it), and it dies with this process whatever happens.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Steps of the spinning loop between two looks at the stop flag (about a millisecond).
const STEPS_PER_CHECK: u64 = 1 << 20;

/// One core kept busy until this is dropped or finished.
pub(super) struct Busy {
    stop: Arc<AtomicBool>,
    started: Instant,
    /// The thread; it returns the CPU time it had, in nanoseconds, when the kernel says.
    thread: Option<JoinHandle<Option<u64>>>,
}

impl Busy {
    /// Starts the spinning thread.
    pub(super) fn start() -> Result<Self, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("calibration-busy".into())
            .spawn(move || spin(&flag))
            .map_err(|e| format!("cannot start the busy thread: {e}"))?;
        Ok(Self {
            stop,
            started: Instant::now(),
            thread: Some(thread),
        })
    }

    /// Stops the thread and says what share of one core's time it had while it ran (its CPU
    /// time over the wall time), when the kernel says (`/proc/thread-self/schedstat`).
    pub(super) fn finish(mut self) -> Option<f64> {
        let cpu_ns = self.stop_thread()?;
        let wall = self.started.elapsed().as_secs_f64();
        Some(cpu_ns as f64 / 1e9 / wall)
    }

    /// Sets the stop flag and waits for the thread; its CPU time, if known.
    fn stop_thread(&mut self) -> Option<u64> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take()?.join().ok().flatten()
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let _ = self.stop_thread();
    }
}

/// Seed 001's chain until `stop` is set; then the thread's CPU time in nanoseconds.
fn spin(stop: &AtomicBool) -> Option<u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..STEPS_PER_CHECK {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state ^= state >> 33;
        }
        black_box(state);
    }
    // The first field: time spent on a CPU, in nanoseconds.
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_thread_computes_while_the_guard_lives_and_stops_when_finished() {
        let busy = Busy::start().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let stop = Arc::clone(&busy.stop);
        let share = busy.finish();
        // The thread ended: nothing but this test holds the flag.
        assert_eq!(Arc::strong_count(&stop), 1);
        if let Some(share) = share {
            assert!(share > 0.0 && share < 1.5, "{share}");
        }
    }

    #[test]
    fn an_error_returned_through_the_guard_stops_the_thread() {
        fn failing(flag: &mut Option<Arc<AtomicBool>>) -> Result<(), String> {
            let busy = Busy::start()?;
            *flag = Some(Arc::clone(&busy.stop));
            Err("a run failed".into())
        }
        let mut flag = None;
        assert!(failing(&mut flag).is_err());
        let flag = flag.unwrap();
        assert!(flag.load(Ordering::Relaxed));
        assert_eq!(Arc::strong_count(&flag), 1);
    }
}
