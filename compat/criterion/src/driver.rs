//! The bridge between criterion's call-as-you-go API and knotmeter's list-then-measure engine.
//!
//! criterion runs each benchmark the moment `bench_function` is called, inside closures that
//! borrow the set-up around them, so the closures cannot be kept for later. knotmeter needs
//! the whole list first (for `--list`, filters, `run_started`, the editor's tree). So:
//!
//! 1. **Listing.** [`main`] calls every group function with the driver in listing mode: each
//!    `bench_function` call becomes a [`Case`] (id, source line, throughput, budget) and its
//!    closure is not called. [`target`] numbers the target functions of each group, so each
//!    case remembers which `fn(&mut Criterion)` declared it.
//! 2. **Replaying.** To measure a case, the engine calls [`replay`] with a bencher. It runs that
//!    case's group function again with a frame on the replay stack naming the case; [`target`]
//!    skips every other target function, and the one `bench_function` call whose id matches
//!    gets the bencher and calls its closure. The stack lets replays nest, which a paired
//!    comparison needs (the baseline's closure is still running when the member's replay
//!    starts).
//!
//! The bencher crosses from [`replay`] to the matching `bench_function` call through a
//! thread-local pointer, because the user's code in between does not pass it along; see the
//! safety note in [`bench`].

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, Location};
use std::process::ExitCode;
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::time::Duration;

use knotmeter::__private::{Case, ThroughputUnit};
use knotmeter::Bencher as EngineBencher;

/// The engine's bencher with its lifetime erased, as it sits on the replay stack.
type ErasedBencher = EngineBencher<'static>;

/// Where each listed case was declared: the group function and the target function in it.
#[derive(Debug, Clone)]
struct Origin {
    id: String,
    group: usize,
    target: usize,
}

/// Fixed once listing is done: the group functions and where each case came from.
struct Registry {
    groups: &'static [fn()],
    origins: Vec<Origin>,
}

static REGISTRY: OnceLock<Registry> = OnceLock::new();

/// One replay in progress: the case it is for, and the bencher until the case takes it.
struct Frame {
    id: String,
    target: usize,
    next_target: usize,
    bencher: Option<NonNull<ErasedBencher>>,
}

enum Mode {
    /// No driver: the group functions were called by something other than `criterion_main!`.
    Idle,
    /// Listing: cases are recorded, closures are not called.
    Listing {
        crate_name: String,
        group: usize,
        next_target: usize,
        current_target: usize,
        cases: Vec<(Case, Origin)>,
    },
    /// Replaying one case (or, nested, several).
    Replaying(Vec<Frame>),
}

thread_local! {
    static MODE: RefCell<Mode> = const { RefCell::new(Mode::Idle) };
}

/// The body of `fn main` written by `criterion_main!`: lists the groups' benchmarks and runs
/// the bench binary on knotmeter's engine. `module_path` is the bench target's crate name.
pub fn main(
    debug_assertions: bool,
    module_path: &'static str,
    groups: &'static [fn()],
) -> ExitCode {
    let crate_name = module_path
        .split("::")
        .next()
        .unwrap_or(module_path)
        .to_owned();
    knotmeter::__private::declared::main(debug_assertions, move || list(crate_name, groups))
}

/// Calls every group function in listing mode and returns the cases they declared.
fn list(crate_name: String, groups: &'static [fn()]) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (index, group) in groups.iter().enumerate() {
        MODE.with(|mode| {
            *mode.borrow_mut() = Mode::Listing {
                crate_name: crate_name.clone(),
                group: index,
                next_target: 0,
                current_target: 0,
                cases: Vec::new(),
            }
        });
        let listed = panic::catch_unwind(AssertUnwindSafe(group));
        let mode = MODE.with(|mode| std::mem::replace(&mut *mode.borrow_mut(), Mode::Idle));
        if let Err(payload) = listed {
            return Err(format!(
                "the benchmark group function #{} of `criterion_main!` panicked while its \
                 benchmarks were listed ({}): the code around the `bench_function` calls runs \
                 to list them, so it must not panic",
                index + 1,
                panic_message(&*payload)
            ));
        }
        if let Mode::Listing { cases: listed, .. } = mode {
            cases.extend(listed);
        }
    }
    let origins = cases.iter().map(|(_, origin)| origin.clone()).collect();
    if REGISTRY.set(Registry { groups, origins }).is_err() {
        return Err("`criterion_main!`'s main ran twice in one process".to_owned());
    }
    // Each case's `index` is its place among all the groups' cases: what `replay` looks up.
    Ok(cases
        .into_iter()
        .enumerate()
        .map(|(index, (case, _))| Case { index, ..case })
        .collect())
}

/// Runs one target function of a group (`criterion_group!` calls this for each target): always
/// when listing or without a driver, and during a replay only if it declared the case replayed.
pub fn target<C>(criterion: &mut C, function: impl FnOnce(&mut C)) {
    let run = MODE.with(|mode| match &mut *mode.borrow_mut() {
        Mode::Idle => true,
        Mode::Listing {
            next_target,
            current_target,
            ..
        } => {
            *current_target = *next_target;
            *next_target += 1;
            true
        }
        Mode::Replaying(frames) => {
            let frame = frames.last_mut().expect("a replay has a frame");
            let this = frame.next_target;
            frame.next_target += 1;
            this == frame.target
        }
    });
    if run {
        function(criterion);
    }
}

/// Measures listed case `index` with `bencher`: the engine's `run` function for every case
/// declared through criterion's API.
fn replay(bencher: &mut EngineBencher<'_>, index: usize) {
    let registry = REGISTRY
        .get()
        .expect("cases are replayed only after listing");
    let origin = &registry.origins[index];
    let frame = Frame {
        id: origin.id.clone(),
        target: origin.target,
        next_target: 0,
        bencher: Some(NonNull::from(bencher).cast::<ErasedBencher>()),
    };
    let guard = FrameGuard::push(frame);
    (registry.groups[origin.group])();
    let reached = guard.pop();
    if !reached {
        panic!(
            "`{}` was listed, but when its group function ran again it did not declare it: \
             benchmark ids must come out the same every time the group function runs",
            origin.id
        );
    }
}

/// Pops its frame when dropped, also when the benchmark panics.
struct FrameGuard {
    popped: bool,
}

impl FrameGuard {
    fn push(frame: Frame) -> Self {
        MODE.with(|mode| {
            let mut mode = mode.borrow_mut();
            match &mut *mode {
                Mode::Replaying(frames) => frames.push(frame),
                _ => *mode = Mode::Replaying(vec![frame]),
            }
        });
        FrameGuard { popped: false }
    }

    /// Pops the frame; true when its case took the bencher.
    fn pop(mut self) -> bool {
        self.popped = true;
        pop_frame()
    }
}

impl Drop for FrameGuard {
    fn drop(&mut self) {
        if !self.popped {
            pop_frame();
        }
    }
}

fn pop_frame() -> bool {
    MODE.with(|mode| {
        let mut mode = mode.borrow_mut();
        let Mode::Replaying(frames) = &mut *mode else {
            return false;
        };
        let reached = frames.pop().is_some_and(|frame| frame.bencher.is_none());
        if frames.is_empty() {
            *mode = Mode::Idle;
        }
        reached
    })
}

/// What a `bench_function` or `bench_with_input` call declares.
pub(crate) struct Declaration<'a> {
    /// The criterion group's name; `None` for `Criterion::bench_function`.
    pub(crate) group: Option<&'a str>,
    /// The function part of the id.
    pub(crate) function: Option<&'a str>,
    /// The parameter part of the id.
    pub(crate) parameter: Option<&'a str>,
    /// Work per iteration.
    pub(crate) throughput: Option<(ThroughputUnit, u64)>,
    /// The time budget from `measurement_time` and `warm_up_time`, when set.
    pub(crate) budget: Option<Duration>,
    /// The opt-in comparison: the function name of the group's baseline.
    pub(crate) compare_against: Option<&'a str>,
    /// The call site.
    pub(crate) location: &'static Location<'static>,
}

impl Declaration<'_> {
    /// criterion's id: group, function and parameter joined with `/`.
    fn criterion_id(&self) -> String {
        [self.group, self.function, self.parameter]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("/")
    }

    fn case(&self, crate_name: &str, index: usize) -> Case {
        let bench = [self.group, self.function]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("/");
        let bench_id = format!("{crate_name}::{bench}");
        let name = self.function.or(self.group).unwrap_or_default().to_owned();
        let id = match self.parameter {
            Some(parameter) => format!("{bench_id}/{parameter}"),
            None => bench_id.clone(),
        };
        let compared = self.compare_against.is_some() && self.group.is_some();
        Case {
            id,
            bench_id,
            name,
            args: self.parameter.map(str::to_owned),
            group: self.group.filter(|_| compared).map(str::to_owned),
            baseline: compared && self.function == self.compare_against,
            file: self.location.file().to_owned(),
            line: self.location.line(),
            throughput: self.throughput,
            budget: self.budget,
            run: replay,
            index,
        }
    }
}

/// One `bench_function` call: recorded when listing, measured when it is the case replayed,
/// skipped otherwise.
pub(crate) fn bench(declaration: Declaration<'_>, f: &mut dyn FnMut(&mut ErasedBencher)) {
    enum Action {
        Skip,
        Measure(NonNull<ErasedBencher>),
        NoDriver,
    }
    let action = MODE.with(|mode| match &mut *mode.borrow_mut() {
        Mode::Idle => Action::NoDriver,
        Mode::Listing {
            crate_name,
            group,
            current_target,
            cases,
            ..
        } => {
            // The index is set once every group is listed.
            let case = declaration.case(crate_name, 0);
            let origin = Origin {
                id: case.id.clone(),
                group: *group,
                target: *current_target,
            };
            cases.push((case, origin));
            Action::Skip
        }
        Mode::Replaying(frames) => {
            let frame = frames.last_mut().expect("a replay has a frame");
            let crate_name = frame.id.split("::").next().unwrap_or_default();
            if frame.bencher.is_some() && declaration.case(crate_name, 0).id == frame.id {
                Action::Measure(frame.bencher.take().expect("checked"))
            } else {
                Action::Skip
            }
        }
    });
    match action {
        Action::Skip => {}
        Action::NoDriver => panic!(
            "knotmeter-criterion: `{}` was called outside `criterion_main!`; knotmeter lists \
             and runs criterion benchmarks from the `main` that `criterion_main!(your_groups)` \
             writes, so call your group functions through it rather than from your own `main`",
            declaration.criterion_id()
        ),
        Action::Measure(mut bencher) => {
            // SAFETY: the pointer was made in `replay` from the `&mut EngineBencher` it was
            // given, and `replay` is still on the stack (it only returns after the group function
            // that led here does), so the bencher is alive and nothing else uses it: `replay`
            // holds no reference to it, and the frame gave the pointer out once (`take`). The
            // lifetime was erased only to store it; the reference made here lives for this call
            // only, and the closure cannot keep it (it takes `&mut Bencher<'_>` for any
            // lifetime).
            let bencher = unsafe { bencher.as_mut() };
            f(bencher);
        }
    }
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}
