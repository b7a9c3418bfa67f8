//! The workloads of `cargo xtask counts` (docs/instructions.md): seed 001's chain, once where
//! the compiler puts it and once more, the same code, in a section of its own.

/// `quickstart::chain(n)`, compiled into this function.
#[inline(never)]
pub fn chain_here(n: u64) -> u64 {
    quickstart::chain(n)
}

/// The same code as [`chain_here`], at another address: a section of its own keeps the linker
/// and LLVM's function merging from folding the two into one.
#[inline(never)]
#[link_section = ".text.knotmeter_counts_twin"]
pub fn chain_there(n: u64) -> u64 {
    quickstart::chain(n)
}
