//! The timed region, marked for a profiler outside the process.
//!
//! A profile of a benchmark should hold its timed operations and nothing else: not the start-up,
//! the tuning, the warm-up, the set-up that fills a batch, the empty body or the drop of the
//! outputs. So a profiler is told exactly when the workload's sampled batches run: the
//! environment variable `KNOTMETER_PROFILE_REGION` names the tool, and around each such batch (outside its
//! two clock reads, so the figure is the same marked or not) the engine enters and leaves the
//! region:
//!
//! * `callgrind`: Valgrind's client request `CALLGRIND_TOGGLE_COLLECT`, for a run under
//!   `valgrind --tool=callgrind --collect-atstart=no`: only the region's instructions are
//!   collected. Outside Valgrind the request is a few no-op instructions. x86_64 only.
//! * `perf:CTL,ACK`: `enable` and `disable` written to the control FIFO `CTL` of a `perf record
//!   -D -1 --control fifo:CTL,ACK`, each acknowledged on `ACK` before the batch runs on: only
//!   the region is sampled. With nobody reading `CTL` the bench binary says so and stops,
//!   rather than wait; a perf that goes away mid-run ends it too.
//!
//! At the end of each sampling phase that marked the region, the operations and batches it
//! held are appended to the file `KNOTMETER_PROFILE_OPS` names (one line, `OPERATIONS
//! BATCHES`), so that a profile's totals become costs per operation.
//!
//! Only the sampling phase is marked ([`sampling`], set by the loops that take samples): the
//! cold call, tuning and warm-up batches run through the same loop and are left out, and so is
//! the engine's probe of the machine ([`unmarked`]). A benchmark that times itself
//! (`iter_custom`) has no batch of the engine's to mark.
//!
//! Counting instructions (`--measure instructions`, the bench binary under callgrind: see
//! `crate::count`) marks every batch of its phase ([`counting`]), the workload's and the empty
//! body's alike, since both are counted: collection is turned on before the batch's first clock
//! read and off after its last, and the count is dumped at once (`CALLGRIND_DUMP_STATS`), for
//! the engine to read before the next batch.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use knotmeter_protocol::{PROFILE_OPS_ENV, PROFILE_REGION_ENV as REGION_ENV};

/// Operations and batches the region has held in the current sampling phase.
static OPERATIONS: AtomicU64 = AtomicU64::new(0);
static BATCHES: AtomicU64 = AtomicU64::new(0);

/// What the batches timed now are to a profiler: [`OFF`], [`SAMPLING`] or [`COUNTING`].
static PHASE: AtomicU8 = AtomicU8::new(OFF);
/// No batch is marked: outside a sampling phase, and in every run not profiled or counted.
const OFF: u8 = 0;
/// Samples are taken (not the cold call, tuning or warm-up): the workload's batches are the
/// region.
const SAMPLING: u8 = 1;
/// Instructions are counted: every batch is counted and dumped.
const COUNTING: u8 = 2;
/// Set while the engine measures its own probe of the machine, which is no case's work.
static UNMARKED: AtomicBool = AtomicBool::new(false);

/// The profiler the region is marked for, read once from `KNOTMETER_PROFILE_REGION`.
enum Marker {
    /// Nothing to tell: the region costs one load of a flag.
    Off,
    /// Valgrind's callgrind, through client requests.
    Callgrind,
    /// `perf record --control fifo:CTL,ACK`.
    Perf(Mutex<PerfControl>),
}

/// The two FIFOs of `perf record --control`.
struct PerfControl {
    ctl: File,
    ack: File,
}

fn marker() -> &'static Marker {
    static MARKER: OnceLock<Marker> = OnceLock::new();
    MARKER.get_or_init(|| match std::env::var(REGION_ENV) {
        Ok(value) => parse(&value).unwrap_or_else(|why| {
            // A profile of the wrong region would be worse than none: say so and stop.
            eprintln!("knotmeter: {REGION_ENV}={value:?}: {why}");
            std::process::exit(2)
        }),
        Err(_) => Marker::Off,
    })
}

/// Reads `KNOTMETER_PROFILE_REGION`'s value: `callgrind` or `perf:CTL,ACK`.
fn parse(value: &str) -> Result<Marker, String> {
    if value == "callgrind" {
        return Ok(Marker::Callgrind);
    }
    let Some((ctl, ack)) = value.strip_prefix("perf:").and_then(|v| v.split_once(',')) else {
        return Err("expected `callgrind` or `perf:CTL_FIFO,ACK_FIFO`".to_owned());
    };
    // perf opens both FIFOs (read and write, without blocking) before it starts the bench
    // binary. Opening the control FIFO for writing without blocking fails at once when nobody
    // reads it (ENXIO), instead of waiting for ever for a perf that is not there.
    let ctl = open_fifo(ctl, true).map_err(|e| match e.raw_os_error() {
        Some(libc::ENXIO) => format!(
            "nobody reads perf's control FIFO {ctl}: run the bench binary under `perf record \
             -D -1 --control fifo:{ctl},{ack} -- …`"
        ),
        _ => format!("cannot open perf's control FIFO {ctl}: {e}"),
    })?;
    let ack =
        open_fifo(ack, false).map_err(|e| format!("cannot open perf's ack FIFO {ack}: {e}"))?;
    Ok(Marker::Perf(Mutex::new(PerfControl { ctl, ack })))
}

/// Opens a FIFO without blocking (for writing: only when someone reads it), then makes it
/// blocking, so that a command waits for its acknowledgement.
fn open_fifo(path: &str, write: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let file = OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is open for the life of `file`; F_GETFL and F_SETFL touch only its flags.
    let cleared = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) == 0
    };
    if cleared {
        Ok(file)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Marks the sampling phase while the guard lives: the workload batches timed meanwhile are
/// the region.
pub(crate) fn sampling() -> Sampling {
    PHASE.store(SAMPLING, Ordering::Relaxed);
    Sampling
}

/// The sampling phase; it ends when dropped.
pub(crate) struct Sampling;

impl Drop for Sampling {
    fn drop(&mut self) {
        PHASE.store(OFF, Ordering::Relaxed);
        let operations = OPERATIONS.swap(0, Ordering::Relaxed);
        let batches = BATCHES.swap(0, Ordering::Relaxed);
        if batches > 0 {
            tell_operations(operations, batches);
        }
    }
}

/// Appends `OPERATIONS BATCHES` to the file `KNOTMETER_PROFILE_OPS` names, if any: what turns a
/// profile's totals into costs per operation.
fn tell_operations(operations: u64, batches: u64) {
    let Some(path) = std::env::var_os(PROFILE_OPS_ENV) else {
        return;
    };
    let appended = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| writeln!(file, "{operations} {batches}"));
    if let Err(e) = appended {
        // Costs per operation from a count that was not written would be wrong: stop.
        eprintln!(
            "knotmeter: {PROFILE_OPS_ENV}={}: {e}",
            std::path::Path::new(&path).display()
        );
        std::process::exit(2);
    }
}

/// Leaves every batch timed while the guard lives out of the region: the engine's probe of
/// the machine, measured in a slot of every round, is not the work of any case.
pub(crate) fn unmarked() -> Unmarked {
    UNMARKED.store(true, Ordering::Relaxed);
    Unmarked
}

/// Batches out of the region; they are marked again when dropped.
pub(crate) struct Unmarked;

impl Drop for Unmarked {
    fn drop(&mut self) {
        UNMARKED.store(false, Ordering::Relaxed);
    }
}

/// Marks every batch timed while the guard lives, workload or empty body, for callgrind to
/// count and dump (the process runs under callgrind, collecting nothing outside them).
pub(crate) fn counting() -> Counting {
    PHASE.store(COUNTING, Ordering::Relaxed);
    Counting
}

/// The counting phase; it ends when dropped.
pub(crate) struct Counting;

impl Drop for Counting {
    fn drop(&mut self) {
        PHASE.store(OFF, Ordering::Relaxed);
    }
}

/// Enters the region before the first clock read of a batch of `operations` (`workload`: the
/// benchmark's, not its empty body's); returns whether it did, for [`leave`]. Outside a
/// sampling or counting phase (every batch of a run that is neither profiled nor counted) it
/// is one load of a byte, inlined into the timed loop's caller side; the rest is out of line.
#[inline]
pub(crate) fn enter(workload: bool, operations: u64) -> bool {
    match PHASE.load(Ordering::Relaxed) {
        OFF => false,
        phase => enter_marked(phase, workload, operations),
    }
}

#[cold]
#[inline(never)]
fn enter_marked(phase: u8, workload: bool, operations: u64) -> bool {
    if phase == COUNTING {
        callgrind::toggle_collect();
        return true;
    }
    if !workload || UNMARKED.load(Ordering::Relaxed) || !tell(true) {
        return false;
    }
    OPERATIONS.fetch_add(operations, Ordering::Relaxed);
    BATCHES.fetch_add(1, Ordering::Relaxed);
    true
}

/// Enters the region around a routine that times itself (`iter_custom`), whose batches the
/// engine cannot mark from inside, when instructions are counted: the whole routine is the
/// counted batch (its own clock reads and set-up cancel between a batch of `N` operations and
/// one of `2N`). Never while profiling, where such a routine stays unmarked. Returns whether it
/// entered, for [`leave`].
pub(crate) fn enter_if_counting() -> bool {
    if PHASE.load(Ordering::Relaxed) != COUNTING {
        return false;
    }
    callgrind::toggle_collect();
    true
}

/// Leaves the region after the batch's last clock read; called only when [`enter`] entered.
/// A counted batch's count is dumped at once.
#[cold]
#[inline(never)]
pub(crate) fn leave() {
    if PHASE.load(Ordering::Relaxed) == COUNTING {
        callgrind::toggle_collect();
        callgrind::dump_stats();
        return;
    }
    tell(false);
}

/// Whether this process runs under Valgrind (`RUNNING_ON_VALGRIND`: 0 outside it).
pub(crate) fn under_valgrind() -> bool {
    callgrind::request(callgrind::RUNNING_ON_VALGRIND) > 0
}

/// Tells the profiler the region begins (`on`) or ends; returns whether there is one.
fn tell(on: bool) -> bool {
    match marker() {
        Marker::Off => false,
        Marker::Callgrind => {
            callgrind::toggle_collect();
            true
        }
        Marker::Perf(control) => {
            perf_command(control, if on { "enable" } else { "disable" });
            true
        }
    }
}

/// Sends `command` to perf and waits for its acknowledgement, so the batch runs only once
/// perf has acted on it. A perf that went away ends the run: the profile would be wrong.
fn perf_command(control: &Mutex<PerfControl>, command: &str) {
    let mut control = control.lock().unwrap_or_else(|e| e.into_inner());
    let sent = control.ctl.write_all(format!("{command}\n").as_bytes());
    if let Err(e) = sent.and_then(|()| read_ack(&mut control.ack)) {
        eprintln!("knotmeter: perf's control FIFO: {e}");
        std::process::exit(2);
    }
}

/// Reads perf's `ack\n` (perf writes it with a trailing NUL, which the next read skips).
fn read_ack(ack: &mut File) -> std::io::Result<()> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        if ack.read(&mut byte)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "perf closed it before acknowledging",
            ));
        }
        match byte[0] {
            0 => {}
            b'\n' => break,
            b => line.push(b),
        }
    }
    if line == b"ack" {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "perf answered {:?}, not ack",
            String::from_utf8_lossy(&line)
        )))
    }
}

/// Valgrind's client requests, as `valgrind.h` issues them on x86_64: a no-op sequence that
/// Valgrind's JIT recognises.
mod callgrind {
    /// `VG_USERREQ_TOOL_BASE('C', 'T')`: callgrind's first request, `CALLGRIND_DUMP_STATS`.
    const BASE: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
    /// `CALLGRIND_DUMP_STATS`: write what was collected since the last dump, and zero it.
    pub(super) const DUMP_STATS: u64 = BASE;
    /// `CALLGRIND_TOGGLE_COLLECT`.
    pub(super) const TOGGLE_COLLECT: u64 = BASE + 2;
    /// Valgrind's core request `RUNNING_ON_VALGRIND` (`valgrind.h`): how many Valgrinds the
    /// process runs under.
    pub(super) const RUNNING_ON_VALGRIND: u64 = 0x1001;

    /// Turns callgrind's collection on if off, off if on.
    pub(super) fn toggle_collect() {
        request(TOGGLE_COLLECT);
    }

    /// Dumps what callgrind collected since the last dump (a part of its output file).
    pub(super) fn dump_stats() {
        request(DUMP_STATS);
    }

    /// Issues request `code` with no arguments; returns Valgrind's answer (0 outside it).
    #[cfg(target_arch = "x86_64")]
    pub(super) fn request(code: u64) -> u64 {
        let args: [u64; 6] = [code, 0, 0, 0, 0, 0];
        let result: u64;
        // SAFETY: the rotations of rdi add up to 128 bits, leaving it as it was, and
        // `xchg rbx, rbx` changes nothing: outside Valgrind the sequence only clobbers the
        // flags (not marked preserved) and returns the default in rdx. Under Valgrind it reads
        // `args` (which outlives the asm) and writes the answer to rdx.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") 0u64 => result,
                options(nostack),
            );
        }
        result
    }

    /// Other architectures are not marked: callgrind's collection never turns on, and
    /// `knotmeter profile` refuses to run there rather than return an empty profile.
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn request(_: u64) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside Valgrind a client request is a no-op that answers its default (0), and leaves
    /// the registers it rotates as they were: a value live across it survives.
    #[test]
    fn a_client_request_outside_valgrind_does_nothing() {
        let kept = std::hint::black_box(0x0123_4567_89ab_cdefu64);
        assert_eq!(callgrind::request(callgrind::TOGGLE_COLLECT), 0);
        assert_eq!(callgrind::request(callgrind::TOGGLE_COLLECT), 0);
        assert_eq!(std::hint::black_box(kept), 0x0123_4567_89ab_cdef);
    }

    #[test]
    fn a_value_that_names_no_profiler_is_refused() {
        for bad in ["", "perf", "perf:/only-one", "cachegrind"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let missing = parse("perf:/nonexistent/ctl,/nonexistent/ack")
            .err()
            .unwrap();
        assert!(
            missing.contains("control FIFO /nonexistent/ctl"),
            "{missing}"
        );
    }

    /// The perf protocol against a stand-in for perf on two FIFOs, opened as perf opens them
    /// (read and write, before the bench binary starts): each command is sent, and the batch
    /// waits for its acknowledgement (NUL-terminated, as perf writes it). With nobody reading
    /// the control FIFO, the engine says so at once instead of waiting.
    #[test]
    fn perf_is_told_enable_and_disable_and_each_is_acknowledged() {
        let dir = std::env::temp_dir().join(format!("knotmeter-region-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (ctl, ack) = (dir.join("ctl"), dir.join("ack"));
        for fifo in [&ctl, &ack] {
            let made = std::process::Command::new("mkfifo").arg(fifo).status();
            assert!(made.unwrap().success(), "mkfifo {}", fifo.display());
        }
        let value = format!("perf:{},{}", ctl.display(), ack.display());
        let Err(alone) = parse(&value) else {
            panic!("nobody reads the control FIFO yet");
        };
        assert!(
            alone.contains("nobody reads perf's control FIFO"),
            "{alone}"
        );
        let both = |path: &std::path::Path| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
                .unwrap()
        };
        let (mut perf_ctl, mut perf_ack) = (both(&ctl), both(&ack));
        let perf = std::thread::spawn(move || {
            let mut heard = Vec::new();
            let mut buf = [0u8; 64];
            while heard.iter().filter(|b| **b == b'\n').count() < 2 {
                let n = perf_ctl.read(&mut buf).unwrap();
                heard.extend_from_slice(&buf[..n]);
                for _ in buf[..n].iter().filter(|b| **b == b'\n') {
                    perf_ack.write_all(b"ack\n\0").unwrap();
                }
            }
            String::from_utf8(heard).unwrap()
        });
        let Ok(Marker::Perf(control)) = parse(&value) else {
            panic!("{value} is perf's");
        };
        perf_command(&control, "enable");
        perf_command(&control, "disable");
        assert_eq!(perf.join().unwrap(), "enable\ndisable\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
