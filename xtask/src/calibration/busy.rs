//! The busy scenario's load: one thread of this process that computes without pause, so one
//! core is kept busy for as long as the guard lives. It is stopped when the guard drops, on
//! every way out of the scenario (a failed run returns an error through it, a panic unwinds
//! through it), and it dies with this process whatever happens.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Steps of the spinning loop between two looks at the stop flag (about a millisecond).
const STEPS_PER_CHECK: u64 = 1 << 20;

/// One core kept busy until this is dropped.
pub(super) struct Busy {
    stop: Arc<AtomicBool>,
    /// Blocks of [`STEPS_PER_CHECK`] steps done so far.
    blocks: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl Busy {
    /// Starts the spinning thread.
    pub(super) fn start() -> Result<Self, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let blocks = Arc::new(AtomicU64::new(0));
        let (flag, done) = (Arc::clone(&stop), Arc::clone(&blocks));
        let thread = std::thread::Builder::new()
            .name("calibration-busy".into())
            .spawn(move || spin(&flag, &done))
            .map_err(|e| format!("cannot start the busy thread: {e}"))?;
        Ok(Self {
            stop,
            blocks,
            thread: Some(thread),
        })
    }

    /// Blocks of work done so far: it grows while the thread runs.
    pub(super) fn blocks(&self) -> u64 {
        self.blocks.load(Ordering::Relaxed)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Seed 001's chain until `stop` is set, counting blocks in `blocks`.
fn spin(stop: &AtomicBool, blocks: &AtomicU64) {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..STEPS_PER_CHECK {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state ^= state >> 33;
        }
        black_box(state);
        blocks.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn the_thread_works_while_the_guard_lives_and_stops_when_it_drops() {
        let busy = Busy::start().unwrap();
        let start = Instant::now();
        while busy.blocks() < 2 && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(busy.blocks() >= 2, "the busy thread did no work");
        let blocks = Arc::clone(&busy.blocks);
        drop(busy);
        // Dropping joined the thread: no block is counted after it.
        let after = blocks.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(blocks.load(Ordering::Relaxed), after);
    }

    #[test]
    fn an_error_returned_through_the_guard_stops_the_thread() {
        fn failing(blocks: &mut Option<Arc<AtomicU64>>) -> Result<(), String> {
            let busy = Busy::start()?;
            *blocks = Some(Arc::clone(&busy.blocks));
            Err("a run failed".into())
        }
        let mut blocks = None;
        assert!(failing(&mut blocks).is_err());
        let blocks = blocks.unwrap();
        let after = blocks.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(blocks.load(Ordering::Relaxed), after);
    }
}
