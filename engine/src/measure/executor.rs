//! A minimal executor for `#[bench] async fn`: the future is polled on the benchmark's thread,
//! inside the timed region.
//!
//! The waker unparks the benchmark thread, so a future completed by another thread (a channel,
//! a thread pool) wakes it; a future that needs a runtime's reactor (tokio's timers or sockets)
//! needs that runtime instead: see the crate docs for benching with tokio. The waker is built
//! once per case, outside the timed loop, so blocking allocates nothing.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// A waker for the current thread, made once and reused for every operation.
pub(crate) fn current_thread_waker() -> Waker {
    Waker::from(Arc::new(ThreadWaker(thread::current())))
}

/// Polls `future` to completion on this thread, parking while it is pending.
#[inline(always)]
pub(crate) fn block_on<F: Future>(waker: &Waker, future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn ready_future_completes() {
        let waker = current_thread_waker();
        assert_eq!(block_on(&waker, async { 41 + 1 }), 42);
    }

    #[test]
    fn future_woken_by_another_thread_completes() {
        struct Flag(mpsc::Receiver<u32>, Option<Waker>);
        impl Future for Flag {
            type Output = u32;
            fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
                match self.0.try_recv() {
                    Ok(v) => Poll::Ready(v),
                    Err(_) => {
                        self.1 = Some(cx.waker().clone());
                        Poll::Pending
                    }
                }
            }
        }
        let (tx, rx) = mpsc::channel();
        let main = thread::current();
        let sender = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            tx.send(7).unwrap();
            main.unpark();
        });
        let waker = current_thread_waker();
        assert_eq!(block_on(&waker, Flag(rx, None)), 7);
        sender.join().unwrap();
    }
}
