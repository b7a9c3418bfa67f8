//! What a bench binary prints, on its way to a front end: lines gathered into batches (one
//! [`JobEvent::Printed`], so one `knotmeter/output` notification, for many lines), and
//! bounded in memory however fast the benchmark prints and however slowly the front end
//! shows it.
//!
//! A benchmark may print 100 MB in a second, while a terminal shows a few MB a second and an
//! editor less. Before, every line was one event held until it was shown: 364 MB resident for
//! 100 MB printed to a slow standard error, and a million notifications. Now:
//!
//! - a line waits at most [`GATHER`] for others to join it, and a batch carries at most
//!   [`BATCH_BYTES`] of text;
//! - at most [`IN_FLIGHT_BYTES`] of printed text are on their way (sent, not yet shown): each
//!   batch holds its share of a semaphore ([`Held`]) until the front end has written it;
//! - at most [`PENDING_BYTES`] wait here for their turn. Past that the oldest waiting lines
//!   are dropped, and the batch that follows them says so first: `… N bytes (M lines) of output
//!   dropped: printed faster than it could be shown`. The start of the output went out before
//!   the front end fell behind, and its end is what waits, so both are kept; the run ends with
//!   the total dropped.
//!
//! A line longer than [`MAX_LINE_BYTES`] is cut as it is read ([`super::LineReader`]).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use knotmeter_format::units::group_digits;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::{JobEvent, Tracker};

/// The longest line of printed text kept whole; the rest of a longer line is dropped as it is
/// read, and the line says how much.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The most printed text one event (one notification) carries.
pub(crate) const BATCH_BYTES: usize = 256 * 1024;

/// The most printed text on its way to the front end and not yet shown by it.
pub(crate) const IN_FLIGHT_BYTES: usize = 1024 * 1024;

/// The most printed text waiting for room among [`IN_FLIGHT_BYTES`]; past it the oldest
/// waiting lines are dropped.
pub(crate) const PENDING_BYTES: usize = 1024 * 1024;

/// How long a printed line waits for others to join its batch.
pub(crate) const GATHER: Duration = Duration::from_millis(50);

/// How long to wait before trying again when there was no room in flight (trying at every
/// line read would cost more than the reading).
const RETRY: Duration = Duration::from_millis(10);

/// What a waiting line costs besides its text (its `String` and its place in the queue), so
/// that a flood of empty lines is bounded too.
const LINE_OVERHEAD: usize = 32;

/// A batch's share of the printed text in flight, given back when the last clone is dropped:
/// hold it until the text has been written. Compares equal to any other (it is no content).
#[derive(Clone, Default)]
pub struct Held(Option<Arc<OwnedSemaphorePermit>>);

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(permit) => write!(f, "Held({} bytes)", permit.num_permits()),
            None => f.write_str("Held(none)"),
        }
    }
}

impl PartialEq for Held {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Consecutive lines of one case (or of none), waiting to be sent.
#[derive(Debug, Default)]
struct Batch {
    id: Option<String>,
    lines: VecDeque<String>,
    /// The text of `lines`, with a line break each.
    bytes: usize,
    /// Bytes and lines dropped from the front of this batch.
    dropped_bytes: u64,
    dropped_lines: u64,
}

impl Batch {
    /// The marker said before this batch's lines when some were dropped.
    fn marker(&self) -> Option<String> {
        (self.dropped_lines > 0).then(|| {
            format!(
                "… {} bytes ({} lines) of output dropped: printed faster than it could be shown",
                group_digits(self.dropped_bytes),
                group_digits(self.dropped_lines)
            )
        })
    }

    /// How many of the front lines fit in `limit` bytes of text (at least one), and that text's
    /// length with the marker.
    fn fitting(&self, limit: usize) -> (usize, usize) {
        let mut bytes = self.marker().map_or(0, |m| m.len() + 1);
        let mut count = 0;
        for line in &self.lines {
            if count > 0 && bytes + line.len() + 1 > limit {
                break;
            }
            bytes += line.len() + 1;
            count += 1;
        }
        (count, bytes)
    }

    /// The marker, if any, and the first `count` lines as one text.
    fn take(&mut self, count: usize) -> String {
        let lines: Vec<String> = self.lines.drain(..count).collect();
        self.bytes -= lines.iter().map(|l| l.len() + 1).sum::<usize>();
        let marker = self.marker();
        self.dropped_bytes = 0;
        self.dropped_lines = 0;
        marker
            .into_iter()
            .chain(lines)
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped_lines == 0
    }
}

/// The printed text of one bench binary's process, between its pipes and the job's sink.
#[derive(Debug)]
pub(super) struct Outflow {
    budget: Arc<Semaphore>,
    waiting: VecDeque<Batch>,
    /// What the waiting lines cost, with [`LINE_OVERHEAD`] each.
    waiting_cost: usize,
    /// When the oldest waiting line arrived (or the last batch went).
    since: Option<Instant>,
    /// When there was no room in flight: when to try again.
    retry_at: Option<Instant>,
    /// Everything dropped in this process's run.
    dropped_bytes: u64,
    dropped_lines: u64,
}

impl Default for Outflow {
    fn default() -> Self {
        Self {
            budget: Arc::new(Semaphore::new(IN_FLIGHT_BYTES)),
            waiting: VecDeque::new(),
            waiting_cost: 0,
            since: None,
            retry_at: None,
            dropped_bytes: 0,
            dropped_lines: 0,
        }
    }
}

impl Outflow {
    /// A line printed by case `id` (or outside any case), read at `now`.
    pub(super) fn push(&mut self, id: Option<String>, line: String, now: Instant) {
        self.waiting_cost += line.len() + LINE_OVERHEAD;
        match self.waiting.back_mut() {
            Some(batch) if batch.id == id => {
                batch.bytes += line.len() + 1;
                batch.lines.push_back(line);
            }
            _ => self.waiting.push_back(Batch {
                id,
                bytes: line.len() + 1,
                lines: VecDeque::from([line]),
                ..Batch::default()
            }),
        }
        self.since.get_or_insert(now);
        while self.waiting_cost > PENDING_BYTES && self.drop_oldest() {}
    }

    /// Drops the oldest waiting line, counting it in its batch; false when none waits.
    fn drop_oldest(&mut self) -> bool {
        let Some(batch) = self.waiting.iter_mut().find(|b| !b.lines.is_empty()) else {
            return false;
        };
        let line = batch.lines.pop_front().expect("a batch with lines");
        batch.bytes -= line.len() + 1;
        batch.dropped_bytes += line.len() as u64 + 1;
        batch.dropped_lines += 1;
        self.dropped_bytes += line.len() as u64 + 1;
        self.dropped_lines += 1;
        self.waiting_cost -= line.len() + LINE_OVERHEAD;
        true
    }

    /// When to look again: when to retry after finding no room, or when the oldest waiting
    /// line's batch is due. `None` when nothing waits.
    pub(super) fn wake_at(&self) -> Option<Instant> {
        self.retry_at.or(self.since.map(|since| since + GATHER))
    }

    /// Sends the batches that are due and for which there is room in flight: a batch followed
    /// by another case's, a full one, or one whose oldest line waited [`GATHER`].
    pub(super) fn send_due(&mut self, tracker: &mut Tracker<'_>, now: Instant) {
        if self.retry_at.is_some_and(|at| now < at) {
            return;
        }
        self.retry_at = None;
        while let Some(front) = self.waiting.front() {
            let due = self.waiting.len() > 1
                || front.bytes >= BATCH_BYTES
                || self.since.is_some_and(|since| since + GATHER <= now);
            if !due {
                return;
            }
            let (count, bytes) = front.fitting(BATCH_BYTES);
            let permits = u32::try_from(bytes.max(1)).unwrap_or(u32::MAX);
            let Ok(permit) = Arc::clone(&self.budget).try_acquire_many_owned(permits) else {
                self.retry_at = Some(now + RETRY);
                return;
            };
            self.send_front(tracker, count, Held(Some(Arc::new(permit))), now);
        }
    }

    /// Sends everything still waiting, room or not (the process has ended, so no more
    /// comes), and says what was dropped.
    pub(super) fn finish(&mut self, tracker: &mut Tracker<'_>) {
        let now = Instant::now();
        while let Some(front) = self.waiting.front() {
            let (count, bytes) = front.fitting(BATCH_BYTES);
            let permits = u32::try_from(bytes.max(1)).unwrap_or(u32::MAX);
            let held = Arc::clone(&self.budget)
                .try_acquire_many_owned(permits)
                .map_or_else(|_| Held::default(), |p| Held(Some(Arc::new(p))));
            self.send_front(tracker, count, held, now);
        }
        if self.dropped_lines > 0 {
            tracker.output(
                None,
                format!(
                    "knotmeter: {} bytes ({} lines) of what the bench binary printed were \
                     dropped: it printed faster than it could be shown (at most {} MiB wait)",
                    group_digits(self.dropped_bytes),
                    group_digits(self.dropped_lines),
                    (IN_FLIGHT_BYTES + PENDING_BYTES) / (1024 * 1024)
                ),
            );
            self.dropped_bytes = 0;
            self.dropped_lines = 0;
        }
    }

    /// Sends the first `count` lines of the front batch with `held`.
    fn send_front(&mut self, tracker: &mut Tracker<'_>, count: usize, held: Held, now: Instant) {
        let Some(front) = self.waiting.front_mut() else {
            return;
        };
        let cost: usize = front
            .lines
            .iter()
            .take(count)
            .map(|l| l.len() + LINE_OVERHEAD)
            .sum();
        let text = front.take(count);
        let id = front.id.clone();
        self.waiting_cost -= cost;
        if front.is_empty() {
            self.waiting.pop_front();
        }
        self.since = (!self.waiting.is_empty()).then_some(now);
        (tracker.sink)(JobEvent::Printed { id, text, held });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::Sink;
    use std::collections::HashSet;
    use std::sync::Mutex;

    /// A tracker whose events land in `events`.
    fn collect(events: &Arc<Mutex<Vec<JobEvent>>>) -> Sink {
        let events = Arc::clone(events);
        Box::new(move |e| events.lock().unwrap().push(e))
    }

    fn printed(events: &Arc<Mutex<Vec<JobEvent>>>) -> Vec<(Option<String>, String)> {
        events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                JobEvent::Printed { id, text, .. } => Some((id.clone(), text.clone())),
                _ => None,
            })
            .collect()
    }

    /// Lines of one case go out together after [`GATHER`]; another case's line closes the
    /// batch before it, so each batch is one case's.
    #[test]
    fn lines_are_gathered_per_case() {
        let events = Arc::new(Mutex::new(Vec::new()));
        let mut sink = collect(&events);
        let mut tracker = Tracker::new(&mut sink);
        let mut flow = Outflow::default();
        let t0 = Instant::now();
        flow.push(Some("a".into()), "one".into(), t0);
        flow.push(Some("a".into()), "two".into(), t0);
        flow.send_due(&mut tracker, t0);
        assert!(printed(&events).is_empty(), "not due yet");
        flow.push(Some("b".into()), "three".into(), t0);
        flow.send_due(&mut tracker, t0);
        assert_eq!(printed(&events), [(Some("a".into()), "one\ntwo".into())]);
        flow.send_due(&mut tracker, t0 + GATHER);
        assert_eq!(printed(&events).len(), 2);
        assert_eq!(flow.wake_at(), None);
    }

    /// With nothing shown (every batch still held), the flow stops at [`IN_FLIGHT_BYTES`],
    /// keeps the newest [`PENDING_BYTES`] and says how much it dropped between the two; once
    /// the front end has written what it holds, the rest goes out.
    #[test]
    fn a_front_end_that_falls_behind_gets_the_start_the_end_and_what_was_dropped() {
        let events = Arc::new(Mutex::new(Vec::new()));
        let mut sink = collect(&events);
        let mut tracker = Tracker::new(&mut sink);
        let mut flow = Outflow::default();
        let t0 = Instant::now();
        let line = "x".repeat(99);
        let lines = 100_000;
        for i in 0..lines {
            let text = match i {
                0 => "first".to_owned(),
                i if i == lines - 1 => "last".to_owned(),
                _ => line.clone(),
            };
            flow.push(None, text, t0);
            flow.send_due(&mut tracker, t0);
        }
        let sent: usize = printed(&events).iter().map(|(_, t)| t.len() + 1).sum();
        assert!(sent <= IN_FLIGHT_BYTES, "{sent} bytes in flight");
        assert!(flow.waiting_cost <= PENDING_BYTES);
        // The front end writes what it was sent: room again.
        events.lock().unwrap().clear();
        flow.send_due(&mut tracker, t0 + GATHER);
        flow.finish(&mut tracker);
        let after = printed(&events);
        assert!(after[0].1.starts_with("… "), "{}", &after[0].1[..100]);
        assert!(after[0].1.contains("of output dropped"));
        assert!(after.last().unwrap().1.ends_with("last"));
        let outputs: HashSet<String> = events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                JobEvent::Output { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect();
        assert!(
            outputs.iter().any(|t| t.contains("were dropped")),
            "{outputs:?}"
        );
    }
}
