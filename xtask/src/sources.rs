//! The `src/` directories the repository's own checks read (`module_cycles`,
//! `function_length`), listed once.

/// The product's crates: what a user builds or runs.
#[cfg(test)]
pub(crate) const PRODUCT: &[&str] = &[
    "engine/src",
    "server/src",
    "server/crates/process/src",
    "server/crates/discovery/src",
    "server/crates/runs/src",
    "server/crates/builds/src",
    "server/crates/profile/src",
    "format/src",
    "stats/src",
    "history/src",
    "protocol/src",
    "macros/src",
    "compat/criterion/src",
];

/// The repository's own tools and test support: checked for module cycles, not held to the
/// product's limit on a function's length.
#[cfg(test)]
pub(crate) const TOOLING: &[&str] = &["xtask/src", "tests/src"];
