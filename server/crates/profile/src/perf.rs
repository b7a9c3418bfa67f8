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

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;

use knotmeter_protocol::Profile;
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::process::Children;
use crate::report::Dwarf;
use crate::run;
use crate::sampled::{from_samples, Symbols};
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

/// One frame of a sampled call chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledFrame {
    /// The address, relative to its object's file as perf prints it.
    pub address: u64,
    /// The function's name (index into [`Samples::names`]).
    pub name: usize,
    /// The object it is in (index into [`Samples::objects`]).
    pub object: usize,
}

/// Every sample perf took, each a call chain from its innermost frame out; names and objects
/// are kept once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    /// The samples' call chains.
    pub chains: Vec<Vec<SampledFrame>>,
    /// The functions' names (`[unknown]` where perf had none).
    pub names: Vec<String>,
    /// The objects' paths as perf names them (`[kernel.kallsyms]` for the kernel).
    pub objects: Vec<String>,
}

/// Reads `perf script --no-inline -F ip,sym,dso`'s output; a frame line that does not follow
/// the format is an error naming its line.
pub fn parse_script(text: &str) -> Result<Samples, String> {
    let mut samples = Samples::default();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut objects: HashMap<String, usize> = HashMap::new();
    let mut chain = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if !chain.is_empty() {
                samples.chains.push(std::mem::take(&mut chain));
            }
            continue;
        }
        let frame = parse_frame(trimmed).ok_or_else(|| {
            format!(
                "perf script's line {} is not a frame (`ADDRESS NAME (OBJECT)`): {trimmed:?}",
                number + 1
            )
        })?;
        let (address, name, object) = frame;
        let name = *names.entry(name.to_owned()).or_insert_with(|| {
            samples.names.push(name.to_owned());
            samples.names.len() - 1
        });
        let object = *objects.entry(object.to_owned()).or_insert_with(|| {
            samples.objects.push(object.to_owned());
            samples.objects.len() - 1
        });
        chain.push(SampledFrame {
            address,
            name,
            object,
        });
    }
    if !chain.is_empty() {
        samples.chains.push(chain);
    }
    Ok(samples)
}

/// `3d88bd <std::fs::File as std::io::Write>::write (/path/bin)` → its three parts. A name may
/// hold spaces and parentheses; the object is the last parenthesised part.
fn parse_frame(line: &str) -> Option<(u64, &str, &str)> {
    let (address, rest) = line.split_once(' ')?;
    let address = u64::from_str_radix(address, 16).ok()?;
    let (name, object) = rest.trim().strip_suffix(')')?.rsplit_once(" (")?;
    Some((address, name.trim(), object))
}

/// Where an object's file offsets are in its virtual addresses (the debug information's
/// addresses): its loaded segments, each `(file offset, size, virtual address)`.
#[derive(Debug, Clone, Default)]
pub struct Segments(Vec<(u64, u64, u64)>);

impl Segments {
    /// Segments from their `(file offset, size, virtual address)`.
    pub fn from_ranges(ranges: Vec<(u64, u64, u64)>) -> Self {
        Segments(ranges)
    }

    /// The loaded segments of the ELF file at `path`; none when it cannot be read.
    pub fn of(path: &Path) -> Self {
        use object::{Object, ObjectSegment};
        let Ok(data) = std::fs::read(path) else {
            return Segments::default();
        };
        let Ok(file) = object::File::parse(&*data) else {
            return Segments::default();
        };
        Segments(
            file.segments()
                .map(|segment| {
                    let (offset, size) = segment.file_range();
                    (offset, size, segment.address())
                })
                .collect(),
        )
    }

    /// The virtual address of file offset `offset`, when a loaded segment holds it.
    pub fn address_of(&self, offset: u64) -> Option<u64> {
        self.0
            .iter()
            .find(|(start, size, _)| (*start..start + size).contains(&offset))
            .map(|(start, _, address)| address + (offset - start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "
\tffffffff8224f5f9 _raw_spin_unlock_irqrestore ([kernel.kallsyms])
\t           f8350 __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t          3d88bd <std::fs::File as std::io::Write>::write (/t/bench-1)

\t            9a10 b::body (/t/bench-1)
\t            d58b0 knotmeter::measure::routine::time_batch (/t/bench-1)
\t               0 [unknown] ([unknown])
";

    #[test]
    fn each_sample_is_its_chain_and_names_are_kept_once() {
        let samples = parse_script(SCRIPT).unwrap();
        assert_eq!(samples.chains.len(), 2);
        assert_eq!(samples.chains[0].len(), 3);
        let write = samples.chains[0][2];
        assert_eq!(write.address, 0x3d88bd);
        assert_eq!(
            samples.names[write.name],
            "<std::fs::File as std::io::Write>::write"
        );
        assert_eq!(samples.objects[write.object], "/t/bench-1");
        assert_eq!(
            samples.chains[1][0].object, write.object,
            "one object, kept once"
        );
        assert_eq!(samples.names[samples.chains[1][2].name], "[unknown]");
        assert_eq!(samples.objects.len(), 4);
    }

    #[test]
    fn a_line_that_is_not_a_frame_is_an_error_naming_it() {
        let error = parse_script("\n\tzz nothing\n").unwrap_err();
        assert!(error.contains("line 2"), "{error}");
        assert!(error.contains("zz nothing"), "{error}");
    }

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

    #[test]
    fn a_real_executables_segments_are_read() {
        let exe = std::env::current_exe().unwrap();
        let segments = Segments::of(&exe);
        assert!(!segments.0.is_empty(), "{}", exe.display());
        let &(offset, size, address) = segments.0.iter().find(|s| s.1 > 0).unwrap();
        assert_eq!(segments.address_of(offset), Some(address));
        assert_eq!(
            segments.address_of(offset + size - 1),
            Some(address + size - 1)
        );
        assert_eq!(Segments::of(Path::new("/nonexistent")).0.len(), 0);
    }

    #[test]
    fn file_offsets_become_addresses_through_their_segment() {
        let segments = Segments::from_ranges(vec![(0, 0xd46f4, 0), (0xd4700, 0x31fac0, 0xd5700)]);
        assert_eq!(segments.address_of(0x1b58cc), Some(0x1b68cc));
        assert_eq!(segments.address_of(0x100), Some(0x100));
        assert_eq!(segments.address_of(0x10_000_000), None);
    }
}
