//! The commands without an editor: `knotmeter run`, `list`, `history`, `compare` and `profile`.
//!
//! `run` is the daemon's pipeline (discover, build, run; the engine stores history) with a
//! terminal front end: progress bars (indicatif) on a terminal and plain lines otherwise, on
//! standard error; results on standard output. Everything about the command line is checked
//! before anything is built. Ctrl-C, SIGTERM or SIGHUP cancel gracefully: the engine stops at
//! the next sample boundary and the partial result is shown; a second signal stops at once.
//! The exit status says what happened (`cli::RUN_EXIT_STATUSES`).
//!
//! One file per command: `run` (the command, following its job, the progress view and the
//! rendering of its results), `select` (which discovered cases PATH, FILTER, `--exact` and
//! `--skip` choose), `list`, `history` (listings and `prune`), `stored_builds` (the stored comparisons of two
//! builds in `history`'s listings), `merge` (`history merge`),
//! `export` (`history export`), `github` (annotations and a step summary on GitHub Actions),
//! `compare` (`knotmeter compare` on a terminal: the builds room's pipeline, its steps as lines,
//! signals), `gate` (its exit status and `--fail-on-regression`) and `profile` (`knotmeter
//! profile`: the profile room's pipeline on a terminal).

mod compare;
mod compare_profile;
mod export;
mod gate;
mod github;
mod history;
mod list;
mod located;
mod merge;
mod profile;
mod profile_progress;
mod run;
mod select;
mod stored_builds;

pub use compare::compare;

use crate::cli::MeasureArg;

/// Why `--measure instructions` (`knotmeter run`, `knotmeter compare`) cannot count on this
/// machine, in one line that names the package to install: said before anything is built.
fn cannot_count(measure: MeasureArg) -> Option<String> {
    if measure != MeasureArg::Instructions {
        return None;
    }
    let path = std::env::var_os("PATH");
    if knotmeter_server_profile::tool::find_on("valgrind", path.as_deref()).is_some() {
        return None;
    }
    Some(
        "--measure instructions counts under Valgrind's callgrind, and `valgrind` is not on \
         PATH: install it (Debian and Ubuntu: `sudo apt install valgrind`; Fedora: `sudo dnf \
         install valgrind`)"
            .to_owned(),
    )
}
pub use history::history;
pub use list::list;
pub use profile::profile;
pub use run::run;
