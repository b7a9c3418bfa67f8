//! Graceful cancellation: stop at the next sample boundary and report what was measured.
//!
//! The first SIGINT or SIGTERM sets [`CANCEL`]; the sampler checks it between samples, the
//! runner reports the case in progress as partial and skips the rest. A second SIGINT ends the
//! process at once (exit status 130), for a run stuck outside the engine. With
//! `--stdin-cancel` (what the daemon passes), the end of standard input cancels too, so a bench
//! binary never outlives the tool that started it.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the run is cancelled.
pub(crate) static CANCEL: AtomicBool = AtomicBool::new(false);

/// Installs the signal handlers and, with `stdin_cancel`, the standard-input watcher.
pub(crate) fn install(stdin_cancel: bool) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        // The shutdown must be registered first: it acts only once the flag is already set.
        let registered = flag::register_conditional_shutdown(SIGINT, 130, &CANCEL)
            .and_then(|_| flag::register(SIGINT, &CANCEL))
            .and_then(|_| flag::register(SIGTERM, &CANCEL));
        if let Err(err) = registered {
            eprintln!("knotmeter: cannot install signal handlers ({err}); Ctrl-C will end the run abruptly");
        }
    }
    if stdin_cancel {
        std::thread::spawn(|| {
            let mut buffer = [0u8; 256];
            let mut stdin = io::stdin();
            // Anything written is ignored; end of input or an error means the parent is gone.
            while matches!(stdin.read(&mut buffer), Ok(n) if n > 0) {}
            CANCEL.store(true, Ordering::SeqCst);
        });
    }
}

/// True once cancellation was requested.
pub(crate) fn requested() -> bool {
    CANCEL.load(Ordering::Relaxed)
}
