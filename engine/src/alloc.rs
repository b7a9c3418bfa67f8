//! An opt-in counting allocator: allocations and bytes per operation.
//!
//! Install it in a bench binary and every result reports how many allocations and bytes one
//! operation costs:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: knotmeter::CountingAlloc = knotmeter::CountingAlloc::system();
//! # fn main() {}
//! ```
//!
//! Counts are kept per thread, in constant-initialised thread-locals, so counting costs a few
//! instructions per allocation and never allocates itself. The engine counts a separate batch
//! after sampling, so the timed samples are the same with or without the allocator installed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// Set by the first allocation through a [`CountingAlloc`]: only then are counts reported.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts allocations and bytes on each thread, then defers to an
/// inner allocator (the system allocator by default).
#[derive(Debug, Default)]
pub struct CountingAlloc<A = System> {
    inner: A,
}

impl CountingAlloc<System> {
    /// Counts allocations made through the system allocator.
    pub const fn system() -> Self {
        CountingAlloc { inner: System }
    }
}

impl<A> CountingAlloc<A> {
    /// Counts allocations made through `inner`.
    pub const fn new(inner: A) -> Self {
        CountingAlloc { inner }
    }
}

#[inline(always)]
fn count(bytes: usize) {
    // `try_with` fails only while the thread is being torn down: nothing is measured then.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    let _ = BYTES.try_with(|b| b.set(b.get() + bytes as u64));
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to the inner allocator with the caller's arguments unchanged;
// the counting touches only thread-local cells and an atomic flag, and never allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { self.inner.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: as above.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: as above.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { self.inner.dealloc(ptr, layout) }
    }
}

/// Allocations and bytes counted on this thread so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct AllocCount {
    pub(crate) allocations: u64,
    pub(crate) bytes: u64,
}

impl AllocCount {
    /// The current thread's running totals.
    pub(crate) fn now() -> Self {
        AllocCount {
            allocations: ALLOCATIONS.with(Cell::get),
            bytes: BYTES.with(Cell::get),
        }
    }

    /// What was counted between `earlier` and `self`.
    pub(crate) fn since(self, earlier: AllocCount) -> AllocCount {
        AllocCount {
            allocations: self.allocations - earlier.allocations,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// True when a [`CountingAlloc`] is the global allocator of this process.
pub(crate) fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}
