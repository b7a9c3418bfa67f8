//! Sampling one case's timed region with Linux perf, and reading what it sampled.
//!
//! `perf record -e cpu-clock -c PERIOD -D -1 --control fifo:CTL,ACK --call-graph dwarf` starts
//! the bench binary with its events disabled; the engine (`KNOTMETER_PROFILE_REGION=perf:CTL,ACK`)
//! writes `enable` before each sampled batch of the workload and `disable` after it, and waits
//! for perf's acknowledgement each time, so every sample was taken inside the region. `perf
//! script` then prints each sample's call chain, innermost frame first, one frame a line
//! (`\t3d88bd name (/path/of/object)`, the address relative to the object's file), and a blank
//! line after each sample. Inlined frames are not asked for (`--no-inline`: perf would run
//! `addr2line` once per address); the inline chains come from the profile build's line tables,
//! read here ([`crate::report::Dwarf`]).

use std::path::Path;
use std::process::Stdio;

use knotmeter_protocol::Profile;
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::process::Children;
use crate::report::Dwarf;
use crate::run;
use crate::sampled::{from_samples, Symbols};
use crate::samples::{parse_script, Segments};
use crate::{ProfileError, ProfileEvent, Subject};

/// The sampling period: one sample every this many nanoseconds of the process's CPU time
/// (`cpu-clock`, a software event, counts nanoseconds and needs no hardware counter): 4 000
/// samples a second of CPU spent in the timed region. How many a profile gets depends on how
/// much of the budget the region is (the set-up, tuning and the engine's toggling of perf
/// around each batch are not); the profile says, and so does the noise of its shares.
pub const PERIOD_NS: u64 = 250_000;

/// The stack copied with each sample for perf to unwind (`--call-graph dwarf,SIZE`): enough for
/// the frames below the engine's timed loop, which is all a profile keeps.
const STACK_BYTES: u32 = 16_384;

/// The command: `perf record … -- BENCH --bench --exact ID …`, with the region marked through
/// the FIFOs `scratch/perf-ctl` and `scratch/perf-ack` (made by [`make_fifos`]).
pub fn record_command(
    perf: &Path,
    executable: &Path,
    id: &str,
    seconds: f64,
    scratch: &Path,
) -> Command {
    let (ctl, ack) = (scratch.join("perf-ctl"), scratch.join("perf-ack"));
    let mut command = Command::new(perf);
    command
        .args(["record", "--quiet", "-e", "cpu-clock", "-c"])
        .arg(PERIOD_NS.to_string())
        .arg(format!("--call-graph=dwarf,{STACK_BYTES}"))
        .args(["-D", "-1", "--control"])
        .arg(format!("fifo:{},{}", ctl.display(), ack.display()))
        .arg("-o")
        .arg(scratch.join("perf.data"))
        .arg("--");
    run::bench(
        &mut command,
        executable,
        id,
        seconds,
        scratch,
        &format!("perf:{},{}", ctl.display(), ack.display()),
    );
    // Samples for the whole budget: the bench binary would stop once its median is precise
    // (a chain-like body within a third of it), and a sampled share's noise is ±√(p(1−p)/n).
    command.args(["--precision", "0.000001"]);
    command
}

/// Makes the two FIFOs of [`record_command`] afresh in `scratch`.
pub fn make_fifos(scratch: &Path) -> Result<(), String> {
    for name in ["perf-ctl", "perf-ack"] {
        let path = scratch.join(name);
        let _ = std::fs::remove_file(&path);
        nix::unistd::mkfifo(
            &path,
            nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR,
        )
        .map_err(|e| format!("cannot make the FIFO {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The command that prints what [`record_command`] sampled, one call chain a sample.
pub fn script_command(perf: &Path, scratch: &Path) -> Command {
    let mut command = Command::new(perf);
    command
        .args(["script", "--no-inline", "-F", "ip,sym,dso", "-i"])
        .arg(scratch.join("perf.data"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Profiles `subject` under perf (at `program`): the FIFOs, the run, its samples read (`perf
/// script`), the [`Profile`] with the workspace's lines charged through the build's inline
/// chains.
pub(crate) async fn sampled(
    program: &Path,
    subject: &Subject<'_>,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(ProfileEvent) + Send),
) -> Result<Profile, ProfileError> {
    make_fifos(subject.scratch).map_err(ProfileError::Failed)?;
    let command = record_command(
        program,
        subject.executable,
        subject.id,
        subject.seconds,
        subject.scratch,
    );
    events(ProfileEvent::Counting(format!(
        "perf record -e cpu-clock {} --exact {}",
        subject.executable.display(),
        subject.id
    )));
    let operations = run::count(command, "perf", subject.scratch, children, cancel, events).await?;
    events(ProfileEvent::Reading);
    let (script, said) = run::capture(
        script_command(program, subject.scratch),
        "perf script",
        children,
        cancel,
    )
    .await?;
    if let Some(lost) = lost(&said) {
        return Err(ProfileError::Failed(format!(
            "perf lost samples ({lost}): the profile would be short of them, and its times \
             too low; run it again on a quieter machine or with a shorter --time"
        )));
    }
    let samples = parse_script(&script).map_err(ProfileError::Failed)?;
    let dwarf = Dwarf::of(subject.executable);
    let segments = Segments::of(subject.executable);
    let canonical = std::fs::canonicalize(subject.executable).ok();
    let symbols = Symbols {
        chains: &dwarf,
        chains_object: dwarf.object(),
        executable: samples.objects.iter().position(|object| {
            Path::new(object) == subject.executable
                || std::fs::canonicalize(object).ok() == canonical
        }),
        segments: &segments,
    };
    from_samples(
        subject.id,
        &samples,
        operations,
        PERIOD_NS,
        subject.root,
        &symbols,
    )
    .map_err(ProfileError::Failed)
}

/// perf's own account of samples it lost, from what `perf script` said on standard error
/// (`Processed 5120 events and lost 3 chunks!`), when it lost any.
pub fn lost(said: &str) -> Option<String> {
    said.lines()
        .map(str::trim)
        .find(|line| line.starts_with("Processed ") && line.contains(" lost "))
        .map(|line| line.trim_end_matches('!').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_samples_are_read_from_what_perf_said() {
        let said = "Warning:\nProcessed 5120 events and lost 3 chunks!\n\nCheck IO/CPU overload!\n";
        assert_eq!(
            lost(said).as_deref(),
            Some("Processed 5120 events and lost 3 chunks")
        );
        assert_eq!(
            lost("[ perf record: Woken up 3 times to write data ]\n"),
            None
        );
    }
}
