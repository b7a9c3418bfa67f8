//! The generated sections of `docs/`, one entry each: where it is, the command that measures it,
//! and the paths its figures depend on. The writers read an entry to stamp their section (and
//! to refuse a tree whose dependencies have uncommitted changes); the check reads every entry
//! to find commits that changed a section's dependencies after its stamp.
//!
//! A path belongs to a section when a change to it could move the section's figures: the code
//! measured, the code that measures and computes the figures, and how cargo builds them. When in
//! doubt a path is included. `docs/` never is: the commit a section was measured on is followed
//! by a commit of the page alone.

/// How a section's figures are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measures {
    /// Programs built from the working tree: an uncommitted change to a dependency would be
    /// measured, and the stamp (a commit) would not name it.
    WorkingTree,
    /// Fresh clones of committed code (`cargo xtask build-time`): the working tree is never
    /// built, so its uncommitted changes cannot reach the figures.
    Clones,
}

/// One generated section of a page.
#[derive(Debug)]
pub(crate) struct Section {
    /// The page, from the repository root.
    pub(crate) page: &'static str,
    /// The name in its markers, `<!-- xtask NAME: begin -->` … `<!-- xtask NAME: end -->`.
    pub(crate) name: &'static str,
    /// The command that measures it again and rewrites it, with the flags its figures were
    /// measured with (what `cargo xtask stale --run` runs).
    pub(crate) command: &'static str,
    /// What it measures: the working tree or fresh clones.
    pub(crate) measures: Measures,
    /// Git pathspecs from the repository root (a file, or a folder and all under it), in groups.
    pub(crate) depends_on: &'static [&'static [&'static str]],
}

impl Section {
    /// The line that opens the section.
    pub(crate) fn begin(&self) -> String {
        format!("<!-- xtask {}: begin -->", self.name)
    }

    /// The line that closes the section.
    pub(crate) fn end(&self) -> String {
        format!("<!-- xtask {}: end -->", self.name)
    }

    /// Every path its figures depend on.
    pub(crate) fn paths(&self) -> Vec<&'static str> {
        self.depends_on
            .iter()
            .flat_map(|g| g.iter().copied())
            .collect()
    }
}

/// How cargo builds anything in this workspace: the profiles and inherited dependency versions
/// (`Cargo.toml`), the locked versions, cargo's configuration.
const BUILD: &[&str] = &["Cargo.toml", "Cargo.lock", ".cargo"];

/// What a bench binary links besides its own code: the engine (with its build script), the
/// `#[bench]` macro, the protocol, knotmeter-format, knotmeter-stats and the history store (which the engine
/// writes during a run). Sources and manifests only: their tests measure nothing here. Of the
/// protocol, every file but the editor's methods (`protocol/src/editor.rs`, behind the feature
/// `editor`, which no bench binary compiles: [`SERVER`] has it) and the TypeScript generator
/// (a test); `protocol_files_are_all_placed` checks that a new file is placed.
pub(crate) const ENGINE: &[&str] = &[
    "engine/src",
    "engine/build.rs",
    "engine/Cargo.toml",
    "macros/src",
    "macros/Cargo.toml",
    "protocol/src/lib.rs",
    "protocol/src/bench.rs",
    "protocol/src/driven.rs",
    "protocol/src/event.rs",
    "protocol/src/history.rs",
    "protocol/src/ids.rs",
    "protocol/src/list.rs",
    "protocol/src/location.rs",
    "protocol/src/manifest.rs",
    "protocol/src/output_marks.rs",
    "protocol/src/partition.rs",
    "protocol/src/profile.rs",
    "protocol/src/shown.rs",
    "protocol/src/summary.rs",
    "protocol/Cargo.toml",
    "format/src",
    "format/Cargo.toml",
    "stats/src",
    "stats/Cargo.toml",
    "history/src",
    "history/Cargo.toml",
];

/// The daemon and command-line tool (`knotmeter`): its sources and manifest, and the editor's
/// methods of the protocol, which only it compiles.
pub(crate) const SERVER: &[&str] = &[
    "server/src",
    "server/crates",
    "server/Cargo.toml",
    "protocol/src/editor.rs",
];

/// `docs/performance.md`, "Engine", "Honest measurement", "Comparisons": the self-benchmark and
/// its harness-free reference, the quickstart's benches (a default run, before/after against
/// one history), the honesty and pairs fixtures.
pub(crate) const PERF: Section = Section {
    page: "docs/performance.md",
    name: "perf",
    command: "cargo xtask perf",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        &[
            "engine/benches/harness.rs",
            "engine/examples/chain_reference.rs",
            "examples/quickstart",
            "tests/Cargo.toml",
            "tests/src/lib.rs",
            "tests/src/bin/honesty.rs",
            "tests/src/bin/pairs.rs",
            "xtask/src/perf",
            "xtask/src/stats.rs",
        ],
    ],
};

/// `docs/performance.md`, "Build time": the README's first command and `cargo bench -p
/// quickstart`, cold, in fresh clones of HEAD (and of the `--before` commit, which is fixed). The
/// time is compiling the daemon and the benchmarks with everything under them, and running the
/// quickstart's benches.
pub(crate) const BUILD_TIME: Section = Section {
    page: "docs/performance.md",
    name: "build-time",
    command: "cargo xtask build-time --before 61a4e51",
    measures: Measures::Clones,
    depends_on: &[
        BUILD,
        ENGINE,
        SERVER,
        &[
            "README.md",
            "examples/quickstart",
            "xtask/src/build_time.rs",
            "xtask/src/stats.rs",
        ],
    ],
};

/// `docs/performance.md`, "A harness's weight": fresh one-file crates built cold, knotmeter's
/// by path from this tree (the engine's manifest inherits from the workspace's `Cargo.toml`).
pub(crate) const COLD_BENCH: Section = Section {
    page: "docs/performance.md",
    name: "cold-bench",
    command: "cargo xtask cold-bench --rounds 2 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        &["xtask/src/cold_bench.rs", "xtask/src/stats.rs"],
    ],
};

/// `docs/calibration.md`: `examples/calibration` (which takes workloads from the quickstart) as
/// fresh processes, with and without a history.
pub(crate) const CALIBRATION: Section = Section {
    page: "docs/calibration.md",
    name: "calibration",
    command: "cargo xtask calibration --runs 8 --trials 8 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        &[
            "examples/calibration",
            "examples/quickstart",
            "xtask/src/calibration",
            "xtask/src/stats.rs",
        ],
    ],
};

/// `docs/calibration.md`, "What moves whole runs": the calibration bench binary run after run,
/// between calls of the harness-free chain reference (which takes its chain from the quickstart).
pub(crate) const DRIFT: Section = Section {
    page: "docs/calibration.md",
    name: "drift",
    command: "cargo xtask drift --runs 14 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        &[
            "examples/calibration",
            "examples/quickstart",
            "engine/examples/chain_reference.rs",
            "xtask/src/drift",
            "xtask/src/stats.rs",
        ],
    ],
};

/// `docs/compare.md`: the `knotmeter` command (release) comparing two builds of a fixture
/// repository, which links the engine from this tree and copies this `Cargo.lock`.
pub(crate) const COMPARE_BUILDS: Section = Section {
    page: "docs/compare.md",
    name: "compare-builds",
    command: "cargo xtask compare-builds --runs 5 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        SERVER,
        &["xtask/fixtures/compare-builds", "xtask/src/compare_builds"],
    ],
};

/// `docs/comparison.md`: the `comparisons/` workspace, a workspace of its own (its own lock
/// file and profiles) that builds the engine from this tree; the engine's manifest inherits
/// from this workspace's `Cargo.toml`. All of `comparisons/benches`, so that a harness added
/// there is not missed, though `ground_truth.rs` is docs/criterion.md's.
pub(crate) const COMPARISON: Section = Section {
    page: "docs/comparison.md",
    name: "compare",
    command: "cargo xtask compare --rounds 3 --comparisons 7",
    measures: Measures::WorkingTree,
    depends_on: &[
        &["Cargo.toml", ".cargo"],
        ENGINE,
        &[
            "comparisons/Cargo.toml",
            "comparisons/Cargo.lock",
            "comparisons/src",
            "comparisons/benches",
            "xtask/src/compare",
            "xtask/src/stats.rs",
        ],
    ],
};

/// `docs/comparison.md`, "Where a rerun lands": the same workspace's rerun binaries (criterion,
/// zenbench, divan and knotmeter on the same bodies), run again and again as fresh processes.
pub(crate) const COMPARISON_RERUN: Section = Section {
    page: "docs/comparison.md",
    name: "compare rerun",
    command: "cargo xtask compare rerun --runs 7 --write",
    measures: Measures::WorkingTree,
    depends_on: COMPARISON.depends_on,
};

/// `docs/performance.md`, "The save loop": the daemon of this tree (release) against an earlier
/// commit's, run-on-save on a fixture built with the engine of this tree.
pub(crate) const SAVE_LOOP: Section = Section {
    page: "docs/performance.md",
    name: "save-loop",
    command: "cargo xtask save-loop --before 19cdf02 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        SERVER,
        &[
            "server/benches/save_loop.rs",
            "server/tests/common",
            "server/tests/fixtures/save_loop",
            "xtask/src/save_loop.rs",
            "xtask/src/stats.rs",
        ],
    ],
};

/// `docs/instructions.md`: `--measure instructions` on `examples/counts` (which takes its chain
/// from the quickstart), the quickstart's bench binary and the criterion fixture's suite.
pub(crate) const COUNTS: Section = Section {
    page: "docs/instructions.md",
    name: "counts",
    command: "cargo xtask counts --runs 10 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        &[
            "compat/criterion",
            "compat/criterion-fixture",
            "examples/counts",
            "examples/quickstart",
            "xtask/src/counts",
        ],
    ],
};

/// `docs/comparison.md`, "Instruction counts beside gungraun": `examples/counts` counted by
/// knotmeter and `comparisons/gungraun` (a workspace of its own, the same quickstart functions)
/// counted by gungraun.
pub(crate) const COUNTS_GUNGRAUN: Section = Section {
    page: "docs/comparison.md",
    name: "counts gungraun",
    command: "cargo xtask counts gungraun --runs 3 --write",
    measures: Measures::WorkingTree,
    depends_on: &[
        BUILD,
        ENGINE,
        &[
            "comparisons/gungraun",
            "examples/counts",
            "examples/quickstart",
            "xtask/src/counts",
        ],
    ],
};

/// Every generated section of `docs/` (what the check reads).
pub(crate) const SECTIONS: [&Section; 11] = [
    &PERF,
    &BUILD_TIME,
    &COLD_BENCH,
    &CALIBRATION,
    &DRIFT,
    &COMPARE_BUILDS,
    &COMPARISON,
    &COMPARISON_RERUN,
    &SAVE_LOOP,
    &COUNTS,
    &COUNTS_GUNGRAUN,
];
