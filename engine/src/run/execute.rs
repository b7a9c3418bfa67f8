//! Running benchmark functions: one alone, or two nested for a paired measurement, each under
//! `catch_unwind` so that a panic fails its own case and nothing else.
//!
//! A paired measurement needs both benchmarks' samplers alive at once. The baseline's function
//! runs first; when it calls `iter`, its sampler is handed to a closure that runs the member's
//! function, whose `iter` hands over the second sampler, and the pair is measured there, with
//! both closures' stack frames (and the set-up they captured) still alive.
//!
//! A panic on another thread while a case runs (one the benchmark spawned) fails the case too
//! (see `panics`); during a paired measurement it fails both sides, since either could have
//! spawned the thread.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

use super::panics::{self, ThreadPanic};

use knotmeter_protocol::{CaseFailure, FailureKind};

use crate::bencher::Bencher;
use crate::count;
use crate::measure::{self, MeasureConfig, Measurement, Progress, Sampler, Timer};
use crate::registry::Case;

/// A measured case: its measurement, and whether it called a timing method more than once.
pub(crate) type Outcome = Result<(Measurement, bool), CaseFailure>;

/// Runs `case` alone.
pub(crate) fn single(
    case: &Case,
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let mut measured = None;
    let mut consume = |sampler: &mut dyn Sampler| {
        measured = Some(if count::active() {
            count::measure(cfg, progress, sampler, &mut count::last_batch)
        } else {
            Ok(measure::measure(cfg, progress, sampler))
        });
    };
    let calls = with_sampler(case, cfg.timer, &mut consume)?;
    match measured {
        Some(Ok(m)) => Ok((m, calls > 1)),
        Some(Err(why)) => Err(not_counted(case, why)),
        None => Err(not_measured(case)),
    }
}

/// Runs `case`'s function under `catch_unwind`, handing what it times to `consume`; returns
/// how many times it called a timing method (only the first reaches `consume`), or its
/// failure: its own panic (also one that `consume` raised), or a panic in a thread it started.
/// A function that returns without calling a timing method returns `Ok(0)`.
pub(crate) fn with_sampler(
    case: &Case,
    timer: Timer,
    consume: &mut dyn FnMut(&mut dyn Sampler),
) -> Result<u32, CaseFailure> {
    let mut bencher = Bencher::new(timer, consume);
    let ran = panic::catch_unwind(AssertUnwindSafe(|| {
        panics::in_case(&[&case.id], || (case.run)(&mut bencher, case.index))
    }));
    let calls = bencher.calls();
    let threads = panics::take_thread_panics();
    if !threads.is_empty() {
        let own = ran.is_err().then(panics::take_case_panic).flatten();
        return Err(thread_panicked(case, &threads, own));
    }
    match ran {
        Err(_) => Err(panicked(case)),
        Ok(()) => Ok(calls),
    }
}

/// Runs `base` and `member` nested and measures them paired. When one side fails, the other
/// side's outcome says it was not measured (`None`): the caller measures it alone.
pub(crate) fn pair(
    base: &Case,
    member: &Case,
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(&Progress),
) -> (Option<Outcome>, Option<Outcome>) {
    let measured: RefCell<Option<(Measurement, Measurement)>> = RefCell::new(None);
    let in_member = Cell::new(false);
    let member_end: RefCell<Option<Outcome>> = RefCell::new(None);
    let member_twice = Cell::new(false);
    let mut consume_base = |base_sampler: &mut dyn Sampler| {
        in_member.set(true);
        let mut consume_member = |member_sampler: &mut dyn Sampler| {
            let precise = |b: &measure::Measurement, m: &measure::Measurement| {
                crate::compare::pair_is_precise(b, m, cfg.target_precision)
            };
            *measured.borrow_mut() = Some(measure::measure_pair(
                cfg,
                progress,
                base_sampler,
                member_sampler,
                &precise,
            ));
        };
        let mut bencher = Bencher::new(cfg.timer, &mut consume_member);
        (member.run)(&mut bencher, member.index);
        if bencher.calls() == 0 {
            *member_end.borrow_mut() = Some(Err(not_measured(member)));
        }
        member_twice.set(bencher.calls() > 1);
        in_member.set(false);
    };
    let mut bencher = Bencher::new(cfg.timer, &mut consume_base);
    let ran = panic::catch_unwind(AssertUnwindSafe(|| {
        panics::in_case(&[&base.id, &member.id], || {
            (base.run)(&mut bencher, base.index)
        })
    }));
    let base_calls = bencher.calls();
    let threads = panics::take_thread_panics();
    if !threads.is_empty() {
        let own = ran.is_err().then(panics::take_case_panic).flatten();
        return (
            Some(Err(thread_panicked(base, &threads, own.clone()))),
            Some(Err(thread_panicked(member, &threads, own))),
        );
    }
    let member_end = member_end.into_inner();
    let measured = measured.into_inner();
    match (ran, measured) {
        (Err(_), _) if in_member.get() => (None, Some(Err(panicked(member)))),
        (Err(_), Some((_, m))) => (Some(Err(panicked(base))), Some(Ok((m, member_twice.get())))),
        (Err(_), None) => (Some(Err(panicked(base))), None),
        (Ok(()), _) if base_calls == 0 => (Some(Err(not_measured(base))), None),
        (Ok(()), _) if member_end.is_some() => (None, member_end),
        (Ok(()), Some((b, m))) => (
            Some(Ok((b, base_calls > 1))),
            Some(Ok((m, member_twice.get()))),
        ),
        (Ok(()), None) => (None, None),
    }
}

fn panicked(case: &Case) -> CaseFailure {
    let (message, location) =
        panics::take_case_panic().unwrap_or_else(|| ("panicked".to_owned(), None));
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Panic,
        message,
        location,
    }
}

/// The failure of a case during which other threads panicked; `own` is the benchmark
/// thread's own panic, if it panicked too (often because it joined a panicked thread).
fn thread_panicked(
    case: &Case,
    threads: &[ThreadPanic],
    own: Option<panics::Panic>,
) -> CaseFailure {
    let first = &threads[0];
    let mut message = format!("a thread of this benchmark panicked: {}", first.describe());
    if threads.len() > 1 {
        message.push_str(&format!(
            " (and {} more panics in threads)",
            threads.len() - 1
        ));
    }
    if let Some((own, _)) = own {
        message.push_str(&format!("; then the benchmark itself panicked: {own}"));
    }
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Panic,
        message,
        location: first.location.clone(),
    }
}

/// The failure of a case whose function returned without calling a timing method.
pub(crate) fn not_measured(case: &Case) -> CaseFailure {
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Misuse,
        message: "the benchmark returned without calling `b.iter`, `b.iter_async` or `b.with_inputs(..).run`".into(),
        location: Some(format!("{}:{}", case.file, case.line)),
    }
}

/// The failure of a case whose instructions could not be counted.
fn not_counted(case: &Case, why: String) -> CaseFailure {
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Misuse,
        message: format!("its instructions could not be counted: {why}"),
        location: None,
    }
}

/// The failure of a case the run was cancelled before it could sample.
pub(crate) fn cancelled(case: &Case) -> CaseFailure {
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Cancelled,
        message: "the run was cancelled before this case took a sample".into(),
        location: None,
    }
}
